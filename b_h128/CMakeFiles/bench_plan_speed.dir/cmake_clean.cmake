file(REMOVE_RECURSE
  "CMakeFiles/bench_plan_speed.dir/bench/plan_speed.c.o"
  "CMakeFiles/bench_plan_speed.dir/bench/plan_speed.c.o.d"
  "bench_plan_speed"
  "bench_plan_speed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_plan_speed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
