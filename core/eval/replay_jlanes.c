/*
 * replay_jlanes.c — clock lanes for the shapes on the virtual jump (issue
 * 13). Shapes with m >= m' + 4c (ZB-H1/H2 m >= 12p + 5, ZB-V/DualPipeV m >=
 * 12p + 11, ...) are played through the compiled program of m' microbatches
 * whose jump inserts the missing periods (replay_prog.c, "Program jump" in
 * core/README.md); a sweep plays each such shape once per clock. Here one
 * pass plays 8 clocks at once: the program in cell slots, every
 * instruction on 8 lanes (per lane start = max(free, token), end = start +
 * duration, a send's max(end, PP free) + p2p: the scalar's operations on
 * its own operands), the operands recorded where a lane checks. Every lane
 * runs the scalar jump's state machine itself (replay_prog.c jump: the
 * uniform test, the two-period check, the slides and back-offs) with the
 * scalar's functions on its own column of tokens and registers
 * (cx_core_replay_jump_*, replay_prog_int.h), so that it takes the scalar's
 * decisions on the scalar's values. The lanes share the position in the
 * program; an insertion changes only the lane's own state; a real skip to
 * t (on the common path the rest of the steady region: t = T = ra +
 * floor((re - ra) / P) P for every lane) moves the scalar play, so the
 * lane sleeps until the pass reaches t, its tokens live at t written into
 * its own slots past the ring and its registers kept aside; when no lane
 * is awake the pass goes straight to the first t. A lane that leaves the
 * common path (periods left to insert when its loop ends, still inserting
 * long after the first lane slept, playing to the end while the others
 * sleep far ahead) answers nothing: the scalar play answers its clock.
 * Tokens: a ring of R slots of 8 lanes (64 bytes) at their writer's
 * index mod R, R a power of two above the longest writer-to-reader
 * distance, the jump's reads of earlier periods included (at most
 * MAX_RING: 4 MiB), then the sleeping lanes' slots, the zero and the
 * scratch slot: bounded by p, not m. The result of every answered lane is
 * the scalar play's bits, whatever the other lanes
 * (tests/test_replay_jlanes.c), so sweeps, estimate and any thread or
 * rank count agree.
 * See core/README.md, "Closed form" (Clock lanes on the virtual jump).
 */
#include "core/eval/replay_jlanes.h"
#include "core/eval/replay_clocks.h"
#include "core/eval/replay_formula.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_prog_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VW 8               /* lanes per pass */
#define MAX_LANES 32       /* lanes per batch flush */
#define MAX_RING (1 << 16) /* ring slots: 4 MiB of lane tokens at most */
#define KEY_N (7 * CX_COST_MAX_CLASSES + 1)
#define MAX_MISS 64 /* unanswered keys kept */

/* the lanes' ring for a program (see ring()) */
typedef struct {
    const cx_replay_prog *pr;
    const cx_sched_desc *sd;
    int p, m, v, have; /* have: 1 sized, -1 refused */
    size_t n, gap, R;
} rprog;

struct cx_replay_jlanes {
    double clk[CX_REPLAY_JLANES_MAX_CLOCKS];
    int nclk;
    rprog rp[1];
    /* a pass: tokens [slots][8], stage registers [p][3][8] (free, PP free,
     * last end), durations [4 ncls][8], p2p [8], the operands of the last
     * two periods [2][P][4][8] (period parity), per lane x0, x1 and the
     * parked registers [8][3][3 p] */
    double *tok, *rg, *dur, *rec, *x;
    size_t tok_cap, rg_cap, dur_cap, rec_cap, x_cap;
    double pv[VW] __attribute__((aligned(64))); /* read as vectors (the struct is 64-aligned) */
    uint16_t cmap[4 * CX_COST_MAX_VSTAGES];
    uint16_t ident[CX_COST_MAX_VSTAGES];
    /* a batch: its cost copy, and per lane the class durations and time key */
    cx_cost *cost;
    cx_replay_vsinfo *vi; /* [MAX_LANES][CX_COST_MAX_CLASSES] */
    double *keys;         /* [MAX_LANES][KEY_N] */
    double p2p[MAX_LANES];
    int done[VW];
    /* the time keys of the last batch's lanes that gave no answer: their
     * scalar plays start no batch again */
    double *miss; /* [MAX_MISS][KEY_N] */
    int nmiss, miss_nkey;
    /* last, not zeroed by cx_core_replay_jlanes_new (emit writes what is
     * read: p stages of res[0]; the rest's pages are never faulted in) */
    cx_replay res[VW];
};

