/*
 * zb_h2.c — ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", 2023,
 * ICLR 2024), handcrafted schedule with B and W split that trades memory for
 * bubble: stage i runs 2(p-i)-1 warm-up forwards (filling the time until its
 * first B arrives), then cycles "B_j, W_{j-2i}, F_next", and the 2i owed W
 * fill the drain, so the pipeline becomes a parallelogram.
 *
 * Activations held: min(2p - 1, m) on every stage (util.h: (2(p-i)-1) + 2i),
 * the paper's 2p - 1.
 * Bubble, uniform stages, per-microbatch stage times F, B, W, one iteration:
 *     m >= 2p-1:  (p - 1) max(F, B - F, F + B - 2W)            exact
 *     m = 1:      (p - 1)(F + B)                                exact
 *     1 < m < 2p-1: linear in m between the two                approximate,
 *                 within max(F, B, W)/2 of the simulator (tests)
 * The paper's (p - 1)(F + B - 2W) counts the steady state across iterations
 * with the optimizer step's synchronisation bypassed; within one iteration
 * the last stage cannot start before (p - 1)F, hence the max with F.
 * Formulas and paper: schedules/README.md, "ZB-H2".
 */
#include "core/base/base.h"
#include "schedules/util.h"

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    (void)v;
    if (p < 1 || m < 1 || stage < 0 || stage >= p) return -1;
    return cx_sched_family_order(m, 2 * (p - stage) - 1, 2 * stage, 0, out, cap);
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)v;
    double g = cx_maxd(f_s, cx_maxd(b_s - f_s, f_s + b_s - 2 * w_s));
    double big = (p - 1) * g, one = (p - 1) * (f_s + b_s);
    if (p < 2 || m >= 2 * p - 1) return big;
    return one + (big - one) * (m - 1) / (2.0 * p - 2.0);
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v;
    return cx_sched_family_peak(m, 2 * (p - stage) - 1, 2 * stage, 0);
}

const cx_sched_desc cx_sched_zb_h2 = {
    .name = "zb-h2",
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
