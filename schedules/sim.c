/*
 * sim.c — reference simulator of pipeline schedules: plays each stage's
 * order (strictly in order, one item at a time, as soon as possible) under
 * the dependencies of the virtual-stage chain and reports the makespan and
 * per-stage busy time. It is the ground truth the closed forms
 * (bubble_s, inflight) of every schedule are tested against.
 *
 *   start(item) = max(end of the previous item on the stage, ready(item))
 *   ready(F(mb,k))  = end F(mb,k-1) [+ p2p if another stage], 0 for k = 0
 *   ready(B(mb,k))  = max(end F(mb,k), end B|BW(mb,k+1) [+ p2p])  (k < last)
 *   ready(W(mb,k))  = end B(mb,k)
 *   bubble = makespan - busy (per stage; equal on all stages when uniform)
 * Items run for f_s, b_s, w_s (b_s + w_s for fused BW) divided by chunks.
 * A pass over all stages that starts nothing while work remains is a
 * deadlock and is reported, never waited on.
 * Rules and what the tests check: schedules/README.md, "How the formulas are held
 * to the orders".
 */
#include "schedules/sched.h"

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
    double f, g, b, w; /* end of F, of the gradient to pass down, of B, of W; <0: not yet */
    int stage;
} cell;

cx_sched_sim_status cx_sched_simulate(const cx_sched_desc *d, int p, int m, int v, double f_s,
                                      double b_s, double w_s, double p2p_s, double *makespan_s,
                                      double *busy_s)
{
    cx_sched_sim_status st = CX_SCHED_SIM_OK;
    if (!d || p < 1 || m < 1 || v < 1) return CX_SCHED_SIM_UNSUPPORTED;
    int nch = d->chunks(v), nvs = p * nch, cap = 3 * m * nch;
    cx_sched_item **ord = calloc((size_t)p, sizeof *ord);
    int *len = calloc((size_t)p, sizeof *len), *pos = calloc((size_t)p, sizeof *pos);
    int *stof = malloc((size_t)nvs * sizeof *stof);
    double *free_at = calloc((size_t)p, sizeof *free_at);
    cell *c = malloc((size_t)m * (size_t)nvs * sizeof *c);
    unsigned char *cnt = calloc((size_t)m * (size_t)nvs * 4, 1);
    if (!ord || !len || !pos || !stof || !free_at || !c || !cnt) {
        st = CX_SCHED_SIM_NOMEM;
        goto out;
    }
    /* stage and chunk -> virtual stage must be a bijection */
    for (int k = 0; k < nvs; k++)
        stof[k] = -1;
    for (int s = 0; s < p; s++)
        for (int ch = 0; ch < nch; ch++) {
            int k = d->vstage(p, v, s, ch);
            if (k < 0 || k >= nvs || stof[k] >= 0) {
                st = CX_SCHED_SIM_BAD_ORDER;
                goto out;
            }
            stof[k] = s;
        }
    long total = 0;
    for (int s = 0; s < p; s++) {
        if (!(ord[s] = malloc((size_t)cap * sizeof *ord[s]))) {
            st = CX_SCHED_SIM_NOMEM;
            goto out;
        }
        len[s] = d->order(p, m, v, s, ord[s], cap);
        if (len[s] < 0) {
            st = CX_SCHED_SIM_UNSUPPORTED;
            goto out;
        }
        for (int i = 0; i < len[s]; i++) {
            const cx_sched_item *it = &ord[s][i];
            if (it->chunk >= nch || it->mb < 0 || it->mb >= m || it->kind > CX_WORK_BW) {
                st = CX_SCHED_SIM_BAD_ORDER;
                goto out;
            }
            int k = d->vstage(p, v, s, it->chunk);
            cnt[((size_t)it->mb * (size_t)nvs + (size_t)k) * 4 + it->kind]++;
        }
        total += len[s];
    }
    for (size_t i = 0; i < (size_t)m * (size_t)nvs; i++) {
        const unsigned char *q = &cnt[i * 4];
        int split = q[CX_WORK_B] == 1 && q[CX_WORK_W] == 1 && q[CX_WORK_BW] == 0;
        int fused = q[CX_WORK_B] == 0 && q[CX_WORK_W] == 0 && q[CX_WORK_BW] == 1;
        if (q[CX_WORK_F] != 1 || !(split || fused)) {
            st = CX_SCHED_SIM_BAD_ORDER;
            goto out;
        }
        c[i].f = c[i].g = c[i].b = c[i].w = -1.0;
        c[i].stage = stof[i % (size_t)nvs];
    }
    const double dur[4] = {f_s / nch, b_s / nch, w_s / nch, (b_s + w_s) / nch};
    while (total > 0) {
        long progress = 0;
        for (int s = 0; s < p; s++) {
            while (pos[s] < len[s]) {
                const cx_sched_item *it = &ord[s][pos[s]];
                int k = d->vstage(p, v, s, it->chunk);
                cell *x = &c[(size_t)it->mb * (size_t)nvs + (size_t)k];
                double ready = 0.0;
                if (it->kind == CX_WORK_F) {
                    if (k > 0) {
                        const cell *y = x - 1;
                        if (y->f < 0) break;
                        ready = y->f + (y->stage != s ? p2p_s : 0.0);
                    }
                } else if (it->kind == CX_WORK_W) {
                    if (x->b < 0) break;
                    ready = x->b;
                } else {
                    if (x->f < 0) break;
                    ready = x->f;
                    if (k < nvs - 1) {
                        const cell *y = x + 1;
                        if (y->g < 0) break;
                        double r = y->g + (y->stage != s ? p2p_s : 0.0);
                        if (r > ready) ready = r;
                    }
                }
                double start = free_at[s] > ready ? free_at[s] : ready;
                double end = start + dur[it->kind];
                switch (it->kind) {
                case CX_WORK_F:
                    x->f = end;
                    break;
                case CX_WORK_B:
                    x->g = x->b = end;
                    break;
                case CX_WORK_W:
                    x->w = end;
                    break;
                default:
                    x->g = x->b = x->w = end;
                    break;
                }
                free_at[s] = end;
                pos[s]++;
                total--;
                progress++;
            }
        }
        if (!progress) {
            st = CX_SCHED_SIM_DEADLOCK;
            goto out;
        }
    }
    double mk = 0.0;
    for (int s = 0; s < p; s++)
        mk = free_at[s] > mk ? free_at[s] : mk;
    if (makespan_s) *makespan_s = mk;
    if (busy_s)
        for (int s = 0; s < p; s++) {
            double b = 0.0;
            for (int i = 0; i < len[s]; i++)
                b += dur[ord[s][i].kind];
            busy_s[s] = b;
        }
out:
    if (ord)
        for (int s = 0; s < p; s++)
            free(ord[s]);
    free(ord), free(len), free(pos), free(stof), free(free_at), free(c), free(cnt);
    return st;
}
