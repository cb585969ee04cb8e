/*
 * replay_lanes.c — clock lanes: the replay's compiled program
 * (replay_prog.c) run for many duration sets at once, 24, 16 or 8 lanes
 * per pass (per value one group of 24, 16 or 8 doubles: three, two or one
 * AVX-512 vectors, or AVX2 or SSE2 ones, chosen at load time; GCC vector
 * extensions off x86). Each lane computes
 * exactly the plain play's operations on its own operands, per instruction
 *     start = max(free[s], tok[dep]), end = start + dur,
 *     send: out = pp[s] = max(end, pp[s]) + p2p, free[s] = overlap ? end : out
 * (replay_step.h), with the scalar's maximum (a > b ? a : b, lane by lane:
 * x86's MAXPD is exactly that) and IEEE addition, so every lane gives the
 * bits of cx_core_replay_prog_run_plain for its durations
 * (tests/test_replay_lanes.c, every width and ISA).
 * Long file: the kernels of every width and form, their dispatch, the
 * renamer and the batch; one pass loop over the program's pieces.
 * A 16-byte program whose periodic region is stored once (replay_compile.c,
 * cx_replay_code.fat) is played piece by piece, the group once per repeat.
 * Token slots: the program's slots (two per (microbatch, virtual stage)
 * cell) are renamed into a compact set, a slot reused after its only
 * reader: as the program is compiled (replay_compile.c, the form compiled
 * for plain plays, run as it is), else here once per orders (one pass from
 * the end), so the lanes' token
 * storage is the tokens live at once (between stages: p + 2 measured on
 * ZB-H1 in the level order), not O(m): lanes are refused above MAX_SLOTS
 * live tokens. Durations are read per (chunk class, kind) through a map
 * from (virtual stage, kind) (the 4-lane pass: a row per (virtual stage,
 * kind), its offset the duration slot shifted, no map load; 4 lanes keep
 * it small), so that a pass touches little besides its
 * stage registers (p x 3 groups) and tokens and stays in the L1 cache. A
 * pass's cost is mostly per instruction (decoding, addresses), not per
 * lane, so a batch plays as many lanes per pass as keep the lines a level
 * touches (2 p stage registers, the tokens, the durations) in L1: 24 where
 * they fit WIDER_BYTES (ZB-H1 p <= 64), 16 where they fit WIDE_BYTES
 * (p <= 128), and the last up to 8 lanes in a pass of 8 (measured on this
 * 2-core VM, AVX-512, best of 15, ns per instruction and lane with class
 * durations: ZB-H1 p = 64, m = 768: 8 lanes 0.25, 16 lanes 0.16, 24 lanes
 * 0.14; p = 128: 0.26, 0.17, 0.31 (24 spill); p = 256: 16 lanes 0.33
 * against 8 lanes 0.25; the first version, 8 lanes by a compare and
 * blend, 0.26-0.28; precomputed byte offsets in 16-byte instructions
 * gained nothing, 8-byte instructions ~7%, a path of its own for items
 * that read zero and write scratch nothing).
 * Programs compiled renamed come in a 16-byte form (replay_compile.c: the
 * send flag apart from the duration slot), folded where at least a
 * quarter of the items are W-like (ZB-H1, ZB-H2, ZB-V): W-like items (zero
 * slot read, scratch written, no send) folded into their stage's next
 * instruction, which adds the item's duration to the stage's free time
 * before its maximum (-0.0 where none: the same bits). Each width has a
 * kernel per form: _g 19 x86 instructions per instruction without a send
 * on the 4-lane AVX2 pass, _f (folded) 22, the 12-byte form 21; folded, a
 * third fewer instructions (callgrind, fast-only bench schedules, main
 * 03effa3 -> this: zb-v passes 193M -> 145M, dualpipev 261M -> 238M).
 * Without p2p overlap (every schedule here) a stage's PP free never
 * exceeds its free, so a send's maximum is its end: out = end + a row of
 * p2p, +0.0 for no send (picked by the send flag, no branch), no PP
 * register; the stages' last ends are stored only from the program's
 * tail on (set_tail); the 16-byte form's stage and send flag are scaled
 * for the 4-lane pass's addressing modes: 17 x86 instructions per
 * instruction, send or not, on the 4-lane AVX2 pass (callgrind, fast-only
 * bench schedules dualpipev, main 428574c -> this: 4-lane pass 161.9M ->
 * 119.0M, 16-lane 45.0M -> 31.2M; zb-v folded 97.0M -> 74.2M, 24.3M ->
 * 17.4M; see core/README.md, "Leaner lanes kernel"). The pass loop is
 * unrolled by 8. On the 16-byte form the duration slot comes scaled
 * (CX_REPLAY_FDI): the 4-lane pass finds its row by the addressing mode
 * (core/README.md, "Lanes kernel, session 27"). Session 28 (time, not
 * instructions: the 4-lane pass is bound by its loads and stores, perf
 * cpu-clock): it reads a 16-byte instruction by two 8-byte loads (fields
 * by shifts), a folded item's duration row by a shift (ptab: rows per
 * duration slot, NOPRE's -0.0 at row NOPRE; no cmap load), and adds for a
 * send the p2p vector masked by the send flag (no row load): 5 loads and
 * 2 stores per instruction on DualPipeV's form (was 8 and 2), 6 and 2
 * folded (was 11 and 2; see core/README.md, "Lanes kernel, session 28").
 * Memory per worker: 12 bytes per instruction of the last orders renamed
 * here (none when compiled renamed, never folded), 4 bytes per program slot while
 * renaming, 64 bytes per
 * live token, the stage registers, a copy of the cost (~370 KB), the
 * durations and keys of 32 lanes, and ptab's 512 KB of address space
 * (a few pages touched).
 * The batch (cx_core_replay_lanes_batch): on a replay memo miss of a shape
 * played without the virtual jump (replay.c), the cost is copied once and
 * priced again at every other clock of the sweep (cx_core_cost_reprice: the
 * same function a sweep's next clock runs on the same shape); clocks whose
 * key the memo holds or where the exact formula answers (replay_formula.c,
 * tried first by the replay) are left out; the durations of each chunk
 * class go into lanes, with the missed clock's own, and each result into
 * the replay memo under its time key; the sweep's evaluations at those
 * clocks then hit the memo. Since a lane gives the plain play's bits and
 * the memo is keyed on the bits of every input, results never depend on
 * whether they were batched.
 * See core/README.md, "Closed form" (Clock lanes).
 */
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_clocks.h"
#include "core/eval/replay_formula.h"

