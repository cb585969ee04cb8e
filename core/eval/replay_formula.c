/*
 * replay_formula.c — exact closed form of the interleaved 1F1B replay
 * (schedules/interleaved.c orders, replay_step.h timing rule, blocking p2p),
 * evaluated in O(p·v) instead of playing the p·m·v items, and of its
 * activation peaks; issue 13.
 *
 * Blocking sends make the replay a pure max-plus system: an item that sends
 * (every F but that of the last virtual stage, every BW but that of virtual
 * stage 0) frees its stage and hands its token over at end + P, so it acts as
 * an item of duration d' = d + P (P = p2p_s); the others have d' = d. The
 * end of a stage's last item (free_s) is then the longest path of d' through
 * the orders and the dependencies (schedules/README.md). With Fu', Gu' the F
 * and BW durations of virtual stage u (u = c·p + r: chunk c of stage r), the
 * stage orders give, for k = m/p groups of p microbatches:
 *   nw_r = 2(p−1−r) + (v−1)p warm-up forwards, then pairs, then the drain
 *   (Megatron's table with N = p); S_r(n) = sum of d' over the first n items
 *   of stage r's order (closed form: the items of each chunk among the first
 *   n are counted from the table's period, O(1) with the three classes).
 * Found by tracing the full replay's critical paths on random uneven costs
 * (core/README.md "Closed form"): when the last stage is the bottleneck,
 * the critical path to stage r's last item is
 *   fill:  stage 0 runs F(chunk 0, mb 0..a), mb a's chunk-0 forward climbs
 *          stages 1..p−2 (one item each) to stage p−1;
 *   busy:  stage p−1 runs its order from F(0, a) through BW(chunk c, m−1);
 *   drain: that BW descends stages p−2..i+1 (one item each), stage i runs its
 *          order from BW(c, m−1) to its end, then BW(0, m−1) descends i−1..r.
 * so, with U = max_a [S_0(a+1) + Σ_{s=1}^{p−2} F'_s − S_{p−1}(a)],
 *   E_{p−1} = U + S_{p−1}(2mv),
 *   E_i     = max_c [U + S_{p−1}(pos_{p−1}(B_c) + 1) + Σ_{s=i+1}^{p−2} G'_{cp+s}
 *                    + S_i(2mv) − S_i(pos_i(B_c))]           (i < p−1),
 *   free_r  = T_r = max(E_r, T_{r+1} + G'_r),  T_{p−1} = E_{p−1},
 * B_c = BW(chunk c, microbatch m−1), pos_r its index in stage r's order;
 * last_end_r = T_r − P (r > 0; T_0 for r = 0), last_item_r = the BW window
 * of virtual stage r (the last item of every stage is BW(chunk 0, m−1)),
 * makespan = max_r T_r. Every term is a real path of the replay, so the
 * formula never exceeds it; it equals it where that family holds the
 * critical path. Evaluated in O(v + p) (cx_core_replay_formula below: a =
 * p−1 maximises U, and the B_c lie in the drain of every stage below p−1).
 *
 * m = p (every stage all forwards, then all backwards): an exact
 * recurrence over "columns" instead (formula_m_eq_p below), any chunk
 * costs, O(p·v).
 *
 * Preconditions of the family (checked per call, else 0 and the replay plays):
 *   interleaved, blocking p2p, p >= 2, v >= 2, m >= 2p, p | m (N = p);
 *   virtual stages 1..pv−2 of equal F and BW durations (the even split:
 *   first, middle, last classes), virtual stages 0 and pv−1 of F and BW
 *   durations at least the middle ones (the embedding and the head add to
 *   their layers; with a lighter last chunk, as an uneven split can make
 *   it, a BW of the last group can descend to stage 0 and wrap back to
 *   stage p−1 later than p−1 gets there by itself: bench_fast_agree found
 *   one, p = 2, m = 38, 1.3e-3 off);
 *   the last stage the bottleneck: W_{p−1} >= W_0 and W_{p−1} >= W_mid with
 *   W_r = Σ_c (F'_{cp+r} + G'_{cp+r}) (the head's stage; 99% of the
 *   replay calls of bench_sweep_bench's megatron-1t space).
 * Outside them the family misses paths (stage 0 or middle bottleneck: the
 * steady state runs on another stage; p ∤ m: the last group of N > p adds
 * cool-down paths that touch stage 0 and wrap back up; uneven middle
 * chunks), found by the same random tests. Checked against the full replay
 * to 1e-12 on random uneven F, B, W, P (tests/test_replay_formula.c,
 * bench/fast_agree.c).
 */
