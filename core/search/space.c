/*
 * space.c — the space of a sweep and its rules: the mixed-radix product
 * of value lists (defaults filled from the run), the decoding of an
 * enumeration index into an execution, and the validity rules checked
 * outermost level first (see sweep.c for the list and why). The rules are
 * kept per worker (cx_space_memo): when only the clock, distributed-
 * optimizer or DP-overlap digit moved since a check that passed the
 * others (the caller tracks the outermost level changed), only those
 * levels' rules run.
 */
#include "core/search/sweep.h"
#include "core/base/base.h"

#include "core/eval/cost.h"
#include "core/layout/layout.h"
#include "core/layout/rules.h"
#include "schedules/sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the cx_space */

static void push(culonx_sweep_list *l, int64_t v)
{
    if (l->n < CULONX_SWEEP_MAX_VALUES) l->v[l->n++] = v;
}

culonx_status cx_core_space_build(const culonx_run *run, const culonx_sweep_spec *spec,
                                  cx_space_store *st, culonx_error *err)
{
    const culonx_model *md = &run->model;
    const culonx_execution *ex = &run->exec;
    const culonx_gpu *g = &run->system.gpu;
    cx_space *sp = &st->sp;
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
    for (int i = 0; i < NLEVELS; i++)
        L[i].n = 0;
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
    TAKE(L_CP, CULONX_SWEEP_CP);
    if (!L[L_CP].n) push(&L[L_CP], ex->cp > 1 ? ex->cp : 1);
    TAKE(L_PP, CULONX_SWEEP_PP);
    if (!L[L_PP].n)
        for (int64_t p = 1; p <= md->layers && p <= max_gpus; p++)
            if (md->layers % p == 0) push(&L[L_PP], p);
    TAKE(L_MB, CULONX_SWEEP_MICROBATCH);
    if (!L[L_MB].n) {
        int64_t mx = spec->max_microbatch > 0 ? spec->max_microbatch : DEFAULT_MAX_MICROBATCH;
        for (int64_t b = 1; b <= mx; b *= 2)
            push(&L[L_MB], b);
    }
    TAKE(L_RC, CULONX_SWEEP_RECOMPUTE);
    if (!L[L_RC].n)
        for (int r = 0; r <= CULONX_RECOMPUTE_FULL; r++)
            push(&L[L_RC], r);
    TAKE(L_SP, CULONX_SWEEP_SP);
    if (!L[L_SP].n) push(&L[L_SP], 0), push(&L[L_SP], 1);
    TAKE(L_ATT, CULONX_SWEEP_ATTENTION);
    if (!L[L_ATT].n) push(&L[L_ATT], (int64_t)ex->attention);
    TAKE(L_TPO, CULONX_SWEEP_TP_OVERLAP);
    if (!L[L_TPO].n) push(&L[L_TPO], (int64_t)ex->tp_overlap);
    TAKE(L_EP, CULONX_SWEEP_EP);
    if (!L[L_EP].n) push(&L[L_EP], ex->ep > 1 ? ex->ep : 1);
    TAKE(L_ETP, CULONX_SWEEP_ETP);
    if (!L[L_ETP].n) push(&L[L_ETP], ex->etp > 1 ? ex->etp : 1);
    /* sharding (core/README.md, "Sharding"): the zero level overrides the
     * distributed-optimizer level when >= 1 (0: that level decides, so the
     * default space of a zero <= 1 run is unchanged); given zero values or
     * a zero >= 2 run fix distributed-optimizer off unless it is listed */
    TAKE(L_ZERO, CULONX_SWEEP_ZERO);
    const int zero_fixed = L[L_ZERO].n > 0 || ex->zero >= 2;
    if (!L[L_ZERO].n) push(&L[L_ZERO], ex->zero >= 2 ? ex->zero : 0);
    TAKE(L_SHARD, CULONX_SWEEP_SHARD_GROUP);
    if (!L[L_SHARD].n) push(&L[L_SHARD], ex->shard_group > 0 ? ex->shard_group : 0);
    TAKE(L_OFF, CULONX_SWEEP_OFFLOAD);
    if (!L[L_OFF].n) push(&L[L_OFF], ex->offload);
    TAKE(L_DOPT, CULONX_SWEEP_DIST_OPT);
    if (!L[L_DOPT].n) {
        push(&L[L_DOPT], 0);
        if (!zero_fixed) push(&L[L_DOPT], 1);
    }
    TAKE(L_OVL, CULONX_SWEEP_DP_OVERLAP);
    if (!L[L_OVL].n) push(&L[L_OVL], ex->dp_overlap ? 1 : 0);
    TAKE(L_CLK, CULONX_SWEEP_CLOCK);
    if (!L[L_CLK].n)
        push(&L[L_CLK], (int64_t)llround(ex->clock_mhz));
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
        for (int i = 0; i < culonx_schedule_count(); i++)
            push(&scheds, i);
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
            cx_variant *v = &st->var[nv++];
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
    for (int i = 0; i < sp->n[L_ZERO]; i++)
        if (sp->vals[L_ZERO][i] == 1) sp->zero_lists1 = 1;
    for (int i = 0; i < sp->n[L_SHARD]; i++)
        if (sp->vals[L_SHARD][i] == 0) sp->shard_lists0 = 1;
    sp->mem_limit = spec->max_memory_gib > 0 ? spec->max_memory_gib * CX_GIB : g->mem_gib * CX_GIB;
    return CULONX_OK;
}

