/*
 * cmd_schedules.c — `culonx schedules RUN.xml [--format text|json]`: every
 * pipeline schedule side by side for one run.
 */
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cx_cli_schedules(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) return rc;
    culonx_run *run = malloc(sizeof *run);
    culonx_schedule_row *rows = malloc(sizeof *rows * CULONX_SCHED_MAX);
    if (!run || !rows) {
        free(run), free(rows);
        return CX_EXIT_INTERNAL;
    }
    rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        int n = 0, best = -1;
        culonx_error err;
        culonx_status st = culonx_schedules_compare(run, rows, &n, &best, &err);
        if (st != CULONX_OK)
            rc = cx_cli_fail(&err, st);
        else
            culonx_report_schedules(stdout, run, rows, n, best, !strcmp(format, "json"));
    }
    free(run), free(rows);
    return rc;
}
