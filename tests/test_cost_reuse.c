/*
 * test_cost_reuse.c — the cost reuses of a sweep's worker against cold
 * builds, bit for bit (core/README.md, "Sweeps", "Clock-independent work,
 * done once"): one cost and workspace (its key pinned to the run, as the
 * sweep pins its worker's) walk executions in sweep order, so that
 * consecutive ones differ in the DP settings (DP part only), the clock
 * (reprice), or recompute, TP overlap, ZeRO and offload (re-execution on
 * the kept op tables, cx_core_cost_reexec), through the memory check first
 * (memory-only builds) as the sweep does. Every result must equal a fresh
 * cx_core_closed_eval's, and so must the cost itself: the chunk classes,
 * the per-run stage times (closed_sums and energy read them), the
 * per-stage bytes, the DP values per run and, once written
 * (cx_core_cost_dp_stages: only where a run changed), per stage, and the
 * DP bytes summed for the energy. The runs are shipped configs: dense
 * (megatron-22b at pp 4, megatron-1t whose A100 power limit caps passes),
 * MoE (mixtral, interleaved with vp 8), an uneven split (deepseek-v3) and
 * ZeRO-3 (llama3-70b-fsdp). And cx_core_cost_copy (the used parts of the
 * arrays only) against the whole struct copied, as the clock lanes reprice
 * a copy. And the memory floors (cx_mem_floor) below the exact peaks.
 */
#include "culonx.h"
#include "core/eval/closed.h"
#include "core/eval/cost.h"
#include "core/eval/cost_key.h"
#include "core/eval/replay.h"
#include "models/model.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

/* The priced values of a and b (same shape) agree to the bit. */
static int same_cost(const cx_cost *a, const cx_cost *b)
{
    int ok = a->nclass == b->nclass && a->nsrun == b->nsrun && a->nprun == b->nprun &&
             a->p == b->p && a->priced == b->priced && same(&a->p2p_s, &b->p2p_s, sizeof(double));
    for (int k = 0; ok && k < a->nclass; k++)
        ok = same(&a->cls[k], &b->cls[k], offsetof(cx_chunk_cost, has_embed)) &&
             a->cls[k].npieces == b->cls[k].npieces;
    const size_t r = (size_t)a->nsrun * sizeof(double), s = (size_t)a->p * sizeof(double);
    ok = ok && same(a->run_f_s, b->run_f_s, r) && same(a->run_b_s, b->run_b_s, r) &&
         same(a->run_w_s, b->run_w_s, r) && same(a->run_e_j, b->run_e_j, r) &&
         same(a->run_busy_s, b->run_busy_s, r) && same(a->run_bytes, b->run_bytes, r);
    const size_t q = (size_t)a->nprun * sizeof(double);
    ok = ok && same(a->stage_act_bytes, b->stage_act_bytes, s) &&
         same(a->stage_work_bytes, b->stage_work_bytes, s) &&
         same(a->stage_params, b->stage_params, s) &&
         same(a->stage_expert_params, b->stage_expert_params, s) &&
         same(a->prun, b->prun, (size_t)(a->nprun + 1) * sizeof(int16_t)) &&
         same(a->prun_of, b->prun_of, (size_t)a->p * sizeof(int16_t)) &&
         same(a->dpr_s, b->dpr_s, q) && same(a->dpr_tier, b->dpr_tier, 2 * q) &&
         same(a->dpr_nb, b->dpr_nb, (size_t)a->nprun * sizeof(int)) &&
         same(a->optr_s, b->optr_s, q) && same(a->optr_j, b->optr_j, q) &&
         same(a->optr_bytes, b->optr_bytes, q) &&
         same(a->dp_tier_sum, b->dp_tier_sum, sizeof a->dp_tier_sum);
    return ok;
}

/* The per-stage DP values of a and b agree to the bit. */
static int same_stages(const cx_cost *a, const cx_cost *b)
{
    const size_t s = (size_t)a->p * sizeof(double);
    return !a->dp_stale && !b->dp_stale && same(a->dp_s, b->dp_s, s) &&
           same(a->optimizer_s, b->optimizer_s, s) && same(a->optimizer_j, b->optimizer_j, s) &&
           same(a->optimizer_bytes, b->optimizer_bytes, s) &&
           same(a->dp_tier_bytes, b->dp_tier_bytes, 2 * s) &&
           same(a->dp_nb, b->dp_nb, (size_t)a->p * sizeof(int));
}

