/*
 * compare.c — one run evaluated many ways, for the `schedules` and `energy`
 * commands:
 *  - every registered pipeline schedule side by side (the closed form, which
 *    agrees with the DAG to round-off, see bench/agree.c): iteration time,
 *    bubble, peak activations, fit, p2p volume; the fastest that fits wins;
 *  - every GPU clock of a range: time, energy, power, tokens per joule, with
 *    the minimum-energy and minimum energy-delay-product clocks and the
 *    time-energy Pareto frontier marked. One cost pass per clock; the run is
 *    parsed once.
 */
#include "core/base/base.h"
#include "core/eval/closed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The run with schedule `id`: a schedule that takes vp (interleaved) keeps
 * the run's vp if > 1, else the smallest v >= 2 whose chunks divide the
 * layers per stage; others use vp 1. Validity is the execution check's
 * (culonx_run_check, core/layout/rules.c). */
static int schedule_variant(const culonx_run *run, culonx_schedule id, culonx_run *out)
{
    *out = *run;
    out->exec.schedule = id;
    const cx_sched_desc *d = cx_sched_get(id);
    if (d && cx_sched_takes_vp(d)) {
        if (run->exec.vp > 1) return 1;
        for (int v = 2; v <= 8; v++)
            if (run->model.layers % (run->exec.pp * d->chunks(v)) == 0) {
                out->exec.vp = v;
                return 1;
            }
        return 0;
    }
    out->exec.vp = 1;
    return 1;
}

culonx_status culonx_schedules_compare(const culonx_run *run, culonx_schedule_row *rows, int *nrows,
                                       int *best, culonx_error *err)
{
    cx_core_error_clear(err);
    culonx_status st = culonx_run_check(run, err);
    if (st != CULONX_OK) return st;
    cx_cost *c = malloc(sizeof *c);
    if (!c) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    *nrows = 0;
    *best = -1;
    for (int id = 0; id < culonx_schedule_count(); id++) {
        culonx_schedule_row *r = &rows[(*nrows)++];
        memset(r, 0, sizeof *r);
        r->schedule = (culonx_schedule)id;
        culonx_run v;
        culonx_error e2;
        if (!schedule_variant(run, (culonx_schedule)id, &v)) {
            snprintf(r->why, sizeof r->why,
                     "no interleaving v in 2..8 divides %lld layers / pp %lld",
                     (long long)run->model.layers, (long long)run->exec.pp);
            continue;
        }
        r->vp = v.exec.vp;
        if (culonx_run_check(&v, &e2) != CULONX_OK ||
            cx_core_closed_eval(&v, v.exec.clock_mhz, c, &r->result, &e2) != CULONX_OK) {
            snprintf(r->why, sizeof r->why, "%s", e2.msg);
            continue;
        }
        r->supported = 1;
        int busiest = 0;
        for (int s = 1; s < c->p; s++)
            if (c->sends_f[s] + c->sends_b[s] > c->sends_f[busiest] + c->sends_b[busiest])
                busiest = s;
        r->p2p_bytes = (double)c->m * (c->sends_f[busiest] + c->sends_b[busiest]) * c->p2p_bytes;
        if (r->result.memory.fits &&
            (*best < 0 || r->result.iteration_time_s < rows[*best].result.iteration_time_s))
            *best = *nrows - 1;
    }
    free(c);
    return CULONX_OK;
}

culonx_status culonx_energy_clocks(const culonx_run *run, double min_mhz, double max_mhz,
                                   double step_mhz, culonx_clock_row **out, int *nrows,
                                   culonx_error *err)
{
    cx_core_error_clear(err);
    *out = NULL;
    *nrows = 0;
    culonx_status st = culonx_run_check(run, err);
    if (st != CULONX_OK) return st;
    const culonx_gpu *g = &run->system.gpu;
    if (min_mhz <= 0) min_mhz = g->min_mhz;
    if (max_mhz <= 0) max_mhz = g->max_mhz;
    if (step_mhz <= 0) step_mhz = g->step_mhz > 0 ? g->step_mhz : 15.0;
    if (!(min_mhz <= max_mhz) || min_mhz < g->min_mhz - 1e-9 || max_mhz > g->max_mhz + 1e-9)
        return cx_core_fail(err, CULONX_EINPUT, "--clocks", 0,
                            "clock range %g:%g MHz is outside the GPU's %g..%g MHz", min_mhz,
                            max_mhz, g->min_mhz, g->max_mhz);
    double nd = floor((max_mhz - min_mhz) / step_mhz + 1e-9) + 1;
    if (nd > 100000)
        return cx_core_fail(err, CULONX_EINPUT, "--clocks", 0, "too many clocks (%g)", nd);
    int n = (int)nd;
    culonx_clock_row *rows = calloc((size_t)n, sizeof *rows);
    cx_cost *c = malloc(sizeof *c);
    if (!rows || !c) {
        free(rows), free(c);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    int emin = 0, edp = 0;
    for (int i = 0; i < n; i++) {
        culonx_clock_row *r = &rows[i];
        r->clock_mhz = min_mhz + step_mhz * i;
        st = cx_core_closed_eval(run, r->clock_mhz, c, &r->result, err);
        if (st == CULONX_OK) st = cx_core_result_check(run, &r->result, err);
        if (st != CULONX_OK) {
            free(rows), free(c);
            return st;
        }
        double T = r->result.iteration_time_s, E = r->result.energy.total_j;
        r->tokens_per_j = E > 0 ? (double)run->exec.global_batch * (double)run->model.seq / E : 0;
        r->edp_js = E * T;
        if (E < rows[emin].result.energy.total_j) emin = i;
        if (r->edp_js < rows[edp].edp_js) edp = i;
    }
    rows[emin].min_energy = 1;
    rows[edp].min_edp = 1;
    /* Pareto: no other clock is at least as fast and uses less energy */
    for (int i = 0; i < n; i++) {
        int dominated = 0;
        for (int k = 0; k < n && !dominated; k++) {
            if (k == i) continue;
            double ti = rows[i].result.iteration_time_s, tk = rows[k].result.iteration_time_s;
            double ei = rows[i].result.energy.total_j, ek = rows[k].result.energy.total_j;
            dominated = tk <= ti && ek <= ei && (tk < ti || ek < ei);
        }
        rows[i].pareto = !dominated;
    }
    free(c);
    *out = rows;
    *nrows = n;
    return CULONX_OK;
}
