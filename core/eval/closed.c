/*
 * closed.c — iteration time, memory and FLOPs in closed form (no DAG).
 *
 * Per physical stage i and microbatch: F_i (forward + its TP collectives),
 * B_i (input gradient + recompute + their TP collectives), W_i (weight
 * gradient), and the steady-state p2p 2P (send activation, send gradient;
 * x the schedule's p2p factor). The bottleneck stage j (largest t_i =
 * F_i+B_i+W_i+2P) sets the steady state, the schedule sets the bubble:
 *   T_pipe = m * t_j + bubble(p, m, v; mean F, B, W of the other stages,
 *                             each with one p2p hop)
 * which for 1F1B/GPipe is m*t_j + sum_{i != j} t_i, i.e. (m+p-1)t uniformly.
 * DP gradient sync starts after a stage's last backward; with dp-overlap its
 * n buckets (cx_core_dp_buckets) start as slices of the last backward item
 * finish, so max(dp/n, dp - window (n-1)/n) stays exposed. Stage s finishes
 * its last backward one send + one backward item per stage before stage s-1.
 * Then the optimizer step.
 *
 * Memory per GPU (stage i): 2 B weights + 4 B fp32 main gradients + 12 B
 * Adam state (fp32 master, m, v; /dp with the distributed optimizer) per
 * parameter held (core/README.md, "Memory"; Korthikanti Fig. 1 check), activations in flight
 * for the schedule (schedules/: inflight x one microbatch's stage
 * activations), one layer's full activations while it is recomputed (full
 * recompute), and a working-buffer allowance (cx_core_stage_memory).
 * Formulas: core/README.md ("Closed form", "Memory", "Results", "Sweeps"
 * for the bounds). A sweep's evaluations of one pricing share the
 * reductions that read only it (closed_sums: the per-stage sums side by
 * side, the tail's windows, the bubble, the energy's TP/PP terms; FLOPs
 * and parameters once per priced curve), the same bits (core/README.md,
 * "Sweeps", per evaluation). The replayed tail runs four stages at a time
 * (tail_avx), and the sweep's memory floors (cx_mem_floor, closed.h) bound
 * a memory check from the stage parameters of an earlier one.
 */
