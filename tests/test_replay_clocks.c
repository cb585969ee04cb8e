/*
 * test_replay_clocks.c — the replay at every clock of a sweep from a few
 * of them (core/eval/replay_clocks.c, replay.c's play_clocks).
 *  1. The engine on made-up results: convex piecewise-linear functions of
 *     the segment's parameter (maxima of random lines) with collinear keys
 *     at uneven points: every result within 1e-12 of the function, the
 *     linear ones from 3 evaluations (4 with two points inside first);
 *     keys off the line, or a kink, make it evaluate more, never answer
 *     wrong; one kink outside lanes from 6; in lanes one kink in 2 calls
 *     and two kinks in 3 (4 points each); a failing evaluation gives -1.
 *  1b. With tangents (each result's derivative along the run, the winning
 *     line's; ties of 2-4 lines at an evaluated point: any of them): every
 *     result within 1e-12, a linear run from its 2 ends, one kink between
 *     points from 4; points without derivatives, keys off the line: more
 *     evaluations, never a wrong answer.
 *  2. Through the workspace (cx_core_replay_ws with 21 clocks set, a real
 *     megatron-22b cost priced at every clock, three recompute modes, every
 *     replayed schedule, shapes with and without the virtual jump and with
 *     the ZB and V sweeps): each clock's result within 1e-11 relative of a
 *     workspace without clocks (the plain replay), and bit for bit the same
 *     whichever clock asks first (clocks visited forwards and backwards by
 *     two workspaces): what keeps sweeps identical for any thread count.
 *  3. A workspace coming back to shapes (cached programs, memo): the same.
 *  4. The batch's own sweep gates; a batch whose inputs are the last
 *     batch's (another curve, the same times) taking its rows: the bits
 *     of a fresh play, no clock played.
 */
#include "core/eval/replay.h"
#include "core/eval/replay_clocks.h"
#include "core/eval/replay_step.h"
#include "core/eval/replay_v_sweep.h"
#include "core/eval/replay_zb_sweep.h"
#include "schedules/sched.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0x6A09E667F3BCC909ull
#include "replay_fixture.h"

/* ---- 1. the engine on made-up results ---- */

#define NPT 21
#define NKEY 5
#define P 3 /* stages: rows of 1 + 3 P */

typedef struct {
    double lam[NPT];        /* each point's place on the segment */
    double a[1 + 3 * P][4]; /* result x = max_k (a[x][k] + b[x][k] lam) */
    double b[1 + 3 * P][4];
    int nlines, evaluated, fail_at, wide;
    unsigned char pre[NPT]; /* points pre_made_up answers */
    int calls, again;       /* eval calls; points eval got that pre answered */
    int most;               /* the most points one eval call got */
} made_up;

static double f_of(const made_up *mu, int x, double l)
{
    double v = -INFINITY;
    for (int k = 0; k < mu->nlines; k++)
        v = fmax(v, mu->a[x][k] + mu->b[x][k] * l);
    return v;
}

static int eval_made_up(void *ctx, const int *idx, int n, double *rows, int stride, int *wide)
{
    made_up *mu = ctx;
    *wide = mu->wide; /* as clock lanes: the next round takes every point left */
    mu->calls++;
    if (n > mu->most) mu->most = n;
    for (int j = 0; j < n; j++) {
        if (mu->evaluated++ == mu->fail_at) return 1;
        mu->again += mu->pre[idx[j]];
        for (int x = 0; x < 1 + 3 * P; x++)
            rows[(size_t)idx[j] * (size_t)stride + (size_t)x] = f_of(mu, x, mu->lam[idx[j]]);
    }
    return 0;
}

/* the points of mu->pre answered at once (as the exact formula) */
static int pre_made_up(void *ctx, int n, double *rows, int stride, unsigned char *done)
{
    made_up *mu = ctx;
    for (int i = 0; i < n; i++)
        if (mu->pre[i]) {
            for (int x = 0; x < 1 + 3 * P; x++)
                rows[(size_t)i * (size_t)stride + (size_t)x] = f_of(mu, x, mu->lam[i]);
            done[i] = 1, mu->evaluated++;
        }
    return 0;
}

