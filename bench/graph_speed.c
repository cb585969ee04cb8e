/*
 * graph_speed.c — speed and size of the graph engine: the stage-level and
 * op-level DAGs of configs/megatron-1t.xml (and of any run given), built and
 * evaluated repeatedly; prints nodes, edges, build and evaluation time,
 * nodes/s, and bytes per node (arena bytes / nodes; evaluation adds a CSR
 * of successors, 4 bytes per edge plus 12 per node, freed after).
 * usage: bench_graph_speed [RUN.xml] [repeats]   (from the repository root)
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "clock.h"
#include "core/eval/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int main(int argc, char **argv)
{
    culonx_keep_freed_memory(); /* as the culonx command does */
    const char *path = argc > 1 ? argv[1] : "configs/megatron-1t.xml";
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    culonx_run run;
    culonx_error err;
    if (culonx_run_load(path, NULL, 0, NULL, &run, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    for (int level = 0; level <= 1; level++) {
        int r = level ? (reps / 10 > 0 ? reps / 10 : 1) : reps;
        double tb = 0, te = 0, best = 1e30;
        int64_t n = 0, edges = 0;
        size_t bytes = 0;
        double T = 0;
        for (int i = 0; i < r; i++) {
            cx_graph *g = NULL;
            double t0 = bench_now_s();
            if (cx_core_graph_build(&run, 0, (cx_detail)level, &g, &err) != CULONX_OK) {
                fprintf(stderr, "build: %s\n", err.msg);
                return 1;
            }
            double t1 = bench_now_s();
            if (cx_core_graph_eval(g, &err) != CULONX_OK) {
                fprintf(stderr, "eval: %s\n", err.msg);
                return 1;
            }
            double t2 = bench_now_s();
            tb += t1 - t0, te += t2 - t1;
            if (t2 - t0 < best) best = t2 - t0;
            n = g->n, edges = g->edges, T = g->makespan_s;
            bytes = cx_core_arena_reserved_bytes(&g->arena);
            cx_core_graph_free(g);
        }
        printf("%s, %s level: %lld nodes, %lld edges, iteration %.3f s\n", path,
               level ? "op" : "stage", (long long)n, (long long)edges, T);
        printf("  build %.2f ms + evaluate %.2f ms (mean of %d), best total %.2f ms\n",
               1e3 * tb / r, 1e3 * te / r, r, 1e3 * best);
        printf("  %.2f M nodes/s (build + evaluate), %.1f bytes/node in the arena\n",
               (double)n * r / (tb + te) / 1e6, (double)bytes / (double)n);
    }
    printf("peak RSS %.1f MiB\n", bench_peak_rss_mib());
    return 0;
}
