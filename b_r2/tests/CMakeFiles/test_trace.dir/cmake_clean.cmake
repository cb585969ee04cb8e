file(REMOVE_RECURSE
  "CMakeFiles/test_trace.dir/test_trace.c.o"
  "CMakeFiles/test_trace.dir/test_trace.c.o.d"
  "test_trace"
  "test_trace.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_trace.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
