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

/* The item (kind, chunk, mb), its padding zero. */
static inline cx_sched_item cx_sched_item_of(int kind, int chunk, int mb)
{
    cx_sched_item x = {0};
    x.kind = (uint8_t)kind, x.chunk = (uint8_t)chunk, x.mb = mb;
    return x;
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
