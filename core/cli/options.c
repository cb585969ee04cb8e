/*
 * options.c — the one option table of the culonx command line, its parser
 * (long options "--name value" or "--name=value", short -o/-h, one
 * positional argument), the generated --help of every command, and the
 * helpers every command shares (errors, exit codes, clock ranges, loading a
 * run). No modelling here.
 */
#include "core/cli/cli.h"

#include <stdlib.h>
#include <string.h>

#define RUNS CX_CMD_RUN
#define SW CX_CMD_SWEEP

const cx_cli_option cx_cli_options[CX_OPT_COUNT] = {
    [CX_OPT_HELP] = {"help", 'h', NULL, ~0u, 0, "this text"},
    [CX_OPT_SET] = {"set", 0, "SECTION.KEY=VALUE", RUNS, 0,
                    "override a config field (repeatable), e.g. --set execution.tp=4; "
                    "for sweep, execution.* also fixes that dimension"},
    [CX_OPT_FORMAT] =
        {"format", 0, "FORMAT", ~0u, 0,
         "output format: text (default), json; csv for energy, serve and dvfs-predict"},
    [CX_OPT_SCHEMA] = {"schema", 0, "FILE", RUNS, 0,
                       "XSD to validate against (default: the schema built into culonx)"},
    [CX_OPT_ENGINE] = {"engine", 0, "ENGINE", CX_CMD_ESTIMATE | SW, 0,
                       "closed (default; the closed form), graph or graph-op (the iteration DAG "
                       "at stage or op level; estimate only)"},
    [CX_OPT_OUTPUT] = {"output", 'o', "FILE", CX_CMD_TRACE | CX_CMD_CALIBRATE | CX_CMD_REPORT, 0,
                       "file to write (trace: - for stdout; .gz: gzip)"},
    [CX_OPT_DETAIL] = {"detail", 0, "stage|op", CX_CMD_TRACE, 0,
                       "one event per work item (stage, default) or per op"},
    [CX_OPT_CLOCKS] = {"clocks", 0, "MIN:MAX:STEP",
                       CX_CMD_ENERGY | SW | CX_CMD_DVFS_PREDICT | CX_CMD_SERVE, 1,
                       "SM clocks in MHz (default: the GPU's range; dvfs-predict: the power "
                       "model's clocks)"},
    [CX_OPT_EXCLUDE_FAMILY] = {"exclude-family", 0, "NAME", CX_CMD_CALIBRATE, 0,
                               "leave one benchmark family out of the fit"},
    [CX_OPT_POWER] = {"power", 0, "POWER.xml", CX_CMD_DVFS_PREDICT, 0,
                      "calibrated power model (culonx calibrate -o)"},
    [CX_OPT_PROFILE] = {"profile", 0, "PROFILE.csv", CX_CMD_DVFS_PREDICT, 0,
                        "kernels measured at one clock (clock-table CSV columns)"},
    [CX_OPT_GPUS] = {"gpus", 0, "LIST", SW | CX_CMD_SERVE, 1,
                     "GPU counts (default: the run's); serve --plan: the GPUs to plan for"},
    [CX_OPT_GLOBAL_BATCH] = {"global-batch", 0, "LIST", SW, 1,
                             "global batch sizes (default: the run's)"},
    [CX_OPT_TP] = {"tp", 0, "LIST", SW, 1, "tensor-parallel degrees"},
    [CX_OPT_PP] = {"pp", 0, "LIST", SW, 1, "pipeline-parallel degrees"},
    [CX_OPT_VP] = {"vp", 0, "LIST", SW, 1, "chunks per stage of the interleaved schedule"},
    [CX_OPT_MB] = {"mb", 0, "LIST", SW, 1, "microbatch sizes"},
    [CX_OPT_MICROBATCH] = {"microbatch", 0, "LIST", SW, 1, "same as --mb"},
    [CX_OPT_RECOMPUTE] = {"recompute", 0, "none,selective,full", SW, 1, "recompute modes"},
    [CX_OPT_SCHEDULE] = {"schedule", 0, "NAMES", SW, 1, "pipeline schedules"},
    [CX_OPT_SP] = {"sp", 0, "on,off", SW, 1, "sequence parallelism"},
    [CX_OPT_DIST_OPT] = {"dist-opt", 0, "on,off", SW, 1, "distributed optimizer"},
    [CX_OPT_DP_OVERLAP] = {"dp-overlap", 0, "on,off", SW, 1,
                           "overlap of the DP gradient sync with backward"},
    [CX_OPT_OBJECTIVE] = {"objective", 0, "OBJ", SW, 1,
                          "time (default), energy, tokens-per-joule or gpu-hours"},
    [CX_OPT_TOP] = {"top", 0, "K", SW, 1, "how many to list (default 10)"},
    [CX_OPT_THREADS] = {"threads", 0, "N", SW, 1, "worker threads (default: all cores)"},
    [CX_OPT_MAX_MEMORY_GIB] = {"max-memory-gib", 0, "X", SW, 1,
                               "memory limit (default: the GPU's capacity)"},
    [CX_OPT_MIN_GLOBAL_BATCH] = {"min-global-batch", 0, "N", SW, 1, "smallest global batch"},
    [CX_OPT_MAX_GLOBAL_BATCH] = {"max-global-batch", 0, "N", SW, 1, "largest global batch"},
    [CX_OPT_MAX_MICROBATCH] = {"max-microbatch", 0, "N", SW, 1,
                               "largest microbatch tried (default 64)"},
    [CX_OPT_CP] = {"cp", 0, "LIST", SW, 1, "context-parallel degrees (default: the run's)"},
    [CX_OPT_EP] = {"ep", 0, "LIST", SW, 1, "expert-parallel degrees (MoE; default: the run's)"},
    [CX_OPT_ETP] = {"etp", 0, "LIST", SW, 1,
                    "tensor-parallel degrees inside experts (MoE; default: the run's)"},
    [CX_OPT_ATTENTION] = {"attention", 0, "flash,naive", SW, 1,
                          "attention kernels (default: the run's; all for both)"},
    [CX_OPT_TP_OVERLAP] = {"tp-overlap", 0, "none,pipe,ring", SW, 1,
                           "TP communication overlap (default: the run's; needs sp on)"},
    [CX_OPT_ZERO] = {"zero", 0, "0,1,2,3", SW, 1,
                     "ZeRO stages (default: the run's; 1 = distributed optimizer; all)"},
    [CX_OPT_SHARD_GROUP] = {"shard-group", 0, "LIST", SW, 1,
                            "HSDP shard-group sizes, full = all of dp (default: the run's)"},
    [CX_OPT_OFFLOAD] = {"offload", 0, "SETS", SW, 1,
                        "offload sets: none, weights+optimizer, ... (default: the run's)"},
    [CX_OPT_VERIFY] = {"verify", 0, "K", SW, 1, "re-evaluate the top K with the graph engine"},
    [CX_OPT_TP_ACROSS_NODES] = {"tp-across-nodes", 0, NULL, SW, 0, "allow TP beyond one node"},
    [CX_OPT_NO_PRUNE] = {"no-prune", 0, NULL, SW, 0,
                         "evaluate every candidate exactly (by default candidates of replayed "
                         "schedules that lower bounds prove can enter neither the top K nor "
                         "the Pareto frontier are skipped: same results; off with --all)"},
    [CX_OPT_QUIET] = {"quiet", 0, NULL, SW, 0,
                      "no progress and no closing summary on stderr (the counts stay in the "
                      "report and in JSON)"},
    [CX_OPT_PROGRESS] = {"progress", 0, "tty|plain|off", SW, 0,
                         "progress on stderr: tty (one updated line; default when stderr is a "
                         "terminal), plain (a new line every 5 s and at the end, for logs and "
                         "CI) or off"},
    [CX_OPT_ALL] = {"all", 0, "FILE", SW, 0, "every evaluated row, CSV (or JSON lines for .jsonl)"},
    [CX_OPT_PLAN] = {"plan", 0, NULL, CX_CMD_SERVE, 0,
                     "pools of TP degrees and clocks for the run's load on --gpus N GPUs, "
                     "least energy within the SLOs (DynamoLLM's problem, solved exactly)"},
    [CX_OPT_MAX_EVENTS] = {"max-events", 0, "N", CX_CMD_TRACE, 0,
                           "keep the N events that start first (a trace over ~100 MB warns)"},
    [CX_OPT_CROSS_GPU] = {"cross-gpu", 0, NULL, CX_CMD_DVFS_PREDICT, 0,
                          "allow a profile of another GPU than the power model's"},
    [CX_OPT_REPORT] = {"report", 0, "FILE.html", SW, 0,
                       "also write a self-contained HTML report (charts, top-K table)"},
    [CX_OPT_PLAN_TIME] = {"time", 0, "SECONDS", CX_CMD_PLAN, 0,
                          "iteration time of the plan printed per stage (default: the fastest)"},
    [CX_OPT_STRAGGLER] = {"straggler", 0, "FACTOR", CX_CMD_PLAN, 0,
                          "one DP replica's pipeline is FACTOR (> 1) times slower: the others' "
                          "plan at its time and the energy saved"},
    [CX_OPT_POINTS] = {"points", 0, "N", CX_CMD_PLAN, 0,
                       "frontier points printed in text and CSV (default 12; 0 = all)"},
    [CX_OPT_POWER_LIMIT] = {"power-limit", 0, "W", CX_CMD_PLAN, 0,
                            "GPU power limit: every pass at the highest clock whose power fits; "
                            "time and energy of the iteration under it"},
    [CX_OPT_POWER_CAP_MW] = {"power-cap-mw", 0, "MW", SW, 1,
                             "facility power cap: strategies (and clocks) whose energy per "
                             "iteration / time, PUE and node overhead included, exceeds it are "
                             "rejected; rank by time (= tokens/s at a fixed global batch)"},
    [CX_OPT_CARBON] = {"carbon-g-per-kwh", 0, "G", CX_CMD_PLAN, 0,
                       "grid carbon intensity: emissions of the plan's token budget"},
    [CX_OPT_EXACT] = {"exact", 0, NULL, CX_CMD_PLAN, 0,
                      "every frontier breakpoint by minimum cuts (exact; small DAGs only: one "
                      "cut per breakpoint, about nodes x clock steps of them)"},
    [CX_OPT_EXACT_AT] = {"exact-at", 0, "N", CX_CMD_PLAN, 0,
                         "the frontier at N times, each solved exactly (the LP dual's min-cost "
                         "circulation by cost scaling, then cut descent where it stops short; "
                         "core/README.md \"Clock plans\"; slow on deep pipelines: see "
                         "--exact-cuts)"},
    [CX_OPT_EXACT_CUTS] = {"exact-cuts", 0, "K", CX_CMD_PLAN, 0,
                           "with --exact-at: the plain cut descent from the default engine's "
                           "plans, at most K cuts per time; a point that needs more is an "
                           "improved plan, not a certified optimum"},
    /* the same name as serve's --plan flag: the parser takes the entry of
     * the command at hand */
    [CX_OPT_TRACE_PLAN] = {"plan", 0, "SECONDS", CX_CMD_TRACE, 0,
                           "trace the clock plan at this iteration time (the nearest frontier "
                           "point of `culonx plan`): each event's clock_mhz, the power track at "
                           "the plan's clocks; stage level, JSON only"},
    [CX_OPT_BOUND] = {"bound", 0, NULL, CX_CMD_PLAN, 0,
                      "also a lower bound on any plan's energy at the chosen time (LP duality "
                      "from the plan's critical subgraph): how far from optimal it can be"},
};

