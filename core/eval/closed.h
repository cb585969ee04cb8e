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
 * those fields cleared).
 * Activations: a stage's activations are inflight(p, m, v, s) x its
 * activation bytes per microbatch, which are proportional to the
 * microbatch (every saved tensor has the microbatch as a factor: models/,
 * tests/test_cost_reuse.c checks every model family) for one recompute
 * mode. The floor also holds, per recompute mode, the bytes per microbatch
 * of the first stage of each run of equal stages (srun) at the microbatch
 * of a check in that mode; another microbatch's activations are then
 * inflight x bytes x (its microbatch / that one) x (1 - 1e-9), the factor
 * covering the rounding of both sums (relative 1e-13 at most), so below
 * the exact activations; added to the parameters' floor as the peak adds
 * them. Any stage's floor is <= the peak (the largest stage's). */
#define CX_MEM_FLOOR_RUNS 8
typedef struct {
    int valid;
    culonx_execution key;
    int n;
    double params[CX_MEM_FLOOR_RUNS], expert_params[CX_MEM_FLOOR_RUNS];
    /* activations: the schedule, p and v of the key; the first stage of
     * each srun and its parameters (nh 0: none), and per recompute mode
     * the microbatch of the check its bytes come from (0: none yet) */
    const cx_sched_desc *sched;
    int p, v, nh;
    int head[CX_MEM_FLOOR_RUNS];
    double head_params[CX_MEM_FLOOR_RUNS], head_expert_params[CX_MEM_FLOOR_RUNS];
    int64_t act_mb[3];
    double act_bytes[3][CX_MEM_FLOOR_RUNS];
} cx_mem_floor;

/* run's floor key into *key; 0 where no floor applies to run (offload,
 * ZeRO >= 2, an uneven split, a replayed schedule). */
int cx_core_mem_floor_key(const culonx_run *run, culonx_execution *key);
/* After cx_core_closed_memory(run, ..., c, ...): c's stage parameters and
 * activations into f under key (f->valid 0 where c's memory is replayed). */
void cx_core_mem_floor_take(const cx_cost *c, const culonx_execution *key, cx_mem_floor *f);
/* After cx_core_closed_memory(run, ..., c, ...) for a run of f's key: c's
 * activations into f for run's recompute mode (f's parameters stand). */
void cx_core_mem_floor_take_act(const cx_cost *c, cx_mem_floor *f);
/* A lower bound of the peak memory that cx_core_closed_memory gives for
 * ex (whose floor key is f's). */
double cx_core_mem_floor(const cx_mem_floor *f, const culonx_execution *ex);

#endif
