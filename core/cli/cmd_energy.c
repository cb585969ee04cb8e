/*
 * cmd_energy.c — `culonx energy RUN.xml [--clocks MIN:MAX:STEP]
 * [--format text|json|csv]`: one run at every SM clock, with the minimum-
 * energy and minimum-EDP clocks and the time-energy Pareto frontier.
 */
#include "core/cli/cli.h"

#include <stdlib.h>

int cx_cli_energy(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", "csv", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) return rc;
    double lo = 0, hi = 0, step = 0;
    const char *clocks = a->value[CX_OPT_CLOCKS];
    if (clocks && cx_cli_clock_range(clocks, &lo, &hi, &step))
        return cx_cli_usage_error(a->command, "--clocks must be MIN:MAX:STEP in MHz, not '%s'",
                                  clocks);
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        culonx_clock_row *rows = NULL;
        int n = 0;
        culonx_error err;
        culonx_status st = culonx_energy_clocks(run, lo, hi, step, &rows, &n, &err);
        if (st != CULONX_OK)
            rc = cx_cli_fail(&err, st);
        else
            culonx_report_clocks(stdout, run, rows, n, format);
        free(rows);
    }
    free(run);
    return rc;
}