static void draw_made_up(made_up *mu, int nlines, double *keys, const double *k0, const double *k1)
{
    mu->nlines = nlines, mu->evaluated = 0, mu->fail_at = -1, mu->wide = 0;
    mu->calls = mu->again = mu->most = 0;
    memset(mu->pre, 0, sizeof mu->pre);
    double l = 0;
    for (int i = 0; i < NPT; i++) {
        mu->lam[i] = i == 0 ? 0 : i == NPT - 1 ? 1 : (l += uni(0.2, 1.0)) / 14.0;
        if (mu->lam[i] > 1) mu->lam[i] = 1;
        for (int q = 0; q < NKEY; q++)
            keys[i * NKEY + q] = k0[q] + mu->lam[i] * (k1[q] - k0[q]);
    }
    for (int x = 0; x < 1 + 3 * P; x++)
        for (int k = 0; k < nlines; k++)
            mu->a[x][k] = uni(1.0, 2.0) - (k ? uni(0.0, 0.3) : 0), mu->b[x][k] = uni(-1.0, 1.0);
}

static void test_engine(void)
{
    cx_replay_clocks *cs = cx_core_replay_clocks_new();
    CU_ASSERT_FATAL(cs != NULL);
    double keys[NPT * NKEY], k0[NKEY], k1[NKEY];
    int worst_evals_linear[4] = {0}, more = 0, pre_bad = 0, fill_bad = 0;
    double worst = 0;
    /* modes: eval wide or not, two points inside each run first or one;
     * from 1600 on, points answered first (pre: the top 4 left, as the
     * interleaved formula leaves them, or a random half), fill 4 */
    for (int trial = 0; trial < 2400; trial++) {
        const int mode = trial / 400 % 4, with_pre = trial >= 1600;
        for (int q = 0; q < NKEY; q++)
            k0[q] = uni(0.1, 1.0), k1[q] = k0[q] * uni(1.0, 7.0);
        made_up mu;
        const int nlines = 1 + trial % 4;
        draw_made_up(&mu, nlines, keys, k0, k1);
        mu.wide = mode & 1;
        /* every fifth: one key off the line (its point must be played) */
        const int off = trial % 5 == 4 ? 1 + trial % (NPT - 2) : -1;
        if (off >= 0) keys[off * NKEY + 2] *= 1.0 + 1e-6;
        int left = NPT;
        if (with_pre) {
            left = 0;
            for (int i = 0; i < NPT; i++)
                left += !(mu.pre[i] = trial % 2 ? i < NPT - 4 : uni(0.0, 1.0) < 0.5);
        }
        double *rows;
        const int first = mode & 2 ? 2 : 1;
        const int got =
            cx_core_replay_clocks_run(cs, NPT, NKEY, keys, P, first, with_pre ? 4 : 0,
                                      with_pre ? pre_made_up : NULL, eval_made_up, &mu, &rows);
        CU_ASSERT_FATAL(got >= (left < 3 ? left : 3) && got <= NPT && got == mu.evaluated);
        pre_bad += mu.again > 0;
        /* at most 4 left after pre: all of them in one call */
        if (with_pre && left <= 4) fill_bad += mu.calls != (left > 0) || got != NPT;
        for (int i = 0; i < NPT; i++)
            for (int x = 0; x < 1 + 3 * P; x++) {
                const double t = f_of(&mu, x, mu.lam[i]);
                const double gap = fabs(rows[i * (1 + 3 * P) + x] - t) / fmax(fabs(t), 1e-300);
                worst = fmax(worst, gap);
            }
        if (!with_pre && nlines == 1 && off < 0 && got > worst_evals_linear[mode])
            worst_evals_linear[mode] = got;
        if (!with_pre && (off >= 0 || nlines > 1)) more += got > 3;
    }
    printf("\n  worst relative gap %.3g, linear from at most %d evaluations, %d batches "
           "needed more\n",
           worst, worst_evals_linear[0], more);
    CU_ASSERT(worst <= 1e-12);
    for (int mode = 0; mode < 4; mode++)
        CU_ASSERT_EQUAL(worst_evals_linear[mode], mode & 2 ? 4 : 3);
    CU_ASSERT(more > 200);
    CU_ASSERT_EQUAL(pre_bad, 0);
    CU_ASSERT_EQUAL(fill_bad, 0);
    /* one kink (at l = 0.3, the 7th of 21 evenly spaced points), not in
     * lanes, one point inside first: the ends and the middle, then the
     * points next to the ends (no neighbour beyond a gap at a run's end
     * to locate its kink), then the kink where their lines meet: 6
     * evaluations (midpoints instead: 7) */
    {
        made_up mk;
        draw_made_up(&mk, 2, keys, k0, k1);
        for (int i = 0; i < NPT; i++) {
            mk.lam[i] = i / (double)(NPT - 1);
            for (int q = 0; q < NKEY; q++)
                keys[i * NKEY + q] = k0[q] + mk.lam[i] * (k1[q] - k0[q]);
        }
        for (int x = 0; x < 1 + 3 * P; x++) {
            mk.a[x][0] = 2.0, mk.b[x][0] = -1.0;                    /* falls */
            mk.b[x][1] = 0.5, mk.a[x][1] = 2.0 - 0.3 * (1.0 + 0.5); /* meets it at 0.3 */
        }
        double *rk;
        const int got =
            cx_core_replay_clocks_run(cs, NPT, NKEY, keys, P, 1, 0, NULL, eval_made_up, &mk, &rk);
        CU_ASSERT_EQUAL(got, 6);
        for (int i = 0; i < NPT; i++)
            CU_ASSERT(fabs(rk[i * (1 + 3 * P)] - f_of(&mk, 0, mk.lam[i])) <= 1e-12);
    }
    /* in lanes (wide, two points inside first, fill 4): every result
     * with the same kinks, as the replay's results at a batch's clocks.
     * One kink (l = 0.425, between points 8 and 9): the ends and their
     * neighbours, then the kink where their lines meet, 2 calls; two
     * kinks (0.325 and 0.725: between 6 and 7, 14 and 15): the lines
     * meet between them (0.533), its points and theirs beside, then each
     * kink from the lines on either side, 3 calls; every call at most 4
     * points (one 4-lane pass each) */
    for (int nk = 1; nk <= 2; nk++) {
        made_up mk;
        draw_made_up(&mk, nk + 1, keys, k0, k1);
        mk.wide = 1;
        for (int i = 0; i < NPT; i++) {
            mk.lam[i] = i / (double)(NPT - 1);
            for (int q = 0; q < NKEY; q++)
                keys[i * NKEY + q] = k0[q] + mk.lam[i] * (k1[q] - k0[q]);
        }
        static const double slope[3] = {-1.0, 0.2, 1.5};
        const double at[2] = {nk == 1 ? 0.425 : 0.325, 0.725};
        for (int x = 0; x < 1 + 3 * P; x++) {
            const double sc = 1.0 + 0.1 * x;
            for (int k = 0; k <= nk; k++) {
                mk.b[x][k] = sc * slope[k];
                mk.a[x][k] =
                    k == 0 ? 2.0 * sc : mk.a[x][k - 1] + (mk.b[x][k - 1] - mk.b[x][k]) * at[k - 1];
            }
        }
        double *rk;
        const int got =
            cx_core_replay_clocks_run(cs, NPT, NKEY, keys, P, 2, 4, NULL, eval_made_up, &mk, &rk);
        CU_ASSERT_EQUAL(mk.calls, nk + 1);
        CU_ASSERT_EQUAL(mk.most, 4);
        CU_ASSERT_EQUAL(got, 4 * (nk + 1));
        for (int i = 0; i < NPT; i++)
            for (int x = 0; x < 1 + 3 * P; x++)
                CU_ASSERT(fabs(rk[i * (1 + 3 * P) + x] - f_of(&mk, x, mk.lam[i])) <=
                          1e-12 * fabs(f_of(&mk, x, mk.lam[i])));
    }
    /* an evaluation that fails: -1, nothing claimed */
    made_up mu;
    draw_made_up(&mu, 2, keys, k0, k1);
    mu.fail_at = 2;
    double *rows;
    CU_ASSERT_EQUAL(
        cx_core_replay_clocks_run(cs, NPT, NKEY, keys, P, 1, 0, NULL, eval_made_up, &mu, &rows),
        -1);
    cx_core_replay_clocks_free(cs);
}

