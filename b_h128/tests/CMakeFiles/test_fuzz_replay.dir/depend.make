# Empty dependencies file for test_fuzz_replay.
# This may be replaced when dependencies are built.
