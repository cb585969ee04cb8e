/*
 * walk.c — expands model x system x execution into the DAG of one training
 * iteration (graph.h), using the per-chunk and per-op costs of core/cost.c
 * and the per-stage work order of the schedule (schedules/).
 *
 * Per stage, in schedule order, each work item becomes a group of nodes on
 * the compute stream: at stage level one node (F, B, W or BW; TP collectives
 * folded in, as they block compute in Megatron), at op level one node per op
 * of every layer of the chunk (plus embedding / head) and one TP node per
 * collective on the TP stream that the next op waits for. Recompute (R) runs
 * right before the backward of the same microbatch, after its gradient has
 * arrived (Megatron recomputes inside backward_step). Pipeline sends are on
 * the PP stream and blocking: the sender's next compute waits for the send
 * (Megatron's synchronous send/recv pairs), the receiver's item waits for it.
 * DP gradient sync runs on the DP stream in buckets (cx_core_dp_buckets,
 * Megatron DDP sizes); with dp-overlap bucket k waits for
 * the k-th slice of the stage's last backward item, otherwise all wait for
 * its end. The optimizer step follows the last bucket.
 *
 * Activations of (mb, chunk) are allocated when its F starts and freed when
 * its BW (or W) ends; full recompute holds one layer's full activations
 * while R/B run (work_bytes).
 * See core/README.md, "Graph".
 */
#include "core/eval/energy.h"
#include "core/eval/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* node ids are int32; 60 M nodes is about 6 GB */
#define MAX_GRAPH_NODES 60000000LL

typedef struct {
    cx_graph *g;
    int dry;                    /* count only */
    int64_t n;                  /* nodes emitted */
    int32_t last[CX_NSTREAMS];  /* last node per stream on the current stage */
    int32_t block;              /* pending blocking node for the next compute */
    int stage;
    /* per (mb, vs) handles, filled in pass 1 */
    int32_t *fwd_done, *fwd_out, *bwd_done, *bwd_out;
    /* group heads: node that carries the cross-stage data dependency */
    int32_t *head_node;
    uint8_t *head_kind;
    int32_t *head_mb, *head_vs;
    int64_t nheads;
} walker;

static int32_t emit(walker *w, cx_stream st, cx_node_kind kind, double dur)
{
    int32_t id = (int32_t)w->n++;
    if (w->dry) return id;
    cx_node *nd = &w->g->node[id];
    memset(nd, 0, sizeof *nd);
    nd->dur_s = dur;
    nd->kind = (uint8_t)kind;
    nd->stream = (uint8_t)st;
    nd->stage = (int16_t)w->stage;
    nd->layer = -1;
    for (int k = 0; k < CX_NODE_NPRED; k++) nd->pred[k] = -1;
    nd->pred[0] = w->last[st];
    if (st == CX_STREAM_COMPUTE && w->block >= 0) {
        nd->pred[2] = w->block;
        w->block = -1;
    }
    w->last[st] = id;
    return id;
}

static cx_node *N(walker *w, int32_t id)
{
    return w->dry ? NULL : &w->g->node[id];
}

static void tag(walker *w, int32_t id, int mb, int chunk, int vs)
{
    cx_node *nd = N(w, id);
    if (!nd) return;
    nd->mb = mb;
    nd->chunk = (int16_t)chunk;
    nd->vstage = (int16_t)vs;
}

/* blocking TP collective after a compute node (op level) */
static void emit_tp(walker *w, int32_t after, double dur, double bytes, int mb, int chunk, int vs)
{
    if (dur <= 0) return;
    int32_t id = emit(w, CX_STREAM_TP, CX_NODE_TP, dur);
    tag(w, id, mb, chunk, vs);
    cx_node *nd = N(w, id);
    if (nd) {
        nd->pred[1] = after;
        nd->bytes = bytes;
        nd->energy_j = dur * cx_core_blocked_power_w(w->g->cost); /* compute waits */
    }
    w->block = id;
}

/* pipeline send of an activation or gradient after node `after`; blocks the
 * stage's next compute unless the schedule overlaps p2p */
static int32_t emit_send(walker *w, int32_t after, int mb, int chunk, int vs)
{
    const cx_cost *c = w->g->cost;
    int32_t id = emit(w, CX_STREAM_PP, CX_NODE_SEND, c->p2p_s);
    tag(w, id, mb, chunk, vs);
    cx_node *nd = N(w, id);
    if (nd) {
        nd->pred[1] = after;
        nd->bytes = c->p2p_bytes;
        nd->energy_j = c->p2p_s * cx_core_blocked_power_w(c);
    }
    if (!c->sched->p2p_overlap) w->block = id;
    return id;
}

