# Empty compiler generated dependencies file for test_replay_v_sweep.
# This may be replaced when dependencies are built.
