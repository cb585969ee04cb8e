/*
 * model.h — a model as a stack of layer kinds, each an op table, plus the
 * embedding and the output (logits + loss) head: FLOPs, bytes moved, saved
 * activation bytes, parameters and tensor-parallel collectives, per TP rank,
 * for one microbatch. Pure arithmetic: no hardware. Sources: Narayanan et
 * al. SC'21 (FLOP formulas), Korthikanti et al. 2022 (activation memory, SP,
 * selective recompute), Megatron-LM TP collectives (f/g operators).
 *
 * Shape. A model family (models/gpt.c, models/llama.c, models/moe.c; models/registry.c
 * maps culonx_arch to it) builds a cx_model_stack:
 *   - parts: op tables with their parameters and saved activations. Part
 *     CX_MODEL_PART_EMBED is the input embedding (first virtual stage), part
 *     CX_MODEL_PART_HEAD the final norm, logits and loss (last virtual stage);
 *     parts from CX_MODEL_PART_LAYER on are the layer kinds the family uses
 *     ("dense", attention + MLP; the MoE family adds "moe");
 *   - segments: the ordered list (layer kind, count) from the input to the
 *     output, whose counts add up to model.layers (one segment for GPT and
 *     Llama; DeepSeek-V3 is [(dense, 3), (moe, 58)]).
 * core/eval/cost.c cuts the stack into virtual stages (an even split by default,
 * any layers-per-stage list on request) and prices each distinct chunk
 * content once (chunk classes, core/eval/cost.h).
 *
 * Adding a layer kind (MoE, a first- or last-stage variant): the family's
 * build fills one more part from CX_MODEL_PART_LAYER + k on (its op table with
 * the op constructors of models/build.h, parameters, act_bytes per recompute
 * mode, recompute = 1) and lists it in the segments, e.g. DeepSeek-style
 * [(dense, 3), (moe, 58)] or a distinct last layer [(dense, n-1), (dense_last,
 * 1)]. Nothing in core/ changes: chunks, the closed form, the graph engine
 * and the memory scan iterate segments and classes (the closed form replays
 * stacks of several kinds). A collective over another group than TP names
 * it in coll_group (the expert all-to-all, CX_COLL_ALL_TO_ALL over
 * CX_GROUP_EP); parameters sharded otherwise than by TP are counted apart
 * (`expert_params`: held / (ep etp), reduced over the expert data-parallel
 * group by core/eval/cost.c). A different embedding or head is a different part built by the
 * family. A new family is one file exporting a cx_model_family, one line in
 * models/registry.c, its culonx_arch value and its name in the schema.
 * Formulas and sources: models/README.md ("Parameters", "FLOPs",
 * "Activation memory", "Tensor-parallel collectives").
 */
#ifndef CX_MODEL_H
#define CX_MODEL_H

#include "culonx_types.h"

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
    CX_COLL_ALL_TO_ALL, /* expert dispatch / combine over the ep group */
} cx_coll_kind;

/* The group a collective runs over (cx_model_op.coll_group). */
typedef enum {
    CX_GROUP_TP = 0, /* Megatron f/g operators */
    CX_GROUP_EP,     /* expert all-to-all (models/moe.c) */
    CX_GROUP_ETP,    /* tensor parallelism inside the experts */
} cx_coll_group;

typedef struct {
    const char *name;
    cx_op_kind kind;
    double m, n, k, batch;   /* GEMM/BMM shape per TP rank: batch x [m,k]x[k,n] */
    double fwd_flops;        /* forward FLOPs (2 per multiply-add) */
    double fwd_bytes;        /* forward bytes read + written */
    double b_flops, b_bytes; /* backward: input gradient */
    double w_flops, w_bytes; /* backward: weight gradient */
    double saved_bytes;      /* kept for backward when nothing is recomputed */
    int attn_core;           /* its saved bytes are dropped by selective recompute */
    int sel_recompute;       /* recomputed under selective recompute */
    int tensor;              /* runs on tensor cores */
    int fused_attn;          /* fused attention kernel: its own efficiency (perf attn-eff) */
    int coll_cp;             /* its collective runs over the cp group (ring attention) */
    int coll_group;          /* cx_coll_group of its collective (coll_cp aside) */
    /* work of the busiest rank over the balanced work this op's FLOPs and
     * bytes state (MoE capacity factor; 0 or 1 = balanced): it is timed at
     * load x its work, its FLOPs stay the useful ones */
    double load;
    /* of each pass's bytes, the weights' (grouped expert GEMMs): read or
     * written once whatever the load, so not scaled by it */
    double weight_bytes;
    /* expert all-to-all overlap (core/eval/cost.c, execution.a2a-overlap):
     * 1 = the dispatch all-to-all or shared-expert work beside it, 2 = the
     * combine or the shared work beside it; 0 = neither */
    int a2a_pair;
    /* TP collective issued after this op in forward and in backward */
    cx_coll_kind coll_fwd, coll_bwd;
    double coll_bytes; /* full (unsharded) message bytes */
} cx_model_op;

#define CX_MODEL_MAX_OPS 32

typedef struct {
    cx_model_op op[CX_MODEL_MAX_OPS];
    int nops;
} cx_model_ops;

/* Fixed part indices; layer kinds follow from CX_MODEL_PART_LAYER on. */
#define CX_MODEL_PART_EMBED 0
#define CX_MODEL_PART_HEAD 1
#define CX_MODEL_PART_LAYER 2
#define CX_MODEL_MAX_KINDS 6
#define CX_MODEL_MAX_PARTS (CX_MODEL_PART_LAYER + CX_MODEL_MAX_KINDS)
#define CX_MODEL_MAX_SEGMENTS 64