uint64_t cx_core_sweep_size(const culonx_run *run, const culonx_sweep_spec *spec, culonx_error *err)
{
    cx_space_store *st = malloc(sizeof *st);
    if (!st) return 0;
    uint64_t n = cx_core_space_build(run, spec, st, err) == CULONX_OK ? st->sp.total : 0;
    free(st);
    return n;
}

/* Digits of an index. */
void cx_core_space_decode(const cx_space *sp, uint64_t idx, int d[NLEVELS])
{
    for (int i = 0; i < NLEVELS; i++) {
        d[i] = (int)(idx / sp->stride[i]);
        idx -= (uint64_t)d[i] * sp->stride[i];
    }
}

int cx_core_space_next(const cx_space *sp, int d[NLEVELS])
{
    for (int i = NLEVELS - 1; i >= 0; i--) {
        if (++d[i] < sp->n[i]) return i;
        d[i] = 0;
    }
    return 0;
}

/* The first failing rule (reject reason) and its level, or -1; fills ex.
 * The rules of an execution are core/layout/rules.c's predicates (the
 * schedule's own via its descriptor), called level by level; the sweep adds
 * its space restrictions (batch range, tp and gpus-per-node) and the
 * duplicates. */
#define REJ(lv, r) return (*level = (lv), (r))
/* The rules of the levels up to L_VAR (the layout's): -1 and dp, or the
 * first failing rule. */
static int check_prefix(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int *level,
                        int64_t *dp_out)
{
    const culonx_model *md = &sp->run->model;
    culonx_sweep_reject r;
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
    const int moe = md->arch == CULONX_ARCH_MOE; /* MoE rules: core/layout/rules.c */
    if (moe && (md->shared_experts * md->expert_ffn) % tp) REJ(L_TP, CULONX_REJECT_EP);
    int64_t cp = sp->vals[L_CP][d[L_CP]];
    /* ring attention: two chunks per rank for causal balance */
    if (cp > 1 && md->seq % (2 * cp)) REJ(L_CP, CULONX_REJECT_CP);
    int64_t pp = sp->vals[L_PP][d[L_PP]];
    /* every schedule needs pp | layers (chunks >= 1): the whole pp subtree */
    if (md->layers % pp) REJ(L_PP, CULONX_REJECT_LAYERS_PP);
    ex->tp = tp, ex->pp = pp, ex->cp = cp;
    cx_layout lay;
    cx_core_layout_init(&lay, ex);
    int64_t dp = cx_core_layout_derive_dp(&lay, gpus);
    if (dp == 0) REJ(L_PP, CULONX_REJECT_GPUS_TP_PP);
    const cx_variant *v = &sp->var[d[L_VAR]];
    if (pp == 1) { /* one stage: every schedule runs the same execution */
        if (v->chunks > 1) REJ(L_VAR, CULONX_REJECT_PP1_CHUNKS);
        if (d[L_VAR] != sp->canon_var) REJ(L_VAR, CULONX_REJECT_DUP_SCHEDULE);
    }
    cx_sched_shape shape = {pp, 0, v->vp, md->layers};
    if ((r = cx_core_rule_pipeline(v->desc, &shape)) != CULONX_REJECT_NONE) REJ(L_VAR, r);
    if ((r = cx_core_rule_stages(v->desc, &shape)) != CULONX_REJECT_NONE) REJ(L_VAR, r);
    *dp_out = dp;
    return -1;
}

/* The rules of the levels below L_VAR, given the prefix's dp: those of
 * the levels L_MB..L_OFF (check_mid), then those below and the execution
 * (check_tail), in the order of one pass. */
