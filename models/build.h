/*
 * build.h — op constructors shared by the family builders (models/gpt.c,
 * models/llama.c, models/moe.c): a weight GEMM, a grouped expert GEMM, an attention BMM, a
 * memory-bound op, a TP collective, and the vocabulary-parallel embedding lookup and logits +
 * cross-entropy that every decoder-only family shares. Inline so that the
 * per-evaluation table build stays a straight line of arithmetic.
 *
 * FLOPs (a multiply-add = 2): a weight GEMM [m,k]x[k,n] costs 2mnk forward,
 * 2mnk for the input gradient (B) and 2mnk for the weight gradient (W); an
 * attention BMM has no weights, its backward is 2x forward, all in B. A
 * memory-bound op reads `in` and writes `out` elements forward; backward
 * reads the output gradient and the saved input and writes the input
 * gradient. TP collectives are Megatron's f/g operators (see the families).
 */
#ifndef CX_MODEL_BUILD_H
#define CX_MODEL_BUILD_H

#include "core/base/base.h"
#include "models/model.h"

#include <string.h>

typedef struct {
    double e; /* activation element bytes */
    cx_model_ops *ops;
} cx_model_builder;

static inline cx_model_op *cx_model_push(cx_model_builder *bd, const char *name, cx_op_kind kind)
{
    cx_model_op *o = &bd->ops->op[bd->ops->nops++];
    cx_zero(o, sizeof *o); /* memset without rep stosq (base.h) */
    o->name = name;
    o->kind = kind;
    o->batch = 1;
    return o;
}

static inline cx_model_op *cx_model_gemm(cx_model_builder *bd, const char *name, double m, double n,
                                         double k, double saved)
{
    cx_model_op *o = cx_model_push(bd, name, CX_OP_GEMM);
    double e = bd->e;
    o->m = m, o->n = n, o->k = k;
    o->fwd_flops = o->b_flops = o->w_flops = 2.0 * m * n * k;
    o->fwd_bytes = o->b_bytes = o->w_bytes = e * (m * k + k * n + m * n);
    o->saved_bytes = saved;
    o->tensor = 1;
    return o;
}

