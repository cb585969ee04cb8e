# Empty dependencies file for test_replay_lanes.
# This may be replaced when dependencies are built.
