/*
 * dualpipev.c — DualPipeV, the "cut-in-half" V variant of DeepSeek's
 * DualPipe (DeepSeek-V3 technical report, 2024; deepseek-ai/DualPipe,
 * dualpipev.py). The model is cut into 2p chunks; stage r holds chunk 0 =
 * virtual stage r and chunk 1 = virtual stage 2p-1-r, so one weight copy.
 *
 * The order transcribes DualPipeV.step for rank r (m >= 2p microbatches,
 * chunk-level F, fused backward BW, or split B + W where DualPipe enables
 * zero-bubble, its WeightGradStore being a FIFO of W):
 *   1  2(p-r-1) x F0            2  (r+1) x F0 F1
 *   3  (p-r-1) x B1 W F1        4  (m-2p+r+1) x F0 BW1 F1 BW0
 *   5  (p-r-1) x BW1 F1 BW0     6  (r+1) x B1 B0 (BW until half-way, then B)
 *   7  (p-r-1) x W B0           8  (r+1) x W
 * What is modelled: DualPipe overlaps the F of one microbatch with the B of
 * another ("F&B") to hide all-to-all and p2p communication; here such a pair
 * is two consecutive items, F first (compute times add up: the overlap hides
 * communication, not compute, and F first is the conservative memory order).
 * MoE all-to-all is not modelled here.
 *
 * Activations held (chunk = 1/2 of the stage): 2p chunks after step 2, one
 * more at step 4's first F0, never more: (2p + 1)/2 = p + 1/2 on every stage.
 * Bubble, uniform stages, per-microbatch stage times F, B, W: see bubble_s.
 * Formulas and paper: schedules/README.md, "DualPipeV".
 */
#include "schedules/util.h"

typedef struct {
    cx_sched_item *out;
    int cap, n, err;
    int nf[2], nb[2];
    int whead; /* index into out of the oldest B whose W is owed */
} gen;

/* the capacity is checked once (order: at most 6 m items, an F and a BW
 * or B and W per microbatch and chunk) */
static void put(gen *g, int kind, int chunk, int mb)
{
    g->out[g->n++] = cx_sched_item_of(kind, chunk, mb);
}

static void fwd(gen *g, int c)
{
    put(g, CX_WORK_F, c, g->nf[c]++);
}

static void bwd(gen *g, int c, int zb)
{
    put(g, zb ? CX_WORK_B : CX_WORK_BW, c, g->nb[c]++);
}

/* the oldest split B whose W has not been issued (W are issued in B order) */
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
    for (i = 0; i < p - r - 1; i++)
        bwd(&g, 1, 1), wgt(&g), fwd(&g, 1);
    const int n4 = m - 2 * p + r + 1;
    if (n4 > 0 && g.n + 4L * n4 <= cap) {
        /* the steady state (most of the items), written straight: the
         * same items (orders are generated for every shape a sweep
         * replays) */
        const cx_sched_item blk[4] = {
            cx_sched_item_of(CX_WORK_F, 0, g.nf[0]), cx_sched_item_of(CX_WORK_BW, 1, g.nb[1]),
            cx_sched_item_of(CX_WORK_F, 1, g.nf[1]), cx_sched_item_of(CX_WORK_BW, 0, g.nb[0])};
        cx_sched_repeat(out + g.n, blk, 4, n4);
        g.nb[0] += n4, g.nb[1] += n4, g.nf[0] += n4, g.nf[1] += n4;
        g.n += 4 * n4;
    } else {
        for (i = 0; i < n4; i++)
            fwd(&g, 0), bwd(&g, 1, 0), fwd(&g, 1), bwd(&g, 0, 0);
    }
    for (i = 0; i < p - r - 1; i++)
        bwd(&g, 1, 0), fwd(&g, 1), bwd(&g, 0, 0);
    /* no split B owed here (step 3 issued each W, 4-5 fused): the W search
     * starts at step 6, not across the steady state */
    g.whead = g.n;
    int zb = 0, s6 = r + 1;
    for (i = 0; i < s6; i++) {
        if (i == s6 / 2 && r % 2 == 1) zb = 1;
        bwd(&g, 1, zb);
        if (i == s6 / 2 && r % 2 == 0) zb = 1;
        bwd(&g, 0, zb);
    }
    for (i = 0; i < p - r - 1; i++)
        wgt(&g), bwd(&g, 0, 1);
    for (i = 0; i < r + 1; i++)
        wgt(&g);
    /* every mb is a counter's (from 0 up) or a B's: in range (ranged) */
    if (g.nf[0] > m || g.nf[1] > m || g.nb[0] > m || g.nb[1] > m) return -1;
    return g.err ? -1 : g.n;
}

/* Uniform stages. F = B = W: (p - 1) F / 2 — only the fill of the V (the
 * last stage starts (p-1) chunk forwards, (p-1)F/2, late) — exact. Other
 * F, B, W: the bubble does not depend on m (m >= 2p; tests check it) but is
 * not a small max of linear forms, so it is computed exactly by playing the
 * orders once at m = 2p: O(p^2) work. DeepSeek's (p/2-1)(F&B + B - 3W) is for
 * the two-direction DualPipe, which this V variant does not model. */
static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    (void)m, (void)v;
    if (p < 1) return 0.0;
    if (f_s == b_s && b_s == w_s) return (p - 1) * f_s / 2;
    return cx_sched_played_bubble(&cx_sched_dualpipev, p, f_s, b_s, w_s);
}

static double inflight(int p, int m, int v, int stage)
{
    (void)v, (void)stage;
    if (m < 2 * p) return 0.0;
    return p + 0.5;
}

const cx_sched_desc cx_sched_dualpipev = {
    .name = "dualpipev",
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
