/*
 * test_replay_v_sweep.c — the run-form sweep of the ZB-V and DualPipeV
 * replays (core/eval/replay_v_sweep.c) against the full replay
 * (core/eval/replay.c with cx_core_replay_set_full: every item played).
 * Random costs: megatron-22b runs of 4 layers a stage (2p chunks), p in
 * {2, 3, 4, 5, 7, 8, 16, 32, 64, 128}, m from the sweep's least (2p + 3)
 * to 40p, every virtual stage of its own class (up to the class limit;
 * else first / middle / last / stage 1's), durations from 0.3x to 3x the
 * middle, P from 0 to 0.5 F (0 for a third), one draw in four stage 0
 * heavy (both ends of the V), one in four the last stage heavy, one in
 * sixteen each: W 0, P three times F, every stage the middle one (ties).
 * Where it answers, every per-stage value must equal the full replay's to
 * 1e-12 of the makespan; it must answer 95% of the draws (counted and
 * printed), with the same bits on a second workspace that swept other
 * draws before. Megatron-1t (tp 8, p 8–64, m 4p–24p, recompute none and full)
 * likewise, the memo's answers are the sweep's bits, and so are the
 * replay's (cx_core_replay_ws, no clock lanes) where the gate sends it to
 * the sweep (and its peaks the full replay's). The results' derivatives
 * along a line of keys (cx_core_replay_v_sweep_d, the clock batch's
 * tangents): each result's line through them below the full replay's
 * result along the line, a one-sided derivative where nothing ties.
 */
#include "core/eval/replay.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_step.h"
#include "core/eval/replay_v_sweep.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0x9E3779B97F4A7C15ull
#include "replay_fixture.h"

static culonx_schedule kind_of(int dual)
{
    return dual ? CULONX_SCHED_DUALPIPE_V : CULONX_SCHED_ZB_V;
}

/* the shipped run at path, tp 8, dp 1, microbatch 1, no interleaving */
static void load_run(culonx_run *r, const char *path)
{
    culonx_error err;
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load(path, NULL, 0, NULL, r, &err), CULONX_OK);
    r->exec.tp = 8, r->exec.dp = 1, r->exec.microbatch = 1, r->exec.vp = 1;
}

