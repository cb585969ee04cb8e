/*
 * power.h — GPU power and DVFS model (see power.c for the equations and the
 * sources of the constants). Internal to libculonx.
 * Formulas and constants: hw/README.md, "DVFS power".
 */
#ifndef CX_HW_POWER_H
#define CX_HW_POWER_H

#include "culonx_types.h"
#include "hw/hw.h"

#include <math.h>

/* Unit utilisations in [0,1] while a kernel runs. */
typedef struct {
    double tensor; /* tensor-core pipe */
    double fp;     /* FP16 + FP32 + FP64 vector pipes */
    double sm;     /* SM activity (any warp resident) */
    double dram;   /* DRAM (HBM) bandwidth */
} cx_hw_util;

/* V(f)/V(f_max): flat below the knee, linear above it. */
double cx_hw_power_vnorm(const culonx_power_model *m, double f_mhz, double max_mhz);
/* P(f,u) in watts with f_max = max_mhz. */
double cx_hw_power_w_at(const culonx_power_model *m, double max_mhz, double f_mhz,
                        const cx_hw_util *u);
/* P(f,u) for a GPU (f_max = gpu->max_mhz; f_mhz <= 0 means f_max). */
double cx_hw_power_w(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz,
                     const cx_hw_util *u);
/* Powered on, no kernel running: const + static*V(f)/V(f_max). */
double cx_hw_power_idle_w(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz);
/* Blocked in communication (spinning collective kernels). */
double cx_hw_power_blocked_w(const culonx_power_model *m, const culonx_gpu *gpu);

/* Energy of a compute pass on one GPU at clock f_mhz: duration t_s, `flops`
 * on the tensor cores (peak scaled by f/f_max) and `bytes` of HBM traffic;
 * utilisations u_tensor = flops / (peak x t), u_dram = bytes / (bw x t),
 * u_sm = 1. *power_w (may be NULL) gets the power. 0 for t_s <= 0. */
double cx_hw_pass_energy_j(const culonx_gpu *gpu, culonx_dtype dtype, double f_mhz, double t_s,
                           double flops, double bytes, double *power_w);
/* The board power limit (core/eval/power_cap.c): the clock a pass runs at
 * when its power at f0 is power_w(f, ctx) and the GPU may draw limit_w:
 * f0 if it fits (or limit_w <= 0), else the highest step f_max - q x step
 * below f0 whose power fits (bisection: power rises with f), else the
 * lowest step (the limit unmet; *unmet set when given). */
double cx_hw_power_capped_mhz(const culonx_gpu *gpu, double limit_w, double f0_mhz,
                              double (*power_w)(double f_mhz, void *ctx), void *ctx, int *unmet);
/* cx_hw_pass_energy_j in two steps: what reads only the GPU, the dtype
 * and the clock (prepared once per clock), and the per-pass rest; the same
 * operations in the same order, so the same bits (cx_hw_pass_energy_j is
 * the two). */
typedef struct {
    double f_in; /* the clock asked for */
    culonx_dtype dtype;
    double peak, hbm_bps;                  /* tensor peak at f (FLOP/s), HBM bytes/s */
    double base_w, vn, f, fmax;            /* const + static Vn; Vn; clocks of P(f, u) */
    double tensor_w, fp0_w, sm1_w, dram_w; /* fp at u 0, SM at u 1 */
} cx_hw_pass_prep;
void cx_hw_pass_energy_prepare(const culonx_gpu *gpu, culonx_dtype dtype, double f_mhz,
                               cx_hw_pass_prep *pp);
