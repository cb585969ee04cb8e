/*
 * sweep.c — enumerates the executions of one model on one system, evaluates
 * each in closed form (core/closed.c), and keeps the top K by an objective,
 * the Pareto frontier and per-reason reject counts. Threads on one machine,
 * MPI ranks across machines; results byte-identical for any count of either.
 *
 * The space is a mixed-radix product of value lists, outermost first:
 *   gpus x global-batch x tp x pp x variant x microbatch x recompute x sp
 *   x clock x distributed-optimizer x dp-overlap
 * where a variant is a (schedule, vp) pair: every vp of the vp list for
 * schedules that take one (interleaved: chunks(v) varies with v), vp = 1 for
 * the rest. The enumeration index of a candidate is its position in this
 * product; it is decoded on the fly (nothing is materialised), and every tie
 * (objective, Pareto duplicates) breaks by it. dp = gpus/(tp*pp) and
 * m = global-batch/(microbatch*dp) are derived.
 *
 * Defaults ("all valid"): gpus and global batch from the run; tp the
 * divisors of gpus-per-node (--tp-across-nodes adds its multiples up to
 * min(heads, gpus)); pp the divisors of layers; vp the divisors of layers
 * >= 2; microbatch 1, 2, 4, ... up to max-microbatch (64); all recompute
 * modes; sp and distributed optimizer off and on; dp-overlap as in the run;
 * all registered schedules (cx_sched_get(id) != NULL); the run's clock (max
 * when 0) — other clocks only with --clocks, as they only pay off with energy.
 *
 * Rules, checked outermost level first; the first failing rule is the
 * candidate's reject reason, and a rule that fails at level L rejects the
 * whole run of indices sharing the digits above L at once (counted, not
 * visited). The rules of an execution are the execution check's predicates
 * (core/check.c, with each schedule's own supports()); the sweep adds the
 * restrictions of its space and the duplicates: tp divides gpus-per-node or
 * (across nodes) is a multiple of it; heads, kv-heads and ffn % tp; layers
 * % pp; gpus % (tp*pp); pp = 1 only with single-chunk schedules, and then
 * only the canonical one (1f1b if listed) — the others are the same
 * execution; the schedule's rules on (pp, vp, layers) and the stage limit;
 * global batch % (microbatch*dp); the schedule's rules on the microbatch
 * count m (schedules/); sp with tp = 1, distributed optimizer or
 * dp-overlap with dp = 1 are duplicates unless they are the first value of
 * their list. Evaluated candidates whose peak memory exceeds the limit
 * (--max-memory-gib, default the GPU's capacity) are infeasible. Peak memory
 * depends on neither the clock nor dp-overlap, so a candidate whose class
 * representative (same digits, clock and dp-overlap digits 0) does not fit
 * is rejected for memory without being evaluated (it is not an --all row);
 * this is a pure function of the index, like every other rule.
 *
 * Objectives are per token so that runs at different global batches and GPU
 * counts compare: time = iteration time / tokens per iteration (the order of
 * iteration time at one batch), energy = J per token, tokens-per-joule its
 * inverse (negated to minimise), gpu-hours = gpus x time per token. The
 * Pareto frontier is over (time per token, energy per token, peak memory),
 * or (time, memory) without energy; a candidate dominates another if it is no
 * worse in every coordinate and better in one, or equal and of lower index,
 * which makes the frontier unique whatever the order of insertion.
 *
 * Pruning (unless --no-prune or --all): schedules without an exact closed
 * form (interleaved, zero-bubble, DualPipeV) are evaluated by replaying
 * their orders, O(pp m v) per candidate. Phase 1 evaluates every candidate
 * of the closed-form schedules (GPipe, 1F1B) exactly; their top K and
 * frontier, merged over threads and gathered on every MPI rank, are a
 * function of the space alone. Phase 2 takes the replayed candidates: for
 * each, cx_core_closed_bound gives its exact peak memory (from the orders,
 * not the times) and lower bounds of its iteration time and energy. Peak
 * memory above the limit: infeasible (as evaluation would find). Otherwise
 * it is skipped ("pruned") iff the K-th phase-1 entry ranks before its
 * bound entry (objective bound, then index: it ranks before the exact one
 * too) and a phase-1 frontier point dominates its bound point (hence its
 * exact point, domination being transitive with the index tie-break); it
 * then can enter neither the final top K nor the frontier, which are thus
 * exactly those of the unpruned sweep. Pruned candidates fit in memory and
 * are counted as feasible (and as pruned), not as evaluated. Which are
 * pruned depends only on the space, so counts too are identical for any
 * thread or rank count.
 *
 * Parallelism: the index space is cut into blocks of BLOCK candidates; MPI
 * rank r of K owns blocks r, r+K, ...; its threads claim them from an atomic
 * counter. Per-thread top-K heaps, frontiers and counts merge by (objective,
 * index), so the merge is order-independent. --all rows go through per-block
 * buffers flushed in block order, with at most WINDOW blocks outstanding per
 * thread (bounded memory); --all needs a single MPI rank.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf, clock_gettime */

#include "core/sweep.h"
#include "core/base.h"
#include "core/check.h"
#include "core/closed.h"
#include "core/cost.h"
#include "core/graph.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CULONX_HAVE_MPI
#include <mpi.h>
#endif

#define BLOCK 256          /* candidates per work unit */
#define REP_MEMO 8         /* memory-fit memo entries per worker */
#define WINDOW 4           /* --all: blocks in flight per thread */
#define DEFAULT_TOP_K 10
#define DEFAULT_MAX_MICROBATCH 64
#define MAX_TOP_K 100000
#define MAX_THREADS 1024
#define MAX_INT_VALUE 1000000000LL

/* internal levels (the public dims with schedule and vp fused) */
enum { L_GPUS, L_GB, L_TP, L_PP, L_VAR, L_MB, L_RC, L_SP, L_CLK, L_DOPT, L_OVL, NLEVELS };

typedef struct {
    int sched;  /* culonx_schedule */
    const cx_sched_desc *desc;
    int64_t vp; /* requested vp (1 for schedules that take none) */
    int chunks; /* per stage */
    int exact; /* closed form without replay (cx_sched_desc.closed_exact) */
} variant;

typedef struct {
    const culonx_run *run;
    const int64_t *vals[NLEVELS]; /* L_VAR: unused */
    int n[NLEVELS];
    variant *var;
    uint64_t stride[NLEVELS];
    uint64_t total;
    int canon_var;      /* the variant evaluated at pp = 1 (-1: none) */
    int64_t gpn;
    int tp_across;
    int64_t gb_min, gb_max;
    double mem_limit;
    culonx_objective obj;
    int energy;
} space;

/* ------------------------------------------------------------ names */

/* culonx_sweep_reject_name: core/check.c (one reject vocabulary) */

static const char *const objective_names[] = {"time", "energy", "tokens-per-joule", "gpu-hours"};

const char *culonx_objective_name(culonx_objective o)
{
    return (unsigned)o < 4 ? objective_names[o] : "?";
}

/* ------------------------------------------------------------ options */

void culonx_sweep_spec_init(culonx_sweep_spec *spec)
{
    memset(spec, 0, sizeof *spec);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void list_sort_unique(culonx_sweep_list *l)
{
    qsort(l->v, (size_t)l->n, sizeof l->v[0], cmp_i64);
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (k == 0 || l->v[k - 1] != l->v[i]) l->v[k++] = l->v[i];
    l->n = k;
}

static culonx_status bad_opt(culonx_error *err, const char *name, const char *fmt, const char *arg)
{
    char msg[600];
    snprintf(msg, sizeof msg, fmt, arg);
    return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "--%s: %s", name, msg);
}

/* Parses a positive integer spanning [s, e). */
static int parse_pos(const char *s, const char *e, int64_t *out)
{
    if (s == e || e - s > 12) return -1;
    int64_t v = 0;
    for (const char *p = s; p < e; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
    }
    *out = v;
    return 0;
}

