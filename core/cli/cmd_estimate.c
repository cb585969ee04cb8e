/*
 * cmd_estimate.c — `culonx estimate RUN.xml [--engine closed|graph|graph-op]
 * [--format text|json]`: one iteration in closed form or through the DAG.
 */
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cx_cli_estimate(const cx_cli_args *a)
{
    static const char *const formats[] = {"text", "json", NULL};
    static const char *const engines[] = {"closed", "graph", "graph-op", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    const char *engine = a->value[CX_OPT_ENGINE] ? a->value[CX_OPT_ENGINE] : "closed";
    int rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (!rc) rc = cx_cli_check_choice(a->command, "engine", engine, engines);
    if (rc) return rc;
    int graph = strcmp(engine, "closed") != 0, op_level = !strcmp(engine, "graph-op");
    culonx_run *run = malloc(sizeof *run);
    if (!run) return CX_EXIT_INTERNAL;
    rc = cx_cli_load_run(a, run, 0);
    if (rc == CX_EXIT_OK) {
        culonx_result res;
        culonx_error err;
        culonx_status st = graph ? culonx_estimate_graph(run, op_level, &res, &err)
                                 : culonx_estimate(run, &res, &err);
        if (st != CULONX_OK)
            rc = cx_cli_fail(&err, st);
        else if (!strcmp(format, "json"))
            culonx_report_json(stdout, run, &res);
        else
            culonx_report_text(stdout, run, &res);
    }
    free(run);
    return rc;
}
