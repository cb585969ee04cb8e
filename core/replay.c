/*
 * replay.c — plays a schedule's per-stage work orders with the run's chunk
 * costs, without building a DAG: the closed form's path for schedules whose
 * iteration time has no exact formula under uneven stages and blocking p2p
 * (interleaved, zero-bubble, DualPipeV). Same semantics as the stage-level
 * DAG of core/walk.c, so both engines give the same times:
 *   - a stage runs its items in order, each as soon as its data is there;
 *   - F(mb, vs) needs F(mb, vs-1) (through a send when on another stage);
 *     B or BW(mb, vs) needs B(mb, vs+1) (through a send) or, on the last
 *     virtual stage, F(mb, vs); recompute runs right before it; W needs B;
 *   - sends are serialised on the stage's PP stream and block the stage's
 *     next compute unless the schedule overlaps p2p.
 * It also replays activation memory (allocated at F, freed after W or BW,
 * a recompute's transient bytes held during B) for the per-stage peak.
 * Cost: O(p m v) time and O(m p v) memory per call.
 */
#include "core/base.h"
#include "core/replay.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    double f_out, b_out; /* when the next stage may use F / B of (mb, vs) */
    double f_done, b_done;
} rcell;

culonx_status cx_core_replay(const cx_cost *c, cx_replay *out, culonx_error *err)
{
    const int p = c->p, v = c->v, m = c->m, nvs = p * v;
    const cx_sched_desc *sd = c->sched;
    const int cap = 3 * m * v + 8;
    const double P = c->p2p_s;
    culonx_status st = CULONX_OK;
    cx_sched_item *items = malloc(sizeof *items * (size_t)cap * (size_t)p);
    int *len = calloc((size_t)p * 2, sizeof(int)); /* len[s], pos[s] */
    double *free_at = calloc((size_t)p * 3, sizeof(double)); /* compute, pp, act */
    rcell *cell = malloc(sizeof *cell * (size_t)m * (size_t)nvs);
    if (!items || !len || !free_at || !cell) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory in schedule replay");
        goto done;
    }
    int *pos = len + p;
    double *pp_free = free_at + p, *act = free_at + 2 * p;
    long total = 0;
    for (int s = 0; s < p; s++) {
        len[s] = sd->order(p, m, v, s, items + (size_t)s * cap, cap);
        if (len[s] < 0) {
            st = cx_core_fail(err, CULONX_EINPUT, c->run->path, 0,
                              "schedule %s does not support pp=%d with %d microbatches", sd->name,
                              p, m);
            goto done;
        }
        total += len[s];
        out->peak_act_bytes[s] = 0;
        out->last_item_s[s] = 0;
    }
    for (size_t i = 0; i < (size_t)m * (size_t)nvs; i++)
        cell[i].f_out = cell[i].b_out = cell[i].f_done = cell[i].b_done = -1.0;

    while (total > 0) {
        long progress = 0;
        for (int s = 0; s < p; s++) {
            const cx_sched_item *ord = items + (size_t)s * cap;
            while (pos[s] < len[s]) {
                const cx_sched_item *it = &ord[pos[s]];
                int vs = c->vs_stage_vs[s * v + it->chunk];
                const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
                rcell *x = &cell[(size_t)it->mb * (size_t)nvs + (size_t)vs];
                double ready = 0, dur;
                int send = 0;
                if (it->kind == CX_WORK_F) {
                    if (vs > 0) {
                        if (x[-1].f_out < 0) break;
                        ready = x[-1].f_out;
                    }
                    dur = cc->f_s + cc->tp_f_s;
                    send = vs + 1 < nvs && c->vs_stage[vs + 1] != s;
                } else if (it->kind == CX_WORK_W) {
                    if (x->b_done < 0) break;
                    ready = x->b_done;
                    dur = cc->w_s;
                } else {
                    if (vs == nvs - 1) {
                        if (x->f_done < 0) break;
                        ready = x->f_done;
                    } else {
                        if (x[1].b_out < 0) break;
                        ready = x[1].b_out;
                    }
                    dur = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s;
                    if (it->kind == CX_WORK_BW) dur += cc->w_s;
                    send = vs > 0 && c->vs_stage[vs - 1] != s;
                }
                double start = free_at[s] > ready ? free_at[s] : ready;
                double end = start + dur, out_t = end;
                free_at[s] = end;
                if (send) {
                    double ss = end > pp_free[s] ? end : pp_free[s];
                    out_t = pp_free[s] = ss + P;
                    if (!sd->p2p_overlap) free_at[s] = out_t;
                }
                /* activation memory, in schedule order */
                double *peak = &out->peak_act_bytes[s];
                switch (it->kind) {
                case CX_WORK_F:
                    x->f_done = end, x->f_out = out_t;
                    act[s] += cc->act_bytes;
                    if (act[s] > *peak) *peak = act[s];
                    break;
                case CX_WORK_B:
                    x->b_done = end, x->b_out = out_t;
                    if (act[s] + cc->work_bytes > *peak) *peak = act[s] + cc->work_bytes;
                    break;
                case CX_WORK_BW:
                    x->b_done = end, x->b_out = out_t;
                    if (act[s] + cc->work_bytes > *peak) *peak = act[s] + cc->work_bytes;
                    act[s] -= cc->act_bytes;
                    break;
                default:
                    if (act[s] > *peak) *peak = act[s];
                    act[s] -= cc->act_bytes;
                    break;
                }
                out->last_end_s[s] = end;
                out->last_item_s[s] = it->kind == CX_WORK_W || it->kind == CX_WORK_BW ||
                                              it->kind == CX_WORK_B
                                          ? (it->kind == CX_WORK_W ? dur : dur - cc->r_s - cc->tp_r_s)
                                          : dur;
                pos[s]++;
                total--;
                progress++;
            }
        }
        if (!progress) {
            st = cx_core_fail(err, CULONX_EINTERNAL, c->run->path, 0,
                              "schedule %s deadlocks for pp=%d, %d microbatches", sd->name, p, m);
            goto done;
        }
    }
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        out->free_s[s] = free_at[s];
        if (free_at[s] > out->makespan_s) out->makespan_s = free_at[s];
    }
done:
    free(items), free(len), free(free_at), free(cell);
    return st;
}
