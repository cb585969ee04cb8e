file(REMOVE_RECURSE
  "CMakeFiles/test_plan.dir/test_plan.c.o"
  "CMakeFiles/test_plan.dir/test_plan.c.o.d"
  "test_plan"
  "test_plan.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_plan.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
