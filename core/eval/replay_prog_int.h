/*
 * replay_prog_int.h — what the two files of the compiled replay program
 * share (internal to core/eval): the program's state (replay_prog.c runs
 * and jumps, replay_compile.c compiles the orders into it).
 * See core/README.md, "Closed form" (Compiled orders, Program jump,
 * Compiling and running the program).
 */
#ifndef CX_CORE_REPLAY_PROG_INT_H
#define CX_CORE_REPLAY_PROG_INT_H

#include "core/eval/cost.h"
#include "core/eval/replay_prog.h"

#include <stdlib.h>

#define SEND_BIT CX_REPLAY_SEND_BIT

typedef cx_replay_ins ins; /* token slots read, written; stage; vs * 4 + kind */

/* an instruction before its microbatch (replay_compile.c encode_tmpl) */
typedef struct {
    int32_t vs, dep, out;
    uint16_t di;
} tmpl;

/* a stage's registers, together (one cache line per stage's chain: the
 * program reads free and PP and writes all three per item) */
typedef struct {
    double free, pp, end, pad;
} stage_regs;

struct cx_replay_prog {
    /* the orders compiled: key of the engine's orders */
    const cx_sched_desc *sd;
    int p, m, v, have;
    ins *prog;
    size_t n, prog_cap;
    int32_t *seq; /* recording: (stage, pos) pairs */
    size_t seq_cap, nseq;
    double *tok; /* [2 * cells + 2]: f_out, b_out of each cell, 0, scratch */
    size_t tok_cap;
    uint16_t last_di[CX_COST_MAX_STAGES]; /* each stage's last item */
    /* the jump (see jump_scan): instructions [ra, re) repeat with period P
     * instructions, slots + shift (i + P is i moved by c microbatches for
     * i in [ra, re - P)); wr: writer of each instruction's dep slot (-1:
     * the zero slot); sg[i]: the longest distance from a writer to its
     * reader among the readers from i on (so the tokens live at a boundary
     * b have their readers in [b, b + sg[b]]) */
    int32_t *wr, *sg;
    size_t wr_cap, sg_cap, ra, re, P;
    int32_t *wl; /* compile_levels: the level each slot was written at */
    size_t wl_cap;
    tmpl *tm; /* per (stage, chunk, kind): its instruction for microbatch 0 */
    size_t tm_cap;
    int32_t shift;
    int jump_ok, jumped; /* jumped: the last run did */
    double *rec;         /* [8 P]: operands of two periods (jump) */
    size_t rec_cap;
    uint8_t sends[CX_COST_MAX_STAGES]; /* the stage sends within a period */
    int32_t *lv_slot;                  /* [3 (sg[ra] + 1)]: new values of a virtual insertion */
    double *lv_val;
    size_t lv_cap, lvv_cap;
    double dur[4 * CX_COST_MAX_VSTAGES]; /* per (vs, kind) */
    stage_regs rg[CX_COST_MAX_STAGES];
    int scanned; /* jump_scan ran for the program (the first run that may jump) */
    /* renamed: the program's token slots are the lanes' compact ones (0
     * reads zero, 1 written and never read, see compile_levels), nslot of
     * them, and each stage's last instruction has LAST_BIT: the form of
     * plain plays and the clock lanes; else cell slots (the jump's) */
    int renamed;
    int32_t nslot, zero;
    int32_t *fl; /* renaming: the free slots */
    size_t fl_cap;
    int32_t *sk; /* the renamed compile's period skip (replay_compile.c) */
    size_t sk_cap, skipped;
};

/* *buf holds at least n items of sz bytes (contents not kept); -1 when
 * out of memory. Callers ask for what they will touch (see tok_for in
 * replay_prog.c): each page new to the process costs ~2 us of page fault
 * on this VM, about what compiling 300 items costs. */
static inline int cx_core_replay_grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    free(*buf);
    *buf = malloc(n * sz);
    *cap = *buf ? n : 0;
    return *buf ? 0 : -1;
}

/* replay_compile.c: the templates of every (stage, chunk, kind) of pl's
 * orders into pr->tm (-1: out of memory); the program of the sequence
 * recorded from the engine (pr->seq, pr->nseq); the program in (level,
 * stage) order, renamed or not (see there). */
int cx_core_replay_prog_templates(cx_replay_prog *pr, const cx_play *pl);
void cx_core_replay_prog_compile_seq(cx_replay_prog *pr, const cx_play *pl);
cx_sched_sim_status cx_core_replay_prog_compile_levels(cx_replay_prog *pr, const cx_play *pl,
                                                       size_t items, int c, int renamed);

#endif
