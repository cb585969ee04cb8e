/*
 * replay_fast.h — the period-jumping player of the closed form's replay
 * (core/eval/replay_fast.c): plays a schedule's orders for m' microbatches
 * as those of m = m' + k c (k periods of c microbatches inserted in the
 * steady state), jumping over runs of periods in which the play is linear.
 * See core/README.md, "Closed form" (steady-state fast path).
 */
#ifndef CX_CORE_REPLAY_FAST_H
#define CX_CORE_REPLAY_FAST_H

#include "core/eval/replay_step.h"

#include <stdint.h>

/* Scratch of the player (operand records, run structure); one per replay
 * workspace, never shared. */
typedef struct cx_replay_fast cx_replay_fast;

cx_replay_fast *cx_core_replay_fast_new(void);
/* NULL-safe. */
void cx_core_replay_fast_free(cx_replay_fast *fx);

/* Plays the orders held by pl (m' microbatches, checked periodic with period
 * c by the schedule's steady()) as the orders of m' + k c microbatches:
 * 1 when done (the stage registers of pl are those of the longer orders),
 * 0 when the steady runs of the held orders are too short to try (nothing
 * played: play more microbatches), 2 when the play could not jump all k
 * periods (regime changes used up the runs: play the full orders), -1 on a
 * deadlock, -2 out of memory. */
int cx_core_replay_fast_run(cx_replay_fast *fx, cx_play *pl, const cx_replay_timing *tm, int c,
                            int64_t k);

#endif
