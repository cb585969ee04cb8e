file(REMOVE_RECURSE
  "CMakeFiles/bench_sweep_bench.dir/bench/sweep_bench.c.o"
  "CMakeFiles/bench_sweep_bench.dir/bench/sweep_bench.c.o.d"
  "bench_sweep_bench"
  "bench_sweep_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_sweep_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
