/*
 * main.c — the culonx command line. The only file that reads argv or prints
 * to the terminal; everything else is in libculonx (culonx.h).
 *
 * Exit codes: 0 ok, 1 bad input (file:line: error: ... on stderr), 2 usage,
 * 3 internal error.
 */
#define _POSIX_C_SOURCE 200809L
#include "culonx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* isatty */

#define MAX_SETS 256


enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

static void print_error(const culonx_error *err)
{
    if (err->file[0] && err->line > 0)
        fprintf(stderr, "%s:%d: error: %s\n", err->file, err->line, err->msg);
    else if (err->file[0])
        fprintf(stderr, "%s: error: %s\n", err->file, err->msg);
    else
        fprintf(stderr, "culonx: error: %s\n", err->msg);
}

static int status_exit(culonx_status st)
{
    switch (st) {
    case CULONX_OK: return EXIT_OK;
    case CULONX_EINPUT: return EXIT_INPUT;
    case CULONX_EUSAGE: return EXIT_USAGE;
    default: return EXIT_INTERNAL;
    }
}

#include "core/main_dvfs.h"

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "culonx %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'culonx help'.\n");
    return EXIT_USAGE;
}

static void usage(FILE *out)
{
    fputs("usage: culonx <command> [options]\n"
          "\n"
          "commands:\n"
          "  estimate RUN.xml     time, memory, FLOPs, MFU (and energy) of one iteration\n"
          "  trace RUN.xml -o TRACE.json [--detail stage|op]\n"
          "                       Chrome/Perfetto timeline of the iteration DAG\n"
          "  schedules RUN.xml    every pipeline schedule side by side\n"
          "  energy RUN.xml [--clocks MIN:MAX:STEP] [--format text|json|csv]\n"
          "                       time and energy at every SM clock\n"
          "  sweep RUN.xml        rank every parallelism strategy (see culonx sweep --help)\n"
          "  calibrate SWEEP.csv -o POWER.xml   fit a GPU's DVFS power model\n"
          "  dvfs-predict --power POWER.xml --profile PROFILE.csv\n"
          "                       time/power/energy of profiled kernels at every clock\n"
          "  help                 this text\n"
          "  version              print the version\n"
          "\n"
          "common options:\n"
          "  --set section.key=value   override a config field (repeatable), e.g.\n"
          "                            --set execution.tp=4 --set model.seq=4096\n"
          "  --format text|json        output format (default text)\n"
          "  --schema FILE             schema to validate against (default configs/culonx.xsd)\n"
          "  --engine closed|graph|graph-op   estimate in closed form (default) or through\n"
          "                            the iteration DAG at stage or op level\n",
          out);
}

/* Options shared by the commands that read a run file. */
typedef struct {
    const char *run_path;
    const char *sets[MAX_SETS];
    int nsets;
    const char *format;
    const char *schema;
    const char *engine;
} run_opts;

/* Parses the common options; unknown options are an error unless `extra`
 * accepts them (returns the number of argv slots it consumed, 0 if not its). */
typedef int (*extra_opt_fn)(void *ctx, int argc, char **argv, int i);

static int parse_run_opts(const char *cmd, int argc, char **argv, run_opts *o, extra_opt_fn extra,
                          void *ctx)
{
    memset(o, 0, sizeof *o);
    o->format = "text";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int need = (strcmp(a, "--set") == 0 || strcmp(a, "--format") == 0 ||
                    strcmp(a, "--schema") == 0 || strcmp(a, "--engine") == 0);
        if (need && i + 1 >= argc) return usage_error(cmd, "option %s needs a value", a);
        if (strcmp(a, "--set") == 0) {
            if (o->nsets >= MAX_SETS) return usage_error(cmd, "too many --set options%s", "");
            o->sets[o->nsets++] = argv[++i];
        } else if (strncmp(a, "--set=", 6) == 0) {
            if (o->nsets >= MAX_SETS) return usage_error(cmd, "too many --set options%s", "");
            o->sets[o->nsets++] = a + 6;
        } else if (strcmp(a, "--format") == 0) {
            o->format = argv[++i];
        } else if (strcmp(a, "--schema") == 0) {
            o->schema = argv[++i];
        } else if (strcmp(a, "--engine") == 0) {
            o->engine = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            int used = extra ? extra(ctx, argc, argv, i) : 0;
            if (used < 0) return EXIT_USAGE;
            if (used == 0) return usage_error(cmd, "unknown option '%s'", a);
            i += used - 1;
        } else if (!o->run_path) {
            o->run_path = a;
        } else {
            return usage_error(cmd, "unexpected argument '%s'", a);
        }
    }
    if (!o->run_path) return usage_error(cmd, "missing RUN.xml%s", "");
    return EXIT_OK;
}