void cx_cli_print_error(const culonx_error *err)
{
    if (err->file[0] && err->line > 0)
        fprintf(stderr, "%s:%d: error: %s\n", err->file, err->line, err->msg);
    else if (err->file[0])
        fprintf(stderr, "%s: error: %s\n", err->file, err->msg);
    else
        fprintf(stderr, "culonx: error: %s\n", err->msg);
}

int cx_cli_status_exit(culonx_status st)
{
    switch (st) {
    case CULONX_OK:
        return CX_EXIT_OK;
    case CULONX_EINPUT:
        return CX_EXIT_INPUT;
    case CULONX_EUSAGE:
        return CX_EXIT_USAGE;
    default:
        return CX_EXIT_INTERNAL;
    }
}

int cx_cli_fail(const culonx_error *err, culonx_status st)
{
    cx_cli_print_error(err);
    return cx_cli_status_exit(st);
}

int cx_cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "culonx %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'culonx %s --help'.\n", cmd);
    return CX_EXIT_USAGE;
}

int cx_cli_check_choice(const char *cmd, const char *opt, const char *value,
                        const char *const *choices)
{
    int n = 0;
    for (; choices[n]; n++)
        if (!strcmp(value, choices[n])) return CX_EXIT_OK;
    fprintf(stderr, "culonx %s: --%s must be ", cmd, opt);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s%s", choices[i], i + 2 < n ? ", " : i + 2 == n ? " or " : "");
    fprintf(stderr, ", not '%s'\nTry 'culonx %s --help'.\n", value, cmd);
    return CX_EXIT_USAGE;
}

