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

/* Floors of the peak memory (issue 13): a sweep's memory checks of one
 * shape differ mostly in the microbatch, recompute and distributed
 * optimizer, which change no stage's parameters. For schedules whose
 * memory is in closed form (no replay), ZeRO 0/1 and no offload, a stage's
 * peak is ((weights + gradients) + optimizer) + activations + workspace,
 * each term >= 0, so weights + gradients (+ optimizer at ZeRO 0), computed
 * with the same operations from its parameters, is <= the peak the check
 * would report (rounding is monotone). cx_mem_floor holds the distinct
 * stage parameters of the last check under a key (the execution with
 * those fields cleared). */
#define CX_MEM_FLOOR_RUNS 8
typedef struct {
    int valid;
    culonx_execution key;
    int n;
    double params[CX_MEM_FLOOR_RUNS], expert_params[CX_MEM_FLOOR_RUNS];
} cx_mem_floor;

/* run's floor key into *key; 0 where no floor applies to run (offload,
 * ZeRO >= 2, an uneven split, a replayed schedule). */
int cx_core_mem_floor_key(const culonx_run *run, culonx_execution *key);
/* After cx_core_closed_memory(run, ..., c, ...): c's stage parameters into
 * f under key (f->valid 0 where c's memory is replayed). */
void cx_core_mem_floor_take(const cx_cost *c, const culonx_execution *key, cx_mem_floor *f);
/* A lower bound of the peak memory that cx_core_closed_memory gives for
 * ex (whose floor key is f's). */
double cx_core_mem_floor(const cx_mem_floor *f, const culonx_execution *ex);

#endif
