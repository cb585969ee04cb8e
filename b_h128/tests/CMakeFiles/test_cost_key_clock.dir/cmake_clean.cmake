file(REMOVE_RECURSE
  "CMakeFiles/test_cost_key_clock.dir/test_cost_key_clock.c.o"
  "CMakeFiles/test_cost_key_clock.dir/test_cost_key_clock.c.o.d"
  "test_cost_key_clock"
  "test_cost_key_clock.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cost_key_clock.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
