file(REMOVE_RECURSE
  "CMakeFiles/bench_agree.dir/bench/agree.c.o"
  "CMakeFiles/bench_agree.dir/bench/agree.c.o.d"
  "bench_agree"
  "bench_agree.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_agree.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
