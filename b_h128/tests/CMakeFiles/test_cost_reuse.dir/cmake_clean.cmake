file(REMOVE_RECURSE
  "CMakeFiles/test_cost_reuse.dir/test_cost_reuse.c.o"
  "CMakeFiles/test_cost_reuse.dir/test_cost_reuse.c.o.d"
  "test_cost_reuse"
  "test_cost_reuse.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cost_reuse.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
