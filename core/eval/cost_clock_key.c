/*
 * cost_clock_key.c — the replay's time key of a priced cost at another
 * clock (cost.h cx_core_cost_time_key_at): per chunk class the seven
 * durations (f, tp_f, b, tp_b, r, tp_r, w) and the PP p2p time, with the
 * bits that cx_core_cost_reprice followed by cx_replay_time_key gives, by
 * the same operations in the same order (cost.c price and ops_cost,
 * cost_ops.h, a2a.c, shard.c), leaving out what a reprice also makes and
 * the key does not read: energies, FLOPs, bytes, stage sums, DP parts.
 * The replay at every clock of a sweep (replay.c play_clocks) reads only
 * these. Where a board power limit binds at the clock, each part's passes
 * run at the clocks power_cap.c finds (the same search). Where the cost
 * keeps no op parts or its shard groups are not the run's, it answers 0
 * and the caller reprices. Where the sweep's clock table holds the parts'
 * times at the clock (cost_clocks.c, the same bits), it reads them.
 * No constants of its own. tests/test_cost_key_clock.c holds it to the
 * reprice's bits.
 */
#include "core/eval/cost.h"
#include "core/eval/cost_ops.h"

/* One instance of a part: the times price() leaves in part[i] that the key
 * reads, and the prefetch fills of shard.c (cx_cost.part_fill_*). */
typedef struct {
    double f, b, w, r, tp_f, tp_b, tp_r, fill_f, fill_b;
} part_times;

/* ops_cost (cost.c) of part pi with n = 1 into a zeroed part, its F, B,
 * W and R passes at clock ratios r (CX_PASS_*: cx_cost_clock_ratio of the
 * clocks power_cap.c gives; apart: R's clock is not F's), then
 * cx_core_shard_part: the time fields only. */
static void part_key(const cx_cost *c, int pi, const double r4[4], int apart, part_times *pt)
{
    const cx_model_ops *ops = &c->stack.part[pi].ops;
    const int rmode = c->run->exec.recompute, is_layer = c->stack.part[pi].recompute;
    const cx_hw_comm(*comm)[2] = (const cx_hw_comm(*)[2])c->part_comm[pi];
    const cx_op_keep(*keep)[3] = (const cx_op_keep(*)[3])c->part_keep[pi];
    const int no = ops->nops;
    const int full = is_layer && rmode == CULONX_RECOMPUTE_FULL;
    const int sel = is_layer && rmode == CULONX_RECOMPUTE_SELECTIVE;
    const double rf = r4[CX_PASS_F], rb = r4[CX_PASS_B], rw = r4[CX_PASS_W], rr = r4[CX_PASS_R];
    cx_op_times ot;
    double tp_r[CX_MODEL_MAX_OPS];
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        ot.f_s[i] = cx_cost_op_time(o, NULL, &keep[i][0], rf);
        ot.b_s[i] = cx_cost_op_time(o, NULL, &keep[i][1], rb);
        ot.w_s[i] = cx_cost_op_time(o, NULL, &keep[i][2], rw);
        ot.tp_f_s[i] = ot.tp_b_s[i] = tp_r[i] = 0;
        if (o->coll_fwd != CX_COLL_NONE) ot.tp_f_s[i] += comm[i][0].time_s;
        if (o->coll_bwd != CX_COLL_NONE) ot.tp_b_s[i] += comm[i][1].time_s;
        const int rec = full || (sel && o->sel_recompute);
        ot.r_s[i] = rec ? ot.f_s[i] : 0.0;
        if (rec && apart) /* the recompute pass capped apart */
            ot.r_s[i] = cx_cost_op_time(o, NULL, &keep[i][0], rr);
        if (rec && full && o->coll_fwd != CX_COLL_NONE) tp_r[i] += comm[i][0].time_s;
    }
    cx_cost_tp_overlap(c, ops, &ot, tp_r);
    cx_core_a2a_overlap(c, ops, &ot, tp_r);
    double kk[4];
    cx_cost_cpu_floors(c, &ot, tp_r, no, kk);
    const double kf = kk[CX_PASS_F], kb = kk[CX_PASS_B], kw = kk[CX_PASS_W], kr = kk[CX_PASS_R];
    /* cc->x += n * y with n = 1: the same bits as cc->x += y */
    double f = 0, b = 0, w = 0, r = 0, tf = 0, tb = 0, tr = 0;
    for (int i = 0; i < no; i++) {
        f += ot.f_s[i] * kf, b += ot.b_s[i] * kb, w += ot.w_s[i] * kw;
        r += ot.r_s[i] * kr;
        tf += ot.tp_f_s[i], tb += ot.tp_b_s[i];
        tr += tp_r[i];
    }
    /* cx_core_shard_part */
    double xf, xb;
    pt->fill_f = pt->fill_b = 0.0;
    if (cx_core_shard_side(c, pi, &xf, &xb, NULL)) {
        const double cf = f + tf;
        const double cb = b + w + r + tb + tr;
        const double ef = cx_maxd(0.0, xf - cf), eb = cx_maxd(0.0, xb - cb);
        tf += ef, tb += eb;
        pt->fill_f = cx_mind(xf, cf);
        pt->fill_b = cx_mind(xb, cb);
    }
    pt->f = f, pt->b = b, pt->w = w, pt->r = r, pt->tp_f = tf, pt->tp_b = tb, pt->tp_r = tr;
}

