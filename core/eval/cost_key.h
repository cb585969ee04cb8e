/*
 * cost_key.h — reuse of chunk costs between evaluations that differ only in
 * DP settings (core/eval/cost_key.c): a sweep's innermost levels are the
 * distributed optimizer and DP overlap, which change the DP gradient sync
 * and the optimizer step of each stage but no chunk cost; then the clock
 * (a reprice), then recompute, TP overlap, ZeRO and offload (the same op
 * tables priced again).
 * See core/README.md, "Sweeps".
 */
#ifndef CX_CORE_COST_KEY_H
#define CX_CORE_COST_KEY_H

#include "core/eval/cost.h"

/* The inputs of the last full cost build into a cx_cost (one per worker). */
typedef struct cx_cost_key cx_cost_key;

cx_cost_key *cx_core_cost_key_new(void);
/* NULL-safe. */
void cx_core_cost_key_free(cx_cost_key *k);

/* cx_core_cost_build, or, when k holds the inputs of the last build into c
 * and run differs from them only in DP overlap, parameter-gather overlap
 * and, below ZeRO-2 (no side traffic: the chunk costs do not read the
 * stage), the distributed optimizer or ZeRO 0/1, only its shard groups and
 * its per-run DP part (cx_core_shard_groups, cx_core_cost_dp_runs: the
 * per-stage DP arrays then wait for cx_core_cost_dp_stages); at another
 * clock a reprice; with other recompute, TP overlap, ZeRO, offload or
 * all-to-all overlap a re-execution (cx_core_cost_reexec): the same costs
 * either way. k may be NULL (always the full build). */
culonx_status cx_core_cost_build_key(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     cx_cost_key *k, culonx_error *err);

/* The same for a caller that first needs only memory (the sweep's memory
 * check): a build it has to make may be memory-only (cx_core_cost_build_mem)
 * and a memory-only cost is not priced on a hit; *complete = 0 then, and
 * cx_core_cost_build_key completes the cost (a reprice) before any time is
 * read. *complete = 1: c is as cx_core_cost_build_key leaves it. */
culonx_status cx_core_cost_build_key_mem(const culonx_run *run, double clock_mhz, cx_cost *c,
                                         cx_cost_key *k, int *complete, culonx_error *err);

/* Pins run to k: its caller keeps run's model, system and layer split
 * (culonx_run.vstage_layers and what it points to) unchanged while it uses
 * k, so that a call for run compares only the execution once those were
 * found equal to the key's (a sweep's worker run, whose execution alone
 * changes). NULL unpins. NULL-safe. */
void cx_core_cost_key_pin(cx_cost_key *k, const culonx_run *run);

/* Tells k, before a call for run, whether run's execution differs from
 * that of k's last call (for run) only in the clock, the distributed
 * optimizer, ZeRO 0/1 and DP overlap (a sweep's innermost levels), which
 * the key's execution folds away: the next call then skips comparing it
 * when the last call left the key holding run's execution. Read by the next
 * call only (any call without it compares). NULL-safe. */
void cx_core_cost_key_tail(cx_cost_key *k, const culonx_run *run, int tail_only);

/* The clocks of the sweep using k (n distinct values): a reprice at one
 * of them takes its parts' times from those made for all of them at the
 * first (cost.h cx_core_cost_reprice_clocks). NULL-safe. */
void cx_core_cost_key_set_clocks(cx_cost_key *k, const double *mhz, int n);
/* That table (NULL where none): the clock batch of the replay reads it
 * too (its keys and reprices, on c or a copy: the same curve). */
cx_cost_clocks *cx_core_cost_key_clocks(cx_cost_key *k);

#endif
