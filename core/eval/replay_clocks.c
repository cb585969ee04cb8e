/*
 * replay_clocks.c — the replay at every clock of a sweep from a few of
 * them (issue 13). No constants from outside: the tolerances are rounding
 * margins, chosen far below the fast paths' agreement target (1e-9).
 *
 * Why it is exact. The replay is a max-plus program of its durations (the
 * time key: per chunk class the F, B, W, R and TP times, and the p2p time,
 * replay_lanes.h): every result (makespan, a stage's last end and free
 * time) is the longest of a fixed set of paths, each a sum of durations,
 * so it is a convex function of the key, and a stage's last item is one
 * duration (linear). The orders do not depend on the durations. Take two
 * clocks s, e and the segment K(l) = (1 - l) K_s + l K_e of keys between
 * theirs: each result f(l) is convex on [0, 1], so f <= its chord. If at a
 * point l_m inside, f(l_m) is on the chord, then f is the chord on the
 * whole segment (for l < l_m: f(l_m) <= mix of f(l) and f(1), so f(l) >=
 * chord(l); likewise above). With rounding, a gap d at l_m bounds the gap
 * anywhere by d / min(l_m, 1 - l_m). So a clock j whose key lies on the
 * segment (K_j = K(l_j) component by component, to rounding) has f(K_j) =
 * f_s + l_j (f_e - f_s) for every result, without its play.
 *
 * The keys of one cost shape at its clocks lie on one line while no op
 * changes between compute- and memory-bound (an op's time is max(compute x
 * f_max / f, memory), cost.c): maximal runs of clocks whose keys are
 * collinear are found first, their ends and one or two points inside
 * evaluated together (the caller plays them, in clock lanes where it can:
 * two inside then, next to the ends, a 4-lane pass costing about what 3
 * lanes do; the ends' lines then meet at a kink anywhere inside, and a
 * kink in an end gap leaves nothing to play). Points the caller answers
 * cheaply (pre: the interleaved formula) are evaluated before, and count
 * as evaluated points; where at most fill points are left then (a lanes
 * pass holds 4 for the price of 1), all are played in the first round.
 * Then, in each run, every gap between consecutive evaluated points is
 * certified by a triple of consecutive evaluated points spanning it (x, a,
 * b) or (a, b, y) whose middle lies on its ends' chord (f linear on the
 * triple, so on the gap the chord of a and b): its points are interpolated
 * from a and b, each key checked on the segment a..b (else played). An
 * uncertified gap gets the points around its results' kinks located by its
 * neighbours' lines (kink_points), else, at an end of its run, the point
 * next to that end (so that the gap beside it has neighbours on both
 * sides: its kinks located next), else its midpoint, in the next round;
 * where the caller played in lanes (a 4-lane pass costs the same for 1
 * to 4 points, a 16-lane one 2.2 to 3.2 times as much, README), in
 * every round the two points around each result's located kink
 * (kink_brackets; all of the gap where none is located), all the points
 * of the uncertified gaps where they are at most fill, else the pass's
 * free lanes filled with the points beside those. Every choice of points
 * is only that: results come from plays or certified gaps whatever it
 * picks, so the proof above covers them. Measured on bench_sweep_bench's
 * schedules (21 clocks): see core/README.md, "Clock segments".
 *
 * Tangents (cx_core_replay_clocks_run_tan; the V sweep's batches, session
 * 26). An evaluator that also gives each result's derivative along the
 * run's key line (that of a path whose length the result is: the winner
 * of every maximum, ties either) gives a line below the result along the
 * whole run (the path's durations are affine along it) touching it at
 * the point: where f(b) <= a's line at b (to RES_TOL), f, convex, lies
 * between that line and the chord on [a, b]: it is the chord there. So a
 * run is played from its ends only, a gap certified by either end's line
 * (the triples too), and an uncertified gap gets the points around where
 * its ends' lines meet (the kink, when single; else its midpoint). A
 * point shared by two runs has its derivatives along the later run only.
 * Measured, bench_sweep_bench schedules zb-v (21 clocks, 12 V-sweep
 * batches, each one run): sweeps 76 -> 55 (linear batches 7 x 3 -> 7 x
 * 2; the 5 with kinks 55 -> 41: about two points a kink, the kinks lying
 * between consecutive clocks), dualpipev 41 -> 26; core/README.md,
 * "ZB-V and DualPipeV swept", session 26.
 *
 * The results at a clock then depend on the whole set of clocks and the
 * cost's curve (cx_cost.curve), not on the key alone; the replay memo
 * keys them by both (replay.c), so a sweep stays identical for any thread
 * or MPI rank count.
 */
