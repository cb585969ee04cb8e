/*
 * replay_compile.c — the replay's orders compiled into the straight-line
 * program replay_prog.c runs (split from it: the compiler). An item
 * becomes an instruction (token slot read, token slot written, stage,
 * duration slot with the send bit) from a per-(stage, chunk, kind)
 * template; the program is either the engine's recorded order
 * (schedules without a steady state) or the (level, stage) order compiled
 * straight from the orders (compile_levels), in cell slots (two per
 * (microbatch, virtual stage): the jump's periodic form) or renamed on
 * the way into the compact slots of the tokens live at once (plain plays
 * and the clock lanes, replay_lanes.c: the same values read and written,
 * so the same bits) in a 16-byte form (cx_replay_fins: the send flag
 * apart from the duration slot, two x86 instructions fewer per
 * instruction in a lanes pass; stage and send flag scaled for the 4-lane
 * pass's addressing modes, CX_REPLAY_FSTAGE_STRIDE and CX_REPLAY_FSEND,
 * see replay_lanes.c), and there, where at least a quarter of the
 * items are W-like (ZB-H1, ZB-H2, ZB-V: a third), folded (each W-like item
 * into its stage's next instruction, see cx_core_replay_prog_fold: the
 * same bits); the steady middle of every
 * form is copied block by block once the compile's state repeats (the
 * period skip, see skipper). The compile loop is specialised per form
 * (callgrind, fast-only bench schedules interleaved: 79.6M -> 77.4M
 * instructions compiling the 12-byte form; one loop testing the form:
 * 85M; the 16-byte form 80.3M). A renamed compile whose orders repeat
 * the fill of an earlier shape of its (schedule, p, v) restores the state
 * at the skip's first match instead of compiling up to there, and copies
 * that shape's drain renamed where the items after the periods repeat it
 * (replay_fill.c: the same program; fresh compiles keep theirs). What a
 * first compile costs where (the fill and drain no skip copies; ZB-H2's
 * shapes below m = 4p have no periodic region at all): core/README.md,
 * "Setup per shape".
 * No equations of its own: the timing rule is replay_step.h's.
 * Long file: one compile loop (per form) with the period skip and the
 * restored fills it drives; the kept fills and drains are replay_fill.c.
 * Periodic region (session 29, page faults): in the 16-byte form the
 * first match's blocks past the first g blocks (g a multiple of pi's
 * order, at least PERIOD_MIN instructions: block j is block j - g) are not
 * stored; the program records them as repeats of its last g stored blocks
 * (cx_replay_code.fat: the clock lanes and the plain play run the pieces),
 * so the compile writes, and the program cache holds, the fill, one group
 * and the drain. Each page new to a process costs ~2.2 us here
 * (core/README.md, "Page faults"): first sweep of `bench_sweep_bench
 * schedules dualpipev` 7,200 -> 5,805 faults, zb-v 6,192 -> 5,959 (its
 * p = 64 shapes' slots rotate with an order above their period count:
 * stored whole as before), instructions -0.4% (callgrind, three sweeps).
 * See core/README.md, "Closed form" (Compiling and running the program).
 */
#include "core/eval/replay_prog_int.h"

#include <stddef.h>
#include <string.h>

/* items compared two at a time where schedules/sched.h allows it */
#ifdef CX_SCHED_ITEM_SSE2
#include <emmintrin.h>
#endif

/* a template's zero or scratch slot (see encode_tmpl) */
#define NONE INT32_MIN

/* a template before its microbatch: slots for microbatch 0 (NONE: the zero
 * or scratch slot), duration slot and send bit */
typedef struct {
    int32_t dep, out;
    uint16_t di;
} raw_tmpl;

/* The instruction of item (s, chunk k, kind) for microbatch 0 (the zero
 * and scratch slots: NONE): a microbatch mb adds 2 (mb nvs) to its slots. */
static raw_tmpl encode_tmpl(const cx_play *pl, int s, int k, int kind)
{
    const int nvs = pl->nvs, vs = pl->vs_of[s * pl->nch + k];
    const int32_t ci = vs;
    raw_tmpl x;
    x.di = (uint16_t)(vs * 4 + kind);
    /* a token written by this stage without a send is the end of one
     * of its earlier items, never above its free time: the maximum
     * then takes free (the same bits), so such items read the zero
     * slot instead (free >= 0), which keeps them out of the state the
     * jump carries (ZB-H1's deferred W: ~p^2/2 tokens otherwise) */
    if (kind == CX_WORK_F) {
        x.dep = vs > 0 && !(pl->stage_of[vs - 1] == s && !pl->send_f[vs - 1]) ? 2 * (ci - 1) : NONE;
        x.out = 2 * ci;
        if (pl->send_f[vs]) x.di |= SEND_BIT;
    } else if (kind == CX_WORK_W) {
        x.dep = NONE;
        x.out = NONE;
    } else {
        const int own =
            vs == nvs - 1 ? !pl->send_f[vs] : pl->stage_of[vs + 1] == s && !pl->send_b[vs + 1];
        x.dep = own ? NONE : vs == nvs - 1 ? 2 * ci : 2 * (ci + 1) + 1;
        x.out = 2 * ci + 1;
        if (pl->send_b[vs]) x.di |= SEND_BIT;
    }
    return x;
}

/* The templates of every (stage, chunk, kind) of pl's orders into pr->tm;
 * -1 when out of memory. */
int cx_core_replay_prog_templates(cx_replay_prog *pr, const cx_play *pl)
{
    const size_t nt = (size_t)pl->p * (size_t)pl->nch * 4;
    if (cx_core_replay_grow((void **)&pr->tm, &pr->tm_cap, nt, sizeof *pr->tm)) return -1;
    /* a slot no item reads (each is read by at most one template: the
     * next virtual stage's F, the previous one's B, the last one's B)
     * is written to the scratch slot instead: the same values read, and
     * no live token to carry or rename */
    uint8_t rd[2 * CX_COST_MAX_VSTAGES];
    memset(rd, 0, 2 * (size_t)pl->nvs);
    for (int s = 0; s < pl->p; s++)
        for (int k = 0; k < pl->nch; k++)
            for (int kind = 0; kind < 4; kind++) {
                const raw_tmpl x = encode_tmpl(pl, s, k, kind);
                if (x.dep != NONE) rd[x.dep] = 1;
            }
    /* the slots as mb dm + da with this m's zero and scratch slots (dm 0):
     * a multiply and an add per slot where the compile reads them */
    const int32_t nvs2 = 2 * (int32_t)pl->nvs,
                  zero = (int32_t)(2 * (size_t)pl->m * (size_t)pl->nvs);
    for (int s = 0; s < pl->p; s++)
        for (int k = 0; k < pl->nch; k++)
            for (int kind = 0; kind < 4; kind++) {
                raw_tmpl x = encode_tmpl(pl, s, k, kind);
                if (x.out != NONE && !rd[x.out]) x.out = NONE;
                tmpl *t = &pr->tm[((size_t)s * (size_t)pl->nch + (size_t)k) * 4 + (size_t)kind];
                t->dm = x.dep == NONE ? 0 : nvs2, t->da = x.dep == NONE ? zero : x.dep;
                t->om = x.out == NONE ? 0 : nvs2, t->oa = x.out == NONE ? zero + 1 : x.out;
                t->fhi = (uint64_t)(uint16_t)(s * CX_REPLAY_FSTAGE_STRIDE) |
                         (uint64_t)(uint16_t)((x.di & (uint16_t)~SEND_BIT) * CX_REPLAY_FDI) << 16 |
                         (uint64_t)CX_REPLAY_NOPRE << 32 |
                         (uint64_t)((x.di >> 15) * CX_REPLAY_FSEND) << 48;
            }
    return 0;
}

