/*
 * test_model.c — the transformer accounting (models/) and the hardware
 * costs (hw/) against closed formulas: parameter counts (GPT-3 175B =
 * 174.6e9), FLOPs = Megatron's 72/96 B s l h^2 (...) formulas exactly,
 * activation bytes = Korthikanti et al. 2022 for every TP/SP/recompute
 * mode, and ring / hierarchical collective times = the alpha-beta formulas.
 */
#include "hw/hw.h"
#include "models/model.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <string.h>

static culonx_model gpt(int64_t l, int64_t h, int64_t a, int64_t V, int64_t s)
{
    culonx_model m;
    memset(&m, 0, sizeof m);
    m.arch = CULONX_ARCH_GPT;
    m.layers = l, m.hidden = h, m.heads = a, m.kv_heads = a, m.ffn = 4 * h, m.vocab = V, m.seq = s;
    return m;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

static void test_params(void)
{
    culonx_model m = gpt(96, 12288, 96, 50257, 2048);
    double p = cx_model_total_params(&m);
    CU_ASSERT(rel(p, 174.6e9) < 1e-3);
    /* exact closed count: l(12h^2+13h) + Vh + sh + 2h */
    double h = 12288;
    CU_ASSERT_DOUBLE_EQUAL(p, 96 * (12 * h * h + 13 * h) + 50257 * h + 2048 * h + 2 * h, 0.5);
    /* Llama-2 7B: 6.74e9 parameters (Touvron et al. 2023) */
    culonx_model l7 = {"",    CULONX_ARCH_LLAMA,
                       32,    4096,
                       32,    32,
                       11008, 32000,
                       4096,  0,
                       0,     0,
                       0,     0,
                       0,     0,
                       0,     0,
                       0,     0,
                       0};
    CU_ASSERT(rel(cx_model_total_params(&l7), 6.738e9) < 2e-3);
    /* Llama-2 70B (GQA, 8 kv heads): 68.98e9 */
    culonx_model l70 = {
        "", CULONX_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 32000, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0};
    CU_ASSERT(rel(cx_model_total_params(&l70), 68.98e9) < 2e-3);
    /* Llama-3 8B: 8.03e9 */
    culonx_model l38 = {"",    CULONX_ARCH_LLAMA,
                        32,    4096,
                        32,    8,
                        14336, 128256,
                        8192,  0,
                        0,     0,
                        0,     0,
                        0,     0,
                        0,     0,
                        0,     0,
                        0};
    CU_ASSERT(rel(cx_model_total_params(&l38), 8.03e9) < 2e-3);
}

/* the one dense layer kind of a GPT or Llama stack */
static const cx_model_ops *layer_ops(const cx_model_stack *t)
{
    CU_ASSERT_EQUAL(t->nseg, 1);
    CU_ASSERT_EQUAL(t->seg[0].kind, CX_MODEL_PART_LAYER);
    return &t->part[CX_MODEL_PART_LAYER].ops;
}

static double table_flops(const cx_model_stack *t, int64_t l, int recompute)
{
    double f = 0;
    const cx_model_ops *lo = layer_ops(t), *ho = &t->part[CX_MODEL_PART_HEAD].ops;
    for (int i = 0; i < lo->nops; i++) {
        const cx_model_op *o = &lo->op[i];
        f += (double)l * (o->fwd_flops * (recompute ? 2 : 1) + o->b_flops + o->w_flops);
    }
    for (int i = 0; i < ho->nops; i++) {
        const cx_model_op *o = &ho->op[i];
        f += o->fwd_flops + o->b_flops + o->w_flops;
    }
    return f;
}

static void test_flops_megatron(void)
{
    const int64_t shapes[][5] = {{96, 12288, 96, 51200, 2048},
                                 {128, 25600, 160, 51200, 2048},
                                 {24, 2304, 24, 51200, 2048},
                                 {48, 8192, 64, 51200, 4096}};
    for (int i = 0; i < 4; i++) {
        culonx_model m = gpt(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], shapes[i][4]);
        for (int64_t t = 1; t <= 8; t *= 2)
            for (int64_t b = 1; b <= 4; b *= 2) {
                cx_model_stack tab;
                cx_model_build(&m, b, t, 0, 2.0, 0, &tab);
                /* per-rank FLOPs x t ranks x B/b microbatches = whole model */
                double B = 64;
                double f0 = table_flops(&tab, m.layers, 0) * (double)t * B / (double)b;
                double f1 = table_flops(&tab, m.layers, 1) * (double)t * B / (double)b;
                CU_ASSERT(rel(f0, cx_model_flops_megatron(&m, B, 0)) < 1e-12);
                CU_ASSERT(rel(f1, cx_model_flops_megatron(&m, B, 1)) < 1e-12);
            }
    }
}

