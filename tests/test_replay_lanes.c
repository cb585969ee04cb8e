/*
 * test_replay_lanes.c — the clock lanes (core/eval/replay_lanes.c) against
 * the scalar plain play of the same compiled program
 * (cx_core_replay_prog_run_plain, core/eval/replay_prog.c), bit for bit:
 * every registered schedule with a steady state, p in {2, 3, 4, 8, 16}, v
 * in {1, 2, 4} (the schedule's own where it fixes it), m from p to 13 p,
 * 1 to 40 lanes per call (passes of 24, 16, 8 and 4 lanes, partial ones), each lane's durations
 * drawn at random per virtual stage (F, B, BW, W and the DP windows; first and last virtual stages
 * of their own scale, one stage in four off, zero W on some) and its own p2p time (zero on some
 * lanes): makespan, and per stage last end, last item and free time must be the same doubles, on
 * every vector width the CPU has (SSE2, AVX2, AVX-512); the plain play of the program compiled
 * renamed (what plain plays and lanes run) must also give the bits of the one in cell slots (the
 * jump's form, jump off), every lane. All of it with the renamed programs in the 12-byte form, the
 * 16-byte form folded where it pays (replay_compile.c: W-like items folded into their stage's next
 * instruction) and folded wherever an item folds; folds, chains (a W-like instruction carrying one)
 * and stages ending on W-like items must occur. (The batch through the workspace, with the clocks
 * set: tests/test_replay_clocks.c.) Last, the compile's period skip (replay_compile.c): the
 * programs with and without it, renamed (16-byte, folded or not) and in cell slots, byte for byte,
 * the 16-byte ones also the reference conversion and fold of the 12-byte program; the program cache
 * likewise; and the fills and drains kept for later shapes (replay_fill.c): one program object
 * compiling shapes of many m in several orders gives each time a fresh object's program.
 */
#include "core/eval/replay.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_prog_int.h" /* cx_core_replay_prog_fold, the reference fold */
#include "schedules/sched.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPLAY_FIXTURE_SEED 0x2545F4914F6CDD1Dull
#include "replay_fixture.h"

#define NL 40

/* fold stats summed over lanes_vs_plain's cases: items folded, W-like
 * carriers (chains), moved to the end, cases folded */
static size_t fold_sum[4];

