/*
 * closed.h — internal entry points of the closed-form evaluator, for the
 * sweep and the energy model: evaluation with a caller-owned cost scratch.
 */
#ifndef CX_CORE_CLOSED_H
#define CX_CORE_CLOSED_H

#include "core/cost.h"

/* Per-microbatch stage times: F (with TP), B (with recompute and TP), W. */
void cx_core_stage_times(const cx_cost *c, int stage, double *f_s, double *b_s, double *w_s);

/* Evaluates without re-checking the run; c is scratch owned by the caller. */
culonx_status cx_core_closed_eval(const culonx_run *run, double clock_mhz, cx_cost *c,
                                  culonx_result *res, culonx_error *err);

#endif
