/*
 * main.c — the culonx command line: the table of commands and the
 * dispatcher. Each command lives in core/cli/cmd_*.c; options are in the one
 * table of core/cli/options.c, so `culonx COMMAND --help` and
 * `culonx help COMMAND` work for every command.
 */
#include "core/cli/cli.h"

#include <errno.h>
#include <string.h>

const cx_cli_command cx_cli_commands[] = {
    {"estimate", CX_CMD_ESTIMATE, "RUN.xml [options]",
     "time, memory, FLOPs, MFU (and energy) of one iteration", NULL, "RUN.xml", cx_cli_estimate},
    {"trace", CX_CMD_TRACE, "RUN.xml -o TRACE.json[.gz] [--detail stage|op] [--max-events N]",
     "Chrome/Perfetto timeline of the iteration DAG",
     "A process per pipeline stage, a thread per stream (compute, TP, PP, DP; EP for MoE;\n"
     "gather: exposed ZeRO-2/3 gathers and offload transfers); integer-ns times, p2p flow\n"
     "arrows, power and memory counter tracks per stage.\n"
     "--format chakra -o DIR: Chakra execution traces for ASTRA-sim, DIR/culonx.RANK.et\n"
     "(a rank per pipeline stage).\n",
     "RUN.xml", cx_cli_trace},
    {"report", CX_CMD_REPORT, "RUN.xml -o REPORT.html",
     "one self-contained HTML page of a run: breakdowns, energy vs clock, timeline, schedules",
     "Inline SVG and CSS, no network: open it in any browser, offline.\n", "RUN.xml",
     cx_cli_report},
    {"schedules", CX_CMD_SCHEDULES, "RUN.xml [--format text|json]",
     "every pipeline schedule side by side", NULL, "RUN.xml", cx_cli_schedules},
    {"energy", CX_CMD_ENERGY, "RUN.xml [--clocks MIN:MAX:STEP] [--format text|json|csv]",
     "time and energy at every SM clock", NULL, "RUN.xml", cx_cli_energy},
    {"plan", CX_CMD_PLAN,
     "RUN.xml [--time S] [--straggler F] [--power-limit W] [--format text|json|csv]",
     "per-pass SM clock plans: the time-energy frontier and intrinsic bloat",
     "Every pass (F, B, W, R per stage and microbatch; the optimizer) picks its clock;\n"
     "the frontier runs from the all-max-clock time to the time at which every pass\n"
     "sits at its least-energy clock. Default: a fast engine in linear passes (not\n"
     "certified; --bound says how far from optimal it can be); --exact: every\n"
     "breakpoint by Phillips-Dessouky cuts (small DAGs); --exact-at N: exact at N times.\n",
     "RUN.xml", cx_cli_plan},
    {"sweep", CX_CMD_SWEEP, "RUN.xml [options]",
     "rank every parallelism strategy of the run's model on its system",
     "Lists are N, A,B,C, A:B (range) or A:B:STEP, mixed with commas; every dimension\n"
     "defaults to all valid values (gpus and global batch: the run's). Under\n"
     "mpirun -np K the space is split across ranks; output is identical.\n",
     "RUN.xml", cx_cli_sweep},
    {"serve", CX_CMD_SERVE,
     "RUN.xml [--clocks MIN:MAX:STEP] [--format text|json|csv] [--plan --gpus N]",
     "inference: TTFT, TPOT, throughput, memory and energy of the run's <serving> per clock",
     "Prefill and decode share the training op tables (forward only, KV-cache reads and\n"
     "writes). --plan --gpus N chooses pools of TP degrees and clocks serving the run's\n"
     "load-tokens-per-s at least energy within the SLOs, against the all-max-clock baseline.\n",
     "RUN.xml", cx_cli_serve},
    {"calibrate", CX_CMD_CALIBRATE, "TABLE.csv -o POWER.xml [--exclude-family NAME]",
     "fit a GPU's DVFS power model to a clock table of microbenchmarks",
     "TABLE.csv columns: gpu,benchmark,kernel,input,core_mhz,mem_mhz,time_ms,power_w,\n"
     "sm_active,sm_occupancy,dram_active,fp16_active,fp32_active,fp64_active,tensor_active.\n",
     "TABLE.csv", cx_cli_calibrate},
    {"dvfs-predict", CX_CMD_DVFS_PREDICT, "--power POWER.xml --profile PROFILE.csv",
     "time/power/energy of profiled kernels at every clock (profile once, model everywhere)", NULL,
     NULL, cx_cli_dvfs_predict},
};
const int cx_cli_ncommands = (int)(sizeof cx_cli_commands / sizeof cx_cli_commands[0]);

static const cx_cli_command *find_command(const char *name)
{
    for (int i = 0; i < cx_cli_ncommands; i++)
        if (!strcmp(cx_cli_commands[i].name, name)) return &cx_cli_commands[i];
    return NULL;
}

static int run_command(const cx_cli_command *cmd, int argc, char **argv)
{
    /* large: option values and lists of every option */
    static cx_cli_args args;
    int help = 0;
    int rc = cx_cli_parse(cmd, argc, argv, &args, &help);
    if (rc) return rc;
    if (help) {
        cx_cli_command_help(stdout, cmd);
        return CX_EXIT_OK;
    }
    return cmd->run(&args);
}

int main(int argc, char **argv)
{
    culonx_keep_freed_memory();
    if (argc < 2) {
        cx_cli_usage(stderr);
        return CX_EXIT_USAGE;
    }
    const char *name = argv[1];
    const cx_cli_command *cmd = find_command(name);
    int rc;
    if (cmd) {
        rc = run_command(cmd, argc - 1, argv + 1);
    } else if (!strcmp(name, "import")) { /* three positional files: its own parser */
        rc = cx_cli_import(argc - 1, argv + 1);
    } else if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const cx_cli_command *sub = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !sub) {
            fprintf(stderr, "culonx: unknown command '%s'\n", argv[2]);
            cx_cli_usage(stderr);
            return CX_EXIT_USAGE;
        }
        if (sub)
            cx_cli_command_help(stdout, sub);
        else
            cx_cli_usage(stdout);
        rc = CX_EXIT_OK;
    } else if (!strcmp(name, "version") || !strcmp(name, "--version")) {
        printf("culonx %s\n", CULONX_VERSION);
        rc = CX_EXIT_OK;
    } else {
        const char *cands[32];
        int nc = 0;
        for (int i = 0; i < cx_cli_ncommands && nc < 29; i++)
            cands[nc++] = cx_cli_commands[i].name;
        cands[nc++] = "import", cands[nc++] = "help", cands[nc++] = "version";
        const char *near = culonx_did_you_mean(name, cands, nc);
        if (near)
            fprintf(stderr, "culonx: unknown command '%s'; did you mean '%s'?\n", name, near);
        else
            fprintf(stderr, "culonx: unknown command '%s'\n", name);
        cx_cli_usage(stderr);
        rc = CX_EXIT_USAGE;
    }
    if (fflush(stdout) != 0 && rc == CX_EXIT_OK) {
        fprintf(stderr, "culonx: error writing output: %s\n", strerror(errno));
        rc = CX_EXIT_INPUT; /* a full disk or a closed pipe is not an internal fault */
    }
    return rc;
}
