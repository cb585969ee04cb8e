/*
 * serve.c — op tables of inference, built on the training op tables of the
 * family (models/gpt.c, models/llama.c) so that whatever a family puts in
 * its layer (GQA, SwiGLU, FlashAttention or FP8 when present) is what
 * prefill and decode cost. Only the forward columns are used.
 *
 * Prefill (b sequences of s prompt tokens): the family's layer for
 * microbatch b and sequence s, as in training forward, plus per layer a
 * KV-cache write of 2 x b x s x (k/t) x d x kv_e bytes; the head (final
 * norm, logits, sampling = the cross-entropy op's softmax over V/t) runs on
 * the last token of each sequence only (the family's head at s = 1).
 *
 * Decode (b sequences, one new token each, ctx cached tokens): the family's
 * layer at s = 1 (QKV, output projection, MLP and norms on T = b tokens,
 * every weight read once per step, the same TP all-reduces), with the ops
 * the family marks as the attention core (sel_recompute, attn_core or fused_attn: the
 * scores, softmax and context of an s x s attention) replaced by attention
 * of one query over L = ctx + 1 keys per head (paged attention):
 *   scores   FLOPs 2 b (a/t) L d,  bytes kv_e b (k/t) L d + e b (a/t) (d + L)
 *   softmax  bytes e 2 b (a/t) L
 *   context  FLOPs 2 b (a/t) L d,  bytes kv_e b (k/t) L d + e b (a/t) (L + d)
 * (K and V are read once per KV head and shared by the a/k query heads of
 * its group, GQA); these run on the vector units (vLLM's paged-attention
 * kernel computes with FMAs, not tensor cores), so they are bound by the
 * KV-cache bytes. Then a KV-cache append of 2 b (k/t) d kv_e bytes.
 *
 * KV cache per token of the whole model: 2 l k d kv_e bytes (models/README.md,
 * "Serving"; /work/shared/MODEL.md "Serving").
 */
#include "models/serve.h"
#include "models/build.h"

double cx_model_kv_bytes_per_token(const culonx_model *m, double kv_e)
{
    double d = (double)m->hidden / (double)m->heads;
    return 2.0 * (double)m->layers * (double)m->kv_heads * d * kv_e;
}

static int push(cx_model_ops *ops, const cx_model_op *o)
{
    if (ops->nops >= CX_MODEL_MAX_OPS) return -1;
    ops->op[ops->nops++] = *o;
    return 0;
}

static void decode_attention(const culonx_model *m, const cx_model_serve_dims *d,
                             cx_model_builder *bd)
{
    const double dh = (double)m->hidden / (double)m->heads;
    const double ah = (double)m->heads / d->t, kh = (double)m->kv_heads / d->t;
    const double b = d->b, L = d->ctx + 1.0, e = d->e, kv = d->kv_e;
    cx_model_op *o = cx_model_bmm(bd, "kv_scores", b * ah, 1.0, L, dh, 0.0);
    o->fwd_bytes = kv * b * kh * L * dh + e * b * ah * (dh + L);
    o->tensor = 0;
    cx_model_elem(bd, "kv_softmax", b * ah * L, b * ah * L, e, 0.0);
    o = cx_model_bmm(bd, "kv_context", b * ah, 1.0, dh, L, 0.0);
    o->fwd_bytes = kv * b * kh * L * dh + e * b * ah * (L + dh);
    o->tensor = 0;
}

/* The family's tables for serving: flash prefill, no SP; a mixture of
 * experts splits every expert over the instance's TP group (etp = tp, the
 * tensor-parallel MoE of vLLM and SGLang; models/moe.c), matching the
 * weights per GPU of core/eval/serve.c (parameters / GPUs). */
static int serve_stack(const culonx_model *m, double b, double t, double e, cx_model_stack *out)
{
    cx_model_dims dm;
    dm.b = b, dm.t = t, dm.e = e, dm.sp = 0, dm.flash = 1, dm.cp = 1.0;
    dm.ep = 1.0, dm.etp = t, dm.capacity = 1.0;
    return cx_model_build_dims(m, &dm, out);
}

int cx_model_serve_build(const culonx_model *m, cx_model_phase phase, const cx_model_serve_dims *d,
                         cx_model_stack *out)
{
    culonx_model mm = *m;
    mm.seq = phase == CX_MODEL_PREFILL ? (int64_t)d->tokens : 1;
    if (mm.seq < 1) mm.seq = 1;
    const double b = (double)(int64_t)d->b, t = (double)(int64_t)d->t;
    /* serving engines run FlashAttention for prefill (flash = 1) */
    if (serve_stack(&mm, b, t, d->e, out) != 0) return -1;
    if (phase == CX_MODEL_PREFILL && mm.seq > 1) {
        cx_model_stack last;
        culonx_model m1 = *m;
        m1.seq = 1;
        if (serve_stack(&m1, b, t, d->e, &last) != 0) return -1;
        out->part[CX_MODEL_PART_HEAD].ops = last.part[CX_MODEL_PART_HEAD].ops;
    }
    const double dh = (double)m->hidden / (double)m->heads, kh = (double)m->kv_heads / d->t;
    const double new_tokens = d->b * (phase == CX_MODEL_PREFILL ? (double)mm.seq : 1.0);
    for (int p = CX_MODEL_PART_LAYER; p < out->nparts; p++) {
        cx_model_ops src = out->part[p].ops, *ops = &out->part[p].ops;
        cx_model_builder bd = {d->e, ops};
        int placed = 0;
        ops->nops = 0;
        for (int i = 0; i < src.nops; i++) {
            const cx_model_op *o = &src.op[i];
            if (phase == CX_MODEL_DECODE && (o->sel_recompute || o->attn_core || o->fused_attn)) {
                if (!placed) {
                    if (ops->nops + 3 > CX_MODEL_MAX_OPS) return -1;
                    decode_attention(m, d, &bd);
                    placed = 1;
                }
                continue;
            }
            if (push(ops, o) != 0) return -1;
        }
        if (ops->nops + 1 > CX_MODEL_MAX_OPS) return -1;
        /* K and V of the new tokens into the cache (written once) */
        cx_model_op *w = cx_model_push(&bd, "kv_cache_write", CX_OP_ELEM);
        w->fwd_bytes = 2.0 * new_tokens * kh * dh * d->kv_e;
    }
    return 0;
}