static void sweep_vs_full(int dual)
{
    const char *sd_name = dual ? "dualpipev" : "zb-v";
    culonx_run r;
    culonx_error err;
    load_run(&r, "configs/megatron-22b.xml");
    r.exec.schedule = kind_of(dual);
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_v_sweep_ws *vw = cx_core_v_sweep_ws_new(), *vw2 = cx_core_v_sweep_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo), *fo2 = malloc(sizeof *fo2);
    CU_ASSERT_FATAL(c && wf && vw && vw2 && full && fo && fo2);
    int order_bits = 0;
    static const int pps[] = {2, 3, 4, 5, 7, 8, 16, 32, 64, 128};
    int answered = 0, declined = 0, mismatched = 0, tries = 0, max_sw = 0, max_seg = 0;
    double evals = 0, worst = 0;
    for (int ip = 0; ip < 10; ip++) {
        const int p = pps[ip];
        const int ms[] = {2 * p + 3, 2 * p + 4, 3 * p + 1,  4 * p + 2,
                          5 * p + 3, 9 * p,     17 * p - 1, 40 * p};
        r.model.layers = 4 * p;
        const int ntrial = p >= 64 ? 8 : 32;
        for (int im = 0; im < 8; im++) {
            const int m = ms[im];
            r.exec.pp = p, r.exec.global_batch = m;
            r.exec.gpus = culonx_execution_gpus(&r.exec);
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
            const int nvs = 2 * p;
            const cx_chunk_cost mid = c->cls[c->vs_class[1]];
            for (int trial = 0; trial < ntrial; trial++) {
                /* classes: one a virtual stage where they fit */
                const int own = nvs <= CX_COST_MAX_CLASSES;
                const int nc = own ? nvs : 4;
                for (int k = 0; k < nc; k++) {
                    c->cls[k] = mid;
                    draw_class(&c->cls[k], &mid, 0.3, 3.0);
                }
                for (int vs = 0; vs < nvs; vs++)
                    c->vs_class[vs] = (int16_t)(own                      ? vs
                                                : vs == 0                ? 0
                                                : vs == nvs - 1          ? 3
                                                : vs == p - 1 || vs == p ? 2
                                                                         : 1);
                c->nclass = nc;
                /* heavy ends: stage 0 holds virtual stages 0 and 2p − 1,
                 * stage p − 1 holds p − 1 and p */
                const int heavy[2][2] = {{0, nvs - 1}, {p - 1, p}};
                for (int e = 0; e < 2; e++)
                    if (trial % 4 == 1 + e)
                        for (int i = 0; i < 2; i++) {
                            cx_chunk_cost *h = &c->cls[c->vs_class[heavy[e][i]]];
                            h->f_s *= 2.5, h->b_s *= 2.5, h->w_s *= 2.5;
                        }
                c->p2p_s = (trial % 3 == 0 ? 0 : 1) * mid.f_s * uni(0, 0.5);
                if (trial % 16 == 7)
                    for (int k = 0; k < nc; k++)
                        c->cls[k].w_s = 0;                   /* no W time */
                if (trial % 16 == 9) c->p2p_s = 3 * mid.f_s; /* sends dominate */
                if (trial % 16 == 11)
                    for (int k = 0; k < nc; k++)
                        c->cls[k] = mid; /* all stages equal: ties everywhere */
                cx_core_replay_set_full(1);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                cx_core_replay_set_full(0);
                tries++;
                if (!cx_core_replay_v_sweep(c, vw, fo)) {
                    declined++;
                    continue;
                }
                int ev, sw, sg;
                cx_core_v_sweep_stats(vw, &ev, &sw, &sg);
                evals += (double)ev / p;
                max_sw = sw > max_sw ? sw : max_sw, max_seg = sg > max_seg ? sg : max_seg;
                answered++;
                /* the same bits on a workspace that swept other points
                 * before (every other draw) */
                if (trial % 2 == 0 &&
                    (!cx_core_replay_v_sweep(c, vw2, fo2) || fo2->makespan_s != fo->makespan_s ||
                     memcmp(fo2->free_s, fo->free_s, sizeof(double) * (size_t)p) ||
                     memcmp(fo2->last_end_s, fo->last_end_s, sizeof(double) * (size_t)p)))
                    order_bits++;
                const double bad = replay_time_gap(fo, full, p);
                worst = fmax(worst, bad / full->makespan_s);
                if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                    printf("\n  %s p %d m %d trial %d: off by %.3g of %.6g\n", sd_name, p, m, trial,
                           bad, full->makespan_s);
            }
        }
    }
    printf("\n  %s sweep: answered %d of %d (declined %d), worst %.3g, stage evaluations "
           "%.1f a stage, most sweeps %d, most segments %d\n",
           sd_name, answered, tries, declined, worst, answered ? evals / answered : 0.0, max_sw,
           max_seg);
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT_EQUAL(order_bits, 0);
    CU_ASSERT(answered * 100 >= tries * 95);
    cx_core_replay_ws_free(wf);
    cx_core_v_sweep_ws_free(vw), cx_core_v_sweep_ws_free(vw2);
    free(c), free(full), free(fo), free(fo2);
}

static void test_zb_v(void)
{
    sweep_vs_full(0);
}

static void test_dualpipev(void)
{
    sweep_vs_full(1);
}

/* the cost c0 with its time key moved by l along dkey (replay_lanes.h's
 * order: per class f, tp_f, b, tp_b, r, tp_r, w, then p2p) into c */
static void key_moved(cx_cost *c, const cx_cost *c0, const double *dkey, double l)
{
    memcpy(c, c0, sizeof *c);
    for (int k = 0; k < c->nclass; k++) {
        cx_chunk_cost *cc = &c->cls[k];
        const double *d = dkey + 7 * k;
        cc->f_s += l * d[0], cc->tp_f_s += l * d[1], cc->b_s += l * d[2], cc->tp_b_s += l * d[3];
        cc->r_s += l * d[4], cc->tp_r_s += l * d[5], cc->w_s += l * d[6];
    }
    c->p2p_s += l * dkey[7 * c->nclass];
}