/* The 16-byte instruction's last 8 bytes from a template's (fhi) and a
 * pre: stored as one word where the layout allows (x86: little-endian). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FINS_WORDS 1
_Static_assert(sizeof(cx_replay_fins) == 16 && offsetof(cx_replay_fins, out) == 4 &&
                   offsetof(cx_replay_fins, stage) == 8 && offsetof(cx_replay_fins, di) == 10 &&
                   offsetof(cx_replay_fins, pre) == 12 && offsetof(cx_replay_fins, send) == 14,
               "cx_replay_fins layout (FINS_WORDS)");
#endif
_Static_assert((4 * CX_COST_MAX_VSTAGES - 1) * CX_REPLAY_FDI <= 0xFFFF,
               "the 16-byte form's scaled duration slot fits 16 bits");
/* A stage's fold pending in the compile loop: its pre XOR CX_REPLAY_NOPRE at
 * the pre's place in fhi (0: none), so that fhi ^ it is the instruction's
 * last 8 bytes (the templates' fhi carry CX_REPLAY_NOPRE); the pre of one. */
#define FPRE_X(pre) ((uint64_t)(uint16_t)((pre) ^ CX_REPLAY_NOPRE) << 32)
#define FPRE_OF(x) ((uint16_t)(CX_REPLAY_NOPRE ^ (uint16_t)((x) >> 32)))
/* the duration slot with its send bit, from fhi (whose slot is scaled) */
#define FHI_DI(h) ((uint16_t)((uint16_t)((h) >> 16) / CX_REPLAY_FDI | ((h) >> 48 ? SEND_BIT : 0u)))

/* The instruction of item it of stage s (zero, scratch: the zero and
 * scratch slots). */
static inline const tmpl *tmpl_of(const cx_replay_prog *pr, const cx_play *pl, int s,
                                  const cx_sched_item *it)
{
    return &pr->tm[((size_t)s * (size_t)pl->nch + (size_t)it->chunk) * 4 + (size_t)it->kind];
}

static inline ins encode(const cx_replay_prog *pr, const cx_play *pl, int s,
                         const cx_sched_item *it, int32_t zero, int32_t scratch)
{
    const tmpl *t = tmpl_of(pr, pl, s, it);
    (void)zero, (void)scratch; /* the templates' (pl's m) */
    ins x;
    x.dep = it->mb * t->dm + t->da;
    x.out = it->mb * t->om + t->oa;
    x.stage = (uint16_t)s;
    x.di = FHI_DI(t->fhi);
    return x;
}

static void compiled(cx_replay_prog *pr, const cx_play *pl, size_t n)
{
    pr->n = n, pr->folded = 0;
    pr->sd = pl->sd, pr->p = pl->p, pr->m = pl->m, pr->v = pl->v;
    pr->have = 1;
}

/* The program of the recorded sequence. */
void cx_core_replay_prog_compile_seq(cx_replay_prog *pr, const cx_play *pl)
{
    const size_t cap = (size_t)pl->cap, ncell = (size_t)pl->m * (size_t)pl->nvs;
    const int32_t zero = (int32_t)(2 * ncell), scratch = zero + 1;
    for (size_t i = 0; i < pr->nseq; i++) {
        const int s = pr->seq[2 * i], pos = pr->seq[2 * i + 1];
        pr->prog[i] = encode(pr, pl, s, &pl->items[(size_t)s * cap + (size_t)pos], zero, scratch);
        pr->last_di[s] = pr->prog[i].di;
    }
    compiled(pr, pl, pr->nseq);
    pr->renamed = 0, pr->nslot = scratch + 1, pr->zero = zero;
}

/* The compile's period skip. The compile is a function of its state at a
 * level's end (each stage's next item, the stages ready at the next level,
 * the live tokens' slots and cells, the free slots in order, the slot
 * count) and of the items still to come. When the state at level L is that
 * of an earlier level L' (a snapshot, taken every R levels) moved by d
 * microbatches (every stage's next item d on, the same kind and chunk; the
 * same stages ready; the same slot and free counts) with its slots renamed
 * by a bijection pi (each free slot to the one at its place in the free
 * list, each live slot to the slot now holding its cell moved by 2 d nvs:
 * the free order permutes from period to period), and every stage's items
 * ahead repeat its last K_s (its items between L' and L) moved by d, then
 * the levels after L repeat the instructions of [L', L) with the slots
 * renamed by pi (renamed form) or moved by 2 d nvs (cell slots), block
 * after block, as long as the items do: the blocks are copied so and the
 * state moved by as many periods, a few stores per stage and live token.
 * The same program, byte for byte (tests/test_replay_lanes.c compares the
 * programs with and without the skip); the steady middle costs a copy
 * instead of a compile. More than SK_SLOTS slots: no skip. */
#define SK_SLOTS 4096

static int skip_on = 1;

void cx_core_replay_prog_set_skip(int on)
{
    skip_on = on != 0;
}

/* the 16-byte form's periodic region stored once (cx_replay_prog.fold_at):
 * a group of at least PERIOD_MIN instructions (each repeat is a call of
 * the lanes' kernel, replay_lanes.c) */
static int period_on = 1;
#define PERIOD_MIN 1024

void cx_core_replay_prog_set_period(int on)
{
    period_on = on != 0;
}

/* the fills and drains kept for later shapes (replay_fill.c) */
static int fill_on = 1;

void cx_core_replay_prog_set_fill(int on)
{
    fill_on = on != 0;
}

void cx_core_replay_prog_fills(const cx_replay_prog *pr, size_t *fills, size_t *drains)
{
    *fills = pr->fill_used, *drains = pr->drain_used;
}

