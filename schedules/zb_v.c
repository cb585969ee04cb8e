/*
 * zb_v.c — ZB-V (Qi et al., "Pipeline Parallelism with Controllable Memory",
 * NeurIPS 2024; the V schedule of sail-sg/zero-bubble-pipeline-parallelism).
 * The model is cut into 2p chunks; stage s holds chunk 0 = virtual stage s
 * and chunk 1 = virtual stage 2p-1-s, so a microbatch goes down the stages
 * and back up, and both its first forward and its last backward are on
 * stage 0. B and W are split.
 *
 * Like the reference implementation, the order is built by a greedy fill in
 * unit time (chunk F = B = W = 1, no p2p): whenever a stage is free it runs
 *   1. a ready B (oldest microbatch first),
 *   2. else a ready F — chunk 1 first; chunk 0 only while fewer than
 *      2(p-s)-1 of its chunk-0 forwards wait for their chunk-1 forward —
 *      if fewer than 2p chunk activations are held (p whole-stage ones, the
 *      memory of 1F1B's stage 0),
 *   3. else the oldest owed W.
 * The orders are then fixed; the simulator replays them for any F, B, W.
 * Activations held and bubble: see inflight and bubble_s.
 */
#include "schedules/util.h"

#include <stdlib.h>

typedef struct {
    int nf[2], nb[2], whead, wtail, held, out0, n;
    int *wq; /* W owed: chunk * m + mb */
} vstate;

/* Builds all p orders; stage `want` is copied to out. Returns its count. */
static int build(int p, int m, int want, cx_sched_item *out, int cap)
{
    int nvs = 2 * p, ret = -1, cap_chunks = 2 * p;
    long *ef = malloc((size_t)m * (size_t)nvs * sizeof *ef);
    long *eb = malloc((size_t)m * (size_t)nvs * sizeof *eb);
    vstate *st = calloc((size_t)p, sizeof *st);
    int *wq = malloc((size_t)p * 2 * (size_t)m * sizeof *wq);
    if (!ef || !eb || !st || !wq) goto out;
    for (size_t i = 0; i < (size_t)m * (size_t)nvs; i++) ef[i] = eb[i] = -1;
    for (int s = 0; s < p; s++) st[s].wq = wq + (size_t)s * 2 * (size_t)m;
    long left = (long)p * 6 * m;
    for (long t = 0; left > 0; t++) {
        int idle_all = 1;
        for (int s = 0; s < p; s++) {
            vstate *x = &st[s];
            int kind = -1, chunk = 0, mb = 0;
            /* 1. B, oldest microbatch first */
            for (int c = 0; c < 2; c++) {
                int j = x->nb[c], k = c == 0 ? s : nvs - 1 - s;
                if (j >= m) continue;
                long rf = ef[(size_t)j * nvs + k];
                if (rf < 0 || rf > t) continue;
                if (k < nvs - 1) {
                    long rb = eb[(size_t)j * nvs + k + 1];
                    if (rb < 0 || rb > t) continue;
                }
                if (kind < 0 || j < mb) kind = CX_WORK_B, chunk = c, mb = j;
            }
            /* 2. F, chunk 1 first, under the memory cap */
            for (int c = 1; kind < 0 && c >= 0; c--) {
                int j = x->nf[c], k = c == 0 ? s : nvs - 1 - s;
                if (j >= m || x->held >= cap_chunks) continue;
                if (c == 0 && x->out0 >= 2 * (p - s) - 1) continue;
                if (k > 0) {
                    long rf = ef[(size_t)j * nvs + k - 1];
                    if (rf < 0 || rf > t) continue;
                }
                kind = CX_WORK_F, chunk = c, mb = j;
            }
            /* 3. the oldest owed W */
            if (kind < 0 && x->whead < x->wtail) {
                int q = x->wq[x->whead++];
                kind = CX_WORK_W, chunk = q / m, mb = q % m;
            }
            if (kind < 0) continue;
            idle_all = 0;
            int k = chunk == 0 ? s : nvs - 1 - s;
            if (kind == CX_WORK_F) {
                ef[(size_t)mb * nvs + k] = t + 1;
                x->nf[chunk]++, x->held++;
                x->out0 += chunk == 0 ? 1 : -1;
            } else if (kind == CX_WORK_B) {
                eb[(size_t)mb * nvs + k] = t + 1;
                x->nb[chunk]++;
                x->wq[x->wtail++] = chunk * m + mb;
            } else {
                x->held--;
            }
            left--;
            if (s == want && cx_sched_push(out, cap, &x->n, kind, chunk, mb)) goto out;
            if (s != want) x->n++;
        }
        /* nothing started while every earlier item has ended: stuck for good */
        if (idle_all) goto out;
    }
    ret = st[want].n;
out:
    free(ef), free(eb), free(st), free(wq);
    return ret;
}

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    (void)v;
    if (p < 1 || m < 1 || stage < 0 || stage >= p) return -1;
    return build(p, m, stage, out, cap);
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)m, (void)v;
    return (p - 1) * (f_s + b_s + w_s) / 6; /* placeholder */
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v, (void)stage;
    return cx_sched_imin(p, m);
}

const cx_sched_desc cx_sched_zb_v = {
    .name = "zb-v",
    .id = CULONX_SCHED_ZB_V,
    .splits_bw = 1,
    .chunks = cx_sched_chunks_two,
    .vstage = cx_sched_vstage_v,
    .order = order,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .weight_copies = 1,
    .p2p_factor = 1.0, /* x chunks = 2 */
};
