/*
 * replay_prog.c — the replay's orders compiled into a straight-line program.
 * The play engine (schedules/play.h) plays an item as soon as its
 * dependency token exists; which tokens exist depends on the items played,
 * never on their times, so the sequence of (stage, item) it plays is a
 * function of the orders alone. It becomes a program of instructions
 * (token read, token written, stage, duration slot, send flag): for
 * schedules that state a steady state compiled straight from the orders in
 * (level, stage) order (replay_compile.c, no engine play), for the others
 * recorded from the engine's first play with the replay's timing rule
 * (replay_step.h). Every play of the same orders (a sweep replays one
 * (schedule, p, m, v) for every recompute mode, sequence parallelism,
 * clock, ...) runs the program: per item
 *     start = max(free[s], tok[dep]), end = start + dur,
 *     send: out = pp[s] = max(end, pp[s]) + p2p, free[s] = overlap ? end : out
 * with the engine's operations in a topological order of the engine's
 * dependencies, so the results are bit-identical, without the worklist's
 * dependency checks and revisits (about 5x fewer instructions per item).
 * An item's end is kept only as its stage's last end (no item reads it:
 * a W reads the zero slot, see encode_tmpl). Memory: 12 bytes per item (+8 for
 * the jump's writer and reach) and 16 per (microbatch, virtual stage) cell
 * (+8 while compiling); a program compiled for plain plays (and the clock
 * lanes) has its token slots renamed as compiled (replay_compile.c), 8
 * bytes per token live at once instead of the 16 per cell, in a 16-byte
 * form (the send flag apart), folded where a quarter of its items are
 * W-like (ZB: a third fewer instructions; replay_compile.c; run by
 * step_f, the same bits); orders above
 * MAX_ITEMS items always use the engine. Renamed programs replaced by
 * another shape's are held aside (the program cache, see held_put: at most
 * 2^20 instructions, 12 MiB, a program object, and 2^20 folded ones, 16
 * MiB; 6.2 / 10.3 MiB measured
 * in bench_sweep_bench schedules zb-h1 / zb-h2 before the folded form) and
 * taken back instead of compiled again; a 16-byte program's periodic
 * region is stored once and played as repeats (replay_compile.c,
 * cx_replay_code.fat; exec_f here, the lanes' pass).
 * Jump (issue 13): for schedules that state a steady period of c
 * microbatches, the program is in (level, stage) order (same bits,
 * periodic where the dependency graph is: P instructions per period, cell
 * slots + c microbatches). The play is a max-plus system; two periods are
 * recorded with every maximum's operands and the state X (stage free, PP
 * free, last end, every token written before the boundary and read after
 * it) at three boundaries. When every maximum keeps its winner and X
 * advances by the same D per value over both periods, the period map is
 * one affine map X -> A X + c with A D = D for as long as no winner
 * changes: the first crossing of a loser with its winner, each operand
 * advancing at its own rate, is K periods away, and q < K periods are
 * skipped (real: further in the program) or inserted (virtual: the program
 * of m' stands for m' + k c) at once, X + q D. Items reading a token their
 * own stage wrote without a send read the zero slot instead (free is never
 * below it: same bits), so that only tokens between stages are state.
 * Cost: warm-up, transients (winner changes, a few periods each) and
 * cool-down, not m. bench/fast_agree.c holds it to the full replay.
 * See core/README.md, "Closed form" (replayed schedules, "Program jump").
 */
#include "core/base/base.h"
#include "core/eval/replay_prog_int.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS (2 * 1024 * 1024)

cx_replay_prog *cx_core_replay_prog_new(void)
{
    /* the registers and durations (last) written by each run before it
     * reads them: not zeroed (calloc would fault in their 40 pages) */
    cx_replay_prog *pr = malloc(sizeof(cx_replay_prog));
    if (pr) memset(pr, 0, offsetof(cx_replay_prog, rg));
    return pr;
}

void cx_core_replay_prog_free(cx_replay_prog *pr)
{
    if (!pr) return;
    free(pr->prog);
    free(pr->seq);
    free(pr->tok);
    free(pr->wr);
    free(pr->wl);
    free(pr->tm);
    free(pr->sg);
    free(pr->lr);
    free(pr->rec);
    free(pr->lv_slot);
    free(pr->lv_val);
    free(pr->fl);
    free(pr->sk);
    free(pr->fold);
    cx_core_replay_held_free(pr);
    cx_core_replay_fill_free(pr);
    free(pr);
}

typedef struct {
    const cx_replay_timing *tm;
    int32_t *seq;
    size_t n;
} recorder;

CX_PLAY_STEP void record_step(void *ctx, const cx_play_step *st, cx_play_token *done,
                              cx_play_token *out)
{
    recorder *rc = ctx;
    rc->seq[2 * rc->n] = st->stage, rc->seq[2 * rc->n + 1] = st->pos;
    rc->n++;
    cx_replay_step_time((void *)rc->tm, st, done, out);
}

