/*
 * serve_speed.c — speed of the serving model (issue targets: one `serve`
 * row in at most 10 us; `serve --plan` over every TP degree x every clock
 * for 8-64 GPUs in at most 100 ms). Loads configs/llama2-70b-serve-h100.xml
 * (or argv[1]), times culonx_serve_eval over the GPU's clocks, then
 * culonx_serve_plan_solve at every clock of the GPU for 8..64 GPUs and
 * several loads; prints the mean per row and the slowest plan.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench/clock.h"
#include "culonx.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    culonx_keep_freed_memory(); /* as the culonx command does */
    const char *path = argc > 1 ? argv[1] : CX_SOURCE_DIR "/configs/llama2-70b-serve-h100.xml";
    culonx_run *run = malloc(sizeof *run);
    culonx_serve_plan *plan = malloc(sizeof *plan);
    culonx_error err;
    if (!run || !plan || culonx_run_load(path, NULL, 0, NULL, run, &err) != CULONX_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, run ? err.msg : "out of memory");
        return 1;
    }
    const culonx_gpu *g = &run->system.gpu;
    int rows = 0;
    double sink = 0, t0 = bench_now_s();
    for (int rep = 0; rep < 50; rep++)
        for (double f = g->min_mhz; f <= g->max_mhz + 1e-9; f += g->step_mhz) {
            culonx_serve_row r;
            if (culonx_serve_eval(run, run->serving.tp, f, &r, &err) != CULONX_OK) return 1;
            sink += r.tpot_s;
            rows++;
        }
    double per_row = (bench_now_s() - t0) / rows;
    printf("serve row: %.2f us (mean of %d rows)\n", per_row * 1e6, rows);
    static const double loads[] = {500, 2000, 5000, 9000, 20000};
    double worst = 0;
    int wg = 0;
    double wl = 0;
    for (int gpus = 8; gpus <= 64; gpus += 8)
        for (int li = 0; li < 5; li++) {
            run->serving.load_tokens_per_s = loads[li];
            double s = bench_now_s();
            if (culonx_serve_plan_solve(run, gpus, 0, 0, 0, plan, &err) != CULONX_OK) return 1;
            double dt = bench_now_s() - s;
            sink += plan->power_w;
            if (dt > worst) worst = dt, wg = gpus, wl = loads[li];
        }
    printf("serve --plan: slowest %.1f ms (%d GPUs, load %g tokens/s; every clock of the GPU, "
           "8..64 GPUs x 5 loads)\n",
           worst * 1e3, wg, wl);
    free(run);
    free(plan);
    return sink > 0 ? 0 : 1;
}
