/*
 * test_sweep.c — the sweep (core/search/sweep.c): enumeration and reject counts of
 * a small space computed by hand, top-K against brute force over
 * culonx_estimate, the Pareto frontier non-dominated and complete,
 * byte-identical output for 1, 2 and 3 threads (report and --all rows),
 * option validation, the bubble memo of core/eval/closed.c bit-exact against
 * cold evaluations, the pruning bounds (cx_core_closed_bound) sound against
 * exact evaluations over many configurations, the replay workspace memos
 * and the memory-first evaluation (memory-only builds completed by a
 * reprice) bit-exact against cold evaluations, and pruned sweeps identical
 * to unpruned ones (top K, frontier, printed numbers; 1 and 2 threads).
 */
#define _POSIX_C_SOURCE 200809L

#include "core/eval/closed.h"
#include "core/layout/rules.h"
#include "core/search/sweep.h"

#include "sweep_fixture.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The layout: GPUs, strides (TP fastest, then DP, then PP), groups. */
static void test_layout(void)
{
    culonx_execution e = {.tp = 8, .pp = 4, .dp = 16};
    cx_layout l;
    cx_core_layout_init(&l, &e);
    CU_ASSERT_EQUAL(l.gpus, 512);
    CU_ASSERT_EQUAL(culonx_execution_gpus(&e), 512);
    CU_ASSERT_EQUAL(l.stride[CX_DIM_TP], 1);
    CU_ASSERT_EQUAL(l.stride[CX_DIM_DP], 8);
    CU_ASSERT_EQUAL(l.stride[CX_DIM_PP], 128);
    CU_ASSERT_EQUAL(cx_core_layout_stage_ranks(&l), 128);
    CU_ASSERT_EQUAL(cx_core_layout_model_ranks(&l), 32);
    CU_ASSERT_EQUAL(cx_core_layout_derive_dp(&l, 512), 16);
    CU_ASSERT_EQUAL(cx_core_layout_derive_dp(&l, 500), 0);
    cx_hw_group g = cx_core_layout_group(&l, CX_DIM_TP, 8);
    CU_ASSERT(g.size == 8 && g.per_node == 8);
    g = cx_core_layout_group(&l, CX_DIM_DP, 8); /* one member per node */
    CU_ASSERT(g.size == 16 && g.per_node == 1);
    g = cx_core_layout_p2p(&l, CX_DIM_PP, 8);
    CU_ASSERT(g.size == 2 && g.per_node == 1);
    e.tp = 2, e.dp = 32;
    cx_core_layout_init(&l, &e);
    g = cx_core_layout_group(&l, CX_DIM_DP, 8); /* 4 per node, 8 nodes */
    CU_ASSERT(g.size == 32 && g.per_node == 4);
    e.dp = 3; /* pp neighbours 6 ranks apart: same node */
    cx_core_layout_init(&l, &e);
    g = cx_core_layout_p2p(&l, CX_DIM_PP, 8);
    CU_ASSERT(g.size == 2 && g.per_node == 2);
    e.tp = 0; /* products saturate or give 0, never trap */
    CU_ASSERT_EQUAL(culonx_execution_gpus(&e), 0);
    e.tp = INT64_MAX / 2, e.pp = 4, e.dp = 1;
    CU_ASSERT_EQUAL(culonx_execution_gpus(&e), INT64_MAX);
}

/* The execution check: one code per broken rule, schedules' own rules. */
static void test_exec_check(void)
{
    culonx_run r;
    tiny(&r, 8, 8, 64, 64);
    culonx_execution *e = &r.exec;
    const culonx_model *m = &r.model;
    e->tp = 2, e->pp = 4, e->dp = 8;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_NONE);
    e->dp = 4;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_GPUS_DEGREES);
    e->pp = 3;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_GPUS_TP_PP);
    e->pp = 4, e->dp = 8, e->tp = 2;
    e->schedule = CULONX_SCHED_ZB_V; /* 2 chunks: 8 layers on 4 stages */
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_NONE);
    e->global_batch = 56; /* m = 7 < 2 pp */
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_SCHED_MICROBATCHES);
    e->global_batch = 60;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_BATCH_MB_DP);
    e->global_batch = 64, e->vp = 2;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_VP_SCHEDULE);
    e->schedule = CULONX_SCHED_INTERLEAVED;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_NONE);
    e->vp = 4;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_LAYERS_PP_VP);
    e->vp = 2, e->pp = 1, e->dp = 32;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_PP1_CHUNKS);
    e->tp = 3;
    CU_ASSERT_EQUAL(cx_core_exec_check(m, e), CULONX_REJECT_GPUS_TP_PP);
    for (int i = 0; i < CULONX_REJECT_ALL_COUNT; i++)
        CU_ASSERT_STRING_NOT_EQUAL(culonx_sweep_reject_name((culonx_sweep_reject)i), "?");
}

