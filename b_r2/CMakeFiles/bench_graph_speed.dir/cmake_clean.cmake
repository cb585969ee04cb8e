file(REMOVE_RECURSE
  "CMakeFiles/bench_graph_speed.dir/bench/graph_speed.c.o"
  "CMakeFiles/bench_graph_speed.dir/bench/graph_speed.c.o.d"
  "bench_graph_speed"
  "bench_graph_speed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_graph_speed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
