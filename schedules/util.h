/*
 * util.h — helpers shared by the schedule files (internal to schedules/):
 * chunk counts, virtual-stage layouts and the "1F1B family" order builder.
 *
 * Layouts: linear (Megatron interleaving, Narayanan et al. SC'21): chunk c
 * of stage s is virtual stage c*p + s. V-shape (Qi et al. 2024, ZB-V; DeepSeek
 * DualPipeV): chunk 0 of stage s is virtual stage s, chunk 1 is 2p-1-s.
 *
 * 1F1B family (one chunk per stage): `warmup` forwards, then for each
 * microbatch j in order a cycle "B_j (or fused BW_j), W_{j-lag}, F_next",
 * then the W still owed. Activations held peak, at the cycle forwards, at
 *     min(warmup + lag, m)                      (fused: lag = 0)
 * because held = warmup + j + 1 - max(0, j - lag + 1) at cycle j's F.
 * Deadlock-free whenever warmup >= 1 and warmup does not grow with the stage.
 * Layouts and the 1F1B family: schedules/README.md, "Work items and virtual stages".
 */
#ifndef CX_SCHED_UTIL_H
#define CX_SCHED_UTIL_H

#include "schedules/sched.h"

#include <stddef.h>
#include <string.h>

#ifdef CX_SCHED_ITEM_SSE2
#include <emmintrin.h>
#endif

/* The item (kind, chunk, mb), its padding zero. */
static inline cx_sched_item cx_sched_item_of(int kind, int chunk, int mb)
{
    cx_sched_item x = {0};
    x.kind = (uint8_t)kind, x.chunk = (uint8_t)chunk, x.mb = mb;
    return x;
}

#ifdef CX_SCHED_ITEM_SSE2
/* the item's 8 bytes from its fields, the padding zero (never read from
 * the item: a padding byte may be undefined, and a 64-bit add would carry
 * that into mb for memcheck, .ci/memcheck.sh) */
static inline uint64_t cx_sched_item_bits(cx_sched_item it)
{
    return (uint64_t)it.kind | (uint64_t)it.chunk << 8 | (uint64_t)(uint32_t)it.mb << 32;
}

static inline __m128i cx_sched_items2(cx_sched_item a, cx_sched_item b)
{
    return _mm_set_epi64x((long long)cx_sched_item_bits(b), (long long)cx_sched_item_bits(a));
}
#endif

/* n copies of the len items at blk from o on, copy i with every mb
 * advanced by i (a steady phase: each of its items' counters steps by one
 * a cycle); the copies' padding zero. Two items per SSE2
 * store where len is even (orders are generated for every shape a sweep
 * replays: ZB-V's and DualPipeV's steady phases, 4 and 6 items). */
static inline __attribute__((always_inline)) void
cx_sched_repeat(cx_sched_item *o, const cx_sched_item *blk, int len, int n)
{
#ifdef CX_SCHED_ITEM_SSE2
    if (len % 2 == 0 && len <= 8) {
        __m128i r[4];
        const __m128i one = _mm_set_epi32(1, 0, 1, 0); /* the mb lanes */
        for (int k = 0; k < len / 2; k++)
            r[k] = cx_sched_items2(blk[2 * k], blk[2 * k + 1]);
        for (int i = 0; i < n; i++, o += len)
            for (int k = 0; k < len / 2; k++) {
                _mm_storeu_si128((__m128i *)(void *)(o + 2 * k), r[k]);
                r[k] = _mm_add_epi32(r[k], one);
            }
        return;
    }
#endif
    for (int i = 0; i < n; i++, o += len)
        for (int k = 0; k < len; k++)
            o[k] = cx_sched_item_of(blk[k].kind, blk[k].chunk, blk[k].mb + i);
}

/* cnt items at o, o + st, o + 2 st, ...: it with mb, mb + 1, ... (one
 * 8-byte store and an add each, four a step where the layout allows) */
