/*
 * agree.c — graph engine vs closed form over a generated set of
 * configurations (issue: "two evaluators, one truth").
 *
 * Generates N configurations (default 30,000) by a fixed pseudo-random walk
 * over models (GPT 1.3B-175B shapes, Llama-3 8B/70B shapes), systems (DGX
 * A100, DGX H100), TP, PP, VP, DP, microbatch, microbatch count, recompute,
 * sequence parallelism, distributed optimizer, DP overlap and schedule (the
 * three standard ones 4 draws in 5, ZB-H1/H2, ZB-V, DualPipeV the rest);
 * evaluates each with both engines (stage-level
 * DAG) and prints the distribution of the relative differences of iteration
 * time and peak memory, the worst cases, and throughput of the graph engine
 * (nodes/s). With --strict it exits 1 when any configuration differs by
 * more than 0.5% in time or 1% in memory.
 *
 * usage: bench_agree [--n N] [--seed S] [--strict] [--quiet] [--verbose]
 * (run from the repository root: it loads the shipped A100 and H100 runs)
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "clock.h"
#include "core/eval/graph.h"
#include "core/layout/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

typedef struct {
    const char *name;
    culonx_arch arch;
    int64_t l, h, a, k, f, V, s;
} shape;

static const shape shapes[] = {
    {"gpt-1.3b", CULONX_ARCH_GPT, 24, 2048, 16, 16, 8192, 51200, 2048},
    {"gpt-6.7b", CULONX_ARCH_GPT, 32, 4096, 32, 32, 16384, 51200, 2048},
    {"gpt-13b", CULONX_ARCH_GPT, 40, 5120, 40, 40, 20480, 51200, 2048},
    {"gpt-39b", CULONX_ARCH_GPT, 48, 8192, 64, 64, 32768, 51200, 2048},
    {"gpt3-175b", CULONX_ARCH_GPT, 96, 12288, 96, 96, 49152, 50257, 2048},
    {"llama3-8b", CULONX_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 128256, 8192},
    {"llama3-70b", CULONX_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 128256, 8192},
};

/* Draws one valid configuration into r (based on a system run). */
static int draw(culonx_run *r, const culonx_run *sys_a100, const culonx_run *sys_h100)
{
    const shape *sh = &shapes[rnd(sizeof shapes / sizeof shapes[0])];
    *r = rnd(2) ? *sys_a100 : *sys_h100;
    culonx_model *m = &r->model;
    snprintf(m->name, sizeof m->name, "%s", sh->name);
    m->arch = sh->arch, m->layers = sh->l, m->hidden = sh->h, m->heads = sh->a;
    m->kv_heads = sh->k, m->ffn = sh->f, m->vocab = sh->V, m->seq = sh->s;
    culonx_execution *e = &r->exec;
    static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4, 8, 16}, dps[] = {1, 2, 4, 8, 16};
    e->tp = tps[rnd(4)];
    e->pp = pps[rnd(5)];
    e->dp = dps[rnd(5)];
    /* the three standard schedules 4 times out of 5, the others the rest */
    e->schedule = rnd(5) ? (culonx_schedule)rnd(3) : (culonx_schedule)(3 + rnd(4));
    e->vp = 1;
    const cx_sched_desc *d = cx_sched_get(e->schedule);
    if (cx_sched_takes_vp(d)) e->vp = 2 + rnd(3);
    /* the schedule's own rules (schedules/): vp needs pp > 1, else 1F1B */
    cx_sched_shape ss = {e->pp, 0, e->vp, m->layers};
    if (d->supports(&ss) == CULONX_REJECT_PP1_CHUNKS) {
        e->schedule = CULONX_SCHED_1F1B, e->vp = 1, ss.v = 1;
        d = cx_sched_get(e->schedule);
    }
    if (cx_core_rule_pipeline(d, &ss) != CULONX_REJECT_NONE ||
        cx_core_rule_tp(m, e->tp) != CULONX_REJECT_NONE)
        return 0;
    e->microbatch = 1 << rnd(3);
    int64_t mbs[] = {1, e->pp, 2 * e->pp, 3 * e->pp + 1, 4 * e->pp};
    int64_t mcount = mbs[rnd(5)];
    if (mcount < d->min_microbatches(e->pp, e->vp)) mcount = d->min_microbatches(e->pp, e->vp);
    e->global_batch = mcount * e->microbatch * e->dp;
    e->gpus = culonx_execution_gpus(e);
    e->recompute = (culonx_recompute)rnd(3);
    e->sequence_parallel = e->tp > 1 ? (int)rnd(2) : 0;
    e->distributed_optimizer = e->dp > 1 ? (int)rnd(2) : 0;
    e->dp_overlap = (int)rnd(2);
    e->dtype = CULONX_DTYPE_BF16;
    e->tokens = 0;
    e->clock_mhz = 0;
    culonx_error err;
    return culonx_run_check(r, &err) == CULONX_OK;
}