static int load_run(const run_opts *o, culonx_run *run)
{
    culonx_error err;
    memset(&err, 0, sizeof err);
    culonx_status st = culonx_run_load(o->run_path, o->sets, o->nsets, o->schema, run, &err);
    if (st != CULONX_OK) {
        print_error(&err);
        return status_exit(st);
    }
    return EXIT_OK;
}

static int cmd_estimate(int argc, char **argv)
{
    run_opts o;
    int rc = parse_run_opts("estimate", argc, argv, &o, NULL, NULL);
    if (rc) return rc;
    if (strcmp(o.format, "text") && strcmp(o.format, "json"))
        return usage_error("estimate", "--format must be text or json, not '%s'", o.format);
    int graph = 0, op_level = 0;
    if (o.engine) {
        if (!strcmp(o.engine, "graph")) graph = 1;
        else if (!strcmp(o.engine, "graph-op")) graph = op_level = 1;
        else if (strcmp(o.engine, "closed"))
            return usage_error("estimate", "--engine must be closed, graph or graph-op, not '%s'",
                               o.engine);
    }
    culonx_run *run = malloc(sizeof *run);
    if (!run) return EXIT_INTERNAL;
    rc = load_run(&o, run);
    if (rc == EXIT_OK) {
        culonx_result res;
        culonx_error err;
        culonx_status st = graph ? culonx_estimate_graph(run, op_level, &res, &err)
                                 : culonx_estimate(run, &res, &err);
        if (st != CULONX_OK) {
            print_error(&err);
            rc = status_exit(st);
        } else if (strcmp(o.format, "json") == 0) {
            culonx_report_json(stdout, run, &res);
        } else {
            culonx_report_text(stdout, run, &res);
        }
    }
    free(run);
    return rc;
}

/* ----------------------------------------------------------------- trace */

typedef struct {
    const char *out_path;
    const char *detail;
    const char *clocks;
} extra_opts;

static int extra_opt(void *ctx, int argc, char **argv, int i)
{
    extra_opts *x = ctx;
    const char *a = argv[i];
    const char **slot = NULL;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) slot = &x->out_path;
    else if (!strcmp(a, "--detail")) slot = &x->detail;
    else if (!strcmp(a, "--clocks")) slot = &x->clocks;
    if (!slot) return 0;
    if (i + 1 >= argc) {
        fprintf(stderr, "culonx: option %s needs a value\n", a);
        return -1;
    }
    *slot = argv[i + 1];
    return 2;
}

static int cmd_trace(int argc, char **argv)
{
    run_opts o;
    extra_opts x = {NULL, "stage", NULL};
    int rc = parse_run_opts("trace", argc, argv, &o, extra_opt, &x);
    if (rc) return rc;
    if (x.clocks) return usage_error("trace", "unknown option '%s'", "--clocks");
    if (!x.out_path) return usage_error("trace", "missing -o FILE (use -o - for stdout)%s", "");
    int op_level = 0;
    if (!strcmp(x.detail, "op")) op_level = 1;
    else if (strcmp(x.detail, "stage"))
        return usage_error("trace", "--detail must be stage or op, not '%s'", x.detail);
    culonx_run *run = malloc(sizeof *run);
    if (!run) return EXIT_INTERNAL;
    rc = load_run(&o, run);
    if (rc == EXIT_OK) {
        FILE *f = strcmp(x.out_path, "-") ? fopen(x.out_path, "w") : stdout;
        if (!f) {
            fprintf(stderr, "%s: error: cannot write: %s\n", x.out_path, strerror(errno));
            rc = EXIT_INPUT;
        } else {
            culonx_error err;
            culonx_status st = culonx_trace_write(f, run, op_level, &err);
            if (st != CULONX_OK) {
                print_error(&err);
                rc = status_exit(st);
            }
            if (f != stdout && fclose(f) != 0 && rc == EXIT_OK) {
                fprintf(stderr, "%s: error: %s\n", x.out_path, strerror(errno));
                rc = EXIT_INTERNAL;
            }
        }
    }
    free(run);
    return rc;
}

/* ------------------------------------------------------------- schedules */

