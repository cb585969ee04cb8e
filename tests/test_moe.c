/*
 * test_moe.c — mixture of experts (models/moe.c, core/eval/cost.c): the
 * shipped MoE models' total and active parameters against the published
 * figures; dense models' active = total; expert FLOPs are the balanced
 * share whatever ep and the capacity factor; expert parameters shard by
 * ep x etp and their optimizer over the expert data-parallel group; the
 * all-to-all runs on NVLink inside a node and on the NIC across nodes;
 * the capacity factor slows the step but keeps the model FLOPs; closed
 * form and graph engine agree on MoE runs (time to 1e-9, memory).
 *
 * Published parameter counts (total / active):
 *   Mixtral 8x7B     46.7B / 12.9B   Jiang et al., "Mixtral of Experts", 2024
 *   Mixtral 8x22B    141B  / 39B     Mistral AI release notes, April 2024
 *   DeepSeek-V3      671B  / 37B     DeepSeek-V3 Technical Report, 2024
 *   Qwen3-30B-A3B    30.5B / 3.3B    Qwen3 model card / technical report, 2025
 *   Qwen3-235B-A22B  235B  / 22B     Qwen3 technical report, 2025
 *   gpt-oss-120b     116.83B / 5.13B gpt-oss model card, 2025 (active counts
 *                                    the unembedding, not the embedding)
 * Totals must be within 0.5%. Active figures with three significant digits
 * too (gpt-oss converted to culonx's convention, + V h); the two-digit ones
 * (37B, 3.3B, 22B) are truncations (culonx: 37.55B, 3.353B, 22.19B, each
 * inside [published, published + one unit of the last digit)) and are
 * held to that interval (models/README.md, "Mixture of experts").
 */
#include "core/eval/cost.h"
#include "models/model.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static culonx_run run_of(const char *model, const char *exec)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "<run><model file=\"models/%s.xml\"/><system file=\"systems/h100-80g.xml\"/>"
             "<execution %s/></run>",
             model, exec);
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    culonx_status st = culonx_run_load_buffer("configs/test.xml", buf, strlen(buf), NULL, &r, &err);
    if (st != CULONX_OK) fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
    return r;
}

static double rel(double a, double b)
{
    return b == 0 ? fabs(a) : fabs(a - b) / fabs(b);
}

#define ONE_NODE "gpus=\"8\" tp=\"1\" pp=\"1\" microbatch=\"1\" global-batch=\"8\""

static void test_published_params(void)
{
    static const struct {
        const char *name;
        double total, active; /* published, in units of 1e9 */
        double active_unit;   /* > 0: a truncated figure, this its last digit's unit */
    } pub[] = {
        {"mixtral-8x7b", 46.7, 12.9, 0},
        {"mixtral-8x22b", 141, 39, 0},
        {"deepseek-v3", 671, 37, 1},
        {"qwen3-30b-a3b", 30.5, 3.3, 0.1},
        {"qwen3-235b-a22b", 235, 22, 1},
        /* 5.13B without the embedding (V h = 201088 x 2880) */
        {"gpt-oss-120b", 116.83, 5.13 + 201088.0 * 2880.0 / 1e9, 0},
    };
    for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++) {
        culonx_run r = run_of(pub[i].name, ONE_NODE);
        double total = cx_model_total_params(&r.model) / 1e9;
        double active = cx_model_active_params(&r.model) / 1e9;
        printf("\n  %-16s total %.3fB (published %.2fB, %+.2f%%), active %.3fB (%.2fB)",
               pub[i].name, total, pub[i].total, 100.0 * (total / pub[i].total - 1.0), active,
               pub[i].active);
        CU_ASSERT(rel(total, pub[i].total) <= 0.005);
        int ok = pub[i].active_unit > 0
                     ? active >= pub[i].active && active < pub[i].active + pub[i].active_unit
                     : rel(active, pub[i].active) <= 0.005;
        CU_ASSERT(ok);
        CU_ASSERT(active < total);
    }
    putchar('\n');
}

