file(REMOVE_RECURSE
  "CMakeFiles/bench_power_check.dir/bench/power_check.c.o"
  "CMakeFiles/bench_power_check.dir/bench/power_check.c.o.d"
  "bench_power_check"
  "bench_power_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_power_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
