# Empty dependencies file for bench_sweep_bench.
# This may be replaced when dependencies are built.
