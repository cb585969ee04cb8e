/*
 * cost_ops.h — the per-op time arithmetic of a pricing (core/eval/cost.c),
 * shared with the time key at a clock (cost_clock_key.c) so that both run
 * the same operations in the same order: an op pass's time from its kept
 * work parts at a clock ratio, the TP overlap and the CPU launch floor.
 * Constants and their sources: core/eval/cost.c and core/README.md ("Chunk
 * costs", "TP overlap").
 */
#ifndef CX_CORE_COST_OPS_H
#define CX_CORE_COST_OPS_H

#include "core/base/base.h"
#include "core/eval/cost.h"

/* cx_hw_work_time_at(g, w, f).time_s with r = f_max / f (cx_cost_clock_ratio):
 * the same operations, the ratio taken once per pass instead of per op */
static inline double cx_cost_work_time_r(const cx_hw_work_parts *w, double r)
{
    const double compute_s = w->arith ? w->arith_s * r : 0.0;
    return compute_s > w->mem_s ? compute_s : w->mem_s;
}

static inline double cx_cost_clock_ratio(const cx_cost *c, double f_mhz)
{
    const culonx_gpu *g = &c->sys.gpu;
    const double fmax = g->max_mhz > 0 ? g->max_mhz : 1.0;
    const double f = f_mhz > 0 ? f_mhz : fmax;
    return fmax / f;
}

/* Time of a pass of op o from its clock-independent parts k (cost.c ops_split;
 * all 0 for a pass with no work, which then takes 0 + 0) at clock ratio r;
 * adds the GEMM part to *tensor_s when o runs on tensor cores. */
static inline double cx_cost_op_time(const cx_model_op *o, double *tensor_s, const cx_op_keep *k,
                                     double r)
{
    const double t = cx_cost_work_time_r(&k->work, r);
    const double cast_s = k->cast ? cx_cost_work_time_r(&k->cast_work, r) : 0.0;
    if (o->tensor && tensor_s) *tensor_s += t;
    return t + cast_s;
}

/* CPU launch floor of one pass over an op list (framework overhead): the
 * GPU work of the pass cannot take less than launch_s per kernel issued,
 * collectives included; when it would, the compute ops are stretched
 * uniformly so the pass takes exactly the floor. The stretch of a pass
 * whose ops take gpu in all and its collectives coll, over `kernels`. */
static inline double cx_cost_floor_stretch(const cx_cost *c, double gpu, double coll, int kernels)
{
    double floor_s = kernels * c->sys.perf.kernel_launch_s;
    if (gpu <= 0 || floor_s <= gpu + coll) return 1.0;
    return (floor_s - coll) / gpu;
}

/* cx_cost_floor_stretch of the F, B, W and R passes (CX_PASS_*) in one loop */
static inline void cx_cost_cpu_floors(const cx_cost *c, const cx_op_times *ot, const double *tp_r,
                                      int n, double k[4])
{
    double gf = 0, gb = 0, gw = 0, gr = 0, cf = 0, cb = 0, cw = 0, cr = 0;
    int nf = 0, nb = 0, nw = 0, nr = 0;
    for (int i = 0; i < n; i++) {
        gf += ot->f_s[i], cf += ot->tp_f_s[i], nf += (ot->f_s[i] > 0) + (ot->tp_f_s[i] > 0);
        gb += ot->b_s[i], cb += ot->tp_b_s[i], nb += (ot->b_s[i] > 0) + (ot->tp_b_s[i] > 0);
        gw += ot->w_s[i], cw += 0.0, nw += ot->w_s[i] > 0;
        gr += ot->r_s[i], cr += tp_r[i], nr += (ot->r_s[i] > 0) + (tp_r[i] > 0);
    }
    k[CX_PASS_F] = cx_cost_floor_stretch(c, gf, cf, nf),
    k[CX_PASS_B] = cx_cost_floor_stretch(c, gb, cb, nb);
    k[CX_PASS_W] = cx_cost_floor_stretch(c, gw, cw, nw),
    k[CX_PASS_R] = cx_cost_floor_stretch(c, gr, cr, nr);
}

/* TP communication overlap (execution.tp-overlap, core/README.md "TP
 * overlap"): a collective attached to op i hides behind its partner GEMM,
 * op i itself when it is a GEMM (reduce-scatter after attn_out / fc2 in
 * forward, all-gather of their input gradient in backward), else the GEMM
 * that follows (all-gather before qkv / fc1 in forward, reduce-scatter of
 * their input gradient in backward). Exposed time = max(coll / k, coll -
 * partner GEMM time): the first (pipe: k = 4 chunks, Transformer Engine's
 * default split) or one of t ring steps (ring: k = t) cannot hide. The
 * times left in tp_f_s / tp_b_s are the exposed ones; bytes are unchanged. */
#define TP_OVERLAP_PIPE_CHUNKS 4.0
static inline void cx_cost_tp_overlap(const cx_cost *c, const cx_model_ops *ops, cx_op_times *ot,
                                      double *tp_r)
{
    const culonx_execution *ex = &c->run->exec;
    for (int i = 0; i < ops->nops; i++) { /* ring attention: one step of cp - 1 exposed at least */
        if (!ops->op[i].coll_cp) continue;
        double k = ex->cp > 1 ? (double)(ex->cp - 1) : 1.0;
        ot->tp_f_s[i] = cx_maxd(ot->tp_f_s[i] / k, ot->tp_f_s[i] - ot->f_s[i]);
        ot->tp_b_s[i] = cx_maxd(ot->tp_b_s[i] / k, ot->tp_b_s[i] - ot->b_s[i]);
        tp_r[i] = cx_maxd(tp_r[i] / k, tp_r[i] - ot->f_s[i]);
    }
    if (ex->tp_overlap == CULONX_TP_OVERLAP_NONE || ex->tp <= 1) return;
    const double k =
        ex->tp_overlap == CULONX_TP_OVERLAP_PIPE ? TP_OVERLAP_PIPE_CHUNKS : (double)ex->tp;
    for (int i = 0; i < ops->nops; i++) {
        if (ops->op[i].coll_cp || ops->op[i].coll_group != CX_GROUP_TP) continue;
        int g = ops->op[i].kind == CX_OP_GEMM ? i : i + 1;
        if (g >= ops->nops || ops->op[g].kind != CX_OP_GEMM) continue;
        double pf = ot->f_s[g], pb = ot->b_s[g];
        ot->tp_f_s[i] = cx_maxd(ot->tp_f_s[i] / k, ot->tp_f_s[i] - pf);
        ot->tp_b_s[i] = cx_maxd(ot->tp_b_s[i] / k, ot->tp_b_s[i] - pb);
        tp_r[i] = cx_maxd(tp_r[i] / k, tp_r[i] - pf);
    }
}

#endif