/* 0: never jump (the reference, cx_core_replay_prog_set_jump) */
static int jump_on = 1;

void cx_core_replay_prog_set_jump(int on)
{
    jump_on = on != 0;
}

/* y is x with every cell slot + shift (the zero and scratch slots, >= zero,
 * stay). */
static int congruent(const ins *x, const ins *y, int32_t shift, int32_t zero)
{
    if (x->stage != y->stage || x->di != y->di) return 0;
    const int32_t a[2] = {x->dep, x->out}, b[2] = {y->dep, y->out};
    for (int k = 0; k < 2; k++)
        if (b[k] != (a[k] >= zero ? a[k] : a[k] + shift)) return 0;
    return 1;
}

/* Finds the program's periodic region (see the top comment, "Jump"): the
 * longest run of instructions i with prog[i + P] = prog[i] moved by c
 * microbatches (c: the schedule's steady period), each instruction's
 * writer, and the longest writer-to-reader distance from the region on. */
static void jump_scan(cx_replay_prog *pr, const cx_play *pl)
{
    int c, e;
    const cx_sched_desc *sd = pl->sd;
    const size_t n = pr->n, m = (size_t)pl->m, nvs = (size_t)pl->nvs;
    pr->jump_ok = 0;
    /* one stage: a plain sum, which schedules tie on exactly; the jump's
     * rounding would break such ties (tests/golden, schedules) */
    if (pl->p < 2) return;
    if (!sd->steady || !sd->steady(pl->p, pl->m, pl->v, &c, &e) || c < 1 || (size_t)c >= m ||
        cx_core_replay_grow((void **)&pr->wr, &pr->wr_cap, n, sizeof *pr->wr))
        return;
    /* P: the items of c microbatches in the middle of the orders (the
     * steady state; DualPipeV splits some backwards outside it, so n c / m
     * need not be an integer), counted by compile_levels */
    const size_t P = pr->P;
    if (P < 1 || P >= n) return;
    const int32_t zero = (int32_t)(2 * m * nvs), shift = (int32_t)(2 * (size_t)c * nvs);
    const ins *prog = pr->prog;
    size_t ra = 0, len = 0;
    for (size_t i = 0, run = 0; i + P < n; i++) {
        run = congruent(&prog[i], &prog[i + P], shift, zero) ? run + 1 : 0;
        if (run > len) len = run, ra = i + 1 - run;
    }
    if (len < 4 * P) return;
    /* the writer of each slot, in compile_levels' levels (done with) */
    int32_t *const writer = pr->wl;
    if (cx_core_replay_grow((void **)&pr->sg, &pr->sg_cap, n + 1, sizeof *pr->sg)) return;
    for (size_t i = 0; i < n; i++) {
        /* a token's writer precedes its reader in the program */
        pr->wr[i] = prog[i].dep >= zero ? -1 : writer[prog[i].dep];
        writer[prog[i].out] = (int32_t)i;
    }
    pr->sg[n] = 0;
    for (size_t i = n; i-- > 0;) {
        const int32_t d = pr->wr[i] >= 0 ? (int32_t)i - pr->wr[i] : 0;
        pr->sg[i] = d > pr->sg[i + 1] ? d : pr->sg[i + 1];
    }
    /* the last reader of each instruction's output, then of any before b */
    if (cx_core_replay_grow((void **)&pr->lr, &pr->lr_cap, n + 1, sizeof *pr->lr)) return;
    for (size_t i = 0; i <= n; i++)
        pr->lr[i] = -1;
    for (size_t r = 0; r < n; r++)
        if (pr->wr[r] >= 0) pr->lr[pr->wr[r]] = (int32_t)r; /* readers in order: the last */
    for (size_t b = 0, run = 0, had = 0; b <= n; b++) {
        const int32_t x = pr->lr[b];
        pr->lr[b] = had ? (int32_t)run : -1;
        if (x >= 0 && (!had || (size_t)x > run)) run = (size_t)x, had = 1;
    }
    int seen[CX_COST_MAX_STAGES] = {0};
    memset(pr->sends, 0, sizeof pr->sends);
    for (size_t i = ra; i < ra + P; i++) {
        seen[prog[i].stage] = 1;
        if (prog[i].di & SEND_BIT) pr->sends[prog[i].stage] = 1;
    }
    for (int s = 0; s < pl->p; s++)
        if (!seen[s]) return;
    pr->ra = ra, pr->re = ra + len + P, pr->P = P, pr->shift = shift;
    /* room for a check (two periods) and a few periods more */
    const size_t nlv = 3 * ((size_t)pr->sg[ra] + 1);
    pr->jump_ok =
        ra + 6 * P < pr->re &&
        !cx_core_replay_grow((void **)&pr->rec, &pr->rec_cap, 8 * P, sizeof *pr->rec) &&
        !cx_core_replay_grow((void **)&pr->lv_slot, &pr->lv_cap, nlv, sizeof *pr->lv_slot) &&
        !cx_core_replay_grow((void **)&pr->lv_val, &pr->lvv_cap, nlv, sizeof *pr->lv_val);
}