static culonx_status parse_int_list(const char *name, const char *value, culonx_sweep_list *l,
                                    culonx_error *err)
{
    static const char *const syn = "bad list '%s' (expected N, A,B,C, A:B or A:B:STEP of "
                                   "positive integers)";
    if (!value || !*value) return bad_opt(err, name, "needs a value%s", "");
    l->n = 0;
    const char *p = value;
    for (;;) {
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        int64_t a[3] = {0, 0, 1};
        int na = 0, colons = 0;
        for (const char *q = p; q < e; q++) colons += *q == ':';
        if (colons > 2) return bad_opt(err, name, syn, value);
        const char *q = p;
        while (q <= e && na < 3) {
            const char *c = memchr(q, ':', (size_t)(e - q));
            const char *qe = c ? c : e;
            if (qe - q >= 1 && *q == '-') return bad_opt(err, name, "'%s': values must be positive", value);
            if (parse_pos(q, qe, &a[na])) return bad_opt(err, name, syn, value);
            na++;
            if (!c) break;
            q = c + 1;
        }
        for (int i = 0; i < na; i++) {
            if (a[i] <= 0) return bad_opt(err, name, "'%s': values must be positive (> 0)", value);
            if (a[i] > MAX_INT_VALUE) return bad_opt(err, name, "'%s': value too large", value);
        }
        if (na >= 2 && a[1] < a[0])
            return bad_opt(err, name, "'%s': range end is below its start", value);
        int64_t hi = na >= 2 ? a[1] : a[0];
        for (int64_t v = a[0]; v <= hi; v += a[2]) {
            if (l->n >= CULONX_SWEEP_MAX_VALUES)
                return bad_opt(err, name, "'%s': more than 1024 values", value);
            l->v[l->n++] = v;
        }
        if (!*e) break;
        p = e + 1;
    }
    list_sort_unique(l);
    return CULONX_OK;
}

/* Comma-separated names; "all" selects every value (n = 0: the default). */
static culonx_status parse_name_list(const char *name, const char *value, culonx_sweep_list *l,
                                     int (*lookup)(const char *, int64_t *), const char *known,
                                     culonx_error *err)
{
    if (!value || !*value) return bad_opt(err, name, "needs a value%s", "");
    l->n = 0;
    if (strcmp(value, "all") == 0) return CULONX_OK;
    const char *p = value;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char tok[64];
        if (len == 0 || len >= sizeof tok) return bad_opt(err, name, "bad list '%s'", value);
        memcpy(tok, p, len);
        tok[len] = '\0';
        int64_t v;
        if (lookup(tok, &v)) {
            char msg[200];
            snprintf(msg, sizeof msg, "unknown value '%s' (expected %s)", tok, known);
            return bad_opt(err, name, "%s", msg);
        }
        if (l->n < CULONX_SWEEP_MAX_VALUES) l->v[l->n++] = v;
        if (!e) break;
        p = e + 1;
    }
    list_sort_unique(l);
    return CULONX_OK;
}

static int look_sched(const char *s, int64_t *v)
{
    culonx_schedule id;
    if (culonx_schedule_parse(s, &id)) return -1;
    *v = id;
    return 0;
}

static int look_recompute(const char *s, int64_t *v)
{
    for (int r = 0; r <= CULONX_RECOMPUTE_FULL; r++)
        if (strcmp(s, culonx_recompute_name((culonx_recompute)r)) == 0) return *v = r, 0;
    return -1;
}

static int look_bool(const char *s, int64_t *v)
{
    if (!strcmp(s, "on") || !strcmp(s, "true") || !strcmp(s, "1")) return *v = 1, 0;
    if (!strcmp(s, "off") || !strcmp(s, "false") || !strcmp(s, "0")) return *v = 0, 0;
    return -1;
}

static culonx_status parse_one_int(const char *name, const char *value, int64_t lo, int64_t hi,
                                   int64_t *out, culonx_error *err)
{
    if (!value || !*value) return bad_opt(err, name, "needs a value%s", "");
    int64_t v;
    if (value[0] == '-') return bad_opt(err, name, "'%s' must be a positive integer", value);
    if (parse_pos(value, value + strlen(value), &v))
        return bad_opt(err, name, "'%s' is not an integer", value);
    if (v < lo || v > hi) {
        char msg[200];
        snprintf(msg, sizeof msg, "'%s' is out of range (%lld..%lld)", value, (long long)lo,
                 (long long)hi);
        return bad_opt(err, name, "%s", msg);
    }
    *out = v;
    return CULONX_OK;
}

culonx_status culonx_sweep_option(culonx_sweep_spec *s, const char *name, const char *value,
                                  culonx_error *err)
{
    cx_core_error_clear(err);
    static const struct {
        const char *name;
        int dim;
    } lists[] = {
        {"gpus", CULONX_SWEEP_GPUS}, {"global-batch", CULONX_SWEEP_GLOBAL_BATCH},
        {"tp", CULONX_SWEEP_TP},     {"pp", CULONX_SWEEP_PP},
        {"vp", CULONX_SWEEP_VP},     {"mb", CULONX_SWEEP_MICROBATCH},
        {"microbatch", CULONX_SWEEP_MICROBATCH}, {"clocks", CULONX_SWEEP_CLOCK},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (strcmp(name, lists[i].name) == 0)
            return parse_int_list(name, value, &s->list[lists[i].dim], err);
    if (!strcmp(name, "schedule")) {
        char known[256] = "";
        size_t used = 0;
        for (int i = 0; i < CULONX_SCHED_COUNT && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     culonx_schedule_name((culonx_schedule)i));
        if (used < sizeof known) snprintf(known + used, sizeof known - used, " or all");
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_SCHEDULE], look_sched, known,
                               err);
    }
    if (!strcmp(name, "recompute"))
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_RECOMPUTE], look_recompute,
                               "none, selective, full or all", err);
    int bdim = !strcmp(name, "sp") ? CULONX_SWEEP_SP
               : !strcmp(name, "dist-opt") ? CULONX_SWEEP_DIST_OPT
               : !strcmp(name, "dp-overlap") ? CULONX_SWEEP_DP_OVERLAP
                                             : -1;
    if (bdim >= 0)
        return parse_name_list(name, value, &s->list[bdim], look_bool, "on, off or all", err);
    int64_t v;
    culonx_status st;
    if (!strcmp(name, "tp-across-nodes")) {
        s->tp_across_nodes = 1;
        return CULONX_OK;
    }
    if (!strcmp(name, "no-prune")) {
        s->no_prune = 1;
        return CULONX_OK;
    }
    if (!strcmp(name, "objective")) {
        for (int o = 0; o < 4; o++)
            if (value && strcmp(value, objective_names[o]) == 0) {
                s->objective = (culonx_objective)o;
                return CULONX_OK;
            }
        return bad_opt(err, name,
                       "unknown objective '%s' (expected time, energy, tokens-per-joule or "
                       "gpu-hours)",
                       value ? value : "");
    }
    if (!strcmp(name, "top")) {
        if ((st = parse_one_int(name, value, 1, MAX_TOP_K, &v, err))) return st;
        s->top_k = (int)v;
        return CULONX_OK;
    }
    if (!strcmp(name, "threads")) {
        if ((st = parse_one_int(name, value, 1, MAX_THREADS, &v, err))) return st;
        s->threads = (int)v;
        return CULONX_OK;
    }
    if (!strcmp(name, "verify")) {
        if ((st = parse_one_int(name, value, 0, MAX_TOP_K, &v, err))) return st;
        s->verify_k = (int)v;
        return CULONX_OK;
    }
    if (!strcmp(name, "max-microbatch"))
        return parse_one_int(name, value, 1, MAX_INT_VALUE, &s->max_microbatch, err);
    if (!strcmp(name, "min-global-batch"))
        return parse_one_int(name, value, 1, MAX_INT_VALUE, &s->min_global_batch, err);
    if (!strcmp(name, "max-global-batch"))
        return parse_one_int(name, value, 1, MAX_INT_VALUE, &s->max_global_batch, err);
    if (!strcmp(name, "max-memory-gib")) {
        if (!value || !*value) return bad_opt(err, name, "needs a value%s", "");
        char *end;
        errno = 0;
        double d = strtod(value, &end);
        if (*end || end == value || errno || !isfinite(d))
            return bad_opt(err, name, "'%s' is not a number", value);
        if (d <= 0) return bad_opt(err, name, "'%s' must be positive", value);
        s->max_memory_gib = d;
        return CULONX_OK;
    }
    return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "unknown sweep option '--%s'", name);
}

/* ------------------------------------------------------------ the space */

typedef struct {
    space sp;
    culonx_sweep_list lists[NLEVELS]; /* defaults materialised */
    variant var[CULONX_SCHED_COUNT * CULONX_SWEEP_MAX_VALUES];
} space_store;

static void push(culonx_sweep_list *l, int64_t v)
{
    if (l->n < CULONX_SWEEP_MAX_VALUES) l->v[l->n++] = v;
}