size_t cx_core_replay_prog_skipped(const cx_replay_prog *pr)
{
    return pr->skipped;
}

typedef struct {
    int on, have;                     /* tracking live slots; a snapshot held */
    int32_t L, nslot, nfree;          /* the snapshot's level and slot state */
    size_t k, fk;                     /* its instruction counts (folded: fk) */
    uint64_t *fpre;                   /* its folds pending (FPRE_X; the compile's local) */
    int32_t *map, *smap, *sfl, *spos; /* live slot -> cell (-1: free), the
                                         snapshot's map, free slots, next items */
    int32_t *pi, *used, *sig, *tmp;   /* sk_match's renaming, the skip's */
    int32_t *pis;                     /* pi on the renamed form's fields (CX_REPLAY_SLOT_STRIDE) */
    uint64_t snxt[(CX_COST_MAX_STAGES + 63) / 64];
} skipper;

/* Stage s's next item at a level's end (nit: the item after it; fin: the
 * stage is done, its end), read only where the skip looks (snapshots,
 * matches), not every level. */
#define PEND(s) (fin[s] ? nend[s] : nit[s] - 1)

/* Takes a snapshot at the end of level L (nxt: the stages ready at L + 1;
 * nit, fin: each stage's next item, see PEND), unless a stage is done. */
static void sk_snap(skipper *sk, int p, int nw, int32_t L, size_t k, const uint64_t *nxt,
                    const cx_sched_item *const *nit, const uint8_t *fin,
                    const cx_sched_item *const *nend, const cx_sched_item *items, size_t cap,
                    int32_t nslot, int32_t nfree, const int32_t *fl)
{
    sk->have = 0;
    for (int s = 0; s < p; s++) {
        const cx_sched_item *a = PEND(s);
        if (a >= nend[s]) return;
        sk->spos[s] = (int32_t)(a - (items + (size_t)s * cap));
    }
    memcpy(sk->snxt, nxt, (size_t)nw * sizeof *nxt);
    memcpy(sk->smap, sk->map, (size_t)nslot * sizeof *sk->map);
    memcpy(sk->sfl, fl, (size_t)nfree * sizeof *fl);
    sk->L = L, sk->k = k, sk->nslot = nslot, sk->nfree = nfree;
    sk->have = 1;
}

/* The microbatch shift d > 0 when the state at the end of this level is
 * the snapshot's moved by d with its slots renamed by a bijection pi (see
 * above; pi[0] = 0, pi[1] = 1, a free slot to the free slot at its place,
 * a live slot to the slot that holds its cell moved by d), else 0. */
static inline __attribute__((always_inline)) int32_t
sk_match(skipper *sk, int p, int nw, int32_t nvs2, const uint64_t *nxt,
         const cx_sched_item *const *nit, const uint8_t *fin, const cx_sched_item *const *nend,
         const cx_sched_item *items, size_t cap, int32_t nslot, int32_t nfree, const int32_t *fl,
         const int32_t *wl, int32_t zero)
{
    if (nslot != sk->nslot || nfree != sk->nfree) return 0;
    int32_t d = 0;
    for (int s = 0; s < p; s++) {
        const cx_sched_item *a = PEND(s), *b = items + (size_t)s * cap + sk->spos[s];
        if (a >= nend[s] || a <= b || a->kind != b->kind || a->chunk != b->chunk) return 0;
        if (s == 0) d = a->mb - b->mb;
        if (d <= 0 || a->mb - b->mb != d) return 0;
    }
    if (memcmp(nxt, sk->snxt, (size_t)nw * sizeof *nxt)) return 0;
    int32_t *const pi = sk->pi, *const used = sk->used;
    for (int32_t r = 0; r < nslot; r++)
        pi[r] = -1, used[r] = 0;
    pi[0] = 0, pi[1] = 1, used[0] = used[1] = 1;
    for (int32_t i = 0; i < nfree; i++) {
        const int32_t a = sk->sfl[i], b = fl[i];
        if (pi[a] >= 0 || used[b]) return 0;
        pi[a] = b, used[b] = 1;
    }
    const int32_t D = nvs2 * d;
    for (int32_t r = 2; r < nslot; r++) {
        if (sk->smap[r] < 0) {
            if (pi[r] < 0) return 0;
            continue;
        }
        const int32_t x = sk->smap[r] + D;
        if (x >= zero) return 0; /* past the last microbatch */
        const int32_t b = wl[x];
        if (pi[r] >= 0 || b < 2 || b >= nslot || used[b] || sk->map[b] != x) return 0;
        pi[r] = b, used[b] = 1;
    }
    return d;
}

/* The first item x in [x, lim) that is not x[-K] moved by d microbatches
 * (the same kind and chunk, mb + d): four items per step where SSE2 is
 * there (cx_replay_items4_agree; two a step: callgrind, fast-only bench
 * schedules dualpipev, compile 42.9M -> 41.4M; four: zb-v, compile 23.0M
 * -> 21.1M with the fill's comparisons), the rest one by one. */
static inline const cx_sched_item *repeat_end(const cx_sched_item *x, const cx_sched_item *lim,
                                              ptrdiff_t K, int32_t d)
{
#ifdef CX_SCHED_ITEM_SSE2
    const __m128i M = _mm_set_epi32(-1, 0xffff, -1, 0xffff), D = _mm_set_epi32(d, 0, d, 0);
    if (lim - x >= 4)
        for (const cx_sched_item *const l4 = lim - 3; x < l4; x += 4)
            if (!cx_replay_items4_agree(x, x - K, M, D)) break;
#endif
    while (x < lim && x->kind == x[-K].kind && x->chunk == x[-K].chunk && x->mb == x[-K].mb + d)
        x++;
    return x;
}

/* The periods q after this level whose items repeat the last block's
 * moved by d (pend, spos: each stage's next item now and at the snapshot). */
static inline __attribute__((always_inline)) int64_t
sk_periods(const skipper *sk, int p, int32_t d, const cx_sched_item *const *pend,
           const cx_sched_item *const *nend, const cx_sched_item *items, size_t cap)
{
    int64_t q = INT64_MAX;
    for (int s = 0; s < p && q > 0; s++) {
        const cx_sched_item *const base = items + (size_t)s * cap;
        const ptrdiff_t K = pend[s] - (base + sk->spos[s]);
        /* block j reads items up to pend + j K (its next one) */
        const cx_sched_item *lim = nend[s];
        if (q != INT64_MAX && (nend[s] - pend[s]) / K > q) lim = pend[s] + q * K + 1;
        const cx_sched_item *x = repeat_end(pend[s], lim, K, d);
        const int64_t qs = (x - pend[s] - 1) / K;
        if (qs < q) q = qs;
    }
    return q == INT64_MAX ? 0 : q;
}

