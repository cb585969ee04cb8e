file(REMOVE_RECURSE
  "CMakeFiles/test_replay_formula_zb.dir/test_replay_formula_zb.c.o"
  "CMakeFiles/test_replay_formula_zb.dir/test_replay_formula_zb.c.o.d"
  "test_replay_formula_zb"
  "test_replay_formula_zb.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_replay_formula_zb.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
