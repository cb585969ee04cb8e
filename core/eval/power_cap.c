/*
 * power_cap.c — the board power limit in the time model: a GPU never draws
 * more than its board limit (the system's tdp-w: H100 SXM 700 W), so a pass
 * whose power at the requested clock would exceed it runs at the highest
 * clock step whose power fits, as the GPU's power management does
 * (bench/data/h100-power.csv: sustained bf16 GEMMs hold 700 W at
 * 1365-1590 MHz, FP8 at 1230 MHz, with clocks untouched).
 *
 * Granularity: one pass (F, B, W, recompute R) of one part (a layer kind,
 * the embedding, the head) for one microbatch: the ops of a layer's pass
 * last milliseconds, the limiter averages over tens of milliseconds, and
 * every layer of a kind draws the same, so a chunk's pass is capped layer
 * kind by layer kind. Its power P(f) is hw's pass power (cx_hw_pass_energy_j:
 * u_tensor = FLOPs / (peak x f/f_max x t), u_dram = bytes / (bw x t),
 * u_sm = 1) over the pass's op times at f (hw/perf.c, the per-pass CPU
 * launch floor left out: a floor-bound pass draws less); P rises with f.
 * The clock (hw/power.c cx_hw_power_capped_mhz): f0 (the run's clock) if
 * P(f0) <= limit, else the highest step f_max - q x step below f0 with
 * P <= limit (bisection), else the GPU's lowest step (the limit unmet
 * there). The same rule as `culonx plan
 * --power-limit` (core/eval/plan.c), applied to the board limit here, so
 * estimate, sweep, energy, plan and trace all see capped passes.
 * The optimizer step (HBM-bound, its time does not depend on the clock in
 * this model) is not capped. Without tdp-w, or when full activity at the
 * requested clock stays within it (the datasheet-shaped models: exactly TDP
 * at f_max), nothing changes and nothing is searched.
 * See core/README.md, "Board power limit"; hw/README.md, "Checked on a real
 * H100".
 */
#include "core/eval/cost.h"
#include "hw/power.h"

#include <string.h>

static inline double limit_at(const cx_cost *c, double clock_mhz)
{
    const culonx_gpu *g = &c->sys.gpu;
    double limit_w = g->tdp_w > 0 && g->power.present ? g->tdp_w : 0.0;
    /* no pass can exceed the limit when full activity does not (the
     * datasheet-shaped models draw exactly TDP at full activity): skip */
    const cx_hw_util full = {1.0, 0.0, 1.0, 1.0};
    if (limit_w > 0 && cx_hw_power_w(&g->power, g, clock_mhz, &full) <= limit_w) limit_w = 0;
    return limit_w;
}

double cx_core_power_limit_at(const cx_cost *c, double clock_mhz)
{
    return limit_at(c, clock_mhz);
}

void cx_core_power_cap_init(cx_cost *c)
{
    cx_core_power_cap_init_limit(c, limit_at(c, c->clock_mhz));
}

void cx_core_power_cap_init_limit(cx_cost *c, double limit_w)
{
    c->power_limit_w = limit_w;
    c->capped_parts = 0;
    c->cap_min_mhz = c->clock_mhz;
    /* those of the parts and classes of c (no other entry is read) */
    for (int i = 0; i < c->stack.nparts; i++)
        for (int x = 0; x < 4; x++)
            c->part_clk[i][x] = c->clock_mhz;
    for (int k = 0; k < c->nclass; k++)
        c->cap_added_s[k] = 0;
}

/* Pass x of the op list at clock f: time (no launch floor), FLOPs, bytes. */
static double pass_power(const cx_cost *c, const cx_model_ops *ops, const cx_op_keep (*keep)[3],
                         int x, int rmode, int is_layer, double f, double *t_s)
{
    double t = 0, flops = 0, bytes = 0;
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        double fl, by;
        int pass = x == CX_PASS_R ? CX_PASS_F : x; /* the recompute re-runs F's parts */
        if (x == CX_PASS_R &&
            !(is_layer && (rmode == CULONX_RECOMPUTE_FULL ||
                           (rmode == CULONX_RECOMPUTE_SELECTIVE && o->sel_recompute))))
            continue; /* the recompute re-runs these ops' forward */
        switch (x) {
        case CX_PASS_B:
            fl = o->b_flops, by = o->b_bytes;
            break;
        case CX_PASS_W:
            fl = o->w_flops, by = o->w_bytes;
            break;
        default:
            fl = o->fwd_flops, by = o->fwd_bytes;
            break;
        }
        t += cx_core_op_kept_time(c, o, &keep[i][pass], f);
        flops += fl, bytes += by;
    }
    *t_s = t;
    if (t <= 0) return 0;
    double p = 0;
    (void)cx_core_pass_energy_at_j(c, f, t, flops, bytes, &p);
    return p;
}

typedef struct {
    const cx_cost *c;
    const cx_model_ops *ops;
    const cx_op_keep (*keep)[3];
    int x, rmode, is_layer;
} pass_ctx;

static double pass_power_at(double f, void *ctx)
{
    const pass_ctx *p = ctx;
    double t;
    return pass_power(p->c, p->ops, p->keep, p->x, p->rmode, p->is_layer, f, &t);
}