/* Hand count (see the derivation in the comments). gpus 8, gb 8, 4 layers,
 * 4 GPUs per node: tp {1,2,4}, pp {1,2,4}, variants gpipe, 1f1b,
 * interleaved vp 2 and 4; mb {1,2}; sp {off,on}; 144 candidates. */
static void test_hand_count(void)
{
    culonx_run run;
    tiny(&run, 4, 4, 8, 8);
    culonx_sweep_spec *s = spec_new();
    opt(s, "schedule", "gpipe,1f1b,interleaved");
    opt(s, "mb", "1,2");
    opt(s, "recompute", "full");
    opt(s, "dist-opt", "off");
    opt(s, "threads", "2");
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT_EQUAL(R->enumerated, 144);
    /* per (tp,pp): (1,1) 1; (1,2) gpipe 2 + 1f1b 2 + interleaved-2 at mb 1
     * = 5; (1,4) 4; (2,1) 2 x sp 2 = 4; (2,2) 6 x 2 = 12; (2,4) 4 x 2 = 8;
     * (4,1) 4; (4,2) 12: 50, evaluated or (interleaved) pruned by bounds */
    CU_ASSERT_EQUAL(R->evaluated + R->pruned, 50);
    CU_ASSERT_EQUAL(R->feasible, 50);
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_GPUS_TP_PP], 16);   /* (4,4): 4 x 2 x 2 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_DUP_SCHEDULE], 12); /* pp 1: gpipe, 3 x 4 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_PP1_CHUNKS], 24);   /* pp 1: interleaved, 3 x 8 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_LAYERS_PP_VP], 28); /* pp 2 vp 4: 12; pp 4: 16 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_BATCH_MB_DP], 2);   /* (1,1) mb 2: 16 > 8 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_SCHED_MICROBATCHES],
                    2);                                     /* (1,2) vp 2 mb 2: m 1 < 2 */
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_DUP_SP], 10); /* tp 1: 1 + 5 + 4 */
    uint64_t sum = R->evaluated + R->pruned;
    for (int r = 0; r < CULONX_REJECT_COUNT; r++)
        if (r != CULONX_REJECT_MEMORY) sum += R->rejected[r];
    CU_ASSERT_EQUAL(sum, R->enumerated);
    CU_ASSERT_EQUAL(cx_core_sweep_size(&run, s, &err), 144);
    culonx_sweep_result_free(R);

    /* a memory limit below everything: all 50 evaluated are infeasible */
    opt(s, "max-memory-gib", "0.001");
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT_EQUAL(R->feasible, 0);
    CU_ASSERT_EQUAL(R->rejected[CULONX_REJECT_MEMORY], 50);
    CU_ASSERT_EQUAL(R->ntop, 0);
    CU_ASSERT_EQUAL(R->nfront, 0);
    culonx_sweep_result_free(R);
    free(s);
}

/* Brute force in enumeration order over a space without duplicates. */
typedef struct {
    int64_t tp, pp, mb;
    int sched, rc;
    double t, obj;
    int order;
} bf;

static int cmp_bf(const void *x, const void *y)
{
    const bf *a = x, *b = y;
    if (a->obj != b->obj) return a->obj < b->obj ? -1 : 1;
    return a->order - b->order;
}

static void small_space(culonx_sweep_spec *s)
{
    opt(s, "tp", "2,4");
    opt(s, "pp", "1,2,4");
    opt(s, "schedule", "gpipe,1f1b,zb-h1");
    opt(s, "mb", "1,2,4");
    opt(s, "sp", "on");
    opt(s, "dist-opt", "off");
}

