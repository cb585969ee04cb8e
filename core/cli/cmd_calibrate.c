/*
 * cmd_calibrate.c — `culonx calibrate TABLE.csv -o POWER.xml
 * [--exclude-family NAME] [--format text|json]`: fits a GPU's DVFS power
 * and time model (hw/power.c, hw/calibrate.c) to a clock table of
 * microbenchmarks and writes it as a <power> XML fragment whose comment
 * records the command that produced it.
 */
#include "core/cli/cli.h"

#include <string.h>

int cx_cli_calibrate(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    const char *out_path = a->value[CX_OPT_OUTPUT];
    const char *exclude = a->value[CX_OPT_EXCLUDE_FAMILY];
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) return rc;
    if (!out_path) return cx_cli_usage_error(a->command, "missing -o POWER.xml%s", "");
    culonx_dvfs_table table;
    culonx_error err;
    culonx_dvfs_model m;
    culonx_power_fit fit;
    culonx_status st = culonx_dvfs_csv_load(a->positional, &table, &err);
    if (st != CULONX_OK) return cx_cli_fail(&err, st);
    st = culonx_power_calibrate(&table, exclude, &m, &fit, &err);
    culonx_dvfs_table_free(&table);
    if (st != CULONX_OK) return cx_cli_fail(&err, st);
    char comment[2048];
    int n =
        snprintf(comment, sizeof comment, "DVFS power model of %s, produced by:\n  culonx", m.gpu);
    for (int i = 0; i < a->argc && n > 0 && (size_t)n < sizeof comment; i++)
        n += snprintf(comment + n, sizeof comment - (size_t)n, " %s", a->argv[i]);
    if (n > 0 && (size_t)n < sizeof comment)
        snprintf(comment + n, sizeof comment - (size_t)n,
                 "\nfit: power R^2 %.4f, time R^2 %.4f (%zu rows, %zu kernels)", fit.power_r2,
                 fit.time_r2, fit.nrows, fit.nkernels);
    cx_cli_out out;
    const char *inputs[1] = {a->positional};
    int rc2 = cx_cli_out_open(&out, out_path, inputs, 1);
    if (rc2) return rc2;
    st = culonx_power_write_xml(out.f, &m, comment, &err);
    rc2 = cx_cli_out_close(&out, st == CULONX_OK ? CX_EXIT_OK : cx_cli_fail(&err, st));
    if (rc2) return rc2;
    culonx_report_calibration(stdout, &m, &fit, a->positional, exclude, out_path,
                              !strcmp(format, "json"));
    return CX_EXIT_OK;
}