static void test_dense_active(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/llama3-8b-h100.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    culonx_result res;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &res, &err), CULONX_OK);
    CU_ASSERT_EQUAL(res.active_params, res.params);
    CU_ASSERT_EQUAL(res.breakdown.ep_comm_s, 0.0);
    CU_ASSERT_EQUAL(res.memory.expert_bytes, 0.0);
}

/* Mixtral on 2 nodes: tp 1, pp 1, dp 16 with ep 1, 8 (in a node) or 16 is
 * impossible (8 experts) — ep 8 with etp 2 spans both nodes. */
#define TWO_NODES                                                                                  \
    "gpus=\"16\" tp=\"1\" pp=\"1\" microbatch=\"1\" global-batch=\"16\" "                          \
    "distributed-optimizer=\"true\""

static void test_expert_sharding(void)
{
    culonx_run a = run_of("mixtral-8x7b", TWO_NODES);
    culonx_run b = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\"");
    culonx_run c = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\" etp=\"2\"");
    culonx_result ra, rb, rc;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&a, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&b, &rb, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&c, &rc, &err), CULONX_OK);
    /* the same useful FLOPs whatever the expert layout */
    CU_ASSERT(rel(rb.model_flops, ra.model_flops) < 1e-12);
    CU_ASSERT(rel(rc.model_flops, ra.model_flops) < 1e-12);
    /* experts held: all of them (ep 1), 1/8, 1/16 */
    const double E = 32.0 * 8.0 * 3.0 * 4096.0 * 14336.0;
    const double dense = ra.params - E;
    CU_ASSERT(rel(ra.params_per_gpu, ra.params) < 1e-12);
    CU_ASSERT(rel(rb.params_per_gpu, dense + E / 8.0) < 1e-12);
    CU_ASSERT(rel(rc.params_per_gpu, dense + E / 16.0) < 1e-12);
    /* expert optimizer over the expert data-parallel group: 16/8 = 2, 16/16 = 1 */
    CU_ASSERT(rel(rb.memory.expert_bytes, (2.0 + 4.0) * E / 8.0 + 12.0 * E / 8.0 / 2.0) < 1e-12);
    CU_ASSERT(rel(rc.memory.expert_bytes, (2.0 + 4.0 + 12.0) * E / 16.0) < 1e-12);
    CU_ASSERT(rel(rb.memory.optimizer_bytes, 12.0 * dense / 16.0 + 12.0 * E / 8.0 / 2.0) < 1e-12);
    /* no expert collectives without ep or etp; the all-to-all with */
    CU_ASSERT_EQUAL(ra.breakdown.ep_comm_s, 0.0);
    CU_ASSERT(rb.breakdown.ep_comm_s > 0.0);
    CU_ASSERT(rc.breakdown.ep_comm_s > rb.breakdown.ep_comm_s); /* across nodes, + etp */
}

/* The dispatch all-to-all on NVLink inside a node, on the NIC across. */
static void test_all_to_all_tier(void)
{
    culonx_run in = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\"");
    culonx_run out = run_of("mixtral-8x7b", TWO_NODES " ep=\"4\" etp=\"4\"");
    cx_cost *c = malloc(sizeof *c);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&in, 0, c, &err), CULONX_OK);
    const cx_chunk_cost *cc = cx_core_cost_chunk(c, 0);
    CU_ASSERT(cc->tp_tier_bytes[0] > 0);
    CU_ASSERT_EQUAL(cc->tp_tier_bytes[1], 0.0);
    /* bytes: 4 all-to-alls per layer (dispatch, combine, forward and
     * backward), each (ep-1)/ep of T k h e */
    const double T = 4096.0, v = 2.0 * T * 2.0 * 4096.0;
    CU_ASSERT(rel(cc->tp_tier_bytes[0], 32.0 * 4.0 * v * 7.0 / 8.0) < 1e-12);
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&out, 0, c, &err), CULONX_OK);
    cc = cx_core_cost_chunk(c, 0);
    CU_ASSERT(cc->tp_tier_bytes[1] > 0); /* ep members 4 ranks apart: 2 per node */
    free(c);
}

