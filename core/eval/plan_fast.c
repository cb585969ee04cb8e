/*
 * plan_fast.c — the time–energy frontier of a clock-plan DAG (plan.h) at a
 * few chosen times, in linear passes: the fast engine for full-size
 * iterations (core/eval/plan_cut.c is exact but needs one minimum cut per
 * frontier breakpoint, about nodes x hull points of them).
 *
 * At each target time T the best of two candidate plans, each made
 * feasible and then relaxed:
 *  - price plan: every node at the hull point where its cost slope crosses a
 *    common price x (J per second of its duration: what it would save per
 *    second of slowing); x found by bisection over the hulls' slopes; the
 *    two plans around T mixed convexly (the makespan is convex in the
 *    durations, the cost is convex: the mix meets T);
 *  - uniform plan: every node at the same clock step (the best single
 *    clock of `culonx energy`), the two clocks around T mixed the same way.
 * Relaxation (slack reclaim, see relax): the price plan's float is spread
 * over chains of non-critical nodes (a common share, then path shares),
 * then handed out by a latest-finish pass (reverse topological order, each
 * node finishing at its successors' latest start) and an earliest-start
 * pass (its mirror), the two mixed; the uniform plan gets the latest-finish
 * pass alone. Why: at the fastest time every critical pass stays at max
 * clock and the saving is all in float (warm-up/cool-down bubbles, stage
 * imbalance); one common share of total float for every node is bounded by
 * the deepest chain of non-critical nodes (~1/p of the float in a p-stage
 * pipeline), and free float (grow until the first successor starts) misses
 * chains that must slow together. The result is never worse than the
 * single clock and, at the fastest time, never worse than all at max clock.
 * Not exact: tests/test_plan.c measures it against the cut engine.
 */
#include "core/eval/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every pass below works in topological positions: node x of d is the
 * x-th node of a topological order (pred, cls and the successor lists
 * renumbered once), so the passes stream through their arrays in order
 * instead of gathering through an order array (about twice as fast on
 * megatron-1t's 169k nodes; the same operations on the same values, so the
 * same bits). */
typedef struct {
    const cx_plan_dag *d;  /* renumbered view */
    const cx_plan_dag *d0; /* as given: node ids */
    const int32_t *pos;    /* [node id]: its position */
    int64_t n;
    int32_t *soff, *succ;
    double *es, *ls, *ext, *tmp, *alt;
} fast;

static double fwd(fast *F, const double *dur)
{
    const int32_t *pred = F->d->pred;
    double ms = 0;
    for (int64_t i = 0; i < F->n; i++) {
        double st = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = pred[i * CX_PLAN_NPRED + k];
            if (q >= 0 && F->es[q] + dur[q] > st) st = F->es[q] + dur[q];
        }
        F->es[i] = st;
        if (st + dur[i] > ms) ms = st + dur[i];
    }
    return ms;
}

/* latest starts ls against T for durations dur (es need not be current) */
static void late(fast *F, const double *dur, double T)
{
    for (int64_t i = F->n - 1; i >= 0; i--) {
        double lf = T;
        for (int32_t e = F->soff[i]; e < F->soff[i + 1]; e++)
            if (F->ls[F->succ[e]] < lf) lf = F->ls[F->succ[e]];
        F->ls[i] = lf - dur[i];
    }
}

/* ext[i] = min(total float, room to the cheapest duration), >= 0 (es and ls
 * current); returns whether any node has room */
static int room(fast *F, const double *dur, double T)
{
    const cx_plan_dag *d = F->d;
    int any = 0;
    for (int64_t i = 0; i < F->n; i++) {
        double r = d->ht[d->hoff[d->cls[i] + 1] - 1] - dur[i], tf = F->ls[i] - F->es[i];
        F->ext[i] = tf < r ? tf : r;
        if (F->ext[i] <= 1e-12 * T)
            F->ext[i] = 0;
        else
            any = 1;
    }
    return any;
}

/* one round of a common share: every node grows by a x ext_i, a the largest
 * (bisection, 5 tries) that keeps the makespan within T. Here and below es
 * holds the earliest starts of dur on entry and on return. */
