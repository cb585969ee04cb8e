/*
 * replay_held.c — the program cache of the compiled replay program
 * (split from replay_prog.c): renamed programs (and their folded forms,
 * replay_compile.c) of shapes a program object compiled before, held
 * aside when it compiles another and taken back instead of compiled
 * again. No equations: it holds what the compiler produced, byte for byte
 * (tests/test_replay_lanes.c). Budget: the bytes of HELD_INS 12-byte
 * instructions per program object, the 16-byte forms' included (their
 * capacity; a 16-byte program's periodic region is held once, its
 * repeats recorded: replay_compile.c, cx_replay_code.fat).
 * See core/README.md, "Closed form" (Compiling and running the program).
 */
#include "core/eval/replay_prog_int.h"

#include <stdlib.h>
#include <string.h>

#define HELD_N 64
#define HELD_INS ((size_t)1 << 21)

void cx_core_replay_held_free(cx_replay_prog *pr)
{
    if (pr->held)
        for (int i = 0; i < HELD_N; i++)
            free(pr->held[i].prog), free(pr->held[i].fold);
    free(pr->held);
}

/* The program cache. A sweep's clock lanes (replay_lanes.c) and plain
 * plays compile the renamed program of a shape's orders once per run of
 * evaluations of that shape, but a sweep comes back to a shape after
 * others (bench_sweep_bench schedules zb-h1: 164 compiles of 63 shapes,
 * 11% of the instructions; zb-h2 19%): the renamed programs replaced are
 * held aside, HELD_N of them in buffers of HELD_INS instructions in all
 * (12 bytes each, 24 MiB; over it the least recently used dropped, a
 * program of more than a quarter of it not held), and taken back instead of compiled
 * (the same program: a function of the orders, which are a function of
 * (schedule, p, m, v); tests/test_replay_lanes.c compares them byte for
 * byte). Buffers move between pr and the cache, never copied (a buffer new
 * to the process costs its page faults, ~what compiling into it costs);
 * a dropped one is freed. Measured with it (same bench, 21 clocks, one
 * workspace, main 2665ae0; compiles / shapes / programs taken back):
 * zb-h1 57 / 57 / 87, zb-h2 62 / 62 / 98, zb-v 31 / 31 / 30, dualpipev
 * 34 / 34 / 31, interleaved 54 / 52 / 18: all but two compiles are a
 * shape's first (the orders likewise, replay.c's recall), so what is left
 * is the first compile of each shape (~90 instructions an item where the
 * period skip finds no period, replay_compile.c; the fill and drain an
 * earlier shape of the same (schedule, p, v) left are restored and copied,
 * replay_fill.c). Budget 2^21 instructions (was 2^20): with the plain
 * programs of m up to 2 m' played in clock lanes (replay.c, lanes_ratio)
 * the largest pushed smaller shapes' programs out (scratch timers: the m
 * = 2p shapes' batches 1.4-1.6x slower); bench_sweep_bench schedules,
 * median of 15 runs a process, 7 alternated pairs, 2^20 -> 2^21: ZB-V
 * x1.09, DualPipeV x1.05, ZB-H2 x1.02, interleaved x1.01; the schedule's
 * first run's page faults ZB-V 8.2k -> 7.3k, DualPipeV 9.8k -> 9.9k, peak
 * RSS +2-3 MB (55-58 -> 57-61 MB). An eighth of 2^20 as the largest held
 * instead was no faster across processes (ZB-H2 x0.91, interleaved x0.96;
 * alternating the two run by run in one process had shown it faster:
 * the heap one setting leaves favours the other). */

/* Drops buffers of entries other than keep while the cache is over its
 * budget (HELD_INS 12-byte instructions' bytes, the 16-byte forms'
 * included): empty entries' first, then the least recently used. */
static void held_trim(cx_replay_prog *pr, const cx_replay_held *keep)
{
    while (pr->held_ins * sizeof(ins) + pr->held_fold * sizeof(cx_replay_fins) >
           HELD_INS * sizeof(ins)) {
        cx_replay_held *x = NULL;
        for (int i = 0; i < HELD_N; i++) {
            cx_replay_held *y = &pr->held[i];
            if (y == keep || (!y->prog && !y->fold)) continue;
            if (!x || (!y->used && x->used) || (y->used && x->used && y->used < x->used)) x = y;
        }
        if (!x) return;
        pr->held_ins -= x->cap, pr->held_fold -= x->fold_cap;
        free(x->prog), free(x->fold);
        x->prog = NULL, x->cap = 0, x->used = 0, x->fold = NULL, x->fold_cap = 0, x->folded = 0;
    }
}

/* Entry e takes pr's program (renamed, of at most a quarter of the
 * budget) or, else, only its buffer (e empty); pr's buffer becomes e's
 * former one (contents e's). A buffer grown by a larger program holds the
 * program at its size (shrunk in place: its pages kept, none new), or is
 * freed. */