/* hw/net.c: the all-to-all sends V/N to each peer, on NVLink inside the
 * node and on the NIC across, both at once. */
static void test_all_to_all_cost(void)
{
    culonx_run r = run_of("mixtral-8x7b", ONE_NODE);
    const culonx_system *s = &r.system;
    const double V = 1e9, b0 = s->tier[0].bw_gbps * 1e9 * s->tier[0].efficiency;
    const double b1 = s->tier[1].bw_gbps * 1e9 * s->tier[1].efficiency;
    cx_hw_group in = {8, 8}, across = {64, 8}, spread = {8, 1};
    cx_hw_comm c = cx_hw_coll_cost(s, CX_HW_ALL_TO_ALL, V, in);
    CU_ASSERT(rel(c.time_s, 7.0 / 8.0 * V / b0 + 7.0 * s->tier[0].latency_s) < 1e-12);
    CU_ASSERT(rel(c.bytes_tier[0], 7.0 / 8.0 * V) < 1e-12);
    CU_ASSERT_EQUAL(c.bytes_tier[1], 0.0);
    c = cx_hw_coll_cost(s, CX_HW_ALL_TO_ALL, V, across);
    const double t0 = 7.0 / 64.0 * V / b0, t1 = 56.0 / 64.0 * V / b1;
    CU_ASSERT(rel(c.time_s, fmax(t0, t1) + 63.0 * s->tier[1].latency_s) < 1e-12);
    CU_ASSERT(rel(c.bytes_tier[0] + c.bytes_tier[1], 63.0 / 64.0 * V) < 1e-12);
    c = cx_hw_coll_cost(s, CX_HW_ALL_TO_ALL, V, spread);
    CU_ASSERT_EQUAL(c.bytes_tier[0], 0.0);
    CU_ASSERT(rel(c.bytes_tier[1], 7.0 / 8.0 * V) < 1e-12);
}

/* The busiest expert rank keeps c times the expert activations. */
static void test_capacity_memory(void)
{
    culonx_run a = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\"");
    culonx_run b = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\" capacity-factor=\"2\"");
    cx_cost *c = malloc(sizeof *c);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&a, 0, c, &err), CULONX_OK);
    const cx_model_part *pa = &c->stack.part[CX_MODEL_PART_LAYER + 1];
    double sa = 0, sx = 0;
    for (int i = 0; i < pa->ops.nops; i++) {
        sa += pa->ops.op[i].saved_bytes;
        if (pa->ops.op[i].load > 1.0 || strncmp(pa->ops.op[i].name, "expert", 6) == 0)
            sx += pa->ops.op[i].saved_bytes;
    }
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&b, 0, c, &err), CULONX_OK);
    const cx_model_part *pb = &c->stack.part[CX_MODEL_PART_LAYER + 1];
    double sb = 0;
    for (int i = 0; i < pb->ops.nops; i++)
        sb += pb->ops.op[i].saved_bytes;
    CU_ASSERT(sx > 0);
    CU_ASSERT(rel(sb, sa + sx) < 1e-12);
    free(c);
}

static void test_capacity_factor(void)
{
    culonx_run a = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\"");
    culonx_run b = run_of("mixtral-8x7b", TWO_NODES " ep=\"8\" capacity-factor=\"1.5\"");
    culonx_result ra, rb;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&a, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&b, &rb, &err), CULONX_OK);
    CU_ASSERT(rel(rb.model_flops, ra.model_flops) < 1e-12);
    CU_ASSERT(rb.iteration_time_s > ra.iteration_time_s);
    CU_ASSERT(rb.breakdown.ep_comm_s > 1.4 * ra.breakdown.ep_comm_s);
    CU_ASSERT(rb.mfu < ra.mfu);
}