static void test_topk_brute_force(void)
{
    culonx_run run, r;
    tiny(&run, 8, 8, 16, 32);
    culonx_sweep_spec *s = spec_new();
    small_space(s);
    opt(s, "top", "5");
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    static const int scheds[3] = {CULONX_SCHED_GPIPE, CULONX_SCHED_1F1B, CULONX_SCHED_ZB_H1};
    bf all[200];
    int n = 0, order = 0;
    for (int64_t tp = 2; tp <= 4; tp *= 2)
        for (int64_t pp = 1; pp <= 4; pp *= 2)
            for (int si = 0; si < 3; si++)
                for (int64_t mb = 1; mb <= 4; mb *= 2)
                    for (int rc = 0; rc < 3; rc++, order++) {
                        culonx_execution deg = {.tp = tp, .pp = pp};
                        cx_layout lay;
                        cx_core_layout_init(&lay, &deg);
                        int64_t dp = cx_core_layout_derive_dp(&lay, 16);
                        if (32 % (mb * dp)) continue;
                        if (pp == 1 && scheds[si] != CULONX_SCHED_1F1B) continue;
                        r = run;
                        r.exec.tp = tp, r.exec.pp = pp, r.exec.dp = dp, r.exec.microbatch = mb;
                        r.exec.schedule = (culonx_schedule)scheds[si];
                        r.exec.recompute = (culonx_recompute)rc, r.exec.sequence_parallel = 1;
                        r.exec.distributed_optimizer = 0;
                        culonx_result res;
                        CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &res, &err), CULONX_OK);
                        bf *b = &all[n++];
                        b->tp = tp, b->pp = pp, b->mb = mb, b->sched = scheds[si], b->rc = rc;
                        b->t = res.iteration_time_s;
                        b->obj = res.iteration_time_s / (32.0 * 256.0);
                        b->order = order;
                    }
    CU_ASSERT_EQUAL(R->evaluated + R->pruned, (uint64_t)n);
    qsort(all, (size_t)n, sizeof all[0], cmp_bf);
    CU_ASSERT_EQUAL_FATAL(R->ntop, 5);
    for (int i = 0; i < 5; i++) {
        const culonx_sweep_entry *x = &R->top[i];
        CU_ASSERT_EQUAL(x->exec.tp, all[i].tp);
        CU_ASSERT_EQUAL(x->exec.pp, all[i].pp);
        CU_ASSERT_EQUAL(x->exec.microbatch, all[i].mb);
        CU_ASSERT_EQUAL((int)x->exec.schedule, all[i].sched);
        CU_ASSERT_EQUAL((int)x->exec.recompute, all[i].rc);
        CU_ASSERT(memcmp(&x->res.iteration_time_s, &all[i].t, sizeof(double)) == 0);
    }
    culonx_sweep_result_free(R);
    free(s);
}

/* time objective with several clocks: the top K lists distinct strategies,
 * each at its best clock; energy keeps every clock */
static void test_topk_distinct(void)
{
    culonx_run run, r;
    tiny(&run, 8, 8, 16, 32);
    culonx_sweep_spec *s = spec_new();
    small_space(s);
    opt(s, "top", "6");
    opt(s, "clocks", "1410,1200,1000");
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(R->ntop, 6);
    static const double clocks[3] = {1410, 1200, 1000};
    for (int i = 0; i < R->ntop; i++) {
        const culonx_sweep_entry *x = &R->top[i];
        for (int j = 0; j < i; j++) {
            culonx_execution a = x->exec, b = R->top[j].exec;
            a.clock_mhz = b.clock_mhz = 0;
            CU_ASSERT(memcmp(&a, &b, sizeof a) != 0);
        }
        for (int k = 0; k < 3; k++) {
            r = run, r.exec = x->exec, r.exec.clock_mhz = clocks[k];
            culonx_result res;
            CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &res, &err), CULONX_OK);
            CU_ASSERT(res.iteration_time_s >= x->res.iteration_time_s);
        }
    }
    culonx_sweep_result_free(R);
    opt(s, "objective", "energy");
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    int dup = 0;
    for (int i = 0; i < R->ntop; i++)
        for (int j = 0; j < i; j++) {
            culonx_execution a = R->top[i].exec, b = R->top[j].exec;
            a.clock_mhz = b.clock_mhz = 0;
            dup += memcmp(&a, &b, sizeof a) == 0;
        }
    CU_ASSERT(dup > 0); /* the same strategy at several clocks */
    culonx_sweep_result_free(R);
    free(s);
}