/* The run of a shipped config at tp x pp (dp from its GPUs), schedule
 * sched with vp chunks. */
static culonx_run *load(const char *path, int64_t tp, int64_t pp, int sched, int64_t vp)
{
    culonx_error err;
    culonx_run *run = calloc(1, sizeof *run);
    CU_ASSERT_FATAL(run != NULL);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load(path, NULL, 0, NULL, run, &err), CULONX_OK);
    culonx_execution *e = &run->exec;
    e->tp = tp, e->pp = pp, e->vp = vp, e->schedule = (culonx_schedule)sched;
    e->dp = e->gpus / (tp * pp * (e->cp > 1 ? e->cp : 1));
    e->sequence_parallel = tp > 1;
    return run;
}

/* A name no build writes: a cost whose op tables still carry it was not
 * rebuilt. */
static const char kept_mark[] = "kept";

static void walk(const char *path, int64_t tp, int64_t pp, int sched, int64_t vp, long *n,
                 long *kept)
{
    culonx_error err;
    culonx_run *run = load(path, tp, pp, sched, vp);
    culonx_execution *e = &run->exec;
    const int moe = run->model.arch == CULONX_ARCH_MOE;
    cx_cost *c = malloc(sizeof *c), *cold = malloc(sizeof *cold);
    cx_replay_ws *ws = cx_core_replay_ws_new();
    CU_ASSERT_FATAL(c && cold && ws);
    cx_core_cost_key_pin(cx_core_replay_ws_key(ws), run);
    const double fmax = run->system.gpu.max_mhz, clk[2] = {fmax, 0.7 * fmax};
    const int offl[4] = {0, CULONX_OFFLOAD_WEIGHTS, CULONX_OFFLOAD_OPTIMIZER,
                         CULONX_OFFLOAD_ACTIVATIONS};
    int built = 0;
    /* then whole builds into the same cost (the system's defaults kept,
     * cx_core_cost_build_same_sys): twice the microbatch (the same stage
     * maps and equal stages, kept), then half the stages (made again) */
    const int64_t mb = e->microbatch;
    for (int pass = 0; pass < (pp > 1 ? 3 : 2); pass++)
        for (int rc = 0; rc < 3; rc++)
            for (int tpo = 0; tpo < (tp > 1 ? 3 : 1); tpo++)
                for (int z = 0; z < (moe ? 2 : 4); z++)
                    for (int o = 0; o < 4; o++)
                        for (int f = 0; f < 2; f++)
                            for (int dopt = 0; dopt < (z == 0 ? 2 : 1); dopt++)
                                for (int ovl = 0; ovl < 2; ovl++) {
                                    e->microbatch = pass == 1 ? 2 * mb : mb;
                                    e->pp = pass == 2 ? pp / 2 : pp;
                                    e->dp = e->gpus / (tp * e->pp * (e->cp > 1 ? e->cp : 1));
                                    e->recompute = (culonx_recompute)rc;
                                    e->tp_overlap = (culonx_tp_overlap)tpo;
                                    e->zero = z, e->offload = offl[o];
                                    e->distributed_optimizer = z >= 1 || dopt;
                                    e->dp_overlap = ovl, e->clock_mhz = clk[f];
                                    culonx_result a, b;
                                    double peak;
                                    int complete;
                                    const char *mark = c->stack.part[0].name;
                                    if (cx_core_closed_eval(run, clk[f], cold, &b, &err) !=
                                        CULONX_OK)
                                        continue;
                                    /* memory first, then the time (the sweep's order) */
                                    CU_ASSERT_EQUAL_FATAL(cx_core_closed_memory(run, clk[f], c, ws,
                                                                                &peak, &complete,
                                                                                &err),
                                                          CULONX_OK);
                                    if (built && mark == kept_mark &&
                                        c->stack.part[0].name == kept_mark)
                                        (*kept)++;
                                    CU_ASSERT(peak == b.memory.peak_bytes);
                                    CU_ASSERT_EQUAL_FATAL(
                                        complete
                                            ? cx_core_closed_finish(run, c, ws, &a, &err)
                                            : cx_core_closed_eval_ws(run, clk[f], c, ws, &a, &err),
                                        CULONX_OK);
                                    CU_ASSERT(same(&a, &b, sizeof a));
                                    CU_ASSERT(same_cost(c, cold)); /* the per-run values */
                                    cx_core_cost_dp_stages(c);     /* and per stage */
                                    CU_ASSERT(same_stages(c, cold));
                                    c->stack.part[0].name = kept_mark, built = 1;
                                    (*n)++;
                                }
    cx_core_replay_ws_free(ws);
    free(c), free(cold), free(run);
}