/* Expert GEMMs: E/ep GEMMs of T k ep / E tokens; smaller with more
 * experts per token budget -> lower efficiency per FLOP. */
static void test_grouped_gemm(void)
{
    culonx_run r = run_of("qwen3-30b-a3b", TWO_NODES " ep=\"8\"");
    cx_model_stack st;
    cx_model_dims d = {1, 1, 2, 0, 1, 1, 8, 1, 1};
    CU_ASSERT_EQUAL_FATAL(cx_model_build_dims(&r.model, &d, &st), 0);
    const cx_model_part *p = &st.part[CX_MODEL_PART_LAYER + 1];
    int found = 0;
    for (int i = 0; i < p->ops.nops; i++) {
        const cx_model_op *o = &p->ops.op[i];
        if (strcmp(o->name, "expert_gate_up") != 0) continue;
        found = 1;
        CU_ASSERT_EQUAL(o->batch, 1.0); /* the size curve on the whole kernel */
        CU_ASSERT(rel(o->weight_bytes, 2.0 * 128.0 / 8.0 * 2048.0 * 2.0 * 768.0) < 1e-12);
        CU_ASSERT(rel(o->m, 4096.0 * 8.0 * 8.0 / 128.0) < 1e-12);
        /* balanced share: 2 T k h 2fe */
        CU_ASSERT(rel(o->fwd_flops, 2.0 * 4096.0 * 8.0 * 2048.0 * 2.0 * 768.0) < 1e-12);
    }
    CU_ASSERT(found);
    /* segments: DeepSeek-V3 = 3 dense + 58 MoE */
    culonx_run ds = run_of("deepseek-v3", ONE_NODE);
    CU_ASSERT_EQUAL_FATAL(cx_model_build_dims(&ds.model, &d, &st), 0);
    CU_ASSERT_EQUAL(st.nseg, 2);
    CU_ASSERT_EQUAL(st.seg[0].count, 3);
    CU_ASSERT_EQUAL(st.seg[1].count, 58);
    /* moe-layer-freq 2 after one dense layer: dense, moe, dense, moe ... */
    ds.model.moe_layer_freq = 2, ds.model.layers = 9, ds.model.first_dense_layers = 1;
    CU_ASSERT_EQUAL(cx_model_moe_segments(&ds.model), 9);
}

/* The model's expert GEMM time against grouped GEMMs timed on an H100
 * (bench/data/h100-expert-gemm.csv, rows grouped-up / grouped-down; time_us
 * copied here): Mixtral 8x7B at ep 1 (8 local experts) and DeepSeek-V3 at ep
 * 8 (32 local experts), 16 tokens per expert (weight-streaming) and 4096
 * (compute-bound). Bounds of bench_kernels_check --check: MAPE of the rows
 * <= 20% (grouped GEMMs), each compute-bound row <= 12% (GEMMs); the
 * weight-streaming rows are predicted 27-34% slow, because the model streams
 * at mem_eff 0.6226 of the datasheet HBM bandwidth (fitted to whole
 * iterations, hw/perf.c) while the kernels stream at 0.80-0.84: held to
 * [0, 40%] (kernels_check's bound for memory-bound kinds), not tuned. The op
 * times come from core/eval/cost.c as an estimate uses them (CPU launch
 * floor off: it is a per-pass framework cost, the rows are graph-replayed
 * kernel times). */
