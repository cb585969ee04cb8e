/*
 * replay_prog.c — the replay's orders compiled into a straight-line program.
 * The play engine (schedules/play.h) plays an item as soon as its
 * dependency token exists; which tokens exist depends on the items played,
 * never on their times, so the sequence of (stage, item) it plays is a
 * function of the orders alone. The first play of a set of orders runs the
 * engine with the replay's timing rule (replay_step.h) and records that
 * sequence; it becomes a program of instructions (token read, tokens
 * written, stage, duration slot, send flag). Later plays of the same orders
 * (a sweep replays one (schedule, p, m, v) for every recompute mode,
 * sequence parallelism, clock, ...) run the program: per item
 *     start = max(free[s], tok[dep]), end = start + dur,
 *     send: out = pp[s] = max(end, pp[s]) + p2p, free[s] = overlap ? end : out
 * with the engine's operations in the engine's order, so the results are
 * bit-identical, without the worklist's dependency checks and revisits
 * (about 5x fewer instructions per item). Memory: 16 bytes per item and 24
 * per (microbatch, virtual stage) cell; orders above MAX_ITEMS items always
 * use the engine.
 * Jump (issue 13): where the schedule's steady period is c >= 2
 * microbatches (interleaved), the program is reordered by (level, stage)
 * (same bits, periodic where the dependency graph is: P = n c / m
 * instructions, cell slots + c microbatches); once one period moves the
 * whole live state (stage free, PP free, last end, tokens written before
 * the boundary and read after it) by one shift lam (to 1e-13 of the time),
 * max-plus homogeneity makes every later period the last + lam, and q
 * periods are inserted at once: cost warm-up + cool-down, not m.
 * bench/fast_agree.c holds it to the full replay.
 * See core/README.md, "Closed form" (replayed schedules, "Program jump").
 */
#include "core/eval/replay_prog.h"
#include "core/eval/cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS (2 * 1024 * 1024)
#define SEND_BIT 0x8000u

typedef struct {
    int32_t dep, done, out; /* token slots: read, written (end, output) */
    uint16_t stage, di;     /* di: vs * 4 + kind, SEND_BIT for a send */
} ins;

struct cx_replay_prog {
    /* the orders compiled: key of the engine's orders */
    const cx_sched_desc *sd;
    int p, m, v, have;
    ins *prog;
    size_t n, prog_cap;
    int32_t *seq; /* recording: (stage, pos) pairs */
    size_t seq_cap, nseq;
    double *tok; /* [3 * cells + 2]: f_out, b_out, b_done of each cell, 0, scratch */
    size_t tok_cap;
    uint16_t last_di[CX_COST_MAX_STAGES]; /* each stage's last item */
    /* the jump (see jump_scan): instructions [ra, re) repeat with period P
     * instructions, slots + shift, from ra + P on; wr: writer of each
     * instruction's dep slot (-1: the zero slot); gap: the longest
     * distance from a writer to its reader in the region */
    int32_t *wr;
    size_t wr_cap, ra, re, P, gap;
    int32_t shift;
    int jump_ok, jumped;                 /* jumped: the last run did */
    uint8_t sends[CX_COST_MAX_STAGES];   /* stage sends within a period */
    double dur[4 * CX_COST_MAX_VSTAGES]; /* per (vs, kind) */
    double free_s[CX_COST_MAX_STAGES], pp_s[CX_COST_MAX_STAGES], end_s[CX_COST_MAX_STAGES];
};

cx_replay_prog *cx_core_replay_prog_new(void)
{
    return calloc(1, sizeof(cx_replay_prog));
}

void cx_core_replay_prog_free(cx_replay_prog *pr)
{
    if (!pr) return;
    free(pr->prog);
    free(pr->seq);
    free(pr->tok);
    free(pr->wr);
    free(pr);
}

static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    free(*buf);
    *buf = malloc(n * sz);
    *cap = *buf ? n : 0;
    return *buf ? 0 : -1;
}

typedef struct {
    const cx_replay_timing *tm;
    int32_t *seq;
    size_t n;
} recorder;

