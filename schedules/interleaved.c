/*
 * interleaved.c — interleaved 1F1B (Narayanan et al., SC'21), as Megatron-
 * Core's forward_backward_pipelining_with_interleaving runs it: stage r holds
 * v chunks, chunk c being virtual stage c*p + r; B and W fused (BW).
 *
 * The m*v "virtual microbatches" of a stage follow Megatron-Core's schedule
 * table (get_schedule_table): microbatches in groups of N
 * (microbatch_group_size_per_vp_stage); a group runs through chunk 0, then
 * chunk 1, ..., then chunk v-1; the last group holds what remains. Backward k
 * uses entry k with the chunk reversed (v-1-c). Warm-up forwards on stage r:
 *     nw = 2(p-1-r) + (v-1)N,  capped at m*v;  nw = m*v when m == p
 * then "forward k+nw, backward k" pairs, then the remaining backwards.
 * Microbatch counts: older Megatron required p | m (N = p). Newer Megatron
 * accepts m >= p but raises unless m mod N == 0 or m mod N >= p, N default p;
 * we use the smallest valid N >= p (N = p when p divides m, at worst N = m),
 * which changes the warm-up through (v-1)N. m < p: -1. v = 1: plain 1F1B.
 *
 * Activations held on stage r (each chunk 1/v of the stage), exact:
 *     min(nw + 1, m v) / v        (m when m == p)
 * stage 0, p | m, m > p: (2p - 2 + (v-1)p + 1)/v = p (1 + (p-1)/(p v)),
 * Megatron's (Korthikanti et al. 2022) figure.
 * Bubble, uniform stages, per-microbatch stage times F, B, W, any m >= p
 * with the N above:  (p-1)(F+B+W)/v, exact (checked against the simulator).
 * Formulas and paper: schedules/README.md, "Interleaved 1F1B".
 */
#include "schedules/util.h"

static int chunks(int v_requested)
{
    return v_requested < 1 ? 1 : v_requested;
}

static int vstage(int p, int v, int stage, int chunk)
{
    (void)v;
    return chunk * p + stage;
}

/* Megatron's microbatch_group_size_per_vp_stage N: it must leave a last
 * group of 0 or >= p microbatches (m mod N == 0 or m mod N >= p, else
 * Megatron raises "... introduces dependency bubbles"); the default is p. We
 * take the smallest valid N >= p (N = p when p divides m; at worst N = m). */
static int group(int p, int m)
{
    int n = p;
    while (n < m && m % n != 0 && m % n < p)
        n++;
    return n;
}

/* k-th entry of the schedule table (groups of n = group(p, m), found once
 * per order): microbatch and chunk */
static void table(int n, int m, int v, int k, int *mb, int *chunk)
{
    /* groups of n; the last one starts at the first multiple of n with
     * start + n >= m and holds the rest */
    int full = ((m - 1) / n) * n;
    if (k < full * v) {
        int g = k / (n * v), in = k % (n * v);
        *mb = g * n + in % n;
        *chunk = in / n;
    } else {
        int rest = m - full, in = k - full * v;
        *mb = full + in % rest;
        *chunk = in / rest;
    }
}

/* A walk through the table from entry k on, one entry per step: table()'s
 * microbatch and chunk without its divisions (orders are generated for
 * every shape a sweep replays) */
typedef struct {
    int n, v, full, rest, k, w, base, in, ch;
} walk;

static walk walk_at(int n, int m, int v, int k)
{
    walk x = {n, v, ((m - 1) / n) * n, 0, k, n, 0, 0, 0};
    x.rest = m - x.full;
    int mb;
    table(n, m, v, k, &mb, &x.ch);
    if (k >= x.full * v)
        x.w = x.rest, x.base = x.full;
    else
        x.base = (k / (n * v)) * n;
    x.in = mb - x.base;
    return x;
}

static long warmup(int p, int m, int v, int stage, int n)
{
    long total = (long)m * v, nw = 2L * (p - 1 - stage) + (long)(v - 1) * n;
    if (m == p || nw > total) nw = total;
    return nw;
}

/* Walk x moved past r entries, r at most its block's rest (emit's step) */
static void walk_on(walk *x, int r)
{
    x->k += r, x->in += r;
    if (x->in < x->w) return;
    x->in = 0;
    if (x->k == x->full * x->v)
        x->w = x->rest, x->base = x->full, x->ch = 0;
    else if (++x->ch == x->v)
        x->ch = 0, x->base += x->n;
}

/* Table entries x->k .. x->k + cnt - 1 from walk x on (x moved past them),
 * entry i at o[i st] as an item of kind, its chunk reversed (v - 1 - c)
 * where rev: a block of the walk (one chunk of a group) at a time, its
 * microbatches consecutive, so one store and two adds per item (orders
 * are generated for every shape a sweep replays) */