static void test_expert_gemm_measured(void)
{
    static const struct {
        const char *model, *exec, *op;
        double tokens, us;
    } rows[] = {
        {"mixtral-8x7b", "ep=\"1\"", "expert_gate_up", 16, 674.978},
        {"mixtral-8x7b", "ep=\"1\"", "expert_gate_up", 4096, 11574.049},
        {"mixtral-8x7b", "ep=\"1\"", "expert_down", 16, 336.845},
        {"mixtral-8x7b", "ep=\"1\"", "expert_down", 4096, 5795.592},
        {"deepseek-v3", "ep=\"8\"", "expert_gate_up", 16, 682.779},
        {"deepseek-v3", "ep=\"8\"", "expert_gate_up", 4096, 11568.50},
        {"deepseek-v3", "ep=\"8\"", "expert_down", 16, 357.01},
        {"deepseek-v3", "ep=\"8\"", "expert_down", 4096, 5949.32},
    };
    cx_cost *c = malloc(sizeof *c);
    double mape = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char ex[256];
        snprintf(ex, sizeof ex, ONE_NODE " %s", rows[i].exec);
        culonx_run r = run_of(rows[i].model, ex);
        /* tokens per local expert T k ep / E at tp 1, b 1: choose s */
        const double E = (double)r.model.experts, k = (double)r.model.experts_per_token;
        const double ep = (double)r.exec.ep;
        r.model.seq = (int64_t)(rows[i].tokens * E / (k * ep));
        r.system.perf.kernel_launch_s = 1e-15;
        culonx_error err;
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
        const int part = CX_MODEL_PART_LAYER + 1;
        const cx_model_ops *ops = &c->stack.part[part].ops;
        double t_us = -1;
        for (int j = 0; j < ops->nops; j++)
            if (!strcmp(ops->op[j].name, rows[i].op)) {
                CU_ASSERT(rel(ops->op[j].m, rows[i].tokens) < 1e-12);
                t_us = c->part_t[part].f_s[j] * 1e6;
            }
        const double e = t_us / rows[i].us - 1.0;
        const int ok = rows[i].tokens >= 512 ? fabs(e) <= 0.12 : e >= 0 && e <= 0.40;
        if (!ok)
            fprintf(stderr, "%s %s %g tokens: model %.1f us, measured %.1f us (%+.1f%%)\n",
                    rows[i].model, rows[i].op, rows[i].tokens, t_us, rows[i].us, 100 * e);
        CU_ASSERT(ok);
        mape += fabs(e) / (double)(sizeof rows / sizeof rows[0]);
    }
    CU_ASSERT(mape <= 0.20);
    free(c);
}

/* a2a-overlap (core/eval/a2a.c): per op, exposed = max(0, A - C) with C
 * the shared experts' ops of the same pair (shared) or the layer's compute
 * of the partner pass (pipe); nothing else moves. DeepSeek-V3 shape, one
 * stage, ep 8 over two nodes (etp 2: ep ranks 2 apart). */
