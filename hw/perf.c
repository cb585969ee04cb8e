/*
 * perf.c — time of one kernel on a GPU.
 *
 *   t_compute(f) = flops / (peak * eff) * f_max / f
 *   eff          = eff_max * g / (g + g_half)   g = GFLOP of one GEMM of the
 *                                               (batched) kernel
 *   t_mem        = bytes / (hbm_bw * mem_eff)
 *   t            = max(t_compute, t_mem)
 * Non-tensor (vector) work runs at half the vector peak. A fused kernel
 * (FlashAttention) runs at its own fraction of the matrix peak, forward and
 * backward separately, growing with the kernel's size like a GEMM's:
 *   eff_attn = attn_eff * g / (g + attn_half)   g = GFLOP of the whole kernel
 * (attn_half 0: flat). The H100 values are fitted to kernels timed on an H100
 * (bench/fit_kernels.c, bench/data/h100-kernels.csv).
 * The framework's CPU launch cost, kernel_launch_s per kernel, is a floor
 * applied per pass over a layer in core/eval/cost.c (the CPU runs ahead of the
 * GPU, so a pass takes max(GPU time, kernels x launch)).
 *
 * Peaks are vendor datasheet dense numbers (hw/README.md, "GPUs") at max boost.
 * The default efficiencies (eff_max, g_half (stored in matmul_half_dim, in
 * GFLOP), mem_eff, kernel_launch_s) are fitted by bench/fit.c (Levenberg-
 * Marquardt on log time, LAPACK dgels) to the SC'21 Table 1 rows of
 * bench/data/measured-public.csv and the 1440 vTrain single-node A100
 * measurements, each set weighted equally; `build/bench_fit` reproduces the
 * numbers below. constants: hw/README.md, "Roofline".
 */
#include "hw/hw.h"

/* Fitted by bench/fit.c on SC'21 Table 1 + vTrain (see file comment). */
#define FIT_MATMUL_EFF_MAX 0.7428
#define FIT_MATMUL_HALF_DIM 0.42
#define FIT_MEM_EFF 0.6228
#define FIT_KERNEL_LAUNCH_S 7.573e-05
/* Adam step, mixed precision: read fp32 master, m, v, fp32 grad (16 B),
 * write master, m, v (12 B) and the 16-bit weight (2 B) */
#define OPTIMIZER_BYTES_PER_PARAM 30.0
/* Fused attention (FlashAttention-2, Dao 2023): 50-73% of A100 peak in
 * forward, less in backward; 0.5 for forward + backward together. No A100
 * run in bench/data uses it, so this default is the paper's, not a fit; the
 * H100 value in configs/systems/h100-80g.xml is fitted (bench/fit --h100). */
#define ATTN_EFF 0.5

void cx_hw_perf_defaults(culonx_perf_params *p)
{
    if (p->matmul_eff_max <= 0) p->matmul_eff_max = FIT_MATMUL_EFF_MAX;
    if (p->matmul_half_dim <= 0) p->matmul_half_dim = FIT_MATMUL_HALF_DIM;
    if (p->mem_eff <= 0) p->mem_eff = FIT_MEM_EFF;
    if (p->kernel_launch_s <= 0) p->kernel_launch_s = FIT_KERNEL_LAUNCH_S;
    if (p->optimizer_bytes_per_param <= 0) p->optimizer_bytes_per_param = OPTIMIZER_BYTES_PER_PARAM;
    if (p->attn_eff <= 0) p->attn_eff = ATTN_EFF;
    if (p->attn_bwd_eff <= 0) p->attn_bwd_eff = p->attn_eff;
}

double cx_hw_attn_eff(const culonx_perf_params *p, double kernel_flops, int backward)
{
    double e = backward ? p->attn_bwd_eff : p->attn_eff;
    double half = backward ? p->attn_bwd_half_gflop : p->attn_half_gflop;
    double g = kernel_flops * 1e-9;
    if (half <= 0 || g <= 0) return e;
    return e * g / (g + half);
}

double cx_hw_peak_flops(const culonx_gpu *g, culonx_dtype dt, int tensor)
{
    if (!tensor) return g->vector_tflops * 1e12;
    if (dt == CULONX_DTYPE_FP8 && g->matrix8_tflops > 0) return g->matrix8_tflops * 1e12;
    return g->matrix16_tflops * 1e12;
}

double cx_hw_matmul_eff(const culonx_perf_params *p, double gemm_flops)
{
    double g = gemm_flops * 1e-9;
    if (g <= 0) return p->matmul_eff_max;
    return p->matmul_eff_max * g / (g + p->matmul_half_dim);
}

void cx_hw_work_split(const culonx_system *sys, const culonx_perf_params *p, const cx_hw_work *w,
                      culonx_dtype dt, cx_hw_work_parts *out)
{
    const culonx_gpu *g = &sys->gpu;
    out->arith_s = out->mem_s = 0;
    out->arith = w->flops > 0;
    if (out->arith) {
        double eff = w->eff > 0  ? w->eff
                     : w->tensor ? cx_hw_matmul_eff(p, w->flops / (w->batch > 0 ? w->batch : 1))
                                 : 0.5;
        out->arith_s = w->flops / (cx_hw_peak_flops(g, dt, w->tensor) * eff);
    }
    if (w->bytes > 0) out->mem_s = w->bytes / (g->hbm_gbps * 1e9 * p->mem_eff);
}

cx_hw_time cx_hw_work_time_at(const culonx_gpu *g, const cx_hw_work_parts *w, double clock_mhz)
{
    cx_hw_time t = {0, 0, 0};
    double fmax = g->max_mhz > 0 ? g->max_mhz : 1.0;
    double f = clock_mhz > 0 ? clock_mhz : fmax;
    if (w->arith) t.compute_s = w->arith_s * (fmax / f);
    t.mem_s = w->mem_s;
    t.time_s = t.compute_s > t.mem_s ? t.compute_s : t.mem_s;
    return t;
}

cx_hw_time cx_hw_work_time(const culonx_system *sys, const culonx_perf_params *p,
                           const cx_hw_work *w, culonx_dtype dt, double clock_mhz)
{
    cx_hw_work_parts parts;
    cx_hw_work_split(sys, p, w, dt, &parts);
    return cx_hw_work_time_at(&sys->gpu, &parts, clock_mhz);
}
