/*
 * serve_plan.c — DynamoLLM's pool plan for one request class, solved
 * exactly (culonx_serve_plan_solve). Formulas: core/README.md, "Serving".
 *
 * Given N GPUs, a load of λ output tokens/s and the run's <serving> class,
 * choose for each TP degree t (the divisors of gpus-per-node that split the
 * model's heads, kv-heads and ffn) a number of instances n_t of t x pp GPUs
 * and one clock c_t, with Σ n_t t pp ≤ N, every used (t, c_t) meeting the
 * SLOs and fitting in memory, minimising the power of the N GPUs:
 *   P = U (N - Σ n_t t pp) + Σ_t [n_t I_t + m_t x_t],  Σ x_t = λ,
 *   0 ≤ x_t ≤ n_t R_t
 * where R_t = tokens/s of one instance at c_t, B_t its busy power
 * (power_w x GPUs), I_t its idle power at c_t, m_t = (B_t - I_t)/R_t the
 * energy per token above idle, U the idle power of an unused GPU at the
 * lowest clock, x_t the load given to pool t. An instance serving x < R
 * tokens/s is busy a fraction x/R of the time (P = I + (B - I) x/R).
 * For fixed counts and clocks the split is a fractional knapsack, solved
 * exactly by filling pools in increasing m_t (ties by TP index); counts
 * and clocks are enumerated completely (n_t = 0 .. N/(t pp), c_t over the
 * clock list), so the plan is the exact optimum over that grid; options
 * (t, c) that are dominated (another clock of the same t with R ≥, m ≤,
 * I ≤, one strictly) are dropped first, which cannot change the optimum
 * (a larger capacity at lower costs never raises the knapsack's value).
 * Ties keep the first in enumeration order. tests/test_serve.c checks the
 * plan against a brute force that tries every full/partial/empty pattern.
 *
 * Baseline: floor(N / (t_max pp)) instances of the largest TP degree at the
 * highest clock, the load spread over them, the rest idle.
 */
#include "core/base/base.h"
#include "core/eval/serve.h"
#include "core/layout/rules.h"
#include "hw/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double clock_mhz, R, B, I, m;
    culonx_serve_row row;
} option;

typedef struct {
    int ntp;
    int64_t g[CULONX_SERVE_MAX_POOLS]; /* GPUs per instance */
    option *opt[CULONX_SERVE_MAX_POOLS];
    int nopt[CULONX_SERVE_MAX_POOLS];
    int64_t N;
    double load, U;
    /* current choice */
    int64_t n[CULONX_SERVE_MAX_POOLS];
    int c[CULONX_SERVE_MAX_POOLS];
    /* e_rest[i]: least (B - U g)/R over the options of degrees i.. */
    double e_rest[CULONX_SERVE_MAX_POOLS + 1];
    double r_rest[CULONX_SERVE_MAX_POOLS + 1]; /* most R/g over degrees i.. */
    int prune;
    /* best */
    double best;
    int64_t bn[CULONX_SERVE_MAX_POOLS];
    int bc[CULONX_SERVE_MAX_POOLS];
    uint64_t evaluated;
} search;