static int cmd_schedules(int argc, char **argv)
{
    run_opts o;
    int rc = parse_run_opts("schedules", argc, argv, &o, NULL, NULL);
    if (rc) return rc;
    if (strcmp(o.format, "text") && strcmp(o.format, "json"))
        return usage_error("schedules", "--format must be text or json, not '%s'", o.format);
    culonx_run *run = malloc(sizeof *run);
    culonx_schedule_row *rows = malloc(sizeof *rows * CULONX_SCHED_COUNT);
    if (!run || !rows) {
        free(run), free(rows);
        return EXIT_INTERNAL;
    }
    rc = load_run(&o, run);
    if (rc == EXIT_OK) {
        int n = 0, best = -1;
        culonx_error err;
        culonx_status st = culonx_schedules_compare(run, rows, &n, &best, &err);
        if (st != CULONX_OK) {
            print_error(&err);
            rc = status_exit(st);
        } else {
            culonx_report_schedules(stdout, run, rows, n, best, !strcmp(o.format, "json"));
        }
    }
    free(run), free(rows);
    return rc;
}

/* ---------------------------------------------------------------- energy */

/* MIN:MAX:STEP in MHz, all positive numbers */
static int parse_clock_range(const char *s, double *lo, double *hi, double *step)
{
    char *e1, *e2, *e3;
    *lo = strtod(s, &e1);
    if (*e1 != ':') return -1;
    *hi = strtod(e1 + 1, &e2);
    if (*e2 != ':') return -1;
    *step = strtod(e2 + 1, &e3);
    if (*e3 != '\0' || !(*lo > 0) || !(*hi > 0) || !(*step > 0) || *lo > *hi) return -1;
    return 0;
}

static int cmd_energy(int argc, char **argv)
{
    run_opts o;
    extra_opts x = {NULL, NULL, NULL};
    int rc = parse_run_opts("energy", argc, argv, &o, extra_opt, &x);
    if (rc) return rc;
    if (x.out_path || x.detail) return usage_error("energy", "unknown option%s", "");
    if (strcmp(o.format, "text") && strcmp(o.format, "json") && strcmp(o.format, "csv"))
        return usage_error("energy", "--format must be text, json or csv, not '%s'", o.format);
    double lo = 0, hi = 0, step = 0;
    if (x.clocks && parse_clock_range(x.clocks, &lo, &hi, &step))
        return usage_error("energy", "--clocks must be MIN:MAX:STEP in MHz, not '%s'", x.clocks);
    culonx_run *run = malloc(sizeof *run);
    if (!run) return EXIT_INTERNAL;
    rc = load_run(&o, run);
    if (rc == EXIT_OK) {
        culonx_clock_row *rows = NULL;
        int n = 0;
        culonx_error err;
        culonx_status st = culonx_energy_clocks(run, lo, hi, step, &rows, &n, &err);
        if (st != CULONX_OK) {
            print_error(&err);
            rc = status_exit(st);
        } else {
            culonx_report_clocks(stdout, run, rows, n, o.format);
        }
        free(rows);
    }
    free(run);
    return rc;
}

/* ---- culonx sweep (issue 5): every execution of a model on a system ---- */


/* Options that take a value, passed to culonx_sweep_option by name. */
static const char *const sweep_valued[] = {
    "gpus", "global-batch", "tp", "pp", "vp", "mb", "microbatch", "recompute", "schedule", "sp",
    "dist-opt", "dp-overlap", "clocks", "objective", "top", "threads", "max-memory-gib",
    "min-global-batch", "max-global-batch", "max-microbatch", "verify", NULL};

/* --set execution.KEY=V also fixes the swept dimension KEY (unless its own
 * option is given). */
static const char *const sweep_set_map[][2] = {
    {"gpus", "gpus"}, {"global-batch", "global-batch"}, {"tp", "tp"}, {"pp", "pp"},
    {"vp", "vp"}, {"microbatch", "mb"}, {"recompute", "recompute"}, {"schedule", "schedule"},
    {"sequence-parallel", "sp"}, {"distributed-optimizer", "dist-opt"},
    {"dp-overlap", "dp-overlap"}, {"clock-mhz", "clocks"}, {NULL, NULL}};

typedef struct {
    culonx_sweep_spec *spec;
    const char *all_path;
    int quiet;
    int given[64]; /* per sweep_valued entry: option seen */
} sweep_ctx;