#include "core/eval/replay_clocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* relative rounding margins: a key component off the run's line, and a
 * result's certified gap anywhere on the segment */
#define KEY_TOL 1e-12
#define RES_TOL 1e-12
/* a midpoint this close to an end certifies nothing useful: split */
#define MID_MIN 1e-3

struct cx_replay_clocks {
    int cap_n, cap_len, cap_dk;
    double *rows, *drows, *dirs; /* drows, dirs: the tangent mode's */
    unsigned char *st;           /* 0 unknown, 1 evaluated, 2 interpolated, 3 listed */
    unsigned char *has;          /* a point's derivatives in drows */
    int *list, *pend, *next, *gap, *runof;
    double *lp;
};

static long long n_eval, n_interp;

void cx_core_replay_clocks_counts(long long *evaluated, long long *interpolated)
{
    *evaluated = __atomic_load_n(&n_eval, __ATOMIC_RELAXED);
    *interpolated = __atomic_load_n(&n_interp, __ATOMIC_RELAXED);
}

void cx_core_replay_row_pack(const cx_replay *r, int p, double *row)
{
    row[0] = r->makespan_s;
    memcpy(row + 1, r->last_end_s, (size_t)p * sizeof *row);
    memcpy(row + 1 + p, r->last_item_s, (size_t)p * sizeof *row);
    memcpy(row + 1 + 2 * p, r->free_s, (size_t)p * sizeof *row);
}

void cx_core_replay_row_unpack(const double *row, int p, cx_replay *r)
{
    r->makespan_s = row[0];
    memcpy(r->last_end_s, row + 1, (size_t)p * sizeof *row);
    memcpy(r->last_item_s, row + 1 + p, (size_t)p * sizeof *row);
    memcpy(r->free_s, row + 1 + 2 * p, (size_t)p * sizeof *row);
}

cx_replay_clocks *cx_core_replay_clocks_new(void)
{
    return calloc(1, sizeof(cx_replay_clocks));
}

void cx_core_replay_clocks_free(cx_replay_clocks *cs)
{
    if (!cs) return;
    free(cs->rows), free(cs->st), free(cs->list), free(cs->pend), free(cs->next);
    free(cs->gap), free(cs->lp);
    free(cs->drows), free(cs->dirs), free(cs->has), free(cs->runof);
    free(cs);
}

static int reserve(cx_replay_clocks *cs, int n, int len)
{
    if (n > cs->cap_n) {
        free(cs->st), free(cs->list), free(cs->pend), free(cs->next), free(cs->gap), free(cs->lp);
        free(cs->has), free(cs->runof);
        cs->st = malloc((size_t)n);
        cs->has = malloc((size_t)n);
        cs->gap = malloc((size_t)2 * (size_t)n * sizeof *cs->gap);
        cs->lp = malloc((size_t)n * sizeof *cs->lp);
        cs->list = malloc((size_t)n * sizeof *cs->list);
        cs->runof = malloc((size_t)n * sizeof *cs->runof);
        cs->pend = malloc((size_t)2 * (size_t)n * sizeof *cs->pend);
        cs->next = malloc((size_t)2 * (size_t)n * sizeof *cs->next);
        cs->cap_n =
            cs->st && cs->has && cs->list && cs->runof && cs->pend && cs->next && cs->gap && cs->lp
                ? n
                : 0;
        if (!cs->cap_n) return 0;
        cs->cap_len = cs->cap_dk = 0; /* rows below, for the new n */
    }
    if ((size_t)n * (size_t)len > (size_t)cs->cap_len) {
        free(cs->rows);
        cs->rows = malloc((size_t)n * (size_t)len * sizeof *cs->rows);
        cs->cap_len = cs->rows ? n * len : 0;
        if (!cs->rows) return 0;
    }
    return 1;
}

