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
 * See core/README.md, "Closed form" (replayed schedules).
 */
#include "core/eval/replay_prog.h"
#include "core/eval/cost.h"

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
    double dur[4 * CX_COST_MAX_VSTAGES];  /* per (vs, kind) */
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
    double *const tok = pr->tok;
    tok[3 * (size_t)pl->m * (size_t)nvs] = 0.0;
    const double p2p = tm->p2p_s;
    const int overlap = tm->overlap;
    const ins *const prog = pr->prog;
    for (size_t i = 0, n = pr->n; i < n; i++) {
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

cx_sched_sim_status cx_core_replay_prog_run(cx_replay_prog *pr, cx_play *pl,
                                            const cx_replay_timing *tm)
{
    if (!pl->have_order) return CX_SCHED_SIM_UNSUPPORTED;
    if (pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v) {
        run(pr, pl, tm);
        return CX_SCHED_SIM_OK;
    }
    pr->have = 0;
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
    return CX_SCHED_SIM_OK;
}
