# Empty compiler generated dependencies file for bench_dvfs_crossval.
# This may be replaced when dependencies are built.