/* One op table (a layer kind, the embedding or the head) and what a chunk
 * holding it needs besides its ops. */
typedef struct {
    const char *name; /* "dense", "embedding", "head" */
    cx_model_ops ops; /* per TP rank per microbatch (none when built for parameters) */
    double params;    /* parameters of one instance, whole (not TP-sharded) */
    /* of which routed-expert parameters: held / (ep x etp), reduced over the
     * expert data-parallel group (models/moe.c) instead of / tp over dp */
    double expert_params;
    double active_params; /* used by one token (params less the unrouted experts) */
    /* parameters shared with the embedding (tied output): held again by a
     * chunk that holds this part but not the embedding */
    double tied_params;
    double act_bytes[3]; /* saved per microbatch per instance, by culonx_recompute */
    int recompute;       /* a layer kind: re-run forward under recompute */
} cx_model_part;

typedef struct {
    int kind;      /* part index (>= CX_MODEL_PART_LAYER) */
    int64_t count; /* consecutive layers of that kind */
} cx_model_segment;

typedef struct cx_model_family cx_model_family;

typedef struct {
    const cx_model_family *family;
    cx_model_part part[CX_MODEL_MAX_PARTS]; /* [0, nparts) are filled */
    int nparts;
    cx_model_segment seg[CX_MODEL_MAX_SEGMENTS]; /* input to output */
    int nseg;
} cx_model_stack;

/* Shapes an op table is built for: microbatch b, TP degree t, sequence
 * parallelism sp (0 when t = 1), activation element bytes e. */
typedef struct {
    double b, t, e;
    int sp;
    int flash; /* fused FlashAttention kernel instead of materialised scores */
    double cp; /* context parallelism: each rank holds s / cp tokens (>= 1) */
    /* expert parallelism (>= 1) and the capacity factor (>= 1 = balanced);
     * models/moe.c */
    double ep, etp, capacity;
} cx_model_dims;

/* Width of one attention head: model.head-dim, or hidden / heads. */
static inline double cx_model_head_dim(const culonx_model *m)
{
    return m->head_dim > 0 ? (double)m->head_dim : (double)m->hidden / (double)m->heads;
}

/* Keys one query attends to on average under the causal mask and the
 * sliding window w (models/README.md, "Attention kernels"): query i sees
 * min(i + 1, w) keys, so the mean over s queries is (s + 1) / 2 without a
 * window and w - w(w - 1) / (2s) with one (w <= s). */
static inline double cx_model_attn_keys(const culonx_model *m)
{
    const double s = (double)m->seq, w = (double)m->window;
    if (m->window <= 0 || w >= s) return (s + 1.0) / 2.0;
    return w - w * (w - 1.0) / (2.0 * s);
}

struct cx_model_family {
    const char *name; /* as written in <model arch="..."> */
    culonx_arch arch;
    /* default ffn as a multiple of hidden; 0: ffn is required, ffn_why says
     * what it is */
    int64_t ffn_per_hidden;
    const char *ffn_why;
    /* Fills parts [0, nparts) and the segments. With d == NULL only names,
     * parameters and segments (no op tables: a cheap parameter count). */
    void (*build)(const culonx_model *m, const cx_model_dims *d, cx_model_stack *st);
};

/* models/registry.c: the family of an arch, or of a name; NULL if none. */
const cx_model_family *cx_model_family_of(culonx_arch arch);
const cx_model_family *cx_model_family_named(const char *name);
/* "gpt or llama": the family names, for messages */
void cx_model_family_names(char *buf, size_t len);

/* models/moe.c: segments (runs of one layer kind) of a MoE model's stack */
int cx_model_moe_segments(const culonx_model *m);

/* Parameters (whole model, not sharded) */
double cx_model_layer_params(const culonx_model *m); /* one layer of the first segment */
double cx_model_embed_params(const culonx_model *m); /* input embedding (+pos) */
double cx_model_head_params(const culonx_model *m);  /* final norm + untied output */
double cx_model_total_params(const culonx_model *m);
double cx_model_stack_params(const cx_model_stack *st);
/* Parameters one token uses (dense models: all of them) */
double cx_model_active_params(const culonx_model *m);
double cx_model_stack_active_params(const cx_model_stack *st);

/* Builds the stack with op tables for microbatch b, TP degree t, sequence
 * parallel sp, element size of activations and weights in bytes, flash
 * (1: FlashAttention, 0: materialised scores). Returns
 * -1 for an arch without a family. */
int cx_model_build(const culonx_model *m, int64_t b, int64_t t, int sp, double elem_bytes,
                   int flash, cx_model_stack *out);
/* The same with context parallelism cp (sequence split over cp ranks). */
int cx_model_build_cp(const culonx_model *m, int64_t b, int64_t t, int64_t cp, int sp,
                      double elem_bytes, int flash, cx_model_stack *out);

/* The same with every dimension given (d->sp is used as given). */
int cx_model_build_dims(const culonx_model *m, const cx_model_dims *d, cx_model_stack *out);

/* Saved bytes of an op table: all, or without the attention core */
double cx_model_saved_bytes(const cx_model_ops *ops, int skip_core);

/* Megatron closed formulas (for tests and MFU): per iteration, whole model. */
double cx_model_flops_megatron(const culonx_model *m, double global_batch, int full_recompute);

extern const cx_model_family cx_model_gpt, cx_model_llama, cx_model_moe;

#endif