/* n instructions of the 16-byte form from src to dst (dst > src, apart by
 * at least an instruction) with their slots renamed by pis: the fields
 * read before the stores, pis a local (a store could alias it) */
static inline void rename_fins(cx_replay_fins *dst, const cx_replay_fins *src, size_t n,
                               const int32_t *pis)
{
#pragma GCC unroll 4
    for (size_t i = 0; i < n; i++) {
        const int32_t a = src[i].dep, b = src[i].out;
        uint64_t tail;
        memcpy(&tail, &src[i].stage, sizeof tail);
        dst[i].dep = pis[a], dst[i].out = pis[b];
        memcpy(&dst[i].stage, &tail, sizeof tail);
    }
}

/* Renamed programs (cx_core_replay_prog_set_fold): 0 the 12-byte form, 1
 * the 16-byte form folded where it pays, 2 folded wherever an item folds
 * (tests). */
static int fold_mode = 1;

void cx_core_replay_prog_set_fold(int mode)
{
    fold_mode = mode;
}

/* A lanes pass costs ~20 x86 instructions per instruction, ~3 more
 * folded (the pre's load and add): folding pays where W-like items are
 * at least FOLD_SHARE of the program, estimated on stage 0's items
 * (measured: ZB-H1, ZB-H2, ZB-V 1/3, DualPipeV ~6%, interleaved 0). */
#define FOLD_SHARE 4 /* 1 in FOLD_SHARE */
static int fold_pays(const cx_replay_prog *pr, const cx_play *pl)
{
    if (fold_mode == 0 || pl->p > CX_COST_MAX_STAGES) return 0;
    /* stage 0's templates first: none W-like (interleaved, 1F1B, ...), no scan */
    const tmpl *t = pr->tm;
    int any = 0;
    for (int k = 0; k < 4 * pl->nch; k++)
        any |= t[k].dm == 0 && t[k].om == 0 && !(t[k].fhi >> 48);
    if (!any) return 0;
    size_t nwl = 0;
    for (int i = 0; i < pl->len[0]; i++) {
        const cx_sched_item *it = &pl->items[i];
        const tmpl *x = &t[(size_t)it->chunk * 4 + (size_t)it->kind];
        nwl += x->dm == 0 && x->om == 0 && !(x->fhi >> 48);
    }
    return nwl > 0 && (fold_mode == 2 || nwl * FOLD_SHARE >= (size_t)pl->len[0]);
}

/* compile_levels (see there): each stage's next item by pointer and its
 * templates from its own row; the slots renamed as it goes (the renamed
 * form's, and the live-token state of the period skip in either form); the
 * period count of the cell-slot form (the jump's) from the items at the
 * end. A second reader of a slot is noted and reported at the level's end
 * (CX_SCHED_SIM_UNSUPPORTED). */
