/*
 * base.h — small internal helpers shared by every layer: error records,
 * a growing string buffer, an arena allocator (one per evaluation, freed in one call), and
 * arithmetic helpers. No modelling here.
 */
#ifndef CX_BASE_H
#define CX_BASE_H

#include "culonx_types.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define CX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CX_PRINTF(a, b)
#endif

/* Fills err (if non-NULL) and returns `st`. file may be NULL. */
culonx_status cx_core_fail(culonx_error *err, culonx_status st, const char *file, int line,
                           const char *fmt, ...) CX_PRINTF(5, 6);
void cx_core_error_clear(culonx_error *err);

/* Arena: bump allocator in chained blocks; cx_core_arena_free releases all. */
typedef struct cx_arena_block cx_arena_block;
typedef struct {
    cx_arena_block *head;
    size_t block_bytes;
    size_t used_bytes; /* total handed out, for bytes/node reporting */
} cx_arena;

void cx_core_arena_init(cx_arena *a, size_t block_bytes);
/* Zeroed, 16-byte aligned; NULL only when out of memory. */
void *cx_core_arena_alloc(cx_arena *a, size_t bytes);
/* Same, not zeroed (for arrays the caller fills completely). */
void *cx_core_arena_alloc_raw(cx_arena *a, size_t bytes);
void cx_core_arena_reset(cx_arena *a);
void cx_core_arena_free(cx_arena *a);
size_t cx_core_arena_reserved_bytes(const cx_arena *a);

/* A growing string buffer (sweep rows are formatted into one per block). */
typedef struct {
    char *buf;
    size_t len, cap;
    int oom; /* an allocation failed: the content is incomplete */
} cx_sbuf;

/* Appends printf-style text, growing the buffer; sets oom on failure. */
void cx_core_sbuf_printf(cx_sbuf *b, const char *fmt, ...) CX_PRINTF(2, 3);

static inline double cx_maxd(double a, double b)
{
    return a > b ? a : b;
}
static inline double cx_mind(double a, double b)
{
    return a < b ? a : b;
}

/* a*b for positive values, saturating at INT64_MAX (0 if either is <= 0) */
static inline int64_t cx_mul_sat_i64(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0) return 0;
    if (a > INT64_MAX / b) return INT64_MAX;
    return a * b;
}

#define CX_GIB (1024.0 * 1024.0 * 1024.0)

/* Four sums kept side by side in two SSE2 pairs (GCC vectors):
 * cx_add_rep4(acc, x, n) adds x[i] to acc[i] n times, each lane the scalar
 * additions in the same order (IEEE addition per lane), so the same bits
 * as four scalar loops, in half the instructions (the sums over the stages
 * of a run of equal stages). */
typedef double cx_v2d __attribute__((vector_size(16)));
static inline void cx_add_rep4(double acc[4], const double x[4], int n)
{
    cx_v2d a = {acc[0], acc[1]}, b = {acc[2], acc[3]};
    const cx_v2d xa = {x[0], x[1]}, xb = {x[2], x[3]};
    for (; n >= 4; n -= 4)
        a += xa, b += xb, a += xa, b += xb, a += xa, b += xb, a += xa, b += xb;
    for (; n > 0; n--)
        a += xa, b += xb;
    acc[0] = a[0], acc[1] = a[1], acc[2] = b[0], acc[3] = b[1];
}

/* memset(p, 0, n) in 16-byte stores, for structs of a few hundred bytes
 * on the evaluation path: GCC expands a memset of known size to rep stosq,
 * slow to start (perf cpu-clock: 24% of cx_core_closed_finish's time on
 * the one for its result); the barrier keeps the loop from becoming it. */
static inline void cx_zero(void *p, size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__) /* "x": an SSE register */
    typedef double v2 __attribute__((vector_size(16), aligned(1), may_alias));
    unsigned char *b = (unsigned char *)p;
    v2 z = {0, 0};
    __asm__("" : "+x"(z));
    size_t i = 0;
#pragma GCC unroll 32
    for (; i + 16 <= n; i += 16)
        *(v2 *)(b + i) = z;
    if (i < n) memset(b + i, 0, n - i);
#else
    memset(p, 0, n);
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
/* A load-time constructor `picker` that sets the function pointer `ptr` to
 * `fn` when the CPU has the instruction set `isa` ("avx", "avx2"): the
 * dispatch of the vectorised kernels (portable ones stay the default). */
#define CX_PICK_ISA(picker, isa, ptr, fn)                                                          \
    __attribute__((constructor)) static void picker(void)                                          \
    {                                                                                              \
        __builtin_cpu_init();                                                                      \
        if (__builtin_cpu_supports(isa)) ptr = fn;                                                 \
    }
#endif

/* Edit distance (Levenshtein; insert, delete, substitute cost 1) of two
 * strings, capped at 64 characters each; for "did you mean". */
int cx_core_edit_distance(const char *a, const char *b);
/* The index of the candidate nearest to word, or -1 when none is within
 * max(1, strlen(word) / 3) edits (or word is a prefix of exactly one). */
int cx_core_closest(const char *word, const char *const *cands, int n);

#endif
