/*
 * plan_scale.c — the exact optimum of the clock-plan LP (plan.h) at one
 * iteration time T through its dual, a minimum-cost circulation, solved by
 * cost scaling (Goldberg & Tarjan 1990; Goldberg 1997) with convex
 * piecewise-linear node arcs, warm-started from the previous time's flow
 * and prices. The cut descent of plan_exact.c then certifies the plan (its
 * KKT check) and finishes it should the flow stop short of the optimum.
 *
 * Dual (see plan_cut.c, "Certificate"): maximise sum_i g_i(f_i) - v T over
 * flows f from a source before every node to a sink after every node,
 * g_i(f) = min_j (c_j + f t_j) over node i's hull points. As a circulation
 * of least cost: node i is an arc in_i -> out_i of convex cost -g_i, i.e.
 * of marginal cost -t_m on the flow interval [s_m, s_(m-1)] (s_m the hull
 * slope (c_m - c_(m+1)) / (t_(m+1) - t_m) in J per second, falling with m;
 * s_(-1) = U, s_b = 0 at the cheapest point b); dependency arcs out_q ->
 * in_i, source arcs S -> in_i (no predecessor) and sink arcs out_i -> K (no
 * successor) of cost 0; the return arc K -> S of cost T. A node of one
 * hull point (fixed duration t: communication) is one vertex, out_i = in_i
 * shifted by t, its dependency and sink arcs of cost -t. Capacities are U =
 * 4 sum_i s_0(i) + 1 (a bound on any useful flow; "infinite"). Optimal
 * prices p give the times tau = -p: p(in_i) - p(out_i) is node i's
 * tension, its duration clamped to its curve; the residual arcs' reduced
 * costs c + p(u) - p(v) >= 0 say that the schedule meets every dependency
 * and T, and that no node could trade time more cheaply (complementary
 * slackness: the plan is optimal, strong duality).
 *
 * Cost scaling: refine(eps) saturates every residual arc of negative
 * reduced cost, then discharges vertices with excess (FIFO) by pushes on
 * admissible arcs (reduced cost < 0; on a node arc a push stops at the next
 * hull slope, where its cost changes) and relabels (p(u) = max over
 * residual arcs of p(v) - c - eps); eps falls by 8 from the largest
 * violation of the start / 64 until 1e-14 T; a global price update (Dijkstra
 * from the deficits with bucket queues, see price_update) at each refine's
 * start and after every n / 4 relabels. A warm start is dropped for the
 * cold one from the plan given when the cold one violates eps-optimality
 * less (a far jump of T: the previous flow routed anew is slower).
 * Prices are then made exact by
 * label correcting (Bellman-Ford, FIFO) on the residual graph with the
 * true costs and unbounded "infinite" arcs: no negative cycle means the
 * flow is optimal and the prices are its exact duals. Real costs, no time
 * quantum: exactness is up to rounding (1e-14 T on prices).
 *
 * Why this and not the alternatives (measured in core/README.md, "Clock
 * plans"): the hulls keep nearly every clock step (megatron-1t: 8.3 M
 * hull points on 101 k passes, 81 per pass), so any method that crosses
 * one hull point per step (Phillips-Dessouky, the cut descent, primal or
 * parametric network simplex, successive shortest paths: one pivot or
 * augmentation per breakpoint) needs millions of steps; a scaling method
 * moves a node's flow over many hull slopes in one saturation or push.
 * GLPK's glp_mincost_relax4 and glp_mincost_okalg need integer costs and
 * capacities (and segment arcs: 8.3 M of them), glp_simplex the primal of
 * that size. Measured (core/README.md, "Clock plans"): llama2-7b-v100 at
 * 25 times 2.2-2.6 s (the cut descent alone 29-43 s), gpt3-175b at 5
 * times 66 s (the cut descent: out of reach), before the price updates
 * (thousands of relabels per vertex: excess crawling along the deep
 * pipelines' long paths); with them gpt3-175b at 5 times 29 s and
 * megatron-1t's fastest time in about 7 minutes; session 21 (buckets, a
 * cold start where the warm one violates more, the first refine lower):
 * gpt3-175b at 5 times 1.9 s, megatron-1t at 2 times (the fastest and
 * the slowest) 63 s, with fixed-duration nodes contracted to one vertex.
 * Session 22: the solver works on the series contraction of the DAG
 * (plan_series.c: a recompute pass and its backward, an exclusive link,
 * one node of the merged curve; megatron-1t 169,232 -> 136,016 nodes) and
 * tries exact prices from eps 1e-7 T on (the flow is often optimal a few
 * refines before eps_end): megatron-1t at 2 times 139, 135 s -> 89,
 * 110 s CPU (core/README.md, "Clock plans").
 */