/* One instruction of the timing rule (replay_step.h); with rec, its
 * operands are recorded: stage free and ready (the start's maximum), end and
 * PP free (a send's maximum). Inlined, so exec's loop has no rec test. */
static inline void step(cx_replay_prog *pr, const ins *x, double p2p, int overlap, double *rec)
{
    double *const tok = pr->tok;
    stage_regs *const r = &pr->rg[x->stage];
    const double ready = tok[x->dep], fr = r->free;
    const double start = fr > ready ? fr : ready;
    const double end = start + pr->dur[x->di & ~SEND_BIT];
    double out = end, nf = end;
    if (rec) rec[0] = fr, rec[1] = ready, rec[2] = end, rec[3] = r->pp;
    if (x->di & SEND_BIT) {
        const double pp = r->pp, ss = end > pp ? end : pp;
        out = r->pp = ss + p2p;
        if (!overlap) nf = out;
    }
    r->free = nf;
    r->end = end;
    tok[x->out] = out;
}

/* The same for an instruction of the folded form (replay_compile.c): the
 * stage's free plus the folded item's duration (-0.0 for none: free, bit
 * for bit) before the maximum. */
static inline void step_f(cx_replay_prog *pr, const cx_replay_fins *x, double p2p, int overlap,
                          const int fw)
{
    double *const tok = pr->tok;
    _Static_assert(sizeof(stage_regs) % CX_REPLAY_FSTAGE_STRIDE == 0, "stage scale");
    stage_regs *const r =
        (stage_regs *)((char *)pr->rg +
                       (size_t)x->stage * (sizeof(stage_regs) / CX_REPLAY_FSTAGE_STRIDE));
    const double ready = tok[x->dep], fr = fw ? r->free + pr->dur[x->pre] : r->free;
    const double start = fr > ready ? fr : ready;
    /* di scaled (CX_REPLAY_FDI): the addressing mode's scale */
    const double end = start + *(const double *)((const char *)pr->dur +
                                                 (size_t)x->di * (sizeof(double) / CX_REPLAY_FDI));
    double out = end, nf = end;
    if (x->send) {
        const double pp = r->pp, ss = end > pp ? end : pp;
        out = r->pp = ss + p2p;
        if (!overlap) nf = out;
    }
    r->free = nf;
    r->end = end;
    tok[x->out] = out;
}

/* Plays instructions [0, to) of a folded form (as exec). */
static inline __attribute__((always_inline)) void exec_f_run(cx_replay_prog *pr,
                                                             const cx_replay_fins *prog, size_t to,
                                                             double p2p, int overlap, const int fw)
{
    double *const tok = pr->tok;
    size_t i = 0;
    for (; i + 32 < to; i++) {
        __builtin_prefetch(&tok[prog[i + 32].out], 1);
        step_f(pr, &prog[i], p2p, overlap, fw);
    }
    for (; i < to; i++)
        step_f(pr, &prog[i], p2p, overlap, fw);
}

/* Plays the folded form (as exec), piece by piece (its periodic region
 * stored once, see cx_replay_code_ranges). */
static inline __attribute__((always_inline)) void exec_f(cx_replay_prog *pr, double p2p,
                                                         int overlap, const int fw)
{
    cx_replay_code c;
    c.fn = pr->fold_n, c.fat = pr->fold_at, c.fg = pr->fold_g, c.freps = pr->fold_reps;
    c.fpart = pr->fold_part;
    size_t off[4], len[4], rep[4];
    cx_replay_code_ranges(&c, off, len, rep);
    for (int k = 0; k < 4; k++)
        for (size_t r = 0; r < rep[k]; r++)
            exec_f_run(pr, pr->fold + off[k], len[k], p2p, overlap, fw);
}

/* Plays instructions [from, to) (see the top comment). */
static inline void exec(cx_replay_prog *pr, size_t from, size_t to, double p2p, int overlap)
{
    const ins *const prog = pr->prog;
    double *const tok = pr->tok;
    size_t i = from;
    /* the token slot written 32 instructions on, asked for ahead (the
     * tokens of a level are spread over the cells: measured 8-16% on the
     * sweeps of bench_sweep_bench schedules) */
    for (; i + 32 < to; i++) {
        __builtin_prefetch(&tok[prog[i + 32].out], 1);
        step(pr, &prog[i], p2p, overlap, NULL);
    }
    for (; i < to; i++)
        step(pr, &prog[i], p2p, overlap, NULL);
}

/* Plays instructions [from, to) as exec does, recording per instruction
 * its operands: stage free and ready (the start's maximum), end and PP free
 * (a send's maximum). */