/* result x of r: 0 the makespan, then per stage free, last end, last item */
static double result_of(const cx_replay *r, int p, int x)
{
    if (x == 0) return r->makespan_s;
    const int s = (x - 1) % p, w = (x - 1) / p;
    return w == 0 ? r->free_s[s] : w == 1 ? r->last_end_s[s] : r->last_item_s[s];
}

/* The derivatives along a line of keys (cx_core_replay_v_sweep_d, what
 * replay_clocks.c's tangents certify with): random costs as above (p 2-32,
 * m 2p + 3 to 9p), a random direction (each key component moved by up to
 * half of itself; one draw in four every stage the same cost, ties
 * everywhere, one in eight every component by the same ratio: results
 * linear along the line). Each result's line through its derivative must
 * lie below the full replay's result at l = ±0.1, ±0.5 (the derivative of
 * a path no longer than the result: the certificate's premise), and
 * where there are no ties, be a one-sided derivative (±1e-6, to 1e-4
 * relative); the values the bits of cx_core_replay_v_sweep; derivatives
 * given in 90% of the answers. */
static void tangents(int dual)
{
    culonx_run r;
    culonx_error err;
    load_run(&r, "configs/megatron-22b.xml");
    r.exec.schedule = kind_of(dual);
    cx_cost *c = malloc(sizeof *c), *c2 = malloc(sizeof *c2);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_v_sweep_ws *vw = cx_core_v_sweep_ws_new(), *vw2 = cx_core_v_sweep_ws_new();
    cx_replay *fo = malloc(sizeof *fo), *dfo = malloc(sizeof *dfo), *fl = malloc(sizeof *fl),
              *f2 = malloc(sizeof *f2);
    CU_ASSERT_FATAL(c && c2 && wf && vw && vw2 && fo && dfo && fl && f2);
    static const int pps[] = {2, 3, 5, 8, 16, 32};
    static const double lams[] = {-0.5, -0.1, 0.1, 0.5};
    int answered = 0, with = 0, above = 0, loose = 0, bits = 0, checked = 0;
    for (int ip = 0; ip < 6; ip++) {
        const int p = pps[ip], ms[] = {2 * p + 3, 5 * p + 3, 9 * p};
        r.model.layers = 4 * p;
        for (int im = 0; im < 3; im++) {
            r.exec.pp = p, r.exec.global_batch = ms[im];
            r.exec.gpus = culonx_execution_gpus(&r.exec);
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
            const int nvs = 2 * p, nc = nvs <= CX_COST_MAX_CLASSES ? nvs : 4;
            const cx_chunk_cost mid = c->cls[c->vs_class[1]];
            for (int trial = 0; trial < 8; trial++) {
                const int ties = trial % 4 == 1, lin = trial % 8 == 5;
                for (int k = 0; k < nc; k++) {
                    c->cls[k] = mid;
                    if (!ties) draw_class(&c->cls[k], &mid, 0.3, 3.0);
                }
                for (int vs = 0; vs < nvs; vs++)
                    c->vs_class[vs] = (int16_t)(nc == nvs ? vs : vs * nc / nvs);
                c->nclass = nc;
                c->p2p_s = (trial % 3 == 0 ? 0 : 1) * mid.f_s * uni(0, 0.5);
                if (trial % 8 == 6)
                    for (int k = 0; k < nc; k++)
                        c->cls[k].w_s = 0;
                double key[CX_COST_MAX_CLASSES * 7 + 1], dkey[CX_COST_MAX_CLASSES * 7 + 1];
                const int nkey = cx_replay_time_key(c, key);
                const double ratio = uni(-0.5, 0.5);
                for (int q = 0; q < nkey; q++)
                    dkey[q] = key[q] * (lin ? ratio : uni(-0.5, 0.5));
                const int got = cx_core_replay_v_sweep_d(c, vw, dkey, fo, dfo);
                if (!got) continue;
                answered++;
                /* the values: the sweep's bits without derivatives */
                bits += !cx_core_replay_v_sweep(c, vw2, f2) || replay_time_gap(f2, fo, p) != 0 ||
                        !same(f2->makespan_s, fo->makespan_s);
                if (got != 2) continue;
                with++;
                const int nres = 1 + 3 * p;
                for (int il = 0; il < 6; il++) {
                    const double l = il < 4 ? lams[il] : il == 4 ? 1e-6 : -1e-6;
                    if (il >= 4 && ties) break;
                    key_moved(c2, c, dkey, l);
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c2, wf, il == 4 ? f2 : fl, &err),
                                          CULONX_OK);
                    cx_core_replay_set_full(0);
                    if (il == 4) continue; /* +h: compared with −h next */
                    for (int x = 0; x < nres; x++) {
                        const double v = result_of(fo, p, x), g = result_of(dfo, p, x);
                        const double sc = fabs(v) + fabs(g);
                        if (il < 4) {
                            checked++;
                            above += result_of(fl, p, x) < v + l * g - 1e-11 * sc;
                            continue;
                        }
                        const double h = 1e-6, ep = fabs(result_of(f2, p, x) - v - h * g),
                                     em = fabs(result_of(fl, p, x) - v + h * g);
                        loose += fmin(ep, em) > 1e-4 * h * sc;
                    }
                }
            }
        }
    }
    printf("\n  %s derivatives: %d of %d answers, %d results checked: above the result %d, "
           "not a one-sided derivative %d, values off the sweep's bits %d\n",
           dual ? "dualpipev" : "zb-v", with, answered, checked, above, loose, bits);
    CU_ASSERT(answered >= 100 && with * 10 >= answered * 9);
    CU_ASSERT_EQUAL(above, 0);
    CU_ASSERT_EQUAL(loose, 0);
    CU_ASSERT_EQUAL(bits, 0);
    cx_core_replay_ws_free(wf);
    cx_core_v_sweep_ws_free(vw), cx_core_v_sweep_ws_free(vw2);
    free(c), free(c2), free(fo), free(dfo), free(fl), free(f2);
}

