/*
 * test_schedules.c — pipeline schedules (schedules/) against the reference
 * simulator (schedules/sim.c): every item appears exactly once, the orders
 * can be played without deadlock, the play engine (schedules/play.h) hands
 * each item the dependency its rules name, inflight() equals a replay of the order,
 * bubble_s() equals the simulated makespan - m(F+B+W) for uniform stages
 * (to 1e-9 relative where the closed form is exact; ZB-H2 for 1 < m < 2p-1
 * within max(F,B,W)/2), and the orderings the papers claim (1F1B memory
 * below GPipe, interleaved and ZB-H1 bubbles below 1F1B, ZB-V and DualPipeV
 * near zero when F = B = W).
 */
#include "schedules/play.h"
#include "culonx.h"
#include "schedules/sched.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const int ps[] = {1, 2, 3, 4, 5, 7, 8};
static const int vs[] = {1, 2, 3, 4};
static const double fbw[][3] = {{1, 1, 1}, {1, 2, 1},   {1, 1, 0.5},    {2, 1, 1},
                                {1, 1, 2}, {1, 2, 2},   {0.5, 1, 1},    {3, 1, 0.5},
                                {1, 3, 2}, {0.5, 3, 1}, {1.3, 2.1, 0.7}};
#define NFBW (int)(sizeof fbw / sizeof fbw[0])

static int nms(int p, int *ms)
{
    int c[] = {1, 2, 3, p - 1, p, p + 1, 2 * p - 1, 2 * p, 2 * p + 1, 3 * p + 2, 4 * p}, n = 0;
    for (int i = 0; i < (int)(sizeof c / sizeof c[0]); i++) {
        int dup = c[i] < 1;
        for (int j = 0; j < n && !dup; j++)
            dup = ms[j] == c[i];
        if (!dup) ms[n++] = c[i];
    }
    return n;
}

/* where order() may refuse (p, m, v): too few microbatches by the
 * schedule's own rules (supports, with layers its chunks divide; v only
 * for schedules that take it, the others ignore it) */
static int may_refuse(const cx_sched_desc *d, int p, int m, int v)
{
    cx_sched_shape s = {p, m, cx_sched_takes_vp(d) ? v : 1, (int64_t)p * d->chunks(v)};
    return d->supports(&s) == CULONX_REJECT_SCHED_MICROBATCHES;
}

static int close_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void test_registry(void)
{
    for (int i = 0; i < culonx_schedule_count(); i++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT_EQUAL(cx_sched_id(d), i);
        CU_ASSERT_STRING_EQUAL(d->name, culonx_schedule_name((culonx_schedule)i));
        CU_ASSERT_PTR_EQUAL(cx_sched_find(d->name), d);
        CU_ASSERT(d->chunks && d->vstage && d->order && d->bubble_s && d->inflight);
        CU_ASSERT(d->supports && d->min_microbatches);
    }
    CU_ASSERT_PTR_NULL(cx_sched_get((culonx_schedule)culonx_schedule_count()));
    CU_ASSERT_PTR_NULL(cx_sched_find("nope"));
    /* the named ids of culonx.h are the registry positions of schedules/list.h */
    const struct {
        culonx_schedule id;
        const cx_sched_desc *d;
    } named[] = {{CULONX_SCHED_GPIPE, &cx_sched_gpipe},
                 {CULONX_SCHED_1F1B, &cx_sched_1f1b},
                 {CULONX_SCHED_INTERLEAVED, &cx_sched_interleaved},
                 {CULONX_SCHED_ZB_H1, &cx_sched_zb_h1},
                 {CULONX_SCHED_ZB_H2, &cx_sched_zb_h2},
                 {CULONX_SCHED_ZB_V, &cx_sched_zb_v},
                 {CULONX_SCHED_DUALPIPE_V, &cx_sched_dualpipev}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        CU_ASSERT_PTR_EQUAL(cx_sched_get(named[i].id), named[i].d);
    CU_ASSERT(culonx_schedule_count() <= CULONX_SCHED_MAX);
    CU_ASSERT_EQUAL(cx_sched_get(CULONX_SCHED_INTERLEAVED)->chunks(3), 3);
    CU_ASSERT_EQUAL(cx_sched_get(CULONX_SCHED_ZB_V)->chunks(1), 2);
    CU_ASSERT_EQUAL(cx_sched_get(CULONX_SCHED_DUALPIPE_V)->chunks(1), 2);
    CU_ASSERT_EQUAL(cx_sched_get(CULONX_SCHED_1F1B)->chunks(4), 1);
}

/* The simulator rejects broken orders and detects deadlocks. */
static int bad_kind;
static int bad_order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    int n = cx_sched_1f1b.order(p, m, v, stage, out, cap);
    if (n < 2) return n;
    if (bad_kind == 0) n--;            /* an item missing */
    if (bad_kind == 1 && stage == 0) { /* last BW first: waits on its own F */
        cx_sched_item x = out[0];
        out[0] = out[n - 1], out[n - 1] = x;
    }
    if (bad_kind == 2) out[0].mb = m; /* out of range */
    if (bad_kind == 3) out[n - 1].mb = -1;
    if (bad_kind == 4) out[n / 2].chunk = 1; /* 1F1B has one chunk */
    if (bad_kind == 5) out[1].kind = CX_WORK_BW + 1;
    return n;
}

