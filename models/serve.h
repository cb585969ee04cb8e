/*
 * serve.h — the op tables of inference (prefill and decode), built from the
 * training op tables of a family (models/model.h) with the constructors of
 * models/build.h. Formulas: models/README.md, "Serving".
 */
#ifndef CX_MODEL_SERVE_H
#define CX_MODEL_SERVE_H

#include "models/model.h"

typedef enum {
    CX_MODEL_PREFILL = 0, /* the prompt of each sequence at once; KV cache written */
    CX_MODEL_DECODE = 1,  /* one new token per sequence over a KV cache of ctx tokens */
} cx_model_phase;

/* Shape of one inference step on one TP rank: b sequences, `tokens` new
 * tokens per sequence (prefill: the prompt; decode: 1), ctx cached tokens
 * each attends to besides itself (decode), TP degree t, activation and
 * weight element bytes e, KV cache element bytes kv_e. */
typedef struct {
    double b, tokens, ctx, t, e, kv_e;
} cx_model_serve_dims;

/* Builds the forward op tables of one inference step: the family's tables
 * for b sequences of `tokens` tokens, with (decode) the attention core
 * replaced by attention over the KV cache, a KV-cache append per layer, and
 * a head (final norm, logits, sampling) over the last token of each
 * sequence only. Only fwd_flops, fwd_bytes and the forward collectives are
 * meaningful. -1 for an arch without a family or a table that overflows. */
int cx_model_serve_build(const culonx_model *m, cx_model_phase phase, const cx_model_serve_dims *d,
                         cx_model_stack *out);

/* KV cache bytes per token of the whole model (all layers, all KV heads):
 * 2 (K and V) x l x k x d x kv_e. */
double cx_model_kv_bytes_per_token(const culonx_model *m, double kv_e);

#endif
