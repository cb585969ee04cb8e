/*
 * replay_mem.h — the replay's activation peaks compiled from the orders
 * (core/eval/replay_mem.c): per stage, the distinct points where its peak
 * can occur, as counts of in-flight microbatches per chunk, so that a peak
 * costs a few multiply-adds instead of a scan of the orders; the points of
 * the last few orders are kept.
 * See core/README.md, "Closed form" (replayed schedules, "Compiled peaks").
 */
#ifndef CX_CORE_REPLAY_MEM_H
#define CX_CORE_REPLAY_MEM_H

#include "schedules/play.h"

typedef struct cx_replay_mem cx_replay_mem;

cx_replay_mem *cx_core_replay_mem_new(void);
/* NULL-safe. */
void cx_core_replay_mem_free(cx_replay_mem *mm);

/* Makes the points of the orders held by pl (schedule sd, p stages, m
 * microbatches, v chunks per stage) current: kept ones, else compiled. */
void cx_core_replay_mem_select(cx_replay_mem *mm, const void *sd, int p, int m, int v,
                               const cx_play *pl);

/* The peak activation bytes of each stage (peak[p]) of the current orders
 * with act[s * v + k] and work[s * v + k] the saved and transient bytes of
 * chunk k on stage s: 1, or 0 when the points are missing (out of memory,
 * too many) or the result might differ in its last bits from the scan of
 * the orders (bytes not integers, or sums beyond 2^53): then scan. */
int cx_core_replay_mem_peaks(const cx_replay_mem *mm, const double *act, const double *work,
                             double *peak);

/* The peak of one stage's order ord[0 .. n) by the scan itself (the
 * reference the points above reproduce): + act[k] at an F of chunk k,
 * - act[k] after its W or BW; candidates after an F, at a B or BW (+
 * work[k]) and at a W. */
double cx_core_replay_mem_scan(const cx_sched_item *ord, int n, const double *act,
                               const double *work);

#endif
