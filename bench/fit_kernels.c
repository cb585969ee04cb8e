/*
 * fit_kernels.c — fits the kernel-level efficiency curves of hw/perf.c to
 * kernels timed on a real GPU (bench/data/h100-kernels.csv, written by
 * bench/gpu/h100_kernels.py on one H100-SXM5-80GB; provenance in
 * bench/data/README.md).
 *
 * Curves (hw/README.md, "Roofline"), each eff = e_max * g / (g + g_half)
 * with g the GFLOP of one kernel (one GEMM of a batch; the whole fused
 * attention kernel, all heads, since its tiles fill the SMs together):
 *   - GEMM: the bf16 rows (forward, data-gradient and weight-gradient
 *     layouts) that ran at least MIN_KERNEL_US; shorter ones are bound by
 *     PyTorch's CPU issue rate (~15 us per call), which the model prices
 *     separately as the per-pass launch floor, not as GEMM efficiency;
 *   - fused attention forward and backward separately (backward recomputes
 *     the scores and is latency-heavier): causal rows of one backend.
 *     BACKEND "cudnn" is Transformer Engine's fused attention on Hopper
 *     (what Megatron-Core runs); "flash" (PyTorch's FlashAttention-2 build)
 *     is printed for comparison.
 * Method: log residuals r = log(pred / measured), every row weighted
 * equally; for a given g_half the best log e_max is the mean of
 * log(measured / (g / (g + g_half))), so the fit is a one-dimensional
 * golden-section search over log g_half in [1e-3, 1e4] GFLOP (deterministic).
 * Also printed: the streaming (copy/add/GELU) and LayerNorm bandwidth as a
 * fraction of the datasheet HBM bandwidth (for hw/README.md, not fitted).
 *
 * usage: bench_fit_kernels [CSV] [--peak-tflops 989] [--hbm-gbps 3350]
 * A missing table prints "SKIP kernels: <path> missing" and exits 77.
 */
#include "csv_table.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_KERNEL_US 25.0
#define MAX_ROWS 4096

typedef struct {
    char kind[64], name[64];
    double flops, bytes, time_us;
} krow;

typedef struct {
    krow *rows;
    int n;
} kload;

static void on_row(char f[][CSVT_WIDTH], int nf, void *data)
{
    kload *L = data;
    if (nf < 10 || L->n >= MAX_ROWS) return;
    krow r;
    memset(&r, 0, sizeof r);
    snprintf(r.kind, sizeof r.kind, "%s", f[0]);
    snprintf(r.name, sizeof r.name, "%s", f[1]);
    r.flops = atof(f[7]), r.bytes = atof(f[8]), r.time_us = atof(f[9]);
    if (r.time_us > 0) L->rows[L->n++] = r;
}

typedef struct {
    double g[MAX_ROWS], eff[MAX_ROWS];
    int n;
} curve_pts;

static double best_log_emax(const curve_pts *c, double gh, double *cost)
{
    double s = 0, ss = 0;
    for (int i = 0; i < c->n; i++)
        s += log(c->eff[i] / (c->g[i] / (c->g[i] + gh)));
    double le = s / c->n;
    for (int i = 0; i < c->n; i++) {
        double r = le + log(c->g[i] / (c->g[i] + gh)) - log(c->eff[i]);
        ss += r * r;
    }
    *cost = ss / c->n;
    return le;
}

