/*
 * zb_v.c — ZB-V (Qi et al., "Pipeline Parallelism with Controllable Memory",
 * NeurIPS 2024): the model is cut into 2p chunks; stage s holds chunk 0 =
 * virtual stage s and chunk 1 = virtual stage 2p-1-s (a V), B and W split,
 * and at most 2p chunk activations (p whole-stage ones, the memory of 1F1B's
 * stage 0) live on any stage.
 *
 * The paper's reference implementation builds ZB-V by a greedy fill for
 * measured F, B, W times; order() here has no times, so we use a fixed,
 * phase-structured V order (the phases of DeepSeek's DualPipeV, which is the
 * same V layout, with B and W split and each F placed after a free so the
 * memory cap holds). For stage r and m >= 2p microbatches (else -1):
 *   1  2(p-r-1) x F0            2  (r+1) x F0 F1
 *   3  (p-r-1) x B1 W F1        4  (m-2p+r+1) x B1 W F0 B0 W F1
 *   5  (p-r-1) x B1 W F1 B0 W   6  (r+1) x B1 B0  (their W deferred)
 *   7  (p-r-1) x W B0           8  the W still owed, oldest first
 * The W deferred in 6-8 fill the drain (the zero-bubble idea).
 *
 * Activations held: 2p chunks after phase 2 and never more: p on every
 * stage (exact, replay-checked in the tests).
 * Bubble, uniform stages, per-microbatch stage times F, B, W: independent of
 * m; see bubble_s for the form and where it is exact.
 * Formulas and paper: schedules/README.md, "ZB-V".
 */
#include "schedules/util.h"

typedef struct {
    cx_sched_item *out;
    int cap, n, err, whead, owed;
    int nf[2], nb[2];
} gen;

/* the capacity is checked once (order: 6 m items, an F, B and W per
 * microbatch and chunk) */
static void put(gen *g, int kind, int chunk, int mb)
{
    g->out[g->n++] = cx_sched_item_of(kind, chunk, mb);
}

static void fwd(gen *g, int c)
{
    put(g, CX_WORK_F, c, g->nf[c]++);
}

static void bwd(gen *g, int c)
{
    put(g, CX_WORK_B, c, g->nb[c]++);
    g->owed++;
}

/* the W of the oldest B whose W has not been issued */
static void wgt(gen *g)
{
    while (g->whead < g->n && g->out[g->whead].kind != CX_WORK_B)
        g->whead++;
    if (g->whead >= g->n) {
        g->err = 1;
        return;
    }
    int c = g->out[g->whead].chunk, mb = g->out[g->whead].mb;
    g->whead++;
    g->owed--;
    put(g, CX_WORK_W, c, mb);
}

/* bwd then wgt where no W is owed before the B (phases 3-5): the W is the
 * B's own, written without the search */
static void bwd_wgt(gen *g, int c)
{
    const int mb = g->nb[c];
    bwd(g, c);
    g->whead = g->n; /* every B before is done */
    g->owed--;
    put(g, CX_WORK_W, c, mb);
}

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    (void)v;
    if (p < 1 || m < 2 * p || stage < 0 || stage >= p || 6L * m > cap) return -1;
    gen g = {.out = out, .cap = cap};
    int r = stage, i;
    for (i = 0; i < 2 * (p - r - 1); i++)
        fwd(&g, 0);
    for (i = 0; i < r + 1; i++)
        fwd(&g, 0), fwd(&g, 1);
    /* 3-5: each W right after its B, none owed before it */
    for (i = 0; i < p - r - 1; i++)
        bwd_wgt(&g, 1), fwd(&g, 1);
    const int n4 = m - 2 * p + r + 1;
    if (n4 > 0 && g.n + 6L * n4 <= cap) {
        /* the steady state (most of the items), written straight: the
         * same items (orders are generated for every shape a sweep
         * replays), the B of chunk 0 last before whead */
        const cx_sched_item blk[6] = {
            cx_sched_item_of(CX_WORK_B, 1, g.nb[1]), cx_sched_item_of(CX_WORK_W, 1, g.nb[1]),
            cx_sched_item_of(CX_WORK_F, 0, g.nf[0]), cx_sched_item_of(CX_WORK_B, 0, g.nb[0]),
            cx_sched_item_of(CX_WORK_W, 0, g.nb[0]), cx_sched_item_of(CX_WORK_F, 1, g.nf[1])};
        cx_sched_repeat(out + g.n, blk, 6, n4);
        g.nb[0] += n4, g.nb[1] += n4, g.nf[0] += n4, g.nf[1] += n4;
        g.n += 6 * n4, g.whead = g.n - 2;
    } else {
        for (i = 0; i < n4; i++)
            bwd_wgt(&g, 1), fwd(&g, 0), bwd_wgt(&g, 0), fwd(&g, 1);
    }
    for (i = 0; i < p - r - 1; i++)
        bwd_wgt(&g, 1), fwd(&g, 1), bwd_wgt(&g, 0);
    for (i = 0; i < r + 1; i++)
        bwd(&g, 1), bwd(&g, 0);
    for (i = 0; i < p - r - 1; i++)
        wgt(&g), bwd(&g, 0);
    while (g.owed > 0 && !g.err)
        wgt(&g);
    /* every mb is a counter's (from 0 up) or a B's: in range (ranged) */
    if (g.nf[0] > m || g.nf[1] > m || g.nb[0] > m || g.nb[1] > m) return -1;
    return g.err ? -1 : g.n;
}

/* Uniform stages. F = B = W: (p + 1) F / 2 for p >= 2 (0 for p = 1), from
 * the order (chunk times F/2: the last stage starts (p-1)F/2 late and the
 * drain adds F). Other F, B, W: the bubble of this order does not depend on
 * m (m >= 2p; tests check it) but is not a small max of linear forms, so it
 * is computed exactly by playing the orders once at m = 2p: O(p^2) work. */
static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)m, (void)v;
    if (p < 1) return 0.0;
    if (f_s == b_s && b_s == w_s) return p > 1 ? (p + 1) * f_s / 2 : 0.0;
    return cx_sched_played_bubble(&cx_sched_zb_v, p, f_s, b_s, w_s);
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v, (void)stage;
    return m < 2 * p ? 0.0 : p;
}

const cx_sched_desc cx_sched_zb_v = {
    .name = "zb-v",
    .splits_bw = 1,
    .chunks = cx_sched_chunks_two,
    .vstage = cx_sched_vstage_v,
    .order = order,
    .ranged = 1,
    .steady = cx_sched_steady_v,
    .supports = cx_sched_supports_v_shape,
    .min_microbatches = cx_sched_min_mb_2p,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .weight_copies = 1,
    .p2p_factor = 1.0, /* x chunks = 2 */
};
