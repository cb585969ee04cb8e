/*
 * cost_key.c — reuse of chunk costs between evaluations that differ only in
 * DP settings or the clock (see cost_key.h). The key is everything
 * cx_core_cost_build reads: the model, the system, the execution with DP
 * overlap and parameter-gather overlap cleared (they are read only by the
 * per-stage part, cx_core_cost_stages), the distributed optimizer and ZeRO
 * 0/1 folded into one (no chunk cost reads them below ZeRO-2), the clock and
 * the layer split. Any other field, including fields added later, is part
 * of the key, so a reuse never skips a cost that depends on it; and the
 * cost must hold what the key's build or reprice left (its number,
 * cx_cost.gen: a build of other inputs into the same cost through another
 * workspace, or none, changes it). A hit at the same clock skips the op tables, the roofline
 * and the collectives of every part (about 70% of a build); the per-stage
 * part is O(p v). A hit at another clock keeps the shape (model stack,
 * layout, classes' contents, virtual-stage maps, equal stages) and prices
 * it again (cx_core_cost_reprice): a sweep's clocks are its innermost
 * structural level. A miss whose execution differs only in fields read
 * when pricing (recompute, TP overlap, ZeRO, offload, all-to-all overlap:
 * op_key) keeps the op tables, layout, classes and equal stages, with the
 * ops' clock-independent parts and collectives, and prices the cost again
 * for the new execution (cx_core_cost_reexec). A run pinned to the key
 * (cx_core_cost_key_pin: a sweep worker's) has its model, system and split
 * compared once, then only its execution.
 * See core/README.md, "Sweeps".
 */
#include "core/eval/cost_key.h"

#include <stdlib.h>
#include <string.h>

struct cx_cost_key {
    int valid;
    const cx_cost *c; /* the cost built */
    double clock_mhz;
    culonx_model model;
    culonx_system system;
    culonx_execution exec;
    int n_layers;
    int64_t layers[CX_COST_MAX_VSTAGES];
    /* the build's number (cx_cost.gen): any later build or reprice into
     * the same cost without this key (another workspace, or none) changes
     * it */
    uint64_t gen;
    /* cx_core_cost_key_pin: a run whose model, system and layer split do
     * not change, and whether those above were found equal to its */
    const culonx_run *pinned;
    int pin_same;
    /* the parts' times of the cost's shape at the sweep's clocks
     * (cost_clocks.c), for the reprices of a clock hit */
    cx_cost_clocks *clocks;
    /* the last call's run, whether it left exec == exec_key(tail_run), and
     * the caller's word for the next call (cx_core_cost_key_tail) */
    const culonx_run *tail_run;
    int tail_held, tail_only;
};

void cx_core_cost_key_tail(cx_cost_key *k, const culonx_run *run, int tail_only)
{
    if (k) k->tail_only = tail_only && run == k->tail_run;
}

cx_cost_clocks *cx_core_cost_key_clocks(cx_cost_key *k)
{
    return k ? k->clocks : NULL;
}

void cx_core_cost_key_set_clocks(cx_cost_key *k, const double *mhz, int n)
{
    if (!k) return;
    if (!k->clocks) k->clocks = cx_core_cost_clocks_new();
    cx_core_cost_clocks_set(k->clocks, mhz, n);
}

void cx_core_cost_key_pin(cx_cost_key *k, const culonx_run *run)
{
    if (!k) return;
    k->pinned = run;
    k->pin_same = 0;
}

cx_cost_key *cx_core_cost_key_new(void)
{
    return calloc(1, sizeof(cx_cost_key));
}

void cx_core_cost_key_free(cx_cost_key *k)
{
    if (k) cx_core_cost_clocks_free(k->clocks);
    free(k);
}

/* run's execution without the fields read only by cx_core_cost_stages.
 * The ZeRO stage (zero, or 1 with distributed_optimizer) is read before the
 * stage loop only by the side traffic of ZeRO-2/3 (cx_core_shard_part, which
 * prices nothing below stage 2 but offload, whose cost does not read the
 * stage there); stages 0 and 1 share one key, and a hit redoes the shard
 * groups (cx_core_shard_groups). */
static void exec_key(const culonx_run *run, culonx_execution *e)
{
    *e = run->exec;
    e->dp_overlap = 0;
    e->param_gather_overlap = 0;
    e->clock_mhz = 0; /* the build reads its clock argument (the key's clock_mhz) */
    if (cx_core_layout_zero(e) < 2) e->zero = 0, e->distributed_optimizer = 0;
}

/* The execution key without the fields read only when pricing the op
 * tables (cx_core_cost_reexec): recompute, TP overlap, ZeRO (stage,
 * shard group, implementation), offload and all-to-all overlap. Two runs
 * with equal op keys (and model, system, layer split) have the same op
 * tables, layout, chunk classes and equal stages. */