static void exec_rec(cx_replay_prog *pr, size_t from, size_t to, double p2p, int overlap,
                     double *rec)
{
    for (size_t i = from; i < to; i++, rec += 4)
        step(pr, &pr->prog[i], p2p, overlap, rec);
}

/* the most periods one jump inserts: operands advancing alike to the slope
 * tolerance (1e-13 of the time per period) may part by this times it,
 * below 1e-9 of the makespan (4.1e-10). Measured slopes carry a few ulp
 * of rounding, so a jump of q periods leaves the state q of them off its
 * orbit (~1e-15 q of the time): the next check fails until the play has
 * washed that out (~60 periods after q = 1000), hence one long jump rather
 * than several short ones where no winner changes */
#define MAX_JUMP 4096
/* the fewest periods worth a jump, the most between failed checks */
#define MIN_JUMP 4
#define MAX_SKIP 16

/* One maximum max(a, b) seen in two consecutive periods (a0, b0 then a1,
 * b1): 0 when its winner is not the same in both (beyond the tie tolerance
 * tol) while the operands advance at different rates; else lowers *K to the
 * periods after the second before the loser catches up (the winner then
 * stays for K periods). Operands advancing alike (to tolr) have one affine
 * maximum whichever wins. */
static int op_ok(double a0, double b0, double a1, double b1, double tol, double tolr, double *K)
{
    const double ra = a1 - a0, rb = b1 - b0;
    if (fabs(ra - rb) <= tolr) return 1;
    const double d0 = a0 - b0, d1 = a1 - b1;
    if (d0 > tol && d1 > tol) {
        if (rb > ra && d1 / (rb - ra) < *K) *K = d1 / (rb - ra);
        return 1;
    }
    if (d0 < -tol && d1 < -tol) {
        if (ra > rb && -d1 / (ra - rb) < *K) *K = -d1 / (ra - rb);
        return 1;
    }
    return 0;
}

#define JT(v, k) (*cx_replay_jtok((v), (k)))
#define JR(v, s, k) ((v)->rg[(size_t)(s) * (v)->rs + (size_t)(k) * (v)->rk])

/* The advance per period of the value in slot d written in the period
 * before b2 (its copy one period earlier: d - shift), or lam when the whole
 * state moved by one shift (uni). */
static inline double slope(const cx_replay_jview *v, int64_t d, int32_t sh, int uni, double lam)
{
    return uni ? lam : JT(v, d) - JT(v, d - sh);
}

void cx_core_replay_jump_snap(const cx_replay_jview *v, int p, double *x)
{
    for (int s = 0; s < p; s++)
        x[3 * s] = JR(v, s, 0), x[3 * s + 1] = JR(v, s, 1), x[3 * s + 2] = JR(v, s, 2);
}

/* Registers + q D (D: x2 - x1 per value, or lam; the PP register of a
 * stage that sends nothing in a period stays). */
static void move_regs(const cx_replay_prog *pr, const cx_replay_jview *v, int p, const double *x1,
                      double q, int uni, double lam)
{
    for (int s = 0; s < p; s++)
        for (int k = 0; k < 3; k++)
            if (!uni || k != 1 || pr->sends[s]) {
                double *const r = &JR(v, s, k);
                *r += q * (uni ? lam : *r - x1[3 * s + k]);
            }
}

void cx_core_replay_jump_insert(cx_replay_prog *pr, const cx_replay_jview *v, int p, size_t b2,
                                size_t q, const double *x1, int uni, double lam)
{
    const size_t P = pr->P, n = pr->n;
    const int64_t lend = pr->lr[b2];
    const int32_t *const wr = pr->wr, sh = pr->shift;
    const ins *const prog = pr->prog;
    const int64_t qs = (int64_t)q * sh, bk = (int64_t)(b2 - P);
    size_t nl = 0;
    for (size_t r = b2; (int64_t)r <= lend && r < n; r++) {
        if (wr[r] < 0 || (size_t)wr[r] >= b2) continue;
        for (int j = 0; j < 3; j++) {
            const int32_t w = wr[r] - j * (int32_t)P, d = prog[r].dep - j * sh;
            if (w < (int32_t)pr->ra) break;
            const int64_t vv = w + (int64_t)q * (int64_t)P;
            double x;
            if (vv < (int64_t)b2)
                x = JT(v, (int64_t)d + qs);
            else {
                const int64_t o = (vv - bk) / (int64_t)P, base = d + qs - o * sh;
                x = JT(v, base) + (double)o * slope(v, base, sh, uni, lam);
            }
            pr->lv_slot[nl] = d, pr->lv_val[nl++] = x;
        }
    }
    for (size_t i = 0; i < nl; i++)
        JT(v, pr->lv_slot[i]) = pr->lv_val[i];
    move_regs(pr, v, p, x1, (double)q, uni, lam);
}