#include "core/eval/plan.h"
#include "core/eval/plan_flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cx_plan_scale {
    cx_plan_series ser;       /* the DAG solved: d's series contraction (plan_series.c) */
    const cx_plan_dag *d;     /* &ser.d */
    double *ces, *cst, *cdur; /* a plan of d gathered from / split into the given DAG's */
    int64_t n;
    int32_t nv, ns, ret, src, snk;
    int32_t *st, *sh;    /* simple arcs: tail, head */
    double *sf;          /* simple arcs: flow */
    double *sc;          /* simple arcs: cost (the return arc T) */
    int32_t *vi, *vo;    /* vertices in_i, out_i (one for a fixed node) */
    double *nf;          /* node arcs: flow */
    int32_t *nm;         /* node arcs: current hull point (local index) */
    double *sl;          /* per class point j: slope s_j (0 at the last) */
    int32_t *aoff, *adj; /* residual arcs out of each vertex (codes) */
    double *p, *ex;
    int32_t *cur, *q, *inq, *cnt;
    double *pd;       /* price update: distance to a deficit, in eps */
    int32_t *ph, *pp; /* price update: bucket list next, vertex state */
    int32_t *bh, *bp; /* price update: bucket heads [nv + 1], list prev */
    double U, T;
    int warm;
};

/* arc codes: (id << 2) | kind; kind 0 simple forward (from the tail), 1
 * simple backward (from the head), 2 node forward (from in_i), 3 node
 * backward (from out_i) */
#define K_SF 0
#define K_SB 1
#define K_NF 2
#define K_NB 3

static int fixed_node(const cx_plan_dag *d, int64_t i)
{
    return d->hoff[d->cls[i] + 1] - d->hoff[d->cls[i]] == 1;
}

static double sup_of(const cx_plan_scale *S, int64_t i, int32_t m)
{
    if (m == 0) return S->U;
    return S->sl[S->d->hoff[S->d->cls[i]] + m - 1];
}

static double inf_of(const cx_plan_scale *S, int64_t i, int32_t m)
{
    return S->sl[S->d->hoff[S->d->cls[i]] + m];
}

static int32_t last_of(const cx_plan_scale *S, int64_t i)
{
    int k = S->d->cls[i];
    return S->d->hoff[k + 1] - 1 - S->d->hoff[k];
}

static double len_of(const cx_plan_scale *S, int64_t i, int32_t m)
{
    return S->d->ht[S->d->hoff[S->d->cls[i]] + m];
}

/* Residual arc of code a (from vertex u): head, cost and capacity; node
 * arcs step their current point past exhausted segments (U bounds the
 * simple arcs and the fastest segment unless unb). */
static double res_arc(cx_plan_scale *S, int32_t a, int32_t *v, double *cost, int unb)
{
    int32_t id = a >> 2;
    switch (a & 3) {
    case K_SF:
        *v = S->sh[id], *cost = S->sc[id];
        return unb ? INFINITY : S->U - S->sf[id];
    case K_SB:
        *v = S->st[id], *cost = -S->sc[id];
        return S->sf[id];
    case K_NF: {
        int32_t m = S->nm[id];
        double c = sup_of(S, id, m) - S->nf[id];
        while (c <= 0 && m > 0)
            m--, c = sup_of(S, id, m) - S->nf[id];
        S->nm[id] = m;
        *v = S->vo[id], *cost = -len_of(S, id, m);
        return unb && m == 0 ? INFINITY : c;
    }
    default: {
        int32_t m = S->nm[id], b = last_of(S, id);
        double c = S->nf[id] - inf_of(S, id, m);
        while (c <= 0 && m < b)
            m++, c = S->nf[id] - inf_of(S, id, m);
        S->nm[id] = m;
        *v = S->vi[id], *cost = len_of(S, id, m);
        return c;
    }
    }
}

