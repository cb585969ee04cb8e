file(REMOVE_RECURSE
  "CMakeFiles/test_sweep_fast.dir/test_sweep_fast.c.o"
  "CMakeFiles/test_sweep_fast.dir/test_sweep_fast.c.o.d"
  "test_sweep_fast"
  "test_sweep_fast.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sweep_fast.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
