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
 * changes between compute- and memory-bound (an op's time is max(compute
 * x f_max / f, memory), cost.c): maximal runs of clocks whose keys are
 * collinear are found first (each key checked against the run's line),
 * their ends and midpoints evaluated together (the caller plays them, in
 * clock lanes where it can), each run certified at its midpoint or split
 * in two at it, the halves' midpoints evaluated in the next round, and so
 * on (log2 rounds at most; where the caller plays in clock lanes, whose
 * pass costs about the same for few points as for many, the second round
 * takes every point left in a segment not certified; a 4-lane first round
 * fills its free lane with the midpoint of a run's upper half, which,
 * certifying that half, spares it). A point that fails the collinearity check
 * when it is interpolated is evaluated. Measured on bench_sweep_bench's schedules (21 clocks): see
 * core/README.md, "Clock segments".
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
    int cap_n, cap_len;
    int fill; /* the first round's points filled up to this many (0 none) */
    double *rows;
    unsigned char *st; /* 0 unknown, 1 evaluated, 2 interpolated */
    int *list, *pend, *next;
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

void cx_core_replay_clocks_fill(cx_replay_clocks *cs, int points)
{
    cs->fill = points > 0 ? points : 0;
}

void cx_core_replay_clocks_free(cx_replay_clocks *cs)
{
    if (!cs) return;
    free(cs->rows), free(cs->st), free(cs->list), free(cs->pend), free(cs->next);
    free(cs);
}

static int reserve(cx_replay_clocks *cs, int n, int len)
{
    if (n > cs->cap_n) {
        free(cs->st), free(cs->list), free(cs->pend), free(cs->next);
        cs->st = malloc((size_t)n);
        cs->list = malloc((size_t)n * sizeof *cs->list);
        cs->pend = malloc((size_t)2 * (size_t)n * sizeof *cs->pend);
        cs->next = malloc((size_t)2 * (size_t)n * sizeof *cs->next);
        cs->cap_n = cs->st && cs->list && cs->pend && cs->next ? n : 0;
        if (!cs->cap_n) return 0;
        cs->cap_len = 0; /* rows below, for the new n */
    }
    if ((size_t)n * (size_t)len > (size_t)cs->cap_len) {
        free(cs->rows);
        cs->rows = malloc((size_t)n * (size_t)len * sizeof *cs->rows);
        cs->cap_len = cs->rows ? n * len : 0;
        if (!cs->rows) return 0;
    }
    return 1;
}

/* 1 and *lam when key kj lies on the segment from ks to ke (to KEY_TOL per
 * component), l in [0, 1]; equal end keys: kj equal to them, l = 0. */
static int on_segment(const double *ks, const double *ke, const double *kj, int nkey, double *lam)
{
    int q = -1;
    double dq = 0;
    for (int x = 0; x < nkey; x++) {
        const double d = fabs(ke[x] - ks[x]);
        if (d > dq) dq = d, q = x;
    }
    if (q < 0) {
        *lam = 0;
        return memcmp(ks, kj, (size_t)nkey * sizeof *kj) == 0;
    }
    const double l = (kj[q] - ks[q]) / (ke[q] - ks[q]);
    if (!(l >= 0 && l <= 1)) return 0;
    for (int x = 0; x < nkey; x++) {
        const double gap = fabs(ks[x] + l * (ke[x] - ks[x]) - kj[x]);
        if (!(gap <= KEY_TOL * fmax(fabs(ks[x]), fabs(ke[x])))) return 0;
    }
    *lam = l;
    return 1;
}

/* 1 when every result at m lies on the chord from s to e closely enough
 * that the whole segment is certified (see the top of the file) */
static int certified(const double *fs, const double *fm, const double *fe, int len, double lm)
{
    const double w = fmin(lm, 1.0 - lm);
    if (!(w >= MID_MIN)) return 0;
    for (int x = 0; x < len; x++) {
        const double gap = fabs(fs[x] + lm * (fe[x] - fs[x]) - fm[x]);
        if (!(gap <= RES_TOL * w * fmax(fabs(fs[x]), fabs(fe[x])))) return 0;
    }
    return 1;
}

/* 1 and the points of (a, b) not evaluated interpolated when a point j
 * inside was evaluated and certifies the segment (else 0, nothing done);
 * points off its line go to the list. */
static int certify_by(cx_replay_clocks *cs, int a, int b, int nkey, const double *keys, int len,
                      int *nl, int *interp)
{
    const double *R = cs->rows;
    int j = a + 1;
    while (j < b && cs->st[j] != 1)
        j++;
    double lj;
    if (j >= b ||
        !on_segment(keys + (size_t)a * (size_t)nkey, keys + (size_t)b * (size_t)nkey,
                    keys + (size_t)j * (size_t)nkey, nkey, &lj) ||
        !certified(R + (size_t)a * (size_t)len, R + (size_t)j * (size_t)len,
                   R + (size_t)b * (size_t)len, len, lj))
        return 0;
    for (int i = a + 1; i < b; i++) {
        if (cs->st[i]) continue;
        double li;
        if (!on_segment(keys + (size_t)a * (size_t)nkey, keys + (size_t)b * (size_t)nkey,
                        keys + (size_t)i * (size_t)nkey, nkey, &li)) {
            cs->st[i] = 1, cs->list[(*nl)++] = i; /* evaluated next round */
            continue;
        }
        const double *fa = R + (size_t)a * (size_t)len, *fb = R + (size_t)b * (size_t)len;
        double *fi = cs->rows + (size_t)i * (size_t)len;
        for (int x = 0; x < len; x++)
            fi[x] = fa[x] + li * (fb[x] - fa[x]);
        cs->st[i] = 2, (*interp)++;
    }
    return 1;
}

int cx_core_replay_clocks_run(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                              cx_clocks_eval_fn *eval, void *ctx, double **rows)
{
    const int len = cx_replay_row_len(p);
    if (n < 1 || !reserve(cs, n, len)) return -1;
    double *const R = cs->rows;
    *rows = R;
    memset(cs->st, 0, (size_t)n);
#define K(i) (keys + (size_t)(i) * (size_t)nkey)
#define ROW(i) (R + (size_t)(i) * (size_t)len)
    /* maximal runs of collinear keys: a run grows while its next key lies
     * on the line of its first two, past its last (checked again, against
     * the run's ends, when a point is interpolated) */
    int nl = 0, np = 0;
    for (int s = 0; s < n - 1;) {
        int e = s + 1;
        while (e + 1 < n) {
            double l;
            /* e on the segment s .. e + 1 */
            if (!on_segment(K(s), K(e + 1), K(e), nkey, &l)) break;
            e++;
        }
        if (!cs->st[s]) cs->st[s] = 1, cs->list[nl++] = s;
        cs->st[e] = 1, cs->list[nl++] = e;
        if (e - s >= 2) {
            const int m = s + (e - s) / 2;
            cs->st[m] = 1, cs->list[nl++] = m;
            cs->pend[2 * np] = s, cs->pend[2 * np + 1] = e, np++;
        }
        s = e;
    }
    if (n == 1) cs->st[0] = 1, cs->list[nl++] = 0;
    /* a pass of fill points costs about the same for fewer: the upper
     * halves' midpoints of the runs, in order, fill it (a half that one
     * certifies needs no more points, below). Measured (callgrind,
     * fast-only sweep_bench schedules, 10^6 instructions, none / lower /
     * upper halves): ZB-V 802.4 / 792.6 / 793.4, DualPipeV 880.7 / 869.2
     * / 830.2, ZB-H2 590.1 / 590.1 / 565.9, ZB-H1 and interleaved the
     * same. */
    for (int k = 0; k < np && nl < cs->fill; k++) {
        const int s = cs->pend[2 * k], e = cs->pend[2 * k + 1], m = s + (e - s) / 2;
        const int q = m + (e - m) / 2;
        if (e - m >= 2 && !cs->st[q]) cs->st[q] = 1, cs->list[nl++] = q;
    }
    int evaluated = 0, interp = 0, wide = 0;
    while (nl > 0 || np > 0) {
        if (nl > 0 && eval(ctx, cs->list, nl, R, len, &wide)) return -1;
        evaluated += nl;
        nl = 0;
        int nn = 0;
        for (int k = 0; k < np; k++) {
            const int s = cs->pend[2 * k], e = cs->pend[2 * k + 1], m = s + (e - s) / 2;
            double lm;
            if (on_segment(K(s), K(e), K(m), nkey, &lm) &&
                certified(ROW(s), ROW(m), ROW(e), len, lm)) {
                for (int j = s + 1; j < e; j++) {
                    double lj;
                    if (cs->st[j]) continue;
                    if (!on_segment(K(s), K(e), K(j), nkey, &lj)) {
                        cs->st[j] = 1, cs->list[nl++] = j; /* evaluated next round */
                        continue;
                    }
                    const double *fs = ROW(s), *fe = ROW(e);
                    double *fj = ROW(j);
                    for (int x = 0; x < len; x++)
                        fj[x] = fs[x] + lj * (fe[x] - fs[x]);
                    cs->st[j] = 2, interp++;
                }
                continue;
            }
            /* not certified: in lanes every point left next, else each
             * half with a point inside, its midpoint next */
            const int half[2][2] = {{s, m}, {m, e}};
            if (wide) {
                /* a half certified by a point evaluated inside (fill),
                 * else every point of it left */
                for (int h = 0; h < 2; h++) {
                    const int a = half[h][0], b = half[h][1];
                    if (b - a < 2 || certify_by(cs, a, b, nkey, keys, len, &nl, &interp)) continue;
                    for (int j = a + 1; j < b; j++)
                        if (!cs->st[j]) cs->st[j] = 1, cs->list[nl++] = j;
                }
                continue;
            }
            for (int h = 0; h < 2; h++) {
                const int a = half[h][0], b = half[h][1];
                if (b - a < 2) continue;
                const int mid = a + (b - a) / 2;
                /* evaluated already (fill): checked next round */
                if (!cs->st[mid]) cs->st[mid] = 1, cs->list[nl++] = mid;
                cs->next[2 * nn] = a, cs->next[2 * nn + 1] = b, nn++;
            }
        }
        int *t = cs->pend;
        cs->pend = cs->next, cs->next = t;
        np = nn;
    }
#undef K
#undef ROW
    __atomic_fetch_add(&n_eval, evaluated, __ATOMIC_RELAXED);
    __atomic_fetch_add(&n_interp, interp, __ATOMIC_RELAXED);
    return evaluated;
}