/* max(|a|, |b|) without libm's fmax call (a PLT call with spills per
 * component: ~1% of a ZB-V sweep in on_segment_q); the same value for
 * finite inputs, and every test it feeds compares a NaN input's gap too. */
static inline double abs_max(double a, double b)
{
    const double x = fabs(a), y = fabs(b);
    return x > y ? x : y;
}

/* the component along which keys ks and ke differ most (-1: equal) */
static int seg_axis(const double *ks, const double *ke, int nkey)
{
    int q = -1;
    double dq = 0;
    for (int x = 0; x < nkey; x++) {
        const double d = fabs(ke[x] - ks[x]);
        if (d > dq) dq = d, q = x;
    }
    return q;
}

/* on_segment with the segment's axis q (seg_axis) given */
static int on_segment_q(const double *ks, const double *ke, const double *kj, int nkey, int q,
                        double *lam)
{
    if (q < 0) {
        *lam = 0;
        return memcmp(ks, kj, (size_t)nkey * sizeof *kj) == 0;
    }
    const double l = (kj[q] - ks[q]) / (ke[q] - ks[q]);
    if (!(l >= 0 && l <= 1)) return 0;
    for (int x = 0; x < nkey; x++) {
        const double gap = fabs(ks[x] + l * (ke[x] - ks[x]) - kj[x]);
        if (!(gap <= KEY_TOL * abs_max(ks[x], ke[x]))) return 0;
    }
    *lam = l;
    return 1;
}

/* A segment ks -> ke of at most SEG_MAX components prepared for the
 * points of one certified gap (on_seg_at): per component the difference
 * and the tolerance on_segment_q computes for every point, once (the same
 * values, so the same answers and places). */
#define SEG_MAX 512
typedef struct {
    const double *ks;
    int q, nkey;
    double d[SEG_MAX], tol[SEG_MAX];
} seg_pre;

static void seg_prepare(seg_pre *sg, const double *ks, const double *ke, int nkey, int q)
{
    sg->ks = ks, sg->q = q, sg->nkey = nkey;
    for (int x = 0; x < nkey; x++)
        sg->d[x] = ke[x] - ks[x], sg->tol[x] = KEY_TOL * abs_max(ks[x], ke[x]);
}

/* on_segment_q(ks, ke, kj, nkey, q, lam) of the prepared segment */
static int on_seg_at(const seg_pre *sg, const double *kj, double *lam)
{
    const double *ks = sg->ks;
    if (sg->q < 0) {
        *lam = 0;
        return memcmp(ks, kj, (size_t)sg->nkey * sizeof *kj) == 0;
    }
    const double l = (kj[sg->q] - ks[sg->q]) / sg->d[sg->q];
    if (!(l >= 0 && l <= 1)) return 0;
    for (int x = 0; x < sg->nkey; x++) {
        const double gap = fabs(ks[x] + l * sg->d[x] - kj[x]);
        if (!(gap <= sg->tol[x])) return 0;
    }
    *lam = l;
    return 1;
}

/* 1 and *lam when key kj lies on the segment from ks to ke (to KEY_TOL per
 * component), l in [0, 1] along their largest component; equal end keys:
 * kj equal to them, l = 0. */
static int on_segment(const double *ks, const double *ke, const double *kj, int nkey, double *lam)
{
    return on_segment_q(ks, ke, kj, nkey, seg_axis(ks, ke, nkey), lam);
}

/* 1 when every result at m lies on the chord from s to e closely enough
 * that the whole segment is certified (see the top of the file) */
static int certified(const double *fs, const double *fm, const double *fe, int len, double lm)
{
    const double w = fmin(lm, 1.0 - lm);
    if (!(w >= MID_MIN)) return 0;
    for (int x = 0; x < len; x++) {
        const double gap = fabs(fs[x] + lm * (fe[x] - fs[x]) - fm[x]);
        if (!(gap <= RES_TOL * w * abs_max(fs[x], fe[x]))) return 0;
    }
    return 1;
}

