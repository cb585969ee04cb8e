# Empty compiler generated dependencies file for test_serve.
# This may be replaced when dependencies are built.
