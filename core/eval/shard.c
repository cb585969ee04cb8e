/*
 * shard.c — ZeRO-2/3 (FSDP, HSDP) and host offload as side traffic of the
 * per-chunk costs (cost.h; core/README.md, "Sharding" and "Offload").
 *
 * Groups (core/layout/layout.c): the gradient group G = cp x ep x dp ranks
 * splits into R = dp / shard-group replicas (R = 1 without shard-group) of
 * S = G / R ranks each (the shard group, contiguous, stride(cp) apart);
 * the replica group is R ranks S x stride(cp) apart.
 *
 * Per instance of a part (a layer, the embedding, the head) of P_l
 * parameters per TP rank, per microbatch, with compute C_f = F + TP(F) and
 * C_b = B + W + R + TP(B) + TP(R) of the instance:
 *   network, forward    N_f = AG(2 P_l)            (zero 3)
 *   network, backward   N_b = AG(2 P_l) + RS(g P_l) (zero 3; zero 2: RS only)
 *   host link, fwd/bwd  H   = (2 P_l / S_w (weights) + act_l (activations))
 *                             / host_bw, in forward (weights in, activations
 *                             out) and again in backward (both in)
 *   side time           X = max(N, H)  (network and PCIe/C2C run in parallel)
 *   exposed             max(0, X - C) per instance, + min(X, C) once per
 *                       chunk pass (the prefetch fill: the first gather of
 *                       the pass and the last reduce-scatter have nothing to
 *                       hide behind)
 * which is the timeline of prefetching one instance ahead: a pass of L
 * equal instances takes X + (L-1) max(X, C) + C = L C + L max(0, X - C) +
 * min(X, C). AG and RS are ring collectives over the shard group priced by
 * hw/net.c (cx_hw_coll_cost: (S-1)/S V/beta + (S-1) alpha per ring, on the
 * tier the group reaches). g = SHARD_GRAD_BYTES: ZeRO-2/3 reduce 16-bit
 * gradients (DeepSpeed ZeRO fp16/bf16 reduces in the compute dtype; FSDP
 * MixedPrecision reduce_dtype = param dtype in llm-foundry's PURE); the
 * sharded fp32 accumulators keep 4 B per parameter. S_w = S under zero 3
 * (only the shard is fetched from host), else 1.
 *
 * Implementations (execution.zero-impl): fsdp (PyTorch FSDP, the default)
 * gathers over the shard group as the layout places it (hierarchically
 * when it spans nodes: each GPU's NIC carries 1/r of the inter-node bytes,
 * hw/net.c) and keeps the gathered unit for the recomputed forward and
 * the backward; deepspeed (DeepSpeed ZeRO-3 as in SC'21 Table 2) fetches
 * parameters on every module forward, so under full recompute the
 * recomputed forward gathers again (3 all-gathers + 1 reduce-scatter per
 * layer and microbatch), and its per-parameter all-gathers are priced as
 * flat rings (every rank's NIC carries (S-1)/S of the bytes). The flat ring
 * is inferred from the measurements, not from a source: SC'21 reports the
 * same iteration time on 768 and 1536 GPUs (bandwidth-bound), which the
 * hierarchical ring undershoots by 3-5x (bench_validate, set SC21-Z3).
 *
 * Memory of the unsharded copies: core/eval/cost.c, cx_core_stage_memory
 * (FSDP: two gathered pieces and one 16-bit gradient; DeepSpeed: bounded by
 * its stage3_max_live_parameters and reduce_bucket_size defaults).
 *
 * After the last backward of a stage of P parameters per GPU (the DP tail,
 * core/eval/cost.c): zero 0 all-reduce 4P over G; zero 1 reduce-scatter 4P
 * + all-gather 2P over S; zero 2 all-gather 2P over S; zero 3 nothing; with
 * R > 1 (HSDP) the replicas all-reduce the shards, g' P / S over the replica
 * group (g' = 4 for zero <= 1, g for zero 2/3).
 *
 * Constants: SHARD_GRAD_BYTES above; the host link bandwidth is the
 * system's <host bw-gbps> (hw/README.md, "Host memory").
 */
#include "core/base/base.h"
#include "core/eval/cost.h"

