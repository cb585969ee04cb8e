/*
 * replay_zb_sweep.c — the ZB-H1 and ZB-H2 replays (schedules/zb_h1.c,
 * zb_h2.c orders through cx_sched_family_order; replay_step.h timing rule;
 * blocking p2p) evaluated exactly at a cost independent of m, for any
 * per-stage costs; issue 13.
 *
 * Long file: the sweep, its piecewise-linear primitives (push, max2, the
 * ride with b alongside) and ZB-H2's lattice stage share the private
 * segment representation (cx_pl; its primitives in replay_pl.h, shared with
 * replay_v_sweep.c).
 *
 * Blocking sends make the replay a max-plus system (replay_formula.c): an
 * item that sends (F below the last stage, B above stage 0) acts as one of
 * duration d' = d + P. Stage s (L = p − 1 the last) runs w_s = h(p − s) −
 * (h − 1) warm-up forwards, then cycles j = 0..m−1 of "B_j, W_{j−hs}
 * (j >= hs), F_{j+w_s} (j < e_s = m − w_s)", then its hs owed W
 * (h = 1 ZB-H1, 2 ZB-H2). With y_s(j) the end of cycle j and b_s(j) that of
 * its B_j:
 *   warm-up  u_s(k) = max(u_s(k−1), u_{s−1}(k)) + F'_s = S_s + k·M_s
 *            (S_s = Σ_{i<=s} F'_i, M_s = max_{i<=s} F'_i: a tandem line
 *            whose jobs are all present, the longest lattice path), so
 *            y_s(−1) = S_s + (w_s − 1)·M_s;
 *   b_s(j)  = max(y_s(j−1), b_{s+1}(j)) + B'_s          (no b_{p} term);
 *   y_s(j)  = max(b_s(j) + W_s·[j >= hs], Fin_s(j)) + F'_s·[j < e_s],
 *            Fin_s(j) = u_{s−1}(j + w_s) for j < h (a warm-up forward of
 *            s − 1), y_{s−1}(j − h) for h <= j < e_s, none from e_s on;
 *   free_s  = y_s(m − 1) + hs·W_s = last end (the last item is a W).
 * Given its inputs Bin = b_{s+1} and Fin, one stage is a ride:
 *   y(j) = max(y(j−1) + c(j), g(j)),  c(j) = B' + W·[j >= hs] + F'·[j < e],
 *   g(j) = max(Bin(j) + c(j), Fin(j) + F'),
 * whose rate c is constant on three ranges of j. Each function of j is
 * kept as a piecewise-linear function on the integers (segments: first j,
 * value there, slope): a maximum of two lines on a range is at most two
 * segments (split at the integer crossing), and the ride of a segment of g
 * with slope κ at rate c is one line of slope c (κ <= c: the segment's
 * first point dominates) or the ride line then g (κ > c). So a stage costs
 * O(its segments), whatever m.
 *
 * Runs of one-point segments on a common line (the staircases the
 * diagonals j = hs and j = m − w_s make) are merged into one segment.
 * ZB-H2's drains below m ~ 5p hold period-2 sawtooths (lines on the even
 * and on the odd j, not on j), many segments on j: where the functions on
 * j overflow, ZB-H2 is swept again on the lattices j = 2i + r (stage2:
 * two functions a stage, the ride taken two cycles at a time).
 *
 * The stages feed each other both ways (Fin from below, Bin from above), so
 * the stages are swept alternately up (0..L) and down (L..0), each stage
 * recomputed when one of its inputs changed, starting from "no input"
 * (−∞): after k sweeps every value is the longest path among those that
 * turn between up and down at most k − 1 times, never more than the
 * replay. A stage whose one changed input stays below its functions
 * (Fin + F' <= y, or Bin + B' <= b, everywhere) is not recomputed: the ride
 * of a larger g that stays below y is y. Without Bin (the first, up
 * sweep) a stage's b is y's shift plus B', built only when read (the up
 * sweep's are mostly replaced unread: build_b); with Bin it is built in the
 * same pass as y (bside: b = y − (c − B') where y rides or follows Bin, the
 * max of Fin's line shifted and Bin's where y follows Fin), from y again
 * (stage_b) only where that leaves it over 32 segments (ZB-H2: only
 * where it overflows). The certificate: a
 * sweep in which no stage's functions change (to 1e-13 relative) — the
 * functions then satisfy every recurrence above on every j, and the
 * recurrence (a DAG) has one solution: the replay's. Bounds (else 0, the
 * caller replays): 64 segments a function, 24 sweeps. Typically up, down,
 * then the checks: ~2 stage evaluations a stage of ~0.1 us (5–13 segments
 * on megatron-1t).
 * Held to the full replay by tests/test_replay_formula_zb.c and
 * bench_fast_agree; measured in core/README.md, "Exact formula", "ZB-H1
 * and ZB-H2 swept".
 */
#include "core/eval/replay_zb_sweep.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_pl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NSEG = CX_PL_NSEG, MAX_SWEEPS = 24, NMEMO = 32, MKEY = 64, B_REBUILD = 32 };

typedef struct {
    int used, ok, nkey, p, m;
    const cx_sched_desc *sd;
    uint64_t hash;
    double key[MKEY], makespan_s;
} zb_memo;