static void op_key(const culonx_execution *k, culonx_execution *e)
{
    *e = *k;
    e->recompute = CULONX_RECOMPUTE_NONE;
    e->tp_overlap = CULONX_TP_OVERLAP_NONE;
    e->zero = 0, e->distributed_optimizer = 0, e->shard_group = 0;
    e->zero_impl = (culonx_zero_impl)0;
    e->offload = 0;
    e->a2a_overlap = (culonx_a2a_overlap)0;
}

static int layers_ok(const culonx_run *run)
{
    return !run->vstage_layers ||
           (run->n_vstage_layers >= 0 && run->n_vstage_layers <= CX_COST_MAX_VSTAGES);
}

static culonx_status build_key(const culonx_run *run, double clock_mhz, cx_cost *c, cx_cost_key *k,
                               int mem_only, int *complete, culonx_error *err);

culonx_status cx_core_cost_build_key(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     cx_cost_key *k, culonx_error *err)
{
    int complete;
    return build_key(run, clock_mhz, c, k, 0, &complete, err);
}

culonx_status cx_core_cost_build_key_mem(const culonx_run *run, double clock_mhz, cx_cost *c,
                                         cx_cost_key *k, int *complete, culonx_error *err)
{
    return build_key(run, clock_mhz, c, k, 1, complete, err);
}

static culonx_status build_key(const culonx_run *run, double clock_mhz, cx_cost *c, cx_cost_key *k,
                               int mem_only, int *complete, culonx_error *err)
{
    culonx_execution e;
    *complete = 1;
    int same_sys = 0; /* the last build into c was for run's system */
    /* run's execution key is the key's (the last call held it and run
     * changed since only in fields it folds away) */
    const int held = k && k->tail_only && k->tail_held && run == k->tail_run;
    if (k) k->tail_only = 0, k->tail_held = 0, k->tail_run = run;
    if (k && k->valid && k->c == c && layers_ok(run)) {
        if (!held) exec_key(run, &e);
        const int n = run->vstage_layers ? run->n_vstage_layers : -1;
        const int pinned = run == k->pinned && k->pin_same;
        const int same = c->gen == k->gen &&
                         (pinned || (n == k->n_layers &&
                                     (n <= 0 || memcmp(run->vstage_layers, k->layers,
                                                       (size_t)n * sizeof *k->layers) == 0) &&
                                     memcmp(&run->model, &k->model, sizeof k->model) == 0 &&
                                     memcmp(&run->system, &k->system, sizeof k->system) == 0));
        if (same && run == k->pinned) k->pin_same = 1;
        same_sys =
            c->gen == k->gen && (pinned || memcmp(&run->system, &k->system, sizeof k->system) == 0);
        culonx_execution oe, ok;
        const int same_exec = same && (held || memcmp(&e, &k->exec, sizeof e) == 0);
        if (same && !same_exec) {
            op_key(&e, &oe), op_key(&k->exec, &ok);
            if (memcmp(&oe, &ok, sizeof oe) == 0) { /* the same op tables */
                cx_core_cost_reexec(run, clock_mhz, c, mem_only);
                *complete = c->priced;
                k->exec = e;
                k->clock_mhz = clock_mhz;
                k->gen = c->gen;
                k->tail_held = 1;
                return CULONX_OK;
            }
        }
        if (same_exec) {
            k->tail_held = 1;             /* exec: run's, kept by every branch below */
            c->keep_run = run;            /* of the kept entries' key (cost.h keep_mixed) */
            if (!c->priced && mem_only) { /* memory reads no time */
                c->run = run;
                cx_core_shard_groups(c);
                *complete = 0;
                return CULONX_OK;
            }
            if (k->clock_mhz == clock_mhz && c->priced) {
                c->run = run;
                cx_core_shard_groups(c);
                cx_core_cost_dp_runs(run, c); /* per stage when asked (dp_stale) */
                return CULONX_OK;
            }
            /* another clock: the same shape, priced again (the parts'
             * times at the sweep's clocks made at once) */
            cx_core_cost_reprice_clocks(run, clock_mhz, c, k->clocks);
            k->clock_mhz = clock_mhz;
            k->gen = c->gen;
            return CULONX_OK;
        }
    }
    culonx_status st = same_sys   ? cx_core_cost_build_same_sys(run, clock_mhz, c, mem_only, err)
                       : mem_only ? cx_core_cost_build_mem(run, clock_mhz, c, err)
                                  : cx_core_cost_build(run, clock_mhz, c, err);
    *complete = st == CULONX_OK && c->priced;
    if (!k) return st;
    k->valid = st == CULONX_OK && layers_ok(run);
    k->pin_same = k->valid && run == k->pinned; /* model, system and split just copied */
    if (k->valid) {
        k->c = c;
        k->clock_mhz = clock_mhz;
        k->model = run->model;
        k->system = run->system;
        exec_key(run, &k->exec);
        k->n_layers = run->vstage_layers ? run->n_vstage_layers : -1;
        if (k->n_layers > 0)
            memcpy(k->layers, run->vstage_layers, (size_t)k->n_layers * sizeof *k->layers);
        k->gen = c->gen;
        k->tail_held = 1;
    }
    return st;
}
