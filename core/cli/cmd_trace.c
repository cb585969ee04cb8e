/*
 * cmd_trace.c — `culonx trace RUN.xml -o TRACE.json [--detail stage|op]`:
 * the evaluated iteration DAG as a Chrome trace (a process per stage, a
 * thread per stream).
 */
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cx_cli_trace(const cx_cli_args *a)
{
    static const char *const details[] = {"stage", "op", NULL};
    static const char *const formats[] = {"json", NULL};
    const char *out_path = a->value[CX_OPT_OUTPUT];
    const char *detail = a->value[CX_OPT_DETAIL] ? a->value[CX_OPT_DETAIL] : "stage";
    if (a->value[CX_OPT_FORMAT]) {
        int rc = cx_cli_check_choice(a->command, "format", a->value[CX_OPT_FORMAT], formats);
        if (rc) return rc;
    }
    if (!out_path)
        return cx_cli_usage_error(a->command, "missing -o FILE (use -o - for stdout)%s", "");
    int rc = cx_cli_check_choice(a->command, "detail", detail, details);
    if (rc) return rc;
    int op_level = !strcmp(detail, "op");
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    cx_cli_out out;
    const char *inputs[6];
    if (rc == CX_EXIT_OK) {
        cx_cli_run_inputs(run, inputs);
        rc = cx_cli_out_open(&out, out_path, inputs, 6);
    }
    if (rc == CX_EXIT_OK) {
        culonx_error err;
        culonx_status st = culonx_trace_write(out.f, run, op_level, &err);
        if (st != CULONX_OK) rc = cx_cli_fail(&err, st);
        rc = cx_cli_out_close(&out, rc);
    }
    free(run);
    return rc;
}
