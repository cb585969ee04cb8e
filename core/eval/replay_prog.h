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
 * full orders), else as cx_core_replay_prog_run. extra < 0: the plain
 * play (below). */
cx_sched_sim_status cx_core_replay_prog_run_ext(cx_replay_prog *pr, cx_play *pl,
                                                const cx_replay_timing *tm, int64_t extra);

/* Same as cx_core_replay_prog_run, never jumping over the periodic region
 * (every item played: the bits of the full replay). The closed form plays
 * this way the orders it does not play on the virtual jump's path
 * (core/eval/replay.c), so that the clock lanes (replay_lanes.c) give
 * its bits. */
static inline cx_sched_sim_status cx_core_replay_prog_run_plain(cx_replay_prog *pr, cx_play *pl,
                                                                const cx_replay_timing *tm)
{
    return cx_core_replay_prog_run_ext(pr, pl, tm, -1); /* extra < 0: no jump */
}

/* Compiles the program of the orders held by pl unless held, playing
 * nothing (the engine plays them where no program fits, recording one
 * where they have no steady state): for the clock lanes. */
static inline cx_sched_sim_status cx_core_replay_prog_compile(cx_replay_prog *pr, cx_play *pl,
                                                              const cx_replay_timing *tm)
{
    return cx_core_replay_prog_run_ext(pr, pl, tm, -2);
}

/* 1 when pr holds the program of the orders of pl's shape (sd, p, m, v),
 * or takes it from its cache (the lanes' renamed form): then
 * cx_core_replay_prog_compile reads only pl's shape, never its items, and
 * pl may be a header holding the shape alone. 0: compile from the orders. */
int cx_core_replay_prog_ready(cx_replay_prog *pr, const cx_play *pl);

/* One instruction of the compiled program: token slot read and written,
 * stage, duration slot vs * 4 + kind with CX_REPLAY_SEND_BIT for a send. */
typedef struct {
    int32_t dep, out;
    uint16_t stage, di;
} cx_replay_ins;
#define CX_REPLAY_SEND_BIT 0x8000u
/* renamed programs (below): token slot k's dep and out read k times this
 * (a plain play's tokens this many doubles apart; the clock lanes' 4-lane
 * pass finds a token's bytes by the addressing mode, no shift) */
#define CX_REPLAY_SLOT_STRIDE 4

/* An instruction of a renamed program in the 16-byte form
 * (cx_replay_code.fins): the renamed one's fields, the send flag apart
 * from the duration slot, and pre the duration slot (vs * 4 + kind) of the
 * W-like item folded into it (CX_REPLAY_NOPRE: none). */
typedef struct {
    int32_t dep, out;
    uint16_t stage, di, pre, send; /* stage times CX_REPLAY_FSTAGE_STRIDE; di without the send
                                      bit, times CX_REPLAY_FDI; pre not scaled; send:
                                      CX_REPLAY_FSEND for a send */
} cx_replay_fins;
/* the 16-byte form's stage is scaled: its stage registers' place in the
 * clock lanes' 4-lane pass (4 groups of 4 doubles a stage) by the
 * addressing mode, no shift (replay_lanes.c) */
#define CX_REPLAY_FSTAGE_STRIDE 16
/* and its send flag: a send's is this (the clock lanes' row of p2p: no
 * send adds a row of +0.0, see replay_lanes.c), else 0 */
#define CX_REPLAY_FSEND 4
/* its duration slot times this (the clock lanes' 4-lane pass finds a
 * duration row of 4 doubles by the addressing mode, no shift; 4 x 4
 * CX_COST_MAX_VSTAGES - 4 still fits 16 bits) */
#define CX_REPLAY_FDI 4
#define CX_REPLAY_NOPRE 0x4000u /* above every duration slot (4 CX_COST_MAX_VSTAGES) */

/* The program compiled for the orders held by pl (for the clock lanes,
 * core/eval/replay_lanes.c): n instructions; slot zero reads 0, slot
 * zero + 1 is written and never read (the slots below: two per cell);
 * last_di[s]: the di of stage s's last item (with the send bit).
 * renamed: the slots are already the lanes' compact ones (0 reads 0, 1
 * written and never read, nslot in all, each times CX_REPLAY_SLOT_STRIDE):
 * what a plain play or a compile-only
 * call compiles for schedules with a steady state. */
