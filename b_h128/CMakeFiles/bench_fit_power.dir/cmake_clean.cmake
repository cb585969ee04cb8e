file(REMOVE_RECURSE
  "CMakeFiles/bench_fit_power.dir/bench/fit_power.c.o"
  "CMakeFiles/bench_fit_power.dir/bench/fit_power.c.o.d"
  "bench_fit_power"
  "bench_fit_power.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_fit_power.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