static void lanes_vs_plain(void)
{
    cx_play *pl = cx_sched_play_new();
    cx_replay_prog *pr = cx_core_replay_prog_new();
    /* the same orders compiled in cell slots (a run that may jump, jump
     * off: the plain play of the unrenamed program) */
    cx_replay_prog *pc = cx_core_replay_prog_new();
    cx_replay_lanes *ln = cx_core_replay_lanes_new();
    cx_replay *out = malloc(NL * sizeof *out);
    double cell[3 * CX_COST_MAX_STAGES];
    cx_replay_vsinfo *vi = malloc((size_t)NL * CX_COST_MAX_VSTAGES * sizeof *vi);
    CU_ASSERT_FATAL(pl && pr && ln && out && vi);
    static const int pps[] = {2, 3, 4, 8, 16}, vps[] = {1, 2, 4};
    int cases = 0, lanes = 0, bad = 0;
    double t_plain = 0, t_lanes = 0;
    for (int id = 0; id < cx_sched_count(); id++) {
        const cx_sched_desc *sd = cx_sched_get((culonx_schedule)id);
        if (!sd || !sd->steady) continue;
        for (int ip = 0; ip < 5; ip++)
            for (int iv = 0; iv < 3; iv++) {
                const int p = pps[ip], v = vps[iv];
                for (int mi = 0; mi < 3; mi++) {
                    const int m = mi == 0 ? p : mi == 1 ? 4 * p + 1 : 13 * p;
                    if (cx_sched_play_orders(pl, sd, p, m, v, 0) != CX_SCHED_SIM_OK) continue;
                    const int nvs = pl->nvs, n = 1 + (int)uni(0, NL);
                    /* both p2p rules (the lanes' send differs without overlap) */
                    const int ov = mi == 1 ? !sd->p2p_overlap : sd->p2p_overlap;
                    const cx_replay_vsinfo *vp[NL];
                    double p2p[NL];
                    for (int l = 0; l < n; l++) {
                        draw_vsinfo(vi + (size_t)l * CX_COST_MAX_VSTAGES, nvs, uni(0.5, 2.0), 0.5,
                                    2.5, 0.5, 2.5);
                        vp[l] = vi + (size_t)l * CX_COST_MAX_VSTAGES;
                        p2p[l] = l % 3 == 1 ? 0.0 : uni(0, 0.4);
                    }
                    /* the scalar plays (the first compiles the program) */
                    cx_replay_timing tm0 = {vp[0], p2p[0], ov};
                    CU_ASSERT_FATAL(cx_core_replay_prog_run_plain(pr, pl, &tm0) == CX_SCHED_SIM_OK);
                    clock_t c0 = clock();
                    CU_ASSERT_FATAL(cx_core_replay_lanes_run(ln, pl, pr, n, vp, p2p, ov, out) == 0);
                    t_lanes += (double)(clock() - c0);
                    cases++;
                    size_t st[3];
                    if (cx_core_replay_lanes_fold_stats(ln, st))
                        for (int k = 0; k < 3; k++)
                            fold_sum[k] += st[k];
                    fold_sum[3] += cx_core_replay_lanes_fold_stats(ln, st);
                    for (int l = 0; l < n; l++) {
                        cx_replay_timing tm = {vp[l], p2p[l], ov};
                        c0 = clock();
                        CU_ASSERT_FATAL(cx_core_replay_prog_run_plain(pr, pl, &tm) ==
                                        CX_SCHED_SIM_OK);
                        t_plain += (double)(clock() - c0);
                        double mk = 0;
                        int ok = 1;
                        {
                            for (int s = 0; s < p; s++) {
                                const double *reg = cx_sched_play_regs(pl, s);
                                cell[3 * s] = reg[CX_R_FREE], cell[3 * s + 1] = reg[CX_R_LAST_END],
                                         cell[3 * s + 2] = reg[CX_R_LAST_ITEM];
                            }
                            cx_core_replay_prog_set_jump(0);
                            CU_ASSERT_FATAL(cx_core_replay_prog_run(pc, pl, &tm) ==
                                            CX_SCHED_SIM_OK);
                            cx_core_replay_prog_set_jump(1);
                            for (int s = 0; s < p; s++) {
                                const double *reg = cx_sched_play_regs(pl, s);
                                ok &= same(reg[CX_R_FREE], cell[3 * s]) &&
                                      same(reg[CX_R_LAST_END], cell[3 * s + 1]) &&
                                      same(reg[CX_R_LAST_ITEM], cell[3 * s + 2]);
                            }
                        }
                        for (int s = 0; s < p; s++) {
                            const double *reg = cx_sched_play_regs(pl, s);
                            if (reg[CX_R_FREE] > mk) mk = reg[CX_R_FREE];
                            ok &= same(reg[CX_R_FREE], out[l].free_s[s]) &&
                                  same(reg[CX_R_LAST_END], out[l].last_end_s[s]) &&
                                  same(reg[CX_R_LAST_ITEM], out[l].last_item_s[s]);
                        }
                        ok &= same(mk, out[l].makespan_s);
                        lanes++;
                        if (!ok && bad++ < 5)
                            printf("\n  %s p %d v %d m %d lane %d of %d differs", sd->name, p, v, m,
                                   l, n);
                    }
                }
            }
    }
    printf("\n  %d cases, %d lanes; CPU per lane: plain %.3g s, lanes %.3g s\n", cases, lanes,
           t_plain / CLOCKS_PER_SEC / lanes, t_lanes / CLOCKS_PER_SEC / lanes);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(cases > 100);
    cx_core_replay_lanes_free(ln);
    cx_core_replay_prog_free(pr);
    cx_core_replay_prog_free(pc);
    cx_sched_play_free(pl);
    free(out);
    free(vi);
}

