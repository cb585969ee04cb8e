/*
 * fit.c — reproducible fit of the efficiency parameters of hw/perf.c
 * (matmul_eff_max, matmul_half_dim, mem_eff, kernel_launch_s) to measured
 * iteration times: SC'21 Table 1 and the vTrain single-node set (bench/data.h).
 *
 * Method: Levenberg-Marquardt on r_i = log(predicted_i / measured_i), each
 * data set weighted equally (weight 1/n_set per row), parameters in log
 * space; the damped normal equations are solved as a least-squares problem
 * with LAPACKE_dgels. Deterministic: same data, same start, same result.
 * The printed values are what hw/perf.c records as its defaults.
 *
 * usage: bench_fit [DATA_DIR] [--h100]   (default: the repository's
 * bench/data, whose README.md gives each table's provenance). Without
 * --h100 the fit is the A100 generation's (SC'21 Table 1 + vTrain: the
 * library defaults of hw/perf.c); with --h100 it is the H100 generation's,
 * on the nine Megatron-Core r0.8.0 H100 weak-scaling rows (set "H100" of
 * bench/data.h), and the printed values are the <perf> element of
 * configs/systems/h100-80g.xml. A missing table prints
 * "SKIP <set>: <path> missing" and exits 77 without fitting: a fit on part
 * of the data would print different defaults.
 */
#include "culonx.h"
#include "data.h"

#include "hw/lapack.h"
#include <math.h>

#define NP 4

typedef struct {
    bench_row *rows[2048];
    double w[2048];
    int n;
} fit_set;

/* --h100: two parameters (matmul_eff_max, kernel_launch_s) are fitted to
 * the nine whole-iteration times. The fused attention forward and backward
 * curves are fixed by cuDNN kernels (Transformer Engine's on Hopper) timed on
 * a real H100 (bench/data/h100-kernels.csv, fitted by build/bench_fit_kernels,
 * bench/fit_kernels.c). The GEMM size of half efficiency is the A100 fit
 * scaled by the dense peak (a GEMM is half efficient when its run time is
 * comparable to a fixed per-kernel latency, so the size grows with
 * throughput): the timed H100 GEMMs give 5.34 GFLOP for a size-only curve,
 * which prices a batch-1 decode GEMV as compute-bound, which it is not
 * (hw/README.md). mem_eff stays at the A100 fit (hw/perf.c). Nine
 * whole-iteration times cannot pin these down: left free, the half size ran
 * to 54 GFLOP and mem_eff to 0.18, absorbing costs the model lacks rather
 * than measuring a kernel. */
static int fix_mem_eff = 0;
#define A100_MEM_EFF 0.6228
#define A100_HALF_DIM_GFLOP 0.42 /* FIT_MATMUL_HALF_DIM of hw/perf.c */
/* rounded as printed and shipped, so the fit evaluates what ships */
#define H100_HALF_DIM_GFLOP (round(A100_HALF_DIM_GFLOP * 989.0 / 312.0 * 100.0) / 100.0)
#define H100_ATTN_EFF 0.5368       /* attention fwd cudnn e_max */
#define H100_ATTN_HALF_GFLOP 15.16 /* attention fwd cudnn g_half */
#define H100_ATTN_BWD_EFF 0.5109   /* attention bwd cudnn e_max */
#define H100_ATTN_BWD_HALF_GFLOP 91.86

static void apply(culonx_run *r, const double *lp)
{
    r->system.perf.matmul_eff_max = fmin(exp(lp[0]), 0.98);
    r->system.perf.matmul_half_dim = exp(lp[1]);
    r->system.perf.mem_eff = fix_mem_eff ? A100_MEM_EFF : fmin(exp(lp[2]), 0.98);
    if (fix_mem_eff) {
        r->system.perf.attn_eff = H100_ATTN_EFF;
        r->system.perf.attn_half_gflop = H100_ATTN_HALF_GFLOP;
        r->system.perf.attn_bwd_eff = H100_ATTN_BWD_EFF;
        r->system.perf.attn_bwd_half_gflop = H100_ATTN_BWD_HALF_GFLOP;
    }
    r->system.perf.kernel_launch_s = exp(lp[3]);
}

static double residuals(fit_set *fs, const double *lp, double *res)
{
    double ss = 0;
    for (int i = 0; i < fs->n; i++) {
        bench_row *r = fs->rows[i];
        apply(&r->run, lp);
        culonx_result out;
        culonx_error err;
        double v = 10.0; /* a failed estimate costs a large residual */
        if (bench_estimate(r, &out, &err) == CULONX_OK)
            v = log(bench_predicted_s(r, &out) / r->measured_s);
        res[i] = sqrt(fs->w[i]) * v;
        ss += res[i] * res[i];
    }
    return ss;
}

