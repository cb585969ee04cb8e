/*
 * transformer.c — op tables of one GPT or Llama layer, the embedding and the
 * output head, per tensor-parallel rank, for one microbatch of b sequences of
 * s tokens.
 *
 * FLOPs (a multiply-add = 2): a weight GEMM [m,k]x[k,n] costs 2mnk forward,
 * 2mnk for the input gradient (B) and 2mnk for the weight gradient (W); an
 * attention BMM has no weights, its backward is 2x forward, all in B.
 * Per GPT layer this gives 24bsh^2 + 4bs^2h forward (f = 4h), the Megatron
 * SC'21 count (Narayanan et al. 2021, eq. 3 appendix).
 *
 * Saved activations follow Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation", sec. 4): per GPT layer 34sbh + 5as^2b bytes in 16-bit, of
 * which 10sbh are replicated across TP ranks unless sequence parallelism
 * shards them; selective recompute drops the 5as^2b attention-core terms;
 * full recompute keeps the 2sbh layer input. Llama (no dropout, RMSNorm,
 * SwiGLU, GQA) uses the same per-tensor accounting without dropout masks,
 * with K and V of k heads and the two SwiGLU inputs (2 x 2sbf) kept.
 *
 * TP collectives are Megatron's f/g operators: g (all-reduce forward) after
 * the attention output projection and after FC2; f (all-reduce backward)
 * before QKV and FC1. With sequence parallelism g becomes reduce-scatter /
 * all-gather and f all-gather / reduce-scatter, same volume 2sbh bytes.
 * Formulas and sources: models/README.md ("Parameters", "FLOPs",
 * "Activation memory", "Tensor-parallel collectives").
 */
#include "models/model.h"

#include <string.h>

typedef struct {
    double e; /* activation element bytes */
    cx_model_ops *ops;
} builder;

static cx_model_op *push(builder *bd, const char *name, cx_op_kind kind)
{
    cx_model_op *o = &bd->ops->op[bd->ops->nops++];
    memset(o, 0, sizeof *o);
    o->name = name;
    o->kind = kind;
    o->batch = 1;
    return o;
}

static cx_model_op *gemm(builder *bd, const char *name, double m, double n, double k,
                         double saved)
{
    cx_model_op *o = push(bd, name, CX_OP_GEMM);
    double e = bd->e;
    o->m = m, o->n = n, o->k = k;
    o->fwd_flops = o->b_flops = o->w_flops = 2.0 * m * n * k;
    o->fwd_bytes = o->b_bytes = o->w_bytes = e * (m * k + k * n + m * n);
    o->saved_bytes = saved;
    o->tensor = 1;
    return o;
}

static cx_model_op *bmm(builder *bd, const char *name, double batch, double m, double n,
                        double k, double saved)
{
    cx_model_op *o = push(bd, name, CX_OP_BMM);
    double e = bd->e;
    o->m = m, o->n = n, o->k = k, o->batch = batch;
    o->fwd_flops = 2.0 * batch * m * n * k;
    o->fwd_bytes = e * batch * (m * k + k * n + m * n);
    o->b_flops = 2.0 * o->fwd_flops;
    o->b_bytes = 2.0 * o->fwd_bytes;
    o->saved_bytes = saved;
    o->tensor = 1;
    return o;
}

/* memory-bound op reading `in` and writing `out` elements of size ebytes */
static cx_model_op *elem(builder *bd, const char *name, double in, double out, double ebytes,
                         double saved)
{
    cx_model_op *o = push(bd, name, CX_OP_ELEM);
    o->m = in;
    o->fwd_bytes = ebytes * (in + out);
    /* backward reads the output gradient and saved input, writes input grad */
    o->b_bytes = ebytes * (2.0 * in + out);
    o->saved_bytes = saved;
    return o;
}

static void coll(cx_model_op *o, cx_coll_kind fwd, cx_coll_kind bwd, double bytes)
{
    o->coll_fwd = fwd;
    o->coll_bwd = bwd;
    o->coll_bytes = bytes;
}