/* cx_core_cost_copy into a cost full of other bytes: the copy evaluates,
 * and prices again at another clock, as the whole struct copied does. */
static void copy_case(const char *path, int64_t tp, int64_t pp, int sched, int64_t vp, int *n)
{
    culonx_error err;
    culonx_run *run = load(path, tp, pp, sched, vp);
    cx_cost *c = malloc(sizeof *c), *whole = malloc(sizeof *c), *part = malloc(sizeof *c);
    CU_ASSERT_FATAL(c && whole && part);
    culonx_result r0, r1, r2;
    if (cx_core_closed_eval(run, 0, c, &r0, &err) != CULONX_OK) {
        free(c), free(whole), free(part), free(run);
        return;
    }
    memcpy(whole, c, sizeof *c);
    memset(part, 0xa5, sizeof *part);
    cx_core_cost_copy(part, c);
    CU_ASSERT_EQUAL(cx_core_closed_finish(run, whole, NULL, &r1, &err), CULONX_OK);
    CU_ASSERT_EQUAL(cx_core_closed_finish(run, part, NULL, &r2, &err), CULONX_OK);
    CU_ASSERT(same(&r0, &r1, sizeof r0) && same(&r1, &r2, sizeof r1));
    const double f = 0.75 * run->system.gpu.max_mhz;
    cx_core_cost_reprice(run, f, whole), cx_core_cost_reprice(run, f, part);
    cx_core_cost_dp_stages(whole), cx_core_cost_dp_stages(part); /* per stage when asked */
    CU_ASSERT(same_cost(whole, part) && same_stages(whole, part));
    CU_ASSERT_EQUAL(cx_core_closed_finish(run, whole, NULL, &r1, &err), CULONX_OK);
    CU_ASSERT_EQUAL(cx_core_closed_finish(run, part, NULL, &r2, &err), CULONX_OK);
    CU_ASSERT(same(&r1, &r2, sizeof r1));
    (*n)++;
    free(c), free(whole), free(part), free(run);
}

static void test_copy(void)
{
    int n = 0;
    copy_case("configs/megatron-22b.xml", 8, 4, CULONX_SCHED_1F1B, 1, &n);
    copy_case("configs/megatron-22b.xml", 2, 4, CULONX_SCHED_INTERLEAVED, 2, &n);
    copy_case("configs/megatron-22b.xml", 2, 8, CULONX_SCHED_ZB_H1, 1, &n);
    copy_case("configs/megatron-22b.xml", 2, 8, CULONX_SCHED_ZB_V, 1, &n);
    copy_case("configs/megatron-1t.xml", 8, 64, CULONX_SCHED_1F1B, 1, &n);
    copy_case("configs/mixtral-8x7b-h100.xml", 1, 4, CULONX_SCHED_INTERLEAVED, 8, &n);
    copy_case("configs/deepseek-v3-h100.xml", 1, 8, CULONX_SCHED_DUALPIPE_V, 1, &n);
    CU_ASSERT(n == 7);
}

static void test_reuse_is_cold(void)
{
    long n = 0, kept = 0;
    walk("configs/megatron-22b.xml", 8, 4, CULONX_SCHED_1F1B, 1, &n, &kept);
    walk("configs/megatron-22b.xml", 2, 4, CULONX_SCHED_INTERLEAVED, 2, &n, &kept);
    walk("configs/megatron-1t.xml", 8, 64, CULONX_SCHED_1F1B, 1, &n, &kept);
    walk("configs/megatron-1t.xml", 8, 32, CULONX_SCHED_GPIPE, 1, &n, &kept);
    walk("configs/mixtral-8x7b-h100.xml", 1, 4, CULONX_SCHED_INTERLEAVED, 8, &n, &kept);
    walk("configs/deepseek-v3-h100.xml", 1, 16, CULONX_SCHED_1F1B, 1, &n, &kept);
    walk("configs/llama3-70b-fsdp-h100.xml", 1, 1, CULONX_SCHED_1F1B, 1, &n, &kept);
    printf("\n  %ld evaluations, %ld on kept op tables\n", n, kept);
    CU_ASSERT(n > 2000);
    CU_ASSERT(kept > 9 * n / 10); /* every change but the stages' keeps the op tables */
}

