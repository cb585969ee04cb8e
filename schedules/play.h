/*
 * play.h — the play engine: the one implementation of the pipeline
 * dependency rules. It holds the per-stage work orders of a schedule for
 * (desc, p, m, v), checks them, and plays them; a STEP callback decides what
 * each item costs and what it produces. Three players use it: the reference
 * simulator (schedules/sim.c: uniform times, p2p as latency), the closed
 * form's replay (core/eval/replay.c: chunk costs, serialised and blocking sends)
 * and the DAG builder (core/eval/walk.c: emits nodes). Because the rules live
 * here only, the closed form and the graph engine agree by construction.
 *
 * Rules (virtual stages vs = 0..p*chunks-1, see sched.h):
 *   - a physical stage runs its items strictly in order, one at a time;
 *   - F(mb, vs) waits on the output of F(mb, vs-1) (none for vs = 0);
 *   - B or BW(mb, vs) waits on the output of B or BW(mb, vs+1), or, on the
 *     last virtual stage, on the output of F(mb, vs);
 *   - W(mb, vs) waits on B(mb, vs) being done.
 * Each (mb, vs) cell holds three tokens: f_out (F's output as the consumer
 * sees it), b_out (B's or BW's output) and b_done (B or BW finished). A
 * token is produced when its item is played; t < 0 means "not yet".
 *
 * The orders are valid when each (mb, vs) has exactly one F and either one
 * B and one W or one BW, chunks and microbatches are in range, and
 * (stage, chunk) -> virtual stage is a bijection. Playing uses a worklist:
 * a stage is revisited only when a neighbouring stage (holding vs-1 or vs+1
 * of one of its chunks) made progress; every token is a pure function of
 * tokens final once written, so the interleaving does not change results.
 * A worklist that empties while work remains is a deadlock, reported, never
 * waited on. Cost O(p m v) per play. This header depends on sched.h only.
 */
#ifndef CX_SCHED_PLAY_H
#define CX_SCHED_PLAY_H

#include "schedules/sched.h"

#include <stddef.h>

/* What a step produces, one double: a time for the timing players, a DAG
 * node id for the emitting player (cx_sched_play_node; ids below 2^53 are
 * exact). Negative: not produced yet. One word keeps the cells as small as
 * the replay's own were (24 bytes): with a separate node field the replay of
 * large schedules ran 1.9x slower, bound by memory traffic. */
typedef struct {
    double t;
} cx_play_token;

static inline cx_play_token cx_sched_play_node(int64_t node)
{
    cx_play_token k = {(double)node};
    return k;
}

typedef struct {
    cx_play_token f_out, b_out, b_done;
} cx_play_cell;

/* One item being played, as passed to the STEP callback. */
typedef struct {
    int stage;                /* physical stage */
    int pos;                  /* index of the item in the stage's order */
    int last;                 /* 1 for the stage's last item */
    int kind, chunk, mb, vs;  /* cx_work_kind, chunk on the stage, microbatch, virtual stage */
    const cx_play_token *dep; /* the token it waits on; NULL for F(mb, 0) */
    int send;                 /* its output crosses to another physical stage */
    double *reg;              /* the stage's CX_PLAY_REGS registers (below) */
} cx_play_step;

/* Per-stage state a player may keep in the engine (e.g. when the stage's
 * compute and PP streams are free): CX_PLAY_REGS doubles per stage, zero when
 * a play starts, copied into locals while a stage plays so that an inlined
 * step keeps them in machine registers (through memory, the replay's chain
 * start = max(free, ready) paid a store-to-load round trip per item). Read
 * them after the play with cx_sched_play_regs. */
#define CX_PLAY_REGS 4

/* Players mark their step CX_PLAY_STEP so that it is inlined into the
 * play loop (GCC and clang; a plain static function elsewhere). */
#if defined(__GNUC__)
#define CX_PLAY_STEP static inline __attribute__((always_inline))
#else
#define CX_PLAY_STEP static inline
#endif

