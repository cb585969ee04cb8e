# Empty dependencies file for test_energy.
# This may be replaced when dependencies are built.
