# CMake generated Testfile for 
# Source directory: /work/wt/s28-mem
# Build directory: /work/wt/s28-mem/b_rh
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("tests")
