/*
 * replay_fixture.h — random draws shared by the replay tests
 * (test_replay_formula.c, test_replay_formula_zb.c, test_replay_lanes.c):
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

#endif
