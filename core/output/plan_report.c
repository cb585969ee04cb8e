/*
 * plan_report.c — renders a clock plan (culonx_plan, core/eval/plan.c) as
 * text, JSON or CSV. The frontier is printed at up to `npoints` of its
 * breakpoints spread evenly in time (always the fastest and the slowest;
 * JSON: every breakpoint); savings are against every pass at max clock
 * (idling to the same time) and against the best single clock as fast.
 * Pure formatting: every number is computed in core/eval/plan.c.
 */
#include "core/base/base.h"
#include "core/output/report.h"

#include <math.h>
#include <string.h>

/* Breakpoint indices to print: all when npoints <= 0 or >= n. */
static int pick(const culonx_plan_result *r, int npoints, int k, int last)
{
    int n = r->npoints;
    if (npoints <= 0 || npoints >= n) return k;
    if (k == npoints - 1) return n - 1;
    double t0 = r->frontier[0].iteration_time_s, t1 = r->frontier[n - 1].iteration_time_s;
    double want = t0 + (t1 - t0) * k / (npoints - 1);
    int j = last + 1;
    while (j < n - 1 && r->frontier[j].iteration_time_s < want)
        j++;
    return j;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

void culonx_report_plan(FILE *out, const culonx_run *run, const culonx_plan_result *r,
                        const char *format, int npoints)
{
    const int json = !strcmp(format, "json"), csv = !strcmp(format, "csv");
    const int shown = npoints <= 0 || npoints > r->npoints ? r->npoints : npoints;
    if (json) {
        fputs("{\"model\": ", out);
        cx_core_json_str(out, run->model.name);
        fputs(", \"system\": ", out);
        cx_core_json_str(out, run->system.name);
        fputs(", \"min_time_s\": ", out);
        cx_core_json_num(out, r->min_time_s);
        fputs(", \"max_time_s\": ", out);
        cx_core_json_num(out, r->max_time_s);
        fputs(", \"max_clock_energy_j\": ", out);
        cx_core_json_num(out, r->max_clock_energy_j);
        fputs(", \"intrinsic_bloat_j\": ", out);
        cx_core_json_num(out, r->intrinsic_bloat_j);
        fprintf(out, ", \"nodes\": %lld, \"cuts\": %lld, \"clock_steps\": %d", (long long)r->nodes,
                (long long)r->cuts, r->hull_clocks);
        if (r->uncertified_points > 0)
            fprintf(out, ", \"uncertified_points\": %d", r->uncertified_points);
        if (r->straggler_time_s > 0) {
            fputs(", \"straggler\": {\"iteration_time_s\": ", out);
            cx_core_json_num(out, r->straggler_time_s);
            fputs(", \"saving_j\": ", out);
            cx_core_json_num(out, r->straggler_saving_j);
            fputs("}", out);
        }
        if (r->power_limit_w > 0) {
            fputs(", \"power_limit\": {\"limit_w\": ", out);
            cx_core_json_num(out, r->power_limit_w);
            fputs(", \"iteration_time_s\": ", out);
            cx_core_json_num(out, r->limit_time_s);
            fputs(", \"energy_j\": ", out);
            cx_core_json_num(out, r->limit_energy_j);
            fputs(", \"min_clock_mhz\": ", out);
            cx_core_json_num(out, r->limit_min_clock_mhz);
            fputs(", \"max_clock_mhz\": ", out);
            cx_core_json_num(out, r->limit_max_clock_mhz);
            fprintf(out, ", \"passes_over_limit\": %d}", r->limit_unmet);
        }
        fputs(", \"tokens_per_iteration\": ", out);
        cx_core_json_num(out, r->tokens_per_iteration);
        fputs(", \"iterations\": ", out);
        cx_core_json_num(out, r->iterations);
        if (r->carbon_g_per_kwh > 0) {
            fputs(", \"carbon_g_per_kwh\": ", out);
            cx_core_json_num(out, r->carbon_g_per_kwh);
            fputs(", \"plan_train_co2_kg\": ", out);
            cx_core_json_num(out,
                             r->plan_energy_j * r->iterations / 3.6e6 * r->carbon_g_per_kwh / 1e3);
        }
        fputs(",\n \"frontier\": [", out);
        for (int i = 0; i < r->npoints; i++) {
            const culonx_plan_point *p = &r->frontier[i];
            fprintf(out, "%s\n  {\"iteration_time_s\": ", i ? "," : "");
            cx_core_json_num(out, p->iteration_time_s);
            fputs(", \"energy_j\": ", out);
            cx_core_json_num(out, p->energy_j);
            fputs(", \"saving_vs_max_clock_j\": ", out);
            cx_core_json_num(out, p->saving_vs_max_j);
            fputs(", \"best_single_clock_mhz\": ", out);
            cx_core_json_num(out, p->uniform_clock_mhz);
            fputs(", \"best_single_clock_energy_j\": ", out);
            cx_core_json_num(out, p->uniform_energy_j);
            fputs("}", out);
        }
        fputs("],\n \"plan\": {\"iteration_time_s\": ", out);
        cx_core_json_num(out, r->plan_time_s);
        fputs(", \"energy_j\": ", out);
        cx_core_json_num(out, r->plan_energy_j);
        if (r->plan_bound_j > 0) {
            fputs(", \"lower_bound_j\": ", out);
            cx_core_json_num(out, r->plan_bound_j);
            fprintf(out, ", \"bound_kind\": \"%s\"",
                    r->plan_certified == 1   ? "kkt-flow"
                    : r->plan_certified == 2 ? "kkt-flow-overflow"
                    : r->plan_certified == 3 ? "max-flow"
                    : r->plan_certified == 4 ? "widened-kkt-flow"
                                             : "trivial");
        }
        fputs(", \"clocks\": [", out);
        for (int i = 0; i < r->nclocks; i++) {
            const culonx_plan_clock *c = &r->clocks[i];
            fprintf(out, "%s\n  {\"stage\": %d, \"phase\": ", i ? "," : "", c->stage);
            cx_core_json_str(out, c->phase);
            fprintf(out, ", \"passes\": %d, \"mean_clock_mhz\": ", c->passes);
            cx_core_json_num(out, c->mean_clock_mhz);
            fputs(", \"min_clock_mhz\": ", out);
            cx_core_json_num(out, c->min_clock_mhz);
            fputs(", \"max_clock_mhz\": ", out);
            cx_core_json_num(out, c->max_clock_mhz);
            fputs(", \"time_s\": ", out);
            cx_core_json_num(out, c->time_s);
            fputs("}", out);
        }
        fputs("]}}\n", out);
        return;
    }
    if (csv) {
        fputs("section,iteration_time_s,energy_j,saving_vs_max_clock_j,best_single_clock_mhz,"
              "best_single_clock_energy_j,stage,phase,passes,mean_clock_mhz,min_clock_mhz,"
              "max_clock_mhz\n",
              out);
        for (int k = 0, j = -1; k < shown; k++) {
            j = pick(r, npoints, k, j);
            const culonx_plan_point *p = &r->frontier[j];
            fprintf(out, "frontier,%.9g,%.9g,%.9g,%.0f,%.9g,,,,,,\n", p->iteration_time_s,
                    p->energy_j, p->saving_vs_max_j, p->uniform_clock_mhz, p->uniform_energy_j);
        }
        for (int i = 0; i < r->nclocks; i++) {
            const culonx_plan_clock *c = &r->clocks[i];
            fprintf(out, "plan,%.9g,%.9g,,,,%d,%s,%d,%.1f,%.0f,%.0f\n", r->plan_time_s,
                    r->plan_energy_j, c->stage, c->phase, c->passes, c->mean_clock_mhz,
                    c->min_clock_mhz, c->max_clock_mhz);
        }
        return;
    }
    char a[32], b[32], d[32];
    fprintf(out, "Clock plan: %s on %lld x %s (%lld DAG nodes, %d clock steps, %lld cuts)\n\n",
            run->model.name, (long long)run->exec.gpus, run->system.gpu.name, (long long)r->nodes,
            r->hull_clocks, (long long)r->cuts);
    cx_core_fmt_si(a, sizeof a, r->max_clock_energy_j, "J");
    cx_core_fmt_si(b, sizeof b, r->intrinsic_bloat_j, "J");
    cx_core_fmt_time(d, sizeof d, r->min_time_s);
    fprintf(out, "Fastest: %s per iteration; every pass at max clock: %s\n", d, a);
    fprintf(out, "Intrinsic bloat at the fastest time: %s (%.2f%%), removed with no slowdown\n\n",
            b, pct(r->intrinsic_bloat_j, r->max_clock_energy_j));
    if (r->uncertified_points > 0)
        fprintf(out,
                "Note: %d frontier time%s reached the --exact-cuts cap: improved plans, not "
                "certified optima\n\n",
                r->uncertified_points, r->uncertified_points == 1 ? "" : "s");
    fprintf(out, "  %12s %12s %10s %10s %16s\n", "iteration", "energy", "vs max", "slowdown",
            "vs best 1 clock");
    for (int k = 0, j = -1; k < shown; k++) {
        j = pick(r, npoints, k, j);
        const culonx_plan_point *p = &r->frontier[j];
        cx_core_fmt_time(a, sizeof a, p->iteration_time_s);
        cx_core_fmt_si(b, sizeof b, p->energy_j, "J");
        double base = p->energy_j + p->saving_vs_max_j;
        if (p->uniform_clock_mhz > 0)
            snprintf(d, sizeof d, "-%.2f%% (%4.0f)",
                     pct(p->uniform_energy_j - p->energy_j, p->uniform_energy_j),
                     p->uniform_clock_mhz);
        else
            snprintf(d, sizeof d, "-");
        fprintf(out, "  %12s %12s %9.2f%% %9.2f%% %16s\n", a, b, -pct(p->saving_vs_max_j, base),
                pct(p->iteration_time_s - r->min_time_s, r->min_time_s), d);
    }
    if (r->straggler_time_s > 0) {
        cx_core_fmt_time(a, sizeof a, r->straggler_time_s);
        cx_core_fmt_si(b, sizeof b, r->straggler_saving_j, "J");
        fprintf(out, "\nStraggler: iteration at %s; the other replicas' plan saves %s\n", a, b);
    }
    if (r->tokens_per_iteration > 0) {
        fprintf(out, "\nChosen plan: %.4g J per token (all at max clock %.4g J)",
                r->plan_energy_j / r->tokens_per_iteration,
                r->max_clock_energy_j / r->tokens_per_iteration);
        if (r->iterations > 0) {
            double mwh = r->plan_energy_j * r->iterations / 3.6e9;
            fprintf(out, "; token budget: %.4g MWh (all at max clock %.4g MWh)", mwh,
                    r->max_clock_energy_j * r->iterations / 3.6e9);
            if (r->carbon_g_per_kwh > 0)
                fprintf(out, ", %.4g t CO2e at %.0f g/kWh", mwh * r->carbon_g_per_kwh / 1e3,
                        r->carbon_g_per_kwh);
        }
        fputs("\n", out);
    }
    if (r->power_limit_w > 0) {
        cx_core_fmt_time(a, sizeof a, r->limit_time_s);
        cx_core_fmt_si(b, sizeof b, r->limit_energy_j, "J");
        fprintf(out,
                "\nPower limit %.0f W per GPU: passes at %.0f-%.0f MHz, iteration %s (+%.2f%%), "
                "%s (%+.2f%%)%s\n",
                r->power_limit_w, r->limit_min_clock_mhz, r->limit_max_clock_mhz, a,
                pct(r->limit_time_s - r->min_time_s, r->min_time_s), b,
                pct(r->limit_energy_j - r->max_clock_energy_j, r->max_clock_energy_j),
                r->limit_unmet ? "; some passes exceed it even at the lowest clock" : "");
    }
    cx_core_fmt_time(a, sizeof a, r->plan_time_s);
    cx_core_fmt_si(b, sizeof b, r->plan_energy_j, "J");
    fprintf(out, "\nPlan at %s (%s): SM clock per stage and phase, MHz\n", a, b);
    cx_core_fmt_si(b, sizeof b, r->plan_energy_j - r->plan_bound_j, "J");
    if (r->plan_bound_j > 0)
        fprintf(out, "  at most %s (%.3f%%) above the best plan at this time (%s)\n", b,
                pct(r->plan_energy_j - r->plan_bound_j, r->plan_energy_j),
                r->plan_certified == 1   ? "LP dual bound: the KKT flow of its critical subgraph"
                : r->plan_certified == 2 ? "LP dual bound: the KKT flow with overflow"
                : r->plan_certified == 3 ? "LP dual bound: a maximum flow of its critical subgraph"
                : r->plan_certified == 4
                    ? "LP dual bound: the KKT flow, its bounds widened on its minimum cuts"
                    : "trivial bound: every pass at its cheapest clock");
    fprintf(out, "  %5s %-9s %7s %8s %8s %8s\n", "stage", "phase", "passes", "mean", "min", "max");
    for (int i = 0; i < r->nclocks; i++) {
        const culonx_plan_clock *c = &r->clocks[i];
        fprintf(out, "  %5d %-9s %7d %8.0f %8.0f %8.0f\n", c->stage, c->phase, c->passes,
                c->mean_clock_mhz, c->min_clock_mhz, c->max_clock_mhz);
    }
}
