# Empty compiler generated dependencies file for test_chakra.
# This may be replaced when dependencies are built.
