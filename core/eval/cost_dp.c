/*
 * cost_dp.c — the per-stage DP part of a cost (cx_core_cost_stages, moved
 * out of cost.c): the gradient sync of each run of stages with equal
 * parameters (dense parameters by ZeRO stage over the layout's gradient,
 * shard and replica groups, core/eval/shard.c; expert parameters over their
 * expert-data-parallel group), Megatron's DDP buckets for its overlap and
 * the parameter-gather overlap, and the optimizer step (HBM bytes per
 * updated parameter; optimizer offload streams the fp32 state, 12 B per
 * parameter, both ways over the host link). Equations and constants:
 * core/README.md, "Chunk costs" (DDP buckets) and "Sharding".
 * Everything here but the step's energy reads no clock: it is kept per
 * execution in the cost across reprices of one shape (cx_cost.keep_dp;
 * core/README.md, "Sweeps").
 */
#include "core/eval/cost.h"
#include "core/base/base.h"

#include <math.h>
#include <string.h>

/* Megatron DDP gradient buckets: max(40M, 1M x dp) parameters each; we
 * model at most 64 per stage (the tail effect is the last bucket's). */
#define DDP_BUCKET_PARAMS 40e6
#define DDP_MAX_BUCKETS 64

static void expert_sync(const cx_cost *c, double Pe, cx_hw_comm *a, cx_hw_comm *b)
{
    if (Pe <= 0) return;
    cx_hw_group g = cx_core_layout_expert_group(&c->layout, CX_EXPERT_EDP, c->sys.gpus_per_node);
    const int dist = c->zero >= 1;
    cx_hw_comm x =
        cx_hw_coll_cost(&c->sys, dist ? CX_HW_REDUCE_SCATTER : CX_HW_ALL_REDUCE, 4.0 * Pe, g);
    a->time_s += x.time_s;
    for (int k = 0; k < CULONX_MAX_TIERS; k++)
        a->bytes_tier[k] += x.bytes_tier[k];
    if (!dist) return;
    x = cx_hw_coll_cost(&c->sys, CX_HW_ALL_GATHER, 2.0 * Pe, g);
    b->time_s += x.time_s;
    for (int k = 0; k < CULONX_MAX_TIERS; k++)
        b->bytes_tier[k] += x.bytes_tier[k];
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Stages [s0, s1) of a per-stage array get x: where the array was filled
 * over the same runs (!all), the run holds one value, so it is written
 * only when its first stage's differs. */
static void fill_run(double *a, int s0, int s1, double x, int all)
{
    if (!all && same_bits(a[s0], x)) return;
    for (int q = s0; q < s1; q++)
        a[q] = x;
}

static int same_words(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x |= a[i] ^ b[i];
    return x == 0;
}

/* The kept DP part of execution key (clock cleared) at the forward times
 * f_bits, or NULL. */
static const cx_keep_dp *kept_dp(cx_cost *c, const culonx_run *run, const uint64_t *f_bits)
{
    const culonx_execution *ex = &run->exec;
    const int keyed = cx_core_cost_keyed(c, run); /* the rest of ex equal (cost.h) */
    /* from the one after the last found (a sweep visits its DP settings in
     * the order they were kept; keys are unique, so the same entry) */
    for (int k = 1; k <= c->nkeep_dp; k++) {
        int i = c->keep_dp_last + k; /* (last + k) % nkeep_dp, no division */
        while (i >= c->nkeep_dp)
            i -= c->nkeep_dp;
        const cx_keep_dp *e = &c->keep_dp[i];
        if (e->nprun == c->nprun && cx_core_exec_dp_same(&e->exec, ex) &&
            (keyed || cx_core_exec_same_unclocked(ex, &e->exec)) &&
            same_words(e->f_bits, f_bits, c->nprun)) {
            c->keep_dp_last = i;
            return e;
        }
    }
    return NULL;
}

void cx_core_cost_dp_runs(const culonx_run *run, cx_cost *c)
{
    const culonx_execution *ex = &run->exec;
    /* The DP sync and the optimizer step's time and bytes read the shape,
     * the execution and (parameter-gather overlap) the stage forward time,
     * never the clock: kept per execution across reprices, so a sweep's
     * later clocks compute only the step's energy (same bits). */
    uint64_t f_bits[CX_COST_KEEP_RUNS];
    /* the forward time of prun r's stages (a prun starts an srun: equal
     * stages, equal parameters), read with parameter-gather overlap only */
#define RUN_F(r) c->run_f_s[c->prun_srun[r]]
    const int keep = c->nprun <= CX_COST_KEEP_RUNS;
    for (int r = 0; keep && r < c->nprun; r++) {
        uint64_t fb = 0;
        __asm__("" : "+r"(fb)); /* a store each: GCC's memset here is rep stosq */
        if (ex->param_gather_overlap) memcpy(&fb, &RUN_F(r), sizeof fb);
        f_bits[r] = fb;
    }
    const cx_keep_dp *kd = keep ? kept_dp(c, run, f_bits) : NULL;
    cx_keep_dp *nk = NULL;
    if (keep && !kd) {
        cx_core_cost_keep_for(c, run);
        int i = c->nkeep_dp < CX_COST_KEEP ? c->nkeep_dp++ : c->keep_dp_next++ % CX_COST_KEEP;
        c->keep_dp_last = i;
        nk = &c->keep_dp[i];
        memcpy(&nk->exec, ex, sizeof *ex); /* padding too: compared bytewise */
        nk->exec.clock_mhz = 0;
        nk->nprun = c->nprun;
        memcpy(nk->f_bits, f_bits, (size_t)c->nprun * sizeof *f_bits);
    }
    /* DP and optimizer per run of stages with the same parameters:
     * computed for its first stage */
    double tsum[CULONX_MAX_TIERS] = {0, 0};
    const double edp = kd ? 0.0 : (double)cx_core_layout_expert_dp(&c->layout);
    const double dpcp = (double)ex->dp * (ex->cp > 1 ? (double)ex->cp : 1.0);
    const int held = c->dp_runs_ok && c->dp_gen == c->gen; /* run values at this clock */
    for (int r = 0; r < c->nprun; r++) {
        const int s = c->prun[r], s0 = s, s1 = c->prun[r + 1];
        double dp_s = 0, tier0 = 0, tier1 = 0, opt_s, opt_bytes;
        int nbk_dp = 1;
        if (kd) {
            dp_s = kd->dp_s[r], tier0 = kd->tier0[r], tier1 = kd->tier1[r];
            opt_s = kd->opt_s[r], opt_bytes = kd->opt_bytes[r], nbk_dp = kd->nb[r];
        } else {
            const double P = c->stage_params[s], Pe = c->stage_expert_params[s];
            const double F = RUN_F(r);
            const double Pd = P - Pe; /* dense parameters, reduced over dp x cp */
            if (dpcp > 1 || (Pe > 0 && edp > 1)) {
                cx_hw_comm a, b;
                /* dense parameters by ZeRO stage (all-reduce, reduce-scatter +
                 * all-gather, ...), expert parameters over their own group */
                double ag = cx_core_shard_dp(c, Pd, &a, &b);
                expert_sync(c, Pe, &a, &b);
                ag = b.time_s;
                /* --overlap-param-gather: the all-gather runs bucket by bucket
                 * behind the next iteration's first forward on this stage */
                if (ex->param_gather_overlap && ag > 0) {
                    double bucket = cx_maxd(DDP_BUCKET_PARAMS, 1e6 * dpcp);
                    double nbk = cx_maxd(1.0, cx_mind((double)DDP_MAX_BUCKETS, ceil(P / bucket)));
                    ag = cx_maxd(ag / nbk, ag - F);
                }
                dp_s = a.time_s + ag;
                tier0 = a.bytes_tier[0] + b.bytes_tier[0];
                tier1 = a.bytes_tier[1] + b.bytes_tier[1];
                if (ex->dp_overlap) {
                    double bucket = cx_maxd(DDP_BUCKET_PARAMS, 1e6 * dpcp);
                    double n = ceil(P / bucket);
                    nbk_dp = n < 1 ? 1 : n > DDP_MAX_BUCKETS ? DDP_MAX_BUCKETS : (int)n;
                }
            }
            /* ZeRO >= 1: the dense shard's and the expert shard's */
            double upd = Pd / c->shard_n + (c->zero >= 1 ? Pe / edp : Pe);
            opt_bytes = upd * c->sys.perf.optimizer_bytes_per_param;
            opt_s = opt_bytes / (c->sys.gpu.hbm_gbps * 1e9 * c->sys.perf.mem_eff);
            /* optimizer offload: the fp32 state (12 B per parameter) streams in
             * and back over the host link while the step runs */
            if ((ex->offload & CULONX_OFFLOAD_OPTIMIZER) && c->host_bw_bps > 0)
                opt_s = cx_maxd(opt_s, 2.0 * 12.0 * upd / c->host_bw_bps);
            if (nk) {
                nk->dp_s[r] = dp_s, nk->tier0[r] = tier0, nk->tier1[r] = tier1;
                nk->opt_s[r] = opt_s, nk->opt_bytes[r] = opt_bytes, nk->nb[r] = nbk_dp;
            }
        }
        /* the step's energy reads the clock (the cost's number) and its
         * time and bytes: the value held when those are */
        const double opt_j =
            held && same_bits(c->optr_s[r], opt_s) && same_bits(c->optr_bytes[r], opt_bytes)
                ? c->optr_j[r]
                : cx_core_pass_energy_j(c, opt_s, 0.0, opt_bytes, NULL);
        c->dpr_s[r] = dp_s, c->dpr_nb[r] = nbk_dp;
        c->dpr_tier[r][0] = tier0, c->dpr_tier[r][1] = tier1;
        c->optr_s[r] = opt_s, c->optr_j[r] = opt_j, c->optr_bytes[r] = opt_bytes;
        if (!kd) /* the energy's sum, stage by stage */
            for (int q = s0; q < s1; q++)
                tsum[0] += tier0, tsum[1] += tier1;
    }
#undef RUN_F
    c->dp_runs_ok = 1, c->dp_gen = c->gen, c->dp_stale = 1;
    if (kd) {
        memcpy(c->dp_tier_sum, kd->tier_sum, sizeof c->dp_tier_sum);
    } else {
        memcpy(c->dp_tier_sum, tsum, sizeof c->dp_tier_sum);
        if (nk) memcpy(nk->tier_sum, tsum, sizeof nk->tier_sum);
    }
}

void cx_core_cost_dp_stages(cx_cost *c)
{
    if (!c->dp_stale) return;
    for (int r = 0; r < c->nprun; r++) {
        const int s0 = c->prun[r], s1 = c->prun[r + 1], all = !c->dp_filled;
        fill_run(c->dp_s, s0, s1, c->dpr_s[r], all);
        fill_run(c->optimizer_s, s0, s1, c->optr_s[r], all);
        fill_run(c->optimizer_j, s0, s1, c->optr_j[r], all);
        fill_run(c->optimizer_bytes, s0, s1, c->optr_bytes[r], all);
        const double t0 = c->dpr_tier[r][0], t1 = c->dpr_tier[r][1];
        if (all || c->dp_nb[s0] != c->dpr_nb[r])
            for (int q = s0; q < s1; q++)
                c->dp_nb[q] = c->dpr_nb[r];
        if (all || !same_bits(c->dp_tier_bytes[s0][0], t0) ||
            !same_bits(c->dp_tier_bytes[s0][1], t1))
            for (int q = s0; q < s1; q++)
                c->dp_tier_bytes[q][0] = t0, c->dp_tier_bytes[q][1] = t1;
    }
    c->dp_filled = 1, c->dp_stale = 0;
}

void cx_core_cost_stages(const culonx_run *run, cx_cost *c)
{
    cx_core_cost_dp_runs(run, c);
    cx_core_cost_dp_stages(c);
}
