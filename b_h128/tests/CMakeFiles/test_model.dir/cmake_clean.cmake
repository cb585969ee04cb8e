file(REMOVE_RECURSE
  "CMakeFiles/test_model.dir/test_model.c.o"
  "CMakeFiles/test_model.dir/test_model.c.o.d"
  "test_model"
  "test_model.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
