/*
 * plan.c — per-pass SM clock plans of one training iteration (culonx_plan):
 * the stage-level DAG of core/eval/walk.c, each compute node (F, B, W, BW, R
 * of a chunk for a microbatch; the optimizer step) free to run at any clock
 * step of the GPU, communication at its own fixed cost; the exact frontier
 * of iteration time against energy by core/eval/plan_cut.c.
 *
 * Node curve: at each clock f of the GPU's range (min..max by its step) the
 * costs of core/eval/cost.c give a pass its time t(f) (compute time at f plus
 * its folded TP wait, per DP bucket piece) and energy E(f) (hw's
 * cx_hw_pass_energy_j, TP waits at blocked power). While a GPU is not in a
 * compute pass it draws the blocked power P_b (hw/README.md), so the energy
 * of an iteration of time T is
 *   E = PUE * (R * (sum_i c_i + p * P_b * T) + E_net + P_node * nodes * T),
 *   c_i = E_i(f_i) - P_b * t_i(f_i)   (TP waits cancel),
 * R = GPUs per stage (TP x DP x ...), p stages, E_net fixed (bytes x pJ/bit),
 * P_node the system's node overhead, PUE its facility factor: the energy
 * model of core/eval/energy.c, so the all-max-clock plan reproduces the
 * estimate's energy exactly. c_i over t_i is replaced by its lower convex
 * hull (a pass may switch clock once, time-sharing two hull clocks), cut at
 * the least-cost clock. The frontier is exact for this discretised problem.
 *
 * cx_core_plan_run also returns every node's duration, clock (time-weighted
 * mean of the one or two hull clocks it runs at) and energy per GPU at the
 * chosen point, for `culonx trace --plan T` (core/output/trace.c).
 *
 * Straggler (extrinsic bloat): one DP replica runs factor x slower; the
 * others plan for that time and save (dp-1)/dp x PUE x R x (C_max - C(T)).
 * See core/README.md, "Clock plans".
 */
#include "core/eval/closed.h"
#include "core/eval/graph.h"
#include "core/eval/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPHASE 6
static const char *const phase_name[NPHASE] = {"F", "B", "W", "BW", "R", "optimizer"};

/* A class of nodes with one curve: compute (phase, chunk class, pieces) or
 * optimizer (stage), or a fixed duration. */
typedef struct {
    int phase, vcls, pieces, stage;
    double fixed_s;
    int32_t first; /* index in the clock-point arrays (raw, per clock) */
} pclass;

typedef struct {
    pclass *c;
    int n, cap;
} pclasses;

static int class_of(pclasses *cs, int phase, int vcls, int pieces, int stage, double fixed_s)
{
    for (int k = 0; k < cs->n; k++) {
        const pclass *x = &cs->c[k];
        if (x->phase == phase && x->vcls == vcls && x->pieces == pieces && x->stage == stage &&
            x->fixed_s == fixed_s)
            return k;
    }
    if (cs->n == cs->cap) {
        int nc = cs->cap ? 2 * cs->cap : 64;
        pclass *nx = realloc(cs->c, sizeof *nx * (size_t)nc);
        if (!nx) return -1;
        cs->c = nx, cs->cap = nc;
    }
    cs->c[cs->n] = (pclass){phase, vcls, pieces, stage, fixed_s, 0};
    return cs->n++;
}

/* Time and cost c = E - P_b t of a class at the costs `c` (one clock);
 * returns the GPU power while the pass computes (0 for fixed nodes). */
