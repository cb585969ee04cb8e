# Empty dependencies file for bench_fit.
# This may be replaced when dependencies are built.
