file(REMOVE_RECURSE
  "CMakeFiles/bench_fit.dir/bench/fit.c.o"
  "CMakeFiles/bench_fit.dir/bench/fit.c.o.d"
  "bench_fit"
  "bench_fit.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_fit.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