/* on every vector width the CPU has (the widest last: the default) */
static void test_lanes_vs_plain(void)
{
    static const char *const name[] = {"", "SSE2", "AVX2", "AVX-512"},
                             *const fname[] = {"12-byte form", "folded where it pays",
                                               "folded wherever an item folds"};
    for (int mode = 0; mode < 3; mode++) {
        cx_core_replay_prog_set_fold(mode);
        memset(fold_sum, 0, sizeof fold_sum);
        for (int isa = 1; isa <= 3; isa++)
            if (cx_core_replay_lanes_set_isa(isa)) {
                printf("\n  %s, %s:", name[isa], fname[mode]);
                lanes_vs_plain();
            }
        printf("  folded: %zu cases, %zu items, %zu W-like carriers, %zu moved to the end\n",
               fold_sum[3], fold_sum[0], fold_sum[1], fold_sum[2]);
        /* unfolded, none; else folds, chains (a W-like item carrying one)
         * and stages ending on W-like items among the cases */
        if (mode == 0) CU_ASSERT_EQUAL(fold_sum[3], 0);
        if (mode > 0) CU_ASSERT(fold_sum[3] > 10 && fold_sum[0] > 0 && fold_sum[2] > 0);
        if (mode == 2) CU_ASSERT(fold_sum[1] > 0);
    }
    cx_core_replay_prog_set_fold(1);
    CU_ASSERT(cx_core_replay_lanes_set_isa(0));
}

/* 1 when two programs are the same, byte for byte (the folded form where
 * folded) */
static int same_code(const cx_replay_code *a, const cx_replay_code *b, int p)
{
    if (a->renamed != b->renamed || a->n != b->n || a->nslot != b->nslot ||
        (a->fins == NULL) != (b->fins == NULL) || a->fold_w != b->fold_w ||
        memcmp(a->last_di, b->last_di, (size_t)p * sizeof *a->last_di))
        return 0;
    if (a->fins) {
        /* written out whole (a periodic region may be stored once) */
        size_t off[4], len[4], rep[4];
        const size_t na = cx_replay_code_ranges(a, off, len, rep),
                     nb = cx_replay_code_ranges(b, off, len, rep);
        cx_replay_fins *xa = malloc((na + 1) * sizeof *xa), *xb = malloc((nb + 1) * sizeof *xb);
        const int same = xa && xb && na == nb && cx_core_replay_code_fins(a, xa) == na &&
                         cx_core_replay_code_fins(b, xb) == nb && !memcmp(xa, xb, na * sizeof *xa);
        free(xa), free(xb);
        return same;
    }
    return !memcmp(a->ins, b->ins, a->n * sizeof *a->ins);
}

/* The compile's period skip (replay_compile.c) gives the program compiled
 * without it, byte for byte, renamed and in cell slots: every schedule with
 * a steady state, p 2-128, v 1, 2, 4, m from p to 30 p (the skip must copy
 * on some). Renamed, folded where it pays and wherever an item folds: the
 * folded form compiled (with and without the skip) is the reference fold
 * (cx_core_replay_prog_fold) of the program compiled unfolded, byte for
 * byte. */
