/*
 * agree.c — graph engine vs closed form over a generated set of
 * configurations (issue: "two evaluators, one truth"). Both play the
 * schedule through the same engine (schedules/play.h), so they agree by
 * construction: to round-off on iteration time, to the byte on memory.
 *
 * Generates N configurations (default 30,000) by a fixed pseudo-random walk
 * over models (GPT 1.3B-175B shapes, Llama-3 8B/70B shapes, mixtures of
 * experts: Mixtral, Qwen3-MoE, an MLA model with shared experts and one with
 * dense and MoE layers alternating, with ep, etp, the capacity factor,
 * the all-to-all overlap and node-limited routing drawn too), systems (DGX
 * A100, DGX H100), TP, PP, VP, DP, microbatch, microbatch count, recompute,
 * sequence parallelism, distributed optimizer, DP overlap and schedule (all
 * seven equally likely; pp > 1 four draws in five, where the first and last
 * stages are uneven: they carry the embedding and the head); evaluates each
 * with both engines (stage-level DAG) and prints the worst relative
 * difference of iteration time and the worst difference of peak memory in
 * bytes, overall and per schedule, the distribution of the time differences,
 * the worst energy difference, the worst cases, and the throughput of the
 * graph engine (nodes/s). With --strict it exits 1 when
 * any configuration differs by more than 1e-9 relative in time or by any
 * byte in memory (or by more than 1e-9 in energy), or fails in either
 * engine.
 *
 * usage: bench_agree [--n N] [--seed S] [--strict] [--quiet] [--verbose]
 * (run from the repository root: it loads the shipped A100 and H100 runs)
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "shapes.h"
#include "clock.h"
#include "core/eval/graph.h"
#include "core/layout/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Draws one valid configuration into r (based on a system run). */
static int draw(culonx_run *r, const culonx_run *sys_a100, const culonx_run *sys_h100)
{
    const uint32_t ns = sizeof shapes / sizeof shapes[0];
    const uint32_t pick = rnd(ns + sizeof moe_shapes / sizeof moe_shapes[0]);
    const moe_shape *ms = pick >= ns ? &moe_shapes[pick - ns] : NULL;
    const shape *sh = ms ? &ms->base : &shapes[pick];
    *r = rnd(2) ? *sys_a100 : *sys_h100;
    culonx_model *m = &r->model;
    snprintf(m->name, sizeof m->name, "%s", sh->name);
    m->arch = sh->arch, m->layers = sh->l, m->hidden = sh->h, m->heads = sh->a;
    m->kv_heads = sh->k, m->ffn = sh->f, m->vocab = sh->V, m->seq = sh->s;
    culonx_execution *e = &r->exec;
    e->ep = e->etp = 1, e->capacity_factor = 1.0;
    if (ms) { /* experts, and an expert layout drawn below */
        m->head_dim = ms->d, m->experts = ms->E, m->experts_per_token = ms->k;
        m->expert_ffn = ms->fe, m->shared_experts = ms->shared;
        m->first_dense_layers = ms->first_dense, m->moe_layer_freq = ms->freq;
        m->q_rank = ms->qr, m->kv_rank = ms->kr, m->rope_dim = ms->dr;
        m->window = ms->w, m->window_every = ms->every;
    }
    static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 3, 4, 8, 16}, dps[] = {1, 2, 4, 8, 16};
    e->tp = tps[rnd(4)];
    e->pp = rnd(5) ? pps[1 + rnd(5)] : 1;
    e->dp = dps[rnd(5)];
    e->schedule = (culonx_schedule)rnd(culonx_schedule_count());
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
    if (ms) draw_moe_exec(e, ms);
    e->distributed_optimizer = e->dp > 1 ? (int)rnd(2) : 0;
    e->dp_overlap = (int)rnd(2);
    e->dtype = CULONX_DTYPE_BF16;
    e->tokens = 0;
    e->clock_mhz = 0;
    /* sharding and offload (core/eval/shard.c): ZeRO 0-3, HSDP halves,
     * both implementations, offload on a quarter of the draws */
    e->zero = e->dp > 1 ? (int)rnd(4) : 0;
    if (e->zero == 0 && e->distributed_optimizer) e->zero = 1;
    e->distributed_optimizer = e->zero >= 1;
    e->shard_group = e->zero >= 1 && e->dp % 2 == 0 && rnd(2) ? e->dp / 2 : 0;
    e->zero_impl = (culonx_zero_impl)rnd(2);
    e->offload = rnd(4) == 0 ? (int)rnd(8) : 0;
    culonx_error err;
    return culonx_run_check(r, &err) == CULONX_OK;
}

static void print_run(const char *what, const culonx_run *r)
{
    const culonx_execution *e = &r->exec;
    printf("%s: %s tp%lld pp%lld dp%lld vp%lld mb%lld gb%lld %s %s sp%d do%d ov%d\n", what,
           r->model.name, (long long)e->tp, (long long)e->pp, (long long)e->dp, (long long)e->vp,
           (long long)e->microbatch, (long long)e->global_batch, culonx_schedule_name(e->schedule),
           culonx_recompute_name(e->recompute), e->sequence_parallel, e->distributed_optimizer,
           e->dp_overlap);
}

