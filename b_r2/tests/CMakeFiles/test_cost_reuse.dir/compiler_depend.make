# Empty compiler generated dependencies file for test_cost_reuse.
# This may be replaced when dependencies are built.
