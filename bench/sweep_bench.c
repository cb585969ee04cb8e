/*
 * sweep_bench.c — sweep throughput: megatron-1t (SC'21: 128 layers, hidden
 * 25600, 160 heads, seq 2048, vocab 51200) on 4096 A100-80GB (DGX A100, the
 * configs/systems/a100-80g.xml numbers), global batch 3072.
 *
 *  1. "calculon": the Calculon-equivalent space (peer facts as given in the project brief:
 *     Calculon's full megatron-1T search on 4096 GPUs is 7,276,848
 *     executions). Calculon searches tp (divisors, across nodes), pp
 *     (divisors of layers), vp (divisors of layers/pp), microbatch (divisors
 *     of the local batch), recompute, SP, optimizer sharding, DP overlap and
 *     knobs culonx does not model (TP comm type and overlap, offloads, fused
 *     activations). culonx sweeps the same structural space plus every
 *     registered schedule, and DVFS clocks (210-1410 MHz, 15 MHz steps: 81)
 *     in place of the knobs it lacks; the evaluated count is printed.
 *  2. "small": the default space (tp within a node, power-of-2 microbatch)
 *     at 3 clocks, about 25,000 valid executions.
 * Prints wall time, evaluations/s per core, exact evaluations, candidates
 * pruned by bounds, peak RSS, and a digest of the whole top K and Pareto
 * frontier (index and the bits of time, energy and memory) so that runs with
 * and without pruning can be compared.
 *  3. "schedules": per schedule, the calculon space at 21 clocks
 *     (210-1410 MHz, 60 MHz steps) without pruning, once with the replay's
 *     steady-state fast path (core/eval/replay.c) and once with the full
 *     replay (the reference): closed-form evaluations/s per core of each
 *     (CPU time), and the agreement of the two: the same top K and frontier
 *     (indices) and the worst relative time difference over them. The fast
 *     sweep runs REPEATS times (default 5; one run is ~0.05-0.1 s, and this
 *     VM's speed moves by tens of percent within seconds): the median rate is
 *     printed with the slowest and fastest run.
 * Usage: bench_sweep_bench [calculon|small|all] [threads] [noprune]
 *        bench_sweep_bench schedules [SCHEDULE|all] [REPEATS]
 * The machine this runs on may be shared: rates are per CPU second.
 */
#define _POSIX_C_SOURCE 200809L

#include "culonx.h"
#include "core/eval/replay.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void megatron_1t_a100(culonx_run *r)
{
    memset(r, 0, sizeof *r);
    culonx_model *m = &r->model;
    snprintf(m->name, sizeof m->name, "megatron-1t");
    m->arch = CULONX_ARCH_GPT;
    m->layers = 128, m->hidden = 25600, m->heads = 160, m->kv_heads = 160;
    m->ffn = 4 * 25600, m->vocab = 51200, m->seq = 2048;
    culonx_system *s = &r->system;
    snprintf(s->name, sizeof s->name, "a100-80g");
    snprintf(s->gpu.name, sizeof s->gpu.name, "A100-SXM4-80GB");
    s->gpu.matrix16_tflops = 312, s->gpu.vector_tflops = 19.5, s->gpu.hbm_gbps = 2039;
    s->gpu.mem_gib = 80, s->gpu.min_mhz = 210, s->gpu.max_mhz = 1410, s->gpu.step_mhz = 15;
    s->gpu.tdp_w = 400, s->gpu.idle_w = 60;
    s->gpus_per_node = 8, s->ntiers = 2, s->pue = 1.0;
    s->tier[0] = (culonx_net_tier){"nvlink", 300, 2e-6, 0.75, 2.0};
    s->tier[1] = (culonx_net_tier){"ib", 25, 5e-6, 0.85, 25.0};
    culonx_execution *e = &r->exec;
    e->gpus = 4096, e->tp = 8, e->pp = 64, e->dp = 8, e->vp = 1, e->microbatch = 1;
    e->global_batch = 3072, e->recompute = CULONX_RECOMPUTE_FULL, e->schedule = CULONX_SCHED_1F1B;
    e->dp_overlap = 1, e->tokens = 450e9;
}

static int set(culonx_sweep_spec *s, const char *k, const char *v)
{
    culonx_error err;
    if (culonx_sweep_option(s, k, v, &err) == CULONX_OK) return 0;
    fprintf(stderr, "bench: %s\n", err.msg);
    return 1;
}

static uint64_t digest_entries(uint64_t h, const culonx_sweep_entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        double v[3] = {e[i].res.iteration_time_s, e[i].res.energy.total_j,
                       e[i].res.memory.peak_bytes};
        uint64_t w[4] = {e[i].index, 0, 0, 0};
        memcpy(&w[1], v, sizeof v);
        const unsigned char *b = (const unsigned char *)w;
        for (size_t k = 0; k < sizeof w; k++)
            h = (h ^ b[k]) * 1099511628211ull;
    }
    return h;
}

