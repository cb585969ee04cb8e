/*
 * replay_formula_v.c — exact activation peaks of the ZB-V and DualPipeV
 * replays (schedules/zb_v.c, dualpipev.c orders; the scan of
 * cx_core_replay_memory in core/eval/replay.c and replay_mem.c's compiled
 * points), in O(p) without the orders; issue 13. Held to the scan of the
 * orders, to the bit, by tests/test_replay_formula_v.c.
 *
 * The scan: a stage's bytes follow its order, + act_k at F of chunk k,
 * - act_k after a W or BW; the candidates are after an F (the bytes), at a
 * B or BW of chunk k (the bytes + work_k) and at a W (the bytes, then
 * - act_k). With (n0, n1) the live microbatches of chunks 0 and 1, a point
 * is n0·a0 + n1·a1 (+ work_k). Both orders (m >= 2p, stage r) open with
 * 2(p − r − 1) F0 and (r + 1) F0 F1: (N0, N1) = (2p − r − 1, r + 1), 2p
 * chunks, and every later phase (phase numbers of the orders' comments):
 *   ZB-V      3  B1 W F1: B1 at (N0, N1) + w1, back to (N0, N1);
 *             4  B1 W F0 B0 W F1, m − 2p + r + 1 >= 1 times: B1 at
 *                (N0, N1) + w1, F0 to (N0 + 1, N1 − 1), B0 there + w0,
 *                back to (N0, N1);
 *             5  B1 W F1 B0 W (r < p − 1): B0 at (N0, N1) + w0 first,
 *                then one chunk 0 fewer each time;
 *             6  B1 B0 from (p, r + 1): for r = p − 1 that is (N0, N1),
 *                its B0 at (N0, N1) + w0 (the last stage has no phase 5);
 *             7–8 W B0 and W, counts only falling: below.
 *   DualPipeV 3  B1 W F1 at (N0, N1) + w1;
 *             4  F0 BW1 F1 BW0, m − 2p + r + 1 >= 1 times: BW1 and BW0 at
 *                (N0 + 1, N1) + w1 and + w0, back to (N0, N1);
 *             5–8 from (N0, N1) downwards: below.
 * A W's or F's point lies below the B's that follow at the same counts
 * (work >= 0), so the peaks are, independent of m >= 2p:
 *   ZB-V      max(N0·a0 + N1·a1 + max(w0, w1),
 *                 (N0 + 1)·a0 + (N1 − 1)·a1 + w0)
 *   DualPipeV (N0 + 1)·a0 + N1·a1 + max(w0, w1)
 * (the schedules' inflight p and p + 1/2 stages when a0 = a1 = half a
 * stage). Exactness as replay_mem.c: integer bytes >= 0 with every sum
 * below 2^53 make each partial sum of the scan exact, and these sums the
 * same doubles; otherwise 0 (the caller scans). Declined also for m < 2p
 * (no orders: the caller reports it) and v != 2.
 */
#include "core/eval/replay_formula_v.h"

#include <math.h>

int cx_core_replay_formula_v_peaks(const cx_sched_desc *sd, int p, int m, const double *act,
                                   const double *work, double *peak)
{
    const int zbv = sd == &cx_sched_zb_v;
    if ((!zbv && sd != &cx_sched_dualpipev) || p < 1 || p > CX_COST_MAX_STAGES ||
        (int64_t)m < 2 * (int64_t)p)
        return 0;
    /* every count an integer below 2^52, every sum below 2^53 (a bound on
     * all the scan's partial sums: at most 2p + 1 chunks live) */
    const double lim = 4503599627370496.0;
    for (int i = 0; i < 2 * p; i++)
        if (!(act[i] >= 0 && act[i] < lim && act[i] == floor(act[i]) && work[i] >= 0 &&
              work[i] < lim && work[i] == floor(work[i])))
            return 0;
    for (int r = 0; r < p; r++) {
        const double a0 = act[2 * r], a1 = act[2 * r + 1], w0 = work[2 * r], w1 = work[2 * r + 1];
        const double n0 = 2.0 * p - r - 1, n1 = r + 1.0;
        if ((n0 + 1) * (a0 + 1) + (n1 + 1) * (a1 + 1) + w0 + w1 + 2 >= 2 * lim) return 0;
    }
    for (int r = 0; r < p; r++) {
        const double a0 = act[2 * r], a1 = act[2 * r + 1], w0 = work[2 * r], w1 = work[2 * r + 1];
        const double n0 = 2.0 * p - r - 1, n1 = r + 1.0;
        const double wmax = w0 > w1 ? w0 : w1;
        const double x = zbv ? n0 * a0 + n1 * a1 + wmax : (n0 + 1) * a0 + n1 * a1 + wmax;
        const double y = zbv ? (n0 + 1) * a0 + (n1 - 1) * a1 + w0 : 0;
        /* from 0 as the scan (bytes of -0.0 give +0.0) */
        double pk = 0;
        if (x > pk) pk = x;
        if (y > pk) pk = y;
        peak[r] = pk;
    }
    return 1;
}

int cx_core_replay_formula_v_memory(const cx_cost *c, double *peak_act_bytes)
{
    const int p = c->p;
    if ((c->sched != &cx_sched_zb_v && c->sched != &cx_sched_dualpipev) || c->v != 2 || p < 1 ||
        p > CX_COST_MAX_STAGES)
        return 0;
    /* the scan's bytes (cx_core_replay_memory): chunk k of stage s */
    double act[2 * CX_COST_MAX_STAGES], work[2 * CX_COST_MAX_STAGES];
    for (int i = 0; i < 2 * p; i++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->vs_stage_vs[i]);
        act[i] = cc->act_bytes, work[i] = cc->work_bytes;
    }
    return cx_core_replay_formula_v_peaks(c->sched, p, c->m, act, work, peak_act_bytes);
}
