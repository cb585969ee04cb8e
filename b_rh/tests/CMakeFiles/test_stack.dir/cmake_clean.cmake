file(REMOVE_RECURSE
  "CMakeFiles/test_stack.dir/test_stack.c.o"
  "CMakeFiles/test_stack.dir/test_stack.c.o.d"
  "test_stack"
  "test_stack.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_stack.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
