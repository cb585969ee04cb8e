/*
 * cmd_report.c — `culonx report RUN.xml -o REPORT.html`: one self-contained
 * HTML page of a run (culonx_report_html), and the helpers that write an
 * output file through a temporary file renamed into place (also used by
 * `culonx sweep --report`), so a failed write never leaves half a file.
 */
#include "core/cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cx_cli_report(const cx_cli_args *a)
{
    const char *out_path = a->value[CX_OPT_OUTPUT];
    if (a->value[CX_OPT_FORMAT] && strcmp(a->value[CX_OPT_FORMAT], "html"))
        return cx_cli_usage_error(a->command, "--format must be html, not '%s'",
                                  a->value[CX_OPT_FORMAT]);
    if (!out_path || !*out_path)
        return cx_cli_usage_error(a->command, "missing -o REPORT.html%s", "");
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    int rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        cx_cli_out out;
        const char *inputs[6];
        cx_cli_run_inputs(run, inputs);
        rc = cx_cli_out_open(&out, out_path, inputs, 6);
        if (rc == CX_EXIT_OK) {
            culonx_error err;
            culonx_status st = culonx_report_html(out.f, run, &err);
            if (st != CULONX_OK) rc = cx_cli_fail(&err, st);
            rc = cx_cli_out_close(&out, rc);
        }
    }
    free(run);
    return rc;
}

int cx_cli_sweep_html(const char *path, const culonx_sweep_result *res, FILE *all_csv)
{
    if (!*path) return cx_cli_usage_error("sweep", "--report needs a file name%s", "");
    if (all_csv && fflush(all_csv) != 0) all_csv = NULL;
    cx_cli_out out;
    int rc = cx_cli_out_open(&out, path, NULL, 0);
    if (rc) return rc;
    culonx_error err;
    culonx_status st = culonx_sweep_report_html(out.f, res, all_csv, &err);
    return cx_cli_out_close(&out, st == CULONX_OK ? CX_EXIT_OK : cx_cli_fail(&err, st));
}
