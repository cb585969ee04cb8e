file(REMOVE_RECURSE
  "CMakeFiles/bench_replay_m.dir/bench/replay_m.c.o"
  "CMakeFiles/bench_replay_m.dir/bench/replay_m.c.o.d"
  "bench_replay_m"
  "bench_replay_m.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_replay_m.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
