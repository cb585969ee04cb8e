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
 * Activation memory (allocated at F, freed after W or BW, a recompute's
 * transient bytes held during B) follows each stage's order alone, so its
 * per-stage peak is computed by a scan of the orders, apart from the times.
 *
 * Each item's start is max(stage free, data ready), a pure function of
 * values that are final once written, so the stages may be played in any
 * interleaving: a worklist revisits a stage only when a neighbour (the
 * stage of vs-1 or vs+1 of one of its chunks) made progress. Cost: O(p m v)
 * time per call; the workspace keeps the orders of the last (schedule, p, m,
 * v), the dependency cells, and the last time and memory results keyed by
 * the bit patterns of their inputs, so repeated calls allocate nothing and
 * calls that differ only in what the replay does not read (DP settings) are
 * answered from the memo with identical results.
 * See core/README.md, "Closed form" (replayed schedules).
 */
#include "core/base/base.h"
#include "core/eval/replay.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    double f_out, b_out; /* when the next stage may use F / B of (mb, vs) */
    double b_done;
} rcell;

typedef struct {
    double dF, dB, dBW, dW; /* item durations */
    double lastB, lastBW;   /* DP-overlap window when a B / BW item is last */
    double act, work;
    int stage, sendF, sendB;
} vsinfo;

/* memo keys: per chunk class 7 times (+ p2p) or 2 byte counts, and the
 * class of each virtual stage */
#define TIME_KEY (CX_COST_MAX_CLASSES * 7 + 1)
#define MEM_KEY (CX_COST_MAX_CLASSES * 2)

struct cx_replay_ws {
    /* orders of (sd, p, m, v) */
    const cx_sched_desc *sd;
    int p, m, v, have_order;
    int cap; /* items per stage */
    cx_sched_item *items;
    size_t items_cap;
    int len[CX_COST_MAX_STAGES];
    uint8_t last_kind[CX_COST_MAX_STAGES];
    int16_t last_chunk[CX_COST_MAX_STAGES], lastb_chunk[CX_COST_MAX_STAGES];
    int32_t w_after[CX_COST_MAX_VSTAGES];
    int nbr_off[CX_COST_MAX_STAGES + 1];
    int16_t nbr[2 * CX_COST_MAX_VSTAGES];
    /* cells */
    rcell *cell;
    size_t cell_cap;
    vsinfo vi[CX_COST_MAX_VSTAGES];
    /* worklist and stage state */
    int queue[CX_COST_MAX_STAGES];
    uint8_t inq[CX_COST_MAX_STAGES];
    int pos[CX_COST_MAX_STAGES];
    double free_at[CX_COST_MAX_STAGES], pp_free[CX_COST_MAX_STAGES];
    /* memos (valid for the current orders only) */
    int have_time, have_mem;
    double time_key[TIME_KEY], mem_key[MEM_KEY];
    int time_nclass, mem_nclass;
    int16_t time_cls[CX_COST_MAX_VSTAGES], mem_cls[CX_COST_MAX_VSTAGES];
    cx_replay time_out; /* first p entries of each array */
    double mem_peak[CX_COST_MAX_STAGES];
};

cx_replay_ws *cx_core_replay_ws_new(void)
{
    return calloc(1, sizeof(cx_replay_ws));
}

void cx_core_replay_ws_free(cx_replay_ws *ws)
{
    if (!ws) return;
    free(ws->items);
    free(ws->cell);
    free(ws);
}

static culonx_status nomem(culonx_error *err)
{
    return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory in schedule replay");
}