/* ---- 1b. the engine with tangents ---- */

/* made-up results with their derivatives along each point's direction:
 * the winning line's slope (ties: a random one of the lines that tie, to
 * 1e-15), scaled from mu's lam to the run's place (dirs: its key line, end
 * minus start, k0 to k1 the whole segment); no derivatives where notan
 * draws below it */
typedef struct {
    made_up mu;
    double k0[NKEY], k1[NKEY], notan;
} made_up_tan;

static int tan_made_up(void *ctx, const int *idx, int n, const double *dirs, double *rows,
                       double *drows, int stride, unsigned char *has)
{
    made_up_tan *mt = ctx;
    made_up *mu = &mt->mu;
    mu->calls++;
    for (int j = 0; j < n; j++) {
        if (mu->evaluated++ == mu->fail_at) return 1;
        const double l = mu->lam[idx[j]];
        const double span = dirs[(size_t)j * NKEY] / (mt->k1[0] - mt->k0[0]);
        const int with = !(uni(0.0, 1.0) < mt->notan);
        for (int x = 0; x < 1 + 3 * P; x++) {
            const double f = f_of(mu, x, l);
            int tied[4], nt = 0;
            for (int k = 0; k < mu->nlines; k++)
                if (fabs(mu->a[x][k] + mu->b[x][k] * l - f) <= 1e-15 * fabs(f)) tied[nt++] = k;
            const int k = tied[(int)uni(0.0, nt - 1e-9)];
            rows[(size_t)idx[j] * (size_t)stride + (size_t)x] = f;
            drows[(size_t)idx[j] * (size_t)stride + (size_t)x] = mu->b[x][k] * span;
        }
        has[idx[j]] = (unsigned char)with;
    }
    return 0;
}