static void test_skip_same_program(void)
{
    for (int mode = 1; mode <= 2; mode++) {
        cx_core_replay_prog_set_fold(mode);
        cx_play *pl = cx_sched_play_new();
        cx_replay_prog *a = cx_core_replay_prog_new(), *b = cx_core_replay_prog_new(),
                       *u = cx_core_replay_prog_new();
        cx_replay_vsinfo *vi = calloc(CX_COST_MAX_VSTAGES, sizeof *vi);
        cx_replay_fins *ref = NULL;
        size_t ref_cap = 0;
        CU_ASSERT_FATAL(pl && a && b && u && vi);
        static const int pps[] = {2, 3, 4, 8, 16, 32, 64, 128}, vps[] = {1, 2, 4};
        int cases = 0, cells = 0, bad = 0, folded = 0, periodic = 0;
        size_t skipped = 0, total = 0;
        for (int id = 0; id < cx_sched_count(); id++) {
            const cx_sched_desc *sd = cx_sched_get((culonx_schedule)id);
            if (!sd || !sd->steady) continue;
            for (int ip = 0; ip < 8; ip++)
                for (int iv = 0; iv < 3; iv++)
                    for (int mi = 0; mi < 6; mi++) {
                        const int p = pps[ip], v = vps[iv];
                        static const int mf[] = {1, 2, 4, 7, 13, 30};
                        const int m = mf[mi] * p + (mi == 1 || mi == 3 ? 1 : 0);
                        if ((size_t)p * (size_t)m > 128 * 1536) continue;
                        if (cx_sched_play_orders(pl, sd, p, m, v, 0) != CX_SCHED_SIM_OK) continue;
                        cx_replay_timing tm = {vi, 0.0, sd->p2p_overlap};
                        cx_core_replay_prog_set_skip(0);
                        const cx_sched_sim_status sb = cx_core_replay_prog_compile(b, pl, &tm);
                        cx_core_replay_prog_set_skip(1);
                        const cx_sched_sim_status sa = cx_core_replay_prog_compile(a, pl, &tm);
                        CU_ASSERT_EQUAL(sa, sb);
                        cx_replay_code ca, cb;
                        if (sa != CX_SCHED_SIM_OK || !cx_core_replay_prog_code(a, pl, &ca) ||
                            !cx_core_replay_prog_code(b, pl, &cb) || !ca.renamed)
                            continue;
                        cases++;
                        skipped += cx_core_replay_prog_skipped(a), total += ca.n;
                        CU_ASSERT_EQUAL(cx_core_replay_prog_skipped(b), 0);
                        if (!same_code(&ca, &cb, p)) {
                            if (bad++ < 5)
                                printf("\n  %s p %d v %d m %d differs", sd->name, p, v, m);
                        }
                        if (ca.fins) {
                            /* the reference fold of the unfolded program */
                            cx_core_replay_prog_set_fold(0);
                            cx_replay_code cu;
                            CU_ASSERT_FATAL(cx_core_replay_prog_compile(u, pl, &tm) ==
                                                CX_SCHED_SIM_OK &&
                                            cx_core_replay_prog_code(u, pl, &cu) && !cu.fins);
                            cx_core_replay_prog_set_fold(mode);
                            if (ref_cap < cu.n) {
                                free(ref);
                                ref = malloc(cu.n * sizeof *ref), ref_cap = cu.n;
                                CU_ASSERT_FATAL(ref != NULL);
                            }
                            const size_t fn =
                                cx_core_replay_prog_fold(cu.ins, cu.n, p, ca.fold_w, ref);
                            folded += ca.fold_w;
                            size_t off[4], len[4], rep[4];
                            const size_t fa = cx_replay_code_ranges(&ca, off, len, rep);
                            cx_replay_fins *xa = malloc((fa + 1) * sizeof *xa);
                            CU_ASSERT_FATAL(xa != NULL);
                            cx_core_replay_code_fins(&ca, xa);
                            periodic += ca.freps + ca.fpart > 0;
                            const int differs = fn != fa || memcmp(ref, xa, fn * sizeof *ref);
                            free(xa);
                            if (differs) {
                                if (bad++ < 5)
                                    printf("\n  %s p %d v %d m %d: not the reference fold",
                                           sd->name, p, v, m);
                            }
                        }
                        /* the cell-slot form (a run that may jump compiles it) */
                        cx_core_replay_prog_set_skip(0);
                        const cx_sched_sim_status tb = cx_core_replay_prog_run(b, pl, &tm);
                        cx_core_replay_prog_set_skip(1);
                        const cx_sched_sim_status ta = cx_core_replay_prog_run(a, pl, &tm);
                        CU_ASSERT_EQUAL(ta, tb);
                        if (ta != CX_SCHED_SIM_OK || !cx_core_replay_prog_code(a, pl, &ca) ||
                            !cx_core_replay_prog_code(b, pl, &cb) || ca.renamed || cb.renamed)
                            continue;
                        cells++;
                        if (!same_code(&ca, &cb, p)) {
                            if (bad++ < 5)
                                printf("\n  %s p %d v %d m %d differs (cell slots)", sd->name, p, v,
                                       m);
                        }
                    }
        }
        printf(
            "\n  fold mode %d: %d programs renamed (%.1f%% of %zu instructions copied by the skip, "
            "%d folded, %d with a periodic region stored once), %d in cell slots\n",
            mode, cases, 100.0 * (double)skipped / (double)(total ? total : 1), total, folded,
            periodic, cells);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(cases > 100 && cells > 100 && folded > 50 && periodic > 50);
        CU_ASSERT(skipped > total / 4);
        cx_core_replay_prog_free(a);
        cx_core_replay_prog_free(b);
        cx_core_replay_prog_free(u);
        cx_sched_play_free(pl);
        free(vi);
        free(ref);
    }
    cx_core_replay_prog_set_fold(1);
}

