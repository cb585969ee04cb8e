/*
 * replay_formula_zb.c — exact closed form of the ZB-H1 replay
 * (schedules/zb_h1.c orders, replay_step.h timing rule, blocking p2p) and
 * of its activation peaks, in O(p²) independent of m instead of playing the
 * 3·p·m items; issue 13. Reached through cx_core_replay_formula and
 * cx_core_replay_formula_memory (replay_formula.c dispatches here).
 *
 * Blocking sends make the replay a max-plus system (replay_formula.c): an
 * item that sends (F below the last stage, B above stage 0) acts as one of
 * duration d' = d + P. Stage s (w = p − s warm-up forwards, W lagged by s)
 * runs F_0..F_{w−1}, then cycles j = 0..m−1 of "B_j, W_{j−s} (j >= s),
 * F_{j+w} (j + w < m)", then its s owed W. With c_s = F'_s + B'_s + W_s the
 * work of a full cycle, found by tracing the full replay's critical paths on
 * random uneven costs (bench/zb_paths.c; core/README.md "Exact formula"),
 * when the last stage is the bottleneck:
 *   - stage p−1 waits (for an F from p−2, the warm-up's zig-zag between
 *     p−1 and p−2) only up to F_{p−1}; from there it runs its order without
 *     a gap, so with Y the end (+P) of its B_{p−1}
 *       free_{p−1} = Y + (m − p)·c_L + p·W_L,  B_j ends at Y + (j−p+1)·c_L;
 *   - stage s < p−1 ends on a path that enters it at some B_j and runs its
 *     order from there: free_s = max_j [tok_{s+1}(B_j) + Suf_s(j)], Suf_s(j)
 *     = (m − w − min(j, m − w))·F'_s + (m − j)·B'_s + (m − max(0, j − s))·W_s
 *     the rest of its order from B_j. For j < p the token comes from the
 *     fill: cycles 0..p−1 of every stage, played below as the per-cycle
 *     recurrence (O(p²), the same for every m >= 2p):
 *       warm-up   u_s(k) = max(u_s(k−1), u_{s−1}(k)) + F'_s,  k < w,
 *       b_s(j)    = max(y_s(j−1), b_{s+1}(j)) + B'_s   (b_{p−1}(j) = y_{p−1}(j−1) + B'_L),
 *       y_s(j)    = max(b_s(j) + [j >= s]·W_s, y_{s−1}(j−1)) + F'_s,
 *     y_s(−1) = u_s(w−1) (F_{j+w_s} on s−1 is the last item of its cycle j−1);
 *     for j >= p, tok_{s+1}(B_j) = Y + (j−p+1)·c_L + (p−2−s)·B'_mid (B_j
 *     descends one item a stage), rising by c_L − c_s >= 0 per microbatch
 *     while F_{j+w} exists and by c_L − B'_s − W_s >= 0 after, so j = m−p+s−1
 *     (when >= p) and j = m−1 stand for all of them.
 * Every term is a real path of the replay, so the formula never exceeds it;
 * the replay's last item is a W on every stage (last end = free, window W).
 * Preconditions (checked per call, else 0 and the replay plays): ZB-H1,
 * blocking p2p, p >= 2, m >= 2p, stages 1..p−2 of equal F, B, W durations,
 * for p >= 3 stages 0 and p−1 at least the middle in each of F, B and W (a
 * lighter stage 0 let its backlog path run outside the family: bench_zb_paths
 * check ... loose found p = 64, m = 251, 1.8e-5 off), and the last stage the
 * bottleneck: c_{p−1} >= c_0 and c_{p−1} >= c_mid. Checked against the full
 * replay to 1e-12 per stage (tests/test_replay_formula_zb.c,
 * bench/fast_agree.c).
 *
 * Activation peaks (cx_core_replay_formula_zb_memory): stage s's live
 * count is w + j before cycle j < s and p from cycle s on (one F in, one W
 * out per cycle), so its scan (replay.c) peaks at B_s: p·act_s + work_s, for
 * m >= p; with integer bytes below 2^53 that is the scan's exact sum.
 */
#include "core/eval/replay_formula_zb.h"

#include <math.h>

/* the replay's durations (replay_lanes.h, cx_replay_vsinfo_of) */
static double dur_f(const cx_chunk_cost *cc)
{
    return cc->f_s + cc->tp_f_s;
}

static double dur_b(const cx_chunk_cost *cc)
{
    return cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s;
}

