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
/* The same for c's shape and classes with the durations of the time key
 * key (replay_lanes.h, cx_replay_time_key: what the formula reads), the
 * bits of cx_core_replay_formula on c priced to that key. */
int cx_core_replay_formula_key(const cx_cost *c, const double *key, cx_replay *out);
/* 0 when no durations give c's shape (schedule, p, v, m, classes) a
 * closed form: cx_core_replay_formula answers 0 whatever the clock. */
int cx_core_replay_formula_shape(const cx_cost *c);

/* The last memory result of cx_core_replay_formula_memory and its inputs
 * (the schedule's shape and the bytes of the first, middle and last chunk
 * classes); zero-initialised means empty. One per replay workspace. */
typedef struct {
    const void *sched;
    int p, m, v;
    double key[6];
    double peak[CX_COST_MAX_STAGES];
} cx_replay_formula_memo;

/* 1 and peak_act_bytes[s] (s < p) filled with exactly the values of
 * cx_core_replay_memory when c's schedule has a closed form of its
 * activation peak whose preconditions c meets; 0 otherwise. memo (may be
 * NULL) answers repeated inputs. */
int cx_core_replay_formula_memory(const cx_cost *c, cx_replay_formula_memo *memo,
                                  double *peak_act_bytes);

#endif