struct cx_zb_sweep_ws {
    int cap;              /* stages allocated */
    cx_pl *pool;          /* 4 cap + 6 functions */
    cx_pl **y, **b;       /* [nr s + r]: per stage and lattice (ZB-H2: j = 2i + r), into pool */
    cx_pl *ny[2], *nb[2]; /* the spare ones */
    cx_pl *g[2];          /* ZB-H2's g on the two lattices */
    int *ver_y, *ver_b, *used_f, *used_b;
    int *stale; /* b not built: y's shift (stage_b without Bin) stands for it */
    int evals, checks, sweeps, segs;
    int b_fin, b_rebuilt; /* b alongside: pieces where y follows Fin; b rebuilt from y */
    /* recent inputs and answers (cx_core_replay_zb_times): a ring of NMEMO
     * entries, free times and stage classes in pools of mcap a entry */
    zb_memo memo[NMEMO];
    int mnext, mlast, mcap;
    double *mfree;
    int16_t *mcls;
    cx_replay last;
};

cx_zb_sweep_ws *cx_core_zb_sweep_ws_new(void)
{
    return calloc(1, sizeof(cx_zb_sweep_ws));
}

void cx_core_zb_sweep_ws_free(cx_zb_sweep_ws *ws)
{
    if (!ws) return;
    free(ws->pool), free(ws->y), free(ws->ver_y);
    free(ws->mfree), free(ws->mcls);
    free(ws);
}

void cx_core_zb_sweep_stats(const cx_zb_sweep_ws *ws, int *evals, int *sweeps, int *segs)
{
    *evals = ws->evals, *sweeps = ws->sweeps, *segs = ws->segs;
}

void cx_core_zb_sweep_b_stats(const cx_zb_sweep_ws *ws, int *fin_pieces, int *rebuilt)
{
    *fin_pieces = ws->b_fin, *rebuilt = ws->b_rebuilt;
}

static int reserve(cx_zb_sweep_ws *ws, int p)
{
    if (ws->cap >= p) return 1;
    free(ws->pool), free(ws->y), free(ws->ver_y);
    ws->pool = malloc(sizeof(cx_pl) * (4 * (size_t)p + 6));
    ws->y = malloc(sizeof(cx_pl *) * 4 * (size_t)p);
    ws->ver_y = malloc(sizeof(int) * 5 * (size_t)p);
    if (!ws->pool || !ws->y || !ws->ver_y) {
        free(ws->pool), free(ws->y), free(ws->ver_y);
        ws->pool = NULL, ws->y = NULL, ws->ver_y = NULL, ws->cap = 0;
        return 0;
    }
    ws->b = ws->y + 2 * p;
    for (int k = 0; k < 2 * p; k++)
        ws->y[k] = &ws->pool[2 * k], ws->b[k] = &ws->pool[2 * k + 1];
    for (int r = 0; r < 2; r++)
        ws->ny[r] = &ws->pool[4 * p + r], ws->nb[r] = &ws->pool[4 * p + 2 + r],
        ws->g[r] = &ws->pool[4 * p + 4 + r];
    ws->ver_b = ws->ver_y + p, ws->used_f = ws->ver_b + p, ws->used_b = ws->used_f + p;
    ws->stale = ws->used_b + p;
    ws->cap = p;
    return 1;
}

static void finish(cx_pl_bld *o, int m)
{
    o->f->x[o->f->n] = m;
}

/* a cursor reading f(j − sh) at increasing j */
typedef struct {
    const cx_pl *f;
    int i, sh;
} cur;

/* line of f at j (value, slope); returns the last j of its segment */
static inline int at(cur *c, int j, double *v, double *k)
{
    const cx_pl *f = c->f;
    const int t = j - c->sh;
    while (f->x[c->i + 1] <= t)
        c->i++;
    *k = f->k[c->i], *v = f->v[c->i] + *k * (double)(t - f->x[c->i]);
    return f->x[c->i + 1] - 1 + c->sh;
}

/* 1 if a and b differ by more than tol relative somewhere */
static int differ(const cx_pl *a, const cx_pl *b, int m)
{
    if (a->n == b->n && !memcmp(a->x, b->x, sizeof(int) * (size_t)a->n) &&
        !memcmp(a->v, b->v, sizeof(double) * (size_t)a->n) &&
        !memcmp(a->k, b->k, sizeof(double) * (size_t)a->n))
        return 0;
    cur ca = {a, 0, 0}, cb = {b, 0, 0};
    for (int j = 0; j < m;) {
        double va, ka, vb, kb;
        int hi = at(&ca, j, &va, &ka);
        const int hb = at(&cb, j, &vb, &kb);
        if (hb < hi) hi = hb;
        if (va == -HUGE_VAL || vb == -HUGE_VAL) {
            if (va != vb) return 1;
        } else {
            const double d0 = va - vb, d1 = d0 + (ka - kb) * (double)(hi - j);
            const double sc = 1e-13 * fmax(fabs(va), fabs(vb) + fabs(kb) * (double)(hi - j));
            if (fabs(d0) > sc || fabs(d1) > sc) return 1;
        }
        j = hi + 1;
    }
    return 0;
}

