/*
 * plan_speed.c — speed of `culonx plan` (culonx_plan, core/eval/plan.c): the
 * whole time-energy frontier of configs/megatron-1t.xml (or of any run
 * given) at stage level, fast engine, from a parsed run: one cost pass per
 * clock step, the DAG, the plans at every frontier time. Prints nodes, the
 * frontier and the best and mean wall time over repeats (one thread: the
 * library is single-threaded here). The target: <= 1 s on one core.
 * With a third argument N > 0 it then times the exact frontier at N points
 * (culonx_plan with exact = 1, points = N: the LP optimum at the fast
 * engine's times by the dual cost-scaling solver, core/eval/plan_scale.c,
 * else by cut descent from the fast plans, core/eval/plan_exact.c; a cut
 * cap B selects the plain descent) once and prints the gap of
 * the fast engine at the fastest point (intrinsic bloat); core/README.md
 * "Clock plans" has the measured times (megatron-1t at 2 points: 63 s). A
 * fourth argument B caps the descent at B cuts per point: the exact
 * engine's energies are then upper bounds on the optimum, so the printed
 * exact bloat is a lower bound on the true intrinsic bloat (and its excess
 * over the fast engine's a lower bound on the fast engine's gap there).
 * A fifth argument K > 0 then certifies every point of the fast frontier:
 * the plan at its time with the LP dual bound (options bound = K, the
 * widening rounds' work budget K x 4e8; core/eval/plan_cut.c) and the
 * certified gap, energy over the bound (the fast plan is at most that far
 * above the optimum at that time).
 * usage: bench_plan_speed [RUN.xml] [repeats] [exact points] [cuts per point] [bound budget]
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    culonx_keep_freed_memory(); /* as the culonx command does */
    const char *path = argc > 1 ? argv[1] : "configs/megatron-1t.xml";
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (reps < 1) reps = 1;
    culonx_run run;
    culonx_error err;
    if (culonx_run_load(path, NULL, 0, NULL, &run, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    double best = 1e30, sum = 0;
    culonx_plan_result res = {0};
    for (int i = 0; i < reps; i++) {
        culonx_plan_result_free(&res);
        double t0 = bench_now_s();
        if (culonx_plan(&run, NULL, &res, &err) != CULONX_OK) {
            fprintf(stderr, "plan: %s\n", err.msg);
            return 1;
        }
        double dt = bench_now_s() - t0;
        sum += dt;
        if (dt < best) best = dt;
    }
    printf("%s: %lld DAG nodes, %d clock steps, %d frontier points from %.3f s to %.3f s\n", path,
           (long long)res.nodes, res.hull_clocks, res.npoints, res.min_time_s, res.max_time_s);
    printf("  intrinsic bloat %.4g J of %.4g J (%.3f%%)\n", res.intrinsic_bloat_j,
           res.max_clock_energy_j, 100.0 * res.intrinsic_bloat_j / res.max_clock_energy_j);
    printf("  whole frontier: best %.3f s, mean %.3f s over %d runs; peak RSS %.0f MiB\n", best,
           sum / reps, reps, bench_peak_rss_mib());
    int npts = argc > 3 ? atoi(argv[3]) : 0;
    if (npts > 0) {
        culonx_plan_options o = {.exact = 1, .points = npts};
        o.exact_steps = argc > 4 ? atol(argv[4]) : 0;
        culonx_plan_result ex = {0};
        double t0 = bench_now_s();
        if (culonx_plan(&run, &o, &ex, &err) != CULONX_OK) {
            fprintf(stderr, "plan: %s\n", err.msg);
            return 1;
        }
        double dt = bench_now_s() - t0;
        if (o.exact_steps > 0)
            printf("  at most %ld cuts per point: 'exact' below is an improved plan, an upper "
                   "bound on the optimum's energy\n",
                   o.exact_steps);
        printf("  exact frontier at %d points: %.3f s (%lld cuts); intrinsic bloat exact %.6g J, "
               "fast %.6g J; fastest point %.9g s (fast %.9g s)\n",
               npts, dt, (long long)ex.cuts, ex.intrinsic_bloat_j, res.intrinsic_bloat_j,
               ex.frontier[0].iteration_time_s, res.frontier[0].iteration_time_s);
        for (int i = 0; i < ex.npoints; i++) { /* against the fast frontier, interpolated */
            double T = ex.frontier[i].iteration_time_s, Ef = NAN;
            for (int j = 0; j < res.npoints && isnan(Ef); j++) {
                const culonx_plan_point *a = &res.frontier[j];
                if (fabs(T - a->iteration_time_s) <= 1e-9 * T) Ef = a->energy_j;
                if (j + 1 < res.npoints && T > a->iteration_time_s &&
                    T < res.frontier[j + 1].iteration_time_s) {
                    const culonx_plan_point *b = &res.frontier[j + 1];
                    double u =
                        (T - a->iteration_time_s) / (b->iteration_time_s - a->iteration_time_s);
                    Ef = a->energy_j + u * (b->energy_j - a->energy_j);
                }
            }
            printf("    %.6g s: exact %.6g J, fast %.6g J (%+.3f%%)\n", T, ex.frontier[i].energy_j,
                   Ef, 100 * (Ef - ex.frontier[i].energy_j) / ex.frontier[i].energy_j);
        }
        culonx_plan_result_free(&ex);
    }
    int kb = argc > 5 ? atoi(argv[5]) : 0;
    for (int i = 0; kb > 0 && i < res.npoints; i++) {
        culonx_plan_options o = {.bound = kb, .target_time_s = res.frontier[i].iteration_time_s};
        culonx_plan_result b = {0};
        double t0 = bench_now_s();
        if (culonx_plan(&run, &o, &b, &err) != CULONX_OK) {
            fprintf(stderr, "plan: %s\n", err.msg);
            return 1;
        }
        printf(
            "    %.6g s: fast %.6g J, dual bound %.6g J (kind %d): certified gap %.3f%% (%.2f s)\n",
            b.plan_time_s, b.plan_energy_j, b.plan_bound_j, b.plan_certified,
            100 * (b.plan_energy_j - b.plan_bound_j) / b.plan_energy_j, bench_now_s() - t0);
        culonx_plan_result_free(&b);
    }
    culonx_plan_result_free(&res);
    return 0;
}