static double class_point(const pclass *x, const cx_cost *c, double pb, double *t, double *cost)
{
    if (x->phase < 0) {
        *t = x->fixed_s, *cost = 0;
        return 0;
    }
    if (x->phase == 5) {
        *t = c->optimizer_s[x->stage];
        *cost = c->optimizer_j[x->stage] - pb * *t;
        return *t > 0 ? c->optimizer_j[x->stage] / *t : 0;
    }
    const cx_chunk_cost *cc = &c->cls[x->vcls];
    double s = 0, tp = 0, e = 0;
    switch (x->phase) {
    case 0:
        s = cc->f_s, tp = cc->tp_f_s, e = cc->e_f_j;
        break;
    case 1:
        s = cc->b_s, tp = cc->tp_b_s, e = cc->e_b_j;
        break;
    case 2:
        s = cc->w_s, e = cc->e_w_j;
        break;
    case 3:
        s = cc->b_s + cc->w_s, tp = cc->tp_b_s, e = cc->e_b_j + cc->e_w_j;
        break;
    default:
        s = cc->r_s, tp = cc->tp_r_s, e = cc->e_r_j;
        break;
    }
    *t = (s + tp) / x->pieces;
    *cost = (e - pb * s) / x->pieces;
    return s > 0 ? e / s : 0;
}

/* Lower convex hull of points sorted by t (fastest first), kept while the
 * cost falls; writes into ht/hc/hf from index at, returns the count. */
static int hull(const double *t, const double *c, const double *f, int k, double *ht, double *hc,
                double *hf)
{
    int h = 0;
    for (int i = 0; i < k; i++) {
        if (h > 0 && t[i] <= ht[h - 1]) { /* same time: keep the cheaper */
            if (c[i] < hc[h - 1]) hc[h - 1] = c[i], hf[h - 1] = f[i];
            continue;
        }
        while (h >= 2) {
            double x1 = ht[h - 1] - ht[h - 2], y1 = hc[h - 1] - hc[h - 2];
            double x2 = t[i] - ht[h - 2], y2 = c[i] - hc[h - 2];
            if (x1 * y2 - x2 * y1 <= 0) /* not a left turn: drop the middle */
                h--;
            else
                break;
        }
        ht[h] = t[i], hc[h] = c[i], hf[h] = f[i];
        h++;
    }
    int best = 0;
    for (int i = 1; i < h; i++)
        if (hc[i] < hc[best]) best = i;
    return best + 1;
}

/* C(T) on the frontier breakpoints (time descending). */
static double cost_at(const cx_plan_frontier *fr, double T)
{
    const cx_plan_break *b = fr->brk;
    if (T >= b[0].time_s) return b[0].cost;
    for (int i = 1; i < fr->nbrk; i++)
        if (T >= b[i].time_s) {
            double dt = b[i - 1].time_s - b[i].time_s;
            double u = dt > 0 ? (T - b[i].time_s) / dt : 0;
            return b[i].cost + u * (b[i - 1].cost - b[i].cost);
        }
    return b[fr->nbrk - 1].cost;
}

void culonx_plan_result_free(culonx_plan_result *res)
{
    if (!res) return;
    free(res->frontier), free(res->clocks);
    memset(res, 0, sizeof *res);
}

void cx_core_plan_nodes_free(cx_plan_nodes *pn)
{
    if (!pn) return;
    free(pn->dur_s), free(pn->clock_mhz), free(pn->energy_j);
    memset(pn, 0, sizeof *pn);
}

culonx_status culonx_plan(const culonx_run *run, const culonx_plan_options *opts,
                          culonx_plan_result *res, culonx_error *err)
{
    return cx_core_plan_run(run, opts, res, NULL, err);
}