static inline __attribute__((always_inline)) cx_sched_sim_status
compile(cx_replay_prog *pr, const cx_play *pl, size_t items, int c, int renamed, const int fo,
        const int fw)
{
    const int p = pl->p, nw = (p + 63) / 64;
    const int32_t nvs2 = 2 * (int32_t)pl->nvs;
    const size_t cap = (size_t)pl->cap, ncell = (size_t)pl->m * (size_t)pl->nvs;
    const int32_t zero = (int32_t)(2 * ncell), scratch = zero + 1;
    int32_t *const wl = pr->wl, *const fl = pr->fl;
    /* unrolled: the loop's compare and branch per store otherwise (a
     * memset of another fill byte is one instruction a byte in callgrind) */
#pragma GCC unroll 8
    for (size_t i = 0; i < 2 * ncell + 2; i++)
        wl[i] = INT32_MAX;
    wl[zero] = 0; /* the zero slot is slot 0 */
    int32_t nslot = 2, nfree = 0, bad = 0;
    pr->folded = 0;
    pr->fold_at = pr->fold_g = pr->fold_reps = pr->fold_part = 0;
    size_t virt = 0; /* the periodic region's instructions not stored */
    int pdone = 0;
    /* the folded form (cx_replay_code.fins), compiled in place of the program
     * where it pays: fo; per stage the fold pending, counts */
    cx_replay_fins *fq = pr->fold;
    uint64_t fpre[CX_COST_MAX_STAGES]; /* FPRE_X */
    for (int s = 0; s < p && fo; s++)
        fpre[s] = 0;
    /* the period skip (see skipper): a snapshot every R levels, R about
     * twice a stage's items per period of c microbatches */
    skipper sk;
    memset(&sk, 0, sizeof sk); /* sk.fpre apart: not read before a snapshot writes it */
    uint64_t sk_fpre[CX_COST_MAX_STAGES];
    sk.fpre = sk_fpre;
    pr->skipped = 0;
    const int32_t R = 16 + 2 * (int32_t)((items * (size_t)(c > 0 ? c : 1)) /
                                         ((size_t)p * (size_t)(pl->m > 0 ? pl->m : 1)));
    /* the live slot -> cell map has room for every slot (at most one new
     * per item): written without a check, read only while the skip is on
     * (at most SK_SLOTS slots, checked at each level's end) */
    const size_t nmap = items + 2 > SK_SLOTS ? items + 2 : SK_SLOTS;
    if (cx_core_replay_grow((void **)&pr->sk, &pr->sk_cap,
                            (6 + CX_REPLAY_SLOT_STRIDE) * SK_SLOTS + CX_COST_MAX_STAGES + nmap,
                            sizeof *pr->sk))
        return CX_SCHED_SIM_NOMEM;
    sk.on = skip_on;
    sk.smap = pr->sk, sk.sfl = sk.smap + SK_SLOTS;
    sk.pi = sk.sfl + SK_SLOTS, sk.used = sk.pi + SK_SLOTS, sk.sig = sk.used + SK_SLOTS;
    sk.tmp = sk.sig + SK_SLOTS, sk.spos = sk.tmp + SK_SLOTS;
    sk.pis = sk.spos + CX_COST_MAX_STAGES, sk.map = sk.pis + CX_REPLAY_SLOT_STRIDE * SK_SLOTS;
    /* each stage's next item: its slots and di, the item after it, the
     * end of its order, its templates */
    /* slots as uint32_t (never negative): an index needs no sign extension.
     * Renamed, a ready stage's nd is the renamed slot it reads (0: the zero
     * slot), set when its token is found written or the write wakes it (a
     * waiting stage's nd is unused): no wl look-up per item */
    uint32_t nd[CX_COST_MAX_STAGES], no[CX_COST_MAX_STAGES];
    uint16_t ndi[CX_COST_MAX_STAGES]; /* the 12-byte form's (the 16-byte one: nhi's) */
    uint64_t nhi[CX_COST_MAX_STAGES];
    const cx_sched_item *nit[CX_COST_MAX_STAGES], *nend[CX_COST_MAX_STAGES];
    const tmpl *trow[CX_COST_MAX_STAGES];
    const cx_sched_item *pend[CX_COST_MAX_STAGES];
    uint8_t fin[CX_COST_MAX_STAGES]; /* done */
    for (int s = 0; s < p; s++)
        fin[s] = 0;
    uint64_t ready[2][(CX_COST_MAX_STAGES + 63) / 64];
    memset(ready, 0, sizeof ready);
    /* a kept fill whose items these orders repeat (replay_fill.c): its
     * state restored at the end of its level fe->L, the skip's first match */
    const int form = fo + 2 * fw;
    cx_replay_fill *const fe =
        sk.on && renamed && fill_on ? cx_core_replay_fill_find(pr, pl, form) : NULL;
    for (int s = 0; s < p; s++) {
        const cx_sched_item *it = &pl->items[(size_t)s * cap];
        trow[s] = &pr->tm[(size_t)s * (size_t)pl->nch * 4];
        nit[s] = it + 1, nend[s] = it + pl->len[s];
        if (pl->len[s] == 0 || fe) continue;
        const ins x = encode(pr, pl, s, it, zero, scratch);
        nd[s] = x.dep, no[s] = x.out, ndi[s] = x.di;
        if (fo) nhi[s] = tmpl_of(pr, pl, s, it)->fhi;
        if (x.dep == zero)
            ready[0][s / 64] |= 1ull << (s % 64), nd[s] = renamed ? 0 : x.dep;
        else if (wl[x.dep] != INT32_MAX)
            return CX_SCHED_SIM_UNSUPPORTED;
        else
            wl[x.dep] = -1 - s;
    }
    ins *o = pr->prog;
    size_t k = 0;
    int32_t L0 = 1, rd = 0; /* the level to start at; the match there (restored) */
    if (fe) {
        L0 = fe->L, rd = fe->d;
        uint64_t *const nx = ready[L0 & 1];
        memcpy(nx, fe->nxt, (size_t)nw * sizeof *nx);
        nslot = fe->nslot, nfree = fe->nfree;
        const int32_t *const spi = fe->sl, *const smap = spi + nslot;
        memcpy(sk.pi, spi, (size_t)nslot * sizeof *sk.pi);
        memcpy(sk.map, smap, (size_t)nslot * sizeof *sk.map);
        memcpy(fl, smap + nslot, (size_t)nfree * sizeof *fl);
        for (int32_t r = 2; r < nslot; r++)
            if (sk.map[r] >= 0) wl[sk.map[r]] = r;
        for (int s = 0; s < p; s++) {
            const cx_sched_item *it = &pl->items[(size_t)s * cap + (size_t)fe->pm[s]];
            nit[s] = it + 1;
            const ins x = encode(pr, pl, s, it, zero, scratch);
            nd[s] = x.dep, no[s] = x.out, ndi[s] = x.di;
            if (fo) nhi[s] = tmpl_of(pr, pl, s, it)->fhi;
            /* not ready: waits on its token (unwritten); ready: renamed,
             * the slot it reads (see nd) */
            if (!(nx[s / 64] >> (s % 64) & 1)) {
                if (x.dep != zero) wl[x.dep] = -1 - s;
            } else if (renamed) {
                nd[s] = (uint32_t)wl[x.dep];
            }
            sk.spos[s] = fe->pm[s] - fe->K[s];
        }
        k = fe->k, sk.k = k - fe->B, o += k;
        if (fo) {
            cx_replay_copy(pr->fold, fe->fcode, fe->fk * sizeof *fq);
            fq += fe->fk, sk.fk = fe->fk - fe->FB;
            for (int s = 0; s < p && fw; s++)
                fpre[s] = FPRE_X(fe->fpre[s]);
        } else {
            cx_replay_copy(pr->prog, fe->fcode, k * sizeof *o);
        }
        pr->fill_used++;
    }
    /* the entry keeping this compile's fill (fresh) or drain, the first
     * match (the periods it copied: first_q) */
    cx_replay_fill *keep = NULL;
    int first = 1;
    int32_t *const sm = sk.map;
    size_t first_skipped = 0;
    for (int32_t L = L0; k < items; L++) {
        uint64_t *const now = ready[(L - 1) & 1], *const nxt = ready[L & 1];
        int32_t d = rd;
        if (!d) {
            const size_t k0 = k;
            for (int wd = 0; wd < nw; wd++) {
                /* the stages of this word ready again at the next level
                 * (ORed into nxt at the word's end: writes wake others) */
                uint64_t own = 0;
                for (uint64_t bits = now[wd]; bits; bits &= bits - 1) {
                    const unsigned s = (unsigned)wd * 64u + (unsigned)__builtin_ctzll(bits);
                    const uint32_t xd = nd[s], xo = no[s];
                    /* the token read: its slot, freed (its only reader);
                     * renamed: nd holds it (zero: the zero slot, 0) */
                    const int32_t ds = renamed ? (int32_t)xd : wl[xd];
                    const int zr = renamed ? xd == 0 : xd == (uint32_t)zero;
                    /* the token written: a free slot (the one just freed if
                     * any: pushed and popped at once), else a new one (1: none
                     * reads it); it wakes the stage waiting on it for the next
                     * level */
                    int32_t rs = 1;
                    if (xo != (uint32_t)scratch) {
                        rs = !zr ? ds : nfree > 0 ? fl[--nfree] : nslot++;
                        sm[rs] = xo;
                        const int32_t w = wl[xo];
                        if (w < 0) {
                            const uint32_t ws = (uint32_t)(-1 - w);
                            if (renamed) nd[ws] = (uint32_t)rs;
                            nxt[ws >> 6] |= 1ull << (ws & 63u);
                        }
                        wl[xo] = rs;
                    } else if (!zr) {
                        fl[nfree++] = ds;
                        sm[ds] = -1;
                    }
                    const int32_t od = renamed ? ds * CX_REPLAY_SLOT_STRIDE : (int32_t)xd,
                                  oo = renamed ? rs * CX_REPLAY_SLOT_STRIDE : (int32_t)xo;
                    if (!fo) {
                        o->dep = od, o->out = oo, o->stage = (uint16_t)s, o->di = ndi[s];
                    } else {
                        /* the folded form only (see cx_core_replay_prog_fold):
                         * the template's last 8 bytes with the pre */
                        const uint64_t h = nhi[s];
                        const uint64_t px = fw ? fpre[s] : 0;
                        const int w = zr && xo == (uint32_t)scratch && !(h >> 48);
                        if (fw && !px && w) {
                            /* no send */
                            fpre[s] = FPRE_X((uint16_t)((uint16_t)(h >> 16) / CX_REPLAY_FDI));
                        } else {
#ifdef FINS_WORDS
                            const uint64_t lo = (uint64_t)(uint32_t)od | (uint64_t)(uint32_t)oo
                                                                             << 32,
                                           hi = h ^ px;
                            memcpy(fq, &lo, sizeof lo);
                            memcpy((char *)fq + sizeof lo, &hi, sizeof hi);
                            fq++;
#else
                            *fq++ = (cx_replay_fins){od,
                                                     oo,
                                                     (uint16_t)(s * CX_REPLAY_FSTAGE_STRIDE),
                                                     (uint16_t)(h >> 16),
                                                     (uint16_t)(CX_REPLAY_NOPRE ^ (px >> 32)),
                                                     (uint16_t)(h >> 48)};
#endif
                            if (fw) fpre[s] = 0;
                        }
                    }
                    o++, k++; /* folded: o only counts */
                    const cx_sched_item *it = nit[s];
                    if (it == nend[s]) {
                        pr->last_di[s] = fo ? FHI_DI(nhi[s]) : ndi[s];
                        fin[s] = 1;
                        continue;
                    }
                    nit[s] = it + 1;
                    /* a stage's items are read in order, p streams at once:
                     * ask for the next line ahead */
                    __builtin_prefetch(it + 16);
                    const tmpl *t = &trow[s][(size_t)it->chunk * 4 + (size_t)it->kind];
                    const int32_t mb = it->mb;
                    const uint32_t yd = (uint32_t)mb * (uint32_t)t->dm + (uint32_t)t->da,
                                   yo = (uint32_t)mb * (uint32_t)t->om + (uint32_t)t->oa;
                    if (!renamed) nd[s] = yd;
                    no[s] = yo;
                    if (fo)
                        nhi[s] = t->fhi;
                    else
                        ndi[s] = FHI_DI(t->fhi);
                    __builtin_prefetch(&wl[yo]);
                    /* written (at a level up to this one): ready at the next;
                     * else the stage waits on it (a second waiter: bad) */
                    const int32_t v = wl[yd];
                    if ((uint32_t)v < (uint32_t)INT32_MAX) {
                        own |= bits & (0 - bits);         /* s's bit: bits' lowest */
                        if (renamed) nd[s] = (uint32_t)v; /* the slot it reads */
                    } else if (v != INT32_MAX)
                        bad = 1;
                    else
                        wl[yd] = -1 - (int32_t)s;
                }
                nxt[wd] |= own;
            }
            memset(now, 0, (size_t)nw * sizeof *now);
            if (nslot > SK_SLOTS && sk.on) /* the skip's tables are too small: no skip */
                sk.on = sk.have = 0;
            if (bad) return CX_SCHED_SIM_UNSUPPORTED;
            if (k == k0) return CX_SCHED_SIM_DEADLOCK;
            if (!sk.on) continue;
            if (!sk.have || L - sk.L > R) {
                sk_snap(&sk, p, nw, L, k, nxt, nit, fin, nend, pl->items, cap, nslot, nfree, fl);
                if (fo) sk.fk = (size_t)(fq - pr->fold);
                if (fw) memcpy(sk.fpre, fpre, (size_t)p * sizeof *fpre);
                continue;
            }
            if (nslot != sk.nslot || nfree != sk.nfree ||
                (fw && memcmp(sk.fpre, fpre, (size_t)p * sizeof *fpre)) ||
                (d = sk_match(&sk, p, nw, nvs2, nxt, nit, fin, nend, pl->items, cap, nslot, nfree,
                              fl, wl, zero)) <= 0)
                continue;
            if (first && fill_on && renamed && (keep = cx_core_replay_fill_take(pr, pl, form)) &&
                !cx_core_replay_grow((void **)&keep->sl, &keep->sl_cap,
                                     2 * (size_t)nslot + (size_t)nfree, sizeof *keep->sl)) {
                /* the state at the first match, kept at the compile's end */
                keep->L = L, keep->d = d, keep->nslot = nslot, keep->nfree = nfree;
                keep->k = k, keep->B = k - sk.k;
                keep->fk = fo ? (size_t)(fq - pr->fold) : 0, keep->FB = fo ? keep->fk - sk.fk : 0;
                memcpy(keep->nxt, nxt, (size_t)nw * sizeof *nxt);
                for (int s = 0; s < p && fw; s++)
                    keep->fpre[s] = FPRE_OF(fpre[s]);
                for (int s = 0; s < p; s++) {
                    keep->pm[s] = (int32_t)(PEND(s) - (pl->items + (size_t)s * cap));
                    keep->K[s] = keep->pm[s] - sk.spos[s];
                }
                memcpy(keep->sl, sk.pi, (size_t)nslot * sizeof *sk.pi);
                memcpy(keep->sl + nslot, sk.map, (size_t)nslot * sizeof *sk.map);
                memcpy(keep->sl + 2 * nslot, fl, (size_t)nfree * sizeof *fl);
            } else if (first) {
                keep = NULL;
            }
        }
        rd = 0;
        for (int s = 0; s < p; s++)
            pend[s] = PEND(s);
        const int64_t q = sk_periods(&sk, p, d, pend, nend, pl->items, cap);
        {
            const size_t B = k - sk.k;
            int32_t *const pi = sk.pi, *const sig = sk.sig;
            const int32_t D1 = nvs2 * d;
            if (renamed)
                for (int32_t r = 0; r < nslot; r++)
                    sk.pis[r * CX_REPLAY_SLOT_STRIDE] = pi[r] * CX_REPLAY_SLOT_STRIDE;
            /* block j: block j - 1 renamed by pi; the folded form
             * likewise (the same folds pending at the block's ends, pi
             * keeping the zero and scratch slots: each block folds as the
             * one before), in place of it */
            pr->skipped += (size_t)q * B;
            const size_t FB = fo ? (size_t)(fq - pr->fold) - sk.fk : 0;
            /* pi's order (renamed forms): pi^ord is the identity, so block
             * j is block j - t for any multiple t of ord, copied as is */
            const int64_t ord =
                renamed && q > 1 ? cx_core_replay_fill_order(pi, nslot, q, sk.tmp) : q + 1;
            /* the 16-byte form's first match: blocks from the first
             * multiple g of ord blocks of at least PERIOD_MIN
             * instructions on not stored (block j is block j - g), the
             * program's periodic region (cx_replay_prog.fold_at) */
            int64_t jend = q, g = 0;
            if (fo && period_on && !pdone && FB > 0 && q > ord) {
                const int64_t og = ord * (int64_t)FB;
                g = ord * ((PERIOD_MIN + og - 1) / og);
                if (g < q) jend = g;
            }
            int64_t j = 0;
            for (; j < q && j < ord; j++, o += B, k += B, fq += FB) {
                rename_fins(fq, fq - FB, FB, sk.pis);
                const ins *src = o - B;
                for (size_t i = 0; i < B && !fo; i++) {
                    o[i] = src[i];
                    if (renamed)
                        o[i].dep = sk.pis[src[i].dep], o[i].out = sk.pis[src[i].out];
                    else {
                        /* cell slots: moved by d microbatches */
                        o[i].dep = src[i].dep == zero ? zero : src[i].dep + D1;
                        o[i].out = src[i].out == scratch ? scratch : src[i].out + D1;
                    }
                }
            }
            while (j < jend) {
                const int64_t t = (j + 1) / ord * ord, n = jend - j < t ? jend - j : t;
                if (fo)
                    cx_replay_copy(fq, fq - t * (int64_t)FB, (size_t)n * FB * sizeof *fq);
                else
                    cx_replay_copy(o, o - t * (int64_t)B, (size_t)n * B * sizeof *o);
                o += (size_t)n * B, k += (size_t)n * B, fq += (size_t)n * FB, j += n;
            }
            if (jend < q) {
                const int64_t r = q - jend;
                pr->fold_at = (size_t)(fq - pr->fold), pr->fold_g = (size_t)g * FB;
                pr->fold_reps = (size_t)(r / g), pr->fold_part = (size_t)(r % g) * FB;
                virt = (size_t)r * FB, pdone = 1;
                o += (size_t)r * B, k += (size_t)r * B;
            }
            if (q > 0) {
                /* sig = pi^q, by pi's cycles (not q passes over the slots) */
                cx_core_replay_fill_power(pi, nslot, q, sig, sk.tmp);
                /* the state moved by q periods: stage by stage, and each
                 * live slot r's cell, now in slot sig[r] */
                for (int s = 0; s < p; s++) {
                    const cx_sched_item *const base = pl->items + (size_t)s * cap;
                    const cx_sched_item *it = pend[s] + q * (pend[s] - (base + sk.spos[s]));
                    nit[s] = it + 1;
                    const ins x = encode(pr, pl, s, it, zero, scratch);
                    nd[s] = x.dep, no[s] = x.out, ndi[s] = x.di;
                    if (fo) nhi[s] = tmpl_of(pr, pl, s, it)->fhi;
                    /* not ready: waits on its token (unwritten) */
                    if (!(nxt[s / 64] >> (s % 64) & 1) && x.dep != zero) wl[x.dep] = -1 - s;
                }
                const int32_t D = nvs2 * (int32_t)(q * d);
                for (int32_t r = 2; r < nslot; r++)
                    sk.tmp[r] = -1;
                for (int32_t r = 2; r < nslot; r++)
                    if (sk.map[r] >= 0) {
                        sk.tmp[sig[r]] = sk.map[r] + D;
                        wl[sk.map[r] + D] = sig[r];
                    }
                memcpy(sk.map + 2, sk.tmp + 2, (size_t)(nslot - 2) * sizeof *sk.map);
                /* renamed: a ready stage's nd, the slot it reads (its cell's, moved) */
                for (int s = 0; s < p && renamed; s++)
                    if (nxt[s / 64] >> (s % 64) & 1) nd[s] = (uint32_t)wl[nd[s]];
                for (int32_t i = 0; i < nfree; i++)
                    fl[i] = sig[fl[i]];
            }
            sk.have = 0;
        }
        if (!first) continue;
        /* the first match: the rest copied from a kept drain its items
         * repeat, else kept at the end (replay_fill.c) */
        first = 0;
        int32_t pos[CX_COST_MAX_STAGES];
        for (int s = 0; s < p; s++)
            pos[s] = (int32_t)(nit[s] - 1 - (pl->items + (size_t)s * cap));
        if (fe && cx_core_replay_fill_drain_agrees(fe, pl, pos, (int32_t)(q - fe->q) * d)) {
            /* the kept drain, its slots below the match's count renamed
             * by pi^(q - fe->q) (the later ones are new in both) */
            int32_t *const sg = sk.sig;
            cx_core_replay_fill_power(sk.pi, nslot, q - fe->q, sg, sk.tmp);
            /* pi^(q - fe->q) the identity (q - fe->q a multiple of pi's
             * order): the kept drain as it is */
            int same = 1;
            for (int32_t r = 0; r < nslot; r++)
                same &= sg[r] == r;
            for (int32_t r = 0; r < fe->nslot_end; r++)
                sk.pis[r * CX_REPLAY_SLOT_STRIDE] = (r < nslot ? sg[r] : r) * CX_REPLAY_SLOT_STRIDE;
            if (fo) {
                const cx_replay_fins *src = (const cx_replay_fins *)(const void *)fe->dcode;
                if (same)
                    cx_replay_copy(fq, src, fe->dfn * sizeof *fq);
                else
                    rename_fins(fq, src, fe->dfn, sk.pis);
                fq += fe->dfn;
                for (int s = 0; s < p && fw; s++)
                    fpre[s] = FPRE_X(fe->fpre_end[s]);
            } else if (same) {
                cx_replay_copy(o, fe->dcode, fe->dfn * sizeof *o);
            } else {
                const ins *src = (const ins *)(const void *)fe->dcode;
                for (size_t i = 0; i < fe->dfn; i++) {
                    o[i] = src[i];
                    o[i].dep = sk.pis[src[i].dep], o[i].out = sk.pis[src[i].out];
                }
            }
            k = items, nslot = fe->nslot_end;
            memcpy(pr->last_di, fe->last_di, (size_t)p * sizeof *pr->last_di);
            pr->skipped += fe->dskipped, pr->drain_used++;
            break;
        }
        if (fe) keep = fe, fe->used = 0; /* its drain replaced at the end */
        if (keep) {
            keep->q = q, first_skipped = pr->skipped;
            memcpy(keep->pos, pos, (size_t)p * sizeof *pos);
        }
    }
    if (keep && nslot <= SK_SLOTS) {
        keep->nslot_end = nslot, keep->dskipped = pr->skipped - first_skipped;
        memcpy(keep->last_di, pr->last_di, (size_t)p * sizeof *keep->last_di);
        for (int s = 0; s < p && fw; s++)
            keep->fpre_end[s] = FPRE_OF(fpre[s]);
        if (fo)
            cx_core_replay_fill_keep(pr, keep, pl, keep != fe, pr->fold, sizeof *fq,
                                     (size_t)(fq - pr->fold), virt);
        else
            cx_core_replay_fill_keep(pr, keep, pl, keep != fe, pr->prog, sizeof *o, items, 0);
    }
    compiled(pr, pl, items);
    if (fo) {
        /* a stage's last W-like item: at the end, unfolded */
        for (int s = 0; s < p && fw; s++)
            if (fpre[s]) {
                *fq++ = (cx_replay_fins){0,
                                         CX_REPLAY_SLOT_STRIDE,
                                         (uint16_t)(s * CX_REPLAY_FSTAGE_STRIDE),
                                         (uint16_t)(FPRE_OF(fpre[s]) * CX_REPLAY_FDI),
                                         CX_REPLAY_NOPRE,
                                         0};
            }
        pr->fold_n = (size_t)(fq - pr->fold), pr->folded = 1, pr->fold_w = fw;
    }
    /* the instructions of a period of c microbatches from the middle
     * (the jump's, cell slots; renamed programs never jump) */
    size_t P = 0;
    const int mid = pl->m / 2;
    for (int s = 0; s < p && !renamed; s++)
        for (const cx_sched_item *it = pl->items + (size_t)s * cap; it < nend[s]; it++)
            P += it->mb >= mid && it->mb < mid + c;
    pr->P = P;
    pr->renamed = renamed;
    pr->nslot = renamed ? nslot : scratch + 1;
    pr->zero = renamed ? 0 : zero;
    return CX_SCHED_SIM_OK;
}

