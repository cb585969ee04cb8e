# Empty compiler generated dependencies file for test_replay_formula_zb.
# This may be replaced when dependencies are built.