int cx_core_replay_formula_zb(const cx_cost *c, cx_replay *out)
{
    const cx_sched_desc *sd = c->sched;
    if (sd != &cx_sched_zb_h1 || sd->p2p_overlap || c->v != 1) return 0;
    const int p = c->p, m = c->m, last = p - 1;
    if (p < 2 || p > CX_COST_MAX_STAGES || m < 2 * p) return 0;
    const double pp = c->p2p_s;
    double fd[CX_COST_MAX_STAGES], bd[CX_COST_MAX_STAGES], wd[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        fd[s] = dur_f(cc), bd[s] = dur_b(cc), wd[s] = cc->w_s;
    }
    if (p >= 3) {
        for (int s = 2; s < last; s++)
            if (fd[s] != fd[1] || bd[s] != bd[1] || wd[s] != wd[1]) return 0;
        /* the end stages at least the middle (embedding, head) */
        const int e[2] = {0, last};
        for (int i = 0; i < 2; i++)
            if (!(fd[e[i]] >= fd[1] && bd[e[i]] >= bd[1] && wd[e[i]] >= wd[1])) return 0;
    }
    /* the last stage the bottleneck: c = F' + B' + W per cycle */
    const double cl = fd[last] + bd[last] + wd[last] + pp;
    if (!(cl >= fd[0] + bd[0] + wd[0] + pp) || (p >= 3 && !(cl >= fd[1] + bd[1] + wd[1] + 2 * pp)))
        return 0;
    for (int s = 0; s < p; s++) {
        if (s < last) fd[s] += pp;
        if (s > 0) bd[s] += pp;
    }
    /* the fill: warm-up forwards, then cycles 0..p-1 (see the top) */
    double u[CX_COST_MAX_STAGES], y[CX_COST_MAX_STAGES], best[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++) {
        double t = 0;
        for (int k = 0; k < p - s; k++) {
            if (s > 0 && u[k] > t) t = u[k];
            u[k] = t += fd[s];
        }
        y[s] = u[p - s - 1];
        best[s] = -HUGE_VAL;
    }
    double yb = 0;
    for (int j = 0; j < p; j++) {
        double bn = 0;
        for (int s = last; s >= 0; s--) {
            const double b = (s == last ? y[s] : fmax(y[s], bn)) + bd[s];
            if (s < last) {
                /* enters stage s at B_j: the rest of its order */
                const int64_t w = p - s, ws = j > s ? j - s : 0;
                const double x = bn + (double)(m - w - j) * fd[s] + (double)(m - j) * bd[s] +
                                 (double)(m - ws) * wd[s];
                if (x > best[s]) best[s] = x;
            }
            const double a = b + (j >= s ? wd[s] : 0);
            y[s] = (s > 0 && y[s - 1] > a ? y[s - 1] : a) + fd[s];
            bn = b;
            if (s == last && j == last) yb = b;
        }
    }
    /* after the fill: stage p-1 without a gap; B_j descends */
    const double bmid = p >= 3 ? bd[1] : 0;
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        double t;
        if (s == last) {
            t = yb + (double)(m - p) * cl + (double)p * wd[last];
        } else {
            const int64_t w = p - s;
            t = best[s];
            const int64_t js[2] = {m - p + s - 1, m - 1};
            for (int i = 0; i < 2; i++) {
                const int64_t j = js[i], ws = j - s, nf = m - w - j > 0 ? m - w - j : 0;
                if (j < p) continue;
                const double x = yb + (double)(j - p + 1) * cl + (double)(p - 2 - s) * bmid +
                                 (double)nf * fd[s] + (double)(m - j) * bd[s] +
                                 (double)(m - ws) * wd[s];
                if (x > t) t = x;
            }
        }
        out->free_s[s] = t;
        out->last_end_s[s] = t;
        out->last_item_s[s] = wd[s];
        if (t > out->makespan_s) out->makespan_s = t;
    }
    return 1;
}

int cx_core_replay_formula_zb_memory(const cx_cost *c, double *peak_act_bytes)
{
    if (c->sched != &cx_sched_zb_h1 || c->v != 1) return 0;
    const int p = c->p;
    if (p < 1 || p > CX_COST_MAX_STAGES || c->m < p) return 0;
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        const double a = cc->act_bytes, w = cc->work_bytes;
        /* integers: every partial sum of the scan exact */
        if (!(a >= 0 && w >= 0 && a == floor(a) && w == floor(w) &&
              (double)p * a + w < 4503599627370496.0))
            return 0;
    }
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        peak_act_bytes[s] = (double)p * cc->act_bytes + cc->work_bytes;
    }
    return 1;
}
