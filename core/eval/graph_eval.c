/*
 * eval.c — evaluates the iteration DAG (graph.h): earliest start times by a
 * longest-path pass in topological order (Kahn), i.e. every node starts when
 * all its predecessors (stream predecessor and data dependencies) have
 * ended; per-stage stream busy times, blocking and bubble time; peak memory
 * per stage by replaying allocations and frees along each stage's compute
 * stream (its schedule order). The result fields are the same as the closed
 * form's (core/eval/closed.c) so the two can be compared and printed alike.
 * See core/README.md, "Graph".
 */
#include "core/eval/energy.h"
#include "core/eval/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* General longest path by Kahn's algorithm over a CSR of successors. */
static culonx_status eval_kahn(cx_graph *g, double *makespan_out, culonx_error *err)
{
    const int64_t n = g->n;
    int32_t *indeg = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *off = calloc((size_t)n + 2, sizeof(int32_t));
    if (!indeg || !off) {
        free(indeg), free(off);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    int64_t edges = 0;
    for (int64_t i = 0; i < n; i++) {
        int d = 0;
        for (int k = 0; k < CX_NODE_NPRED; k++) {
            int32_t q = g->node[i].pred[k];
            if (q >= 0) {
                off[q + 1]++;
                d++;
            }
        }
        indeg[i] = d;
        edges += d;
    }
    for (int64_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    int32_t *succ = malloc(sizeof(int32_t) * (size_t)(edges + 1));
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (!succ || !fill || !queue) {
        free(indeg), free(off), free(succ), free(fill), free(queue);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    memcpy(fill, off, sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < CX_NODE_NPRED; k++) {
            int32_t q = g->node[i].pred[k];
            if (q >= 0) succ[fill[q]++] = (int32_t)i;
        }
    int64_t qh = 0, qt = 0;
    for (int64_t i = 0; i < n; i++) {
        g->node[i].start_s = 0;
        if (indeg[i] == 0) queue[qt++] = (int32_t)i;
    }
    double makespan = 0;
    while (qh < qt) {
        int32_t i = queue[qh++];
        cx_node *nd = &g->node[i];
        double end = nd->start_s + nd->dur_s;
        if (end > makespan) makespan = end;
        for (int32_t e = off[i]; e < off[i + 1]; e++) {
            cx_node *sn = &g->node[succ[e]];
            if (end > sn->start_s) sn->start_s = end;
            if (--indeg[succ[e]] == 0) queue[qt++] = succ[e];
        }
    }
    free(indeg), free(off), free(succ), free(fill), free(queue);
    if (qt != n)
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0,
                            "dependency cycle in the iteration graph (%lld of %lld nodes ordered)",
                            (long long)qt, (long long)n);
    g->edges = edges;
    *makespan_out = makespan;
    return CULONX_OK;
}

/* Longest path visiting each stage's nodes in emission order (its streams'
 * orders interleaved as the schedule emitted them), round-robin over the
 * stages: a node is taken once all its predecessors are; no successor
 * lists are needed. Returns 0 if the stages stall (then Kahn decides). */
static int eval_stages(cx_graph *g, double *makespan_out)
{
    const int p = g->p;
    int64_t *cur = malloc(sizeof *cur * (size_t)p);
    if (!cur) return 0;
    for (int s = 0; s < p; s++)
        cur[s] = g->stage_begin[s];
    for (int64_t i = 0; i < g->n; i++)
        g->node[i].start_s = -1.0;
    int64_t left = g->n, edges = 0;
    double makespan = 0;
    while (left > 0) {
        int64_t progress = 0;
        for (int s = 0; s < p; s++) {
            int64_t i = cur[s], end_i = g->stage_begin[s + 1];
            for (; i < end_i; i++) {
                cx_node *nd = &g->node[i];
                double start = 0;
                int k = 0;
                for (; k < CX_NODE_NPRED; k++) {
                    int32_t q = nd->pred[k];
                    if (q < 0) continue;
                    const cx_node *pn = &g->node[q];
                    if (pn->start_s < 0) break; /* not yet placed */
                    double e = pn->start_s + pn->dur_s;
                    if (e > start) start = e;
                }
                if (k < CX_NODE_NPRED) break;
                nd->start_s = start;
                if (start + nd->dur_s > makespan) makespan = start + nd->dur_s;
                for (k = 0; k < CX_NODE_NPRED; k++)
                    edges += nd->pred[k] >= 0;
            }
            progress += i - cur[s];
            left -= i - cur[s];
            cur[s] = i;
        }
        if (!progress) {
            free(cur);
            return 0;
        }
    }
    free(cur);
    g->edges = edges;
    *makespan_out = makespan;
    return 1;
}

culonx_status cx_core_graph_eval(cx_graph *g, culonx_error *err)
{
    const int64_t n = g->n;
    double makespan = 0;
    if (!eval_stages(g, &makespan)) {
        culonx_status st = eval_kahn(g, &makespan, err);
        if (st != CULONX_OK) return st;
    }
    g->makespan_s = makespan;

    /* per-stage statistics, in node order (= stream order within a stage) */
    for (int s = 0; s < g->p; s++)
        memset(&g->stage[s], 0, sizeof g->stage[s]);
    double *cur = calloc((size_t)g->p, sizeof(double));
    double *prev_end = calloc((size_t)g->p, sizeof(double));
    if (!cur || !prev_end) {
        free(cur), free(prev_end);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
        const cx_node *nd = &g->node[i];
        cx_stage_stats *st = &g->stage[nd->stage];
        double end = nd->start_s + nd->dur_s;
        st->busy_s[nd->stream] += nd->dur_s;
        if (end > st->end_s) st->end_s = end;
        if (nd->stream == CX_STREAM_PP) {
            st->p2p_bytes += nd->bytes;
            st->pp_block_s += nd->dur_s; /* time the stage's sends take */
        }
        if (nd->stream == CX_STREAM_DP && end > st->dp_end_s) st->dp_end_s = end;
        if (nd->stream != CX_STREAM_COMPUTE) continue;
        switch (nd->kind) {
        case CX_NODE_F:
            st->compute_f_s += nd->dur_s;
            break;
        case CX_NODE_B:
            st->compute_b_s += nd->dur_s;
            break;
        case CX_NODE_W:
            st->compute_w_s += nd->dur_s;
            break;
        case CX_NODE_BW:
            st->compute_b_s += nd->dur_s;
            break;
        case CX_NODE_R:
            st->compute_r_s += nd->dur_s;
            break;
        case CX_NODE_OPT:
            st->optimizer_s += nd->dur_s;
            break;
        default:
            break;
        }
        if (nd->kind != CX_NODE_OPT)
            st->last_compute_end_s = end;
        else
            st->dp_exposed_s = nd->start_s - prev_end[nd->stage];
        prev_end[nd->stage] = end;
        /* memory replay: allocate at start, free at end */
        double *c = &cur[nd->stage];
        if (nd->mem_bytes > 0) *c += nd->mem_bytes;
        if (*c + nd->work_bytes > st->peak_act_bytes) st->peak_act_bytes = *c + nd->work_bytes;
        if (nd->mem_bytes < 0) *c += nd->mem_bytes;
    }
    free(cur), free(prev_end);
    for (int s = 0; s < g->p; s++) {
        culonx_memory mm;
        cx_core_stage_memory(g->cost, s, 0.0, &mm);
        g->stage[s].static_bytes =
            mm.weights_bytes + mm.gradients_bytes + mm.optimizer_bytes + mm.workspace_bytes;
    }
    return CULONX_OK;
}

void cx_core_graph_result(cx_graph *g, culonx_result *res)
{
    cx_cost *c = g->cost;
    const culonx_run *run = g->run;
    memset(res, 0, sizeof *res);
    res->clock_mhz = c->clock_mhz;
    res->microbatches = g->m;
    res->iteration_time_s = g->makespan_s;
    res->params = cx_model_total_params(&run->model);
    res->active_params = cx_model_active_params(&run->model);

    /* breakdown on the busiest stage (the one that sets the steady state) */
    int j = 0;
    double best = -1;
    for (int s = 0; s < g->p; s++) {
        const cx_stage_stats *st = &g->stage[s];
        double busy = st->busy_s[CX_STREAM_COMPUTE] - st->optimizer_s + st->pp_block_s;
        if (busy > best) best = busy, j = s;
    }
    const cx_stage_stats *st = &g->stage[j];
    culonx_time_breakdown *bd = &res->breakdown;
    double tpf = 0, tpb = 0, tpr = 0, epc = 0, sh = 0;
    for (int k = 0; k < c->v; k++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->sched->vstage(g->p, g->v, j, k));
        tpf += cc->tp_f_s, tpb += cc->tp_b_s, tpr += cc->tp_r_s;
        epc += cc->ep_f_s + cc->ep_b_s + cc->ep_r_s;
        sh += cc->sh_f_s + cc->sh_b_s;
        res->side_traffic_s += (double)g->m * cc->sh_total_s;
    }
    double m = (double)g->m;
    /* expert collectives and ZeRO/offload side traffic are reported apart */
    bd->tp_comm_s = m * cx_core_tp_only(tpf + tpb + tpr, sh + epc);
    bd->ep_comm_s = m * epc;
    *(c->zero >= 2 ? &bd->shard_comm_s : &bd->offload_s) = m * sh;
    if (g->detail == CX_DETAIL_OP) {
        bd->forward_s = st->compute_f_s;
        bd->backward_s = st->compute_b_s + st->compute_w_s;
        bd->recompute_s = st->compute_r_s;
    } else { /* TP is folded into the stage-level nodes */
        bd->forward_s = st->compute_f_s - m * tpf;
        bd->backward_s = st->compute_b_s + st->compute_w_s - m * tpb;
        bd->recompute_s = st->compute_r_s - m * tpr;
    }
    bd->pp_comm_s = st->pp_block_s;
    bd->optimizer_s = st->optimizer_s;
    bd->dp_comm_s = fmax(0.0, st->dp_end_s - st->last_compute_end_s);
    bd->bubble_s =
        g->makespan_s -
        (bd->forward_s + bd->backward_s + bd->recompute_s + bd->tp_comm_s + bd->ep_comm_s +
         bd->pp_comm_s + bd->optimizer_s + bd->dp_comm_s + bd->shard_comm_s + bd->offload_s);
    if (bd->bubble_s < 0) bd->bubble_s = 0;
    res->bubble_fraction = g->makespan_s > 0 ? bd->bubble_s / g->makespan_s : 0;

    /* FLOPs from the nodes (compute stream), whole cluster */
    double fl = 0, rec = 0;
    for (int64_t i = 0; i < g->n; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->stream != CX_STREAM_COMPUTE) continue;
        if (nd->kind == CX_NODE_R)
            rec += nd->flops;
        else
            fl += nd->flops;
    }
    double ranks = (double)cx_core_layout_stage_ranks(&c->layout);
    res->model_flops = fl * ranks;
    res->hardware_flops = (fl + rec) * ranks;
    /* memory: the stage with the highest replayed peak (offload applied,
     * as the closed form's memory_result does) */
    culonx_memory *mm = &res->memory;
    for (int s = 0; s < g->p; s++) {
        double work = 0;
        for (int k = 0; k < c->v; k++)
            work =
                fmax(work, cx_core_cost_chunk(c, c->sched->vstage(g->p, g->v, s, k))->work_bytes);
        culonx_memory x;
        cx_core_stage_memory(c, s, work, &x);
        x.activations_bytes = g->stage[s].peak_act_bytes - work;
        cx_core_memory_finish(c, &x); /* offload; peak and fits */
        if (s == 0 || x.peak_bytes > mm->peak_bytes) {
            *mm = x;
            res->params_per_gpu = c->stage_params[s];
        }
    }
    cx_core_result_rates(run, res);
    cx_core_energy_result(c, res);
}

culonx_status cx_core_graph_run(const culonx_run *run, int op_level, cx_graph **out,
                                culonx_error *err)
{
    culonx_status st = culonx_run_check(run, err);
    if (st != CULONX_OK) return st;
    st = cx_core_graph_build(run, run->exec.clock_mhz, op_level ? CX_DETAIL_OP : CX_DETAIL_STAGE,
                             out, err);
    if (st == CULONX_OK) st = cx_core_graph_eval(*out, err);
    if (st != CULONX_OK) {
        cx_core_graph_free(*out);
        *out = NULL;
    }
    return st;
}

culonx_status culonx_estimate_graph(const culonx_run *run, int op_level, culonx_result *res,
                                    culonx_error *err)
{
    cx_core_error_clear(err);
    cx_graph *g = NULL;
    culonx_status st = cx_core_graph_run(run, op_level, &g, err);
    if (st == CULONX_OK) cx_core_graph_result(g, res);
    cx_core_graph_free(g);
    if (st == CULONX_OK) st = cx_core_result_check(run, res, err);
    return st;
}
