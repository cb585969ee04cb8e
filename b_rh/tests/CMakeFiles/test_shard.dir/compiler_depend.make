# Empty compiler generated dependencies file for test_shard.
# This may be replaced when dependencies are built.
