# Empty dependencies file for test_power.
# This may be replaced when dependencies are built.
