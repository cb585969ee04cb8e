/*
 * fast_agree.c — the closed form's replay fast paths (core/eval/replay.c,
 * core/eval/replay_prog.c: the compiled program of m' = m - k*period
 * microbatches standing for m, its jump inserting the k periods where the
 * play is checked affine, or the program of m jumping over its own) against
 * the full replay of all m microbatches (the reference,
 * cx_core_replay_set_full: no jump), per schedule.
 *
 * Draws N configurations per schedule (default 25,000) by a fixed
 * pseudo-random walk: models (GPT 1.3B-175B and Llama-3 8B/70B shapes, so
 * the first and last stages carry the embedding and the head; one draw in
 * four a mixture of experts of bench/shapes.h, whose dense and MoE layer
 * kinds make the stages differ, with ep, etp, capacity factor, all-to-all
 * overlap and node-limited routing drawn as in bench/agree.c), DGX A100 or
 * H100, TP, PP 2-16 (1 for one draw in 20), VP, DP, microbatch, microbatch
 * count m anywhere from the schedule's minimum to 40 p (160 p for one draw
 * in eight; the fast path needs m well above the warm-up), recompute, SP, distributed optimizer, DP
 * overlap; one draw in three splits the layers unevenly over the virtual
 * stages (culonx_run.vstage_layers: first, middle and last chunks all
 * differ; GPipe and 1F1B are then replayed too). Each is evaluated twice,
 * fast and full, and compared: iteration time and energy relative, peak
 * memory to the byte. Prints per schedule the configurations, how many an
 * exact closed form answered (core/eval/replay_formula.c; one draw in three
 * has p | m for it, a quarter of those m = p), how many took the program
 * of m' (all, and of the uneven splits), how many tried it and fell back to
 * the full orders, how many the full orders' program jumped (all, and of
 * the uneven splits), the worst differences and CPU time of each path.
 * Each draw is also evaluated with the DP settings toggled, once reusing the
 * chunk costs (core/eval/cost_key.c) and once built afresh: bit-identical.
 * And once more through a workspace with a sweep's 21 clocks set (f_min to
 * f_max evenly), at one of them (draw i at clock i mod 21): the replay at
 * every clock from a few of them (core/eval/replay_clocks.c: certified
 * segments) against the full replay at that clock ("clocks worst"; the
 * count of clocks played and answered from segments is printed).
 * With --strict exits 1 when any time or energy differs by more than 1e-9
 * relative or any memory by a byte, or a schedule has fewer than N.
 *
 * usage: bench_fast_agree [--n N] [--seed S] [--strict]
 * (run from the repository root: it loads the shipped A100 and H100 runs)
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "shapes.h"
#include "core/eval/closed.h"
#include "core/eval/replay_clocks.h"
#include "core/layout/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static int64_t split[2 * 16 * 8];

/* Draws one valid configuration of schedule k into r. */
static int draw(culonx_run *r, int k, const culonx_run *a100, const culonx_run *h100)
{
    /* one draw in four a mixture of experts (bench/shapes.h: several layer kinds) */
    const uint32_t nmoe = sizeof moe_shapes / sizeof moe_shapes[0];
    const moe_shape *ms = rnd(4) == 0 ? &moe_shapes[rnd(nmoe)] : NULL;
    const shape *sh = ms ? &ms->base : &shapes[rnd(sizeof shapes / sizeof shapes[0])];
    *r = rnd(2) ? *a100 : *h100;
    culonx_model *m = &r->model;
    snprintf(m->name, sizeof m->name, "%s", sh->name);
    m->arch = sh->arch, m->layers = sh->l, m->hidden = sh->h, m->heads = sh->a;
    m->kv_heads = sh->k, m->ffn = sh->f, m->vocab = sh->V, m->seq = sh->s;
    culonx_execution *e = &r->exec;
    e->ep = e->etp = 1, e->capacity_factor = 1.0;
    e->a2a_overlap = CULONX_A2A_OVERLAP_NONE, e->route_nodes = 0;
    if (ms) {
        m->head_dim = ms->d, m->experts = ms->E, m->experts_per_token = ms->k;
        m->expert_ffn = ms->fe, m->shared_experts = ms->shared;
        m->first_dense_layers = ms->first_dense, m->moe_layer_freq = ms->freq;
        m->q_rank = ms->qr, m->kv_rank = ms->kr, m->rope_dim = ms->dr;
        m->window = ms->w, m->window_every = ms->every;
    }
    static const int tps[] = {1, 2, 4, 8}, pps[] = {2, 3, 4, 6, 8, 12, 16}, dps[] = {1, 2, 4, 8};
    e->tp = tps[rnd(4)];
    e->pp = rnd(20) ? pps[rnd(7)] : 1;
    e->dp = dps[rnd(4)];
    e->schedule = (culonx_schedule)k;
    e->vp = 1;
    const cx_sched_desc *d = cx_sched_get(e->schedule);
    if (cx_sched_takes_vp(d)) e->vp = e->pp > 1 ? 2 + rnd(3) : 1;
    int nvs = (int)e->pp * d->chunks((int)e->vp);
    r->vstage_layers = NULL, r->n_vstage_layers = 0;
    if (rnd(3) == 0 && nvs > 1 && nvs <= m->layers && nvs <= (int)(sizeof split / sizeof *split)) {
        /* uneven: every virtual stage >= 1 layer, the rest spread at random */
        for (int i = 0; i < nvs; i++)
            split[i] = 1;
        for (int64_t x = nvs; x < m->layers; x++)
            split[rnd((uint32_t)nvs)]++;
        r->vstage_layers = split, r->n_vstage_layers = nvs;
    } else {
        cx_sched_shape ss = {e->pp, 0, e->vp, m->layers};
        if (cx_core_rule_pipeline(d, &ss) != CULONX_REJECT_NONE) return 0;
    }
    if (cx_core_rule_tp(m, e->tp) != CULONX_REJECT_NONE) return 0;
    e->microbatch = 1 << rnd(3);
    /* one draw in eight up to 160 p: the second try of the fast path (the
     * program of m'' = 4 m', core/eval/replay.c) */
    int64_t lo = d->min_microbatches(e->pp, e->vp), hi = (rnd(8) ? 40 : 160) * e->pp;
    int64_t mcount = lo + (int64_t)rnd((uint32_t)(hi - lo + 1));
    /* one draw in three a multiple of pp, a quarter of those m = pp: the
     * exact closed forms of core/eval/replay_formula.c need p | m */
    if (rnd(3) == 0 && mcount >= 2 * e->pp) mcount = rnd(4) ? mcount - mcount % e->pp : e->pp;
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
    /* ZeRO-2/3 side traffic loads stages unevenly (core/eval/shard.c): a
     * quarter of the draws */
    if (e->dp > 1 && rnd(4) == 0) e->zero = 2 + (int)rnd(2), e->distributed_optimizer = 1;
    culonx_error err;
    return culonx_run_check(r, &err) == CULONX_OK;
}

