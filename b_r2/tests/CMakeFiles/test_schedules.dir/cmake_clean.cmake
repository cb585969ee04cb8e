file(REMOVE_RECURSE
  "CMakeFiles/test_schedules.dir/test_schedules.c.o"
  "CMakeFiles/test_schedules.dir/test_schedules.c.o.d"
  "test_schedules"
  "test_schedules.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_schedules.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