#include "core/eval/replay_formula.h"
#include "core/eval/replay_lanes.h"

#include <math.h>
#include <string.h>

typedef struct {
    int64_t p, v, m, pv, mv;
    double fa, ga, fm, gm, fc, gc; /* F', G' of vs 0, middle, vs pv-1 */
} shape;

/* entries of chunk c among Megatron's table entries [0, x) (groups of p) */
static int64_t cnt(const shape *s, int64_t c, int64_t x)
{
    int64_t in = x % s->pv - c * s->p;
    return (x / s->pv) * s->p + (in < 0 ? 0 : in > s->p ? s->p : in);
}

static int64_t warm(const shape *s, int64_t r)
{
    int64_t nw = 2 * (s->p - 1 - r) + (s->v - 1) * s->p;
    return nw < s->mv ? nw : s->mv;
}

/* S_r(n): sum of d' over the first n items of stage r's order */
static double prefix(const shape *s, int64_t r, int64_t n)
{
    int64_t w = warm(s, r), nf, nb;
    if (n <= w) {
        nf = n, nb = 0;
    } else if (n - w <= 2 * (s->mv - w)) {
        nf = w + (n - w + 1) / 2, nb = (n - w) / 2;
    } else {
        nf = s->mv, nb = n - s->mv;
    }
    double t = (double)nf * s->fm + (double)nb * s->gm;
    /* backward entry of table chunk q runs chunk v-1-q */
    if (r == 0)
        t += (double)cnt(s, 0, nf) * (s->fa - s->fm) +
             (double)cnt(s, s->v - 1, nb) * (s->ga - s->gm);
    if (r == s->p - 1)
        t += (double)cnt(s, s->v - 1, nf) * (s->fc - s->fm) +
             (double)cnt(s, 0, nb) * (s->gc - s->gm);
    return t;
}

/* index in stage r's order of backward table entry k */
static int64_t pos_b(const shape *s, int64_t r, int64_t k)
{
    int64_t w = warm(s, r);
    return k < s->mv - w ? w + 2 * k + 1 : s->mv + k;
}

/* the replay's durations per chunk class (replay.c, durations(): the same
 * operations): F, BW and BW's window; from a cost's classes or from its
 * time key (replay_lanes.h: f, tp_f, b, tp_b, r, tp_r, w per class) */
typedef struct {
    const int16_t *cls; /* class of each virtual stage */
    double pp;          /* p2p time */
    double f[CX_COST_MAX_CLASSES], g[CX_COST_MAX_CLASSES], win[CX_COST_MAX_CLASSES];
} durs;

static void durs_of_key(const cx_cost *c, const double *key, durs *d)
{
    d->cls = c->vs_class, d->pp = key[7 * c->nclass];
    for (int k = 0; k < c->nclass; k++) {
        const double *q = key + 7 * k;
        d->f[k] = q[0] + q[1];
        d->g[k] = q[4] + q[5] + q[2] + q[3] + q[6];
        d->win[k] = d->g[k] - q[4] - q[5];
    }
}

static void durs_of_cost(const cx_cost *c, durs *d)
{
    double key[7 * CX_COST_MAX_CLASSES + 1];
    cx_replay_time_key(c, key);
    durs_of_key(c, key, d);
}

/* ---- m = p: every stage runs all its forwards, then all its backwards,
 * chunk by chunk ("columns": virtual stage u = c·p + r for microbatches
 * 0..p−1 in a row), so the replay is the longest path of a grid whose node
 * weights depend on the column only. The end times of a column as a
 * function of the microbatch, g_u(mb), are then a maximum of lines
 * α + mb·β with β among the durations:
 *   g_u(mb) = (mb+1)·d_u + max( max_{a<=mb} [g_{u−1}(a) − a·d_u],  pred_u )
 * (the data dependency on column u−1, entered at any a; pred_u the stage's
 * item before the column, entered at mb 0), and a line of slope β >= d_u
 * stays a line of slope β (best a = mb), one of β < d_u becomes a line of
 * slope d_u (best a = 0). Forward columns run u = 0..pv−1 (pred: column
 * u−p at mb p−1), backward columns u = pv−1..0 (data dependency on column
 * u+1; pred: column u+p, or the stage's last forward), with d = F' and G'.
 * Exact (the replay's own recurrence), O(p·v·lines), any chunk costs. */
#define CX_MP_LINES 8

typedef struct {
    int n;
    double a[CX_MP_LINES], b[CX_MP_LINES];
} lineset;

