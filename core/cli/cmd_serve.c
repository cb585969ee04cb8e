/*
 * cmd_serve.c — `culonx serve RUN.xml [--clocks MIN:MAX:STEP]
 * [--format text|json|csv]`: the run's <serving> instance at every SM clock
 * (TTFT, TPOT, throughput, memory, power, energy, SLO marks); with
 * `--plan --gpus N`, DynamoLLM's pool plan (TP degrees x clocks) for the
 * run's load on N GPUs against the all-max-clock baseline.
 */
#include "core/cli/cli.h"

#include <errno.h>
#include <stdlib.h>

int cx_cli_serve(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", "csv", NULL};
    static const char *const plan_formats[] = {"text", "json", NULL};
    const int plan = a->given[CX_OPT_PLAN];
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    int rc = cx_cli_check_choice(a->command, "format", format, plan ? plan_formats : formats);
    if (rc) return rc;
    double lo = 0, hi = 0, step = 0;
    const char *clocks = a->value[CX_OPT_CLOCKS];
    if (clocks && cx_cli_clock_range(clocks, &lo, &hi, &step))
        return cx_cli_usage_error(a->command, "--clocks must be MIN:MAX:STEP in MHz, not '%s'",
                                  clocks);
    long long gpus = 0;
    if (plan) {
        const char *g = a->value[CX_OPT_GPUS];
        if (!g) return cx_cli_usage_error(a->command, "--plan needs --gpus N%s", "");
        char *end = NULL;
        errno = 0;
        gpus = strtoll(g, &end, 10);
        if (end == g || *end || errno || gpus < 1 || gpus > 100000)
            return cx_cli_usage_error(a->command, "--gpus must be an integer 1..100000, not '%s'",
                                      g);
    } else if (a->value[CX_OPT_GPUS]) {
        return cx_cli_usage_error(a->command, "--gpus is for --plan%s", "");
    }
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        culonx_error err;
        culonx_status st;
        if (plan) {
            culonx_serve_plan *p = malloc(sizeof *p);
            if (!p) {
                free(run);
                return CX_EXIT_INTERNAL;
            }
            st = culonx_serve_plan_solve(run, (int64_t)gpus, lo, hi, step, p, &err);
            if (st != CULONX_OK)
                rc = cx_cli_fail(&err, st);
            else
                culonx_report_serve_plan(stdout, run, p, format);
            free(p);
        } else {
            culonx_serve_row *rows = NULL;
            int n = 0;
            st = culonx_serve_clocks(run, lo, hi, step, &rows, &n, &err);
            if (st != CULONX_OK)
                rc = cx_cli_fail(&err, st);
            else
                culonx_report_serve(stdout, run, rows, n, format);
            free(rows);
        }
    }
    free(run);
    return rc;
}
