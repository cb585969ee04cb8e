/*
 * plan_cut.c — the exact time–energy frontier of a DAG of nodes with convex,
 * decreasing cost curves: Phillips & Dessouky's cut algorithm (Management
 * Science 1977), as Perseus (SOSP'24) uses it for pipeline clock plans,
 * with event-driven steps instead of a fixed time quantum.
 *
 * Problem (an LP): minimise sum_i c_i(d_i) subject to the makespan of the
 * DAG with durations d_i being <= T, for every T from the makespan with all
 * nodes at their cheapest duration down to the shortest makespan. c_i is the
 * lower convex hull of a node's (time, cost) at each GPU clock step (between
 * two hull clocks a node time-shares them: one clock switch per pass).
 *
 * Step: longest path (earliest starts ES, latest starts LS); the critical
 * subgraph (float LS - ES <= 1e-9 T, tight edges); each critical node i is an
 * arc in_i -> out_i with upper capacity = cost per second of shortening it
 * (infinite at its shortest duration) and lower capacity = cost saved per
 * second of lengthening it (0 at its longest); dependency arcs [0, inf).
 * A maximum flow with lower bounds (feasible circulation, then s-t flow in
 * the residual) gives the minimum cut: its forward nodes are shortened and
 * its backward nodes lengthened at rate 1, which shortens every critical
 * path by exactly the step at the least cost rate (the cut value). The step
 * runs until the next event: a node reaches a hull point, or a non-critical
 * path becomes critical (found by a Newton iteration on the makespan as a
 * function of the step, each a longest-path pass). No finite cut: the
 * makespan is minimal. Breakpoints are exact frontier vertices; between
 * them the frontier is linear.
 *
 * Certificate (cx_core_plan_bound): LP weak duality. For any flow f >= 0
 * from a source before every node to a sink after every node (node flow
 * f_i, value v) and any durations of makespan <= T, sum_i f_i d_i <= v T
 * (decompose f into paths; each path is at most the makespan long), so
 *   C*(T) >= D(f) = sum_i g_i(f_i) - v T,  g_i(f) = min_d c_i(d) + f d
 * (g_i: the minimum over the hull points). The flow used is the feasible
 * circulation of the cut network above at a given plan (node arcs within
 * [saving of lengthening, cost of shortening], critical nodes and tight
 * edges only): where it exists, D(f) = sum over critical nodes of c_i(d_i)
 * + sum over the others of their cheapest cost, so the plan is within
 * (its cost - D) of the optimum; without one (the plan is not locally
 * optimal), widening rounds first: the gap of node i at flow f is
 * c_i(d_i) + f d_i - g_i(f) >= 0, zero within [saving of lengthening, cost
 * of shortening] and growing with the distance of f from them (its slope
 * is d_i minus the duration i would take at price f), so the bounds are
 * loosened only where the flow needs it: the node arcs on the minimum
 * cuts of the circulation (the cut nearest the supplies and the one
 * nearest the demands; Hoffman: no circulation exists while they hold)
 * are widened by one hull segment each (the upper bound to the next
 * steeper slope, the lower one to the next flatter slope, through a
 * reverse arc), the flow continued, until the circulation exists or a
 * work budget (arcs scanned) is spent; then the same circulation allowed
 * past the upper bounds where the lower ones still cannot be met (an
 * unbounded arc beside each bounded node arc, augmented after the bounded
 * flow: only the shortfall overflows; each overflowing node costs g_i
 * below c_i(d_i) + f_i d_i; along a deep pipeline's long paths even a
 * small shortfall costs much, hence the rounds first). Any flow a f (a >=
 * 0) is a flow too: the best a in [0, 2] (golden section: D(a f) is
 * concave in a) is kept. The max flow meets the lower bounds only to 1e-6
 * of their sum (floating-point augmentation stalls just short of them);
 * what it leaves unmet, um, is the flow's positive imbalance (excess at
 * the node ends whose lower bound was not passed on), and for any schedule
 * of makespan <= T (times tau in [0, T]) sum_i f_i d_i <= v T + sum_v
 * tau(v) imbalance(v) <= v T + T um, so D(f) - T um is the bound used;
 * failing that, a maximum flow within the upper bounds ("infinite" capped
 * at 4x the largest finite slope + 1), a flow without lower bounds.
 */