static double line_eval(const lineset *l, double x)
{
    double t = l->a[0] + x * l->b[0];
    for (int i = 1; i < l->n; i++)
        if (l->a[i] + x * l->b[i] > t) t = l->a[i] + x * l->b[i];
    return t;
}

/* adds α + mb·β, keeping one line per slope; 0 when full */
static int line_put(lineset *l, double a, double b)
{
    for (int i = 0; i < l->n; i++)
        if (l->b[i] == b) {
            if (a > l->a[i]) l->a[i] = a;
            return 1;
        }
    if (l->n == CX_MP_LINES) return 0;
    l->a[l->n] = a, l->b[l->n] = b, l->n++;
    return 1;
}

/* the column after prev (NULL: none) with duration d and machine
 * predecessor pred (has_pred) */
static int line_step(const lineset *prev, double d, int has_pred, double pred, lineset *out)
{
    lineset t = {0, {0}, {0}};
    if (prev)
        for (int i = 0; i < prev->n; i++)
            if (!line_put(&t, prev->a[i] + d, prev->b[i] >= d ? prev->b[i] : d)) return 0;
    if (has_pred && !line_put(&t, pred + d, d)) return 0;
    if (!prev && !has_pred) line_put(&t, d, d);
    *out = t;
    return 1;
}

static int formula_m_eq_p(const cx_cost *c, const durs *dd, cx_replay *out)
{
    const int p = c->p, v = c->v, nv = p * v;
    const double pp = dd->pp, last = p - 1;
    double val[CX_COST_MAX_VSTAGES]; /* g_u(p−1), then h_u(p−1) */
    lineset l = {0, {0}, {0}};
    for (int u = 0; u < nv; u++) {
        const double d = dd->f[dd->cls[u]] + (u < nv - 1 ? pp : 0);
        if (!line_step(u > 0 ? &l : NULL, d, u >= p, u >= p ? val[u - p] : 0, &l)) return 0;
        val[u] = line_eval(&l, last);
    }
    for (int u = nv - 1; u >= 0; u--) {
        const double d = dd->g[dd->cls[u]] + (u > 0 ? pp : 0);
        /* pred: the stage's last forward (val[u] still g) or column u+p */
        const double pred = u >= nv - p ? val[u] : val[u + p];
        if (!line_step(u < nv - 1 ? &l : NULL, d, 1, pred, &l)) return 0;
        val[u] = line_eval(&l, last);
    }
    out->makespan_s = 0;
    for (int r = 0; r < p; r++) {
        const double t = val[r];
        out->free_s[r] = t;
        out->last_end_s[r] = r > 0 ? t - pp : t;
        out->last_item_s[r] = dd->win[dd->cls[r]];
        if (t > out->makespan_s) out->makespan_s = t;
    }
    return 1;
}

int cx_core_replay_formula_shape(const cx_cost *c)
{
    const cx_sched_desc *sd = c->sched;
    const int p = c->p, v = c->v, m = c->m;
    return sd == &cx_sched_interleaved && !sd->p2p_overlap && p >= 2 && v >= 2 &&
           p * v <= CX_COST_MAX_VSTAGES && c->nclass >= 1 && c->nclass <= CX_COST_MAX_CLASSES &&
           (m == p || (m >= 2 * p && m % p == 0));
}

