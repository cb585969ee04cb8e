/*
 * closed.h — internal entry points of the closed-form evaluator, for the
 * sweep and the energy model: evaluation with a caller-owned cost scratch
 * (and replay workspace), and cheap lower bounds for the sweep's pruning.
 * See core/README.md, "Closed form" and "Sweeps" (bounds).
 */
#ifndef CX_CORE_CLOSED_H
#define CX_CORE_CLOSED_H

#include "core/eval/cost.h"
#include "core/eval/replay.h"

/* Evaluates without re-checking the run; c is scratch owned by the caller. */
culonx_status cx_core_closed_eval(const culonx_run *run, double clock_mhz, cx_cost *c,
                                  culonx_result *res, culonx_error *err);
/* Same, replaying (when the schedule needs it) in the caller's workspace
 * (NULL: a temporary one). Results are identical. */
culonx_status cx_core_closed_eval_ws(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     cx_replay_ws *ws, culonx_result *res, culonx_error *err);

/* The evaluation after cx_core_cost_build(run, ..., c) (or
 * cx_core_closed_bound) filled c: cx_core_closed_eval_ws is both. */
culonx_status cx_core_closed_finish(const culonx_run *run, cx_cost *c, cx_replay_ws *ws,
                                    culonx_result *res, culonx_error *err);

/* What cx_core_closed_bound gives: for a replayed schedule, lower bounds of
 * the iteration time and energy that cx_core_closed_eval_ws would report
 * (energy evaluated at the time bound: it does not decrease with time at
 * fixed work), and the exact peak memory; for a schedule in closed form only
 * the exact peak memory (time and energy 0). */
typedef struct {
    double time_s, energy_j, peak_bytes;
} cx_bound;

/* Builds the costs into c and bounds them without replaying the schedule:
 * O(p v) beyond the orders, which ws caches per (schedule, p, m, v). */
culonx_status cx_core_closed_bound(const culonx_run *run, double clock_mhz, cx_cost *c,
                                   cx_replay_ws *ws, cx_bound *b, culonx_error *err);

/* Builds what memory reads into c and gives the exact peak memory per GPU
 * that cx_core_closed_eval_ws would report (the replay's activation peaks
 * come from the orders, not the times: no play; the cost may be left
 * unpriced, cx_core_cost_build_key_mem), so that a sweep can settle a
 * candidate that does not fit without timing it. Then *complete = 1:
 * cx_core_closed_finish completes the evaluation from c; 0:
 * cx_core_closed_eval_ws does (it prices c first). ws must not be NULL. */
culonx_status cx_core_closed_memory(const culonx_run *run, double clock_mhz, cx_cost *c,
                                    cx_replay_ws *ws, double *peak_bytes, int *complete,
                                    culonx_error *err);

#endif
