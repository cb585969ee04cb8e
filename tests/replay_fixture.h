/*
 * replay_fixture.h — random draws shared by the replay tests
 * (test_replay_formula.c, test_replay_formula_zb.c, test_replay_lanes.c,
 * test_replay_jlanes.c):
 * a xorshift64* stream and per-class chunk durations drawn around a middle
 * class. Each test defines REPLAY_FIXTURE_SEED before including it, so
 * every test keeps its own stream (its numbers do not depend on the others).
 * No constants from outside: the multipliers are xorshift64*'s (Vigna 2016).
 */
#ifndef CX_TESTS_REPLAY_FIXTURE_H
#define CX_TESTS_REPLAY_FIXTURE_H

#include <math.h>
#include <stdint.h>

static uint64_t rng = REPLAY_FIXTURE_SEED;

/* uniform in [lo, hi) */
static inline double uni(double lo, double hi)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return lo + (hi - lo) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

#ifdef CX_CORE_COST_H
/* every duration of cc: mid's times a factor in [lo, hi) */
static inline void draw_class(cx_chunk_cost *cc, const cx_chunk_cost *mid, double lo, double hi)
{
    cc->f_s = mid->f_s * uni(lo, hi), cc->b_s = mid->b_s * uni(lo, hi);
    cc->w_s = mid->w_s * uni(lo, hi), cc->r_s = mid->r_s * uni(lo, hi);
    cc->tp_f_s = mid->tp_f_s * uni(lo, hi), cc->tp_b_s = mid->tp_b_s * uni(lo, hi);
    cc->tp_r_s = mid->tp_r_s * uni(lo, hi);
}
#endif

#ifdef CX_CORE_REPLAY_H
/* largest absolute difference of two replays' time fields over p stages */
static inline double replay_time_gap(const cx_replay *a, const cx_replay *b, int p)
{
    double bad = fabs(a->makespan_s - b->makespan_s);
    for (int s = 0; s < p; s++) {
        bad = fmax(bad, fabs(a->free_s[s] - b->free_s[s]));
        bad = fmax(bad, fabs(a->last_end_s[s] - b->last_end_s[s]));
        bad = fmax(bad, fabs(a->last_item_s[s] - b->last_item_s[s]));
    }
    return bad;
}
#endif

#ifdef CX_CORE_REPLAY_STEP_H
#include <string.h>

/* the same bits */
static inline int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* per virtual stage durations around scale: the first stage's factor
 * drawn in [e0lo, e0hi), the last's in [e1lo, e1hi), every fourth 1.1 */
static inline void draw_vsinfo(cx_replay_vsinfo *vi, int nvs, double scale, double e0lo,
                               double e0hi, double e1lo, double e1hi)
{
    const double e0 = uni(e0lo, e0hi), e1 = uni(e1lo, e1hi);
    for (int vs = 0; vs < nvs; vs++) {
        const double s = scale * (vs == 0 ? e0 : vs == nvs - 1 ? e1 : vs % 4 == 3 ? 1.1 : 1.0);
        cx_replay_vsinfo *x = &vi[vs];
        const double r = uni(0, 0.3) * s, w = vs % 5 == 2 ? 0.0 : uni(0.2, 1.0) * s;
        x->dF = uni(0.5, 1.0) * s;
        x->dB = uni(0.8, 2.0) * s + r;
        x->dBW = x->dB + w;
        x->dW = w;
        x->lastB = x->dB - r;
        x->lastBW = x->dBW - r;
    }
}

#ifdef CX_CORE_REPLAY_H
/* 1 if two replays of p stages have the same bits, times and peaks */
static inline int same_replay(const cx_replay *a, const cx_replay *b, int p)
{
    int ok = same(a->makespan_s, b->makespan_s);
    for (int s = 0; s < p; s++)
        ok &= same(a->free_s[s], b->free_s[s]) && same(a->last_end_s[s], b->last_end_s[s]) &&
              same(a->last_item_s[s], b->last_item_s[s]) &&
              same(a->peak_act_bytes[s], b->peak_act_bytes[s]);
    return ok;
}
#endif
#endif

#endif