/* The program cache (replay_prog.c, held_put / held_take): one program
 * object compiling shapes in turn (ZB-H1, ZB-H2 and interleaved v 2, p
 * 4-128, m p to 3 p; renamed, for lanes and plain plays; every fourth also
 * in cell slots, for a run that may jump, in its place) gives each time
 * the program a fresh object compiles, byte for byte, taking most back
 * from the cache; in the fourth round, shapes of 230k-845k instructions
 * among them (over the budget: some dropped, the largest not held, a
 * small one compiled into the largest's buffer held shrunk), the fifth the
 * small ones again. */
static void test_held_same_program(void)
{
    cx_play *pl = cx_sched_play_new();
    cx_replay_prog *a = cx_core_replay_prog_new(), *b = NULL;
    cx_replay_vsinfo *vi = calloc(CX_COST_MAX_VSTAGES, sizeof *vi);
    CU_ASSERT_FATAL(pl && a && vi);
    static const culonx_schedule ids[] = {CULONX_SCHED_ZB_H1, CULONX_SCHED_ZB_H2,
                                          CULONX_SCHED_INTERLEAVED};
    static const int shapes[][2] = {{4, 4},   {4, 12},    {16, 24},   {16, 48},    {32, 40},
                                    {32, 96}, {64, 100},  {64, 192},  {128, 130},  {8, 30},
                                    {8, 31},  {128, 600}, {128, 590}, {128, 1100}, {8, 33}};
    /* the three large ones in round 3 only, the last from round 3 on */
    const int nsh = (int)(sizeof shapes / sizeof *shapes), nsmall = nsh - 4;
    int cases = 0, bad = 0, nready = 0;
    for (int round = 0; round < 5; round++)
        for (int k = 0; k < 3 * nsh; k++) {
            if ((k / 3 >= nsmall && k / 3 < nsh - 1 && round != 3) ||
                (k / 3 == nsh - 1 && round < 3))
                continue;
            const cx_sched_desc *sd = cx_sched_get(ids[k % 3]);
            const int p = shapes[k / 3][0], m = shapes[k / 3][1];
            const int v = ids[k % 3] == CULONX_SCHED_INTERLEAVED ? 2 : 1;
            CU_ASSERT_FATAL(sd != NULL);
            if (cx_sched_play_orders(pl, sd, p, m, v, 0) != CX_SCHED_SIM_OK) continue;
            cx_replay_timing tm = {vi, 0.0, sd->p2p_overlap};
            b = cx_core_replay_prog_new();
            CU_ASSERT_FATAL(b != NULL);
            /* held or cached: compiled from a header holding the shape
             * alone (no items: cx_core_replay_ws's lanes on a shape
             * come back to) */
            cx_play hdr = {0};
            hdr.sd = sd, hdr.p = p, hdr.m = m, hdr.v = hdr.nch = v, hdr.nvs = p * v;
            hdr.have_order = 1;
            const int ready = cx_core_replay_prog_ready(a, &hdr);
            nready += ready;
            if (round == 0) CU_ASSERT_EQUAL(ready, 0); /* never compiled before */
            const cx_sched_sim_status sa = cx_core_replay_prog_compile(a, ready ? &hdr : pl, &tm),
                                      sb = cx_core_replay_prog_compile(b, pl, &tm);
            CU_ASSERT_EQUAL(sa, sb);
            cx_replay_code ca, cb;
            if (sa == CX_SCHED_SIM_OK && cx_core_replay_prog_code(a, pl, &ca) &&
                cx_core_replay_prog_code(b, pl, &cb)) {
                cases++;
                if (!same_code(&ca, &cb, p)) {
                    if (bad++ < 5) printf("\n  %s p %d m %d differs", sd->name, p, m);
                }
            }
            cx_core_replay_prog_free(b);
            /* a run that may jump compiles the cell-slot form in its place */
            if (k % 4 == 0) CU_ASSERT_EQUAL(cx_core_replay_prog_run(a, pl, &tm), CX_SCHED_SIM_OK);
        }
    const size_t taken = cx_core_replay_prog_taken(a);
    printf("\n  %d programs, %zu taken from the cache, %d from a header\n", cases, taken, nready);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(nready > cases / 2 && (size_t)nready <= taken);
    CU_ASSERT(cases >= 3 * (5 * nsmall + 5) - 6);
    CU_ASSERT(taken > (size_t)cases / 2 && taken < (size_t)cases);
    cx_core_replay_prog_free(a);
    cx_sched_play_free(pl);
    free(vi);
}