static int dom(const culonx_sweep_entry *a, const culonx_sweep_entry *b, int energy)
{
    double at = a->res.iteration_time_s, bt = b->res.iteration_time_s; /* one batch: per token */
    double ae = energy ? a->res.energy.total_j : 0, be = energy ? b->res.energy.total_j : 0;
    double am = a->res.memory.peak_bytes, bm = b->res.memory.peak_bytes;
    if (at > bt || ae > be || am > bm) return 0;
    if (at < bt || ae < be || am < bm) return 1;
    return a->index < b->index;
}

static void test_pareto(void)
{
    culonx_run run;
    tiny(&run, 8, 8, 16, 32);
    culonx_sweep_spec *s = spec_new();
    small_space(s);
    opt(s, "recompute", "all");
    opt(s, "clocks", "1410,1005,600"); /* energy trades against time */
    opt(s, "top", "100000");           /* every feasible candidate */
    opt(s, "objective", "energy");     /* which keeps every clock in the top K */
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL((uint64_t)R->ntop, R->feasible);
    CU_ASSERT(R->nfront > 1);
    int expect = 0;
    for (int i = 0; i < R->ntop; i++) {
        int dominated = 0;
        for (int j = 0; j < R->ntop && !dominated; j++)
            if (j != i && dom(&R->top[j], &R->top[i], R->energy_available)) dominated = 1;
        int in_front = 0;
        for (int k = 0; k < R->nfront; k++)
            if (R->front[k].index == R->top[i].index) in_front = 1;
        CU_ASSERT_EQUAL(in_front, !dominated); /* non-dominated and complete */
        expect += !dominated;
    }
    CU_ASSERT_EQUAL(R->nfront, expect);
    for (int k = 1; k < R->nfront; k++)
        CU_ASSERT(R->front[k - 1].res.iteration_time_s <= R->front[k].res.iteration_time_s);
    culonx_sweep_result_free(R);
    free(s);
}

static char *run_to_string(const culonx_run *run, culonx_sweep_spec *s, int json, char **rows)
{
    FILE *f = tmpfile(), *a = tmpfile();
    s->all = a;
    culonx_sweep_result *R;
    culonx_error err;
    char *out = NULL;
    if (culonx_sweep_run(run, s, &R, &err) == CULONX_OK) {
        if (json)
            culonx_sweep_report_json(f, R);
        else
            culonx_sweep_report_text(f, R);
        culonx_sweep_result_free(R);
        FILE *src[2] = {f, a};
        char *dst[2] = {NULL, NULL};
        for (int i = 0; i < 2; i++) {
            long n = ftell(src[i]);
            rewind(src[i]);
            dst[i] = calloc((size_t)n + 1, 1);
            if (fread(dst[i], 1, (size_t)n, src[i]) != (size_t)n) dst[i][0] = '\0';
        }
        out = dst[0];
        *rows = dst[1];
    }
    s->all = NULL;
    fclose(f);
    fclose(a);
    return out;
}

static void test_threads_deterministic(void)
{
    culonx_run run;
    tiny(&run, 8, 8, 64, 512);
    culonx_sweep_spec *s = spec_new();
    opt(s, "clocks", "1410,1200");
    opt(s, "max-memory-gib", "0.5"); /* some infeasible, some memory-skipped */
    char *ref = NULL, *ref_rows = NULL, *ref_json = NULL, *junk = NULL;
    for (int t = 1; t <= 3; t++) {
        char num[8];
        snprintf(num, sizeof num, "%d", t);
        opt(s, "threads", num);
        char *rows = NULL, *rows2 = NULL;
        char *txt = run_to_string(&run, s, 0, &rows);
        s->all_jsonl = 1;
        char *js = run_to_string(&run, s, 1, &rows2);
        s->all_jsonl = 0;
        CU_ASSERT_PTR_NOT_NULL_FATAL(txt);
        CU_ASSERT_PTR_NOT_NULL_FATAL(js);
        CU_ASSERT(strlen(rows) > 100000); /* many blocks of rows */
        if (!ref) {
            ref = txt, ref_rows = rows, ref_json = js;
            CU_ASSERT(strstr(txt, "does not fit in memory") != NULL);
            free(rows2);
        } else {
            CU_ASSERT_STRING_EQUAL(txt, ref);
            CU_ASSERT_STRING_EQUAL(rows, ref_rows);
            CU_ASSERT_STRING_EQUAL(js, ref_json);
            free(txt), free(rows), free(js), free(rows2);
        }
    }
    free(ref), free(ref_rows), free(ref_json), free(junk);
    free(s);
}