static long long n_played, n_answered;

void cx_core_replay_jlanes_counts(long long *played, long long *answered)
{
    *played = __atomic_load_n(&n_played, __ATOMIC_RELAXED);
    *answered = __atomic_load_n(&n_answered, __ATOMIC_RELAXED);
}

cx_replay_jlanes *cx_core_replay_jlanes_new(void)
{
    /* aligned for pv (sizeof is a multiple of 64: pv's alignment) */
    cx_replay_jlanes *jl = aligned_alloc(64, sizeof(cx_replay_jlanes));
    if (jl) memset(jl, 0, offsetof(cx_replay_jlanes, res));
    if (jl)
        for (int i = 0; i < CX_COST_MAX_VSTAGES; i++)
            jl->ident[i] = (uint16_t)i;
    return jl;
}

void cx_core_replay_jlanes_free(cx_replay_jlanes *jl)
{
    if (!jl) return;
    free(jl->tok);
    free(jl->rg);
    free(jl->dur);
    free(jl->rec);
    free(jl->x);
    free(jl->cost);
    free(jl->vi);
    free(jl->keys);
    free(jl->miss);
    free(jl);
}

void cx_core_replay_jlanes_set_clocks(cx_replay_jlanes *jl, const double *mhz, int n)
{
    if (!jl) return;
    if (n > CX_REPLAY_JLANES_MAX_CLOCKS) n = 0; /* no batch rather than part of one */
    jl->nclk = n > 0 ? n : 0;
    if (n > 0) memcpy(jl->clk, mhz, (size_t)n * sizeof *mhz);
}

/* *buf holds at least groups 64-byte aligned groups of 8 doubles */
static int grow_g(double **buf, size_t *cap, size_t groups)
{
    if (groups <= *cap) return 0;
    free(*buf);
    *buf = aligned_alloc(64, groups * VW * sizeof(double));
    *cap = *buf ? groups : 0;
    return *buf ? 0 : -1;
}

/* Instructions [from, to) of the program on 8 lanes (the scalar step of
 * replay_prog.c per lane), tokens in the ring: instruction i's output at
 * i & mask (spos: read by none), its token at its writer wr[i] & mask (the
 * zero slot zpos where it reads none); with rec, each instruction's
 * operands (stage free, token; end and PP free before it for sends) at rec[(4 (i
 * - from) + k) 8]. */
