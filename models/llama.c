/*
 * llama.c — the Llama family (Llama 1-3 and the many models built like
 * it): rotary positions (no position table), RMSNorm, no biases, no
 * dropout, SwiGLU MLP of inner width ffn (required: it is not a fixed
 * multiple of h), grouped-query attention with kv_heads key/value heads, and
 * an untied output layer. One layer kind, "dense" (attention + MLP),
 * repeated model.layers times. Attention: FlashAttention (cx_model_flash,
 * models/build.h) or, with execution.attention = naive, materialised scores.
 *
 * FLOPs: the GEMM/BMM counts of models/build.h with K and V of k heads and
 * the SwiGLU gate and up projections fused into one [h, 2f] GEMM. Saved
 * activations: the per-tensor accounting of Korthikanti et al. 2022 (see
 * models/gpt.c) without dropout masks, with K and V of k heads, the softmax
 * output reused by the context BMM (nothing kept for it), the two SwiGLU
 * inputs (2 x 2sbf) kept, and residual adds that keep nothing. TP
 * collectives are Megatron's f/g operators as in models/gpt.c.
 *
 * Parameters per layer: h(h + 2kd) + h^2 (attention, d = h/heads) + 3hf
 * (gate, up, down) + 2h (two RMSNorms); embedding Vh; final RMSNorm h plus
 * the untied output Vh.
 */
#include "models/build.h"

static double layer_params(const culonx_model *m)
{
    double h = (double)m->hidden, f = (double)m->ffn;
    double d = cx_model_head_dim(m), kvh = (double)m->kv_heads * d, qh = (double)m->heads * d;
    return h * (qh + 2.0 * kvh) + qh * h + 3.0 * h * f + 2.0 * h;
}

static void dense(const culonx_model *m, const cx_model_dims *dm, cx_model_builder *bd)
{
    const double b = dm->b, t = dm->t;
    const int sp = dm->sp;
    const double e = bd->e, s = (double)m->seq, h = (double)m->hidden;
    const double f = (double)m->ffn, d = cx_model_head_dim(m);
    const double T = b * s / dm->cp;  /* tokens of the microbatch on this rank */
    const double Tn = sp ? T / t : T; /* tokens in the replicated region */
    const double sh = sp ? t : 1.0;   /* shard factor of GEMM inputs */
    const double ah = (double)m->heads / t, kh = (double)m->kv_heads / t;
    const double full = e * T * h; /* TP message bytes */
    const cx_coll_kind f_fwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    const cx_coll_kind f_bwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_fwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_bwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    cx_model_op *o;

    o = cx_model_elem(bd, "rmsnorm1", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) cx_model_coll(o, f_fwd, f_bwd, full);
    cx_model_gemm(bd, "qkv", T, (ah + 2.0 * kh) * d, h, e * T * h / sh);
    /* Q and K for the scores, V for the context: kept from the QKV output */
    cx_model_attention_core(bd, dm, cx_model_attn_keys(m), b, ah, kh, s, d,
                            e * T * d * (ah + 2.0 * kh), 0);
    o = cx_model_gemm(bd, "attn_out", T, h, ah * d, e * T * ah * d);
    if (t > 1) cx_model_coll(o, g_fwd, g_bwd, full);
    cx_model_elem(bd, "residual_add1", 2.0 * Tn * h, Tn * h, e, 0.0);
    o = cx_model_elem(bd, "rmsnorm2", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) cx_model_coll(o, f_fwd, f_bwd, full);
    cx_model_gemm(bd, "gate_up", T, 2.0 * f / t, h, e * T * h / sh);
    cx_model_elem(bd, "swiglu", 2.0 * T * f / t, T * f / t, e, e * 2.0 * T * f / t);
    o = cx_model_gemm(bd, "fc2", T, h, f / t, e * T * f / t);
    if (t > 1) cx_model_coll(o, g_fwd, g_bwd, full);
    cx_model_elem(bd, "residual_add2", 2.0 * Tn * h, Tn * h, e, 0.0);
}

static void build(const culonx_model *m, const cx_model_dims *d, cx_model_stack *st)
{
    const double h = (double)m->hidden, V = (double)m->vocab;
    st->family = &cx_model_llama;
    st->nparts = 0;
    cx_model_part *emb = cx_model_part_begin(st, CX_MODEL_PART_EMBED, "embedding", V * h, 0);
    cx_model_part *head = cx_model_part_begin(st, CX_MODEL_PART_HEAD, "head", h + V * h, 0);
    cx_model_part *layer =
        cx_model_part_begin(st, CX_MODEL_PART_LAYER, "dense", layer_params(m), 1);
    st->seg[0].kind = CX_MODEL_PART_LAYER;
    st->seg[0].count = m->layers;
    st->nseg = 1;
    if (!d) return;

    const double T = d->b * (double)m->seq / d->cp;
    cx_model_builder bd = {d->e, &layer->ops};
    dense(m, d, &bd);
    cx_model_layer_acts(layer, d->e * T * h / (d->sp ? d->t : 1.0));
    bd.ops = &emb->ops;
    cx_model_embedding_lookup(&bd, T, h, V, d);
    cx_model_fixed_acts(emb);
    bd.ops = &head->ops;
    cx_model_norm_logits_loss(&bd, "final_rmsnorm", T, h, V, d);
    cx_model_fixed_acts(head);
}

const cx_model_family cx_model_llama = {"llama", CULONX_ARCH_LLAMA, 0, "the SwiGLU inner size",
                                        build};