static void test_bad_options(void)
{
    static const char *const bad[][2] = {
        {"tp", "8,,16"},
        {"tp", "0"},
        {"tp", "-4"},
        {"tp", "abc"},
        {"pp", "4:2"},
        {"pp", "1:2:3:4"},
        {"mb", ""},
        {"gpus", "1:100000"},
        {"vp", "2,x"},
        {"clocks", "1410:"},
        {"objective", "speed"},
        {"top", "0"},
        {"threads", "0"},
        {"threads", "-1"},
        {"max-memory-gib", "-1"},
        {"max-memory-gib", "lots"},
        {"schedule", "zigzag"},
        {"recompute", "most"},
        {"sp", "maybe"},
        {"dist-opt", ""},
        {"min-global-batch", "0"},
        {"verify", "x"},
        {"bogus", "1"},
    };
    culonx_sweep_spec *s = spec_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        culonx_error err;
        culonx_status st = culonx_sweep_option(s, bad[i][0], bad[i][1], &err);
        CU_ASSERT_EQUAL(st, CULONX_EUSAGE);
        CU_ASSERT(err.msg[0] != '\0');
    }
    /* good list syntax */
    opt(s, "tp", "1,2,8:32:8");
    CU_ASSERT_EQUAL(s->list[CULONX_SWEEP_TP].n, 6);
    CU_ASSERT_EQUAL(s->list[CULONX_SWEEP_TP].v[5], 32);
    opt(s, "gpus", "512,256,512");
    CU_ASSERT_EQUAL(s->list[CULONX_SWEEP_GPUS].n, 2);
    CU_ASSERT_EQUAL(s->list[CULONX_SWEEP_GPUS].v[0], 256);

    /* values that conflict with the run: bad input (1) */
    culonx_run run;
    tiny(&run, 4, 4, 8, 8);
    culonx_sweep_result *R;
    culonx_error err;
    culonx_sweep_spec_init(s);
    opt(s, "clocks", "100");
    CU_ASSERT_EQUAL(culonx_sweep_run(&run, s, &R, &err), CULONX_EINPUT);
    CU_ASSERT(strstr(err.msg, "outside") != NULL);
    culonx_sweep_spec_init(s);
    opt(s, "min-global-batch", "64");
    opt(s, "max-global-batch", "32");
    CU_ASSERT_EQUAL(culonx_sweep_run(&run, s, &R, &err), CULONX_EUSAGE);
    /* --min/--max-global-batch as a constraint on a swept global batch */
    culonx_sweep_spec_init(s);
    opt(s, "global-batch", "8,16,32");
    opt(s, "max-global-batch", "16");
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT(R->rejected[CULONX_REJECT_GLOBAL_BATCH_RANGE] == R->enumerated / 3);
    for (int i = 0; i < R->ntop; i++)
        CU_ASSERT(R->top[i].exec.global_batch <= 16);
    culonx_sweep_result_free(R);
    free(s);
}

/* Energy objectives need energy: a run whose power model gives none. */
static void test_energy_required(void)
{
    culonx_run run;
    tiny(&run, 4, 4, 8, 8);
    culonx_sweep_spec *s = spec_new();
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    int have = R->energy_available;
    culonx_sweep_result_free(R);
    opt(s, "objective", "tokens-per-joule");
    culonx_status st = culonx_sweep_run(&run, s, &R, &err);
    if (have) {
        CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
        for (int i = 1; i < R->ntop; i++)
            CU_ASSERT(R->top[i - 1].objective <= R->top[i].objective);
        culonx_sweep_result_free(R);
    } else {
        CU_ASSERT_EQUAL(st, CULONX_EINPUT);
        CU_ASSERT(strstr(err.msg, "energy") != NULL);
    }
    free(s);
}

/* The bubble memo (core/eval/closed.c) gives exactly the cold results. */
typedef struct {
    culonx_run run;
    double t;
} cold_job;

static void *cold_eval(void *arg)
{
    cold_job *j = arg;
    cx_cost *c = malloc(sizeof *c);
    culonx_result res;
    culonx_error err;
    j->t = cx_core_closed_eval(&j->run, 0, c, &res, &err) == CULONX_OK ? res.iteration_time_s : -1;
    free(c);
    return NULL;
}