#define DEFINE_JEXEC(NAME, ATTR, VT, VL, W, REC)                                                   \
    ATTR static void NAME(const cx_replay_ins *prog, const int32_t *wr, size_t from, size_t to,    \
                          const rring *g, const uint16_t *cmap, double *tok, double *rg,           \
                          const double *dur, const double *p2p, int overlap, double *rec)          \
    {                                                                                              \
        for (size_t i = from; i < to; i++) {                                                       \
            const cx_replay_ins x = prog[i];                                                       \
            double *const r = rg + (size_t)x.stage * 3 * VW;                                       \
            const double *const t = tok + (wr[i] >= 0 ? (size_t)wr[i] & g->mask : g->zpos) * VW;   \
            double *const o = tok + (x.out < g->zero ? i & g->mask : g->spos) * VW;                \
            const double *const d = dur + (size_t)cmap[x.di & ~CX_REPLAY_SEND_BIT] * VW;           \
            double *const rc = REC ? rec + (i - from) * 4 * VW : NULL;                             \
            for (int k = 0; k < VW; k += W) {                                                      \
                const VT fr = *(const VT *)(r + k), rd = *(const VT *)(t + k);                     \
                const VL m1 = fr > rd;                                                             \
                const VT start = (VT)(((VL)fr & m1) | ((VL)rd & ~m1));                             \
                const VT end = start + *(const VT *)(d + k);                                       \
                VT nf = end, out = end;                                                            \
                if (REC) { /* end and PP free: read by the check for sends only */                 \
                    *(VT *)(rc + k) = fr, *(VT *)(rc + VW + k) = rd;                               \
                    if (x.di & CX_REPLAY_SEND_BIT)                                                 \
                        *(VT *)(rc + 2 * VW + k) = end,                                            \
                                              *(VT *)(rc + 3 * VW + k) = *(VT *)(r + VW + k);      \
                }                                                                                  \
                if (x.di & CX_REPLAY_SEND_BIT) {                                                   \
                    const VT pp = *(const VT *)(r + VW + k);                                       \
                    const VL m2 = end > pp;                                                        \
                    out = (VT)(((VL)end & m2) | ((VL)pp & ~m2)) + *(const VT *)(p2p + k);          \
                    *(VT *)(r + VW + k) = out;                                                     \
                    if (!overlap) nf = out;                                                        \
                }                                                                                  \
                *(VT *)(r + k) = nf;                                                               \
                *(VT *)(r + 2 * VW + k) = end;                                                     \
                *(VT *)(o + k) = out;                                                              \
            }                                                                                      \
        }                                                                                          \
    }

/* the ring's layout: mask (R - 1), the zero and scratch slots, the cell
 * slots (below zero) */
typedef struct {
    size_t mask, zpos, spos;
    int32_t zero;
} rring;

typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
DEFINE_JEXEC(jexec_base, , v2d, v2l, 2, 0)
DEFINE_JEXEC(jexec_base_rec, , v2d, v2l, 2, 1)

typedef void jexec_fn(const cx_replay_ins *, const int32_t *, size_t, size_t, const rring *,
                      const uint16_t *, double *, double *, const double *, const double *, int,
                      double *);

#if defined(__x86_64__) && defined(__GNUC__)
typedef double v8d __attribute__((vector_size(64)));
typedef long long v8l __attribute__((vector_size(64)));
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
DEFINE_JEXEC(jexec_avx512, __attribute__((target("avx512f"))), v8d, v8l, 8, 0)
DEFINE_JEXEC(jexec_avx512_rec, __attribute__((target("avx512f"))), v8d, v8l, 8, 1)
DEFINE_JEXEC(jexec_avx2, __attribute__((target("avx2"))), v4d, v4l, 4, 0)
DEFINE_JEXEC(jexec_avx2_rec, __attribute__((target("avx2"))), v4d, v4l, 4, 1)
#endif

/* the widest the CPU runs (the same bits on each: max and add per lane) */
static jexec_fn *jexec = jexec_base, *jexec_auto = jexec_base;
static jexec_fn *jexec_r = jexec_base_rec, *jexec_r_auto = jexec_base_rec;
static int have_avx2, have_avx512;

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((constructor)) static void pick(void)
{
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2") != 0;
    have_avx512 = __builtin_cpu_supports("avx512f") != 0;
    jexec = jexec_auto = have_avx512 ? jexec_avx512 : have_avx2 ? jexec_avx2 : jexec_base;
    jexec_r = jexec_r_auto = have_avx512 ? jexec_avx512_rec
                             : have_avx2 ? jexec_avx2_rec
                                         : jexec_base_rec;
}
#endif

int cx_core_replay_jlanes_set_isa(int isa)
{
    if (isa == 0) jexec = jexec_auto, jexec_r = jexec_r_auto;
    if (isa == 1) jexec = jexec_base, jexec_r = jexec_base_rec;
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == 2 && have_avx2) jexec = jexec_avx2, jexec_r = jexec_avx2_rec;
    if (isa == 3 && have_avx512) jexec = jexec_avx512, jexec_r = jexec_avx512_rec;
    return isa >= 0 && isa <= 1 ? 1 : isa == 2 ? have_avx2 : isa == 3 && have_avx512;