static culonx_status build_space(const culonx_run *run, const culonx_sweep_spec *spec,
                                 space_store *st, culonx_error *err)
{
    const culonx_model *md = &run->model;
    const culonx_execution *ex = &run->exec;
    const culonx_gpu *g = &run->system.gpu;
    space *sp = &st->sp;
    memset(sp, 0, sizeof *sp);
    sp->run = run;
    sp->gpn = run->system.gpus_per_node > 0 ? run->system.gpus_per_node : 1;
    sp->tp_across = spec->tp_across_nodes;
    sp->gb_min = spec->min_global_batch;
    sp->gb_max = spec->max_global_batch;
    sp->obj = spec->objective;
    if (sp->gb_min && sp->gb_max && sp->gb_min > sp->gb_max)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "--min-global-batch %lld is above --max-global-batch %lld",
                            (long long)sp->gb_min, (long long)sp->gb_max);
    const culonx_sweep_list *in = spec->list;
    culonx_sweep_list *L = st->lists;
    for (int i = 0; i < NLEVELS; i++) L[i].n = 0;
#define TAKE(lv, dim) (in[dim].n ? (void)(L[lv] = in[dim]) : (void)0)
    TAKE(L_GPUS, CULONX_SWEEP_GPUS);
    if (!L[L_GPUS].n) push(&L[L_GPUS], ex->gpus);
    TAKE(L_GB, CULONX_SWEEP_GLOBAL_BATCH);
    if (!L[L_GB].n) push(&L[L_GB], ex->global_batch);
    int64_t max_gpus = L[L_GPUS].v[L[L_GPUS].n - 1];
    TAKE(L_TP, CULONX_SWEEP_TP);
    if (!L[L_TP].n) {
        for (int64_t t = 1; t <= sp->gpn; t++)
            if (sp->gpn % t == 0) push(&L[L_TP], t);
        if (sp->tp_across)
            for (int64_t t = 2 * sp->gpn; t <= md->heads && t <= max_gpus; t += sp->gpn)
                push(&L[L_TP], t);
    }
    TAKE(L_PP, CULONX_SWEEP_PP);
    if (!L[L_PP].n)
        for (int64_t p = 1; p <= md->layers && p <= max_gpus; p++)
            if (md->layers % p == 0) push(&L[L_PP], p);
    TAKE(L_MB, CULONX_SWEEP_MICROBATCH);
    if (!L[L_MB].n) {
        int64_t mx = spec->max_microbatch > 0 ? spec->max_microbatch : DEFAULT_MAX_MICROBATCH;
        for (int64_t b = 1; b <= mx; b *= 2) push(&L[L_MB], b);
    }
    TAKE(L_RC, CULONX_SWEEP_RECOMPUTE);
    if (!L[L_RC].n)
        for (int r = 0; r <= CULONX_RECOMPUTE_FULL; r++) push(&L[L_RC], r);
    TAKE(L_SP, CULONX_SWEEP_SP);
    if (!L[L_SP].n) push(&L[L_SP], 0), push(&L[L_SP], 1);
    TAKE(L_DOPT, CULONX_SWEEP_DIST_OPT);
    if (!L[L_DOPT].n) push(&L[L_DOPT], 0), push(&L[L_DOPT], 1);
    TAKE(L_OVL, CULONX_SWEEP_DP_OVERLAP);
    if (!L[L_OVL].n) push(&L[L_OVL], ex->dp_overlap ? 1 : 0);
    TAKE(L_CLK, CULONX_SWEEP_CLOCK);
    if (!L[L_CLK].n) push(&L[L_CLK], (int64_t)llround(ex->clock_mhz));
    else
        for (int i = 0; i < L[L_CLK].n; i++)
            if ((double)L[L_CLK].v[i] < g->min_mhz || (double)L[L_CLK].v[i] > g->max_mhz)
                return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                                    "--clocks: %lld MHz is outside the %s range %g-%g MHz",
                                    (long long)L[L_CLK].v[i], g->name, g->min_mhz, g->max_mhz);
#undef TAKE

    /* variants: (schedule, vp) */
    culonx_sweep_list vps = in[CULONX_SWEEP_VP];
    if (!vps.n)
        for (int64_t v = 2; v <= md->layers; v++)
            if (md->layers % v == 0) push(&vps, v);
    culonx_sweep_list scheds = in[CULONX_SWEEP_SCHEDULE];
    int explicit_sched = scheds.n > 0;
    if (!scheds.n)
        for (int i = 0; i < CULONX_SCHED_COUNT; i++) push(&scheds, i);
    int nv = 0;
    sp->canon_var = -1;
    for (int i = 0; i < scheds.n; i++) {
        const cx_sched_desc *d = cx_sched_get((culonx_schedule)scheds.v[i]);
        if (!d) {
            if (explicit_sched)
                return cx_core_fail(err, CULONX_EINPUT, NULL, 0,
                                    "--schedule: %s is not available in this build",
                                    culonx_schedule_name((culonx_schedule)scheds.v[i]));
            continue;
        }
        int uses_vp = cx_sched_takes_vp(d);
        int nvals = uses_vp ? vps.n : 1;
        for (int k = 0; k < nvals; k++) {
            variant *v = &st->var[nv++];
            v->sched = (int)scheds.v[i];
            v->desc = d;
            v->vp = uses_vp ? vps.v[k] : 1;
            v->chunks = cx_core_rule_chunks(d, v->vp);
            v->exact = d->closed_exact;
            if (v->chunks == 1 &&
                (sp->canon_var < 0 || (v->sched == CULONX_SCHED_1F1B &&
                                       st->var[sp->canon_var].sched != CULONX_SCHED_1F1B)))
                sp->canon_var = nv - 1;
        }
    }
    if (nv == 0) return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "no pipeline schedule available");
    sp->var = st->var;
    for (int i = 0; i < NLEVELS; i++) {
        sp->vals[i] = L[i].v;
        sp->n[i] = L[i].n;
    }
    sp->n[L_VAR] = nv;
    uint64_t s = 1;
    for (int i = NLEVELS - 1; i >= 0; i--) {
        sp->stride[i] = s;
        if (sp->n[i] <= 0) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "empty sweep list");
        if (s > UINT64_MAX / 4 / (uint64_t)sp->n[i])
            return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "the sweep space is too large");
        s *= (uint64_t)sp->n[i];
    }
    sp->total = s;
    sp->mem_limit = spec->max_memory_gib > 0 ? spec->max_memory_gib * CX_GIB : g->mem_gib * CX_GIB;
    return CULONX_OK;
}

uint64_t cx_core_sweep_size(const culonx_run *run, const culonx_sweep_spec *spec, culonx_error *err)
{
    space_store *st = malloc(sizeof *st);
    if (!st) return 0;
    uint64_t n = build_space(run, spec, st, err) == CULONX_OK ? st->sp.total : 0;
    free(st);
    return n;
}

/* Digits of an index. */
static void decode(const space *sp, uint64_t idx, int d[NLEVELS])
{
    for (int i = 0; i < NLEVELS; i++) {
        d[i] = (int)(idx / sp->stride[i]);
        idx -= (uint64_t)d[i] * sp->stride[i];
    }
}

/* The first failing rule (reject reason) and its level, or -1; fills ex.
 * The rules of an execution are core/check.c's predicates (the schedule's
 * own via its descriptor), called level by level; the sweep adds its space
 * restrictions (batch range, tp and gpus-per-node) and the duplicates. */