static void emit(walk *x, int cnt, cx_sched_item *o, ptrdiff_t st, int kind, int rev)
{
    while (cnt > 0) {
        int r = x->w - x->in;
        if (r > cnt) r = cnt;
        cx_sched_item it = {0};
        it.kind = (uint8_t)kind, it.chunk = (uint8_t)(rev ? x->v - 1 - x->ch : x->ch);
        it.mb = x->base + x->in;
        cx_sched_run(o, st, it, r);
        o += r * st;
        cnt -= r;
        walk_on(x, r);
        if (x->in) break; /* inside the block (r >= 1); else the block ended */
    }
}

/* The middle of an order: cnt pairs, a forward from walk f then a fused
 * backward from walk b (its chunk reversed), at o; the same items as
 * emit(f, cnt, o, 2, F, 0) and emit(b, cnt, o + 1, 2, BW, 1), written a
 * pair a store where neither walk ends a block (cx_sched_pairs) */
static void emit_pairs(walk *f, walk *b, int cnt, cx_sched_item *o)
{
    while (cnt > 0) {
        int r = f->w - f->in;
        if (b->w - b->in < r) r = b->w - b->in;
        if (r > cnt) r = cnt;
        const cx_sched_item x = cx_sched_item_of(CX_WORK_F, f->ch, f->base + f->in),
                            y = cx_sched_item_of(CX_WORK_BW, b->v - 1 - b->ch, b->base + b->in);
        cx_sched_pairs(o, x, y, r);
        o += 2 * r, cnt -= r;
        walk_on(f, r), walk_on(b, r);
    }
}

static int order(int p, int m, int v, int stage, cx_sched_item *out, int cap)
{
    if (p < 1 || m < 1 || stage < 0 || stage >= p || v > 255) return -1;
    if (v <= 1) return cx_sched_family_order(m, p - stage, 0, 1, out, cap);
    if (m < p) return -1;
    const int g = group(p, m), total = m * v, nw = (int)warmup(p, m, v, stage, g);
    if (2L * total > cap) return -1;
    /* forwards walk entries 0, 1, ...: nw of them, then one before each
     * backward; backwards follow nw entries behind: after a forward while
     * forwards remain, then the rest */
    walk f = walk_at(g, m, v, 0), b = f;
    emit(&f, nw, out, 1, CX_WORK_F, 0);
    emit_pairs(&f, &b, total - nw, out + nw);
    emit(&b, nw, out + 2 * total - nw, 1, CX_WORK_BW, 1);
    return 2 * total;
}

/* Steady state: the table repeats every group of N microbatches (period N);
 * warm-up spans nw <= 2(p-1) + (v-1)N entries, i.e. microbatches below
 * N + 2p, and the drain plus the last (partial) group as many at the end:
 * edge 2(2N + 2p) (sched.h: structure holds from edge/2). A reduced m' keeps N (same group) and the
 * same last group (m' = m mod N); v = 1 is the 1F1B family. */
static int steady(int p, int m, int v, int *period, int *edge)
{
    if (v <= 1) return cx_sched_steady_family(p, m, v, period, edge);
    if (m < p) return 0;
    int n = group(p, m);
    *period = n, *edge = 4 * n + 4 * p;
    return 1;
}

/* Megatron: interleaving needs pipeline parallelism and m >= p (above) */
static int64_t min_microbatches(int64_t p, int64_t v)
{
    return v > 1 ? p : 1;
}

static culonx_sweep_reject supports(const cx_sched_shape *s)
{
    if (s->v > 1 && s->p < 2) return CULONX_REJECT_PP1_CHUNKS;
    if (s->layers % (s->p * (s->v < 1 ? 1 : s->v)))
        return s->v > 1 ? CULONX_REJECT_LAYERS_PP_VP : CULONX_REJECT_LAYERS_PP;
    if (s->m > 0 && s->m < min_microbatches(s->p, s->v)) return CULONX_REJECT_SCHED_MICROBATCHES;
    return CULONX_REJECT_NONE;
}

static double bubble_s(int p, int m, int v, double f_s, double b_s, double w_s)
{
    if (v < 1) v = 1;
    (void)m;
    return (p - 1) * (f_s + b_s + w_s) / v;
}

static double inflight(int p, int m, int v, int stage)
{
    if (v <= 1) return cx_sched_family_peak(m, p - stage, 0, 1);
    long total = (long)m * v, nw = warmup(p, m, v, stage, group(p, m));
    if (nw >= total) return m;
    return (double)(nw + 1) / v;
}

const cx_sched_desc cx_sched_interleaved = {
    .name = "interleaved",
    .splits_bw = 0,
    .chunks = chunks,
    .vstage = vstage,
    .order = order,
    .ranged = 1, /* the table's entries below m v: mb < m, chunk < v */
    .steady = steady,
    .supports = supports,
    .min_microbatches = min_microbatches,
    .bubble_s = bubble_s,
    .inflight = inflight,
    .weight_copies = 1,
    .p2p_factor = 1.0, /* x chunks(v) = v */
    /* blocking p2p, as Megatron with --no-overlap-p2p-communication; the DAG,
     * the replay and the closed form also support overlapped sends (1) */
    .p2p_overlap = 0,
};
