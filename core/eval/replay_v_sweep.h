/*
 * replay_v_sweep.h — the replay of schedules whose per-stage orders are
 * runs of repeated cycles (ZB-V, DualPipeV) as piecewise-linear functions
 * of the microbatch, swept over the stages to a certified fixed point (cost
 * independent of m); see replay_v_sweep.c and core/README.md, "Closed
 * form", "ZB-V and DualPipeV swept".
 */
#ifndef CX_CORE_REPLAY_V_SWEEP_H
#define CX_CORE_REPLAY_V_SWEEP_H

#include "core/eval/replay.h"

/* Scratch of the sweep and the run form of the last schedule shapes'
 * orders (per thread; grows with p, never with m). */
typedef struct cx_v_sweep_ws cx_v_sweep_ws;

cx_v_sweep_ws *cx_core_v_sweep_ws_new(void);
/* NULL-safe. */
void cx_core_v_sweep_ws_free(cx_v_sweep_ws *ws);

/* 1 and out's makespan_s, last_end_s, last_item_s and free_s (first p
 * entries) filled when c's schedule has blocking p2p, at most 2 chunks a
 * stage, orders that compress into runs whose counts and microbatches are
 * affine in m (checked on generated orders), m at least the run form's
 * base, and the sweep reaches its fixed point within its bounds (segments
 * a function, sweeps); 0 (out untouched) otherwise. Any per-stage costs.
 * With a memo of the latest inputs (the same answer, the same bits). */
int cx_core_replay_v_sweep(const cx_cost *c, cx_v_sweep_ws *ws, cx_replay *out);
/* The same with derivatives: dkey (NULL: none) the derivative of c's
 * time key (cx_replay_time_key) along a line of keys; 2 with dout's
 * makespan_s, last_end_s, last_item_s and free_s the results' derivatives
 * along it (each the derivative of a path whose length the result is,
 * so that the result's line through it bounds the result below along the
 * line, the result being convex there: replay_clocks.c), 1 answered
 * without them, 0 declined. */
int cx_core_replay_v_sweep_d(const cx_cost *c, cx_v_sweep_ws *ws, const double *dkey,
                             cx_replay *out, cx_replay *dout);

/* 1 where the sweep is measured to cost less than the replay it replaces
 * (core/eval/replay.c; core/README.md, "ZB-V and DualPipeV swept"):
 * without clock lanes (lanes 0: a sweep of one clock) p >= 32, and for
 * DualPipeV m >= 6p; with lanes (one play prices every clock of the
 * sweep) ZB-V with p >= 64 and m >= 16p only. */
int cx_core_replay_v_sweep_pays(const cx_cost *c, int lanes);
/* The same for a point of the clock batch (core/eval/replay.c, eval_clocks;
 * jump: the shape plays on the virtual jump there), measured in time. */
int cx_core_replay_v_sweep_pays_batch(const cx_cost *c, int jump);

/* Counters of the last sweep run on ws (not a memo answer): stage
 * evaluations, sweeps, the largest segment count of a function. */
void cx_core_v_sweep_stats(const cx_v_sweep_ws *ws, int *evals, int *sweeps, int *segs);

#endif
