# Empty compiler generated dependencies file for test_model.
# This may be replaced when dependencies are built.
