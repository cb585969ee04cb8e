/*
 * power.c — GPU power and DVFS model: power at a clock and utilisation,
 * idle and blocked power, per-operation energies, time scaling with the
 * clock, and the "profile once, model everywhere" prediction of a kernel
 * profiled at one clock.
 *
 * Equations (hw/README.md, "DVFS power"; voltage normalised to V(f_max)):
 *   V(f)   = v_min                           f <= knee
 *          = v_min + v_slope*(f - knee)/1000 f >  knee      (f in MHz)
 *   P(f,u) = const_w + static_w*Vn + (tensor_w*u_t + fp_w*u_fp + sm_w*u_sm)*Vn^2*f/f_max
 *            + dram_w*u_dram,                 Vn = V(f)/V(f_max)
 *   idle   = const_w + static_w*Vn;  blocked = blocked_w
 *   t(f)   = t_mem + t_compute*(f_max/f)^time_exp
 *   pJ per tensor FLOP = tensor_w*Vn^2 / matrix16_tflops (dynamic part;
 *   the peak rate scales with f as the dynamic power does);
 *   pJ per HBM byte = dram_w*1000 / hbm_gbps.
 * Profile once: a kernel measured at f0 (time t0, power P0, counters u0) runs
 * at f in t = t0*R(f)/R(f0) (R from the calibrated per-clock scales, see
 * culonx_dvfs_model); its power is P = P0 * G(f)/G(f0) with the calibrated
 * per-clock power-ratio tables, G(f) = sum_k c_k(f) phi_k,
 *   phi = (1, s, d/R, s*d/R, u/R, s*u/R), s = 100 W/P0, R = t/t0,
 * d = profiled DRAM activity, u = FP + tensor activity: constant/static power
 * scales with the clock, activity power with the operation rate 1/R, and the
 * s terms let the idle share of a low-power kernel differ from a busy one's.
 * At f0 the profile is returned unchanged. (Measured LOFO, V100 + RTX 8000:
 * 4.5% mean energy error, vs 7.8% with the earlier anchored physical model.)
 * Without tables (hand-written or datasheet models) the physical model is
 * used with its counters scaled to f — u_dram = u0*t0/t (same bytes),
 * u_t,fp = u0*t0*f0/(t*f) (same operations), u_sm = u0 — and anchored:
 *   P = B(f) + (P_model(f,u) - B(f)) * (P0 - B(f0)) / (P_model(f0,u0) - B(f0)),
 * B(f) = const_w + static_w*Vn.
 *
 * Datasheet defaults (hw/README.md, "Datasheet-shaped defaults"): TDP
 * V100 300 W, A100 400 W, H100 700 W (= "H100 active 700 W"); idle H100 80 W
 * (Llama2-70B case study); A100 blocked in communication 85 W. Assumptions
 * (not measured, stated as such in provenance): A100 idle 50 W, V100 idle
 * 40 W; knee at 0.65 f_max with V(knee)/V(f_max) = 0.70 (typical DVFS
 * tables: ~0.7 V at low clocks, ~1.0 V at boost); const:static = 1:1 of idle;
 * HBM 10% and SM clocking 15% of TDP at full activity; vector pipes burn
 * half of what tensor cores do at full utilisation.
 * Constants and sources: hw/README.md ("DVFS power", "Per-op energies").
 */