#include "core/base/base.h"
#include "core/eval/cost.h"
#include "core/eval/closed.h"
#include "core/eval/cost_key.h"
#include "core/eval/energy.h"
#include "core/eval/replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Memo of the schedule bubble, per thread. bubble_s is a pure function of
 * its arguments, and V-shaped schedules compute it by playing their orders
 * (O(p^2), most of a sweep's time); sweeps evaluate runs that differ only in
 * DP settings (same stage times) back to back. Keys match bit for bit, so
 * results are exactly those of the direct call. */
#define BUBBLE_MEMO 8
typedef struct {
    const cx_sched_desc *d;
    int p, m, v;
    uint64_t f, b, w; /* bit patterns */
    double bubble_s;
} bubble_memo;
static _Thread_local bubble_memo memo[BUBBLE_MEMO];
static _Thread_local unsigned memo_next;

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double bubble_cached(const cx_sched_desc *d, int p, int m, int v, double f, double b,
                            double w)
{
    uint64_t fb = bits(f), bb = bits(b), wb = bits(w);
    for (int k = 1; k <= BUBBLE_MEMO; k++) { /* the latest first */
        const bubble_memo *e = &memo[(memo_next - k) % BUBBLE_MEMO];
        if (e->f == fb && e->b == bb && e->w == wb && e->d == d && e->p == p && e->m == m &&
            e->v == v) /* the times first: they differ most often */
            return e->bubble_s;
    }
    double r = d->bubble_s(p, m, v, f, b, w);
    bubble_memo *e = &memo[memo_next++ % BUBBLE_MEMO];
    e->d = d, e->p = p, e->m = m, e->v = v, e->f = fb, e->b = bb, e->w = wb, e->bubble_s = r;
    return r;
}

/* Is c's iteration time replayed? Schedules without an exact formula, and
 * every schedule under an uneven layer split (culonx_run.vstage_layers);
 * over a stack of several layer kinds (MoE layers after dense ones: their
 * F:B ratios differ, so a stage's share of fill and drain is no longer the
 * mean stage's); and with ZeRO-2/3 or offload side traffic (core/eval/shard.c),
 * whose exposed gathers and fetches load the first and last stages' forward
 * and backward unevenly (the 1F1B formula then departs from the replay by up
 * to 10%, bench_agree). The formulas hold for stages of one layer kind, equal
 * but for the first and the last (bench_agree holds this to the graph engine). */
static int replays(const cx_cost *c)
{
    if (!c->sched->closed_exact || c->run->vstage_layers != NULL) return 1;
    for (int k = 0; k < c->nclass; k++)
        if (c->cls[k].sh_f_s > 0 || c->cls[k].sh_b_s > 0) return 1;
    return c->p > 1 && c->stack.nseg > 1;
}

/* The closed form's reductions over the stages that read only the stage
 * times (the per-stage sums, the bottleneck stages, each run's `ahead` of
 * the tail), made once per pricing of c (cx_cost.gen) and kept for the
 * evaluations that share it (a sweep's DP settings): the same operations
 * in the same order, so the same bits. */
static const cx_closed_sums *closed_sums(cx_cost *c)
{
    cx_closed_sums *cs = &c->closed;
    if (cs->gen == c->gen) return cs;
    const double P = c->p2p_s;
    double pf = -1, pb = -1;
    int rf = 0, rb = 0;
    /* the per-stage sums of F, B and W and the tail's `ahead` (below),
     * in stage order, side by side (cx_add_rep4: the same bits) */
    double acc[4] = {0, 0, 0, 0};
    for (int r = 0; r < c->nsrun; r++) { /* runs of equal stages */
        const int s = c->srun[r], n = c->srun[r + 1] - s;
        const double F = c->run_f_s[r], B = c->run_b_s[r], W = c->run_w_s[r];
        /* stage s ends its last backward `ahead` before stage 0: the last
         * gradient still passes stages s-1..0, a send and a backward item
         * each */
        const cx_chunk_cost *c0 = cx_core_cost_chunk(c, c->sched->vstage(c->p, c->v, s, 0));
        const double last_bw = c0->b_s + c0->tp_b_s + c0->w_s; /* last backward group */
        cs->ahead_s[r] = acc[3];
        cs->window_s[r] = c->sched->splits_bw ? c0->w_s : last_bw;
        const double x[4] = {F, B, W, P + last_bw + c0->r_s + c0->tp_r_s};
        cx_add_rep4(acc, x, n);
        if (c->sched->phased) {
            double a = F + c->sends_f[s] * P, b = B + W + c->sends_b[s] * P;
            if (a > pf) pf = a, rf = r;
            if (b > pb) pb = b, rb = r;
        } else {
            double t = F + B + W + (c->sched->p2p_overlap ? 0 : c->sends_f[s] + c->sends_b[s]) * P;
            if (t > pf) pf = t, rf = rb = r;
        }
    }
    cs->sum_f_s = acc[0], cs->sum_b_s = acc[1], cs->sum_w_s = acc[2];
    cs->replayed = replays(c);
    cs->rf = rf, cs->rb = rb, cs->jf = c->srun[rf], cs->jb = c->srun[rb];
    /* the breakdown of the bottleneck stage (closed_finish) */
    const double m = (double)c->m;
    double bf = 0, bb = 0, br = 0, btp = 0, bep = 0, bsh = 0, side = 0;
    for (int k = 0; k < c->v; k++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->sched->vstage(c->p, c->v, cs->jb, k));
        bf += m * cc->f_s;
        bb += m * (cc->b_s + cc->w_s);
        br += m * cc->r_s;
        /* tp_*_s hold every blocking collective: TP, the expert ones (reported
         * as ep_comm) and the exposed ZeRO/offload side traffic (shard/offload) */
        const double ep = cc->ep_f_s + cc->ep_b_s + cc->ep_r_s, sh = cc->sh_f_s + cc->sh_b_s;
        btp += m * cx_core_tp_only(cc->tp_f_s + cc->tp_b_s + cc->tp_r_s, sh + ep);
        bep += m * ep;
        bsh += m * sh;
        side += m * cc->sh_total_s;
    }
    cs->bd_f_s = bf, cs->bd_b_s = bb, cs->bd_r_s = br, cs->bd_tp_s = btp, cs->bd_ep_s = bep;
    cs->bd_side_s = bsh, cs->side_s = side;
    /* what reads no time (FLOPs, bytes, parameters, the layout): once per
     * priced curve (cx_cost.curve: a reprice changes none of it) */
    if (cs->fixed_curve != c->curve || !c->priced) {
        /* FLOPs */
        double per_mb = 0, rec = 0;
        for (int k = 0; k < c->nclass; k++) { /* chunk classes x their virtual stages */
            const cx_chunk_cost *cc = &c->cls[k];
            double n = (double)c->class_vstages[k];
            per_mb += n * (cc->f_flops + cc->b_flops + cc->w_flops);
            rec += n * cc->r_flops;
        }
        cs->stage_ranks = (double)cx_core_layout_stage_ranks(&c->layout);
        double ranks = m * cs->stage_ranks;
        cs->model_flops = per_mb * ranks;
        cs->hardware_flops = (per_mb + rec) * ranks;
        /* parameters */
        cs->params = cx_model_stack_params(&c->stack);
        cs->active_params = cx_model_stack_active_params(&c->stack);
        cx_core_energy_sums(c, cs->stage_ranks, &cs->nodes, cs->tp_pp_bits);
        cs->blocked_w = cx_core_blocked_power_w(c);
        cs->hbm_pj = cx_hw_power_hbm_pj_per_byte(&c->sys.gpu.power, &c->sys.gpu);
        cs->fixed_curve = c->priced ? c->curve : 0;
    }
    cs->bubble_gen = 0;
    cs->gen = c->gen;
    return cs;
}

/* Peak memory of the most loaded stage (res->memory, res->params_per_gpu);
 * peak_act: the replay's per-stage activation peaks, NULL for schedules in
 * closed form (inflight x activations). */
