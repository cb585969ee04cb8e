# Empty dependencies file for bench_zb_paths.
# This may be replaced when dependencies are built.