#include <stdlib.h>
#include <string.h>

#define SEND_BIT CX_REPLAY_SEND_BIT
#define STRIDE CX_REPLAY_SLOT_STRIDE /* slot k: k STRIDE in dep, out */
#define RG_N 4                  /* stage registers per stage, groups of W doubles (one unused) */
#define VW0 4                   /* lanes per narrowest pass */
#define VW 8                    /* lanes per narrow pass */
#define VW2 16                  /* lanes per wide pass */
#define VW3 24                  /* lanes per wider pass */
#define WIDE_BYTES (64 * 1024)  /* see pass_width */
#define WIDER_BYTES (48 * 1024) /* the L1 data cache here */
#define MAX_LANES 32            /* lanes per batch flush */
#define MAX_SLOTS (1 << 16)     /* live tokens: 4 MiB of lane tokens at most */

/* the renamed program of (sd, p, m, v), n instructions, nslot slots (0:
 * the zero slot, 1: scratch) */
typedef struct {
    const cx_sched_desc *sd;
    int p, m, v, have;
    size_t n;
    int32_t nslot;
    const cx_replay_ins *ins; /* prog, or the program's own when compiled renamed */
    cx_replay_ins *prog;
    size_t prog_cap;
    uint16_t last_di[CX_COST_MAX_STAGES]; /* with the send bit */
    /* the instructions from tail on hold every stage's last (see
     * set_tail), found for the program at tail_of */
    size_t tail, tail_n;
    const void *tail_of;
    const cx_sched_desc *tail_sd;
    int tail_p, tail_m, tail_v, have_tail;
    const cx_replay_fins *fins; /* or its 16-byte form (replay_compile.c), fn of them */
    size_t fn;
    int fw;                       /* its W-like items folded */
    size_t fat, fg, freps, fpart; /* fins's periodic region (cx_replay_code.fat) */
} lprog;

/* x's 16-byte program's pieces (cx_replay_code_ranges) */
static void lprog_ranges(const lprog *x, size_t off[4], size_t len[4], size_t rep[4])
{
    cx_replay_code c;
    c.fn = x->fn, c.fat = x->fat, c.fg = x->fg, c.freps = x->freps, c.fpart = x->fpart;
    cx_replay_code_ranges(&c, off, len, rep);
}

#define NOPRE CX_REPLAY_NOPRE

struct cx_replay_lanes {
    double clk[CX_REPLAY_LANES_MAX_CLOCKS];
    int nclk;
    /* the renamed program of the last orders (a cache of 8 or 64 of them
     * measured slower on bench_sweep_bench schedules: their buffers' page
     * faults cost more than the renames they saved) */
    lprog cur[1];
    /* renaming scratch: per program slot its reads, then its new slot */
    int32_t *map, *freel;
    size_t map_cap, freel_cap;
    /* a pass of w lanes: tokens [nslot][w], stage registers [p][4][w]
     * (free, PP free, last end, unused: a stage's offset by a shift),
     * durations [4 ncls][w], p2p [w]; cmap: (vs, kind) -> (class, kind)'s
     * byte offset in dur */
    double *tok, *rg, *dur;
    size_t tok_cap, rg_cap, dur_cap;
    /* the 4-lane pass's durations: a row of VW0 per duration slot (vs *
     * 4 + kind), NOPRE's -0.0 at row NOPRE (a folded item's row by a
     * shift, no map load; the rows between are never touched) */
    double *ptab;
    uint32_t cmap[4 * CX_COST_MAX_VSTAGES + 1]; /* + NOPRE */
    uint16_t ident[CX_COST_MAX_VSTAGES];
    /* a batch: its cost copy, and per lane the class durations and time key */
    cx_cost *cost;
    cx_replay_vsinfo *vi; /* [MAX_LANES][CX_COST_MAX_CLASSES] */
    double *keys;         /* [MAX_LANES][7 CX_COST_MAX_CLASSES + 1] */
    double p2p[MAX_LANES];
    int w; /* the last pass's lanes */
    cx_replay res[1];
};

cx_replay_lanes *cx_core_replay_lanes_new(void)
{
    cx_replay_lanes *ln = calloc(1, sizeof(cx_replay_lanes));
    if (ln)
        for (int i = 0; i < CX_COST_MAX_VSTAGES; i++)
            ln->ident[i] = (uint16_t)i;
    return ln;
}

void cx_core_replay_lanes_free(cx_replay_lanes *ln)
{
    if (!ln) return;
    free(ln->cur->prog);
    free(ln->map);
    free(ln->freel);
    free(ln->tok);
    free(ln->rg);
    free(ln->dur);
    free(ln->ptab);
    free(ln->cost);
    free(ln->vi);
    free(ln->keys);
    free(ln);
}

void cx_core_replay_lanes_set_clocks(cx_replay_lanes *ln, const double *mhz, int n)
{
    if (n > CX_REPLAY_LANES_MAX_CLOCKS) n = 0; /* no batch rather than part of one */
    ln->nclk = n > 0 ? n : 0;
    if (n > 0) memcpy(ln->clk, mhz, (size_t)n * sizeof *mhz);
}

int cx_core_replay_lanes_on(const cx_replay_lanes *ln)
{
    return ln && ln->nclk >= 2;
}

static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    free(*buf);
    *buf = malloc(n * sz);
    *cap = *buf ? n : 0;
    return *buf ? 0 : -1;
}

/* the same, 64-byte aligned groups of VW3 doubles (a pass of fewer lanes
 * uses part of each) */
static int grow_g(double **buf, size_t *cap, size_t groups)
{
    if (groups <= *cap) return 0;
    free(*buf);
    *buf = aligned_alloc(64, groups * VW3 * sizeof(double));
    *cap = *buf ? groups : 0;
    return *buf ? 0 : -1;
}

