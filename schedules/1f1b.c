/*
 * 1f1b.c — 1F1B, "PipeDream-Flush" (Narayanan et al., SC'21; Megatron-LM's
 * non-interleaved schedule): stage i runs min(p-1-i, m) warm-up forwards,
 * then alternates one forward and one fused backward (BW), then drains the
 * remaining backwards. One chunk per stage.
 *
 * Uniform stages (per-microbatch stage times F, B, W):
 *   bubble = (p - 1)(F + B + W)  for every m >= 1 (exact; checked against
 *   the simulator in tests/test_schedules.c)
 *   activations held on stage i: min(p - i, m)   (p on stage 0 when m >= p)
 * Formulas and paper: schedules/README.md, "1F1B".
 */
#include "schedules/util.h"

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    (void)v;
    if (p < 1 || m < 1 || stage < 0 || stage >= p) return -1;
    return cx_sched_family_order(m, p - stage, 0, 1, out, cap);
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)m, (void)v;
    return (p - 1) * (f_s + b_s + w_s);
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v;
    return cx_sched_family_peak(m, p - stage, 0, 1);
}

const cx_sched_desc cx_sched_1f1b = {
    .name = "1f1b",
    .splits_bw = 0,
    .chunks = cx_sched_chunks_one,
    .vstage = cx_sched_vstage_single,
    .order = order,
    .ranged = 1, /* cx_sched_family_order */
    .steady = cx_sched_steady_family,
    .supports = cx_sched_supports_one_chunk,
    .min_microbatches = cx_sched_min_mb_one,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .inflight_falls = 1,
    .weight_copies = 1,
    .closed_exact = 1,
    .p2p_factor = 1.0,
};
