file(REMOVE_RECURSE
  "CMakeFiles/test_replay_clocks.dir/test_replay_clocks.c.o"
  "CMakeFiles/test_replay_clocks.dir/test_replay_clocks.c.o.d"
  "test_replay_clocks"
  "test_replay_clocks.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_clocks.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