static void memory_scan(const cx_cost *c, const double *peak_act, culonx_result *res);
/* The result reads the shape and the execution, never the clock (nor a
 * time): with a replay too, whose activation peaks depend on the orders and
 * the chunks' bytes only (cx_core_replay_memory). Kept per execution (clock
 * cleared) in the cost across reprices (cx_cost.keep_mem), so a sweep's
 * later clocks, and its evaluation after the memory check, copy it. 1 and
 * res filled when kept. */
static int memory_kept(cx_cost *c, culonx_result *res)
{
    const culonx_execution *ex = &c->run->exec;
    const int keyed = cx_core_cost_keyed(c, c->run); /* the rest of ex equal (cost.h) */
    for (int k = 0; k < c->nkeep_mem; k++) {
        int i = c->keep_mem_last + k; /* (last + k) % nkeep_mem: the last found first */
        while (i >= c->nkeep_mem)
            i -= c->nkeep_mem;
        const cx_keep_mem *e = &c->keep_mem[i];
        if (cx_core_exec_dp_same(&e->exec, ex) &&
            (keyed || cx_core_exec_same_unclocked(ex, &e->exec))) {
            c->keep_mem_last = i;
            res->memory = e->memory;
            res->params_per_gpu = e->params_per_gpu;
            return 1;
        }
    }
    return 0;
}

/* Are c's memory results kept? Without a replay, and for schedules always
 * replayed; a schedule with a formula is replayed where side traffic is
 * exposed (replays), which may depend on the clock, and its replayed peaks
 * differ from the closed form's. */
static int memory_keeps(const cx_cost *c, const double *peak_act)
{
    return !peak_act || !c->sched->closed_exact;
}

/* peak_act: the replay's peaks (NULL without a replay); the result of
 * memory_scan, kept or made and kept. */
static void memory_result(cx_cost *c, const double *peak_act, culonx_result *res)
{
    const int keeps = memory_keeps(c, peak_act);
    if (keeps && memory_kept(c, res)) return;
    memory_scan(c, peak_act, res);
    if (!keeps) return;
    cx_core_cost_keep_for(c, c->run);
    int i = c->nkeep_mem < CX_COST_KEEP ? c->nkeep_mem++ : c->keep_mem_next++ % CX_COST_KEEP;
    cx_keep_mem *e = &c->keep_mem[i];
    memcpy(&e->exec, &c->run->exec, sizeof e->exec); /* the key: the execution, clock cleared */
    e->exec.clock_mhz = 0;
    e->memory = res->memory;
    e->params_per_gpu = res->params_per_gpu;
}

static void memory_scan(const cx_cost *c, const double *peak_act, culonx_result *res)
{
    const int p = c->p;
    culonx_memory best;
    memset(&best, 0, sizeof best);
    culonx_memory mm;
    memset(&mm, 0, sizeof mm);
    double run_inflight = 0; /* the most in flight so far among equal stages */
    double grp_act = 0;      /* replayed: the largest peak since mm was computed */
    /* inflight non-increasing: only the first stage of each run of equal
     * stages can hold the most (see below) */
    const int heads = !peak_act && c->sched->inflight_falls;
    for (int r = 0, s = 0; s < p; s = heads ? c->srun[++r] : s + 1) {
        double act = c->stage_act_bytes[s], work = c->stage_work_bytes[s];
        double inflight = 0;
        if (!peak_act) {
            /* a stage equal to the previous ones with no more in flight has
             * no larger peak (the peak is non-decreasing in the activations)
             * than one of them, so it never replaces the best */
            inflight = (double)c->sched->inflight(p, c->m, c->v, s);
            if (s > 0 && c->same_prev[s] && inflight <= run_inflight) continue;
            run_inflight = s > 0 && c->same_prev[s] ? cx_maxd(run_inflight, inflight) : inflight;
        }
        if (s == 0 || c->stage_params[s] != c->stage_params[s - 1] ||
            work != c->stage_work_bytes[s - 1]) {
            cx_core_stage_memory(c, s, work, &mm);
            grp_act = -INFINITY;
        } else if (peak_act && peak_act[s] <= grp_act) {
            /* the same stage memory with no larger replayed peak than a
             * stage seen since it was computed: no larger peak (it is
             * non-decreasing in the activations), never replaces the best */
            continue;
        }
        if (peak_act) grp_act = cx_maxd(grp_act, peak_act[s]);
        culonx_memory x = mm;
        if (peak_act) { /* exact peak of the replay includes the transient */
            x.activations_bytes = peak_act[s] - work;
        } else {
            x.activations_bytes = inflight * act;
        }
        cx_core_memory_finish(c, &x); /* offload; peak and fits */
        if (s == 0 || x.peak_bytes > best.peak_bytes) {
            best = x;
            res->params_per_gpu = c->stage_params[s];
        }
    }
    res->memory = best;
}

/* The replayed tail: the latest stage end (its last compute, exposed DP
 * sync, blocking sends and optimizer step), the first stage reaching it
 * giving the optimizer time and the exposed DP sync. Stages of equal
 * parameters (prun) share the DP sync, optimizer step and bucket count
 * (cx_core_dp_buckets). Stages s0 .. s1 - 1 of run r, *t_end etc. updated
 * as the stage loop does (s == 0 always taken). */
