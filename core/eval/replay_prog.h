/*
 * replay_prog.h — the replay's orders compiled into a straight-line
 * program (core/eval/replay_prog.c): which items may run after which
 * depends on the orders only, never on the durations, so a topological
 * order of the items is compiled once per (schedule, p, m, v) (the level
 * order for schedules with a steady state, else the engine's recorded
 * order) and every play with other durations runs it without dependency
 * checks.
 * See core/README.md, "Closed form" (replayed schedules).
 */
#ifndef CX_CORE_REPLAY_PROG_H
#define CX_CORE_REPLAY_PROG_H

#include "core/eval/replay_step.h"

typedef struct cx_replay_prog cx_replay_prog;

cx_replay_prog *cx_core_replay_prog_new(void);
/* NULL-safe. */
void cx_core_replay_prog_free(cx_replay_prog *pr);

/* Plays the orders held by pl with tm: through the program when one is
 * compiled for them, else compiling it first (orders of at most a few
 * million items; above, always the engine). Results in pl's stage
 * registers, identical either way. CX_SCHED_SIM_OK, DEADLOCK or NOMEM. */
cx_sched_sim_status cx_core_replay_prog_run(cx_replay_prog *pr, cx_play *pl,
                                            const cx_replay_timing *tm);

/* Same, playing the orders held by pl (m' microbatches, steady with
 * period c microbatches) as those of m' + extra c: the jump inserts the
 * extra periods where the play is affine (see replay_prog.c).
 * CX_SCHED_SIM_UNSUPPORTED when it could not insert them all (play the
 * full orders), else as cx_core_replay_prog_run. */
cx_sched_sim_status cx_core_replay_prog_run_ext(cx_replay_prog *pr, cx_play *pl,
                                                const cx_replay_timing *tm, int64_t extra);

/* 0: never jump over the periodic region (the reference for
 * bench/fast_agree.c; cx_core_replay_set_full sets it); default 1. */
void cx_core_replay_prog_set_jump(int on);
/* 1 if the last run of pr's program jumped over periods. */
int cx_core_replay_prog_jumped(const cx_replay_prog *pr);

#endif