typedef struct {
    const cx_replay_ins *ins;
    size_t n;
    int32_t zero;
    const uint16_t *last_di;
    int renamed;
    int32_t nslot;
    /* renamed, in the 16-byte form (ins NULL; compile_levels compiles
     * every renamed program so unless the fold mode is 0), fn
     * instructions; fold_w: with every W-like item (reads slot 0, writes
     * the scratch slot, no send: ZB's W items) folded into its stage's
     * next instruction as that one's pre (replay_compile.c), where that
     * pays */
    const cx_replay_fins *fins;
    size_t fn;
    int fold_w; /* fins: W-like items folded into it (else every pre is CX_REPLAY_NOPRE) */
    /* fins's periodic region stored once (replay_compile.c, the period
     * skip): the program is fins[0, fat), then fins[fat - fg, fat) freps
     * times more and its first fpart, then fins[fat, fn) (freps = fpart =
     * 0: fins[0, fn) as it is); cx_replay_code_ranges lists the pieces */
    size_t fat, fg, freps, fpart;
} cx_replay_code;

/* The 16-byte program's pieces in order (see cx_replay_code.fat): piece i
 * is fins[off[i], off[i] + len[i]) played rep[i] times; returns the
 * instructions of the program (fn + fg freps + fpart). */
static inline size_t cx_replay_code_ranges(const cx_replay_code *c, size_t off[4], size_t len[4],
                                           size_t rep[4])
{
    const size_t g0 = c->fat - c->fg;
    off[0] = 0, len[0] = c->fat, rep[0] = 1;
    off[1] = g0, len[1] = c->fg, rep[1] = c->freps;
    off[2] = g0, len[2] = c->fpart, rep[2] = 1;
    off[3] = c->fat, len[3] = c->fn - c->fat, rep[3] = 1;
    return c->fn + c->fg * c->freps + c->fpart;
}

/* The 16-byte program of code written out whole into out (room for
 * cx_replay_code_ranges' count); returns that count (tests compare
 * programs so). */
size_t cx_core_replay_code_fins(const cx_replay_code *code, cx_replay_fins *out);

/* 1 and *code filled when pr holds the program of pl's orders, else 0. */
int cx_core_replay_prog_code(const cx_replay_prog *pr, const cx_play *pl, cx_replay_code *code);

/* Renamed programs: 0 the 12-byte form (cx_replay_ins), 1 the 16-byte
 * one (cx_replay_fins) with W-like items folded where they are at least a
 * quarter of stage 0's items (the default), 2 the same folded wherever an
 * item folds (for tests: the same bits each way). Process-wide; not while
 * threads compile. */
void cx_core_replay_prog_set_fold(int mode);

/* 0: never jump over the periodic region (the reference for
 * bench/fast_agree.c; cx_core_replay_set_full sets it); default 1. */
void cx_core_replay_prog_set_jump(int on);
/* 0: the renamed compile copies no periods (replay_compile.c, the period
 * skip: the same program either way; for tests); default 1. Process-wide;
 * not while threads compile. */
void cx_core_replay_prog_set_skip(int on);
/* 0: the renamed compile neither keeps nor reuses the fills and drains
 * of earlier shapes (replay_fill.c: the same program either way; for
 * tests); default 1. Process-wide; not while threads compile. */
void cx_core_replay_prog_set_fill(int on);
/* 0: the 16-byte form stores its periodic region whole (fins[0, fn), no
 * repeats: cx_replay_code.fat; the same program either way; for tests
 * and measurements); default 1. Process-wide; not while threads compile. */
void cx_core_replay_prog_set_period(int on);
/* The compiles of pr that restored a kept fill, and those that also
 * copied a kept drain, in all. */
void cx_core_replay_prog_fills(const cx_replay_prog *pr, size_t *fills, size_t *drains);
/* The instructions the last compile of pr copied by the period skip. */
size_t cx_core_replay_prog_skipped(const cx_replay_prog *pr);
/* The renamed programs pr took back from its cache of programs compiled
 * before instead of compiling them (replay_prog.c, held_take), in all. */
size_t cx_core_replay_prog_taken(const cx_replay_prog *pr);
/* 1 if the last run of pr's program jumped over periods. */
int cx_core_replay_prog_jumped(const cx_replay_prog *pr);

#endif
