/*
 * sched.h — pipeline schedules: per-stage order of forward (F), input-gradient
 * (B) and weight-gradient (W) work, closed-form bubble, and activations in
 * flight. One file per schedule in schedules/, listed by a registry.
 *
 * Model: the network is cut into p*v "virtual stages" (chunks); physical
 * stage `stage` (0..p-1) holds chunks 0..v-1, and chunk c of stage s is
 * virtual stage vstage(p, v, s, c). Microbatch mb flows F through virtual
 * stages 0..p*v-1 in order, then B back from p*v-1 to 0; W(mb, vs) needs
 * B(mb, vs). Schedules that do not split B and W emit CX_WORK_BW items
 * (B and W fused). Each schedule states the shapes it supports (supports,
 * min_microbatches) in the reject vocabulary of culonx.h; the execution
 * check (core/layout/rules.c), the sweep and `schedules` ask it, nothing else
 * knows a schedule's rules. This header depends only on culonx.h.
 * Each schedule's order, bubble, activations and paper: schedules/README.md.
 */
#ifndef CX_SCHED_H
#define CX_SCHED_H

#include "culonx_types.h"

#include <stdint.h>

typedef enum { CX_WORK_F = 0, CX_WORK_B = 1, CX_WORK_W = 2, CX_WORK_BW = 3 } cx_work_kind;

typedef struct {
    uint8_t kind;  /* cx_work_kind */
    uint8_t chunk; /* 0..v-1 on this stage */
    int32_t mb;    /* microbatch 0..m-1 */
} cx_sched_item;

/* CX_SCHED_ITEM_SSE2: items may be compared two at a time in SSE2
 * registers (schedules/play.c's range check, core/eval/replay_compile.c's
 * period skip): the item is 8 bytes, kind and chunk its first two, mb its
 * last four, little-endian */
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <stddef.h>
#define CX_SCHED_ITEM_SSE2 1
_Static_assert(sizeof(cx_sched_item) == 8 && offsetof(cx_sched_item, kind) == 0 &&
                   offsetof(cx_sched_item, chunk) == 1 && offsetof(cx_sched_item, mb) == 4,
               "cx_sched_item layout (CX_SCHED_ITEM_SSE2)");
#endif

/* The shape a schedule is asked to run: p pipeline stages, m microbatches
 * per pipeline (0: not known yet, rules on m are skipped), v the requested
 * execution.vp, and the model's layers. */
typedef struct {
    int64_t p, m, v, layers;
} cx_sched_shape;

typedef struct {
    const char *name; /* as in execution.schedule */
    int splits_bw;    /* emits separate B and W items */
    /* chunks per stage for a requested v (execution.vp): interleaved uses v,
     * V-shaped schedules always 2, the rest 1. */
    int (*chunks)(int v_requested);
    /* which virtual stage chunk c of stage s is */
    int (*vstage)(int p, int v, int stage, int chunk);
    /* Writes the ordered work of `stage` into out (capacity cap, which must be
     * >= 3*m*chunks(v)); returns the count, or -1 if (p, m, v) is not
     * supported (interleaved needs m >= p, DualPipeV m >= 2p: see the files).
     * Every function here takes the requested v and applies chunks(v). */
    int (*order)(int p, int m, int v, int stage, cx_sched_item *out, int cap);
    /* order() writes only items in range for every shape it accepts (kind
     * F, B, W or BW, chunk < chunks(v), 0 <= mb < m), by construction
     * (see each file): unchecked plays of its orders skip the range check
     * (schedules/play.c), checked ones (the simulator, tests) keep it */
    int ranged;
    /* closed-form bubble time per iteration for uniform stages with per-
     * microbatch, per-stage times F, B, W (whole stage, all chunks) */
    double (*bubble_s)(int p, int m, int v, double f_s, double b_s, double w_s);
    /* peak activations held on `stage`, in units of one microbatch's
     * activations for the whole stage (all chunks): 1F1B stage 0 = p.
     * Exactly what replaying order() gives (cx_sched_replay_peak): an
     * activation of (mb, chunk) counts 1/chunks from its F until the end of
     * its W (or fused BW). */
    double (*inflight)(int p, int m, int v, int stage);
    /* inflight() is non-increasing in the stage (1F1B, GPipe): a stage
     * equal to an earlier one never holds more (the closed form's memory
     * skips it) */
    int inflight_falls;
    /* weight copies held per stage (DualPipe: 2), 1 otherwise */
    int weight_copies;
    /* p2p overlapped with compute (Megatron's --overlap-p2p-communication,
     * on by default for the interleaved schedule): sends do not block the
     * sender; otherwise they do (send/recv pairs are waited on) */
    int p2p_overlap;
    /* the closed form's analytic pipeline time is exact for this schedule
     * even with uneven stages and blocking p2p (GPipe, 1F1B); otherwise
     * the closed form replays the order (core/eval/replay.c) */
    int closed_exact;
    /* all forwards before all backwards (GPipe): the forward and backward
     * phases each have their own bottleneck stage */
    int phased;
    /* p2p messages per microbatch per stage, relative to 1F1B, per chunk:
     * the total factor is p2p_factor * chunks(v) (interleaved v, V-shapes 2) */
    double p2p_factor;
    /* The first of this schedule's rules that shape s breaks, or
     * CULONX_REJECT_NONE: v > 1 only where chunks() takes it (else
     * CULONX_REJECT_VP_SCHEDULE) and then with p > 1 (PP1_CHUNKS); layers
     * divisible by p*chunks(v) (LAYERS_PP, LAYERS_PP_VP, LAYERS_2PP); m >=
     * min_microbatches (SCHED_MICROBATCHES, when m > 0). order() supports
     * every shape accepted here (tests/test_schedules.c). */
    culonx_sweep_reject (*supports)(const cx_sched_shape *s);
    /* microbatches per pipeline needed on p stages at requested v (>= 1) */
    int64_t (*min_microbatches)(int64_t p, int64_t v);
    /* Steady state of the orders (optional; NULL: none stated). Returns 1
     * and sets *period (microbatches) and *edge (microbatches) when, for
     * every m' = m - k*period with m' >= 2*edge + period, the orders of
     * (p, m, v) are those of (p, m', v) with k periods inserted: items of
     * microbatches in [edge, m' - edge) form, on every stage, a block that
     * repeats with the microbatch ids advanced by period. Used by the
     * closed form's replay (core/eval/replay.c) to play O(edge + period)
     * microbatches instead of m; held to the full replay by
     * bench/fast_agree.c and tests/test_fast_replay.c. */
    int (*steady)(int p, int m, int v, int *period, int *edge);
} cx_sched_desc;

