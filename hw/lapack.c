/*
 * lapack.c — LAPACKE (OpenBLAS's LAPACK) loaded with dlopen on the first
 * fit, so that commands which fit nothing (estimate, trace, sweep, ...) do
 * not pay OpenBLAS's start-up: its thread pool alone costs ~8 ms per
 * process, more than a whole `culonx estimate`. The library path is the one
 * CMake found (CULONX_LAPACKE_PATH), else the Debian soname liblapacke.so.3.
 * Thread-safe: the library is opened once (pthread_once).
 */
#include "hw/lapack.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#ifndef CULONX_LAPACKE_PATH
#define CULONX_LAPACKE_PATH "liblapacke.so.3"
#endif

typedef int (*dgels_fn)(int, char, int, int, int, double *, int, double *, int);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static dgels_fn dgels;
static const char *loaded_from = CULONX_LAPACKE_PATH;

static void load(void)
{
    const char *paths[] = {CULONX_LAPACKE_PATH, "liblapacke.so.3", "liblapacke.so"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0] && !dgels; i++) {
        void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        /* POSIX: a data pointer to function pointer through a union */
        union {
            void *p;
            dgels_fn f;
        } u;
        u.p = dlsym(h, "LAPACKE_dgels");
        if (u.p) {
            dgels = u.f;
            loaded_from = paths[i];
        } else {
            dlclose(h);
        }
    }
}

int cx_hw_dgels(int layout, char trans, int m, int n, int nrhs, double *a, int lda, double *b,
                int ldb)
{
    pthread_once(&once, load);
    if (!dgels) return CX_HW_LAPACK_UNAVAILABLE;
    return dgels(layout, trans, m, n, nrhs, a, lda, b, ldb);
}

const char *cx_hw_lapack_path(void)
{
    return loaded_from;
}

int cx_hw_lapack_available(void)
{
    pthread_once(&once, load);
    return dgels != NULL;
}