culonx_status cx_core_plan_run(const culonx_run *run, const culonx_plan_options *opts,
                               culonx_plan_result *res, cx_plan_nodes *pn, culonx_error *err)
{
    cx_core_error_clear(err);
    memset(res, 0, sizeof *res);
    if (pn) memset(pn, 0, sizeof *pn);
    culonx_plan_options o = {0};
    if (opts) o = *opts;
    culonx_status st = culonx_run_check(run, err);
    if (st != CULONX_OK) return st;
    const culonx_gpu *gpu = &run->system.gpu;
    const double fmax = gpu->max_mhz, fmin = gpu->min_mhz > 0 ? gpu->min_mhz : fmax;
    const double fstep = gpu->step_mhz > 0 ? gpu->step_mhz : 15.0;
    int nclk = (int)floor((fmax - fmin) / fstep + 1e-9) + 1;
    if (nclk < 1) nclk = 1;
    if (nclk > 4096)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0, "plan: too many clock steps (%d)",
                            nclk);
    cx_graph *g = NULL;
    cx_cost *c = malloc(sizeof *c);
    pclasses cs = {0};
    double *rt = NULL, *rc = NULL, *rf = NULL, *ht = NULL, *hc = NULL, *hf = NULL, *rp = NULL;
    int32_t *pred = NULL, *cls = NULL, *hoff = NULL;
    culonx_clock_row *rows = NULL;
    int nrows = 0;
    cx_plan_frontier fr = {0};
    if (!c) goto oom;
    culonx_run r = *run;
    r.exec.clock_mhz = fmax;
    st = cx_core_graph_build(&r, fmax, CX_DETAIL_STAGE, &g, err);
    if (st == CULONX_OK) st = cx_core_graph_eval(g, err);
    if (st != CULONX_OK) goto done;
    culonx_result r0;
    cx_core_graph_result(g, &r0);
    const double T0 = g->makespan_s, E0 = r0.energy.total_j;
    const cx_cost *gc = g->cost;
    const double pb = cx_core_blocked_power_w(gc);
    const double R = (double)cx_core_layout_stage_ranks(&gc->layout);
    const double pue = gc->sys.pue > 0 ? gc->sys.pue : 1.0;
    const double nodes = ceil((double)run->exec.gpus /
                              (double)(gc->sys.gpus_per_node > 0 ? gc->sys.gpus_per_node : 1));
    const double K = pue * (R * g->p * pb + gc->sys.node_overhead_w * nodes);
    /* classes of the nodes */
    const int64_t n = g->n;
    pred = malloc(sizeof(int32_t) * (size_t)(n * CX_PLAN_NPRED + 1));
    cls = malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (!pred || !cls) goto oom;
    int dp_pieces_max = 1;
    for (int64_t i = 0; i < n; i++) {
        const cx_node *nd = &g->node[i];
        memcpy(&pred[i * CX_PLAN_NPRED], nd->pred, sizeof nd->pred);
        int ph = nd->stream == CX_STREAM_COMPUTE ? cx_core_node_phase(nd->kind) : -1;
        int k;
        if (ph < 0)
            k = class_of(&cs, -1, 0, 1, 0, nd->dur_s);
        else if (ph == 5)
            k = class_of(&cs, 5, 0, 1, nd->stage, 0);
        else {
            /* pieces: the DP buckets of the stage's last item (walk.c) */
            const cx_chunk_cost *cc = cx_core_cost_chunk(gc, nd->vstage);
            double whole = 0, tmp;
            pclass probe = {ph, gc->vs_class[nd->vstage], 1, 0, 0, 0};
            (void)class_point(&probe, gc, pb, &whole, &tmp);
            (void)cc;
            int pieces = whole > 0 && nd->dur_s > 0 ? (int)lround(whole / nd->dur_s) : 1;
            if (pieces < 1) pieces = 1;
            if (pieces > dp_pieces_max) dp_pieces_max = pieces;
            k = class_of(&cs, ph, gc->vs_class[nd->vstage], pieces, 0, 0);
        }
        if (k < 0) goto oom;
        cls[i] = k;
    }
    /* every class at every clock (fastest first), one cost pass per clock;
     * the uniform-clock results come with it */
    rt = malloc(sizeof(double) * (size_t)cs.n * nclk);
    rc = malloc(sizeof(double) * (size_t)cs.n * nclk);
    rf = malloc(sizeof(double) * (size_t)nclk);
    rp = malloc(sizeof(double) * (size_t)cs.n * nclk);
    rows = calloc((size_t)nclk, sizeof *rows);
    if (!rt || !rc || !rf || !rp || !rows) goto oom;
    for (int q = 0; q < nclk; q++) {
        double f = fmax - fstep * q;
        if (q == nclk - 1 && nclk > 1) f = fmax - fstep * q; /* the step grid from max */
        rf[q] = f;
        culonx_run rq = *run;
        rq.exec.clock_mhz = f;
        st = cx_core_closed_eval(&rq, f, c, &rows[q].result, err);
        if (st != CULONX_OK) goto done;
        rows[q].clock_mhz = f;
        nrows++;
        for (int k = 0; k < cs.n; k++)
            rp[(size_t)k * nclk + q] =
                class_point(&cs.c[k], c, pb, &rt[(size_t)k * nclk + q], &rc[(size_t)k * nclk + q]);
    }
    hoff = malloc(sizeof(int32_t) * (size_t)(cs.n + 1));
    ht = malloc(sizeof(double) * (size_t)cs.n * nclk);
    hc = malloc(sizeof(double) * (size_t)cs.n * nclk);
    hf = malloc(sizeof(double) * (size_t)cs.n * nclk);
    if (!hoff || !ht || !hc || !hf) goto oom;
    int32_t at = 0;
    for (int k = 0; k < cs.n; k++) {
        hoff[k] = at;
        if (cs.c[k].phase < 0) {
            ht[at] = cs.c[k].fixed_s, hc[at] = 0, hf[at] = fmax;
            at++;
            continue;
        }
        at +=
            hull(&rt[(size_t)k * nclk], &rc[(size_t)k * nclk], rf, nclk, &ht[at], &hc[at], &hf[at]);
    }
    hoff[cs.n] = at;
    cx_plan_dag dag = {n, pred, cls, cs.n, hoff, ht, hc};
    /* every pass at max clock (raw point q = 0: the hull may prefer a
     * slower clock of the same time) */
    double C0 = 0;
    for (int64_t i = 0; i < n; i++)
        C0 += cs.c[cls[i]].phase < 0 ? 0 : rc[(size_t)cls[i] * nclk];
    double target = o.target_time_s;
    /* the slow end: every pass at its least-energy clock (its own energy,
     * TP waits included: c + P_b t) */
    double *slow = malloc(sizeof(double) * (size_t)(cs.n + 1));
    double *sdur = malloc(sizeof(double) * (size_t)(n + 1));
    if (!slow || !sdur) {
        free(slow), free(sdur);
        goto oom;
    }
    for (int k = 0; k < cs.n; k++) {
        int bq = 0;
        for (int q = 1; q < nclk; q++)
            if (rc[(size_t)k * nclk + q] + pb * rt[(size_t)k * nclk + q] <
                rc[(size_t)k * nclk + bq] + pb * rt[(size_t)k * nclk + bq])
                bq = q;
        slow[k] = cs.c[k].phase < 0 ? cs.c[k].fixed_s : rt[(size_t)k * nclk + bq];
    }
    for (int64_t i = 0; i < n; i++)
        sdur[i] = slow[cls[i]];
    const double tslow = o.exact && o.points <= 0 ? cx_core_plan_makespan(&dag, sdur) : 0;
    free(sdur);
    if (o.exact && o.points <= 0)
        st = cx_core_plan_frontier(&dag, target, &fr, err);
    else
        st = cx_core_plan_fast(&dag, rt, nclk, o.points > 0 ? o.points : 25, slow, target,
                               o.exact && o.points > 0, o.exact_steps, &fr, err);
    free(slow);
    if (st != CULONX_OK) goto done;
    /* frontier, fastest first, Pareto (energy strictly falling) */
    res->frontier = calloc((size_t)fr.nbrk, sizeof *res->frontier);
    if (!res->frontier) goto oom;
    res->min_time_s = T0;
    res->max_time_s = o.exact && o.points <= 0 ? tslow : fr.brk[0].time_s;
    res->max_clock_energy_j = E0;
    for (int b = fr.nbrk - 1; b >= 0; b--) {
        double T = fr.brk[b].time_s, E = E0 + pue * R * (fr.brk[b].cost - C0) + K * (T - T0);
        if (T > res->max_time_s * (1 + 1e-12)) break;
        if (res->npoints > 0) {
            culonx_plan_point *last = &res->frontier[res->npoints - 1];
            if (T <= last->iteration_time_s || E >= last->energy_j) continue;
        }
        culonx_plan_point *pt = &res->frontier[res->npoints++];
        pt->iteration_time_s = T;
        pt->energy_j = E;
        pt->saving_vs_max_j = E0 + K * (T - T0) - E;
        for (int q = 0; q < nrows; q++) {
            const culonx_result *u = &rows[q].result;
            if (u->iteration_time_s <= T * (1 + 1e-9) &&
                (pt->uniform_clock_mhz == 0 || u->energy.total_j < pt->uniform_energy_j))
                pt->uniform_energy_j = u->energy.total_j, pt->uniform_clock_mhz = rows[q].clock_mhz;
        }
    }
    res->intrinsic_bloat_j = E0 - res->frontier[0].energy_j;
    res->nodes = n;
    res->cuts = fr.cuts;
    res->uncertified_points = fr.uncertified;
    res->hull_clocks = nclk;
    /* the chosen plan: clocks per stage and phase */
    res->plan_time_s = fr.snap_time_s;
    double Cs = 0;
    res->clocks = calloc((size_t)g->p * NPHASE, sizeof *res->clocks);
    if (!res->clocks) goto oom;
    for (int s = 0; s < g->p; s++)
        for (int ph = 0; ph < NPHASE; ph++) {
            culonx_plan_clock *pc = &res->clocks[s * NPHASE + ph];
            pc->stage = s;
            snprintf(pc->phase, sizeof pc->phase, "%s", phase_name[ph]);
        }
    if (pn) {
        pn->n = n;
        pn->dur_s = malloc(sizeof(double) * (size_t)(n + 1));
        pn->clock_mhz = calloc((size_t)(n + 1), sizeof(double));
        pn->energy_j = malloc(sizeof(double) * (size_t)(n + 1));
        if (!pn->dur_s || !pn->clock_mhz || !pn->energy_j) goto oom;
    }
    for (int64_t i = 0; i < n; i++) {
        int k = cls[i];
        double d = fr.dur_s[i];
        double ci = cx_core_plan_cost(&dag, k, d);
        Cs += ci;
        int ph = cs.c[k].phase;
        if (pn) {
            /* per GPU: E_i + P_b x TP wait = c_i + P_b x t_i (see the top) */
            pn->dur_s[i] = d;
            pn->energy_j[i] = ph < 0 ? g->node[i].energy_j : ci + pb * d;
        }
        if (ph < 0) continue;
        culonx_plan_clock *pc = &res->clocks[g->node[i].stage * NPHASE + ph];
        int32_t a = hoff[k], b = hoff[k + 1] - 1, j = a;
        while (j < b && ht[j + 1] <= d)
            j++;
        double f1 = hf[j], f2 = f1, w = 1; /* share of the work at f1 */
        if (j < b && d > ht[j]) {
            w = (ht[j + 1] - d) / (ht[j + 1] - ht[j]);
            f2 = hf[j + 1];
        }
        double tf1 = w * ht[j], tf2 = d - tf1;
        pc->mean_clock_mhz += tf1 * f1 + tf2 * f2;
        if (pn) pn->clock_mhz[i] = d > 0 ? (tf1 * f1 + tf2 * f2) / d : f1;
        pc->time_s += d;
        double lo = w > 0 ? f1 : f2, hi = w < 1 ? f2 : f1;
        if (lo > hi) {
            double x = lo;
            lo = hi, hi = x;
        }
        if (pc->passes == 0 || lo < pc->min_clock_mhz) pc->min_clock_mhz = lo;
        if (pc->passes == 0 || hi > pc->max_clock_mhz) pc->max_clock_mhz = hi;
        pc->passes++;
    }
    int nc = 0;
    for (int q = 0; q < g->p * NPHASE; q++) {
        culonx_plan_clock *pc = &res->clocks[q];
        if (!pc->passes) continue;
        if (pc->time_s > 0)
            pc->mean_clock_mhz /= pc->time_s;
        else /* passes of no duration (a recompute with nothing to redo) */
            pc->mean_clock_mhz = pc->max_clock_mhz;
        res->clocks[nc++] = *pc;
    }
    res->nclocks = nc;
    res->plan_energy_j = E0 + pue * R * (Cs - C0) + K * (fr.snap_time_s - T0);
    if (o.bound) {
        /* the certificate: no plan at this time costs less (LP duality) */
        double lb = 0;
        st = cx_core_plan_bound_work(&dag, fr.dur_s, CX_BOUND_WORK * o.bound, &lb,
                                     &res->plan_certified, err);
        if (st != CULONX_OK) goto done;
        res->plan_bound_j = E0 + pue * R * (lb - C0) + K * (fr.snap_time_s - T0);
        if (res->plan_bound_j > res->plan_energy_j) res->plan_bound_j = res->plan_energy_j;
    }
    if (o.power_limit_w > 0) {
        /* each class at the highest clock whose power fits (q from max) */
        int *qk = malloc(sizeof(int) * (size_t)(cs.n + 1));
        double *ld = malloc(sizeof(double) * (size_t)(n + 1));
        if (!qk || !ld) {
            free(qk), free(ld);
            goto oom;
        }
        res->power_limit_w = o.power_limit_w;
        res->limit_min_clock_mhz = fmax;
        res->limit_max_clock_mhz = 0;
        for (int k = 0; k < cs.n; k++) {
            int q = 0;
            while (q < nclk - 1 && rp[(size_t)k * nclk + q] > o.power_limit_w)
                q++;
            qk[k] = q;
            if (cs.c[k].phase < 0) continue;
            if (rp[(size_t)k * nclk + q] > o.power_limit_w) res->limit_unmet++;
            if (rf[q] < res->limit_min_clock_mhz) res->limit_min_clock_mhz = rf[q];
            if (rf[q] > res->limit_max_clock_mhz) res->limit_max_clock_mhz = rf[q];
        }
        double Cl = 0;
        for (int64_t i = 0; i < n; i++) {
            size_t ix = (size_t)cls[i] * nclk + qk[cls[i]];
            ld[i] = rt[ix];
            Cl += cs.c[cls[i]].phase < 0 ? 0 : rc[ix];
        }
        double Tl = cx_core_plan_makespan(&dag, ld);
        res->limit_time_s = Tl;
        res->limit_energy_j = E0 + pue * R * (Cl - C0) + K * (Tl - T0);
        free(qk), free(ld);
    }
    res->tokens_per_iteration = (double)run->exec.global_batch * (double)run->model.seq;
    res->iterations = r0.iterations;
    res->carbon_g_per_kwh = o.carbon_g_per_kwh > 0 ? o.carbon_g_per_kwh : 0;
    if (o.straggler > 1) {
        double Ts = o.straggler * T0;
        res->straggler_time_s = Ts;
        double dp = (double)run->exec.dp;
        if (dp < 1) dp = 1;
        res->straggler_saving_j = (dp - 1) / dp * pue * R * (C0 - cost_at(&fr, Ts));
    }
    goto done;
oom:
    st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory planning clocks");
done:
    if (st != CULONX_OK) culonx_plan_result_free(res), cx_core_plan_nodes_free(pn);
    cx_core_plan_frontier_free(&fr);
    cx_core_graph_free(g);
    free(c), free(cs.c), free(rt), free(rc), free(rf), free(rp), free(ht), free(hc), free(hf);
    free(pred), free(cls), free(hoff), free(rows);
    return st;
}