/* The memory floors (closed.h cx_mem_floor) against the exact peaks: a
 * floor taken at one execution, with the activations of each recompute mode
 * taken as the sweep takes them (at the next check in that mode), lies at
 * or below the peak that cx_core_closed_memory gives for every execution of
 * its key (other microbatch, larger or smaller, recompute, distributed
 * optimizer, DP overlap, clock), each checked on a cold cost; executions
 * the floor does not cover have no key. */
static void floor_case(const char *path, int64_t tp, int64_t pp, int sched, long *n, long *above,
                       long *act)
{
    culonx_error err;
    culonx_run *run = load(path, tp, pp, sched, 1);
    culonx_execution *e = &run->exec;
    cx_cost *c = malloc(sizeof *c);
    cx_replay_ws *ws = cx_core_replay_ws_new();
    CU_ASSERT_FATAL(c && ws);
    const int64_t mbs[6] = {4, 1, 16, 2, 8, 3}; /* up and down from the first */
    for (int dt = 0; dt < 2; dt++) {
        e->dtype = dt ? CULONX_DTYPE_FP8 : CULONX_DTYPE_BF16;
        cx_mem_floor f = {0}, snap[6]; /* snap[j]: f after microbatch j's checks */
        culonx_execution key, k2;
        int have = 0;
        for (int mb = 0; mb < 6; snap[mb++] = f)
            for (int rc = 0; rc < 3; rc++)
                for (int dopt = 0; dopt < 2; dopt++)
                    for (int ovl = 0; ovl < 2; ovl++) {
                        e->microbatch = mbs[mb], e->recompute = (culonx_recompute)rc;
                        e->distributed_optimizer = dopt, e->zero = 0, e->dp_overlap = ovl;
                        e->clock_mhz = ovl ? 0.8 * run->system.gpu.max_mhz : 0;
                        double peak;
                        int complete;
                        if (cx_core_closed_memory(run, e->clock_mhz, c, ws, &peak, &complete,
                                                  &err) != CULONX_OK)
                            continue;
                        const int keyed = cx_core_mem_floor_key(run, &k2);
                        CU_ASSERT(keyed == cx_sched_get(e->schedule)->closed_exact);
                        if (!keyed) continue;
                        if (!have) {
                            key = k2, have = 1;
                            cx_core_mem_floor_take(c, &key, &f);
                            CU_ASSERT_FATAL(f.valid);
                        }
                        CU_ASSERT(memcmp(&key, &k2, sizeof key) == 0);
                        const double lb = cx_core_mem_floor(&f, e);
                        CU_ASSERT(lb <= peak);
                        *above += lb > 0.5 * peak;
                        (*n)++;
                        /* activations taken in this mode at other microbatches */
                        for (int j = 0; j < mb; j++) {
                            CU_ASSERT(snap[j].act_mb[rc] == mbs[j]);
                            CU_ASSERT(cx_core_mem_floor(&snap[j], e) <= peak);
                            /* the activation term itself (the peak adds workspace) */
                            const double scale = (double)e->microbatch / (double)mbs[j];
                            for (int h = 0; h < snap[j].nh; h++)
                                CU_ASSERT(snap[j].act_bytes[rc][h] * scale * (1.0 - 1e-9) <=
                                          c->stage_act_bytes[snap[j].head[h]]);
                            (*act)++;
                        }
                        cx_core_mem_floor_take_act(c, &f);
                        CU_ASSERT(f.act_mb[rc] == e->microbatch);
                    }
        /* not covered: ZeRO 2, offload */
        e->zero = 2;
        CU_ASSERT(!cx_core_mem_floor_key(run, &k2));
        e->zero = 0, e->offload = CULONX_OFFLOAD_OPTIMIZER;
        CU_ASSERT(!cx_core_mem_floor_key(run, &k2));
        e->offload = 0;
    }
    cx_core_replay_ws_free(ws);
    free(c), free(run);
}