/* Plays one item: writes *done (the item's own work finished) and *out (its
 * output as the next item of the chain receives it, e.g. after a send).
 * Only F's out, B's / BW's done and out are kept; W's are ignored. */
typedef void (*cx_play_step_fn)(void *ctx, const cx_play_step *st, cx_play_token *done,
                                cx_play_token *out);

/* Orders, cells and worklist; reusable, one per thread. */
typedef struct cx_play {
    const cx_sched_desc *sd;
    int p, m, v; /* v as requested; nch = sd->chunks(v) */
    int nch, nvs;
    int have_order;           /* orders of (sd, p, m, v) are held (1) and checked (2) */
    int cap;                  /* item slots per stage */
    cx_sched_item *items;     /* [p * cap] */
    int *len;                 /* [p] items of each stage */
    int *vs_of;               /* [p * nch]: (stage, chunk) -> virtual stage */
    int *stage_of;            /* [nvs] */
    uint8_t *send_f, *send_b; /* [nvs]: F's / B's output leaves the stage */
    int *nbr_off, *nbr;       /* [p + 1], [2 * nvs]: worklist neighbours */
    int *pos, *queue;         /* [p] play state */
    uint8_t *inq, *cnt;       /* [p]; [m * nvs * 4] order check */
    cx_play_cell *cell;       /* [m * nvs] */
    double *regs;             /* [p * CX_PLAY_REGS] */
    size_t items_cap, cell_cap, cnt_cap;
    int stage_cap, vs_cap;
} cx_play;

cx_play *cx_sched_play_new(void);
/* NULL-safe. */
void cx_sched_play_free(cx_play *pl);

/* Generates the orders of (d, p, m, v) unless already held (v as requested:
 * d->chunks(v) chunks per stage) and, with check, checks them: UNSUPPORTED
 * when d->order refuses (p, m, v), BAD_ORDER when they break the rules
 * above, NOMEM. The bijection and ranges are always checked; check adds the
 * per-(mb, vs) item counts, a pass over all cells (the closed form's replay,
 * run in sweeps, skips it: every registered schedule's orders are checked
 * by tests/test_schedules.c through the simulator, which checks). Held
 * orders are reused only by a call with the same or a weaker check. */
cx_sched_sim_status cx_sched_play_orders(cx_play *pl, const cx_sched_desc *d, int p, int m, int v,
                                         int check);

/* The registers of stage s after a play. */
static inline const double *cx_sched_play_regs(const cx_play *pl, int s)
{
    return pl->regs + (size_t)s * CX_PLAY_REGS;
}

/* The held order of stage s (n items). */
static inline const cx_sched_item *cx_sched_play_items(const cx_play *pl, int s, int *n)
{
    *n = pl->len[s];
    return pl->items + (size_t)s * (size_t)pl->cap;
}

/* Makes pl's cells hold n (contents not kept; allocated by the first
 * play: orders that are only compiled never touch them); -1 when out of
 * memory. */
int cx_sched_play_cells(cx_play *pl, size_t n);

/* Plays the held orders, calling step for every item once its dependency
 * token is there: OK, or DEADLOCK (UNSUPPORTED without orders). Inline so
 * that each player's call, with its own step, compiles to one loop with the
 * step inlined (the closed form's replay runs it in sweeps: an indirect call
 * per item cost it about 25%). */
