/*
 * replay_jlanes.h — clock lanes for the shapes on the virtual jump
 * (core/eval/replay_jlanes.c): the program of m' microbatches
 * (replay_prog.c) played for many duration sets at once, one per SIMD
 * lane, each lane taking the scalar play's jump decisions itself, so that
 * a lane gives the bits of cx_core_replay_prog_run_ext with its durations;
 * a lane whose play leaves the common path gives nothing (the scalar play
 * answers it). A sweep's clocks change the durations of one shape only, so
 * after a scalar play of such a shape the closed form prices it at every
 * other clock of the sweep, plays them here and stores every result in the
 * replay memo (replay_memo.c).
 * See core/README.md, "Closed form" (Clock lanes on the virtual jump).
 */
#ifndef CX_CORE_REPLAY_JLANES_H
#define CX_CORE_REPLAY_JLANES_H

#include "core/eval/replay_memo.h"
#include "core/eval/replay_prog.h"
#include "core/eval/replay_step.h"

typedef struct cx_replay_jlanes cx_replay_jlanes;

cx_replay_jlanes *cx_core_replay_jlanes_new(void);
/* NULL-safe. */
void cx_core_replay_jlanes_free(cx_replay_jlanes *jl);

/* The clocks (MHz) a batch prices (at most CX_REPLAY_JLANES_MAX_CLOCKS;
 * fewer than 2: no batch). */
#define CX_REPLAY_JLANES_MAX_CLOCKS 1024
void cx_core_replay_jlanes_set_clocks(cx_replay_jlanes *jl, const double *mhz, int n);

/* The vectors lanes play on: 0 the widest the CPU runs (the default), 1
 * SSE2, 2 AVX2, 3 AVX-512 (for tests: each gives the same bits); 1 when
 * set, 0 when the CPU lacks it (unchanged). Process-wide; not while
 * threads replay. */
int cx_core_replay_jlanes_set_isa(int isa);

/* Plays pr's program of pl's orders (compiled for the jump by a scalar
 * cx_core_replay_prog_run_ext of them) as those of m' + extra periods for n
 * duration sets: vi[i] the durations of set i per virtual stage, p2p[i]
 * its p2p time, overlap the schedule's. done[i] = 1 and out[i]'s time
 * fields (makespan, and last_end_s, last_item_s, free_s of the first p
 * stages) the bits of cx_core_replay_prog_run_ext with set i, or done[i] =
 * 0 (no answer: the scalar play's). -1 when pr holds no such program or
 * out of memory (nothing done). */
int cx_core_replay_jlanes_run(cx_replay_jlanes *jl, const cx_play *pl, cx_replay_prog *pr,
                              int64_t extra, int n, const cx_replay_vsinfo *const *vi,
                              const double *p2p, int overlap, cx_replay *out, int *done);

/* The same for the n duration sets idx[0 .. n) of a list (set i: per
 * class vi[i * c->nclass ...], p2p time p2p[i]) of c's shape: done[j] = 1
 * and the result packed (replay_clocks.h) into rows + idx[j] * stride, or
 * done[j] = 0 (the scalar play's). -1 as cx_core_replay_jlanes_run. */
int cx_core_replay_jlanes_rows(cx_replay_jlanes *jl, const cx_cost *c, const cx_play *pl,
                               cx_replay_prog *pr, int64_t extra, int n, const int *idx,
                               const cx_replay_vsinfo *vi, const double *p2p, double *rows,
                               int stride, int *done);
/* The batch after a scalar play of c's shape on the virtual jump (pr's
 * program of pl's orders, extra periods inserted, the result stored in mm
 * under k0): c's shape priced again (cx_core_cost_reprice, on a copy of c)
 * at every other clock of the list, played in lanes, every answered result
 * stored in mm under k0 with its time key (flags 1: a play on the virtual
 * jump); keys mm holds already are skipped. Returns the results stored.
 * The results are those the scalar play would store, so a sweep's output
 * does not depend on it. */
int cx_core_replay_jlanes_batch(cx_replay_jlanes *jl, const cx_cost *c, const cx_play *pl,
                                cx_replay_prog *pr, int64_t extra, cx_replay_memo *mm,
                                const cx_replay_memo_key *k0);

/* Counters since the process started (all threads, for the benches):
 * lanes played and lanes answered. */
void cx_core_replay_jlanes_counts(long long *played, long long *answered);

#endif
