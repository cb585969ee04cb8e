/*
 * test_replay_jlanes.c — the clock lanes on the virtual jump
 * (core/eval/replay_jlanes.c) against the scalar play of the same program
 * of m' microbatches with the same periods inserted
 * (cx_core_replay_prog_run_ext, core/eval/replay_prog.c), bit for bit:
 * every registered schedule with a steady state, p in {2, 3, 4, 8, 16}, v
 * in {1, 2} (the schedule's own where it fixes it), m' = 3 edge + period
 * (what replay.c plays) with 4, 60 and 1500 periods to insert, 1 to 20
 * lanes per call, each lane's durations drawn at random per virtual stage
 * (first and last virtual stages of their own scale, one stage in four
 * off, zero W on some) and its own p2p time: every lane the lanes answer
 * must be the scalar play's makespan, and per stage last end, last item
 * and free time, as the same doubles, and the scalar play must have
 * answered it too; most lanes must be answered; on every vector width
 * the CPU has (SSE2, AVX2, AVX-512). (The workspace batch, a
 * sweep's clocks through cx_core_replay_ws, is held to single replays in
 * tests/test_replay_lanes.c, on shapes with and without the virtual jump.)
 */
#include "core/eval/replay.h"
#include "core/eval/replay_jlanes.h"
#include "schedules/sched.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_FIXTURE_SEED 0x9E3779B97F4A7C15ull
#include "replay_fixture.h"

#define NL 20

static void jlanes_vs_scalar(void)
{
    cx_play *pl = cx_sched_play_new();
    cx_replay_prog *pr = cx_core_replay_prog_new();
    cx_replay_jlanes *jl = cx_core_replay_jlanes_new();
    cx_replay *out = malloc(NL * sizeof *out);
    cx_replay_vsinfo *vi = malloc((size_t)NL * CX_COST_MAX_VSTAGES * sizeof *vi);
    CU_ASSERT_FATAL(pl && pr && jl && out && vi);
    static const int pps[] = {2, 3, 4, 8, 16}, vps[] = {1, 2};
    static const int64_t extras[] = {4, 60, 1500};
    int cases = 0, lanes = 0, answered = 0, scalar_ok = 0, bad = 0;
    for (int id = 0; id < cx_sched_count(); id++) {
        const cx_sched_desc *sd = cx_sched_get((culonx_schedule)id);
        if (!sd || !sd->steady) continue;
        const int lanes0 = lanes, answered0 = answered, scalar0 = scalar_ok;
        for (int ip = 0; ip < 5; ip++)
            for (int iv = 0; iv < 2; iv++) {
                const int p = pps[ip], v = vps[iv];
                int c, e;
                if (!sd->steady(p, 3 * 4 * p, v, &c, &e) || c < 1) continue;
                const int mr = 3 * e + c;
                if (cx_sched_play_orders(pl, sd, p, mr, v, 0) != CX_SCHED_SIM_OK) continue;
                for (int ie = 0; ie < 3; ie++) {
                    const int64_t extra = extras[ie];
                    const int nvs = pl->nvs, n = 1 + (int)uni(0, NL);
                    const cx_replay_vsinfo *vp[NL];
                    double p2p[NL];
                    const double scale = uni(0.5, 2.0);
                    for (int l = 0; l < n; l++) {
                        /* clocks: one shape, durations scaled per lane */
                        draw_vsinfo(vi + (size_t)l * CX_COST_MAX_VSTAGES, nvs,
                                    scale * uni(0.9, 1.1), 1.0, 2.0, 1.0, 2.5);
                        vp[l] = vi + (size_t)l * CX_COST_MAX_VSTAGES;
                        p2p[l] = l % 5 == 1 ? 0.0 : uni(0, 0.2);
                    }
                    /* the first scalar play compiles the program for the jump */
                    cx_replay_timing tm0 = {vp[0], p2p[0], sd->p2p_overlap};
                    if (cx_core_replay_prog_run_ext(pr, pl, &tm0, extra) != CX_SCHED_SIM_OK &&
                        cx_core_replay_prog_run_ext(pr, pl, &tm0, extra) !=
                            CX_SCHED_SIM_UNSUPPORTED)
                        continue;
                    int done[NL];
                    if (cx_core_replay_jlanes_run(jl, pl, pr, extra, n, vp, p2p, sd->p2p_overlap,
                                                  out, done))
                        continue;
                    cases++;
                    for (int l = 0; l < n; l++) {
                        cx_replay_timing tm = {vp[l], p2p[l], sd->p2p_overlap};
                        const int sok =
                            cx_core_replay_prog_run_ext(pr, pl, &tm, extra) == CX_SCHED_SIM_OK;
                        lanes++, scalar_ok += sok, answered += done[l];
                        if (!done[l]) continue;
                        int ok = sok;
                        double mk = 0;
                        for (int s = 0; s < p && ok; s++) {
                            const double *reg = cx_sched_play_regs(pl, s);
                            if (reg[CX_R_FREE] > mk) mk = reg[CX_R_FREE];
                            ok &= same(reg[CX_R_FREE], out[l].free_s[s]) &&
                                  same(reg[CX_R_LAST_END], out[l].last_end_s[s]) &&
                                  same(reg[CX_R_LAST_ITEM], out[l].last_item_s[s]);
                        }
                        ok &= same(mk, out[l].makespan_s);
                        if (!ok && bad++ < 5)
                            printf("\n  %s p %d v %d m' %d extra %lld lane %d of %d differs "
                                   "(scalar %s)",
                                   sd->name, p, v, mr, (long long)extra, l, n,
                                   sok ? "answered" : "failed");
                    }
                }
            }
        printf("\n  %s: %d lanes, %d answered by the lanes, %d by the scalar play", sd->name,
               lanes - lanes0, answered - answered0, scalar_ok - scalar0);
    }
    printf("\n  %d cases, %d lanes: %d answered by the lanes, %d by the scalar play\n", cases,
           lanes, answered, scalar_ok);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(cases > 60);
    CU_ASSERT(2 * answered > scalar_ok);
    cx_core_replay_jlanes_free(jl);
    cx_core_replay_prog_free(pr);
    cx_sched_play_free(pl);
    free(out);
    free(vi);
}

/* on every vector width the CPU has (the widest last: the default) */
static void test_jlanes_vs_scalar(void)
{
    static const char *const name[] = {"", "SSE2", "AVX2", "AVX-512"};
    for (int isa = 1; isa <= 3; isa++)
        if (cx_core_replay_jlanes_set_isa(isa)) {
            printf("\n  %s:", name[isa]);
            jlanes_vs_scalar();
        }
    CU_ASSERT(cx_core_replay_jlanes_set_isa(0));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_jlanes", NULL, NULL);
    CU_add_test(s, "virtual-jump lanes = scalar play, bit for bit", test_jlanes_vs_scalar);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
