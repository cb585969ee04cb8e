CMakeFiles/culonx_lib.dir/generated/culonx_xsd.c.o: \
 /work/wt/s28-mem/b_h128/generated/culonx_xsd.c \
 /usr/include/stdc-predef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