/* golden-section search on log g_half; prints and returns e_max, g_half */
static void fit_curve(const char *what, const curve_pts *c)
{
    if (c->n < 3) {
        printf("%-22s too few rows (%d)\n", what, c->n);
        return;
    }
    const double gr = (sqrt(5.0) - 1) / 2;
    double a = log(1e-3), b = log(1e4), cost;
    double x1 = b - gr * (b - a), x2 = a + gr * (b - a), f1, f2;
    best_log_emax(c, exp(x1), &f1);
    best_log_emax(c, exp(x2), &f2);
    for (int it = 0; it < 200 && b - a > 1e-9; it++) {
        if (f1 < f2) {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - gr * (b - a);
            best_log_emax(c, exp(x1), &f1);
        } else {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + gr * (b - a);
            best_log_emax(c, exp(x2), &f2);
        }
    }
    double gh = exp((a + b) / 2), le = best_log_emax(c, gh, &cost);
    double worst = 0;
    for (int i = 0; i < c->n; i++) {
        double e = exp(le) * c->g[i] / (c->g[i] + gh) / c->eff[i] - 1;
        if (fabs(e) > fabs(worst)) worst = e;
    }
    printf("%-22s rows %3d  e_max %.4f  g_half %8.3f GFLOP  rms log err %.4f  worst %+.1f%%\n",
           what, c->n, exp(le), gh, sqrt(cost), 100 * worst);
}

int main(int argc, char **argv)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/h100-kernels.csv", CX_BENCH_DATA_DIR);
    double peak = 989.0, hbm = 3350.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--peak-tflops") && i + 1 < argc)
            peak = atof(argv[++i]);
        else if (!strcmp(argv[i], "--hbm-gbps") && i + 1 < argc)
            hbm = atof(argv[++i]);
        else
            snprintf(path, sizeof path, "%s", argv[i]);
    }
    static krow rows[MAX_ROWS];
    kload L = {rows, 0};
    int rc = csvt_load(path, "kernels", on_row, &L);
    if (rc) return rc;
    printf("kernels: %s, %d rows, peak %.0f TFLOP/s, HBM %.0f GB/s\n", path, L.n, peak, hbm);

    static curve_pts gemm, afwd[2], abwd[2];
    const char *backend[2] = {"cudnn", "flash"};
    double mem_stream = 0, mem_ln = 0;
    int n_stream = 0, n_ln = 0;
    for (int i = 0; i < L.n; i++) {
        const krow *r = &rows[i];
        double eff = r->flops / (r->time_us * 1e-6) / (peak * 1e12);
        if (!strncmp(r->kind, "gemm-", 5) && strcmp(r->kind, "gemm-fp8") &&
            r->time_us >= MIN_KERNEL_US) {
            gemm.g[gemm.n] = r->flops * 1e-9, gemm.eff[gemm.n++] = eff;
        }
        for (int b = 0; b < 2; b++) {
            if (strcmp(r->name, backend[b])) continue;
            curve_pts *c = !strcmp(r->kind, "attn-fwd")   ? &afwd[b]
                           : !strcmp(r->kind, "attn-bwd") ? &abwd[b]
                                                          : NULL;
            if (c && r->time_us >= MIN_KERNEL_US)
                c->g[c->n] = r->flops * 1e-9, c->eff[c->n++] = eff;
        }
        if (!strcmp(r->kind, "mem") && r->bytes >= 1e8) {
            double frac = r->bytes / (r->time_us * 1e-6) / (hbm * 1e9);
            if (!strcmp(r->name, "layernorm"))
                mem_ln += frac, n_ln++;
            else if (!strcmp(r->name, "copy") || !strcmp(r->name, "add") ||
                     !strcmp(r->name, "gelu"))
                mem_stream += frac, n_stream++;
        }
    }
    fit_curve("GEMM bf16", &gemm);
    fit_curve("attention fwd cudnn", &afwd[0]);
    fit_curve("attention bwd cudnn", &abwd[0]);
    fit_curve("attention fwd flash", &afwd[1]);
    fit_curve("attention bwd flash", &abwd[1]);
    if (n_stream)
        printf("streaming copy/add/gelu: %.3f of HBM peak (mean of %d)\n", mem_stream / n_stream,
               n_stream);
    if (n_ln) printf("layernorm: %.3f of HBM peak (mean of %d)\n", mem_ln / n_ln, n_ln);
    return 0;
}
