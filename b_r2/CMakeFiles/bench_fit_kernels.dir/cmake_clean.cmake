file(REMOVE_RECURSE
  "CMakeFiles/bench_fit_kernels.dir/bench/fit_kernels.c.o"
  "CMakeFiles/bench_fit_kernels.dir/bench/fit_kernels.c.o.d"
  "bench_fit_kernels"
  "bench_fit_kernels.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_fit_kernels.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