#else
    return isa >= 0 && isa <= 1;
#endif
}

/* Sizes the lanes' ring for pr's program: every token at its writer's
 * index mod R (the writers from the jump's scan: pr->wr per instruction,
 * pr->wl per cell slot), R a power of two above the longest distance from a
 * writer to a read of its token, the jump's reads of the copies one and
 * two periods back included (in the periodic region its writer's index
 * less one or two periods: sg[0] + 2 P; below, looked up), plus two
 * periods; then the sleeping lanes' tokens (gap slots), the zero slot and
 * the scratch slot. 0 held; -1 when the ring would exceed MAX_RING slots. */
static int ring(cx_replay_jlanes *jl, const cx_replay_prog *pr)
{
    rprog *const e = jl->rp;
    if (e->have && e->pr == pr && e->sd == pr->sd && e->p == pr->p && e->m == pr->m &&
        e->v == pr->v && e->n == pr->n)
        return e->have > 0 ? 0 : -1;
    const size_t n = pr->n, P = pr->P, ra = pr->ra;
    const int32_t zero = pr->zero, sh = pr->shift;
    e->pr = pr, e->sd = pr->sd, e->p = pr->p, e->m = pr->m, e->v = pr->v, e->n = n;
    e->have = -1;
    if (n >= INT32_MAX) return -1;
    const cx_replay_ins *const prog = pr->prog;
    size_t D = (size_t)pr->sg[0] + 2 * P;
    const size_t hi = ra + 2 * P, rhi = hi + (size_t)pr->sg[0] + 1;
    for (size_t r = ra; r < n && r <= rhi; r++) {
        if (prog[r].dep >= zero || pr->wr[r] < 0 || (size_t)pr->wr[r] >= hi) continue;
        for (int j = 1; j < 3; j++) {
            const int64_t k = (int64_t)prog[r].dep - (int64_t)j * sh;
            if (k < 0) break;
            const int32_t w = pr->wl[k];
            if (w < 0 || (size_t)w > r) return -1;
            if (r - (size_t)w > D) D = r - (size_t)w;
        }
    }
    size_t R = 1;
    while (R < D + 2 * P + 1)
        R *= 2;
    /* a sleeping lane's tokens live at its wake point: written from sg +
     * 2 P before it */
    const size_t gap = (size_t)pr->sg[0] + 2 * P;
    if (R > MAX_RING || gap >= R) return -1;
    e->R = R, e->gap = gap;
    e->have = 1;
    return 0;
}

/* lane states: at the next period's start, the scalar jump loop is at its
 * top with no period recorded (A), at its top with one (BT), past the
 * uniform test of the period just played (BC), playing plainly up to pto
 * (PS); the loop left, playing plainly to the end (DONE); asleep until
 * the position t it skipped to (SLEEP); played to the end (FIN); out */
enum { L_A, L_BT, L_BC, L_PS, L_DONE, L_SLEEP, L_FIN, L_OUT };

typedef struct {
    int st;
    size_t skip, pto, t, pf;
    int64_t extra;
} lstate;

/* the periods a lane may still check after the first lane fell asleep:
 * as many again as that one took, and this many more (a lane that keeps
 * the pass playing longer costs more than its scalar play) */
#define STRAGGLE 64

/* Plays one pass of nl <= 8 lanes (durations and p2p set): the scalar
 * run_ext's prefix, jump loop and end per lane (see the top comment). */
