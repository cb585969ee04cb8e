# Empty compiler generated dependencies file for test_stack.
# This may be replaced when dependencies are built.
