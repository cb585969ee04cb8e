/*
 * replay_fast.c — the period-jumping player of the closed form's replay: it
 * plays the orders of m' microbatches (held by the play engine) as the
 * orders of m = m' + k c, the same orders with k more periods of c
 * microbatches in their steady state (cx_sched_desc.steady), without
 * playing those periods one by one.
 *
 * The play is a max-plus system. Each stage's held order has a steady run:
 * blocks of L items (c microbatches' worth) where block j+1 is block j with
 * every microbatch + c. Per item the engine's rule (replay_step.h) takes two
 * maxima, start = max(free, ready) and, for a send, ss = max(end, PP free).
 * The player stops every stage at the end of a block J of its run (a cut
 * closed under dependencies: a stage waiting on a token beyond another
 * stage's cut moves that cut one block on) and checks, from the operands it
 * recorded for blocks J-2, J-1, J of every stage:
 *   - every operand advances by the same amount r from J-2 to J-1 and from
 *     J-1 to J (to 1e-13 of the largest time), and every maximum has the
 *     same winner in J-1 and J (ties to 1e-12);
 *   - the stage registers (compute and PP stream free) advance by the r of
 *     the block starts;
 *   - every token produced but not yet consumed advances by the same r from
 *     its microbatch - c to itself and on to + c (the backlog is linear).
 * Then each further block is the last one plus r on every value (the winner
 * of each maximum feeds the same r forward), until a losing operand that
 * advances faster catches up: after K = min (winner - loser) / (r_loser -
 * r_winner) blocks. The player inserts min(K, k) blocks at once: registers
 * and pending tokens += K r (the orders after the cut are those of m with
 * K blocks inserted, microbatches relabelled - K c), with the operands
 * recorded for blocks J-1 and J and every token with its predecessor moved
 * likewise, plays one more block and checks again. The
 * result is that of playing all m microbatches (exact up to rounding, the
 * jumps adding K r in one step); bench/fast_agree.c holds it to the full
 * replay to 1e-9. Uneven stages: a faster stage works off its warm-up
 * backlog at the rate of its slack; the check fails while it is in
 * transition and jumps again once it has settled, so the cost is that of the
 * warm-up, cool-down and the transitions, O(p v (e + c)) items per call
 * instead of O(p v m). Memory: the workspace of m' microbatches.
 * See core/README.md, "Closed form" (steady-state fast path).
 */
#include "core/eval/replay_fast.h"
#include "core/eval/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NREC 4 /* recorded per played item: free and ready before, PP free, end */
#define MIN_BLOCKS 7

struct cx_replay_fast {
    double *rec; /* [p * cap * NREC] */
    uint8_t *bw; /* [m * nvs]: 1 B played (its W pending), 2 W played */
    size_t rec_cap, bw_cap;
    /* steady runs of the held orders (key: engine's sd, p, m, v and c) */
    const cx_sched_desc *sd;
    int p, m, v, c, have, ok;
    int a[CX_COST_MAX_STAGES], L[CX_COST_MAX_STAGES], nblk[CX_COST_MAX_STAGES];
    int lim[CX_COST_MAX_STAGES];
    double rfree[CX_COST_MAX_STAGES], rpp[CX_COST_MAX_STAGES];
};

cx_replay_fast *cx_core_replay_fast_new(void)
{
    return calloc(1, sizeof(cx_replay_fast));
}

void cx_core_replay_fast_free(cx_replay_fast *fx)
{
    if (!fx) return;
    free(fx->rec);
    free(fx->bw);
    free(fx);
}

static int same_item(const cx_sched_item *x, const cx_sched_item *y, int c)
{
    return x->kind == y->kind && x->chunk == y->chunk && y->mb == x->mb + c;
}

/* Finds each stage's steady run (start a, block length L, blocks nblk);
 * 1 if every stage has at least MIN_BLOCKS. */