/* moves x along residual arc a (x <= its capacity; full: exactly to the
 * segment's end) */
static void push_arc(cx_plan_scale *S, int32_t a, double x, int full)
{
    int32_t id = a >> 2;
    switch (a & 3) {
    case K_SF:
        S->sf[id] = full ? S->U : S->sf[id] + x;
        break;
    case K_SB:
        S->sf[id] = full ? 0 : S->sf[id] - x;
        break;
    case K_NF:
        S->nf[id] = full ? sup_of(S, id, S->nm[id]) : S->nf[id] + x;
        break;
    default:
        S->nf[id] = full ? inf_of(S, id, S->nm[id]) : S->nf[id] - x;
        break;
    }
}

void cx_core_plan_scale_free(cx_plan_scale *S)
{
    if (!S) return;
    free(S->st), free(S->sh), free(S->sf), free(S->sc), free(S->vi), free(S->vo), free(S->nf),
        free(S->nm);
    free(S->aoff), free(S->adj), free(S->p), free(S->ex), free(S->cur), free(S->q);
    free(S->inq), free(S->cnt), free(S->pd), free(S->ph), free(S->pp), free(S->bh), free(S->bp);
    free(S->ces), free(S->cst), free(S->cdur);
    cx_core_plan_series_free(&S->ser);
    free(S);
}

