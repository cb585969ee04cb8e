# Empty compiler generated dependencies file for bench_plan_speed.
# This may be replaced when dependencies are built.