static void drive(cx_replay_jlanes *jl, cx_replay_prog *pr, int p, int nl, int64_t extra,
                  int overlap)
{
    const size_t P = pr->P, re = pr->re, n = pr->n, ra = pr->ra, p3 = 3 * (size_t)p;
    const rprog *const e = jl->rp;
    const cx_replay_ins *const prog = pr->prog;
    const int32_t *const wr = pr->wr;
    double *const tok = jl->tok, *const rg = jl->rg;
    const size_t R = e->R, gap = e->gap;
    const rring g = {R - 1, R + gap, R + gap + 1, pr->zero};
    lstate ls[VW];
    cx_replay_jview vw[VW];
    for (int l = 0; l < VW; l++) {
        ls[l] = (lstate){l < nl ? L_A : L_OUT, 1, 0, 0, 0, extra};
        vw[l] = (cx_replay_jview){tok + l, VW, rg + l, 3 * VW, VW, pr->wl, R - 1, INT32_MAX, 0};
    }
    memset(rg, 0, (size_t)p * 3 * VW * sizeof *rg);
    for (int l = 0; l < VW; l++)
        tok[(R + gap) * VW + (size_t)l] = 0.0; /* the zero slot */
    jexec(prog, wr, 0, ra, &g, jl->cmap, tok, rg, jl->dur, jl->pv, overlap, NULL);
    size_t b = ra, k = 0, first = 0; /* first: where a lane first fell asleep */
    for (;;) {
        int act = 0, done = 0, need = 0;
        size_t tmin = SIZE_MAX;
        for (int l = 0; l < nl; l++) {
            lstate *const s = &ls[l];
            double *const x0 = jl->x + (size_t)l * 3 * p3, *const x1 = x0 + p3, *const xp = x1 + p3;
            if (s->st == L_SLEEP && s->t == b) {
                /* awake at its skip's end: its registers and tokens back */
                for (int st = 0; st < p; st++)
                    for (int r = 0; r < 3; r++)
                        rg[((size_t)st * 3 + (size_t)r) * VW + (size_t)l] = xp[3 * st + r];
                for (size_t w = s->pf; w < b; w++)
                    tok[(w & (R - 1)) * VW + (size_t)l] = tok[(R + w - s->pf) * VW + (size_t)l];
                s->st = L_A;
            }
            if (s->st == L_PS && b == s->pto) s->st = L_A;
            /* the loop's test at its top: ended (periods left to insert:
             * the scalar fails; none: it plays on to the end) */
            if ((s->st == L_A && b + 3 * P > re) || (s->st == L_BT && b + 2 * P > re))
                s->st = s->extra > 0 ? L_OUT : L_DONE;
            if (s->st <= L_PS && s->extra > 0 && first && b > first + (first - ra) + STRAGGLE * P)
                s->st = L_OUT;
            if (s->st == L_A) cx_core_replay_jump_snap(&vw[l], p, x0), need = 1;
            if (s->st == L_BT || s->st == L_BC) cx_core_replay_jump_snap(&vw[l], p, x1), need = 1;
            act |= s->st <= L_PS, done |= s->st == L_DONE;
            if (s->st == L_SLEEP && s->t < tmin) tmin = s->t;
        }
        if (!act) {
            if (done && tmin != SIZE_MAX && tmin > b + 8 * P) {
                /* a lane playing to the end would hold the sleepers' jump */
                for (int l = 0; l < nl; l++)
                    if (ls[l].st == L_DONE) ls[l].st = L_OUT;
                done = 0;
            }
            if (!done) {
                if (tmin == SIZE_MAX) break;
                b = tmin; /* nobody plays until the first wakes */
                continue;
            }
            if (tmin == SIZE_MAX) {
                jexec(prog, wr, b, n, &g, jl->cmap, tok, rg, jl->dur, jl->pv, overlap, NULL);
                for (int l = 0; l < nl; l++)
                    if (ls[l].st == L_DONE) ls[l].st = L_FIN;
                break;
            }
        }
        double *const rc = jl->rec + (k & 1) * 4 * P * VW, *const rp =
                                                               jl->rec + (~k & 1) * 4 * P * VW;
        (need ? jexec_r : jexec)(prog, wr, b, b + P, &g, jl->cmap, tok, rg, jl->dur, jl->pv,
                                 overlap, need ? rc : NULL);
        b += P, k++;
        for (int l = 0; l < nl; l++) {
            lstate *const s = &ls[l];
            const cx_replay_jview *const v = &vw[l];
            double *const x0 = jl->x + (size_t)l * 3 * p3, *const x1 = x0 + p3, *const xp = x1 + p3;
            size_t q = 0;
            const double *xm = x1;
            int uni = 0;
            double lam = 0.0;
            if (s->st == L_A) {
                q = cx_core_replay_jump_uniform(pr, v, p, b, x0, s->extra, &lam);
                if (!q) {
                    s->st = b + 2 * P > re ? (s->extra > 0 ? L_OUT : L_DONE) : L_BC;
                    continue;
                }
                xm = x0, uni = 1;
            } else if (s->st == L_BT || s->st == L_BC) {
                q = cx_core_replay_jump_check(pr, v, p, b, x0, x1, rp + l, rc + l, VW, s->extra);
                if (!q) {
                    if (s->skip == 1) {
                        memcpy(x0, x1, p3 * sizeof *x0);
                        s->st = L_BT, s->skip = 2;
                        continue;
                    }
                    const size_t to = b + (s->skip - 1) * P;
                    s->st = to + 3 * P > re ? L_OUT : L_PS;
                    s->pto = to, s->skip = cx_core_replay_jump_next_skip(s->skip);
                    continue;
                }
            } else
                continue;
            /* a move: insert (this lane's state only) or skip (asleep
             * until its end, its tokens live there into its own parked
             * slots, those written before b played) */
            s->skip = 1;
            if (s->extra > 0) {
                cx_core_replay_jump_insert(pr, v, p, b, q, xm, uni, lam);
                s->extra -= (int64_t)q;
                s->st = L_A;
                continue;
            }
            const size_t t = b + q * P;
            cx_replay_jview pv = *v;
            s->t = t, s->pf = t > b + gap ? t - gap : b;
            pv.pf = (int32_t)s->pf, pv.pb = R;
            cx_core_replay_jump_skip(pr, &pv, p, b, q, xm, uni, lam);
            for (int st = 0; st < p; st++)
                for (int r = 0; r < 3; r++)
                    xp[3 * st + r] = rg[((size_t)st * 3 + (size_t)r) * VW + (size_t)l];
            s->st = L_SLEEP;
            if (!first) first = b;
        }
    }
    for (int l = 0; l < nl; l++)
        jl->done[l] = ls[l].st == L_FIN;
}