/* Makes ws hold the orders of c's schedule and their facts. */
static culonx_status orders(const cx_cost *c, cx_replay_ws *ws, culonx_error *err)
{
    const int p = c->p, v = c->v, m = c->m, nvs = p * v;
    const cx_sched_desc *sd = c->sched;
    if (ws->have_order && ws->sd == sd && ws->p == p && ws->m == m && ws->v == v)
        return CULONX_OK;
    ws->have_order = ws->have_time = ws->have_mem = 0;
    if ((int64_t)m * nvs * 3 > CX_MAX_SCHEDULE_ITEMS)
        return cx_core_fail(err, CULONX_EINPUT, c->run->path, 0,
                            "schedule %s: %d microbatches x %d virtual stages is too many to "
                            "replay (at most %lld work items)",
                            sd->name, m, nvs, (long long)CX_MAX_SCHEDULE_ITEMS);
    const int cap = 3 * m * v + 8;
    size_t need = (size_t)cap * (size_t)p;
    if (need > ws->items_cap) {
        free(ws->items);
        ws->items = malloc(need * sizeof *ws->items);
        ws->items_cap = ws->items ? need : 0;
        if (!ws->items) return nomem(err);
    }
    ws->cap = cap;
    for (int s = 0; s < p; s++) {
        cx_sched_item *ord = ws->items + (size_t)s * (size_t)cap;
        int n = sd->order(p, m, v, s, ord, cap); /* chunks(v) == v for every schedule */
        if (n < 0)
            return cx_core_fail(err, CULONX_EINPUT, c->run->path, 0,
                                "schedule %s does not support pp=%d with %d microbatches",
                                sd->name, p, m);
        ws->len[s] = n;
        ws->last_kind[s] = n > 0 ? ord[n - 1].kind : CX_WORK_F;
        ws->last_chunk[s] = n > 0 ? ord[n - 1].chunk : 0;
        int32_t *wa = ws->w_after + (size_t)s * (size_t)v;
        for (int k = 0; k < v; k++) wa[k] = 0;
        int i = n - 1;
        for (; i >= 0 && ord[i].kind == CX_WORK_W; i--)
            if (ord[i].chunk < v) wa[ord[i].chunk]++;
        ws->lastb_chunk[s] = (int16_t)(i >= 0 && ord[i].kind != CX_WORK_F ? ord[i].chunk : -1);
    }
    /* neighbours: stages of vs-1 and vs+1 for the chunks of each stage */
    int k = 0;
    for (int s = 0; s < p; s++) {
        ws->nbr_off[s] = k;
        for (int ch = 0; ch < v; ch++) {
            int vs = c->vs_stage_vs[s * v + ch];
            for (int d = -1; d <= 1; d += 2) {
                int u = vs + d;
                if (u < 0 || u >= nvs) continue;
                int t = c->vs_stage[u], dup = t == s;
                for (int j = ws->nbr_off[s]; j < k && !dup; j++) dup = ws->nbr[j] == t;
                if (!dup) ws->nbr[k++] = (int16_t)t;
            }
        }
    }
    ws->nbr_off[p] = k;
    ws->sd = sd, ws->p = p, ws->m = m, ws->v = v;
    ws->have_order = 1;
    return CULONX_OK;
}

culonx_status cx_core_replay_shape(const cx_cost *c, cx_replay_ws *ws, cx_replay_shape *shape,
                                   culonx_error *err)
{
    culonx_status st = orders(c, ws, err);
    if (st != CULONX_OK) return st;
    shape->p = c->p, shape->v = c->v;
    shape->last_kind = ws->last_kind;
    shape->last_chunk = ws->last_chunk;
    shape->lastb_chunk = ws->lastb_chunk;
    shape->w_after = ws->w_after;
    return CULONX_OK;
}

static const cx_chunk_cost *kind_of(const cx_cost *c, int k)
{
    return &c->cls[k];
}

/* Do the memo's key (n doubles, nclass classes, vs -> class) match c's? */
static int key_hit(const cx_cost *c, const double *key, const double *memo_key, size_t n,
                   int nclass, const int16_t *cls)
{
    return nclass == c->nclass && memcmp(key, memo_key, n * sizeof *key) == 0 &&
           memcmp(cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *cls) == 0;
}