static void test_activations_korthikanti(void)
{
    culonx_model m = gpt(96, 12288, 96, 51200, 2048);
    const double s = 2048, h = 12288, a = 96;
    for (int64_t t = 1; t <= 8; t *= 2)
        for (int64_t b = 1; b <= 2; b++)
            for (int sp = 0; sp <= 1; sp++) {
                cx_model_stack tab;
                cx_model_build(&m, b, t, sp, 2.0, 0, &tab);
                double sbh = s * (double)b * h, T = (double)t;
                double none, sel, full;
                if (t == 1) {
                    none = sbh * (34 + 5 * a * s / h);
                    sel = 34 * sbh;
                    full = 2 * sbh;
                } else if (!sp) {
                    none = sbh * (10 + 24 / T + 5 * a * s / (h * T));
                    sel = sbh * (10 + 24 / T);
                    full = 2 * sbh;
                } else {
                    none = sbh * (34 + 5 * a * s / h) / T;
                    sel = 34 * sbh / T;
                    full = 2 * sbh / T;
                }
                const double *act = tab.part[CX_MODEL_PART_LAYER].act_bytes;
                CU_ASSERT(rel(act[CULONX_RECOMPUTE_NONE], none) < 1e-12);
                CU_ASSERT(rel(act[CULONX_RECOMPUTE_SELECTIVE], sel) < 1e-12);
                CU_ASSERT(rel(act[CULONX_RECOMPUTE_FULL], full) < 1e-12);
            }
}

static void test_tp_collectives(void)
{
    culonx_model m = gpt(24, 4096, 32, 51200, 2048);
    for (int sp = 0; sp <= 1; sp++) {
        cx_model_stack tab;
        cx_model_build(&m, 2, 4, sp, 2.0, 0, &tab);
        int ar_f = 0, ar_b = 0, rs = 0, ag = 0;
        const cx_model_ops *lo = layer_ops(&tab);
        for (int i = 0; i < lo->nops; i++) {
            const cx_model_op *o = &lo->op[i];
            ar_f += o->coll_fwd == CX_COLL_ALL_REDUCE;
            ar_b += o->coll_bwd == CX_COLL_ALL_REDUCE;
            rs += (o->coll_fwd == CX_COLL_REDUCE_SCATTER) + (o->coll_bwd == CX_COLL_REDUCE_SCATTER);
            ag += (o->coll_fwd == CX_COLL_ALL_GATHER) + (o->coll_bwd == CX_COLL_ALL_GATHER);
            if (o->coll_fwd || o->coll_bwd)
                CU_ASSERT_DOUBLE_EQUAL(o->coll_bytes, 2.0 * 2 * 2048 * 4096, 1e-6);
        }
        if (!sp) {
            CU_ASSERT_EQUAL(ar_f, 2); /* Megatron: 2 all-reduces forward */
            CU_ASSERT_EQUAL(ar_b, 2); /* and 2 backward */
            CU_ASSERT_EQUAL(rs + ag, 0);
        } else {
            CU_ASSERT_EQUAL(ar_f + ar_b, 0);
            CU_ASSERT_EQUAL(rs, 4);
            CU_ASSERT_EQUAL(ag, 4);
        }
    }
}

static culonx_system dgx(void)
{
    culonx_system s;
    memset(&s, 0, sizeof s);
    s.gpu.matrix16_tflops = 312, s.gpu.hbm_gbps = 2039, s.gpu.max_mhz = 1410;
    s.gpus_per_node = 8;
    s.ntiers = 2;
    s.tier[0] = (culonx_net_tier){"nvlink", 300, 2e-6, 0.8, 2};
    s.tier[1] = (culonx_net_tier){"ib", 25, 5e-6, 0.9, 25};
    return s;
}

