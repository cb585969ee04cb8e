/*
 * options.c — the options of a sweep (culonx_sweep_option: value lists
 * "8", "1,2,4", "A:B", "A:B:STEP", names, on/off), their defaults, and the
 * names of reject reasons and objectives. See sweep.c for the semantics.
 */
#include "core/search/sweep.h"
#include "core/base/base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

/* culonx_sweep_reject_name: core/layout/rules.c (one reject vocabulary) */

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

static culonx_status int_list_into(const char *name, const char *value, culonx_sweep_list *l,
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
        for (const char *q = p; q < e; q++)
            colons += *q == ':';
        if (colons > 2) return bad_opt(err, name, syn, value);
        const char *q = p;
        while (q <= e && na < 3) {
            const char *c = memchr(q, ':', (size_t)(e - q));
            const char *qe = c ? c : e;
            if (qe - q >= 1 && *q == '-')
                return bad_opt(err, name, "'%s': values must be positive", value);
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
static culonx_status name_list_into(const char *name, const char *value, culonx_sweep_list *l,
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

/* The list parsers fill a copy, so that a bad value leaves the spec as it
 * was (found by fuzz_sweep_options: a half-parsed list stayed unsorted). */
static culonx_status parse_int_list(const char *name, const char *value, culonx_sweep_list *l,
                                    culonx_error *err)
{
    static _Thread_local culonx_sweep_list tmp;
    culonx_status st = int_list_into(name, value, &tmp, err);
    if (st == CULONX_OK) *l = tmp;
    return st;
}

static culonx_status parse_name_list(const char *name, const char *value, culonx_sweep_list *l,
                                     int (*lookup)(const char *, int64_t *), const char *known,
                                     culonx_error *err)
{
    static _Thread_local culonx_sweep_list tmp;
    culonx_status st = name_list_into(name, value, &tmp, lookup, known, err);
    if (st == CULONX_OK) *l = tmp;
    return st;
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

static int look_attention(const char *s, int64_t *v)
{
    for (int a = CULONX_ATTENTION_FLASH; a <= CULONX_ATTENTION_NAIVE; a++)
        if (strcmp(s, culonx_attention_name((culonx_attention)a)) == 0) return *v = a, 0;
    return -1;
}

static int look_tp_overlap(const char *s, int64_t *v)
{
    for (int t = CULONX_TP_OVERLAP_NONE; t <= CULONX_TP_OVERLAP_RING; t++)
        if (strcmp(s, culonx_tp_overlap_name((culonx_tp_overlap)t)) == 0) return *v = t, 0;
    return -1;
}

static int look_zero(const char *s, int64_t *v)
{
    if (s[0] >= '0' && s[0] <= '3' && s[1] == '\0') return *v = s[0] - '0', 0;
    return -1;
}

/* a shard-group size, or full / 0 for all of dp */
static int look_shard(const char *s, int64_t *v)
{
    if (!strcmp(s, "full") || !strcmp(s, "0")) return *v = 0, 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || end == s || errno || x < 1 || x > MAX_INT_VALUE || s[0] == '-' || s[0] == '+')
        return -1;
    return *v = x, 0;
}

/* an offload set: none, or parts joined by '+' (weights+optimizer) */
static int look_offload(const char *s, int64_t *v)
{
    static const char *const names[] = {"weights", "activations", "optimizer"};
    *v = 0;
    if (!strcmp(s, "none")) return 0;
    while (*s) {
        size_t n = strcspn(s, "+");
        int bit = 0;
        for (int i = 0; i < 3; i++)
            if (strlen(names[i]) == n && !strncmp(s, names[i], n)) bit = 1 << i;
        if (!bit || (*v & bit)) return -1;
        *v |= bit;
        s += n;
        if (*s == '+' && !*++s) return -1;
    }
    return 0;
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
        {"gpus", CULONX_SWEEP_GPUS},
        {"global-batch", CULONX_SWEEP_GLOBAL_BATCH},
        {"tp", CULONX_SWEEP_TP},
        {"pp", CULONX_SWEEP_PP},
        {"vp", CULONX_SWEEP_VP},
        {"mb", CULONX_SWEEP_MICROBATCH},
        {"microbatch", CULONX_SWEEP_MICROBATCH},
        {"clocks", CULONX_SWEEP_CLOCK},
        {"cp", CULONX_SWEEP_CP},
        {"ep", CULONX_SWEEP_EP},
        {"etp", CULONX_SWEEP_ETP},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (strcmp(name, lists[i].name) == 0)
            return parse_int_list(name, value, &s->list[lists[i].dim], err);
    if (!strcmp(name, "schedule")) {
        char known[256] = "";
        size_t used = 0;
        for (int i = 0; i < culonx_schedule_count() && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     culonx_schedule_name((culonx_schedule)i));
        if (used < sizeof known) snprintf(known + used, sizeof known - used, " or all");
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_SCHEDULE], look_sched, known,
                               err);
    }
    if (!strcmp(name, "recompute"))
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_RECOMPUTE], look_recompute,
                               "none, selective, full or all", err);
    /* attention and tp-overlap default to the run's value; "all" is every
     * value */
    if (!strcmp(name, "attention"))
        return parse_name_list(name, value && !strcmp(value, "all") ? "flash,naive" : value,
                               &s->list[CULONX_SWEEP_ATTENTION], look_attention,
                               "flash, naive or all", err);
    if (!strcmp(name, "tp-overlap"))
        return parse_name_list(name, value && !strcmp(value, "all") ? "none,pipe,ring" : value,
                               &s->list[CULONX_SWEEP_TP_OVERLAP], look_tp_overlap,
                               "none, pipe, ring or all", err);
    /* sharding and offload default to the run's values */
    if (!strcmp(name, "zero"))
        return parse_name_list(name, value && !strcmp(value, "all") ? "0,1,2,3" : value,
                               &s->list[CULONX_SWEEP_ZERO], look_zero, "0, 1, 2, 3 or all", err);
    if (!strcmp(name, "shard-group"))
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_SHARD_GROUP], look_shard,
                               "a positive group size or full", err);
    if (!strcmp(name, "offload"))
        return parse_name_list(name, value, &s->list[CULONX_SWEEP_OFFLOAD], look_offload,
                               "none, or weights, activations, optimizer joined by +", err);
    int bdim = !strcmp(name, "sp")           ? CULONX_SWEEP_SP
               : !strcmp(name, "dist-opt")   ? CULONX_SWEEP_DIST_OPT
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
    if (!strcmp(name, "power-cap-mw")) {
        if (!value || !*value) return bad_opt(err, name, "needs a value%s", "");
        char *end;
        errno = 0;
        double d = strtod(value, &end);
        if (*end || end == value || errno || !isfinite(d))
            return bad_opt(err, name, "'%s' is not a number", value);
        if (d <= 0) return bad_opt(err, name, "'%s' must be positive", value);
        s->power_cap_w = d * 1e6;
        return CULONX_OK;
    }
    return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "unknown sweep option '--%s'", name);
}