size_t cx_core_replay_jump_skip(cx_replay_prog *pr, const cx_replay_jview *v, int p, size_t b2,
                                size_t q, const double *x1, int uni, double lam)
{
    const size_t P = pr->P, n = pr->n, t = b2 + q * P;
    const int32_t *const wr = pr->wr, sh = pr->shift;
    const ins *const prog = pr->prog;
    const int32_t bk = (int32_t)(b2 - P);
    for (size_t r = t; t < n && (int64_t)r <= pr->lr[t] && r < n; r++)
        for (int j = 0; j < 3; j++) {
            const int32_t w = wr[r] - j * (int32_t)P, d = prog[r].dep - j * sh;
            if (wr[r] < 0 || (size_t)wr[r] >= t || w < (int32_t)b2) break;
            const int32_t o = (w - bk) / (int32_t)P, base = d - o * sh;
            JT(v, d) = JT(v, base) + (double)o * slope(v, base, sh, uni, lam);
        }
    move_regs(pr, v, p, x1, (double)q, uni, lam);
    return t;
}

size_t cx_core_replay_jump_uniform(const cx_replay_prog *pr, const cx_replay_jview *v, int p,
                                   size_t b, const double *x0, int64_t extra, double *lam_out)
{
    const size_t P = pr->P, re = pr->re, n = pr->n;
    const int32_t *const wr = pr->wr, sh = pr->shift;
    const ins *const prog = pr->prog;
    double T = 0;
    for (int s = 0; s < p; s++)
        T = cx_maxd(T, cx_maxd(JR(v, s, 0), JR(v, s, 1))); /* no libm call */
    double lam = 0; /* the mean advance: ulps of rounding average out */
    for (int s = 0; s < p; s++)
        lam += JR(v, s, 0) - x0[3 * s];
    lam /= p;
    const double tolr = 1e-13 * T;
    int uni = lam > 0;
    for (int s = 0; s < p && uni; s++)
        uni = fabs(JR(v, s, 0) - x0[3 * s] - lam) <= tolr &&
              fabs(JR(v, s, 2) - x0[3 * s + 2] - lam) <= tolr &&
              (!pr->sends[s] || fabs(JR(v, s, 1) - x0[3 * s + 1] - lam) <= tolr);
    int uvok = 1; /* every live token written in the region */
    for (size_t r = b; (int64_t)r <= pr->lr[b] && r < n && uni; r++)
        if (wr[r] >= 0 && (size_t)wr[r] < b) {
            const int32_t d = prog[r].dep;
            uvok &= (size_t)wr[r] >= pr->ra;
            uni = d >= sh && fabs(JT(v, d) - JT(v, d - sh) - lam) <= tolr;
        }
    *lam_out = lam;
    size_t q = uni && (uvok || extra == 0) ? MAX_JUMP : 0;
    if (extra > 0) {
        if ((int64_t)q > extra) q = (size_t)extra;
    } else if (q > (re - b) / P)
        q = (re - b) / P;
    return q >= MIN_JUMP || (q >= 1 && extra > 0 && (int64_t)q == extra) ? q : 0;
}

size_t cx_core_replay_jump_check(const cx_replay_prog *pr, const cx_replay_jview *v, int p,
                                 size_t b2, const double *x0, const double *x1, const double *rec0,
                                 const double *rec1, size_t rst, int64_t extra)
{
    const size_t P = pr->P, re = pr->re, n = pr->n;
    const int32_t *const wr = pr->wr, sh = pr->shift;
    const ins *const prog = pr->prog;
    double T = 0;
    for (int s = 0; s < p; s++) {
        if (JR(v, s, 0) > T) T = JR(v, s, 0);
        if (JR(v, s, 1) > T) T = JR(v, s, 1);
    }
    const double tol = 1e-12 * T, tolr = 1e-13 * T;
    double K = (double)MAX_JUMP + 1;
    int ok = 1;
    for (int s = 0; s < p && ok; s++) {
        const double x2[3] = {JR(v, s, 0), JR(v, s, 1), JR(v, s, 2)};
        for (int r = 0; r < 3 && ok; r++)
            ok = fabs((x2[r] - x1[3 * s + r]) - (x1[3 * s + r] - x0[3 * s + r])) <= tolr;
    }
    const int64_t lend = pr->lr[b2];
    int vok = 1; /* every live token written in the region */
    for (size_t r = b2; (int64_t)r <= lend && r < n && ok; r++)
        if (wr[r] >= 0 && (size_t)wr[r] < b2) {
            const int32_t d = prog[r].dep;
            vok &= (size_t)wr[r] >= pr->ra;
            ok = d >= 2 * sh &&
                 fabs((JT(v, d) - JT(v, d - sh)) - (JT(v, d - sh) - JT(v, d - 2 * sh))) <= tolr;
        }
    /* operand k of instruction i of the first period at rec0[(4 i + k) rst],
     * of the second at rec1[(4 i + k) rst] */
    for (size_t i = 0; i < P && ok; i++) {
        const double *y0 = rec0 + 4 * i * rst, *y1 = rec1 + 4 * i * rst;
        ok = op_ok(y0[0], y0[rst], y1[0], y1[rst], tol, tolr, &K) &&
             (!(prog[b2 - P + i].di & SEND_BIT) ||
              op_ok(y0[2 * rst], y0[3 * rst], y1[2 * rst], y1[3 * rst], tol, tolr, &K));
    }
    size_t q = ok && K >= 2 ? (size_t)K - 1 : 0;
    if (q > MAX_JUMP) q = MAX_JUMP;
    if (extra > 0 && !vok) q = 0;
    if (extra > 0 && (int64_t)q > extra) q = (size_t)extra;
    if (extra == 0 && q > (re - b2) / P) q = (re - b2) / P;
    /* a jump of a few periods does not pay for its check (while a
     * front of winner changes crosses the stages, ~5 p periods after
     * the warm-up where the stages differ, they come every few
     * periods) */
    if (q < MIN_JUMP && !(extra > 0 && q >= 1 && (int64_t)q == extra)) q = 0;
    return q;
}

