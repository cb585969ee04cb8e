file(REMOVE_RECURSE
  "CMakeFiles/test_replay_formula.dir/test_replay_formula.c.o"
  "CMakeFiles/test_replay_formula.dir/test_replay_formula.c.o.d"
  "test_replay_formula"
  "test_replay_formula.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_formula.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
