/*
 * replay_memo.h — a per-thread table of recent replay time results
 * (core/eval/replay_memo.c), keyed by every input the replay reads: the
 * orders (schedule, p, m, v, the process-wide fast-path settings), the
 * durations of each chunk class and the p2p time, and the class of each
 * virtual stage. A replay is a pure function of these (the path it takes
 * too, core/eval/replay.c), so a hit returns the bits a play would give.
 * See core/README.md, "Sweeps" (replay memo).
 */
#ifndef CX_CORE_REPLAY_MEMO_H
#define CX_CORE_REPLAY_MEMO_H

#include "core/eval/replay.h"

typedef struct cx_replay_memo cx_replay_memo;

/* The identity of a replay's inputs; key and cls are read, not kept. */
typedef struct {
    const void *sched; /* the schedule descriptor */
    int p, m, v, mode; /* mode: the process-wide fast-path settings */
    const double *key; /* per class 7 durations, then the p2p time */
    int nkey;
    const int16_t *cls; /* class of each of the p*v virtual stages */
    /* 0: a play of the key alone; else the cost curve (cx_cost.curve) whose
     * clocks gave the result together (replay_clocks.c) */
    uint64_t curve;
} cx_replay_memo_key;

cx_replay_memo *cx_core_replay_memo_new(void);
/* NULL-safe. */
void cx_core_replay_memo_free(cx_replay_memo *mm);

/* 1 and out's time fields (makespan and the first p entries of last_end_s,
 * last_item_s, free_s) and *flags filled when k was stored; else 0. */
int cx_core_replay_memo_get(cx_replay_memo *mm, const cx_replay_memo_key *k, cx_replay *out,
                            int *flags);
/* Stores res's time fields and flags under k (replacing the older entry of
 * its set); without memory, stores nothing. */
void cx_core_replay_memo_put(cx_replay_memo *mm, const cx_replay_memo_key *k, const cx_replay *res,
                             int flags);

#endif