static int check(const space *sp, const int d[NLEVELS], culonx_execution *ex, int *level)
{
    const culonx_model *md = &sp->run->model;
    culonx_sweep_reject r;
#define REJ(lv, r) return (*level = (lv), (r))
    int64_t gpus = sp->vals[L_GPUS][d[L_GPUS]];
    int64_t gb = sp->vals[L_GB][d[L_GB]];
    if ((sp->gb_min && gb < sp->gb_min) || (sp->gb_max && gb > sp->gb_max))
        REJ(L_GB, CULONX_REJECT_GLOBAL_BATCH_RANGE);
    int64_t tp = sp->vals[L_TP][d[L_TP]];
    if (tp > sp->gpn) {
        if (!sp->tp_across) REJ(L_TP, CULONX_REJECT_TP_ACROSS);
        if (tp % sp->gpn) REJ(L_TP, CULONX_REJECT_TP_NODE);
    } else if (sp->gpn % tp) {
        REJ(L_TP, CULONX_REJECT_TP_NODE);
    }
    if ((r = cx_core_rule_tp(md, tp)) != CULONX_REJECT_NONE) REJ(L_TP, r);
    int64_t pp = sp->vals[L_PP][d[L_PP]];
    /* every schedule needs pp | layers (chunks >= 1): the whole pp subtree */
    if (md->layers % pp) REJ(L_PP, CULONX_REJECT_LAYERS_PP);
    ex->tp = tp, ex->pp = pp;
    cx_layout lay;
    cx_core_layout_init(&lay, ex);
    int64_t dp = cx_core_layout_derive_dp(&lay, gpus);
    if (dp == 0) REJ(L_PP, CULONX_REJECT_GPUS_TP_PP);
    const variant *v = &sp->var[d[L_VAR]];
    if (pp == 1) { /* one stage: every schedule runs the same execution */
        if (v->chunks > 1) REJ(L_VAR, CULONX_REJECT_PP1_CHUNKS);
        if (d[L_VAR] != sp->canon_var) REJ(L_VAR, CULONX_REJECT_DUP_SCHEDULE);
    }
    cx_sched_shape shape = {pp, 0, v->vp, md->layers};
    if ((r = cx_core_rule_pipeline(v->desc, &shape)) != CULONX_REJECT_NONE) REJ(L_VAR, r);
    if ((r = cx_core_rule_stages(v->desc, &shape)) != CULONX_REJECT_NONE) REJ(L_VAR, r);
    int64_t mb = sp->vals[L_MB][d[L_MB]];
    if ((r = cx_core_rule_batch(gb, mb, dp)) != CULONX_REJECT_NONE) REJ(L_MB, r);
    shape.m = gb / (mb * dp);
    if ((r = v->desc->supports(&shape)) != CULONX_REJECT_NONE) REJ(L_MB, r);
    int sp_on = (int)sp->vals[L_SP][d[L_SP]];
    if (tp == 1 && d[L_SP] != 0) REJ(L_SP, CULONX_REJECT_DUP_SP);
    int dopt = (int)sp->vals[L_DOPT][d[L_DOPT]];
    if (dp == 1 && d[L_DOPT] != 0) REJ(L_DOPT, CULONX_REJECT_DUP_DIST_OPT);
    int ovl = (int)sp->vals[L_OVL][d[L_OVL]];
    if (dp == 1 && d[L_OVL] != 0) REJ(L_OVL, CULONX_REJECT_DUP_DP_OVERLAP);
#undef REJ
    ex->gpus = gpus;
    ex->global_batch = gb;
    ex->tp = tp;
    ex->pp = pp;
    ex->dp = dp;
    ex->schedule = (culonx_schedule)v->sched;
    ex->vp = v->vp;
    ex->microbatch = mb;
    ex->recompute = (culonx_recompute)sp->vals[L_RC][d[L_RC]];
    ex->sequence_parallel = sp_on;
    ex->distributed_optimizer = dopt;
    ex->dp_overlap = ovl;
    ex->clock_mhz = (double)sp->vals[L_CLK][d[L_CLK]];
    return -1;
}

/* ------------------------------------------------- ranking and frontier */

static double objective_of(const space *sp, const culonx_execution *ex, const culonx_result *r)
{
    double tok = (double)ex->global_batch * (double)sp->run->model.seq;
    double v;
    switch (sp->obj) {
    case CULONX_OBJECTIVE_ENERGY: v = r->energy.total_j / tok; break;
    case CULONX_OBJECTIVE_TOKENS_PER_J: v = -(tok / r->energy.total_j); break;
    case CULONX_OBJECTIVE_GPU_HOURS: v = r->iteration_time_s * (double)ex->gpus / tok; break;
    default: v = r->iteration_time_s / tok; break;
    }
    return isnan(v) ? INFINITY : v;
}

/* a before b: better objective, then lower index */
static int better(const culonx_sweep_entry *a, const culonx_sweep_entry *b)
{
    if (a->objective != b->objective) return a->objective < b->objective;
    return a->index < b->index;
}

static int cmp_rank(const void *x, const void *y)
{
    const culonx_sweep_entry *a = x, *b = y;
    return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

typedef struct {
    culonx_sweep_entry *e; /* max-heap: the worst kept entry at e[0] */
    int n, cap;
} topk;

static void topk_offer(topk *h, const culonx_sweep_entry *x)
{
    if (h->cap <= 0) return;
    if (h->n < h->cap) {
        int i = h->n++;
        while (i > 0) {
            int p = (i - 1) / 2;
            if (!better(&h->e[p], x)) break;
            h->e[i] = h->e[p];
            i = p;
        }
        h->e[i] = *x;
        return;
    }
    if (!better(x, &h->e[0])) return;
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        const culonx_sweep_entry *wv = x;
        if (l < h->n && better(wv, &h->e[l])) w = l, wv = &h->e[l];
        if (r < h->n && better(wv, &h->e[r])) w = r;
        if (w == i) break;
        h->e[i] = h->e[w];
        i = w;
    }
    h->e[i] = *x;
}

typedef struct {
    double t, e, m;
    uint64_t idx;
} point;

typedef struct {
    point *p;
    culonx_sweep_entry *e;
    int n, cap;
    int oom;
} front;

static point point_of(const space *sp, const culonx_sweep_entry *x)
{
    double tok = (double)x->exec.global_batch * (double)sp->run->model.seq;
    point p = {x->res.iteration_time_s / tok, sp->energy ? x->res.energy.total_j / tok : 0.0,
               x->res.memory.peak_bytes, x->index};
    return p;
}

static int dominates(const point *a, const point *b)
{
    if (a->t > b->t || a->e > b->e || a->m > b->m) return 0;
    if (a->t < b->t || a->e < b->e || a->m < b->m) return 1;
    return a->idx < b->idx;
}

static void front_offer(front *f, const point *x, const culonx_sweep_entry *xe)
{
    for (int i = 0; i < f->n; i++)
        if (dominates(&f->p[i], x)) {
            if (i > 0) { /* move the dominator forward: it is likely to strike again */
                point tp = f->p[i];
                culonx_sweep_entry te = f->e[i];
                f->p[i] = f->p[i - 1], f->e[i] = f->e[i - 1];
                f->p[i - 1] = tp, f->e[i - 1] = te;
            }
            return;
        }
    int k = 0;
    for (int i = 0; i < f->n; i++)
        if (!dominates(x, &f->p[i])) {
            if (k != i) f->p[k] = f->p[i], f->e[k] = f->e[i];
            k++;
        }
    f->n = k;
    if (f->n == f->cap) {
        int nc = f->cap ? 2 * f->cap : 64;
        point *np = realloc(f->p, (size_t)nc * sizeof *np);
        if (np) f->p = np;
        culonx_sweep_entry *ne = np ? realloc(f->e, (size_t)nc * sizeof *ne) : NULL;
        if (ne) f->e = ne;
        if (!np || !ne) {
            f->oom = 1;
            return;
        }
        f->cap = nc;
    }
    f->p[f->n] = *x;
    f->e[f->n] = *xe;
    f->n++;
}

static int cmp_front(const void *x, const void *y)
{
    const culonx_sweep_entry *a = x, *b = y;
    if (a->res.iteration_time_s != b->res.iteration_time_s)
        return a->res.iteration_time_s < b->res.iteration_time_s ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* ------------------------------------------------------------ --all rows */

typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) CX_PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->buf ? b->buf + b->len : NULL, b->buf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < room && b->buf) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + (size_t)n + 1) nc *= 2;
        char *nb = realloc(b->buf, nc);
        if (!nb) {
            b->oom = 1;
            return;
        }
        b->buf = nb, b->cap = nc;
    }
}

static const char *const csv_header =
    "index,gpus,global_batch,tp,pp,dp,schedule,vp,microbatch,recompute,sequence_parallel,"
    "distributed_optimizer,dp_overlap,clock_mhz,iteration_time_s,tokens_per_s,mfu,"
    "peak_memory_gib,fits,energy_j\n";