static int check_mid(const cx_space *sp, const int d[NLEVELS], int *level, int64_t dp)
{
    const culonx_model *md = &sp->run->model;
    culonx_sweep_reject r;
    const int moe = md->arch == CULONX_ARCH_MOE;
    const int64_t gpus = sp->vals[L_GPUS][d[L_GPUS]], gb = sp->vals[L_GB][d[L_GB]];
    const int64_t tp = sp->vals[L_TP][d[L_TP]], cp = sp->vals[L_CP][d[L_CP]];
    const int64_t pp = sp->vals[L_PP][d[L_PP]];
    const cx_variant *v = &sp->var[d[L_VAR]];
    cx_sched_shape shape = {pp, 0, v->vp, md->layers};
    int64_t mb = sp->vals[L_MB][d[L_MB]];
    if ((r = cx_core_rule_batch(gb, mb, dp)) != CULONX_REJECT_NONE) REJ(L_MB, r);
    shape.m = gb / (mb * dp);
    if ((r = v->desc->supports(&shape)) != CULONX_REJECT_NONE) REJ(L_MB, r);
    int sp_on = (int)sp->vals[L_SP][d[L_SP]];
    if (tp == 1 && d[L_SP] != 0) REJ(L_SP, CULONX_REJECT_DUP_SP);
    int att = (int)sp->vals[L_ATT][d[L_ATT]];
    if (cp > 1 && att != CULONX_ATTENTION_FLASH) REJ(L_ATT, CULONX_REJECT_CP);
    int tpo = (int)sp->vals[L_TPO][d[L_TPO]];
    if (tpo != CULONX_TP_OVERLAP_NONE && !sp_on) REJ(L_TPO, CULONX_REJECT_TP_OVERLAP_SP);
    if (moe && tp > 1 && !sp_on) REJ(L_SP, CULONX_REJECT_MOE_SP);
    int64_t ep = sp->vals[L_EP][d[L_EP]], etp = sp->vals[L_ETP][d[L_ETP]];
    if (ep > 1 && (!moe || md->experts % ep)) REJ(L_EP, CULONX_REJECT_EP);
    /* expert groups fold into the gpus / pp ranks of a stage */
    if (etp > 1 && (!moe || md->expert_ffn % etp)) REJ(L_ETP, CULONX_REJECT_EP);
    if ((gpus / pp) % (ep * etp)) REJ(L_ETP, CULONX_REJECT_EP);
    int zval = (int)sp->vals[L_ZERO][d[L_ZERO]];
    if (moe && zval >= 2) REJ(L_ZERO, CULONX_REJECT_MOE_ZERO);
    /* nothing to shard over one gradient rank */
    if (zval >= 1 && dp * cp == 1) REJ(L_ZERO, CULONX_REJECT_DUP_ZERO);
    int off = (int)sp->vals[L_OFF][d[L_OFF]];
    /* the rule reads the offload set of an execution otherwise zero (kept
     * per thread: no zeroing of a whole execution per candidate) */
    static _Thread_local culonx_execution off_ex;
    off_ex.offload = off;
    if ((r = cx_core_rule_offload(&off_ex, &sp->run->system)) != CULONX_REJECT_NONE) REJ(L_OFF, r);
    (void)gpus, (void)ep, (void)etp;
    return -1;
}

static void tail_fill(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int64_t dp);

static inline int check_tail(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex,
                             int *level, int64_t dp, int all)
{
    const int zval = (int)sp->vals[L_ZERO][d[L_ZERO]];
    const int64_t sg = sp->vals[L_SHARD][d[L_SHARD]];
    int dopt = (int)sp->vals[L_DOPT][d[L_DOPT]];
    if (dp == 1 && d[L_DOPT] != 0) REJ(L_DOPT, CULONX_REJECT_DUP_DIST_OPT);
    /* zero >= 1 is the distributed optimizer already; zero 0 with it on is
     * zero 1 when the zero level lists 1 */
    if (zval >= 1 && dopt) REJ(L_DOPT, CULONX_REJECT_DUP_ZERO);
    if (zval == 0 && dopt && sp->zero_lists1) REJ(L_DOPT, CULONX_REJECT_DUP_ZERO);
    const int zero = zval >= 1 ? zval : dopt;
    if (sg > 0 && (zero == 0 || dp % sg)) REJ(L_DOPT, CULONX_REJECT_SHARD_GROUP);
    /* one replica: the full shard, when that is listed */
    if (sg == dp && sp->shard_lists0) REJ(L_SHARD, CULONX_REJECT_DUP_ZERO);
    int ovl = (int)sp->vals[L_OVL][d[L_OVL]];
    if (dp == 1 && d[L_OVL] != 0) REJ(L_OVL, CULONX_REJECT_DUP_DP_OVERLAP);
    ex->distributed_optimizer = zero >= 1;
    ex->zero = zero;
    ex->dp_overlap = ovl;
    ex->clock_mhz = (double)sp->vals[L_CLK][d[L_CLK]];
    if (all) tail_fill(sp, d, ex, dp); /* else ex holds the rest for these digits above L_CLK */
    return -1;
}
#undef REJ

