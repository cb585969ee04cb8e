/*
 * test_replay_formula_v.c — the exact activation peaks of ZB-V and
 * DualPipeV (core/eval/replay_formula_v.c) against the scan of their orders
 * (schedules/zb_v.c, dualpipev.c; the scan of cx_core_replay_memory,
 * core/eval/replay.c), to the bit:
 *   - the orders themselves, every p from 1 to 32 and p in {48, 64, 96,
 *     127, 128}, every m from 2p to 40p for p <= 12 (else 2p, 2p + 1,
 *     2p + 2, 3p − 1, 3p, 4p + 1, 7p, 13p + 3, 40p − 1, 40p), three draws
 *     of integer bytes per stage and chunk (saved 0 to 2^30, transient 0
 *     to 2^32, one draw in three with a chunk's saved or transient bytes 0),
 *     and m = 2p − 1 declined (no orders there);
 *   - the replay: megatron-22b runs (tp 8, 4 layers a stage), recompute
 *     none, selective and full, p in {1, 2, 3, 4, 8, 16, 32}, m in {2p,
 *     2p + 1, 3p, 8p}: the closed form, the fast path (cx_core_replay_ws)
 *     and the full replay (cx_core_replay_set_full) give the same peaks.
 */
#include "core/eval/replay.h"
#include "core/eval/replay_formula_v.h"
#include "core/eval/replay_mem.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0xD1B54A32D192ED03ull
#include "replay_fixture.h"

/* one (schedule, p, m): the orders of every stage scanned for three draws
 * of bytes; the number of stages off */
static int check_shape(const cx_sched_desc *sd, int p, int m, cx_sched_item *ord, int cap)
{
    double act[2 * CX_COST_MAX_STAGES], work[2 * CX_COST_MAX_STAGES], peak[CX_COST_MAX_STAGES];
    int bad = 0;
    for (int draw = 0; draw < 3; draw++) {
        for (int i = 0; i < 2 * p; i++) {
            act[i] = floor(uni(0, 1073741824.0)), work[i] = floor(uni(0, 4294967296.0));
            if (draw == 1 && i % 3 == 0) act[i] = 0;
            if (draw == 2 && i % 2 == 1) work[i] = 0;
        }
        CU_ASSERT_FATAL(cx_core_replay_formula_v_peaks(sd, p, m, act, work, peak));
        for (int r = 0; r < p; r++) {
            const int n = sd->order(p, m, 2, r, ord, cap);
            CU_ASSERT_FATAL(n > 0);
            const double want = cx_core_replay_mem_scan(ord, n, act + 2 * r, work + 2 * r);
            if (peak[r] != want && bad++ < 5)
                printf("\n  %s p %d m %d stage %d: %.17g vs scan %.17g\n", sd->name, p, m, r,
                       peak[r], want);
        }
    }
    return bad;
}

static void orders_vs_formula(const cx_sched_desc *sd)
{
    const int cap = 6 * 40 * 128 + 64;
    cx_sched_item *ord = malloc((size_t)cap * sizeof *ord);
    CU_ASSERT_FATAL(ord != NULL);
    static const int big[] = {48, 64, 96, 127, 128};
    int shapes = 0, bad = 0;
    for (int ip = 0; ip < 32 + 5; ip++) {
        const int p = ip < 32 ? ip + 1 : big[ip - 32];
        /* below the least m: no orders, no formula */
        double a[2 * CX_COST_MAX_STAGES] = {0}, w[2 * CX_COST_MAX_STAGES] = {0},
                     pk[CX_COST_MAX_STAGES];
        CU_ASSERT(sd->order(p, 2 * p - 1, 2, 0, ord, cap) < 0);
        CU_ASSERT(!cx_core_replay_formula_v_peaks(sd, p, 2 * p - 1, a, w, pk));
        if (p <= 12) {
            for (int m = 2 * p; m <= 40 * p; m++)
                bad += check_shape(sd, p, m, ord, cap), shapes++;
        } else {
            const int ms[] = {2 * p,     2 * p + 1, 2 * p + 2,  3 * p - 1,  3 * p,
                              4 * p + 1, 7 * p,     13 * p + 3, 40 * p - 1, 40 * p};
            for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
                bad += check_shape(sd, p, ms[i], ord, cap), shapes++;
        }
    }
    /* bytes the scan might round, and other schedules: declined */
    double a[4] = {9007199254740992.0, 1, 1, 1}, w[4] = {0, 0, 0, 0}, pk[2];
    CU_ASSERT(!cx_core_replay_formula_v_peaks(sd, 2, 4, a, w, pk));
    a[0] = 1.5;
    CU_ASSERT(!cx_core_replay_formula_v_peaks(sd, 2, 4, a, w, pk));
    a[0] = 1;
    CU_ASSERT(cx_core_replay_formula_v_peaks(sd, 2, 4, a, w, pk));
    /* -0.0 bytes: the scan's +0.0 */
    for (int i = 0; i < 4; i++)
        a[i] = w[i] = -0.0;
    CU_ASSERT_FATAL(cx_core_replay_formula_v_peaks(sd, 2, 4, a, w, pk));
    CU_ASSERT(pk[0] == 0 && !signbit(pk[0]) && pk[1] == 0 && !signbit(pk[1]));
    CU_ASSERT(!cx_core_replay_formula_v_peaks(&cx_sched_zb_h1, 2, 4, a, w, pk));
    printf("\n  %s: %d shapes, %d stage peaks off\n", sd->name, shapes, bad);
    CU_ASSERT_EQUAL(bad, 0);
    free(ord);
}

