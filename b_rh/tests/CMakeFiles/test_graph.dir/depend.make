# Empty dependencies file for test_graph.
# This may be replaced when dependencies are built.
