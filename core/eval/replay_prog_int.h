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

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* items compared two at a time where schedules/sched.h allows it */
#ifdef CX_SCHED_ITEM_SSE2
#include <emmintrin.h>
#endif

#define SEND_BIT CX_REPLAY_SEND_BIT

typedef cx_replay_ins ins; /* token slots read, written; stage; vs * 4 + kind */

/* an instruction before its microbatch (replay_compile.c encode_tmpl) */
typedef struct {
    int32_t dm, da, om, oa; /* slots read, written: mb dm + da, mb om + oa (the zero and
                               scratch slots of the pl's m: dm, om 0) */
    uint64_t fhi; /* the 16-byte form's last 8 bytes (stage, di, pre CX_REPLAY_NOPRE, send),
                     little-endian */
    uint64_t pad; /* 32 bytes: an index scaled by a shift */
} tmpl;

/* a stage's registers, together (one cache line per stage's chain: the
 * program reads free and PP and writes all three per item) */
typedef struct {
    double free, pp, end, pad;
} stage_regs;

/* a renamed program held aside (replay_prog.c, the program cache): its
 * orders' key, instructions and what a run reads besides */
typedef struct {
    const cx_sched_desc *sd;
    int p, m, v;
    ins *prog;
    size_t n, cap, skipped;
    uint64_t used; /* the cache's clock at its last use (0: empty) */
    int32_t nslot;
    uint16_t last_di[CX_COST_MAX_STAGES];
    /* its folded form (folded 1: the program, prog unused) */
    size_t fold_n, fold_cap;
    cx_replay_fins *fold;
    int folded, fold_w;
    size_t fold_at, fold_g, fold_reps, fold_part; /* cx_replay_prog's */
} cx_replay_held;

/* A renamed compile's fill and drain, kept for later shapes of its
 * (schedule, p, v, form) (replay_fill.c): the compile's state at the end
 * of level L, the period skip's first match (d, pi, B, FB, K: the match,
 * see skipper in replay_compile.c), the items it read up to there and the
 * instructions before it; the items and instructions after the q periods
 * the skip copied. */
typedef struct {
    const cx_sched_desc *sd;
    int p, v, form, m; /* form: fo + 2 fw (replay_compile.c compile) */
    uint64_t used;     /* the clock at its last use (0: empty) */
    int32_t L, d, nslot, nfree;
    size_t k, fk, B, FB; /* instructions (fk: folded) so far, per block */
    int32_t *pm, *K;     /* each stage's next item, its items per block */
    uint64_t nxt[(CX_COST_MAX_STAGES + 63) / 64];
    uint16_t *fpre;
    int32_t *sl;          /* pi, the live slots' cells (-1: free): nslot each; the free slots */
    cx_sched_item *fit;   /* each stage's items up to pm, stage after stage */
    unsigned char *fcode; /* the k instructions (fk folded) */
    size_t sl_cap, fit_cap, fcode_cap;
    /* after the q periods copied */
    int64_t q;
    int32_t *pos, *dl;    /* each stage's next item, its items from there */
    cx_sched_item *dit;   /* the items from there, stage after stage */
    unsigned char *dcode; /* the dfn instructions (folded or not) from there */
    size_t dit_cap, dcode_cap, dfn, dskipped;
    int32_t nslot_end;
    uint16_t *last_di, *fpre_end;
    int32_t *st; /* the per-stage arrays above, for st_p stages */
    int st_p;
} cx_replay_fill;

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
    /* lr[b]: the last reader of a token written before b (-1: none), so
     * the tokens live at b are read in [b, lr[b]] (<= b + sg[b]: the jump's
     * loops over them stop there) */
    int32_t *lr;
    size_t lr_cap;
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
    int scanned; /* jump_scan ran for the program (the first run that may jump) */
    /* renamed: the program's token slots are the lanes' compact ones (0
     * reads zero, 1 written and never read, see compile_levels), nslot of
     * them: the form of plain plays and the clock lanes; else cell slots
     * (the jump's) */
    int renamed;
    int32_t nslot, zero;
    int32_t *fl; /* renaming: the free slots */
    size_t fl_cap;
    /* renamed: its folded form, compiled in its place where it pays
     * (folded 1: prog unused; cx_replay_code.fins) */
    size_t fold_n, fold_cap;
    cx_replay_fins *fold;
    int folded, fold_w; /* fold_w: W-like items folded into it */
    /* its periodic region stored once (cx_replay_code.fat; fold_n the
     * instructions stored): fold[0, fold_at), fold[fold_at - fold_g,
     * fold_at) fold_reps times more and its first fold_part, the rest */
    size_t fold_at, fold_g, fold_reps, fold_part;
    int32_t *sk; /* the renamed compile's period skip (replay_compile.c) */
    size_t sk_cap, skipped;
    /* the program cache (replay_prog.c): renamed programs compiled
     * before, their buffers' capacity in all, the cache's clock */
    cx_replay_held *held;
    size_t held_ins, held_fold, taken; /* held_fold: the folded forms' capacity */
    uint64_t held_clock;
    /* replay_fill.c: fills and drains kept (CX_REPLAY_FILL_N), their
     * clock; the compiles that restored a fill, copied a drain */
    cx_replay_fill *fills;
    uint64_t fill_clock;
    size_t fill_used, drain_used;
    /* last, not zeroed by cx_core_replay_prog_new (163 KB; a run writes
     * the entries it reads: p stages' registers, 4 nvs durations and
     * CX_REPLAY_NOPRE's): pages never touched are never faulted in */
    stage_regs rg[CX_COST_MAX_STAGES];
    double dur[4 * CX_COST_MAX_VSTAGES + 1]; /* per (vs, kind), then CX_REPLAY_NOPRE's -0.0 */
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