cx_plan_scale *cx_core_plan_scale_new(const cx_plan_dag *d0, const int32_t *soff0, int contract)
{
    cx_plan_scale *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    if (!cx_core_plan_series_build(&S->ser, d0, soff0, contract)) {
        free(S);
        return NULL;
    }
    const cx_plan_dag *d = &S->ser.d;
    const int32_t *soff = S->ser.soff ? S->ser.soff : soff0;
    const int64_t n = d->n;
    S->d = d, S->n = n;
    S->ces = malloc(sizeof(double) * (size_t)(n + 1));
    S->cst = malloc(sizeof(double) * (size_t)(n + 1));
    S->cdur = malloc(sizeof(double) * (size_t)(n + 1));
    S->vi = malloc(sizeof(int32_t) * (size_t)(n + 1));
    S->vo = malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (!S->vi || !S->vo || !S->ces || !S->cst || !S->cdur) {
        cx_core_plan_scale_free(S);
        return NULL;
    }
    /* a node of one hull point (fixed duration t: communication) is one
     * vertex, out_i = in_i shifted by t: its arcs out carry the cost -t
     * (finishing at its start + t is always a schedule of the same plan) */
    int32_t nvx = 0;
    for (int64_t i = 0; i < n; i++) {
        S->vi[i] = nvx++;
        S->vo[i] = fixed_node(d, i) ? S->vi[i] : nvx++;
    }
    S->nv = nvx + 2, S->src = nvx, S->snk = nvx + 1;
    int64_t ns = 1;
    for (int64_t i = 0; i < n; i++) {
        int np = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++)
            if (d->pred[i * CX_PLAN_NPRED + k] >= 0) np++;
        ns += np + (np == 0) + (soff[i + 1] == soff[i]);
    }
    S->ns = (int32_t)ns;
    const size_t nv = (size_t)S->nv;
    S->st = malloc(sizeof(int32_t) * (size_t)ns), S->sh = malloc(sizeof(int32_t) * (size_t)ns);
    S->sf = calloc((size_t)ns, sizeof(double)), S->sc = calloc((size_t)ns, sizeof(double));
    S->nf = calloc((size_t)n + 1, sizeof(double)),
    S->nm = malloc(sizeof(int32_t) * (size_t)(n + 1));
    S->aoff = calloc(nv + 2, sizeof(int32_t));
    S->adj = malloc(sizeof(int32_t) * (size_t)(2 * ns + 2 * n + 2));
    S->p = calloc(nv, sizeof(double)), S->ex = calloc(nv, sizeof(double));
    S->cur = malloc(sizeof(int32_t) * nv), S->q = malloc(sizeof(int32_t) * (nv + 1));
    S->inq = calloc(nv, sizeof(int32_t)), S->cnt = calloc(nv, sizeof(int32_t));
    S->pd = malloc(sizeof(double) * nv), S->ph = malloc(sizeof(int32_t) * nv);
    S->pp = malloc(sizeof(int32_t) * nv);
    S->bh = malloc(sizeof(int32_t) * (nv + 1)), S->bp = malloc(sizeof(int32_t) * nv);
    if (!S->st || !S->sh || !S->sf || !S->sc || !S->nf || !S->nm || !S->aoff || !S->adj || !S->p ||
        !S->ex || !S->cur || !S->q || !S->inq || !S->cnt || !S->pd || !S->ph || !S->pp || !S->bh ||
        !S->bp) {
        cx_core_plan_scale_free(S);
        return NULL;
    }
    double smax = 0;
    S->sl = S->ser.sl; /* borrowed: slopes of d's hull segments */
    int32_t e = 0;
    S->ret = e, S->st[e] = S->snk, S->sh[e] = S->src, e++;
    for (int64_t i = 0; i < n; i++) {
        int np = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q < 0) continue;
            S->sc[e] = fixed_node(d, q) ? -len_of(S, q, 0) : 0;
            S->st[e] = S->vo[q], S->sh[e] = S->vi[i], e++, np++;
        }
        if (!np) S->st[e] = S->src, S->sh[e] = S->vi[i], e++;
        if (soff[i + 1] == soff[i]) {
            S->sc[e] = fixed_node(d, i) ? -len_of(S, i, 0) : 0;
            S->st[e] = S->vo[i], S->sh[e] = S->snk, e++;
        }
        S->nm[i] = last_of(S, i);
        smax += S->sl[d->hoff[d->cls[i]]];
    }
    S->U = 4 * smax + 1;
    /* adjacency (CSR) of residual arcs by the vertex they leave */
    for (int32_t a = 0; a < S->ns; a++)
        S->aoff[S->st[a] + 1]++, S->aoff[S->sh[a] + 1]++;
    for (int64_t i = 0; i < n; i++)
        if (!fixed_node(d, i)) S->aoff[S->vi[i] + 1]++, S->aoff[S->vo[i] + 1]++;
    for (int32_t v = 0; v < S->nv; v++)
        S->aoff[v + 1] += S->aoff[v];
    memcpy(S->cur, S->aoff, sizeof(int32_t) * nv);
    for (int32_t a = 0; a < S->ns; a++) {
        S->adj[S->cur[S->st[a]]++] = (a << 2) | K_SF;
        S->adj[S->cur[S->sh[a]]++] = (a << 2) | K_SB;
    }
    for (int64_t i = 0; i < n; i++) {
        if (fixed_node(d, i)) continue;
        S->adj[S->cur[S->vi[i]]++] = (int32_t)((i << 2) | K_NF);
        S->adj[S->cur[S->vo[i]]++] = (int32_t)((i << 2) | K_NB);
    }
    return S;
}

/* Global price update (Goldberg 1997): d(u) = the least sum of arc
 * lengths floor(c_p / eps) + 1 (>= 0 on an eps-optimal pseudoflow) from u
 * to a vertex with deficit over residual arcs (Dijkstra backwards from
 * the deficits, integer lengths: Dial's buckets up to nv; unreached
 * vertices, and those past nv, one past the largest distance found: d
 * capped at a constant keeps d(u) <= d(w) + l(u, w)), then p(u) -=
 * eps d(u): still eps-optimal (c_p drops by at most eps l(a) on each arc),
 * and every vertex with excess has an admissible path toward a deficit.
 * On deep pipelines the excess otherwise crawls along long paths one
 * relabel at a time (core/README.md, "Clock plans"). */
static void bucket_put(cx_plan_scale *S, int32_t u, int32_t b)
{
    S->bp[u] = -1, S->ph[u] = S->bh[b];
    if (S->bh[b] >= 0) S->bp[S->bh[b]] = u;
    S->bh[b] = u;
}