static void test_tangents(void)
{
    tangents(0);
    tangents(1);
}

/* Megatron-1t (configs/megatron-1t.xml; tp 8, microbatch 1) as the closed
 * form builds it, ZB-V and DualPipeV, p in {8, 16, 32, 64}, m in {4p, 6p,
 * 12p, 24p}, recompute none and full: every answer to 1e-12 of the full
 * replay's makespan, 95% answered; the memo (one workspace for all shapes,
 * a first and a repeated call) gives the bits of a fresh sweep, and
 * cx_core_replay_ws (no clock lanes) answers by the sweep exactly where
 * cx_core_replay_v_sweep_pays says so, with the sweep's bits. */
static void test_megatron(void)
{
    culonx_run r;
    culonx_error err;
    load_run(&r, "configs/megatron-1t.xml");
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new(), *wr = cx_core_replay_ws_new();
    cx_v_sweep_ws *vw = cx_core_v_sweep_ws_new(), *vm = cx_core_v_sweep_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo), *mo = malloc(sizeof *mo);
    CU_ASSERT_FATAL(c && wf && vw && vm && full && fo && mo);
    int tries = 0, answered = 0, mismatched = 0, wired = 0;
    double worst = 0;
    static const int fs[] = {4, 6, 12, 24};
    for (int dual = 0; dual < 2; dual++)
        for (int p = 8; p <= 64; p *= 2)
            for (int fi = 0; fi < 4; fi++)
                for (int rc = 0; rc < 2; rc++) {
                    const int f = fs[fi];
                    r.exec.schedule = kind_of(dual);
                    r.exec.recompute = rc ? CULONX_RECOMPUTE_FULL : CULONX_RECOMPUTE_NONE;
                    r.exec.pp = p, r.exec.global_batch = f * p;
                    r.exec.gpus = culonx_execution_gpus(&r.exec);
                    if (cx_core_cost_build(&r, 0, c, &err) != CULONX_OK) continue;
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                    cx_core_replay_set_full(0);
                    tries++;
                    if (!cx_core_replay_v_sweep(c, vw, fo)) continue;
                    answered++;
                    for (int k = 0; k < 2; k++) {
                        CU_ASSERT_FATAL(cx_core_replay_v_sweep(c, vm, mo));
                        CU_ASSERT(same(mo->makespan_s, fo->makespan_s));
                        for (int st = 0; st < p; st++)
                            CU_ASSERT(same(mo->free_s[st], fo->free_s[st]) &&
                                      same(mo->last_end_s[st], fo->last_end_s[st]) &&
                                      same(mo->last_item_s[st], fo->last_item_s[st]));
                    }
                    /* through the replay (no clock lanes): the sweep where
                     * its gate says it pays, the same bits */
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wr, mo, &err), CULONX_OK);
                    const int gate = cx_core_replay_v_sweep_pays(c, 0);
                    CU_ASSERT_EQUAL(cx_core_replay_ws_formula(wr), gate);
                    if (gate) {
                        wired++;
                        CU_ASSERT(same(mo->makespan_s, fo->makespan_s));
                        for (int st = 0; st < p; st++)
                            CU_ASSERT(same(mo->free_s[st], fo->free_s[st]));
                    }
                    for (int st = 0; st < p; st++)
                        CU_ASSERT(mo->peak_act_bytes[st] == full->peak_act_bytes[st]);
                    const double bad = replay_time_gap(fo, full, p);
                    worst = fmax(worst, bad / full->makespan_s);
                    if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                        printf("\n  megatron-1t %s p %d m %d: off by %.3g of %.6g\n",
                               dual ? "dualpipev" : "zb-v", p, f * p, bad, full->makespan_s);
                }
    printf("\n  megatron-1t sweep: answered %d of %d (%d through the replay), worst %.3g\n",
           answered, tries, wired, worst);
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT(tries >= 40 && answered * 100 >= tries * 95);
    CU_ASSERT(wired >= 8);
    cx_core_replay_ws_free(wf);
    cx_core_replay_ws_free(wr);
    cx_core_v_sweep_ws_free(vw);
    cx_core_v_sweep_ws_free(vm);
    free(c), free(full), free(fo), free(mo);
}