static void test_simulator_guards(void)
{
    cx_sched_desc d = cx_sched_1f1b;
    double mk;
    d.order = bad_order;
    d.ranged = 0;
    bad_kind = 0;
    CU_ASSERT_EQUAL(cx_sched_simulate(&d, 3, 4, 1, 1, 1, 1, 0, &mk, NULL), CX_SCHED_SIM_BAD_ORDER);
    bad_kind = 1;
    CU_ASSERT_EQUAL(cx_sched_simulate(&d, 3, 4, 1, 1, 1, 1, 0, &mk, NULL), CX_SCHED_SIM_DEADLOCK);
    bad_kind = 2;
    CU_ASSERT_EQUAL(cx_sched_simulate(&d, 3, 4, 1, 1, 1, 1, 0, &mk, NULL), CX_SCHED_SIM_BAD_ORDER);
    CU_ASSERT_EQUAL(cx_sched_simulate(&cx_sched_interleaved, 4, 2, 2, 1, 1, 1, 0, &mk, NULL),
                    CX_SCHED_SIM_UNSUPPORTED);
    /* the range check of unchecked plays (no per-item counts) */
    cx_play *pl = cx_sched_play_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    for (bad_kind = 2; bad_kind <= 5; bad_kind++)
        CU_ASSERT_EQUAL(cx_sched_play_orders(pl, &d, 3, 6, 1, 0), CX_SCHED_SIM_BAD_ORDER);
    bad_kind = 6; /* none */
    CU_ASSERT_EQUAL(cx_sched_play_orders(pl, &d, 3, 6, 1, 0), CX_SCHED_SIM_OK);
    cx_sched_play_free(pl);
}

/* Every schedule, many (p, m, v): complete, playable, busy = m(F+B+W). */
static void test_orders_play(void)
{
    int ms[16];
    for (int s = 0; s < culonx_schedule_count(); s++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)s);
        for (size_t ip = 0; ip < sizeof ps / sizeof ps[0]; ip++) {
            int p = ps[ip], nm = nms(p, ms);
            for (int im = 0; im < nm; im++)
                for (size_t iv = 0; iv < sizeof vs / sizeof vs[0]; iv++) {
                    int m = ms[im], v = vs[iv];
                    double mk, busy[8];
                    cx_sched_sim_status st = cx_sched_simulate(d, p, m, v, 1, 2, 1, 0, &mk, busy);
                    if (st == CX_SCHED_SIM_UNSUPPORTED && may_refuse(d, p, m, v)) continue;
                    if (st != CX_SCHED_SIM_OK)
                        fprintf(stderr, "\n%s p=%d m=%d v=%d: status %d\n", d->name, p, m, v, st);
                    CU_ASSERT_EQUAL_FATAL(st, CX_SCHED_SIM_OK);
                    for (int k = 0; k < p; k++)
                        CU_ASSERT(close_rel(busy[k], 4.0 * m, 1e-12));
                    /* p2p only delays */
                    double mk2;
                    CU_ASSERT_EQUAL(cx_sched_simulate(d, p, m, v, 1, 2, 1, 0.3, &mk2, NULL),
                                    CX_SCHED_SIM_OK);
                    CU_ASSERT(mk2 >= mk - 1e-9);
                    if (p > 1) CU_ASSERT(mk2 > mk);
                }
        }
    }
}