#include "core/eval/plan.h"
#include "core/eval/plan_flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cx_core_plan_cost(const cx_plan_dag *d, int k, double t)
{
    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
    if (t <= d->ht[a]) return d->hc[a];
    if (t >= d->ht[b]) return d->hc[b];
    int32_t j = a, hi = b - 1; /* the last j in [a, b-1] with ht[j] <= t */
    while (j < hi) {
        int32_t mid = j + (hi - j + 1) / 2;
        if (d->ht[mid] <= t)
            j = mid;
        else
            hi = mid - 1;
    }
    double u = (t - d->ht[j]) / (d->ht[j + 1] - d->ht[j]);
    return d->hc[j] + u * (d->hc[j + 1] - d->hc[j]);
}

/* Slopes (cost per second, >= 0) of shortening and lengthening node class k
 * at duration t, and how far each holds. */
static void slopes(const cx_plan_dag *d, int k, double t, double tol, double *up, double *dl,
                   double *lo, double *dr)
{
    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
    *up = CX_FLOW_INF, *dl = CX_FLOW_INF, *lo = 0, *dr = CX_FLOW_INF;
    if (a == b) return;
    int32_t j = a; /* segment [j, j+1] holding t, t at a point: j is it */
    while (j + 1 <= b && d->ht[j + 1] <= t + tol)
        j++;
    int at_point = fabs(t - d->ht[j]) <= tol;
    if (at_point) {
        if (j > a) {
            *up = (d->hc[j - 1] - d->hc[j]) / (d->ht[j] - d->ht[j - 1]);
            *dl = t - d->ht[j - 1];
        }
        if (j < b) {
            *lo = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
            *dr = d->ht[j + 1] - t;
        }
    } else {
        double s = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
        *up = *lo = s;
        *dl = t - d->ht[j];
        *dr = d->ht[j + 1] - t;
    }
}

typedef struct {
    const cx_plan_dag *d;
    int64_t n;
    int32_t *order, *soff, *succ;
    double *es, *ls, *dur, *rate;
    double *l0, *sg; /* along the argmax path: length at step 0, rate sum */
} solver;

/* Earliest starts with durations dur + rate*step; returns the makespan and
 * sets *L0, *S of the longest path (length at step 0 and its rate sum). */
static double forward(solver *S, double step, double *L0, double *Sg)
{
    const int32_t *pred = S->d->pred;
    double best = -1, bl = 0, bs = 0;
    for (int64_t x = 0; x < S->n; x++) {
        int32_t i = S->order[x];
        double st = 0, l = 0, sg = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = pred[(int64_t)i * CX_PLAN_NPRED + k];
            if (q < 0) continue;
            double e = S->es[q] + S->dur[q] + S->rate[q] * step;
            if (e > st) st = e, l = S->l0[q] + S->dur[q], sg = S->sg[q] + S->rate[q];
        }
        S->es[i] = st, S->l0[i] = l, S->sg[i] = sg;
        double e = st + S->dur[i] + S->rate[i] * step;
        if (e > best) best = e, bl = l + S->dur[i], bs = sg + S->rate[i];
    }
    if (L0) *L0 = bl;
    if (Sg) *Sg = bs;
    return best < 0 ? 0 : best;
}

double cx_core_plan_makespan(const cx_plan_dag *d, const double *dur)
{
    /* ids need not be topological: Bellman-style passes until stable */
    double *es = calloc((size_t)d->n + 1, sizeof(double));
    if (!es) return NAN;
    double ms = 0;
    for (int changed = 1, pass = 0; changed && pass <= d->n; pass++) {
        changed = 0;
        for (int64_t i = 0; i < d->n; i++) {
            double st = 0;
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[i * CX_PLAN_NPRED + k];
                if (q >= 0 && es[q] + dur[q] > st) st = es[q] + dur[q];
            }
            if (st > es[i]) es[i] = st, changed = 1;
        }
    }
    for (int64_t i = 0; i < d->n; i++)
        if (es[i] + dur[i] > ms) ms = es[i] + dur[i];
    free(es);
    return ms;
}

