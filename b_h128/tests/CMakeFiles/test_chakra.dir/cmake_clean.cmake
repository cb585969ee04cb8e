file(REMOVE_RECURSE
  "CMakeFiles/test_chakra.dir/test_chakra.c.o"
  "CMakeFiles/test_chakra.dir/test_chakra.c.o.d"
  "test_chakra"
  "test_chakra.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_chakra.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
