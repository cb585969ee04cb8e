file(REMOVE_RECURSE
  "CMakeFiles/test_replay_jlanes.dir/test_replay_jlanes.c.o"
  "CMakeFiles/test_replay_jlanes.dir/test_replay_jlanes.c.o.d"
  "test_replay_jlanes"
  "test_replay_jlanes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_jlanes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
