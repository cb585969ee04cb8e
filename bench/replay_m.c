/*
 * replay_m.c — cost of one closed-form evaluation of a replayed schedule
 * against the microbatch count m (issue 13, item 1: replay cost independent
 * of m). megatron-1t (configs/megatron-1t.xml: 128 layers) on tp 8, dp 1,
 * pp 8 and 32, m from 2p to 128p; every evaluation at another clock (the
 * replay's memo is keyed on the durations, so each is a fresh replay).
 * Prints microseconds per evaluation with the fast path (the compiled
 * program of m' microbatches inserting the missing periods, or the program
 * of m jumping over its own; core/eval/replay_prog.c) and with the full
 * replay (cx_core_replay_set_full), the path the fast one took, and the
 * worst relative time difference of the two.
 *
 * usage: bench_replay_m [SCHEDULE]   (run from the repository root)
 * The machine may be shared: times are CPU time.
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "core/eval/closed.h"
#include "core/eval/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

#define NCLK 40

/* CPU seconds per evaluation of r at NCLK clocks, repeated to >= 0.05 s;
 * times[] the iteration times; *fast / *jumped the path of the last one. */
static double per_eval(const culonx_run *r, cx_cost *cost, cx_replay_ws *ws, double *times,
                       int *fast, int *jumped)
{
    culonx_error err;
    culonx_result res;
    long n = 0;
    double t0 = cpu_s(), t = 0;
    do {
        for (int k = 0; k < NCLK; k++) {
            const double f = r->system.gpu.max_mhz - 15.0 * k;
            if (cx_core_closed_eval_ws(r, f, cost, ws, &res, &err) != CULONX_OK) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return -1;
            }
            times[k] = res.iteration_time_s;
            n++;
        }
        t = cpu_s() - t0;
    } while (t < 0.05);
    *fast = cx_core_replay_ws_fast(ws), *jumped = cx_core_replay_ws_jumped(ws);
    return t / (double)n;
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    culonx_run base;
    culonx_error err;
    if (culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &base, &err)) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    cx_cost *cost = malloc(sizeof *cost);
    /* one workspace per path: a workspace keeps the orders it chose */
    cx_replay_ws *ws = cx_core_replay_ws_new(), *ws_full = cx_core_replay_ws_new();
    if (!cost || !ws || !ws_full) return 3;
    printf("%-12s %4s %6s %12s %12s %6s %10s\n", "schedule", "pp", "m", "fast us/eval",
           "full us/eval", "path", "worst diff");
    static const char *scheds[] = {"interleaved", "zb-h1", "zb-h2", "zb-v", "dualpipev"};
    static const int pps[] = {8, 32, 64}, mult[] = {2, 4, 8, 16, 32, 64, 128};
    for (size_t k = 0; k < sizeof scheds / sizeof *scheds; k++) {
        if (only && strcmp(only, scheds[k])) continue;
        for (size_t i = 0; i < sizeof pps / sizeof *pps; i++)
            for (size_t j = 0; j < sizeof mult / sizeof *mult; j++) {
                culonx_run r = base;
                culonx_execution *e = &r.exec;
                if (culonx_schedule_parse(scheds[k], &e->schedule)) return 2;
                e->tp = 8, e->pp = pps[i], e->dp = 1, e->microbatch = 1;
                e->vp = strcmp(scheds[k], "interleaved") ? 1 : 2;
                e->global_batch = (int64_t)mult[j] * e->pp;
                e->gpus = culonx_execution_gpus(e);
                e->distributed_optimizer = 0, e->dp_overlap = 0;
                if (culonx_run_check(&r, &err) != CULONX_OK) {
                    fprintf(stderr, "bench: %s\n", err.msg);
                    return 1;
                }
                double tf[NCLK], tr[NCLK], worst = 0;
                int fast, jumped, f2, j2;
                cx_core_replay_set_full(0);
                const double a = per_eval(&r, cost, ws, tf, &fast, &jumped);
                cx_core_replay_set_full(1);
                const double b = per_eval(&r, cost, ws_full, tr, &f2, &j2);
                cx_core_replay_set_full(0);
                if (a < 0 || b < 0) return 1;
                for (int c = 0; c < NCLK; c++)
                    worst = fmax(worst, fabs(tf[c] - tr[c]) / tr[c]);
                printf("%-12s %4lld %6lld %12.1f %12.1f %6s %10.3g\n", scheds[k], (long long)e->pp,
                       (long long)e->global_batch, 1e6 * a, 1e6 * b,
                       fast     ? "m'"
                       : jumped ? "jump"
                                : "full",
                       worst);
            }
    }
    cx_core_replay_ws_free(ws);
    cx_core_replay_ws_free(ws_full);
    free(cost);
    return 0;
}
