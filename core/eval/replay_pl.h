/*
 * replay_pl.h — piecewise-linear functions of the microbatch index on the
 * integers, shared by the exact schedule sweeps (issue 13):
 * replay_zb_sweep.c (ZB-H1, ZB-H2) and replay_v_sweep.c (ZB-V, DualPipeV).
 *
 * f(j) = v[i] + k[i]·(j − x[i]) for x[i] <= j < x[i+1], x[0] the first j,
 * x[n] one past the last; n = 0 is "none" (−∞) where a sweep says so. The
 * primitives: append a segment (a segment on the last one's line extends
 * it, and a staircase of one-point segments on one line becomes one
 * segment), the last segment's value at x, the maximum of two lines on a
 * range (at most one crossing, split at the last integer the first line
 * wins), and FNV-1a for the sweeps' memo keys. The only constant is the
 * merge tolerance, 2e-14 relative: an order below the 1e-13 to which the
 * sweeps certify their fixed points. No sideways use: core/eval only.
 */
#ifndef CX_CORE_REPLAY_PL_H
#define CX_CORE_REPLAY_PL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

enum { CX_PL_NSEG = 64 }; /* segments a function; more: the builder overflows */

typedef struct {
    int n;
    int x[CX_PL_NSEG + 1];
    double v[CX_PL_NSEG], k[CX_PL_NSEG];
} cx_pl;

/* a function being built; over: it needed more than CX_PL_NSEG segments */
typedef struct {
    cx_pl *f;
    int over;
} cx_pl_bld;

/* appends a segment from x (extends the last one when it is the same line;
 * a staircase of one-point segments on a line becomes one segment) */
static inline void cx_pl_push(cx_pl_bld *o, int x, double v, double k)
{
    cx_pl *f = o->f;
    if (f->n >= 2 && f->x[f->n - 1] == x - 1) {
        /* the last segment is one point: the one before takes it when its
         * line passes through it (a one-point segment: any slope) */
        const int i = f->n - 2;
        const double pv = f->v[i + 1];
        if (f->x[i] == x - 2) f->k[i] = pv - f->v[i];
        const double e = f->v[i] + f->k[i] * (double)(x - 1 - f->x[i]);
        if (e == pv || fabs(e - pv) <= 2e-14 * fabs(pv)) f->n--;
    }
    if (f->n) {
        const int i = f->n - 1;
        if (f->k[i] == k) {
            const double e = f->v[i] + k * (double)(x - f->x[i]);
            if (e == v || fabs(e - v) <= 2e-14 * fabs(v)) return;
        }
    }
    if (f->n == CX_PL_NSEG) {
        o->over = 1;
        return;
    }
    f->x[f->n] = x, f->v[f->n] = v, f->k[f->n] = k, f->n++;
}

/* the value at x of the last segment pushed */
static inline double cx_pl_last_at(const cx_pl *f, int x)
{
    const int i = f->n - 1;
    return f->v[i] + f->k[i] * (double)(x - f->x[i]);
}

/* Which of the finite lines a (va at lo, slope ka) and b is the larger on
 * lo..hi: 1 a throughout, 2 b throughout; else one crossing, the first
 * winner a (3) or b (4) up to *x, the other from *x on (shared by
 * cx_pl_max2 and the V sweep's maximum with derivatives) */
__attribute__((always_inline)) static inline int
cx_pl_max2_case(int lo, int hi, double va, double ka, double vb, double kb, int *x)
{
    const double dk = ka - kb, dlo = va - vb, dhi = dlo + dk * (double)(hi - lo);
    if (dlo >= 0 && dhi >= 0) return 1;
    if (dlo <= 0 && dhi <= 0) return 2;
    const int a_first = dlo > 0;
    double t = floor(a_first ? dlo / -dk : -dlo / dk);
    if (t < 0) t = 0;
    if (t > hi - lo - 1) t = hi - lo - 1;
    *x = lo + (int)t + 1;
    return a_first ? 3 : 4;
}

/* max of the lines a (va at lo, slope ka) and b on lo..hi (−∞: none) */
static inline void cx_pl_max2(cx_pl_bld *o, int lo, int hi, double va, double ka, double vb,
                              double kb)
{
    if (vb == -HUGE_VAL) {
        cx_pl_push(o, lo, va, va == -HUGE_VAL ? 0 : ka);
        return;
    }
    if (va == -HUGE_VAL) {
        cx_pl_push(o, lo, vb, kb);
        return;
    }
    int x = lo;
    switch (cx_pl_max2_case(lo, hi, va, ka, vb, kb, &x)) {
    case 1:
        cx_pl_push(o, lo, va, ka);
        break;
    case 2:
        cx_pl_push(o, lo, vb, kb);
        break;
    case 3:
        cx_pl_push(o, lo, va, ka);
        cx_pl_push(o, x, vb + kb * (double)(x - lo), kb);
        break;
    default:
        cx_pl_push(o, lo, vb, kb);
        cx_pl_push(o, x, va + ka * (double)(x - lo), ka);
    }
}

/* FNV-1a of n bytes, from h */
static inline uint64_t cx_pl_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *q = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ q[i]) * 1099511628211ull;
    return h;
}

#endif