/* The play engine's rules, checked by a callback whose tokens name their
 * producer: F(mb, vs) gets F(mb, vs-1)'s output (none at vs 0), B or BW gets
 * B or BW(mb, vs+1)'s output or, on the last virtual stage, F(mb, vs)'s,
 * W gets B(mb, vs) done; every item is stepped once, in its stage's order;
 * send is set exactly when the consumer is on another stage. */
typedef struct {
    const cx_play *pl;
    int nvs, bad;
    long steps;
    int *next; /* [p]: next position expected on each stage */
} rulectx;

static double name_of(int what, int mb, int k, int nvs)
{
    return (double)((((int64_t)mb * nvs + k) * 4 + what)); /* 0 F out, 1 B out, 2 B done */
}

static void rule_step(void *ctx, const cx_play_step *st, cx_play_token *done, cx_play_token *out)
{
    rulectx *x = ctx;
    const int nvs = x->nvs, k = st->vs, mb = st->mb;
    double want = -1;
    if (st->kind == CX_WORK_F)
        want = k > 0 ? name_of(0, mb, k - 1, nvs) : -1;
    else if (st->kind == CX_WORK_W)
        want = name_of(2, mb, k, nvs);
    else
        want = k == nvs - 1 ? name_of(0, mb, k, nvs) : name_of(1, mb, k + 1, nvs);
    if ((want < 0) != (st->dep == NULL) || (st->dep && st->dep->t != want)) x->bad++;
    if (st->pos != x->next[st->stage]++) x->bad++;
    int n;
    cx_sched_play_items(x->pl, st->stage, &n);
    if (st->last != (st->pos == n - 1)) x->bad++;
    int other = st->kind == CX_WORK_F   ? k + 1 < nvs && x->pl->stage_of[k + 1] != st->stage
                : st->kind == CX_WORK_W ? 0
                                        : k > 0 && x->pl->stage_of[k - 1] != st->stage;
    if (other != st->send) x->bad++;
    x->steps++;
    done->t = name_of(2, mb, k, nvs);
    out->t = name_of(st->kind == CX_WORK_F ? 0 : 1, mb, k, nvs);
}

static void test_play_rules(void)
{
    int ms[16], next[8];
    cx_play *pl = cx_sched_play_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    for (int s = 0; s < culonx_schedule_count(); s++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)s);
        for (size_t ip = 0; ip < sizeof ps / sizeof ps[0]; ip++) {
            int p = ps[ip], nm = nms(p, ms);
            for (int im = 0; im < nm; im++)
                for (size_t iv = 0; iv < sizeof vs / sizeof vs[0]; iv++) {
                    int m = ms[im], v = vs[iv];
                    cx_sched_sim_status st = cx_sched_play_orders(pl, d, p, m, v, 1);
                    if (st == CX_SCHED_SIM_UNSUPPORTED && may_refuse(d, p, m, v)) continue;
                    CU_ASSERT_EQUAL_FATAL(st, CX_SCHED_SIM_OK);
                    for (int k = 0; k < p; k++)
                        next[k] = 0;
                    rulectx x = {pl, pl->nvs, 0, 0, next};
                    CU_ASSERT_EQUAL(cx_sched_play_run(pl, rule_step, &x), CX_SCHED_SIM_OK);
                    long total = 0;
                    for (int k = 0; k < p; k++) {
                        int n;
                        cx_sched_play_items(pl, k, &n);
                        total += n;
                        CU_ASSERT_EQUAL(next[k], n);
                    }
                    CU_ASSERT_EQUAL(x.steps, total);
                    CU_ASSERT_EQUAL(x.bad, 0);
                }
        }
    }
    cx_sched_play_free(pl);
    cx_sched_play_free(NULL); /* NULL-safe */
}