static void share_common(fast *F, double *dur, double T)
{
    late(F, dur, T);
    if (!room(F, dur, T)) return;
    double lo = 0, hi = 1;
    int cur = 1; /* es is of dur */
    for (int k = 0; k < 5; k++) {
        double a = k == 0 ? 1 : 0.5 * (lo + hi);
        for (int64_t i = 0; i < F->n; i++)
            F->tmp[i] = dur[i] + a * F->ext[i];
        cur = fwd(F, F->tmp) <= T * (1 + 1e-12);
        if (cur) {
            lo = a;
            if (k == 0) break;
        } else
            hi = a;
    }
    for (int64_t i = 0; i < F->n; i++)
        dur[i] += lo * F->ext[i];
    if (!cur) fwd(F, dur);
}

/* one round of path shares: node i grows by ext_i^2 / W_i, W_i the largest
 * sum of ext over the paths through i (a forward and a backward pass).
 * Feasible: on any path P every ext_i <= T - len(P) and W_i >= the sum of
 * ext over P, so P grows by at most max ext_i <= T - len(P). A lone
 * non-critical node takes all its float, k alike nodes of a chain share it
 * evenly, and no node waits on the deepest chain of the DAG (as one common
 * share must: ~1/p of the float in a deep pipeline). */
static void share_path(fast *F, double *dur, double T)
{
    const int32_t *pred = F->d->pred;
    late(F, dur, T);
    if (!room(F, dur, T)) return;
    for (int64_t i = 0; i < F->n; i++) { /* es: largest ext-sum ending at i */
        double m = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = pred[i * CX_PLAN_NPRED + k];
            if (q >= 0 && F->es[q] > m) m = F->es[q];
        }
        F->es[i] = m + F->ext[i];
    }
    for (int64_t i = F->n - 1; i >= 0; i--) { /* ls: starting at i */
        double m = 0;
        for (int32_t e = F->soff[i]; e < F->soff[i + 1]; e++)
            if (F->ls[F->succ[e]] > m) m = F->ls[F->succ[e]];
        F->ls[i] = m + F->ext[i];
    }
    for (int64_t i = 0; i < F->n; i++) {
        double W = F->es[i] + F->ls[i] - F->ext[i];
        F->tmp[i] = dur[i] + (W > 0 ? F->ext[i] * (F->ext[i] / W) : 0);
    }
    if (fwd(F, F->tmp) <= T * (1 + 1e-12)) /* rounding: else keep dur */
        memcpy(dur, F->tmp, sizeof(double) * (size_t)F->n);
    else
        fwd(F, dur);
}

/* latest-finish pass: in reverse topological order each node finishes at
 * the latest start of its successors (or T), growing up to its cheapest
 * duration from its earliest start es (of the durations on entry, current; its
 * predecessors, treated later, finish by that start: feasible). Uses every
 * node's total float, a chain's float going to its last nodes. */
static void latest_finish(fast *F, double *dur, double T)
{
    const cx_plan_dag *d = F->d;
    for (int64_t i = F->n - 1; i >= 0; i--) {
        double lf = T;
        for (int32_t e = F->soff[i]; e < F->soff[i + 1]; e++)
            if (F->ls[F->succ[e]] < lf) lf = F->ls[F->succ[e]];
        double hmax = d->ht[d->hoff[d->cls[i] + 1] - 1];
        double nd = lf - F->es[i];
        if (nd > hmax) nd = hmax;
        if (nd > dur[i]) dur[i] = nd;
        F->ls[i] = lf - dur[i];
    }
}

/* earliest-start pass, the mirror: with latest starts ls of the durations
 * on entry, in topological order each node starts when its predecessors
 * (already grown) finish and runs until the latest start of its successors
 * (or T), at most to its cheapest duration: a chain's float goes to its
 * first nodes. */
static void earliest_start(fast *F, double *dur, double T)
{
    const cx_plan_dag *d = F->d;
    const int32_t *pred = d->pred;
    late(F, dur, T);
    for (int64_t i = 0; i < F->n; i++) {
        double st = 0, lf = T;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = pred[i * CX_PLAN_NPRED + k];
            if (q >= 0 && F->es[q] + dur[q] > st) st = F->es[q] + dur[q];
        }
        F->es[i] = st;
        for (int32_t e = F->soff[i]; e < F->soff[i + 1]; e++)
            if (F->ls[F->succ[e]] < lf) lf = F->ls[F->succ[e]];
        double hmax = d->ht[d->hoff[d->cls[i] + 1] - 1];
        double nd = lf - st;
        if (nd > hmax) nd = hmax;
        if (nd > dur[i]) dur[i] = nd;
    }
}

