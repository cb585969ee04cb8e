/*
 * replay_zb_sweep.h — the ZB-H1 and ZB-H2 replays as piecewise-linear
 * functions of the cycle, swept over the stages to a certified fixed point
 * (cost independent of m); see replay_zb_sweep.c and core/README.md,
 * "Closed form", Exact formula, ZB-H1 and ZB-H2.
 */
#ifndef CX_CORE_REPLAY_ZB_SWEEP_H
#define CX_CORE_REPLAY_ZB_SWEEP_H

#include "core/eval/replay.h"

/* Scratch of the sweep (per thread; grows with p, never with m). */
typedef struct cx_zb_sweep_ws cx_zb_sweep_ws;

cx_zb_sweep_ws *cx_core_zb_sweep_ws_new(void);
/* NULL-safe. */
void cx_core_zb_sweep_ws_free(cx_zb_sweep_ws *ws);

/* 1 and out's makespan_s, last_end_s, last_item_s and free_s (first p
 * entries) filled when c is a ZB-H1 or ZB-H2 replay with blocking p2p,
 * v = 1, m >= h(p + 1) + 1 and the sweep reaches its fixed point within its
 * bounds (segments a function, sweeps); 0 (out untouched) otherwise. Any
 * per-stage costs. */
int cx_core_replay_zb_sweep(const cx_cost *c, cx_zb_sweep_ws *ws, cx_replay *out);

/* cx_core_replay_zb_sweep with a memo of the last inputs (the chunk
 * classes' durations, p2p, schedule, p, m): the same answer, 1 or 0. */
int cx_core_replay_zb_times(const cx_cost *c, cx_zb_sweep_ws *ws, cx_replay *out);

/* 1 where the sweep is expected to cost less than the replay it replaces:
 * m >= 3p (ZB-H2: 5p, below which its period-2 sawtooths overflow the
 * segments) and m >= 360 or m >= 12p. The replay plays ~3pm items, ~0.3-0.5
 * ns each a clock with lanes; the sweep ~2p stage evaluations of ~0.1 us
 * (measured, core/README.md). */
int cx_core_replay_zb_sweep_pays(const cx_cost *c);
/* The same for a point of the clock batch (core/eval/replay.c, eval_clocks). */
int cx_core_replay_zb_sweep_pays_batch(const cx_cost *c);

/* Counters of the last call on ws: stage evaluations and sweeps run, the
 * largest segment count of a function (for bench/zb_paths.c and tests). */
void cx_core_zb_sweep_stats(const cx_zb_sweep_ws *ws, int *evals, int *sweeps, int *segs);

/* Of the last call on ws: pieces where a stage's b, built alongside its y,
 * followed Fin's line (b_fin), and b rebuilt from y (over 32 segments). */
void cx_core_zb_sweep_b_stats(const cx_zb_sweep_ws *ws, int *fin_pieces, int *rebuilt);

#endif
