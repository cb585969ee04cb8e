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

/* Fills the rows (rows + i * stride) of the points i < n it answers
 * cheaply (an exact formula) and sets done[i] to 1 for them; 0 on
 * success, else the batch is given up. */
typedef int cx_clocks_pre_fn(void *ctx, int n, double *rows, int stride, unsigned char *done);

typedef struct cx_replay_clocks cx_replay_clocks;
cx_replay_clocks *cx_core_replay_clocks_new(void);
/* NULL-safe. */
void cx_core_replay_clocks_free(cx_replay_clocks *cs);

/* Results at n points (rows of cx_replay_row_len(p) into *rows, owned by
 * cs, valid until its next call) whose time keys (replay_lanes.h,
 * cx_replay_time_key) are keys[i * nkey ...], in clock order: the points
 * pre answers (pre may be NULL) first; then, where at most fill points
 * are left, all of them at once, else the ends of each run of collinear
 * keys and first (1 or 2) points inside that pre did not answer; the
 * rest from certified gaps or evaluated in later rounds. Returns the
 * number of points evaluated (pre's included), -1 when pre or eval
 * failed or memory ran out. */
int cx_core_replay_clocks_run(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                              int first, int fill, cx_clocks_pre_fn *pre, cx_clocks_eval_fn *eval,
                              void *ctx, double **rows);

/* Evaluates the points idx[0..n-1] as cx_clocks_eval_fn, and where it
 * can, each result's derivative along the point's direction dirs[i *
 * nkey ...] (its run's last key minus its first: the derivative of the
 * length of a path whose length the result is, so that its line bounds
 * the result below along the run) into drows + idx[i] * stride, has[idx[i]]
 * set to 1 then (else left). 0 on success. */
typedef int cx_clocks_tan_fn(void *ctx, const int *idx, int n, const double *dirs, double *rows,
                             double *drows, int stride, unsigned char *has);

/* cx_core_replay_clocks_run with tangents: each run's ends first (no
 * point inside), a gap certified also where every result at one end lies
 * on the other end's line, an uncertified gap's next points where the
 * ends' lines meet (else its midpoint). No pre, no lanes. */
int cx_core_replay_clocks_run_tan(cx_replay_clocks *cs, int n, int nkey, const double *keys, int p,
                                  cx_clocks_tan_fn *tan, void *ctx, double **rows);

/* Process-wide counts (for benches): points evaluated and points answered
 * by a certified segment. */
void cx_core_replay_clocks_counts(long long *evaluated, long long *interpolated);

#endif
