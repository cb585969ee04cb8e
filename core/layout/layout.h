/*
 * layout.h — a parallelism layout as data: the degree of every dimension and
 * the rank order, from which the number of GPUs, the group of each
 * dimension (size, stride, members per node) and so the network tier each
 * collective crosses are derived, here and nowhere else (core/layout/layout.c).
 *
 * Dimensions: tensor (tp), context (cp), expert (ep), data (dp) and
 * pipeline (pp) parallelism (a new dimension = one enum value, its degree
 * and its place in the order). The degree of ep in the product stays 1:
 * expert parallelism does not multiply the GPU count but subdivides the
 * tp x cp x dp ranks of a stage (Megatron-Core's expert groups, "MoE
 * parallel folding"): in MoE layers those R = tp cp dp ranks are numbered
 * etp fastest, then ep, then edp = R / (ep etp), so
 *     etp group: etp ranks, stride 1
 *     ep  group: ep ranks, stride etp         (the all-to-all)
 *     edp group: R / (ep etp) ranks, stride ep etp (expert gradients)
 * (expert_ep, expert_etp; cx_core_layout_expert_group). Ranks are numbered with the first dimension
 * of `order` varying fastest; Megatron-LM's default order is TP, CP, EP, DP, PP
 * (megatron/core/parallel_state.py, order "tp-cp-ep-dp-pp"), so with
 * cp = ep = 1: TP fastest, then DP, then PP. The members of a group of
 * dimension d are stride(d) = product of the degrees before d apart:
 *     gpus = product of all degrees
 *     stride(tp) = 1, stride(dp) = tp cp ep, stride(pp) = tp cp ep dp
 *     ranks per pipeline stage = gpus / pp
 * A group of size N whose members are `stride` ranks apart has
 *     r = clamp(gpus_per_node / stride, 1, N)     (stride < gpus_per_node)
 *     r = 1                                        (otherwise)
 * members inside one node; it stays in the node (fast tier) iff r = N. A
 * p2p partner `stride` ranks away shares the node iff stride < gpus_per_node.
 * hw/net.c prices a group as given (cx_hw_group) and knows no rank order.
 *
 * Streams of the iteration graph (core/eval/graph.h, CX_STREAM_*): COMPUTE runs
 * the work of one rank; TP carries the collectives of the tp dimension
 * (blocking, inside each chunk); PP the p2p along the pp dimension (stage
 * boundaries); DP the gradient sync over the dp dimension; EP the expert
 * all-to-alls (and etp collectives) of MoE layers. cp's ring attention is
 * accounted on the TP stream.
 */
#ifndef CX_CORE_LAYOUT_H
#define CX_CORE_LAYOUT_H

#include "culonx.h"
#include "hw/hw.h"

#include <stdint.h>

/* Capacity of the evaluators (per-stage arrays are sized by these): at
 * most this many pipeline stages and virtual stages (stages x chunks). */
#define CX_LAYOUT_MAX_STAGES 1024
#define CX_LAYOUT_MAX_VSTAGES 4096

typedef enum { CX_DIM_TP = 0, CX_DIM_CP, CX_DIM_EP, CX_DIM_DP, CX_DIM_PP, CX_DIM_COUNT } cx_dim;

typedef struct {
    int64_t degree[CX_DIM_COUNT];
    uint8_t order[CX_DIM_COUNT];   /* dimensions, fastest-varying first */
    int64_t stride[CX_DIM_COUNT];  /* ranks between neighbours of a group */
    int64_t gpus;                  /* product of the degrees (saturating) */
    int64_t expert_ep, expert_etp; /* expert groups inside a stage (>= 1) */
} cx_layout;

/* Groups of the experts' layout (see the top). */
typedef enum { CX_EXPERT_ETP = 0, CX_EXPERT_EP, CX_EXPERT_EDP } cx_expert_dim;

/* The layout of an execution: tp, pp, dp from it, cp = ep = 1, Megatron's
 * order. Degrees below 1 count as 1 for strides; products saturate at
 * INT64_MAX, so any input is safe (the loader checks the ranges). */
void cx_core_layout_init(cx_layout *l, const culonx_execution *ex);

/* The collective group of dimension d, as hw/net.c prices it. */
cx_hw_group cx_core_layout_group(const cx_layout *l, cx_dim d, int64_t gpus_per_node);
/* The gradient-reduction group: cp x ep x dp ranks (contiguous in the
 * order), stride(cp) apart; = the dp group when cp = ep = 1. Megatron
 * reduces gradients and shards the distributed optimizer over dp x cp. */
cx_hw_group cx_core_layout_grad_group(const cx_layout *l, int64_t gpus_per_node);
/* The expert group of kind d (etp, ep or the expert data-parallel group
 * over which expert gradients are reduced and their optimizer sharded). */
cx_hw_group cx_core_layout_expert_group(const cx_layout *l, cx_expert_dim d, int64_t gpus_per_node);
/* Ranks of the expert data-parallel group: tp cp dp / (ep etp) (>= 1). */
int64_t cx_core_layout_expert_dp(const cx_layout *l);
/* ZeRO / FSDP sharding (core/README.md, "Sharding"). The stage: ex->zero,
 * or 1 when only distributed_optimizer is set (runs built in code). */
int cx_core_layout_zero(const culonx_execution *ex);
/* Replicas R = dp / shard-group of HSDP (1 without shard-group: FULL_SHARD
 * shards over the whole gradient group). */
int64_t cx_core_layout_replicas(const cx_layout *l, const culonx_execution *ex);
/* The shard group: the gradient group's first (cp x ep x dp) / R ranks,
 * contiguous in the order, stride(cp) apart: parameters, gradients and
 * optimizer state are sharded over it, parameters all-gathered and
 * gradients reduce-scattered in it. = the gradient group when R = 1. */
cx_hw_group cx_core_layout_shard_group(const cx_layout *l, const culonx_execution *ex,
                                       int64_t gpus_per_node);
/* The replica group of HSDP: R ranks, stride(cp) x shard size apart (one
 * per shard group), all-reducing the sharded gradients. */
cx_hw_group cx_core_layout_replica_group(const cx_layout *l, const culonx_execution *ex,
                                         int64_t gpus_per_node);
/* Neighbours along d exchanging p2p (pipeline sends): a group of 2, inside
 * one node iff stride(d) < gpus_per_node. */
cx_hw_group cx_core_layout_p2p(const cx_layout *l, cx_dim d, int64_t gpus_per_node);

/* Ranks of one pipeline stage (every degree but pp's): the replicas that
 * each run the per-rank work of a stage. */
int64_t cx_core_layout_stage_ranks(const cx_layout *l);
/* Every degree but dp's (tp*pp today): gpus / this = dp. */
int64_t cx_core_layout_model_ranks(const cx_layout *l);
/* dp from a GPU count and the other degrees of l; 0 when they do not divide
 * it (the sweep and the loader's derived dp). */
int64_t cx_core_layout_derive_dp(const cx_layout *l, int64_t gpus);

#endif