size_t cx_core_replay_jump_next_skip(size_t skip)
{
    return skip < MAX_SKIP ? 2 * skip : MAX_SKIP;
}

/* Plays the periodic region from instruction b (>= jump_scan's ra) and
 * jumps over periods where the play is affine in the period index (see
 * core/README.md, "Program jump"). After each period it first tries the
 * uniform case: the whole state X (stage free, PP free of the stages that
 * send, last end, every token written before the boundary and read after
 * it) moved by one lam > 0 (to 1e-13 of the time); max-plus homogeneity
 * then makes every later period the last + lam, with no winner change
 * ever. Else, with two periods recorded (every maximum's operands, X at
 * three boundaries): when every maximum keeps its winner over both and X
 * advanced by the same D per value over both, the period map is one affine
 * map X -> A X + c with A D = D for as long as no winner changes: K
 * periods, the first crossing of a loser with its winner, each operand
 * advancing at its own rate. It then moves on by q = min(K - 1, MAX_JUMP)
 * periods: first the *extra periods the orders lack (virtual: the orders
 * of m' stand for those of m' + extra c, periods inserted at the boundary,
 * the program goes on where it is, its microbatches relabelled), then
 * periods of the program itself (real), and checks again; a failed check
 * slides by one period, then is retried after 2, 4, ... up to MAX_SKIP
 * periods. Returns the instruction to go on from. The decisions and the
 * moves are cx_core_replay_jump_* (replay_prog_int.h), which the clock
 * lanes of virtual shapes (replay_jlanes.c) run per lane in the same
 * order, so that each lane gets this function's bits. */
static size_t jump(cx_replay_prog *pr, int p, size_t b, double p2p, int overlap, int64_t *extra)
{
    const size_t P = pr->P, re = pr->re;
    double *const rec = pr->rec;
    const cx_replay_jview
        vw = {pr->tok, 1, &pr->rg[0].free, sizeof(stage_regs) / sizeof(double), 1, NULL, 0, 0, 0},
        *const v = &vw;
    double x0[3 * CX_COST_MAX_STAGES], x1[3 * CX_COST_MAX_STAGES];
    size_t skip = 1;
    int jumped = 0;
    int have = 0; /* the period before b is recorded (rec, x0): slide on */
    while (b + (have ? 2 : 3) * P <= re) {
        if (!have) {
            cx_core_replay_jump_snap(v, p, x0);
            exec_rec(pr, b, b + P, p2p, overlap, rec);
            b += P;
            /* uniform: one shift lam over one period */
            double lam;
            const size_t q = cx_core_replay_jump_uniform(pr, v, p, b, x0, *extra, &lam);
            if (q) {
                if (*extra > 0)
                    cx_core_replay_jump_insert(pr, v, p, b, q, x0, 1, lam), *extra -= (int64_t)q;
                else
                    b = cx_core_replay_jump_skip(pr, v, p, b, q, x0, 1, lam);
                skip = 1, jumped = 1;
                continue;
            }
            if (b + 2 * P > re) break;
        }
        cx_core_replay_jump_snap(v, p, x1);
        exec_rec(pr, b, b + P, p2p, overlap, rec + 4 * P);
        const size_t b2 = b + P;
        b = b2, have = 0;
        const size_t q =
            cx_core_replay_jump_check(pr, v, p, b2, x0, x1, rec, rec + 4 * P, 1, *extra);
        if (q < 1) {
            /* not yet (a winner changing, stages settling): first one more
             * period (the last one recorded becomes the first: a winner
             * that changed in it is settled in the next), then checks
             * after twice as many periods, up to MAX_SKIP, so that failing
             * checks cost a small part of the play */
            if (skip == 1) {
                memcpy(rec, rec + 4 * P, 4 * P * sizeof *rec);
                memcpy(x0, x1, 3 * (size_t)p * sizeof *x0);
                have = 1, skip = 2;
                continue;
            }
            const size_t to = b + (skip - 1) * P;
            if (to + 3 * P > re) break;
            exec(pr, b, to, p2p, overlap);
            b = to, skip = cx_core_replay_jump_next_skip(skip);
            continue;
        }
        if (*extra > 0)
            cx_core_replay_jump_insert(pr, v, p, b2, q, x1, 0, 0.0), *extra -= (int64_t)q;
        else
            b = cx_core_replay_jump_skip(pr, v, p, b2, q, x1, 0, 0.0);
        skip = 1, jumped = 1;
    }
    pr->jumped = jumped;
    return b;
}

