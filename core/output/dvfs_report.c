/*
 * dvfs_report.c — renders a DVFS calibration (`culonx calibrate`) and
 * profile-once predictions (`culonx dvfs-predict`) as text, CSV or JSON onto
 * a caller-supplied stream. Pure formatting: the models are hw/power.c and
 * hw/calibrate.c, the numbers come from culonx_power_calibrate and
 * culonx_dvfs_predict (core/input/dvfs.c).
 */
#include "core/output/report.h"

#include <string.h>

void culonx_report_calibration(FILE *out, const culonx_dvfs_model *m, const culonx_power_fit *fit,
                               const char *table_path, const char *exclude, const char *power_path,
                               int json)
{
    const culonx_power_model *p = &m->power;
    if (json) {
        fprintf(out, "{\"gpu\":");
        cx_core_json_str(out, m->gpu);
        fprintf(out, ",\"output\":");
        cx_core_json_str(out, power_path);
        fprintf(out, ",\"rows\":%zu,\"kernels\":%zu,\"power_r2\":%.6f,\"time_r2\":%.6f,",
                fit->nrows, fit->nkernels, fit->power_r2, fit->time_r2);
        fprintf(out,
                "\"model\":{\"const_w\":%.6g,\"static_w\":%.6g,\"knee_mhz\":%.6g,\"v_min\":%.6g,"
                "\"v_slope\":%.6g,\"tensor_w\":%.6g,\"fp_w\":%.6g,\"sm_w\":%.6g,\"dram_w\":%.6g,"
                "\"blocked_w\":%.6g,\"time_exp\":%.6g},\"clocks\":[",
                p->const_w, p->static_w, p->knee_mhz, p->v_min, p->v_slope, p->tensor_w, p->fp_w,
                p->sm_w, p->dram_w, p->blocked_w, p->time_exp);
        for (int j = 0; j < fit->nclocks; j++)
            fprintf(out,
                    "%s{\"core_mhz\":%.6g,\"power_err_pct\":%.4f,\"time_err_pct\":%.4f,"
                    "\"energy_err_pct\":%.4f}",
                    j ? "," : "", fit->clock_mhz[j], 100 * fit->power_mape[j],
                    100 * fit->time_mape[j], 100 * fit->energy_mape[j]);
        fprintf(out, "]}\n");
        return;
    }
    fprintf(out, "calibrated %s from %s%s%s: %zu rows, %zu kernels -> %s\n", m->gpu, table_path,
            exclude ? ", excluding " : "", exclude ? exclude : "", fit->nrows, fit->nkernels,
            power_path);
    fprintf(out,
            "power: const %.1f W, static %.1f W, knee %.0f MHz, V(knee)/V(max) %.3f,\n"
            "       tensor %.1f W, fp %.1f W, sm %.1f W, dram %.1f W, blocked %.1f W\n"
            "time:  compute scales as (f_max/f)^%.3f; compute fraction from DRAM activity "
            "%.3f..%.3f\n",
            p->const_w, p->static_w, p->knee_mhz,
            p->v_min / (p->v_min + p->v_slope * (m->max_mhz - p->knee_mhz) / 1000.0), p->tensor_w,
            p->fp_w, p->sm_w, p->dram_w, p->blocked_w, p->time_exp, m->split_dram_lo,
            m->split_dram_hi);
    fprintf(out, "fit: power R^2 %.4f, time R^2 %.4f\n", fit->power_r2, fit->time_r2);
    fprintf(out, "%10s %12s %12s %12s\n", "clock_mhz", "power_err%", "time_err%", "energy_err%");
    for (int j = 0; j < fit->nclocks; j++)
        fprintf(out, "%10.0f %12.2f %12.2f %12.2f\n", fit->clock_mhz[j], 100 * fit->power_mape[j],
                100 * fit->time_mape[j], 100 * fit->energy_mape[j]);
    fprintf(out, "(power: model with measured counters; time/energy: predicted from each "
                 "kernel's highest-clock row)\n");
}

