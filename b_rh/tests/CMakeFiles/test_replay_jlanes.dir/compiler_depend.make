# Empty compiler generated dependencies file for test_replay_jlanes.
# This may be replaced when dependencies are built.