static inline void cx_sched_run(cx_sched_item *o, ptrdiff_t st, cx_sched_item it, int cnt)
{
    int i = 0;
#ifdef CX_SCHED_ITEM_SSE2
    uint64_t w = cx_sched_item_bits(it);
    const uint64_t a = (uint64_t)1 << 32; /* mb + 1 */
    for (; i + 4 <= cnt; i += 4, o += 4 * st, w += 4 * a) {
        const uint64_t w1 = w + a, w2 = w + 2 * a, w3 = w + 3 * a;
        memcpy(o, &w, sizeof w), memcpy(o + st, &w1, sizeof w1);
        memcpy(o + 2 * st, &w2, sizeof w2), memcpy(o + 3 * st, &w3, sizeof w3);
    }
    it.mb += i;
#endif
    for (; i < cnt; i++, o += st, it.mb++)
        *o = it;
}

/* n pairs at o: x then y, pair i with both mb advanced by i (one SSE2
 * store and an add a pair where the layout allows) */
static inline void cx_sched_pairs(cx_sched_item *o, cx_sched_item x, cx_sched_item y, int n)
{
    int i = 0;
#ifdef CX_SCHED_ITEM_SSE2
    const __m128i one = _mm_set_epi32(1, 0, 1, 0); /* the mb lanes */
    __m128i r = cx_sched_items2(x, y);
    for (; i < n; i++, o += 2, r = _mm_add_epi32(r, one))
        _mm_storeu_si128((__m128i *)(void *)o, r);
#endif
    for (; i < n; i++, o += 2, x.mb++, y.mb++)
        o[0] = x, o[1] = y;
}

static inline int cx_sched_push(cx_sched_item *out, int cap, int *n, int kind, int chunk, int mb)
{
    if (*n >= cap) return -1;
    out[*n].kind = (uint8_t)kind;
    out[*n].chunk = (uint8_t)chunk;
    out[*n].mb = mb;
    (*n)++;
    return 0;
}

static inline int cx_sched_imin(int a, int b)
{
    return a < b ? a : b;
}

static inline int cx_sched_imax(int a, int b)
{
    return a > b ? a : b;
}

/* Rules of the one-chunk schedules (GPipe, 1F1B, ZB-H1/H2): v = 1, p |
 * layers, any m >= 1; and of the V-shaped ones (ZB-V, DualPipeV): v = 1
 * (always 2 chunks), 2p | layers, m >= 2p. See sched.h, supports. */
culonx_sweep_reject cx_sched_supports_one_chunk(const cx_sched_shape *s);
culonx_sweep_reject cx_sched_supports_v_shape(const cx_sched_shape *s);
int64_t cx_sched_min_mb_one(int64_t p, int64_t v);
int64_t cx_sched_min_mb_2p(int64_t p, int64_t v);

int cx_sched_chunks_one(int v_requested);
int cx_sched_chunks_two(int v_requested);
int cx_sched_vstage_single(int p, int v, int stage, int chunk);
int cx_sched_vstage_v(int p, int v, int stage, int chunk);

/* Writes the family order described above; returns the count or -1. */
/* Bubble of a V-shaped schedule with 2 chunks per stage for uniform stages,
 * whose bubble does not depend on m >= 2p: played once at m = 2p. */
double cx_sched_played_bubble(const cx_sched_desc *d, int p, double f_s, double b_s, double w_s);

int cx_sched_family_order(int m, int warmup, int lag, int fused, cx_sched_item *out, int cap);
/* Steady state (cx_sched_desc.steady) of the one-chunk family orders above
 * (warm-up <= 2p - 1 forwards, W lag <= 2(p - 1)): period 1, edge 4p; and of
 * the V-shaped orders (zb_v.c, dualpipev.c: warm-up phases of 2p - 1
 * forwards per chunk pair, drain of 2p): period 1, edge 4p + 2. */
int cx_sched_steady_family(int p, int m, int v, int *period, int *edge);
int cx_sched_steady_v(int p, int m, int v, int *period, int *edge);
/* Its peak in-flight activations: min(warmup + lag, m) (lag ignored if fused). */
double cx_sched_family_peak(int m, int warmup, int lag, int fused);

#endif
