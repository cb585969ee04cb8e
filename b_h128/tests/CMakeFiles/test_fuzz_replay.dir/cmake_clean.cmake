file(REMOVE_RECURSE
  "CMakeFiles/test_fuzz_replay.dir/test_fuzz_replay.c.o"
  "CMakeFiles/test_fuzz_replay.dir/test_fuzz_replay.c.o.d"
  "test_fuzz_replay"
  "test_fuzz_replay.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_fuzz_replay.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