/* The program of the orders held by pl in (level, stage) order, level the
 * item's depth in the dependency graph (1 + the deeper of its stage
 * predecessor and its token's writer): every item still follows what it
 * reads and each stage keeps its order, so every item computes exactly
 * what it does in the engine's order (bit-identical), but the order is a
 * function of the dependency graph alone, periodic where the graph is (the
 * engine's worklist order need not be): what the jump needs. Compiled
 * directly, without the engine: level L takes, in stage order, the stages
 * whose next item is ready (its token written at a level below L); a stage
 * whose next item waits is woken by the write of that token (one reader per
 * token slot: F(mb, vs) reads F(mb, vs - 1)'s, B(mb, vs) B(mb, vs + 1)'s or
 * on the last virtual stage F(mb, vs)'s), so the cost is one visit per item
 * and a bitmap of the stages per level. The token slots are renamed on
 * the way into the compact set the clock lanes run on: a token takes a free
 * slot at its write and frees it at its only read, so the slots are the
 * tokens live at once, not O(m). wl: per cell slot, once written, its
 * token's renamed slot (only "written" matters for readiness, every level
 * up to the current one counts), INT32_MAX while unwritten, -1 - s while
 * stage s waits on it. renamed: the program in those slots (the renamed
 * form, see cx_replay_prog), else in cell slots (the jump's). Either way
 * the steady middle is copied, not compiled (the period skip, above).
 * CX_SCHED_SIM_DEADLOCK when a level takes nothing while items remain;
 * CX_SCHED_SIM_UNSUPPORTED (the engine then) if a slot had two readers. */
