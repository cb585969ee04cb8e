# Empty dependencies file for bench_kernels_check.
# This may be replaced when dependencies are built.
