/*
 * energy.c — energy-to-completion of one training iteration.
 *
 * GPU compute: each compute pass (F, B, W, recompute of a chunk; the
 * optimizer step) draws P(f, u) of the GPU's DVFS power model (hw/power.c)
 * for its duration, with utilisations from the work it does:
 *   u_tensor = FLOPs / (peak x f/f_max x t),  u_dram = bytes / (HBM bw x t),
 *   u_sm = 1 while a kernel runs.
 * GPU idle / blocked: the rest of the iteration (pipeline bubbles, TP and PP
 * waits, exposed DP sync) at the blocked-in-communication power (A100 85 W,
 * hw/README.md). HBM: bytes x pJ/byte of the model (reported as part of
 * compute). Network: bytes sent per tier x 8 x pJ/bit of the tier (TP, PP,
 * DP traffic of every GPU). Node overhead: node-overhead-w x nodes x T.
 * Facility: (PUE - 1) x all of the above. Everything is per iteration over
 * the whole cluster; avg_power_w is the GPU power averaged per GPU. The
 * board power limit's toll (power_capped_*) is reported here too.
 * Formulas and constants: core/README.md, "Energy". The sums over the
 * stages run side by side (base.h cx_add_rep4) and the terms of one
 * pricing (ranks per stage, nodes, TP and PP bits) come from closed.c's
 * sums where made for it: the same operations, the same bits.
 */
#include "core/base/base.h"
#include "core/eval/energy.h"
#include "hw/power.h"

#include <math.h>

/* Pass energies (at the cost's clock: cost.h) and blocked power of a
 * cost, at another clock. */
double cx_core_pass_energy_at_j(const cx_cost *c, double f_mhz, double t_s, double flops,
                                double bytes, double *power_w)
{
    return cx_hw_pass_energy_j(&c->sys.gpu, c->run->exec.dtype, f_mhz, t_s, flops, bytes, power_w);
}

double cx_core_blocked_power_w(const cx_cost *c)
{
    return cx_hw_power_blocked_w(&c->sys.gpu.power, &c->sys.gpu);
}

/* The energy result from the sums over stages of GPU compute energy, idle
 * time (T - busy) and HBM energy. */
void cx_core_energy_sums(const cx_cost *c, double per_stage, double *nodes,
                         double bits[CULONX_MAX_TIERS])
{
    const double m = (double)c->m, nvs = (double)c->p * c->v;
    /* network: TP per chunk per microbatch, PP p2p (DP per stage: below) */
    for (int t = 0; t < CULONX_MAX_TIERS; t++)
        bits[t] = 0;
    for (int k = 0; k < c->nclass; k++) { /* chunk classes x their virtual stages */
        const cx_chunk_cost *cc = &c->cls[k];
        double n = (double)c->class_vstages[k];
        for (int t = 0; t < CULONX_MAX_TIERS; t++)
            bits[t] += 8.0 * n * m * per_stage * cc->tp_tier_bytes[t];
    }
    if (c->p > 1) /* each boundary, both directions, every microbatch, every TP x DP rank */
        bits[c->p2p_tier] += 8.0 * 2.0 * (nvs - 1.0) * m * c->p2p_bytes * per_stage;
    *nodes = ceil((double)c->run->exec.gpus /
                  (double)(c->sys.gpus_per_node > 0 ? c->sys.gpus_per_node : 1));
}

static void finish_sums(const cx_cost *c, double cj, double idle, double hbm, culonx_result *res)
{
    const culonx_run *run = c->run;
    const culonx_execution *ex = &run->exec;
    const double T = res->iteration_time_s, m = (double)c->m;
    /* the terms of this pricing, kept by closed.c's sums where made for it */
    const cx_closed_sums *cs = &c->closed;
    double per_stage, nodes, bits[CULONX_MAX_TIERS], blocked;
    if (cs->gen == c->gen) {
        per_stage = cs->stage_ranks, nodes = cs->nodes, blocked = cs->blocked_w;
        for (int t = 0; t < CULONX_MAX_TIERS; t++)
            bits[t] = cs->tp_pp_bits[t];
    } else {
        per_stage = (double)cx_core_layout_stage_ranks(&c->layout);
        cx_core_energy_sums(c, per_stage, &nodes, bits);
        blocked = cx_core_blocked_power_w(c);
    }
    culonx_energy *e = &res->energy;
    e->compute_j = e->idle_j = e->hbm_j = e->network_j = 0;
    e->compute_j = per_stage * cj;
    e->idle_j = per_stage * blocked * idle;
    e->hbm_j = per_stage * hbm;
    for (int t = 0; t < CULONX_MAX_TIERS; t++) /* summed stage by stage (cost_dp.c) */
        bits[t] += 8.0 * per_stage * c->dp_tier_sum[t];
    for (int t = 0; t < c->sys.ntiers && t < CULONX_MAX_TIERS; t++)
        e->network_j += bits[t] * c->sys.tier[t].pj_per_bit * 1e-12;
    e->overhead_j = c->sys.node_overhead_w * nodes * T;
    double pue = c->sys.pue > 0 ? c->sys.pue : 1.0;
    double it = e->compute_j + e->idle_j + e->network_j + e->overhead_j;
    e->facility_j = (pue - 1.0) * it;
    e->total_j = it + e->facility_j;
    res->avg_power_w = (e->compute_j + e->idle_j) / ((double)ex->gpus * T);
    /* the board power limit's toll (core/eval/power_cap.c): per stage, m x
     * the time its chunks' passes gained; the busiest stage's */
    res->power_limit_w = res->power_capped_min_mhz = res->power_capped_s = 0;
    res->power_capped_passes = c->capped_parts;
    if (c->capped_parts > 0) {
        res->power_limit_w = c->power_limit_w;
        res->power_capped_min_mhz = c->cap_min_mhz;
        for (int s = 0; s < c->p; s++) {
            double a = 0;
            for (int k = 0; k < c->v; k++)
                a += c->cap_added_s[c->vs_class[c->vs_stage_vs[s * c->v + k]]];
            res->power_capped_s = cx_maxd(res->power_capped_s, m * a);
        }
    }
    if (res->iterations > 0) res->energy_to_train_j = res->iterations * e->total_j;
}