static void test_memo_exact(void)
{
    enum { N = 12 };
    cold_job jobs[N];
    static const int sch[3] = {CULONX_SCHED_ZB_V, CULONX_SCHED_DUALPIPE_V, CULONX_SCHED_ZB_H2};
    for (int i = 0; i < N; i++) {
        culonx_run *r = &jobs[i].run;
        tiny(r, 8, 8, 16, 64);
        r->exec.tp = 2, r->exec.pp = 4, r->exec.dp = 2;
        r->exec.schedule = (culonx_schedule)sch[i % 3];
        r->exec.microbatch = 1 + (i / 3) % 2;
        r->exec.distributed_optimizer = i / 6;
        pthread_t t;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, cold_eval, &jobs[i]), 0);
        pthread_join(t, NULL); /* a fresh thread: an empty memo */
        CU_ASSERT(jobs[i].t > 0);
    }
    cx_cost *c = malloc(sizeof *c);
    for (int rep = 0; rep < 3; rep++)
        for (int i = N - 1; i >= 0; i--) {
            culonx_result res;
            culonx_error err;
            CU_ASSERT_EQUAL_FATAL(cx_core_closed_eval(&jobs[i].run, 0, c, &res, &err), CULONX_OK);
            CU_ASSERT(memcmp(&res.iteration_time_s, &jobs[i].t, sizeof(double)) == 0);
        }
    free(c);
}

static void test_verify(void)
{
    culonx_run run;
    tiny(&run, 8, 8, 16, 32);
    culonx_sweep_spec *s = spec_new();
    small_space(s);
    opt(s, "verify", "3");
    culonx_sweep_result *R;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R, &err), CULONX_OK);
    CU_ASSERT_EQUAL(R->verify_status, CULONX_OK);
    CU_ASSERT_EQUAL(R->nverified, 3);
    for (int i = 0; i < R->nverified; i++) {
        double a = R->top[i].res.iteration_time_s, b = R->verified[i].iteration_time_s;
        CU_ASSERT(b > 0 && fabs(b - a) / a < 0.2); /* the two engines agree roughly */
    }
    culonx_sweep_result_free(R);
    free(s);
}

/* Lower bounds of cx_core_closed_bound never exceed the exact evaluation,
 * its memory is the exact one, and evaluations in a shared workspace (orders
 * and results memoised) are bit-identical to cold ones. */
