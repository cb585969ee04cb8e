/*
 * walk.c — expands model x system x execution into the DAG of one training
 * iteration (graph.h), using the per-chunk and per-op costs of core/eval/cost.c
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
 *
 * The cross-stage data dependencies are the play engine's (schedules/
 * play.h), which the closed form's replay (core/eval/replay.c) uses too: the
 * walker is its emit callback. A dry pass counts each stage's nodes, giving
 * stage s the id range [stage_begin[s], stage_begin[s+1]); the play then
 * emits each item's nodes at its stage's own cursor (so ids do not depend
 * on the play's interleaving of stages), the group's first node waiting on
 * the node of the engine's dependency token; each stage's DP buckets and
 * optimizer close its range after the play.
 * See core/README.md, "Graph".
 */
#include "core/eval/energy.h"
#include "core/eval/graph.h"
#include "schedules/play.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the graph engine's memory bound: ~100 bytes a node (bench_graph_speed: 88-94),
 * so 24 M nodes is about 2.4 GB (megatron-1t: 169 k nodes at stage level,
 * 3.0 M at op level); beyond it the build refuses with a clear message */
#define MAX_GRAPH_NODES 24000000LL

/* Emission state of one stage: its nodes are [stage_begin[s],
 * stage_begin[s+1]), written in its schedule order at its own cursor. */
typedef struct {
    int64_t n;                     /* next node id */
    int32_t last[CX_NSTREAMS];     /* last node per stream */
    int32_t block;                 /* pending blocking node for the next compute */
    int32_t last_first, last_last; /* the stage's last item: first and last node */
} wstage;

