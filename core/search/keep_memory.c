/*
 * keep_memory.c — culonx_keep_freed_memory: the process keeps the memory
 * it frees for its own reuse. No modelling. A sweep's workers free and
 * allocate buffers of up to megabytes a shape (orders, compiled programs,
 * held caches); glibc hands blocks over its mmap threshold (128 KiB at
 * first) and a heap top over its trim threshold back to the kernel, and the
 * next allocation of them costs a page fault a page (~2.8 µs on the 2-core
 * development VM, core/README.md "Page faults"). The values: 32 MiB, the
 * largest mmap threshold glibc accepts on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX),
 * and a trim threshold of 1 GiB (memory is returned when the process ends).
 */
#include "culonx.h"

#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void culonx_keep_freed_memory(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