int cx_core_cost_time_key_at(const cx_cost *c, double clock_mhz, double *key)
{
    return cx_core_cost_time_key_clocks(c, clock_mhz, key, NULL);
}

int cx_core_cost_time_key_clocks(const cx_cost *c, double clock_mhz, double *key, cx_cost_clocks *t)
{
    if (!c->priced || !c->comm_kept || !c->run) return 0;
    const double f = clock_mhz > 0 ? clock_mhz : c->run->system.gpu.max_mhz; /* reprice_start */
    const double limit_w = cx_core_power_limit_at(c, f);                     /* power_cap_init */
    /* the shard groups a reprice would keep (cx_core_shard_groups) */
    const culonx_execution *ex = &c->run->exec;
    if (!c->shard_in_ok || c->zero != cx_core_layout_zero(ex) ||
        c->shard_in_group != ex->shard_group)
        return 0;
    const cx_model_stack *stk = &c->stack;
    const int rmode = ex->recompute;
    const double r0 = cx_cost_clock_ratio(c, f); /* every pass's without a limit */
    /* the table's class sums where it has them: no limit, overlap, side
     * traffic or launch floor (so no fills); else each part priced here */
    if (!(limit_w > 0)) {
        const int nk = cx_core_cost_clocks_key(t, c, f, key);
        if (nk > 0) return nk;
    }
    part_times pt[CX_MODEL_MAX_PARTS];
    unsigned char done[CX_MODEL_MAX_PARTS] = {0};
    for (int k = 0; k < c->nclass; k++) {
        const cx_chunk_cost *cc = &c->cls[k];
        double q[7] = {0, 0, 0, 0, 0, 0, 0}; /* f, tp_f, b, tp_b, r, tp_r, w */
        for (int i = 0; i < cc->npieces; i++) {
            const int pi = cc->piece[i].part;
            if (pi < 0 || pi >= stk->nparts) return 0;
            if (!done[pi]) {
                double r4[4] = {r0, r0, r0, r0};
                int apart = 0;
                if (limit_w > 0) { /* power_cap_part: the passes' clocks */
                    double clk[4];
                    cx_core_power_cap_clocks(c, pi, rmode, f, limit_w, clk);
                    for (int x = 0; x < 4; x++)
                        r4[x] = cx_cost_clock_ratio(c, clk[x]);
                    apart = clk[CX_PASS_R] != clk[CX_PASS_F];
                }
                part_key(c, pi, r4, apart, &pt[pi]), done[pi] = 1;
            }
            const part_times *p = &pt[pi];
            const double L = (double)cc->piece[i].count;
            q[0] += L * p->f, q[2] += L * p->b, q[6] += L * p->w, q[4] += L * p->r;
            q[1] += L * p->tp_f, q[3] += L * p->tp_b, q[5] += L * p->tp_r;
        }
        if (cc->npieces > 0) { /* the prefetch fill of each pass (price) */
            q[1] += pt[cc->piece[0].part].fill_f;
            q[3] += pt[cc->piece[cc->npieces - 1].part].fill_b;
        }
        memcpy(key + 7 * k, q, sizeof q);
    }
    /* the p2p time reads no clock (price: the system, the layout's pp
     * neighbours and the boundary bytes) */
    key[7 * c->nclass] = c->p2p_s;
    return 7 * c->nclass + 1;
}