static void test_collectives(void)
{
    culonx_system s = dgx();
    double V = 1e9, b0 = 300e9 * 0.8, b1 = 25e9 * 0.9;
    /* ring all-reduce within a node: 2(N-1)/N V/beta + 2(N-1) alpha */
    cx_hw_comm c = cx_hw_coll_cost(&s, CX_HW_ALL_REDUCE, V, (cx_hw_group){8, 8});
    CU_ASSERT(rel(c.time_s, 2.0 * 7 / 8 * V / b0 + 14 * 2e-6) < 1e-12);
    CU_ASSERT(rel(c.bytes_tier[0], 2.0 * 7 / 8 * V) < 1e-12);
    c = cx_hw_coll_cost(&s, CX_HW_REDUCE_SCATTER, V, (cx_hw_group){4, 4});
    CU_ASSERT(rel(c.time_s, 3.0 / 4 * V / b0 + 3 * 2e-6) < 1e-12);
    /* one member per node: ring on the inter-node tier */
    c = cx_hw_coll_cost(&s, CX_HW_ALL_REDUCE, V, (cx_hw_group){16, 1});
    CU_ASSERT(rel(c.time_s, 2.0 * 15 / 16 * V / b1 + 30 * 5e-6) < 1e-12);
    CU_ASSERT_EQUAL(c.bytes_tier[0], 0);
    /* hierarchical: 4 per node, 32 ranks = 8 nodes */
    c = cx_hw_coll_cost(&s, CX_HW_ALL_REDUCE, V, (cx_hw_group){32, 4});
    double expect = (3.0 / 4 * V / b0 + 3 * 2e-6) * 2 + 2.0 * 7 / 8 * (V / 4) / b1 + 14 * 5e-6;
    CU_ASSERT(rel(c.time_s, expect) < 1e-12);
    /* p2p across nodes and within */
    c = cx_hw_coll_cost(&s, CX_HW_P2P, V, (cx_hw_group){2, 1});
    CU_ASSERT(rel(c.time_s, V / b1 + 5e-6) < 1e-12);
    c = cx_hw_coll_cost(&s, CX_HW_P2P, V, (cx_hw_group){2, 2});
    CU_ASSERT(rel(c.time_s, V / b0 + 2e-6) < 1e-12);
    /* a group of one costs nothing */
    c = cx_hw_coll_cost(&s, CX_HW_ALL_REDUCE, V, (cx_hw_group){1, 1});
    CU_ASSERT_EQUAL(c.time_s, 0);
}

/* FlashAttention, head-dim, window and context parallelism (models/README.md,
 * "Attention kernels"): the fused op replaces the four naive attention ops;
 * its forward FLOPs are 4 b a s kbar d / t with kbar = (s+1)/2 causal, its
 * backward 2.5x; nothing of size s^2 is saved; cp divides tokens, queries
 * and saved bytes and adds a ring collective over the cp group. */
static const cx_model_op *find_op(const cx_model_ops *ops, const char *name)
{
    for (int i = 0; i < ops->nops; i++)
        if (strcmp(ops->op[i].name, name) == 0) return &ops->op[i];
    return NULL;
}

static void test_flash_attention(void)
{
    culonx_model m = gpt(24, 2048, 16, 131072, 4096);
    cx_model_stack naive, flash, cp2;
    cx_model_build(&m, 1, 2, 1, 2.0, 0, &naive);
    cx_model_build(&m, 1, 2, 1, 2.0, 1, &flash);
    const cx_model_ops *lf = layer_ops(&flash), *ln = layer_ops(&naive);
    CU_ASSERT_EQUAL(lf->nops, ln->nops - 3); /* scores, softmax, dropout, context -> one op */
    const cx_model_op *fa = find_op(lf, "flash_attn");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
    CU_ASSERT_PTR_NULL(find_op(lf, "softmax"));
    double s = 4096, d = 128, a_t = 8;
    CU_ASSERT(rel(fa->fwd_flops, 4.0 * a_t * s * (s + 1) / 2 * d) < 1e-12);
    CU_ASSERT(rel(fa->b_flops, 2.5 * fa->fwd_flops) < 1e-12);
    /* no s^2 term in saved activations: selective recompute drops nothing */
    CU_ASSERT(rel(flash.part[CX_MODEL_PART_LAYER].act_bytes[CULONX_RECOMPUTE_NONE],
                  flash.part[CX_MODEL_PART_LAYER].act_bytes[CULONX_RECOMPUTE_SELECTIVE]) < 1e-12);
    CU_ASSERT(naive.part[CX_MODEL_PART_LAYER].act_bytes[CULONX_RECOMPUTE_NONE] >
              2 * flash.part[CX_MODEL_PART_LAYER].act_bytes[CULONX_RECOMPUTE_NONE]);
    /* a window of 1024 tokens: kbar = w - w(w-1)/(2s) */
    m.window = 1024;
    cx_model_build(&m, 1, 2, 1, 2.0, 1, &flash);
    fa = find_op(layer_ops(&flash), "flash_attn");
    CU_ASSERT(rel(fa->fwd_flops, 4.0 * a_t * s * (1024 - 1024.0 * 1023 / (2 * s)) * d) < 1e-12);
    m.window = 0;
    /* head-dim 256 with 16 heads: QKV and out-projection widen, params too */
    double p0 = cx_model_layer_params(&m);
    m.head_dim = 256;
    CU_ASSERT(rel(cx_model_layer_params(&m) - p0, 4.0 * 2048 * 2048 + 3.0 * 2048) < 1e-12);
    m.head_dim = 0;
    /* context parallelism 2: half the tokens and queries, a ring over cp */
    cx_model_build_cp(&m, 1, 2, 2, 1, 2.0, 1, &cp2);
    cx_model_build(&m, 1, 2, 1, 2.0, 1, &flash);
    const cx_model_op *f2 = find_op(layer_ops(&cp2), "flash_attn");
    fa = find_op(layer_ops(&flash), "flash_attn");
    CU_ASSERT(rel(f2->fwd_flops, fa->fwd_flops / 2) < 1e-12);
    CU_ASSERT(f2->coll_cp && f2->coll_fwd == CX_COLL_ALL_GATHER);
    CU_ASSERT(rel(f2->coll_bytes, 2.0 * s * 2 * (16 / 2) * d) < 1e-12); /* K and V, kv heads/t */
    CU_ASSERT(rel(cp2.part[CX_MODEL_PART_LAYER].act_bytes[0],
                  flash.part[CX_MODEL_PART_LAYER].act_bytes[0] / 2) < 1e-12);
    CU_ASSERT(rel(find_op(layer_ops(&cp2), "qkv")->fwd_flops,
                  find_op(layer_ops(&flash), "qkv")->fwd_flops / 2) < 1e-12);
}

