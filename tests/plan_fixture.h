/*
 * plan_fixture.h — what the clock-plan tests (test_plan.c,
 * test_plan_scale.c) share: a deterministic xorshift stream, the exact
 * frontier's cost at a time, random convex decreasing cost curves, and the
 * random 1F1B pipeline DAGs (pp 2-4, m 2-8: F and B per stage and
 * microbatch, a fixed-duration send between stages; classes per stage and
 * phase, or all stages alike: the symmetric case). Test data only: no
 * constant here models hardware.
 */
#ifndef CX_TESTS_PLAN_FIXTURE_H
#define CX_TESTS_PLAN_FIXTURE_H

#include "core/eval/plan.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXP 4 /* most points of a random curve */

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* frontier cost at time T (breakpoints time-descending) */
static double front(const cx_plan_frontier *f, double T)
{
    if (T >= f->brk[0].time_s) return f->brk[0].cost;
    for (int i = 1; i < f->nbrk; i++)
        if (T >= f->brk[i].time_s - 1e-12) {
            double dt = f->brk[i - 1].time_s - f->brk[i].time_s;
            double u = dt > 0 ? (T - f->brk[i].time_s) / dt : 0;
            if (u < 0) u = 0;
            return f->brk[i].cost + u * (f->brk[i - 1].cost - f->brk[i].cost);
        }
    return INFINITY; /* faster than possible */
}

/* random convex decreasing curve of np points at ht/hc[at..] */
static void rand_curve(double *ht, double *hc, int at, int np)
{
    double t = 1 + 4 * urand(), c = 10 + 10 * urand(), slope = 1 + 5 * urand();
    for (int k = 0; k < np; k++) {
        ht[at + k] = t, hc[at + k] = c;
        double dt = 0.2 + 1.5 * urand();
        t += dt, c -= slope * dt;
        slope *= 0.2 + 0.7 * urand();
    }
}

/* A random DAG of n <= 5 nodes (each node after a random subset of the
 * earlier ones, at most CX_PLAN_NPRED), node i of class i with a random
 * curve of 2-4 points (one point, a fixed duration, for node 1 when
 * trial % 7 == 3); d points into the struct. */
typedef struct {
    int32_t pred[5 * CX_PLAN_NPRED], cls[5], hoff[6];
    double ht[5 * MAXP], hc[5 * MAXP];
    cx_plan_dag d;
} plan_small;

static void plan_small_build(plan_small *ps, int n, int trial)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < CX_PLAN_NPRED; k++)
            ps->pred[i * CX_PLAN_NPRED + k] = -1;
        int q = 0;
        for (int j = 0; j < i && q < CX_PLAN_NPRED; j++)
            if (urand() < 0.45) ps->pred[i * CX_PLAN_NPRED + q++] = j;
        ps->cls[i] = i;
        ps->hoff[i] = at;
        int np = (trial % 7 == 3 && i == 1) ? 1 : 2 + (int)(urand() * (MAXP - 1));
        rand_curve(ps->ht, ps->hc, at, np);
        at += np;
    }
    ps->hoff[n] = at;
    ps->d = (cx_plan_dag){n, ps->pred, ps->cls, n, ps->hoff, ps->ht, ps->hc};
}

/* A random 1F1B pipeline of p <= 4 stages and m <= 8 microbatches; d
 * points into the struct (pred and cls malloc'd: plan_pipe_free). */
typedef struct {
    int32_t *pred, *cls;
    int32_t hoff[2 * 4 + 2];
    double ht[(2 * 4 + 1) * MAXP], hc[(2 * 4 + 1) * MAXP];
    cx_plan_dag d;
} plan_pipe;

static void plan_pipe_build(plan_pipe *pp, int p, int m, int same)
{
    int nmax = 4 * p * m;
    int32_t *pred = pp->pred = malloc(sizeof(int32_t) * (size_t)nmax * CX_PLAN_NPRED);
    int32_t *cls = pp->cls = malloc(sizeof(int32_t) * (size_t)nmax);
    CU_ASSERT_FATAL(pred && cls);
    int nk = 0, at = 0;
    for (int k = 0; k < (same ? 2 : 2 * p); k++) {
        int np = 2 + (int)(urand() * (MAXP - 1));
        pp->hoff[nk++] = at;
        rand_curve(pp->ht, pp->hc, at, np);
        at += np;
    }
    pp->hoff[nk] = at; /* the send: one fixed point */
    pp->ht[at] = 0.3 + urand(), pp->hc[at] = 0;
    at++, nk++;
    pp->hoff[nk] = at;
    int32_t fid[4][8], bid[4][8], last[4];
    int n = 0;
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < 8; j++)
            fid[s][j] = bid[s][j] = -1;
    for (int i = 0; i < nmax * CX_PLAN_NPRED; i++)
        pred[i] = -1;
    for (int s = 0; s < p; s++)
        last[s] = -1;
    /* stage orders of 1F1B, built stage by stage from the last */
    int ops[4][16], nops[4];
    for (int s = 0; s < p; s++) {
        int w = p - 1 - s < m ? p - 1 - s : m, f = 0, b = 0;
        nops[s] = 0;
        for (; f < w; f++)
            ops[s][nops[s]++] = f;
        while (b < m) {
            if (f < m) ops[s][nops[s]++] = f++;
            ops[s][nops[s]++] = 100 + b++;
        }
    }
    int pos[4] = {0};
    /* place nodes in a topological order: round-robin until done */
    for (int progress = 1; progress;) {
        progress = 0;
        for (int s = 0; s < p; s++) {
            if (pos[s] == nops[s]) continue;
            int op = ops[s][pos[s]], j = op % 100, isb = op >= 100;
            int32_t x = -1; /* cross-stage dependency */
            if (!isb && s > 0) {
                if (fid[s - 1][j] < 0) continue;
                x = fid[s - 1][j];
            }
            if (isb && s < p - 1) {
                if (bid[s + 1][j] < 0) continue;
                x = bid[s + 1][j];
            }
            if (isb && fid[s][j] < 0) continue;
            if (x >= 0) { /* the send */
                pred[n * CX_PLAN_NPRED] = x;
                cls[n] = nk - 1;
                x = n++;
            }
            int q = 0;
            if (last[s] >= 0) pred[n * CX_PLAN_NPRED + q++] = last[s];
            if (x >= 0) pred[n * CX_PLAN_NPRED + q++] = x;
            if (isb) pred[n * CX_PLAN_NPRED + q++] = fid[s][j];
            cls[n] = (same ? 0 : 2 * s) + isb;
            (isb ? bid : fid)[s][j] = n;
            last[s] = n++;
            pos[s]++;
            progress = 1;
        }
    }
    CU_ASSERT_EQUAL(n, 2 * p * m + 2 * (p - 1) * m);
    pp->d = (cx_plan_dag){n, pred, cls, nk, pp->hoff, pp->ht, pp->hc};
}

static void plan_pipe_free(plan_pipe *pp)
{
    free(pp->pred), free(pp->cls);
}

#endif