static void test_bounds_sound(void)
{
    static const int sch[] = {CULONX_SCHED_GPIPE,     CULONX_SCHED_1F1B,  CULONX_SCHED_INTERLEAVED,
                              CULONX_SCHED_ZB_H1,     CULONX_SCHED_ZB_H2, CULONX_SCHED_ZB_V,
                              CULONX_SCHED_DUALPIPE_V};
    cx_cost *c = malloc(sizeof *c), *cold = malloc(sizeof *cold), *cm = malloc(sizeof *cm);
    cx_replay_ws *ws = cx_core_replay_ws_new(), *wm = cx_core_replay_ws_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
    CU_ASSERT_PTR_NOT_NULL_FATAL(wm);
    long n = 0, tight = 0;
    for (int model = 0; model < 2; model++)
        for (size_t si = 0; si < sizeof sch / sizeof sch[0]; si++)
            for (int pp = 2; pp <= 8; pp *= 2)
                for (int vp = 1; vp <= 4; vp *= 2)
                    for (int mb = 1; mb <= 2; mb++)
                        for (int rc = 0; rc <= CULONX_RECOMPUTE_FULL; rc++)
                            for (int knob = 0; knob < 8; knob++) {
                                culonx_run r;
                                tiny(&r, 32, 8, 128, 256);
                                if (model) { /* bigger layers, slow network: p2p and DP matter */
                                    r.model.hidden = 4096, r.model.heads = 32,
                                    r.model.kv_heads = 32;
                                    r.model.ffn = 16384, r.model.seq = 2048;
                                    r.system.tier[1].bw_gbps = 5;
                                }
                                culonx_execution *e = &r.exec;
                                e->schedule = (culonx_schedule)sch[si];
                                if (!cx_sched_takes_vp(cx_sched_get(e->schedule)) && vp > 1)
                                    continue;
                                e->tp = knob & 1 ? 2 : 1, e->pp = pp, e->vp = vp;
                                cx_layout lay;
                                cx_core_layout_init(&lay, e);
                                e->dp = cx_core_layout_derive_dp(&lay, e->gpus);
                                e->global_batch = (knob & 4 ? 2 : 1) * 2 * pp * e->dp * mb;
                                e->microbatch = mb, e->recompute = (culonx_recompute)rc;
                                e->dp_overlap = (knob >> 1) & 1,
                                e->distributed_optimizer = knob & 1;
                                e->sequence_parallel = e->tp > 1;
                                double clk = knob & 2 ? 900 : 1410;
                                cx_bound b;
                                culonx_result ex, cr;
                                culonx_error err;
                                if (cx_core_closed_bound(&r, clk, c, ws, &b, &err) != CULONX_OK)
                                    continue;
                                CU_ASSERT_EQUAL_FATAL(cx_core_closed_finish(&r, c, ws, &ex, &err),
                                                      CULONX_OK);
                                CU_ASSERT_EQUAL_FATAL(cx_core_closed_eval(&r, clk, cold, &cr, &err),
                                                      CULONX_OK);
                                CU_ASSERT(memcmp(&ex.iteration_time_s, &cr.iteration_time_s,
                                                 sizeof(double)) == 0);
                                CU_ASSERT(memcmp(&ex.energy.total_j, &cr.energy.total_j,
                                                 sizeof(double)) == 0);
                                CU_ASSERT(memcmp(&ex.memory.peak_bytes, &cr.memory.peak_bytes,
                                                 sizeof(double)) == 0);
                                CU_ASSERT(b.peak_bytes == ex.memory.peak_bytes);
                                /* memory first (a memory-only build, completed
                                 * by a reprice): the same result to the bit */
                                double peak;
                                int complete;
                                culonx_result mr;
                                CU_ASSERT_EQUAL_FATAL(
                                    cx_core_closed_memory(&r, clk, cm, wm, &peak, &complete, &err),
                                    CULONX_OK);
                                CU_ASSERT(peak == cr.memory.peak_bytes);
                                CU_ASSERT_EQUAL_FATAL(
                                    complete ? cx_core_closed_finish(&r, cm, wm, &mr, &err)
                                             : cx_core_closed_eval_ws(&r, clk, cm, wm, &mr, &err),
                                    CULONX_OK);
                                CU_ASSERT(memcmp(&mr, &cr, sizeof mr) == 0);
                                if (cx_sched_get(e->schedule)->closed_exact) continue;
                                n++;
                                CU_ASSERT(b.time_s > 0 && b.time_s <= ex.iteration_time_s);
                                CU_ASSERT(b.energy_j <= ex.energy.total_j);
                                if (b.time_s > 0.9 * ex.iteration_time_s) tight++;
                            }
    CU_ASSERT(n > 1000);
    CU_ASSERT(tight > n / 2); /* useful bounds, not just sound ones */
    cx_core_replay_ws_free(ws);
    cx_core_replay_ws_free(wm);
    cx_core_replay_ws_free(NULL);
    free(c), free(cold), free(cm);
}

/* The text report from the top-K line on, and the summary without the
 * evaluated / pruned counts. */
static char *sweep_text(const culonx_run *run, culonx_sweep_spec *s, culonx_sweep_result **out)
{
    culonx_sweep_result *R;
    culonx_error err;
    if (culonx_sweep_run(run, s, &R, &err) != CULONX_OK) return NULL;
    FILE *f = tmpfile();
    culonx_sweep_report_text(f, R);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc((size_t)n + 1, 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) buf[0] = '\0';
    fclose(f);
    *out = R;
    char *top = strstr(buf, "\ntop ");
    char *res = strdup(top ? top : "");
    free(buf);
    return res;
}

/* Pruned and unpruned sweeps print the same top K and frontier with the
 * same numbers, and count the same feasible and rejected candidates. */