#include <math.h>
#include <string.h>

/* ZeRO-2/3 gradient reduce-scatter: 16-bit gradients (see the top) */
#define SHARD_GRAD_BYTES 2.0

void cx_core_shard_groups(cx_cost *c)
{
    const culonx_execution *ex = &c->run->exec;
    const int64_t gpn = c->sys.gpus_per_node;
    const int zero = cx_core_layout_zero(ex);
    /* the groups read the layout (kept until cx_core_shard_init), the
     * stage and the shard group: the same ones for the same inputs */
    if (c->shard_in_ok && c->shard_in_group == ex->shard_group) {
        if (c->zero == zero) return;
        /* the groups read no stage: another stage changes the shard size */
        c->zero = zero;
        c->shard_n = c->zero >= 1 ? (double)c->grad_size / c->replicas : 1.0;
        return;
    }
    c->shard_in_ok = 1, c->shard_in_group = ex->shard_group;
    c->zero = zero;
    cx_hw_group g = cx_core_layout_grad_group(&c->layout, gpn);
    c->grad_size = g.size;
    c->replicas = (double)cx_core_layout_replicas(&c->layout, ex);
    c->shard_grp = cx_core_layout_shard_group(&c->layout, ex, gpn);
    c->replica_grp = cx_core_layout_replica_group(&c->layout, ex, gpn);
    c->shard_n = c->zero >= 1 ? (double)g.size / c->replicas : 1.0;
}

void cx_core_shard_init(cx_cost *c)
{
    c->shard_in_ok = 0; /* a new layout, or a new run */
    cx_core_shard_groups(c);
    c->host_bw_bps = c->sys.host_bw_gbps * 1e9;
    memset(c->part_fill_f_s, 0, sizeof c->part_fill_f_s);
    memset(c->part_fill_b_s, 0, sizeof c->part_fill_b_s);
}

static double coll(const cx_cost *c, cx_hw_coll k, double bytes, cx_hw_group g, double *tiers)
{
    if (bytes <= 0 || g.size <= 1) return 0.0;
    cx_hw_comm cm = cx_hw_coll_cost(&c->sys, k, bytes, g);
    for (int i = 0; tiers && i < CULONX_MAX_TIERS; i++)
        tiers[i] += cm.bytes_tier[i];
    return cm.time_s;
}

static inline int side(const cx_cost *c, int pi, double *xf, double *xb, double *tiers)
{
    const culonx_execution *ex = &c->run->exec;
    const cx_model_part *mp = &c->stack.part[pi];
    const double Pl = mp->params / (double)ex->tp;
    const int off_w = (ex->offload & CULONX_OFFLOAD_WEIGHTS) != 0;
    const int off_a = (ex->offload & CULONX_OFFLOAD_ACTIVATIONS) != 0;
    const int is_layer = pi >= CX_MODEL_PART_LAYER;
    if (c->zero < 2 && !off_w && !(off_a && is_layer)) return 0;
    double nf = 0, nb = 0;
    /* DeepSpeed ZeRO-3: flat rings, and a second backward gather for the
     * recomputed forward (see the top) */
    const int ds = ex->zero_impl == CULONX_ZERO_IMPL_DEEPSPEED;
    cx_hw_group sg = c->shard_grp;
    if (ds) sg.per_node = 1;
    if (c->zero >= 3) {
        nf = coll(c, CX_HW_ALL_GATHER, 2.0 * Pl, sg, tiers);
        nb = coll(c, CX_HW_ALL_GATHER, 2.0 * Pl, sg, tiers);
        if (ds && ex->recompute == CULONX_RECOMPUTE_FULL)
            nb += coll(c, CX_HW_ALL_GATHER, 2.0 * Pl, sg, tiers);
    }
    if (c->zero >= 2) nb += coll(c, CX_HW_REDUCE_SCATTER, SHARD_GRAD_BYTES * Pl, sg, tiers);
    double host = 0;
    if (c->host_bw_bps > 0) {
        double sw = c->zero >= 3 ? c->shard_n : 1.0;
        if (off_w) host += 2.0 * Pl / sw;
        if (off_a && is_layer) host += mp->act_bytes[ex->recompute];
        host /= c->host_bw_bps;
    }
    *xf = cx_maxd(nf, host), *xb = cx_maxd(nb, host);
    return 1;
}

