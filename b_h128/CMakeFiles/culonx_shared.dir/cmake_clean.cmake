file(REMOVE_RECURSE
  "libculonx.pdb"
  "libculonx.so"
  "libculonx.so.0.1"
  "libculonx.so.0.1.0"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/culonx_shared.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