typedef struct {
    cx_graph *g;
    int dry; /* count only */
    /* the stage being emitted (loaded from and saved to st[stage]) */
    int64_t n;                 /* nodes emitted */
    int32_t last[CX_NSTREAMS]; /* last node per stream on the current stage */
    int32_t block;             /* pending blocking node for the next compute */
    int stage;
    wstage *st; /* [p] */
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
    for (int k = 0; k < CX_NODE_NPRED; k++)
        nd->pred[k] = -1;
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

/* blocking TP collective after a compute node (op level); expert
 * collectives (all-to-all, etp) on the EP stream */
static void emit_tp(walker *w, int32_t after, double dur, double bytes, int mb, int chunk, int vs,
                    int expert)
{
    if (dur <= 0) return;
    int32_t id =
        expert ? emit(w, CX_STREAM_EP, CX_NODE_EP, dur) : emit(w, CX_STREAM_TP, CX_NODE_TP, dur);
    tag(w, id, mb, chunk, vs);
    cx_node *nd = N(w, id);
    if (nd) {
        nd->pred[1] = after;
        nd->bytes = bytes;
        nd->energy_j = dur * cx_core_blocked_power_w(w->g->cost); /* compute waits */
    }
    w->block = id;
}

/* exposed ZeRO-2/3 or offload side traffic after a compute node, on the
 * gather stream; it blocks the next compute (core/eval/shard.c) */
static void emit_side(walker *w, int32_t after, double dur, int mb, int chunk, int vs)
{
    if (dur <= 0) return;
    int32_t id = emit(w, CX_STREAM_SHARD, CX_NODE_GATHER, dur);
    tag(w, id, mb, chunk, vs);
    cx_node *nd = N(w, id);
    if (nd) {
        nd->pred[1] = after;
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
        /* the instance's exposed gather / reduce-scatter / host transfer
         * (core/eval/shard.c) after its first op forward, last backward */
        const cx_cost *c = w->g->cost;
        const double side = i != 0                          ? 0.0
                            : pk == PASS_F                  ? c->part_sh_f_s[part]
                            : pk == PASS_B || pk == PASS_BW ? c->part_sh_b_s[part]
                                                            : 0.0;
        if (dur <= 0 && tp <= 0 && side <= 0) continue;
        int32_t id = emit(w, CX_STREAM_COMPUTE, kind, dur);
        tag(w, id, mb, chunk, vs);
        cx_node *nd = N(w, id);
        if (nd) {
            nd->flops = flops, nd->bytes = bytes;
            nd->op = (uint8_t)i, nd->part = (uint8_t)part, nd->layer = (int16_t)layer;
            /* at the clock the board power limit left the pass (power_cap.c) */
            const double *clk = c->part_clk[part];
            if (pk == PASS_BW && clk[CX_PASS_B] != clk[CX_PASS_W])
                nd->energy_j = cx_core_pass_energy_at_j(c, clk[CX_PASS_B], ot->b_s[i], o->b_flops,
                                                        o->b_bytes, NULL) +
                               cx_core_pass_energy_at_j(c, clk[CX_PASS_W], ot->w_s[i], o->w_flops,
                                                        o->w_bytes, NULL);
            else
                nd->energy_j = cx_core_pass_energy_at_j(c,
                                                        clk[pk == PASS_F   ? CX_PASS_F
                                                            : pk == PASS_R ? CX_PASS_R
                                                            : pk == PASS_B ? CX_PASS_B
                                                                           : CX_PASS_W],
                                                        dur, flops, bytes, NULL);
        }
        /* backward collectives sit before the op's backward in Megatron (f
         * operator); the position inside the group does not change timing */
        emit_tp(w, id, tp, o->coll_bytes, mb, chunk, vs, o->coll_group != CX_GROUP_TP);
        emit_side(w, id, side, mb, chunk, vs);
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
        /* ZeRO-3 / offload prefetch fill of the pass (core/eval/shard.c):
         * the first gather forward, the last reduce-scatter backward; its
         * place in the group does not change timing */
        double fill = pk == PASS_F                      ? cc->sh_fill_f_s
                      : (pk == PASS_B || pk == PASS_BW) ? cc->sh_fill_b_s
                                                        : 0.0;
        if (fill > 0 && w->n > first) emit_side(w, w->last[CX_STREAM_COMPUTE], fill, mb, chunk, vs);
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

static void load_stage(walker *w, int s)
{
    const wstage *x = &w->st[s];
    w->stage = s;
    w->n = x->n;
    memcpy(w->last, x->last, sizeof w->last);
    w->block = x->block;
}

static void save_stage(walker *w)
{
    wstage *x = &w->st[w->stage];
    x->n = w->n;
    memcpy(x->last, w->last, sizeof w->last);
    x->block = w->block;
}

static void reset_stage(wstage *x, int64_t begin)
{
    x->n = begin;
    for (int k = 0; k < CX_NSTREAMS; k++)
        x->last[k] = -1;
    x->block = x->last_first = x->last_last = -1;
}

/* Emits the nodes of one work item on the loaded stage: its group (R then B
 * or BW for a backward), the send of its output when `send`; the group's
 * first node waits on node `dep` (the cross-stage data dependency the play
 * engine hands over, -1 for none). *done: the group's last node; *out: the
 * node the consumer waits on (the send, or the group's last node). */
static void emit_item(walker *w, int kind, int chunk, int mb, int vs, int is_last, int send,
                      int32_t dep, int32_t *done, int32_t *out)
{
    cx_graph *g = w->g;
    const cx_cost *c = g->cost;
    const culonx_execution *ex = &g->run->exec;
    const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
    int pieces = 1;
    /* DP buckets: the dense gradients over dp x cp, the experts' over their dp group */
    if (is_last && g->detail == CX_DETAIL_STAGE && c->dp_s[w->stage] > 0)
        pieces = cx_core_dp_buckets(c, w->stage);
    int32_t first, head, lastid;
    switch (kind) {
    case CX_WORK_F:
        first = head = emit_group(w, cc, PASS_F, mb, chunk, vs, pieces, &lastid);
        if (!w->dry) g->node[first].mem_bytes += cc->act_bytes;
        *done = *out = lastid;
        if (send) *out = emit_send(w, lastid, mb, chunk, vs);
        break;
    case CX_WORK_B:
    case CX_WORK_BW: {
        int32_t rlast;
        head = -1;
        if (ex->recompute != CULONX_RECOMPUTE_NONE)
            head = emit_group(w, cc, PASS_R, mb, chunk, vs, 1, &rlast);
        first = emit_group(w, cc, kind == CX_WORK_BW ? PASS_BW : PASS_B, mb, chunk, vs, pieces,
                           &lastid);
        if (head < 0) head = first;
        if (!w->dry) {
            for (int32_t k = head; k <= lastid; k++)
                if (g->node[k].stream == CX_STREAM_COMPUTE) g->node[k].work_bytes = cc->work_bytes;
            if (kind == CX_WORK_BW) g->node[w->last[CX_STREAM_COMPUTE]].mem_bytes -= cc->act_bytes;
        }
        *done = *out = lastid;
        if (send) *out = emit_send(w, lastid, mb, chunk, vs);
        break;
    }
    default: /* W */
        first = head = emit_group(w, cc, PASS_W, mb, chunk, vs, pieces, &lastid);
        if (!w->dry) g->node[w->last[CX_STREAM_COMPUTE]].mem_bytes -= cc->act_bytes;
        *done = *out = lastid;
        break;
    }
    if (!w->dry) g->node[head].pred[3] = dep;
    if (is_last) w->st[w->stage].last_first = first, w->st[w->stage].last_last = lastid;
}

/* DP gradient sync of the loaded stage in buckets (cx_core_dp_buckets), then
 * the optimizer: at the end of the stage's range, after its items. With
 * dp-overlap bucket k waits for the k-th slice of the stage's last item. */
static void emit_tail(walker *w)
{
    cx_graph *g = w->g;
    const cx_cost *c = g->cost;
    const culonx_execution *ex = &g->run->exec;
    const int s = w->stage;
    const int32_t last_first = w->st[s].last_first, last_last = w->st[s].last_last;
    int nb = cx_core_dp_buckets(c, s);
    int32_t last_dp = -1;
    if (c->dp_s[s] > 0) { /* dense over dp x cp, experts over their dp group */
        int64_t span = (int64_t)last_last - last_first + 1;
        for (int k = 0; k < nb; k++) {
            int32_t dep = last_last;
            if (ex->dp_overlap && span > 0) {
                int64_t idx = last_first + (int64_t)ceil((double)(k + 1) * span / nb) - 1;
                dep = (int32_t)idx;
                /* depend on a compute node of the group */
                if (!w->dry)
                    while (dep > last_first && g->node[dep].stream != CX_STREAM_COMPUTE)
                        dep--;
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

/* Dry pass: counts each stage's nodes in its schedule order (the counts do
 * not depend on the dependencies) and sets g->stage_begin; returns the
 * total. */
static int64_t count(walker *w, const cx_play *pl)
{
    cx_graph *g = w->g;
    const int p = g->p;
    int64_t n = 0;
    w->dry = 1;
    for (int s = 0; s < p; s++) {
        g->stage_begin[s] = n;
        reset_stage(&w->st[s], n);
        load_stage(w, s);
        int len;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &len);
        for (int i = 0; i < len; i++) {
            const cx_sched_item *it = &ord[i];
            int vs = pl->vs_of[s * pl->nch + it->chunk];
            int send = it->kind == CX_WORK_F   ? pl->send_f[vs]
                       : it->kind == CX_WORK_W ? 0
                                               : pl->send_b[vs];
            int32_t done, out;
            emit_item(w, it->kind, it->chunk, it->mb, vs, i == len - 1, send, -1, &done, &out);
        }
        emit_tail(w);
        n = w->n;
    }
    g->stage_begin[p] = n;
    return n;
}

/* The emit callback: the item's nodes at its stage's cursor, its first node
 * waiting on the dependency token's node. */
CX_PLAY_STEP void emit_step(void *ctx, const cx_play_step *st, cx_play_token *done,
                            cx_play_token *out)
{
    walker *w = ctx;
    int32_t dep = st->dep ? (int32_t)st->dep->t : -1, d, o;
    load_stage(w, st->stage);
    emit_item(w, st->kind, st->chunk, st->mb, st->vs, st->last, st->send, dep, &d, &o);
    save_stage(w);
    *done = cx_sched_play_node(d);
    *out = cx_sched_play_node(o);
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
    cx_play *pl = cx_sched_play_new();
    g->stage = cx_core_arena_alloc(&g->arena, sizeof *g->stage * (size_t)p);
    g->stage_begin = cx_core_arena_alloc(&g->arena, sizeof *g->stage_begin * (size_t)(p + 1));
    walker w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.st = cx_core_arena_alloc(&g->arena, sizeof *w.st * (size_t)p);
    if (!pl || !g->stage || !g->stage_begin || !w.st) goto oom;
    cx_sched_sim_status pst = cx_sched_play_orders(pl, c->sched, p, m, v, 1);
    if (pst == CX_SCHED_SIM_NOMEM) goto oom;
    if (pst != CX_SCHED_SIM_OK) {
        if (pst == CX_SCHED_SIM_UNSUPPORTED)
            cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                         "schedule %s does not support pp=%d with %d microbatches and %d "
                         "chunks per stage",
                         c->sched->name, p, m, v);
        else
            cx_core_fail(err, CULONX_EINTERNAL, run->path, 0,
                         "schedule %s gives invalid work orders for pp=%d, %d microbatches",
                         c->sched->name, p, m);
        cx_sched_play_free(pl);
        cx_core_graph_free(g);
        return pst == CX_SCHED_SIM_UNSUPPORTED ? CULONX_EINPUT : CULONX_EINTERNAL;
    }
    int64_t nnodes = count(&w, pl);
    if (nnodes > MAX_GRAPH_NODES) { /* ~100 bytes a node */
        cx_sched_play_free(pl);
        cx_core_graph_free(g);
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "graph too large: %lld nodes (at most %lld)%s", (long long)nnodes,
                            (long long)MAX_GRAPH_NODES,
                            detail == CX_DETAIL_OP ? "; the stage-level graph is smaller" : "");
    }
    /* every node is written by emit() */
    g->node = cx_core_arena_alloc_raw(&g->arena, sizeof *g->node * (size_t)nnodes);
    if (!g->node) goto oom;
    /* play: each item's nodes at its stage's cursor, in play order; then
     * each stage's DP buckets and optimizer at the end of its range */
    w.dry = 0;
    for (int s = 0; s < p; s++)
        reset_stage(&w.st[s], g->stage_begin[s]);
    pst = cx_sched_play_run(pl, emit_step, &w);
    cx_sched_play_free(pl);
    pl = NULL;
    if (pst != CX_SCHED_SIM_OK) {
        cx_core_graph_free(g);
        return cx_core_fail(err, CULONX_EINTERNAL, run->path, 0,
                            "schedule %s deadlocks for pp=%d, %d microbatches", c->sched->name, p,
                            m);
    }
    for (int s = 0; s < p; s++) {
        load_stage(&w, s);
        emit_tail(&w);
        if (w.n != g->stage_begin[s + 1]) {
            long long emitted = (long long)(w.n - g->stage_begin[s]);
            long long counted = (long long)(g->stage_begin[s + 1] - g->stage_begin[s]);
            cx_core_graph_free(g);
            return cx_core_fail(err, CULONX_EINTERNAL, run->path, 0,
                                "graph stage %d: %lld nodes emitted, %lld counted", s, emitted,
                                counted);
        }
    }
    g->n = nnodes;
    *out = g;
    return CULONX_OK;
oom:
    cx_sched_play_free(pl);
    cx_core_graph_free(g);
    return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory building the graph");
}

const char *cx_core_node_name(const cx_graph *g, const cx_node *nd)
{
    static const char *const names[CX_NODE_KINDS] = {
        "F", "B", "W", "BW", "R", "TP", "send", "dp-bucket", "optimizer", "all-to-all"};
    if (g->detail == CX_DETAIL_OP && nd->stream == CX_STREAM_COMPUTE && nd->kind <= CX_NODE_R) {
        const cx_model_stack *st = &g->cost->stack;
        if (nd->part < st->nparts && nd->op < st->part[nd->part].ops.nops)
            return st->part[nd->part].ops.op[nd->op].name;
    }
    return nd->kind < CX_NODE_KINDS ? names[nd->kind] : "?";
}
