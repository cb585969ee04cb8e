file(REMOVE_RECURSE
  "CMakeFiles/bench_dvfs_crossval.dir/bench/dvfs_crossval.c.o"
  "CMakeFiles/bench_dvfs_crossval.dir/bench/dvfs_crossval.c.o.d"
  "bench_dvfs_crossval"
  "bench_dvfs_crossval.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_dvfs_crossval.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