/* Runs the program (see the top comment) as the orders of m + extra c
 * microbatches (extra > 0: periods inserted by the jump); returns the
 * periods it could not insert (0: done). */
static int64_t run(cx_replay_prog *pr, cx_play *pl, const cx_replay_timing *tm, int64_t extra)
{
    if (extra < -1) return 0; /* compiled only (cx_core_replay_prog_compile) */
    const int p = pl->p, nvs = pl->nvs;
    double *const dur = pr->dur;
    stage_regs *const rg = pr->rg;
    for (int vs = 0; vs < nvs; vs++)
        for (int k = 0; k < 4; k++) {
            double win;
            dur[vs * 4 + k] = cx_replay_dur(&tm->vi[vs], k, &win);
        }
    dur[CX_REPLAY_NOPRE] = -0.0;
    for (int s = 0; s < p; s++)
        rg[s].free = rg[s].pp = rg[s].end = 0.0;
    pr->tok[pr->zero] = 0.0;
    const double p2p = tm->p2p_s;
    const int overlap = tm->overlap;
    size_t i = 0;
    pr->jumped = 0;
    if ((jump_on || extra > 0) && pr->jump_ok && extra >= 0) { /* < 0: plain */
        i = pr->ra;
        exec(pr, 0, i, p2p, overlap);
        i = jump(pr, p, i, p2p, overlap, &extra);
    }
    if (extra > 0) return extra;
    if (pr->renamed && pr->folded == 1)
        pr->fold_w ? exec_f(pr, p2p, overlap, 1) : exec_f(pr, p2p, overlap, 0); /* never jumps */
    else
        exec(pr, i, pr->n, p2p, overlap);
    for (int s = 0; s < p; s++) {
        double *reg = pl->regs + (size_t)s * CX_PLAY_REGS, win;
        const int di = pr->last_di[s] & ~SEND_BIT;
        reg[CX_R_FREE] = rg[s].free;
        reg[CX_R_PP_FREE] = rg[s].pp;
        reg[CX_R_LAST_END] = rg[s].end;
        cx_replay_dur(&tm->vi[di / 4], di % 4, &win);
        reg[CX_R_LAST_ITEM] = win;
    }
    return 0;
}

int cx_core_replay_prog_jumped(const cx_replay_prog *pr)
{
    return pr->have && pr->jumped;
}

/* The token slots of the program just compiled (its nslot: the live
 * tokens of a renamed program, CX_REPLAY_SLOT_STRIDE doubles each, else two
 * per cell and the zero and scratch slots), grown only now: buffers sized for what is touched. -1
 * (and no program held) when out of memory. */
static int tok_for(cx_replay_prog *pr)
{
    const size_t n = (size_t)pr->nslot * (pr->renamed ? CX_REPLAY_SLOT_STRIDE : 1);
    if (!cx_core_replay_grow((void **)&pr->tok, &pr->tok_cap, n, sizeof *pr->tok)) return 0;
    pr->have = 0;
    return -1;
}