void cx_core_energy_finish(const cx_cost *c, const double *stage_compute_j,
                           const double *stage_busy_s, const double *stage_hbm_j,
                           culonx_result *res)
{
    const double T = res->iteration_time_s;
    double cj = 0, idle = 0, hbm = 0;
    for (int s = 0; s < c->p; s++) {
        cj += stage_compute_j[s];
        idle += cx_maxd(0.0, T - stage_busy_s[s]);
        hbm += stage_hbm_j[s];
    }
    finish_sums(c, cj, idle, hbm, res);
}

/* The sums of cx_core_energy_finish, in the same order, without arrays:
 * acc = (compute, idle, HBM, unused), side by side (the same bits). */
static void energy_runs(const cx_cost *c, double T, double hbm_pj, double acc[4])
{
    const double m = (double)c->m;
    for (int r = 0, q = 0; r < c->nsrun; r++) { /* runs of equal stages, stage by stage */
        const int s = c->srun[r];
        while (c->prun[q + 1] <= s) /* q = prun_of[s]: equal stages, equal parameters */
            q++;
        const double ej = c->optr_j[q] + m * c->run_e_j[r];
        const double busy = c->optr_s[q] + m * c->run_busy_s[r];
        const double gap = cx_maxd(0.0, T - busy);
        const double hj = (c->optr_bytes[q] + m * c->run_bytes[r]) * hbm_pj * 1e-12;
        const double x[4] = {ej, gap, hj, 0};
        cx_add_rep4(acc, x, c->srun[r + 1] - s);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the four lanes in one 256-bit add per stage (AVX; no FMA
 * under this target, so every operation as above: the same bits). */
typedef double cx_v4d __attribute__((vector_size(32)));
__attribute__((target("avx"))) static void energy_runs_avx(const cx_cost *c, double T,
                                                           double hbm_pj, double acc[4])
{
    const double m = (double)c->m;
    cx_v4d a = {acc[0], acc[1], acc[2], acc[3]};
    for (int r = 0, q = 0; r < c->nsrun; r++) {
        const int s = c->srun[r];
        while (c->prun[q + 1] <= s)
            q++;
        const double ej = c->optr_j[q] + m * c->run_e_j[r];
        const double busy = c->optr_s[q] + m * c->run_busy_s[r];
        const double gap = cx_maxd(0.0, T - busy);
        const double hj = (c->optr_bytes[q] + m * c->run_bytes[r]) * hbm_pj * 1e-12;
        const cx_v4d x = {ej, gap, hj, 0};
        int n = c->srun[r + 1] - s;
        for (; n >= 4; n -= 4)
            a += x, a += x, a += x, a += x;
        for (; n > 0; n--)
            a += x;
    }
    acc[0] = a[0], acc[1] = a[1], acc[2] = a[2], acc[3] = a[3];
}

typedef void energy_runs_fn(const cx_cost *, double, double, double *);
static energy_runs_fn *runs_fn = energy_runs;
CX_PICK_ISA(pick, "avx", runs_fn, energy_runs_avx)
#else
#define runs_fn energy_runs
#endif

void cx_core_energy_runs(const cx_cost *c, double T, double acc[4])
{
    const double hbm_pj = c->closed.gen == c->gen
                              ? c->closed.hbm_pj /* closed.c's, for this pricing */
                              : cx_hw_power_hbm_pj_per_byte(&c->sys.gpu.power, &c->sys.gpu);
    acc[0] = acc[1] = acc[2] = acc[3] = 0; /* cj, idle, hbm, unused */
    runs_fn(c, T, hbm_pj, acc);
}

void cx_core_energy_from_runs(const cx_cost *c, const double acc[4], culonx_result *res)
{
    finish_sums(c, acc[0], acc[1], acc[2], res);
}

void cx_core_energy_result(const cx_cost *c, culonx_result *res)
{
    double acc[4];
    cx_core_energy_runs(c, res->iteration_time_s, acc);
    cx_core_energy_from_runs(c, acc, res);
}
