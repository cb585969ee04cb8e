# Empty dependencies file for bench_fast_agree.
# This may be replaced when dependencies are built.
