/*
 * main_dvfs.h — the `culonx calibrate` and `culonx dvfs-predict` commands.
 * Included only by core/main.c (the one translation unit that reads argv and
 * prints); it holds no model, only option parsing and output formatting:
 *   culonx calibrate SWEEP.csv -o POWER.xml [--exclude-family NAME]
 *                    [--format text|json]
 *   culonx dvfs-predict --power POWER.xml --profile PROFILE.csv
 *                    [--clocks MIN:MAX:STEP] [--format text|csv|json]
 * Both handlers take argv starting at the subcommand name (argv[0] is
 * "calibrate" or "dvfs-predict"). Exit codes: 0 ok, 1 bad input
 * ("file:line: error: ..." on stderr), 2 usage, 3 internal error.
 * The models: hw/power.c (equations, constants), hw/calibrate.c (fits).
 */
#ifndef CX_MAIN_DVFS_H
#define CX_MAIN_DVFS_H

#include "culonx.h"
#include "core/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* errors go through main.c's print_error / status_exit */
static int dvfs_report_error(const culonx_error *e, culonx_status st)
{
    print_error(e);
    return status_exit(st);
}

static int cmd_calibrate(int argc, char **argv)
{
    const char *usage = "usage: culonx calibrate SWEEP.csv -o POWER.xml "
                        "[--exclude-family NAME] [--format text|json]\n";
    const char *sweep_path = NULL, *out_path = NULL, *exclude = NULL, *format = "text";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
            out_path = argv[++i];
        else if (!strcmp(a, "--exclude-family") && i + 1 < argc)
            exclude = argv[++i];
        else if (!strcmp(a, "--format") && i + 1 < argc)
            format = argv[++i];
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "culonx calibrate: unknown or incomplete option '%s'\n%s", a, usage);
            return 2;
        } else if (!sweep_path)
            sweep_path = a;
        else {
            fprintf(stderr, "culonx calibrate: unexpected argument '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (!sweep_path || !out_path || (strcmp(format, "text") && strcmp(format, "json"))) {
        fputs(usage, stderr);
        return 2;
    }
    culonx_dvfs_table sw;
    culonx_error err;
    culonx_dvfs_model m;
    culonx_power_fit fit;
    culonx_status st = culonx_dvfs_csv_load(sweep_path, &sw, &err);
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    st = culonx_power_calibrate(&sw, exclude, &m, &fit, &err);
    culonx_dvfs_table_free(&sw);
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    char comment[2048];
    int n = snprintf(comment, sizeof comment, "DVFS power model of %s, produced by:\n  culonx", m.gpu);
    for (int i = 0; i < argc && n > 0 && (size_t)n < sizeof comment; i++)
        n += snprintf(comment + n, sizeof comment - (size_t)n, " %s", argv[i]);
    if (n > 0 && (size_t)n < sizeof comment)
        snprintf(comment + n, sizeof comment - (size_t)n,
                 "\nfit: power R^2 %.4f, time R^2 %.4f (%zu rows, %zu kernels)", fit.power_r2,
                 fit.time_r2, fit.nrows, fit.nkernels);
    FILE *fo = fopen(out_path, "w");
    if (!fo) {
        fprintf(stderr, "%s: error: cannot open for writing\n", out_path);
        return 1;
    }
    st = culonx_power_write_xml(fo, &m, comment, &err);
    if (fclose(fo) != 0 && st == CULONX_OK) {
        fprintf(stderr, "%s: error: write failed\n", out_path);
        return 1;
    }
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    const culonx_power_model *p = &m.power;
    if (!strcmp(format, "json")) {
        printf("{\"gpu\":");
        cx_core_json_str(stdout, m.gpu);
        printf(",\"output\":");
        cx_core_json_str(stdout, out_path);
        printf(",\"rows\":%zu,\"kernels\":%zu,\"power_r2\":%.6f,\"time_r2\":%.6f,", fit.nrows,
               fit.nkernels, fit.power_r2, fit.time_r2);
        printf("\"model\":{\"const_w\":%.6g,\"static_w\":%.6g,\"knee_mhz\":%.6g,\"v_min\":%.6g,"
               "\"v_slope\":%.6g,\"tensor_w\":%.6g,\"fp_w\":%.6g,\"sm_w\":%.6g,\"dram_w\":%.6g,"
               "\"blocked_w\":%.6g,\"time_exp\":%.6g},\"clocks\":[",
               p->const_w, p->static_w, p->knee_mhz, p->v_min, p->v_slope, p->tensor_w, p->fp_w,
               p->sm_w, p->dram_w, p->blocked_w, p->time_exp);
        for (int j = 0; j < fit.nclocks; j++)
            printf("%s{\"core_mhz\":%.6g,\"power_err_pct\":%.4f,\"time_err_pct\":%.4f,"
                   "\"energy_err_pct\":%.4f}",
                   j ? "," : "", fit.clock_mhz[j], 100 * fit.power_mape[j],
                   100 * fit.time_mape[j], 100 * fit.energy_mape[j]);
        printf("]}\n");
        return 0;
    }
    printf("calibrated %s from %s%s%s: %zu rows, %zu kernels -> %s\n", m.gpu, sweep_path,
           exclude ? ", excluding " : "", exclude ? exclude : "", fit.nrows, fit.nkernels,
           out_path);
    printf("power: const %.1f W, static %.1f W, knee %.0f MHz, V(knee)/V(max) %.3f,\n"
           "       tensor %.1f W, fp %.1f W, sm %.1f W, dram %.1f W, blocked %.1f W\n"
           "time:  compute scales as (f_max/f)^%.3f; compute fraction from DRAM activity "
           "%.3f..%.3f\n",
           p->const_w, p->static_w, p->knee_mhz, p->v_min / (p->v_min + p->v_slope *
           (m.max_mhz - p->knee_mhz) / 1000.0), p->tensor_w, p->fp_w, p->sm_w, p->dram_w,
           p->blocked_w, p->time_exp, m.split_dram_lo, m.split_dram_hi);
    printf("fit: power R^2 %.4f, time R^2 %.4f\n", fit.power_r2, fit.time_r2);
    printf("%10s %12s %12s %12s\n", "clock_mhz", "power_err%", "time_err%", "energy_err%");
    for (int j = 0; j < fit.nclocks; j++)
        printf("%10.0f %12.2f %12.2f %12.2f\n", fit.clock_mhz[j], 100 * fit.power_mape[j],
               100 * fit.time_mape[j], 100 * fit.energy_mape[j]);
    printf("(power: model with measured counters; time/energy: predicted from each kernel's "
           "highest-clock row)\n");
    return 0;
}