/* inflight() is exactly the replayed peak, every stage. */
static void test_inflight_replay(void)
{
    int ms[16];
    for (int s = 0; s < culonx_schedule_count(); s++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)s);
        for (size_t ip = 0; ip < sizeof ps / sizeof ps[0]; ip++) {
            int p = ps[ip], nm = nms(p, ms);
            for (int im = 0; im < nm; im++)
                for (size_t iv = 0; iv < sizeof vs / sizeof vs[0]; iv++) {
                    int m = ms[im], v = vs[iv], ch = d->chunks(v), cap = 3 * m * ch;
                    cx_sched_item *it = malloc((size_t)cap * sizeof *it);
                    CU_ASSERT_PTR_NOT_NULL_FATAL(it);
                    for (int k = 0; k < p; k++) {
                        int n = d->order(p, m, v, k, it, cap);
                        /* order() refuses exactly what supports() rejects */
                        CU_ASSERT_EQUAL(n < 0, may_refuse(d, p, m, v));
                        if (n < 0 && may_refuse(d, p, m, v)) break;
                        CU_ASSERT_FATAL(n > 0);
                        double rp = cx_sched_replay_peak(it, n, ch), cf = d->inflight(p, m, v, k);
                        if (!close_rel(rp, cf, 1e-12))
                            fprintf(stderr, "\n%s p=%d m=%d v=%d stage %d: replay %g inflight %g\n",
                                    d->name, p, m, v, k, rp, cf);
                        CU_ASSERT(close_rel(rp, cf, 1e-12));
                        /* inflight_falls: non-increasing in the stage */
                        if (d->inflight_falls && k > 0)
                            CU_ASSERT(cf <= d->inflight(p, m, v, k - 1));
                    }
                    free(it);
                }
        }
    }
}

/* bubble_s() against the simulator, uniform stages, zero p2p. */
static void test_bubble_vs_sim(void)
{
    int ms[16];
    for (int s = 0; s < culonx_schedule_count(); s++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)s);
        for (size_t ip = 0; ip < sizeof ps / sizeof ps[0]; ip++) {
            int p = ps[ip], nm = nms(p, ms);
            for (int im = 0; im < nm; im++)
                for (size_t iv = 0; iv < sizeof vs / sizeof vs[0]; iv++)
                    for (int t = 0; t < NFBW; t++) {
                        int m = ms[im], v = vs[iv];
                        double F = fbw[t][0], B = fbw[t][1], W = fbw[t][2], mk;
                        cx_sched_sim_status st =
                            cx_sched_simulate(d, p, m, v, F, B, W, 0, &mk, NULL);
                        if (st == CX_SCHED_SIM_UNSUPPORTED && may_refuse(d, p, m, v)) continue;
                        CU_ASSERT_EQUAL_FATAL(st, CX_SCHED_SIM_OK);
                        double sim = mk - m * (F + B + W), cf = d->bubble_s(p, m, v, F, B, W);
                        int approx = d == &cx_sched_zb_h2 && m > 1 && m < 2 * p - 1;
                        int ok = approx ? fabs(sim - cf) <= 0.5 * fmax(F, fmax(B, W)) + 1e-9
                                        : close_rel(sim, cf, 1e-9);
                        if (!ok)
                            fprintf(stderr,
                                    "\n%s p=%d m=%d v=%d F=%g B=%g W=%g: sim %.12g closed %.12g\n",
                                    d->name, p, m, v, F, B, W, sim, cf);
                        CU_ASSERT(ok);
                    }
        }
    }
}

