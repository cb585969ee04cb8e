/*
 * test_plan_scale.c — the dual cost-scaling solver of the clock-plan LP
 * (core/eval/plan_scale.c) against the references of tests/test_plan.c:
 *  - small random DAGs (4-5 nodes, convex decreasing curves of 1-4 points):
 *    at the breakpoints of the Phillips-Dessouky frontier (plan_cut.c,
 *    itself checked against brute force there) and the midpoints between
 *    them, fastest last, warm from the previous time and cold: the plan
 *    meets T, its cost equals the frontier to 1e-9, exact prices (r = 1);
 *  - random 1F1B pipelines (pp 2-4, m 2-8, a fixed send between stages,
 *    stages alike or not): the same against the frontier, and against the
 *    plain cut descent (plan_exact.c with no_scale) at the same times;
 *  - the descent as --exact-at runs it (the solver's plan, returned when
 *    its exact prices are found) equals the frontier; with its KKT check
 *    on (certify) it needs no cut beyond the check on those instances;
 *  - the series contraction (plan_series.c): every time above is solved
 *    cold over the DAG as given too (contract = 0), equal to 1e-9; on
 *    pipelines with a recompute pass R before each backward (R -> B an
 *    exclusive link, sometimes a chain of three, a member sometimes of
 *    fixed duration) and on random DAGs split the same way, the contracted
 *    solver (fewer nodes) equals the Phillips-Dessouky frontier of the
 *    whole DAG, and the split durations lie on each member's curve.
 */
#include "culonx.h"
#include "core/eval/plan.h"
#include "plan_fixture.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t *order, *soff, *succ;
} topo;

static void topo_build(const cx_plan_dag *d, topo *tp)
{
    const int64_t n = d->n;
    tp->order = malloc(sizeof(int32_t) * (size_t)(n + 1));
    tp->soff = calloc((size_t)n + 2, sizeof(int32_t));
    tp->succ = malloc(sizeof(int32_t) * (size_t)(4 * n + 1));
    int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) tp->soff[q + 1]++, indeg[i]++;
        }
    for (int64_t i = 0; i < n; i++)
        tp->soff[i + 1] += tp->soff[i];
    memcpy(fill, tp->soff, sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[i * CX_PLAN_NPRED + k];
            if (q >= 0) tp->succ[fill[q]++] = (int32_t)i;
        }
    int64_t qt = 0;
    for (int64_t i = 0; i < n; i++)
        if (!indeg[i]) tp->order[qt++] = (int32_t)i;
    for (int64_t qh = 0; qh < qt; qh++)
        for (int32_t e = tp->soff[tp->order[qh]]; e < tp->soff[tp->order[qh] + 1]; e++)
            if (--indeg[tp->succ[e]] == 0) tp->order[qt++] = tp->succ[e];
    CU_ASSERT_EQUAL(qt, n);
    free(indeg), free(fill);
}

static void topo_free(topo *tp)
{
    free(tp->order), free(tp->soff), free(tp->succ);
}

/* earliest starts of dur in topological order */
static void earliest(const cx_plan_dag *d, const topo *tp, const double *dur, double *es)
{
    for (int64_t x = 0; x < d->n; x++) {
        int32_t i = tp->order[x];
        double st = 0;
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[(int64_t)i * CX_PLAN_NPRED + k];
            if (q >= 0 && es[q] + dur[q] > st) st = es[q] + dur[q];
        }
        es[i] = st;
    }
}

static double cost_of(const cx_plan_dag *d, const double *dur)
{
    double c = 0;
    for (int64_t i = 0; i < d->n; i++)
        c += cx_core_plan_cost(d, d->cls[i], dur[i]);
    return c;
}

static double worst_scale, worst_vs_descent;
static int64_t extra_cuts;

/* the solver at ~16 times of the frontier (breakpoints and midpoints,
 * slowest first), warm and cold; the plain and the default descent too */