static void test_prune_identical(void)
{
    long pruned = 0;
    for (int space = 0; space < 3; space++)
        for (int obj = 0; obj < 2; obj++)
            for (int t = 1; t <= 2; t++) {
                culonx_run run;
                culonx_sweep_spec *s = spec_new();
                if (space == 0) {
                    tiny(&run, 8, 8, 64, 512);
                    opt(s, "clocks", "1410,1200,800");
                } else if (space == 1) {
                    tiny(&run, 16, 4, 64, 256);
                    run.model.hidden = 2048, run.model.heads = 16, run.model.kv_heads = 16;
                    run.model.ffn = 8192, run.model.seq = 1024;
                    opt(s, "clocks", "1410,1000");
                    opt(s, "dp-overlap", "on,off");
                    opt(s, "max-memory-gib", "6");
                } else {
                    tiny(&run, 24, 8, 96, 384);
                    run.model.hidden = 1024, run.model.heads = 16, run.model.kv_heads = 16;
                    run.model.ffn = 4096;
                    run.system.tier[1].bw_gbps = 12.5;
                    opt(s, "top", "4");
                }
                opt(s, "objective", obj ? "energy" : "time");
                opt(s, "threads", t == 1 ? "1" : "2");
                culonx_sweep_result *A = NULL, *B = NULL;
                char *a = sweep_text(&run, s, &A);
                opt(s, "no-prune", "");
                char *b = sweep_text(&run, s, &B);
                CU_ASSERT_PTR_NOT_NULL_FATAL(a);
                CU_ASSERT_PTR_NOT_NULL_FATAL(b);
                CU_ASSERT(strlen(a) > 200);
                CU_ASSERT_STRING_EQUAL(a, b);
                CU_ASSERT(A->pruning_on && !B->pruning_on && B->pruned == 0);
                CU_ASSERT_EQUAL(A->feasible, B->feasible);
                CU_ASSERT(memcmp(A->rejected, B->rejected, sizeof A->rejected) == 0);
                CU_ASSERT(A->evaluated + A->pruned <= B->evaluated);
                CU_ASSERT_EQUAL_FATAL(A->ntop, B->ntop);
                CU_ASSERT_EQUAL_FATAL(A->nfront, B->nfront);
                for (int k = 0; k < A->ntop; k++) {
                    CU_ASSERT_EQUAL(A->top[k].index, B->top[k].index);
                    CU_ASSERT(memcmp(&A->top[k].objective, &B->top[k].objective, sizeof(double)) ==
                              0);
                }
                for (int k = 0; k < A->nfront; k++)
                    CU_ASSERT_EQUAL(A->front[k].index, B->front[k].index);
                pruned += (long)A->pruned;
                culonx_sweep_result_free(A);
                culonx_sweep_result_free(B);
                free(a), free(b), free(s);
            }
    CU_ASSERT(pruned > 0);
}

/* A rejected option leaves the spec as it was (fuzz_sweep_options found a
 * half-parsed list left unsorted with duplicates). */
static void test_bad_option_untouched(void)
{
    static culonx_sweep_spec spec;
    culonx_error err;
    culonx_sweep_spec_init(&spec);
    CU_ASSERT_EQUAL(culonx_sweep_option(&spec, "pp", "4,2", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_sweep_option(&spec, "pp", "22,22,6:", &err), CULONX_EUSAGE);
    CU_ASSERT_EQUAL(spec.list[CULONX_SWEEP_PP].n, 2);
    CU_ASSERT_EQUAL(spec.list[CULONX_SWEEP_PP].v[0], 2);
    CU_ASSERT_EQUAL(spec.list[CULONX_SWEEP_PP].v[1], 4);
    CU_ASSERT_EQUAL(culonx_sweep_option(&spec, "schedule", "1f1b", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_sweep_option(&spec, "schedule", "gpipe,zigzag", &err), CULONX_EUSAGE);
    CU_ASSERT_EQUAL(spec.list[CULONX_SWEEP_SCHEDULE].n, 1);
    CU_ASSERT_EQUAL(spec.list[CULONX_SWEEP_SCHEDULE].v[0], CULONX_SCHED_1F1B);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("sweep", NULL, NULL);
    CU_add_test(s, "layout: gpus, strides, groups", test_layout);
    CU_add_test(s, "a rejected option leaves the spec", test_bad_option_untouched);
    CU_add_test(s, "execution check codes", test_exec_check);
    CU_add_test(s, "enumeration and rejects by hand", test_hand_count);
    CU_add_test(s, "top-K = brute force", test_topk_brute_force);
    CU_add_test(s, "top-K: distinct strategies by time", test_topk_distinct);
    CU_add_test(s, "Pareto frontier non-dominated and complete", test_pareto);
    CU_add_test(s, "1, 2, 3 threads byte-identical", test_threads_deterministic);
    CU_add_test(s, "bad options", test_bad_options);
    CU_add_test(s, "energy objectives need energy", test_energy_required);
    CU_add_test(s, "bubble memo bit-exact", test_memo_exact);
    CU_add_test(s, "verify with the graph engine", test_verify);
    CU_add_test(s, "pruning bounds sound, workspace memos bit-exact", test_bounds_sound);
    CU_add_test(s, "pruned sweeps identical to unpruned ones", test_prune_identical);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