/* Renames the program's token slots (see the top comment) in one pass
 * from the end: a token's live range starts at its read (a free slot taken)
 * and ends at its write (the slot freed for the tokens read before it); a
 * written slot never read becomes the scratch slot; each stage's last
 * instruction is marked. -1 when a slot is read twice or before its write,
 * more than MAX_SLOTS are live, or out of memory. */
static int rename_slots(cx_replay_lanes *ln, lprog *e, const cx_play *pl,
                        const cx_replay_code *code)
{
    const size_t n = code->n, nsl = (size_t)code->zero + 2;
    e->have = 0;
    if (grow((void **)&e->prog, &e->prog_cap, n, sizeof *e->prog) ||
        grow((void **)&ln->map, &ln->map_cap, nsl, sizeof *ln->map) ||
        grow((void **)&ln->freel, &ln->freel_cap, MAX_SLOTS, sizeof *ln->freel))
        return -1;
    /* map: 0 not met yet, -1 written, else the slot of its (later) reader */
    int32_t *const map = ln->map, *const fl = ln->freel;
    memset(map, 0, nsl * sizeof *map);
    int32_t nslot = 2, nfree = 0;
    for (size_t i = n; i-- > 0;) {
        cx_replay_ins x = code->ins[i];
        if (x.stage >= (uint16_t)pl->p) return -1;
        if (x.out < code->zero) {
            const int32_t s = map[x.out];
            map[x.out] = -1;
            x.out = (s > 0 ? s : 1) * STRIDE;
            if (s > 0) fl[nfree++] = s;
        } else
            x.out = STRIDE;
        if (x.dep < code->zero) {
            if (map[x.dep] != 0) return -1;
            const int32_t s = nfree > 0 ? fl[--nfree] : nslot++;
            if (s >= MAX_SLOTS) return -1;
            map[x.dep] = s;
            x.dep = s * STRIDE;
        } else
            x.dep = 0;
        e->prog[i] = x;
    }
    e->n = n, e->nslot = nslot, e->ins = e->prog;
    memcpy(e->last_di, code->last_di, (size_t)pl->p * sizeof *e->last_di);
    e->sd = pl->sd, e->p = pl->p, e->m = pl->m, e->v = pl->v;
    e->have = 1;
    return 0;
}

/* The program on one pass of W lanes (see the top comment), in native
 * vectors VT of E doubles: LD, ST load and store one, MAX(a, b) is a > b ?
 * a : b lane by lane (the scalar's maximum: x86's MAXPD returns its second
 * operand unless the first is greater, NaN and signed zeros included),
 * ADD IEEE addition. tok: [nslot][W]; rg: per stage free [W], PP free [W],
 * last end [W], unused [W]; dur: [4 ncls][W]; p2p: rows +0.0 [W], p2p [W]. An item's
 * out slot may be the slot it reads (renamed after its only reader): every
 * vector of the read is loaded before the first store. mode: 1 p2p overlap
 * (else PP free <= free <= end, so a send's out is end + p2p and the PP
 * register is neither read nor written), 2 every send (all items without
 * overlap) stores its end as its stage's last end (the pass's tail, see
 * set_tail: an item without a send has its end as free); a loop for each
 * mode. cmap holds the durations' byte offsets from dur, scaled for the pass
 * (callgrind, bench schedules zb-v: the 4-lane pass 219M -> 184M
 * instructions; a stage's 4 W doubles rather than 3 W: 177M). */