static void price_update(cx_plan_scale *S, double eps, double ftol)
{
    const int32_t nv = S->nv, cap = nv; /* distances capped at nv (still eps-optimal) */
    int32_t queued = 0;
    for (int32_t b = 0; b <= cap; b++)
        S->bh[b] = -1;
    for (int32_t u = 0; u < nv; u++) {
        S->pp[u] = -1, S->pd[u] = INFINITY;
        if (S->ex[u] < -ftol) S->pd[u] = 0, S->pp[u] = 1, bucket_put(S, u, 0), queued++;
    }
    double dmax = 0;
    for (int32_t b = 0; b < cap && queued > 0; b++) {
        while (S->bh[b] >= 0) {
            int32_t w = S->bh[b];
            S->bh[b] = S->ph[w];
            if (S->bh[b] >= 0) S->bp[S->bh[b]] = -1;
            S->pp[w] = -2, queued--, dmax = b;
            for (int32_t k = S->aoff[w]; k < S->aoff[w + 1]; k++) {
                int32_t a = S->adj[k], id = a >> 2, u, x; /* the arc into w from u */
                switch (a & 3) {
                case K_SF:
                    u = S->sh[id];
                    break;
                case K_SB:
                    u = S->st[id];
                    break;
                case K_NF:
                    u = S->vo[id];
                    break;
                default:
                    u = S->vi[id];
                    break;
                }
                if (S->pp[u] == -2) continue;
                double c, rc = res_arc(S, (a & ~3) | ((a & 3) ^ 1), &x, &c, 0);
                if (!(rc > 0)) continue;
                double l = floor((c + S->p[u] - S->p[w]) / eps) + 1, nd = b + (l > 0 ? l : 0);
                if (!(nd < cap) || !(nd < S->pd[u])) continue;
                if (S->pp[u] == 1) { /* unlink from its bucket */
                    int32_t pv = S->bp[u], nx = S->ph[u];
                    if (pv >= 0)
                        S->ph[pv] = nx;
                    else
                        S->bh[(int32_t)S->pd[u]] = nx;
                    if (nx >= 0) S->bp[nx] = pv;
                } else
                    S->pp[u] = 1, queued++;
                S->pd[u] = nd;
                bucket_put(S, u, (int32_t)nd);
            }
        }
    }
    /* the rest (unreached, or past the cap): one past every distance found */
    double far = dmax + 1 < cap ? dmax + 1 : cap;
    for (int32_t u = 0; u < nv; u++) {
        S->p[u] -= eps * (S->pp[u] == -2 ? S->pd[u] : far);
        S->cur[u] = S->aoff[u];
    }
}

/* one refine at eps: returns 0 when out of work budget */
static int refine(cx_plan_scale *S, double eps, double ftol, int64_t budget)
{
    const int32_t nv = S->nv;
    int32_t qh = 0, qt = 0, qn = nv + 1;
    for (int32_t u = 0; u < nv; u++) { /* saturate admissible arcs */
        for (int32_t k = S->aoff[u]; k < S->aoff[u + 1]; k++) {
            int32_t a = S->adj[k], v;
            double c, cap;
            while ((cap = res_arc(S, a, &v, &c, 0)) > 0 && c + S->p[u] - S->p[v] < 0) {
                push_arc(S, a, cap, 1);
                S->ex[u] -= cap, S->ex[v] += cap;
                if ((a & 3) < K_NF) break;
            }
        }
    }
    for (int32_t u = 0; u < nv; u++) {
        S->cur[u] = S->aoff[u];
        S->inq[u] = 0;
        if (S->ex[u] > ftol) S->q[qt++] = u, S->inq[u] = 1;
    }
    int64_t work = 0, relabels = 0;
    price_update(S, eps, ftol);
    while (qh != qt) {
        int32_t u = S->q[qh];
        qh = qh + 1 == qn ? 0 : qh + 1;
        S->inq[u] = 0;
        while (S->ex[u] > ftol) {
            if (++work > budget) return 0;
            int32_t k = S->cur[u];
            if (k == S->aoff[u + 1]) { /* relabel */
                double best = -INFINITY;
                for (int32_t j = S->aoff[u]; j < S->aoff[u + 1]; j++) {
                    int32_t v;
                    double c;
                    if (res_arc(S, S->adj[j], &v, &c, 0) > 0 && S->p[v] - c > best)
                        best = S->p[v] - c;
                }
                if (!(best > -INFINITY)) return -1; /* cannot happen: excess came in */
                S->p[u] = best - eps;
                S->cur[u] = S->aoff[u];
                if (++relabels >= nv / 4) relabels = 0, price_update(S, eps, ftol);
                continue;
            }
            int32_t a = S->adj[k], v;
            double c, cap = res_arc(S, a, &v, &c, 0);
            if (cap <= 0 || c + S->p[u] - S->p[v] >= 0) {
                S->cur[u] = k + 1;
                continue;
            }
            double x = S->ex[u] < cap ? S->ex[u] : cap;
            push_arc(S, a, x, x >= cap);
            S->ex[u] -= x, S->ex[v] += x;
            if (S->ex[v] > ftol && !S->inq[v]) {
                S->q[qt] = v, S->inq[v] = 1;
                qt = qt + 1 == qn ? 0 : qt + 1;
            }
        }
    }
    return 1;
}

