# Empty dependencies file for culonx_lib.
# This may be replaced when dependencies are built.