/* Sets a pass's durations: lane j's class durations cvi[j][0 .. ncls)
 * (lanes past n repeat the last), cls: the class of each virtual stage. */
static int setup(cx_replay_jlanes *jl, const cx_replay_prog *pr, int p, int nvs, int n, int ncls,
                 const uint16_t *cls, const cx_replay_vsinfo *const *cvi, const double *p2p)
{
    const size_t P = pr->P;
    if (ring(jl, pr) || grow_g(&jl->tok, &jl->tok_cap, jl->rp->R + jl->rp->gap + 2) ||
        grow_g(&jl->rg, &jl->rg_cap, (size_t)p * 3) ||
        grow_g(&jl->dur, &jl->dur_cap, (size_t)ncls * 4) ||
        grow_g(&jl->rec, &jl->rec_cap, 2 * 4 * P) || grow_g(&jl->x, &jl->x_cap, 9 * (size_t)p))
        return -1;
    for (int vs = 0; vs < nvs; vs++)
        for (int k = 0; k < 4; k++)
            jl->cmap[vs * 4 + k] = (uint16_t)(cls[vs] * 4 + k);
    for (int j = 0; j < VW; j++) {
        const int l = j < n ? j : n - 1;
        for (int c = 0; c < ncls; c++)
            for (int k = 0; k < 4; k++) {
                double win;
                jl->dur[((size_t)c * 4 + (size_t)k) * VW + (size_t)j] =
                    cx_replay_dur(&cvi[l][c], k, &win);
            }
        jl->pv[j] = p2p[l];
    }
    return 0;
}

/* Lane j's result of the last pass into out, as run_ext and replay.c's
 * collect give it. */
