file(REMOVE_RECURSE
  "CMakeFiles/test_calculon.dir/test_calculon.c.o"
  "CMakeFiles/test_calculon.dir/test_calculon.c.o.d"
  "test_calculon"
  "test_calculon.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_calculon.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
