/*
 * hw.h — cost of work on a GPU and on the network, independent of what the
 * work is (models/ and schedules/ are not visible here).
 *  - perf.c: op time as a roofline with size-dependent efficiency,
 *    t = max(t_compute(f), t_mem), t_compute scaling with f_max/f.
 *  - net.c: ring and hierarchical collectives and p2p on network tiers,
 *    alpha-beta model with efficiency, bytes moved per tier for energy.
 * Formulas and constants: hw/README.md ("Roofline", "Collectives").
 */
#ifndef CX_HW_H
#define CX_HW_H

#include "culonx_types.h"

typedef struct {
    double flops; /* arithmetic work */
    double bytes; /* HBM traffic, read + written */
    double batch; /* independent GEMMs in a batched GEMM (>= 1) */
    int tensor;   /* runs on tensor cores */
    double eff;   /* > 0: achieved fraction of peak of a fused kernel (no GEMM-size curve) */
} cx_hw_work;

typedef struct {
    double compute_s; /* arithmetic part at the requested clock */
    double mem_s;     /* HBM part (clock independent) */
    double time_s;    /* max(compute, mem) + launch */
} cx_hw_time;

/* Fills zero fields of p with the library defaults (fitted, see perf.c). */
void cx_hw_perf_defaults(culonx_perf_params *p);
/* Peak FLOP/s of the GPU at max clock for a dtype on tensor cores or not. */
double cx_hw_peak_flops(const culonx_gpu *g, culonx_dtype dt, int tensor);
/* Matmul efficiency of one GEMM of gemm_flops FLOPs. */
double cx_hw_matmul_eff(const culonx_perf_params *p, double gemm_flops);
/* Fused attention kernel of kernel_flops (all heads): its fraction of the
 * matrix peak, forward (backward = 0) or backward (hw/README.md). */
double cx_hw_attn_eff(const culonx_perf_params *p, double kernel_flops, int backward);
cx_hw_time cx_hw_work_time(const culonx_system *sys, const culonx_perf_params *p,
                           const cx_hw_work *w, culonx_dtype dt, double clock_mhz);
/* cx_hw_work_time in two steps: the parts that read no clock (the
 * arithmetic time at f_max before the clock factor, when there are FLOPs;
 * the HBM time), and the time at a clock from them: the same operations in
 * the same order, so the same bits (cx_hw_work_time is the two). */
typedef struct {
    double arith_s, mem_s;
    int arith; /* FLOPs > 0 */
} cx_hw_work_parts;
void cx_hw_work_split(const culonx_system *sys, const culonx_perf_params *p, const cx_hw_work *w,
                      culonx_dtype dt, cx_hw_work_parts *out);
cx_hw_time cx_hw_work_time_at(const culonx_gpu *g, const cx_hw_work_parts *w, double clock_mhz);

typedef enum {
    CX_HW_ALL_REDUCE = 1,
    CX_HW_REDUCE_SCATTER = 2,
    CX_HW_ALL_GATHER = 3,
    CX_HW_P2P = 4,
    CX_HW_ALL_TO_ALL = 5, /* V = one rank's send buffer (hw/net.c) */
} cx_hw_coll;

typedef struct {
    double time_s;
    double bytes_tier[CULONX_MAX_TIERS]; /* bytes sent per GPU on each tier */
} cx_hw_comm;

/* A group of `size` ranks, `per_node` (1..size) of them inside one node;
 * per_node == size: the group stays inside a node. The layout derives it
 * from degrees, rank order and gpus-per-node (core/layout/layout.c); a p2p pair is
 * {2, 2} inside a node, {2, 1} across nodes. */
typedef struct {
    int64_t size, per_node;
} cx_hw_group;

/* A collective over group g. `bytes` is the full message (all-reduce
 * buffer; gathered size for AG/RS; p2p payload; one rank's send buffer for
 * an all-to-all). */
cx_hw_comm cx_hw_coll_cost(const culonx_system *sys, cx_hw_coll kind, double bytes, cx_hw_group g);
/* The expert dispatch/combine all-to-all under node-limited routing: each
 * token's `fanout` copies (top-k) go to experts on at most route_nodes nodes;
 * bytes = one rank's send buffer of copies (hw/net.c) */
cx_hw_comm cx_hw_all_to_all_routed(const culonx_system *sys, double bytes, cx_hw_group g,
                                   double fanout, double route_nodes);

#endif