static double g_of(const cx_plan_dag *d, int k, double f)
{
    double m = CX_FLOW_INF;
    for (int32_t j = d->hoff[k]; j < d->hoff[k + 1]; j++)
        if (d->hc[j] + f * d->ht[j] < m) m = d->hc[j] + f * d->ht[j];
    return m;
}

/* The dual value of the flow a f (node flows f, value v) at time T, less
 * a T um: um = the lower bounds' supply the max flow left unmet, the flow's
 * positive imbalance (see the top: the bound stays rigorous). */
static double dual_at(const cx_plan_dag *d, const double *f, double v, double T, double um,
                      double a)
{
    double b = -a * v * T - a * T * um;
    for (int64_t i = 0; i < d->n; i++)
        b += g_of(d, d->cls[i], a * f[i]);
    return b;
}

/* Slope of hull segment j (points j, j+1): cost per second. */
static double seg_slope(const cx_plan_dag *d, int32_t j)
{
    return (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
}

/* The hull segments whose slopes bound node class k's flow at duration t
 * (as slopes() does): upper bound seg_slope(ju) (ju below the first point:
 * unbounded), lower bound seg_slope(jl) (jl the last point: 0). */
static void hull_at(const cx_plan_dag *d, int k, double t, double tol, int32_t *ju, int32_t *jl)
{
    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1, j = a;
    while (j + 1 <= b && d->ht[j + 1] <= t + tol)
        j++;
    *jl = j;
    *ju = fabs(t - d->ht[j]) <= tol ? j - 1 : j;
}

culonx_status cx_core_plan_bound(const cx_plan_dag *d, const double *dur, double *bound,
                                 int *certified, culonx_error *err)
{
    return cx_core_plan_bound_work(d, dur, CX_BOUND_WORK, bound, certified, err);
}

culonx_status cx_core_plan_bound_work(const cx_plan_dag *d, const double *dur, double budget,
                                      double *bound, int *certified, culonx_error *err)
{
    const int64_t n = d->n;
    *certified = 0;
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *soff = calloc((size_t)n + 2, sizeof(int32_t));
    int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *map = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *crit = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *arc = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *rarc = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *ju = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *jl = malloc(sizeof(int32_t) * (size_t)(n + 1));
    double *es = malloc(sizeof(double) * (size_t)(n + 1));
    double *ls = malloc(sizeof(double) * (size_t)(n + 1));
    double *lower = malloc(sizeof(double) * (size_t)(n + 1));
    double *ex = malloc(sizeof(double) * (size_t)(2 * n + 8));
    int32_t *path = malloc(sizeof(int32_t) * (size_t)(2 * n + 8));
    int32_t *succ = NULL;
    char *rq = malloc((size_t)(2 * n + 8));
    cx_flownet fn = {0};
    culonx_status st = CULONX_OK;
    if (!order || !soff || !indeg || !map || !crit || !arc || !rarc || !ju || !jl || !es || !ls ||
        !lower || !ex || !path || !rq)
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
    if (!succ) goto oom;
    memcpy(map, soff, sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) succ[map[q]++] = (int32_t)i;
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
    double T = 0;
    for (int64_t x = 0; x < n; x++) {
        int32_t i = order[x];
        double t0 = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
            if (q >= 0 && es[q] + dur[q] > t0) t0 = es[q] + dur[q];
        }
        es[i] = t0;
        if (t0 + dur[i] > T) T = t0 + dur[i];
    }
    for (int64_t x = n - 1; x >= 0; x--) {
        int32_t i = order[x];
        double lf = T;
        for (int32_t e = soff[i]; e < soff[i + 1]; e++)
            if (ls[succ[e]] < lf) lf = ls[succ[e]];
        ls[i] = lf - dur[i];
    }
    const double tol = 1e-9 * (T > 0 ? T : 1);
    int32_t nc = 0;
    for (int64_t i = 0; i < n; i++) {
        map[i] = -1;
        if (ls[i] - es[i] <= tol) map[i] = nc, crit[nc++] = (int32_t)i;
    }
    const int32_t src = 2 * nc, snk = src + 1, ss = src + 2, tt = src + 3;
    /* the largest finite slope: caps "infinite" node arcs in pass 1 */
    double big = 0;
    for (int32_t c = 0; c < nc; c++) {
        double up, dl, lo, dr;
        slopes(d, d->cls[crit[c]], dur[crit[c]], tol * 1e-3, &up, &dl, &lo, &dr);
        if (up < CX_FLOW_INF && up > big) big = up;
        if (lo > big) big = lo;
    }
    big = 4 * big + 1;
    double lb = 0;
    int32_t ts = -1, *ov = indeg; /* reuse: overflow arc per critical node */
    int overflow = 0, widened = 0;
    /* pass 0: the circulation with lower bounds (the KKT flow of the plan),
     * else with overflow past the upper bounds; pass 1, if neither exists:
     * a maximum flow within the upper bounds only (valid, weaker) */
    for (int pass = 0; pass < 2 && !*certified && nc > 0; pass++) {
        if (!cx_core_fn_reset(&fn, 2 * nc + 4)) goto oom;
        for (int32_t v = 0; v < 2 * nc + 4; v++)
            ex[v] = 0;
        for (int32_t c = 0; c < nc; c++) {
            int32_t i = crit[c];
            double up, dl, lo, dr;
            slopes(d, d->cls[i], dur[i], tol * 1e-3, &up, &dl, &lo, &dr);
            if (pass == 1) lo = 0, up = up >= CX_FLOW_INF ? big : up;
            lower[c] = lo;
            arc[c] =
                cx_core_fn_add(&fn, 2 * c, 2 * c + 1, up >= CX_FLOW_INF ? CX_FLOW_INF : up - lo);
            if (arc[c] < 0) goto oom;
            rarc[c] = -1;
            if (pass == 0) {
                hull_at(d, d->cls[i], dur[i], tol * 1e-3, &ju[c], &jl[c]);
                if ((rarc[c] = cx_core_fn_add(&fn, 2 * c + 1, 2 * c, 0)) < 0) goto oom;
            }
            ex[2 * c + 1] += lo, ex[2 * c] -= lo;
            if (es[i] <= tol && cx_core_fn_add(&fn, src, 2 * c, CX_FLOW_INF) < 0) goto oom;
            if (es[i] + dur[i] >= T - tol && cx_core_fn_add(&fn, 2 * c + 1, snk, CX_FLOW_INF) < 0)
                goto oom;
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
                if (q < 0 || map[q] < 0 || fabs(es[q] + dur[q] - es[i]) > tol) continue;
                if (cx_core_fn_add(&fn, 2 * map[q] + 1, 2 * c, CX_FLOW_INF) < 0) goto oom;
            }
        }
        double need = 0, got = 0;
        if (pass == 0) {
            ts = cx_core_fn_add(&fn, snk, src, CX_FLOW_INF);
            if (ts < 0) goto oom;
            for (int32_t v = 0; v < 2 * nc + 2; v++) {
                if (ex[v] > 0 && cx_core_fn_add(&fn, ss, v, ex[v]) < 0) goto oom;
                if (ex[v] < 0 && cx_core_fn_add(&fn, v, tt, -ex[v]) < 0) goto oom;
                if (ex[v] > 0) need += ex[v];
            }
            got = need > 0 ? cx_core_fn_maxflow(&fn, ss, tt, 1e-12 * need, path) : 0;
            /* no circulation within the bounds (the plan is not locally
             * optimal): widen the node arcs on the minimum cuts (the one
             * nearest the supplies and the one nearest the demands) by one
             * hull segment each, continue the flow, repeat within budget */
            fn.work = 0;
            while (got < need * (1 - 1e-6) && fn.work < budget) {
                cx_core_fn_bfs(&fn, ss, -1, 1e-12 * need);  /* reach from ss: level >= 0 */
                cx_core_fn_rbfs(&fn, tt, 1e-12 * need, rq); /* reach tt: rq = 1 */
                int wide = 0;
                for (int32_t c = 0; c < nc; c++) {
                    int k = d->cls[crit[c]], in_s = fn.level[2 * c] >= 0;
                    int out_s = fn.level[2 * c + 1] >= 0, in_t = rq[2 * c], out_t = rq[2 * c + 1];
                    int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
                    int up = (in_s && !out_s) || (!in_s && !out_s && !in_t && out_t);
                    int down = (out_s && !in_s) || (!in_s && !out_s && in_t && !out_t);
                    if (up && ju[c] >= a) { /* saturated: raise the upper bound */
                        double old = seg_slope(d, ju[c]);
                        ju[c]--;
                        fn.e[arc[c]].cap =
                            ju[c] < a ? CX_FLOW_INF : fn.e[arc[c]].cap + seg_slope(d, ju[c]) - old;
                        wide++;
                    } else if (down && jl[c] < b) { /* lower the lower bound */
                        double old = seg_slope(d, jl[c]);
                        jl[c]++;
                        fn.e[rarc[c]].cap += old - (jl[c] >= b ? 0 : seg_slope(d, jl[c]));
                        wide++;
                    }
                }
                if (!wide) break;
                widened = 1;
                got += cx_core_fn_maxflow(&fn, ss, tt, 1e-12 * need, path);
            }
            if (got < need * (1 - 1e-6)) {
                /* no circulation within the upper bounds (the plan is not
                 * locally optimal): let the flow exceed them (an unbounded
                 * arc beside each bounded node arc), continuing from the
                 * flow found, so only the unmet lower bounds overflow */
                overflow = 1;
                for (int32_t c = 0; c < nc; c++) {
                    ov[c] = -1;
                    if (fn.e[arc[c]].cap >= CX_FLOW_INF) continue;
                    if ((ov[c] = cx_core_fn_add(&fn, 2 * c, 2 * c + 1, CX_FLOW_INF)) < 0) goto oom;
                }
                got += cx_core_fn_maxflow(&fn, ss, tt, 1e-12 * need, path);
                if (got < need * (1 - 1e-6)) continue; /* still none: pass 1 */
            }
        } else {
            cx_core_fn_maxflow(&fn, src, snk, 1e-12 * big, path);
        }
        double *f = ls; /* reuse: node flows (lower + flow on the reduced arc) */
        for (int64_t i = 0; i < n; i++)
            f[i] = 0;
        for (int32_t c = 0; c < nc; c++)
            f[crit[c]] = lower[c] + fn.e[arc[c] + 1].cap -
                         (rarc[c] >= 0 ? fn.e[rarc[c] + 1].cap : 0) +
                         (overflow && ov[c] >= 0 ? fn.e[ov[c] + 1].cap : 0);
        double v = 0; /* flow value: what leaves the source */
        for (int32_t e = fn.head[src]; e >= 0; e = fn.e[e].next)
            if (!(e & 1)) v += fn.e[e ^ 1].cap;
        if (pass == 0) v = fn.e[ts + 1].cap; /* the circulation returns via ts */
        /* the flow scaled by a (a flow of value a v: also a bound; concave
         * in a): a = 1, then where the flow was not the KKT one the best a
         * in [0, 2] by golden-section search */
        const double um = need > got ? need - got : 0;
        lb = dual_at(d, f, v, T, um, 1);
        double a0 = 0, a1 = 2, gr = 0.5 * (sqrt(5.0) - 1);
        double x1 = a1 - gr * (a1 - a0), x2 = a0 + gr * (a1 - a0);
        double b1 = dual_at(d, f, v, T, um, x1), b2 = dual_at(d, f, v, T, um, x2);
        for (int k = 0; k < 40 && (widened || overflow); k++) {
            if (b1 > lb) lb = b1;
            if (b2 > lb) lb = b2;
            if (b1 < b2)
                a0 = x1, x1 = x2, b1 = b2, x2 = a0 + gr * (a1 - a0),
                b2 = dual_at(d, f, v, T, um, x2);
            else
                a1 = x2, x2 = x1, b2 = b1, x1 = a1 - gr * (a1 - a0),
                b1 = dual_at(d, f, v, T, um, x1);
        }
        *certified = pass == 1 ? 3 : overflow ? 2 : widened ? 4 : 1;
    }
    if (!*certified) {
        for (int64_t i = 0; i < n; i++)
            lb += d->hc[d->hoff[d->cls[i] + 1] - 1];
    }
    *bound = lb;
    goto done;