static void test_mem_floor(void)
{
    long n = 0, above = 0, act = 0;
    floor_case("configs/megatron-22b.xml", 8, 4, CULONX_SCHED_1F1B, &n, &above, &act);
    floor_case("configs/megatron-22b.xml", 2, 8, CULONX_SCHED_GPIPE, &n, &above, &act);
    floor_case("configs/megatron-1t.xml", 8, 64, CULONX_SCHED_1F1B, &n, &above, &act);
    floor_case("configs/megatron-1t.xml", 8, 16, CULONX_SCHED_GPIPE, &n, &above, &act);
    floor_case("configs/gpt3-175b.xml", 4, 8, CULONX_SCHED_1F1B, &n, &above, &act);
    floor_case("configs/llama3-8b-h100.xml", 1, 2, CULONX_SCHED_GPIPE, &n, &above, &act);
    floor_case("configs/mixtral-8x7b-h100.xml", 1, 4, CULONX_SCHED_1F1B, &n, &above, &act);
    floor_case("configs/llama2-7b-v100.xml", 1, 4, CULONX_SCHED_GPIPE, &n, &above, &act);
    floor_case("configs/llama2-70b-h100.xml", 4, 4, CULONX_SCHED_INTERLEAVED, &n, &above, &act);
    floor_case("configs/megatron-22b.xml", 2, 8, CULONX_SCHED_ZB_H1, &n, &above, &act); /* no key */
    printf("\n  %ld floors below their peaks, %ld above half of it, %ld with activations from "
           "another microbatch\n",
           n, above, act);
    CU_ASSERT(n > 1000);
    CU_ASSERT(above > n / 4); /* the floor is most of the peak often */
    CU_ASSERT(act > n);
}

/* What the activation floors rest on (closed.h cx_mem_floor): every part's
 * saved bytes per microbatch, in every recompute mode, are proportional to
 * the microbatch, for every model family and shape (TP, SP, CP, attention
 * kernel, experts): b x the bytes at microbatch 1 up to rounding (1e-12,
 * far below the floor's 1e-9). */
static void test_act_proportional(void)
{
    const char *paths[] = {"configs/megatron-22b.xml",      "configs/gpt3-175b.xml",
                           "configs/llama3-8b-h100.xml",    "configs/llama2-70b-h100.xml",
                           "configs/mixtral-8x7b-h100.xml", "configs/deepseek-v3-h100.xml"};
    const double bs[] = {2, 3, 4, 7, 16, 64, 1024};
    int arch_seen[8] = {0};
    long n = 0;
    cx_model_stack *one = malloc(sizeof *one), *st = malloc(sizeof *st);
    CU_ASSERT_FATAL(one && st);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        culonx_run *run = load(paths[i], 1, 1, CULONX_SCHED_1F1B, 1);
        const culonx_model *md = &run->model;
        if ((int)md->arch >= 0 && (int)md->arch < 8) arch_seen[md->arch] = 1;
        for (int shape = 0; shape < 16; shape++) {
            cx_model_dims d = {0};
            d.t = shape & 1 ? 4.0 : 1.0;
            d.sp = (shape & 2) && d.t > 1;
            d.flash = (shape >> 2) & 1;
            d.cp = shape & 8 ? 2.0 : 1.0;
            d.e = 2.0;
            d.ep = shape & 8 ? 2.0 : 1.0, d.etp = 1.0, d.capacity = shape & 4 ? 1.25 : 1.0;
            d.b = 1.0;
            CU_ASSERT_FATAL(cx_model_build_dims(md, &d, one) == 0);
            for (size_t k = 0; k < sizeof bs / sizeof *bs; k++) {
                d.b = bs[k];
                CU_ASSERT_FATAL(cx_model_build_dims(md, &d, st) == 0);
                CU_ASSERT(st->nparts == one->nparts);
                for (int pi = 0; pi < st->nparts; pi++)
                    for (int rc = 0; rc < 3; rc++) {
                        const double a = st->part[pi].act_bytes[rc];
                        const double x = bs[k] * one->part[pi].act_bytes[rc];
                        CU_ASSERT(a >= 0 && fabs(a - x) <= 1e-12 * a);
                        n++;
                    }
            }
        }
        free(run);
    }
    free(one), free(st);
    /* every family registered is covered */
    for (int a = 0; a < 8; a++)
        if (cx_model_family_of((culonx_arch)a)) CU_ASSERT(arch_seen[a]);
    printf("\n  %ld saved-byte sums proportional to the microbatch\n", n);
    CU_ASSERT(n > 1000);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
    CU_pSuite s = CU_add_suite("cost_reuse", NULL, NULL);
    CU_add_test(s, "reuses give the cold costs and results", test_reuse_is_cold);
    CU_add_test(s, "the live-range copy is the whole copy", test_copy);
    CU_add_test(s, "memory floors lie below the peaks", test_mem_floor);
    CU_add_test(s, "saved activations are proportional to the microbatch", test_act_proportional);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