static inline cx_sched_sim_status cx_sched_play_run(cx_play *pl, cx_play_step_fn step, void *ctx)
{
    if (!pl->have_order) return CX_SCHED_SIM_UNSUPPORTED;
    /* every field in a local: stores through the uint8_t arrays may alias
     * anything, and would make the compiler reload fields of *pl per item */
    const int p = pl->p, nch = pl->nch, nvs = pl->nvs;
    const size_t cap = (size_t)pl->cap, ncell = (size_t)pl->m * (size_t)nvs;
    const cx_sched_item *const items = pl->items;
    const int *const len = pl->len, *const vs_of = pl->vs_of;
    const int *const nbr_off = pl->nbr_off, *const nbr = pl->nbr;
    const uint8_t *const send_f = pl->send_f, *const send_b = pl->send_b;
    int *const cur = pl->pos, *const queue = pl->queue;
    uint8_t *const inq = pl->inq;
    double *const regs = pl->regs;
    if (ncell > pl->cell_cap && cx_sched_play_cells(pl, ncell)) return CX_SCHED_SIM_NOMEM;
    cx_play_cell *const cell = pl->cell;
    for (size_t i = 0; i < ncell; i++)
        cell[i].f_out.t = cell[i].b_out.t = cell[i].b_done.t = -1.0;
    long total = 0;
    int qn = 0;
    for (int s = 0; s < p; s++) {
        cur[s] = 0;
        for (int k = 0; k < CX_PLAY_REGS; k++)
            regs[s * CX_PLAY_REGS + k] = 0.0;
        total += len[s];
        queue[qn++] = p - 1 - s; /* popped from the end: stage 0 first */
        inq[p - 1 - s] = 1;
    }
    cx_play_step st;
    cx_play_token scratch[2];
    while (total > 0 && qn > 0) {
        const int s = queue[--qn];
        inq[s] = 0;
        const cx_sched_item *ord = items + (size_t)s * cap;
        const int *vsmap = vs_of + (size_t)s * (size_t)nch;
        const int n = len[s], start_pos = cur[s];
        int pos = start_pos;
        if (pos >= n) continue;
        /* most visits find the first item not ready: check it before
         * loading the stage's registers */
        {
            const cx_sched_item *it = &ord[pos];
            const int vs = vsmap[it->chunk];
            const cx_play_cell *x = &cell[(size_t)it->mb * (size_t)nvs + (size_t)vs];
            const cx_play_token *dep = it->kind == CX_WORK_F   ? (vs > 0 ? &x[-1].f_out : NULL)
                                       : it->kind == CX_WORK_W ? &x->b_done
                                       : vs == nvs - 1         ? &x->f_out
                                                               : &x[1].b_out;
            if (dep && dep->t < 0) continue;
        }
        double reg[CX_PLAY_REGS];
        for (int k = 0; k < CX_PLAY_REGS; k++)
            reg[k] = regs[s * CX_PLAY_REGS + k];
        st.stage = s;
        st.reg = reg;
        for (; pos < n; pos++) {
            const cx_sched_item *it = &ord[pos];
            const int vs = vsmap[it->chunk], kind = it->kind;
            cx_play_cell *x = &cell[(size_t)it->mb * (size_t)nvs + (size_t)vs];
            const cx_play_token *dep;
            if (kind == CX_WORK_F) {
                dep = vs > 0 ? &x[-1].f_out : NULL;
                st.send = send_f[vs];
            } else if (kind == CX_WORK_W) {
                dep = &x->b_done;
                st.send = 0;
            } else {
                dep = vs == nvs - 1 ? &x->f_out : &x[1].b_out;
                st.send = send_b[vs];
            }
            if (dep && dep->t < 0) break;
            st.pos = pos, st.last = pos == n - 1;
            st.kind = kind, st.chunk = it->chunk, st.mb = it->mb, st.vs = vs;
            st.dep = dep;
            /* the callback writes the kept tokens straight into the cell */
            if (kind == CX_WORK_F)
                step(ctx, &st, &scratch[0], &x->f_out);
            else if (kind == CX_WORK_W)
                step(ctx, &st, &scratch[0], &scratch[1]);
            else
                step(ctx, &st, &x->b_done, &x->b_out);
        }
        if (pos == start_pos) continue;
        cur[s] = pos;
        for (int k = 0; k < CX_PLAY_REGS; k++)
            regs[s * CX_PLAY_REGS + k] = reg[k];
        total -= pos - start_pos;
        for (int j = nbr_off[s]; j < nbr_off[s + 1]; j++) {
            int t = nbr[j];
            if (!inq[t] && cur[t] < len[t]) inq[t] = 1, queue[qn++] = t;
        }
    }
    for (int s = 0; s < p; s++)
        inq[s] = 0;
    return total > 0 ? CX_SCHED_SIM_DEADLOCK : CX_SCHED_SIM_OK;
}

#endif