static int find_runs(cx_replay_fast *fx, const cx_play *pl, int c)
{
    if (fx->have && fx->sd == pl->sd && fx->p == pl->p && fx->m == pl->m && fx->v == pl->v &&
        fx->c == c)
        return fx->ok;
    fx->have = 1, fx->ok = 0;
    fx->sd = pl->sd, fx->p = pl->p, fx->m = pl->m, fx->v = pl->v, fx->c = c;
    if (pl->p > CX_COST_MAX_STAGES) return 0;
    for (int s = 0; s < pl->p; s++) {
        int n;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
        /* a period holds c microbatches' F and B (fused or with W) of
         * every chunk: 2 or 3 items per microbatch and chunk */
        fx->nblk[s] = 0;
        for (int per = 2; per <= 3; per++) {
            const int L = c * pl->nch * per;
            int best_a = 0, best_len = 0;
            for (int i = 0, run = 0; i + L < n; i++) {
                run = same_item(&ord[i], &ord[i + L], c) ? run + 1 : 0;
                if (run > best_len) best_len = run, best_a = i - run + 1;
            }
            if (best_len / L + 1 > fx->nblk[s])
                fx->a[s] = best_a, fx->L[s] = L, fx->nblk[s] = best_len / L + 1;
        }
        if (fx->nblk[s] < MIN_BLOCKS) return 0;
    }
    return fx->ok = 1;
}

/* The stage producing the token item it waits on. */
static int producer(const cx_play *pl, const cx_sched_item *it, int s)
{
    const int vs = pl->vs_of[s * pl->nch + it->chunk];
    if (it->kind == CX_WORK_F) return vs > 0 ? pl->stage_of[vs - 1] : s;
    if (it->kind == CX_WORK_W || vs == pl->nvs - 1) return s;
    return pl->stage_of[vs + 1];
}

/* One maximum over blocks J-2, J-1, J (values u*, w*): 0 if not linear, else
 * lowers *K to the blocks before a loser catches up. */
static int op_linear(const double u[3], const double w[3], double tol, double tolr, int64_t *K)
{
    double ru = u[2] - u[1], rw = w[2] - w[1];
    if (fabs(ru - (u[1] - u[0])) > tolr || fabs(rw - (w[1] - w[0])) > tolr) return 0;
    const double *a = u, *b = w;
    double ra = ru, rb = rw;
    if (u[2] < w[2]) a = w, b = u, ra = rw, rb = ru;
    if (a[1] < b[1] - tol) return 0; /* another winner one block before */
    if (rb > ra + tolr) {
        double k = floor((a[2] - b[2]) / (rb - ra));
        if (k < (double)*K) *K = (int64_t)k;
    }
    return 1;
}

/* Consumer of token kind (0 f_out, 1 b_out, 2 b_done) of cell i (microbatch
 * mb, virtual stage vs) not yet played? -1 when it has none. */
static int pending(const cx_play *pl, const uint8_t *bw, size_t i, int vs, int kind)
{
    const cx_play_cell *x = &pl->cell[i];
    const int nvs = pl->nvs;
    if (kind == 0) return vs < nvs - 1 ? x[1].f_out.t < 0 : x->b_done.t < 0;
    if (kind == 1) return vs > 0 ? x[-1].b_done.t < 0 : -1;
    return bw[i] == 1 ? 1 : -1;
}

static double *tok(cx_play_cell *x, int kind)
{
    return kind == 0 ? &x->f_out.t : kind == 1 ? &x->b_out.t : &x->b_done.t;
}

/* Checks the cut (every stage at the end of block J of its run); returns
 * the blocks that can be inserted (0: not linear). */
