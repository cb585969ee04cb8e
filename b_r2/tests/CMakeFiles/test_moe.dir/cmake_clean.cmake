file(REMOVE_RECURSE
  "CMakeFiles/test_moe.dir/test_moe.c.o"
  "CMakeFiles/test_moe.dir/test_moe.c.o.d"
  "test_moe"
  "test_moe.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_moe.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
