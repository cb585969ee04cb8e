# Empty dependencies file for test_cost_key_clock.
# This may be replaced when dependencies are built.
