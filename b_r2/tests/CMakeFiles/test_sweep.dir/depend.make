# Empty dependencies file for test_sweep.
# This may be replaced when dependencies are built.
