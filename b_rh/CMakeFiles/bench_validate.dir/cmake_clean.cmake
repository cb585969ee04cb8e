file(REMOVE_RECURSE
  "CMakeFiles/bench_validate.dir/bench/validate.c.o"
  "CMakeFiles/bench_validate.dir/bench/validate.c.o.d"
  "bench_validate"
  "bench_validate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_validate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
