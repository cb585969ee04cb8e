file(REMOVE_RECURSE
  "CMakeFiles/bench_zb_paths.dir/bench/zb_paths.c.o"
  "CMakeFiles/bench_zb_paths.dir/bench/zb_paths.c.o.d"
  "bench_zb_paths"
  "bench_zb_paths.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_zb_paths.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
