file(REMOVE_RECURSE
  "CMakeFiles/bench_fast_agree.dir/bench/fast_agree.c.o"
  "CMakeFiles/bench_fast_agree.dir/bench/fast_agree.c.o.d"
  "bench_fast_agree"
  "bench_fast_agree.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/bench_fast_agree.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