/* 1 if f(j − sh) + add <= g(j) (to 1e-13 relative) for lo <= j < hi */
static int below(const cx_pl *f, int sh, double add, const cx_pl *g, int lo, int hi)
{
    cur cf = {f, 0, sh}, cg = {g, 0, 0};
    for (int j = lo; j < hi;) {
        double va, ka, vb, kb;
        int e = at(&cf, j, &va, &ka);
        const int eb = at(&cg, j, &vb, &kb);
        if (eb < e) e = eb;
        if (e >= hi) e = hi - 1;
        va += add;
        const double d0 = va - vb, d1 = d0 + (ka - kb) * (double)(e - j);
        const double sc = 1e-13 * (fabs(vb) + fabs(kb) * (double)(e - j));
        if (d0 > sc || d1 > sc) return 0;
        j = e + 1;
    }
    return 1;
}

/* b(j) = B' + max(y(j − 1), Bin(j)) built alongside a stage's ride
 * (stage): where y(j) = y(j − 1) + c or y(j) = Bin(j) + c it is y(j) −
 * (c − B') (y(j) >= y(j − 1) + c always, so Bin(j) >= y(j − 1) in the
 * second case); where y rides the Fin line g above the ride, y(j − 1) =
 * g(j − 1) but at the first point, so b is the max of two lines there */
typedef struct {
    cx_pl_bld o;
    double Bq, dc; /* B', c − B' */
    double bv, bk; /* Bin's line (value at bx, slope; -HUGE_VAL: none) */
    int bx, fins;  /* fins: b_fin calls */
} bside;

static inline double bin_at(const bside *bs, int x)
{
    return bs->bv == -HUGE_VAL ? bs->bv : bs->bv + bs->bk * (double)(x - bs->bx);
}

/* b on x..hi where y rides the Fin line g (y(x) = gx, slope gk) from x,
 * y(x − 1) = ym1: where Bin(x) >= ym1 and >= g(x − 1) the max of Bin's line
 * and g's one back from x, else the point x (mostly on the line before) and
 * that max from x + 1 */
static inline void b_fin(bside *bs, int x, int hi, double ym1, double gx, double gk)
{
    const double bx = bin_at(bs, x);
    bs->fins++;
    if (bx >= ym1 && bx >= gx - gk) {
        cx_pl_max2(&bs->o, x, hi, gx - gk + bs->Bq, gk, bx + bs->Bq, bs->bk);
        return;
    }
    cx_pl_push(&bs->o, x, bs->Bq + (ym1 > bx ? ym1 : bx), 0);
    if (x < hi) {
        const double b1 = bin_at(bs, x + 1);
        cx_pl_max2(&bs->o, x + 1, hi, gx + bs->Bq, gk, b1 == -HUGE_VAL ? b1 : b1 + bs->Bq, bs->bk);
    }
}

/* y(j) = max(y(j − 1) + c, g(j)) on lo..hi, g the line gv (at lo), gk (gfin:
 * g is the Fin line, else Bin's); *prev: y(lo − 1), then y(hi); b alongside
 * where bs */
static inline void ride(cx_pl_bld *oy, bside *bs, int lo, int hi, double gv, double gk, int gfin,
                        double c, double *prev)
{
    const double p0 = *prev, rv = p0 + c;
    if (gv == -HUGE_VAL || gk <= c) {
        /* one line of slope c: g wins at lo at most */
        const int gw = !(rv > gv);
        const double yv = gw ? gv : rv;
        cx_pl_push(oy, lo, yv, c);
        if (bs) {
            if (gw && gfin) {
                b_fin(bs, lo, lo, p0, yv, c);
                if (lo < hi) cx_pl_push(&bs->o, lo + 1, yv + c - bs->dc, c);
            } else {
                cx_pl_push(&bs->o, lo, yv - bs->dc, c);
            }
        }
    } else {
        /* the ride line up to x − 1, then g (slope gk > c) */
        const double dk = c - gk, dlo = rv - gv, dhi = dlo + dk * (double)(hi - lo);
        int x;
        if (dlo >= 0 && dhi >= 0) {
            x = hi + 1;
        } else if (dlo <= 0 && dhi <= 0) {
            x = lo;
        } else {
            double t = floor(dlo / -dk);
            if (t < 0) t = 0;
            if (t > hi - lo - 1) t = hi - lo - 1;
            x = lo + (int)t + 1;
        }
        const double gx = gv + gk * (double)(x - lo);
        if (x > lo) cx_pl_push(oy, lo, rv, c);
        if (x <= hi) cx_pl_push(oy, x, gx, gk);
        if (bs) {
            if (x > lo) cx_pl_push(&bs->o, lo, rv - bs->dc, c);
            if (x <= hi) {
                if (gfin)
                    b_fin(bs, x, hi, x == lo ? p0 : rv + c * (double)(x - 1 - lo), gx, gk);
                else
                    cx_pl_push(&bs->o, x, gx - bs->dc, gk);
            }
        }
    }
    *prev = cx_pl_last_at(oy->f, hi);
}

/* rides on [lo, hi] the max of two lines (value at lo, slope; -HUGE_VAL:
 * none; a Bin's, b Fin's): at most two pieces, the first winner up to the
 * crossing, then the other, each ridden at rate c */