culonx_status cx_core_replay_memory(const cx_cost *c, cx_replay_ws *ws, double *peak_act,
                                    culonx_error *err)
{
    culonx_status st = orders(c, ws, err);
    if (st != CULONX_OK) return st;
    const int p = c->p, v = c->v;
    double key[MEM_KEY];
    const size_t nkey = 2 * (size_t)c->nclass;
    for (int k = 0; k < c->nclass; k++) {
        key[2 * k] = kind_of(c, k)->act_bytes;
        key[2 * k + 1] = kind_of(c, k)->work_bytes;
    }
    if (!ws->have_mem || !key_hit(c, key, ws->mem_key, nkey, ws->mem_nclass, ws->mem_cls)) {
        for (int s = 0; s < p; s++) {
            const cx_sched_item *ord = ws->items + (size_t)s * (size_t)ws->cap;
            double act = 0, peak = 0;
            for (int i = 0; i < ws->len[s]; i++) {
                const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->vs_stage_vs[s * v + ord[i].chunk]);
                switch (ord[i].kind) {
                case CX_WORK_F:
                    act += cc->act_bytes;
                    if (act > peak) peak = act;
                    break;
                case CX_WORK_B:
                    if (act + cc->work_bytes > peak) peak = act + cc->work_bytes;
                    break;
                case CX_WORK_BW:
                    if (act + cc->work_bytes > peak) peak = act + cc->work_bytes;
                    act -= cc->act_bytes;
                    break;
                default:
                    if (act > peak) peak = act;
                    act -= cc->act_bytes;
                    break;
                }
            }
            ws->mem_peak[s] = peak;
        }
        memcpy(ws->mem_key, key, nkey * sizeof *key);
        ws->mem_nclass = c->nclass;
        memcpy(ws->mem_cls, c->vs_class, (size_t)(p * v) * sizeof *ws->mem_cls);
        ws->have_mem = 1;
    }
    memcpy(peak_act, ws->mem_peak, (size_t)p * sizeof *peak_act);
    return CULONX_OK;
}

static void copy_out(cx_replay *dst, const cx_replay *src, int p)
{
    size_t n = (size_t)p * sizeof(double);
    dst->makespan_s = src->makespan_s;
    memcpy(dst->last_end_s, src->last_end_s, n);
    memcpy(dst->last_item_s, src->last_item_s, n);
    memcpy(dst->free_s, src->free_s, n);
}

static culonx_status play(const cx_cost *c, cx_replay_ws *ws, cx_replay *out, culonx_error *err)
{
    const int p = c->p, v = c->v, m = c->m, nvs = p * v;
    const cx_sched_desc *sd = c->sched;
    const double P = c->p2p_s;
    const int overlap = sd->p2p_overlap;
    size_t ncell = (size_t)m * (size_t)nvs;
    if (ncell > ws->cell_cap) {
        free(ws->cell);
        ws->cell = malloc(ncell * sizeof *ws->cell);
        ws->cell_cap = ws->cell ? ncell : 0;
        if (!ws->cell) return nomem(err);
    }
    rcell *cell = ws->cell;
    for (size_t i = 0; i < ncell; i++) cell[i].f_out = cell[i].b_out = cell[i].b_done = -1.0;
    for (int vs = 0; vs < nvs; vs++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
        vsinfo *x = &ws->vi[vs];
        x->stage = c->vs_stage[vs];
        x->dF = cc->f_s + cc->tp_f_s;
        x->dB = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s;
        x->dBW = x->dB + cc->w_s;
        x->dW = cc->w_s;
        x->lastB = x->dB - cc->r_s - cc->tp_r_s;
        x->lastBW = x->dBW - cc->r_s - cc->tp_r_s;
        x->sendF = vs + 1 < nvs && c->vs_stage[vs + 1] != x->stage;
        x->sendB = vs > 0 && c->vs_stage[vs - 1] != x->stage;
    }
    long total = 0;
    int qn = 0;
    for (int s = 0; s < p; s++) {
        ws->pos[s] = 0;
        ws->free_at[s] = ws->pp_free[s] = 0;
        out->last_end_s[s] = out->last_item_s[s] = 0;
        total += ws->len[s];
        ws->queue[qn++] = p - 1 - s; /* popped from the end: stage 0 first */
        ws->inq[p - 1 - s] = 1;
    }
    while (total > 0 && qn > 0) {
        const int s = ws->queue[--qn];
        ws->inq[s] = 0;
        const cx_sched_item *ord = ws->items + (size_t)s * (size_t)ws->cap;
        const int16_t *vsmap = c->vs_stage_vs + (size_t)s * (size_t)v;
        int pos = ws->pos[s];
        const int len = ws->len[s];
        double free_at = ws->free_at[s], pp_free = ws->pp_free[s];
        double last_end = out->last_end_s[s], last_item = out->last_item_s[s];
        const int start_pos = pos;
        while (pos < len) {
            const cx_sched_item *it = &ord[pos];
            const int vs = vsmap[it->chunk];
            const vsinfo *vi = &ws->vi[vs];
            rcell *x = &cell[(size_t)it->mb * (size_t)nvs + (size_t)vs];
            double ready = 0, dur, win;
            int send = 0;
            const int kind = it->kind;
            if (kind == CX_WORK_F) {
                if (vs > 0) {
                    if (x[-1].f_out < 0) break;
                    ready = x[-1].f_out;
                }
                dur = win = vi->dF;
                send = vi->sendF;
            } else if (kind == CX_WORK_W) {
                if (x->b_done < 0) break;
                ready = x->b_done;
                dur = win = vi->dW;
            } else {
                if (vs == nvs - 1) {
                    if (x->f_out < 0) break;
                    ready = x->f_out;
                } else {
                    if (x[1].b_out < 0) break;
                    ready = x[1].b_out;
                }
                if (kind == CX_WORK_BW) dur = vi->dBW, win = vi->lastBW;
                else dur = vi->dB, win = vi->lastB;
                send = vi->sendB;
            }
            double start = free_at > ready ? free_at : ready;
            double end = start + dur, out_t = end;
            free_at = end;
            if (send) {
                double ss = end > pp_free ? end : pp_free;
                out_t = pp_free = ss + P;
                if (!overlap) free_at = out_t;
            }
            if (kind == CX_WORK_F) x->f_out = out_t;
            else if (kind != CX_WORK_W) x->b_done = end, x->b_out = out_t;
            last_end = end;
            last_item = win;
            pos++;
        }
        ws->pos[s] = pos;
        ws->free_at[s] = free_at, ws->pp_free[s] = pp_free;
        out->last_end_s[s] = last_end, out->last_item_s[s] = last_item;
        if (pos == start_pos) continue;
        total -= pos - start_pos;
        for (int j = ws->nbr_off[s]; j < ws->nbr_off[s + 1]; j++) {
            int t = ws->nbr[j];
            if (!ws->inq[t] && ws->pos[t] < ws->len[t]) ws->inq[t] = 1, ws->queue[qn++] = t;
        }
    }
    for (int s = 0; s < p; s++) ws->inq[s] = 0;
    if (total > 0)
        return cx_core_fail(err, CULONX_EINTERNAL, c->run->path, 0,
                            "schedule %s deadlocks for pp=%d, %d microbatches", sd->name, p, m);
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        out->free_s[s] = ws->free_at[s];
        if (ws->free_at[s] > out->makespan_s) out->makespan_s = ws->free_at[s];
    }
    return CULONX_OK;
}

