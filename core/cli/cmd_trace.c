/*
 * cmd_trace.c — `culonx trace RUN.xml -o TRACE.json[.gz] [--detail stage|op]
 * [--max-events N] [--plan SECONDS]` and `--format chakra -o DIR`: the evaluated iteration DAG as a
 * Chrome trace (a process per stage, a thread per stream); gzip when the name ends in .gz; a
 * warning when the JSON exceeds ~100 MB (Perfetto loads it slowly or not at all).
 */
#define _POSIX_C_SOURCE 200809L
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CX_TRACE_WARN_BYTES 100000000LL

int cx_cli_trace(const cx_cli_args *a)
{
    static const char *const details[] = {"stage", "op", NULL};
    static const char *const formats[] = {"json", "chakra", NULL};
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
    culonx_trace_options opt = {.op_level = !strcmp(detail, "op")};
    int chakra = a->value[CX_OPT_FORMAT] && !strcmp(a->value[CX_OPT_FORMAT], "chakra");
    if (chakra && (!strcmp(out_path, "-") || a->value[CX_OPT_MAX_EVENTS]))
        return cx_cli_usage_error(a->command,
                                  "--format chakra writes a directory (-o DIR), without "
                                  "--max-events%s",
                                  "");
    if (a->value[CX_OPT_TRACE_PLAN]) {
        const char *v = a->value[CX_OPT_TRACE_PLAN];
        char *end;
        double t = strtod(v, &end);
        if (end == v || *end || !(t > 0) || !(t < 1e300))
            return cx_cli_usage_error(a->command, "--plan must be a time in seconds > 0, not '%s'",
                                      v);
        if (chakra || opt.op_level)
            return cx_cli_usage_error(a->command,
                                      "--plan traces the stage-level DAG as JSON (not with "
                                      "--format chakra or --detail op)%s",
                                      "");
        opt.plan_time_s = t;
    }
    if (a->value[CX_OPT_MAX_EVENTS]) {
        char *end;
        long long v = strtoll(a->value[CX_OPT_MAX_EVENTS], &end, 10);
        if (end == a->value[CX_OPT_MAX_EVENTS] || *end || v <= 0)
            return cx_cli_usage_error(a->command,
                                      "--max-events must be a positive integer, not '%s'",
                                      a->value[CX_OPT_MAX_EVENTS]);
        opt.max_events = v;
    }
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    const char *inputs[6];
    if (rc == CX_EXIT_OK) {
        if (strcmp(out_path, "-")) {
            cx_cli_run_inputs(run, inputs);
            rc = cx_cli_out_check(out_path, inputs, 6, chakra);
        }
    }
    if (rc == CX_EXIT_OK) {
        /* culonx_trace_save writes PATH.tmp.PID and renames it: remove it
         * if a signal stops the command */
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid());
        int guard = !chakra && strcmp(out_path, "-");
        if (guard) cx_cli_out_guard(tmp);
        size_t len = strlen(out_path);
        int gz = len > 3 && !strcmp(out_path + len - 3, ".gz");
        culonx_error err;
        culonx_trace_info info;
        culonx_status st = chakra ? culonx_chakra_write(out_path, run, &opt, &info, &err)
                           : strcmp(out_path, "-")
                               ? culonx_trace_save(out_path, run, &opt, &info, &err)
                               : culonx_trace_write_opts(stdout, run, &opt, &info, &err);
        if (st == CULONX_OK && chakra)
            fprintf(stderr, "culonx trace: %lld Chakra nodes (%lld send/receive pairs) in %s\n",
                    (long long)info.events, (long long)info.flows, out_path);
        if (st != CULONX_OK) rc = cx_cli_fail(&err, st);
        if (st == CULONX_OK && info.dropped > 0)
            fprintf(stderr,
                    "culonx trace: note: kept the first %lld events of %lld (--max-events)\n",
                    (long long)info.events, (long long)(info.events + info.dropped));
        if (st == CULONX_OK && info.bytes > CX_TRACE_WARN_BYTES)
            fprintf(stderr,
                    "culonx trace: warning: the trace is %.0f MB of JSON (%lld events); Perfetto "
                    "may not load it: use --max-events N or --detail stage%s\n",
                    (double)info.bytes / 1e6, (long long)info.events,
                    gz ? "" : " (or -o NAME.json.gz)");
        if (guard) cx_cli_out_unguard(tmp);
    }
    free(run);
    return rc;
}
