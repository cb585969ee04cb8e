/*
 * replay_formula.h — exact closed forms of replayed schedules, tried by
 * cx_core_replay_ws before the compiled program / engine (replay.c). See
 * replay_formula.c for the formulas and their preconditions, and
 * core/README.md, "Closed form" (replayed schedules).
 */
#ifndef CX_CORE_REPLAY_FORMULA_H
#define CX_CORE_REPLAY_FORMULA_H

#include "core/eval/replay.h"

/* 1 and out's makespan_s, last_end_s, last_item_s and free_s (first p
 * entries) filled when c's schedule has a closed form whose preconditions
 * c meets; 0 (out untouched) otherwise: the caller replays. */
int cx_core_replay_formula(const cx_cost *c, cx_replay *out);

#endif
