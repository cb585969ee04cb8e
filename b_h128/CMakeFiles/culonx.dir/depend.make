# Empty dependencies file for culonx.
# This may be replaced when dependencies are built.
