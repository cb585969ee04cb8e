/*
 * test_replay_formula.c — the exact closed forms of the replayed schedules
 * (core/eval/replay_formula.c) against the full replay (core/eval/replay.c
 * with cx_core_replay_set_full: every item played): on a megatron-22b
 * interleaved run (64 layers) over p in {2, 3, 4, 8}, v in {2, 4, 8}, m in
 * {p .. 8p}, 30 draws each, the chunk classes (first, middle, last) and the p2p time are
 * redrawn at random (F, B, W, recompute, TP parts; the first and last
 * classes from 0.3x (or 1x, half the draws) to 2.5x the middle one, P from 0 to 0.5x), and one draw
 * in four makes one middle virtual stage differ (an uneven chunk). Where the
 * formula answers, every per-stage value (makespan, free, last compute end,
 * last item) must equal the full replay's to 1e-12 relative to the makespan;
 * it must answer exactly where its preconditions hold (checked here from
 * their statement) and the workspace path (cx_core_replay_ws) must report it.
 * The activation peaks' closed form (integer bytes of the end classes drawn
 * at random) must give the full replay's scan to the bit.
 */
#include "core/eval/replay.h"
#include "core/eval/replay_formula.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0x9E3779B97F4A7C15ull
#include "replay_fixture.h"

/* the preconditions as replay_formula.c states them */
static int covered(const cx_cost *c)
{
    const int p = c->p, v = c->v, m = c->m, nv = p * v;
    if (p >= 2 && v >= 2 && m == p) return 1; /* any costs (at most 4 classes here) */
    if (p < 2 || v < 2 || m < 2 * p || m % p) return 0;
    double fd[CX_COST_MAX_VSTAGES], gd[CX_COST_MAX_VSTAGES];
    for (int u = 0; u < nv; u++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, u);
        fd[u] = cc->f_s + cc->tp_f_s + (u < nv - 1 ? c->p2p_s : 0);
        gd[u] = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s + cc->w_s + (u > 0 ? c->p2p_s : 0);
    }
    for (int u = 2; u < nv - 1; u++)
        if (fd[u] != fd[1] || gd[u] != gd[1]) return 0;
    /* end chunks at least the middle ones (P added alike to F of 0 and 1) */
    const cx_chunk_cost *c0 = cx_core_cost_chunk(c, 0), *c1 = cx_core_cost_chunk(c, 1),
                        *cl = cx_core_cost_chunk(c, nv - 1);
    if (!(c0->f_s + c0->tp_f_s >= c1->f_s + c1->tp_f_s && gd[0] >= gd[1] - c->p2p_s &&
          cl->f_s + cl->tp_f_s >= c1->f_s + c1->tp_f_s && gd[nv - 1] >= gd[1]))
        return 0;
    double wl = 0;
    for (int k = 0; k < v; k++)
        wl += fd[k * p + p - 1] + gd[k * p + p - 1];
    for (int r = 0; r < p - 1; r++) {
        double w = 0;
        for (int k = 0; k < v; k++)
            w += fd[k * p + r] + gd[k * p + r];
        if (w > wl * (1 + 1e-12)) return 0;
    }
    return 1;
}