#define DEFINE_EXEC_(NAME, ATTR, VT, E, W, LD, ST, MAX, ADD, IT, FOLD, PRE, DI, SENDS, SR, SIDX,   \
                     ROWP, LOADX, SEL)                                                             \
    enum { NAME##_dsc = ROWP ? CX_REPLAY_FDI : 1 };                                                \
    ATTR static inline __attribute__((always_inline)) void NAME##_in(                              \
        const void *prog_, size_t n, const uint32_t *cmap, double *tok, double *rg,                \
        const double *dur, const double *p2p, const int overlap, const int last)                   \
    {                                                                                              \
        enum { NV = (W) / (E) };                                                                   \
        const IT *const prog = prog_;                                                              \
        VT pv[NV];                                                                                 \
        for (int k = 0; k < NV; k++)                                                               \
            pv[k] = LD(p2p + (W) + k * (E));                                                       \
        _Pragma("GCC unroll 8") for (size_t i = 0; i < n; i++)                                     \
        {                                                                                          \
            const IT x = LOADX(prog + i);                                                          \
            double *const r = rg + SR(x, W);                                                       \
            const double *const t = tok + (size_t)x.dep * ((W) / STRIDE);                          \
            double *const o = tok + (size_t)x.out * ((W) / STRIDE);                                \
            const double *const d =                                                                \
                (const double *)((const char *)dur +                                               \
                                 ((W) == VW0                                                       \
                                      ? (size_t)DI(x) * ((W)*8 / NAME##_dsc)                       \
                                      : (size_t) * (const uint32_t *)((const char *)cmap +         \
                                                                      (size_t)DI(x) *              \
                                                                          (4 / NAME##_dsc))));     \
            const double *const dp =                                                               \
                (const double *)((const char *)dur + (!FOLD        ? 0                             \
                                                      : (W) == VW0 ? (size_t)PRE(x) * ((W)*8)      \
                                                                   : (size_t)cmap[PRE(x)]));       \
            VT end[NV];                                                                            \
            _Pragma("GCC unroll 16") for (int k = 0; k < NV; k++) end[k] =                         \
                ADD(MAX(FOLD ? ADD(LD(r + k * (E)), LD(dp + k * (E))) : LD(r + k * (E)),           \
                        LD(t + k * (E))),                                                          \
                    LD(d + k * (E)));                                                              \
            if (!overlap) {                                                                        \
                /* PP free <= free <= end: a send's maximum is its end, out                        \
                 * = end + p2p; no send adds +0.0 (the same bits: no end is                        \
                 * -0.0), the row of p2p's SIDX picks (the 4-lane pass on                          \
                 * the 16-byte form: the p2p vector masked by the send                             \
                 * flag, no load) */                                                               \
                const double *const ps = p2p + (size_t)SIDX(x) * ((W) / STRIDE);                   \
                _Pragma("GCC unroll 16") for (int k = 0; k < NV; k++)                              \
                {                                                                                  \
                    const VT out = ADD(end[k], (W) == VW0 && ROWP ? SEL(pv[k], SIDX(x) / STRIDE)   \
                                                                  : LD(ps + k * (E)));             \
                    ST(r + k * (E), out);                                                          \
                    ST(o + k * (E), out);                                                          \
                    if (last) ST(r + 2 * (W) + k * (E), end[k]);                                   \
                }                                                                                  \
            } else if (SENDS(x)) {                                                                 \
                _Pragma("GCC unroll 16") for (int k = 0; k < NV; k++)                              \
                {                                                                                  \
                    const VT out = ADD(MAX(end[k], LD(r + (W) + k * (E))), pv[k]);                 \
                    ST(r + (W) + k * (E), out);                                                    \
                    ST(r + k * (E), end[k]);                                                       \
                    ST(o + k * (E), out);                                                          \
                    if (last) ST(r + 2 * (W) + k * (E), end[k]);                                   \
                }                                                                                  \
            } else {                                                                               \
                _Pragma("GCC unroll 16") for (int k = 0; k < NV; k++)                              \
                {                                                                                  \
                    ST(r + k * (E), end[k]);                                                       \
                    ST(o + k * (E), end[k]);                                                       \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* mode: 1 overlap, 2 the stages' last ends stored; a loop for each */                         \
    ATTR static void NAME(const void *prog, size_t n, const uint32_t *cmap, double *tok,           \
                          double *rg, const double *dur, const double *p2p, int mode)              \
    {                                                                                              \
        if (mode == 0) NAME##_in(prog, n, cmap, tok, rg, dur, p2p, 0, 0);                          \
        if (mode == 1) NAME##_in(prog, n, cmap, tok, rg, dur, p2p, 1, 0);                          \
        if (mode == 2) NAME##_in(prog, n, cmap, tok, rg, dur, p2p, 0, 1);                          \
        if (mode == 3) NAME##_in(prog, n, cmap, tok, rg, dur, p2p, 1, 1);                          \
    }
/* each width three times: the 12-byte renamed program (cx_replay_ins), the
 * 16-byte one folded (_f, cx_replay_fins: the stage's free plus the folded
 * W-like item's duration, -0.0 for none, before the maximum) and not (_g) */
#define PRE_NONE(x) 0
/* what a send adds on the 4-lane pass over 16-byte instructions: the p2p
 * vector masked by the send flag f (1 or 0; the same bits as a row of p2p
 * or +0.0, no load: see core/README.md, "Lanes kernel, session 28") */
#define SEL_MASK(f) (-(long long)(f))
#define LOAD_INS(q) (*(q))
/* a 16-byte instruction by two 8-byte loads, its fields by shifts (two
 * loads rather than four: the pass is bound by its loads) */
static inline cx_replay_fins load_fins(const cx_replay_fins *q)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t lo, hi;
    memcpy(&lo, q, sizeof lo);
    memcpy(&hi, (const char *)q + sizeof lo, sizeof hi);
    cx_replay_fins x;
    x.dep = (int32_t)(uint32_t)lo, x.out = (int32_t)(uint32_t)(lo >> 32);
    x.stage = (uint16_t)hi, x.di = (uint16_t)(hi >> 16), x.pre = (uint16_t)(hi >> 32);
    x.send = (uint16_t)(hi >> 48);
    return x;
#else
    return *q;
#endif
}
#define SR_P(x, W) (size_t)(x).stage *RG_N *(W)
#define SR_F(x, W) (size_t)(x).stage *((W) / STRIDE) /* scaled: RG_N STRIDE */
_Static_assert(RG_N *STRIDE == CX_REPLAY_FSTAGE_STRIDE, "the 16-byte form's stage scale");
#define DI_P(x) ((x).di & ~SEND_BIT)
#define SENDS_P(x) ((x).di & SEND_BIT)
#define SIDX_P(x) (((x).di >> 15) * STRIDE)
#define PRE_F(x) (x).pre
#define DI_F(x) (x).di
#define SENDS_F(x) (x).send
#define SIDX_F(x) (x).send /* CX_REPLAY_FSEND */
_Static_assert(CX_REPLAY_FSEND == STRIDE, "the 16-byte form's send scale");
#define DEFINE_EXEC(NAME, ATTR, VT, E, W, LD, ST, MAX, ADD, SEL)                                   \
    DEFINE_EXEC_(NAME, ATTR, VT, E, W, LD, ST, MAX, ADD, cx_replay_ins, 0, PRE_NONE, DI_P,         \
                 SENDS_P, SR_P, SIDX_P, 0, LOAD_INS, SEL)                                          \
    DEFINE_EXEC_(NAME##_f, ATTR, VT, E, W, LD, ST, MAX, ADD, cx_replay_fins, 1, PRE_F, DI_F,       \
                 SENDS_F, SR_F, SIDX_F, 1, load_fins, SEL)                                         \
    DEFINE_EXEC_(NAME##_g, ATTR, VT, E, W, LD, ST, MAX, ADD, cx_replay_fins, 0, PRE_NONE, DI_F,    \
                 SENDS_F, SR_F, SIDX_F, 1, load_fins, SEL)

typedef void exec_fn(const void *, size_t, const uint32_t *, double *, double *, const double *,
                     const double *, int);

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LD2(q) _mm_load_pd(q)
#define SEL2(p2p, f) _mm_and_pd((p2p), _mm_castsi128_pd(_mm_set1_epi64x(SEL_MASK(f))))
#define ST2(q, v) _mm_store_pd((q), (v))
DEFINE_EXEC(exec_base_n, , __m128d, 2, VW0, LD2, ST2, _mm_max_pd, _mm_add_pd, SEL2)
DEFINE_EXEC(exec_base, , __m128d, 2, VW, LD2, ST2, _mm_max_pd, _mm_add_pd, SEL2)
DEFINE_EXEC(exec_base_w, , __m128d, 2, VW2, LD2, ST2, _mm_max_pd, _mm_add_pd, SEL2)
DEFINE_EXEC(exec_base_x, , __m128d, 2, VW3, LD2, ST2, _mm_max_pd, _mm_add_pd, SEL2)
#define LD4(q) _mm256_load_pd(q)
#define SEL4(p2p, f) _mm256_and_pd((p2p), _mm256_castsi256_pd(_mm256_set1_epi64x(SEL_MASK(f))))
#define ST4(q, v) _mm256_store_pd((q), (v))
DEFINE_EXEC(exec_avx2_n, __attribute__((target("avx2"))), __m256d, 4, VW0, LD4, ST4, _mm256_max_pd,
            _mm256_add_pd, SEL4)
DEFINE_EXEC(exec_avx2, __attribute__((target("avx2"))), __m256d, 4, VW, LD4, ST4, _mm256_max_pd,
            _mm256_add_pd, SEL4)
DEFINE_EXEC(exec_avx2_w, __attribute__((target("avx2"))), __m256d, 4, VW2, LD4, ST4, _mm256_max_pd,
            _mm256_add_pd, SEL4)
DEFINE_EXEC(exec_avx2_x, __attribute__((target("avx2"))), __m256d, 4, VW3, LD4, ST4, _mm256_max_pd,
            _mm256_add_pd, SEL4)
#define LD8(q) _mm512_load_pd(q)
#define SEL8(p2p, f)                                                                               \
    _mm512_castsi512_pd(_mm512_and_epi64(_mm512_castpd_si512(p2p), _mm512_set1_epi64(SEL_MASK(f))))
#define ST8(q, v) _mm512_store_pd((q), (v))
DEFINE_EXEC(exec_avx512, __attribute__((target("avx512f"))), __m512d, 8, VW, LD8, ST8,
            _mm512_max_pd, _mm512_add_pd, SEL8)
DEFINE_EXEC(exec_avx512_w, __attribute__((target("avx512f"))), __m512d, 8, VW2, LD8, ST8,
            _mm512_max_pd, _mm512_add_pd, SEL8)
DEFINE_EXEC(exec_avx512_x, __attribute__((target("avx512f"))), __m512d, 8, VW3, LD8, ST8,
            _mm512_max_pd, _mm512_add_pd, SEL8)
#else
/* elsewhere: GCC vector extensions, the maximum by a lane mask */
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
static inline v2d max_v2d(v2d a, v2d b)
{
    const v2l m = a > b;
    return (v2d)(((v2l)a & m) | ((v2l)b & ~m));
}
#define LDG(q) (*(const v2d *)(q))
#define STG(q, v) (*(v2d *)(q) = (v))
#define ADDG(a, b) ((a) + (b))
#define SELG(p2p, f) ((v2d)((v2l)(p2p) & (v2l){SEL_MASK(f), SEL_MASK(f)}))
DEFINE_EXEC(exec_base_n, , v2d, 2, VW0, LDG, STG, max_v2d, ADDG, SELG)
DEFINE_EXEC(exec_base, , v2d, 2, VW, LDG, STG, max_v2d, ADDG, SELG)
DEFINE_EXEC(exec_base_w, , v2d, 2, VW2, LDG, STG, max_v2d, ADDG, SELG)
DEFINE_EXEC(exec_base_x, , v2d, 2, VW3, LDG, STG, max_v2d, ADDG, SELG)
#endif

/* the widest the CPU runs (the same bits on each: max and add per lane),
 * chosen once at load time (no thread reads the CPU model while another
 * initialises it); each in passes of VW0, VW, VW2 and VW3 lanes (VW0 on
 * AVX-512 in AVX2 vectors: half of one) */
typedef struct {
    exec_fn *f[3][4]; /* [12-byte, 16-byte folded, 16-byte][VW0, VW, VW2, VW3] */
} exec_pair;
/* clang-format off */
#define EXECS_INIT(N, A, B, C) \
    {{{N, A, B, C}, {N##_f, A##_f, B##_f, C##_f}, {N##_g, A##_g, B##_g, C##_g}}}
/* clang-format on */
#define EXECS(N, A, B, C) ((exec_pair)EXECS_INIT(N, A, B, C))
static exec_pair exec_best = EXECS_INIT(exec_base_n, exec_base, exec_base_w, exec_base_x),
                 exec_auto = EXECS_INIT(exec_base_n, exec_base, exec_base_w, exec_base_x);
#if defined(__x86_64__) && defined(__GNUC__)
static int have_avx2, have_avx512;

__attribute__((constructor)) static void pick(void)
{
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2") != 0;
    have_avx512 = __builtin_cpu_supports("avx512f") != 0;
    if (have_avx512 && have_avx2)
        exec_auto = EXECS(exec_avx2_n, exec_avx512, exec_avx512_w, exec_avx512_x);
    else if (have_avx512)
        exec_auto = EXECS(exec_base_n, exec_avx512, exec_avx512_w, exec_avx512_x);
    else if (have_avx2)
        exec_auto = EXECS(exec_avx2_n, exec_avx2, exec_avx2_w, exec_avx2_x);
    exec_best = exec_auto;
}
#endif

int cx_core_replay_lanes_set_isa(int isa)
{
    if (isa == 0) exec_best = exec_auto;
    if (isa == 1) exec_best = EXECS(exec_base_n, exec_base, exec_base_w, exec_base_x);
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == 2 && have_avx2) exec_best = EXECS(exec_avx2_n, exec_avx2, exec_avx2_w, exec_avx2_x);
    if (isa == 3 && have_avx512 && have_avx2)
        exec_best = EXECS(exec_avx2_n, exec_avx512, exec_avx512_w, exec_avx512_x);
    else if (isa == 3 && have_avx512)
        exec_best = EXECS(exec_base_n, exec_avx512, exec_avx512_w, exec_avx512_x);
    return isa >= 0 && isa <= 1 ? 1 : isa == 2 ? have_avx2 : isa == 3 && have_avx512;
#else
    return isa >= 0 && isa <= 1;
#endif
}

int cx_core_replay_lanes_fold_stats(const cx_replay_lanes *ln, size_t st[3])
{
    const lprog *e = ln->cur;
    st[0] = st[1] = st[2] = 0;
    size_t off[4], len[4], rep[4];
    lprog_ranges(e, off, len, rep);
    for (int k = 0; e->fins && e->fw && k < 4; k++)
        for (size_t i = off[k]; i < off[k] + len[k]; i++) {
            const cx_replay_fins *x = &e->fins[i];
            const int w = x->dep == 0 && x->out == STRIDE && !x->send;
            /* a W-like item left with no pre: its stage's last (see the fold) */
            st[0] += rep[k] * (x->pre != NOPRE), st[1] += rep[k] * (x->pre != NOPRE && w),
                st[2] += rep[k] * (x->pre == NOPRE && w);
        }
    return e->fins && e->fw;
}

/* x->tail: the first instruction of the program run that is some stage's
 * last (one scan from the end until every stage is met; 0 when a stage
 * has none): before it no stage's last end is read, so a pass stores
 * none there (see pass). Found again only for another program. */
static void set_tail(lprog *x)
{
    const void *const prog = x->fins ? (const void *)x->fins : (const void *)x->ins;
    const size_t n = x->fins ? x->fn : x->n;
    if (x->tail_of == prog && x->tail <= n && x->have_tail == 1 + (x->fins != NULL) &&
        x->tail_n == n && x->tail_sd == x->sd && x->tail_p == x->p && x->tail_m == x->m &&
        x->tail_v == x->v)
        return;
    uint8_t seen[CX_COST_MAX_STAGES];
    memset(seen, 0, (size_t)x->p);
    int left = x->p;
    size_t i = n;
    while (i > 0 && left > 0) {
        i--;
        const size_t s = x->fins ? x->fins[i].stage / CX_REPLAY_FSTAGE_STRIDE : x->ins[i].stage;
        if (s < (size_t)x->p && !seen[s]) seen[s] = 1, left--;
    }
    /* a periodic region not stored whole (lprog.fat): a tail in it or
     * before it is some repeat's, so every instruction stores (0) */
    x->tail = left > 0 || (x->fins && (x->freps | x->fpart) && i < x->fat) ? 0 : i;
    x->tail_of = prog, x->tail_n = n, x->have_tail = 1 + (x->fins != NULL);
    x->tail_sd = x->sd, x->tail_p = x->p, x->tail_m = x->m, x->tail_v = x->v;
}

/* Ensures ln holds the renamed program of pl's orders; -1 as
 * cx_core_replay_lanes_run. */
static int program(cx_replay_lanes *ln, const cx_play *pl, const cx_replay_prog *pr)
{
    cx_replay_code code;
    if (!cx_core_replay_prog_code(pr, pl, &code)) return -1;
    lprog *x = ln->cur;
    x->fins = NULL;
    /* compiled renamed (replay_prog.c compile_levels): run as it is */
    if (code.renamed) {
        if (code.nslot > MAX_SLOTS || (size_t)pl->p > CX_COST_MAX_STAGES) return -1;
        x->sd = pl->sd, x->p = pl->p, x->m = pl->m, x->v = pl->v, x->n = code.n;
        x->nslot = code.nslot, x->ins = code.ins, x->have = 0; /* not the renamer's */
        memcpy(x->last_di, code.last_di, (size_t)pl->p * sizeof *x->last_di);
        /* its folded form, where compiled so (replay_compile.c) */
        x->fins = code.fins, x->fn = code.fn, x->fw = code.fold_w;
        x->fat = code.fat, x->fg = code.fg, x->freps = code.freps, x->fpart = code.fpart;
        set_tail(x);
        return 0;
    }
    /* held, or refused (the next misses of the same orders not renamed again) */
    if (x->have && x->sd == pl->sd && x->p == pl->p && x->m == pl->m && x->v == pl->v &&
        x->n == code.n)
        return x->have > 0 ? (set_tail(x), 0) : -1;
    if (!rename_slots(ln, x, pl, &code)) return set_tail(x), 0;
    x->sd = pl->sd, x->p = pl->p, x->m = pl->m, x->v = pl->v, x->n = code.n;
    x->have = -1;
    return -1;
}

/* The lanes per pass for up to n lanes of ncls classes: VW3 where more
 * than VW2 remain and a pass's stage registers, tokens and durations (the
 * lines each level touches, VW3 doubles each) fit WIDER_BYTES; else VW2
 * where more than VW remain and they fit WIDE_BYTES at VW2; else VW, or
 * VW0 for at most VW0 (the replay at every clock from a few of them,
 * replay_clocks.c, plays 3 first). */
static int pass_width(const cx_replay_lanes *ln, int n, int ncls)
{
    const size_t hot =
        (2 * (size_t)ln->cur->p + (size_t)ln->cur->nslot + 4 * (size_t)ncls + 1) * sizeof(double);
    return n > VW2 && hot * VW3 <= WIDER_BYTES ? VW3
           : n > VW && hot * VW2 <= WIDE_BYTES ? VW2
           : n > VW0                           ? VW
                                               : VW0;
}

/* Plays n <= w lanes in a pass of w (VW or VW2): lane l's durations per
 * class cvi[l][0 .. ncls), the class of each virtual stage cls, p2p[l];
 * results in ln->rg. */
static int pass(cx_replay_lanes *ln, const cx_play *pl, int n, int w, int ncls, const uint16_t *cls,
                const cx_replay_vsinfo *const *cvi, const double *p2p, int overlap)
{
    const int p = pl->p, nvs = pl->nvs;
    const lprog *const e = ln->cur;
    /* the 4-lane pass reads a row of durations per (virtual stage, kind),
     * its offset the duration slot's shifted (no cmap load, see the
     * kernels); the others a row per (class, kind) through cmap */
    const int dir = w == VW0;
    const size_t nrow = dir ? 0 : (size_t)ncls * 4;
    if (grow_g(&ln->tok, &ln->tok_cap, (size_t)e->nslot) ||
        grow_g(&ln->rg, &ln->rg_cap, (size_t)p * RG_N) ||
        grow_g(&ln->dur, &ln->dur_cap, (size_t)ncls * 4 + 3))
        return -1;
    if (dir && !ln->ptab) {
        /* C11: the size a multiple of the alignment */
        const size_t bytes = ((NOPRE + 1) * VW0 * sizeof(double) + 63) & ~(size_t)63;
        if (!(ln->ptab = aligned_alloc(64, bytes))) return -1;
        for (int j = 0; j < VW0; j++)
            ln->ptab[NOPRE * VW0 + j] = -0.0;
    }
    for (int vs = 0; vs < nvs; vs++)
        for (int k = 0; k < 4; k++)
            ln->cmap[vs * 4 + k] =
                (uint32_t)(((dir ? vs : cls[vs]) * 4 + k) * w) * (uint32_t)sizeof(double);
    /* lanes past n repeat the last one; the class rows cd (after the p2p
     * rows where dir) */
    double *const dur = dir ? ln->ptab : ln->dur, *const pv = ln->dur + nrow * (size_t)w,
                  *const cd = dir ? pv + 3 * (size_t)w : dur;
    for (int j = 0; j < w; j++) {
        const int l = j < n ? j : n - 1;
        for (int c = 0; c < ncls; c++)
            for (int k = 0; k < 4; k++) {
                double win;
                const double dv = cx_replay_dur(&cvi[l][c], k, &win);
                /* the kernels' shortcuts (PP free <= free, the fold)
                 * hold for durations >= 0, never NaN: else no pass (the
                 * callers play alone) */
                if (!(dv >= 0)) return -1;
                cd[((size_t)c * 4 + (size_t)k) * (size_t)w + (size_t)j] = dv;
            }
        if (!(p2p[l] >= 0)) return -1;
        /* rows: +0.0 (no send), p2p, NOPRE's -0.0 */
        pv[j] = 0.0;
        pv[(size_t)w + (size_t)j] = p2p[l];
        pv[2 * (size_t)w + (size_t)j] = -0.0;
    }
    /* the 4-lane pass's rows: per (vs, kind) its durations (ptab; a
     * constant size: an inline copy) */
    for (int vs = 0; dir && vs < nvs; vs++)
        memcpy(dur + (size_t)vs * 4 * VW0, cd + (size_t)cls[vs] * 4 * VW0, 4 * VW0 * sizeof *dur);
    ln->cmap[NOPRE] = (uint32_t)(pv - ln->dur + 2 * (size_t)w) * (uint32_t)sizeof(double);
    memset(ln->rg, 0, (size_t)p * RG_N * (size_t)w * sizeof(double));
    memset(ln->tok, 0, (size_t)w * sizeof(double)); /* the zero slot */
    const int fo = !e->fins ? 0 : e->fw ? 1 : 2, wi = w == VW3 ? 3 : w == VW2 ? 2 : w == VW ? 1 : 0;
    /* before the tail no stage's last end is stored (set_tail) */
    const size_t ni = fo ? e->fn : e->n, t = e->tail, sz = fo ? sizeof *e->fins : sizeof *e->ins;
    const char *const prog = fo ? (const char *)e->fins : (const char *)e->ins;
    size_t t0 = t; /* the instructions from t0 on store their stage's last end */
    if (fo && (e->freps | e->fpart)) {
        /* the periodic region stored once: piece by piece, the tail in
         * the last piece, or none (t 0: every instruction stores) */
        size_t off[4], len[4], rep[4];
        lprog_ranges(e, off, len, rep);
        const int st = t < e->fat ? 2 : 0;
        t0 = t < e->fat ? e->fat : t;
        for (int k = 0; k < 3; k++)
            for (size_t r = 0; r < rep[k]; r++)
                exec_best.f[fo][wi](prog + off[k] * sz, len[k], ln->cmap, ln->tok, ln->rg, dur, pv,
                                    st | (overlap != 0));
        exec_best.f[fo][wi](prog + e->fat * sz, t0 - e->fat, ln->cmap, ln->tok, ln->rg, dur, pv,
                            overlap != 0);
    } else {
        exec_best.f[fo][wi](prog, t, ln->cmap, ln->tok, ln->rg, dur, pv, overlap != 0);
    }
    exec_best.f[fo][wi](prog + t0 * sz, ni - t0, ln->cmap, ln->tok, ln->rg, dur, pv,
                        2 | (overlap != 0));
    ln->w = w;
    return 0;
}

/* Lane j's result of the last pass into out, as the plain play's collect
 * (replay.c) reads its registers (cvi, cls: its durations, as for pass). */
static void emit(const cx_replay_lanes *ln, int j, const uint16_t *cls, const cx_replay_vsinfo *cvi,
                 cx_replay *out)
{
    const size_t w = (size_t)ln->w;
    out->makespan_s = 0;
    for (int s = 0; s < ln->cur->p; s++) {
        const double *const r = ln->rg + (size_t)s * RG_N * w;
        const int di = ln->cur->last_di[s] & ~SEND_BIT;
        double win;
        cx_replay_dur(&cvi[cls[di / 4]], di % 4, &win);
        out->free_s[s] = r[j];
        /* a send stored its end; an item without one has its end as free */
        out->last_end_s[s] = ln->cur->last_di[s] & SEND_BIT ? r[2 * w + (size_t)j] : r[j];
        out->last_item_s[s] = win;
        if (out->free_s[s] > out->makespan_s) out->makespan_s = out->free_s[s];
    }
}

int cx_core_replay_lanes_run(cx_replay_lanes *ln, const cx_play *pl, const cx_replay_prog *pr,
                             int n, const cx_replay_vsinfo *const *vi, const double *p2p,
                             int overlap, cx_replay *out)
{
    if (program(ln, pl, pr)) return -1;
    for (int l0 = 0; l0 < n;) {
        const int w = pass_width(ln, n - l0, pl->nvs), nl = n - l0 < w ? n - l0 : w;
        /* every virtual stage its own class */
        if (pass(ln, pl, nl, w, pl->nvs, ln->ident, vi + l0, p2p + l0, overlap)) return -1;
        for (int j = 0; j < nl; j++)
            emit(ln, j, ln->ident, vi[l0 + j], &out[l0 + j]);
        l0 += nl;
    }
    return 0;
}

#define KEY_N (7 * CX_COST_MAX_CLASSES + 1)

/* Plays the nl lanes of a batch and stores each result in mm. */
static void flush(cx_replay_lanes *ln, const cx_cost *c, const cx_play *pl, cx_replay_memo *mm,
                  const cx_replay_memo_key *k0, int nl)
{
    const cx_replay_vsinfo *vp[MAX_LANES];
    uint16_t cls[CX_COST_MAX_VSTAGES];
    for (int vs = 0; vs < pl->nvs; vs++)
        cls[vs] = (uint16_t)c->vs_class[vs];
    for (int j = 0; j < nl; j++)
        vp[j] = ln->vi + (size_t)j * CX_COST_MAX_CLASSES;
    for (int l0 = 0; l0 < nl;) {
        const int w = pass_width(ln, nl - l0, c->nclass), np = nl - l0 < w ? nl - l0 : w;
        if (pass(ln, pl, np, w, c->nclass, cls, vp + l0, ln->p2p + l0, c->sched->p2p_overlap))
            return;
        for (int j = 0; j < np; j++) {
            cx_replay_memo_key mk = *k0;
            mk.key = ln->keys + (size_t)(l0 + j) * KEY_N;
            emit(ln, j, cls, vp[l0 + j], ln->res);
            cx_core_replay_memo_put(mm, &mk, ln->res, 0);
        }
        l0 += np;
    }
}

int cx_core_replay_lanes_rows(cx_replay_lanes *ln, const cx_cost *c, const cx_play *pl,
                              const cx_replay_prog *pr, int n, const int *idx,
                              const cx_replay_vsinfo *vi, const double *p2p, double *rows,
                              int stride)
{
    if (c->nclass < 1 || c->nclass > CX_COST_MAX_CLASSES || pl->nvs != c->p * c->v ||
        program(ln, pl, pr))
        return -1;
    const cx_replay_vsinfo *vp[MAX_LANES];
    double pp[MAX_LANES];
    uint16_t cls[CX_COST_MAX_VSTAGES];
    for (int vs = 0; vs < pl->nvs; vs++)
        cls[vs] = (uint16_t)c->vs_class[vs];
    for (int l0 = 0; l0 < n;) {
        const int w = pass_width(ln, n - l0, c->nclass);
        int np = n - l0 < w ? n - l0 : w;
        if (np > MAX_LANES) np = MAX_LANES;
        for (int j = 0; j < np; j++) {
            vp[j] = vi + (size_t)idx[l0 + j] * (size_t)c->nclass;
            pp[j] = p2p[idx[l0 + j]];
        }
        if (pass(ln, pl, np, w, c->nclass, cls, vp, pp, c->sched->p2p_overlap)) return -1;
        for (int j = 0; j < np; j++) {
            emit(ln, j, cls, vp[j], ln->res);
            cx_core_replay_row_pack(ln->res, c->p, rows + (size_t)idx[l0 + j] * (size_t)stride);
        }
        l0 += np;
    }
    return 0;
}

int cx_core_replay_lane_price(const cx_cost *c, double clock_mhz, cx_cost *copy, int *copied,
                              double *key, const cx_replay_memo_key *k0, cx_replay_memo *mm,
                              cx_replay *res, cx_replay_vsinfo *vi, double *p2p_s)
{
    const cx_cost *x = c;
    if (clock_mhz > 0) {
        if (!*copied) cx_core_cost_copy(copy, c), *copied = 1;
        cx_core_cost_reprice(c->run, clock_mhz, copy);
        x = copy;
    }
    cx_replay_memo_key mk = *k0;
    mk.key = key;
    mk.nkey = cx_replay_time_key(x, key);
    int flags;
    /* held, or answered by the exact formula there (it comes first) */
    if (mk.nkey != k0->nkey || cx_core_replay_memo_get(mm, &mk, res, &flags) ||
        (clock_mhz > 0 && cx_core_replay_formula(x, res)))
        return 0;
    for (int k = 0; k < c->nclass; k++)
        cx_replay_vsinfo_of(&x->cls[k], vi + k);
    *p2p_s = x->p2p_s;
    return 1;
}

int cx_core_replay_lanes_batch(cx_replay_lanes *ln, const cx_cost *c, const cx_play *pl,
                               const cx_replay_prog *pr, cx_replay_memo *mm,
                               const cx_replay_memo_key *k0)
{
    if (!ln || ln->nclk < 2 || !mm || c->nclass < 1 || c->nclass > CX_COST_MAX_CLASSES ||
        pl->nvs != c->p * c->v || k0->nkey > KEY_N || program(ln, pl, pr))
        return 0;
    if ((!ln->cost && !(ln->cost = malloc(sizeof *ln->cost))) ||
        (!ln->keys && !(ln->keys = malloc(MAX_LANES * KEY_N * sizeof *ln->keys))) ||
        (!ln->vi && !(ln->vi = malloc(MAX_LANES * CX_COST_MAX_CLASSES * sizeof *ln->vi))))
        return 0;
    int copied = 0, nl = 0;
    /* c itself first (unless held), then every other clock of the list */
    for (int i = -1; i < ln->nclk; i++) {
        if (i >= 0 && ln->clk[i] == c->clock_mhz) continue;
        if (!cx_core_replay_lane_price(c, i >= 0 ? ln->clk[i] : 0, ln->cost, &copied,
                                       ln->keys + (size_t)nl * KEY_N, k0, mm, ln->res,
                                       ln->vi + (size_t)nl * CX_COST_MAX_CLASSES, &ln->p2p[nl]))
            continue;
        if (++nl == MAX_LANES) flush(ln, c, pl, mm, k0, nl), nl = 0;
    }
    if (nl > 0) flush(ln, c, pl, mm, k0, nl);
    return 1;
}