typedef enum { PASS_F, PASS_B, PASS_W, PASS_BW, PASS_R } pass_kind;

/* Emits the op-level nodes of one op table for a pass; returns the count. */
static void emit_ops(walker *w, const cx_model_ops *ops, const cx_op_times *ot, int part, int layer,
                     pass_kind pk, int recompute_mode, int mb, int chunk, int vs)
{
    const int n = ops->nops;
    for (int q = 0; q < n; q++) {
        int i = (pk == PASS_F || pk == PASS_R) ? q : n - 1 - q;
        const cx_model_op *o = &ops->op[i];
        if (pk == PASS_R && recompute_mode == CULONX_RECOMPUTE_SELECTIVE && !o->sel_recompute)
            continue;
        double dur = 0, flops = 0, bytes = 0, tp = 0;
        cx_node_kind kind = CX_NODE_F;
        switch (pk) {
        case PASS_F:
        case PASS_R:
            dur = pk == PASS_F ? ot->f_s[i] : ot->r_s[i];
            flops = o->fwd_flops, bytes = o->fwd_bytes;
            tp = (pk == PASS_F || recompute_mode == CULONX_RECOMPUTE_FULL) ? ot->tp_f_s[i] : 0;
            kind = pk == PASS_F ? CX_NODE_F : CX_NODE_R;
            break;
        case PASS_B:
            dur = ot->b_s[i], flops = o->b_flops, bytes = o->b_bytes, tp = ot->tp_b_s[i];
            kind = CX_NODE_B;
            break;
        case PASS_W:
            dur = ot->w_s[i], flops = o->w_flops, bytes = o->w_bytes;
            kind = CX_NODE_W;
            break;
        case PASS_BW:
            dur = ot->b_s[i] + ot->w_s[i], flops = o->b_flops + o->w_flops;
            bytes = o->b_bytes + o->w_bytes, tp = ot->tp_b_s[i];
            kind = CX_NODE_BW;
            break;
        }
        if (dur <= 0 && tp <= 0) continue;
        int32_t id = emit(w, CX_STREAM_COMPUTE, kind, dur);
        tag(w, id, mb, chunk, vs);
        cx_node *nd = N(w, id);
        if (nd) {
            nd->flops = flops, nd->bytes = bytes;
            nd->op = (uint8_t)i, nd->part = (uint8_t)part, nd->layer = (int16_t)layer;
            nd->energy_j = cx_core_pass_energy_j(w->g->cost, dur, flops, bytes, NULL);
        }
        /* backward collectives sit before the op's backward in Megatron (f
         * operator); the position inside the group does not change timing */
        emit_tp(w, id, tp, o->coll_bytes, mb, chunk, vs);
    }
}

/* Emits a group for one pass over chunk vs; returns the first node id and
 * sets *last_id. Stage level: `pieces` equal nodes. */