/* (inline: a sweep's reprices and DP updates call it per class and run) */
static inline double cx_hw_pass_energy_prepared_j(const cx_hw_pass_prep *pp, double t_s,
                                                  double flops, double bytes, double *power_w)
{
    if (t_s <= 0) {
        if (power_w) *power_w = 0;
        return 0;
    }
    double tensor = flops / (pp->peak * t_s);
    if (tensor > 1.0) tensor = 1.0;
    double dram = bytes / (pp->hbm_bps * t_s);
    if (dram > 1.0) dram = 1.0;
    /* cx_hw_power_w_at with u = (tensor, fp 0, sm 1, dram); NaN counts 0 */
    const double nzt = isnan(tensor) ? 0.0 : tensor, nzd = isnan(dram) ? 0.0 : dram;
    double dyn = pp->tensor_w * nzt + pp->fp0_w + pp->sm1_w;
    double p = pp->base_w + dyn * pp->vn * pp->vn * pp->f / pp->fmax + pp->dram_w * nzd;
    if (power_w) *power_w = p;
    return p * t_s;
}
/* t(f) = t_mem + t_compute*(f_max/f)^time_exp. */
double cx_hw_power_time_s(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz,
                          double t_mem_s, double t_compute_s);
/* Dynamic energy of one dense 16-bit tensor FLOP at clock f, in pJ. */
double cx_hw_power_tensor_pj_per_flop(const culonx_power_model *m, const culonx_gpu *gpu,
                                      double f_mhz);
/* Dynamic energy of one vector FLOP at clock f (vector_tflops peak), pJ. */
double cx_hw_power_vector_pj_per_flop(const culonx_power_model *m, const culonx_gpu *gpu,
                                      double f_mhz);
/* Energy of one HBM byte (clock independent), in pJ. */
double cx_hw_power_hbm_pj_per_byte(const culonx_power_model *m, const culonx_gpu *gpu);
/* Fills gpu->power from datasheet facts when gpu->power.present == 0. */
void cx_hw_power_default(culonx_gpu *gpu);

/* ---- "profile once, model everywhere" with a calibrated culonx_dvfs_model */

/* Compute fraction c of a kernel from its profiled DRAM activity. */
double cx_hw_dvfs_compute_fraction(const culonx_dvfs_model *d, double dram_active);
/* R(f) = (1-c)*max(mem_scale(f) + mem_power_scale(f)*p0_w/100 + mem_fp_scale(f)*u_fp,
 * compute_scale(f)*u_fp) + c*compute_scale(f) (scales interpolated in f; the
 * max only with calibrated tables, nclocks > 0); p0_w is the profiled
 * power (<= 0: that term is 0), u_fp the profiled FP + tensor activity (clamped to [0,1]). */
double cx_hw_dvfs_time_factor(const culonx_dvfs_model *d, double f_mhz, double c, double p0_w,
                              double u_fp);
/* Scales of memory-bound work (*mem, *mem_pw per 100 W of profiled power,
 * *mem_fp per unit of FP + tensor activity) and of compute-bound work
 * (*comp) at clock f. */
void cx_hw_dvfs_scales(const culonx_dvfs_model *d, double f_mhz, double *mem, double *mem_pw,
                       double *mem_fp, double *comp);
/* FP16 + FP32 + FP64 + tensor activity of a profiled row, clamped to [0,1]
 * (NaN counters count as 0): u of the time model and of the power terms. */
double cx_hw_dvfs_row_fp(const culonx_dvfs_row *r);
/* Utilisations of a profiled row (NaN counters count as 0). */
cx_hw_util cx_hw_dvfs_row_util(const culonx_dvfs_row *r);
/* Order of kernels in a clock table: by benchmark, kernel, input, gpu
 * (strcmp); 0 when a and b are rows of the same kernel. */
int cx_hw_dvfs_kernel_cmp(const culonx_dvfs_row *a, const culonx_dvfs_row *b);
/* Terms phi of the power-ratio tables for profile row r with anchor power
 * p0_w and predicted time ratio t(f)/t(f0) (see culonx_dvfs_model). */
void cx_hw_dvfs_power_terms(const culonx_dvfs_row *r, double p0_w, double time_ratio, double *phi);
/* Time (ms) and power (W) of the profiled row `r` at clock f_mhz. */
void cx_hw_dvfs_predict_row(const culonx_dvfs_model *d, const culonx_dvfs_row *r, double f_mhz,
                            double *time_ms, double *power_w);

#endif
