# Empty compiler generated dependencies file for bench_validate.
# This may be replaced when dependencies are built.
