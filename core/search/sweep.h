/*
 * sweep.h — internal hooks of the sweep (core/sweep.c): re-evaluation of a
 * candidate with the graph engine (--verify), and the enumeration decoder,
 * exposed for tests and the benchmark.
 */
#ifndef CX_CORE_SWEEP_H
#define CX_CORE_SWEEP_H

#include "culonx.h"

/* Re-evaluates one execution of `run` with the graph engine (core/walk.c,
 * core/eval.c; stage detail) for --verify. */
culonx_status cx_core_sweep_verify(const culonx_run *run, const culonx_execution *ex,
                                   culonx_result *res, culonx_error *err);

/* Number of candidates in the space of `spec` (defaults filled from run);
 * 0 with err set when the spec is unusable. */
uint64_t cx_core_sweep_size(const culonx_run *run, const culonx_sweep_spec *spec,
                            culonx_error *err);

#endif