static inline __attribute__((always_inline)) void
tail_stages(const cx_cost *c, const cx_replay_times *rp, int overlap_on, int r, int s0, int s1,
            double *t_end, double *opt_s, double *dp_replayed)
{
    const double dp = c->dpr_s[r], opt = c->optr_s[r];
    const int nb = c->dpr_nb[r], overlap = overlap_on && dp > 0;
    const double *const lend = rp->last_end_s, *const free_s = rp->free_s,
                        *const item = rp->last_item_s;
    for (int s = s0; s < s1; s++) {
        /* the stage's last compute ends at last_end; its optimizer
         * follows the DP sync and any blocking send still under way */
        const double le = lend[s], fr = free_s[s];
        double exposed = dp;
        if (overlap) {
            const double window = item[s];
            /* with nb >= 1 and window >= 0, exposed <= dp (or NaN, then
             * t = free + optimizer), so t <= this bound: a stage whose
             * bound is not above the latest is not the latest (no
             * division) */
            if (s > 0 && nb >= 1 && window >= 0 && !(cx_maxd(le + dp, fr) + opt > *t_end)) continue;
            const double n = (double)nb;
            exposed = cx_maxd(dp / n, dp - window * (n - 1.0) / n);
        }
        const double t = cx_maxd(le + exposed, fr) + opt;
        if (s == 0 || t > *t_end) {
            *t_end = t, *opt_s = opt;
            *dp_replayed = cx_maxd(0.0, le + exposed - fr);
        }
    }
}

typedef void tail_fn_t(const cx_cost *, const cx_replay_times *, int, double *, double *, double *);

static void tail_scalar(const cx_cost *c, const cx_replay_times *rp, int overlap_on, double *t_end,
                        double *opt_s, double *dp_replayed)
{
    for (int r = 0; r < c->nprun; r++)
        tail_stages(c, rp, overlap_on, r, c->prun[r], c->prun[r + 1], t_end, opt_s, dp_replayed);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same, four stages at a time: every stage's t first, each lane the
 * scalar operations (maxpd is a > b ? a : b, as cx_maxd; no FMA under
 * this target), with their largest; then the first stage whose t equals
 * it is the one the stage loop keeps (a later one must be larger to
 * replace it; a NaN t never is), taken through the stage loop for its
 * bits. A stage the stage loop skips by its bound has t <= that bound <=
 * the latest, so computing its t changes nothing. Where stage 0's t or
 * the largest is NaN or -inf, the stage loop itself. */
__attribute__((target("avx"))) static void tail_avx(const cx_cost *c, const cx_replay_times *rp,
                                                    int overlap_on, double *t_end, double *opt_s,
                                                    double *dp_replayed)
{
    double tt[CX_COST_MAX_STAGES + 4];
    const double *const lend = rp->last_end_s, *const free_s = rp->free_s,
                        *const item = rp->last_item_s;
    __m256d vmax = _mm256_set1_pd(-INFINITY);
    for (int r = 0; r < c->nprun; r++) {
        const int s0 = c->prun[r], s1 = c->prun[r + 1];
        const double dp = c->dpr_s[r], opt = c->optr_s[r];
        const int nb = c->dpr_nb[r], overlap = overlap_on && dp > 0;
        const double n = (double)nb;
        const __m256d vdp = _mm256_set1_pd(dp), vopt = _mm256_set1_pd(opt);
        const __m256d vdn = _mm256_set1_pd(overlap ? dp / n : 0.0);
        const __m256d vn1 = _mm256_set1_pd(n - 1.0), vn = _mm256_set1_pd(n);
        int s = s0;
        for (; s + 4 <= s1; s += 4) {
            const __m256d le = _mm256_loadu_pd(lend + s);
            const __m256d fr = _mm256_loadu_pd(free_s + s);
            __m256d ex = vdp;
            if (overlap) {
                const __m256d w = _mm256_loadu_pd(item + s);
                ex = _mm256_max_pd(vdn,
                                   _mm256_sub_pd(vdp, _mm256_div_pd(_mm256_mul_pd(w, vn1), vn)));
            }
            const __m256d t = _mm256_add_pd(_mm256_max_pd(_mm256_add_pd(le, ex), fr), vopt);
            _mm256_storeu_pd(tt + s, t);
            vmax = _mm256_max_pd(t, vmax); /* a NaN t leaves vmax */
        }
        for (; s < s1; s++) {
            const double le = lend[s], fr = free_s[s];
            const double exposed = overlap ? cx_maxd(dp / n, dp - item[s] * (n - 1.0) / n) : dp;
            tt[s] = cx_maxd(le + exposed, fr) + opt;
            vmax = _mm256_max_pd(_mm256_set1_pd(tt[s]), vmax);
        }
    }
    const int p = c->p;
    double m4[4];
    _mm256_storeu_pd(m4, vmax);
    const double tmax = cx_maxd(cx_maxd(m4[0], m4[1]), cx_maxd(m4[2], m4[3]));
    if (isnan(tt[0]) || !(tmax > -INFINITY)) {
        tail_scalar(c, rp, overlap_on, t_end, opt_s, dp_replayed);
        return;
    }
    const __m256d vm = _mm256_set1_pd(tmax);
    int s = 0;
    for (; s + 4 <= p; s += 4) {
        const int eq = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(tt + s), vm, _CMP_EQ_OQ));
        if (eq) {
            s += __builtin_ctz((unsigned)eq);
            break;
        }
    }
    for (; s < p && !(tt[s] == tmax); s++)
        ;
    if (s >= p) { /* not reached: tmax is one of them */
        tail_scalar(c, rp, overlap_on, t_end, opt_s, dp_replayed);
        return;
    }
    /* stage s, through the stage loop (its t is above -inf: not skipped);
     * its run r = prun_of[s] from prun, read above (prun_of is not) */
    int r = 0;
    while (c->prun[r + 1] <= s)
        r++;
    *t_end = -INFINITY;
    tail_stages(c, rp, overlap_on, r, s, s + 1, t_end, opt_s, dp_replayed);
}