/* summed in node-id order (dur in positions) */
static double total_cost(const fast *F, const double *dur)
{
    const cx_plan_dag *d = F->d0;
    double c = 0;
    for (int64_t i = 0; i < d->n; i++)
        c += cx_core_plan_cost(d, d->cls[i], dur[F->pos[i]]);
    return c;
}

/* out[node id] = in[its position] */
static void to_ids(const fast *F, const double *in, double *out)
{
    for (int64_t i = 0; i < F->n; i++)
        out[i] = in[F->pos[i]];
}

/* slack reclaim at time T; returns the cost. Not full (the uniform plan):
 * the latest-finish pass alone. full (the price plan): first one round of a
 * common share and two of path shares (spreading float over chains of
 * non-critical nodes); then the latest-finish pass (plan A) and, from the
 * same start, the earliest-start pass (plan B); their mean (within T: the
 * makespan is convex in the durations; its cost at most the mean of theirs:
 * a chain's float split between its first and last nodes) gets a
 * latest-finish pass for what it leaves. The cheaper of A and that. The
 * makespan stays within T. */
static double relax(fast *F, double *dur, double T, int full)
{
    fwd(F, dur);
    if (!full) {
        latest_finish(F, dur, T);
        return total_cost(F, dur);
    }
    share_common(F, dur, T);
    share_path(F, dur, T);
    share_path(F, dur, T);
    memcpy(F->alt, dur, sizeof(double) * (size_t)F->n);
    latest_finish(F, F->alt, T);
    earliest_start(F, dur, T);
    for (int64_t i = 0; i < F->n; i++)
        dur[i] = 0.5 * (dur[i] + F->alt[i]);
    fwd(F, dur);
    latest_finish(F, dur, T);
    double ca = total_cost(F, F->alt), cm = total_cost(F, dur);
    if (ca < cm) {
        memcpy(dur, F->alt, sizeof(double) * (size_t)F->n);
        return ca;
    }
    return cm;
}

/* durations of every class at price x */
static void at_price(const cx_plan_dag *d, double x, double *cd)
{
    for (int k = 0; k < d->nclass; k++) {
        int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1, j = a;
        while (j < b && (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]) >= x)
            j++;
        /* j: the last point whose left slope is >= x */
        cd[k] = d->ht[j];
    }
}