cx_sched_sim_status cx_core_replay_prog_compile_levels(cx_replay_prog *pr, const cx_play *pl,
                                                       size_t items, int c, int renamed)
{
    if (pl->p < 1 || pl->p > CX_COST_MAX_STAGES) return CX_SCHED_SIM_UNSUPPORTED;
    /* renamed: the 16-byte form (fold mode 0: the 12-byte one), its W-like
     * items folded where that pays; a loop of its own for each */
    if (renamed && fold_mode != 0 &&
        !cx_core_replay_grow((void **)&pr->fold, &pr->fold_cap, items, sizeof *pr->fold))
        return fold_pays(pr, pl) ? compile(pr, pl, items, c, 1, 1, 1)
                                 : compile(pr, pl, items, c, 1, 1, 0);
    return renamed ? compile(pr, pl, items, c, 1, 0, 0) : compile(pr, pl, items, c, 0, 0, 0);
}

/* The fold (cx_replay_code.fins, replay_prog.h). A W-like
 * instruction (reads the zero slot, writes the scratch slot, no send) does
 * free[s] = max(free[s], 0) + d and stores that end as stage s's last end;
 * it is dropped and its duration slot becomes the pre of stage s's next
 * instruction, which then computes max(free[s] + d, token) + d' and stores
 * its own end as the last end: free[s] >= +0 and never NaN (times start at
 * +0 and add durations >= 0), so max(free, 0) + d is free + d, bit for bit
 * (the compile's zero-slot reads assume the same, encode_tmpl), and no
 * instruction of another stage touches stage s's registers in between;
 * nothing reads the scratch slot. A W-like instruction that carries a pre
 * (two in a row on a stage) stays; one that is its stage's last moves,
 * unfolded, to the end (nothing after it touches its stage). One pass. */
