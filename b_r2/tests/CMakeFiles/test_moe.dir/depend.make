# Empty dependencies file for test_moe.
# This may be replaced when dependencies are built.