int cx_cli_clock_range(const char *s, double *lo, double *hi, double *step)
{
    char *e1, *e2, *e3;
    *lo = strtod(s, &e1);
    if (e1 == s || *e1 != ':') return -1;
    *hi = strtod(e1 + 1, &e2);
    if (e2 == e1 + 1 || *e2 != ':') return -1;
    *step = strtod(e2 + 1, &e3);
    if (e3 == e2 + 1 || *e3 != '\0') return -1;
    if (!(*lo > 0) || !(*hi > 0) || !(*step > 0) || *lo > *hi) return -1;
    return 0;
}

int cx_cli_load_run(const cx_cli_args *a, culonx_run *run, int quiet)
{
    culonx_error err;
    memset(&err, 0, sizeof err);
    culonx_status st =
        culonx_run_load(a->positional, a->sets, a->nsets, a->value[CX_OPT_SCHEMA], run, &err);
    if (st == CULONX_OK && run->serving_only && a->bit != CX_CMD_SERVE) {
        /* a serving run has no training iteration to estimate */
        snprintf(err.file, sizeof err.file, "%s", a->positional);
        err.line = 0;
        snprintf(err.msg, sizeof err.msg,
                 "<run>: no <execution> (a serving run: use culonx serve)");
        st = CULONX_EINPUT;
    }
    if (st == CULONX_OK) return CX_EXIT_OK;
    if (!quiet) cx_cli_print_error(&err);
    return cx_cli_status_exit(st);
}