double cx_model_layer_params(const culonx_model *m)
{
    double h = (double)m->hidden, f = (double)m->ffn;
    double d = h / (double)m->heads, kvh = (double)m->kv_heads * d;
    if (m->arch == CULONX_ARCH_LLAMA)
        return h * (h + 2.0 * kvh) + h * h + 3.0 * h * f + 2.0 * h;
    /* QKV with bias, out-proj with bias, MLP with biases, two LayerNorms */
    return (h * (h + 2.0 * kvh) + h + 2.0 * kvh) + (h * h + h) + (2.0 * h * f + f + h) + 4.0 * h;
}

double cx_model_embed_params(const culonx_model *m)
{
    double h = (double)m->hidden;
    if (m->arch == CULONX_ARCH_LLAMA) return (double)m->vocab * h;
    return (double)m->vocab * h + (double)m->seq * h; /* + learned positions */
}

double cx_model_head_params(const culonx_model *m)
{
    double h = (double)m->hidden;
    if (m->arch == CULONX_ARCH_LLAMA) return h + (double)m->vocab * h; /* untied output */
    return 2.0 * h; /* final LayerNorm; output tied to the input embedding */
}

double cx_model_total_params(const culonx_model *m)
{
    return (double)m->layers * cx_model_layer_params(m) + cx_model_embed_params(m) +
           cx_model_head_params(m);
}

static void build_layer(const culonx_model *m, double b, double t, int sp, builder *bd)
{
    const int gpt = m->arch == CULONX_ARCH_GPT;
    const double e = bd->e, s = (double)m->seq, h = (double)m->hidden;
    const double f = (double)m->ffn, d = h / (double)m->heads;
    const double T = b * s;                /* tokens of the microbatch */
    const double Tn = sp ? T / t : T;      /* tokens in the replicated region */
    const double sh = sp ? t : 1.0;        /* shard factor of GEMM inputs */
    const double ah = (double)m->heads / t, kh = (double)m->kv_heads / t;
    const double full = e * T * h;         /* TP message bytes */
    const cx_coll_kind f_fwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    const cx_coll_kind f_bwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_fwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_bwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    cx_model_op *o;

    o = elem(bd, gpt ? "layernorm1" : "rmsnorm1", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) coll(o, f_fwd, f_bwd, full);
    gemm(bd, "qkv", T, (ah + 2.0 * kh) * d, h, e * T * h / sh);
    /* Q and K for the scores, V for the context: kept from the QKV output */
    o = bmm(bd, "attn_scores", b * ah, s, s, d, e * T * d * (ah + 2.0 * kh));
    o->sel_recompute = 1;
    o = elem(bd, "softmax", b * ah * s * s, b * ah * s * s, e, e * b * ah * s * s);
    o->attn_core = o->sel_recompute = 1;
    if (gpt) {
        o = elem(bd, "attn_dropout", b * ah * s * s, b * ah * s * s, e, 1.0 * b * ah * s * s);
        o->attn_core = o->sel_recompute = 1;
    }
    /* GPT keeps the dropout output; Llama reuses the saved softmax output */
    o = bmm(bd, "attn_context", b * ah, s, d, s, gpt ? e * b * ah * s * s : 0.0);
    o->attn_core = o->sel_recompute = 1;
    o = gemm(bd, "attn_out", T, h, ah * d, e * T * ah * d);
    if (t > 1) coll(o, g_fwd, g_bwd, full);
    elem(bd, gpt ? "dropout_add1" : "residual_add1", 2.0 * Tn * h, Tn * h, e,
         gpt ? 1.0 * Tn * h : 0.0);
    o = elem(bd, gpt ? "layernorm2" : "rmsnorm2", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) coll(o, f_fwd, f_bwd, full);
    if (gpt) {
        gemm(bd, "fc1", T, f / t, h, e * T * h / sh);
        elem(bd, "gelu", T * f / t, T * f / t, e, e * T * f / t);
    } else {
        gemm(bd, "gate_up", T, 2.0 * f / t, h, e * T * h / sh);
        elem(bd, "swiglu", 2.0 * T * f / t, T * f / t, e, e * 2.0 * T * f / t);
    }
    o = gemm(bd, "fc2", T, h, f / t, e * T * f / t);
    if (t > 1) coll(o, g_fwd, g_bwd, full);
    elem(bd, gpt ? "dropout_add2" : "residual_add2", 2.0 * Tn * h, Tn * h, e,
         gpt ? 1.0 * Tn * h : 0.0);
}

