file(REMOVE_RECURSE
  "CMakeFiles/test_replay_v_sweep.dir/test_replay_v_sweep.c.o"
  "CMakeFiles/test_replay_v_sweep.dir/test_replay_v_sweep.c.o.d"
  "test_replay_v_sweep"
  "test_replay_v_sweep.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_v_sweep.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
