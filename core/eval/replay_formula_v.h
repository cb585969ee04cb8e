/*
 * replay_formula_v.h — exact activation peaks of the ZB-V and DualPipeV
 * replays in O(p), without their orders (core/eval/replay_formula_v.c;
 * core/README.md, "Closed form", closed-form peaks).
 */
#ifndef CX_CORE_REPLAY_FORMULA_V_H
#define CX_CORE_REPLAY_FORMULA_V_H

#include "core/eval/replay.h"

/* 1 and peak[r] (r < p) the scan of sd's orders (ZB-V or DualPipeV, p
 * stages, m microbatches, 2 chunks a stage) with act[2r + k] and
 * work[2r + k] the saved and transient bytes of chunk k on stage r, to the
 * bit; 0 (peak untouched) for another schedule, m < 2p, or bytes the scan
 * might round (not integers >= 0, or sums from 2^53). */
int cx_core_replay_formula_v_peaks(const cx_sched_desc *sd, int p, int m, const double *act,
                                   const double *work, double *peak);

/* The same for c (cx_core_replay_memory's values), v 2: 1 or 0. */
int cx_core_replay_formula_v_memory(const cx_cost *c, double *peak_act_bytes);

#endif