static int dvfs_parse_clocks(const char *s, double *clk, int max)
{
    char *end;
    double lo = strtod(s, &end);
    if (end == s || *end != ':') return -1;
    const char *q = end + 1;
    double hi = strtod(q, &end);
    if (end == q || *end != ':') return -1;
    q = end + 1;
    double step = strtod(q, &end);
    if (end == q || *end) return -1;
    if (!(lo > 0.0) || !(hi >= lo) || !(step > 0.0)) return -1;
    int n = 0;
    for (double f = lo; f <= hi + 1e-9 * hi; f = lo + step * n) {
        if (n == max) return -1;
        clk[n++] = f;
    }
    return n;
}

static int cmd_dvfs_predict(int argc, char **argv)
{
    const char *usage = "usage: culonx dvfs-predict --power POWER.xml --profile PROFILE.csv "
                        "[--clocks MIN:MAX:STEP] [--format text|csv|json]\n";
    const char *power_path = NULL, *profile_path = NULL, *clocks = NULL, *format = "text";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--power") && i + 1 < argc)
            power_path = argv[++i];
        else if (!strcmp(a, "--profile") && i + 1 < argc)
            profile_path = argv[++i];
        else if (!strcmp(a, "--clocks") && i + 1 < argc)
            clocks = argv[++i];
        else if (!strcmp(a, "--format") && i + 1 < argc)
            format = argv[++i];
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "culonx dvfs-predict: unknown or incomplete argument '%s'\n%s", a,
                    usage);
            return 2;
        }
    }
    if (!power_path || !profile_path
        || (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json"))) {
        fputs(usage, stderr);
        return 2;
    }
    enum { MAXC = 4096 };
    static double clk[MAXC];
    int nclk = 0;
    if (clocks && (nclk = dvfs_parse_clocks(clocks, clk, MAXC)) <= 0) {
        fprintf(stderr, "culonx dvfs-predict: --clocks wants MIN:MAX:STEP in MHz "
                        "(0 < MIN <= MAX, STEP > 0, at most %d clocks)\n", MAXC);
        return 2;
    }
    culonx_error err;
    culonx_dvfs_model m;
    culonx_status st = culonx_power_read_xml(power_path, &m, &err);
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    if (!clocks) {
        if (m.nclocks == 0) {
            fprintf(stderr, "culonx dvfs-predict: %s has no clocks-mhz list; give --clocks\n",
                    power_path);
            return 2;
        }
        for (int j = 0; j < m.nclocks; j++) clk[j] = m.clock_mhz[j];
        nclk = m.nclocks;
    }
    if (!(m.max_mhz > 0.0)) {
        fprintf(stderr, "%s: error: <power> needs max-mhz for predictions\n", power_path);
        return 1;
    }
    culonx_dvfs_table sw, prof;
    st = culonx_dvfs_csv_load(profile_path, &sw, &err);
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    st = culonx_dvfs_profile_rows(&sw, &prof, &err);
    culonx_dvfs_table_free(&sw);
    if (st != CULONX_OK) return dvfs_report_error(&err, st);
    culonx_dvfs_point *pt = malloc((prof.nrows ? prof.nrows : 1) * (size_t)nclk * sizeof *pt);
    if (!pt) {
        culonx_dvfs_table_free(&prof);
        fprintf(stderr, "culonx: error: out of memory\n");
        return 3;
    }
    st = culonx_dvfs_predict(&m, prof.rows, prof.nrows, clk, nclk, pt, &err);
    if (st != CULONX_OK) {
        free(pt);
        culonx_dvfs_table_free(&prof);
        return dvfs_report_error(&err, st);
    }
    size_t np = prof.nrows * (size_t)nclk;
    if (!strcmp(format, "csv")) {
        printf("gpu,benchmark,kernel,input,core_mhz,time_ms,power_w,energy_mj\n");
        for (size_t i = 0; i < np; i++) {
            const culonx_dvfs_row *r = &prof.rows[pt[i].profile_index];
            printf("%s,%s,%s,%s,%.6g,%.6g,%.6g,%.6g\n", r->gpu, r->benchmark, r->kernel,
                   r->input, pt[i].core_mhz, pt[i].time_ms, pt[i].power_w, pt[i].energy_mj);
        }
    } else if (!strcmp(format, "json")) {
        printf("{\"power\":");
        cx_core_json_str(stdout, power_path);
        printf(",\"profile\":");
        cx_core_json_str(stdout, profile_path);
        printf(",\"points\":[");
        for (size_t i = 0; i < np; i++) {
            const culonx_dvfs_row *r = &prof.rows[pt[i].profile_index];
            printf("%s\n{\"gpu\":", i ? "," : "");
            cx_core_json_str(stdout, r->gpu);
            printf(",\"benchmark\":");
            cx_core_json_str(stdout, r->benchmark);
            printf(",\"kernel\":");
            cx_core_json_str(stdout, r->kernel);
            printf(",\"input\":");
            cx_core_json_str(stdout, r->input);
            printf(",\"core_mhz\":%.6g,\"time_ms\":%.6g,\"power_w\":%.6g,\"energy_mj\":%.6g}",
                   pt[i].core_mhz, pt[i].time_ms, pt[i].power_w, pt[i].energy_mj);
        }
        printf("\n]}\n");
    } else {
        for (size_t k = 0; k < prof.nrows; k++) {
            const culonx_dvfs_row *r = &prof.rows[k];
            size_t best = k * (size_t)nclk;
            for (int j = 0; j < nclk; j++)
                if (pt[k * (size_t)nclk + (size_t)j].energy_mj < pt[best].energy_mj)
                    best = k * (size_t)nclk + (size_t)j;
            printf("%s %s %s %s (profiled at %.0f MHz: %.4g ms, %.1f W)\n", r->gpu, r->benchmark,
                   r->kernel, r->input, r->core_mhz, r->time_ms, r->power_w);
            printf("  %10s %12s %10s %12s\n", "clock_mhz", "time_ms", "power_w", "energy_mj");
            for (int j = 0; j < nclk; j++) {
                const culonx_dvfs_point *p = &pt[k * (size_t)nclk + (size_t)j];
                printf("  %10.0f %12.4g %10.1f %12.4g%s\n", p->core_mhz, p->time_ms, p->power_w,
                       p->energy_mj, p == &pt[best] ? "  <- least energy" : "");
            }
        }
    }
    free(pt);
    culonx_dvfs_table_free(&prof);
    return 0;
}

#endif