static inline void ride_max(cx_pl_bld *oy, bside *bs, int lo, int hi, double va, double ka,
                            double vb, double kb, double c, double *prev)
{
    int x = hi + 1, afin = 0;
    if (va != -HUGE_VAL && vb != -HUGE_VAL) {
        const double dk = ka - kb, dlo = va - vb, dhi = dlo + dk * (double)(hi - lo);
        if ((dlo > 0 && dhi < 0) || (dlo < 0 && dhi > 0)) {
            double t = floor(dlo > 0 ? dlo / -dk : -dlo / dk);
            if (t < 0) t = 0;
            if (t > hi - lo - 1) t = hi - lo - 1;
            x = lo + (int)t + 1;
        }
        if (dlo < 0 || (dlo == 0 && dhi < 0)) {
            /* b's line first */
            double tv = va, tk = ka;
            va = vb, ka = kb, vb = tv, kb = tk, afin = 1;
        }
    } else if (va == -HUGE_VAL) {
        va = vb, ka = kb, afin = 1;
    }
    ride(oy, bs, lo, x - 1, va, ka, afin, c, prev);
    if (x <= hi) ride(oy, bs, x, hi, vb + kb * (double)(x - lo), kb, !afin, c, prev);
}

typedef struct {
    int p, m, h;
    const double *fd, *bd, *wd, *S, *M;
} zb_in;

/* b(j) = max(y(j − sh), Bin(j)) + B' on 0..n−1 (sh 0 or 1; y(−1) = y0,
 * the warm-up's end); 0 on too many segments */
static int b_of(cx_pl *b, const cx_pl *y, int sh, const cx_pl *bin, int n, double y0, double Bq)
{
    cx_pl_bld ob = {b, 0};
    b->n = 0;
    cur cy = {y, 0, sh}, cb = {bin, 0, 0};
    for (int j = 0; j < n;) {
        double va, ka, vb = -HUGE_VAL, kb = 0;
        int hi;
        if (j < sh)
            va = y0, ka = 0, hi = 0;
        else
            hi = at(&cy, j, &va, &ka);
        if (bin) {
            const int hb = at(&cb, j, &vb, &kb);
            if (hb < hi) hi = hb;
        }
        cx_pl_max2(&ob, j, hi, va + Bq, ka, vb == -HUGE_VAL ? vb : vb + Bq, kb);
        j = hi + 1;
    }
    finish(&ob, n);
    return !ob.over;
}

/* b(j) = max(y(j − 1), Bin(j)) + B' of stage s; 0 on too many segments */
static int stage_b(const zb_in *in, int s, const cx_pl *y, const cx_pl *bin, cx_pl *b)
{
    const int w = in->h * (in->p - s) - (in->h - 1);
    return b_of(b, y, 1, bin, in->m, in->S[s] + (double)(w - 1) * in->M[s], in->bd[s]);
}

/* y of stage s from Fin (y of s − 1, NULL for s = 0) and Bin (b of s + 1,
 * NULL for the last), and where b (only with Bin) its b alongside; 0 on too
 * many segments. Without Bin its b: stage_b. */
static int stage(const zb_in *in, int s, const cx_pl *yin, const cx_pl *bin, cx_pl *y, cx_pl *b,
                 cx_zb_sweep_ws *ws)
{
    const int p = in->p, m = in->m, h = in->h;
    const int w = h * (p - s) - (h - 1), lag = h * s, e = m - w;
    const double Bq = in->bd[s], Wq = in->wd[s], Fq = in->fd[s];
    const double y0 = in->S[s] + (double)(w - 1) * in->M[s];
    /* ranges of constant rate and input kind: 0, h, lag, e, m (h <= lag
     * but at s = 0, lag < e since m >= h(p + 1) + 1, e < m since w >= 1) */
    int r[5] = {0, h}, nr = 2;
    if (lag > h) r[nr++] = lag;
    r[nr++] = e, r[nr++] = m;
    /* g and its ride, piece by piece */
    cx_pl_bld oy = {y, 0};
    y->n = 0;
    bside bs = {{b, 0}, Bq, 0, -HUGE_VAL, 0, 0, 0};
    if (b) b->n = 0;
    double prev = y0;
    cur cb = {bin, 0, 0}, cf = {yin, 0, h};
    for (int ir = 0; ir + 1 < nr; ir++) {
        const int rlo = r[ir], rhi = r[ir + 1] - 1;
        const int has_w = rlo >= lag, has_f = rlo < e;
        const int fmode = s == 0 || !has_f ? 0 : rlo < h ? 1 : 2;
        const double cj = Bq + (has_w ? Wq : 0) + (has_f ? Fq : 0);
        for (int j = rlo; j <= rhi;) {
            double vb = -HUGE_VAL, kb = 0, vf = -HUGE_VAL, kf = 0;
            int hi = rhi;
            if (bin) {
                const int hb = at(&cb, j, &vb, &kb);
                if (hb < hi) hi = hb;
                bs.bv = vb, bs.bk = kb, bs.bx = j;
                if (vb != -HUGE_VAL) vb += cj;
            }
            if (fmode == 1) {
                kf = in->M[s - 1], vf = in->S[s - 1] + (double)(j + w) * kf + Fq;
            } else if (fmode == 2) {
                const int hf = at(&cf, j, &vf, &kf);
                if (hf < hi) hi = hf;
                if (vf != -HUGE_VAL) vf += Fq;
            }
            /* g = max of the two lines: at most two pieces, each ridden */
            bs.dc = cj - Bq;
            ride_max(&oy, b ? &bs : NULL, j, hi, vb, kb, vf, kf, cj, &prev);
            j = hi + 1;
        }
    }
    finish(&oy, m);
    if (oy.over) return 0;
    if (!b) return 1;
    finish(&bs.o, m);
    ws->b_fin += bs.fins;
    /* b alongside y breaks where y does, not one later, and keeps slopes
     * rounded apart: where that leaves it long (ZB-H1), b from y
     * (stage_b). ZB-H2's long b hold its drains' period-2 sawtooths, which
     * y holds too: rebuilt only where it overflowed (measured: the
     * rebuild at 32 segments cost ZB-H2 2.6%, core/README.md) */
    if (!bs.o.over && (h == 2 || b->n <= B_REBUILD)) return 1;
    ws->b_rebuilt++;
    return stage_b(in, s, y, bin, b);
}