int main(int argc, char **argv)
{
    long n = 25000;
    int strict = 0;
    const double tol = 1e-9;
    rng_state = 42;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--strict"))
            strict = 1;
        else {
            fprintf(stderr, "usage: bench_fast_agree [--n N] [--seed S] [--strict]\n");
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
    cx_cost *cost = malloc(sizeof *cost), *cost2 = malloc(sizeof *cost2);
    cx_replay_ws *ws_fast = cx_core_replay_ws_new(), *ws_full = cx_core_replay_ws_new(),
                 *ws_clk = cx_core_replay_ws_new();
    if (!cost || !cost2 || !ws_fast || !ws_full || !ws_clk) return 3;
    int bad = 0;
    printf("%-12s %7s %7s %7s %7s %7s %7s %7s %7s %11s %11s %11s %9s %9s %11s\n", "schedule",
           "configs", "formula", "fast", "fallbk", "jumped", "uneven", "fast un", "jump un",
           "time worst", "energy worst", "memory worst", "fast cpu", "full cpu", "clocks worst");
    for (int k = 0; k < culonx_schedule_count(); k++) {
        long nformula = 0, done = 0, tries = 0, njump = 0, njump_uneven = 0, nfast = 0, nuneven = 0,
             nfast_uneven = 0, nback = 0, failed = 0, outside = 0;
        double max_dt = 0, max_de = 0, max_dm = 0, cpu_fast = 0, cpu_full = 0, max_dc = 0;
        while (done < n && tries < 100 * n) {
            tries++;
            culonx_run r;
            if (!draw(&r, k, &a100, &h100)) continue;
            culonx_result rf, rr;
            double t0 = cpu_s();
            cx_core_replay_set_full(0);
            culonx_status s1 = cx_core_closed_eval_ws(&r, 0, cost, ws_fast, &rf, &err);
            double t1 = cpu_s();
            cx_core_replay_set_full(1);
            culonx_status s2 = cx_core_closed_eval_ws(&r, 0, cost, ws_full, &rr, &err);
            double t2 = cpu_s();
            cx_core_replay_set_full(0);
            if (s1 != CULONX_OK || s2 != CULONX_OK) {
                failed += s1 != s2;
                continue;
            }
            cpu_fast += t1 - t0, cpu_full += t2 - t1;
            const cx_sched_desc *d = cx_sched_get(r.exec.schedule);
            const int fast =
                (!d->closed_exact || r.vstage_layers) && cx_core_replay_ws_fast(ws_fast);
            nfast += fast;
            nformula += (!d->closed_exact || r.vstage_layers) && cx_core_replay_ws_formula(ws_fast);
            nback += (!d->closed_exact || r.vstage_layers) && cx_core_replay_ws_fallback(ws_fast);
            const int jumped =
                (!d->closed_exact || r.vstage_layers) && cx_core_replay_ws_jumped(ws_fast);
            njump += jumped, njump_uneven += jumped && r.vstage_layers;
            nuneven += r.vstage_layers != NULL;
            nfast_uneven += fast && r.vstage_layers;
            double dt = fabs(rf.iteration_time_s - rr.iteration_time_s) / rr.iteration_time_s;
            double de = fabs(rf.energy.total_j - rr.energy.total_j) / rr.energy.total_j;
            double dm = fabs(rf.memory.peak_bytes - rr.memory.peak_bytes);
            if (dt > tol || de > tol || dm > 0) {
                if (outside < 3)
                    printf("  outside: %s %s tp%lld pp%lld vp%lld dp%lld mb%lld m%lld%s: dt %.3g "
                           "de %.3g dm %.0f\n",
                           culonx_schedule_name(k), r.model.name, (long long)r.exec.tp,
                           (long long)r.exec.pp, (long long)r.exec.vp, (long long)r.exec.dp,
                           (long long)r.exec.microbatch, (long long)rr.microbatches,
                           r.vstage_layers ? " uneven" : "", dt, de, dm);
                outside++;
            }
            max_dt = fmax(max_dt, dt), max_de = fmax(max_de, de), max_dm = fmax(max_dm, dm);
            /* cost reuse (core/eval/cost_key.c): the run with other DP
             * settings through the workspace (chunk costs reused) and built
             * afresh must give the same bits */
            culonx_run r2 = r;
            if (r2.exec.dp > 1) r2.exec.distributed_optimizer = !r2.exec.distributed_optimizer;
            r2.exec.dp_overlap = !r2.exec.dp_overlap;
            culonx_result ra, rb;
            if (cx_core_closed_eval_ws(&r2, 0, cost, ws_fast, &ra, &err) == CULONX_OK &&
                cx_core_closed_eval(&r2, 0, cost2, &rb, &err) == CULONX_OK &&
                (ra.iteration_time_s != rb.iteration_time_s ||
                 ra.energy.total_j != rb.energy.total_j ||
                 ra.memory.peak_bytes != rb.memory.peak_bytes)) {
                if (outside < 3)
                    printf("  cost reuse differs: %s %s tp%lld pp%lld dp%lld\n",
                           culonx_schedule_name(k), r.model.name, (long long)r.exec.tp,
                           (long long)r.exec.pp, (long long)r.exec.dp);
                outside++;
            }
            /* and at another clock (the shape kept, priced again) */
            const double f2 = 0.8 * r.system.gpu.max_mhz;
            if (f2 > 0 && cx_core_closed_eval_ws(&r2, f2, cost, ws_fast, &ra, &err) == CULONX_OK &&
                cx_core_closed_eval(&r2, f2, cost2, &rb, &err) == CULONX_OK &&
                (ra.iteration_time_s != rb.iteration_time_s ||
                 ra.energy.total_j != rb.energy.total_j ||
                 ra.memory.peak_bytes != rb.memory.peak_bytes)) {
                if (outside < 3)
                    printf("  cost reuse at another clock differs: %s %s tp%lld pp%lld dp%lld\n",
                           culonx_schedule_name(k), r.model.name, (long long)r.exec.tp,
                           (long long)r.exec.pp, (long long)r.exec.dp);
                outside++;
            }
            /* a sweep's clocks set: one of them, against the full replay there */
            const culonx_gpu *g = &r.system.gpu;
            const double lo = g->min_mhz > 0 ? g->min_mhz : 0.15 * g->max_mhz;
            double mhz[21];
            for (int q = 0; q < 21; q++)
                mhz[q] = lo + q * (g->max_mhz - lo) / 20;
            cx_core_replay_ws_set_clocks(ws_clk, mhz, 21);
            culonx_result rc, rcf;
            const double fc = mhz[done % 21];
            culonx_status s3 = cx_core_closed_eval_ws(&r, fc, cost, ws_clk, &rc, &err);
            cx_core_replay_set_full(1);
            culonx_status s4 = cx_core_closed_eval_ws(&r, fc, cost, ws_full, &rcf, &err);
            cx_core_replay_set_full(0);
            if (s3 != s4) failed++;
            if (s3 == CULONX_OK && s4 == CULONX_OK) {
                const double dc =
                    fabs(rc.iteration_time_s - rcf.iteration_time_s) / rcf.iteration_time_s;
                max_dc = fmax(max_dc, dc);
                if (dc > tol || rc.memory.peak_bytes != rcf.memory.peak_bytes) {
                    if (outside < 3)
                        printf("  clocks outside: %s %s tp%lld pp%lld m%lld at %.0f MHz: dt %.3g\n",
                               culonx_schedule_name(k), r.model.name, (long long)r.exec.tp,
                               (long long)r.exec.pp, (long long)rcf.microbatches, fc, dc);
                    outside++;
                }
            }
            done++;
        }
        printf("%-12s %7ld %7ld %7ld %7ld %7ld %7ld %7ld %7ld %11.3g %11.3g %9.0f B %8.2fs %8.2fs "
               "%11.3g\n",
               culonx_schedule_name(k), done, nformula, nfast, nback, njump, nuneven, nfast_uneven,
               njump_uneven, max_dt, max_de, max_dm, cpu_fast, cpu_full, max_dc);
        if (outside || failed || done < n) bad = 1;
    }
    long long played, segs;
    cx_core_replay_clocks_counts(&played, &segs);
    printf("clocks through the workspace with a sweep's clocks: %lld played, %lld answered from "
           "certified segments\n",
           played, segs);
    cx_core_replay_ws_free(ws_fast);
    cx_core_replay_ws_free(ws_full);
    cx_core_replay_ws_free(ws_clk);
    free(cost);
    free(cost2);
    return strict && bad ? 1 : 0;
}
