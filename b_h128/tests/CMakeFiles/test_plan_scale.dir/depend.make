# Empty dependencies file for test_plan_scale.
# This may be replaced when dependencies are built.
