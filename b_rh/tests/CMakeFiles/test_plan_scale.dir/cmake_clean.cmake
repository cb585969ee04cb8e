file(REMOVE_RECURSE
  "CMakeFiles/test_plan_scale.dir/test_plan_scale.c.o"
  "CMakeFiles/test_plan_scale.dir/test_plan_scale.c.o.d"
  "test_plan_scale"
  "test_plan_scale.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_plan_scale.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