/* Is the gap between evaluated points a < b of a run certified: a triple
 * of consecutive evaluated points (x, a, b) or (a, b, y) of the run whose
 * middle result lies on the chord of its ends (f is then linear on the
 * triple's span, so on [a, b] it is the chord of a and b)? E: the run's
 * evaluated points in order, i: a's place there. */
static int gap_certified(const int *E, int ne, int i, const double *keys, int nkey, const double *R,
                         int len)
{
#define K(q) (keys + (size_t)(q) * (size_t)nkey)
#define ROW(q) (R + (size_t)(q) * (size_t)len)
    for (int t = i - 1; t <= i; t++) {
        if (t < 0 || t + 2 >= ne) continue;
        const int a = E[t], m = E[t + 1], b = E[t + 2];
        double lm;
        if (on_segment(K(a), K(b), K(m), nkey, &lm) && certified(ROW(a), ROW(m), ROW(b), len, lm))
            return 1;
    }
    return 0;
#undef K
#undef ROW
}

/* kj's place on the line from ks (0) to ke (1), along their largest
 * component q (seg_axis; 0 where they are equal) */
static double place(const double *ks, const double *ke, const double *kj, int q)
{
    return q < 0 ? 0 : (kj[q] - ks[q]) / (ke[q] - ks[q]);
}

/* Result q's kink inside the gap a < b by its neighbours' lines (through
 * x, a and through b, y; lx < 0 and ly > 1 their places on a's line to
 * b): 1 and *l the place where they meet in [0, 1]; 0 where the result is
 * linear through the gap on either side's line or the lines do not meet
 * inside. */
static int kink_of(const double *fx, const double *fa, const double *fb, const double *fy,
                   double lx, double ly, int q, double *l)
{
    const double sl = (fa[q] - fx[q]) / -lx, sr = (fy[q] - fb[q]) / (ly - 1);
    const double tol = RES_TOL * abs_max(fa[q], fb[q]);
    if (!(fabs(fa[q] + sl - fb[q]) > tol && fabs(fb[q] - sr - fa[q]) > tol)) return 0;
    if (!(sr > sl)) return 0;
    *l = (fb[q] - sr - fa[q]) / (sl - sr);
    return *l >= 0 && *l <= 1;
}

/* In lanes: the points around each result's kink located in an
 * uncertified gap a < b by its neighbours' lines (E, ne, i as
 * gap_certified; see kink_points), every place's two nearest points
 * inside (one where the place is a point or lies beside an end), added to
 * list (st 3) where not there yet. A result with one kink in the gap has
 * it there exactly; with several, the lines meet between its outer kinks,
 * and the next round's neighbours (the points added here) locate them in
 * turn. Only a choice of points, as kink_points. Returns the number
 * added; 0 where no kink is located (no neighbour on a side). */