/* The fields of ex for the digits above L_CLK (check_tail). */
static void tail_fill(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int64_t dp)
{
    const int64_t sg = sp->vals[L_SHARD][d[L_SHARD]];
    const int64_t gpus = sp->vals[L_GPUS][d[L_GPUS]], gb = sp->vals[L_GB][d[L_GB]];
    const int64_t tp = sp->vals[L_TP][d[L_TP]], cp = sp->vals[L_CP][d[L_CP]];
    const int64_t pp = sp->vals[L_PP][d[L_PP]];
    const cx_variant *v = &sp->var[d[L_VAR]];
    const int64_t mb = sp->vals[L_MB][d[L_MB]];
    const int sp_on = (int)sp->vals[L_SP][d[L_SP]];
    const int att = (int)sp->vals[L_ATT][d[L_ATT]];
    const int tpo = (int)sp->vals[L_TPO][d[L_TPO]];
    const int64_t ep = sp->vals[L_EP][d[L_EP]], etp = sp->vals[L_ETP][d[L_ETP]];
    const int off = (int)sp->vals[L_OFF][d[L_OFF]];
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
    ex->shard_group = sg;
    ex->offload = off;
    ex->cp = cp;
    ex->attention = (culonx_attention)att;
    ex->tp_overlap = (culonx_tp_overlap)tpo;
    ex->ep = ep, ex->etp = etp;
}

/* The rules of the levels up to L_OFF (prefix and mid) through the memo:
 * -1 and dp, or the first failing rule. */
static int memo_rules(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int *level,
                      cx_space_memo *m, int64_t *dp_out)
{
    int64_t dp = 0;
    if (m && m->valid && memcmp(m->d, d, sizeof m->d) == 0) {
        if (m->r >= 0) return (*level = m->level, m->r);
        dp = m->dp;
    } else {
        int r = check_prefix(sp, d, ex, level, &dp);
        if (m) {
            m->valid = 1;
            memcpy(m->d, d, sizeof m->d);
            m->r = r, m->level = r >= 0 ? *level : 0, m->dp = dp;
        }
        if (r >= 0) return r;
    }
    int r;
    if (m && m->mid_valid && memcmp(m->md, d, sizeof m->md) == 0) {
        r = m->mr, *level = m->mlevel;
    } else {
        r = check_mid(sp, d, level, dp);
        if (m) {
            m->mid_valid = 1;
            memcpy(m->md, d, sizeof m->md);
            m->mr = r, m->mlevel = r >= 0 ? *level : 0;
            m->tail_ex = NULL;
        }
    }
    *dp_out = dp;
    return r;
}

/* cx_core_space_check_memo through every level's memo (apart: the common
 * call, below, stays small) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
check_memo_all(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int *level,
               cx_space_memo *m)
{
    int64_t dp = 0;
    int r = memo_rules(sp, d, ex, level, m, &dp);
    if (m) m->tail_ready = r < 0, m->mdp = dp;
    if (r >= 0) return r;
    /* ex written whole for these digits above L_CLK (m->md) by the last
     * check that passed: only the fields of the levels below are written */
    const int all = !m || m->tail_ex != ex;
    r = check_tail(sp, d, ex, level, dp, all);
    if (m && r < 0) m->tail_ex = ex;
    return r;
}

int cx_core_space_check_memo(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex,
                             int *level, cx_space_memo *m, int moved)
{
    /* the last call passed the rules up to L_OFF for these digits there
     * (md), and ex holds what it wrote: only the tail's rules */
    if (m && moved > L_OFF && m->tail_ready) {
        const int r = check_tail(sp, d, ex, level, m->mdp, m->tail_ex != ex);
        if (r < 0) m->tail_ex = ex;
        return r;
    }
    return check_memo_all(sp, d, ex, level, m);
}

int cx_core_space_check(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int *level)
{
    return cx_core_space_check_memo(sp, d, ex, level, NULL, 0);
}