#include "hw/power.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double nz(double x)
{
    return isnan(x) ? 0.0 : x;
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static double volt(const culonx_power_model *m, double f_mhz)
{
    if (f_mhz <= m->knee_mhz) return m->v_min;
    return m->v_min + m->v_slope * (f_mhz - m->knee_mhz) / 1000.0;
}

double cx_hw_power_vnorm(const culonx_power_model *m, double f_mhz, double max_mhz)
{
    double vmax = volt(m, max_mhz);
    if (!(vmax > 0.0)) return 1.0;
    return volt(m, f_mhz) / vmax;
}

double cx_hw_power_w_at(const culonx_power_model *m, double max_mhz, double f_mhz,
                        const cx_hw_util *u)
{
    if (!(max_mhz > 0.0)) max_mhz = f_mhz;
    if (!(f_mhz > 0.0)) f_mhz = max_mhz;
    double vn = cx_hw_power_vnorm(m, f_mhz, max_mhz);
    double dyn = m->tensor_w * nz(u->tensor) + m->fp_w * nz(u->fp) + m->sm_w * nz(u->sm);
    return m->const_w + m->static_w * vn + dyn * vn * vn * f_mhz / max_mhz +
           m->dram_w * nz(u->dram);
}

double cx_hw_power_w(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz,
                     const cx_hw_util *u)
{
    return cx_hw_power_w_at(m, gpu->max_mhz, f_mhz, u);
}

double cx_hw_power_idle_w(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz)
{
    if (!(f_mhz > 0.0)) f_mhz = gpu->max_mhz;
    return m->const_w + m->static_w * cx_hw_power_vnorm(m, f_mhz, gpu->max_mhz);
}

double cx_hw_power_blocked_w(const culonx_power_model *m, const culonx_gpu *gpu)
{
    if (m->blocked_w > 0.0) return m->blocked_w;
    return cx_hw_power_idle_w(m, gpu, gpu->max_mhz);
}

double cx_hw_power_time_s(const culonx_power_model *m, const culonx_gpu *gpu, double f_mhz,
                          double t_mem_s, double t_compute_s)
{
    double e = m->time_exp > 0.0 ? m->time_exp : 1.0;
    if (!(f_mhz > 0.0)) f_mhz = gpu->max_mhz;
    return t_mem_s + t_compute_s * pow(gpu->max_mhz / f_mhz, e);
}

double cx_hw_power_tensor_pj_per_flop(const culonx_power_model *m, const culonx_gpu *gpu,
                                      double f_mhz)
{
    if (!(gpu->matrix16_tflops > 0.0)) return 0.0;
    if (!(f_mhz > 0.0)) f_mhz = gpu->max_mhz;
    double vn = cx_hw_power_vnorm(m, f_mhz, gpu->max_mhz);
    return m->tensor_w * vn * vn / gpu->matrix16_tflops;
}

double cx_hw_power_vector_pj_per_flop(const culonx_power_model *m, const culonx_gpu *gpu,
                                      double f_mhz)
{
    if (!(gpu->vector_tflops > 0.0)) return 0.0;
    if (!(f_mhz > 0.0)) f_mhz = gpu->max_mhz;
    double vn = cx_hw_power_vnorm(m, f_mhz, gpu->max_mhz);
    return m->fp_w * vn * vn / gpu->vector_tflops;
}

double cx_hw_power_hbm_pj_per_byte(const culonx_power_model *m, const culonx_gpu *gpu)
{
    if (!(gpu->hbm_gbps > 0.0)) return 0.0;
    return m->dram_w * 1000.0 / gpu->hbm_gbps;
}

void cx_hw_power_default(culonx_gpu *gpu)
{
    culonx_power_model *m = &gpu->power;
    if (m->present) return;
    int a100 = strstr(gpu->name, "A100") || strstr(gpu->name, "a100");
    int h100 = strstr(gpu->name, "H100") || strstr(gpu->name, "h100");
    int v100 = strstr(gpu->name, "V100") || strstr(gpu->name, "v100");
    double tdp = gpu->tdp_w, idle = gpu->idle_w, fmax = gpu->max_mhz;
    const char *src = "datasheet TDP/idle of the system config; assumed shape";
    if (!(tdp > 0.0)) tdp = h100 ? 700.0 : a100 ? 400.0 : v100 ? 300.0 : 400.0;
    if (!(idle > 0.0)) idle = h100 ? 80.0 : a100 ? 50.0 : v100 ? 40.0 : 0.125 * tdp;
    if (!(fmax > 0.0)) fmax = h100 ? 1980.0 : a100 ? 1410.0 : v100 ? 1530.0 : 1500.0;
    if (h100)
        src = "H100 SXM5: TDP/active 700 W, idle 80 W (hw/README.md, Llama2-70B case study); "
              "knee 0.65 fmax, Vmin/Vmax 0.7, split of TDP assumed";
    else if (a100)
        src = "A100 SXM4: TDP 400 W (datasheet), blocked 85 W (hw/README.md); idle 50 W, "
              "knee 0.65 fmax, Vmin/Vmax 0.7, split of TDP assumed";
    memset(m, 0, sizeof *m);
    m->present = 1;
    snprintf(m->provenance, sizeof m->provenance, "%s", src);
    m->knee_mhz = 0.65 * fmax;
    m->v_min = 0.70;
    m->v_slope = 0.30 * 1000.0 / (fmax - m->knee_mhz); /* V(f_max) = 1.0 */
    m->const_w = 0.5 * idle;
    m->static_w = 0.5 * idle / m->v_min; /* const + static*Vmin = idle */
    m->dram_w = 0.10 * tdp;
    m->sm_w = 0.15 * tdp;
    /* full tensor + SM + DRAM activity at f_max draws TDP */
    m->tensor_w = tdp - m->const_w - m->static_w - m->dram_w - m->sm_w;
    if (m->tensor_w < 0.0) m->tensor_w = 0.0;
    m->fp_w = 0.5 * m->tensor_w;
    m->blocked_w = a100 ? 85.0 : m->const_w + m->static_w + 0.1 * m->sm_w;
    m->time_exp = 1.0;
}

/* ------------------------------------------------------- profile once */

double cx_hw_dvfs_compute_fraction(const culonx_dvfs_model *d, double dram_active)
{
    double lo = d->split_dram_lo, hi = d->split_dram_hi;
    if (!(hi > lo)) return 1.0 - clamp01(nz(dram_active));
    return 1.0 - clamp01((nz(dram_active) - lo) / (hi - lo));
}

void cx_hw_dvfs_scales(const culonx_dvfs_model *d, double f_mhz, double *mem, double *mem_pw,
                       double *mem_fp, double *comp)
{
    int n = d->nclocks;
    double fmax = d->max_mhz > 0.0 ? d->max_mhz : f_mhz;
    *mem_pw = 0.0;
    *mem_fp = 0.0;
    if (n <= 0) {
        double e = d->power.time_exp > 0.0 ? d->power.time_exp : 1.0;
        *mem = 1.0;
        *comp = pow(fmax / f_mhz, e);
        return;
    }
    if (n == 1 || f_mhz <= d->clock_mhz[0]) {
        /* below the table: compute work scales as 1/f from the lowest clock */
        double f0 = d->clock_mhz[0];
        *mem = d->mem_scale[0];
        *mem_pw = d->mem_power_scale[0];
        *mem_fp = d->mem_fp_scale[0];
        *comp = d->compute_scale[0] * (f_mhz < f0 ? f0 / f_mhz : 1.0);
        return;
    }
    if (f_mhz >= d->clock_mhz[n - 1]) {
        double f1 = d->clock_mhz[n - 1];
        *mem = d->mem_scale[n - 1];
        *mem_pw = d->mem_power_scale[n - 1];
        *mem_fp = d->mem_fp_scale[n - 1];
        *comp = d->compute_scale[n - 1] * f1 / f_mhz;
        return;
    }
    int i = 0;
    while (i + 1 < n && d->clock_mhz[i + 1] < f_mhz)
        i++;
    double fa = d->clock_mhz[i], fb = d->clock_mhz[i + 1];
    double w = (f_mhz - fa) / (fb - fa);
    *mem = (1.0 - w) * d->mem_scale[i] + w * d->mem_scale[i + 1];
    *mem_pw = (1.0 - w) * d->mem_power_scale[i] + w * d->mem_power_scale[i + 1];
    *mem_fp = (1.0 - w) * d->mem_fp_scale[i] + w * d->mem_fp_scale[i + 1];
    *comp = (1.0 - w) * d->compute_scale[i] + w * d->compute_scale[i + 1];
}

double cx_hw_dvfs_time_factor(const culonx_dvfs_model *d, double f_mhz, double c, double p0_w,
                              double u_fp)
{
    double mem, mem_pw, mem_fp, comp;
    cx_hw_dvfs_scales(d, f_mhz, &mem, &mem_pw, &mem_fp, &comp);
    double pw = p0_w > 0.0 ? p0_w / 100.0 : 0.0, u = clamp01(nz(u_fp));
    /* memory-bound work takes at least the time of its FP operations at f
     * (calibrated tables only: the bound is part of their fit) */
    double m = mem + mem_pw * pw + mem_fp * u;
    if (d->nclocks > 0 && comp * u > m) m = comp * u;
    return (1.0 - c) * m + c * comp;
}

double cx_hw_dvfs_row_fp(const culonx_dvfs_row *r)
{
    cx_hw_util u = cx_hw_dvfs_row_util(r);
    return clamp01(u.fp + u.tensor);
}

cx_hw_util cx_hw_dvfs_row_util(const culonx_dvfs_row *r)
{
    cx_hw_util u;
    u.tensor = clamp01(nz(r->tensor_active));
    u.fp = clamp01(nz(r->fp16_active) + nz(r->fp32_active) + nz(r->fp64_active));
    u.sm = clamp01(nz(r->sm_active));
    u.dram = clamp01(nz(r->dram_active));
    return u;
}

void cx_hw_dvfs_power_terms(const culonx_dvfs_row *r, double p0_w, double time_ratio, double *phi)
{
    cx_hw_util u = cx_hw_dvfs_row_util(r);
    double sc = p0_w > 0.0 ? 100.0 / p0_w : 0.0;
    double ir = time_ratio > 0.0 ? 1.0 / time_ratio : 1.0;
    double comp = clamp01(u.fp + u.tensor);
    phi[0] = 1.0;
    phi[1] = sc;
    phi[2] = u.dram * ir;
    phi[3] = sc * u.dram * ir;
    phi[4] = comp * ir;
    phi[5] = sc * comp * ir;
}

/* G(f) of the power-ratio tables (see culonx_dvfs_model), tables
 * interpolated linearly in f and held constant outside the sweep clocks. */
static double power_ratio_g(const culonx_dvfs_model *d, double f_mhz, const double *phi)
{
    int n = d->nclocks, i = 0;
    double w = 0.0;
    if (n <= 0) return 1.0;
    if (f_mhz <= d->clock_mhz[0]) {
        i = 0;
    } else if (f_mhz >= d->clock_mhz[n - 1]) {
        i = n - 1;
    } else {
        while (i + 1 < n && d->clock_mhz[i + 1] < f_mhz)
            i++;
        w = (f_mhz - d->clock_mhz[i]) / (d->clock_mhz[i + 1] - d->clock_mhz[i]);
    }
    double g = 0.0;
    for (int k = 0; k < d->power_terms && k < CULONX_DVFS_POWER_TERMS; k++) {
        double c = d->power_ratio[i][k];
        if (w > 0.0) c = (1.0 - w) * c + w * d->power_ratio[i + 1][k];
        g += c * phi[k];
    }
    return g;
}

void cx_hw_dvfs_predict_row(const culonx_dvfs_model *d, const culonx_dvfs_row *r, double f_mhz,
                            double *time_ms, double *power_w)
{
    double f0 = r->core_mhz > 0.0 ? r->core_mhz : d->max_mhz;
    double c = cx_hw_dvfs_compute_fraction(d, r->dram_active);
    double ufp = cx_hw_dvfs_row_fp(r);
    double r0 = cx_hw_dvfs_time_factor(d, f0, c, r->power_w, ufp);
    double r1 = cx_hw_dvfs_time_factor(d, f_mhz, c, r->power_w, ufp);
    double t = r0 > 0.0 ? r->time_ms * r1 / r0 : r->time_ms;
    cx_hw_util u0 = cx_hw_dvfs_row_util(r), u = u0;
    double st = t > 0.0 ? r->time_ms / t : 1.0;
    u.dram = clamp01(u0.dram * st);
    u.tensor = clamp01(u0.tensor * st * f0 / f_mhz);
    u.fp = clamp01(u0.fp * st * f0 / f_mhz);
    double fmax = d->max_mhz > 0.0 ? d->max_mhz : f0;
    double pm0 = cx_hw_power_w_at(&d->power, fmax, f0, &u0);
    double p;
    *time_ms = t;
    if (fabs(f_mhz - f0) < 0.5 && r->power_w > 0.0) {
        *power_w = r->power_w; /* the profiled clock: the profile itself */
        return;
    }
    if (d->power_terms > 0 && d->nclocks > 0) {
        /* per-clock power-ratio tables, anchored to the profiled power */
        double p0 = r->power_w > 0.0 ? r->power_w : pm0;
        double phi0[CULONX_DVFS_POWER_TERMS], phi1[CULONX_DVFS_POWER_TERMS];
        cx_hw_dvfs_power_terms(r, p0, 1.0, phi0);
        cx_hw_dvfs_power_terms(r, p0, t > 0.0 && r->time_ms > 0.0 ? t / r->time_ms : 1.0, phi1);
        double g0 = power_ratio_g(d, f0, phi0), g1 = power_ratio_g(d, f_mhz, phi1);
        p = g0 > 0.0 ? p0 * g1 / g0 : p0 * g1;
        *power_w = p > 0.0 ? p : 0.0;
        return;
    }
    double pm = cx_hw_power_w_at(&d->power, fmax, f_mhz, &u);
    /* anchor the activity-dependent part to the profiled power; the
     * clock-dependent base (const + static*Vn) stays the model's */
    double base0 = d->power.const_w + d->power.static_w * cx_hw_power_vnorm(&d->power, f0, fmax);
    double base = d->power.const_w + d->power.static_w * cx_hw_power_vnorm(&d->power, f_mhz, fmax);
    p = pm;
    if (pm0 > base0 && r->power_w > 0.0)
        p = base + (pm - base) * (r->power_w - base0) / (pm0 - base0);
    if (p < 0.0) p = 0.0;
    *power_w = p;
}

void cx_hw_pass_energy_prepare(const culonx_gpu *g, culonx_dtype dtype, double f,
                               cx_hw_pass_prep *pp)
{
    const culonx_power_model *m = &g->power;
    pp->f_in = f, pp->dtype = dtype;
    double fmax = g->max_mhz > 0 ? g->max_mhz : f;
    pp->peak = cx_hw_peak_flops(g, dtype, 1) * (f / fmax);
    pp->hbm_bps = g->hbm_gbps * 1e9;
    /* cx_hw_power_w_at's defaults and its terms that read no utilisation */
    double max_mhz = g->max_mhz;
    if (!(max_mhz > 0.0)) max_mhz = f;
    if (!(f > 0.0)) f = max_mhz;
    pp->f = f, pp->fmax = max_mhz;
    pp->vn = cx_hw_power_vnorm(m, f, max_mhz);
    pp->base_w = m->const_w + m->static_w * pp->vn;
    pp->tensor_w = m->tensor_w, pp->fp0_w = m->fp_w * nz(0.0), pp->sm1_w = m->sm_w * nz(1.0);
    pp->dram_w = m->dram_w;
}

double cx_hw_pass_energy_j(const culonx_gpu *g, culonx_dtype dtype, double f, double t_s,
                           double flops, double bytes, double *power_w)
{
    if (t_s <= 0) {
        if (power_w) *power_w = 0;
        return 0;
    }
    cx_hw_pass_prep pp;
    cx_hw_pass_energy_prepare(g, dtype, f, &pp);
    return cx_hw_pass_energy_prepared_j(&pp, t_s, flops, bytes, power_w);
}

double cx_hw_power_capped_mhz(const culonx_gpu *gpu, double limit_w, double f0_mhz,
                              double (*power_w)(double f_mhz, void *ctx), void *ctx, int *unmet)
{
    if (unmet) *unmet = 0;
    if (!(limit_w > 0) || power_w(f0_mhz, ctx) <= limit_w) return f0_mhz;
    const double fmax = gpu->max_mhz, step = gpu->step_mhz > 0 ? gpu->step_mhz : 15.0;
    const double fmin = gpu->min_mhz > 0 ? gpu->min_mhz : fmax;
    const int nclk = (int)floor((fmax - fmin) / step + 1e-9) + 1;
    /* steps below f0: q in [qa, nclk - 1], power falling with q */
    int qa = (int)floor((fmax - f0_mhz) / step + 1e-9) + 1, qb = nclk - 1;
    if (qa > qb) qa = qb;
    if (power_w(fmax - step * qb, ctx) > limit_w) {
        if (unmet) *unmet = 1;
        return fmax - step * qb;
    }
    while (qa < qb) { /* the first q whose power fits */
        int q = (qa + qb) / 2;
        if (power_w(fmax - step * q, ctx) <= limit_w)
            qb = q;
        else
            qa = q + 1;
    }
    return fmax - step * qb;
}

int cx_hw_dvfs_kernel_cmp(const culonx_dvfs_row *a, const culonx_dvfs_row *b)
{
    int c = strcmp(a->benchmark, b->benchmark);
    if (!c) c = strcmp(a->kernel, b->kernel);
    if (!c) c = strcmp(a->input, b->input);
    if (!c) c = strcmp(a->gpu, b->gpu);
    return c;
}