static tail_fn_t *tail_fn = tail_scalar;
CX_PICK_ISA(pick_tail, "avx", tail_fn, tail_avx)
#else
#define tail_fn tail_scalar
#endif

culonx_status cx_core_closed_eval(const culonx_run *run, double clock_mhz, cx_cost *c,
                                  culonx_result *res, culonx_error *err)
{
    return cx_core_closed_eval_ws(run, clock_mhz, c, NULL, res, err);
}

culonx_status cx_core_closed_eval_ws(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     cx_replay_ws *ws, culonx_result *res, culonx_error *err)
{
    culonx_status st = cx_core_cost_build_key(run, clock_mhz, c, cx_core_replay_ws_key(ws), err);
    if (st != CULONX_OK) return st;
    return cx_core_closed_finish(run, c, ws, res, err);
}

culonx_status cx_core_closed_finish(const culonx_run *run, cx_cost *c, cx_replay_ws *ws,
                                    culonx_result *res, culonx_error *err)
{
    culonx_status st = CULONX_OK;
    const culonx_execution *ex = &run->exec;
    const int p = c->p, m = c->m;
    cx_zero(res, sizeof *res); /* memset */
    res->clock_mhz = c->clock_mhz;
    res->microbatches = m;

    /* Steady state: the bottleneck stage j repeats every microbatch its
     * work plus its blocking sends, m-1 periods after the first microbatch;
     * the schedule's bubble (with one p2p hop per stage) covers fill and
     * drain through the other stages. Phased schedules (GPipe) have one
     * bottleneck for the forward phase and one for the backward phase. */
    const double P = c->p2p_s;
    const cx_closed_sums *cs = closed_sums(c);
    const int jf = cs->jf, jb = cs->jb;
    const double sumF = cs->sum_f_s, sumB = cs->sum_b_s, sumW = cs->sum_w_s;
    const double Fj = c->run_f_s[cs->rf], Bj = c->run_b_s[cs->rb], Wj = c->run_w_s[cs->rb];
    const double sends_j = c->sched->p2p_overlap ? 0.0 : (c->sends_f[jf] + c->sends_b[jb]) * P;
    double tj = Fj + Bj + Wj;
    /* schedules without an exact formula are replayed (below); their bubble
     * is what remains of the replayed time */
    int replayed = cs->replayed;
    double bubble = 0;
    if (p > 1 && !replayed) {
        double n = (double)(p - 1);
        double Fm = (sumF - Fj) / n + P, Bm = (sumB - Bj) / n + P, Wm = (sumW - Wj) / n;
        /* a function of this pricing: asked once (the same answer) */
        if (cs->bubble_gen != c->gen) {
            /* an exact schedule's bubble is a formula: asked directly */
            c->closed.bubble_s = c->sched->closed_exact
                                     ? c->sched->bubble_s(p, m, c->v, Fm, Bm, Wm)
                                     : bubble_cached(c->sched, p, m, c->v, Fm, Bm, Wm);
            c->closed.bubble_gen = c->gen;
        }
        bubble = cs->bubble_s;
    }
    double p2p_mb = sends_j;
    double t_pipe = (double)m * tj + (double)(m - 1) * sends_j + bubble;

    /* DP sync and optimizer, per stage: buckets overlap the last backward
     * item (window) with dp-overlap; then the optimizer step. */
    double dp_replayed = 0;
    cx_replay_ws *tmp = NULL;
    const cx_replay *rp = NULL; /* held by the workspace */
    cx_replay_times rt;         /* its per-stage times, where they lie */
    /* memory kept for this execution (memory_result, memory_keeps with a
     * replay's peaks): the replay's peaks are not read */
    const int mem_kept = replayed && !c->sched->closed_exact && memory_kept(c, res);
    if (replayed) {
        if (!ws && !(ws = tmp = cx_core_replay_ws_new()))
            return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
        cx_replay *o = cx_core_replay_ws_out(ws);
        if (mem_kept) {
            st = cx_core_replay_ws_times_at(c, ws, o, &rt, err);
        } else {
            st = cx_core_replay_ws(c, ws, o, err);
            rt.last_end_s = o->last_end_s, rt.last_item_s = o->last_item_s, rt.free_s = o->free_s;
        }
        if (st != CULONX_OK) {
            cx_core_replay_ws_free(tmp);
            return st;
        }
        rp = o;
    }
    if (replayed) { /* lines the tail and energy read, maybe evicted by the replay */
        const void *const l[] = {c->prun,       c->dpr_s,     c->dpr_nb,     &c->nsrun,
                                 c->optr_s,     c->optr_j,    c->optr_bytes, c->run_e_j,
                                 c->run_busy_s, c->run_bytes, c->dp_tier_sum};
        for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
            __builtin_prefetch(l[i]);
    }
    double tail = 0, opt_s = 0, t_end = 0;
    if (replayed) tail_fn(c, &rt, ex->dp_overlap, &t_end, &opt_s, &dp_replayed);
    for (int r = 0, s = 0; !replayed && s < p; s = c->srun[++r]) {
        /* its last backward group's window (closed_sums) */
        const double window = cs->window_s[r];
        double dp = c->dpr_s[c->prun_of[s]], exposed = dp;
        if (ex->dp_overlap && dp > 0) {
            double n = (double)cx_core_dp_buckets(c, s);
            exposed = cx_maxd(dp / n, dp - window * (n - 1.0) / n);
        }
        /* stage s ends its last backward `ahead` before stage 0 (the last
         * gradient still passes stages s-1..0, a send and a backward each;
         * closed_sums); an equal stage later in the run is `step` further
         * ahead each, so never later */
        double t = exposed + c->optr_s[c->prun_of[s]] - cs->ahead_s[r];
        if (s == 0 || t > tail) tail = t, opt_s = c->optr_s[c->prun_of[s]];
    }
    if (replayed) {
        tail = t_end - t_pipe;
    }
    res->iteration_time_s = t_pipe + tail;
    /* the energy's sums over the stages first: the work below reads none
     * of them and runs beside their chain of adds */
    double energy_acc[4];
    cx_core_energy_runs(c, res->iteration_time_s, energy_acc);

    /* breakdown on the bottleneck stage j (closed_sums) */
    culonx_time_breakdown *bd = &res->breakdown;
    bd->forward_s = cs->bd_f_s, bd->backward_s = cs->bd_b_s, bd->recompute_s = cs->bd_r_s;
    bd->tp_comm_s = cs->bd_tp_s, bd->ep_comm_s = cs->bd_ep_s;
    *(c->zero >= 2 ? &bd->shard_comm_s : &bd->offload_s) = cs->bd_side_s;
    res->side_traffic_s = cs->side_s;
    bd->pp_comm_s = (m - 1) * p2p_mb;
    bd->optimizer_s = opt_s;
    if (replayed) { /* the bubble is the rest of the replayed iteration */
        bd->dp_comm_s = dp_replayed;
        bubble = res->iteration_time_s -
                 (bd->forward_s + bd->backward_s + bd->recompute_s + bd->tp_comm_s + bd->ep_comm_s +
                  bd->pp_comm_s + bd->dp_comm_s + opt_s + bd->shard_comm_s + bd->offload_s);
        bubble = cx_maxd(0.0, bubble);
    } else {
        bd->dp_comm_s = tail - opt_s;
    }
    bd->bubble_s = bubble;
    res->bubble_fraction = res->iteration_time_s > 0 ? bubble / res->iteration_time_s : 0;

    /* FLOPs and parameters (closed_sums) */
    res->model_flops = cs->model_flops;
    res->hardware_flops = cs->hardware_flops;
    res->params = cs->params;
    res->active_params = cs->active_params;

    /* memory: the most loaded stage */
    if (!mem_kept) memory_result(c, replayed ? rp->peak_act_bytes : NULL, res);
    cx_core_replay_ws_free(tmp);
    cx_core_result_rates(run, res);

    cx_core_energy_from_runs(c, energy_acc, res);
    return CULONX_OK;
}

