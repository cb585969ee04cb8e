file(REMOVE_RECURSE
  "CMakeFiles/test_replay_formula_v.dir/test_replay_formula_v.c.o"
  "CMakeFiles/test_replay_formula_v.dir/test_replay_formula_v.c.o.d"
  "test_replay_formula_v"
  "test_replay_formula_v.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_formula_v.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