static inline cx_model_op *cx_model_bmm(cx_model_builder *bd, const char *name, double batch,
                                        double m, double n, double k, double saved)
{
    cx_model_op *o = cx_model_push(bd, name, CX_OP_BMM);
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

/* A grouped GEMM (mixture-of-experts experts, models/moe.c): `groups` GEMMs
 * [m, k] x [k, n], one per local expert, in one kernel (CUTLASS grouped GEMM,
 * torch._grouped_mm). Measured on an H100 (bench/data/h100-expert-gemm.csv,
 * bench/kernels_check.c): the tiles of all experts fill the SMs together, so
 * the kernel follows the GEMM size curve of its WHOLE FLOPs (batch 1: 13%
 * MAPE, against 20-28% on one expert's FLOPs), and at small m it streams
 * the weights of all local experts (the roofline's memory side, the bytes
 * below). weight_bytes: the weights' share, read (F, B) or written (W) once
 * whatever the token count, so a capacity factor (load) does not scale it. */
static inline cx_model_op *cx_model_grouped_gemm(cx_model_builder *bd, const char *name,
                                                 double groups, double m, double n, double k,
                                                 double saved)
{
    cx_model_op *o = cx_model_gemm(bd, name, m, n, k, saved);
    o->fwd_flops = o->b_flops = o->w_flops = 2.0 * groups * m * n * k;
    o->fwd_bytes = o->b_bytes = o->w_bytes = bd->e * groups * (m * k + k * n + m * n);
    o->weight_bytes = bd->e * groups * k * n;
    return o;
}

/* memory-bound op reading `in` and writing `out` elements of size ebytes */
static inline cx_model_op *cx_model_elem(cx_model_builder *bd, const char *name, double in,
                                         double out, double ebytes, double saved)
{
    cx_model_op *o = cx_model_push(bd, name, CX_OP_ELEM);
    o->m = in;
    o->fwd_bytes = ebytes * (in + out);
    /* backward reads the output gradient and saved input, writes input grad */
    o->b_bytes = ebytes * (2.0 * in + out);
    o->saved_bytes = saved;
    return o;
}

/* Fused FlashAttention kernel (Dao et al. 2022/2023; models/README.md,
 * "Attention kernels") for bq = b x (query heads per rank) heads of s
 * queries of width d, each attending to `keys` keys on average (causal mask
 * and window: blocks the kernel skips are not counted), kvq key/value heads
 * per query head (k/a). Forward: two matmuls, 4 bq s keys d FLOPs; backward
 * recomputes the scores and forms dV, dP, dQ, dK: 2.5x forward, all input
 * gradient (no weights). HBM traffic O(s d): forward reads Q, K, V and
 * writes O and the fp32 log-sum-exp; backward reads Q, K, V, O, dO and
 * writes dQ, dK, dV. Saved: Q, K, V (the QKV output) and the log-sum-exp;
 * no s x s tensor ever reaches HBM, so nothing is left for selective
 * recompute to drop. */
static inline cx_model_op *cx_model_flash(cx_model_builder *bd, const char *name, double bq,
                                          double kvq, double s, double keys, double d)
{
    cx_model_op *o = cx_model_push(bd, name, CX_OP_BMM);
    const double e = bd->e, qkv = bq * s * d * (1.0 + 2.0 * kvq), lse = 4.0 * bq * s;
    o->m = s, o->n = keys, o->k = d, o->batch = bq;
    o->fwd_flops = 4.0 * bq * s * keys * d;
    o->fwd_bytes = e * (qkv + bq * s * d) + lse;
    o->b_flops = 2.5 * o->fwd_flops;
    o->b_bytes = e * (2.0 * qkv + 2.0 * bq * s * d) + lse;
    o->saved_bytes = e * qkv + lse;
    o->tensor = 1;
    o->fused_attn = 1;
    return o;
}

static inline void cx_model_coll(cx_model_op *o, cx_coll_kind fwd, cx_coll_kind bwd, double bytes)
{
    o->coll_fwd = fwd;
    o->coll_bwd = bwd;
    o->coll_bytes = bytes;
}

/* Ring attention (context parallelism, Megatron/Transformer Engine; Liu et
 * al. 2023): each of cp ranks holds s/cp queries (two chunks, causal load
 * balance) and passes its K and V blocks around the ring, cp - 1 steps: the
 * volume of an all-gather of the whole K and V (kv_bytes, of the sequence)
 * over the cp group in forward; backward passes K and V again and the dK,
 * dV partial sums: twice that, priced as an all-reduce of kv_bytes. Each
 * step overlaps the attention of the block in hand (core/eval/cost.c
 * exposes what does not hide). */
static inline void cx_model_ring_attention(cx_model_op *o, double kv_bytes)
{
    cx_model_coll(o, CX_COLL_ALL_GATHER, CX_COLL_ALL_REDUCE, kv_bytes);
    o->coll_cp = 1;
}

/* The attention core of a layer, between the QKV projection and the output
 * projection: the fused FlashAttention kernel (ring attention over the cp
 * group, K and V blocks of head width `width`) or, naive, the materialised
 * scores BMM (keeping `scores_saved` bytes: Q and K), the softmax, with
 * `dropout` an attention dropout (GPT; its 1-byte mask kept), and the
 * context BMM (keeping the dropout output; without dropout it reuses the
 * softmax output). The s x s ops are what selective recompute drops. */
static inline void cx_model_attention_core(cx_model_builder *bd, const cx_model_dims *dm,
                                           double keys, double b, double ah, double kh, double s,
                                           double width, double scores_saved, int dropout)
{
    const double e = bd->e, ss = b * ah * s * s;
    cx_model_op *o;
    if (dm->flash) { /* dropout fused, its mask regenerated in backward */
        o = cx_model_flash(bd, "flash_attn", b * ah, kh / ah, s / dm->cp, keys, width);
        if (dm->cp > 1) cx_model_ring_attention(o, e * b * s * 2.0 * kh * width);
        return;
    }
    o = cx_model_bmm(bd, "attn_scores", b * ah, s, s, width, scores_saved);
    o->sel_recompute = 1;
    o = cx_model_elem(bd, "softmax", ss, ss, e, e * ss);
    o->attn_core = o->sel_recompute = 1;
    if (dropout) {
        o = cx_model_elem(bd, "attn_dropout", ss, ss, e, 1.0 * ss);
        o->attn_core = o->sel_recompute = 1;
    }
    o = cx_model_bmm(bd, "attn_context", b * ah, s, width, s, dropout ? e * ss : 0.0);
    o->attn_core = o->sel_recompute = 1;
}

/* Starts part i of st as an empty op table named `name`. */
static inline cx_model_part *cx_model_part_begin(cx_model_stack *st, int i, const char *name,
                                                 double params, int recompute)
{
    cx_model_part *p = &st->part[i];
    p->name = name;
    p->ops.nops = 0;
    p->params = params;
    p->expert_params = 0.0;
    p->active_params = params;
    p->tied_params = 0.0;
    p->act_bytes[0] = p->act_bytes[1] = p->act_bytes[2] = 0.0;
    p->recompute = recompute;
    if (st->nparts < i + 1) st->nparts = i + 1;
    return p;
}

/* Saved activations of a layer kind per recompute mode (Korthikanti et al.
 * 2022): everything, everything but the attention core (selective), or the
 * layer input of input_bytes (full). */
static inline void cx_model_layer_acts(cx_model_part *p, double input_bytes)
{
    p->act_bytes[CULONX_RECOMPUTE_NONE] = cx_model_saved_bytes(&p->ops, 0);
    p->act_bytes[CULONX_RECOMPUTE_SELECTIVE] = cx_model_saved_bytes(&p->ops, 1);
    p->act_bytes[CULONX_RECOMPUTE_FULL] = input_bytes;
}

/* Embedding and head are never recomputed: the same bytes in every mode. */
static inline void cx_model_fixed_acts(cx_model_part *p)
{
    double a = cx_model_saved_bytes(&p->ops, 0);
    p->act_bytes[0] = p->act_bytes[1] = p->act_bytes[2] = a;
}

/* Vocabulary-parallel lookup of T tokens of width h from a V/t-row shard:
 * every rank writes its partial rows, then the partial sums are all-reduced
 * (reduce-scattered with SP). The backward is PyTorch's dense embedding
 * backward (the embedding is not sparse in Megatron): a zeroed 16-bit
 * gradient of the whole shard (e V h/t written), the T output-gradient rows
 * read and scatter-added (2 e T h), then Megatron's gradient hook adds it
 * to the fp32 main gradient (read 4 + e, write 4 per element): W bytes
 * (2e + 8) V h/t + 2e T h per microbatch (models/README.md, "FLOPs"). */
static inline void cx_model_embedding_lookup(cx_model_builder *bd, double T, double h, double V,
                                             const cx_model_dims *d)
{
    const double e = bd->e;
    cx_model_op *o = cx_model_elem(bd, "embedding", T, T * h, e, 0.0);
    o->w_bytes = (2.0 * e + 8.0) * V * h / d->t + 2.0 * e * T * h;
    if (d->t > 1)
        cx_model_coll(o, d->sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, CX_COLL_NONE,
                      e * T * h);
}

/* Final norm (named by the family) with Megatron's f operator, vocabulary-
 * parallel logits, and cross entropy in fp32 with two all-reduces of T
 * floats. The cross entropy is Megatron's unfused vocab-parallel loss
 * (megatron/core/tensor_parallel/cross_entropy.py), one pass over the T x V/t
 * logits per step, bytes per element: forward cast to fp32 (read 2, write
 * 4), max (read 4), subtract the max in place (8), exp in place (8), sum
 * (read 4), divide by the sum in place (8): 38; backward scale the saved
 * softmax by the output gradient in place (8), cast the gradient back to
 * 16 bits (read 4, write 2): 14 (models/README.md, "Head"). */
#define CX_CE_FWD_BYTES_PER_ELEM 38.0
#define CX_CE_BWD_BYTES_PER_ELEM 14.0
static inline void cx_model_norm_logits_loss(cx_model_builder *bd, const char *norm, double T,
                                             double h, double V, const cx_model_dims *d)
{
    const double e = bd->e, t = d->t, Tn = d->sp ? T / t : T;
    const int sp = d->sp;
    cx_model_op *o = cx_model_elem(bd, norm, Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1)
        cx_model_coll(o, sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE,
                      sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, e * T * h);
    cx_model_gemm(bd, "logits", T, V / t, h, e * T * h / (sp ? t : 1.0));
    o = cx_model_elem(bd, "cross_entropy", T * V / t, T * V / t, 4.0, 4.0 * T * V / t);
    o->fwd_bytes = CX_CE_FWD_BYTES_PER_ELEM * T * V / t;
    o->b_bytes = CX_CE_BWD_BYTES_PER_ELEM * T * V / t;
    if (t > 1) cx_model_coll(o, CX_COLL_ALL_REDUCE, CX_COLL_NONE, 2.0 * 4.0 * T);
}

#endif