static void row(sbuf *b, int jsonl, const culonx_sweep_entry *x)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    if (jsonl)
        sb_printf(b,
                  "{\"index\":%llu,\"gpus\":%lld,\"global_batch\":%lld,\"tp\":%lld,\"pp\":%lld,"
                  "\"dp\":%lld,\"schedule\":\"%s\",\"vp\":%lld,\"microbatch\":%lld,"
                  "\"recompute\":\"%s\",\"sequence_parallel\":%s,\"distributed_optimizer\":%s,"
                  "\"dp_overlap\":%s,\"clock_mhz\":%.9g,\"iteration_time_s\":%.17g,"
                  "\"tokens_per_s\":%.9g,\"mfu\":%.9g,\"peak_memory_gib\":%.9g,\"fits\":%s,"
                  "\"energy_j\":%.17g}\n",
                  (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
                  (long long)e->tp, (long long)e->pp, (long long)e->dp,
                  culonx_schedule_name(e->schedule), (long long)e->vp, (long long)e->microbatch,
                  culonx_recompute_name(e->recompute), e->sequence_parallel ? "true" : "false",
                  e->distributed_optimizer ? "true" : "false", e->dp_overlap ? "true" : "false",
                  r->clock_mhz, r->iteration_time_s, r->tokens_per_s, r->mfu,
                  r->memory.peak_bytes / CX_GIB, r->memory.fits ? "true" : "false",
                  r->energy.total_j);
    else
        sb_printf(b, "%llu,%lld,%lld,%lld,%lld,%lld,%s,%lld,%lld,%s,%d,%d,%d,%.9g,%.17g,%.9g,%.9g,"
                     "%.9g,%d,%.17g\n",
                  (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
                  (long long)e->tp, (long long)e->pp, (long long)e->dp,
                  culonx_schedule_name(e->schedule), (long long)e->vp, (long long)e->microbatch,
                  culonx_recompute_name(e->recompute), e->sequence_parallel,
                  e->distributed_optimizer, e->dp_overlap, r->clock_mhz, r->iteration_time_s,
                  r->tokens_per_s, r->mfu, r->memory.peak_bytes / CX_GIB, r->memory.fits,
                  r->energy.total_j);
}

/* ------------------------------------------------------------ workers */

typedef struct shared shared;

typedef struct {
    shared *sh;
    pthread_t tid;
    int id;
    culonx_run run;
    cx_cost *cost;
    cx_replay_ws *ws;
    uint64_t evaluated, feasible, pruned;
    uint64_t rejected[CULONX_REJECT_COUNT];
    topk top;
    front fr;
    sbuf out;
    int failed;
    /* memory fit of recent class representatives (see run_block) */
    culonx_run rep_run;
    uint64_t rep_idx[REP_MEMO];
    int rep_fits[REP_MEMO]; /* -1: empty */
    unsigned rep_next;
} worker;

static void remember(worker *w, uint64_t rep, int fits)
{
    unsigned k = w->rep_next++ % REP_MEMO;
    w->rep_idx[k] = rep;
    w->rep_fits[k] = fits;
}

struct shared {
    const space *sp;
    const culonx_sweep_spec *spec;
    uint64_t nblocks; /* this rank's */
    int rank, size;
    atomic_uint_fast64_t next;  /* next local block (no --all) */
    atomic_uint_fast64_t done;  /* candidates processed */
    uint64_t local_total;
    /* --all ordered output */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t claim, flushed;
    sbuf *slots;
    char *ready;
    int nslots;
    int write_failed;
    double last_progress;
    /* pruning (see the file comment): phase 0 = one pass, no pruning;
     * 1 = closed-form schedules only; 2 = replayed schedules, pruned against
     * the exact phase-1 top K and frontier of the whole space (g_top, g_fr) */
    int phase;
    const topk *g_top;
    const front *g_fr;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t block_candidates(const shared *sh, uint64_t gb)
{
    uint64_t lo = gb * BLOCK, hi = lo + BLOCK;
    if (hi > sh->sp->total) hi = sh->sp->total;
    return hi - lo;
}

/* May a candidate whose exact values are bounded below by lb (objective,
 * time, energy, memory; index and exec set) be left out? Only when K exact
 * phase-1 entries all rank before it whatever its exact values (ties break
 * by index, as in the final ranking) and a phase-1 frontier point dominates
 * its bound point, hence its exact point. */
static int prunable(const shared *sh, const culonx_sweep_entry *lb)
{
    const topk *t = sh->g_top;
    if (t->n < t->cap || !better(&t->e[0], lb)) return 0;
    point q = point_of(sh->sp, lb);
    if (isnan(q.t) || isnan(q.e) || isnan(q.m)) return 0;
    for (int i = 0; i < sh->g_fr->n; i++)
        if (dominates(&sh->g_fr->p[i], &q)) return 1;
    return 0;
}

/* Processes the candidates of one block; returns how many were settled. */
static uint64_t run_block(worker *w, uint64_t gblock)
{
    const space *sp = w->sh->sp;
    const int phase = w->sh->phase;
    uint64_t lo = gblock * BLOCK, hi = lo + BLOCK;
    if (hi > sp->total) hi = sp->total;
    int d[NLEVELS];
    culonx_sweep_entry x;
    culonx_error err;
    uint64_t idx = lo, settled = 0;
    while (idx < hi) {
        decode(sp, idx, d);
        int level = 0;
        int r = check(sp, d, &w->run.exec, &level);
        if (r >= 0) {
            uint64_t s = sp->stride[level];
            uint64_t end = (idx / s + 1) * s;
            if (end > hi) end = hi;
            if (phase != 2) w->rejected[r] += end - idx, settled += end - idx;
            idx = end;
            continue;
        }
        int exact = sp->var[d[L_VAR]].exact;
        if ((phase == 1 && !exact) || (phase == 2 && exact)) {
            idx++;
            continue;
        }
        settled++;
        int built = 0;
        if (phase == 2) {
            /* exact memory and lower bounds of time and energy, no replay */
            cx_bound b;
            if (cx_core_closed_bound(&w->run, w->run.exec.clock_mhz, w->cost, w->ws, &b, &err) ==
                CULONX_OK) {
                built = 1;
                if (b.peak_bytes > sp->mem_limit) {
                    w->rejected[CULONX_REJECT_MEMORY]++;
                    idx++;
                    continue;
                }
                memset(&x.res, 0, sizeof x.res);
                x.index = idx;
                x.exec = w->run.exec;
                x.res.iteration_time_s = b.time_s;
                x.res.energy.total_j = b.energy_j;
                x.res.memory.peak_bytes = b.peak_bytes;
                x.objective = objective_of(sp, &x.exec, &x.res);
                if (!isnan(b.time_s) && !isnan(b.energy_j) && prunable(w->sh, &x)) {
                    w->pruned++;
                    w->feasible++;
                    idx++;
                    continue;
                }
            }
        }
        /* peak memory depends on neither the clock nor dp-overlap: when the
         * class representative (both digits 0) does not fit, neither does
         * this one, and it is rejected without evaluation */
        uint64_t rep = idx - (uint64_t)d[L_CLK] * sp->stride[L_CLK] -
                       (uint64_t)d[L_OVL] * sp->stride[L_OVL];
        if (rep != idx && phase != 2) {
            int fits = -1;
            for (int k = 0; k < REP_MEMO; k++)
                if (w->rep_fits[k] >= 0 && w->rep_idx[k] == rep) fits = w->rep_fits[k];
            if (fits < 0) {
                int rd[NLEVELS], lv;
                culonx_run *rr = &w->rep_run;
                decode(sp, rep, rd);
                fits = check(sp, rd, &rr->exec, &lv) < 0 &&
                       cx_core_closed_eval_ws(rr, rr->exec.clock_mhz, w->cost, w->ws, &x.res,
                                              &err) == CULONX_OK &&
                       x.res.memory.peak_bytes <= sp->mem_limit;
                remember(w, rep, fits);
            }
            if (!fits) {
                w->rejected[CULONX_REJECT_MEMORY]++;
                idx++;
                continue;
            }
        }
        culonx_status st =
            built ? cx_core_closed_finish(&w->run, w->cost, w->ws, &x.res, &err)
                  : cx_core_closed_eval_ws(&w->run, w->run.exec.clock_mhz, w->cost, w->ws, &x.res,
                                           &err);
        if (st != CULONX_OK) {
            w->rejected[CULONX_REJECT_EVAL]++;
            idx++;
            continue;
        }
        w->evaluated++;
        x.index = idx;
        x.exec = w->run.exec;
        x.res.memory.fits = x.res.memory.peak_bytes <= sp->mem_limit;
        if (rep == idx && phase != 2) remember(w, idx, x.res.memory.fits);
        x.objective = objective_of(sp, &x.exec, &x.res);
        if (w->sh->spec->all) row(&w->out, w->sh->spec->all_jsonl, &x);
        if (x.res.memory.fits) {
            w->feasible++;
            topk_offer(&w->top, &x);
            point p = point_of(sp, &x);
            front_offer(&w->fr, &p, &x);
        } else {
            w->rejected[CULONX_REJECT_MEMORY]++;
        }
        idx++;
    }
    return settled;
}

static void maybe_progress(worker *w)
{
    shared *sh = w->sh;
    if (w->id != 0 || !sh->spec->progress || sh->rank != 0) return;
    double t = now_s();
    if (t - sh->last_progress < 0.2) return;
    sh->last_progress = t;
    sh->spec->progress(sh->spec->progress_ctx, (uint64_t)atomic_load(&sh->done), sh->local_total);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const int ordered = sh->spec->all != NULL;
    for (;;) {
        uint64_t k;
        if (ordered) {
            pthread_mutex_lock(&sh->mu);
            while (sh->claim < sh->nblocks && sh->claim >= sh->flushed + (uint64_t)sh->nslots)
                pthread_cond_wait(&sh->cv, &sh->mu);
            k = sh->claim < sh->nblocks ? sh->claim++ : sh->nblocks;
            pthread_mutex_unlock(&sh->mu);
        } else {
            k = (uint64_t)atomic_fetch_add(&sh->next, 1);
        }
        if (k >= sh->nblocks) break;
        uint64_t gblock = k * (uint64_t)sh->size + (uint64_t)sh->rank;
        w->out.len = 0;
        uint64_t settled = run_block(w, gblock);
        if (ordered) {
            pthread_mutex_lock(&sh->mu);
            sbuf *slot = &sh->slots[k % (uint64_t)sh->nslots];
            sbuf tmp = *slot; /* swap buffers: the worker keeps the slot's old one */
            *slot = w->out;
            w->out = tmp;
            sh->ready[k % (uint64_t)sh->nslots] = 1;
            while (sh->flushed < sh->nblocks && sh->ready[sh->flushed % (uint64_t)sh->nslots]) {
                sbuf *b = &sh->slots[sh->flushed % (uint64_t)sh->nslots];
                if (b->oom) sh->write_failed = 1;
                if (b->len && fwrite(b->buf, 1, b->len, sh->spec->all) != b->len)
                    sh->write_failed = 1;
                b->len = 0;
                sh->ready[sh->flushed % (uint64_t)sh->nslots] = 0;
                sh->flushed++;
            }
            pthread_cond_broadcast(&sh->cv);
            pthread_mutex_unlock(&sh->mu);
        }
        atomic_fetch_add(&sh->done, sh->phase == 0 ? block_candidates(sh, gblock) : settled);
        maybe_progress(w);
    }
    return NULL;
}

/* ------------------------------------------------------------ MPI */

#ifdef CULONX_HAVE_MPI
static int mpi_inited_here;
#endif

void culonx_sweep_mpi_begin(int *argc, char ***argv, int *rank, int *size)
{
    *rank = 0, *size = 1;
#ifdef CULONX_HAVE_MPI
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return;
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS) return;
        mpi_inited_here = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
#else
    (void)argc, (void)argv;
#endif
}

void culonx_sweep_mpi_end(void)
{
#ifdef CULONX_HAVE_MPI
    if (mpi_inited_here) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Finalize();
        mpi_inited_here = 0;
    }
#endif
}