/* the memo's hash: the key's doubles and the classes a word at a time
 * (FNV-1a's multiply on 64-bit words; a hash only picks the entries to
 * compare in full) */
static uint64_t key_hash(const double *key, int nkey, const int16_t *cls, int p)
{
    uint64_t h = 14695981039346656037ull, w;
    for (int i = 0; i < nkey; i++) {
        memcpy(&w, &key[i], sizeof w);
        h = (h ^ w) * 1099511628211ull;
    }
    for (int s = 0; s < p; s++)
        h = (h ^ (uint16_t)cls[s]) * 1099511628211ull;
    return h;
}

static int memo_hit(const cx_zb_sweep_ws *ws, int i, const cx_cost *c, uint64_t h,
                    const double *key, int nkey)
{
    const zb_memo *e = &ws->memo[i];
    return e->used && e->hash == h && e->sd == c->sched && e->p == c->p && e->m == c->m &&
           e->nkey == nkey && !memcmp(e->key, key, sizeof(double) * (size_t)nkey) &&
           !memcmp(ws->mcls + (size_t)i * (size_t)ws->mcap, c->vs_class,
                   sizeof(int16_t) * (size_t)c->p);
}

int cx_core_replay_zb_times(const cx_cost *c, cx_zb_sweep_ws *ws, cx_replay *out)
{
    double key[CX_COST_MAX_CLASSES * 7 + 1];
    const int nkey = cx_replay_time_key(c, key), p = c->p;
    if (nkey > MKEY) return cx_core_replay_zb_sweep(c, ws, out);
    /* the last answer first (most calls), then the ring by hash */
    const zb_memo *l = &ws->memo[ws->mlast];
    int at = -1;
    if (l->used && l->sd == c->sched && l->p == p && l->m == c->m && l->nkey == nkey &&
        !memcmp(l->key, key, sizeof(double) * (size_t)nkey) &&
        !memcmp(ws->mcls + (size_t)ws->mlast * (size_t)ws->mcap, c->vs_class,
                sizeof(int16_t) * (size_t)p))
        at = ws->mlast;
    uint64_t h = 0;
    if (at < 0) {
        h = key_hash(key, nkey, c->vs_class, p) ^ (uint64_t)c->m * 1000003u ^ (uint64_t)p ^
            (uint64_t)(c->sched == &cx_sched_zb_h2) << 62;
        for (int i = 0; i < NMEMO && at < 0; i++)
            if (memo_hit(ws, i, c, h, key, nkey)) at = i;
    }
    if (at < 0) {
        if (ws->mcap < p) {
            /* pools for p stages (the ring emptied) */
            free(ws->mfree), free(ws->mcls);
            ws->mfree = malloc(sizeof(double) * NMEMO * (size_t)p);
            ws->mcls = malloc(sizeof(int16_t) * NMEMO * (size_t)p);
            memset(ws->memo, 0, sizeof ws->memo);
            ws->mcap = ws->mfree && ws->mcls ? p : 0;
            if (!ws->mcap) return cx_core_replay_zb_sweep(c, ws, out);
        }
        at = ws->mnext, ws->mnext = (ws->mnext + 1) % NMEMO;
        zb_memo *e = &ws->memo[at];
        e->used = 0;
        e->ok = cx_core_replay_zb_sweep(c, ws, &ws->last);
        e->sd = c->sched, e->p = p, e->m = c->m, e->nkey = nkey, e->hash = h;
        memcpy(e->key, key, sizeof(double) * (size_t)nkey);
        memcpy(ws->mcls + (size_t)at * (size_t)ws->mcap, c->vs_class, sizeof(int16_t) * (size_t)p);
        if (e->ok) {
            e->makespan_s = ws->last.makespan_s;
            memcpy(ws->mfree + (size_t)at * (size_t)ws->mcap, ws->last.free_s,
                   sizeof(double) * (size_t)p);
        }
        e->used = 1;
    }
    ws->mlast = at;
    const zb_memo *e = &ws->memo[at];
    if (!e->ok) return 0;
    const double *fr = ws->mfree + (size_t)at * (size_t)ws->mcap;
    out->makespan_s = e->makespan_s;
    memcpy(out->free_s, fr, sizeof(double) * (size_t)p);
    memcpy(out->last_end_s, fr, sizeof(double) * (size_t)p);
    for (int s = 0; s < p; s++)
        out->last_item_s[s] = cx_core_cost_chunk(c, s)->w_s;
    return 1;
}

