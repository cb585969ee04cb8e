# Empty compiler generated dependencies file for test_replay_clocks.
# This may be replaced when dependencies are built.