static void mpi_world(int *rank, int *size)
{
    *rank = 0, *size = 1;
#ifdef CULONX_HAVE_MPI
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        MPI_Comm_rank(MPI_COMM_WORLD, rank);
        MPI_Comm_size(MPI_COMM_WORLD, size);
    }
#endif
}

#ifdef CULONX_HAVE_MPI
/* Gathers n entries of every rank at rank 0; returns the concatenation
 * (rank 0) and its count, NULL elsewhere. */
static culonx_sweep_entry *mpi_gather_entries(const culonx_sweep_entry *e, int n, int rank,
                                              int size, int *total)
{
    int bytes = n * (int)sizeof *e;
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int sum = 0;
    if (rank == 0) {
        for (int i = 0; i < size; i++) displs[i] = sum, sum += counts[i];
        all = malloc(sum > 0 ? (size_t)sum : 1);
    }
    MPI_Gatherv((void *)e, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    *total = sum / (int)sizeof *e;
    return (culonx_sweep_entry *)all;
}

/* Gathers n entries of every rank at every rank, in rank order; returns the
 * concatenation (free it) and its count; NULL when out of memory. */
static culonx_sweep_entry *mpi_allgather_entries(const culonx_sweep_entry *e, int n, int size,
                                                 int *total)
{
    int bytes = n * (int)sizeof *e;
    int *counts = calloc((size_t)size, sizeof *counts);
    int *displs = calloc((size_t)size, sizeof *displs);
    if (!counts || !displs) {
        free(counts), free(displs);
        return NULL; /* the other ranks then block: out of memory is fatal here */
    }
    MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int sum = 0;
    for (int i = 0; i < size; i++) displs[i] = sum, sum += counts[i];
    char *all = malloc(sum > 0 ? (size_t)sum : 1);
    MPI_Allgatherv((void *)e, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    *total = sum / (int)sizeof *e;
    return (culonx_sweep_entry *)all;
}
#endif

/* ------------------------------------------------------------ driver */

culonx_status cx_core_sweep_verify(const culonx_run *run, const culonx_execution *ex,
                                   culonx_result *res, culonx_error *err)
{
    culonx_run *r = malloc(sizeof *r);
    if (!r) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    *r = *run;
    r->exec = *ex;
    cx_graph *g = NULL;
    culonx_status st = cx_core_graph_build(r, ex->clock_mhz, CX_DETAIL_STAGE, &g, err);
    if (st == CULONX_OK) st = cx_core_graph_eval(g, err);
    if (st == CULONX_OK) cx_core_graph_result(g, res);
    cx_core_graph_free(g);
    free(r);
    return st;
}

void culonx_sweep_result_free(culonx_sweep_result *r)
{
    if (!r) return;
    free(r->top);
    free(r->front);
    free(r->verified);
    free(r);
}

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Runs the current phase of sh on nth workers (the caller is worker 0). */
static void run_phase(shared *sh, worker *ws, int nth)
{
    atomic_store(&sh->next, 0);
    int started = 0;
    for (int i = 1; i < nth; i++) {
        if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) break;
        started = i;
    }
    worker_main(&ws[0]);
    for (int i = 1; i <= started; i++) pthread_join(ws[i].tid, NULL);
}

culonx_status culonx_sweep_run(const culonx_run *run, const culonx_sweep_spec *spec,
                               culonx_sweep_result **out, culonx_error *err)
{
    cx_core_error_clear(err);
    *out = NULL;
    if (!run || !spec) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_sweep_run: NULL");
    int rank, size;
    mpi_world(&rank, &size);
    if (spec->all && size > 1)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "--all needs a single process (it is written in index order); "
                            "run without mpirun or drop --all");
    space_store *ss = malloc(sizeof *ss);
    culonx_sweep_result *R = calloc(1, sizeof *R);
    cx_cost *probe = malloc(sizeof *probe);
    culonx_status st = CULONX_OK;
    if (!ss || !R || !probe) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
        goto done;
    }
    if ((st = build_space(run, spec, ss, err))) goto done;
    space *sp = &ss->sp;

    /* energy: does the power model give any for this run? */
    {
        culonx_result r0;
        culonx_error e0;
        sp->energy = cx_core_closed_eval(run, run->exec.clock_mhz, probe, &r0, &e0) == CULONX_OK &&
                     r0.energy.total_j > 0;
    }
    if (!sp->energy &&
        (spec->objective == CULONX_OBJECTIVE_ENERGY || spec->objective == CULONX_OBJECTIVE_TOKENS_PER_J)) {
        st = cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                          "--objective %s needs energy, but the power model gives none for %s "
                          "(energy is zero): use --objective time or gpu-hours",
                          culonx_objective_name(spec->objective), run->system.name);
        goto done;
    }

    R->run = *run;
    R->spec = *spec;
    R->spec.all = NULL;
    R->spec.progress = NULL;
    R->spec.progress_ctx = NULL;
    R->spec.top_k = spec->top_k > 0 ? spec->top_k : DEFAULT_TOP_K;
    R->spec.threads = spec->threads > 0 ? spec->threads : online_cores();
    R->spec.max_microbatch = spec->max_microbatch > 0 ? spec->max_microbatch : DEFAULT_MAX_MICROBATCH;
    R->enumerated = sp->total;
    R->energy_available = sp->energy;
    R->memory_limit_bytes = sp->mem_limit;
    R->is_root = rank == 0;

    int nth = R->spec.threads;
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.sp = sp;
    sh.spec = spec;
    sh.rank = rank;
    sh.size = size;
    uint64_t gblocks = (sp->total + BLOCK - 1) / BLOCK;
    sh.nblocks = gblocks / (uint64_t)size + ((uint64_t)rank < gblocks % (uint64_t)size ? 1 : 0);
    sh.local_total = 0;
    for (uint64_t k = 0; k < sh.nblocks; k++)
        sh.local_total += block_candidates(&sh, k * (uint64_t)size + (uint64_t)rank);
    atomic_init(&sh.next, 0);
    atomic_init(&sh.done, 0);
    if ((uint64_t)nth > sh.nblocks && sh.nblocks > 0) nth = (int)sh.nblocks;
    if (nth < 1) nth = 1;
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    worker *ws = calloc((size_t)nth, sizeof *ws);
    if (spec->all) {
        sh.nslots = WINDOW * nth;
        sh.slots = calloc((size_t)sh.nslots, sizeof *sh.slots);
        sh.ready = calloc((size_t)sh.nslots, 1);
        if (sh.slots && sh.ready) {
            if (spec->all_jsonl == 0 && fputs(csv_header, spec->all) == EOF) sh.write_failed = 1;
        }
    }
    int ok = ws != NULL && (!spec->all || (sh.slots && sh.ready));
    for (int i = 0; ok && i < nth; i++) {
        worker *w = &ws[i];
        w->sh = &sh;
        w->id = i;
        w->run = *run;
        w->rep_run = *run;
        for (int k = 0; k < REP_MEMO; k++) w->rep_fits[k] = -1;
        w->cost = malloc(sizeof *w->cost);
        w->ws = cx_core_replay_ws_new();
        w->top.cap = R->spec.top_k;
        w->top.e = malloc((size_t)w->top.cap * sizeof *w->top.e);
        if (!w->cost || !w->ws || !w->top.e) ok = 0;
    }
    /* pruning: phase 1 evaluates the closed-form schedules of the whole
     * space; their top K and frontier, merged over threads and ranks, are
     * the same for any thread or rank count, and phase 2 prunes the
     * replayed schedules against them */
    int prune = !spec->no_prune && !spec->all;
    R->pruning_on = prune;
    topk g_top = {NULL, 0, 0};
    front g_fr;
    memset(&g_fr, 0, sizeof g_fr);
    if (ok) {
        sh.last_progress = now_s();
        sh.phase = prune ? 1 : 0;
        run_phase(&sh, ws, nth);
        if (prune) {
            g_top.cap = R->spec.top_k;
            g_top.e = malloc((size_t)g_top.cap * sizeof *g_top.e);
            if (!g_top.e) ok = 0;
            for (int i = 0; ok && i < nth; i++) {
                for (int k = 0; k < ws[i].top.n; k++) topk_offer(&g_top, &ws[i].top.e[k]);
                for (int k = 0; k < ws[i].fr.n; k++) front_offer(&g_fr, &ws[i].fr.p[k], &ws[i].fr.e[k]);
            }
#ifdef CULONX_HAVE_MPI
            if (size > 1 && g_top.e) {
                int nt = 0, nf = 0;
                culonx_sweep_entry *gt = mpi_allgather_entries(g_top.e, g_top.n, size, &nt);
                culonx_sweep_entry *gf = mpi_allgather_entries(g_fr.e, g_fr.n, size, &nf);
                if (!gt || !gf) ok = 0;
                g_top.n = 0, g_fr.n = 0;
                for (int k = 0; ok && k < nt; k++) topk_offer(&g_top, &gt[k]);
                for (int k = 0; ok && k < nf; k++) {
                    point p = point_of(sp, &gf[k]);
                    front_offer(&g_fr, &p, &gf[k]);
                }
                free(gt);
                free(gf);
            }
#endif
            if (g_fr.oom) ok = 0;
            /* every rank goes on (collectives follow); with ok = 0 phase 2
             * prunes nothing */
            if (!ok) g_top.n = 0, g_fr.n = 0;
            if (g_top.e) {
                sh.g_top = &g_top;
                sh.g_fr = &g_fr;
                sh.phase = 2;
                run_phase(&sh, ws, nth);
            }
        }
        if (spec->progress && rank == 0)
            spec->progress(spec->progress_ctx, sh.local_total, sh.local_total);
    }
    free(g_top.e);
    free(g_fr.p);
    free(g_fr.e);

    /* merge the threads */
    topk all_top = {NULL, 0, 0};
    front all_fr;
    memset(&all_fr, 0, sizeof all_fr);
    all_top.cap = R->spec.top_k;
    all_top.e = ok ? malloc((size_t)all_top.cap * sizeof *all_top.e) : NULL;
    if (!all_top.e) ok = 0;
    uint64_t counts[4 + CULONX_REJECT_COUNT];
    memset(counts, 0, sizeof counts);
    for (int i = 0; ok && i < nth; i++) {
        worker *w = &ws[i];
        counts[0] += w->evaluated, counts[1] += w->feasible;
        counts[3 + CULONX_REJECT_COUNT] += w->pruned;
        for (int r = 0; r < CULONX_REJECT_COUNT; r++) counts[3 + r] += w->rejected[r];
        for (int k = 0; k < w->top.n; k++) topk_offer(&all_top, &w->top.e[k]);
        for (int k = 0; k < w->fr.n; k++) front_offer(&all_fr, &w->fr.p[k], &w->fr.e[k]);
        if (w->fr.oom || w->out.oom) ok = 0;
    }
    if (!all_top.e || all_fr.oom) ok = 0;
    counts[2] = ok ? 0 : 1;
    if (sh.write_failed && ok) {
        ok = 0;
        counts[2] = 2;
    }

