# Empty compiler generated dependencies file for bench_fit_power.
# This may be replaced when dependencies are built.
