file(REMOVE_RECURSE
  "CMakeFiles/test_graph.dir/test_graph.c.o"
  "CMakeFiles/test_graph.dir/test_graph.c.o.d"
  "test_graph"
  "test_graph.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_graph.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