/* the option named by "--name" (or "--name=..."; *eq is set to the value) */
static int find_long(const char *arg, const char **eq, unsigned bit)
{
    const char *name = arg + 2;
    const char *e = strchr(name, '=');
    size_t len = e ? (size_t)(e - name) : strlen(name);
    *eq = e ? e + 1 : NULL;
    int any = -1; /* a name may serve two commands (--plan): the command's own first */
    for (int i = 0; i < CX_OPT_COUNT; i++)
        if (strlen(cx_cli_options[i].name) == len && !strncmp(cx_cli_options[i].name, name, len)) {
            if (cx_cli_options[i].commands & bit) return i;
            if (any < 0) any = i;
        }
    return any;
}

static int find_short(const char *arg)
{
    if (arg[0] != '-' || !arg[1] || arg[2]) return -1;
    for (int i = 0; i < CX_OPT_COUNT; i++)
        if (cx_cli_options[i].short_name && cx_cli_options[i].short_name == arg[1]) return i;
    return -1;
}

int cx_cli_parse(const cx_cli_command *cmd, int argc, char **argv, cx_cli_args *a, int *help)
{
    memset(a, 0, sizeof *a);
    a->command = cmd->name;
    a->bit = cmd->bit;
    a->argc = argc;
    a->argv = argv;
    *help = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return *help = 1, CX_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0') { /* positional ("-" alone too) */
            if (!cmd->positional || a->positional)
                return cx_cli_usage_error(cmd->name, "unexpected argument '%s'", arg);
            a->positional = arg;
            continue;
        }
        const char *value = NULL;
        int k = arg[1] == '-' ? find_long(arg, &value, cmd->bit) : find_short(arg);
        if (k < 0 || !(cx_cli_options[k].commands & cmd->bit)) {
            const char *cands[CX_OPT_COUNT];
            int nc = 0;
            for (int j = 0; j < CX_OPT_COUNT; j++)
                if (cx_cli_options[j].commands & cmd->bit) cands[nc++] = cx_cli_options[j].name;
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
            const char *near = arg[1] == '-' ? culonx_did_you_mean(word, cands, nc) : NULL;
            if (near) {
                fprintf(stderr, "culonx %s: unknown option '%s'; did you mean '--%s'?\n", cmd->name,
                        arg, near);
                fprintf(stderr, "Try 'culonx %s --help'.\n", cmd->name);
                return CX_EXIT_USAGE;
            }
            return cx_cli_usage_error(cmd->name, "unknown option '%s'", arg);
        }
        const cx_cli_option *o = &cx_cli_options[k];
        if (!o->value) {
            if (value) return cx_cli_usage_error(cmd->name, "option %s takes no value", arg);
        } else if (!value) {
            if (i + 1 >= argc) return cx_cli_usage_error(cmd->name, "option %s needs a value", arg);
            /* "--all --threads 2": an option where the value belongs is a
             * forgotten value, not a file named "--threads" (OPT=--x
             * still passes such a value on purpose) */
            if (!strncmp(argv[i + 1], "--", 2) && argv[i + 1][2] != '\0') {
                fprintf(stderr,
                        "culonx %s: option %s needs a value, got option '%s' (write %s=%s if that "
                        "is the value)\n",
                        cmd->name, arg, argv[i + 1], arg, argv[i + 1]);
                fprintf(stderr, "Try 'culonx %s --help'.\n", cmd->name);
                return CX_EXIT_USAGE;
            }
            value = argv[++i];
        }
        a->given[k] = 1;
        a->value[k] = value ? value : "";
        if (k == CX_OPT_SET) {
            if (a->nsets >= CX_CLI_MAX_SETS)
                return cx_cli_usage_error(cmd->name, "too many --set options%s", "");
            a->sets[a->nsets++] = value;
        } else if (o->sweep_option) {
            if (a->nsweep >= CX_CLI_MAX_ARGS)
                return cx_cli_usage_error(cmd->name, "too many options%s", "");
            a->sweep_opt[a->nsweep] = (cx_cli_opt)k;
            a->sweep_val[a->nsweep++] = value;
        }
    }
    if (cmd->positional && !a->positional)
        return cx_cli_usage_error(cmd->name, "missing %s", cmd->positional);
    return CX_EXIT_OK;
}

