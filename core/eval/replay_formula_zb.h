/*
 * replay_formula_zb.h — exact closed forms of the ZB-H1 and ZB-H2 replays,
 * independent of m (not on the replay's path: see replay_formula_zb.c and
 * core/README.md, "Closed form", Exact formula, ZB-H1 and ZB-H2).
 */
#ifndef CX_CORE_REPLAY_FORMULA_ZB_H
#define CX_CORE_REPLAY_FORMULA_ZB_H

#include "core/eval/replay.h"

/* 1 and out's makespan_s, last_end_s, last_item_s and free_s (first p
 * entries) filled when c is a ZB-H1 or ZB-H2 replay meeting the
 * preconditions and its fill is certified; 0 (out untouched) otherwise. */
int cx_core_replay_formula_zb(const cx_cost *c, cx_replay *out);

/* 1 and peak_act_bytes[s] (s < p) filled with exactly the values of
 * cx_core_replay_memory for a ZB-H1 / ZB-H2 replay with m >= h(p − 1) + 1
 * and integer bytes; 0 otherwise. */
int cx_core_replay_formula_zb_memory(const cx_cost *c, double *peak_act_bytes);

#endif