/* Lower bounds for a replayed schedule, without the replay (see closed.h).
 * Stage s runs all its items one at a time, the first no earlier than the
 * first microbatch's forward can reach one of its chunks (fill: e[vs], the
 * forward chain with one p2p hop per stage change), and with blocking p2p
 * each send holds its compute stream for P. Its iteration share ends after
 * its last item, the exposed DP sync and its optimizer step (free stream,
 * or last item + exposed DP, as the closed form's tail). Drain: after the
 * stage's last B or BW item only W items of its own remain (known from the
 * order); the gradient of that item still has to pass down the backward
 * chain to virtual stage 0 (chain[vs]: B parts with one p2p hop per stage
 * change), whose stage then takes its optimizer step. Every term is a sum of
 * durations that the replay adds on one path, so each is <= the replay's
 * time; the result is scaled by (1 - 1e-9) against rounding. */
static double time_bound(const cx_cost *c, const cx_replay_shape *sh)
{
    const int p = c->p, v = c->v, nvs = p * v;
    const double P = c->p2p_s, m = (double)c->m;
    const int blocking = !c->sched->p2p_overlap;
    const culonx_execution *ex = &c->run->exec;
    double e[CX_COST_MAX_VSTAGES], chain[CX_COST_MAX_VSTAGES];
    e[0] = 0, chain[0] = 0;
    for (int vs = 1; vs < nvs; vs++) {
        const cx_chunk_cost *a = cx_core_cost_chunk(c, vs - 1);
        double hop = c->vs_stage[vs] != c->vs_stage[vs - 1] ? P : 0.0;
        e[vs] = e[vs - 1] + a->f_s + a->tp_f_s + hop;
        chain[vs] = chain[vs - 1] + a->r_s + a->tp_r_s + a->b_s + a->tp_b_s + hop;
    }
    const double opt0 = c->optr_s[c->prun_of[c->vs_stage[0]]];
    double best = 0;
    for (int s = 0; s < p; s++) {
        double fill = INFINITY, comp = 0, omega = 0;
        for (int k = 0; k < v; k++) {
            int vs = c->vs_stage_vs[s * v + k];
            const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
            fill = cx_mind(fill, e[vs]);
            comp +=
                m * (cc->f_s + cc->tp_f_s + cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s + cc->w_s);
            omega += (double)sh->w_after[s * v + k] * cc->w_s;
        }
        double nsend = blocking ? m * (double)(c->sends_f[s] + c->sends_b[s]) : 0.0;
        /* the last item: its DP-overlap window and whether it sends */
        int lk = sh->last_kind[s], lvs = c->vs_stage_vs[s * v + sh->last_chunk[s]];
        const cx_chunk_cost *lc = cx_core_cost_chunk(c, lvs);
        double dB = lc->r_s + lc->tp_r_s + lc->b_s + lc->tp_b_s, window;
        int lsend;
        if (lk == CX_WORK_F) {
            window = lc->f_s + lc->tp_f_s;
            lsend = lvs + 1 < nvs && c->vs_stage[lvs + 1] != s;
        } else if (lk == CX_WORK_W) {
            window = lc->w_s, lsend = 0;
        } else {
            window = (lk == CX_WORK_BW ? dB + lc->w_s : dB) - lc->r_s - lc->tp_r_s;
            lsend = lvs > 0 && c->vs_stage[lvs - 1] != s;
        }
        double dp = c->dpr_s[c->prun_of[s]], exposed = dp;
        if (ex->dp_overlap && dp > 0) {
            double n = (double)cx_core_dp_buckets(c, s);
            exposed = cx_maxd(dp / n, dp - window * (n - 1.0) / n);
        }
        double t1 = fill + comp + nsend * P + c->optr_s[c->prun_of[s]];
        double t2 = fill + comp + (blocking && lsend ? nsend - 1.0 : nsend) * P + exposed +
                    c->optr_s[c->prun_of[s]];
        double t = cx_maxd(t1, t2);
        if (sh->lastb_chunk[s] >= 0) {
            int bvs = c->vs_stage_vs[s * v + sh->lastb_chunk[s]];
            int bsend = blocking && bvs > 0 && c->vs_stage[bvs - 1] != s;
            double t3 = fill + comp - omega + (bsend ? nsend - 1.0 : nsend) * P + chain[bvs] + opt0;
            t = cx_maxd(t, t3);
        }
        if (t > best) best = t;
    }
    return best * (1.0 - 1e-9);
}