/* the formula of c's shape with the durations dd */
static int formula(const cx_cost *c, const durs *dd, cx_replay *out)
{
    const int p = c->p, v = c->v, m = c->m, nv = p * v;
    if (m == p) return formula_m_eq_p(c, dd, out);
    const double pp = dd->pp;
    const int k0 = dd->cls[0], km = dd->cls[1], kl = dd->cls[nv - 1];
    const double fm = dd->f[km], gm = dd->g[km];
    for (int u = 2; u < nv - 1; u++) {
        const int ku = dd->cls[u];
        if (ku != km && (dd->f[ku] != fm || dd->g[ku] != gm)) return 0;
    }
    /* the end chunks at least the middle ones (embedding, head added) */
    if (!(dd->f[k0] >= fm && dd->g[k0] >= gm && dd->f[kl] >= fm && dd->g[kl] >= gm)) return 0;
    shape s = {p,         v,       m,       (int64_t)p * v, (int64_t)m * v, dd->f[k0] + pp,
               dd->g[k0], fm + pp, gm + pp, dd->f[kl],      dd->g[kl] + pp};
    const double mid = s.fm + s.gm, wl = s.fc + s.gc + (v - 1) * mid;
    if (!(wl >= s.fa + s.ga + (v - 1) * mid) || (p > 2 && !(wl >= v * mid))) return 0;

    /* The family in O(v + p) (core/README.md): the fill's S_0(a+1) −
     * S_{p−1}(a) = (a+1)F'_0 − a F'_mid is largest at a = p−1 (F_0 >=
     * F_mid); every B_c of the last group lies in the drain of stages
     * 0..p−2 (its table entry k_c >= mv − nw_i), whose suffix from it is
     * the backwards k_c..mv−1: (mv − k_c) G'_mid plus, on stage 0, those of
     * chunk 0 at G'_0; so E_i = M + (p−2−i) G'_mid on the middle stages and
     * T_r = T_{p−2} + (p−2−r) G'_mid there. */
    const int64_t last = p - 1, len = 2 * s.mv;
    const double u = (double)p * s.fa - s.fm;
    const double e_last = u + prefix(&s, last, len);
    double mid_best = -HUGE_VAL, e0 = -HUGE_VAL;
    for (int64_t ch = 0; ch < v; ch++) {
        /* table entry of BW(chunk ch, microbatch m-1): last group, table
         * chunk v-1-ch, last of its p */
        const int64_t k = (s.mv - s.pv) + (v - 1 - ch) * s.p + (p - 1);
        const double base = u + prefix(&s, last, pos_b(&s, last, k) + 1);
        const double tail = base + (double)(s.mv - k) * s.gm;
        if (tail > mid_best) mid_best = tail;
        const int64_t n0 = cnt(&s, v - 1, s.mv) - cnt(&s, v - 1, k);
        const double x = tail + (double)(p - 2) * s.gm + (double)n0 * (s.ga - s.gm);
        if (x > e0) e0 = x;
    }
    double t = e_last;
    out->makespan_s = 0;
    for (int64_t r = last; r >= 0; r--) {
        if (r == last - 1 && r > 0)
            t = mid_best > t + s.gm ? mid_best : t + s.gm;
        else if (r < last && r > 0)
            t += s.gm;
        else if (r == 0 && last > 0)
            t = e0 > t + s.ga ? e0 : t + s.ga;
        out->free_s[r] = t;
        out->last_end_s[r] = r > 0 ? t - pp : t;
        out->last_item_s[r] = dd->win[dd->cls[r]];
        if (t > out->makespan_s) out->makespan_s = t;
    }
    return 1;
}

int cx_core_replay_formula(const cx_cost *c, cx_replay *out)
{
    if (!cx_core_replay_formula_shape(c)) return 0;
    durs dd;
    durs_of_cost(c, &dd);
    return formula(c, &dd, out);
}

int cx_core_replay_formula_key(const cx_cost *c, const double *key, cx_replay *out)
{
    if (!cx_core_replay_formula_shape(c)) return 0;
    durs dd;
    durs_of_key(c, key, &dd);
    return formula(c, &dd, out);
}

/* Activation peak of stage r, exactly as replay.c's scan of the order
 * (cx_core_replay_memory): F adds its chunk's act bytes, B/BW peaks at act
 * + work bytes then frees them. With SF(x), SB(x) the act bytes of the first
 * x forward / backward table entries, the scan's candidates are SF(nw) (end
 * of the warm-up), per pair k: A_k = SF(k + nw + 1) − SB(k) and A_k + work
 * of B_k's chunk, and per drain entry k: SF(mv) − SB(k) + work. A_k repeats
 * every p·v entries (p | m) and the drain's act only falls while its work
 * repeats, so one period of each suffices: O(p·v) per stage, O(1) for the
 * middle stages (one chunk class). m = p: O(v) per stage (below). All bytes are integers below 2^53
 * (checked by the caller): every sum is exact in any order. */