static void test_formula_vs_full(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    r.model.layers = 64;
    r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1;
    r.exec.schedule = CULONX_SCHED_INTERLEAVED;
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *ws = cx_core_replay_ws_new(), *wf = cx_core_replay_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo), *wo = malloc(sizeof *wo);
    CU_ASSERT_FATAL(c && ws && wf && full && fo && wo);
    static const int pps[] = {2, 3, 4, 8}, vps[] = {2, 4, 8};
    int answered = 0, declined = 0, mismatched = 0, mem_answered = 0, mem_bad = 0;
    for (int ip = 0; ip < 4; ip++)
        for (int iv = 0; iv < 3; iv++) {
            const int p = pps[ip], v = vps[iv];
            if (64 % (p * v)) continue;
            for (int m = p; m <= 8 * p; m++) {
                r.exec.pp = p, r.exec.vp = v, r.exec.global_batch = m;
                r.exec.gpus = culonx_execution_gpus(&r.exec);
                if (cx_core_cost_build(&r, 0, c, &err) != CULONX_OK) continue;
                CU_ASSERT_EQUAL_FATAL(c->nclass, 3);
                const cx_chunk_cost mid = c->cls[c->vs_class[1]];
                for (int trial = 0; trial < 30; trial++) {
                    /* half the draws with end chunks at least the middle */
                    const double lo = trial % 2 ? 1.0 : 0.3;
                    draw_class(&c->cls[c->vs_class[0]], &mid, lo, 2.5);
                    draw_class(&c->cls[c->vs_class[p * v - 1]], &mid, lo, 2.5);
                    c->p2p_s = mid.f_s * uni(0, 0.5) * (trial % 3 == 0 ? 0 : 1);
                    c->nclass = 3;
                    if (p * v > 3) c->vs_class[2] = c->vs_class[1];
                    if (trial % 4 == 3 && p * v > 3) {
                        /* one middle virtual stage of its own class */
                        c->cls[3] = mid;
                        draw_class(&c->cls[3], &mid, 0.9, 1.1);
                        c->vs_class[2] = 3, c->nclass = 4;
                    }
                    /* integer activation and work bytes of the end classes */
                    c->cls[c->vs_class[0]].act_bytes = floor(mid.act_bytes * uni(0.3, 2.5));
                    c->cls[c->vs_class[0]].work_bytes = floor(mid.work_bytes * uni(0, 2.5));
                    c->cls[c->vs_class[p * v - 1]].act_bytes = floor(mid.act_bytes * uni(0.3, 2.5));
                    c->cls[c->vs_class[p * v - 1]].work_bytes = floor(mid.work_bytes * uni(0, 2.5));
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                    cx_core_replay_set_full(0);
                    /* the memory closed form: the scan's bits, where it answers */
                    double peak[CX_COST_MAX_STAGES];
                    const int mem = cx_core_replay_formula_memory(c, NULL, peak);
                    CU_ASSERT_EQUAL(
                        mem, m == p || (m >= 2 * p && m % p == 0)); /* class 3 keeps the bytes */
                    for (int st = 0; mem && st < p; st++)
                        if (peak[st] != full->peak_act_bytes[st] && mem_bad++ < 5)
                            printf("\n  memory p %d v %d m %d stage %d: %.17g vs %.17g\n", p, v, m,
                                   st, peak[st], full->peak_act_bytes[st]);
                    mem_answered += mem;
                    const int want = covered(c), got = cx_core_replay_formula(c, fo);
                    CU_ASSERT_EQUAL(got, want);
                    if (!got) {
                        declined++;
                        continue;
                    }
                    answered++;
                    const double bad = replay_time_gap(fo, full, p);
                    if (bad > 1e-12 * full->makespan_s) {
                        if (mismatched++ < 5)
                            printf("\n  p %d v %d m %d: off by %.3g of %.6g\n", p, v, m, bad,
                                   full->makespan_s);
                    }
                    /* the workspace path takes it (a changed input: no memo) */
                    CU_ASSERT_EQUAL(cx_core_replay_ws(c, ws, wo, &err), CULONX_OK);
                    CU_ASSERT(cx_core_replay_ws_formula(ws));
                    CU_ASSERT(wo->makespan_s == fo->makespan_s);
                }
            }
        }
    printf("\n  formula answered %d, declined %d; memory answered %d\n", answered, declined,
           mem_answered);
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT_EQUAL(mem_bad, 0);
    CU_ASSERT(mem_answered > 100);
    CU_ASSERT(answered > 100 && declined > 100);
    cx_core_replay_ws_free(ws);
    cx_core_replay_ws_free(wf);
    free(c), free(full), free(fo), free(wo);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_formula", NULL, NULL);
    CU_add_test(s, "interleaved: formula = full replay on random uneven costs",
                test_formula_vs_full);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
