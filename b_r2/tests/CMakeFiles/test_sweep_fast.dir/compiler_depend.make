# Empty compiler generated dependencies file for test_sweep_fast.
# This may be replaced when dependencies are built.