int cx_core_replay_zb_sweep_pays(const cx_cost *c)
{
    /* ZB-H2 below m = 5p: its drains' period-2 sawtooths overflow */
    const int lo = c->sched == &cx_sched_zb_h2 ? 5 : 3;
    return c->m >= lo * c->p && (c->m >= 360 || c->m >= 12 * c->p);
}

/* ZB-H2's stage on the lattices j = 2i + r (its functions hold period-2
 * sawtooths in j, lines on each lattice): with c_r(i) = c(2i + r),
 *   g_r(i)  = max(Bin_r(i) + c_r(i), Fin_r(i) + F'), Fin_r(i) = y_{s−1,r}(i − 1)
 *             (i >= 1; i = 0: the warm-up forward u_{s−1}(w + r));
 *   y_0(i)  = max(y_0(i − 1) + c_1(i − 1) + c_0(i), g_1(i − 1) + c_0(i), g_0(i)),
 *             y_0(0) = max(y(−1) + c_0(0), g_0(0));
 *   y_1(i)  = max(y_0(i) + c_1(i), g_1(i));
 *   b_0(i)  = max(y_1(i − 1), Bin_0(i)) + B' (y(−1) at i = 0),
 *   b_1(i)  = max(y_0(i), Bin_1(i)) + B'.
 * 0 on too many segments. */
static int stage2(const zb_in *in, int s, cx_pl *const *yin, cx_pl *const *bin, cx_pl *const *g,
                  cx_pl *const *y, cx_pl *const *b)
{
    const int p = in->p, m = in->m;
    const int w = 2 * (p - s) - 1, e = m - w, n[2] = {(m + 1) / 2, m / 2};
    const int E[2] = {(e + 1) / 2, e / 2};
    const double Bq = in->bd[s], Wq = in->wd[s], Fq = in->fd[s];
    const double y0 = in->S[s] + (double)(w - 1) * in->M[s];
    int over = 0;
#define ZB_C(r, i) (Bq + ((i) >= s ? Wq : 0) + ((i) < E[r] ? Fq : 0))
    for (int r = 0; r < 2; r++) {
        cx_pl_bld og = {g[r], 0};
        g[r]->n = 0;
        cur cb = {bin ? bin[r] : NULL, 0, 0}, cf = {yin ? yin[r] : NULL, 0, 1};
        const int c4[4] = {1, s, E[r], n[r]};
        for (int i = 0; i < n[r];) {
            int rhi = n[r] - 1;
            for (int k = 0; k < 4; k++)
                if (c4[k] > i && c4[k] - 1 < rhi) rhi = c4[k] - 1;
            const double cj = ZB_C(r, i);
            const int fmode = s == 0 || i >= E[r] ? 0 : i == 0 ? 1 : yin ? 2 : 0;
            for (int j = i; j <= rhi;) {
                double vb = -HUGE_VAL, kb = 0, vf = -HUGE_VAL, kf = 0;
                int hi = rhi;
                if (bin) {
                    const int hb = at(&cb, j, &vb, &kb);
                    if (hb < hi) hi = hb;
                    vb += cj;
                }
                if (fmode == 1) {
                    vf = in->S[s - 1] + (double)(w + r) * in->M[s - 1] + Fq, kf = 0;
                } else if (fmode == 2) {
                    const int hf = at(&cf, j, &vf, &kf);
                    if (hf < hi) hi = hf;
                    vf += Fq;
                }
                cx_pl_max2(&og, j, hi, vb, kb, vf, kf);
                j = hi + 1;
            }
            i = rhi + 1;
        }
        finish(&og, n[r]);
        over |= og.over;
    }
    if (over) return 0;
    /* y_0: the ride over max(g_0(i), g_1(i − 1) + c_0(i)) at c_1(i − 1) + c_0(i) */
    cx_pl_bld oy = {y[0], 0};
    y[0]->n = 0;
    double prev = y0;
    {
        cur c0 = {g[0], 0, 0}, c1 = {g[1], 0, 1};
        const int c6[6] = {1, s, s + 1, E[0], E[1] + 1, n[0]};
        for (int i = 0; i < n[0];) {
            int rhi = n[0] - 1;
            for (int k = 0; k < 6; k++)
                if (c6[k] > i && c6[k] - 1 < rhi) rhi = c6[k] - 1;
            const double c0i = ZB_C(0, i), rate = i == 0 ? c0i : ZB_C(1, i - 1) + c0i;
            for (int j = i; j <= rhi;) {
                double va, ka, vb = -HUGE_VAL, kb = 0;
                int hi = at(&c0, j, &va, &ka);
                if (hi > rhi) hi = rhi;
                if (j >= 1) {
                    const int h1 = at(&c1, j, &vb, &kb);
                    if (h1 < hi) hi = h1;
                    vb += c0i;
                }
                ride_max(&oy, NULL, j, hi, va, ka, vb, kb, rate, &prev);
                j = hi + 1;
            }
            i = rhi + 1;
        }
    }
    finish(&oy, n[0]);
    /* y_1 = max(y_0 + c_1, g_1) */
    cx_pl_bld o1 = {y[1], 0};
    y[1]->n = 0;
    {
        cur ca = {y[0], 0, 0}, cg = {g[1], 0, 0};
        const int c3[3] = {s, E[1], n[1]};
        for (int i = 0; i < n[1];) {
            int rhi = n[1] - 1;
            for (int k = 0; k < 3; k++)
                if (c3[k] > i && c3[k] - 1 < rhi) rhi = c3[k] - 1;
            const double c1i = ZB_C(1, i);
            for (int j = i; j <= rhi;) {
                double va, ka, vb, kb;
                int hi = at(&ca, j, &va, &ka);
                const int hg = at(&cg, j, &vb, &kb);
                if (hg < hi) hi = hg;
                if (hi > rhi) hi = rhi;
                cx_pl_max2(&o1, j, hi, va + c1i, ka, vb, kb);
                j = hi + 1;
            }
            i = rhi + 1;
        }
    }
    finish(&o1, n[1]);
#undef ZB_C
    if (oy.over || o1.over) return 0;
    /* b_0 from y_1(i − 1), b_1 from y_0(i) */
    for (int r = 0; r < 2; r++)
        over |= !b_of(b[r], y[1 - r], 1 - r, bin ? bin[r] : NULL, n[r], y0, Bq);
    return !over;
}

