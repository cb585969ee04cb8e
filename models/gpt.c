/*
 * gpt.c — the GPT family (GPT-2/3, Megatron-LM's GPT): learned position
 * embeddings, LayerNorm, biases, GELU MLP of width ffn (4h by default),
 * dropout after the embedding, the attention probabilities and both
 * residual branches, and an output layer tied to the input embedding.
 * One layer kind, "dense" (attention + MLP), repeated model.layers times.
 * Attention is the fused FlashAttention kernel (cx_model_flash, build.h) or,
 * with execution.attention = naive, the materialised scores below.
 *
 * FLOPs per layer: 24bsh^2 + 4bs^2h forward with f = 4h, the Megatron SC'21
 * count (Narayanan et al. 2021, eq. 3 appendix); op constructors in
 * models/build.h. Saved activations follow Korthikanti et al. 2022
 * ("Reducing Activation Recomputation", sec. 4): per layer 34sbh + 5as^2b
 * bytes in 16-bit, of which 10sbh are replicated across TP ranks unless
 * sequence parallelism shards them; selective recompute drops the 5as^2b
 * attention-core terms; full recompute keeps the 2sbh layer input.
 * Dropout masks are 1 byte per element.
 *
 * TP collectives are Megatron's f/g operators: g (all-reduce forward) after
 * the attention output projection and after FC2; f (all-reduce backward)
 * before QKV and FC1. With sequence parallelism g becomes reduce-scatter /
 * all-gather and f all-gather / reduce-scatter, same volume 2sbh bytes.
 *
 * Parameters: QKV with bias, out-projection with bias, MLP with biases, two
 * LayerNorms per layer (12h^2 + 13h with MHA and f = 4h); vocabulary and
 * learned positions (V + s)h; final LayerNorm 2h. The output is tied to the
 * input embedding: a last stage other than the first holds a copy (Vh).
 */
#include "models/build.h"

static double layer_params(const culonx_model *m)
{
    double h = (double)m->hidden, f = (double)m->ffn;
    double d = cx_model_head_dim(m), kvh = (double)m->kv_heads * d, qh = (double)m->heads * d;
    return (h * (qh + 2.0 * kvh) + qh + 2.0 * kvh) + (qh * h + h) + (2.0 * h * f + f + h) + 4.0 * h;
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

    o = cx_model_elem(bd, "layernorm1", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) cx_model_coll(o, f_fwd, f_bwd, full);
    cx_model_gemm(bd, "qkv", T, (ah + 2.0 * kh) * d, h, e * T * h / sh);
    /* Q and K for the scores, V for the context: kept from the QKV output */
    cx_model_attention_core(bd, dm, cx_model_attn_keys(m), b, ah, kh, s, d,
                            e * T * d * (ah + 2.0 * kh), 1);
    o = cx_model_gemm(bd, "attn_out", T, h, ah * d, e * T * ah * d);
    if (t > 1) cx_model_coll(o, g_fwd, g_bwd, full);
    cx_model_elem(bd, "dropout_add1", 2.0 * Tn * h, Tn * h, e, 1.0 * Tn * h);
    o = cx_model_elem(bd, "layernorm2", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) cx_model_coll(o, f_fwd, f_bwd, full);
    cx_model_gemm(bd, "fc1", T, f / t, h, e * T * h / sh);
    cx_model_elem(bd, "gelu", T * f / t, T * f / t, e, e * T * f / t);
    o = cx_model_gemm(bd, "fc2", T, h, f / t, e * T * f / t);
    if (t > 1) cx_model_coll(o, g_fwd, g_bwd, full);
    cx_model_elem(bd, "dropout_add2", 2.0 * Tn * h, Tn * h, e, 1.0 * Tn * h);
}

static void build(const culonx_model *m, const cx_model_dims *d, cx_model_stack *st)
{
    const double h = (double)m->hidden, V = (double)m->vocab;
    st->family = &cx_model_gpt;
    st->nparts = 0;
    cx_model_part *emb =
        cx_model_part_begin(st, CX_MODEL_PART_EMBED, "embedding", V * h + (double)m->seq * h, 0);
    cx_model_part *head = cx_model_part_begin(st, CX_MODEL_PART_HEAD, "head", 2.0 * h, 0);
    head->tied_params = (double)m->vocab * (double)m->hidden;
    cx_model_part *layer =
        cx_model_part_begin(st, CX_MODEL_PART_LAYER, "dense", layer_params(m), 1);
    st->seg[0].kind = CX_MODEL_PART_LAYER;
    st->seg[0].count = m->layers;
    st->nseg = 1;
    if (!d) return;

    const double T = d->b * (double)m->seq / d->cp, Tn = d->sp ? T / d->t : T;
    cx_model_builder bd = {d->e, &layer->ops};
    dense(m, d, &bd);
    cx_model_layer_acts(layer, d->e * T * h / (d->sp ? d->t : 1.0));
    bd.ops = &emb->ops;
    cx_model_embedding_lookup(&bd, T, h, V, d);
    cx_model_elem(&bd, "embed_dropout", 2.0 * Tn * h, Tn * h, d->e, 1.0 * Tn * h);
    cx_model_fixed_acts(emb);
    bd.ops = &head->ops;
    cx_model_norm_logits_loss(&bd, "final_layernorm", T, h, V, d);
    cx_model_fixed_acts(head);
}

const cx_model_family cx_model_gpt = {"gpt", CULONX_ARCH_GPT, 4, NULL, build};
