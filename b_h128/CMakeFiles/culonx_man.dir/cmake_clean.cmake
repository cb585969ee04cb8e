file(REMOVE_RECURSE
  "CMakeFiles/culonx_man"
  "culonx.1"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/culonx_man.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