/* A workspace that returns to shapes (the orders of the recent ones kept,
 * core/eval/replay.c) gives the bits of a fresh one each call, clock lanes
 * off and on: megatron-1t ZB-V and DualPipeV, p 4 and 8, m 2p + 1, 6p and
 * 40p (with and without the virtual jump), visited three times with other
 * durations (recompute none, selective, full). */
static void test_recall(void)
{
    culonx_run r;
    culonx_error err;
    load_run(&r, "configs/megatron-1t.xml");
    cx_cost *c = malloc(sizeof *c);
    cx_replay *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CU_ASSERT_FATAL(c && a && b);
    const double mhz[3] = {810, 1110, 1410};
    int checked = 0, bad = 0;
    for (int lanes = 0; lanes < 2; lanes++) {
        cx_replay_ws *ws = cx_core_replay_ws_new();
        CU_ASSERT_FATAL(ws != NULL);
        if (lanes) cx_core_replay_ws_set_clocks(ws, mhz, 3);
        for (int round = 0; round < 3; round++)
            for (int dual = 0; dual < 2; dual++)
                for (int p = 4; p <= 8; p *= 2)
                    for (int mm = 0; mm < 3; mm++) {
                        r.exec.schedule = kind_of(dual);
                        r.exec.recompute = (culonx_recompute)round;
                        r.exec.pp = p;
                        r.exec.global_batch = mm == 0 ? 2 * p + 1 : mm == 1 ? 6 * p : 40 * p;
                        r.exec.gpus = culonx_execution_gpus(&r.exec);
                        if (cx_core_cost_build(&r, mhz[2], c, &err) != CULONX_OK) continue;
                        cx_replay_ws *fresh = cx_core_replay_ws_new();
                        CU_ASSERT_FATAL(fresh != NULL);
                        if (lanes) cx_core_replay_ws_set_clocks(fresh, mhz, 3);
                        CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, ws, a, &err), CULONX_OK);
                        CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, fresh, b, &err), CULONX_OK);
                        cx_core_replay_ws_free(fresh);
                        checked++, bad += !same_replay(a, b, p);
                    }
        /* without lanes every shape after the first round from the kept
         * orders; with lanes a shape whose program is held builds no
         * orders (replay.c, play_lanes), the others are recalled */
        printf("\n  lanes %d: %ld shapes recalled\n", lanes, cx_core_replay_ws_recalled(ws));
        CU_ASSERT(cx_core_replay_ws_recalled(ws) >= (lanes ? 4 : 2 * 2 * 2 * 3));
        cx_core_replay_ws_free(ws);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(checked >= 60);
    free(c), free(a), free(b);
}