static void emit(const cx_replay_jlanes *jl, const cx_replay_prog *pr, int p, int j,
                 const uint16_t *cls, const cx_replay_vsinfo *cvi, cx_replay *out)
{
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        const double *const r = jl->rg + (size_t)s * 3 * VW;
        const int di = pr->last_di[s] & ~CX_REPLAY_SEND_BIT;
        double win;
        cx_replay_dur(&cvi[cls[di / 4]], di % 4, &win);
        out->free_s[s] = r[j];
        out->last_end_s[s] = r[2 * VW + j];
        out->last_item_s[s] = win;
        if (out->free_s[s] > out->makespan_s) out->makespan_s = out->free_s[s];
    }
}

/* pr holds the jump's program of pl's orders (cell slots, scanned) */
static int usable(const cx_replay_prog *pr, const cx_play *pl)
{
    return pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v &&
           !pr->renamed && pr->scanned && pr->jump_ok && pr->P > 0 && pr->re > pr->ra &&
           pl->p <= CX_COST_MAX_STAGES && pl->nvs <= CX_COST_MAX_VSTAGES;
}

int cx_core_replay_jlanes_run(cx_replay_jlanes *jl, const cx_play *pl, cx_replay_prog *pr,
                              int64_t extra, int n, const cx_replay_vsinfo *const *vi,
                              const double *p2p, int overlap, cx_replay *out, int *done)
{
    if (!jl || !usable(pr, pl) || extra < 1) return -1;
    for (int l0 = 0; l0 < n; l0 += VW) {
        const int nl = n - l0 < VW ? n - l0 : VW;
        /* every virtual stage its own class */
        if (setup(jl, pr, pl->p, pl->nvs, nl, pl->nvs, jl->ident, vi + l0, p2p + l0)) return -1;
        drive(jl, pr, pl->p, nl, extra, overlap);
        for (int j = 0; j < nl; j++) {
            done[l0 + j] = jl->done[j];
            if (jl->done[j]) emit(jl, pr, pl->p, j, jl->ident, vi[l0 + j], &out[l0 + j]);
        }
    }
    return 0;
}

int cx_core_replay_jlanes_rows(cx_replay_jlanes *jl, const cx_cost *c, const cx_play *pl,
                               cx_replay_prog *pr, int64_t extra, int n, const int *idx,
                               const cx_replay_vsinfo *vi, const double *p2p, double *rows,
                               int stride, int *done)
{
    if (!jl || !usable(pr, pl) || extra < 1 || c->nclass < 1 || c->nclass > CX_COST_MAX_CLASSES ||
        pl->nvs != c->p * c->v)
        return -1;
    const cx_replay_vsinfo *vp[VW];
    double pp[VW];
    uint16_t cls[CX_COST_MAX_VSTAGES];
    for (int vs = 0; vs < pl->nvs; vs++)
        cls[vs] = (uint16_t)c->vs_class[vs];
    for (int l0 = 0; l0 < n; l0 += VW) {
        const int np = n - l0 < VW ? n - l0 : VW;
        for (int j = 0; j < np; j++) {
            vp[j] = vi + (size_t)idx[l0 + j] * (size_t)c->nclass;
            pp[j] = p2p[idx[l0 + j]];
        }
        if (setup(jl, pr, pl->p, pl->nvs, np, c->nclass, cls, vp, pp)) return -1;
        drive(jl, pr, pl->p, np, extra, c->sched->p2p_overlap);
        for (int j = 0; j < np; j++) {
            done[l0 + j] = jl->done[j];
            if (!jl->done[j]) continue;
            emit(jl, pr, pl->p, j, cls, vp[j], jl->res);
            cx_core_replay_row_pack(jl->res, c->p, rows + (size_t)idx[l0 + j] * (size_t)stride);
        }
    }
    __atomic_fetch_add(&n_played, n, __ATOMIC_RELAXED);
    return 0;
}

/* Plays the nl lanes of a batch and stores each answered result in mm;
 * returns how many. */
