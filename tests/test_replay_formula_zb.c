/*
 * test_replay_formula_zb.c — the exact closed form of the ZB-H1 and ZB-H2
 * replays (core/eval/replay_formula_zb.c; not on the replay's path) against
 * the full replay (core/eval/replay.c with
 * cx_core_replay_set_full: every item played): megatron-22b ZB-H1 and ZB-H2
 * runs of 4 layers a stage over p in
 * {2, 3, 4, 5, 8, 16, 32, 64}, m from p to 17p, 100 draws each, the chunk
 * classes (first, middle, last) and the p2p time redrawn at random (F, B, W,
 * recompute, TP parts; the first and last classes from 0.5x (half the
 * draws: 1x) to 2.5x the middle one; P from 0 to 0.5x the middle F, 0 for a
 * third), and one draw in four makes stage 1 differ from the other middle
 * stages (p >= 4: declined), and one in eight ties stage 0 to the last stage
 * (its W 1e-4 of F + B short of it: the fill is certified later or not at
 * all). Where the formula answers, every per-stage
 * value (makespan, free, last compute end, last item) must equal the full
 * replay's to 1e-12 relative to the makespan; it must answer only where
 * its preconditions hold (checked here from their statement; within them
 * it may decline where the fill is not certified before the drain: counted),
 * and it must answer some draws. The activation peaks' closed form (integer bytes drawn at
 * random) must give the full replay's scan to the bit, for every m (also
 * m = 1, 2, p/2 + 1 and 2p − 2: fewer than h(p − 1) + 1 live at once).
 */
#include "core/eval/replay.h"
#include "core/eval/replay_formula_zb.h"
#include "core/eval/replay_zb_sweep.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0x2545F4914F6CDD1Dull
#include "replay_fixture.h"

/* the preconditions as replay_formula_zb.c states them (durations without
 * P: F = f + tp_f, B = r + tp_r + b + tp_b, W = w) */
static int covered(const cx_cost *c, int h)
{
    const int p = c->p, m = c->m;
    if (p < 2 || m < 2 * h * p - h + 1) return 0;
    double F[CX_COST_MAX_STAGES], B[CX_COST_MAX_STAGES], W[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        F[s] = cc->f_s + cc->tp_f_s, B[s] = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s;
        W[s] = cc->w_s;
    }
    const double P = c->p2p_s, cl = F[p - 1] + B[p - 1] + W[p - 1] + P;
    if (cl < F[0] + B[0] + W[0] + P) return 0;
    if (p == 2) return 1;
    for (int s = 2; s < p - 1; s++)
        if (F[s] != F[1] || B[s] != B[1] || W[s] != W[1]) return 0;
    if (cl < F[1] + B[1] + W[1] + 2 * P) return 0;
    const int e[2] = {0, p - 1};
    for (int i = 0; i < 2; i++)
        if (F[e[i]] < F[1] || B[e[i]] < B[1] || W[e[i]] < W[1]) return 0;
    return 1;
}

/* megatron-22b at tp 8, dp 1, microbatch 1, no interleaving, as ZB-H1 (h
 * 1) or ZB-H2 (h 2): the run both tests vary */
static void load_zb_run(culonx_run *r, int h)
{
    culonx_error err;
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", NULL, 0, NULL, r, &err),
                          CULONX_OK);
    r->exec.tp = 8, r->exec.dp = 1, r->exec.microbatch = 1, r->exec.vp = 1;
    r->exec.schedule = h == 1 ? CULONX_SCHED_ZB_H1 : CULONX_SCHED_ZB_H2;
}