int main(int argc, char **argv)
{
    const char *dir = CX_BENCH_DATA_DIR;
    int h100 = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--h100") == 0)
            h100 = fix_mem_eff = 1;
        else
            dir = argv[i];
    }
    bench_rows rs;
    memset(&rs, 0, sizeof rs);
    culonx_run base;
    int missing = 0;
    if (bench_load_all(&rs, dir, &base, &missing) != 0) return 1;
    if (missing) {
        free(rs.rows);
        return BENCH_EXIT_SKIP;
    }
    static fit_set fs;
    int n_t1 = 0, n_vt = 0;
    for (int i = 0; i < rs.n; i++) {
        if (!strcmp(rs.rows[i].set, "SC21-T1")) n_t1++;
        if (!strcmp(rs.rows[i].set, "vTrain")) n_vt++;
    }
    int n_h = 0;
    for (int i = 0; i < rs.n; i++)
        n_h += !strcmp(rs.rows[i].set, "H100");
    for (int i = 0; i < rs.n && fs.n < 2048; i++) {
        const char *s = rs.rows[i].set;
        if (h100) {
            if (strcmp(s, "H100")) continue;
            fs.rows[fs.n] = &rs.rows[i];
            fs.w[fs.n++] = 1.0 / n_h;
            continue;
        }
        if (strcmp(s, "SC21-T1") && strcmp(s, "vTrain")) continue;
        fs.rows[fs.n] = &rs.rows[i];
        fs.w[fs.n] = 1.0 / (strcmp(s, "vTrain") ? n_t1 : n_vt);
        fs.n++;
    }
    double lp[NP] = {log(0.8), log(1.0), log(0.8), log(2e-5)};
    if (fix_mem_eff) lp[1] = log(H100_HALF_DIM_GFLOP);
    int n = fs.n;
    double *r0 = malloc(sizeof(double) * n), *r1 = malloc(sizeof(double) * n);
    double *J = malloc(sizeof(double) * (size_t)(n + NP) * NP);
    double *rhs = malloc(sizeof(double) * (n + NP));
    double lambda = 1e-2, ss = residuals(&fs, lp, r0);
    if (h100)
        printf("fit on %d rows (H100 %d), start cost %.6g\n", n, n_h, ss);
    else
        printf("fit on %d rows (SC21-T1 %d, vTrain %d), start cost %.6g\n", n, n_t1, n_vt, ss);
    for (int it = 0; it < 40; it++) {
        for (int k = 0; k < NP; k++) { /* forward-difference Jacobian */
            double save = lp[k], hstep = 1e-4;
            lp[k] += hstep;
            residuals(&fs, lp, r1);
            lp[k] = save;
            for (int i = 0; i < n; i++)
                J[(size_t)i * NP + k] =
                    (fix_mem_eff && (k == 1 || k == 2)) ? 0.0 : (r1[i] - r0[i]) / hstep;
        }
        int improved = 0;
        for (int tries = 0; tries < 10 && !improved; tries++) {
            double *A = malloc(sizeof(double) * (size_t)(n + NP) * NP);
            memcpy(A, J, sizeof(double) * (size_t)n * NP);
            for (int i = 0; i < n; i++)
                rhs[i] = -r0[i];
            for (int k = 0; k < NP; k++) {
                for (int q = 0; q < NP; q++)
                    A[(size_t)(n + k) * NP + q] = (k == q) ? sqrt(lambda) : 0;
                rhs[n + k] = 0;
            }
            int info = cx_hw_dgels(CX_HW_LAPACK_ROW_MAJOR, 'N', n + NP, NP, 1, A, NP, rhs, 1);
            free(A);
            if (info != 0) {
                lambda *= 10;
                continue;
            }
            double trial[NP];
            for (int k = 0; k < NP; k++)
                trial[k] = lp[k] + rhs[k];
            trial[0] = fmin(trial[0], log(0.98));
            trial[2] = fmin(trial[2], log(0.98));
            double ss1 = residuals(&fs, trial, r1);
            if (ss1 < ss) {
                memcpy(lp, trial, sizeof lp);
                memcpy(r0, r1, sizeof(double) * n);
                double rel = (ss - ss1) / ss;
                ss = ss1;
                lambda = fmax(lambda / 3, 1e-9);
                improved = 1;
                if (rel < 1e-7) it = 1000;
            } else {
                lambda *= 10;
            }
        }
        if (!improved) break;
    }
    residuals(&fs, lp, r0);
    printf("final cost %.6g (weighted mean squared log error)\n", ss);
    if (h100) {
        printf("<perf matmul-eff-max=\"%.4f\" matmul-half-dim=\"%.2f\" attn-eff=\"%.4f\" "
               "attn-half-gflop=\"%.2f\" attn-bwd-eff=\"%.4f\" attn-bwd-half-gflop=\"%.2f\" "
               "kernel-launch-us=\"%.2f\"/>\n",
               fmin(exp(lp[0]), 0.98), exp(lp[1]), H100_ATTN_EFF, H100_ATTN_HALF_GFLOP,
               H100_ATTN_BWD_EFF, H100_ATTN_BWD_HALF_GFLOP, exp(lp[3]) * 1e6);
        free(r0), free(r1), free(J), free(rhs), free(rs.rows);
        return 0;
    }
    printf("#define FIT_MATMUL_EFF_MAX %.4f\n", fmin(exp(lp[0]), 0.98));
    printf("#define FIT_MATMUL_HALF_DIM %.2f\n", exp(lp[1]));
    printf("#define FIT_MEM_EFF %.4f\n", fmin(exp(lp[2]), 0.98));
    printf("#define FIT_KERNEL_LAUNCH_S %.3e\n", exp(lp[3]));
    free(r0), free(r1), free(J), free(rhs), free(rs.rows);
    return 0;
}