static void check_dag(const cx_plan_dag *d)
{
    const int64_t n = d->n;
    cx_plan_frontier f;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_plan_frontier(d, 0, &f, &err), CULONX_OK);
    topo tp;
    topo_build(d, &tp);
    double *dur = malloc(sizeof(double) * (size_t)n), *fast = malloc(sizeof(double) * (size_t)n);
    double *es = malloc(sizeof(double) * (size_t)n), *ref = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        fast[i] = d->ht[d->hoff[d->cls[i]]];
    earliest(d, &tp, fast, es);
    cx_plan_scale *warm = cx_core_plan_scale_new(d, tp.soff, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(warm);
    cx_plan_descent plain, dflt, cert;
    CU_ASSERT_FATAL(cx_core_plan_descent_init(&plain, d, tp.order, tp.soff, tp.succ));
    CU_ASSERT_FATAL(cx_core_plan_descent_init(&dflt, d, tp.order, tp.soff, tp.succ));
    CU_ASSERT_FATAL(cx_core_plan_descent_init(&cert, d, tp.order, tp.soff, tp.succ));
    plain.no_scale = 1, cert.certify = 1;
    const int nb = 2 * f.nbrk - 1, every = nb / 16 + 1;
    for (int b = 0; b < nb; b = b + every < nb || b == nb - 1 ? b + every : nb - 1) {
        double T =
            b % 2 ? 0.5 * (f.brk[b / 2].time_s + f.brk[b / 2 + 1].time_s) : f.brk[b / 2].time_s;
        double ex = front(&f, T), sc = fabs(ex) > 1 ? fabs(ex) : 1;
        for (int cold = 0; cold < 3; cold++) { /* warm, cold, cold uncontracted */
            cx_plan_scale *S = cold ? cx_core_plan_scale_new(d, tp.soff, cold == 1) : warm;
            CU_ASSERT_PTR_NOT_NULL_FATAL(S);
            int64_t work = 0;
            int r = cx_core_plan_scale_solve(S, T, es, fast, dur, &work);
            CU_ASSERT_EQUAL(r, 1);
            CU_ASSERT(cx_core_plan_makespan(d, dur) <= T * (1 + 1e-12));
            for (int64_t i = 0; i < n; i++) { /* on its curve */
                int k = d->cls[i];
                CU_ASSERT(dur[i] >= d->ht[d->hoff[k]] && dur[i] <= d->ht[d->hoff[k + 1] - 1]);
            }
            double e = fabs(cost_of(d, dur) - ex) / sc;
            CU_ASSERT(e <= 1e-9);
            if (e > worst_scale) worst_scale = e;
            if (cold) cx_core_plan_scale_free(S);
        }
        /* the plain cut descent and the default (solver, then descent) */
        memcpy(ref, fast, sizeof(double) * (size_t)n);
        int64_t steps = 0;
        CU_ASSERT_EQUAL(cx_core_plan_descent(&plain, T, ref, 20000, &steps), 1);
        double e = fabs(cost_of(d, ref) - cost_of(d, dur)) / sc;
        CU_ASSERT(e <= 1e-9);
        if (e > worst_vs_descent) worst_vs_descent = e;
        for (int k = 0; k < 2; k++) { /* as shipped, then with the check */
            memcpy(ref, fast, sizeof(double) * (size_t)n);
            steps = 0;
            CU_ASSERT_EQUAL(cx_core_plan_descent(k ? &cert : &dflt, T, ref, 20000, &steps), 1);
            CU_ASSERT(fabs(cost_of(d, ref) - ex) / sc <= 1e-9);
            CU_ASSERT(cx_core_plan_makespan(d, ref) <= T * (1 + 1e-9));
            if (k) extra_cuts += steps;
        }
    }
    cx_core_plan_descent_free(&plain), cx_core_plan_descent_free(&dflt);
    cx_core_plan_descent_free(&cert);
    cx_core_plan_scale_free(warm);
    cx_core_plan_frontier_free(&f);
    topo_free(&tp);
    free(dur), free(fast), free(es), free(ref);
}

static void test_random_dags(void)
{
    worst_scale = worst_vs_descent = 0, extra_cuts = 0;
    for (int trial = 0; trial < 60; trial++) {
        int n = 4 + (trial % 2);
        plan_small ps;
        plan_small_build(&ps, n, trial);
        check_dag(&ps.d);
    }
    printf("\n  random DAGs: solver vs frontier %.3g, vs cut descent %.3g; cuts after the "
           "solver %lld\n",
           worst_scale, worst_vs_descent, (long long)extra_cuts);
}

/* 1F1B pipelines as in tests/test_plan.c (test_descent) */
static void test_pipelines(void)
{
    worst_scale = worst_vs_descent = 0, extra_cuts = 0;
    for (int trial = 0; trial < 40; trial++) {
        int p = 2 + trial % 3, m = 2 + (trial / 3) % 7, same = trial % 2;
        plan_pipe pp;
        plan_pipe_build(&pp, p, m, same);
        check_dag(&pp.d);
        plan_pipe_free(&pp);
    }
    printf("\n  1F1B pipelines: solver vs frontier %.3g, vs cut descent %.3g; cuts after the "
           "solver %lld\n",
           worst_scale, worst_vs_descent, (long long)extra_cuts);
}

/* d with a new node r before each selected node i (i's predecessors move
 * to r, r is i's one predecessor: an exclusive link), twice for some: the
 * chains the series contraction merges. New classes: random curves, a
 * fixed duration for every fourth. */
typedef struct {
    int32_t *pred, *cls, *hoff;
    double *ht, *hc;
    cx_plan_dag d;
} split_dag;

