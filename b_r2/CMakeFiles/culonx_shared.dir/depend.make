# Empty dependencies file for culonx_shared.
# This may be replaced when dependencies are built.