static int32_t emit_group(walker *w, const cx_chunk_cost *cc, pass_kind pk, int mb, int chunk,
                          int vs, int pieces, int32_t *last_id)
{
    const cx_cost *c = w->g->cost;
    const int rmode = w->g->run->exec.recompute;
    int64_t first = w->n;
    if (w->g->detail == CX_DETAIL_STAGE) {
        /* TP waits are folded in; they draw blocked power */
        double dur = 0, flops = 0, bytes = 0, ej = 0, tp = 0;
        cx_node_kind kind = CX_NODE_F;
        switch (pk) {
        case PASS_F:
            dur = cc->f_s, tp = cc->tp_f_s, flops = cc->f_flops, bytes = cc->f_bytes;
            ej = cc->e_f_j;
            break;
        case PASS_R:
            dur = cc->r_s, tp = cc->tp_r_s, flops = cc->r_flops, bytes = cc->r_bytes;
            ej = cc->e_r_j;
            kind = CX_NODE_R;
            break;
        case PASS_B:
            dur = cc->b_s, tp = cc->tp_b_s, flops = cc->b_flops, bytes = cc->b_bytes;
            ej = cc->e_b_j;
            kind = CX_NODE_B;
            break;
        case PASS_W:
            dur = cc->w_s, flops = cc->w_flops, bytes = cc->w_bytes, ej = cc->e_w_j;
            kind = CX_NODE_W;
            break;
        case PASS_BW:
            dur = cc->b_s + cc->w_s, tp = cc->tp_b_s, flops = cc->b_flops + cc->w_flops;
            bytes = cc->b_bytes + cc->w_bytes, ej = cc->e_b_j + cc->e_w_j;
            kind = CX_NODE_BW;
            break;
        }
        ej += tp * cx_core_blocked_power_w(c);
        dur += tp;
        if (pieces < 1) pieces = 1;
        for (int k = 0; k < pieces; k++) {
            int32_t id = emit(w, CX_STREAM_COMPUTE, kind, dur / pieces);
            tag(w, id, mb, chunk, vs);
            cx_node *nd = N(w, id);
            if (nd) {
                nd->flops = flops / pieces, nd->bytes = bytes / pieces;
                nd->energy_j = ej / pieces;
            }
        }
    } else {
        /* the chunk's pieces (embedding, segments of layer kinds, head) in
         * order, backwards for B/W; recompute re-runs layer kinds only.
         * Layers are numbered within the chunk. */
        const cx_model_stack *st = &c->stack;
        const int fwd = pk == PASS_F || pk == PASS_R, np = cc->npieces;
        int l = fwd ? 0 : (int)cc->layers;
        for (int q = 0; q < np; q++) {
            const cx_chunk_piece *pc = &cc->piece[fwd ? q : np - 1 - q];
            const int pt = pc->part, is_layer = pt >= CX_MODEL_PART_LAYER;
            if (pk == PASS_R && !st->part[pt].recompute) continue;
            for (int32_t i = 0; i < pc->count; i++) {
                int layer = is_layer ? (fwd ? l++ : --l) : -1;
                emit_ops(w, &st->part[pt].ops, &c->part_t[pt], pt, layer, pk, rmode, mb, chunk, vs);
            }
        }
        if (w->n == first) { /* empty pass: keep a zero-length marker */
            int32_t id = emit(w, CX_STREAM_COMPUTE, pk == PASS_F ? CX_NODE_F : CX_NODE_B, 0.0);
            tag(w, id, mb, chunk, vs);
        }
    }
    /* the group's last compute node (TP nodes are not group ends) */
    *last_id = w->last[CX_STREAM_COMPUTE];
    /* a trailing TP collective must finish before the group counts as done */
    if (w->block >= 0 && w->block > *last_id) *last_id = w->block;
    return (int32_t)first;
}

static void add_head(walker *w, int32_t node, int kind, int mb, int vs)
{
    int64_t h = w->nheads++;
    if (w->dry) return;
    w->head_node[h] = node;
    w->head_kind[h] = (uint8_t)kind;
    w->head_mb[h] = mb;
    w->head_vs[h] = vs;
}