/* The schedule takes execution.vp (its chunks per stage follow it). */
static inline int cx_sched_takes_vp(const cx_sched_desc *d)
{
    return d->chunks(2) != d->chunks(3);
}

/* NULL if id is out of range. */
const cx_sched_desc *cx_sched_get(culonx_schedule id);
const cx_sched_desc *cx_sched_find(const char *name);

/* The schedules, one file each in schedules/, listed in schedules/list.h. */
#define CX_SCHEDULE(file) extern const cx_sched_desc cx_sched_##file;
#include "schedules/list.h"
#undef CX_SCHEDULE

/* Number of registered schedules (ids 0 .. count-1). */
int cx_sched_count(void);
/* The id of a registered descriptor (its position in schedules/list.h). */
culonx_schedule cx_sched_id(const cx_sched_desc *d);

/* ------------------------------------------------ reference simulator (sim.c) */

typedef enum {
    CX_SCHED_SIM_OK = 0,
    CX_SCHED_SIM_UNSUPPORTED = 1, /* order() returned -1 for (p, m, v) */
    CX_SCHED_SIM_BAD_ORDER = 2,   /* an item missing, repeated or out of range */
    CX_SCHED_SIM_DEADLOCK = 3,    /* the orders cannot all be played */
    CX_SCHED_SIM_NOMEM = 4,
} cx_sched_sim_status;

/* Plays the per-stage orders of `d` on p stages, each stage executing its
 * items strictly in order, one at a time, each as soon as its dependencies
 * allow: F(mb,vs) after F(mb,vs-1); B or BW(mb,vs) after F(mb,vs) and, below
 * the last virtual stage, after B or BW(mb,vs+1); W(mb,vs) after B(mb,vs).
 * A dependency between different physical stages adds p2p_s. The rules are
 * the play engine's (play.h), shared with the closed form's replay and the
 * graph walker; this is its uniform-time player. Item durations
 * are the per-stage, per-microbatch times divided by chunks(v): f_s, b_s,
 * w_s, and b_s + w_s for BW. Writes the makespan and, if busy_s is not NULL,
 * the busy time of each of the p stages. */
cx_sched_sim_status cx_sched_simulate(const cx_sched_desc *d, int p, int m, int v, double f_s,
                                      double b_s, double w_s, double p2p_s, double *makespan_s,
                                      double *busy_s);

/* Peak activations held while playing one stage's items in order, in units of
 * one microbatch's whole-stage activations (each (mb, chunk) is 1/chunks). */
double cx_sched_replay_peak(const cx_sched_item *items, int n, int chunks);

#endif