CX_PLAY_STEP void record_step(void *ctx, const cx_play_step *st, cx_play_token *done,
                              cx_play_token *out)
{
    recorder *rc = ctx;
    rc->seq[2 * rc->n] = st->stage, rc->seq[2 * rc->n + 1] = st->pos;
    rc->n++;
    cx_replay_step_time((void *)rc->tm, st, done, out);
}

/* Reorders the program by (level, stage), level the item's depth in the
 * dependency graph (1 + the deeper of its stage predecessor and its token's
 * writer): every item still follows what it reads and each stage keeps its
 * order, so every item computes exactly what it did (bit-identical), but
 * the order is a function of the dependency graph alone, periodic where the
 * graph is (the engine's worklist order need not be): what the jump needs.
 * Leaves the engine's order when out of memory. */
static void level_order(cx_replay_prog *pr, int p, size_t nslot)
{
    const size_t n = pr->n;
    int32_t *lev = malloc(n * sizeof *lev), *slot = calloc(nslot, sizeof *slot);
    int32_t last[CX_COST_MAX_STAGES] = {0}, top = 0;
    ins *tmp = NULL;
    int32_t *at = NULL;
    if (!lev || !slot) goto out;
    for (size_t i = 0; i < n; i++) {
        const ins *x = &pr->prog[i];
        int32_t l = last[x->stage];
        if (slot[x->dep] > l) l = slot[x->dep];
        lev[i] = last[x->stage] = slot[x->done] = slot[x->out] = l + 1;
        if (l + 1 > top) top = l + 1;
    }
    const size_t nkey = ((size_t)top + 1) * (size_t)p;
    if (!(at = malloc(nkey * sizeof *at)) || !(tmp = malloc(n * sizeof *tmp))) goto out;
    memset(at, 0xff, nkey * sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[(size_t)lev[i] * (size_t)p + pr->prog[i].stage] = (int32_t)i;
    size_t k = 0;
    for (size_t j = 0; j < nkey; j++)
        if (at[j] >= 0) tmp[k++] = pr->prog[at[j]];
    if (k == n) memcpy(pr->prog, tmp, n * sizeof *tmp);
out:
    free(lev), free(slot), free(at), free(tmp);
}

/* The program of the recorded sequence. */
static void compile(cx_replay_prog *pr, const cx_play *pl)
{
    const int nvs = pl->nvs, nch = pl->nch;
    const size_t cap = (size_t)pl->cap, ncell = (size_t)pl->m * (size_t)nvs;
    const int32_t zero = (int32_t)(3 * ncell), scratch = zero + 1;
    for (size_t i = 0; i < pr->nseq; i++) {
        const int s = pr->seq[2 * i], pos = pr->seq[2 * i + 1];
        const cx_sched_item *it = &pl->items[(size_t)s * cap + (size_t)pos];
        const int vs = pl->vs_of[s * nch + it->chunk], kind = it->kind;
        const int32_t ci = (int32_t)((size_t)it->mb * (size_t)nvs + (size_t)vs);
        ins *x = &pr->prog[i];
        x->stage = (uint16_t)s;
        x->di = (uint16_t)(vs * 4 + kind);
        if (kind == CX_WORK_F) {
            x->dep = vs > 0 ? 3 * (ci - 1) : zero;
            x->done = scratch, x->out = 3 * ci;
            if (pl->send_f[vs]) x->di |= SEND_BIT;
        } else if (kind == CX_WORK_W) {
            x->dep = 3 * ci + 2;
            x->done = x->out = scratch;
        } else {
            x->dep = vs == nvs - 1 ? 3 * ci : 3 * (ci + 1) + 1;
            x->done = 3 * ci + 2, x->out = 3 * ci + 1;
            if (pl->send_b[vs]) x->di |= SEND_BIT;
        }
        pr->last_di[s] = x->di & (uint16_t)~SEND_BIT;
    }
    pr->n = pr->nseq;
    pr->sd = pl->sd, pr->p = pl->p, pr->m = pl->m, pr->v = pl->v;
    pr->have = 1;
}

/* 0: never jump (the reference, cx_core_replay_prog_set_jump) */
static int jump_on = 1;

void cx_core_replay_prog_set_jump(int on)
{
    jump_on = on != 0;
}

/* y is x with every cell slot + shift (the zero and scratch slots, >= zero,
 * stay). */
static int congruent(const ins *x, const ins *y, int32_t shift, int32_t zero)
{
    if (x->stage != y->stage || x->di != y->di) return 0;
    const int32_t a[3] = {x->dep, x->done, x->out}, b[3] = {y->dep, y->done, y->out};
    for (int k = 0; k < 3; k++)
        if (b[k] != (a[k] >= zero ? a[k] : a[k] + shift)) return 0;
    return 1;
}

/* Finds the program's periodic region (see the top comment, "Jump"): the
 * longest run of instructions i with prog[i + P] = prog[i] moved by c
 * microbatches (c: the schedule's steady period), each instruction's
 * writer, and the longest writer-to-reader distance from the region on. */
static void jump_scan(cx_replay_prog *pr, const cx_play *pl)
{
    int c, e;
    const cx_sched_desc *sd = pl->sd;
    const size_t n = pr->n, m = (size_t)pl->m, nvs = (size_t)pl->nvs;
    pr->jump_ok = 0;
    /* one stage: a plain sum, which schedules tie on exactly; the jump's
     * rounding would break such ties (tests/golden, schedules) */
    if (pl->p < 2) return;
    if (!sd->steady || !sd->steady(pl->p, pl->m, pl->v, &c, &e) || c < 1 || (size_t)c >= m ||
        (n * (size_t)c) % m || grow((void **)&pr->wr, &pr->wr_cap, n, sizeof *pr->wr))
        return;
    const size_t P = n * (size_t)c / m, nslot = 3 * m * nvs + 2;
    const int32_t zero = (int32_t)(3 * m * nvs), shift = (int32_t)(3 * (size_t)c * nvs);
    const ins *prog = pr->prog;
    size_t ra = 0, len = 0;
    for (size_t i = 0, run = 0; i + P < n; i++) {
        run = congruent(&prog[i], &prog[i + P], shift, zero) ? run + 1 : 0;
        if (run > len) len = run, ra = i + 1 - run;
    }
    if (len < 4 * P) return;
    int32_t *writer = malloc(nslot * sizeof *writer);
    if (!writer) return;
    for (size_t i = 0; i < n; i++)
        writer[prog[i].done] = writer[prog[i].out] = (int32_t)i;
    size_t gap = 0;
    for (size_t i = 0; i < n; i++) {
        pr->wr[i] = prog[i].dep >= zero ? -1 : writer[prog[i].dep];
        if (i >= ra && pr->wr[i] >= 0 && i - (size_t)pr->wr[i] > gap) gap = i - (size_t)pr->wr[i];
    }
    free(writer);
    int seen[CX_COST_MAX_STAGES] = {0};
    memset(pr->sends, 0, sizeof pr->sends);
    for (size_t i = ra; i < ra + P; i++) {
        seen[prog[i].stage] = 1;
        if (prog[i].di & SEND_BIT) pr->sends[prog[i].stage] = 1;
    }
    for (int s = 0; s < pl->p; s++)
        if (!seen[s]) return;
    pr->ra = ra, pr->re = ra + len + P, pr->P = P, pr->gap = gap, pr->shift = shift;
    /* room for a check and at least one period jumped; and a live window
     * (gap) of at most two periods: where tokens stay live over many periods
     * (the one-chunk families: gap ~ p periods of one microbatch) the whole
     * window must have settled, which the bench_sweep_bench space rarely
     * reaches, and the level order runs slower than the engine's (ZB-H2
     * sweep: 15.7k -> 13.4k evaluations/s) */
    pr->jump_ok = gap <= 2 * P && ra + 3 * P + 2 * gap < pr->re;
}

/* Plays instructions [from, to) (see the top comment). */
static inline void exec(cx_replay_prog *pr, size_t from, size_t to, double p2p, int overlap)
{
    double *const dur = pr->dur, *const free_s = pr->free_s, *const pp_s = pr->pp_s,
                  *const end_s = pr->end_s, *const tok = pr->tok;
    const ins *const prog = pr->prog;
    for (size_t i = from; i < to; i++) {
        const ins *x = &prog[i];
        const int s = x->stage;
        const double ready = tok[x->dep], fr = free_s[s];
        const double start = fr > ready ? fr : ready;
        const double end = start + dur[x->di & ~SEND_BIT];
        double out = end, nf = end;
        if (x->di & SEND_BIT) {
            const double pp = pp_s[s], ss = end > pp ? end : pp;
            out = pp_s[s] = ss + p2p;
            if (!overlap) nf = out;
        }
        free_s[s] = nf;
        end_s[s] = end;
        tok[x->done] = end;
        tok[x->out] = out;
    }
}

/* the most periods one jump inserts: the check's tolerance (1e-13 of the
 * time) times this stays below 1e-10 of the makespan */
#define MAX_JUMP 1000

/* Plays the periodic region from instruction b (jump_scan's region, b at
 * least ra + gap) period by period until the whole state that later
 * instructions read (stage free, PP free of the stages that send, the last
 * end, and every token written before the boundary and read after it)
 * advances by one and the same lam > 0 over a period (to 1e-13 of the
 * time); then inserts q periods at once (state + q lam). Returns the
 * instruction to go on from. */
static size_t jump(cx_replay_prog *pr, int p, size_t b, double p2p, int overlap)
{
    const size_t P = pr->P, gap = pr->gap, re = pr->re;
    const int32_t *const wr = pr->wr;
    const ins *const prog = pr->prog;
    double *const free_s = pr->free_s, *const pp_s = pr->pp_s, *const end_s = pr->end_s,
                  *const tok = pr->tok;
    double f1[CX_COST_MAX_STAGES], q1[CX_COST_MAX_STAGES], e1[CX_COST_MAX_STAGES];
    size_t skip = 1;
    while (b + 2 * P + gap < re) {
        memcpy(f1, free_s, (size_t)p * sizeof *f1);
        memcpy(q1, pp_s, (size_t)p * sizeof *q1);
        memcpy(e1, end_s, (size_t)p * sizeof *e1);
        const size_t b2 = b + P;
        exec(pr, b, b2, p2p, overlap);
        b = b2;
        double T = 0;
        for (int s = 0; s < p; s++) {
            if (free_s[s] > T) T = free_s[s];
            if (pp_s[s] > T) T = pp_s[s];
        }
        const double tol = 1e-13 * T, lam = free_s[0] - f1[0];
        int ok = lam > 0;
        for (int s = 0; s < p && ok; s++)
            ok = fabs(free_s[s] - f1[s] - lam) <= tol && fabs(end_s[s] - e1[s] - lam) <= tol &&
                 (!pr->sends[s] || fabs(pp_s[s] - q1[s] - lam) <= tol);
        for (size_t r = b2; r <= b2 + gap && ok; r++)
            if (wr[r] >= 0 && (size_t)wr[r] < b2) {
                const int32_t d = prog[r].dep;
                ok = fabs(tok[d] - tok[d - pr->shift] - lam) <= tol;
            }
        if (!ok) {
            /* not yet (or never, stages drifting apart): the next check
             * after twice as many periods, so that failing checks cost
             * O(log) of the play */
            const size_t to = b + skip * P;
            if (to + 2 * P + gap >= re) break;
            exec(pr, b, to, p2p, overlap);
            b = to, skip *= 2;
            continue;
        }
        size_t q = (re - 1 - gap - b2) / P;
        if (q > MAX_JUMP) q = MAX_JUMP;
        const size_t t = b2 + q * P;
        const double ql = (double)q * lam;
        const int32_t qs = (int32_t)q * pr->shift;
        for (size_t r = t; r <= t + gap; r++)
            if (wr[r] >= (int32_t)b2 && (size_t)wr[r] < t) {
                const int32_t d = prog[r].dep;
                tok[d] = tok[d - qs] + ql;
            }
        for (int s = 0; s < p; s++) {
            free_s[s] += ql, end_s[s] += ql;
            if (pr->sends[s]) pp_s[s] += ql;
        }
        return t;
    }
    return b;
}

/* Runs the program (see the top comment). */
static void run(cx_replay_prog *pr, cx_play *pl, const cx_replay_timing *tm)
{
    const int p = pl->p, nvs = pl->nvs;
    double *const dur = pr->dur, *const free_s = pr->free_s, *const pp_s = pr->pp_s,
                  *const end_s = pr->end_s;
    for (int vs = 0; vs < nvs; vs++)
        for (int k = 0; k < 4; k++) {
            double win;
            dur[vs * 4 + k] = cx_replay_dur(&tm->vi[vs], k, &win);
        }
    for (int s = 0; s < p; s++)
        free_s[s] = pp_s[s] = end_s[s] = 0.0;
    pr->tok[3 * (size_t)pl->m * (size_t)nvs] = 0.0;
    const double p2p = tm->p2p_s;
    const int overlap = tm->overlap;
    size_t i = 0;
    pr->jumped = 0;
    if (jump_on && pr->jump_ok) {
        i = pr->ra + pr->gap;
        exec(pr, 0, i, p2p, overlap);
        const size_t b = i;
        i = jump(pr, p, i, p2p, overlap);
        pr->jumped = i > b + pr->P;
    }
    exec(pr, i, pr->n, p2p, overlap);
    for (int s = 0; s < p; s++) {
        double *reg = pl->regs + (size_t)s * CX_PLAY_REGS, win;
        const int di = pr->last_di[s];
        reg[CX_R_FREE] = free_s[s];
        reg[CX_R_PP_FREE] = pp_s[s];
        reg[CX_R_LAST_END] = end_s[s];
        cx_replay_dur(&tm->vi[di / 4], di % 4, &win);
        reg[CX_R_LAST_ITEM] = win;
    }
}

int cx_core_replay_prog_jumped(const cx_replay_prog *pr)
{
    return pr->have && pr->jumped;
}

cx_sched_sim_status cx_core_replay_prog_run(cx_replay_prog *pr, cx_play *pl,
                                            const cx_replay_timing *tm)
{
    if (!pl->have_order) return CX_SCHED_SIM_UNSUPPORTED;
    if (pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v) {
        run(pr, pl, tm);
        return CX_SCHED_SIM_OK;
    }
    pr->have = 0, pr->jumped = 0, pr->jump_ok = 0;
    size_t items = 0;
    for (int s = 0; s < pl->p; s++)
        items += (size_t)pl->len[s];
    const size_t ncell = (size_t)pl->m * (size_t)pl->nvs;
    const int fits = items <= MAX_ITEMS && pl->p <= CX_COST_MAX_STAGES &&
                     pl->nvs <= CX_COST_MAX_VSTAGES && pl->nvs * 4 < (int)SEND_BIT &&
                     !grow((void **)&pr->seq, &pr->seq_cap, 2 * items, sizeof *pr->seq) &&
                     !grow((void **)&pr->prog, &pr->prog_cap, items, sizeof *pr->prog) &&
                     !grow((void **)&pr->tok, &pr->tok_cap, 3 * ncell + 2, sizeof *pr->tok);
    if (!fits) return cx_sched_play_run(pl, cx_replay_step_time, (void *)tm);
    recorder rc = {tm, pr->seq, 0};
    cx_sched_sim_status st = cx_sched_play_run(pl, record_step, &rc);
    if (st != CX_SCHED_SIM_OK || rc.n != items) return st;
    pr->nseq = rc.n;
    compile(pr, pl);
    /* level order where it makes the jump possible, else the engine's
     * (measured faster to run: ZB-H2 sweep 17%); both give the same bits.
     * Tried for steady periods of 2 or more microbatches only (interleaved:
     * one group): with one-microbatch periods (the one-chunk families)
     * tokens stay live over ~p periods, jump_scan refuses them (gap > 2P)
     * and the scan alone cost 8% of the ZB-H2 sweep */
    int c, e;
    if (pl->sd->steady && pl->sd->steady(pl->p, pl->m, pl->v, &c, &e) && c >= 2) {
        ins *engine = malloc(pr->n * sizeof *engine);
        if (engine) memcpy(engine, pr->prog, pr->n * sizeof *engine);
        level_order(pr, pl->p, 3 * ncell + 2);
        jump_scan(pr, pl);
        if (!pr->jump_ok && engine) memcpy(pr->prog, engine, pr->n * sizeof *engine);
        free(engine);
    }
    /* the result of every call is the program's, jumping or not, whether
     * or not this call compiled it (identical sweeps on any thread count) */
    if (pr->jump_ok && jump_on) run(pr, pl, tm);
    return CX_SCHED_SIM_OK;
}