static int64_t check(cx_replay_fast *fx, cx_play *pl)
{
    const int p = pl->p, nvs = pl->nvs, c = fx->c;
    const size_t cap = (size_t)pl->cap;
    double T = 0;
    for (int s = 0; s < p; s++) {
        const double *reg = cx_sched_play_regs(pl, s);
        if (reg[CX_R_FREE] > T) T = reg[CX_R_FREE];
        if (reg[CX_R_PP_FREE] > T) T = reg[CX_R_PP_FREE];
    }
    const double tol = 1e-12 * T, tolr = 1e-13 * T;
    int64_t K = INT64_MAX;
    for (int s = 0; s < p; s++) {
        const int L = fx->L[s], J = (fx->lim[s] - fx->a[s]) / L - 1;
        const cx_sched_item *ord = pl->items + (size_t)s * cap;
        const double *rec = fx->rec + (size_t)s * cap * NREC;
        const size_t b2 = (size_t)fx->a[s] + (size_t)J * (size_t)L, b1 = b2 - L, b0 = b1 - L;
        for (int i = 0; i < L; i++) {
            const double *x0 = rec + (b0 + i) * NREC, *x1 = rec + (b1 + i) * NREC,
                         *x2 = rec + (b2 + i) * NREC;
            const double fr[3] = {x0[0], x1[0], x2[0]}, rd[3] = {x0[1], x1[1], x2[1]};
            if (!op_linear(fr, rd, tol, tolr, &K)) return 0;
            const cx_sched_item *it = &ord[b2 + i];
            const int vs = pl->vs_of[s * pl->nch + it->chunk];
            const int send = it->kind == CX_WORK_F   ? pl->send_f[vs]
                             : it->kind == CX_WORK_W ? 0
                                                     : pl->send_b[vs];
            if (send) {
                const double en[3] = {x0[3], x1[3], x2[3]}, pp[3] = {x0[2], x1[2], x2[2]};
                if (!op_linear(en, pp, tol, tolr, &K)) return 0;
            }
        }
        const double *reg = cx_sched_play_regs(pl, s);
        const double *y1 = rec + b1 * NREC, *y2 = rec + b2 * NREC;
        fx->rfree[s] = reg[CX_R_FREE] - y2[0];
        fx->rpp[s] = reg[CX_R_PP_FREE] - y2[2];
        if (fabs(fx->rfree[s] - (y2[0] - y1[0])) > tolr ||
            fabs(fx->rpp[s] - (y2[2] - y1[2])) > tolr)
            return 0;
    }
    /* pending tokens: linear from mb - c on */
    const size_t ncell = (size_t)pl->m * (size_t)nvs, back = (size_t)c * (size_t)nvs;
    for (size_t i = 0; i < ncell; i++) {
        const int vs = (int)(i % (size_t)nvs);
        for (int kind = 0; kind < 3; kind++) {
            const double t = *tok(&pl->cell[i], kind);
            if (t < 0 || pending(pl, fx->bw, i, vs, kind) != 1) continue;
            if (i < back) return 0;
            const double t0 = *tok(&pl->cell[i - back], kind);
            if (t0 < 0) return 0;
            if (i + back < ncell) {
                const double t1 = *tok(&pl->cell[i + back], kind);
                if (t1 >= 0 && fabs((t1 - t) - (t - t0)) > tolr) return 0;
            }
        }
    }
    return K;
}

/* Inserts K blocks at the cut: registers and pending tokens advance by K r. */
static void jump(cx_replay_fast *fx, cx_play *pl, int64_t K)
{
    const int p = pl->p, nvs = pl->nvs;
    const double k = (double)K;
    for (int s = 0; s < p; s++) {
        double *reg = pl->regs + (size_t)s * CX_PLAY_REGS;
        reg[CX_R_FREE] += k * fx->rfree[s];
        reg[CX_R_PP_FREE] += k * fx->rpp[s];
        reg[CX_R_LAST_END] += k * fx->rfree[s];
    }
    /* the recorded operands of blocks J-1 and J move with them, so the next
     * cut may be one block on */
    const size_t cap = (size_t)pl->cap;
    for (int s = 0; s < p; s++) {
        const int L = fx->L[s], J = (fx->lim[s] - fx->a[s]) / L - 1;
        double *rec = fx->rec + (size_t)s * cap * NREC;
        const size_t b2 = ((size_t)fx->a[s] + (size_t)J * (size_t)L) * NREC,
                     b1 = b2 - (size_t)L * NREC;
        for (size_t i = 0; i < (size_t)L * NREC; i++) {
            const double r = rec[b2 + i] - rec[b1 + i];
            rec[b1 + i] += k * r, rec[b2 + i] += k * r;
        }
    }
    const size_t ncell = (size_t)pl->m * (size_t)nvs, back = (size_t)fx->c * (size_t)nvs;
    for (size_t i = ncell; i-- > back;) {
        const int vs = (int)(i % (size_t)nvs);
        (void)vs;
        for (int kind = 0; kind < 3; kind++) {
            /* every token with its predecessor: the pending ones move with
             * the cut (checked linear), the consumed ones too, so that the
             * next check measures the backlog's advance across the jump */
            double *t = tok(&pl->cell[i], kind);
            const double t0 = *tok(&pl->cell[i - back], kind);
            if (*t >= 0 && t0 >= 0) *t += k * (*t - t0);
        }
    }
}

