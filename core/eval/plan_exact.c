/*
 * plan_exact.c — the exact optimum of the clock-plan LP (plan.h) at one
 * iteration time T, by cut descent from any plan that meets T: the fixed-T
 * counterpart of Phillips & Dessouky (core/eval/plan_cut.c), which walks
 * the whole frontier one breakpoint at a time (tens of thousands of cuts
 * on a pipelined run) where this needs the optimum only at the frontier's
 * sample times, from the fast engine's near-optimal plans.
 *
 * LP at T: minimise sum_i c_i(d_i) (c_i convex, decreasing: the hull of
 * plan.c) subject to every path of the DAG being at most T long. A plan d
 * is optimal iff (KKT; the LP dual is a flow, see cx_core_plan_bound)
 *  (a) every node off the critical subgraph (total float > 1e-9 T, float
 *      measured against T) sits at its cheapest duration, and
 *  (b) the critical subgraph (tight nodes and tight edges, a source before
 *      the nodes starting at 0, a sink after those ending at T, an
 *      unbounded arc sink -> source) carries a circulation in which node
 *      i's flow lies within [l_i, u_i]: l_i = cost saved per second of
 *      lengthening i (0 at its cheapest), u_i = cost per second of
 *      shortening it (unbounded at its fastest).
 * Step: relax the free float first (with earliest starts fixed, each node
 * runs to the earliest start of its first successor or T, at most to its
 * cheapest duration). Then (b) is checked by a maximum flow with lower
 * bounds (super source/sink). When it fails, the residual min cut gives a
 * set A with sum of l over node arcs entering A > sum of u over node arcs
 * leaving A (Hoffman; no dependency arc and not the sink -> source arc can
 * leave A, their capacity is unbounded). Lengthening the nodes entering A
 * and shortening those leaving it keeps every critical path's length (each
 * path leaves A at least as often as it enters through a node) and lowers
 * the cost at the rate sum u - sum l < 0; nodes breaking (a) are lengthened
 * too. The step runs to the first event: a moving node reaches a hull
 * point, or a non-critical path reaches T (Newton from the right on the
 * convex makespan of the step, each iterate a longest-path pass). Each step
 * lowers the cost or makes a new path critical; the descent ends when (a)
 * and (b) hold, i.e. at the LP optimum (to the flow tolerance 1e-9 of the
 * lower bounds' sum).
 * First (unless no_scale) the dual solver of plan_scale.c: its plan is
 * returned when it finds exact prices (certify: the KKT check above runs
 * on it too), the descent starts from it when they are only eps-optimal.
 * See core/README.md, "Clock plans".
 */
#include "core/eval/plan.h"
#include "core/eval/plan_flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cx_core_plan_descent_init(cx_plan_descent *D, const cx_plan_dag *d, const int32_t *order,
                              const int32_t *soff, const int32_t *succ)
{
    memset(D, 0, sizeof *D);
    const size_t n = (size_t)d->n + 1;
    D->d = d, D->order = order, D->soff = soff, D->succ = succ;
    D->es = malloc(sizeof(double) * n), D->ls = malloc(sizeof(double) * n);
    D->rate = calloc(n, sizeof(double)), D->l0 = malloc(sizeof(double) * n);
    D->sg = malloc(sizeof(double) * n), D->lower = malloc(sizeof(double) * n);
    D->upper = malloc(sizeof(double) * n), D->lim = malloc(sizeof(double) * n);
    D->dl = malloc(sizeof(double) * n), D->dr = malloc(sizeof(double) * n);
    D->ev = malloc(sizeof(double) * n), D->hd = malloc(sizeof(double) * n);
    D->hi = malloc(sizeof(int32_t) * n);
    D->ex = malloc(sizeof(double) * (2 * n + 8));
    D->map = malloc(sizeof(int32_t) * n), D->crit = malloc(sizeof(int32_t) * n);
    D->arc = malloc(sizeof(int32_t) * n), D->path = malloc(sizeof(int32_t) * (2 * n + 8));
    D->fn = calloc(1, sizeof(cx_flownet));
    D->sc = cx_core_plan_scale_new(d, soff, 1);
    return D->sc && D->es && D->ls && D->rate && D->l0 && D->sg && D->lower && D->upper && D->lim &&
           D->dl && D->dr && D->ex && D->map && D->crit && D->arc && D->path && D->fn;
}

