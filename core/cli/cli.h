/*
 * cli.h — the culonx command line: one option table (core/cli/options.c)
 * shared by every command, one file per command (core/cli/cmd_*.c), and the
 * dispatcher (core/cli/main.c). The CLI is the only code that reads argv or
 * prints to the terminal; it uses only the public API (culonx.h).
 *
 * Exit codes: 0 ok, 1 bad input (file:line: error: ... on stderr), 2 usage,
 * 3 internal error.
 */
#ifndef CX_CLI_H
#define CX_CLI_H

#include "culonx.h"

#include <stdio.h>

enum { CX_EXIT_OK = 0, CX_EXIT_INPUT = 1, CX_EXIT_USAGE = 2, CX_EXIT_INTERNAL = 3 };

/* The commands, as bits of an option's `commands` mask. */
enum {
    CX_CMD_ESTIMATE = 1u << 0,
    CX_CMD_TRACE = 1u << 1,
    CX_CMD_SCHEDULES = 1u << 2,
    CX_CMD_ENERGY = 1u << 3,
    CX_CMD_SWEEP = 1u << 4,
    CX_CMD_CALIBRATE = 1u << 5,
    CX_CMD_DVFS_PREDICT = 1u << 6,
    CX_CMD_SERVE = 1u << 7,
    CX_CMD_REPORT = 1u << 8,
    CX_CMD_PLAN = 1u << 9,
};
/* the commands that read a run file */
#define CX_CMD_RUN                                                                                 \
    (CX_CMD_ESTIMATE | CX_CMD_TRACE | CX_CMD_SCHEDULES | CX_CMD_ENERGY | CX_CMD_SWEEP |            \
     CX_CMD_SERVE | CX_CMD_REPORT | CX_CMD_PLAN)

/* Every option of every command (rows of the table in options.c). */
typedef enum {
    CX_OPT_HELP = 0,
    CX_OPT_SET,
    CX_OPT_FORMAT,
    CX_OPT_SCHEMA,
    CX_OPT_ENGINE,
    CX_OPT_OUTPUT,
    CX_OPT_DETAIL,
    CX_OPT_CLOCKS,
    CX_OPT_EXCLUDE_FAMILY,
    CX_OPT_POWER,
    CX_OPT_PROFILE,
    /* sweep: value options passed to culonx_sweep_option by name */
    CX_OPT_GPUS,
    CX_OPT_GLOBAL_BATCH,
    CX_OPT_TP,
    CX_OPT_PP,
    CX_OPT_VP,
    CX_OPT_MB,
    CX_OPT_MICROBATCH,
    CX_OPT_RECOMPUTE,
    CX_OPT_SCHEDULE,
    CX_OPT_SP,
    CX_OPT_DIST_OPT,
    CX_OPT_DP_OVERLAP,
    CX_OPT_OBJECTIVE,
    CX_OPT_TOP,
    CX_OPT_THREADS,
    CX_OPT_MAX_MEMORY_GIB,
    CX_OPT_MIN_GLOBAL_BATCH,
    CX_OPT_MAX_GLOBAL_BATCH,
    CX_OPT_MAX_MICROBATCH,
    CX_OPT_VERIFY,
    CX_OPT_CP,
    CX_OPT_ATTENTION,
    CX_OPT_TP_OVERLAP,
    CX_OPT_EP,
    CX_OPT_ETP,
    CX_OPT_ZERO,
    CX_OPT_SHARD_GROUP,
    CX_OPT_OFFLOAD,
    /* sweep: flags and file */
    CX_OPT_TP_ACROSS_NODES,
    CX_OPT_NO_PRUNE,
    CX_OPT_QUIET,
    CX_OPT_PROGRESS,
    CX_OPT_ALL,
    /* serve */
    CX_OPT_PLAN,
    /* trace and report (issue 14) */
    CX_OPT_MAX_EVENTS,
    CX_OPT_REPORT,
    CX_OPT_CROSS_GPU,
    /* plan (issue 11) */
    CX_OPT_PLAN_TIME,
    CX_OPT_STRAGGLER,
    CX_OPT_POINTS,
    CX_OPT_EXACT,
    CX_OPT_EXACT_AT,
    CX_OPT_EXACT_CUTS,
    CX_OPT_TRACE_PLAN,
    CX_OPT_BOUND,
    CX_OPT_POWER_LIMIT,
    CX_OPT_POWER_CAP_MW,
    CX_OPT_CARBON,
    CX_OPT_COUNT
} cx_cli_opt;

typedef struct {
    const char *name;  /* long name, without "--" */
    char short_name;   /* single-letter alias (-o, -h) or 0 */
    const char *value; /* placeholder of the value; NULL: a flag */
    unsigned commands; /* CX_CMD_* bits of the commands that take it */
    int sweep_option;  /* passed to culonx_sweep_option under `name` */
    const char *help;
} cx_cli_option;

extern const cx_cli_option cx_cli_options[CX_OPT_COUNT];

#define CX_CLI_MAX_SETS 256
#define CX_CLI_MAX_ARGS 1024

/* A parsed command line: the last value of each option, every --set in
 * order, and every sweep option in order. */
