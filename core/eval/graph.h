/*
 * graph.h — the DAG of one training iteration (core/eval/walk.c builds it,
 * core/eval/graph_eval.c evaluates it, core/output/trace.c writes it as a Chrome trace).
 *
 * One representative rank per pipeline stage (TP groups are inside a stage,
 * DP replicas are identical). Five streams per stage: compute, TP comm, PP
 * comm, DP comm and EP comm (the expert collectives of MoE layers, blocking
 * like TP's). A node runs after its predecessors: the previous node of
 * its stream on its stage (stream order = schedule order), and up to three
 * data dependencies. Nodes live in one arena, freed in one call.
 * See core/README.md, "Graph".
 */
#ifndef CX_CORE_GRAPH_H
#define CX_CORE_GRAPH_H

#include "core/base/base.h"
#include "core/eval/cost.h"

typedef enum {
    CX_STREAM_COMPUTE = 0,
    CX_STREAM_TP = 1,
    CX_STREAM_PP = 2,
    CX_STREAM_DP = 3,
    CX_STREAM_EP = 4,    /* expert all-to-all and etp collectives (MoE) */
    CX_STREAM_SHARD = 5, /* ZeRO-3 gathers / reduce-scatters, offload (exposed part) */
    CX_NSTREAMS = 6
} cx_stream;

typedef enum {
    CX_NODE_F = 0,  /* forward of a chunk for a microbatch */
    CX_NODE_B,      /* input gradient */
    CX_NODE_W,      /* weight gradient */
    CX_NODE_BW,     /* fused input + weight gradient */
    CX_NODE_R,      /* recomputed forward before the backward */
    CX_NODE_TP,     /* tensor-parallel collective */
    CX_NODE_SEND,   /* pipeline p2p (activation forward, gradient backward) */
    CX_NODE_DP,     /* data-parallel gradient bucket */
    CX_NODE_OPT,    /* optimizer step */
    CX_NODE_EP,     /* expert collective: all-to-all dispatch/combine, etp gather */
    CX_NODE_GATHER, /* exposed ZeRO-2/3 gather / reduce-scatter or offload transfer */
    CX_NODE_KINDS
} cx_node_kind;

/* The compute phase of a node kind: 0 F, 1 B, 2 W, 3 BW, 4 R, 5 optimizer;
 * -1 for communication. */
static inline int cx_core_node_phase(int kind)
{
    switch (kind) {
    case CX_NODE_F:
        return 0;
    case CX_NODE_B:
        return 1;
    case CX_NODE_W:
        return 2;
    case CX_NODE_BW:
        return 3;
    case CX_NODE_R:
        return 4;
    case CX_NODE_OPT:
        return 5;
    default:
        return -1;
    }
}

#define CX_NODE_NPRED 4

typedef struct {
    double dur_s;
    double start_s;              /* set by eval */
    double flops;                /* per GPU */
    double bytes;                /* HBM bytes per GPU (compute) or bytes sent (comm) */
    double mem_bytes;            /* activations allocated (F) or freed (B/W/BW end) */
    double work_bytes;           /* transient bytes held while running (recompute) */
    double energy_j;             /* per GPU, set by the energy model when present */
    int32_t pred[CX_NODE_NPRED]; /* -1 = none */
    int32_t mb;
    int16_t stage, chunk, vstage, layer; /* layer -1 at stage level */
    uint8_t kind, stream, op;            /* op index in its table (op level) */
    uint8_t part;                        /* part of the model stack (op level) */
} cx_node;

typedef enum { CX_DETAIL_STAGE = 0, CX_DETAIL_OP = 1 } cx_detail;

typedef struct {
    double busy_s[CX_NSTREAMS]; /* time each stream is busy */
    double compute_f_s, compute_b_s, compute_w_s, compute_r_s;
    double pp_block_s; /* compute waiting on blocking sends */
    double end_s;      /* last node end on this stage */
    double last_compute_end_s;
    double dp_exposed_s, optimizer_s;
    double dp_end_s;       /* end of the last DP bucket */
    double peak_act_bytes; /* replayed activations peak */
    double static_bytes;   /* weights + grads + optimizer + workspace */
    double p2p_bytes;
} cx_stage_stats;

typedef struct {
    cx_arena arena;
    cx_cost *cost; /* owned */
    const culonx_run *run;
    cx_detail detail;
    cx_node *node;
    int64_t n;
    int64_t *stage_begin; /* [p + 1]: nodes of stage s are [begin[s], begin[s+1]) */
    int p, v, m;
    /* results of eval */
    double makespan_s;
    cx_stage_stats *stage; /* [p] */
    int64_t edges;
} cx_graph;

/* Builds the DAG of a (checked) run at a clock (0 = max). */
culonx_status cx_core_graph_build(const culonx_run *run, double clock_mhz, cx_detail detail,
                                  cx_graph **out, culonx_error *err);
/* Longest path in topological order, stream statistics, memory replay. */
culonx_status cx_core_graph_eval(cx_graph *g, culonx_error *err);
/* Checks the run, builds and evaluates its DAG (*out NULL on failure). */
culonx_status cx_core_graph_run(const culonx_run *run, int op_level, cx_graph **out,
                                culonx_error *err);
/* Fills the same result fields as the closed form. */
void cx_core_graph_result(cx_graph *g, culonx_result *res);
void cx_core_graph_free(cx_graph *g);

const char *cx_core_node_name(const cx_graph *g, const cx_node *nd);
/* Chrome trace JSON of an evaluated graph (core/output/trace.c). */
void cx_core_trace_write(FILE *out, const cx_graph *g);
/* Events of one (stage, stream) thread that start before an earlier one ends,
 * in the integer nanoseconds the trace writes (0 for a Perfetto-clean trace). */
int64_t cx_core_trace_overlaps(const cx_graph *g);
/* The same keeping the max_events earliest events (0: all); info may be NULL. */
void cx_core_trace_write_opts(FILE *out, const cx_graph *g, int64_t max_events,
                              culonx_trace_info *info);

#endif