static void test_engine_tan(void)
{
    cx_replay_clocks *cs = cx_core_replay_clocks_new();
    CU_ASSERT_FATAL(cs != NULL);
    double keys[NPT * NKEY];
    int worst_linear = 0, more = 0, ties = 0;
    long long evals[5] = {0}, runs[5] = {0};
    double worst = 0;
    for (int trial = 0; trial < 2400; trial++) {
        made_up_tan mt;
        for (int q = 0; q < NKEY; q++)
            mt.k0[q] = uni(0.1, 1.0), mt.k1[q] = mt.k0[q] * uni(1.0, 7.0);
        const int nlines = 1 + trial % 4;
        draw_made_up(&mt.mu, nlines, keys, mt.k0, mt.k1);
        /* one draw in eight: some points without derivatives */
        mt.notan = trial % 8 == 3 ? 0.5 : 0;
        /* one in six: every line through one point's value there (ties
         * of 2-4 lines at an evaluated point: the run's start, its end
         * or one inside) */
        if (trial % 6 == 5 && nlines > 1) {
            const int at = trial % 3 == 0 ? 0 : trial % 3 == 1 ? NPT - 1 : 5 + trial % 11;
            const double l = mt.mu.lam[at];
            for (int x = 0; x < 1 + 3 * P; x++)
                for (int k = 1; k < nlines; k++)
                    mt.mu.a[x][k] = mt.mu.a[x][0] + (mt.mu.b[x][0] - mt.mu.b[x][k]) * l;
            ties++;
        }
        /* one in five: one key off the line (its point must be played) */
        const int off = trial % 5 == 4 ? 1 + trial % (NPT - 2) : -1;
        if (off >= 0) keys[off * NKEY + 2] *= 1.0 + 1e-6;
        double *rows;
        const int got =
            cx_core_replay_clocks_run_tan(cs, NPT, NKEY, keys, P, tan_made_up, &mt, &rows);
        CU_ASSERT_FATAL(got >= 2 && got <= NPT && got == mt.mu.evaluated);
        for (int i = 0; i < NPT; i++)
            for (int x = 0; x < 1 + 3 * P; x++) {
                const double t = f_of(&mt.mu, x, mt.mu.lam[i]);
                const double gap = fabs(rows[i * (1 + 3 * P) + x] - t) / fmax(fabs(t), 1e-300);
                worst = fmax(worst, gap);
            }
        if (nlines == 1 && off < 0 && mt.notan == 0 && got > worst_linear) worst_linear = got;
        if (off < 0 && mt.notan == 0) evals[nlines] += got, runs[nlines]++;
        more += got > 2;
    }
    printf("\n  tangents: worst relative gap %.3g, linear from at most %d evaluations, "
           "%d with ties; evaluations on average with 1-4 lines %.1f %.1f %.1f %.1f\n",
           worst, worst_linear, ties, (double)evals[1] / (double)runs[1],
           (double)evals[2] / (double)runs[2], (double)evals[3] / (double)runs[3],
           (double)evals[4] / (double)runs[4]);
    CU_ASSERT(worst <= 1e-12);
    CU_ASSERT_EQUAL(worst_linear, 2);
    CU_ASSERT(more > 200);
    /* one kink (at l = 0.3 between evenly spaced points 6 and 7): the
     * ends, then the two points around where their lines meet: 4 */
    {
        made_up_tan mk;
        for (int q = 0; q < NKEY; q++)
            mk.k0[q] = uni(0.1, 1.0), mk.k1[q] = mk.k0[q] * uni(1.0, 7.0);
        draw_made_up(&mk.mu, 2, keys, mk.k0, mk.k1);
        mk.notan = 0;
        for (int i = 0; i < NPT; i++) {
            mk.mu.lam[i] = i / (double)(NPT - 1);
            for (int q = 0; q < NKEY; q++)
                keys[i * NKEY + q] = mk.k0[q] + mk.mu.lam[i] * (mk.k1[q] - mk.k0[q]);
        }
        for (int x = 0; x < 1 + 3 * P; x++) {
            mk.mu.a[x][0] = 2.0, mk.mu.b[x][0] = -1.0;
            mk.mu.b[x][1] = 0.5, mk.mu.a[x][1] = 2.0 - 0.31 * (1.0 + 0.5); /* meets it at 0.31 */
        }
        double *rk;
        CU_ASSERT_EQUAL(
            cx_core_replay_clocks_run_tan(cs, NPT, NKEY, keys, P, tan_made_up, &mk, &rk), 4);
        for (int i = 0; i < NPT; i++)
            CU_ASSERT(fabs(rk[i * (1 + 3 * P)] - f_of(&mk.mu, 0, mk.mu.lam[i])) <= 1e-12);
        /* one point alone: evaluated, no direction */
        mk.mu.evaluated = 0;
        CU_ASSERT_EQUAL(cx_core_replay_clocks_run_tan(cs, 1, NKEY, keys, P, tan_made_up, &mk, &rk),
                        1);
        CU_ASSERT(fabs(rk[0] - f_of(&mk.mu, 0, mk.mu.lam[0])) <= 1e-12);
        /* an evaluation that fails: -1 */
        mk.mu.evaluated = 0, mk.mu.fail_at = 1;
        CU_ASSERT_EQUAL(
            cx_core_replay_clocks_run_tan(cs, NPT, NKEY, keys, P, tan_made_up, &mk, &rk), -1);
    }
    cx_core_replay_clocks_free(cs);
}

