# Empty compiler generated dependencies file for bench_fit_kernels.
# This may be replaced when dependencies are built.
