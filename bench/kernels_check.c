/*
 * kernels_check.c — kernel-level validation of the roofline of hw/perf.c on
 * a real H100: every kernel timed in bench/data/h100-kernels.csv and
 * bench/data/h100-expert-gemm.csv (this project's measurements; provenance in
 * bench/data/README.md) priced by cx_hw_work_time with the H100 system as
 * shipped (configs/systems/h100-80g.xml, <perf> and all), at the clock the
 * board power limit leaves each kernel (tdp-w 700 W, the calibrated power
 * model configs/power/h100.xml; hw/power.c cx_hw_power_capped_mhz): the
 * kernels were timed on a power-limited GPU, whose sustained GEMMs ran at
 * 1320-1470 MHz. The "capped" column counts the rows priced below 1980 MHz. Prints per-row error
 * with --rows, and per kind the count, mean error (signed: + is predicted slower), MAPE and worst
 * row.
 *
 * Row classes: GEMMs (bf16; FP8 rows on the FP8 peak) price flops and the
 * bf16 bytes of both operands and the output; grouped expert GEMMs are built
 * by the model's own constructor (models/build.h cx_model_grouped_gemm) from
 * the row's experts, tokens, n and k, so --check guards the model's pricing; fused attention (kind
 * attn-*) uses the attention curves (cx_hw_attn_eff, backward for attn-bwd); memory- bound rows
 * (kind mem) price bytes only. Rows of the eager table shorter than 25 us are left out (bound by
 * PyTorch's CPU issue rate, not the kernel: bench/data/README.md); the expert table is graph-timed,
 * so all its rows count.
 *
 * Not a fit: the iteration-level eff_max of the H100 <perf> (0.70 of the
 * clock-scaled peak, fitted to whole Megatron-Core runs with the board limit
 * in place) is below a lone kernel's (~0.99 at the 1320-1470 MHz it ran),
 * so the model caps GEMMs near 1845 MHz rather than ~1400 MHz and large GEMMs
 * come out ~6-7% slow; what the table shows is where the roofline's shape
 * holds (weight-bandwidth-bound small GEMMs, attention curves) and where it
 * does not.
 *
 * --check: exit 1 when a kind's MAPE exceeds its bound (GEMMs 12%, fused
 * attention 15%, grouped expert GEMMs 20%, everything else 40%; now 5.4-7.4%,
 * 9.6-11.3%, 13.5-13.8% and 19.7-32.6%): a regression guard, not a fit.
 *
 * usage: bench_kernels_check [--rows] [--check] [DATA_DIR]   (exit 77: tables missing)
 */
#include "culonx.h"

#include "hw/hw.h"
#include "hw/power.h"
#include "models/build.h"
#include "csv_table.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_EAGER_US 25.0

typedef struct {
    int nkinds;
    const culonx_system *sys;
    int rows_out, expert;
    char kind[32][96];
    double n[32], sum[32], abs_sum[32], worst[32], capped[32];
} chk;

static int kind_index(chk *C, const char *k)
{
    for (int i = 0; i < C->nkinds; i++)
        if (!strcmp(C->kind[i], k)) return i;
    if (C->nkinds == 32) return 31;
    snprintf(C->kind[C->nkinds], sizeof C->kind[0], "%s", k);
    return C->nkinds++;
}

typedef struct {
    const culonx_system *sys;
    const cx_hw_work *w;
    culonx_dtype dt;
} kpow;

/* board power of the kernel looping at clock f (hw/power.c pass power) */
static double kernel_power(double f, void *ctx)
{
    const kpow *k = ctx;
    double t = cx_hw_work_time(k->sys, &k->sys->perf, k->w, k->dt, f).time_s, p = 0;
    (void)cx_hw_pass_energy_j(&k->sys->gpu, k->dt, f, t, k->w->flops, k->w->bytes, &p);
    return p;
}