static int family_h(const cx_sched_desc *sd)
{
    return sd == &cx_sched_zb_h1 ? 1 : sd == &cx_sched_zb_h2 ? 2 : 0;
}

/* builds stage s's b from its y where it was left to y's shift (stale) */
static int build_b(const zb_in *in, cx_zb_sweep_ws *ws, int s)
{
    ws->stale[s] = 0;
    if (!stage_b(in, s, ws->y[s], NULL, ws->b[s])) return 0;
    if (ws->b[s]->n > ws->segs) ws->segs = ws->b[s]->n;
    return 1;
}

/* the sweeps on nr functions a stage (1: on j; 2: ZB-H2 on the lattices
 * j = 2i + r); 0 where not certified within the bounds */
static int sweeps(const zb_in *inp, cx_zb_sweep_ws *ws, int nr, cx_replay *out)
{
    const zb_in in = *inp;
    const int p = in.p, m = in.m, h = in.h, last = p - 1;
    const double *fd = in.fd, *bd = in.bd, *wd = in.wd;
    const int nn[2] = {nr == 2 ? (m + 1) / 2 : m, m / 2};
    int ver = 0;
    for (int s = 0; s < p; s++)
        ws->ver_y[s] = ws->ver_b[s] = ws->used_f[s] = ws->used_b[s] = -1, ws->stale[s] = 0;
    for (int sw = 0;; sw++) {
        if (sw == MAX_SWEEPS) return 0;
        int ran = 0;
        for (int i = 0; i < p; i++) {
            const int s = sw % 2 ? last - i : i;
            const int vf = s > 0 ? ws->ver_y[s - 1] : 0, vb = s < last ? ws->ver_b[s + 1] : 0;
            const int new_f = vf != ws->used_f[s], new_b = vb != ws->used_b[s];
            if (ws->ver_y[s] >= 0 && !new_f && !new_b) continue;
            /* one input changed and stays below the stage's functions
             * (Fin + F' <= y, Bin + B' <= b): nothing changes */
            if (ws->ver_y[s] >= 0 && new_f != new_b && !(new_b && ws->stale[s])) {
                const int e = m - (h * (p - s) - h + 1);
                int ok = 1;
                if (new_b && ws->stale[s + 1] && !build_b(&in, ws, s + 1)) return 0;
                for (int r = 0; r < nr && ok; r++)
                    ok = new_f ? (nr == 1 ? below(ws->y[s - 1], h, fd[s], ws->y[s], h, e)
                                          : below(ws->y[2 * (s - 1) + r], 1, fd[s],
                                                  ws->y[2 * s + r], 1, (e - r + 1) / 2))
                               : below(ws->b[nr * (s + 1) + r], 0, bd[s], ws->b[nr * s + r], 0,
                                       nn[r]);
                if (ok) {
                    ws->used_f[s] = vf, ws->used_b[s] = vb;
                    ws->checks++;
                    continue;
                }
            }
            ran++;
            cx_pl **yin = s > 0 && vf >= 0 ? &ws->y[nr * (s - 1)] : NULL;
            cx_pl **bin = s < last && vb >= 0 ? &ws->b[nr * (s + 1)] : NULL;
            /* on j without Bin, b is y's shift plus B' (built when read,
             * build_b: the up sweep's b are mostly replaced unread) */
            const int lazy = nr == 1 && !bin;
            if (bin && nr == 1 && ws->stale[s + 1] && !build_b(&in, ws, s + 1)) return 0;
            if (nr == 1 ? !stage(&in, s, yin ? yin[0] : NULL, bin ? bin[0] : NULL, ws->ny[0],
                                 lazy ? NULL : ws->nb[0], ws)
                        : !stage2(&in, s, yin, bin, ws->g, ws->ny, ws->nb))
                return 0;
            /* first with an input it lacked before: changed (a version
             * more costs at most a recomputation) */
            const int fresh = ws->ver_y[s] < 0 || (ws->used_f[s] < 0 && vf >= 0 && s > 0) ||
                              (ws->used_b[s] < 0 && vb >= 0 && s < last);
            ws->used_f[s] = vf, ws->used_b[s] = vb;
            int cy = fresh, cb = fresh || (!lazy && ws->stale[s]);
            for (int r = 0; r < nr; r++) {
                cy = cy || differ(ws->ny[r], ws->y[nr * s + r], nn[r]);
                if (ws->ny[r]->n > ws->segs) ws->segs = ws->ny[r]->n;
                if (lazy) continue;
                cb = cb || differ(ws->nb[r], ws->b[nr * s + r], nn[r]);
                if (ws->nb[r]->n > ws->segs) ws->segs = ws->nb[r]->n;
            }
            if (lazy) cb = cy; /* b follows y */
            for (int r = 0; r < nr; r++) {
                cx_pl *t;
                if (cy) t = ws->y[nr * s + r], ws->y[nr * s + r] = ws->ny[r], ws->ny[r] = t;
                if (cb && !lazy)
                    t = ws->b[nr * s + r], ws->b[nr * s + r] = ws->nb[r], ws->nb[r] = t;
            }
            if (cb) ws->stale[s] = lazy;
            if (cy) ws->ver_y[s] = ++ver;
            if (cb) ws->ver_b[s] = ++ver;
        }
        ws->evals += ran;
        ws->sweeps = sw + 1;
        if (!ran) break;
    }
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        const int r = nr == 2 ? (m - 1) & 1 : 0;
        const cx_pl *f = ws->y[nr * s + r];
        const double t = cx_pl_last_at(f, nn[r] - 1) + (double)(h * s) * wd[s];
        out->free_s[s] = out->last_end_s[s] = t;
        out->last_item_s[s] = wd[s];
        if (t > out->makespan_s) out->makespan_s = t;
    }
    return 1;
}