/* ---- 2. and 3. through the workspace ---- */

/* megatron-22b loaded into r; a cost and three results allocated */
static void load_22b(culonx_run *r, cx_cost **c, cx_replay **a, cx_replay **b, cx_replay **d)
{
    culonx_error err;
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", NULL, 0, NULL, r, &err),
                          CULONX_OK);
    *c = malloc(sizeof **c), *a = malloc(sizeof **a), *b = malloc(sizeof **b);
    *d = malloc(sizeof **d);
}

/* relative gap of a clocks workspace's times to the plain replay's */
static double rel_gap(const cx_replay *a, const cx_replay *b, int p)
{
    return replay_time_gap(a, b, p) / fmax(b->makespan_s, 1e-300);
}

static void test_workspace(void)
{
    culonx_run r;
    culonx_error err;
    cx_cost *c;
    cx_replay *a, *b, *d;
    load_22b(&r, &c, &a, &b, &d);
    CU_ASSERT_FATAL(c && a && b && d);
    double mhz[21];
    for (int k = 0; k < 21; k++)
        mhz[k] = 210 + 60 * k;
    static const culonx_schedule sch[] = {CULONX_SCHED_ZB_H1,       CULONX_SCHED_ZB_V,
                                          CULONX_SCHED_INTERLEAVED, CULONX_SCHED_DUALPIPE_V,
                                          CULONX_SCHED_ZB_H2,       CULONX_SCHED_1F1B};
    int checked = 0, bad = 0, unlike = 0;
    double worst = 0;
    long long e0, i0, e1, i1;
    cx_core_replay_clocks_counts(&e0, &i0);
    for (int is = 0; is < 6; is++)
        for (int p = 2; p <= 32; p *= 2)
            for (int mm = 1; mm <= 3; mm++) {
                /* m = 2p + 1, 6 p, 40 p: with and without the virtual jump */
                const int m = mm == 1 ? 2 * p + 1 : mm == 2 ? 6 * p : 40 * p;
                if (p == 32 && mm == 3) continue; /* time */
                r.exec.schedule = sch[is];
                r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.pp = p;
                r.exec.vp = sch[is] == CULONX_SCHED_INTERLEAVED ? 2 : 1;
                r.exec.global_batch = m;
                r.exec.gpus = culonx_execution_gpus(&r.exec);
                cx_replay_ws *wl = cx_core_replay_ws_new(), *wr = cx_core_replay_ws_new(),
                             *w1 = cx_core_replay_ws_new();
                CU_ASSERT_FATAL(wl && wr && w1);
                cx_core_replay_ws_set_clocks(wl, mhz, 21);
                cx_core_replay_ws_set_clocks(wr, mhz, 21);
                /* the recompute modes: other durations on the same orders;
                 * one cost built and repriced clock by clock (one curve) */
                for (int rc = 0; rc < 3; rc++) {
                    r.exec.recompute = (culonx_recompute)rc;
                    if (cx_core_cost_build(&r, mhz[0], c, &err) != CULONX_OK) break;
                    /* a shape the schedule refuses (ZB-V below 2p) */
                    if (cx_core_replay_ws(c, w1, b, &err) != CULONX_OK) break;
                    cx_replay *fw = malloc(21 * sizeof *fw);
                    CU_ASSERT_FATAL(fw != NULL);
                    for (int k = 0; k < 21; k++) { /* forwards */
                        cx_core_cost_reprice(&r, mhz[k], c);
                        CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wl, &fw[k], &err), CULONX_OK);
                        CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, w1, b, &err), CULONX_OK);
                        const double g = rel_gap(&fw[k], b, p);
                        worst = fmax(worst, g);
                        checked++;
                        if (!(g <= 1e-11) && bad++ < 5)
                            printf("\n  schedule %d p %d m %d clock %g off by %.3g", (int)sch[is],
                                   p, m, mhz[k], g);
                    }
                    for (int k = 20; k >= 0; k--) { /* backwards: the same bits */
                        cx_core_cost_reprice(&r, mhz[k], c);
                        CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wr, d, &err), CULONX_OK);
                        if (!same_replay(d, &fw[k], p) && unlike++ < 5)
                            printf("\n  schedule %d p %d m %d clock %g: order changes bits",
                                   (int)sch[is], p, m, mhz[k]);
                    }
                    free(fw);
                }
                cx_core_replay_ws_free(wl);
                cx_core_replay_ws_free(wr);
                cx_core_replay_ws_free(w1);
            }
    cx_core_replay_clocks_counts(&e1, &i1);
    printf("\n  %d clock results checked, worst relative gap %.3g; %lld clocks played, %lld "
           "from segments\n",
           checked, worst, (e1 - e0), (i1 - i0));
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(unlike, 0);
    CU_ASSERT(checked > 3000);
    CU_ASSERT(3 * (i1 - i0) > e1 - e0); /* segments answer a good share */
    free(c), free(a), free(b), free(d);
}