void cx_core_plan_descent_free(cx_plan_descent *D)
{
    if (D->fn) cx_core_fn_free(D->fn);
    cx_core_plan_scale_free(D->sc);
    free(D->fn), free(D->es), free(D->ls), free(D->rate), free(D->l0), free(D->sg);
    free(D->lower), free(D->upper), free(D->lim), free(D->dl), free(D->dr), free(D->ev),
        free(D->hd), free(D->hi), free(D->ex), free(D->map), free(D->crit);
    free(D->arc), free(D->path);
    memset(D, 0, sizeof *D);
}

/* duration of node i at step a along its rate, clamped to its curve */
static double moved(const cx_plan_descent *D, const double *dur, int64_t i, double a, int *clamped)
{
    const cx_plan_dag *d = D->d;
    double r = D->rate[i], t = dur[i] + r * a;
    *clamped = 0;
    if (r == 0) return dur[i];
    int k = d->cls[i];
    double lo = d->ht[d->hoff[k]], hi = d->ht[d->hoff[k + 1] - 1];
    if (t < lo) t = lo, *clamped = 1;
    if (t > hi) t = hi, *clamped = 1;
    return t;
}

/* Earliest starts with every node moved by step (clamped); returns the
 * makespan and, for its path, the linear model's value at step 0 (*L0) and
 * slope (*Sg): clamped nodes count as constants. */
static double forward(cx_plan_descent *D, const double *dur, double step, double *L0, double *Sg)
{
    const int32_t *pred = D->d->pred;
    double best = 0, bl = 0, bs = 0;
    for (int64_t x = 0; x < D->d->n; x++) {
        int32_t i = D->order[x];
        double st = 0, l = 0, sg = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = pred[(int64_t)i * CX_PLAN_NPRED + k];
            if (q < 0) continue;
            if (D->es[q] + D->lim[q] > st) st = D->es[q] + D->lim[q], l = D->l0[q], sg = D->sg[q];
        }
        int cl;
        double t = step > 0 ? moved(D, dur, i, step, &cl) : dur[i];
        D->es[i] = st, D->lim[i] = t;
        D->l0[i] = l + (step > 0 && !cl ? dur[i] : t),
        D->sg[i] = sg + (step > 0 && !cl ? D->rate[i] : 0);
        if (st + t > best) best = st + t, bl = D->l0[i], bs = D->sg[i];
    }
    if (L0) *L0 = bl;
    if (Sg) *Sg = bs;
    return best;
}

/* binary heap of (distance, node) events */
static void hpush(cx_plan_descent *D, double dist, int32_t i)
{
    int64_t k = D->nheap++;
    while (k > 0) {
        int64_t p = (k - 1) / 2;
        if (D->hd[p] <= dist) break;
        D->hd[k] = D->hd[p], D->hi[k] = D->hi[p];
        k = p;
    }
    D->hd[k] = dist, D->hi[k] = i;
}

static void hpop(cx_plan_descent *D)
{
    int64_t n = --D->nheap, k = 0;
    double dist = D->hd[n];
    int32_t i = D->hi[n];
    for (;;) {
        int64_t c = 2 * k + 1;
        if (c >= n) break;
        if (c + 1 < n && D->hd[c + 1] < D->hd[c]) c++;
        if (D->hd[c] >= dist) break;
        D->hd[k] = D->hd[c], D->hi[k] = D->hi[c];
        k = c;
    }
    D->hd[k] = dist, D->hi[k] = i;
}

