file(REMOVE_RECURSE
  "CMakeFiles/test_serve.dir/test_serve.c.o"
  "CMakeFiles/test_serve.dir/test_serve.c.o.d"
  "test_serve"
  "test_serve.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_serve.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
