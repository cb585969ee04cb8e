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

FILE *cx_cli_tmp_open(const char *path, char *tmp, size_t n)
{
    if (snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid()) >= (int)n) {
        fprintf(stderr, "%s: error: path too long\n", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    return f;
}

int cx_cli_tmp_close(FILE *f, const char *tmp, const char *path, int rc)
{
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (rc == CX_EXIT_OK && bad) {
        fprintf(stderr, "%s: error: write failed: %s\n", path, strerror(errno));
        rc = CX_EXIT_INPUT;
    }
    if (rc == CX_EXIT_OK && rename(tmp, path) != 0) {
        fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
        rc = CX_EXIT_INPUT;
    }
    if (rc != CX_EXIT_OK) remove(tmp);
    return rc;
}

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
        char tmp[4096];
        FILE *f = cx_cli_tmp_open(out_path, tmp, sizeof tmp);
        if (!f) {
            rc = CX_EXIT_INPUT;
        } else {
            culonx_error err;
            culonx_status st = culonx_report_html(f, run, &err);
            if (st != CULONX_OK) rc = cx_cli_fail(&err, st);
            rc = cx_cli_tmp_close(f, tmp, out_path, rc);
        }
    }
    free(run);
    return rc;
}

int cx_cli_sweep_html(const char *path, const culonx_sweep_result *res, FILE *all_csv)
{
    char tmp[4096];
    if (!*path) return cx_cli_usage_error("sweep", "--report needs a file name%s", "");
    if (all_csv && fflush(all_csv) != 0) all_csv = NULL;
    FILE *f = cx_cli_tmp_open(path, tmp, sizeof tmp);
    if (!f) return CX_EXIT_INPUT;
    culonx_error err;
    culonx_status st = culonx_sweep_report_html(f, res, all_csv, &err);
    int rc = st == CULONX_OK ? CX_EXIT_OK : cx_cli_fail(&err, st);
    return cx_cli_tmp_close(f, tmp, path, rc);
}