static double stage_peak(const cx_cost *c, const shape *s, int r, int uniform)
{
    const int64_t nw = warm(s, r), mv = s->mv, pv = s->pv, p = s->p, pairs = mv - nw;
    const int v = (int)s->v;
    if (s->m == s->p) {
        /* all forwards (act rising to the total), then the backward columns,
         * chunk v-1 first: each column peaks at its first item */
        double total = 0, peak;
        for (int q = 0; q < v; q++)
            total += (double)p * cx_core_cost_chunk(c, q * (int)p + r)->act_bytes;
        peak = total;
        for (int q = v - 1; q >= 0; q--) {
            const cx_chunk_cost *b = cx_core_cost_chunk(c, q * (int)p + r);
            if (total + b->work_bytes > peak) peak = total + b->work_bytes;
            total -= (double)p * b->act_bytes;
        }
        return peak;
    }
    if (uniform) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, r);
        return (double)(nw + 1) * cc->act_bytes + cc->work_bytes;
    }
    /* per table chunk q: forward act, backward (chunk v-1-q) act and work */
    double af[CX_COST_MAX_VSTAGES], ab[CX_COST_MAX_VSTAGES], wb[CX_COST_MAX_VSTAGES];
    for (int q = 0; q < v; q++) {
        const cx_chunk_cost *f = cx_core_cost_chunk(c, q * (int)p + r),
                            *b = cx_core_cost_chunk(c, (v - 1 - q) * (int)p + r);
        af[q] = f->act_bytes, ab[q] = b->act_bytes, wb[q] = b->work_bytes;
    }
    double sf = 0, sb = 0, all = 0;
    for (int q = 0; q < v; q++) {
        sf += (double)cnt(s, q, nw) * af[q];
        all += (double)cnt(s, q, mv) * af[q];
    }
    double peak = sf;
    const int64_t scan = pairs < pv ? pairs : pv;
    int64_t ef = nw % pv, eb = 0;
    for (int64_t k = 0; k < scan; k++) {
        sf += af[ef / p];
        const int q = (int)(eb / p);
        const double a = sf - sb, w = a + wb[q];
        if (a > peak) peak = a;
        if (w > peak) peak = w;
        sb += ab[q];
        if (++ef == pv) ef = 0;
        if (++eb == pv) eb = 0;
    }
    sb = 0;
    for (int q = 0; q < v; q++)
        sb += (double)cnt(s, q, pairs) * ab[q];
    const int64_t end = nw < pv ? mv : pairs + pv;
    eb = pairs % pv;
    for (int64_t k = pairs; k < end; k++) {
        const int q = (int)(eb / p);
        const double w = all - sb + wb[q];
        if (w > peak) peak = w;
        sb += ab[q];
        if (++eb == pv) eb = 0;
    }
    return peak;
}

int cx_core_replay_formula_memory(const cx_cost *c, cx_replay_formula_memo *memo,
                                  double *peak_act_bytes)
{
    const cx_sched_desc *sd = c->sched;
    if (sd != &cx_sched_interleaved) return 0;
    const int p = c->p, v = c->v, m = c->m, nv = p * v;
    if (p < 2 || v < 2 || nv > CX_COST_MAX_VSTAGES || (m != p && (m < 2 * p || m % p))) return 0;
    double most = 0;
    for (int k = 0; k < c->nclass; k++) {
        const double a = c->cls[k].act_bytes, w = c->cls[k].work_bytes;
        if (!(a >= 0 && w >= 0 && a == floor(a) && w == floor(w))) return 0;
        most = fmax(most, a + w);
    }
    /* every sum of the scan an integer below 2^53: exact */
    if (!((double)m * v * most < 4503599627370496.0)) return 0;
    const int16_t mid = c->vs_class[1];
    const cx_chunk_cost *cm = &c->cls[mid];
    for (int u = 2; u < nv - 1; u++) {
        const cx_chunk_cost *cu = &c->cls[c->vs_class[u]];
        if (c->vs_class[u] != mid &&
            (cu->act_bytes != cm->act_bytes || cu->work_bytes != cm->work_bytes))
            return 0;
    }
    /* under the checks above the peaks read these bytes only */
    const cx_chunk_cost *c0 = &c->cls[c->vs_class[0]], *cl = &c->cls[c->vs_class[nv - 1]];
    const double key[6] = {c0->act_bytes,  c0->work_bytes, cm->act_bytes,
                           cm->work_bytes, cl->act_bytes,  cl->work_bytes};
    if (memo && memo->sched == (const void *)sd && memo->p == p && memo->m == m && memo->v == v &&
        !memcmp(memo->key, key, sizeof key)) {
        memcpy(peak_act_bytes, memo->peak, (size_t)p * sizeof *peak_act_bytes);
        return 1;
    }
    shape s = {p, v, m, (int64_t)p * v, (int64_t)m * v, 0, 0, 0, 0, 0, 0};
    for (int r = 0; r < p; r++)
        peak_act_bytes[r] = stage_peak(c, &s, r, r > 0 && r < p - 1);
    if (memo) {
        memo->sched = sd, memo->p = p, memo->m = m, memo->v = v;
        memcpy(memo->key, key, sizeof key);
        memcpy(memo->peak, peak_act_bytes, (size_t)p * sizeof *peak_act_bytes);
    }
    return 1;
}