/* Exact prices: label correcting on the residual graph (true costs,
 * unbounded arcs unbounded); 0 on a negative cycle (not optimal), -1
 * past maxwork arc scans (> 0; the prices then half-corrected). */
static int exact_prices(cx_plan_scale *S, double ctol, double ftol, int64_t maxwork)
{
    const int32_t nv = S->nv, qn = nv + 1;
    int32_t qh = 0, qt = 0;
    int64_t work = 0;
    for (int32_t u = 0; u < nv; u++)
        S->q[qt++] = u, S->inq[u] = 1, S->cnt[u] = 0;
    while (qh != qt) {
        int32_t u = S->q[qh];
        qh = qh + 1 == qn ? 0 : qh + 1;
        S->inq[u] = 0;
        work += S->aoff[u + 1] - S->aoff[u];
        if (maxwork > 0 && work > maxwork) return -1;
        for (int32_t k = S->aoff[u]; k < S->aoff[u + 1]; k++) {
            int32_t v;
            double c;
            if (!(res_arc(S, S->adj[k], &v, &c, 1) > ftol)) continue;
            if (S->p[u] + c < S->p[v] - ctol) {
                S->p[v] = S->p[u] + c;
                if (!S->inq[v]) {
                    if (++S->cnt[v] > 64 + nv) return 0;
                    S->q[qt] = v, S->inq[v] = 1;
                    qt = qt + 1 == qn ? 0 : qt + 1;
                }
            }
        }
    }
    return 1;
}

void cx_core_plan_scale_cold(cx_plan_scale *S)
{
    S->warm = 0;
}