cx_sched_sim_status cx_core_replay_prog_run_ext(cx_replay_prog *pr, cx_play *pl,
                                                const cx_replay_timing *tm, int64_t extra)
{
    if (!pl->have_order) return CX_SCHED_SIM_UNSUPPORTED;
    /* held (a renamed one serves plain plays only: the jump needs cell slots) */
    if (pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v &&
        !(pr->renamed && extra >= 0)) {
        if (!pr->scanned && extra >= 0) jump_scan(pr, pl), pr->scanned = 1;
        return run(pr, pl, tm, extra) ? CX_SCHED_SIM_UNSUPPORTED : CX_SCHED_SIM_OK;
    }
    /* plain plays and the lanes: the renamed program compiled before */
    if (extra < 0 && pl->sd->steady && cx_core_replay_held_take(pr, pl)) {
        if (tok_for(pr)) return CX_SCHED_SIM_NOMEM;
        return run(pr, pl, tm, extra) ? CX_SCHED_SIM_UNSUPPORTED : CX_SCHED_SIM_OK;
    }
    cx_core_replay_held_put(pr);
    pr->have = 0, pr->jumped = 0, pr->jump_ok = 0;
    size_t items = 0;
    for (int s = 0; s < pl->p; s++)
        items += (size_t)pl->len[s];
    const size_t ncell = (size_t)pl->m * (size_t)pl->nvs;
    const int fits =
        items <= MAX_ITEMS && pl->p <= CX_COST_MAX_STAGES && pl->nvs <= CX_COST_MAX_VSTAGES &&
        pl->nvs * 4 < (int)SEND_BIT &&
        !cx_core_replay_grow((void **)&pr->prog, &pr->prog_cap, items, sizeof *pr->prog) &&
        !cx_core_replay_prog_templates(pr, pl);
    if (!fits) {
        if (extra > 0) return CX_SCHED_SIM_UNSUPPORTED;
        return cx_sched_play_run(pl, cx_replay_step_time, (void *)tm);
    }
    /* schedules with a steady state: the level order (periodic, what the
     * jump needs), compiled without the engine and run from this call on;
     * the others: the engine's order, recorded while it plays this call
     * (every order gives the same bits) */
    int c, e;
    if (pl->sd->steady && pl->sd->steady(pl->p, pl->m, pl->v, &c, &e) &&
        !cx_core_replay_grow((void **)&pr->wl, &pr->wl_cap, 2 * ncell + 2, sizeof *pr->wl) &&
        !cx_core_replay_grow((void **)&pr->fl, &pr->fl_cap, items + 2, sizeof *pr->fl)) {
        /* plain plays and the lanes (extra < 0): the renamed form */
        const cx_sched_sim_status st =
            cx_core_replay_prog_compile_levels(pr, pl, items, c, extra < 0);
        if (st == CX_SCHED_SIM_OK) {
            if (tok_for(pr)) return CX_SCHED_SIM_NOMEM;
            if ((pr->scanned = extra >= 0)) jump_scan(pr, pl); /* a plain run: later */
            return run(pr, pl, tm, extra) ? CX_SCHED_SIM_UNSUPPORTED : CX_SCHED_SIM_OK;
        }
        if (st != CX_SCHED_SIM_UNSUPPORTED) return st;
        pr->have = 0;
    }
    if (cx_core_replay_grow((void **)&pr->seq, &pr->seq_cap, 2 * items, sizeof *pr->seq)) {
        if (extra > 0) return CX_SCHED_SIM_UNSUPPORTED;
        return cx_sched_play_run(pl, cx_replay_step_time, (void *)tm);
    }
    recorder rc = {tm, pr->seq, 0};
    cx_sched_sim_status st = cx_sched_play_run(pl, record_step, &rc);
    if (st != CX_SCHED_SIM_OK || rc.n != items) return st;
    pr->nseq = rc.n, pr->scanned = 1;
    cx_core_replay_prog_compile_seq(pr, pl);
    if (tok_for(pr)) return CX_SCHED_SIM_NOMEM;
    return extra > 0 ? CX_SCHED_SIM_UNSUPPORTED : CX_SCHED_SIM_OK;
}

int cx_core_replay_prog_ready(cx_replay_prog *pr, const cx_play *pl)
{
    if (pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v)
        return 1;
    /* as cx_core_replay_prog_run_ext takes it (extra < 0) */
    if (!pl->sd->steady || !cx_core_replay_held_take(pr, pl)) return 0;
    return !tok_for(pr);
}

cx_sched_sim_status cx_core_replay_prog_run(cx_replay_prog *pr, cx_play *pl,
                                            const cx_replay_timing *tm)
{
    return cx_core_replay_prog_run_ext(pr, pl, tm, 0);
}

int cx_core_replay_prog_code(const cx_replay_prog *pr, const cx_play *pl, cx_replay_code *code)
{
    const int fo = pr->renamed && pr->folded == 1;
    *code = (cx_replay_code){fo ? NULL : pr->prog,  pr->n,
                             2 * pl->m * pl->nvs,   pr->last_di,
                             pr->renamed,           pr->nslot,
                             fo ? pr->fold : NULL,  fo ? pr->fold_n : 0,
                             fo && pr->fold_w,      fo ? pr->fold_at : 0,
                             fo ? pr->fold_g : 0,   fo ? pr->fold_reps : 0,
                             fo ? pr->fold_part : 0};
    return pr->have && pr->sd == pl->sd && pr->p == pl->p && pr->m == pl->m && pr->v == pl->v;
}

size_t cx_core_replay_code_fins(const cx_replay_code *code, cx_replay_fins *out)
{
    size_t off[4], len[4], rep[4], n = 0;
    const size_t total = cx_replay_code_ranges(code, off, len, rep);
    for (int k = 0; k < 4; k++)
        for (size_t r = 0; r < rep[k]; r++, n += len[k])
            memcpy(out + n, code->fins + off[k], len[k] * sizeof *out);
    return total;
}
