file(REMOVE_RECURSE
  "CMakeFiles/test_shard.dir/test_shard.c.o"
  "CMakeFiles/test_shard.dir/test_shard.c.o.d"
  "test_shard"
  "test_shard.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_shard.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