static void test_a2a_overlap(void)
{
#define DS_EXEC                                                                                    \
    "gpus=\"16\" tp=\"1\" pp=\"1\" microbatch=\"1\" global-batch=\"16\" ep=\"8\" etp=\"2\" "
    culonx_run rn = run_of("deepseek-v3", DS_EXEC);
    culonx_run rs = run_of("deepseek-v3", DS_EXEC "a2a-overlap=\"shared\"");
    culonx_run rp = run_of("deepseek-v3", DS_EXEC "a2a-overlap=\"pipe\"");
    rn.model.layers = rs.model.layers = rp.model.layers = 8; /* 3 dense + 5 MoE */
    cx_cost *c[3];
    culonx_run *runs[3] = {&rn, &rs, &rp};
    culonx_error err;
    for (int i = 0; i < 3; i++) {
        c[i] = malloc(sizeof *c[i]);
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(runs[i], 0, c[i], &err), CULONX_OK);
    }
    const int P = CX_MODEL_PART_LAYER + 1;
    const cx_model_ops *ops = &c[0]->stack.part[P].ops;
    const cx_op_times *tn = &c[0]->part_t[P], *ts = &c[1]->part_t[P], *tq = &c[2]->part_t[P];
    double Af[3] = {0, 0, 0}, Ab[3] = {0, 0, 0}, Cf[3] = {0, 0, 0}, Cb[3] = {0, 0, 0};
    double F = 0, BW = 0, exf = 0, exb = 0;
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        F += tn->f_s[i], BW += tn->b_s[i] + tn->w_s[i];
        if (o->coll_group == CX_GROUP_EP) {
            CU_ASSERT(o->a2a_pair == 1 || o->a2a_pair == 2);
            Af[o->a2a_pair] += tn->tp_f_s[i], Ab[o->a2a_pair] += tn->tp_b_s[i];
            /* shared: the pair's exposed rest */
            exf += tq->tp_f_s[i], exb += tq->tp_b_s[i];
        } else {
            if (o->a2a_pair) Cf[o->a2a_pair] += tn->f_s[i], Cb[o->a2a_pair] += tn->b_s[i];
            /* no other collective moves */
            CU_ASSERT_EQUAL(ts->tp_f_s[i], tn->tp_f_s[i]);
            CU_ASSERT_EQUAL(tq->tp_b_s[i], tn->tp_b_s[i]);
        }
        CU_ASSERT_EQUAL(ts->f_s[i], tn->f_s[i]);
    }
    CU_ASSERT(Af[1] > 0 && Af[2] > 0 && Cf[1] > 0 && Cf[2] > 0);
    double sf = 0, sb = 0;
    for (int i = 0; i < ops->nops; i++)
        if (ops->op[i].coll_group == CX_GROUP_EP) sf += ts->tp_f_s[i], sb += ts->tp_b_s[i];
    CU_ASSERT(rel(sf, fmax(0, Af[1] - Cf[1]) + fmax(0, Af[2] - Cf[2])) < 1e-12);
    CU_ASSERT(rel(sb, fmax(0, Ab[1] - Cb[1]) + fmax(0, Ab[2] - Cb[2])) < 1e-12);
    CU_ASSERT(fabs(exf - fmax(0, Af[1] + Af[2] - BW)) <= 1e-12 * (Af[1] + Af[2]));
    CU_ASSERT(fabs(exb - fmax(0, Ab[1] + Ab[2] - F)) <= 1e-12 * (Ab[1] + Ab[2]));
    for (int i = 0; i < 3; i++)
        free(c[i]);
    /* whole runs: less exposed all-to-all, same FLOPs and network bytes; both
     * engines agree */
    culonx_result r[3];
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL_FATAL(culonx_estimate(runs[i], &r[i], &err), CULONX_OK);
    CU_ASSERT(r[1].breakdown.ep_comm_s < r[0].breakdown.ep_comm_s);
    CU_ASSERT(r[2].breakdown.ep_comm_s < r[1].breakdown.ep_comm_s);
    CU_ASSERT(r[2].iteration_time_s < r[0].iteration_time_s);
    CU_ASSERT_EQUAL(r[2].model_flops, r[0].model_flops);
#undef DS_EXEC
}

/* Node-limited routing (hw/net.c cx_hw_all_to_all_routed): M' = min(M, k,
 * G) target nodes per token, NIC bytes V (M'/k)(G-1)/G, scale-up V (r-1)/r;
 * inside one node or M = 0 the plain all-to-all. */