/* The head's cross entropy and the embedding's weight gradient as Megatron
 * runs them (models/README.md, "FLOPs"): 38 B per logit forward and 14
 * backward; (2e + 8) V h/t + 2e T h bytes of embedding weight gradient. */
static void test_vocab_bytes(void)
{
    culonx_model m = gpt(24, 2048, 16, 131072, 4096);
    cx_model_stack st;
    cx_model_build(&m, 2, 4, 1, 2.0, 1, &st);
    const double T = 2.0 * 4096, V = 131072, h = 2048, t = 4;
    const cx_model_op *ce = find_op(&st.part[CX_MODEL_PART_HEAD].ops, "cross_entropy");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ce);
    CU_ASSERT(rel(ce->fwd_bytes, 38.0 * T * V / t) < 1e-12);
    CU_ASSERT(rel(ce->b_bytes, 14.0 * T * V / t) < 1e-12);
    CU_ASSERT(rel(ce->saved_bytes, 4.0 * T * V / t) < 1e-12); /* the fp32 softmax */
    const cx_model_op *em = find_op(&st.part[CX_MODEL_PART_EMBED].ops, "embedding");
    CU_ASSERT_PTR_NOT_NULL_FATAL(em);
    CU_ASSERT(rel(em->w_bytes, 12.0 * V * h / t + 4.0 * T * h) < 1e-12);
}

static void test_roofline(void)
{
    culonx_system s = dgx();
    culonx_perf_params p;
    memset(&p, 0, sizeof p);
    cx_hw_perf_defaults(&p);
    /* big GEMM: compute bound, scales 1/f */
    cx_hw_work w = {2.0 * 8192 * 8192 * 8192, 2.0 * 3 * 8192 * 8192, 1, 1, 0};
    cx_hw_time t1 = cx_hw_work_time(&s, &p, &w, CULONX_DTYPE_FP16, 1410);
    cx_hw_time t2 = cx_hw_work_time(&s, &p, &w, CULONX_DTYPE_FP16, 705);
    CU_ASSERT(t1.compute_s > t1.mem_s);
    CU_ASSERT(rel(t2.compute_s, 2 * t1.compute_s) < 1e-12);
    /* memory-bound op: no change with clock */
    cx_hw_work e = {0, 1e9, 1, 0, 0};
    t1 = cx_hw_work_time(&s, &p, &e, CULONX_DTYPE_FP16, 1410);
    t2 = cx_hw_work_time(&s, &p, &e, CULONX_DTYPE_FP16, 846);
    CU_ASSERT_DOUBLE_EQUAL(t1.time_s, t2.time_s, 1e-15);
    CU_ASSERT(rel(t1.mem_s, 1e9 / (2039e9 * p.mem_eff)) < 1e-12);
    /* efficiency grows with GEMM size */
    CU_ASSERT(cx_hw_matmul_eff(&p, 1e8) < cx_hw_matmul_eff(&p, 1e11));
    CU_ASSERT(cx_hw_matmul_eff(&p, 1e15) <= p.matmul_eff_max);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("model_hw", NULL, NULL);
    CU_add_test(s, "parameter counts", test_params);
    CU_add_test(s, "FLOPs = Megatron formulas", test_flops_megatron);
    CU_add_test(s, "activations = Korthikanti", test_activations_korthikanti);
    CU_add_test(s, "TP collectives per layer", test_tp_collectives);
    CU_add_test(s, "collective times", test_collectives);
    CU_add_test(s, "roofline", test_roofline);
    CU_add_test(s, "flash attention, window, head-dim, cp", test_flash_attention);
    CU_add_test(s, "cross entropy and embedding gradient bytes", test_vocab_bytes);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
