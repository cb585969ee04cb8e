/*
 * replay_clocks.h — the replay at every clock of a sweep from a few of
 * them (core/eval/replay_clocks.c): a replay's results are convex in its
 * durations, so where the durations of several clocks lie on one segment
 * and the results at its ends and a point inside lie on one line, every
 * clock of the segment is that line (certified, no tolerance on the
 * schedule's side). See core/README.md, "Clock segments".
 */
#ifndef CX_CORE_REPLAY_CLOCKS_H
#define CX_CORE_REPLAY_CLOCKS_H

#include "core/eval/replay.h"

/* A replay's time results in a row of 1 + 3 p doubles: makespan, then per
 * stage last end, last item, free (the replay memo's layout). */
static inline int cx_replay_row_len(int p)
{
    return 1 + 3 * p;
}
void cx_core_replay_row_pack(const cx_replay *r, int p, double *row);
void cx_core_replay_row_unpack(const double *row, int p, cx_replay *r);

/* Evaluates the points idx[0..n-1] (indices into the caller's list) into
 * rows + idx[i] * stride; 0 on success, else the batch is given up. Sets
 * *wide when it played them in lanes (a pass costs about the same for
 * few points as for many: the next round then takes every point left in
 * a segment not certified, rather than its halves' midpoints). */
typedef int cx_clocks_eval_fn(void *ctx, const int *idx, int n, double *rows, int stride,
                              int *wide);

typedef struct cx_replay_clocks cx_replay_clocks;
cx_replay_clocks *cx_core_replay_clocks_new(void);
/* NULL-safe. */
void cx_core_replay_clocks_free(cx_replay_clocks *cs);
/* Where eval plays points in passes of a width (clock lanes), the first
 * round's points filled up to that many (0, the default: none) with the
 * midpoints of the runs' upper halves: free in the pass, they certify a
 * half of a run not certified, which the next round then skips. */
void cx_core_replay_clocks_fill(cx_replay_clocks *cs, int points);

/* Results at n points (rows of cx_replay_row_len(p) into *rows, owned by
 * cs, valid until its next call) whose time keys (replay_lanes.h,
 * cx_replay_time_key) are keys[i * nkey ...], in clock order: run ends
 * evaluated, the rest from certified segments or evaluated. Returns the
 * number of points evaluated, -1 when eval failed or memory ran out. */
int cx_core_replay_clocks_run(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                              cx_clocks_eval_fn *eval, void *ctx, double **rows);

/* Process-wide counts (for benches): points evaluated and points answered
 * by a certified segment. */
void cx_core_replay_clocks_counts(long long *evaluated, long long *interpolated);

#endif
