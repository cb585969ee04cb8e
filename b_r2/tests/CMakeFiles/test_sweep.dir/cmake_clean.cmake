file(REMOVE_RECURSE
  "CMakeFiles/test_sweep.dir/test_sweep.c.o"
  "CMakeFiles/test_sweep.dir/test_sweep.c.o.d"
  "test_sweep"
  "test_sweep.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sweep.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
