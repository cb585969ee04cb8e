/*
 * a2a.c — the expert all-to-all's exposed time (execution.a2a-overlap) and
 * its price under node-limited routing (execution.route-nodes), for
 * core/eval/cost.c. core/README.md, "Experts".
 *
 * Overlap. The ops of a MoE layer (models/moe.c) mark the dispatch
 * all-to-all (held by `permute`) and the combine (`a2a_combine`) with
 * a2a_pair 1 and 2; the shared experts' gate+up and SwiGLU with 1, their
 * down projection with 2. Per pass (forward, input-gradient backward,
 * recomputed forward) with A_1, A_2 the all-to-all times and C the compute
 * that can run beside them:
 *   none    exposed A_i (blocking, as TP's collectives);
 *   shared  exposed max(0, A_i - C_i), C_i the shared-expert ops of pair i
 *           in that pass (Megatron-Core --moe-shared-expert-overlap: the
 *           shared experts' first GEMM runs during the dispatch, their
 *           second during the combine; their own stream). Backward: the
 *           same pairs, input-gradient times only (a weight-gradient GEMM
 *           may be deferred by zero-bubble schedules, so it is not counted
 *           on);
 *   pipe    the all-to-alls of one microbatch run beside the same layer's
 *           compute of another microbatch (DualPipe, DeepSeek-V3: a
 *           forward chunk and a backward chunk overlapped, "F&B" in
 *           MODEL.md's DualPipe row; Megatron-Core's EP all-to-all overlap
 *           pairs them the same way in 1F1B): the forward (and recomputed
 *           forward) all-to-alls hide behind the layer's B + W compute, the
 *           backward ones behind its F compute; exposed max(0, A_1 + A_2 -
 *           phi C), taken from the dispatch first, where phi = (m - (p -
 *           1)) / m (>= 0) is the share of passes that have a partner: the
 *           first stage runs its p - 1 warm-up forwards and p - 1 cool-down
 *           backwards alone (MODEL.md, 1F1B holds p microbatches), so on
 *           average over the m microbatches only phi of the partner's
 *           compute is there (an average, so that both engines see one op
 *           time; per microbatch the warm-up ones are blocking).
 * Assumed (stated, not measured): the SMs the
 * communication kernels occupy (DeepSeek-V3 reserves some for it) do not
 * slow the compute beside them; the etp all-gather / reduce-scatter stay
 * blocking. Bytes on the network are unchanged.
 *
 * Node-limited routing (hw/net.c cx_hw_all_to_all_routed): with route-nodes
 * M each token's k experts lie on at most M nodes of the ep group and its
 * hidden state crosses the NIC once per remote target node, then fans out
 * to the experts' GPUs there over the scale-up links (DeepSeek-V3's
 * dispatch); M = 0 is unlimited routing, one NIC send per remote copy.
 */
#include "core/eval/cost.h"

static double maxd(double a, double b)
{
    return a > b ? a : b;
}

/* Hides up to *budget of time t; returns what stays exposed. */
static double hide(double t, double *budget)
{
    double left = maxd(0.0, t - *budget);
    *budget = maxd(0.0, *budget - t);
    return left;
}

void cx_core_a2a_overlap(const cx_cost *c, const cx_model_ops *ops, cx_op_times *ot, double *tp_r)
{
    const culonx_a2a_overlap mode = c->run->exec.a2a_overlap;
    if (mode == CULONX_A2A_OVERLAP_NONE) return;
    const double m = c->m > 0 ? (double)c->m : 1.0, p = c->p > 0 ? (double)c->p : 1.0;
    const double phi = maxd(0.0, m - (p - 1.0)) / m; /* passes with a partner */
    /* budgets [pair] in forward (and recompute) and in backward */
    double bf[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
    int any = 0;
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        any |= o->coll_group == CX_GROUP_EP && o->coll_fwd == CX_COLL_ALL_TO_ALL;
        if (mode == CULONX_A2A_OVERLAP_PIPE) { /* one pool: the partner's compute */
            bf[0] += phi * (ot->b_s[i] + ot->w_s[i]), bb[0] += phi * ot->f_s[i];
        } else if (o->a2a_pair && o->coll_group != CX_GROUP_EP) {
            bf[o->a2a_pair] += ot->f_s[i], bb[o->a2a_pair] += ot->b_s[i];
        }
    }
    if (!any) return;
    double rf[3] = {bf[0], bf[1], bf[2]}; /* the recomputed forward's own budget */
    for (int pair = 1; pair <= 2; pair++)
        for (int i = 0; i < ops->nops; i++) {
            const cx_model_op *o = &ops->op[i];
            if (o->a2a_pair != pair || o->coll_group != CX_GROUP_EP) continue;
            const int k = mode == CULONX_A2A_OVERLAP_PIPE ? 0 : pair;
            ot->tp_f_s[i] = hide(ot->tp_f_s[i], &bf[k]);
            ot->tp_b_s[i] = hide(ot->tp_b_s[i], &bb[k]);
            tp_r[i] = hide(tp_r[i], &rf[k]);
        }
}
