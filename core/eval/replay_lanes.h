/*
 * replay_lanes.h — clock lanes (core/eval/replay_lanes.c): the compiled
 * program of a schedule's orders (replay_prog.c) run for many duration
 * sets at once, one per SIMD lane, each lane giving the bits of the plain
 * play (no jump) of its durations. A sweep's clocks change the durations
 * of one cost shape only, so on a replay memo miss the closed form prices
 * the shape at every clock of the sweep, plays them in lanes and stores
 * every result in the replay memo (replay_memo.c).
 * Also the two functions replay.c and the lanes share, so that both read a
 * cost the same way: the item durations of each virtual stage and the
 * replay memo's time key.
 * See core/README.md, "Closed form" (Clock lanes).
 */
#ifndef CX_CORE_REPLAY_LANES_H
#define CX_CORE_REPLAY_LANES_H

#include "core/eval/replay_memo.h"
#include "core/eval/replay_prog.h"
#include "core/eval/replay_step.h"

/* Item durations of a chunk (replay_step.h): F = f + tp_f, B = r + tp_r +
 * b + tp_b, BW = B + w, W = w; the DP-overlap windows without the
 * recompute. */
static inline void cx_replay_vsinfo_of(const cx_chunk_cost *cc, cx_replay_vsinfo *x)
{
    x->dF = cc->f_s + cc->tp_f_s;
    x->dB = cc->r_s + cc->tp_r_s + cc->b_s + cc->tp_b_s;
    x->dBW = x->dB + cc->w_s;
    x->dW = cc->w_s;
    x->lastB = x->dB - cc->r_s - cc->tp_r_s;
    x->lastBW = x->dBW - cc->r_s - cc->tp_r_s;
}

/* The same from a chunk's 7 durations in time-key order (f, tp_f, b, tp_b,
 * r, tp_r, w: cx_replay_time_key), the same operations. */
static inline void cx_replay_vsinfo_of_key(const double *q, cx_replay_vsinfo *x)
{
    x->dF = q[0] + q[1];
    x->dB = q[4] + q[5] + q[2] + q[3];
    x->dBW = x->dB + q[6];
    x->dW = q[6];
    x->lastB = x->dB - q[4] - q[5];
    x->lastBW = x->dBW - q[4] - q[5];
}

/* The same for each of c's virtual stages. */
static inline void cx_replay_durations(const cx_cost *c, cx_replay_vsinfo *vi)
{
    const int nvs = c->p * c->v;
    for (int vs = 0; vs < nvs; vs++)
        cx_replay_vsinfo_of(cx_core_cost_chunk(c, vs), &vi[vs]);
}

/* The replay memo's time key of c: per chunk class its 7 durations, then
 * the p2p time; returns the count (7 nclass + 1). */
static inline int cx_replay_time_key(const cx_cost *c, double *key)
{
    for (int k = 0; k < c->nclass; k++) {
        const cx_chunk_cost *cc = &c->cls[k];
        double *q = key + 7 * k;
        q[0] = cc->f_s, q[1] = cc->tp_f_s, q[2] = cc->b_s, q[3] = cc->tp_b_s;
        q[4] = cc->r_s, q[5] = cc->tp_r_s, q[6] = cc->w_s;
    }
    key[7 * c->nclass] = c->p2p_s;
    return 7 * c->nclass + 1;
}

typedef struct cx_replay_lanes cx_replay_lanes;

cx_replay_lanes *cx_core_replay_lanes_new(void);
/* NULL-safe. */
void cx_core_replay_lanes_free(cx_replay_lanes *ln);

/* The clocks (MHz) a batch prices (at most CX_REPLAY_LANES_MAX_CLOCKS;
 * fewer than 2: no batch). */
#define CX_REPLAY_LANES_MAX_CLOCKS 1024
void cx_core_replay_lanes_set_clocks(cx_replay_lanes *ln, const double *mhz, int n);
/* 1 when a batch would play (at least 2 clocks set). */
int cx_core_replay_lanes_on(const cx_replay_lanes *ln);

/* The vectors lanes play on: 0 the widest the CPU runs (the default), 1
 * SSE2, 2 AVX2, 3 AVX-512 (for tests: each gives the same bits); 1 when
 * set, 0 when the CPU lacks it (unchanged). Process-wide; not while
 * threads replay. */
int cx_core_replay_lanes_set_isa(int isa);

/* 1 when ln's last program ran folded; st: its items folded, W-like
 * instructions that carry one (chains), W-like items moved to the end (a
 * stage's last). */
int cx_core_replay_lanes_fold_stats(const cx_replay_lanes *ln, size_t st[3]);

/* Plays the program pr holds for pl's orders (cx_core_replay_prog_code)
 * for n duration sets at once: vi[i] the durations of set i per virtual
 * stage, p2p[i] its p2p time, overlap the schedule's; out[i]'s time fields
 * (makespan, and last_end_s, last_item_s, free_s of the first p stages)
 * are the bits of cx_core_replay_prog_run_plain with those durations.
 * 0 done; -1 when no program is held, its token slots are too many for
 * lanes (memory bounded whatever m) or out of memory. */
int cx_core_replay_lanes_run(cx_replay_lanes *ln, const cx_play *pl, const cx_replay_prog *pr,
                             int n, const cx_replay_vsinfo *const *vi, const double *p2p,
                             int overlap, cx_replay *out);

/* Plays the n duration sets idx[0 .. n) of a list (set i: per class
 * vi[i * c->nclass ...], p2p time p2p[i]) of c's shape through pr's program
 * of pl's orders in lanes, each result packed (replay_clocks.h) into rows
 * + idx[j] * stride: the bits of the plain play. 0 done, -1 as
 * cx_core_replay_lanes_run. */
int cx_core_replay_lanes_rows(cx_replay_lanes *ln, const cx_cost *c, const cx_play *pl,
                              const cx_replay_prog *pr, int n, const int *idx,
                              const cx_replay_vsinfo *vi, const double *p2p, double *rows,
                              int stride);

/* One clock of a batch (here and replay_jlanes.c): c itself (clock_mhz
 * <= 0) or c priced again at clock_mhz into copy (copied from c once, when
 * *copied is 0); its time key into key (at most 7 CX_COST_MAX_CLASSES + 1
 * doubles). 1 with the lane's class durations in vi[0 .. c->nclass) and
 * its p2p time in *p2p_s when it needs playing; 0 when the memo holds its
 * key, or the exact formula answers a repriced clock (res: scratch). */
int cx_core_replay_lane_price(const cx_cost *c, double clock_mhz, cx_cost *copy, int *copied,
                              double *key, const cx_replay_memo_key *k0, cx_replay_memo *mm,
                              cx_replay *res, cx_replay_vsinfo *vi, double *p2p_s);

/* The batch of a replay memo miss: c's durations and those of c's shape
 * priced again (cx_core_cost_reprice, on a copy of c) at every other clock
 * of the list, played in lanes through pr's program of pl's orders, every
 * result stored in mm under k0 with its time key (flags 0: a plain play);
 * keys mm holds already are skipped. 1 when played; 0 (nothing done) when
 * fewer than 2 clocks are set or pr holds no program of pl's orders that
 * lanes can run. The results are those the plain play would store, so a
 * sweep's output does not depend on it. */
int cx_core_replay_lanes_batch(cx_replay_lanes *ln, const cx_cost *c, const cx_play *pl,
                               const cx_replay_prog *pr, cx_replay_memo *mm,
                               const cx_replay_memo_key *k0);

#endif
