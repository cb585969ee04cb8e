/*
 * cmd_dvfs_predict.c — `culonx dvfs-predict --power POWER.xml --profile
 * PROFILE.csv [--clocks MIN:MAX:STEP] [--format text|csv|json] [--cross-gpu]`: "profile
 * once, model everywhere" — kernels measured at one clock, predicted at
 * every clock by a calibrated DVFS model (core/input/dvfs.c).
 */
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CLOCKS 4096

int cx_cli_dvfs_predict(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "csv", "json", NULL};
    static double clk[MAX_CLOCKS];
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    const char *power_path = a->value[CX_OPT_POWER], *profile_path = a->value[CX_OPT_PROFILE];
    const char *clocks = a->value[CX_OPT_CLOCKS];
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) return rc;
    if (!power_path) return cx_cli_usage_error(a->command, "missing --power POWER.xml%s", "");
    if (!profile_path) return cx_cli_usage_error(a->command, "missing --profile PROFILE.csv%s", "");
    int nclk = 0;
    if (clocks) {
        double lo, hi, step;
        if (cx_cli_clock_range(clocks, &lo, &hi, &step) == 0)
            for (double f = lo; f <= hi + 1e-9 * hi && nclk <= MAX_CLOCKS; f = lo + step * nclk) {
                if (nclk == MAX_CLOCKS) {
                    nclk = MAX_CLOCKS + 1;
                    break;
                }
                clk[nclk++] = f;
            }
        if (nclk <= 0 || nclk > MAX_CLOCKS) {
            fprintf(stderr,
                    "culonx dvfs-predict: --clocks wants MIN:MAX:STEP in MHz "
                    "(0 < MIN <= MAX, STEP > 0, at most %d clocks)\n",
                    MAX_CLOCKS);
            return CX_EXIT_USAGE;
        }
    }
    culonx_error err;
    culonx_dvfs_model m;
    culonx_status st = culonx_power_read_xml(power_path, &m, &err);
    if (st != CULONX_OK) return cx_cli_fail(&err, st);
    if (!clocks) {
        if (m.nclocks == 0) {
            fprintf(stderr, "culonx dvfs-predict: %s has no clocks-mhz list; give --clocks\n",
                    power_path);
            return CX_EXIT_USAGE;
        }
        for (int j = 0; j < m.nclocks; j++)
            clk[j] = m.clock_mhz[j];
        nclk = m.nclocks;
    }
    if (!(m.max_mhz > 0.0)) {
        fprintf(stderr, "%s: error: <power> needs max-mhz for predictions\n", power_path);
        return CX_EXIT_INPUT;
    }
    culonx_dvfs_table table, prof;
    st = culonx_dvfs_csv_load(profile_path, &table, &err);
    if (st != CULONX_OK) return cx_cli_fail(&err, st);
    st = culonx_dvfs_profile_rows(&table, &prof, &err);
    culonx_dvfs_table_free(&table);
    if (st != CULONX_OK) return cx_cli_fail(&err, st);
    /* a power model predicts its own GPU: another GPU's profile only on request */
    for (size_t i = 0; i < prof.nrows && m.gpu[0] && !a->given[CX_OPT_CROSS_GPU]; i++)
        if (prof.rows[i].gpu[0] && strcasecmp(prof.rows[i].gpu, m.gpu)) {
            fprintf(stderr,
                    "%s:%d: error: profiled on GPU '%s' but %s models '%s'; give --cross-gpu to "
                    "predict across GPUs anyway\n",
                    profile_path, prof.rows[i].line, prof.rows[i].gpu, power_path, m.gpu);
            culonx_dvfs_table_free(&prof);
            return CX_EXIT_INPUT;
        }
    culonx_dvfs_point *pt = malloc((prof.nrows ? prof.nrows : 1) * (size_t)nclk * sizeof *pt);
    if (!pt) {
        culonx_dvfs_table_free(&prof);
        fprintf(stderr, "culonx: error: out of memory\n");
        return CX_EXIT_INTERNAL;
    }
    st = culonx_dvfs_predict(&m, prof.rows, prof.nrows, clk, nclk, pt, &err);
    if (st != CULONX_OK)
        rc = cx_cli_fail(&err, st);
    else
        culonx_report_dvfs_points(stdout, &prof, pt, nclk, power_path, profile_path, format);
    free(pt);
    culonx_dvfs_table_free(&prof);
    return rc;
}