typedef struct {
    const char *command;
    unsigned bit;
    int argc;
    char **argv;            /* the command's arguments, argv[0] = its name */
    const char *positional; /* RUN.xml or TABLE.csv */
    const char *value[CX_OPT_COUNT];
    int given[CX_OPT_COUNT];
    const char *sets[CX_CLI_MAX_SETS];
    int nsets;
    cx_cli_opt sweep_opt[CX_CLI_MAX_ARGS];
    const char *sweep_val[CX_CLI_MAX_ARGS];
    int nsweep;
} cx_cli_args;

/* One command: name, synopsis after "culonx NAME", summary, extra help. */
typedef struct {
    const char *name;
    unsigned bit;
    const char *synopsis;
    const char *summary;
    const char *details;    /* NULL or more text for --help */
    const char *positional; /* name of the positional argument, NULL: none */
    int (*run)(const cx_cli_args *a);
} cx_cli_command;

extern const cx_cli_command cx_cli_commands[];
extern const int cx_cli_ncommands;

/* Parses argv (argv[0] = the command name) against the option table.
 * Returns CX_EXIT_OK, or a usage error already reported on stderr.
 * *help is set when --help / -h was given (nothing else is checked then). */
int cx_cli_parse(const cx_cli_command *cmd, int argc, char **argv, cx_cli_args *a, int *help);
/* `culonx CMD --help` text, generated from the option table. */
void cx_cli_command_help(FILE *out, const cx_cli_command *cmd);
/* `culonx help` text. */
void cx_cli_usage(FILE *out);

/* "culonx CMD: <fmt with arg>\nTry 'culonx CMD --help'." on stderr;
 * returns CX_EXIT_USAGE. */
int cx_cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* file:line: error: msg on stderr. */
void cx_cli_print_error(const culonx_error *err);
int cx_cli_status_exit(culonx_status st);
/* Prints err and returns its exit code. */
int cx_cli_fail(const culonx_error *err, culonx_status st);
/* 0 when value is one of the NULL-terminated names; else a usage error
 * "--OPT must be A, B or C, not 'value'". */
int cx_cli_check_choice(const char *cmd, const char *opt, const char *value,
                        const char *const *choices);
/* MIN:MAX:STEP in MHz: 0 < MIN <= MAX, STEP > 0. -1 on bad syntax. */
int cx_cli_clock_range(const char *s, double *lo, double *hi, double *step);
/* Loads the run named by the arguments with their --set and --schema;
 * prints the error (unless quiet) and returns the exit code. */
int cx_cli_load_run(const cx_cli_args *a, culonx_run *run, int quiet);

/* An output file written atomically (outfile.c): a temporary file beside
 * the target, renamed into place by cx_cli_out_close when rc is
 * CX_EXIT_OK, removed otherwise (and on SIGINT/SIGTERM/SIGHUP). */
typedef struct {
    const char *path;
    char tmp[4096];
    FILE *f; /* write here */
} cx_cli_out;
/* Opens `path` ("-": stdout) for writing; refuses a path that names one of
 * the inputs (NULL entries ignored). Returns CX_EXIT_OK or prints the error
 * and returns its exit code. */
int cx_cli_out_open(cx_cli_out *o, const char *path, const char *const *inputs, int ninputs);
/* Finishes the output of a command that ends with exit code rc: on
 * CX_EXIT_OK flushes and renames into place (a write error turns rc into
 * CX_EXIT_INPUT), else discards. Returns the final exit code. */
int cx_cli_out_close(cx_cli_out *o, int rc);
/* Refuses (exit 1, message on stderr) an output path that names one of the
 * inputs or an existing non-regular file (a directory too unless dir_ok). */
int cx_cli_out_check(const char *path, const char *const *inputs, int ninputs, int dir_ok);
/* Removes tmp_path if a fatal signal arrives before cx_cli_out_unguard (for
 * temporary files the library creates, e.g. culonx_trace_save's PATH.tmp.PID). */
void cx_cli_out_guard(const char *tmp_path);
void cx_cli_out_unguard(const char *tmp_path);
/* The files a loaded run was read from (run, model, system, gpu, power):
 * out[0..5), unused entries NULL. */
void cx_cli_run_inputs(const culonx_run *run, const char *out[6]);

/* The commands (core/cli/cmd_*.c). */
int cx_cli_estimate(const cx_cli_args *a);
int cx_cli_trace(const cx_cli_args *a);
int cx_cli_report(const cx_cli_args *a);
/* `culonx import FORMAT FILES... -o RUN.xml`: parses its own argv */
int cx_cli_import(int argc, char **argv);
/* `sweep --report PATH`: the HTML page of a sweep (all_csv: its rows or NULL). */
int cx_cli_sweep_html(const char *path, const culonx_sweep_result *res, FILE *all_csv);
int cx_cli_schedules(const cx_cli_args *a);
int cx_cli_energy(const cx_cli_args *a);
int cx_cli_plan(const cx_cli_args *a);
int cx_cli_sweep(const cx_cli_args *a);
int cx_cli_calibrate(const cx_cli_args *a);
int cx_cli_dvfs_predict(const cx_cli_args *a);
int cx_cli_serve(const cx_cli_args *a);

#endif
