/*
 * cmd_sweep.c — `culonx sweep RUN.xml [options]`: every parallelism strategy
 * of the run's model on its system, ranked (core/search/sweep.c). Sweep options of
 * the option table are passed to culonx_sweep_option by name, in order;
 * `--set execution.KEY=V` also fixes the swept dimension KEY unless its own
 * option is given. Under mpirun every rank runs this; rank 0 prints.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* isatty */

/* execution.KEY of --set -> the sweep option fixing the same dimension */
static const struct {
    const char *key;
    cx_cli_opt opt;
} set_map[] = {
    {"gpus", CX_OPT_GPUS},
    {"global-batch", CX_OPT_GLOBAL_BATCH},
    {"tp", CX_OPT_TP},
    {"pp", CX_OPT_PP},
    {"vp", CX_OPT_VP},
    {"microbatch", CX_OPT_MB},
    {"recompute", CX_OPT_RECOMPUTE},
    {"schedule", CX_OPT_SCHEDULE},
    {"sequence-parallel", CX_OPT_SP},
    {"distributed-optimizer", CX_OPT_DIST_OPT},
    {"dp-overlap", CX_OPT_DP_OVERLAP},
    {"clock-mhz", CX_OPT_CLOCKS},
    {"cp", CX_OPT_CP},
    {"attention", CX_OPT_ATTENTION},
    {"tp-overlap", CX_OPT_TP_OVERLAP},
    {"ep", CX_OPT_EP},
    {"etp", CX_OPT_ETP},
    {"zero", CX_OPT_ZERO},
    {"shard-group", CX_OPT_SHARD_GROUP},
    {"offload", CX_OPT_OFFLOAD},
};

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double t0_s, last_plain_s;

/* --progress tty: one line rewritten in place */
static void progress(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    double t = now_s() - t0_s;
    double rate = t > 0 ? (double)done / t : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\rsweep: %llu/%llu (%.1f%%) %.0f/s ETA %.0f s   ", (unsigned long long)done,
            (unsigned long long)total, total ? 100.0 * (double)done / (double)total : 100.0, rate,
            eta);
    if (done >= total) fputc('\n', stderr);
    fflush(stderr);
}

/* --progress plain: a new line every 5 s and at the end (logs, CI) */
static void progress_plain(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    double t = now_s() - t0_s;
    if (done < total && t - last_plain_s < 5.0) return;
    last_plain_s = t;
    double rate = t > 0 ? (double)done / t : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "sweep: progress %llu/%llu candidates (%.1f%%), %.1f s, %.0f/s, ETA %.0f s\n",
            (unsigned long long)done, (unsigned long long)total,
            total ? 100.0 * (double)done / (double)total : 100.0, t, rate, eta);
    fflush(stderr);
}

static int option(culonx_sweep_spec *spec, const char *name, const char *value, int rank,
                  const char *set)
{
    culonx_error err;
    if (culonx_sweep_option(spec, name, value, &err) == CULONX_OK) return CX_EXIT_OK;
    if (set) {
        if (rank == 0) fprintf(stderr, "culonx sweep: --set %s: %s\n", set, err.msg);
        return CX_EXIT_INPUT;
    }
    if (rank == 0) fprintf(stderr, "culonx sweep: %s\nTry 'culonx sweep --help'.\n", err.msg);
    return CX_EXIT_USAGE;
}

/* --set execution.KEY=V for swept dimensions not given as options */
static int apply_sets(const cx_cli_args *a, culonx_sweep_spec *spec, int rank)
{
    for (int i = 0; i < a->nsets; i++) {
        const char *s = a->sets[i], *eq = strchr(s, '=');
        if (strncmp(s, "execution.", 10) != 0 || !eq) continue;
        for (size_t j = 0; j < sizeof set_map / sizeof set_map[0]; j++) {
            size_t n = strlen(set_map[j].key);
            if ((size_t)(eq - s - 10) != n || strncmp(s + 10, set_map[j].key, n)) continue;
            cx_cli_opt k = set_map[j].opt;
            if (a->given[k] || (k == CX_OPT_MB && a->given[CX_OPT_MICROBATCH])) break;
            int rc = option(spec, cx_cli_options[k].name, eq + 1, rank, s);
            if (rc) return rc;
        }
    }
    return CX_EXIT_OK;
}

