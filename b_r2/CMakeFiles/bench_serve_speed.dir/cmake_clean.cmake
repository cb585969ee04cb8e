file(REMOVE_RECURSE
  "CMakeFiles/bench_serve_speed.dir/bench/serve_speed.c.o"
  "CMakeFiles/bench_serve_speed.dir/bench/serve_speed.c.o.d"
  "bench_serve_speed"
  "bench_serve_speed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_serve_speed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