static void test_route_nodes(void)
{
    culonx_run r = run_of("mixtral-8x7b", ONE_NODE);
    const culonx_system *s = &r.system;
    const double V = 1e9, b0 = s->tier[0].bw_gbps * 1e9 * s->tier[0].efficiency;
    const double b1 = s->tier[1].bw_gbps * 1e9 * s->tier[1].efficiency;
    cx_hw_group across = {64, 8}, in = {8, 8};
    cx_hw_comm c = cx_hw_all_to_all_routed(s, V, across, 8.0, 4.0);
    CU_ASSERT(rel(c.bytes_tier[1], V * 0.5 * 7.0 / 8.0) < 1e-12);
    CU_ASSERT(rel(c.bytes_tier[0], V * 7.0 / 8.0) < 1e-12);
    const double t = fmax(V * 7.0 / 8.0 / b0, V * 0.5 * 7.0 / 8.0 / b1) +
                     7.0 * s->tier[1].latency_s + 7.0 * s->tier[0].latency_s;
    CU_ASSERT(rel(c.time_s, t) < 1e-12);
    /* M above k, or above the nodes of the group: capped */
    c = cx_hw_all_to_all_routed(s, V, across, 2.0, 4.0);
    CU_ASSERT(rel(c.bytes_tier[1], V * 7.0 / 8.0) < 1e-12);
    cx_hw_comm p = cx_hw_coll_cost(s, CX_HW_ALL_TO_ALL, V, in);
    c = cx_hw_all_to_all_routed(s, V, in, 8.0, 1.0);
    CU_ASSERT_EQUAL(c.time_s, p.time_s);
    c = cx_hw_all_to_all_routed(s, V, across, 8.0, 0.0);
    p = cx_hw_coll_cost(s, CX_HW_ALL_TO_ALL, V, across);
    CU_ASSERT_EQUAL(c.time_s, p.time_s);
    /* a run: fewer NIC bytes, faster, with route-nodes 1 on ep 16 over 2 nodes */
    culonx_run a = run_of("qwen3-30b-a3b", TWO_NODES " ep=\"16\"");
    culonx_run b = run_of("qwen3-30b-a3b", TWO_NODES " ep=\"16\" route-nodes=\"1\"");
    culonx_result ra, rb;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&a, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&b, &rb, &err), CULONX_OK);
    CU_ASSERT(rb.breakdown.ep_comm_s < ra.breakdown.ep_comm_s);
    CU_ASSERT_EQUAL(rb.model_flops, ra.model_flops);
}

/* window-every (gpt-oss): windowed and full-attention kinds alternate; the
 * parameters do not change, the attention work of the full layers does. */
static void test_window_every(void)
{
    culonx_run r = run_of("gpt-oss-120b", ONE_NODE);
    CU_ASSERT_EQUAL(r.model.window, 128);
    CU_ASSERT_EQUAL(r.model.window_every, 2);
    cx_model_stack st;
    cx_model_dims d = {1, 1, 2, 0, 1, 1, 1, 1, 1};
    CU_ASSERT_EQUAL_FATAL(cx_model_build_dims(&r.model, &d, &st), 0);
    CU_ASSERT_EQUAL(st.nseg, 36);
    CU_ASSERT_EQUAL(st.seg[0].kind, CX_MODEL_PART_LAYER + 1);     /* layer 0: windowed MoE */
    CU_ASSERT_EQUAL(st.seg[1].kind, CX_MODEL_PART_LAYER + 1 + 2); /* layer 1: full */
    const cx_model_ops *w = &st.part[CX_MODEL_PART_LAYER + 1].ops;
    const cx_model_ops *f = &st.part[CX_MODEL_PART_LAYER + 3].ops;
    CU_ASSERT_EQUAL_FATAL(w->nops, f->nops);
    int seen = 0;
    for (int i = 0; i < w->nops; i++)
        if (!strcmp(w->op[i].name, "flash_attn")) {
            seen = 1;
            /* keys per query: w - w(w-1)/(2s) against (s+1)/2 */
            const double s = (double)r.model.seq;
            CU_ASSERT(rel(w->op[i].fwd_flops / f->op[i].fwd_flops,
                          (128.0 - 128.0 * 127.0 / (2.0 * s)) / ((s + 1.0) / 2.0)) < 1e-12);
        } else {
            CU_ASSERT_EQUAL(w->op[i].fwd_flops, f->op[i].fwd_flops);
        }
    CU_ASSERT(seen);
    culonx_run one = r;
    one.model.window_every = 0; /* every layer windowed: two segments' worth of one kind */
    CU_ASSERT_EQUAL(cx_model_total_params(&one.model), cx_model_total_params(&r.model));
    CU_ASSERT_EQUAL(cx_model_active_params(&one.model), cx_model_active_params(&r.model));
    culonx_result ra, rb;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&one, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &rb, &err), CULONX_OK);
    CU_ASSERT(rb.model_flops > ra.model_flops);
}