int cx_core_plan_scale_solve(cx_plan_scale *S, double T, const double *es0, const double *start0,
                             double *dur0, int64_t *work)
{
    const cx_plan_dag *d = S->d;
    const int64_t n = S->n;
    const int32_t nv = S->nv;
    const double *es = es0, *start = start0;
    double *dur = dur0;
    if (S->ser.merged) { /* the plan given as one of the contracted DAG */
        cx_core_plan_series_gather(&S->ser, es0, start0, S->ces, S->cst);
        es = S->ces, start = S->cst, dur = S->cdur;
    }
    S->T = T, S->sc[S->ret] = T;
    const double eps_end = 1e-14 * T, ftol = 1e-13 * S->U;
    if (S->warm) {
        /* warm from the previous time's flow and prices unless the cold
         * start from the plan given violates eps-optimality less: its
         * zero flow leaves node i's cheapest segment admissible by t_b -
         * start_i, the schedule's arcs by nothing (earliest starts) but
         * its makespan past T; a far jump (the slowest time to the
         * fastest) otherwise routes the whole flow anew (core/README.md,
         * "Clock plans") */
        double ec = 0, ew = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = len_of(S, i, last_of(S, i)) - start[i], w = es[i] + start[i] - T;
            ec = v > ec ? v : ec, ec = w > ec ? w : ec;
        }
        for (int32_t u = 0; u < nv; u++)
            for (int32_t k = S->aoff[u]; k < S->aoff[u + 1]; k++) {
                int32_t v;
                double c;
                if (res_arc(S, S->adj[k], &v, &c, 0) > 0 && -(c + S->p[u] - S->p[v]) > ew)
                    ew = -(c + S->p[u] - S->p[v]);
            }
        if (ec < ew) S->warm = 0;
    }
    if (!S->warm) { /* cold: prices from the schedule of the plan given (tau = -p) */
        for (int64_t i = 0; i < n; i++)
            S->p[S->vo[i]] = -(es[i] + start[i]), S->p[S->vi[i]] = -es[i];
        S->p[S->src] = 0, S->p[S->snk] = -T;
        for (int32_t v = 0; v < nv; v++)
            S->ex[v] = 0;
        for (int64_t i = 0; i < n; i++)
            S->nf[i] = 0, S->nm[i] = last_of(S, i);
        for (int32_t a = 0; a < S->ns; a++)
            S->sf[a] = 0;
        S->warm = 1;
    }
    /* largest violation of the start */
    double eps = eps_end;
    for (int32_t u = 0; u < nv; u++)
        for (int32_t k = S->aoff[u]; k < S->aoff[u + 1]; k++) {
            int32_t v;
            double c;
            if (res_arc(S, S->adj[k], &v, &c, 0) > 0 && -(c + S->p[u] - S->p[v]) > eps)
                eps = -(c + S->p[u] - S->p[v]);
        }
    int64_t budget = 100000 * (int64_t)nv + 2000000;
    /* the first refine at the violation / 512, not / 8: the largest
     * violations (passes at max clock whose cheapest point is far) need
     * little flow, and the coarse refines moved it for nothing (measured,
     * core/README.md "Clock plans": gpt3-175b 1.43 -> 0.91 s, turing-530b
     * 34.0 -> 20.7 s user; / 4096 slower again) */
    eps /= 64;
    int early = 0;
    for (;;) {
        eps = eps / 8 > eps_end ? eps / 8 : eps_end;
        int r = refine(S, eps, ftol, budget);
        if (r < 0) return -2;
        if (r == 0) return 0;
        if (work) *work += 1;
        /* the flow may be optimal before eps_end: exact prices tried
         * from eps 1e-7 T on, within 30 scans of the arcs (a longer
         * label-correcting run means a negative cycle or slow
         * convergence: the refines go on from the prices kept in pd) */
        if (eps <= 1e-7 * T && eps > eps_end) {
            memcpy(S->pd, S->p, sizeof(double) * (size_t)nv);
            if (exact_prices(S, 1e-13 * T, ftol, 30 * (int64_t)S->aoff[nv]) == 1) {
                early = 1;
                break;
            }
            memcpy(S->p, S->pd, sizeof(double) * (size_t)nv);
        }
        if (eps <= eps_end) break;
    }
    /* exact prices; failing them (a negative cycle of the residual graph
     * shorter than eps n: the flow is eps-optimal, not optimal), the
     * eps-optimal prices, whose plan the cut descent finishes */
    memcpy(S->ex, S->p, sizeof(double) * (size_t)nv);
    int ok = early ? 1 : exact_prices(S, 1e-13 * T, ftol, 0) == 1;
    if (!ok) memcpy(S->p, S->ex, sizeof(double) * (size_t)nv);
    for (int32_t v = 0; v < nv; v++)
        S->ex[v] = 0;
    for (int64_t i = 0; i < n; i++) {
        int k = d->cls[i];
        double lo = d->ht[d->hoff[k]], hi = d->ht[d->hoff[k + 1] - 1];
        double t = fixed_node(d, i) ? lo : S->p[S->vi[i]] - S->p[S->vo[i]];
        dur[i] = t < lo ? lo : t > hi ? hi : t;
    }
    if (S->ser.merged) cx_core_plan_series_split(&S->ser, dur, dur0);
    return ok ? 1 : 2;
}
