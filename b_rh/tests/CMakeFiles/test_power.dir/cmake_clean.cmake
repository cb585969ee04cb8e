file(REMOVE_RECURSE
  "CMakeFiles/test_power.dir/test_power.c.o"
  "CMakeFiles/test_power.dir/test_power.c.o.d"
  "test_power"
  "test_power.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_power.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
