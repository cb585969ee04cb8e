# Empty custom commands generated dependencies file for culonx_man.
# This may be replaced when dependencies are built.