/* replay_held.c, the program cache: before a compile, pr's renamed
 * program held aside; 1 when the cache holds the renamed program of pl's
 * orders (then pr holds it); the cache freed. */
void cx_core_replay_held_put(cx_replay_prog *pr);
int cx_core_replay_held_take(cx_replay_prog *pr, const cx_play *pl);
void cx_core_replay_held_free(cx_replay_prog *pr);

#ifdef CX_SCHED_ITEM_SSE2
/* Four items a, b (two registers each) agree moved by D (cx_replay_items_agree):
 * kind | chunk << 8 and mb as 32-bit lanes, the padding masked off (M),
 * their differences compared with (0, d). */
static inline int cx_replay_items4_agree(const cx_sched_item *a, const cx_sched_item *b, __m128i M,
                                         __m128i D)
{
    const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)a),
                  a1 = _mm_loadu_si128((const __m128i *)(const void *)(a + 2)),
                  b0 = _mm_loadu_si128((const __m128i *)(const void *)b),
                  b1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 2));
    /* masked before the difference, so the padding (not written by every
     * generator) never enters an arithmetic lane: memcheck (.ci/memcheck.sh)
     * takes a lane with any undefined bit as undefined */
    const __m128i e0 =
                      _mm_cmpeq_epi32(_mm_sub_epi32(_mm_and_si128(a0, M), _mm_and_si128(b0, M)), D),
                  e1 =
                      _mm_cmpeq_epi32(_mm_sub_epi32(_mm_and_si128(a1, M), _mm_and_si128(b1, M)), D);
    return _mm_movemask_epi8(_mm_and_si128(e0, e1)) == 0xffff;
}
#endif

/* The first i < n where a[i] is not b[i] moved by d microbatches (the
 * same kind and chunk, mb + d): four items per step where SSE2 is there
 * (cx_replay_items4_agree), the rest one by one. */
static inline size_t cx_replay_items_agree(const cx_sched_item *a, const cx_sched_item *b, size_t n,
                                           int32_t d)
{
    size_t i = 0;
#ifdef CX_SCHED_ITEM_SSE2
    const __m128i M = _mm_set_epi32(-1, 0xffff, -1, 0xffff), D = _mm_set_epi32(d, 0, d, 0);
    for (; i + 4 <= n; i += 4)
        if (!cx_replay_items4_agree(a + i, b + i, M, D)) break;
#endif
    while (i < n && a[i].kind == b[i].kind && a[i].chunk == b[i].chunk && a[i].mb == b[i].mb + d)
        i++;
    return i;
}

/* n bytes from src to dst (not overlapping) in 16-byte moves where SSE2
 * is there: the compile's copied blocks and restored fills. Measured the
 * same ns per byte as memcpy (blocks of 4 KiB to 256 KiB, best of 15);
 * glibc's memcpy moves such blocks by rep movsb, which callgrind (the
 * project's count) counts once per byte, these once per 16. */
static inline void cx_replay_copy(void *dst, const void *src, size_t n)
{
    size_t i = 0;
#ifdef CX_SCHED_ITEM_SSE2
    char *const d = dst;
    const char *const s = src;
    for (; i + 32 <= n; i += 32) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i)),
                      b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        _mm_storeu_si128((__m128i *)(void *)(d + i), a);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
    }
#endif
    if (i < n) memcpy((char *)dst + i, (const char *)src + i, n - i);
}

