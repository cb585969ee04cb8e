# Empty compiler generated dependencies file for bench_graph_speed.
# This may be replaced when dependencies are built.
