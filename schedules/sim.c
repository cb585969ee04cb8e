/*
 * sim.c — reference simulator of pipeline schedules: plays each stage's
 * order (strictly in order, one item at a time, as soon as possible) under
 * the dependencies of the virtual-stage chain and reports the makespan and
 * per-stage busy time. It is the ground truth the closed forms
 * (bubble_s, inflight) of every schedule are tested against.
 *
 *   start(item) = max(end of the previous item on the stage, ready(item))
 *   ready(F(mb,k))  = end F(mb,k-1) [+ p2p if another stage], 0 for k = 0
 *   ready(B(mb,k))  = end B|BW(mb,k+1) [+ p2p]  (k < last; it follows F(mb,k))
 *                   = end F(mb,k)                (k = last)
 *   ready(W(mb,k))  = end B(mb,k)
 *   bubble = makespan - busy (per stage; equal on all stages when uniform)
 * Items run for f_s, b_s, w_s (b_s + w_s for fused BW) divided by chunks.
 * The dependency rules and the deadlock check are the play engine's
 * (schedules/play.c); this file gives it uniform durations and adds p2p_s
 * to the output of an item whose consumer is on another stage.
 * Rules and what the tests check: schedules/README.md, "How the formulas are held
 * to the orders".
 */
#include "schedules/play.h"

#include <stdlib.h>

double cx_sched_replay_peak(const cx_sched_item *items, int n, int chunks)
{
    long held = 0, peak = 0;
    for (int i = 0; i < n; i++) {
        if (items[i].kind == CX_WORK_F) {
            if (++held > peak) peak = held;
        } else if (items[i].kind == CX_WORK_W || items[i].kind == CX_WORK_BW) {
            held--;
        }
    }
    return (double)peak / (double)chunks;
}

typedef struct {
    double dur[4]; /* per item kind */
    double p2p_s;
} simctx;

/* uniform durations; a cross-stage output arrives p2p_s after the item */
CX_PLAY_STEP void sim_step(void *ctx, const cx_play_step *st, cx_play_token *done,
                           cx_play_token *out)
{
    const simctx *x = ctx;
    double ready = st->dep ? st->dep->t : 0.0; /* register 0: the stage is free */
    double start = st->reg[0] > ready ? st->reg[0] : ready;
    double end = start + x->dur[st->kind];
    st->reg[0] = end;
    done->t = end;
    out->t = st->send ? end + x->p2p_s : end;
}

cx_sched_sim_status cx_sched_simulate(const cx_sched_desc *d, int p, int m, int v, double f_s,
                                      double b_s, double w_s, double p2p_s, double *makespan_s,
                                      double *busy_s)
{
    if (!d || p < 1 || m < 1 || v < 1) return CX_SCHED_SIM_UNSUPPORTED;
    cx_play *pl = cx_sched_play_new();
    cx_sched_sim_status st = pl ? cx_sched_play_orders(pl, d, p, m, v, 1) : CX_SCHED_SIM_NOMEM;
    const int nch = d->chunks(v);
    simctx x = {{f_s / nch, b_s / nch, w_s / nch, (b_s + w_s) / nch}, p2p_s};
    if (st == CX_SCHED_SIM_OK) st = cx_sched_play_run(pl, sim_step, &x);
    if (st == CX_SCHED_SIM_OK) {
        double mk = 0.0;
        for (int s = 0; s < p; s++)
            mk = cx_sched_play_regs(pl, s)[0] > mk ? cx_sched_play_regs(pl, s)[0] : mk;
        if (makespan_s) *makespan_s = mk;
        if (busy_s)
            for (int s = 0; s < p; s++) {
                int n;
                const cx_sched_item *it = cx_sched_play_items(pl, s, &n);
                double b = 0.0;
                for (int i = 0; i < n; i++)
                    b += x.dur[it[i].kind];
                busy_s[s] = b;
            }
    }
    cx_sched_play_free(pl);
    return st;
}
