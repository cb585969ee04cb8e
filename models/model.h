/*
 * model.h — one transformer layer (GPT or Llama) as an op table, plus the
 * embedding and the output (logits + loss) head: FLOPs, bytes moved, saved
 * activation bytes and tensor-parallel collectives, per TP rank, for one
 * microbatch. Pure arithmetic: no hardware. Sources: Narayanan et al. SC'21
 * (FLOP formulas), Korthikanti et al. 2022 (activation memory, SP, selective
 * recompute), Megatron-LM TP collectives (f/g operators).
 * Formulas and sources: models/README.md ("Parameters", "FLOPs",
 * "Activation memory", "Tensor-parallel collectives").
 */
#ifndef CX_MODEL_H
#define CX_MODEL_H

#include "culonx.h"

typedef enum {
    CX_OP_GEMM = 0, /* weight matmul: B and W backward parts */
    CX_OP_BMM = 1,  /* activation x activation (attention): no weights */
    CX_OP_ELEM = 2, /* memory-bound: norms, activations, softmax, dropout */
} cx_op_kind;

typedef enum {
    CX_COLL_NONE = 0,
    CX_COLL_ALL_REDUCE,
    CX_COLL_REDUCE_SCATTER,
    CX_COLL_ALL_GATHER,
} cx_coll_kind;

typedef struct {
    const char *name;
    cx_op_kind kind;
    double m, n, k, batch;  /* GEMM/BMM shape per TP rank: batch x [m,k]x[k,n] */
    double fwd_flops;       /* forward FLOPs (2 per multiply-add) */
    double fwd_bytes;       /* forward bytes read + written */
    double b_flops, b_bytes; /* backward: input gradient */
    double w_flops, w_bytes; /* backward: weight gradient */
    double saved_bytes;     /* kept for backward when nothing is recomputed */
    int attn_core;          /* its saved bytes are dropped by selective recompute */
    int sel_recompute;      /* recomputed under selective recompute */
    int tensor;             /* runs on tensor cores */
    /* TP collective issued after this op in forward and in backward */
    cx_coll_kind coll_fwd, coll_bwd;
    double coll_bytes;      /* full (unsharded) message bytes */
} cx_model_op;

#define CX_MODEL_MAX_OPS 24

typedef struct {
    cx_model_op op[CX_MODEL_MAX_OPS];
    int nops;
} cx_model_ops;

typedef struct {
    cx_model_ops layer; /* one transformer layer */
    cx_model_ops embed; /* input embedding (first stage) */
    cx_model_ops head;  /* final norm, logits, loss (last stage) */
    /* activation bytes kept per layer per microbatch for each recompute mode */
    double layer_act_bytes[3];
    double embed_act_bytes, head_act_bytes; /* without recompute */
    double layer_input_bytes; /* what full recompute keeps per layer */
} cx_model_table;

/* Parameters */
double cx_model_layer_params(const culonx_model *m);
double cx_model_embed_params(const culonx_model *m); /* input embedding (+pos) */
double cx_model_head_params(const culonx_model *m);  /* final norm + untied output */
double cx_model_total_params(const culonx_model *m);

/* Builds the op tables for microbatch b, TP degree t, sequence parallel sp,
 * element size of activations and weights in bytes. */
void cx_model_build(const culonx_model *m, int64_t b, int64_t t, int sp, double elem_bytes,
                    cx_model_table *out);

/* Megatron closed formulas (for tests and MFU): per iteration, whole model. */
double cx_model_flops_megatron(const culonx_model *m, double global_batch, int full_recompute);

#endif
