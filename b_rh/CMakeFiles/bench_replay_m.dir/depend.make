# Empty dependencies file for bench_replay_m.
# This may be replaced when dependencies are built.