static void formula_vs_full(int h)
{
    const char *sd_name = h == 1 ? "zb-h1" : "zb-h2";
    culonx_run r;
    culonx_error err;
    load_zb_run(&r, h);
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo);
    CU_ASSERT_FATAL(c && wf && full && fo);
    static const int pps[] = {2, 3, 4, 5, 8, 16, 32, 64};
    int answered = 0, declined = 0, uncertified = 0, tight = 0, mismatched = 0, wrong_cover = 0,
        mem_answered = 0, mem_bad = 0;
    double worst = 0;
    for (int ip = 0; ip < 8; ip++) {
        const int p = pps[ip];
        const int lo_m = 2 * h * p - h + 1; /* the formula's least m */
        const int ms[] = {p,     lo_m - 1,   lo_m, lo_m + 1, 3 * p + 1, 5 * p + 3,
                          9 * p, 17 * p - 1, 1,    2,        p / 2 + 1, 2 * p - 2};
        r.model.layers = 4 * p;
        for (int im = 0; im < 12; im++) {
            const int m = ms[im];
            r.exec.pp = p, r.exec.global_batch = m;
            r.exec.gpus = culonx_execution_gpus(&r.exec);
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
            const int mid_k = c->vs_class[p >= 3 ? 1 : 0], nclass = c->nclass;
            const cx_chunk_cost mid = c->cls[mid_k];
            int16_t cls1 = c->vs_class[p >= 3 ? 1 : 0];
            for (int trial = 0; trial < 100; trial++) {
                const double lo = trial % 2 ? 1.0 : 0.5;
                c->nclass = nclass;
                if (p >= 3) c->vs_class[1] = cls1;
                if (p >= 3) c->cls[mid_k] = mid;
                draw_class(&c->cls[c->vs_class[0]], &mid, lo, 2.5);
                draw_class(&c->cls[c->vs_class[p - 1]], &mid, lo, 2.5);
                c->p2p_s = (trial % 3 == 0 ? 0 : 1) * mid.f_s * uni(0, 0.5);
                if (trial % 8 == 5) {
                    /* stage 0 within 1e-4 of the last stage's cycle: its
                     * backlog holds up stage 1 (the fill goes on, or no answer) */
                    cx_chunk_cost *c0 = &c->cls[c->vs_class[0]];
                    const cx_chunk_cost *cl = &c->cls[c->vs_class[p - 1]];
                    const double tail = cl->w_s - 1e-4 * (cl->f_s + cl->b_s);
                    if (p >= 3 && c->vs_class[0] != c->vs_class[p - 1] && tail >= mid.w_s) {
                        *c0 = *cl, c0->w_s = tail, tight++;
                    }
                }
                if (trial % 4 == 3 && p >= 4 && nclass < CX_COST_MAX_CLASSES) {
                    /* stage 1 of its own class */
                    c->cls[nclass] = mid;
                    draw_class(&c->cls[nclass], &mid, 0.9, 1.1);
                    c->vs_class[1] = (int16_t)nclass, c->nclass = nclass + 1;
                }
                for (int k = 0; k < c->nclass; k++) {
                    c->cls[k].act_bytes = floor(mid.act_bytes * uni(0.3, 2.5));
                    c->cls[k].work_bytes = floor(mid.work_bytes * uni(0, 2.5));
                }
                cx_core_replay_set_full(1);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                cx_core_replay_set_full(0);
                double peak[CX_COST_MAX_STAGES];
                const int mem = cx_core_replay_formula_zb_memory(c, peak);
                CU_ASSERT(mem); /* any m (integer bytes) */
                for (int st = 0; mem && st < p; st++)
                    if (peak[st] != full->peak_act_bytes[st] && mem_bad++ < 5)
                        printf("\n  memory p %d m %d stage %d: %.17g vs %.17g\n", p, m, st,
                               peak[st], full->peak_act_bytes[st]);
                mem_answered += mem;
                /* outside the preconditions never; inside them unless the
                 * fill is not certified before the drain (counted) */
                const int want = covered(c, h), got = cx_core_replay_formula_zb(c, fo);
                if (got && !want && wrong_cover++ < 5)
                    printf("\n  %s p %d m %d trial %d: answered outside the preconditions\n",
                           sd_name, p, m, trial);
                uncertified += want && !got;
                if (!got) {
                    declined++;
                    continue;
                }
                answered++;
                const double bad = replay_time_gap(fo, full, p);
                worst = fmax(worst, bad / full->makespan_s);
                if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                    printf("\n  p %d m %d trial %d: off by %.3g of %.6g\n", p, m, trial, bad,
                           full->makespan_s);
            }
        }
    }
    printf("\n  %s: formula answered %d, declined %d (%d within the preconditions, the fill "
           "not certified; %d draws with stage 0 tied to the last), worst %.3g; memory "
           "answered %d\n",
           sd_name, answered, declined, uncertified, tight, worst, mem_answered);
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT_EQUAL(wrong_cover, 0);
    CU_ASSERT_EQUAL(mem_bad, 0);
    CU_ASSERT(mem_answered > 100);
    CU_ASSERT(answered > 100 && declined > 100);
    cx_core_replay_ws_free(wf);
    free(c), free(full), free(fo);
}

static void test_zb_h1(void)
{
    formula_vs_full(1);
}

static void test_zb_h2(void)
{
    formula_vs_full(2);
}

/* The sweep (core/eval/replay_zb_sweep.c) against the full replay on any
 * per-stage costs: megatron-22b runs as above, p in {2, 3, 4, 5, 7, 8, 16,
 * 32, 64, 128}, m from its least (h(p + 1) + 1) to 40p, every stage of its
 * own class (up to the class limit; else first / middle / last / stage 1)
 * with durations from 0.3x to 3x the middle, P from 0 to 0.5 F (0 for a
 * third), one draw in four the last stage the bottleneck, one in eight
 * stage 0 within 1e-4 of it, one in sixteen each: W 0, P three times F,
 * every stage the middle one (ties). Where it answers every per-stage value must
 * equal the full replay's to 1e-12 of the makespan; it must answer 99% of
 * the draws (all of them today). */
