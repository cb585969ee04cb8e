/*
 * replay_formula_zb.c — exact closed form of the ZB-H1 and ZB-H2 replays
 * (schedules/zb_h1.c, zb_h2.c orders, replay_step.h timing rule, blocking
 * p2p) and of their activation peaks, independent of m; issue 13. The
 * peaks are on the replay's path (replay.c, with replay_zb_sweep.c's
 * times); the times are NOT (replay_zb_sweep.c answers more, faster):
 * measured slower there than
 * the compiled program with clock lanes, and its certificate rejects every
 * megatron-1t shape of bench_sweep_bench (core/README.md, "Exact formula",
 * ZB-H1 and ZB-H2). Held to the full replay by tests/test_replay_formula_zb.c.
 *
 * Blocking sends make the replay a max-plus system (replay_formula.c): an
 * item that sends (F below the last stage, B above stage 0) acts as one of
 * duration d' = d + P. Stage s, with w_s = h(p − s) − (h − 1) warm-up
 * forwards and W lagged by h·s (h = 1: ZB-H1, h = 2: ZB-H2), runs
 * F_0..F_{w−1}, then cycles j = 0..m−1 of "B_j, W_{j−hs} (j >= hs), F_{j+w}
 * (j + w < m)", then its owed W. c_s = F'_s + B'_s + W_s is a full cycle.
 * Found by tracing the full replay's critical paths on random uneven costs
 * (bench/zb_paths.c), when the last stage is the bottleneck:
 *   - the fill: cycles 0..J of every stage, played as the per-cycle
 *     recurrence (O(p·J), the same for every m large enough)
 *       warm-up   u_s(k) = max(u_s(k−1), u_{s−1}(k)) + F'_s,  k < w_s,
 *       b_s(j)    = max(y_s(j−1), b_{s+1}(j)) + B'_s   (b_{p−1}(j) = y_{p−1}(j−1) + B'_L),
 *       y_s(j)    = max(b_s(j) + [j >= hs]·W_s, y_{s−1}(j−h)) + F'_s,
 *     (F_{j+w_s} on s−1 ends its cycle j−h; before cycle 0, its last h
 *     warm-up forwards); stage p−1 waits (the warm-up's zig-zag between p−1
 *     and p−2) only up to F_{hp−1}, so J >= hp − 1;
 *   - after it stage p−1 runs without a gap: with Y the end (+P) of its B_J,
 *     B_j ends at Y + (j − J)(F'_L + B'_L) + (W items between)·W_L, and its
 *     end is Y plus the rest of its order;
 *   - stage s < p−1 ends on a path that enters it at some B_j and runs its
 *     order from there: free_s = max_j [tok_{s+1}(B_j) + Suf_s(j)], Suf_s(j)
 *     the rest of its order from B_j (F', B', W counts from the order); for
 *     j <= J the token is the fill's, for j > J the descent of stage p−1's
 *     B_j (one item a stage), piecewise linear in j, so its breakpoints
 *     (J + 1, m − 1, and next to the W lags and the last forward) suffice.
 * The certificate: a stage far enough behind at cycle J holds up the next
 * with its forwards, which the family above misses (stage 0 within 1e-4 of
 * the last stage's cycle: bench_zb_paths check ... tight=1e-4 finds such
 * draws, up to 3e-3 off). So J is the first cycle from hp − 1 on where no
 * stage s < p−1 is behind the arrival of B_{J+1} by more than c_L − c_s +
 * W_{s+1} (its backlog then only shrinks, and its next forward reaches s+1
 * before s+1 needs it); where none is found before the last forwards, 0.
 * Every term is a real path of the replay, so the formula never exceeds it;
 * the replay's last item is a W on every stage (last end = free, window W).
 * Preconditions (else 0): ZB-H1 or ZB-H2, blocking p2p, p >= 2, m >= 2hp −
 * h + 1, stages 1..p−2 of equal F, B, W durations, for p >= 3 stages 0 and
 * p−1 at least the middle in each of F, B and W (a lighter stage 0 ran
 * outside the family: bench_zb_paths check ... loose, p = 64, m = 251,
 * 1.8e-5 off), the last stage the bottleneck: c_{p−1} >= c_0, c_{p−1} >=
 * c_mid. Cost O(p·J): O(p²) when the fill is certified at once.
 *
 * Activation peaks (cx_core_replay_formula_zb_memory): stage s's live
 * count is w_s + j before cycle j < hs and w_s + hs = h(p − 1) + 1 from
 * cycle hs on (one F in, one W out per cycle), so its scan (replay.c) peaks
 * at B_{hs}: (h(p − 1) + 1)·act_s + work_s, for m >= h(p − 1) + 1. For
 * any m: min(w_s, m) forwards, then per cycle one F in while nf < m, one W
 * out from cycle hs on, so the count before B_j is min(w_s, m) + min(j,
 * m − min(w_s, m)) − max(0, j − hs), largest min(w_s + hs, m) (the F and W
 * checks never exceed the next B's, work >= 0): min(h(p − 1) + 1, m)·act_s
 * + work_s, the count cx_sched_family_peak states (the
 * replay scans then for m < h(p − 1) + 1 no more: issue 13, session 22,
 * bench_sweep_bench schedules zb-h2 rebuilt the orders for it, ~6%). With
 * integer bytes below 2^53 that is the scan's exact sum.
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

/* ZB-H1 (h 1) or ZB-H2 (h 2): w_s = h(p − s) − (h − 1) warm-up forwards, W
 * lagged by h·s (schedules/zb_h1.c, zb_h2.c); 0 for the others */