static int sweep_opt(void *vctx, int argc, char **argv, int i)
{
    sweep_ctx *c = vctx;
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0) return 0;
    const char *name = a + 2;
    if (!strcmp(name, "tp-across-nodes")) return c->spec->tp_across_nodes = 1, 1;
    if (!strcmp(name, "quiet")) return c->quiet = 1, 1;
    if (!strcmp(name, "no-prune")) return c->spec->no_prune = 1, 1;
    char key[64];
    const char *value = NULL;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len >= sizeof key) return 0;
    memcpy(key, name, len);
    key[len] = '\0';
    int used = 1;
    if (eq) value = eq + 1;
    int is_all = !strcmp(key, "all"), k = -1;
    for (int j = 0; sweep_valued[j]; j++)
        if (!strcmp(key, sweep_valued[j])) k = j;
    if (k < 0 && !is_all) return 0;
    if (!value) {
        if (i + 1 >= argc) return usage_error("sweep", "option %s needs a value", a), -1;
        value = argv[i + 1];
        used = 2;
    }
    if (is_all) {
        if (!*value) return usage_error("sweep", "--all needs a file name%s", ""), -1;
        c->all_path = value;
        return used;
    }
    culonx_error err;
    if (culonx_sweep_option(c->spec, key, value, &err) != CULONX_OK) {
        fprintf(stderr, "culonx sweep: %s\nTry 'culonx help'.\n", err.msg);
        return -1;
    }
    c->given[k] = 1;
    return used;
}

static double sweep_now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double sweep_t0;

static void sweep_progress(void *ctx, uint64_t done, uint64_t total)
{
    (void)ctx;
    double t = sweep_now_s() - sweep_t0;
    double rate = t > 0 ? (double)done / t : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\rsweep: %llu/%llu (%.1f%%) %.0f/s ETA %.0f s   ",
            (unsigned long long)done, (unsigned long long)total,
            total ? 100.0 * (double)done / (double)total : 100.0, rate, eta);
    if (done >= total) fputc('\n', stderr);
    fflush(stderr);
}

static int sweep_body(int argc, char **argv, int rank)
{
    culonx_sweep_spec *spec = malloc(sizeof *spec);
    culonx_run *run = malloc(sizeof *run);
    sweep_ctx c;
    memset(&c, 0, sizeof c);
    run_opts o;
    int rc = EXIT_INTERNAL;
    FILE *all = NULL;
    if (!spec || !run) goto out;
    culonx_sweep_spec_init(spec);
    c.spec = spec;
    rc = parse_run_opts("sweep", argc, argv, &o, sweep_opt, &c);
    if (rc) goto out;
    if (strcmp(o.format, "text") && strcmp(o.format, "json")) {
        rc = usage_error("sweep", "--format must be text or json, not '%s'", o.format);
        goto out;
    }
    if (o.engine && strcmp(o.engine, "closed")) {
        rc = usage_error("sweep", "--engine must be closed, not '%s'", o.engine);
        goto out;
    }
    for (int i = 0; i < o.nsets; i++) {
        const char *s = o.sets[i];
        if (strncmp(s, "execution.", 10) != 0) continue;
        const char *eq = strchr(s, '=');
        if (!eq) continue;
        for (int j = 0; sweep_set_map[j][0]; j++) {
            size_t n = strlen(sweep_set_map[j][0]);
            if ((size_t)(eq - s - 10) != n || strncmp(s + 10, sweep_set_map[j][0], n)) continue;
            int k = -1;
            for (int q = 0; sweep_valued[q]; q++)
                if (!strcmp(sweep_valued[q], sweep_set_map[j][1])) k = q;
            if (k >= 0 && (c.given[k] || (k == 5 && c.given[6]) || (k == 6 && c.given[5]))) break;
            culonx_error err;
            if (culonx_sweep_option(spec, sweep_set_map[j][1], eq + 1, &err) != CULONX_OK) {
                if (rank == 0) fprintf(stderr, "culonx sweep: --set %s: %s\n", s, err.msg);
                rc = EXIT_INPUT;
                goto out;
            }
        }
    }
    if (rank == 0) {
        rc = load_run(&o, run);
    } else {
        culonx_error err;
        culonx_status st = culonx_run_load(o.run_path, o.sets, o.nsets, o.schema, run, &err);
        rc = status_exit(st);
    }
    if (rc) goto out;
    if (c.all_path) {
        all = fopen(c.all_path, "w");
        if (!all) {
            if (rank == 0)
                fprintf(stderr, "culonx sweep: cannot write %s: %s\n", c.all_path, strerror(errno));
            rc = EXIT_INPUT;
            goto out;
        }
        size_t n = strlen(c.all_path);
        spec->all = all;
        spec->all_jsonl = n >= 6 && strcmp(c.all_path + n - 6, ".jsonl") == 0;
    }
    if (!c.quiet && rank == 0 && isatty(2)) {
        spec->progress = sweep_progress;
        sweep_t0 = sweep_now_s();
    }
    culonx_sweep_result *res = NULL;
    culonx_error err;
    culonx_status st = culonx_sweep_run(run, spec, &res, &err);
    if (st != CULONX_OK) {
        if (rank == 0) print_error(&err);
        rc = status_exit(st);
        goto out;
    }
    if (strcmp(o.format, "json") == 0) culonx_sweep_report_json(stdout, res);
    else culonx_sweep_report_text(stdout, res);
    culonx_sweep_result_free(res);
    rc = EXIT_OK;
out:
    if (all && fclose(all) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "culonx sweep: error writing %s\n", c.all_path);
        rc = EXIT_INTERNAL;
    }
    free(spec);
    free(run);
    return rc;
}

