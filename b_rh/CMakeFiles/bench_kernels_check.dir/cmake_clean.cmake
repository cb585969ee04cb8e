file(REMOVE_RECURSE
  "CMakeFiles/bench_kernels_check.dir/bench/kernels_check.c.o"
  "CMakeFiles/bench_kernels_check.dir/bench/kernels_check.c.o.d"
  "bench_kernels_check"
  "bench_kernels_check.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_kernels_check.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
