/*
 * zb_h1.c — ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", 2023,
 * ICLR 2024), handcrafted schedule with B (input gradient) and W (weight
 * gradient) split. Stage i keeps 1F1B's warm-up (p - i forwards before the
 * first B) but delays each W by i cycles: cycle j is "B_j, W_{j-i}, F_next",
 * and the i owed W fill the drain phase, so later stages pass B down faster.
 *
 * Activations held (an activation lives until its W): min(p, m) on every
 * stage (util.h: warmup + lag = (p - i) + i) — the same as 1F1B's stage 0.
 * Bubble, uniform stages, per-microbatch stage times F, B, W, any m >= 1:
 *     (p - 1)(F + B) - (min(m, p) - 1) min(F, B, W)
 * which for m >= p and W <= min(F, B) is the paper's (p - 1)(F + B - W).
 * Exact: derived from and checked against the simulator (tests).
 * Formulas and paper: schedules/README.md, "ZB-H1".
 */
#include "schedules/util.h"

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    (void)v;
    if (p < 1 || m < 1 || stage < 0 || stage >= p) return -1;
    return cx_sched_family_order(m, p - stage, stage, 0, out, cap);
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)v;
    double mn = f_s < b_s ? f_s : b_s;
    if (w_s < mn) mn = w_s;
    return (p - 1) * (f_s + b_s) - (cx_sched_imin(m, p) - 1) * mn;
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v;
    return cx_sched_family_peak(m, p - stage, stage, 0);
}

const cx_sched_desc cx_sched_zb_h1 = {
    .name = "zb-h1",
    .splits_bw = 1,
    .chunks = cx_sched_chunks_one,
    .vstage = cx_sched_vstage_single,
    .order = order,
    .ranged = 1, /* cx_sched_family_order */
    .steady = cx_sched_steady_family,
    .supports = cx_sched_supports_one_chunk,
    .min_microbatches = cx_sched_min_mb_one,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .weight_copies = 1,
    .p2p_factor = 1.0,
};
