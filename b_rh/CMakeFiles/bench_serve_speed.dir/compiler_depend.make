# Empty compiler generated dependencies file for bench_serve_speed.
# This may be replaced when dependencies are built.