static void agree(culonx_run *r)
{
    culonx_result a, g;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(r, &a, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(r, 0, &g, &err), CULONX_OK);
    CU_ASSERT(rel(g.iteration_time_s, a.iteration_time_s) < 1e-9);
    CU_ASSERT(rel(g.memory.peak_bytes, a.memory.peak_bytes) < 1e-9);
    CU_ASSERT(rel(g.breakdown.ep_comm_s, a.breakdown.ep_comm_s) < 1e-9);
    CU_ASSERT(rel(g.energy.total_j, a.energy.total_j) < 1e-9);
    CU_ASSERT_EQUAL(g.active_params, a.active_params);
    /* op level: the same expert collectives (its timing of p2p and DP
     * buckets differs from the stage level, as for dense models) */
    CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(r, 1, &g, &err), CULONX_OK);
    CU_ASSERT(rel(g.breakdown.ep_comm_s, a.breakdown.ep_comm_s) < 1e-9);
}

static void test_engines_agree(void)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/mixtral-8x7b-h100.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    r.exec.global_batch = 64;
    agree(&r);
    culonx_run d = run_of("deepseek-v3", "gpus=\"256\" tp=\"2\" pp=\"8\" dp=\"16\" ep=\"8\" "
                                         "etp=\"2\" sequence-parallel=\"true\" "
                                         "microbatch=\"1\" global-batch=\"128\" "
                                         "first-stage-layers=\"7\" last-stage-layers=\"12\" "
                                         "recompute=\"full\" distributed-optimizer=\"true\" "
                                         "capacity-factor=\"1.25\" dp-overlap=\"true\"");
    agree(&d);
    d.exec.a2a_overlap = CULONX_A2A_OVERLAP_PIPE, d.exec.route_nodes = 2;
    agree(&d);
    d.exec.a2a_overlap = CULONX_A2A_OVERLAP_SHARED;
    agree(&d);
    culonx_run g = run_of("gpt-oss-120b", "gpus=\"32\" tp=\"1\" pp=\"4\" ep=\"8\" microbatch=\"1\" "
                                          "global-batch=\"64\" a2a-overlap=\"pipe\"");
    agree(&g);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("moe", NULL, NULL);
    CU_add_test(s, "shipped models: published total and active parameters", test_published_params);
    CU_add_test(s, "dense models: active = total, no expert terms", test_dense_active);
    CU_add_test(s, "experts shard by ep x etp, optimizer by expert dp", test_expert_sharding);
    CU_add_test(s, "all-to-all tier from the layout", test_all_to_all_tier);
    CU_add_test(s, "all-to-all price on the tiers", test_all_to_all_cost);
    CU_add_test(s, "capacity factor: slower, same model FLOPs", test_capacity_factor);
    CU_add_test(s, "capacity factor: the busiest rank's activations", test_capacity_memory);
    CU_add_test(s, "grouped GEMM shape and segments", test_grouped_gemm);
    CU_add_test(s, "expert GEMM time vs grouped GEMMs timed on an H100", test_expert_gemm_measured);
    CU_add_test(s, "a2a-overlap none, shared, pipe", test_a2a_overlap);
    CU_add_test(s, "node-limited routing", test_route_nodes);
    CU_add_test(s, "window-every: windowed and full layers", test_window_every);
    CU_add_test(s, "closed form = graph on MoE runs", test_engines_agree);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