culonx_status cx_core_replay_ws(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                culonx_error *err)
{
    if (!ws) {
        cx_replay_ws *tmp = cx_core_replay_ws_new();
        if (!tmp) return nomem(err);
        culonx_status st = cx_core_replay_ws(c, tmp, out, err);
        cx_core_replay_ws_free(tmp);
        return st;
    }
    culonx_status st = orders(c, ws, err);
    if (st != CULONX_OK) return st;
    double key[TIME_KEY];
    const size_t nkey = 7 * (size_t)c->nclass + 1;
    for (int k = 0; k < c->nclass; k++) {
        const cx_chunk_cost *cc = kind_of(c, k);
        double *q = key + 7 * k;
        q[0] = cc->f_s, q[1] = cc->tp_f_s, q[2] = cc->b_s, q[3] = cc->tp_b_s;
        q[4] = cc->r_s, q[5] = cc->tp_r_s, q[6] = cc->w_s;
    }
    key[nkey - 1] = c->p2p_s;
    if (ws->have_time && key_hit(c, key, ws->time_key, nkey, ws->time_nclass, ws->time_cls)) {
        copy_out(out, &ws->time_out, c->p);
    } else {
        ws->have_time = 0;
        st = play(c, ws, out, err);
        if (st != CULONX_OK) return st;
        memcpy(ws->time_key, key, nkey * sizeof *key);
        ws->time_nclass = c->nclass;
        memcpy(ws->time_cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *ws->time_cls);
        copy_out(&ws->time_out, out, c->p);
        ws->have_time = 1;
    }
    return cx_core_replay_memory(c, ws, out->peak_act_bytes, err);
}

culonx_status cx_core_replay(const cx_cost *c, cx_replay *out, culonx_error *err)
{
    return cx_core_replay_ws(c, NULL, out, err);
}
