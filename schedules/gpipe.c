/*
 * gpipe.c — GPipe (Huang et al., NeurIPS 2019): every stage runs the
 * forwards of all m microbatches, then their fused backwards (B and W
 * together, "BW"), microbatch 0 first. One chunk per stage.
 *
 * Uniform stages (per-microbatch stage times F, B, W), any m >= 1:
 *   makespan = (m + p - 1)(F + B + W)      bubble = (p - 1)(F + B + W)   exact
 *   activations held: all m forwards are live before the first BW: m on
 *   every stage.
 * Formulas and paper: schedules/README.md, "GPipe".
 */
#include "schedules/util.h"

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    int n = 0;
    (void)v;
    if (p < 1 || m < 1 || stage < 0 || stage >= p) return -1;
    for (int j = 0; j < m; j++)
        if (cx_sched_push(out, cap, &n, CX_WORK_F, 0, j)) return -1;
    for (int j = 0; j < m; j++)
        if (cx_sched_push(out, cap, &n, CX_WORK_BW, 0, j)) return -1;
    return n;
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)m, (void)v;
    return (p - 1) * (f_s + b_s + w_s);
}

static double inflight(int p, int m, int v, int stage)
{
    (void)p, (void)v, (void)stage;
    return m;
}

const cx_sched_desc cx_sched_gpipe = {
    .name = "gpipe",
    .splits_bw = 0,
    .chunks = cx_sched_chunks_one,
    .vstage = cx_sched_vstage_single,
    .order = order,
    .ranged = 1, /* mb < m, chunk 0 */
    .supports = cx_sched_supports_one_chunk,
    .min_microbatches = cx_sched_min_mb_one,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .inflight_falls = 1,
    .weight_copies = 1,
    .closed_exact = 1,
    .phased = 1,
    .p2p_factor = 1.0,
};