/* Plays the held orders up to the per-stage limits (worklist of the
 * engine, schedules/play.h, with the operands of every item recorded). */
static void play_to_limits(cx_replay_fast *fx, cx_play *pl, const cx_replay_timing *tm, int *queue,
                           int qn)
{
    const int nch = pl->nch, nvs = pl->nvs;
    const size_t cap = (size_t)pl->cap;
    const int *const lim = fx->lim, *const vs_of = pl->vs_of;
    const int *const nbr_off = pl->nbr_off, *const nbr = pl->nbr;
    const uint8_t *const send_f = pl->send_f, *const send_b = pl->send_b;
    int *const cur = pl->pos;
    uint8_t *const inq = pl->inq, *const bw = fx->bw;
    cx_play_cell *const cell = pl->cell;
    const double p2p = tm->p2p_s;
    const int overlap = tm->overlap;
    while (qn > 0) {
        const int s = queue[--qn];
        inq[s] = 0;
        const cx_sched_item *ord = pl->items + (size_t)s * cap;
        const int *vsmap = vs_of + (size_t)s * (size_t)nch;
        double *rec = fx->rec + (size_t)s * cap * NREC;
        const int n = lim[s], start_pos = cur[s];
        int pos = start_pos;
        double *regp = pl->regs + (size_t)s * CX_PLAY_REGS;
        double fr = regp[CX_R_FREE], pp = regp[CX_R_PP_FREE], le = regp[CX_R_LAST_END],
               li = regp[CX_R_LAST_ITEM];
        for (; pos < n; pos++) {
            const cx_sched_item *it = &ord[pos];
            const int vs = vsmap[it->chunk], kind = it->kind;
            const size_t ci = (size_t)it->mb * (size_t)nvs + (size_t)vs;
            cx_play_cell *x = &cell[ci];
            const cx_play_token *dep;
            int send;
            if (kind == CX_WORK_F) {
                dep = vs > 0 ? &x[-1].f_out : NULL;
                send = send_f[vs];
            } else if (kind == CX_WORK_W) {
                dep = &x->b_done;
                send = 0;
            } else {
                dep = vs == nvs - 1 ? &x->f_out : &x[1].b_out;
                send = send_b[vs];
            }
            if (dep && dep->t < 0) break;
            const double ready = dep ? dep->t : 0.0;
            double win, dur = cx_replay_dur(&tm->vi[vs], kind, &win);
            double *r = rec + (size_t)pos * NREC;
            r[0] = fr, r[1] = ready, r[2] = pp;
            double start = fr > ready ? fr : ready;
            double end = start + dur, out_t = end;
            r[3] = end;
            fr = end;
            if (send) {
                double ss = end > pp ? end : pp;
                out_t = pp = ss + p2p;
                if (!overlap) fr = out_t;
            }
            le = end, li = win;
            if (kind == CX_WORK_F)
                x->f_out.t = out_t;
            else if (kind == CX_WORK_W)
                bw[ci] = 2;
            else {
                x->b_done.t = end, x->b_out.t = out_t;
                if (kind == CX_WORK_B) bw[ci] = 1;
            }
        }
        if (pos == start_pos) continue;
        cur[s] = pos;
        regp[CX_R_FREE] = fr, regp[CX_R_PP_FREE] = pp, regp[CX_R_LAST_END] = le,
        regp[CX_R_LAST_ITEM] = li;
        for (int j = nbr_off[s]; j < nbr_off[s + 1]; j++) {
            int t = nbr[j];
            if (!inq[t] && cur[t] < lim[t]) inq[t] = 1, queue[qn++] = t;
        }
    }
}