static int family_h(const cx_sched_desc *sd)
{
    return sd == &cx_sched_zb_h1 ? 1 : sd == &cx_sched_zb_h2 ? 2 : 0;
}

/* W items before B_j in an order with W lagged by lag */
static int64_t nw_before(int64_t j, int64_t lag)
{
    return j > lag ? j - lag : 0;
}

/* the rest of stage s's order from B_j: F', B', W counts times durations */
static double suffix(int64_t m, int64_t w, int64_t lag, int64_t j, double f, double b, double wd)
{
    const int64_t nf = m - w - j > 0 ? m - w - j : 0;
    return (double)nf * f + (double)(m - j) * b + (double)(m - nw_before(j, lag)) * wd;
}

int cx_core_replay_formula_zb(const cx_cost *c, cx_replay *out)
{
    const cx_sched_desc *sd = c->sched;
    const int h = family_h(sd);
    if (!h || sd->p2p_overlap || c->v != 1) return 0;
    const int p = c->p, m = c->m, last = p - 1;
    const int64_t w0 = (int64_t)h * p - (h - 1), j0 = (int64_t)h * p - 1;
    /* the fill runs cycles 0..J with every forward of them present */
    const int64_t jmax = m - w0 - 1;
    if (p < 2 || p > CX_COST_MAX_STAGES || jmax < j0) return 0;
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
    double cs[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++) {
        if (s < last) fd[s] += pp;
        if (s > 0) bd[s] += pp;
        cs[s] = fd[s] + bd[s] + wd[s];
    }
    const double bmid = p >= 3 ? bd[1] : 0, fbl = fd[last] + bd[last];
    const int64_t lagl = (int64_t)h * last;

    /* the warm-up forwards u_s(k), k < w_s, in place over the stages; y
     * holds each stage's free after cycle j−1, yp after cycle j−2 (the last
     * and second last warm-up forward before cycle 0) */
    double u[2 * CX_COST_MAX_STAGES], ya[CX_COST_MAX_STAGES], yb_[CX_COST_MAX_STAGES],
        yc[CX_COST_MAX_STAGES], best[CX_COST_MAX_STAGES];
    double *y = ya, *yp = yb_, *yn = yc;
    for (int s = 0; s < p; s++) {
        const int64_t w = (int64_t)h * (p - s) - (h - 1);
        double t = 0;
        for (int64_t k = 0; k < w; k++) {
            if (s > 0 && u[k] > t) t = u[k];
            u[k] = t += fd[s];
        }
        y[s] = u[w - 1], yp[s] = w >= 2 ? u[w - 2] : 0;
        best[s] = -HUGE_VAL;
    }
    /* cycles j = 0..J (see the top); J the first cycle from j0 on after
     * which no stage is far enough behind to hold up the one above */
    double yl = 0;
    int64_t J = -1;
    for (int64_t j = 0; J < 0; j++) {
        if (j > jmax) return 0;
        double bn = 0;
        for (int s = last; s >= 0; s--) {
            const double b = (s == last ? y[s] : fmax(y[s], bn)) + bd[s];
            const int64_t w = (int64_t)h * (p - s) - (h - 1), lag = (int64_t)h * s;
            if (s < last) {
                /* enters stage s at B_j: the rest of its order */
                const double x = bn + suffix(m, w, lag, j, fd[s], bd[s], wd[s]);
                if (x > best[s]) best[s] = x;
            }
            const double a = b + (j >= lag ? wd[s] : 0);
            const double dep = s == 0 ? a : h == 1 ? y[s - 1] : yp[s - 1];
            yn[s] = (dep > a ? dep : a) + fd[s];
            bn = b;
            if (s == last) yl = b;
        }
        double *t = yp;
        yp = y, y = yn, yn = t;
        if (j >= j0) {
            /* B_{j+1} leaves stage p-1 at yl + c_L and descends one item a
             * stage; stage s holds up s+1 if it is behind by more than
             * c_L − c_s + W_{s+1} (then the fill goes on) */
            double arr = yl + cl;
            int ok = 1;
            for (int s = last - 1; s >= 0 && ok; s--) {
                ok = y[s] - arr <= cl - cs[s] + wd[s + 1];
                arr += bd[s];
            }
            if (ok) J = j;
        }
    }
    /* after the fill: stage p-1 without a gap; B_j descends */
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        double t;
        if (s == last) {
            t = yl + (double)(m - 1 - J) * fbl + (double)(m - nw_before(J, lagl)) * wd[last];
        } else {
            const int64_t w = (int64_t)h * (p - s) - (h - 1), lag = (int64_t)h * s;
            /* the drain's value is piecewise linear in j: its breakpoints */
            const int64_t js[] = {J + 1,   lagl - 1,  lagl,  lagl + 1,  lag - 1, lag,
                                  lag + 1, m - w - 1, m - w, m - w + 1, m - 1};
            t = best[s];
            for (size_t i = 0; i < sizeof js / sizeof *js; i++) {
                const int64_t j = js[i];
                if (j <= J || j >= m) continue;
                const double x = yl + (double)(j - J) * fbl +
                                 (double)(nw_before(j, lagl) - nw_before(J, lagl)) * wd[last] +
                                 (double)(p - 2 - s) * bmid +
                                 suffix(m, w, lag, j, fd[s], bd[s], wd[s]);
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
    const int h = family_h(c->sched);
    if (!h || c->v != 1) return 0;
    const int p = c->p;
    /* live count w_s + lag_s = h(p − 1) + 1 from cycle lag_s on; below
     * that many microbatches all m are live at once (see the top) */
    const double n = fmin((double)h * (p - 1) + 1, (double)c->m);
    if (p < 1 || p > CX_COST_MAX_STAGES || c->m < 1) return 0;
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        const double a = cc->act_bytes, w = cc->work_bytes;
        /* integers: every partial sum of the scan exact */
        if (!(a >= 0 && w >= 0 && a == floor(a) && w == floor(w) && n * a + w < 4503599627370496.0))
            return 0;
    }
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        peak_act_bytes[s] = n * cc->act_bytes + cc->work_bytes;
    }
    return 1;
}