static int flush(cx_replay_jlanes *jl, const cx_cost *c, const cx_play *pl, cx_replay_prog *pr,
                 int64_t extra, cx_replay_memo *mm, const cx_replay_memo_key *k0, int nl)
{
    const cx_replay_vsinfo *vp[MAX_LANES];
    uint16_t cls[CX_COST_MAX_VSTAGES];
    int stored = 0;
    for (int vs = 0; vs < pl->nvs; vs++)
        cls[vs] = (uint16_t)c->vs_class[vs];
    for (int j = 0; j < nl; j++)
        vp[j] = jl->vi + (size_t)j * CX_COST_MAX_CLASSES;
    for (int l0 = 0; l0 < nl; l0 += VW) {
        const int np = nl - l0 < VW ? nl - l0 : VW;
        if (setup(jl, pr, pl->p, pl->nvs, np, c->nclass, cls, vp + l0, jl->p2p + l0)) return stored;
        drive(jl, pr, pl->p, np, extra, c->sched->p2p_overlap);
        for (int j = 0; j < np; j++) {
            if (!jl->done[j]) {
                if (jl->nmiss < MAX_MISS)
                    memcpy(jl->miss + (size_t)jl->nmiss++ * KEY_N,
                           jl->keys + (size_t)(l0 + j) * KEY_N, (size_t)k0->nkey * sizeof(double)),
                        jl->nmiss++;
                continue;
            }
            cx_replay_memo_key mk = *k0;
            mk.key = jl->keys + (size_t)(l0 + j) * KEY_N;
            emit(jl, pr, pl->p, j, cls, vp[l0 + j], jl->res);
            cx_core_replay_memo_put(mm, &mk, jl->res, 1);
            stored++;
        }
    }
    __atomic_fetch_add(&n_played, nl, __ATOMIC_RELAXED);
    __atomic_fetch_add(&n_answered, stored, __ATOMIC_RELAXED);
    return stored;
}

int cx_core_replay_jlanes_batch(cx_replay_jlanes *jl, const cx_cost *c, const cx_play *pl,
                                cx_replay_prog *pr, int64_t extra, cx_replay_memo *mm,
                                const cx_replay_memo_key *k0)
{
    if (!jl || jl->nclk < 2 || !mm || extra < 1 || c->nclass < 1 ||
        c->nclass > CX_COST_MAX_CLASSES || pl->nvs != c->p * c->v || k0->nkey > KEY_N ||
        !usable(pr, pl))
        return 0;
    if ((!jl->cost && !(jl->cost = malloc(sizeof *jl->cost))) ||
        (!jl->keys && !(jl->keys = malloc(MAX_LANES * KEY_N * sizeof *jl->keys))) ||
        (!jl->miss && !(jl->miss = malloc(MAX_MISS * KEY_N * sizeof *jl->miss))) ||
        (!jl->vi && !(jl->vi = malloc(MAX_LANES * CX_COST_MAX_CLASSES * sizeof *jl->vi))))
        return 0;
    /* a clock the last batch played without an answer */
    for (int i = 0; i < jl->nmiss; i++)
        if (jl->miss_nkey == k0->nkey &&
            !memcmp(jl->miss + (size_t)i * KEY_N, k0->key, (size_t)k0->nkey * sizeof(double)))
            return 0;
    jl->nmiss = 0, jl->miss_nkey = k0->nkey;
    int copied = 0, nl = 0, stored = 0;
    /* every other clock of the list (c's own was just played) */
    for (int i = 0; i < jl->nclk; i++) {
        if (jl->clk[i] == c->clock_mhz) continue;
        if (!cx_core_replay_lane_price(c, jl->clk[i], jl->cost, &copied,
                                       jl->keys + (size_t)nl * KEY_N, k0, mm, jl->res,
                                       jl->vi + (size_t)nl * CX_COST_MAX_CLASSES, &jl->p2p[nl]))
            continue;
        if (++nl == MAX_LANES) stored += flush(jl, c, pl, pr, extra, mm, k0, nl), nl = 0;
    }
    if (nl > 0) stored += flush(jl, c, pl, pr, extra, mm, k0, nl);
    return stored;
}