/* The run form is not V-specific: GPipe, 1F1B, ZB-H1 and ZB-H2 orders
 * compress too (one run a phase) and the sweep answers them, exactly, for
 * m >= 2p + 3 (megatron-22b, p 2–32, m 3p–19p, random classes and P);
 * interleaved's cycles (p microbatches a chunk) are longer than 8 items:
 * declined, never answered wrong. */
static void test_other_schedules(void)
{
    culonx_run r;
    culonx_error err;
    load_run(&r, "configs/megatron-22b.xml");
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_v_sweep_ws *vw = cx_core_v_sweep_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo);
    CU_ASSERT_FATAL(c && wf && vw && full && fo);
    static const culonx_schedule sch[] = {CULONX_SCHED_GPIPE, CULONX_SCHED_1F1B, CULONX_SCHED_ZB_H1,
                                          CULONX_SCHED_ZB_H2, CULONX_SCHED_INTERLEAVED};
    for (int si = 0; si < 5; si++) {
        int tries = 0, answered = 0, mismatched = 0, within = 0;
        double worst = 0;
        for (int p = 2; p <= 32; p *= 2)
            for (int f = 3; f <= 19; f += 4) {
                r.exec.schedule = sch[si];
                r.exec.vp = sch[si] == CULONX_SCHED_INTERLEAVED ? 2 : 1;
                r.model.layers = 4 * p;
                r.exec.pp = p, r.exec.global_batch = f * p;
                r.exec.gpus = culonx_execution_gpus(&r.exec);
                CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
                const cx_chunk_cost mid = c->cls[c->vs_class[1]];
                for (int trial = 0; trial < 8; trial++) {
                    for (int k = 0; k < c->nclass; k++)
                        draw_class(&c->cls[k], &mid, 0.3, 3.0);
                    c->p2p_s = (trial % 3 == 0 ? 0 : 1) * mid.f_s * uni(0, 0.5);
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                    cx_core_replay_set_full(0);
                    tries++, within += f * p >= 2 * p + 3;
                    if (!cx_core_replay_v_sweep(c, vw, fo)) continue;
                    answered++;
                    const double bad = replay_time_gap(fo, full, p);
                    worst = fmax(worst, bad / full->makespan_s);
                    if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                        printf("\n  schedule %d p %d m %d: off by %.3g\n", (int)sch[si], p, f * p,
                               bad);
                }
            }
        printf("\n  schedule %d: answered %d of %d, worst %.3g", (int)sch[si], answered, tries,
               worst);
        CU_ASSERT_EQUAL(mismatched, 0);
        /* interleaved: none; the others: every m >= 2p + 3 */
        CU_ASSERT_EQUAL(answered, sch[si] == CULONX_SCHED_INTERLEAVED ? 0 : within);
    }
    printf("\n");
    cx_core_replay_ws_free(wf);
    cx_core_v_sweep_ws_free(vw);
    free(c), free(full), free(fo);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_v_sweep", NULL, NULL);
    CU_add_test(s, "zb-v: sweep = full replay on any stage costs", test_zb_v);
    CU_add_test(s, "dualpipev: sweep = full replay on any stage costs", test_dualpipev);
    CU_add_test(s, "zb-v/dualpipev: sweep = full replay on megatron-1t", test_megatron);
    CU_add_test(s, "zb-v/dualpipev: derivatives along a key line bound the results", test_tangents);
    CU_add_test(s, "gpipe, 1f1b, zb-h1/h2: the run form answers them too", test_other_schedules);
    CU_add_test(s, "replay workspace: recalled orders = fresh, bit for bit", test_recall);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