/* One clocks workspace coming back to shapes (ZB-H1 / ZB-H2, p 4 and 8,
 * alternated, other durations each time: the memo misses; cached
 * programs, no orders rebuilt): within 1e-11 of the plain replay. */
static void test_shapes_come_back(void)
{
    culonx_run r;
    culonx_error err;
    cx_cost *c;
    cx_replay *a, *b, *d;
    load_22b(&r, &c, &a, &b, &d);
    cx_replay_ws *wl = cx_core_replay_ws_new(), *w1 = cx_core_replay_ws_new();
    CU_ASSERT_FATAL(c && a && b && d && wl && w1);
    double mhz[21];
    for (int k = 0; k < 21; k++)
        mhz[k] = 210 + 60 * k;
    cx_core_replay_ws_set_clocks(wl, mhz, 21);
    static const int shapes[][2] = {{4, 9}, {8, 20}, {4, 13}, {8, 17}};
    int checked = 0, bad = 0;
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 8; k++) {
            r.exec.schedule = k % 2 ? CULONX_SCHED_ZB_H2 : CULONX_SCHED_ZB_H1;
            r.exec.recompute = (culonx_recompute)round;
            r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.vp = 1;
            r.exec.pp = shapes[k / 2][0], r.exec.global_batch = shapes[k / 2][1];
            r.exec.gpus = culonx_execution_gpus(&r.exec);
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, mhz[0], c, &err), CULONX_OK);
            for (int q = 0; q < 21; q++) {
                cx_core_cost_reprice(&r, mhz[q], c);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, w1, b, &err), CULONX_OK);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wl, a, &err), CULONX_OK);
                const double g = rel_gap(a, b, c->p);
                checked++;
                if (!(g <= 1e-11) && bad++ < 5)
                    printf("\n  round %d shape %d clock %g off by %.3g", round, k, mhz[q], g);
            }
        }
    printf("\n  %d clock results checked\n", checked);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(checked, 3 * 8 * 21);
    cx_core_replay_ws_free(wl);
    cx_core_replay_ws_free(w1);
    free(c), free(a), free(b), free(d);
}