static int bench(const char *name, const culonx_run *run, culonx_sweep_spec *spec)
{
    culonx_sweep_result *res;
    culonx_error err;
    double t0 = now_s(), c0 = (double)clock() / CLOCKS_PER_SEC;
    if (culonx_sweep_run(run, spec, &res, &err) != CULONX_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    double t = now_s() - t0, cpu = (double)clock() / CLOCKS_PER_SEC - c0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* valid executions: everything not rejected by a structural rule */
    double valid = (double)(res->feasible + res->rejected[CULONX_REJECT_MEMORY] +
                            res->rejected[CULONX_REJECT_EVAL]);
    printf("%s: enumerated %llu, valid executions %.0f, closed-form evaluations %llu, feasible "
           "%llu\n",
           name, (unsigned long long)res->enumerated, valid, (unsigned long long)res->evaluated,
           (unsigned long long)res->feasible);
    printf(
        "%s: pruned by bounds %llu (pruning %s); top %d and frontier %d digest %016llx\n", name,
        (unsigned long long)res->pruned, res->pruning_on ? "on" : "off", res->ntop, res->nfront,
        (unsigned long long)digest_entries(
            digest_entries(14695981039346656037ull, res->top, res->ntop), res->front, res->nfront));
    printf("%s: %.3f s wall on %d threads: %.0f executions/s, %.0f executions/s per core, "
           "%.0f closed-form evaluations/s per core (CPU time %.2f s), peak RSS %.1f MB\n",
           name, t, res->spec.threads, valid / t, cpu > 0 ? valid / cpu : 0.0,
           cpu > 0 ? (double)res->evaluated / cpu : 0.0, cpu, (double)ru.ru_maxrss / 1024.0);
    for (int i = 0; i < res->ntop && i < 5; i++) {
        const culonx_sweep_entry *x = &res->top[i];
        printf("  %d. tp %lld pp %lld dp %lld %s vp %lld mb %lld recompute %s sp %d dist-opt %d "
               "overlap %d clock %.0f: %.3f s/iteration, %.1f GiB, MFU %.3f\n",
               i + 1, (long long)x->exec.tp, (long long)x->exec.pp, (long long)x->exec.dp,
               culonx_schedule_name(x->exec.schedule), (long long)x->exec.vp,
               (long long)x->exec.microbatch, culonx_recompute_name(x->exec.recompute),
               x->exec.sequence_parallel, x->exec.distributed_optimizer, x->exec.dp_overlap,
               x->res.clock_mhz, x->res.iteration_time_s,
               x->res.memory.peak_bytes / (1024.0 * 1024 * 1024), x->res.mfu);
    }
    culonx_sweep_result_free(res);
    return 0;
}

/* the calculon space restricted to one schedule, 21 clocks */
static int calculon_spec(culonx_sweep_spec *spec, const char *sched)
{
    culonx_sweep_spec_init(spec);
    spec->no_prune = 1, spec->tp_across_nodes = 1;
    if (set(spec, "threads", "1") || set(spec, "schedule", sched) ||
        set(spec, "mb",
            "1,2,3,4,6,8,12,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,3072") ||
        set(spec, "dp-overlap", "on,off") || set(spec, "clocks", "210:1410:60"))
        return 1;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* one sweep of the calculon space restricted to `name`: its result and rate
 * (evaluations per CPU second) */
static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* one sweep of the calculon space restricted to `name`: its result, rate
 * (evaluations per CPU second) and page faults (minor, the process's) */
static int timed_sweep(const culonx_run *run, culonx_sweep_spec *spec, const char *name, int full,
                       culonx_sweep_result **res, double *rate, double *faults)
{
    culonx_error err;
    if (calculon_spec(spec, name)) return 1;
    cx_core_replay_set_full(full);
    long f0 = minor_faults();
    double c0 = (double)clock() / CLOCKS_PER_SEC;
    if (culonx_sweep_run(run, spec, res, &err) != CULONX_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    double cpu = (double)clock() / CLOCKS_PER_SEC - c0;
    *rate = cpu > 0 ? (double)(*res)->evaluated / cpu : 0.0;
    *faults = (double)(minor_faults() - f0);
    return 0;
}

#define MAX_REPEATS 101

static int per_schedule(const culonx_run *run, culonx_sweep_spec *spec, const char *only,
                        int repeats)
{
    printf("fast eval/s: the median of %d runs (slowest and fastest in brackets); full: one run;\n"
           "first: the schedule's first fast run (what one `culonx sweep` sees: memory new to the\n"
           "process; with `all`, earlier schedules' freed memory is reused) and its page faults\n"
           "(first pf); pf: the median page faults of the later fast runs\n",
           repeats);
    printf("%-12s %9s %12s %21s %12s %9s %10s %12s %8s %8s\n", "schedule", "evaluated",
           "fast eval/s", "fast range", "full eval/s", "same top", "worst diff", "first eval/s",
           "first pf", "pf");
    for (int k = 0; k < culonx_schedule_count(); k++) {
        const char *name = culonx_schedule_name(k);
        if (only && strcmp(only, name)) continue;
        culonx_sweep_result *res[2];
        double rate[2], fast[MAX_REPEATS], pf[MAX_REPEATS], full_pf;
        if (timed_sweep(run, spec, name, 0, &res[0], &fast[0], &pf[0])) return 1;
        const double first = fast[0], first_pf = pf[0];
        for (int r = 1; r < repeats; r++) {
            culonx_sweep_result *again;
            if (timed_sweep(run, spec, name, 0, &again, &fast[r], &pf[r])) return 1;
            culonx_sweep_result_free(again);
        }
        if (timed_sweep(run, spec, name, 1, &res[1], &rate[1], &full_pf)) return 1;
        qsort(pf + 1, (size_t)(repeats - 1), sizeof pf[0], cmp_double);
        const double later_pf = repeats > 1 ? pf[1 + (repeats - 1) / 2] : first_pf;
        qsort(fast, (size_t)repeats, sizeof fast[0], cmp_double);
        rate[0] = fast[repeats / 2];
        cx_core_replay_set_full(0);
        int same = res[0]->ntop == res[1]->ntop && res[0]->nfront == res[1]->nfront;
        double worst = 0;
        for (int i = 0; same && i < res[0]->ntop; i++) {
            same &= res[0]->top[i].index == res[1]->top[i].index;
            double a = res[0]->top[i].res.iteration_time_s, b = res[1]->top[i].res.iteration_time_s;
            worst = fmax(worst, fabs(a - b) / b);
        }
        for (int i = 0; same && i < res[0]->nfront; i++) {
            same &= res[0]->front[i].index == res[1]->front[i].index;
            double a = res[0]->front[i].res.iteration_time_s,
                   b = res[1]->front[i].res.iteration_time_s;
            worst = fmax(worst, fabs(a - b) / b);
        }
        char range[64];
        snprintf(range, sizeof range, "[%.0f, %.0f]", fast[0], fast[repeats - 1]);
        printf("%-12s %9llu %12.0f %21s %12.0f %9s %10.3g %12.0f %8.0f %8.0f\n", name,
               (unsigned long long)res[0]->evaluated, rate[0], range, rate[1], same ? "yes" : "NO",
               worst, first, first_pf, later_pf);
        culonx_sweep_result_free(res[0]);
        culonx_sweep_result_free(res[1]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    culonx_keep_freed_memory(); /* as the culonx command does */
    const char *which = argc > 1 ? argv[1] : "all";
    culonx_run *run = malloc(sizeof *run);
    culonx_sweep_spec *spec = malloc(sizeof *spec);
    if (!run || !spec) return 3;
    megatron_1t_a100(run);
    int rc = 0;
    if (!strcmp(which, "small") || !strcmp(which, "all")) {
        culonx_sweep_spec_init(spec);
        if (argc > 2 && set(spec, "threads", argv[2])) return 2;
        spec->no_prune = argc > 3 && !strcmp(argv[3], "noprune");
        if (set(spec, "clocks", "1410,1350,1290")) return 2;
        rc |= bench("small", run, spec);
    }
    if (!strcmp(which, "calculon") || !strcmp(which, "all")) {
        culonx_sweep_spec_init(spec);
        if (argc > 2 && set(spec, "threads", argv[2])) return 2;
        spec->no_prune = argc > 3 && !strcmp(argv[3], "noprune");
        spec->tp_across_nodes = 1;
        /* every divisor of every local batch 3072/dp (dp a power of 2) */
        if (set(spec, "mb",
                "1,2,3,4,6,8,12,16,24,32,48,64,96,128,192,256,384,512,768,1024,1536,3072") ||
            set(spec, "dp-overlap", "on,off") || set(spec, "clocks", "210:1410:15"))
            return 2;
        rc |= bench("calculon", run, spec);
    }
    if (!strcmp(which, "schedules") || !strcmp(which, "all")) {
        const char *only =
            !strcmp(which, "schedules") && argc > 2 && strcmp(argv[2], "all") ? argv[2] : NULL;
        int repeats = 5;
        if (!strcmp(which, "schedules") && argc > 3) {
            char *end;
            long r = strtol(argv[3], &end, 10);
            if (*end || r < 1 || r > MAX_REPEATS) {
                fprintf(stderr, "bench: REPEATS must be 1..%d, not '%s'\n", MAX_REPEATS, argv[3]);
                return 2;
            }
            repeats = (int)r;
        }
        rc |= per_schedule(run, spec, only, repeats);
    }
    free(run);
    free(spec);
    return rc;
}
