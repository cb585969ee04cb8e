# Empty dependencies file for test_calculon.
# This may be replaced when dependencies are built.