static double sim_bubble(const cx_sched_desc *d, int p, int m, int v, double F, double B, double W)
{
    double mk = 0;
    CU_ASSERT_EQUAL(cx_sched_simulate(d, p, m, v, F, B, W, 0, &mk, NULL), CX_SCHED_SIM_OK);
    return mk - m * (F + B + W);
}

static void test_paper_claims(void)
{
    for (int p = 2; p <= 8; p++) {
        /* 1F1B holds fewer activations than GPipe when m > p */
        for (int m = p + 1; m <= 3 * p; m++)
            CU_ASSERT(cx_sched_1f1b.inflight(p, m, 1, 0) < cx_sched_gpipe.inflight(p, m, 1, 0));
        for (int t = 0; t < NFBW; t++) {
            double F = fbw[t][0], B = fbw[t][1], W = fbw[t][2];
            for (int m = p; m <= 4 * p; m += p) {
                double b1 = sim_bubble(&cx_sched_1f1b, p, m, 1, F, B, W);
                /* interleaving shrinks the bubble */
                for (int v = 2; v <= 4; v++)
                    CU_ASSERT(sim_bubble(&cx_sched_interleaved, p, m, v, F, B, W) < b1);
                /* ZB-H1: smaller bubble at the same stage-0 memory */
                CU_ASSERT(sim_bubble(&cx_sched_zb_h1, p, m, 1, F, B, W) < b1);
                CU_ASSERT_EQUAL(cx_sched_zb_h1.inflight(p, m, 1, 0),
                                cx_sched_1f1b.inflight(p, m, 1, 0));
            }
        }
        /* F = B = W: the V schedules' bubble is a fixed few chunk-times, not
         * growing with m: below 5% of the makespan at m = 8p, and below ZB-H1
         * (ZB-V only from p = 4: at p <= 3 its (p+1)F/2 >= ZB-H1's (p-1)F) */
        int m = 8 * p;
        double zh1 = sim_bubble(&cx_sched_zb_h1, p, m, 1, 1, 1, 1);
        double zv = sim_bubble(&cx_sched_zb_v, p, m, 1, 1, 1, 1);
        double dv = sim_bubble(&cx_sched_dualpipev, p, m, 1, 1, 1, 1);
        CU_ASSERT(zv / (zv + 3.0 * m) < 0.05);
        CU_ASSERT(dv / (dv + 3.0 * m) < 0.05);
        CU_ASSERT(dv < zh1);
        if (p >= 4) CU_ASSERT(zv < zh1);
        CU_ASSERT(close_rel(zv, sim_bubble(&cx_sched_zb_v, p, 2 * p, 1, 1, 1, 1), 1e-12));
        CU_ASSERT(close_rel(dv, sim_bubble(&cx_sched_dualpipev, p, 2 * p, 1, 1, 1, 1), 1e-12));
    }
    /* Megatron's interleaved activation figure on stage 0, p divides m */
    for (int p = 2; p <= 8; p++)
        for (int v = 2; v <= 4; v++)
            CU_ASSERT(close_rel(cx_sched_interleaved.inflight(p, 4 * p, v, 0),
                                p * (1.0 + (p - 1.0) / (p * v)), 1e-12));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("schedules", NULL, NULL);
    if (!s || !CU_add_test(s, "registry", test_registry) ||
        !CU_add_test(s, "simulator guards", test_simulator_guards) ||
        !CU_add_test(s, "orders play", test_orders_play) ||
        !CU_add_test(s, "play engine rules", test_play_rules) ||
        !CU_add_test(s, "inflight = replay", test_inflight_replay) ||
        !CU_add_test(s, "bubble = simulation", test_bubble_vs_sim) ||
        !CU_add_test(s, "paper claims", test_paper_claims)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