/* replay_fill.c (see cx_replay_fill): the entry of pl's (schedule, p, v)
 * and form whose fill pl's orders repeat (each stage's items up to pm the
 * same), its use counted, else NULL; an entry to keep a compile of pl's
 * orders in (its key set, empty until cx_core_replay_fill_keep), NULL when
 * out of memory; 1 when pl's items from each stage's pos are the entry's
 * drain moved by dmb microbatches; pi^e on slots [0, n) into out (seen: n
 * slots of scratch); the fill and drain of the compile just done kept
 * (fresh: its fill too; code: its instructions, sz bytes each, fn of them
 * stored, virt more of the first match's periods not stored, see
 * cx_replay_prog.fold_at);
 * all freed. */
#define CX_REPLAY_FILL_N 8
cx_replay_fill *cx_core_replay_fill_find(cx_replay_prog *pr, const cx_play *pl, int form);
cx_replay_fill *cx_core_replay_fill_take(cx_replay_prog *pr, const cx_play *pl, int form);
int cx_core_replay_fill_drain_agrees(const cx_replay_fill *e, const cx_play *pl, const int32_t *pos,
                                     int32_t dmb);
void cx_core_replay_fill_power(const int32_t *pi, int32_t n, int64_t e, int32_t *out,
                               int32_t *seen);
/* the order of the permutation pi of [0, n) (the lcm of its cycles'
 * lengths), cap + 1 when above cap; seen: n of scratch */
int64_t cx_core_replay_fill_order(const int32_t *pi, int32_t n, int64_t cap, int32_t *seen);
void cx_core_replay_fill_keep(cx_replay_prog *pr, cx_replay_fill *e, const cx_play *pl, int fresh,
                              const void *code, size_t sz, size_t fn, size_t virt);
void cx_core_replay_fill_free(cx_replay_prog *pr);

/* replay_compile.c: the n instructions of a renamed program of p stages
 * in the 16-byte form, its W-like items folded where fw, (n at most; see cx_replay_code.fins), in
 * one pass over the program (the compile folds as it goes: the same, byte for byte,
 * tests/test_replay_lanes.c); returns its instruction count. */
size_t cx_core_replay_prog_fold(const ins *in, size_t n, int p, int fw, cx_replay_fins *out);

/* The jump (replay_prog.c), its decisions and moves on a play's state,
 * the scalar play's own or one lane of replay_jlanes.c's: token slot k at
 * tok[k ts], stage s's register k (0 free, 1 PP free, 2 last end) at
 * rg[s rs + k rk]. Both call them in the same order with the same
 * operands, so a lane gets the scalar play's bits. */
typedef struct {
    double *tok;
    size_t ts;
    double *rg;
    size_t rs, rk;
    /* wri NULL: token slot k at tok[k ts]; else (the lanes' ring of
     * tokens and a sleeping lane's, replay_jlanes.c) at tok[(wri[k] & mask)
     * ts] with wri[k] its writer, or at tok[(pb + wri[k] - pf) ts] where
     * wri[k] >= pf */
    const int32_t *wri;
    size_t mask;
    int32_t pf;
    size_t pb;
} cx_replay_jview;
static inline double *cx_replay_jtok(const cx_replay_jview *v, int64_t k)
{
    if (!v->wri) return v->tok + (size_t)k * v->ts;
    const int32_t w = v->wri[k];
    return v->tok + (w >= v->pf ? v->pb + (size_t)(w - v->pf) : (size_t)w & v->mask) * v->ts;
}
/* x[3 s + k]: register k of stage s */
void cx_core_replay_jump_snap(const cx_replay_jview *v, int p, double *x);
/* After the period [b - P, b) played from x0: the periods to move on by
 * the uniform case (0: none; *lam the shift) */
size_t cx_core_replay_jump_uniform(const cx_replay_prog *pr, const cx_replay_jview *v, int p,
                                   size_t b, const double *x0, int64_t extra, double *lam);
/* After the two periods [b2 - 2 P, b2) played from x0 and x1 with their
 * operands recorded (instruction i of the first, operand k at rec0[(4 i +
 * k) rst], of the second at rec1[...]): the periods to move on by (0:
 * none) */
size_t cx_core_replay_jump_check(const cx_replay_prog *pr, const cx_replay_jview *v, int p,
                                 size_t b2, const double *x0, const double *x1, const double *rec0,
                                 const double *rec1, size_t rst, int64_t extra);
/* q periods inserted at b2 (virtual), or skipped from b2 (real: returns
 * the instruction to go on from) */
void cx_core_replay_jump_insert(cx_replay_prog *pr, const cx_replay_jview *v, int p, size_t b2,
                                size_t q, const double *x1, int uni, double lam);
size_t cx_core_replay_jump_skip(cx_replay_prog *pr, const cx_replay_jview *v, int p, size_t b2,
                                size_t q, const double *x1, int uni, double lam);
/* the periods between failed checks after skip */
size_t cx_core_replay_jump_next_skip(size_t skip);

#endif
