/*
 * data_moe.h — the mixture-of-experts measurements of bench/data
 * (moe-public.csv: provenance in bench/data/README.md) as culonx runs, for
 * bench/validate.c (set "MoE", reported, not asserted). Header-only, after
 * data.h (its CSV splitter, columns and row list).
 *
 * DeepSeek-V3 pre-training (the one row): 2.664M H800 GPU-hours for 14.8T
 * tokens on 2048 GPUs gives the measured time per iteration of 15360 x 4096
 * tokens (the row's iter_time_s). The run is configs/deepseek-v3-h100.xml
 * (the report's PP 16, EP 64 over 8 nodes, DP 128 with ZeRO-1, no TP) with
 * the row's settings: FP8, the report's achievable NVLink bandwidth of the
 * H800 (160 GB/s, efficiency 1; the H800's compute and HBM are the
 * H100's), no full recompute (the report recomputes only RMSNorm and the MLA
 * up-projections: "none" here), and the two all-to-all mechanisms the row's
 * notes name: DualPipe's overlap of the all-to-alls with computation
 * (a2a-overlap pipe) and node-limited routing, at most 4 nodes per token
 * (route-nodes 4). The schedule stays the run file's 1F1B (culonx has
 * DualPipeV, not DualPipe). Not modelled: the multi-token-prediction module,
 * the SMs the report reserves for communication, the batch ramp, and the
 * memory savings that make the run fit. Without the two mechanisms the row
 * reads +63.8%, with both -18.8% (bench/data/README.md).
 */
#ifndef CX_BENCH_DATA_MOE_H
#define CX_BENCH_DATA_MOE_H

#include "data.h"

static int bench_load_moe(bench_rows *rs, const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    culonx_run ds;
    culonx_error err;
    if (culonx_run_load(CX_SOURCE_DIR "/configs/deepseek-v3-h100.xml", NULL, 0, NULL, &ds, &err) !=
        CULONX_OK) {
        fclose(fp);
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return -1;
    }
    char line[8192], *f[64];
    int lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        if (++lineno == 1) continue;
        int n = bench_csv_split(line, f, 64);
        if (n < C_NCOLS) continue;
        if (!strstr(f[C_MODEL], "DeepSeek-V3") || atof(f[C_ITER]) <= 0) {
            char why[160];
            snprintf(why, sizeof why, "moe line %d %s: not expressible", lineno, f[C_MODEL]);
            bench_skip(rs, why);
            continue;
        }
        bench_row *r = bench_add(rs);
        r->run = ds;
        culonx_execution *e = &r->run.exec;
        e->global_batch = atol(f[C_GBS]);
        e->dtype = CULONX_DTYPE_FP8;
        e->recompute = CULONX_RECOMPUTE_NONE;
        e->tokens = 0;
        e->a2a_overlap = CULONX_A2A_OVERLAP_PIPE;
        e->route_nodes = 4;
        r->run.system.tier[0].bw_gbps = 160.0;
        r->run.system.tier[0].efficiency = 1.0;
        r->measured_s = atof(f[C_ITER]);
        snprintf(r->set, sizeof r->set, "MoE");
        snprintf(r->label, sizeof r->label, "DeepSeek-V3 %ldGPU p%ld ep%ld d%ld fp8", (long)e->gpus,
                 (long)e->pp, (long)e->ep, (long)e->dp);
    }
    fclose(fp);
    return 0;
}

#endif