size_t cx_core_replay_prog_fold(const ins *in, size_t n, int p, int fw, cx_replay_fins *out)
{
    /* per stage the W-like item waiting for its stage's next instruction */
    uint16_t pend[CX_COST_MAX_STAGES];
    for (int s = 0; s < p; s++)
        pend[s] = CX_REPLAY_NOPRE;
    cx_replay_fins *o = out;
    for (size_t i = 0; i < n; i++) {
        const ins x = in[i];
        const uint16_t pre = pend[x.stage];
        if (fw && pre == CX_REPLAY_NOPRE && x.dep == 0 && x.out == CX_REPLAY_SLOT_STRIDE &&
            !(x.di & SEND_BIT)) {
            pend[x.stage] = x.di;
            continue;
        }
        pend[x.stage] = CX_REPLAY_NOPRE;
        *o++ = (cx_replay_fins){x.dep,
                                x.out,
                                (uint16_t)(x.stage * CX_REPLAY_FSTAGE_STRIDE),
                                (uint16_t)((x.di & (uint16_t)~SEND_BIT) * CX_REPLAY_FDI),
                                pre,
                                (uint16_t)((x.di >> 15) * CX_REPLAY_FSEND)};
    }
    for (int s = 0; s < p; s++)
        if (pend[s] != CX_REPLAY_NOPRE)
            *o++ = (cx_replay_fins){0,
                                    CX_REPLAY_SLOT_STRIDE,
                                    (uint16_t)(s * CX_REPLAY_FSTAGE_STRIDE),
                                    (uint16_t)(pend[s] * CX_REPLAY_FDI),
                                    CX_REPLAY_NOPRE,
                                    0};
    return (size_t)(o - out);
}