static void test_orders_zbv(void)
{
    orders_vs_formula(&cx_sched_zb_v);
}

static void test_orders_dualpipev(void)
{
    orders_vs_formula(&cx_sched_dualpipev);
}

/* the replay's peaks: closed form, fast path and full replay */
static void test_replay_peaks(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    r.exec.tp = 8, r.exec.dp = 1, r.exec.microbatch = 1, r.exec.vp = 1;
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *wf = cx_core_replay_ws_new(), *wq = cx_core_replay_ws_new();
    cx_replay *full = malloc(sizeof *full), *fo = malloc(sizeof *fo);
    CU_ASSERT_FATAL(c && wf && wq && full && fo);
    static const int pps[] = {1, 2, 3, 4, 8, 16, 32};
    static const culonx_recompute rcs[] = {CULONX_RECOMPUTE_NONE, CULONX_RECOMPUTE_SELECTIVE,
                                           CULONX_RECOMPUTE_FULL};
    int tries = 0, answered = 0, bad = 0;
    for (int dual = 0; dual < 2; dual++)
        for (int ip = 0; ip < 7; ip++)
            for (int f = 0; f < 4; f++)
                for (int rc = 0; rc < 3; rc++) {
                    const int p = pps[ip], ms[] = {2 * p, 2 * p + 1, 3 * p, 8 * p};
                    r.exec.schedule = dual ? CULONX_SCHED_DUALPIPE_V : CULONX_SCHED_ZB_V;
                    r.exec.recompute = rcs[rc];
                    r.model.layers = 4 * p;
                    r.exec.pp = p, r.exec.global_batch = ms[f];
                    r.exec.gpus = culonx_execution_gpus(&r.exec);
                    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
                    tries++;
                    cx_core_replay_set_full(1);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wf, full, &err), CULONX_OK);
                    cx_core_replay_set_full(0);
                    CU_ASSERT_EQUAL_FATAL(cx_core_replay_ws(c, wq, fo, &err), CULONX_OK);
                    double peak[CX_COST_MAX_STAGES];
                    const int got = cx_core_replay_formula_v_memory(c, peak);
                    answered += got;
                    for (int s = 0; s < p; s++)
                        if ((fo->peak_act_bytes[s] != full->peak_act_bytes[s] ||
                             (got && peak[s] != full->peak_act_bytes[s])) &&
                            bad++ < 5)
                            printf("\n  %s p %d m %d rc %d stage %d: %.17g, fast %.17g, full "
                                   "%.17g\n",
                                   c->sched->name, p, c->m, rc, s, got ? peak[s] : -1.0,
                                   fo->peak_act_bytes[s], full->peak_act_bytes[s]);
                }
    printf("\n  replay: %d shapes, closed form answered %d, %d peaks off\n", tries, answered, bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(answered, tries);
    cx_core_replay_ws_free(wf);
    cx_core_replay_ws_free(wq);
    free(c), free(full), free(fo);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_formula_v", NULL, NULL);
    CU_add_test(s, "zb-v: closed-form peaks = scan of the orders", test_orders_zbv);
    CU_add_test(s, "dualpipev: closed-form peaks = scan of the orders", test_orders_dualpipev);
    CU_add_test(s, "zb-v/dualpipev: closed form = fast path = full replay", test_replay_peaks);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
