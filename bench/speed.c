/*
 * speed.c — speed of the closed form.
 *  1. wall time of one `culonx estimate configs/megatron-1t.xml` process
 *     (fork + exec + parse + validate + estimate + print), mean of N runs;
 *  2. closed-form evaluations per second in one process on one core, over
 *     the megatron-1t run with TP/PP/microbatch varied per call (as a sweep
 *     does), reusing one scratch, and through the public culonx_estimate;
 *  3. peak RSS.
 * usage: bench_speed [path/to/culonx] [N]   (run from the repository root)
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"
#include "clock.h"
#include "core/eval/closed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

int main(int argc, char **argv)
{
    culonx_keep_freed_memory(); /* as the culonx command does */
    const char *exe = argc > 1 ? argv[1] : "build/culonx";
    int nproc_runs = argc > 2 ? atoi(argv[2]) : 50;

    double t0 = bench_now_s();
    for (int i = 0; i < nproc_runs; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1);
            execl(exe, exe, "estimate", "configs/megatron-1t.xml", (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "%s estimate failed\n", exe);
            return 1;
        }
    }
    double per_proc = (bench_now_s() - t0) / nproc_runs;
    printf("culonx estimate configs/megatron-1t.xml: %.2f ms per process (mean of %d)\n",
           per_proc * 1e3, nproc_runs);

    culonx_run run;
    culonx_error err;
    if (culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, &run, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    static const int tps[] = {1, 2, 4, 8}, pps[] = {8, 16, 32, 64}, mbs[] = {1, 2};
    cx_cost *c = malloc(sizeof *c);
    culonx_result res;
    double sink = 0;
    long n = 0;
    t0 = bench_now_s();
    double t1;
    do {
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int k = 0; k < 2; k++) {
                    culonx_run r = run;
                    r.exec.tp = tps[a], r.exec.pp = pps[b], r.exec.microbatch = mbs[k];
                    cx_layout lay;
                    cx_core_layout_init(&lay, &r.exec);
                    r.exec.dp = cx_core_layout_derive_dp(&lay, 3072);
                    r.exec.gpus = culonx_execution_gpus(&r.exec);
                    r.exec.global_batch = 3072;
                    if (r.exec.global_batch % (r.exec.microbatch * r.exec.dp)) continue;
                    if (cx_core_closed_eval(&r, 0, c, &res, &err) == CULONX_OK)
                        sink += res.iteration_time_s;
                    n++;
                }
        t1 = bench_now_s();
    } while (t1 - t0 < 2.0);
    printf("closed form (scratch reused): %.0f evaluations/s on one core (%ld evals)\n",
           (double)n / (t1 - t0), n);
    n = 0;
    t0 = bench_now_s();
    do {
        for (int i = 0; i < 256; i++) {
            culonx_run r = run;
            r.exec.microbatch = 1 + (i & 1);
            if (culonx_estimate(&r, &res, &err) == CULONX_OK) sink += res.iteration_time_s;
            n++;
        }
        t1 = bench_now_s();
    } while (t1 - t0 < 1.0);
    printf("culonx_estimate (checks + allocation): %.0f evaluations/s\n", (double)n / (t1 - t0));
    printf("peak RSS %.1f MiB (checksum %.6g)\n", bench_peak_rss_mib(), sink);
    free(c);
    return 0;
}