static void held_swap(cx_replay_prog *pr, cx_replay_held *e)
{
    ins *const buf = e->prog;
    cx_replay_fins *const fbuf = e->fold;
    const size_t cap = e->cap, fcap = e->fold_cap;
    int keep = pr->have && pr->renamed && pr->n >= 1 && pr->n <= HELD_INS / 4;
    /* its program: the 16-byte form (fins: prog unused) or prog */
    const int fins = keep && pr->folded == 1;
    if (pr->prog_cap > HELD_INS / 2 || fins) {
        /* a 16-byte program's 12-byte buffer: freed (its compile never
         * touched it, a new one costs no page faults) */
        ins *t = keep && !fins ? realloc(pr->prog, pr->n * sizeof *t) : NULL;
        if (!t) free(pr->prog);
        pr->prog = t, pr->prog_cap = t ? pr->n : 0;
        if (!fins) keep = t != NULL;
    }
    /* the 16-byte form likewise (its own budget, see held_trim) */
    if (pr->fold_cap > HELD_INS / 2) {
        cx_replay_fins *t = fins ? realloc(pr->fold, pr->fold_n * sizeof *t) : NULL;
        if (!t) free(pr->fold);
        pr->fold = t, pr->fold_cap = t ? pr->fold_n : 0;
        if (fins) keep = t != NULL;
    }
    pr->folded = keep && fins;
    pr->held_ins += pr->prog_cap - cap, pr->held_fold += pr->fold_cap - fcap;
    e->prog = pr->prog, e->cap = pr->prog_cap, e->used = 0;
    e->fold = pr->fold, e->fold_cap = pr->fold_cap, e->folded = 0;
    if (keep) {
        e->sd = pr->sd, e->p = pr->p, e->m = pr->m, e->v = pr->v;
        e->n = pr->n, e->skipped = pr->skipped, e->nslot = pr->nslot;
        e->folded = pr->folded, e->fold_n = pr->fold_n, e->fold_w = pr->fold_w;
        e->fold_at = pr->fold_at, e->fold_g = pr->fold_g, e->fold_reps = pr->fold_reps;
        e->fold_part = pr->fold_part;
        e->used = ++pr->held_clock;
        memcpy(e->last_di, pr->last_di, (size_t)pr->p * sizeof *e->last_di);
    }
    pr->prog = buf, pr->prog_cap = cap, pr->have = 0;
    pr->fold = fbuf, pr->fold_cap = fcap, pr->folded = 0;
}

/* Before a compile: pr's renamed program (if it holds one, of at most a
 * quarter of the budget) into an empty or the least recently used entry,
 * pr taking that entry's buffer. */
void cx_core_replay_held_put(cx_replay_prog *pr)
{
    if (!pr->have || !pr->renamed || pr->n < 1 || pr->n > HELD_INS / 4) return;
    if (!pr->held && !(pr->held = calloc(HELD_N, sizeof *pr->held))) return;
    cx_replay_held *e = &pr->held[0];
    for (int i = 1; i < HELD_N && e->used; i++)
        if (!pr->held[i].used || pr->held[i].used < e->used) e = &pr->held[i];
    held_swap(pr, e);
    held_trim(pr, e);
}

/* 1 when the cache holds the renamed program of pl's orders: then pr
 * holds it, its own (if renamed) held in its place. */
int cx_core_replay_held_take(cx_replay_prog *pr, const cx_play *pl)
{
    if (!pr->held) return 0;
    cx_replay_held *e = NULL;
    for (int i = 0; i < HELD_N && !e; i++) {
        cx_replay_held *x = &pr->held[i];
        if (x->used && x->sd == pl->sd && x->p == pl->p && x->m == pl->m && x->v == pl->v) e = x;
    }
    if (!e) return 0;
    const size_t n = e->n, skipped = e->skipped, fold_n = e->fold_n, fold_at = e->fold_at,
                 fold_g = e->fold_g, fold_reps = e->fold_reps, fold_part = e->fold_part;
    const int32_t nslot = e->nslot;
    const int folded = e->folded, fold_w = e->fold_w;
    uint16_t last_di[CX_COST_MAX_STAGES];
    memcpy(last_di, e->last_di, (size_t)pl->p * sizeof *last_di);
    held_swap(pr, e);
    held_trim(pr, e);
    pr->n = n, pr->skipped = skipped, pr->nslot = nslot, pr->zero = 0, pr->renamed = 1;
    pr->folded = folded, pr->fold_n = fold_n, pr->fold_w = fold_w;
    pr->fold_at = fold_at, pr->fold_g = fold_g, pr->fold_reps = fold_reps;
    pr->fold_part = fold_part;
    pr->P = 0;
    memcpy(pr->last_di, last_di, (size_t)pl->p * sizeof *pr->last_di);
    pr->sd = pl->sd, pr->p = pl->p, pr->m = pl->m, pr->v = pl->v;
    pr->have = 1, pr->scanned = 0, pr->jump_ok = 0, pr->jumped = 0;
    pr->taken++;
    return 1;
}

size_t cx_core_replay_prog_taken(const cx_replay_prog *pr)
{
    return pr->taken;
}