static void build_embed(const culonx_model *m, double b, double t, int sp, builder *bd)
{
    const int gpt = m->arch == CULONX_ARCH_GPT;
    const double e = bd->e, h = (double)m->hidden, T = b * (double)m->seq;
    const double Tn = sp ? T / t : T;
    /* vocab-parallel lookup: every rank writes its partial rows, then the
     * partial sums are all-reduced (reduce-scattered with SP) */
    cx_model_op *o = elem(bd, "embedding", T, T * h, e, 0.0);
    o->w_bytes = e * T * h; /* scatter-add into the embedding gradient */
    if (t > 1) coll(o, sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, CX_COLL_NONE, e * T * h);
    if (gpt) elem(bd, "embed_dropout", 2.0 * Tn * h, Tn * h, e, 1.0 * Tn * h);
}

static void build_head(const culonx_model *m, double b, double t, int sp, builder *bd)
{
    const int gpt = m->arch == CULONX_ARCH_GPT;
    const double e = bd->e, h = (double)m->hidden, V = (double)m->vocab;
    const double T = b * (double)m->seq, Tn = sp ? T / t : T;
    cx_model_op *o = elem(bd, gpt ? "final_layernorm" : "final_rmsnorm", Tn * h, Tn * h, e,
                          e * Tn * h);
    if (t > 1)
        coll(o, sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE,
             sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, e * T * h);
    gemm(bd, "logits", T, V / t, h, e * T * h / (sp ? t : 1.0));
    /* vocab-parallel cross entropy in fp32; two all-reduces of T floats */
    o = elem(bd, "cross_entropy", T * V / t, T * V / t, 4.0, 4.0 * T * V / t);
    if (t > 1) coll(o, CX_COLL_ALL_REDUCE, CX_COLL_NONE, 2.0 * 4.0 * T);
}

static double saved_sum(const cx_model_ops *ops, int skip_core)
{
    double s = 0.0;
    for (int i = 0; i < ops->nops; i++)
        if (!(skip_core && ops->op[i].attn_core)) s += ops->op[i].saved_bytes;
    return s;
}

void cx_model_build(const culonx_model *m, int64_t b, int64_t t, int sp, double elem_bytes,
                    cx_model_table *out)
{
    memset(out, 0, sizeof *out);
    if (t <= 1) sp = 0;
    builder bd = {elem_bytes, &out->layer};
    build_layer(m, (double)b, (double)t, sp, &bd);
    bd.ops = &out->embed;
    build_embed(m, (double)b, (double)t, sp, &bd);
    bd.ops = &out->head;
    build_head(m, (double)b, (double)t, sp, &bd);

    double T = (double)b * (double)m->seq;
    out->layer_input_bytes = elem_bytes * T * (double)m->hidden / (sp ? (double)t : 1.0);
    out->layer_act_bytes[CULONX_RECOMPUTE_NONE] = saved_sum(&out->layer, 0);
    out->layer_act_bytes[CULONX_RECOMPUTE_SELECTIVE] = saved_sum(&out->layer, 1);
    out->layer_act_bytes[CULONX_RECOMPUTE_FULL] = out->layer_input_bytes;
    out->embed_act_bytes = saved_sum(&out->embed, 0);
    out->head_act_bytes = saved_sum(&out->head, 0);
}

double cx_model_flops_megatron(const culonx_model *m, double B, int full_recompute)
{
    double s = (double)m->seq, l = (double)m->layers, h = (double)m->hidden;
    double V = (double)m->vocab;
    if (full_recompute) return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    return 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h));
}
