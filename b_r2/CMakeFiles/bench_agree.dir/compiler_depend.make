# Empty compiler generated dependencies file for bench_agree.
# This may be replaced when dependencies are built.