/* a CSV field, quoted (RFC 4180) when it holds a comma, quote or line end */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_points(FILE *out, const culonx_dvfs_table *prof, const culonx_dvfs_point *pt,
                       size_t np)
{
    fprintf(out, "gpu,benchmark,kernel,input,core_mhz,time_ms,power_w,energy_millijoules\n");
    for (size_t i = 0; i < np; i++) {
        const culonx_dvfs_row *r = &prof->rows[pt[i].profile_index];
        const char *txt[4] = {r->gpu, r->benchmark, r->kernel, r->input};
        for (int k = 0; k < 4; k++) {
            csv_field(out, txt[k]);
            fputc(',', out);
        }
        fprintf(out, "%.6g,%.6g,%.6g,%.6g\n", pt[i].core_mhz, pt[i].time_ms, pt[i].power_w,
                pt[i].energy_millijoules);
    }
}

static void json_points(FILE *out, const culonx_dvfs_table *prof, const culonx_dvfs_point *pt,
                        size_t np, const char *power_path, const char *profile_path)
{
    fprintf(out, "{\"power\":");
    cx_core_json_str(out, power_path);
    fprintf(out, ",\"profile\":");
    cx_core_json_str(out, profile_path);
    fprintf(out, ",\"points\":[");
    for (size_t i = 0; i < np; i++) {
        const culonx_dvfs_row *r = &prof->rows[pt[i].profile_index];
        fprintf(out, "%s\n{\"gpu\":", i ? "," : "");
        cx_core_json_str(out, r->gpu);
        fprintf(out, ",\"benchmark\":");
        cx_core_json_str(out, r->benchmark);
        fprintf(out, ",\"kernel\":");
        cx_core_json_str(out, r->kernel);
        fprintf(out, ",\"input\":");
        cx_core_json_str(out, r->input);
        fprintf(out,
                ",\"core_mhz\":%.6g,\"time_ms\":%.6g,\"power_w\":%.6g,\"energy_millijoules\":%.6g}",
                pt[i].core_mhz, pt[i].time_ms, pt[i].power_w, pt[i].energy_millijoules);
    }
    fprintf(out, "\n]}\n");
}

void culonx_report_dvfs_points(FILE *out, const culonx_dvfs_table *prof,
                               const culonx_dvfs_point *pt, int nclocks, const char *power_path,
                               const char *profile_path, const char *format)
{
    const size_t nclk = (size_t)nclocks, np = prof->nrows * nclk;
    if (!strcmp(format, "csv")) {
        csv_points(out, prof, pt, np);
        return;
    }
    if (!strcmp(format, "json")) {
        json_points(out, prof, pt, np, power_path, profile_path);
        return;
    }
    for (size_t k = 0; k < prof->nrows; k++) {
        const culonx_dvfs_row *r = &prof->rows[k];
        size_t best = k * nclk;
        for (size_t j = 0; j < nclk; j++)
            if (pt[k * nclk + j].energy_millijoules < pt[best].energy_millijoules)
                best = k * nclk + j;
        fprintf(out, "%s %s %s %s (profiled at %.0f MHz: %.4g ms, %.1f W)\n", r->gpu, r->benchmark,
                r->kernel, r->input, r->core_mhz, r->time_ms, r->power_w);
        fprintf(out, "  %10s %12s %10s %12s\n", "clock_mhz", "time_ms", "power_w",
                "energy_millijoules");
        for (size_t j = 0; j < nclk; j++) {
            const culonx_dvfs_point *p = &pt[k * nclk + j];
            fprintf(out, "  %10.0f %12.4g %10.1f %12.4g%s\n", p->core_mhz, p->time_ms, p->power_w,
                    p->energy_millijoules, p == &pt[best] ? "  <- least energy" : "");
        }
    }
}