void cx_cli_command_help(FILE *out, const cx_cli_command *cmd)
{
    fprintf(out, "usage: culonx %s %s\n%s\n", cmd->name, cmd->synopsis, cmd->summary);
    if (cmd->details) fprintf(out, "%s", cmd->details);
    fprintf(out, "\noptions:\n");
    for (int i = 0; i < CX_OPT_COUNT; i++) {
        const cx_cli_option *o = &cx_cli_options[i];
        if (!(o->commands & cmd->bit)) continue;
        char head[96];
        int n = o->short_name ? snprintf(head, sizeof head, "-%c, --%s", o->short_name, o->name)
                              : snprintf(head, sizeof head, "--%s", o->name);
        if (o->value && n > 0 && (size_t)n < sizeof head)
            snprintf(head + n, sizeof head - (size_t)n, " %s", o->value);
        /* wrap the help text at 100 columns after a 28-column head */
        fprintf(out, "  %-26s", head);
        int col = 28;
        if ((int)strlen(head) > 26) {
            fprintf(out, "\n%28s", "");
        }
        const char *h = o->help;
        while (*h) {
            const char *sp = strchr(h, ' ');
            size_t w = sp ? (size_t)(sp - h) : strlen(h);
            if (col > 28 && col + 1 + (int)w > 100) {
                fprintf(out, "\n%28s", "");
                col = 28;
            }
            if (col > 28) fputc(' ', out), col++;
            fprintf(out, "%.*s", (int)w, h);
            col += (int)w;
            h += w;
            while (*h == ' ')
                h++;
        }
        fputc('\n', out);
    }
}

void cx_cli_usage(FILE *out)
{
    fputs("usage: culonx <command> [options]\n\ncommands:\n", out);
    for (int i = 0; i < cx_cli_ncommands; i++) {
        const cx_cli_command *c = &cx_cli_commands[i];
        fprintf(out, "  %-13s %s\n", c->name, c->summary);
    }
    fputs("  import        calculon APP.json EXE.json SYS.json -o RUN.xml: a run from Calculon\n"
          "  help [COMMAND]  this text, or a command's options (also: culonx COMMAND --help)\n"
          "  version       print the version\n"
          "\n"
          "Exit codes: 0 ok, 1 bad input, values or output (file:line on stderr), 2 usage,\n"
          "3 internal fault only (README: Exit codes, outputs and limits).\n",
          out);
}
