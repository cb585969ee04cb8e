file(REMOVE_RECURSE
  "CMakeFiles/bench_speed.dir/bench/speed.c.o"
  "CMakeFiles/bench_speed.dir/bench/speed.c.o.d"
  "bench_speed"
  "bench_speed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_speed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