static void sweep_vs_full(int h)
{
    const char *sd_name = h == 1 ? "zb-h1" : "zb-h2";
    culonx_run r;
    culonx_error err;
    load_zb_run(&r, h);
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_zb_sweep_ws *zw = cx_core_zb_sweep_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo);
    CU_ASSERT_FATAL(c && wf && zw && full && fo);
    static const int pps[] = {2, 3, 4, 5, 7, 8, 16, 32, 64, 128};
    int answered = 0, declined = 0, mismatched = 0, tries = 0, max_sw = 0, max_seg = 0;
    long b_fin = 0, b_rebuilt = 0;
    double evals = 0;
    double worst = 0;
    for (int ip = 0; ip < 10; ip++) {
        const int p = pps[ip];
        const int lo_m = h * (p + 1) + 1;
        const int ms[] = {lo_m,      lo_m + 1, 2 * p + 3,  3 * p + 1,
                          5 * p + 3, 9 * p,    17 * p - 1, 40 * p};
        r.model.layers = 4 * p;
        const int ntrial = p >= 64 ? 12 : 40;
        for (int im = 0; im < 8; im++) {
            const int m = ms[im];
            if (m < lo_m) continue;
            r.exec.pp = p, r.exec.global_batch = m;
            r.exec.gpus = culonx_execution_gpus(&r.exec);
            CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
            const cx_chunk_cost mid = c->cls[c->vs_class[p >= 3 ? 1 : 0]];
            for (int trial = 0; trial < ntrial; trial++) {
                /* classes: one a stage where they fit */
                const int own = p <= CX_COST_MAX_CLASSES;
                const int nc = own ? p : 4;
                for (int k = 0; k < nc; k++) {
                    c->cls[k] = mid;
                    draw_class(&c->cls[k], &mid, 0.3, 3.0);
                }
                for (int s = 0; s < p; s++)
                    c->vs_class[s] = (int16_t)(own                ? s
                                               : s == 0           ? 0
                                               : s == p - 1       ? 3
                                               : s == 1 && p >= 4 ? 2
                                                                  : 1);
                c->nclass = nc;
                cx_chunk_cost *cl = &c->cls[c->vs_class[p - 1]];
                if (trial % 4 == 1) {
                    /* the last stage the bottleneck */
                    cl->f_s *= 2.5, cl->b_s *= 2.5, cl->w_s *= 2.5;
                }
                c->p2p_s = (trial % 3 == 0 ? 0 : 1) * mid.f_s * uni(0, 0.5);
                if (trial % 16 == 7)
                    for (int k = 0; k < nc; k++)
                        c->cls[k].w_s = 0;                   /* no W time */
                if (trial % 16 == 9) c->p2p_s = 3 * mid.f_s; /* sends dominate */
                if (trial % 16 == 11)
                    for (int k = 0; k < nc; k++)
                        c->cls[k] = mid; /* all stages equal: ties everywhere */
                if (trial % 8 == 5 && c->vs_class[0] != c->vs_class[p - 1]) {
                    cx_chunk_cost *c0 = &c->cls[c->vs_class[0]];
                    *c0 = *cl, c0->w_s = cl->w_s - 1e-4 * (cl->f_s + cl->b_s);
                }
                cx_core_replay_set_full(1);
                CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                cx_core_replay_set_full(0);
                tries++;
                if (!cx_core_replay_zb_sweep(c, zw, fo)) {
                    declined++;
                    continue;
                }
                int ev, sw, sg, bf, br;
                cx_core_zb_sweep_stats(zw, &ev, &sw, &sg);
                cx_core_zb_sweep_b_stats(zw, &bf, &br);
                b_fin += bf, b_rebuilt += br;
                evals += (double)ev / p, max_sw = sw > max_sw ? sw : max_sw,
                                         max_seg = sg > max_seg ? sg : max_seg;
                answered++;
                const double bad = replay_time_gap(fo, full, p);
                worst = fmax(worst, bad / full->makespan_s);
                if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                    printf("\n  sweep %s p %d m %d trial %d: off by %.3g of %.6g\n", sd_name, p, m,
                           trial, bad, full->makespan_s);
            }
        }
    }
    printf("\n  %s sweep: answered %d of %d (declined %d), worst %.3g, stage evaluations "
           "%.1f a stage, most sweeps %d, most segments %d; b alongside y: %ld pieces on Fin, "
           "%ld rebuilt\n",
           sd_name, answered, tries, declined, worst, answered ? (double)evals / answered : 0.0,
           max_sw, max_seg, b_fin, b_rebuilt);
    CU_ASSERT_EQUAL(mismatched, 0);
    /* both of b's ways are held to the replay here (the rebuild from y
     * by ZB-H1's draws: ZB-H2 rebuilds only where b overflows, the same
     * stage_b) */
    CU_ASSERT(b_fin > 0);
    if (h == 1) CU_ASSERT(b_rebuilt > 0);
    CU_ASSERT(answered * 100 >= tries * 99);
    cx_core_replay_ws_free(wf);
    cx_core_zb_sweep_ws_free(zw);
    free(c), free(full), free(fo);
}