int main(int argc, char **argv)
{
    long n = 30000;
    int strict = 0, quiet = 0, verbose = 0;
    const double tol_t = 1e-9; /* relative, iteration time; memory: exact */
    rng_state = 42;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--strict"))
            strict = 1;
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else {
            fprintf(stderr,
                    "usage: bench_agree [--n N] [--seed S] [--strict] [--quiet] [--verbose]\n");
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
    long done = 0, tries = 0, bad_t = 0, bad_m = 0, bad_e = 0, failed = 0, uneven = 0;
    double sum_dt = 0, max_dt = 0, max_dm = 0, max_de = 0;
    double nodes = 0, graph_s = 0;
    culonx_run worst_t, worst_m;
    memset(&worst_t, 0, sizeof worst_t);
    memset(&worst_m, 0, sizeof worst_m);
    int hist[5] = {0}; /* |dt| == 0, < 1e-15, < 1e-12, <= 1e-9, more */
    double sched_max[CULONX_SCHED_MAX] = {0}, sched_dm[CULONX_SCHED_MAX] = {0};
    long sched_bad[CULONX_SCHED_MAX] = {0}, sched_n[CULONX_SCHED_MAX] = {0};
    while (done < n && tries < 50 * n) {
        tries++;
        culonx_run r;
        if (!draw(&r, &a100, &h100)) continue;
        culonx_result rc, rg;
        if (culonx_estimate(&r, &rc, &err) != CULONX_OK) {
            if (!quiet) printf("closed form failed: %s\n", err.msg);
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
        double dm = fabs(rg.memory.peak_bytes - rc.memory.peak_bytes); /* bytes */
        double de = fabs(rg.energy.total_j - rc.energy.total_j) / rc.energy.total_j;
        max_de = fmax(max_de, de);
        bad_e += de > tol_t;
        int k = r.exec.schedule;
        sum_dt += dt;
        if (dt > max_dt) max_dt = dt, worst_t = r;
        if (dm > max_dm) max_dm = dm, worst_m = r;
        bad_t += dt > tol_t;
        bad_m += dm > 0;
        uneven += r.exec.pp > 1;
        sched_max[k] = fmax(sched_max[k], dt);
        sched_dm[k] = fmax(sched_dm[k], dm);
        sched_bad[k] += dt > tol_t || dm > 0;
        sched_n[k]++;
        if (!quiet && verbose && (dt > tol_t || dm > 0))
            printf("  dt %+.3g dm %.0f B %s tp%lld pp%lld dp%lld vp%lld mb%lld m%lld %s %s sp%d "
                   "do%d ov%d\n",
                   (rg.iteration_time_s - rc.iteration_time_s) / rc.iteration_time_s, dm,
                   r.model.name, (long long)r.exec.tp, (long long)r.exec.pp, (long long)r.exec.dp,
                   (long long)r.exec.vp, (long long)r.exec.microbatch, (long long)rc.microbatches,
                   culonx_schedule_name(r.exec.schedule), culonx_recompute_name(r.exec.recompute),
                   r.exec.sequence_parallel, r.exec.distributed_optimizer, r.exec.dp_overlap);
        if (!quiet && verbose && (dt > tol_t || dm > 0))
            printf("    zero %d shard-group %lld impl %d offload %d\n", r.exec.zero,
                   (long long)r.exec.shard_group, (int)r.exec.zero_impl, r.exec.offload);
        hist[dt == 0 ? 0 : dt < 1e-15 ? 1 : dt < 1e-12 ? 2 : dt <= tol_t ? 3 : 4]++;
        done++;
    }
    printf("configurations compared: %ld (drawn %ld, closed-form or graph failures %ld; "
           "%ld with pp > 1, uneven first and last stages)\n",
           done, tries, failed, uneven);
    printf("iteration time: worst relative difference %.3g, mean %.3g, > %.0e: %ld\n", max_dt,
           sum_dt / (double)(done ? done : 1), tol_t, bad_t);
    printf("  |diff| = 0: %d, < 1e-15: %d, < 1e-12: %d, <= 1e-9: %d, more: %d\n", hist[0], hist[1],
           hist[2], hist[3], hist[4]);
    printf("peak memory:    worst difference %.0f bytes, configurations differing: %ld\n", max_dm,
           bad_m);
    printf("energy:         worst relative difference %.3g, > %.0e: %ld\n", max_de, tol_t, bad_e);
    printf("graph engine: %.0f nodes in %.2f s = %.2f M nodes/s (build + evaluate)\n", nodes,
           graph_s, nodes / graph_s / 1e6);
    for (int k = 0; k < culonx_schedule_count(); k++)
        printf("  %-12s %6ld configs, time worst %.3g, memory worst %.0f B, outside: %ld\n",
               culonx_schedule_name(k), sched_n[k], sched_max[k], sched_dm[k], sched_bad[k]);
    if (max_dt > 0) print_run("worst time", &worst_t);
    if (max_dm > 0) print_run("worst memory", &worst_m);
    int all_scheds = 1;
    for (int k = 0; k < culonx_schedule_count(); k++)
        all_scheds &= sched_n[k] > 0;
    if (strict && (bad_t || bad_m || bad_e || failed || done < n || !all_scheds)) return 1;
    return 0;
}
