/*
 * cmd_plan.c — `culonx plan RUN.xml [--time S] [--straggler F] [--power-limit W]
 * [--points N] [--exact] [--bound]
 * [--format text|json|csv]`: per-pass SM clock plans on the iteration DAG,
 * the time-energy frontier, the intrinsic bloat and a plan per stage and
 * phase (culonx_plan, core/eval/plan.c).
 */
#include "core/cli/cli.h"

#include <math.h>
#include <stdlib.h>

static int number(const char *cmd, const char *opt, const char *s, double lo, double *out)
{
    char *e = NULL;
    double v = s ? strtod(s, &e) : 0;
    if (!s || e == s || *e || !isfinite(v) || v < lo)
        return cx_cli_usage_error(cmd, opt, s ? s : "");
    *out = v;
    return 0;
}

int cx_cli_plan(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", "csv", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) return rc;
    culonx_plan_options o = {0};
    double points = 12;
    if (a->value[CX_OPT_PLAN_TIME] &&
        (rc = number(a->command, "--time must be a time in seconds > 0, not '%s'",
                     a->value[CX_OPT_PLAN_TIME], 1e-300, &o.target_time_s)))
        return rc;
    if (a->value[CX_OPT_STRAGGLER] &&
        (rc = number(a->command, "--straggler must be a factor >= 1, not '%s'",
                     a->value[CX_OPT_STRAGGLER], 1.0, &o.straggler)))
        return rc;
    if (a->value[CX_OPT_POINTS] &&
        (rc = number(a->command, "--points must be a count >= 0, not '%s'", a->value[CX_OPT_POINTS],
                     0.0, &points)))
        return rc;
    if (a->value[CX_OPT_POWER_LIMIT] &&
        (rc = number(a->command, "--power-limit must be a power in watts > 0, not '%s'",
                     a->value[CX_OPT_POWER_LIMIT], 1e-300, &o.power_limit_w)))
        return rc;
    if (a->value[CX_OPT_CARBON] &&
        (rc = number(a->command, "--carbon-g-per-kwh must be >= 0, not '%s'",
                     a->value[CX_OPT_CARBON], 0.0, &o.carbon_g_per_kwh)))
        return rc;
    o.exact = a->given[CX_OPT_EXACT] != 0;
    if (a->value[CX_OPT_EXACT_AT]) {
        double n = 0;
        if ((rc = number(a->command, "--exact-at must be a count of times >= 1, not '%s'",
                         a->value[CX_OPT_EXACT_AT], 1.0, &n)))
            return rc;
        if (o.exact)
            return cx_cli_usage_error(a->command, "--exact and --exact-at exclude each other%s",
                                      "");
        o.exact = 1, o.points = (int)n;
    }
    if (a->value[CX_OPT_EXACT_CUTS]) {
        double k = 0;
        if ((rc = number(a->command, "--exact-cuts must be a count >= 1, not '%s'",
                         a->value[CX_OPT_EXACT_CUTS], 1.0, &k)))
            return rc;
        if (!a->value[CX_OPT_EXACT_AT])
            return cx_cli_usage_error(a->command, "--exact-cuts needs --exact-at%s", "");
        o.exact_steps = (long)k;
    }
    o.bound = a->given[CX_OPT_BOUND] != 0;
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        culonx_plan_result res;
        culonx_error err;
        culonx_status st = culonx_plan(run, &o, &res, &err);
        if (st != CULONX_OK)
            rc = cx_cli_fail(&err, st);
        else
            culonx_report_plan(stdout, run, &res, format, (int)points);
        culonx_plan_result_free(&res);
    }
    free(run);
    return rc;
}
