# Empty dependencies file for bench_speed.
# This may be replaced when dependencies are built.