/* Power of the current choice (fractional knapsack), or HUGE_VAL. */
static double leaf(search *S, double x_out[])
{
    int idx[CULONX_SERVE_MAX_POOLS], k = 0;
    double fixed = 0, cap = 0;
    int64_t used = 0;
    for (int i = 0; i < S->ntp; i++) {
        x_out[i] = 0;
        if (S->n[i] == 0) continue;
        const option *o = &S->opt[i][S->c[i]];
        fixed += (double)S->n[i] * o->I;
        cap += (double)S->n[i] * o->R;
        used += S->n[i] * S->g[i];
        /* insertion by m, ties by TP index */
        int j = k++;
        while (j > 0 && S->opt[idx[j - 1]][S->c[idx[j - 1]]].m > o->m) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    S->evaluated++;
    if (cap < S->load * (1 - 1e-12)) return HUGE_VAL;
    double left = S->load, p = fixed + S->U * (double)(S->N - used);
    for (int a = 0; a < k && left > 0; a++) {
        int i = idx[a];
        const option *o = &S->opt[i][S->c[i]];
        double x = (double)S->n[i] * o->R;
        if (x > left) x = left;
        x_out[i] = x;
        p += o->m * x;
        left -= x;
    }
    return p;
}

/* Lower bound of the power of any completion of the pools decided so far
 * (0 .. i-1): their idle parts, the load filled in increasing m over their
 * capacities, and whatever remains at e_rest[i], the least energy per token
 * above an unused GPU of any option of the undecided degrees (an instance
 * serving x <= R tokens/s costs I - U g + m x >= x (B - U g)/R), and
 * HUGE_VAL when the decided pools and the most tokens/s per GPU of the
 * undecided degrees on the GPUs left cannot carry the load. */
static double bound(const search *S, int i, int64_t gpus_left)
{
    int idx[CULONX_SERVE_MAX_POOLS] = {0}, k = 0;
    double p = S->U * (double)S->N;
    for (int a = 0; a < i; a++) {
        if (S->n[a] == 0) continue;
        const option *o = &S->opt[a][S->c[a]];
        p += (double)S->n[a] * (o->I - S->U * (double)S->g[a]);
        int j = k++;
        while (j > 0 && S->opt[idx[j - 1]][S->c[idx[j - 1]]].m > o->m) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = a;
    }
    /* fractional fill: the decided pools at m, the undecided at e_rest up to
     * r_rest x the GPUs left, cheapest first */
    double left = S->load, rest = S->e_rest[i];
    double rest_cap = rest == HUGE_VAL ? 0.0 : S->r_rest[i] * (double)gpus_left;
    int rest_used = 0;
    for (int a = 0; a <= k && left > 0; a++) {
        const option *o = a < k ? &S->opt[idx[a]][S->c[idx[a]]] : NULL;
        if (!rest_used && rest_cap > 0 && (!o || rest < o->m)) {
            double x = rest_cap < left ? rest_cap : left;
            p += rest * x;
            left -= x;
            rest_used = 1;
        }
        if (!o || left <= 0) continue;
        double x = (double)S->n[idx[a]] * o->R;
        if (x > left) x = left;
        p += o->m * x;
        left -= x;
    }
    if (left > S->load * 1e-12) return HUGE_VAL;
    return p;
}

static void enumerate(search *S, int i, int64_t gpus_left)
{
    if (S->prune && bound(S, i, gpus_left) >= S->best) return;
    if (i == S->ntp) {
        double x[CULONX_SERVE_MAX_POOLS];
        double p = leaf(S, x);
        if (p < S->best) {
            S->best = p;
            memcpy(S->bn, S->n, sizeof S->n);
            memcpy(S->bc, S->c, sizeof S->c);
        }
        return;
    }
    S->n[i] = 0;
    S->c[i] = 0;
    enumerate(S, i + 1, gpus_left);
    if (S->nopt[i] == 0) return;
    for (int64_t n = 1; n * S->g[i] <= gpus_left; n++)
        for (int c = 0; c < S->nopt[i]; c++) {
            S->n[i] = n;
            S->c[i] = c;
            enumerate(S, i + 1, gpus_left - n * S->g[i]);
        }
    S->n[i] = 0;
    S->c[i] = 0;
}

static int dominated(const option *a, const option *b)
{
    /* b dominates a */
    int ge = b->R >= a->R && b->m <= a->m && b->I <= a->I;
    int strict = b->R > a->R || b->m < a->m || b->I < a->I;
    return ge && strict;
}

culonx_status culonx_serve_plan_solve(const culonx_run *run, int64_t gpus, double min_mhz,
                                      double max_mhz, double step_mhz, culonx_serve_plan *plan,
                                      culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || !plan) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_serve_plan: NULL");
    memset(plan, 0, sizeof *plan);
    if (!run->has_serving)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "<run>: no <serving> element (serve needs one)");
    const culonx_serving *s = &run->serving;
    if (gpus < 1 || gpus > 100000)
        return cx_core_fail(err, CULONX_EUSAGE, "--gpus", 0,
                            "--gpus must be between 1 and 100000, not %lld", (long long)gpus);
    if (!(s->load_tokens_per_s > 0))
        return cx_core_fail(err, CULONX_EINPUT, run->serving_at.file, run->serving_at.line,
                            "<serving>: --plan needs load-tokens-per-s > 0");
    double *clk = NULL;
    int nclk = 0;
    culonx_status st =
        cx_core_serve_clock_list(&run->system.gpu, min_mhz, max_mhz, step_mhz, &clk, &nclk, err);
    if (st != CULONX_OK) return st;
    search *S = calloc(1, sizeof *S);
    if (!S) {
        free(clk);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    S->N = gpus;
    S->load = s->load_tokens_per_s;
    S->best = HUGE_VAL;
    const culonx_gpu *g = &run->system.gpu;
    int64_t gpn = run->system.gpus_per_node;
    culonx_gpu gd = *g;
    cx_hw_power_default(&gd);
    S->U = cx_hw_power_idle_w(&gd.power, &gd, clk[0]);
    S->prune = 1;
    for (int64_t t = 1; t <= gpn && S->ntp < CULONX_SERVE_MAX_POOLS && st == CULONX_OK; t++) {
        if (gpn % t || cx_core_rule_tp(&run->model, t) != CULONX_REJECT_NONE) continue;
        if (t * s->pp > gpus) continue;
        int k = S->ntp++;
        plan->tp[k] = t;
        S->g[k] = t * s->pp;
        S->opt[k] = calloc((size_t)nclk, sizeof(option));
        if (!S->opt[k]) {
            st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
            break;
        }
        for (int c = 0; c < nclk && st == CULONX_OK; c++) {
            option o;
            st = culonx_serve_eval(run, t, clk[c], &o.row, err);
            if (st != CULONX_OK || !o.row.slo_ok || !(o.row.tokens_per_s > 0)) continue;
            o.clock_mhz = clk[c];
            o.R = o.row.tokens_per_s;
            o.B = o.row.power_w * (double)o.row.gpus;
            o.I = o.row.idle_power_w * (double)o.row.gpus;
            o.m = (o.B - o.I) / o.R;
            S->opt[k][S->nopt[k]++] = o;
        }
        /* drop dominated clocks (exact, see the file comment) */
        int w = 0;
        for (int a = 0; a < S->nopt[k]; a++) {
            int dom = 0;
            for (int b = 0; b < S->nopt[k] && !dom; b++)
                if (b != a) dom = dominated(&S->opt[k][a], &S->opt[k][b]);
            if (!dom) S->opt[k][w++] = S->opt[k][a];
        }
        S->nopt[k] = w;
    }
    plan->ntp = S->ntp;
    plan->nclocks = nclk;
    plan->gpus = gpus;
    plan->load_tokens_per_s = S->load;
    /* options in increasing energy per token (good plans first, for the
     * bound); e_rest from the last degree back */
    S->e_rest[S->ntp] = HUGE_VAL;
    S->r_rest[S->ntp] = 0.0;
    for (int k = S->ntp - 1; k >= 0; k--) {
        option *o = S->opt[k];
        for (int a = 1; a < S->nopt[k]; a++) {
            option x = o[a];
            double ex = (x.B - S->U * (double)S->g[k]) / x.R;
            int b = a;
            while (b > 0 && (o[b - 1].B - S->U * (double)S->g[k]) / o[b - 1].R > ex) {
                o[b] = o[b - 1];
                b--;
            }
            o[b] = x;
        }
        double e = S->e_rest[k + 1];
        if (S->nopt[k] > 0) {
            double e0 = (o[0].B - S->U * (double)S->g[k]) / o[0].R;
            if (e0 < e) e = e0;
        }
        S->e_rest[k] = e;
        double r = S->r_rest[k + 1];
        for (int a = 0; a < S->nopt[k]; a++)
            if (o[a].R / (double)S->g[k] > r) r = o[a].R / (double)S->g[k];
        S->r_rest[k] = r;
    }
    if (st == CULONX_OK) enumerate(S, 0, gpus);
    plan->evaluated = S->evaluated;
    if (st == CULONX_OK && S->best < HUGE_VAL) {
        plan->feasible = 1;
        plan->power_w = S->best;
        plan->energy_j_per_token = S->best / S->load;
        memcpy(S->n, S->bn, sizeof S->n);
        memcpy(S->c, S->bc, sizeof S->c);
        double x[CULONX_SERVE_MAX_POOLS];
        leaf(S, x);
        for (int i = 0; i < S->ntp; i++) {
            if (S->n[i] == 0) continue;
            const option *o = &S->opt[i][S->c[i]];
            culonx_serve_pool *p = &plan->pool[plan->npools++];
            p->tp = plan->tp[i];
            p->instances = S->n[i];
            p->clock_mhz = o->clock_mhz;
            p->load_tokens_per_s = x[i];
            p->power_w = (double)S->n[i] * o->I + o->m * x[i];
            p->row = o->row;
        }
    }
    /* baseline: the largest TP degree at the highest clock */
    if (st == CULONX_OK && S->ntp > 0) {
        int k = S->ntp - 1;
        culonx_serve_row r;
        plan->baseline_tp = plan->tp[k];
        plan->baseline_clock_mhz = clk[nclk - 1];
        st = culonx_serve_eval(run, plan->baseline_tp, clk[nclk - 1], &r, err);
        if (st == CULONX_OK) {
            int64_t n = gpus / S->g[k];
            double R = r.tokens_per_s, B = r.power_w * (double)r.gpus;
            double I = r.idle_power_w * (double)r.gpus;
            plan->baseline_instances = n;
            plan->baseline_feasible = n > 0 && r.slo_ok && (double)n * R >= S->load * (1 - 1e-12);
            plan->baseline_power_w = (double)n * I + (R > 0 ? (B - I) / R * S->load : 0) +
                                     S->U * (double)(gpus - n * S->g[k]);
            plan->baseline_energy_j_per_token = plan->baseline_power_w / S->load;
            if (plan->feasible && plan->baseline_feasible)
                plan->saving = 1.0 - plan->power_w / plan->baseline_power_w;
        }
    }
    for (int i = 0; i < S->ntp; i++)
        free(S->opt[i]);
    free(S);
    free(clk);
    return st;
}