static void split_build(split_dag *sd, const cx_plan_dag *d, int every)
{
    const int64_t n = d->n, nmax = 3 * n;
    const int nk = d->nclass + 4;
    sd->pred = malloc(sizeof(int32_t) * (size_t)nmax * CX_PLAN_NPRED);
    sd->cls = malloc(sizeof(int32_t) * (size_t)nmax);
    sd->hoff = malloc(sizeof(int32_t) * (size_t)(nk + 1));
    sd->ht = malloc(sizeof(double) * (size_t)(d->hoff[d->nclass] + 4 * MAXP));
    sd->hc = malloc(sizeof(double) * (size_t)(d->hoff[d->nclass] + 4 * MAXP));
    int32_t *id = malloc(sizeof(int32_t) * (size_t)(n + 1));
    CU_ASSERT_FATAL(sd->pred && sd->cls && sd->hoff && sd->ht && sd->hc && id);
    int32_t at = d->hoff[d->nclass];
    memcpy(sd->hoff, d->hoff, sizeof(int32_t) * (size_t)(d->nclass + 1));
    memcpy(sd->ht, d->ht, sizeof(double) * (size_t)at);
    memcpy(sd->hc, d->hc, sizeof(double) * (size_t)at);
    for (int k = d->nclass; k < nk; k++) { /* the inserted nodes' classes */
        int np = k % 4 == 3 ? 1 : 2 + (int)(urand() * (MAXP - 1));
        rand_curve(sd->ht, sd->hc, at, np);
        if (np == 1) sd->hc[at] = 0;
        at += np, sd->hoff[k + 1] = at;
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) { /* node ids stay topological: inserts first */
        int ins = i % every == 0 ? 1 + (i % (2 * every) == 0) : 0;
        int32_t prev = -1;
        for (int j = 0; j <= ins; j++) {
            for (int k = 0; k < CX_PLAN_NPRED; k++) {
                int32_t q = d->pred[i * CX_PLAN_NPRED + k];
                sd->pred[m * CX_PLAN_NPRED + k] = j == 0 ? (q >= 0 ? id[q] : -1) : -1;
            }
            if (j > 0) sd->pred[m * CX_PLAN_NPRED] = prev;
            sd->cls[m] = j == ins ? d->cls[i] : d->nclass + (int)((i + j) % 4);
            prev = (int32_t)m++;
        }
        id[i] = prev;
    }
    sd->d = (cx_plan_dag){m, sd->pred, sd->cls, nk, sd->hoff, sd->ht, sd->hc};
    free(id);
}

static void split_free(split_dag *sd)
{
    free(sd->pred), free(sd->cls), free(sd->hoff), free(sd->ht), free(sd->hc);
}

static void test_series(void)
{
    worst_scale = worst_vs_descent = 0, extra_cuts = 0;
    int64_t merged = 0, nodes = 0;
    for (int trial = 0; trial < 40; trial++) {
        split_dag sd;
        plan_pipe pp;
        plan_small ps;
        if (trial % 2) {
            int p = 2 + trial % 3, m = 2 + (trial / 3) % 5;
            plan_pipe_build(&pp, p, m, trial % 4 == 1);
            split_build(&sd, &pp.d, 2 + trial % 3);
        } else {
            plan_small_build(&ps, 4, trial);
            split_build(&sd, &ps.d, 2);
        }
        topo tp;
        topo_build(&sd.d, &tp);
        cx_plan_series c;
        CU_ASSERT_FATAL(cx_core_plan_series_build(&c, &sd.d, tp.soff, 1));
        CU_ASSERT(c.merged > 0 && c.d.n + c.merged == sd.d.n);
        merged += c.merged, nodes += sd.d.n;
        cx_core_plan_series_free(&c);
        CU_ASSERT_FATAL(cx_core_plan_series_build(&c, &sd.d, tp.soff, 0));
        CU_ASSERT(c.merged == 0 && c.d.n == sd.d.n);
        cx_core_plan_series_free(&c);
        topo_free(&tp);
        check_dag(&sd.d);
        split_free(&sd);
        if (trial % 2) plan_pipe_free(&pp);
    }
    printf("\n  split DAGs (%lld of %lld nodes merged): solver vs frontier %.3g, vs cut descent "
           "%.3g; cuts after the solver %lld\n",
           (long long)merged, (long long)nodes, worst_scale, worst_vs_descent,
           (long long)extra_cuts);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("plan_scale", NULL, NULL);
    CU_add_test(s, "solver = exact frontier on random DAGs", test_random_dags);
    CU_add_test(s, "solver = frontier = cut descent on pipelines", test_pipelines);
    CU_add_test(s, "series contraction = frontier on chained DAGs", test_series);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
