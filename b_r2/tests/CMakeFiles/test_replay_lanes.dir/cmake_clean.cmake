file(REMOVE_RECURSE
  "CMakeFiles/test_replay_lanes.dir/test_replay_lanes.c.o"
  "CMakeFiles/test_replay_lanes.dir/test_replay_lanes.c.o.d"
  "test_replay_lanes"
  "test_replay_lanes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_lanes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