/* The clocks of part's passes at clock f0 under the limit L > 0 into clk
 * (f0 where the pass fits), the compute time per instance the cap adds
 * (returned), the passes capped (*capped) and the lowest clock (*min_mhz,
 * f0 at most); c untouched. */
static double search(const cx_cost *c, int part, int recompute_mode, double f0, double L,
                     double clk[4], int *capped, double *min_mhz)
{
    const cx_model_ops *ops = &c->stack.part[part].ops;
    const cx_op_keep(*keep)[3] = (const cx_op_keep(*)[3])c->part_keep[part];
    const int is_layer = c->stack.part[part].recompute;
    double added = 0;
    double added_f = 0;
    *capped = 0, *min_mhz = f0;
    for (int x = 0; x < 4; x++) {
        if (x == CX_PASS_R && is_layer && recompute_mode == CULONX_RECOMPUTE_FULL) {
            /* full recompute re-runs the forward pass: its clock */
            if (clk[CX_PASS_F] != f0) clk[x] = clk[CX_PASS_F], added += added_f, ++*capped;
            continue;
        }
        pass_ctx px = {c, ops, keep, x, recompute_mode, is_layer};
        double f = cx_hw_power_capped_mhz(&c->sys.gpu, L, f0, pass_power_at, &px, NULL);
        if (f == f0) continue;
        double t0, t;
        (void)pass_power(c, ops, keep, x, recompute_mode, is_layer, f0, &t0);
        (void)pass_power(c, ops, keep, x, recompute_mode, is_layer, f, &t);
        clk[x] = f;
        added += t - t0;
        if (x == CX_PASS_F) added_f = t - t0;
        ++*capped;
        if (f < *min_mhz) *min_mhz = f;
    }
    return added;
}

void cx_core_power_cap_clocks(const cx_cost *c, int part, int recompute_mode, double f0,
                              double limit_w, double clk[4])
{
    int capped;
    double min_mhz;
    for (int x = 0; x < 4; x++)
        clk[x] = f0;
    if (limit_w > 0) (void)search(c, part, recompute_mode, f0, limit_w, clk, &capped, &min_mhz);
}

double cx_core_power_cap_part(cx_cost *c, int part, int recompute_mode, double clk[4])
{
    const double f0 = c->clock_mhz, L = c->power_limit_w;
    for (int x = 0; x < 4; x++)
        clk[x] = f0;
    if (!(L > 0)) return 0;
    /* the same op list (its parts kept) at the same clock, limit and
     * recompute mode: a re-execution or reprice gets the same answer */
    cx_cap_memo *mm = &c->cap_memo[part];
    if (mm->valid && mm->f0 == f0 && mm->limit_w == L && mm->rmode == recompute_mode) {
        memcpy(clk, mm->clk, sizeof mm->clk);
        c->capped_parts += mm->capped;
        if (mm->min_mhz < c->cap_min_mhz) c->cap_min_mhz = mm->min_mhz;
        return mm->added;
    }
    int capped;
    double min_mhz;
    const double added = search(c, part, recompute_mode, f0, L, clk, &capped, &min_mhz);
    c->capped_parts += capped;
    if (min_mhz < c->cap_min_mhz) c->cap_min_mhz = min_mhz;
    mm->valid = 1, mm->f0 = f0, mm->limit_w = L, mm->rmode = recompute_mode;
    mm->added = added, mm->min_mhz = min_mhz, mm->capped = capped;
    memcpy(mm->clk, clk, sizeof mm->clk);
    return added;
}

void cx_core_power_cap_class(cx_cost *c, int k, const cx_chunk_cost *part, const double *added)
{
    cx_chunk_cost *cc = &c->cls[k];
    double e[4] = {0, 0, 0, 0};
    int capped[4] = {0, 0, 0, 0};
    for (int i = 0; i < cc->npieces; i++) {
        const int pi = cc->piece[i].part;
        const double n = (double)cc->piece[i].count, *f = c->part_clk[pi];
        const cx_chunk_cost *p = &part[pi];
        e[CX_PASS_F] += n * cx_core_pass_energy_at_j(c, f[0], p->f_s, p->f_flops, p->f_bytes, NULL);
        e[CX_PASS_B] += n * cx_core_pass_energy_at_j(c, f[1], p->b_s, p->b_flops, p->b_bytes, NULL);
        e[CX_PASS_W] += n * cx_core_pass_energy_at_j(c, f[2], p->w_s, p->w_flops, p->w_bytes, NULL);
        e[CX_PASS_R] += n * cx_core_pass_energy_at_j(c, f[3], p->r_s, p->r_flops, p->r_bytes, NULL);
        for (int x = 0; x < 4; x++)
            capped[x] |= f[x] != c->clock_mhz;
        c->cap_added_s[k] += n * added[pi];
    }
    /* passes with no capped part keep the class formula (bit-identical) */
    if (capped[CX_PASS_F]) cc->e_f_j = e[CX_PASS_F];
    if (capped[CX_PASS_B]) cc->e_b_j = e[CX_PASS_B];
    if (capped[CX_PASS_W]) cc->e_w_j = e[CX_PASS_W];
    if (capped[CX_PASS_R]) cc->e_r_j = e[CX_PASS_R];
}