culonx_status cx_core_closed_bound(const culonx_run *run, double clock_mhz, cx_cost *c,
                                   cx_replay_ws *ws, cx_bound *b, culonx_error *err)
{
    culonx_status st = cx_core_cost_build_key(run, clock_mhz, c, cx_core_replay_ws_key(ws), err);
    if (st != CULONX_OK) return st;
    culonx_result r;
    memset(&r, 0, sizeof r);
    memset(b, 0, sizeof *b);
    if (!replays(c)) {
        memory_result(c, NULL, &r);
        b->peak_bytes = r.memory.peak_bytes;
        b->time_s = b->energy_j = 0; /* no bound needed: evaluate */
        return CULONX_OK;
    }
    cx_replay_shape sh;
    if ((st = cx_core_replay_shape(c, ws, &sh, err)) != CULONX_OK) return st;
    double *peak_act = cx_core_replay_ws_out(ws)->peak_act_bytes;
    if ((st = cx_core_replay_memory(c, ws, peak_act, err)) != CULONX_OK) return st;
    memory_result(c, peak_act, &r);
    b->peak_bytes = r.memory.peak_bytes;
    r.iteration_time_s = time_bound(c, &sh);
    b->time_s = r.iteration_time_s;
    cx_core_energy_result(c, &r); /* non-decreasing in the iteration time */
    b->energy_j = r.energy.total_j;
    return CULONX_OK;
}

culonx_status cx_core_closed_memory(const culonx_run *run, double clock_mhz, cx_cost *c,
                                    cx_replay_ws *ws, double *peak_bytes, int *complete,
                                    culonx_error *err)
{
    if (!ws) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "cx_core_closed_memory: no ws");
    culonx_status st =
        cx_core_cost_build_key_mem(run, clock_mhz, c, cx_core_replay_ws_key(ws), complete, err);
    if (st != CULONX_OK) return st;
    culonx_result r; /* its memory, written by every branch below, is all read */
    if (!c->sched->closed_exact && memory_kept(c, &r)) { /* replayed, at another clock */
    } else if (replays(c)) { /* the peaks cx_core_replay_ws gives with the times */
        double *peak_act = cx_core_replay_ws_out(ws)->peak_act_bytes;
        if ((st = cx_core_replay_memory(c, ws, peak_act, err)) != CULONX_OK) return st;
        memory_result(c, peak_act, &r);
    } else {
        memory_result(c, NULL, &r);
    }
    *peak_bytes = r.memory.peak_bytes;
    return CULONX_OK;
}

