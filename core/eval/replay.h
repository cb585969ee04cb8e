/*
 * replay.h — schedule replay for the closed form (see replay.c), with a
 * reusable per-thread workspace (orders, dependency cells, memos) so that
 * sweeps replay without allocating, and the order facts the sweep's lower
 * bounds need (cx_replay_shape).
 * See core/README.md, "Closed form" (replayed schedules).
 */
#ifndef CX_CORE_REPLAY_H
#define CX_CORE_REPLAY_H

#include "core/eval/cost.h"

/* Result of replaying a schedule (core/eval/replay.c), per physical stage. */
typedef struct {
    double makespan_s;                      /* last compute or blocking send */
    double last_end_s[CX_STAGE_ARRAY];      /* end of the last compute item */
    double last_item_s[CX_COST_MAX_STAGES]; /* its duration (DP overlap window) */
    double free_s[CX_COST_MAX_STAGES];      /* compute stream free (after a blocking send) */
    double peak_act_bytes[CX_STAGE_ARRAY];  /* activations + transient peak */
} cx_replay;

/* Reusable scratch for cx_core_replay_ws: the work orders of the last
 * (schedule, p, m, v), the dependency cells, and memos of the last results.
 * One per thread; never shared. */
typedef struct cx_replay_ws cx_replay_ws;

cx_replay_ws *cx_core_replay_ws_new(void);
/* A result record held by ws for its caller (the closed form replays into
 * it), so that no cost or result structure carries one. */
cx_replay *cx_core_replay_ws_out(cx_replay_ws *ws);
/* NULL-safe. */
void cx_core_replay_ws_free(cx_replay_ws *ws);
/* The cost-build key of the worker owning ws (core/eval/cost_key.h); NULL
 * for a NULL ws. */
struct cx_cost_key *cx_core_replay_ws_key(cx_replay_ws *ws);

/* The clocks (MHz) of the caller's sweep: a replay memo miss of a shape
 * played without the virtual jump plays the same shape at every one of them
 * at once (clock lanes, core/eval/replay_lanes.c) into the memo; results
 * are the same bits either way. n < 2: none. */
void cx_core_replay_ws_set_clocks(cx_replay_ws *ws, const double *mhz, int n);

/* Facts of the per-stage work orders of c's (schedule, p, m, v), used by
 * the sweep's lower bounds (core/eval/closed.c, cx_core_closed_bound). Arrays are
 * indexed by stage (and chunk: [stage * v + chunk]); valid until the next
 * call with this workspace. */
typedef struct {
    int p, v;
    const uint8_t *last_kind;   /* cx_work_kind of the stage's last item */
    const int16_t *last_chunk;  /* its chunk */
    const int16_t *lastb_chunk; /* chunk of the stage's last B or BW item */
    const int32_t *w_after;     /* [s*v+k]: W items of chunk k after it */
} cx_replay_shape;

/* Generates (or reuses) the orders of c's schedule; fills *shape. */
culonx_status cx_core_replay_shape(const cx_cost *c, cx_replay_ws *ws, cx_replay_shape *shape,
                                   culonx_error *err);

/* Exact per-stage activation peak of the replay (it depends on the orders
 * and the chunks' activation bytes only, not on times): out[s] for s < p. */
culonx_status cx_core_replay_memory(const cx_cost *c, cx_replay_ws *ws, double *peak_act_bytes,
                                    culonx_error *err);

/* Plays the schedule of c; fills out. ws may be NULL (a temporary one). */
culonx_status cx_core_replay_ws(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                culonx_error *err);
/* The same but for the activation peaks (out->peak_act_bytes may be left
 * unfilled): for a caller that has them already (closed.c, memory kept). */
culonx_status cx_core_replay_ws_times(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                      culonx_error *err);
/* The per-stage times of a result (the fields of cx_replay the closed
 * form's tail reads), where they lie. */
typedef struct {
    const double *last_end_s, *last_item_s, *free_s;
} cx_replay_times;
/* cx_core_replay_ws_times, with *t pointing at the per-stage times: into
 * out, or into the workspace's last clock batch where the result is there
 * (then out's per-stage arrays are left as they were; valid until the next
 * replay with ws). */
culonx_status cx_core_replay_ws_times_at(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                         cx_replay_times *t, culonx_error *err);
/* 1: every replay plays the full orders without jumping (the reference
 * the fast paths are held to, bench/fast_agree.c); 0 (default): the fast
 * paths. Process-wide; set it before replaying, not while threads replay. */
void cx_core_replay_set_full(int on);
/* The program of m' microbatches stands for m (periods inserted by its
 * jump, core/eval/replay_prog.c) when m >= ratio m' (default and least 1;
 * m' = 2 edge + period of the schedule's steady state, congruent to m).
 * Process-wide, like set_full. */
void cx_core_replay_set_jump_ratio(int ratio);
/* 1 if the last time result of ws came from the program of m' < m. */
int cx_core_replay_ws_fast(const cx_replay_ws *ws);
/* 1 if the last time result of ws (not from its last-inputs memo) came from
 * an exact closed form (core/eval/replay_formula.c) or the ZB sweep
 * (core/eval/replay_zb_sweep.c). */
int cx_core_replay_ws_formula(const cx_replay_ws *ws);
/* 1 if the program of m' was tried for it and could not insert every
 * period (the full orders were played). */
int cx_core_replay_ws_fallback(const cx_replay_ws *ws);
/* 1 if it came from the compiled program of all m microbatches jumping
 * over its periodic region (core/eval/replay_prog.c). */
int cx_core_replay_ws_jumped(const cx_replay_ws *ws);
/* How many times ws found a shape's orders among the recent engines it
 * keeps instead of generating them again (a sweep returns to its shapes;
 * the same bits either way). */
long cx_core_replay_ws_recalled(const cx_replay_ws *ws);

/* Same, with a temporary workspace. */
culonx_status cx_core_replay(const cx_cost *c, cx_replay *out, culonx_error *err);

#endif
