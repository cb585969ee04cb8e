/*
 * cost_key.c — reuse of chunk costs between evaluations that differ only in
 * DP settings or the clock (see cost_key.h). The key is everything
 * cx_core_cost_build reads: the model, the system, the execution with DP
 * overlap and parameter-gather overlap cleared (they are read only by the
 * per-stage part, cx_core_cost_stages), the distributed optimizer and ZeRO
 * 0/1 folded into one (no chunk cost reads them below ZeRO-2), the clock and
 * the layer split. Any other field, including fields added later, is part
 * of the key, so a reuse never skips a cost that depends on it; and the
 * chunk costs the build left in the cost must still be there (a build of
 * other inputs into the same cost through another workspace, or none,
 * changes them). A hit at the same clock skips the op tables, the roofline
 * and the collectives of every part (about 70% of a build); the per-stage
 * part is O(p v). A hit at another clock keeps the shape (model stack,
 * layout, classes' contents, virtual-stage maps, equal stages) and prices
 * it again (cx_core_cost_reprice): a sweep's clocks are its innermost
 * structural level.
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
    /* what the build left in c: a build of other inputs into the same cost
     * without this key (another workspace, or none) changes it */
    int nclass, p, v;
    double p2p_s;
    int16_t vs_class[CX_COST_MAX_VSTAGES];
    cx_chunk_cost cls[CX_COST_MAX_CLASSES];
};

cx_cost_key *cx_core_cost_key_new(void)
{
    return calloc(1, sizeof(cx_cost_key));
}

void cx_core_cost_key_free(cx_cost_key *k)
{
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

static int layers_ok(const culonx_run *run)
{
    return !run->vstage_layers ||
           (run->n_vstage_layers >= 0 && run->n_vstage_layers <= CX_COST_MAX_VSTAGES);
}

culonx_status cx_core_cost_build_key(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     cx_cost_key *k, culonx_error *err)
{
    culonx_execution e;
    if (k && k->valid && k->c == c && layers_ok(run)) {
        exec_key(run, &e);
        const int n = run->vstage_layers ? run->n_vstage_layers : -1;
        if (memcmp(&e, &k->exec, sizeof e) == 0 && n == k->n_layers &&
            (n <= 0 || memcmp(run->vstage_layers, k->layers, (size_t)n * sizeof *k->layers) == 0) &&
            memcmp(&run->model, &k->model, sizeof k->model) == 0 &&
            memcmp(&run->system, &k->system, sizeof k->system) == 0 && c->nclass == k->nclass &&
            c->p2p_s == k->p2p_s && c->p == k->p && c->v == k->v &&
            memcmp(c->vs_class, k->vs_class, (size_t)(c->p * c->v) * sizeof *c->vs_class) == 0 &&
            memcmp(c->cls, k->cls, (size_t)k->nclass * sizeof *k->cls) == 0) {
            if (k->clock_mhz == clock_mhz) {
                c->run = run;
                cx_core_shard_groups(c);
                cx_core_cost_stages(run, c);
                return CULONX_OK;
            }
            /* another clock: the same shape, priced again */
            cx_core_cost_reprice(run, clock_mhz, c);
            k->clock_mhz = clock_mhz;
            k->p2p_s = c->p2p_s;
            memcpy(k->cls, c->cls, (size_t)c->nclass * sizeof *c->cls);
            return CULONX_OK;
        }
    }
    culonx_status st = cx_core_cost_build(run, clock_mhz, c, err);
    if (!k) return st;
    k->valid = st == CULONX_OK && layers_ok(run);
    if (k->valid) {
        k->c = c;
        k->clock_mhz = clock_mhz;
        k->model = run->model;
        k->system = run->system;
        exec_key(run, &k->exec);
        k->n_layers = run->vstage_layers ? run->n_vstage_layers : -1;
        if (k->n_layers > 0)
            memcpy(k->layers, run->vstage_layers, (size_t)k->n_layers * sizeof *k->layers);
        k->nclass = c->nclass, k->p = c->p, k->v = c->v;
        memcpy(k->vs_class, c->vs_class, (size_t)(c->p * c->v) * sizeof *c->vs_class);
        k->p2p_s = c->p2p_s;
        memcpy(k->cls, c->cls, (size_t)c->nclass * sizeof *c->cls);
    }
    return st;
}