static void sweep_usage(FILE *out)
{
    fputs("usage: culonx sweep RUN.xml [options]\n"
          "Every parallelism strategy of the run's model on its system, ranked.\n"
          "Lists are N, A,B,C, A:B (range) or A:B:STEP, mixed with commas; every dimension\n"
          "defaults to all valid values (gpus and global batch: the run's).\n"
          "  --gpus LIST --global-batch LIST --tp LIST --pp LIST --vp LIST --mb LIST\n"
          "  --recompute none,selective,full --schedule NAMES --sp on,off --dist-opt on,off\n"
          "  --dp-overlap on,off --clocks MIN:MAX:STEP (MHz)\n"
          "  --tp-across-nodes         allow TP beyond one node\n"
          "  --max-microbatch N        largest microbatch tried (default 64)\n"
          "  --max-memory-gib X        memory limit (default: the GPU's capacity)\n"
          "  --min-global-batch N --max-global-batch N\n"
          "  --objective time|energy|tokens-per-joule|gpu-hours   (default time)\n"
          "  --top K                   how many to list (default 10)\n"
          "  --all FILE                every evaluated row, CSV (or JSON lines for .jsonl)\n"
          "  --threads N               worker threads (default: all cores)\n"
          "  --verify K                re-evaluate the top K with the graph engine\n"
          "  --no-prune                evaluate every candidate exactly; by default candidates\n"
          "                            of replayed schedules (interleaved, zero-bubble,\n"
          "                            DualPipeV) whose lower bounds of time, energy and\n"
          "                            exact memory prove they can enter neither the top K\n"
          "                            nor the Pareto frontier are skipped (same results;\n"
          "                            counted as feasible and as pruned); off with --all\n"
          "  --quiet                   no progress on stderr\n"
          "  --set section.key=value   override a config field; execution.* fixes it\n"
          "  --format text|json\n"
          "Under mpirun -np K the space is split across ranks; output is identical.\n",
          out);
}

static int cmd_sweep(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            sweep_usage(stdout);
            return EXIT_OK;
        }
    int rank, size;
    culonx_sweep_mpi_begin(NULL, NULL, &rank, &size);
    int rc = sweep_body(argc, argv, rank);
    culonx_sweep_mpi_end();
    return rc;
}

/* ---- end of culonx sweep ---- */

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    int rc;
    if (strcmp(cmd, "estimate") == 0) rc = cmd_estimate(argc - 2, argv + 2);
    else if (strcmp(cmd, "sweep") == 0) rc = cmd_sweep(argc - 2, argv + 2);
    else if (strcmp(cmd, "trace") == 0) rc = cmd_trace(argc - 2, argv + 2);
    else if (strcmp(cmd, "schedules") == 0) rc = cmd_schedules(argc - 2, argv + 2);
    else if (strcmp(cmd, "energy") == 0) rc = cmd_energy(argc - 2, argv + 2);
    else if (strcmp(cmd, "calibrate") == 0) rc = cmd_calibrate(argc - 1, argv + 1);
    else if (strcmp(cmd, "dvfs-predict") == 0) rc = cmd_dvfs_predict(argc - 1, argv + 1);
    else if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        rc = EXIT_OK;
    } else if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("culonx %s\n", CULONX_VERSION);
        rc = EXIT_OK;
    } else {
        fprintf(stderr, "culonx: unknown command '%s'\n", cmd);
        usage(stderr);
        rc = EXIT_USAGE;
    }
    if (fflush(stdout) != 0 && rc == EXIT_OK) {
        fprintf(stderr, "culonx: error writing output: %s\n", strerror(errno));
        rc = EXIT_INTERNAL;
    }
    return rc;
}
