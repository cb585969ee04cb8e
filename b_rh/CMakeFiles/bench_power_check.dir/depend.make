# Empty dependencies file for bench_power_check.
# This may be replaced when dependencies are built.