/* segment slope (cost saved per second) between hull points j and j+1 */
static double seg(const cx_plan_dag *d, int32_t j)
{
    return (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
}

/* The next event of moving node i past distance `from` (its duration at
 * step `from` is dur + rate * from): the distance to its next hull point
 * along its rate and the change of the cost derivative there (*dphi);
 * INFINITY when none. */
static double next_event(const cx_plan_descent *D, const double *dur, int32_t i, double from,
                         double tol, double *dphi)
{
    const cx_plan_dag *d = D->d;
    int k = d->cls[i];
    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
    double t = dur[i] + D->rate[i] * from;
    if (D->rate[i] > 0) { /* lengthening: the first point beyond t */
        int32_t j = a;
        while (j <= b && d->ht[j] <= t + tol)
            j++;
        if (j > b) return INFINITY;
        /* lo falls from seg(j-1) to seg(j) (0 at the cheapest) */
        *dphi = seg(d, j - 1) - (j < b ? seg(d, j) : 0);
        return from + (d->ht[j] - t);
    }
    int32_t j = b; /* shortening: the first point below t */
    while (j >= a && d->ht[j] >= t - tol)
        j--;
    if (j <= a) return INFINITY; /* the fastest point: the step's bound */
    *dphi = seg(d, j - 1) - seg(d, j);
    return from + (t - d->ht[j]);
}

/* Slopes of class k at t: cost per second of shortening (*up, INF at the
 * fastest point) and saved per second of lengthening (*lo, 0 at the
 * cheapest), and how far each holds (*dl, *dr). */
static void slopes_at(const cx_plan_dag *d, int k, double t, double tol, double *up, double *dl,
                      double *lo, double *dr)
{
    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1, j = a;
    *up = CX_FLOW_INF, *dl = 0, *lo = 0, *dr = 0;
    if (a == b) return;
    while (j + 1 <= b && d->ht[j + 1] <= t + tol)
        j++;
    if (fabs(t - d->ht[j]) <= tol) { /* at hull point j */
        if (j > a) {
            *up = (d->hc[j - 1] - d->hc[j]) / (d->ht[j] - d->ht[j - 1]);
            *dl = t - d->ht[j - 1];
        }
        if (j < b) {
            *lo = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
            *dr = d->ht[j + 1] - t;
        }
    } else {
        *up = *lo = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
        *dl = t - d->ht[j], *dr = d->ht[j + 1] - t;
    }
}

/* every node runs until its first successor starts (or T), earliest starts
 * fixed, at most to its cheapest duration */
static void free_float(cx_plan_descent *D, double T, double *dur)
{
    const cx_plan_dag *d = D->d;
    forward(D, dur, 0, NULL, NULL);
    for (int64_t i = 0; i < d->n; i++) {
        double lf = T;
        for (int32_t e = D->soff[i]; e < D->soff[i + 1]; e++)
            if (D->es[D->succ[e]] < lf) lf = D->es[D->succ[e]];
        double hmax = d->ht[d->hoff[d->cls[i] + 1] - 1];
        double nd = lf - D->es[i];
        if (nd > hmax) nd = hmax;
        if (nd > dur[i]) dur[i] = nd;
    }
}

int cx_core_plan_descent(cx_plan_descent *D, double T, double *dur, int64_t max_steps,
                         int64_t *steps)
{
    const cx_plan_dag *d = D->d;
    const int64_t n = d->n;
    const double tol = 1e-9 * (T > 0 ? T : 1);
    cx_flownet *fn = D->fn;
    if (D->sc && !D->no_scale) {
        forward(D, dur, 0, NULL, NULL);
        int r = cx_core_plan_scale_solve(D->sc, T, D->es, dur, D->ev, &D->scale_work);
        if (r == 0 && D->solved) { /* warm, out of budget: once more from this plan */
            cx_core_plan_scale_cold(D->sc);
            r = cx_core_plan_scale_solve(D->sc, T, D->es, dur, D->ev, &D->scale_work);
        }
        if (r < 0) return -2;
        if (r == 0) D->no_scale = 1; /* out of budget: not worth trying again */
        D->solved = 1;
        double M = r >= 1 ? forward(D, D->ev, 0, NULL, NULL) : INFINITY;
        if (M > T + tol * 1e-3 && M <= T + tol) {
            /* past T by the prices' rounding along long paths: mixed
             * with the fastest plan (the makespan is convex) to meet T,
             * unless T is (nearly) the fastest time: then kept, within
             * 1e-9 T (the frontier records the plan's own makespan) */
            for (int64_t i = 0; i < n; i++)
                D->hd[i] = d->ht[d->hoff[d->cls[i]]];
            double Mf = forward(D, D->hd, 0, NULL, NULL), w = M > Mf ? (M - T) / (M - Mf) : 1;
            if (w <= 1e-6) {
                for (int64_t i = 0; i < n; i++)
                    D->ev[i] = (1 - w) * D->ev[i] + w * D->hd[i];
                M = forward(D, D->ev, 0, NULL, NULL);
            }
        }
        if (M <= T + tol) {
            memcpy(dur, D->ev, sizeof(double) * (size_t)n);
            if (r == 1 && !D->certify) return 1; /* optimal: exact duals found */
        }
    }
    for (int64_t it = 0; it < max_steps; it++) {
        free_float(D, T, dur);
        /* the longest path may exceed T by rounding (moving nodes by a
         * step changes sums by an ulp): allowed 1e-12 T over T or the start */
        double M0 = forward(D, dur, 0, NULL, NULL), ok = (M0 > T ? M0 : T) + tol * 1e-3;
        for (int64_t x = n - 1; x >= 0; x--) { /* latest starts against T */
            int32_t i = D->order[x];
            double lf = T;
            for (int32_t e = D->soff[i]; e < D->soff[i + 1]; e++)
                if (D->ls[D->succ[e]] < lf) lf = D->ls[D->succ[e]];
            D->ls[i] = lf - dur[i];
        }
        int32_t nc = 0;
        int loose = 0; /* non-critical nodes not at their cheapest */
        for (int64_t i = 0; i < n; i++) {
            D->map[i] = -1, D->rate[i] = 0;
            if (D->ls[i] - D->es[i] <= tol) {
                D->map[i] = nc, D->crit[nc++] = (int32_t)i;
                continue;
            }
            double up, dl, lo, dr;
            slopes_at(d, d->cls[i], dur[i], tol * 1e-3, &up, &dl, &lo, &dr);
            if (lo > 0) D->rate[i] = 1, loose = 1;
        }
        const int32_t src = 2 * nc, snk = src + 1, ss = src + 2, tt = src + 3;
        if (!cx_core_fn_reset(fn, 2 * nc + 4)) return -1;
        for (int32_t v = 0; v < 2 * nc + 4; v++)
            D->ex[v] = 0;
        double need = 0;
        for (int32_t c = 0; c < nc; c++) {
            int32_t i = D->crit[c];
            double up, dl, lo, dr;
            slopes_at(d, d->cls[i], dur[i], tol * 1e-3, &up, &dl, &lo, &dr);
            D->upper[c] = up, D->lower[c] = lo;
            D->dl[c] = dl, D->dr[c] = dr;
            D->arc[c] =
                cx_core_fn_add(fn, 2 * c, 2 * c + 1, up >= CX_FLOW_INF ? CX_FLOW_INF : up - lo);
            if (D->arc[c] < 0) return -1;
            D->ex[2 * c + 1] += lo, D->ex[2 * c] -= lo, need += lo;
            if (D->es[i] <= tol && cx_core_fn_add(fn, src, 2 * c, CX_FLOW_INF) < 0) return -1;
            if (D->es[i] + dur[i] >= T - tol && cx_core_fn_add(fn, 2 * c + 1, snk, CX_FLOW_INF) < 0)
                return -1;
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
                if (q < 0 || D->map[q] < 0 || fabs(D->es[q] + dur[q] - D->es[i]) > tol) continue;
                if (cx_core_fn_add(fn, 2 * D->map[q] + 1, 2 * c, CX_FLOW_INF) < 0) return -1;
            }
        }
        if (cx_core_fn_add(fn, snk, src, CX_FLOW_INF) < 0) return -1;
        for (int32_t v = 0; v < 2 * nc + 2; v++) {
            if (D->ex[v] > 0 && cx_core_fn_add(fn, ss, v, D->ex[v]) < 0) return -1;
            if (D->ex[v] < 0 && cx_core_fn_add(fn, v, tt, -D->ex[v]) < 0) return -1;
        }
        double got = need > 0 ? cx_core_fn_maxflow(fn, ss, tt, 1e-13 * need, D->path) : 0;
        int cut = need > 0 && got < need * (1 - 1e-9);
        double rate = 0; /* cost per unit step on the critical subgraph */
        double step = INFINITY;
        if (cut) {
            cx_core_fn_bfs(fn, ss, -1, 1e-13 * need); /* A: level >= 0 */
            for (int32_t c = 0; c < nc; c++) {
                int32_t i = D->crit[c];
                int in_a = fn->level[2 * c] >= 0, out_a = fn->level[2 * c + 1] >= 0;
                if (in_a && !out_a) {
                    if (D->upper[c] >= CX_FLOW_INF) return -2; /* cannot happen: finite cut */
                    D->rate[i] = -1, rate += D->upper[c];
                    if (D->dl[c] < step) step = D->dl[c];
                } else if (!in_a && out_a && D->lower[c] > 0) {
                    D->rate[i] = 1, rate -= D->lower[c];
                    if (D->dr[c] < step) step = D->dr[c];
                }
            }
            if (rate >= -1e-12 * need) cut = 0; /* numerically flat */
        }
        if (!cut) {
            for (int32_t c = 0; c < nc; c++)
                D->rate[D->crit[c]] = 0;
            if (!loose) {
                if (steps) *steps += it;
                return 1;
            }
        }
        /* exact line search: the cost along the direction is convex (each
         * node's is; a lengthened node stops at its cheapest); its slope phi
         * starts at `rate` and rises at every hull point passed. Bound:
         * the first shortened node reaching its fastest point (past it
         * the critical paths would grow). */
        double amax = INFINITY, phi = 0;
        D->nheap = 0;
        for (int64_t i = 0; i < n; i++) {
            if (D->rate[i] == 0) continue;
            int k = d->cls[i];
            double up, dl, lo, dr, dp = 0;
            slopes_at(d, k, dur[i], tol * 1e-3, &up, &dl, &lo, &dr);
            if (D->rate[i] < 0) {
                phi += up;
                double room = dur[i] - d->ht[d->hoff[k]];
                if (room < amax) amax = room;
            } else
                phi -= lo;
            double e = next_event(D, dur, (int32_t)i, 0, tol * 1e-3, &dp);
            if (e < INFINITY) D->ev[i] = dp, hpush(D, e, (int32_t)i);
        }
        step = amax;
        const double flat = 1e-12 * (need > 0 ? need : 1);
        while (D->nheap > 0 && phi < -flat) {
            double e = D->hd[0];
            int32_t i = D->hi[0];
            if (e >= amax) break;
            hpop(D);
            phi += D->ev[i];
            step = e;
            if (phi >= -flat) break;
            double dp = 0, e2 = next_event(D, dur, i, e, tol * 1e-3, &dp);
            if (e2 < INFINITY) D->ev[i] = dp, hpush(D, e2, i);
            step = amax;
        }
        if (!(step < INFINITY)) { /* only lengthening, every node to its cheapest */
            step = 0;
            for (int64_t i = 0; i < n; i++)
                if (D->rate[i] > 0) {
                    double r = d->ht[d->hoff[d->cls[i] + 1] - 1] - dur[i];
                    if (r > step) step = r;
                }
        }
        /* the longest path must stay within T: Newton from the right on
         * the clamped makespan, bisection where it stalls */
        double okstep = 0;
        int feasible = 0;
        for (int k = 0; k < 100; k++) {
            double L0, Sg;
            double M = forward(D, dur, step, &L0, &Sg);
            if (M <= ok) {
                feasible = 1;
                break;
            }
            double ns = Sg > 0 ? (ok - L0) / Sg : -1;
            if (!(ns < step) || ns <= 0) break;
            step = ns;
        }
        if (!feasible) { /* bisection: lo feasible (0), hi not */
            double lo = okstep, hi = step;
            for (int k = 0; k < 60; k++) {
                double mid = 0.5 * (lo + hi);
                if (forward(D, dur, mid, NULL, NULL) <= ok)
                    lo = mid;
                else
                    hi = mid;
            }
            step = lo;
        }
        for (int64_t i = 0; i < n; i++) {
            if (D->rate[i] == 0) continue;
            int k = d->cls[i], cl;
            int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
            dur[i] = moved(D, dur, i, step, &cl);
            for (int32_t j = a; j <= b; j++) /* snap down onto hull points */
                if (dur[i] >= d->ht[j] && dur[i] - d->ht[j] <= tol * 1e-3) dur[i] = d->ht[j];
            D->rate[i] = 0;
        }
    }
    if (steps) *steps += max_steps;
    return 0;
}