int cx_core_replay_zb_sweep(const cx_cost *c, cx_zb_sweep_ws *ws, cx_replay *out)
{
    const cx_sched_desc *sd = c->sched;
    const int h = family_h(sd);
    ws->evals = ws->checks = ws->sweeps = ws->segs = ws->b_fin = ws->b_rebuilt = 0;
    if (!h || sd->p2p_overlap || c->v != 1) return 0;
    const int p = c->p, m = c->m, last = p - 1;
    if (p < 2 || p > CX_COST_MAX_STAGES || m < h * (p + 1) + 1 || !reserve(ws, p)) return 0;
    const double pp = c->p2p_s;
    double fd[CX_COST_MAX_STAGES], bd[CX_COST_MAX_STAGES], wd[CX_COST_MAX_STAGES],
        S[CX_COST_MAX_STAGES], M[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++) {
        const cx_chunk_cost *cc = cx_core_cost_chunk(c, s);
        fd[s] = cc->f_s + cc->tp_f_s + (s < last ? pp : 0);
        bd[s] = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s + (s > 0 ? pp : 0);
        wd[s] = cc->w_s;
        S[s] = (s ? S[s - 1] : 0) + fd[s];
        M[s] = s && M[s - 1] > fd[s] ? M[s - 1] : fd[s];
    }
    const zb_in in = {p, m, h, fd, bd, wd, S, M};
    /* on j first; ZB-H2 where its sawtooths overflow: on the lattices */
    return sweeps(&in, ws, 1, out) || (h == 2 && sweeps(&in, ws, 2, out));
}

int cx_core_replay_zb_sweep_pays_batch(const cx_cost *c)
{
    /* a batch plays ~3-7 of a curve's clocks (replay_clocks.c) in 4-lane
     * passes of the plain program (~3pm items) against the sweep's O(p) a
     * point: from an m on whatever p, down to where the sweep declines
     * (m < p + 2; ZB-H2's sawtooths overflow more below 4p). Measured
     * (callgrind, fast-only sweep_bench schedules, 21 clocks, x10^6
     * instructions): ZB-H1 the gate above 622.8; m >= 1.5p and m >= 0 /
     * 64 / 96 / 128 / 192: 567.7 / 564.5 / 563.2 / 562.5 / 564.6; m >= p,
     * 2p, 3p (m >= 128): 562.5, 573.1, 587.9. ZB-H2 the gate above 646.5;
     * m >= 4p and m >= 0 / 96 / 128 / 192: 588.7 / 589.2 / 590.1 / 592.0;
     * m >= 2p, 3p, 5p (m >= 128): 603.5, 602.7, 644.2; with the first
     * round's fill (replay_clocks.c) m >= 3p / 4p / 5p: 593.8 / 566.9 /
     * 603.6. */
    if (c->sched != &cx_sched_zb_h1 && c->sched != &cx_sched_zb_h2) return 0;
    const int lo = c->sched == &cx_sched_zb_h2 ? 8 : 3; /* 2m / p */
    return 2 * (int64_t)c->m >= (int64_t)lo * c->p && c->m >= 128;
}