static void test_sweep_h1(void)
{
    sweep_vs_full(1);
}

static void test_sweep_h2(void)
{
    sweep_vs_full(2);
}

/* The sweep on megatron-1t (configs/megatron-1t.xml; tp 8, microbatch 1)
 * as the closed form builds it, ZB-H1 and ZB-H2, p in {8, 16, 32, 64, 128},
 * m in {3p, 6p, 12p, 24p}, with and without full recompute: every answer
 * to 1e-12 of the full replay's makespan, and 99% of the shapes answered; the
 * memo (cx_core_replay_zb_times, one workspace for all shapes) gives the
 * sweep's bits on a first and a repeated call. */
static void test_sweep_megatron(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.vp = 1;
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new();
    cx_zb_sweep_ws *zw = cx_core_zb_sweep_ws_new(), *zm = cx_core_zb_sweep_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo), *mo = malloc(sizeof *mo);
    CU_ASSERT_FATAL(c && wf && zw && zm && full && fo && mo);
    int tries = 0, answered = 0, mismatched = 0;
    double worst = 0;
    for (int h = 1; h <= 2; h++)
        for (int p = 8; p <= 128; p *= 2)
            for (int f = 3; f <= 24; f *= 2)
                for (int rc = 0; rc < 2; rc++) {
                    r.exec.schedule = h == 1 ? CULONX_SCHED_ZB_H1 : CULONX_SCHED_ZB_H2;
                    r.exec.recompute = rc ? CULONX_RECOMPUTE_FULL : CULONX_RECOMPUTE_NONE;
                    r.exec.pp = p, r.exec.global_batch = f * p;
                    r.exec.gpus = culonx_execution_gpus(&r.exec);
                    if (cx_core_cost_build(&r, 0, c, &err) != CULONX_OK) continue;
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                    cx_core_replay_set_full(0);
                    tries++;
                    if (!cx_core_replay_zb_sweep(c, zw, fo)) continue;
                    answered++;
                    /* the memo's answer (first and repeated call): the same bits */
                    for (int k = 0; k < 2; k++) {
                        CU_ASSERT_FATAL(cx_core_replay_zb_times(c, zm, mo));
                        CU_ASSERT(mo->makespan_s == fo->makespan_s);
                        for (int st = 0; st < p; st++)
                            CU_ASSERT(mo->free_s[st] == fo->free_s[st] &&
                                      mo->last_end_s[st] == fo->last_end_s[st] &&
                                      mo->last_item_s[st] == fo->last_item_s[st]);
                    }
                    const double bad = replay_time_gap(fo, full, p);
                    worst = fmax(worst, bad / full->makespan_s);
                    if (bad > 1e-12 * full->makespan_s && mismatched++ < 5)
                        printf("\n  megatron-1t h %d p %d m %d: off by %.3g of %.6g\n", h, p, f * p,
                               bad, full->makespan_s);
                }
    printf("\n  megatron-1t sweep: answered %d of %d, worst %.3g\n", answered, tries, worst);
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT(tries >= 60 && answered * 100 >= tries * 99);
    cx_core_replay_ws_free(wf);
    cx_core_zb_sweep_ws_free(zw);
    cx_core_zb_sweep_ws_free(zm);
    free(c), free(full), free(fo), free(mo);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_formula_zb", NULL, NULL);
    CU_add_test(s, "zb-h1: formula = full replay on random uneven costs", test_zb_h1);
    CU_add_test(s, "zb-h2: formula = full replay on random uneven costs", test_zb_h2);
    CU_add_test(s, "zb-h1: sweep = full replay on any stage costs", test_sweep_h1);
    CU_add_test(s, "zb-h2: sweep = full replay on any stage costs", test_sweep_h2);
    CU_add_test(s, "zb-h1/h2: sweep = full replay on megatron-1t", test_sweep_megatron);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