static void on_row(char f[][CSVT_WIDTH], int ncol, void *data)
{
    chk *C = data;
    /* h100-kernels: kind,name,m,n,k,batch,dtype,flops,bytes,time_us,...
     * h100-expert-gemm: kind,model,tokens,n,k,experts,flops,bytes,time_us,... */
    const char *kind = f[0];
    double flops = atof(f[C->expert ? 6 : 7]), bytes = atof(f[C->expert ? 7 : 8]);
    double t_us = atof(f[C->expert ? 8 : 9]);
    if (ncol < 10 || t_us <= 0) return;
    if (!C->expert && t_us < MIN_EAGER_US) return;
    cx_hw_work w = {flops, bytes, 1, 1, 0.0};
    culonx_dtype dt = CULONX_DTYPE_BF16;
    if (!strncmp(kind, "attn-", 5))
        w.eff = cx_hw_attn_eff(&C->sys->perf, flops, !strcmp(kind, "attn-bwd"));
    else if (!strcmp(kind, "mem"))
        w.flops = 0, w.tensor = 0;
    else if (!strcmp(kind, "gemm-fp8"))
        dt = CULONX_DTYPE_FP8;
    if (!strncmp(kind, "attn-", 5) && strcmp(f[1], "cudnn")) return; /* TE's kernel only */
    /* grouped GEMMs: priced as the model builds them (models/build.h
     * cx_model_grouped_gemm: the size curve on the whole kernel, all experts'
     * tiles fill the SMs together; the weights of all experts on the memory side) */
    if (C->expert && !strncmp(kind, "grouped-", 8)) {
        cx_model_ops ops = {.nops = 0};
        cx_model_builder bd = {2.0, &ops};
        const cx_model_op *o = cx_model_grouped_gemm(&bd, "expert", atof(f[5]), atof(f[2]),
                                                     atof(f[3]), atof(f[4]), 0.0);
        w.flops = o->fwd_flops, w.bytes = o->fwd_bytes, w.batch = o->batch;
    }
    /* at the clock the board power limit leaves the kernel (the GPU that
     * timed them held 700 W: sustained GEMMs ran at 1320-1470 MHz) */
    kpow kp = {C->sys, &w, dt};
    const culonx_gpu *g = &C->sys->gpu;
    double fclk = cx_hw_power_capped_mhz(g, g->power.present ? g->tdp_w : 0, g->max_mhz,
                                         kernel_power, &kp, NULL);
    double pred_us = cx_hw_work_time(C->sys, &C->sys->perf, &w, dt, fclk).time_s * 1e6;
    double e = pred_us / t_us - 1.0;
    char key[96];
    snprintf(key, sizeof key, "%s%s", C->expert ? "expert " : "", kind);
    int i = kind_index(C, key);
    C->capped[i] += fclk < g->max_mhz;
    C->n[i]++, C->sum[i] += e, C->abs_sum[i] += fabs(e);
    if (fabs(e) > fabs(C->worst[i])) C->worst[i] = e;
    if (C->rows_out)
        printf("%-18s %-26s %10.2f us  predicted %10.2f us at %4.0f MHz %+7.1f%%\n", key, f[1],
               t_us, pred_us, fclk, 100 * e);
}

int main(int argc, char **argv)
{
    const char *dir = CX_BENCH_DATA_DIR;
    static chk C;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rows"))
            C.rows_out = 1;
        else if (!strcmp(argv[i], "--check"))
            check = 1;
        else
            dir = argv[i];
    }
    static culonx_run run;
    culonx_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/llama3-8b-h100.xml", CX_SOURCE_DIR);
    if (culonx_run_load(path, NULL, 0, NULL, &run, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    culonx_system sys = run.system;
    cx_hw_perf_defaults(&sys.perf);
    C.sys = &sys;
    printf("H100 system %s, perf: eff_max %.4f, half %.2f GFLOP, mem_eff %.4f, max clock %.0f "
           "MHz\n",
           sys.name, sys.perf.matmul_eff_max, sys.perf.matmul_half_dim, sys.perf.mem_eff,
           sys.gpu.max_mhz);
    const char *files[2] = {"h100-kernels.csv", "h100-expert-gemm.csv"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        C.expert = k;
        int rc = csvt_load(path, "kernels", on_row, &C);
        if (rc) return rc;
    }
    printf("%-22s %5s %9s %8s %9s %7s\n", "kind", "rows", "mean", "MAPE", "worst", "capped");
    int fail = 0;
    for (int i = 0; i < C.nkinds; i++) {
        double mape = C.abs_sum[i] / C.n[i];
        double bound = !strncmp(C.kind[i], "gemm-", 5)             ? 0.12
                       : !strncmp(C.kind[i], "attn-", 5)           ? 0.15
                       : !strncmp(C.kind[i], "expert grouped", 14) ? 0.20
                                                                   : 0.40;
        int bad = check && mape > bound;
        fail |= bad;
        printf("%-22s %5.0f %+8.1f%% %7.1f%% %+8.1f%% %7.0f%s\n", C.kind[i], C.n[i],
               100 * C.sum[i] / C.n[i], 100 * mape, 100 * C.worst[i], C.capped[i],
               bad ? "  FAIL: above bound" : "");
    }
    return fail;
}