static int body(const cx_cli_args *a, int rank, int size)
{
    static const char *const formats[] = {"text", "json", NULL};
    const char *format = a->value[CX_OPT_FORMAT] ? a->value[CX_OPT_FORMAT] : "text";
    const char *all_path = a->value[CX_OPT_ALL];
    culonx_sweep_spec *spec = malloc(sizeof *spec);
    culonx_run *run = malloc(sizeof *run);
    cx_cli_out all = {0};
    FILE *rows_tmp = NULL;
    int rc = CX_EXIT_INTERNAL;
    if (!spec || !run) goto out;
    culonx_sweep_spec_init(spec);
    spec->tp_across_nodes = a->given[CX_OPT_TP_ACROSS_NODES];
    spec->no_prune = a->given[CX_OPT_NO_PRUNE];
    for (int i = 0; i < a->nsweep; i++) {
        rc = option(spec, cx_cli_options[a->sweep_opt[i]].name, a->sweep_val[i], rank, NULL);
        if (rc) goto out;
    }
    rc = cx_cli_check_choice(a->command, "format", format, formats);
    if (rc) goto out;
    if (a->value[CX_OPT_ENGINE] && strcmp(a->value[CX_OPT_ENGINE], "closed")) {
        rc = cx_cli_usage_error(a->command, "--engine must be closed, not '%s'",
                                a->value[CX_OPT_ENGINE]);
        goto out;
    }
    if (all_path && !*all_path) {
        rc = cx_cli_usage_error(a->command, "--all needs a file name%s", "");
        goto out;
    }
    rc = apply_sets(a, spec, rank);
    if (rc) goto out;
    rc = cx_cli_load_run(a, run, rank != 0);
    if (rc) goto out;
    if (all_path) {
        const char *inputs[6];
        cx_cli_run_inputs(run, inputs);
        rc = cx_cli_out_open(&all, all_path, inputs, 6);
        if (rc) goto out;
        size_t n = strlen(all_path);
        spec->all = all.f;
        spec->all_jsonl = n >= 6 && strcmp(all_path + n - 6, ".jsonl") == 0;
    } else if (a->value[CX_OPT_REPORT] && size == 1) {
        rows_tmp = tmpfile(); /* every row for the report's scatter (issue 14) */
        spec->all = rows_tmp;
    }
    static const char *const modes[] = {"tty", "plain", "off", NULL};
    const char *mode = a->value[CX_OPT_PROGRESS];
    if (mode) {
        rc = cx_cli_check_choice(a->command, "progress", mode, modes);
        if (rc) goto out;
    } else {
        mode = isatty(2) ? "tty" : "off";
    }
    int quiet = a->given[CX_OPT_QUIET];
    if (!quiet && rank == 0 && strcmp(mode, "off"))
        spec->progress = !strcmp(mode, "plain") ? progress_plain : progress;
    t0_s = now_s(), last_plain_s = 0;
    culonx_sweep_result *res = NULL;
    culonx_error err;
    culonx_status st = culonx_sweep_run(run, spec, &res, &err);
    if (st != CULONX_OK) {
        if (rank == 0) cx_cli_print_error(&err);
        rc = cx_cli_status_exit(st);
        goto out;
    }
    if (!strcmp(format, "json"))
        culonx_sweep_report_json(stdout, res);
    else
        culonx_sweep_report_text(stdout, res);
    /* the closing summary: on stderr, so that the report stays identical
     * for any thread or rank count (it carries the counts, not the time) */
    if (!quiet && rank == 0) {
        double t = now_s() - t0_s;
        fprintf(stderr,
                "sweep: %llu candidates, %llu evaluated, %llu pruned, %llu feasible in %.2f s on "
                "%d thread%s: %.0f evaluations/s\n",
                (unsigned long long)res->enumerated, (unsigned long long)res->evaluated,
                (unsigned long long)res->pruned, (unsigned long long)res->feasible, t,
                res->spec.threads, res->spec.threads == 1 ? "" : "s",
                t > 0 ? (double)res->evaluated / t : 0.0);
    }
    rc = CX_EXIT_OK;
    if (res->feasible == 0) { /* nothing to run: exit 1, with why */
        if (rank == 0) {
            fprintf(stderr, "culonx sweep: no feasible configuration among %llu candidates;",
                    (unsigned long long)res->enumerated);
            const char *sep = " rejected:";
            for (int r = 0; r < CULONX_REJECT_COUNT; r++)
                if (res->rejected[r]) {
                    fprintf(stderr, "%s %s %llu", sep,
                            culonx_sweep_reject_name((culonx_sweep_reject)r),
                            (unsigned long long)res->rejected[r]);
                    sep = ",";
                }
            fputc('\n', stderr);
        }
        rc = CX_EXIT_INPUT;
    }
    if (a->value[CX_OPT_REPORT] && rank == 0) {
        FILE *rows = spec->all_jsonl ? NULL : all.f ? all.f : rows_tmp;
        int rr = cx_cli_sweep_html(a->value[CX_OPT_REPORT], res, rows);
        if (rr && rc == CX_EXIT_OK) rc = rr;
    }
    culonx_sweep_result_free(res);
out:
    if (rows_tmp) fclose(rows_tmp);
    rc = cx_cli_out_close(&all, rc);
    free(spec);
    free(run);
    return rc;
}

int cx_cli_sweep(const cx_cli_args *a)
{
    int rank, size;
    culonx_sweep_mpi_begin(NULL, NULL, &rank, &size);
    int rc = body(a, rank, size);
    culonx_sweep_mpi_end();
    return rc;
}