static culonx_status walk(walker *w, cx_sched_item **orders, const int *norder)
{
    cx_graph *g = w->g;
    const cx_cost *c = g->cost;
    const culonx_execution *ex = &g->run->exec;
    const int p = g->p, v = g->v, nvs = p * v;
    const cx_sched_desc *sd = c->sched;
    int has_r = ex->recompute != CULONX_RECOMPUTE_NONE;
    w->n = 0;
    w->nheads = 0;
    for (int s = 0; s < p; s++) {
        w->stage = s;
        if (!w->dry) g->stage_begin[s] = w->n;
        for (int k = 0; k < CX_NSTREAMS; k++) w->last[k] = -1;
        w->block = -1;
        int nb = cx_core_dp_buckets(c, s);
        int32_t last_first = -1, last_last = -1;
        for (int i = 0; i < norder[s]; i++) {
            const cx_sched_item *it = &orders[s][i];
            int vs = sd->vstage(p, v, s, it->chunk), mb = it->mb;
            const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
            int64_t key = (int64_t)mb * nvs + vs;
            int is_last = i == norder[s] - 1;
            int pieces = (is_last && g->detail == CX_DETAIL_STAGE && ex->dp > 1) ? nb : 1;
            int32_t first, lastid;
            switch (it->kind) {
            case CX_WORK_F: {
                first = emit_group(w, cc, PASS_F, mb, it->chunk, vs, pieces, &lastid);
                add_head(w, first, CX_WORK_F, mb, vs);
                if (!w->dry) g->node[first].mem_bytes += cc->act_bytes;
                if (!w->dry) w->fwd_done[key] = lastid;
                int32_t out = lastid;
                if (vs + 1 < nvs && cx_core_cost_stage_of(c, vs + 1, NULL) != s)
                    out = emit_send(w, lastid, mb, it->chunk, vs);
                if (!w->dry) w->fwd_out[key] = out;
                break;
            }
            case CX_WORK_B:
            case CX_WORK_BW: {
                int32_t rlast;
                first = -1;
                if (has_r) first = emit_group(w, cc, PASS_R, mb, it->chunk, vs, 1, &rlast);
                int32_t bfirst = emit_group(w, cc, it->kind == CX_WORK_BW ? PASS_BW : PASS_B, mb,
                                            it->chunk, vs, pieces, &lastid);
                if (first < 0) first = bfirst;
                add_head(w, first, CX_WORK_B, mb, vs);
                if (!w->dry) {
                    for (int32_t k = first; k <= lastid; k++)
                        if (g->node[k].stream == CX_STREAM_COMPUTE)
                            g->node[k].work_bytes = cc->work_bytes;
                    if (it->kind == CX_WORK_BW)
                        g->node[w->last[CX_STREAM_COMPUTE]].mem_bytes -= cc->act_bytes;
                    w->bwd_done[key] = lastid;
                }
                int32_t out = lastid;
                if (vs > 0 && cx_core_cost_stage_of(c, vs - 1, NULL) != s)
                    out = emit_send(w, lastid, mb, it->chunk, vs);
                if (!w->dry) w->bwd_out[key] = out;
                first = bfirst;
                break;
            }
            default: /* W */
                first = emit_group(w, cc, PASS_W, mb, it->chunk, vs, pieces, &lastid);
                add_head(w, first, CX_WORK_W, mb, vs);
                if (!w->dry) g->node[w->last[CX_STREAM_COMPUTE]].mem_bytes -= cc->act_bytes;
                break;
            }
            if (is_last) last_first = first, last_last = lastid;
        }
        /* DP gradient sync in buckets, then the optimizer */
        int32_t last_dp = -1;
        if (ex->dp > 1 && c->dp_s[s] > 0) {
            int64_t span = (int64_t)last_last - last_first + 1;
            for (int k = 0; k < nb; k++) {
                int32_t dep = last_last;
                if (ex->dp_overlap && span > 0) {
                    int64_t idx = last_first + (int64_t)ceil((double)(k + 1) * span / nb) - 1;
                    dep = (int32_t)idx;
                    /* depend on a compute node of the group */
                    if (!w->dry)
                        while (dep > last_first && g->node[dep].stream != CX_STREAM_COMPUTE) dep--;
                }
                int32_t id = emit(w, CX_STREAM_DP, CX_NODE_DP, c->dp_s[s] / nb);
                if (!w->dry) {
                    g->node[id].pred[1] = dep;
                    g->node[id].mb = k;
                    g->node[id].bytes = (c->dp_tier_bytes[s][0] + c->dp_tier_bytes[s][1]) / nb;
                }
                last_dp = id;
            }
        }
        int32_t opt = emit(w, CX_STREAM_COMPUTE, CX_NODE_OPT, c->optimizer_s[s]);
        if (!w->dry) {
            g->node[opt].pred[1] = last_dp;
            g->node[opt].energy_j = c->optimizer_j[s];
            g->node[opt].bytes = c->optimizer_bytes[s];
        }
    }
    return CULONX_OK;
}

static void link_heads(walker *w)
{
    cx_graph *g = w->g;
    const int nvs = g->p * g->v;
    for (int64_t h = 0; h < w->nheads; h++) {
        int32_t id = w->head_node[h];
        int mb = w->head_mb[h], vs = w->head_vs[h];
        int32_t dep = -1;
        switch (w->head_kind[h]) {
        case CX_WORK_F:
            if (vs > 0) dep = w->fwd_out[(int64_t)mb * nvs + vs - 1];
            break;
        case CX_WORK_B:
            dep = vs == nvs - 1 ? w->fwd_done[(int64_t)mb * nvs + vs]
                                : w->bwd_out[(int64_t)mb * nvs + vs + 1];
            break;
        default:
            dep = w->bwd_done[(int64_t)mb * nvs + vs];
            break;
        }
        g->node[id].pred[3] = dep;
    }
}

void cx_core_graph_free(cx_graph *g)
{
    if (!g) return;
    cx_core_arena_free(&g->arena);
    free(g->cost);
    free(g);
}