/* The clock batch's own sweep gates (cx_core_replay_zb_sweep_pays_batch,
 * cx_core_replay_v_sweep_pays_batch): shapes of megatron-1t they send to
 * the ZB / V sweeps (ZB-H1 m 2p, ZB-H2 4p, ZB-V m 1024 and 1536,
 * DualPipeV m 2048: from an m on, jump or not), and shapes played in clock lanes (their
 * keys collinear over the clocks: the first round filled to 4 points;
 * interleaved with the formula answering most clocks first, and without),
 * every clock within 1e-11 of the full replay and the same bits asked
 * backwards. */
static void test_batch_sweeps(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    cx_cost *c = malloc(sizeof *c);
    cx_replay *fw = malloc(21 * sizeof *fw), *b = malloc(sizeof *b), *d = malloc(sizeof *d);
    CU_ASSERT_FATAL(c && fw && b && d);
    double mhz[21];
    for (int k = 0; k < 21; k++)
        mhz[k] = 210 + 60 * k;
    static const struct {
        culonx_schedule s;
        int p, m, tp, v;
    } shapes[] = {{CULONX_SCHED_ZB_H1, 64, 128, 8, 1},
                  {CULONX_SCHED_ZB_H2, 32, 128, 8, 1},
                  {CULONX_SCHED_ZB_V, 32, 1024, 8, 1},
                  {CULONX_SCHED_ZB_V, 64, 1536, 8, 1},
                  {CULONX_SCHED_DUALPIPE_V, 64, 2048, 8, 1},
                  {CULONX_SCHED_ZB_V, 16, 96, 8, 1},
                  {CULONX_SCHED_DUALPIPE_V, 32, 192, 8, 1},
                  {CULONX_SCHED_ZB_H2, 16, 48, 8, 1},
                  {CULONX_SCHED_ZB_H1, 32, 64, 8, 1},
                  /* interleaved: the formula at the 17 lower clocks (TP
                   * across nodes), the 4 top ones in one 4-lane pass; and
                   * no formula (p does not divide m) */
                  {CULONX_SCHED_INTERLEAVED, 8, 32, 32, 4},
                  {CULONX_SCHED_INTERLEAVED, 8, 12, 8, 4}};
    const int nshape = (int)(sizeof shapes / sizeof shapes[0]);
    int checked = 0, bad = 0, unlike = 0, gated = 0;
    long long e0, i0, e1, i1;
    for (int k = 0; k < nshape; k++) {
        if (k == 5) cx_core_replay_clocks_counts(&e0, &i0);
        r.exec.schedule = shapes[k].s;
        r.exec.recompute = CULONX_RECOMPUTE_NONE;
        r.exec.tp = shapes[k].tp, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.vp = shapes[k].v;
        r.exec.pp = shapes[k].p, r.exec.global_batch = shapes[k].m;
        r.exec.gpus = culonx_execution_gpus(&r.exec);
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, mhz[0], c, &err), CULONX_OK);
        if (k < 5)
            gated +=
                cx_core_replay_zb_sweep_pays_batch(c) || cx_core_replay_v_sweep_pays_batch(c, 0);
        cx_replay_ws *wl = cx_core_replay_ws_new(), *wr = cx_core_replay_ws_new(),
                     *w1 = cx_core_replay_ws_new();
        CU_ASSERT_FATAL(wl && wr && w1);
        cx_core_replay_ws_set_clocks(wl, mhz, 21);
        cx_core_replay_ws_set_clocks(wr, mhz, 21);
        for (int q = 0; q < 21; q++) {
            cx_core_cost_reprice(&r, mhz[q], c);
            CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wl, &fw[q], &err), CULONX_OK);
            cx_core_replay_set_full(1);
            CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, w1, b, &err), CULONX_OK);
            cx_core_replay_set_full(0);
            const double g = rel_gap(&fw[q], b, c->p);
            checked++;
            if (!(g <= 1e-11) && bad++ < 5)
                printf("\n  shape %d clock %g off by %.3g", k, mhz[q], g);
        }
        for (int q = 20; q >= 0; q--) {
            cx_core_cost_reprice(&r, mhz[q], c);
            CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wr, d, &err), CULONX_OK);
            if (!same_replay(d, &fw[q], c->p) && unlike++ < 5)
                printf("\n  shape %d clock %g: order changes bits", k, mhz[q]);
        }
        cx_core_replay_ws_free(wl);
        cx_core_replay_ws_free(wr);
        cx_core_replay_ws_free(w1);
    }
    cx_core_replay_clocks_counts(&e1, &i1);
    printf("\n  %d clock results checked, %d shapes gated to a sweep; in lanes %lld clocks "
           "played, %lld from segments\n",
           checked, gated, e1 - e0, i1 - i0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(unlike, 0);
    CU_ASSERT_EQUAL(checked, nshape * 21);
    CU_ASSERT_EQUAL(gated, 5);
    /* in lanes: 6 shapes, two workspaces each, 4 points at least a batch
     * (the formula's included) */
    CU_ASSERT(e1 - e0 >= 6 * 2 * 4);
    free(c), free(fw), free(b), free(d);
}