static int kink_brackets(const int *E, int ne, int i, const double *keys, int nkey, const double *R,
                         int len, unsigned char *st, int *list, int *nl, double *lp)
{
#define K(q) (keys + (size_t)(q) * (size_t)nkey)
#define ROW(q) (R + (size_t)(q) * (size_t)len)
    if (i < 1 || i + 2 >= ne) return 0;
    const int x = E[i - 1], a = E[i], b = E[i + 1], y = E[i + 2];
    const int qab = seg_axis(K(a), K(b), nkey);
    const double lx = place(K(a), K(b), K(x), qab), ly = place(K(a), K(b), K(y), qab);
    if (!(lx < 0 && ly > 1)) return 0;
    for (int j = a + 1; j < b; j++)
        lp[j - a] = place(K(a), K(b), K(j), qab);
    const double *fx = ROW(x), *fa = ROW(a), *fb = ROW(b), *fy = ROW(y);
    int added = 0, found = 0;
    /* places in point order (the usual case: keys monotone in the clock):
     * each place's bracket by bisection, the points the scan below finds */
    int sorted = 1;
    for (int j = a + 2; j < b; j++)
        sorted &= lp[j - a] >= lp[j - 1 - a];
    for (int q = 0; q < len; q++) {
        double l;
        if (!kink_of(fx, fa, fb, fy, lx, ly, q, &l)) continue;
        found = 1;
        int j1 = -1, j2 = -1;
        if (sorted) {
            /* j1: the last point with lp <= l + 1e-9; j2: the first with
             * lp >= l - 1e-9 (-1: none) */
            int lo = a + 1, hi = b; /* first with lp > l + 1e-9 in [lo, hi] */
            while (lo < hi) {
                const int mid = lo + (hi - lo) / 2;
                if (lp[mid - a] <= l + 1e-9)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            j1 = lo > a + 1 ? lo - 1 : -1;
            lo = a + 1, hi = b; /* first with lp >= l - 1e-9 */
            while (lo < hi) {
                const int mid = lo + (hi - lo) / 2;
                if (lp[mid - a] >= l - 1e-9)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            j2 = lo < b ? lo : -1;
        } else {
            for (int j = a + 1; j < b; j++) {
                if (lp[j - a] <= l + 1e-9) j1 = j;
                if (lp[j - a] >= l - 1e-9 && j2 < 0) j2 = j;
            }
        }
        if (j1 >= 0 && st[j1] != 3) st[j1] = 3, list[(*nl)++] = j1, added++;
        if (j2 >= 0 && st[j2] != 3) st[j2] = 3, list[(*nl)++] = j2, added++;
    }
    return found ? added + (added == 0) : 0;
#undef K
#undef ROW
}

/* An uncertified gap between evaluated points a < b of a run with
 * evaluated neighbours x < a and y > b (E, ne, i as gap_certified):
 * where a result is linear on [x, a] and on [b, y] with one kink in
 * between, the kink is where the two lines meet. *j1, *j2: the last
 * point inside at or below the lowest such place over the results and
 * the first at or above the highest (-1 none), so that [x, j1] and [j2,
 * y] are linear when the kinks are single (their gaps certified by the
 * next round's triples). Only a choice of points: results come from
 * certified gaps or plays whatever it picks. */
static void kink_points(const int *E, int ne, int i, const double *keys, int nkey, const double *R,
                        int len, int *j1, int *j2)
{
#define K(q) (keys + (size_t)(q) * (size_t)nkey)
#define ROW(q) (R + (size_t)(q) * (size_t)len)
    *j1 = *j2 = -1;
    if (i < 1 || i + 2 >= ne) return;
    const int x = E[i - 1], a = E[i], b = E[i + 1], y = E[i + 2];
    const int qab = seg_axis(K(a), K(b), nkey);
    const double lx = place(K(a), K(b), K(x), qab), ly = place(K(a), K(b), K(y), qab);
    if (!(lx < 0 && ly > 1)) return;
    const double *fx = ROW(x), *fa = ROW(a), *fb = ROW(b), *fy = ROW(y);
    double lo = 2, hi = -1;
    for (int q = 0; q < len; q++) {
        double l;
        if (kink_of(fx, fa, fb, fy, lx, ly, q, &l)) lo = fmin(lo, l), hi = fmax(hi, l);
    }
    if (hi < 0) return;
    for (int j = a + 1; j < b; j++) {
        const double lj = place(K(a), K(b), K(j), qab);
        if (lj <= lo + 1e-9) *j1 = j;
        if (lj >= hi - 1e-9 && *j2 < 0) *j2 = j;
    }
#undef K
#undef ROW
}

/* 1 when point a has derivatives along the run that starts at s: taken
 * along its own run's line (runof; a point shared by two runs, the end of
 * one and the start of the next, took the later's) */
static int has_along(const cx_replay_clocks *cs, int a, int s)
{
    return cs->has[a] && cs->runof[a] == cs->runof[s];
}

/* Tangents (where the evaluator gives each result's derivative along the
 * run's key line, cx_clocks_tan_fn): a result's derivative at a is that
 * of a path whose length it is there, and that length is linear along the
 * line (its durations are), below the result everywhere (a maximum over
 * paths); so where f(b) does not exceed a's line at b, the chord of a and
 * b lies within the margin above that line, f between them: f is the
 * chord on [a, b] (and likewise from b's line at a). Ties at a kink: any
 * path that wins gives such a line. 1 when every result of the gap a < b
 * of the run from s to e is certified so. */
static int tan_certified(const cx_replay_clocks *cs, int a, int b, int s, int e, const double *keys,
                         int nkey, int len)
{
#define K(q) (keys + (size_t)(q) * (size_t)nkey)
    const int ha = has_along(cs, a, s), hb = has_along(cs, b, s);
    if (!ha && !hb) return 0;
    const int q = seg_axis(K(s), K(e), nkey);
    const double w = place(K(s), K(e), K(b), q) - place(K(s), K(e), K(a), q);
    const double *fa = cs->rows + (size_t)a * (size_t)len, *fb = cs->rows + (size_t)b * (size_t)len;
    const double *ga = cs->drows + (size_t)a * (size_t)len,
                 *gb = cs->drows + (size_t)b * (size_t)len;
    for (int x = 0; x < len; x++) {
        const double tol = RES_TOL * abs_max(fa[x], fb[x]);
        if (!((ha && fb[x] - (fa[x] + ga[x] * w) <= tol) ||
              (hb && fa[x] - (fb[x] - gb[x] * w) <= tol)))
            return 0;
    }
    return 1;
#undef K
}

/* An uncertified gap a < b with tangents at both ends: a result with one
 * kink inside has it where the two lines meet. *j1, *j2: the last point
 * inside at or below the lowest such place over the results and the first
 * at or above the highest (-1 none): the next round's tangents at them
 * certify [a, j1] and [j2, b] when the kinks are single. Only a choice of
 * points (as kink_points). */
static void tan_points(const cx_replay_clocks *cs, int a, int b, int s, int e, const double *keys,
                       int nkey, int len, int *j1, int *j2)
{
#define K(q) (keys + (size_t)(q) * (size_t)nkey)
    *j1 = *j2 = -1;
    if (!has_along(cs, a, s) || !has_along(cs, b, s)) return;
    const int q = seg_axis(K(s), K(e), nkey);
    const double la = place(K(s), K(e), K(a), q), lb = place(K(s), K(e), K(b), q);
    const double *fa = cs->rows + (size_t)a * (size_t)len, *fb = cs->rows + (size_t)b * (size_t)len;
    const double *ga = cs->drows + (size_t)a * (size_t)len,
                 *gb = cs->drows + (size_t)b * (size_t)len;
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int x = 0; x < len; x++) {
        const double tol = RES_TOL * abs_max(fa[x], fb[x]);
        if (fb[x] - (fa[x] + ga[x] * (lb - la)) <= tol) continue; /* linear */
        if (!(gb[x] > ga[x])) continue;
        double l = (fb[x] - fa[x] + ga[x] * la - gb[x] * lb) / (ga[x] - gb[x]);
        l = fmin(fmax(l, la), lb);
        lo = fmin(lo, l), hi = fmax(hi, l);
    }
    if (hi < lo) return;
    for (int j = a + 1; j < b; j++) {
        const double lj = place(K(s), K(e), K(j), q);
        if (lj <= lo + 1e-9) *j1 = j;
        if (lj >= hi - 1e-9 && *j2 < 0) *j2 = j;
    }
#undef K
}

static int run(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p, int first,
               int fill, cx_clocks_pre_fn *pre, cx_clocks_eval_fn *eval, cx_clocks_tan_fn *tan,
               void *ctx, double **rows)
{
    const int len = cx_replay_row_len(p);
    if (n < 1 || !reserve(cs, n, len)) return -1;
    if (tan && (size_t)n * (size_t)(len > nkey ? len : nkey) > (size_t)cs->cap_dk) {
        free(cs->drows), free(cs->dirs);
        const size_t w = (size_t)n * (size_t)(len > nkey ? len : nkey);
        cs->drows = malloc(w * sizeof *cs->drows);
        cs->dirs = malloc(w * sizeof *cs->dirs);
        cs->cap_dk = cs->drows && cs->dirs ? (int)w : 0;
        if (!cs->cap_dk) return -1;
    }
    double *const R = cs->rows;
    *rows = R;
    memset(cs->st, 0, (size_t)n);
    memset(cs->has, 0, (size_t)n);
#define K(i) (keys + (size_t)(i) * (size_t)nkey)
#define ROW(i) (R + (size_t)(i) * (size_t)len)
    /* the points the caller answers cheaply (pre), evaluated */
    int npre = 0;
    if (pre) {
        if (pre(ctx, n, R, len, cs->st)) return -1;
        for (int i = 0; i < n; i++)
            npre += cs->st[i] = cs->st[i] != 0;
    }
    /* maximal runs of collinear keys: a run grows while its next key lies
     * on the segment from its first to the one after (each point checked
     * again, against its gap's ends, when interpolated); cs->pend holds
     * the runs' ends. The first round: every run's ends and 1 (first < 2,
     * the middle) or 2 points inside (next to the ends in runs of 6
     * points or more, else at the thirds); all points left where they
     * are at most fill. */
    int nl = 0, nrun = 0;
    if (n - npre <= fill) {
        for (int i = 0; i < n; i++)
            if (!cs->st[i]) cs->st[i] = 1, cs->list[nl++] = i;
    }
    if (n == 1 && !cs->st[0]) cs->st[0] = 1, cs->list[nl++] = 0;
    for (int s = 0; s < n - 1;) {
        int e = s + 1;
        while (e + 1 < n) {
            double l;
            if (!on_segment(K(s), K(e + 1), K(e), nkey, &l)) break;
            e++;
        }
        if (!cs->st[s]) cs->st[s] = 1, cs->list[nl++] = s;
        if (!cs->st[e]) cs->st[e] = 1, cs->list[nl++] = e;
        for (int j = s; j <= e; j++)
            cs->runof[j] = nrun;
        /* with tangents the ends alone (their lines certify a linear run) */
        const int k = tan ? 0 : first >= 2 ? 2 : 1;
        for (int q = 1; q <= k && e - s >= 2; q++) {
            /* two: next to the ends (where the run has 6 points or
             * more), so that a kink anywhere inside lies between the
             * ends' lines (kink_points) and one in an end gap leaves no
             * point to play; one: the middle */
            const int x =
                k == 2 && e - s >= 5 ? (q == 1 ? s + 1 : e - 1) : s + q * (e - s) / (k + 1);
            if (x > s && x < e && !cs->st[x]) cs->st[x] = 1, cs->list[nl++] = x;
        }
        cs->pend[2 * nrun] = s, cs->pend[2 * nrun + 1] = e, nrun++;
        s = e;
    }
    /* rounds: play the list; then in each run, each gap between
     * consecutive evaluated points with points left inside is certified
     * (interpolated) or gets its midpoint next (in lanes: all its points) */
    int evaluated = npre, interp = 0, wide = 0;
    int *const E = cs->next;
    seg_pre sg; /* a certified gap's segment */
    for (int round = 0; nl > 0 || round == 0; round++) {
        if (nl > 0 && tan) {
            /* each point's direction: its run's key line, end minus start */
            for (int q = 0; q < nl; q++) {
                /* one point alone (n 1): no run, no direction */
                const int r = nrun ? cs->runof[cs->list[q]] : -1;
                for (int x = 0; x < nkey; x++)
                    cs->dirs[(size_t)q * (size_t)nkey + (size_t)x] =
                        r < 0 ? 0 : K(cs->pend[2 * r + 1])[x] - K(cs->pend[2 * r])[x];
            }
            if (tan(ctx, cs->list, nl, cs->dirs, R, cs->drows, len, cs->has)) return -1;
        } else if (nl > 0 && eval(ctx, cs->list, nl, R, len, &wide)) {
            return -1;
        }
        evaluated += nl;
        nl = 0;
        int ng = 0, unc = 0; /* in lanes: the uncertified gaps, their points */
        for (int r = 0; r < nrun; r++) {
            const int s = cs->pend[2 * r], e = cs->pend[2 * r + 1];
            int ne = 0;
            for (int j = s; j <= e; j++)
                if (cs->st[j] == 1) E[ne++] = j;
            for (int i = 0; i + 1 < ne; i++) {
                const int a = E[i], b = E[i + 1];
                if (b - a < 2 || cs->st[a + 1] == 2) continue; /* nothing left inside */
                if (gap_certified(E, ne, i, keys, nkey, R, len) ||
                    (tan && tan_certified(cs, a, b, s, e, keys, nkey, len))) {
                    const int q = seg_axis(K(a), K(b), nkey), prep = nkey <= SEG_MAX;
                    if (prep) seg_prepare(&sg, K(a), K(b), nkey, q);
                    for (int j = a + 1; j < b; j++) {
                        double lj;
                        if (!(prep ? on_seg_at(&sg, K(j), &lj)
                                   : on_segment_q(K(a), K(b), K(j), nkey, q, &lj))) {
                            cs->st[j] = 3, cs->list[nl++] = j; /* played next round */
                            continue;
                        }
                        const double *fa = ROW(a), *fb = ROW(b);
                        double *fj = ROW(j);
                        for (int x = 0; x < len; x++)
                            fj[x] = fa[x] + lj * (fb[x] - fa[x]);
                        cs->st[j] = 2, interp++;
                    }
                } else if (wide) {
                    /* in lanes: the points around each located kink
                     * (kink_brackets), else all of the gap's */
                    if (!kink_brackets(E, ne, i, keys, nkey, R, len, cs->st, cs->list, &nl, cs->lp))
                        for (int j = a + 1; j < b; j++)
                            if (cs->st[j] != 3) cs->st[j] = 3, cs->list[nl++] = j;
                    unc += b - a - 1;
                    cs->gap[2 * ng] = a, cs->gap[2 * ng + 1] = b, ng++;
                } else {
                    /* where the gap's kinks lie by its neighbours' lines;
                     * else, in a gap at an end of the run, the point next
                     * to that end (its line with the end's meets the line
                     * beyond the gap's other side at a kink: the next
                     * round locates it); else its midpoint */
                    int j1, j2;
                    if (tan)
                        tan_points(cs, a, b, s, e, keys, nkey, len, &j1, &j2);
                    else
                        kink_points(E, ne, i, keys, nkey, R, len, &j1, &j2);
                    if (j1 < 0 && j2 < 0 && b - a >= 3 && !tan) {
                        if (a == s)
                            j1 = a + 1;
                        else if (b == e)
                            j1 = b - 1;
                    }
                    if (j1 < 0 && j2 < 0) j1 = a + (b - a) / 2;
                    if (j1 >= 0) cs->st[j1] = 3, cs->list[nl++] = j1;
                    if (j2 >= 0 && j2 != j1) cs->st[j2] = 3, cs->list[nl++] = j2;
                }
            }
        }
        /* in lanes, where the uncertified gaps hold at most fill points:
         * all of them (the pass costs the same) */
        if (unc > nl && unc <= fill)
            for (int g = 0; g < ng; g++)
                for (int j = cs->gap[2 * g] + 1; j < cs->gap[2 * g + 1]; j++)
                    if (cs->st[j] != 3) cs->st[j] = 3, cs->list[nl++] = j;
        /* else the pass's free lanes: the points beside those listed
         * (unknown ones: inside uncertified gaps), then beside those, so
         * that the next round's lines next to a located kink come from
         * points close to it */
        for (int k = 0; wide && k < nl && nl < fill; k++)
            for (int d = -1; d <= 1 && nl < fill; d += 2) {
                const int j = cs->list[k] + d;
                if (j >= 0 && j < n && cs->st[j] == 0) cs->st[j] = 3, cs->list[nl++] = j;
            }
        for (int k = 0; k < nl; k++)
            cs->st[cs->list[k]] = 1; /* evaluated by the next round */
    }
#undef K
#undef ROW
    __atomic_fetch_add(&n_eval, evaluated, __ATOMIC_RELAXED);
    __atomic_fetch_add(&n_interp, interp, __ATOMIC_RELAXED);
    return evaluated;
}

int cx_core_replay_clocks_run(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                              int first, int fill, cx_clocks_pre_fn *pre, cx_clocks_eval_fn *eval,
                              void *ctx, double **rows)
{
    return run(cs, n, nkey, keys, p, first, fill, pre, eval, NULL, ctx, rows);
}

int cx_core_replay_clocks_run_tan(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                                  cx_clocks_tan_fn *tan, void *ctx, double **rows)
{
    return run(cs, n, nkey, keys, p, 1, 0, NULL, NULL, tan, ctx, rows);
}