static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    free(*buf);
    *buf = malloc(n * sz);
    *cap = *buf ? n : 0;
    return *buf ? 0 : -1;
}

int cx_core_replay_fast_run(cx_replay_fast *fx, cx_play *pl, const cx_replay_timing *tm, int c,
                            int64_t k)
{
    if (!pl->have_order || c < 1 || k < 0) return 0;
    if (k > 0 && !find_runs(fx, pl, c)) return 0;
    const int p = pl->p;
    const size_t cap = (size_t)pl->cap, ncell = (size_t)pl->m * (size_t)pl->nvs;
    if (p > CX_COST_MAX_STAGES ||
        grow((void **)&fx->rec, &fx->rec_cap, (size_t)p * cap * NREC, sizeof *fx->rec) ||
        grow((void **)&fx->bw, &fx->bw_cap, ncell, 1))
        return -2;
    memset(fx->bw, 0, ncell);
    for (size_t i = 0; i < ncell; i++)
        pl->cell[i].f_out.t = pl->cell[i].b_out.t = pl->cell[i].b_done.t = -1.0;
    int jumping = k > 0;
    for (int s = 0; s < p; s++) {
        pl->pos[s] = 0;
        for (int r = 0; r < CX_PLAY_REGS; r++)
            pl->regs[s * CX_PLAY_REGS + r] = 0.0;
        fx->lim[s] = jumping ? fx->a[s] + 3 * fx->L[s] : pl->len[s];
    }
    int *queue = pl->queue;
    for (;;) {
        int qn = 0;
        for (int s = p; s-- > 0;)
            if (pl->pos[s] < fx->lim[s]) pl->inq[s] = 1, queue[qn++] = s;
        play_to_limits(fx, pl, tm, queue, qn);
        int done = 1, stuck = 0, raised = 0, leave = 0;
        for (int s = 0; s < p; s++)
            done &= pl->pos[s] == pl->len[s];
        if (done) break;
        if (!jumping) return -1; /* every limit at the end: a deadlock */
        for (int s = 0; s < p && !leave; s++) {
            if (pl->pos[s] >= fx->lim[s]) continue;
            stuck = 1;
            int n;
            const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
            const int t = producer(pl, &ord[pl->pos[s]], s);
            if (t == s || pl->pos[t] < fx->lim[t]) continue;
            /* move t's cut one block on, inside its steady run */
            if ((fx->lim[t] - fx->a[t]) / fx->L[t] + 1 > fx->nblk[t] - 2)
                leave = 1;
            else
                fx->lim[t] += fx->L[t], raised = 1;
        }
        if (leave || (stuck && !raised)) {
            jumping = 0;
            for (int s = 0; s < p; s++)
                fx->lim[s] = pl->len[s];
            continue;
        }
        if (stuck) continue;
        int64_t K = check(fx, pl);
        if (K > k) K = k;
        if (K > 0) jump(fx, pl, K), k -= K;
        const int step = 1;
        jumping = k > 0;
        for (int s = 0; s < p && jumping; s++)
            if ((fx->lim[s] - fx->a[s]) / fx->L[s] - 1 + step > fx->nblk[s] - 2) jumping = 0;
        for (int s = 0; s < p; s++)
            fx->lim[s] = jumping ? fx->lim[s] + step * fx->L[s] : pl->len[s];
    }
    return k == 0 ? 1 : 2;
}