#ifdef CULONX_HAVE_MPI
    if (size > 1) {
        uint64_t sum[4 + CULONX_REJECT_COUNT];
        MPI_Reduce(counts, sum, 4 + CULONX_REJECT_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        int nt = 0, nf = 0;
        culonx_sweep_entry *gt = mpi_gather_entries(all_top.e, all_top.n, rank, size, &nt);
        culonx_sweep_entry *gf = mpi_gather_entries(all_fr.e, all_fr.n, rank, size, &nf);
        if (rank == 0) {
            memcpy(counts, sum, sizeof counts);
            all_top.n = 0;
            for (int k = 0; k < nt; k++) topk_offer(&all_top, &gt[k]);
            all_fr.n = 0;
            for (int k = 0; k < nf; k++) {
                point p = point_of(sp, &gf[k]);
                front_offer(&all_fr, &p, &gf[k]);
            }
            ok = ok && counts[2] == 0 && !all_fr.oom;
        }
        free(gt);
        free(gf);
    }
#endif
    if (!ok) {
        st = counts[2] == 2 || sh.write_failed
                 ? cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "error writing the --all file")
                 : cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    } else {
        R->evaluated = counts[0];
        R->feasible = counts[1];
        R->pruned = counts[3 + CULONX_REJECT_COUNT];
        for (int r = 0; r < CULONX_REJECT_COUNT; r++) R->rejected[r] = counts[3 + r];
        if (all_top.n > 0) qsort(all_top.e, (size_t)all_top.n, sizeof *all_top.e, cmp_rank);
        R->top = all_top.e, R->ntop = all_top.n;
        all_top.e = NULL;
        if (all_fr.n > 0) qsort(all_fr.e, (size_t)all_fr.n, sizeof *all_fr.e, cmp_front);
        R->front = all_fr.e, R->nfront = all_fr.n;
        all_fr.e = NULL;
        R->verify_status = CULONX_OK;
        if (R->spec.verify_k > 0 && rank == 0 && R->ntop > 0) {
            int nv = R->spec.verify_k < R->ntop ? R->spec.verify_k : R->ntop;
            R->verified = calloc((size_t)nv, sizeof *R->verified);
            if (!R->verified) {
                st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
            } else {
                for (int i = 0; i < nv && R->verify_status == CULONX_OK; i++) {
                    culonx_error ve;
                    R->verify_status =
                        (int)cx_core_sweep_verify(run, &R->top[i].exec, &R->verified[i], &ve);
                    if (R->verify_status == CULONX_OK) R->nverified = i + 1;
                }
            }
        }
    }
    free(all_top.e);
    free(all_fr.e);
    free(all_fr.p);
    for (int i = 0; ws && i < nth; i++) {
        free(ws[i].cost);
        cx_core_replay_ws_free(ws[i].ws);
        free(ws[i].top.e);
        free(ws[i].fr.p);
        free(ws[i].fr.e);
        free(ws[i].out.buf);
    }
    if (sh.slots)
        for (int i = 0; i < sh.nslots; i++) free(sh.slots[i].buf);
    free(sh.slots);
    free(sh.ready);
    free(ws);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
done:
    free(probe);
    free(ss);
    if (st == CULONX_OK) *out = R;
    else culonx_sweep_result_free(R);
    return st;
}

/* ------------------------------------------------------------ reports */

static const char *onoff(int b)
{
    return b ? "on" : "off";
}

