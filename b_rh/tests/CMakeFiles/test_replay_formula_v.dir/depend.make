# Empty dependencies file for test_replay_formula_v.
# This may be replaced when dependencies are built.