int main(int argc, char **argv)
{
    long n = 30000;
    int strict = 0, quiet = 0, verbose = 0;
    rng_state = 42;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng_state = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--strict")) strict = 1;
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else {
            fprintf(stderr, "usage: bench_agree [--n N] [--seed S] [--strict] [--quiet] [--verbose]\n");
            return 2;
        }
    }
    culonx_run a100, h100;
    culonx_error err;
    if (culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &a100, &err) ||
        culonx_run_load("configs/llama3-8b-h100.xml", NULL, 0, NULL, &h100, &err)) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    cx_cost *scratch = malloc(sizeof *scratch);
    long done = 0, tries = 0, bad_t = 0, bad_m = 0, failed = 0;
    double sum_dt = 0, max_dt = 0, sum_dm = 0, max_dm = 0;
    double nodes = 0, graph_s = 0;
    culonx_run worst_t, worst_m;
    memset(&worst_t, 0, sizeof worst_t);
    memset(&worst_m, 0, sizeof worst_m);
    int hist[6] = {0};
    double sched_max[CULONX_SCHED_COUNT] = {0};
    long sched_bad[CULONX_SCHED_COUNT] = {0}, sched_n[CULONX_SCHED_COUNT] = {0}; /* |dt| < 0.01%, 0.05%, 0.1%, 0.5%, 1%, more */
    while (done < n && tries < 50 * n) {
        tries++;
        culonx_run r;
        if (!draw(&r, &a100, &h100)) continue;
        culonx_result rc, rg;
        if (culonx_estimate(&r, &rc, &err) != CULONX_OK) {
            failed++;
            continue;
        }
        double t0 = bench_now_s();
        cx_graph *g = NULL;
        if (cx_core_graph_build(&r, 0, CX_DETAIL_STAGE, &g, &err) != CULONX_OK ||
            cx_core_graph_eval(g, &err) != CULONX_OK) {
            if (!quiet) printf("graph failed: %s\n", err.msg);
            cx_core_graph_free(g);
            failed++;
            continue;
        }
        cx_core_graph_result(g, &rg);
        graph_s += bench_now_s() - t0;
        nodes += (double)g->n;
        cx_core_graph_free(g);
        double dt = fabs(rg.iteration_time_s - rc.iteration_time_s) / rc.iteration_time_s;
        double dm = fabs(rg.memory.peak_bytes - rc.memory.peak_bytes) / rc.memory.peak_bytes;
        sum_dt += dt, sum_dm += dm;
        if (dt > max_dt) max_dt = dt, worst_t = r;
        if (dm > max_dm) max_dm = dm, worst_m = r;
        bad_t += dt > 0.005;
        sched_max[r.exec.schedule] = fmax(sched_max[r.exec.schedule], dt);
        sched_bad[r.exec.schedule] += dt > 0.005;
        sched_n[r.exec.schedule]++;
        if (!quiet && dt > 0.005 && verbose)
            printf("  dt %+.3f%% %s tp%lld pp%lld dp%lld vp%lld mb%lld m%lld %s %s sp%d do%d ov%d "
                   "P/F %.2f\n",
                   100 * (rg.iteration_time_s - rc.iteration_time_s) / rc.iteration_time_s,
                   r.model.name, (long long)r.exec.tp, (long long)r.exec.pp, (long long)r.exec.dp,
                   (long long)r.exec.vp, (long long)r.exec.microbatch, (long long)rc.microbatches,
                   culonx_schedule_name(r.exec.schedule), culonx_recompute_name(r.exec.recompute),
                   r.exec.sequence_parallel, r.exec.distributed_optimizer, r.exec.dp_overlap,
                   rc.breakdown.pp_comm_s / fmax(rc.breakdown.forward_s, 1e-12));
        bad_m += dm > 0.01;
        int b = dt < 1e-4 ? 0 : dt < 5e-4 ? 1 : dt < 1e-3 ? 2 : dt < 5e-3 ? 3 : dt < 1e-2 ? 4 : 5;
        hist[b]++;
        done++;
    }
    (void)scratch;
    free(scratch);
    printf("configurations compared: %ld (drawn %ld, closed-form or graph failures %ld)\n", done,
           tries, failed);
    printf("iteration time: mean |diff| %.3g%%, max %.3g%%, > 0.5%%: %ld\n",
           100 * sum_dt / (double)(done ? done : 1), 100 * max_dt, bad_t);
    printf("  |diff| <0.01%% %d, <0.05%% %d, <0.1%% %d, <0.5%% %d, <1%% %d, more %d\n", hist[0],
           hist[1], hist[2], hist[3], hist[4], hist[5]);
    printf("peak memory:    mean |diff| %.3g%%, max %.3g%%, > 1%%: %ld\n",
           100 * sum_dm / (double)(done ? done : 1), 100 * max_dm, bad_m);
    printf("graph engine: %.0f nodes in %.2f s = %.2f M nodes/s (build + evaluate)\n", nodes,
           graph_s, nodes / graph_s / 1e6);
    for (int k = 0; k < CULONX_SCHED_COUNT; k++)
        if (sched_n[k])
            printf("  %-12s %6ld configs, time max %.3g%%, > 0.5%%: %ld\n", culonx_schedule_name(k),
                   sched_n[k], 100 * sched_max[k], sched_bad[k]);
    const culonx_run *w[2] = {&worst_t, &worst_m};
    const char *wn[2] = {"worst time", "worst memory"};
    const double wd[2] = {max_dt, max_dm};
    for (int i = 0; i < 2; i++) {
        if (wd[i] <= 0) continue;
        const culonx_execution *e = &w[i]->exec;
        printf("%s: %s tp%lld pp%lld dp%lld vp%lld mb%lld gb%lld %s %s sp%d do%d ov%d\n", wn[i],
               w[i]->model.name, (long long)e->tp, (long long)e->pp, (long long)e->dp,
               (long long)e->vp, (long long)e->microbatch, (long long)e->global_batch,
               culonx_schedule_name(e->schedule), culonx_recompute_name(e->recompute),
               e->sequence_parallel, e->distributed_optimizer, e->dp_overlap);
    }
    if (strict && (bad_t || bad_m || failed || done < n)) return 1;
    return 0;
}