static void text_entry(FILE *o, int rank, const culonx_sweep_entry *x, int energy)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    fprintf(o, "%4d %6lld %4lld %4lld %5lld %-12s %3lld %4lld %-9s %-3s %-3s %-3s %6.0f %10.4f %10.1f %6.3f %8.2f",
            rank, (long long)e->gpus, (long long)e->tp, (long long)e->pp, (long long)e->dp,
            culonx_schedule_name(e->schedule), (long long)e->vp, (long long)e->microbatch,
            culonx_recompute_name(e->recompute), onoff(e->sequence_parallel),
            onoff(e->distributed_optimizer), onoff(e->dp_overlap), r->clock_mhz,
            r->iteration_time_s, r->tokens_per_s, r->mfu, r->memory.peak_bytes / CX_GIB);
    if (energy) fprintf(o, " %12.4g", r->energy.total_j);
    fprintf(o, " %6lld %llu\n", (long long)e->global_batch, (unsigned long long)x->index);
}

static void text_header(FILE *o, int energy)
{
    fprintf(o, "%4s %6s %4s %4s %5s %-12s %3s %4s %-9s %-3s %-3s %-3s %6s %10s %10s %6s %8s", "#",
            "gpus", "tp", "pp", "dp", "schedule", "vp", "mb", "recompute", "sp", "dop", "ovl",
            "MHz", "iter_s", "tokens/s", "mfu", "mem_GiB");
    if (energy) fprintf(o, " %12s", "energy_J");
    fprintf(o, " %6s %s\n", "batch", "index");
}

void culonx_sweep_report_text(FILE *o, const culonx_sweep_result *R)
{
    if (!R || !R->is_root) return;
    const culonx_run *run = &R->run;
    fprintf(o, "sweep: %s on %s (%s), objective %s\n", run->model.name, run->system.name,
            run->system.gpu.name, culonx_objective_name(R->spec.objective));
    fprintf(o, "enumerated %llu, evaluated %llu, feasible %llu (peak memory <= %.1f GiB)\n",
            (unsigned long long)R->enumerated, (unsigned long long)R->evaluated,
            (unsigned long long)R->feasible, R->memory_limit_bytes / CX_GIB);
    if (R->pruning_on)
        fprintf(o, "pruned by bounds %llu (feasible, but provably cannot enter the top-K or the "
                   "Pareto frontier; not evaluated)\n",
                (unsigned long long)R->pruned);
    fprintf(o, "rejected:\n");
    int any = 0;
    for (int r = 0; r < CULONX_REJECT_COUNT; r++)
        if (R->rejected[r]) {
            fprintf(o, "  %-48s %llu\n", culonx_sweep_reject_name((culonx_sweep_reject)r),
                    (unsigned long long)R->rejected[r]);
            any = 1;
        }
    if (!any) fprintf(o, "  none\n");
    if (!R->energy_available)
        fprintf(o, "energy: not available (the power model gives zero energy for %s); "
                   "Pareto frontier over (time, memory)\n",
                run->system.name);
    if (R->ntop == 0) {
        fprintf(o, "no feasible configuration\n");
    } else {
        fprintf(o, "\ntop %d by %s:\n", R->ntop, culonx_objective_name(R->spec.objective));
        text_header(o, R->energy_available);
        for (int i = 0; i < R->ntop; i++) text_entry(o, i + 1, &R->top[i], R->energy_available);
        fprintf(o, "\nPareto frontier over (%s): %d points\n",
                R->energy_available ? "time, energy, memory" : "time, memory", R->nfront);
        text_header(o, R->energy_available);
        for (int i = 0; i < R->nfront; i++) text_entry(o, i + 1, &R->front[i], R->energy_available);
    }
    if (R->spec.verify_k > 0) {
        fprintf(o, "\nverify: top %d re-evaluated with the graph engine%s\n", R->nverified,
                R->verify_status == CULONX_OK ? "" : " (the graph engine failed on the next one)");
        if (R->nverified > 0)
            fprintf(o, "%4s %12s %12s %8s %12s %12s\n", "#", "closed_s", "graph_s", "diff%",
                    "closed_GiB", "graph_GiB");
        for (int i = 0; i < R->nverified; i++) {
            double a = R->top[i].res.iteration_time_s, b = R->verified[i].iteration_time_s;
            fprintf(o, "%4d %12.4f %12.4f %8.2f %12.2f %12.2f\n", i + 1, a, b,
                    a > 0 ? 100.0 * (b - a) / a : 0.0, R->top[i].res.memory.peak_bytes / CX_GIB,
                    R->verified[i].memory.peak_bytes / CX_GIB);
        }
    }
}

static void json_entry(FILE *o, const culonx_sweep_entry *x)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    fprintf(o,
            "{\"index\": %llu, \"gpus\": %lld, \"global_batch\": %lld, \"tp\": %lld, \"pp\": %lld, "
            "\"dp\": %lld, \"schedule\": \"%s\", \"vp\": %lld, \"microbatch\": %lld, "
            "\"recompute\": \"%s\", \"sequence_parallel\": %s, \"distributed_optimizer\": %s, "
            "\"dp_overlap\": %s, \"clock_mhz\": %.9g, \"iteration_time_s\": %.9g, "
            "\"tokens_per_s\": %.9g, \"mfu\": %.9g, \"peak_memory_gib\": %.9g, \"energy_j\": %.9g, "
            "\"objective\": %.9g}",
            (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
            (long long)e->tp, (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule),
            (long long)e->vp, (long long)e->microbatch, culonx_recompute_name(e->recompute),
            e->sequence_parallel ? "true" : "false", e->distributed_optimizer ? "true" : "false",
            e->dp_overlap ? "true" : "false", r->clock_mhz, r->iteration_time_s, r->tokens_per_s,
            r->mfu, r->memory.peak_bytes / CX_GIB, r->energy.total_j, x->objective);
}

static void json_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(o, "\\%c", c);
        else if (c < 0x20) fprintf(o, "\\u%04x", c);
        else fputc(c, o);
    }
    fputc('"', o);
}

void culonx_sweep_report_json(FILE *o, const culonx_sweep_result *R)
{
    if (!R || !R->is_root) return;
    fprintf(o, "{\n  \"model\": ");
    json_str(o, R->run.model.name);
    fprintf(o, ",\n  \"system\": ");
    json_str(o, R->run.system.name);
    fprintf(o, ",\n  \"objective\": \"%s\",\n", culonx_objective_name(R->spec.objective));
    fprintf(o, "  \"enumerated\": %llu,\n  \"evaluated\": %llu,\n  \"feasible\": %llu,\n",
            (unsigned long long)R->enumerated, (unsigned long long)R->evaluated,
            (unsigned long long)R->feasible);
    fprintf(o, "  \"pruned\": %llu,\n", (unsigned long long)R->pruned);
    fprintf(o, "  \"memory_limit_gib\": %.9g,\n  \"energy_available\": %s,\n",
            R->memory_limit_bytes / CX_GIB, R->energy_available ? "true" : "false");
    fprintf(o, "  \"rejected\": {");
    for (int r = 0; r < CULONX_REJECT_COUNT; r++)
        fprintf(o, "%s\n    \"%s\": %llu", r ? "," : "", culonx_sweep_reject_name((culonx_sweep_reject)r),
                (unsigned long long)R->rejected[r]);
    fprintf(o, "\n  },\n  \"top\": [");
    for (int i = 0; i < R->ntop; i++) {
        fprintf(o, "%s\n    ", i ? "," : "");
        json_entry(o, &R->top[i]);
    }
    fprintf(o, "%s],\n  \"pareto_axes\": \"%s\",\n  \"pareto\": [", R->ntop ? "\n  " : "",
            R->energy_available ? "time,energy,memory" : "time,memory");
    for (int i = 0; i < R->nfront; i++) {
        fprintf(o, "%s\n    ", i ? "," : "");
        json_entry(o, &R->front[i]);
    }
    fprintf(o, "%s]", R->nfront ? "\n  " : "");
    if (R->spec.verify_k > 0) {
        fprintf(o, ",\n  \"verify\": {\"requested\": %d, \"ok\": %s, \"graph\": [",
                R->spec.verify_k, R->verify_status == CULONX_OK ? "true" : "false");
        for (int i = 0; i < R->nverified; i++)
            fprintf(o, "%s\n    {\"index\": %llu, \"closed_iteration_time_s\": %.9g, "
                       "\"graph_iteration_time_s\": %.9g, \"closed_peak_memory_gib\": %.9g, "
                       "\"graph_peak_memory_gib\": %.9g}",
                    i ? "," : "", (unsigned long long)R->top[i].index,
                    R->top[i].res.iteration_time_s, R->verified[i].iteration_time_s,
                    R->top[i].res.memory.peak_bytes / CX_GIB,
                    R->verified[i].memory.peak_bytes / CX_GIB);
        fprintf(o, "%s]}", R->nverified ? "\n  " : "");
    }
    fprintf(o, "\n}\n");
}
