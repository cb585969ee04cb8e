/*
 * util.c — shared schedule helpers: chunk counts, virtual-stage layouts and
 * the 1F1B-family order builder used by 1F1B (PipeDream-Flush, Narayanan et
 * al. 2021), ZB-H1 and ZB-H2 (Qi et al. 2023). Equations in util.h:
 * peak activations of a family order = min(warmup + lag, m).
 * See schedules/README.md, "Work items and virtual stages".
 */
#include "schedules/util.h"

/* vp given to a schedule that takes none: with one stage the pipeline
 * rule is the first broken (as Megatron reports it), else the schedule */
static culonx_sweep_reject no_vp(const cx_sched_shape *s)
{
    return s->p < 2 ? CULONX_REJECT_PP1_CHUNKS : CULONX_REJECT_VP_SCHEDULE;
}

int64_t cx_sched_min_mb_one(int64_t p, int64_t v)
{
    (void)p, (void)v;
    return 1;
}

int64_t cx_sched_min_mb_2p(int64_t p, int64_t v)
{
    (void)v;
    return 2 * p;
}

culonx_sweep_reject cx_sched_supports_one_chunk(const cx_sched_shape *s)
{
    if (s->v > 1) return no_vp(s);
    if (s->layers % s->p) return CULONX_REJECT_LAYERS_PP;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_sched_supports_v_shape(const cx_sched_shape *s)
{
    if (s->v > 1) return no_vp(s);
    if (s->layers % (2 * s->p)) return CULONX_REJECT_LAYERS_2PP;
    if (s->m > 0 && s->m < cx_sched_min_mb_2p(s->p, s->v)) return CULONX_REJECT_SCHED_MICROBATCHES;
    return CULONX_REJECT_NONE;
}

int cx_sched_chunks_one(int v_requested)
{
    (void)v_requested;
    return 1;
}

int cx_sched_chunks_two(int v_requested)
{
    (void)v_requested;
    return 2;
}

int cx_sched_vstage_single(int p, int v, int stage, int chunk)
{
    (void)p, (void)v, (void)chunk;
    return stage;
}

int cx_sched_vstage_v(int p, int v, int stage, int chunk)
{
    (void)v;
    return chunk == 0 ? stage : 2 * p - 1 - stage;
}

static inline void put(cx_sched_item *it, int kind, int mb)
{
    it->kind = (uint8_t)kind, it->chunk = 0, it->mb = mb;
}

int cx_sched_family_order(int m, int warmup, int lag, int fused, cx_sched_item *out, int cap)
{
    int n = 0, nf = 0;
    if (m < 1 || warmup < 1 || lag < 0) return -1;
    /* every microbatch's F, B (or BW) and W: the count is known, so the
     * capacity is checked once (the closed form's replay generates
     * millions of items per sweep) */
    if ((int64_t)m * (fused ? 2 : 3) > cap) return -1;
    /* in range by the loops' bounds (cx_sched_desc.ranged): 0 <= mb < m */
    for (; nf < cx_sched_imin(warmup, m); nf++)
        put(&out[n++], CX_WORK_F, nf);
    for (int j = 0; j < m; j++) {
        put(&out[n++], fused ? CX_WORK_BW : CX_WORK_B, j);
        if (!fused && j - lag >= 0) put(&out[n++], CX_WORK_W, j - lag);
        if (nf < m) put(&out[n++], CX_WORK_F, nf++);
    }
    if (!fused)
        for (int j = cx_sched_imax(0, m - lag); j < m; j++)
            put(&out[n++], CX_WORK_W, j);
    return n;
}

int cx_sched_steady_family(int p, int m, int v, int *period, int *edge)
{
    (void)m, (void)v;
    *period = 1, *edge = 4 * p;
    return p >= 1;
}

int cx_sched_steady_v(int p, int m, int v, int *period, int *edge)
{
    (void)m, (void)v;
    *period = 1, *edge = 4 * p + 2;
    return p >= 1;
}

double cx_sched_family_peak(int m, int warmup, int lag, int fused)
{
    if (fused) lag = 0;
    return (double)cx_sched_imin(warmup + lag, m);
}

double cx_sched_played_bubble(const cx_sched_desc *d, int p, double f_s, double b_s, double w_s)
{
    double mk;
    if (cx_sched_simulate(d, p, 2 * p, 2, f_s, b_s, w_s, 0.0, &mk, NULL) == CX_SCHED_SIM_OK)
        return mk - 2.0 * p * (f_s + b_s + w_s);
    return (p - 1) * (f_s + b_s + w_s) / 6; /* out of memory: F = B = W-like guess */
}