/* The fills and drains kept for later shapes (replay_fill.c): one program
 * object compiling the renamed programs of ZB-V, DualPipeV, ZB-H1, ZB-H2,
 * interleaved (v 2) and 1F1B, p 4-32, m from p to 24 p (some not multiples
 * of p), the m ascending, descending and shuffled (a run that may jump
 * compiling the cell-slot form in between now and then), in the 12-byte
 * form, folded where it pays and wherever an item folds, gives each time
 * the program of a fresh object, byte for byte; most compiles of ZB-V and
 * DualPipeV restore a fill and copy a drain. */
static void test_fill_same_program(void)
{
    static const culonx_schedule ids[] = {CULONX_SCHED_ZB_V,        CULONX_SCHED_DUALPIPE_V,
                                          CULONX_SCHED_ZB_H1,       CULONX_SCHED_ZB_H2,
                                          CULONX_SCHED_INTERLEAVED, CULONX_SCHED_1F1B};
    static const int pps[] = {4, 8, 16, 32};
    /* m as a multiple of p, in eighths: three orders of the same set */
    static const int mf8[3][12] = {{8, 12, 16, 17, 24, 32, 40, 47, 64, 96, 128, 192},
                                   {192, 128, 96, 64, 47, 40, 32, 24, 17, 16, 12, 8},
                                   {40, 128, 16, 96, 8, 47, 192, 24, 64, 12, 32, 17}};
    cx_play *pl = cx_sched_play_new();
    cx_replay_vsinfo *vi = calloc(CX_COST_MAX_VSTAGES, sizeof *vi);
    CU_ASSERT_FATAL(pl && vi);
    int cases = 0, bad = 0;
    size_t fills = 0, drains = 0, zbv = 0, zbv_drains = 0, taken = 0;
    for (int mode = 0; mode <= 2; mode++)
        for (int ord = 0; ord < 3; ord++) {
            cx_core_replay_prog_set_fold(mode);
            cx_replay_prog *a = cx_core_replay_prog_new();
            CU_ASSERT_FATAL(a != NULL);
            for (int id = 0; id < (int)(sizeof ids / sizeof *ids); id++)
                for (int ip = 0; ip < 4; ip++)
                    for (int mi = 0; mi < 12; mi++) {
                        const cx_sched_desc *sd = cx_sched_get(ids[id]);
                        CU_ASSERT_FATAL(sd != NULL);
                        const int p = pps[ip], m = mf8[ord][mi] * p / 8 + (mi % 5 == 3);
                        const int v = ids[id] == CULONX_SCHED_INTERLEAVED ? 2 : 1;
                        if (cx_sched_play_orders(pl, sd, p, m, v, 0) != CX_SCHED_SIM_OK) continue;
                        cx_replay_timing tm = {vi, 0.0, sd->p2p_overlap};
                        size_t f0, d0, f1, d1;
                        cx_core_replay_prog_fills(a, &f0, &d0);
                        cx_replay_prog *b = cx_core_replay_prog_new();
                        CU_ASSERT_FATAL(b != NULL);
                        const cx_sched_sim_status sa = cx_core_replay_prog_compile(a, pl, &tm),
                                                  sb = cx_core_replay_prog_compile(b, pl, &tm);
                        CU_ASSERT_EQUAL(sa, sb);
                        cx_core_replay_prog_fills(a, &f1, &d1);
                        cx_replay_code ca, cb;
                        if (sa == CX_SCHED_SIM_OK && cx_core_replay_prog_code(a, pl, &ca) &&
                            cx_core_replay_prog_code(b, pl, &cb)) {
                            cases++;
                            fills += f1 - f0, drains += d1 - d0;
                            if (ids[id] == CULONX_SCHED_ZB_V) zbv++, zbv_drains += d1 - d0;
                            if (!same_code(&ca, &cb, p) ||
                                cx_core_replay_prog_skipped(a) != cx_core_replay_prog_skipped(b)) {
                                if (bad++ < 5)
                                    printf("\n  %s p %d m %d mode %d differs", sd->name, p, m,
                                           mode);
                            }
                        }
                        cx_core_replay_prog_free(b);
                        if (mi % 4 == 1)
                            CU_ASSERT_EQUAL(cx_core_replay_prog_run(a, pl, &tm), CX_SCHED_SIM_OK);
                    }
            taken += cx_core_replay_prog_taken(a);
            cx_core_replay_prog_free(a);
        }
    cx_core_replay_prog_set_fold(1);
    printf("\n  %d programs (%zu from the program cache), %zu fills restored, %zu drains copied "
           "(ZB-V %zu of %zu)\n",
           cases, taken, fills, drains, zbv_drains, zbv);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(cases > 600);
    CU_ASSERT(drains > (size_t)cases / 4 && zbv_drains > zbv / 2);
    /* orders changed by hand (two items of a stage swapped): near the end
     * (the fill restored, the drain compiled and kept in place of the
     * kept one), at the start (no fill restored, the changed one kept),
     * between orders as generated; ZB-V and DualPipeV, p 8 */
    for (int id = 0; id < 2; id++) {
        const cx_sched_desc *sd = cx_sched_get(ids[id]);
        cx_replay_prog *a = cx_core_replay_prog_new();
        CU_ASSERT_FATAL(sd && a);
        static const int ms[] = {64, 96, 80, 128, 112, 160, 144};
        size_t f0, d0, f1, d1;
        for (int k = 0; k < 7; k++) {
            const int p = 8, m = ms[k];
            CU_ASSERT_FATAL(cx_sched_play_orders(pl, sd, p, m, 1, 0) == CX_SCHED_SIM_OK);
            /* k 1, 3: the last two items of stage p - 1 swapped; k 4 the
             * first two of stage 0 */
            const int s = k == 4 ? 0 : p - 1, i = k == 4 ? 0 : pl->len[s] - 2;
            if (k == 1 || k == 3 || k == 4) {
                cx_sched_item *x = &pl->items[(size_t)s * (size_t)pl->cap + (size_t)i];
                const cx_sched_item t = x[0];
                x[0] = x[1], x[1] = t;
            }
            cx_replay_timing tm = {vi, 0.0, sd->p2p_overlap};
            cx_replay_prog *b = cx_core_replay_prog_new();
            CU_ASSERT_FATAL(b != NULL);
            cx_core_replay_prog_fills(a, &f0, &d0);
            const cx_sched_sim_status sa = cx_core_replay_prog_compile(a, pl, &tm),
                                      sb = cx_core_replay_prog_compile(b, pl, &tm);
            cx_core_replay_prog_fills(a, &f1, &d1);
            CU_ASSERT_EQUAL(sa, sb);
            cx_replay_code ca, cb;
            CU_ASSERT(sa != CX_SCHED_SIM_OK ||
                      (cx_core_replay_prog_code(a, pl, &ca) &&
                       cx_core_replay_prog_code(b, pl, &cb) && same_code(&ca, &cb, p)));
            /* restored: all but the first, the one changed at the start
             * and the next (its kept fill is the changed one); copied:
             * only the last (the others follow a changed drain, or the
             * fill was compiled) */
            CU_ASSERT_EQUAL(f1 - f0, (size_t)(k != 0 && k != 4 && k != 5));
            CU_ASSERT_EQUAL(d1 - d0, (size_t)(k == 6));
            cx_core_replay_prog_free(b);
            pl->have_order = 0; /* the orders changed: not those of the shape */
        }
        cx_core_replay_prog_free(a);
    }
    cx_sched_play_free(pl);
    free(vi);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("replay_lanes", NULL, NULL);
    CU_add_test(s, "lanes = scalar plain play, bit for bit", test_lanes_vs_plain);
    CU_add_test(s, "renamed compile with period skip = without, byte for byte",
                test_skip_same_program);
    CU_add_test(s, "program cache = fresh compile, byte for byte", test_held_same_program);
    CU_add_test(s, "kept fills and drains = fresh compile, byte for byte", test_fill_same_program);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