/* A batch whose inputs are the last batch's (a rebuild of the same run:
 * another curve, the same time keys at every clock) takes its rows: no
 * clock played, the same bits as the first batch and as a fresh
 * workspace playing it; other times (another recompute mode) are played.
 * Shapes: the V sweep, the ZB sweep, clock lanes, the virtual jump. */
static void test_batch_repeat(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    cx_cost *c = malloc(sizeof *c);
    cx_replay *fw = malloc(21 * sizeof *fw), *b = malloc(sizeof *b);
    CU_ASSERT_FATAL(c && fw && b);
    double mhz[21];
    for (int k = 0; k < 21; k++)
        mhz[k] = 210 + 60 * k;
    static const struct {
        culonx_schedule s;
        int p, m;
    } shapes[] = {{CULONX_SCHED_ZB_V, 32, 768},
                  {CULONX_SCHED_ZB_H1, 64, 128},
                  {CULONX_SCHED_DUALPIPE_V, 8, 32},
                  {CULONX_SCHED_ZB_H2, 8, 320}};
    int reused = 0, replayed = 0, unlike = 0;
    for (int k = 0; k < 4; k++) {
        r.exec.schedule = shapes[k].s;
        r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.vp = 1;
        r.exec.pp = shapes[k].p, r.exec.global_batch = shapes[k].m;
        r.exec.gpus = culonx_execution_gpus(&r.exec);
        cx_replay_ws *wl = cx_core_replay_ws_new();
        CU_ASSERT_FATAL(wl != NULL);
        cx_core_replay_ws_set_clocks(wl, mhz, 21);
        /* builds: mode none, none again (another curve), full */
        for (int t = 0; t < 3; t++) {
            r.exec.recompute = t < 2 ? CULONX_RECOMPUTE_NONE : CULONX_RECOMPUTE_FULL;
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, mhz[0], c, &err), CULONX_OK);
            long long e0, e1, i0, i1;
            cx_core_replay_clocks_counts(&e0, &i0);
            cx_replay_ws *wf = cx_core_replay_ws_new();
            CU_ASSERT_FATAL(wf != NULL);
            cx_core_replay_ws_set_clocks(wf, mhz, 21);
            for (int q = 0; q < 21; q++) {
                cx_core_cost_reprice(&r, mhz[q], c);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wl, b, &err), CULONX_OK);
                if (t == 1 && !same_replay(b, &fw[q], c->p) && unlike++ < 5)
                    printf("\n  shape %d clock %g: the rows taken differ", k, mhz[q]);
                fw[q] = *b;
            }
            cx_core_replay_clocks_counts(&e1, &i1);
            if (t == 1) reused += e1 == e0;
            if (t == 2) replayed += e1 > e0;
            /* a fresh workspace plays the batch: the same bits */
            for (int q = 0; q < 21; q++) {
                cx_core_cost_reprice(&r, mhz[q], c);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, b, &err), CULONX_OK);
                if (!same_replay(b, &fw[q], c->p) && unlike++ < 5)
                    printf("\n  shape %d build %d clock %g: not a fresh play's bits", k, t, mhz[q]);
            }
            cx_core_replay_ws_free(wf);
        }
        cx_core_replay_ws_free(wl);
    }
    printf("\n  %d of 4 rebuilt batches taken, %d of 4 other times played\n", reused, replayed);
    CU_ASSERT_EQUAL(reused, 4);
    CU_ASSERT_EQUAL(replayed, 4);
    CU_ASSERT_EQUAL(unlike, 0);
    free(c), free(fw), free(b);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_clocks", NULL, NULL);
    CU_add_test(s, "engine: certified segments on made-up convex results", test_engine);
    CU_add_test(s, "engine with tangents: runs from their ends' lines, ties, kinks",
                test_engine_tan);
    CU_add_test(s, "workspace: every clock near the plain replay, same bits in any order",
                test_workspace);
    CU_add_test(s, "shapes come back: cached program, memo, near the plain replay",
                test_shapes_come_back);
    CU_add_test(s, "batch sweeps: the batch's gated shapes near the full replay, any order",
                test_batch_sweeps);
    CU_add_test(s, "batch repeat: the same inputs under another curve take the last rows",
                test_batch_repeat);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