static void spread(const cx_plan_dag *d, const double *cd, double *dur)
{
    for (int64_t i = 0; i < d->n; i++)
        dur[i] = cd[d->cls[i]];
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* convex mix of plans a (M_a <= T) and b (M_b > T) meeting T, into out */
static void mix(const double *a, double ma, const double *b, double mb, double T, int64_t n,
                double *out)
{
    double w = mb > ma ? (T - ma) / (mb - ma) : 0; /* weight of b */
    if (w < 0) w = 0;
    if (w > 1) w = 1;
    for (int64_t i = 0; i < n; i++)
        out[i] = (1 - w) * a[i] + w * b[i];
}

culonx_status cx_core_plan_fast(const cx_plan_dag *d, const double *udur, int nu, int npoints,
                                const double *slow_s, double snap_time_s, int exact,
                                int64_t max_steps, cx_plan_frontier *out, culonx_error *err)
{
    cx_plan_descent D = {0};
    double *keep = NULL, tkeep = 0; /* exact: the fastest target's plan */
    memset(out, 0, sizeof *out);
    const int64_t n = d->n;
    const int nk = d->nclass;
    cx_plan_dag dv = *d; /* the renumbered view */
    fast F = {.d = &dv, .d0 = d, .n = n};
    culonx_status st = CULONX_OK;
    int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *soff = calloc((size_t)n + 2, sizeof(int32_t)), *succ = NULL;
    int32_t *pos = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *predp = malloc(sizeof(int32_t) * (size_t)(n * CX_PLAN_NPRED + 1));
    int32_t *clsp = malloc(sizeof(int32_t) * (size_t)(n + 1));
    F.soff = malloc(sizeof(int32_t) * (size_t)(n + 2));
    F.es = malloc(sizeof(double) * (size_t)(n + 1));
    F.ls = malloc(sizeof(double) * (size_t)(n + 1));
    F.ext = malloc(sizeof(double) * (size_t)(n + 1));
    F.tmp = malloc(sizeof(double) * (size_t)(n + 1));
    F.alt = malloc(sizeof(double) * (size_t)(n + 1));
    double *slopes = NULL, *cd = malloc(sizeof(double) * (size_t)(nk + 1));
    double *um = malloc(sizeof(double) * (size_t)(nu + 1));
    double *pa = malloc(sizeof(double) * (size_t)(n + 1)),
           *pb = malloc(sizeof(double) * (size_t)(n + 1));
    double *best = malloc(sizeof(double) * (size_t)(n + 1)),
           *cand = malloc(sizeof(double) * (size_t)(n + 1));
    if (!indeg || !order || !soff || !pos || !predp || !clsp || !F.soff || !F.es || !F.ls ||
        !F.ext || !F.tmp || !F.alt || !cd || !um || !pa || !pb || !best || !cand)
        goto oom;
    int64_t ne = 0;
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) soff[q + 1]++, indeg[i]++, ne++;
        }
    for (int64_t i = 0; i < n; i++)
        soff[i + 1] += soff[i];
    succ = malloc(sizeof(int32_t) * (size_t)(ne + 1));
    F.succ = malloc(sizeof(int32_t) * (size_t)(ne + 1));
    if (!succ || !F.succ) goto oom;
    {
        int32_t *fill = (int32_t *)pa; /* scratch: n int32 fit in n doubles */
        memcpy(fill, soff, sizeof(int32_t) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[i * CX_PLAN_NPRED + k];
                if (q >= 0) succ[fill[q]++] = (int32_t)i;
            }
    }
    int64_t qt = 0;
    for (int64_t i = 0; i < n; i++)
        if (!indeg[i]) order[qt++] = (int32_t)i;
    for (int64_t qh = 0; qh < qt; qh++) {
        int32_t u = order[qh];
        for (int32_t e = soff[u]; e < soff[u + 1]; e++)
            if (--indeg[succ[e]] == 0) order[qt++] = succ[e];
    }
    if (qt != n) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "plan: the graph has a cycle");
        goto done;
    }
    /* the renumbered view: position x holds node order[x] */
    for (int64_t x = 0; x < n; x++)
        pos[order[x]] = (int32_t)x;
    F.soff[0] = 0;
    for (int64_t x = 0; x < n; x++) {
        int32_t i = order[x];
        clsp[x] = d->cls[i];
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
            predp[x * CX_PLAN_NPRED + k] = q >= 0 ? pos[q] : -1;
        }
        int32_t o = F.soff[x];
        for (int32_t e = soff[i]; e < soff[i + 1]; e++)
            F.succ[o++] = pos[succ[e]];
        F.soff[x + 1] = o;
    }
    dv.pred = predp, dv.cls = clsp;
    F.pos = pos;
    if (exact && !cx_core_plan_descent_init(&D, d, order, soff, succ)) goto oom;
    D.no_scale = max_steps > 0; /* a cut budget: the plain cut descent (plan_scale.c otherwise) */
    if (exact && !(keep = malloc(sizeof(double) * (size_t)(n + 1)))) goto oom;
    /* distinct prices: every hull slope, ascending, plus 0 and +inf */
    int ns = 0;
    slopes = malloc(sizeof(double) * (size_t)(d->hoff[nk] + 2));
    if (!slopes) goto oom;
    slopes[ns++] = 0;
    for (int k = 0; k < nk; k++)
        for (int32_t j = d->hoff[k]; j + 1 < d->hoff[k + 1]; j++)
            slopes[ns++] = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
    qsort(slopes, (size_t)ns, sizeof *slopes, cmpd);
    slopes[ns++] = INFINITY;
    /* makespan of each uniform clock, and the extremes */
    for (int q = 0; q < nu; q++) {
        for (int k = 0; k < nk; k++)
            cd[k] = udur[(size_t)k * nu + q];
        spread(&dv, cd, pa);
        um[q] = fwd(&F, pa);
    }
    at_price(d, INFINITY, cd);
    spread(&dv, cd, pa);
    const double tmin = fwd(&F, pa);
    at_price(d, 0, cd);
    spread(&dv, slow_s ? slow_s : cd, pa);
    double tmax = fwd(&F, pa);
    if (tmax < tmin) tmax = tmin;
    if (npoints < 2) npoints = 2;
    out->brk = malloc(sizeof *out->brk * (size_t)npoints);
    out->dur_s = malloc(sizeof(double) * (size_t)(n + 1));
    if (!out->brk || !out->dur_s) goto oom;
    double snap = snap_time_s > 0 ? snap_time_s : tmin;
    if (snap < tmin) snap = tmin;
    if (snap > tmax) snap = tmax;
    int plo = 0;
    /* targets slowest first; the snapshot as an extra last target */
    for (int p = 0; p <= npoints; p++) {
        double T = p < npoints ? tmax - (tmax - tmin) * p / (npoints - 1) : snap;
        double bc = INFINITY;
        /* price plan: smallest price index whose makespan meets T */
        /* M(slopes[hi]) = tmin <= T; targets fall until the snapshot, so
         * the last lo (makespan above the last T) stays below T */
        int lo = p < npoints ? plo : 0, hi = ns - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            at_price(d, slopes[mid], cd);
            spread(&dv, cd, pa);
            if (fwd(&F, pa) <= T * (1 + 1e-12))
                hi = mid;
            else
                lo = mid;
        }
        if (p < npoints) plo = lo;
        at_price(d, slopes[hi], cd);
        spread(&dv, cd, pa);
        double ma = fwd(&F, pa);
        at_price(d, slopes[lo], cd);
        spread(&dv, cd, pb);
        double mb = fwd(&F, pb);
        if (mb <= T * (1 + 1e-12))
            memcpy(cand, pb, sizeof(double) * (size_t)n);
        else
            mix(pa, ma, pb, mb, T, n, cand);
        double c = relax(&F, cand, T, 1);
        if (c < bc) bc = c, memcpy(best, cand, sizeof(double) * (size_t)n);
        /* uniform plan: the slowest clock meeting T, mixed with the next */
        int qa = -1;
        for (int q = 0; q < nu; q++)
            if (um[q] <= T * (1 + 1e-12) && (qa < 0 || um[q] > um[qa])) qa = q;
        if (qa >= 0) {
            for (int k = 0; k < nk; k++)
                cd[k] = udur[(size_t)k * nu + qa];
            spread(&dv, cd, pa);
            int qb = -1;
            for (int q = 0; q < nu; q++)
                if (um[q] > T * (1 + 1e-12) && (qb < 0 || um[q] < um[qb])) qb = q;
            if (qb >= 0) {
                for (int k = 0; k < nk; k++)
                    cd[k] = udur[(size_t)k * nu + qb];
                spread(&dv, cd, pb);
                mix(pa, um[qa], pb, um[qb], T, n, cand);
            } else
                memcpy(cand, pa, sizeof(double) * (size_t)n);
            c = relax(&F, cand, T, 0);
            if (c < bc) bc = c, memcpy(best, cand, sizeof(double) * (size_t)n);
        }
        if (exact) {
            if (p == npoints && keep && fabs(T - tkeep) <= 1e-15 * T) {
                /* the snapshot is the fastest target: solved already */
                to_ids(&F, keep, out->dur_s);
                out->snap_time_s = fwd(&F, keep);
                break;
            }
            to_ids(&F, best, cand); /* the descent works in node ids */
            int r = cx_core_plan_descent(&D, T, cand, max_steps > 0 ? max_steps : 1000 * n + 100000,
                                         &out->cuts);
            if (max_steps > 0 && r == 0) r = 1, out->uncertified++;
            if (r < 0) {
                if (r == -1) goto oom;
                st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "plan: cut descent failed");
                goto done;
            }
            if (r == 0) {
                st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0,
                                  "plan: the cut descent did not converge at %.9g s", T);
                goto done;
            }
            bc = 0;
            for (int64_t i = 0; i < n; i++)
                bc += cx_core_plan_cost(d, d->cls[i], cand[i]), best[pos[i]] = cand[i];
        }
        if (keep && p == npoints - 1) memcpy(keep, best, sizeof(double) * (size_t)n), tkeep = T;
        double M = fwd(&F, best);
        if (p < npoints)
            out->brk[out->nbrk++] = (cx_plan_break){M, bc};
        else
            to_ids(&F, best, out->dur_s), out->snap_time_s = M;
        if (!exact) out->cuts++;
    }
    goto done;
oom:
    st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory planning clocks");
done:
    if (st != CULONX_OK) cx_core_plan_frontier_free(out);
    cx_core_plan_descent_free(&D);
    free(keep);
    free(order), free(soff), free(succ), free(pos), free(predp), free(clsp);
    free(indeg), free(F.soff), free(F.succ), free(F.es), free(F.ls), free(F.ext), free(F.tmp),
        free(F.alt), free(slopes), free(cd);
    free(um), free(pa), free(pb), free(best), free(cand);
    return st;
}