int cx_core_shard_side(const cx_cost *c, int pi, double *xf, double *xb, double *tiers)
{
    return side(c, pi, xf, xb, tiers);
}

void cx_core_shard_part(cx_cost *c, int pi, cx_chunk_cost *pc, cx_op_times *ot)
{
    c->part_fill_f_s[pi] = c->part_fill_b_s[pi] = 0.0;
    c->part_sh_f_s[pi] = c->part_sh_b_s[pi] = 0.0;
    double tiers[CULONX_MAX_TIERS] = {0, 0}, xf, xb;
    if (!side(c, pi, &xf, &xb, tiers)) return;
    const double cf = pc->f_s + pc->tp_f_s;
    const double cb = pc->b_s + pc->w_s + pc->r_s + pc->tp_b_s + pc->tp_r_s;
    const double ef = cx_maxd(0.0, xf - cf), eb = cx_maxd(0.0, xb - cb);
    pc->sh_total_s += xf + xb;
    pc->sh_f_s += ef, pc->tp_f_s += ef;
    pc->sh_b_s += eb, pc->tp_b_s += eb;
    (void)ot;
    c->part_sh_f_s[pi] = ef, c->part_sh_b_s[pi] = eb;
    c->part_fill_f_s[pi] = cx_mind(xf, cf);
    c->part_fill_b_s[pi] = cx_mind(xb, cb);
    for (int i = 0; i < CULONX_MAX_TIERS; i++)
        pc->tp_tier_bytes[i] += tiers[i];
}

double cx_core_shard_dp(const cx_cost *c, double P, cx_hw_comm *a, cx_hw_comm *b)
{
    const double S = c->shard_n;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    cx_hw_group g = cx_core_layout_grad_group(&c->layout, c->sys.gpus_per_node);
    switch (c->zero) {
    case 0:
        *a = cx_hw_coll_cost(&c->sys, CX_HW_ALL_REDUCE, 4.0 * P, g);
        break;
    case 1:
        *a = cx_hw_coll_cost(&c->sys, CX_HW_REDUCE_SCATTER, 4.0 * P, c->shard_grp);
        *b = cx_hw_coll_cost(&c->sys, CX_HW_ALL_GATHER, 2.0 * P, c->shard_grp);
        break;
    case 2:
        *b = cx_hw_coll_cost(&c->sys, CX_HW_ALL_GATHER, 2.0 * P, c->shard_grp);
        break;
    default:
        break;
    }
    if (c->replicas > 1 && c->zero >= 1) {
        double gb = c->zero >= 2 ? SHARD_GRAD_BYTES : 4.0;
        cx_hw_comm h = cx_hw_coll_cost(&c->sys, CX_HW_ALL_REDUCE, gb * P / S, c->replica_grp);
        a->time_s += h.time_s;
        for (int i = 0; i < CULONX_MAX_TIERS; i++)
            a->bytes_tier[i] += h.bytes_tier[i];
    }
    return b->time_s;
}

void cx_core_memory_finish(const cx_cost *c, culonx_memory *mm)
{
    const culonx_execution *ex = &c->run->exec;
    if (ex->offload & CULONX_OFFLOAD_ACTIVATIONS) {
        /* the layer being computed and the one prefetched / being stored */
        double keep = 0;
        for (int k = 0; k < c->nclass; k++)
            keep = cx_maxd(keep, 2.0 * c->cls[k].layer_act_max);
        if (mm->activations_bytes > keep) {
            mm->host_bytes += mm->activations_bytes - keep;
            mm->activations_bytes = keep;
        }
    }
    mm->peak_bytes = mm->weights_bytes + mm->gradients_bytes + mm->optimizer_bytes +
                     mm->activations_bytes + mm->workspace_bytes;
    mm->host_capacity_bytes = c->sys.host_mem_gib * CX_GIB /
                              (double)(c->sys.gpus_per_node > 0 ? c->sys.gpus_per_node : 1);
    mm->fits = mm->peak_bytes <= mm->capacity_bytes &&
               (mm->host_bytes <= 0 || mm->host_bytes <= mm->host_capacity_bytes);
}