culonx_status cx_core_graph_build(const culonx_run *run, double clock_mhz, cx_detail detail,
                                  cx_graph **out, culonx_error *err)
{
    *out = NULL;
    cx_graph *g = calloc(1, sizeof *g);
    if (!g) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    cx_core_arena_init(&g->arena, (size_t)1 << 20);
    g->cost = malloc(sizeof *g->cost);
    if (!g->cost) {
        cx_core_graph_free(g);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    culonx_status st = cx_core_cost_build(run, clock_mhz, g->cost, err);
    if (st != CULONX_OK) {
        cx_core_graph_free(g);
        return st;
    }
    cx_cost *c = g->cost;
    g->run = run;
    g->detail = detail;
    g->p = c->p, g->v = c->v, g->m = c->m;
    const int p = g->p, v = g->v, m = g->m, nvs = p * v;
    if (!c->sched->order) {
        cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                     "schedule %s has no work order for the graph engine", c->sched->name);
        cx_core_graph_free(g);
        return CULONX_EINPUT;
    }
    if ((int64_t)m * nvs * 3 > CX_MAX_SCHEDULE_ITEMS) {
        cx_core_graph_free(g);
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "graph too large: %d microbatches x %d virtual stages", m, nvs);
    }
    /* schedule orders per stage */
    int cap = 3 * m * v + 8;
    cx_sched_item **orders = cx_core_arena_alloc(&g->arena, sizeof *orders * (size_t)p);
    int *norder = cx_core_arena_alloc(&g->arena, sizeof *norder * (size_t)p);
    g->stage = cx_core_arena_alloc(&g->arena, sizeof *g->stage * (size_t)p);
    g->stage_begin = cx_core_arena_alloc(&g->arena, sizeof *g->stage_begin * (size_t)(p + 1));
    if (!orders || !norder || !g->stage || !g->stage_begin) goto oom;
    int64_t items = 0;
    for (int s = 0; s < p; s++) {
        orders[s] = cx_core_arena_alloc(&g->arena, sizeof **orders * (size_t)cap);
        if (!orders[s]) goto oom;
        norder[s] = c->sched->order(p, m, v, s, orders[s], cap);
        if (norder[s] < 0) {
            cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                         "schedule %s does not support pp=%d with %d microbatches and %d "
                         "chunks per stage",
                         c->sched->name, p, m, v);
            cx_core_graph_free(g);
            return CULONX_EINPUT;
        }
        items += norder[s];
    }
    walker w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.dry = 1;
    walk(&w, orders, norder);
    int64_t nnodes = w.n;
    if (nnodes > MAX_GRAPH_NODES) { /* ~100 bytes a node */
        cx_core_graph_free(g);
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "graph too large: %lld nodes (at most %lld)%s", (long long)nnodes,
                            (long long)MAX_GRAPH_NODES,
                            detail == CX_DETAIL_OP ? "; the stage-level graph is smaller" : "");
    }
    /* every node is written by emit(); the tables are filled below */
    g->node = cx_core_arena_alloc_raw(&g->arena, sizeof *g->node * (size_t)nnodes);
    size_t tab = (size_t)m * (size_t)nvs;
    w.fwd_done = cx_core_arena_alloc_raw(&g->arena, sizeof(int32_t) * tab);
    w.fwd_out = cx_core_arena_alloc_raw(&g->arena, sizeof(int32_t) * tab);
    w.bwd_done = cx_core_arena_alloc_raw(&g->arena, sizeof(int32_t) * tab);
    w.bwd_out = cx_core_arena_alloc_raw(&g->arena, sizeof(int32_t) * tab);
    w.head_node = cx_core_arena_alloc(&g->arena, sizeof(int32_t) * (size_t)(items + 1));
    w.head_mb = cx_core_arena_alloc(&g->arena, sizeof(int32_t) * (size_t)(items + 1));
    w.head_vs = cx_core_arena_alloc(&g->arena, sizeof(int32_t) * (size_t)(items + 1));
    w.head_kind = cx_core_arena_alloc(&g->arena, (size_t)(items + 1));
    if (!g->node || !w.fwd_done || !w.fwd_out || !w.bwd_done || !w.bwd_out || !w.head_node ||
        !w.head_mb || !w.head_vs || !w.head_kind)
        goto oom;
    for (size_t i = 0; i < tab; i++) w.fwd_done[i] = w.fwd_out[i] = w.bwd_done[i] = w.bwd_out[i] = -1;
    w.dry = 0;
    walk(&w, orders, norder);
    g->n = w.n;
    g->stage_begin[p] = w.n;
    link_heads(&w);
    *out = g;
    return CULONX_OK;
oom:
    cx_core_graph_free(g);
    return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory building the graph");
}

const char *cx_core_node_name(const cx_graph *g, const cx_node *nd)
{
    static const char *const names[CX_NODE_KINDS] = {"F", "B", "W", "BW", "R", "TP",
                                                     "send", "dp-bucket", "optimizer"};
    if (g->detail == CX_DETAIL_OP && nd->stream == CX_STREAM_COMPUTE && nd->kind <= CX_NODE_R) {
        const cx_model_stack *st = &g->cost->stack;
        if (nd->part < st->nparts && nd->op < st->part[nd->part].ops.nops)
            return st->part[nd->part].ops.op[nd->op].name;
    }
    return nd->kind < CX_NODE_KINDS ? names[nd->kind] : "?";
}