int cx_core_mem_floor_key(const culonx_run *run, culonx_execution *key)
{
    const culonx_execution *ex = &run->exec;
    const cx_sched_desc *sd = cx_sched_get(ex->schedule);
    if (!sd || !sd->closed_exact || run->vstage_layers || ex->offload != 0 ||
        cx_core_layout_zero(ex) > 1)
        return 0;
    memcpy(key, ex, sizeof *key); /* padding too: compared bytewise */
    /* read by no stage's parameters (cost.c price, cost_runs.c) */
    key->microbatch = key->global_batch = 0;
    key->recompute = (culonx_recompute)0;
    key->distributed_optimizer = key->zero = key->dp_overlap = key->param_gather_overlap = 0;
    key->tokens = key->clock_mhz = 0;
    return 1;
}

void cx_core_mem_floor_take_act(const cx_cost *c, cx_mem_floor *f)
{
    const culonx_execution *ex = &c->run->exec;
    const int rc = (int)ex->recompute;
    if (!f->valid || f->nh == 0 || rc < 0 || rc > 2 || ex->microbatch <= 0 || replays(c) ||
        c->nsrun != f->nh || c->sched != f->sched || c->p != f->p || c->v != f->v)
        return;
    for (int h = 0; h < f->nh; h++)
        if (c->srun[h] != f->head[h]) return;
    for (int h = 0; h < f->nh; h++)
        f->act_bytes[rc][h] = c->stage_act_bytes[f->head[h]];
    f->act_mb[rc] = ex->microbatch;
}

void cx_core_mem_floor_take(const cx_cost *c, const culonx_execution *key, cx_mem_floor *f)
{
    f->valid = 0;
    if (replays(c) || c->nprun > CX_MEM_FLOOR_RUNS) return;
    memcpy(&f->key, key, sizeof f->key);
    f->n = c->nprun;
    for (int r = 0; r < c->nprun; r++) {
        f->params[r] = c->stage_params[c->prun[r]];
        f->expert_params[r] = c->stage_expert_params[c->prun[r]];
    }
    f->valid = 1;
    f->sched = c->sched, f->p = c->p, f->v = c->v;
    f->act_mb[0] = f->act_mb[1] = f->act_mb[2] = 0;
    f->nh = c->nsrun <= CX_MEM_FLOOR_RUNS ? c->nsrun : 0;
    for (int h = 0; h < f->nh; h++) {
        f->head[h] = c->srun[h];
        f->head_params[h] = c->stage_params[c->srun[h]];
        f->head_expert_params[h] = c->stage_expert_params[c->srun[h]];
    }
    cx_core_mem_floor_take_act(c, f);
}

/* cx_core_stage_memory's weights, gradients and (ZeRO 0: eo = 1)
 * optimizer bytes at ZeRO <= 1 of a stage of P parameters, Pe of them
 * experts, summed as cx_core_memory_finish sums the peak */
static double param_floor(double P, double Pe, int zero, double wb)
{
    double w, g, o; /* ZeRO 0's terms: at ZeRO 1 only the optimizer's differ */
    cx_param_bytes(P - Pe, Pe, 0, 1.0, 1.0, wb, &w, &g, &o);
    return zero == 0 ? (w + g) + o : w + g;
}

double cx_core_mem_floor(const cx_mem_floor *f, const culonx_execution *ex)
{
    const int zero = cx_core_layout_zero(ex);
    const double wb = ex->dtype == CULONX_DTYPE_FP8 ? 4.0 : 2.0;
    double lb = -INFINITY;
    for (int r = 0; r < f->n; r++)
        lb = cx_maxd(lb, param_floor(f->params[r], f->expert_params[r], zero, wb));
    const int rc = (int)ex->recompute;
    if (rc < 0 || rc > 2 || f->act_mb[rc] <= 0 || ex->microbatch <= 0 || ex->dp <= 0) return lb;
    /* the microbatches as the build counts them (cost.c c->m) */
    const int m = (int)(ex->global_batch / (ex->microbatch * ex->dp));
    const double scale = (double)ex->microbatch / (double)f->act_mb[rc];
    for (int h = 0; h < f->nh; h++) {
        /* the stage's activation bytes per microbatch, rounded down */
        const double act = f->act_bytes[rc][h] * scale * (1.0 - 1e-9);
        const double a = (double)f->sched->inflight(f->p, m, f->v, f->head[h]) * act;
        lb = cx_maxd(lb, param_floor(f->head_params[h], f->head_expert_params[h], zero, wb) + a);
    }
    return lb;
}

culonx_status culonx_estimate(const culonx_run *run, culonx_result *res, culonx_error *err)
{
    cx_core_error_clear(err);
    culonx_status st = culonx_run_check(run, err);
    if (st != CULONX_OK) return st;
    cx_cost *c = malloc(sizeof *c);
    if (!c) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    st = cx_core_closed_eval(run, run->exec.clock_mhz, c, res, err);
    free(c);
    if (st == CULONX_OK) st = cx_core_result_check(run, res, err);
    return st;
}