oom:
    st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory bounding the plan");
done:
    cx_core_fn_free(&fn);
    free(order), free(soff), free(indeg), free(map), free(crit), free(arc), free(es), free(ls);
    free(lower), free(ex), free(path), free(succ), free(rarc), free(ju), free(jl), free(rq);
    return st;
}

void cx_core_plan_frontier_free(cx_plan_frontier *f)
{
    if (!f) return;
    free(f->brk), free(f->dur_s);
    memset(f, 0, sizeof *f);
}

static int push_brk(cx_plan_frontier *f, int *cap, double t, double c)
{
    if (f->nbrk == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        cx_plan_break *nb = realloc(f->brk, sizeof *nb * (size_t)nc);
        if (!nb) return 0;
        f->brk = nb, *cap = nc;
    }
    f->brk[f->nbrk++] = (cx_plan_break){t, c};
    return 1;
}

culonx_status cx_core_plan_frontier(const cx_plan_dag *d, double snap_time_s, cx_plan_frontier *out,
                                    culonx_error *err)
{
    memset(out, 0, sizeof *out);
    const int64_t n = d->n;
    solver S = {.d = d, .n = n};
    cx_flownet fn = {0};
    int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *map = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *crit = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *path = NULL;
    double *lower = malloc(sizeof(double) * (size_t)(n + 1));
    double *upper = malloc(sizeof(double) * (size_t)(n + 1));
    double *dlim = malloc(sizeof(double) * (size_t)(n + 1));
    double *rlim = malloc(sizeof(double) * (size_t)(n + 1));
    double *ex = NULL;
    S.order = malloc(sizeof(int32_t) * (size_t)(n + 1));
    S.soff = calloc((size_t)n + 2, sizeof(int32_t));
    S.es = malloc(sizeof(double) * (size_t)(n + 1));
    S.ls = malloc(sizeof(double) * (size_t)(n + 1));
    S.dur = malloc(sizeof(double) * (size_t)(n + 1));
    S.rate = calloc((size_t)n + 1, sizeof(double));
    S.l0 = malloc(sizeof(double) * (size_t)(n + 1));
    S.sg = malloc(sizeof(double) * (size_t)(n + 1));
    culonx_status st = CULONX_OK;
    int cap = 0;
    if (!indeg || !map || !crit || !lower || !upper || !dlim || !rlim || !S.order || !S.soff ||
        !S.es || !S.ls || !S.dur || !S.rate || !S.l0 || !S.sg)
        goto oom;
    /* successors (CSR) and a topological order (Kahn) */
    int64_t ne = 0;
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) S.soff[q + 1]++, indeg[i]++, ne++;
        }
    for (int64_t i = 0; i < n; i++)
        S.soff[i + 1] += S.soff[i];
    S.succ = malloc(sizeof(int32_t) * (size_t)(ne + 1));
    path = malloc(sizeof(int32_t) * (size_t)(2 * n + 8));
    ex = malloc(sizeof(double) * (size_t)(2 * n + 8));
    if (!S.succ || !path || !ex) goto oom;
    memcpy(map, S.soff, sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) S.succ[map[q]++] = (int32_t)i;
        }
    int64_t qt = 0;
    for (int64_t i = 0; i < n; i++)
        if (!indeg[i]) S.order[qt++] = (int32_t)i;
    for (int64_t qh = 0; qh < qt; qh++) {
        int32_t u = S.order[qh];
        for (int32_t e = S.soff[u]; e < S.soff[u + 1]; e++)
            if (--indeg[S.succ[e]] == 0) S.order[qt++] = S.succ[e];
    }
    if (qt != n) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "plan: the graph has a cycle");
        goto done;
    }
    double cost = 0;
    for (int64_t i = 0; i < n; i++) { /* cheapest = longest duration */
        int32_t b = d->hoff[d->cls[i] + 1] - 1;
        S.dur[i] = d->ht[b];
        cost += d->hc[b];
    }
    double T = forward(&S, 0, NULL, NULL);
    if (!push_brk(out, &cap, T, cost)) goto oom;
    int snapped = 0;
    for (int64_t iter = 0;; iter++) {
        if (snap_time_s > 0 && !snapped && T <= snap_time_s * (1 + 1e-12)) {
            out->dur_s = malloc(sizeof(double) * (size_t)(n + 1));
            if (!out->dur_s) goto oom;
            memcpy(out->dur_s, S.dur, sizeof(double) * (size_t)n);
            out->snap_time_s = T;
            snapped = 1;
        }
        const double tol = 1e-9 * (T > 0 ? T : 1);
        /* latest starts */
        for (int64_t x = n - 1; x >= 0; x--) {
            int32_t i = S.order[x];
            double lf = T;
            for (int32_t e = S.soff[i]; e < S.soff[i + 1]; e++)
                if (S.ls[S.succ[e]] < lf) lf = S.ls[S.succ[e]];
            S.ls[i] = lf - S.dur[i];
        }
        /* critical subgraph as a flow network with lower bounds */
        int32_t nc = 0;
        for (int64_t i = 0; i < n; i++) {
            map[i] = -1;
            if (S.ls[i] - S.es[i] <= tol) map[i] = nc, crit[nc++] = (int32_t)i;
        }
        const int32_t src = 2 * nc, snk = src + 1, ss = src + 2, tt = src + 3;
        if (!cx_core_fn_reset(&fn, 2 * nc + 4)) goto oom;
        for (int32_t v = 0; v < 2 * nc + 4; v++)
            ex[v] = 0;
        int32_t *arc = indeg; /* reuse: edge id of node arc per critical node */
        for (int32_t c = 0; c < nc; c++) {
            int32_t i = crit[c];
            double up, dl, lo, dr;
            slopes(d, d->cls[i], S.dur[i], tol * 1e-3, &up, &dl, &lo, &dr);
            upper[c] = up, lower[c] = lo, dlim[c] = dl, rlim[c] = dr;
            arc[c] =
                cx_core_fn_add(&fn, 2 * c, 2 * c + 1, up >= CX_FLOW_INF ? CX_FLOW_INF : up - lo);
            if (arc[c] < 0) goto oom;
            ex[2 * c + 1] += lo, ex[2 * c] -= lo;
            if (S.es[i] <= tol && cx_core_fn_add(&fn, src, 2 * c, CX_FLOW_INF) < 0) goto oom;
            if (S.es[i] + S.dur[i] >= T - tol &&
                cx_core_fn_add(&fn, 2 * c + 1, snk, CX_FLOW_INF) < 0)
                goto oom;
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
                if (q < 0 || map[q] < 0) continue;
                if (fabs(S.es[q] + S.dur[q] - S.es[i]) > tol) continue;
                if (cx_core_fn_add(&fn, 2 * map[q] + 1, 2 * c, CX_FLOW_INF) < 0) goto oom;
            }
        }
        int32_t ts = cx_core_fn_add(&fn, snk, src, CX_FLOW_INF);
        int32_t first_aux = fn.ne;
        for (int32_t v = 0; v < 2 * nc + 2; v++) {
            if (ex[v] > 0 && cx_core_fn_add(&fn, ss, v, ex[v]) < 0) goto oom;
            if (ex[v] < 0 && cx_core_fn_add(&fn, v, tt, -ex[v]) < 0) goto oom;
        }
        const double feps = 1e-12;
        cx_core_fn_maxflow(&fn, ss, tt, feps, path); /* feasible flow */
        fn.e[ts].cap = fn.e[ts + 1].cap = 0;
        for (int32_t k = first_aux; k < fn.ne; k++)
            fn.e[k].cap = 0;
        cx_core_fn_maxflow(&fn, src, snk, feps, path);
        cx_core_fn_bfs(&fn, src, -1, feps); /* S side: level >= 0 */
        out->cuts++;
        double step = CX_FLOW_INF;
        int finite = 1;
        for (int32_t c = 0; c < nc; c++) {
            int32_t i = crit[c];
            int in_s = fn.level[2 * c] >= 0, out_s = fn.level[2 * c + 1] >= 0;
            S.rate[i] = 0;
            if (in_s && !out_s) {
                if (upper[c] >= CX_FLOW_INF) finite = 0;
                S.rate[i] = -1;
                if (dlim[c] < step) step = dlim[c];
            } else if (!in_s && out_s && lower[c] > 0) {
                S.rate[i] = 1;
                if (rlim[c] < step) step = rlim[c];
            }
        }
        if (!finite || nc == 0) {
            for (int32_t c = 0; c < nc; c++)
                S.rate[crit[c]] = 0;
            break;
        }
        if (snap_time_s > 0 && !snapped && T - step < snap_time_s) step = T - snap_time_s;
        /* next non-critical path turning critical: Newton on the makespan */
        for (int k = 0; k < 60; k++) {
            double L0, Sg;
            double M = forward(&S, step, &L0, &Sg);
            if (M <= T - step + tol * 1e-3 || Sg + 1 <= 0) break;
            double ns = (T - L0) / (Sg + 1);
            if (!(ns < step)) break;
            step = ns > 0 ? ns : 0;
        }
        /* apply */
        for (int32_t c = 0; c < nc; c++) {
            int32_t i = crit[c];
            if (S.rate[i] == 0) continue;
            int k = d->cls[i];
            cost -= cx_core_plan_cost(d, k, S.dur[i]);
            S.dur[i] += S.rate[i] * step;
            int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
            for (int32_t j = a; j <= b; j++) /* snap onto hull points */
                if (fabs(S.dur[i] - d->ht[j]) <= tol * 1e-3) S.dur[i] = d->ht[j];
            if (S.dur[i] < d->ht[a]) S.dur[i] = d->ht[a];
            if (S.dur[i] > d->ht[b]) S.dur[i] = d->ht[b];
            cost += cx_core_plan_cost(d, k, S.dur[i]);
            S.rate[i] = 0;
        }
        double Tn = forward(&S, 0, NULL, NULL);
        if (Tn >= T) { /* no progress: numerical stall */
            if (iter > 4 * n + 1000) break;
        }
        T = Tn;
        if (!push_brk(out, &cap, T, cost)) goto oom;
    }
    if (!snapped) {
        out->dur_s = malloc(sizeof(double) * (size_t)(n + 1));
        if (!out->dur_s) goto oom;
        memcpy(out->dur_s, S.dur, sizeof(double) * (size_t)n);
        out->snap_time_s = T;
    }
    goto done;
oom:
    st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory planning clocks");
done:
    if (st != CULONX_OK) cx_core_plan_frontier_free(out);
    cx_core_fn_free(&fn);
    free(indeg), free(map), free(crit), free(path), free(lower), free(upper), free(dlim);
    free(rlim), free(ex), free(S.order), free(S.soff), free(S.succ), free(S.es), free(S.ls);
    free(S.dur), free(S.rate), free(S.l0), free(S.sg);
    return st;
}
