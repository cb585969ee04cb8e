file(REMOVE_RECURSE
  "libculonx.a"
)
