/*
 * replay_v_sweep.c — the replay (replay_step.h timing rule, blocking p2p)
 * of schedules whose per-stage orders are runs of repeated cycles (ZB-V,
 * DualPipeV: schedules/zb_v.c, dualpipev.c) evaluated exactly at a cost
 * independent of m, for any per-stage costs; issue 13.
 * Long file: the run form (compression, affine check), the function
 * cursors, the stage evaluation, the sweep and its memo share one
 * representation (the structs below) that no other file reads.
 *
 * Run form. Each stage's order is compressed into RUNS: a cycle of K items
 * (kind, chunk, first microbatch a_i, step δ_i) repeated n times, item i of
 * repetition k being microbatch a_i + δ_i k (W items: kind and chunk only,
 * their microbatch does not matter, below). Greedy: at each position the
 * cycle length K <= 8 that covers the most items. The orders of m_a and
 * m_a + 1 microbatches (m_a = max(the schedule's least m, 2p) + 3) give the same
 * runs with counts and first microbatches affine in m; the form is checked
 * item by item against the generated orders of m_a + 2 and m_a + 7, and
 * used for m >= m_a. Computed once per (schedule, p, v) and kept. Nothing
 * here is V-specific: GPipe, 1F1B, ZB-H1 and ZB-H2 compress and are
 * answered too (tests), interleaved's cycles are too long (declined).
 *
 * Timing. With blocking sends an item that sends acts as one of duration
 * d' = d + P (the stream is never busy when the next send starts), so every
 * item ends at t = max(t_prev, dep) + d', t being also its output token.
 * A dependency on an item of the same stage is implied by the stage's
 * order (the item is earlier, else the orders deadlock), and W waits only
 * on its own B: only dependencies across stages (F from the virtual stage
 * below, B / BW from the one above) enter. One run, with e(k) the end of
 * repetition k, C = Σ d'_i, S_i = Σ_{j>=i} d'_j:
 *   e(k) = max(e(k−1) + C, G(k)),  G(k) = max_i (dep_i(k) + S_i)  (a ride),
 *   t_i(k) = max(e(k−1) + Σ_{j<=i} d'_j, H_i(k)),
 *   H_i = max(H_{i−1} + d'_i, dep_i + d'_i)  (the cycle's part from i' <= i).
 * Each (stage, F or backward, chunk) that another stage reads is held as a
 * piecewise-linear function of the microbatch on the integers (segments:
 * first microbatch, value there, slope), built run by run in microbatch
 * order; dep_i(k) reads a neighbour's function at a_i + δ_i k. The
 * primitives (a segment appended with staircase merging, the maximum of
 * two lines on a range) are replay_pl.h's, shared with replay_zb_sweep.c;
 * the ride and the cursors are this file's own. A run whose outputs are
 * one item of their class a cycle and with at most 3 items reading
 * another stage is evaluated in one pass over pieces of k on which every
 * dependency is a line and every maximum keeps its winner (run_pieces);
 * others build H_i and e as functions first (vmax, ride). A stage costs
 * O(its runs × their segments), whatever m.
 *
 * Sweep. Stages read both neighbours, so they are swept alternately up and
 * down, a stage recomputed when a neighbour's functions changed, from no
 * input (−∞): every value is a real path, never more than the replay. A
 * stage whose sources changed is recomputed from its first run that reads
 * a value that can move its item (first_above): one that differs, to
 * 1e-13 relative, from the function the held functions were computed from
 * AND does not stay below what its reading item ends at (dep + d' <= t,
 * d' the longest such item; values only rise, so a value below leaves its
 * item where it was) — the runs before taken from the held evaluation (the
 * chain and each function's segments as they stood at that run); no such
 * value: nothing in it can change, not recomputed. A change that comes
 * back down the V touches only the cooldown runs. (Session 25: was two
 * tests, below on every microbatch else resume from the first value that
 * differs; one pointwise test resumes later: ZB-V 470.2 → 462.6·10⁶
 * instructions, DualPipeV 479.1 → 465.2·10⁶, 2.9 → 2.7 stage evaluations
 * a stage in the DualPipeV test.) The function a stage read is noted, not
 * copied: when its source replaces it, the displaced buffer is swapped to
 * the reader (a copy only where a function had two readers, which no
 * schedule here has). Every choice reads this sweep's own state only
 * (bits independent of earlier calls).
 * The first sweep (up) builds only the functions stages above read, and
 * every stage is evaluated again in the second. Runs of at most 12 items
 * are played item by item (cheaper than their functions). The certificate: a sweep in
 * which no stage is recomputed (a recomputed stage whose functions stay
 * within 1e-13 relative is unchanged) — then the functions satisfy every
 * recurrence above, and the recurrence (a DAG) has one solution: the
 * replay's (whatever the start; from no input the values only rise, which
 * the skip above needs; starting a clock batch's point from its evaluated
 * neighbours' functions took more evaluations, core/README.md, "Clock
 * segments", session 25). Bounds (else 0, the caller replays): 64
 * segments a function, 40 sweeps. Typically up, down, then the checks
 * (2–3 stage evaluations a stage of ~13 runs, ~1.3 µs each on
 * megatron-1t). Results: free = the end
 * of the stage's last run, last end = free (− P when the last item sends),
 * last item its DP-overlap window. Held to the full replay by
 * tests/test_replay_v_sweep.c; measured in core/README.md, "ZB-V and
 * DualPipeV swept".
 *
 * Derivatives (session 26). Along a line of time keys (a clock batch's
 * run: cx_core_replay_v_sweep_d, dkey its direction) every duration is
 * affine, so every value, the length of a real path, has a derivative:
 * each segment carries one for its value at x and its slope (dv, dk: a
 * line in the microbatch too, the same path family on the segment), the
 * winner's at every maximum (ties: either, each a real path), durations'
 * from dkey (cx_replay_vsinfo_of_key is linear). The values are computed
 * as before (the same bits); where a merge of segments (vpush: staircase,
 * extension) joins values whose derivatives differ by more than 1e-12 of
 * (|value| + |derivative|) (their own rounding: sums over ~10^3 items)
 * the sweep reports no derivatives (dbad; none in the bench, 10% of the
 * test's draws, mostly its all-equal ones). Held functions keep the
 * derivatives of the paths they were computed from, valid whatever later
 * sweeps skip (values only rise, a held value is a real path). Cost: ~16%
 * a sweep (callgrind, the same 76 sweeps with derivatives: ZB-V 422.8 ->
 * 445.2 x 10^6 instructions); it pays through fewer sweeps a batch
 * (replay_clocks.c, tangents). A sweep without a direction runs the
 * same stage body with the derivatives compiled out (stage_nd, flag D):
 * below its cost before them (single-clock culonx sweep 5,430 -> 5,274 x
 * 10^6 instructions, callgrind, core/README.md). Where a sweep's work
 * goes (session 25, bench_sweep_bench schedules zb-v, 21 clocks): the
 * first two sweeps (up, down: every stage in full) are 134k of the 151k
 * runs evaluated; the rest resume.
 */
#include "core/eval/replay_v_sweep.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_pl.h"
#include "schedules/play.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    NSEG = CX_PL_NSEG,  /* segments a function */
    KMAX = 8,           /* cycle length */
    MAX_SWEEPS = 40,    /* sweeps before declining */
    MAX_NCH = 2,        /* chunks a stage */
    NCLS = 2 * MAX_NCH, /* functions a stage: F and backward of each chunk */
    MAX_SRC = 2,        /* stages a stage reads */
    NMEMO = 16,         /* latest answers kept */
    MKEY = 64,
    NSCALAR = 12, /* runs of at most this many items: item by item (measured: 8 / 12 / 16 / 24,
                     callgrind, core/README.md) */
    NFORM = 8     /* run forms kept (schedule, p, v) */
};

typedef struct {
    uint8_t kind, chunk;
    int8_t out;     /* function written (class), -1 none */
    int8_t src;     /* index of the stage read in the stage's sources, -1 none */
    int8_t src_cls; /* the function read there */
    int8_t q, j;    /* out: q items of its class in the cycle, this the j-th */
    int vs, step;   /* virtual stage; microbatch step a repetition (0: W) */
    int a0, da;     /* first microbatch at m_a, its change a microbatch of m */
} vitem;

typedef struct {
    int K, n0, dn, item0;
    int qmask;            /* classes written by q > 1 items of the cycle */
    int8_t ndep[MAX_SRC]; /* items reading each source */
} vrun;

typedef struct {
    int run0, nrun;
    int nsrc, src[MAX_SRC];
    int need;   /* classes built: read by another stage, or reading one (bit mask) */
    int upmask; /* of which those a stage above reads */
    /* the classes of this stage that read another's: source index, own
     * class, the class read, the kinds reading (bit mask) */
    int nread;
    struct {
        int8_t src, cls, src_cls, kinds;
        double dmax; /* the longest of those items (per call) */
    } read[NCLS];
    int last;          /* the stage's last item (index into items) */
    int lastrun[NCLS]; /* one past the last run writing each class */
} vstage;

typedef struct {
    int used, ok, nkey, p, m, v;
    const cx_sched_desc *sd;
    uint64_t hash;
    int dok; /* derivatives along dkey held */
    double key[MKEY], dkey[MKEY], makespan_s, dmakespan_s;
} v_memo;

/* the run form of (sd, p, v); ok: usable */
typedef struct {
    const cx_sched_desc *sd;
    int p, v, nch, ma, ok, have;
    vrun *runs;
    vitem *items;
    int nruns, nitems, cap_runs, cap_items;
    vstage *st;
    int cap_st;
    int *stage_of, *vs_of, *chunk_of;
    uint8_t *send_f, *send_b;
    int cap_vs;
} vform;

/* replay_pl.h's function of the microbatch, each segment also carrying
 * the derivative of its values along the clock batch's key line (dv at
 * x[i], dk its change a microbatch): the derivative, at that point of the
 * line, of the length of a path whose length the value is (the winner of
 * every maximum; ties: either). */
typedef struct {
    int n;
    int x[NSEG + 1];
    double v[NSEG], k[NSEG], dv[NSEG], dk[NSEG];
} vpl;

/* a function being built; over: more than NSEG segments; dbad: a merge
 * joined values on one line whose derivatives are not (the derivatives
 * then describe no path: the sweep reports none) */
typedef struct {
    vpl *f;
    int over, dbad, xe; /* xe: one past the last x of the function */
} vbld;

/* a stage evaluation's state at the start of a run: the chain and, per
 * class built, the next microbatch, the segment count and the last two
 * segments (the only ones a later push may change) */
typedef struct {
    double chain, dchain;
    int next[NCLS], n[NCLS], x[NCLS][2];
    double v[NCLS][2], k[NCLS][2], dv[NCLS][2], dk[NCLS][2];
} vrstate;

struct cx_v_sweep_ws {
    vform form[NFORM], *f; /* the latest shapes' forms, the one in use */
    int fnext;
    cx_play *pl;
    /* the sweep */
    vpl *pool;      /* p NCLS + NCLS + KMAX + 2 */
    vpl **fn, **nf; /* [s NCLS + cls], the spare [cls] */
    vpl *tmp;       /* KMAX + 2 */
    int cap_fn;
    int *ver, *usedv, *part; /* [p], [p MAX_SRC], [p]: last evaluated in part */
    double *free_s, *dtab;   /* [p]; [4 nvs]: durations F', B', BW', W by kind */
    double *idur, *didur;    /* [form's items]: each item's d', its derivative */
    int cap_idur;
    /* derivatives along the batch's key line (zero without one): of the
     * durations [4 nvs] and each stage's free time [p]; dbad: a merge
     * joined values whose derivatives differ (vpush) */
    double *ddtab, *dfree;
    int dbad, withd; /* withd: a direction given (stage_d), else stage_nd */
    cx_replay_vsinfo *vi;
    int evals, sweeps, segs, checks;
    /* resuming: the run states of each stage's functions held (rst) and of
     * the evaluation running (rtmp), by run, in two buffers: stage s's rst
     * in rsbuf[rsw[s]] (a kept full evaluation swaps them: no copy; fast-
     * only zb-v memmove samples -30%, perf); the source functions each
     * stage's held functions were computed from ([s NCLS + read]: ucp, in
     * ucst 0 none, 1 the source's current function itself, 2 held in
     * *ucp: the buffer the source's new function displaced, swapped in,
     * or a copy where a function has more than one reader); rdr: the one
     * reader [s NCLS + read] of each [src NCLS + class], −1 none, −2 more */
    vrstate *rsbuf[2];
    uint8_t rsw[CX_COST_MAX_STAGES];
    int cap_rs;
    vpl *ucbuf, **ucp;
    int *rdr;
    uint8_t *ucst;
    int cap_ucp;
    /* memo */
    v_memo memo[NMEMO];
    int mnext, mlast, mcap;
    double *mfree;
    int16_t *mcls;
    cx_replay last, dlast;
};

cx_v_sweep_ws *cx_core_v_sweep_ws_new(void)
{
    return calloc(1, sizeof(cx_v_sweep_ws));
}

void cx_core_v_sweep_ws_free(cx_v_sweep_ws *ws)
{
    if (!ws) return;
    for (int i = 0; i < NFORM; i++) {
        vform *f = &ws->form[i];
        free(f->runs), free(f->items), free(f->st), free(f->stage_of), free(f->send_f);
    }
    cx_sched_play_free(ws->pl);
    free(ws->pool), free(ws->fn), free(ws->ver), free(ws->free_s), free(ws->vi);
    free(ws->mfree), free(ws->mcls);
    free(ws->rsbuf[0]), free(ws->ucbuf), free(ws->idur), free(ws->ddtab);
    free(ws);
}

void cx_core_v_sweep_stats(const cx_v_sweep_ws *ws, int *evals, int *sweeps, int *segs)
{
    *evals = ws->evals, *sweeps = ws->sweeps, *segs = ws->segs;
}

/* ---- the run form ---- */

static int grow(void **p, int *cap, int want, size_t sz)
{
    if (want <= *cap) return 1;
    int nc = *cap ? *cap : 64;
    while (nc < want)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * sz);
    if (!q) return 0;
    *p = q, *cap = nc;
    return 1;
}

static int same_label(const cx_sched_item *a, const cx_sched_item *b)
{
    return a->kind == b->kind && a->chunk == b->chunk;
}

/* The runs of one order into runs / items appended at *nr / *ni (first
 * microbatch in a0, da 0): greedy, the longest cover first. 0 on memory.
 * Cycle length K repeats from i up to the first item j that is not item
 * j - K moved by its step (the same label; a step d_t = mb(i + K + t) -
 * mb(i + t) >= 1, t = (j - i) mod K, except for W), e[K] (or n): cnt =
 * (e[K] - i) / K whole cycles. Where K is a multiple of K' < K, every item
 * before e[K'] passes K's test too (K' cycles chained, their steps summed:
 * d_t = (K / K') d'_t), so K's scan starts at e[K'] (the same runs;
 * callgrind, fast-only bench schedules zb-v: compress 8.3M -> 4.0M). */
static int compress(cx_v_sweep_ws *ws, const cx_sched_item *ord, int n)
{
    for (int i = 0; i < n;) {
        int bk = 1, bn = 1, e[KMAX + 1];
        for (int K = 1; K <= KMAX && i + 2 * K <= n; K++) {
            int j = i + K;
            for (int K1 = 1; K1 < K; K1++)
                if (K % K1 == 0 && e[K1] > j) j = e[K1];
            for (int t = (j - i) % K; j < n; j++, t = t + 1 == K ? 0 : t + 1) {
                const cx_sched_item *a = &ord[j - K], *b = &ord[j];
                if (!same_label(a, b)) break;
                if (a->kind != CX_WORK_W) {
                    const int d = ord[i + K + t].mb - ord[i + t].mb;
                    if (d < 1 || b->mb - a->mb != d) break;
                }
            }
            e[K] = j;
            const int cnt = (j - i) / K;
            if (cnt >= 2 && cnt * K > bn * bk) bk = K, bn = cnt;
        }
        if (!grow((void **)&ws->f->runs, &ws->f->cap_runs, ws->f->nruns + 1, sizeof(vrun)) ||
            !grow((void **)&ws->f->items, &ws->f->cap_items, ws->f->nitems + bk, sizeof(vitem)))
            return 0;
        vrun *r = &ws->f->runs[ws->f->nruns++];
        r->K = bk, r->n0 = bn, r->dn = 0, r->item0 = ws->f->nitems;
        for (int t = 0; t < bk; t++) {
            const cx_sched_item *a = &ord[i + t];
            vitem *it = &ws->f->items[ws->f->nitems++];
            memset(it, 0, sizeof *it);
            it->kind = a->kind, it->chunk = a->chunk;
            it->step = a->kind == CX_WORK_W ? 0 : bn >= 2 ? ord[i + bk + t].mb - a->mb : 1;
            it->a0 = a->kind == CX_WORK_W ? 0 : a->mb;
        }
        i += bk * bn;
    }
    return 1;
}

/* 1 if the run form gives the held orders of pl (m microbatches) */
static int form_matches(const cx_v_sweep_ws *ws, const cx_play *pl, int m)
{
    const int dm = m - ws->f->ma;
    for (int s = 0; s < ws->f->p; s++) {
        int n, pos = 0;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
        const vstage *st = &ws->f->st[s];
        for (int r = st->run0; r < st->run0 + st->nrun; r++) {
            const vrun *ru = &ws->f->runs[r];
            const int cnt = ru->n0 + ru->dn * dm;
            if (cnt < 0 || pos + cnt * ru->K > n) return 0;
            for (int k = 0; k < cnt; k++)
                for (int t = 0; t < ru->K; t++, pos++) {
                    const vitem *it = &ws->f->items[ru->item0 + t];
                    const cx_sched_item *o = &ord[pos];
                    if (o->kind != it->kind || o->chunk != it->chunk) return 0;
                    if (it->kind != CX_WORK_W && o->mb != it->a0 + it->da * dm + it->step * k)
                        return 0;
                }
        }
        if (pos != n) return 0;
    }
    return 1;
}

/* Builds the run form of (sd, p, v) into ws; ws->f->ok 1 when usable. */
static void build_form(cx_v_sweep_ws *ws, const cx_sched_desc *sd, int p, int v)
{
    ws->f->sd = sd, ws->f->p = p, ws->f->v = v, ws->f->ok = 0, ws->f->have = 1;
    ws->f->nruns = ws->f->nitems = 0;
    const int nch = sd->chunks(v), nvs = p * nch;
    ws->f->nch = nch;
    if (nch < 1 || nch > MAX_NCH || p < 2) return;
    if (!ws->pl && !(ws->pl = cx_sched_play_new())) return;
    int64_t lo = sd->min_microbatches ? sd->min_microbatches(p, v) : 1;
    if (lo < 1) lo = 1;
    if (lo > 1 << 20) return;
    /* from 2p on the orders of the schedules here have all their phases */
    if (lo < 2 * (int64_t)p) lo = 2 * (int64_t)p;
    ws->f->ma = (int)lo + 3;
    if (!grow((void **)&ws->f->st, &ws->f->cap_st, p, sizeof(vstage))) return;
    if (ws->f->cap_vs < nvs) {
        free(ws->f->stage_of), free(ws->f->send_f);
        ws->f->cap_vs = 0;
        ws->f->stage_of = malloc(sizeof(int) * 3 * (size_t)nvs);
        ws->f->send_f = malloc(2 * (size_t)nvs);
        if (!ws->f->stage_of || !ws->f->send_f) return;
        ws->f->cap_vs = nvs;
    }
    ws->f->vs_of = ws->f->stage_of + nvs, ws->f->chunk_of = ws->f->vs_of + nvs;
    ws->f->send_b = ws->f->send_f + nvs;
    /* the orders of m_a and m_a + 1: the same runs, counts and first
     * microbatches affine in m */
    cx_play *pl = ws->pl;
    if (cx_sched_play_orders(pl, sd, p, ws->f->ma, v, 0) != CX_SCHED_SIM_OK) return;
    for (int k = 0; k < nvs; k++) {
        ws->f->stage_of[k] = pl->stage_of[k], ws->f->vs_of[k] = pl->vs_of[k];
        ws->f->send_f[k] = pl->send_f[k], ws->f->send_b[k] = pl->send_b[k];
    }
    for (int s = 0; s < p; s++)
        for (int ch = 0; ch < nch; ch++)
            ws->f->chunk_of[ws->f->vs_of[s * nch + ch]] = ch;
    for (int s = 0; s < p; s++) {
        int n;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
        ws->f->st[s].run0 = ws->f->nruns;
        if (n < 1 || !compress(ws, ord, n)) return;
        ws->f->st[s].nrun = ws->f->nruns - ws->f->st[s].run0;
    }
    const int nruns = ws->f->nruns, nitems = ws->f->nitems;
    if (cx_sched_play_orders(pl, sd, p, ws->f->ma + 1, v, 0) != CX_SCHED_SIM_OK) return;
    for (int s = 0; s < p; s++) {
        int n;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
        const int r0 = ws->f->nruns;
        if (!compress(ws, ord, n) || ws->f->nruns - r0 != ws->f->st[s].nrun) return;
        for (int r = 0; r < ws->f->st[s].nrun; r++) {
            vrun *a = &ws->f->runs[ws->f->st[s].run0 + r];
            const vrun *b = &ws->f->runs[r0 + r];
            if (a->K != b->K) return;
            a->dn = b->n0 - a->n0;
            for (int t = 0; t < a->K; t++) {
                vitem *x = &ws->f->items[a->item0 + t];
                const vitem *y = &ws->f->items[b->item0 + t];
                if (x->kind != y->kind || x->chunk != y->chunk || x->step != y->step) return;
                x->da = y->a0 - x->a0;
            }
        }
    }
    ws->f->nruns = nruns, ws->f->nitems = nitems;
    /* dependencies across stages, the functions read, the last items */
    for (int s = 0; s < p; s++)
        ws->f->st[s].need = ws->f->st[s].upmask = 0, ws->f->st[s].nsrc = 0, ws->f->st[s].nread = 0;
    for (int s = 0; s < p; s++) {
        vstage *st = &ws->f->st[s];
        for (int r = st->run0; r < st->run0 + st->nrun; r++)
            for (int t = 0; t < ws->f->runs[r].K; t++) {
                vitem *it = &ws->f->items[ws->f->runs[r].item0 + t];
                const int vs = ws->f->vs_of[s * nch + it->chunk];
                it->vs = vs, it->out = -1, it->src = -1;
                int from = -1, cls = 0;
                if (it->kind == CX_WORK_F && vs > 0)
                    from = vs - 1, cls = 0;
                else if ((it->kind == CX_WORK_B || it->kind == CX_WORK_BW) && vs + 1 < nvs)
                    from = vs + 1, cls = 1;
                if (from < 0 || ws->f->stage_of[from] == s) continue;
                const int fs = ws->f->stage_of[from];
                int j = 0;
                while (j < st->nsrc && st->src[j] != fs)
                    j++;
                if (j == st->nsrc) {
                    if (st->nsrc == MAX_SRC) return;
                    st->src[st->nsrc++] = fs;
                }
                it->src = (int8_t)j;
                it->src_cls = (int8_t)(cls * nch + ws->f->chunk_of[from]);
                ws->f->st[fs].need |= 1 << it->src_cls;
                if (s > fs) ws->f->st[fs].upmask |= 1 << it->src_cls;
                /* built too, for the check that a changed source stays below */
                const int own = cls * nch + it->chunk;
                st->need |= 1 << own;
                int q = 0;
                while (q < st->nread && st->read[q].cls != own)
                    q++;
                if (q == st->nread) {
                    st->read[q].src = (int8_t)j, st->read[q].cls = (int8_t)own;
                    st->read[q].src_cls = it->src_cls, st->read[q].kinds = 0;
                    st->nread++;
                }
                if (st->read[q].src != j || st->read[q].src_cls != it->src_cls) return;
                st->read[q].kinds |= (int8_t)(1 << it->kind);
            }
        st->last =
            ws->f->runs[st->run0 + st->nrun - 1].item0 + ws->f->runs[st->run0 + st->nrun - 1].K - 1;
    }
    /* the functions written: a class's items of a cycle take consecutive
     * microbatches (q of them, step q), so that each function is built in
     * microbatch order */
    for (int s = 0; s < p; s++) {
        const vstage *st = &ws->f->st[s];
        for (int r = st->run0; r < st->run0 + st->nrun; r++) {
            const vrun *ru = &ws->f->runs[r];
            for (int t = 0; t < ru->K; t++) {
                vitem *it = &ws->f->items[ru->item0 + t];
                if (it->kind == CX_WORK_W) continue;
                const int cls = (it->kind == CX_WORK_F ? 0 : 1) * nch + it->chunk;
                if (!(st->need >> cls & 1)) continue;
                int q = 0, j = 0;
                for (int u = 0; u < ru->K; u++) {
                    const vitem *o = &ws->f->items[ru->item0 + u];
                    if (o->kind == CX_WORK_W || o->chunk != it->chunk ||
                        (o->kind == CX_WORK_F) != (it->kind == CX_WORK_F))
                        continue;
                    if (u < t) j++;
                    q++;
                }
                it->out = (int8_t)cls, it->q = (int8_t)q, it->j = (int8_t)j;
            }
            /* consecutive: the j-th of a class at the first's a + j, all step q */
            for (int t = 0; t < ru->K; t++) {
                const vitem *it = &ws->f->items[ru->item0 + t];
                if (it->out < 0) continue;
                if (it->step != it->q && (ru->n0 >= 2 || ru->dn > 0)) return;
                for (int u = 0; u < t; u++) {
                    const vitem *o = &ws->f->items[ru->item0 + u];
                    if (o->out == it->out && o->j == 0 &&
                        (it->a0 != o->a0 + it->j || it->da != o->da))
                        return;
                }
            }
        }
    }
    for (int s = 0; s < p; s++) {
        vstage *st = &ws->f->st[s];
        for (int c = 0; c < NCLS; c++)
            st->lastrun[c] = 0;
        for (int r = 0; r < st->nrun; r++) {
            const vrun *ru = &ws->f->runs[st->run0 + r];
            for (int t = 0; t < ru->K; t++)
                if (ws->f->items[ru->item0 + t].out >= 0)
                    st->lastrun[(int)ws->f->items[ru->item0 + t].out] = r + 1;
        }
    }
    for (int r = 0; r < ws->f->nruns; r++) {
        vrun *ru = &ws->f->runs[r];
        ru->qmask = 0, ru->ndep[0] = ru->ndep[1] = 0;
        for (int t = 0; t < ru->K; t++) {
            const vitem *it = &ws->f->items[ru->item0 + t];
            if (it->out >= 0 && it->q > 1) ru->qmask |= 1 << it->out;
            if (it->src >= 0) ru->ndep[(int)it->src]++;
        }
    }
    /* checked on two more microbatch counts */
    if (cx_sched_play_orders(pl, sd, p, ws->f->ma + 2, v, 0) != CX_SCHED_SIM_OK ||
        !form_matches(ws, pl, ws->f->ma + 2))
        return;
    if (cx_sched_play_orders(pl, sd, p, ws->f->ma + 7, v, 0) != CX_SCHED_SIM_OK ||
        !form_matches(ws, pl, ws->f->ma + 7))
        return;
    ws->f->ok = 1;
}

/* ---- piecewise-linear functions with their λ-derivatives ---- */

/* derivatives a and b equal for the merge of values of size about v: to
 * 1e-13 relative (a segment's derivative line is rounded like its values'
 * line, whose merge tolerance is 2e-14; replay_clocks.c certifies to
 * 1e-12) */
static inline int dsame(double a, double b, double v)
{
    return a == b || fabs(a - b) <= 1e-12 * (fabs(v) + fabs(a));
}

/* cx_pl_push with derivatives: the same merges of the values (the same
 * bits), dbad where the derivatives do not merge with them. D (a constant
 * where inlined): 0 leaves dv, dk unwritten and unread (a sweep without a
 * direction: stage_nd) */
__attribute__((always_inline)) static inline void vpush(vbld *o, int x, double v, double k,
                                                        double dv, double dk, const int D)
{
    vpl *f = o->f;
    if (f->n >= 2 && f->x[f->n - 1] == x - 1) {
        const int i = f->n - 2;
        const double pv = f->v[i + 1], dpv = D ? f->dv[i + 1] : 0;
        if (f->x[i] == x - 2) {
            f->k[i] = pv - f->v[i];
            if (D) f->dk[i] = dpv - f->dv[i];
        }
        const double e = f->v[i] + f->k[i] * (double)(x - 1 - f->x[i]);
        if (e == pv || fabs(e - pv) <= 2e-14 * fabs(pv)) {
            if (D && !dsame(f->dv[i] + f->dk[i] * (double)(x - 1 - f->x[i]), dpv, pv)) {
                o->dbad = 1;
            }
            f->n--;
        }
    }
    if (f->n) {
        const int i = f->n - 1;
        if (f->k[i] == k) {
            const double e = f->v[i] + k * (double)(x - f->x[i]);
            if (e == v || fabs(e - v) <= 2e-14 * fabs(v)) {
                if (D && (!dsame(f->dv[i] + f->dk[i] * (double)(x - f->x[i]), dv, v) ||
                          !dsame(f->dk[i] * (double)(o->xe - x), dk * (double)(o->xe - x), v))) {
                    o->dbad = 1;
                }
                return;
            }
        }
    }
    if (f->n == NSEG) {
        o->over = 1;
        return;
    }
    f->x[f->n] = x, f->v[f->n] = v, f->k[f->n] = k;
    if (D) f->dv[f->n] = dv, f->dk[f->n] = dk;
    f->n++;
}

static inline double vlast_at(const vpl *f, int x)
{
    const int i = f->n - 1;
    return f->v[i] + f->k[i] * (double)(x - f->x[i]);
}

static inline double dlast_at(const vpl *f, int x)
{
    const int i = f->n - 1;
    return f->dv[i] + f->dk[i] * (double)(x - f->x[i]);
}

/* cx_pl_max2 with derivatives (the winner's) */
__attribute__((always_inline)) static inline void vmax2(vbld *o, int lo, int hi, double va,
                                                        double ka, double dva, double dka,
                                                        double vb, double kb, double dvb,
                                                        double dkb, const int D)
{
    if (vb == -HUGE_VAL) {
        if (va == -HUGE_VAL)
            vpush(o, lo, va, 0, 0, 0, D);
        else
            vpush(o, lo, va, ka, dva, dka, D);
        return;
    }
    if (va == -HUGE_VAL) {
        vpush(o, lo, vb, kb, dvb, dkb, D);
        return;
    }
    int x = lo;
    const int win = cx_pl_max2_case(lo, hi, va, ka, vb, kb, &x);
    const double w = (double)(x - lo);
    if (win == 1) {
        vpush(o, lo, va, ka, dva, dka, D);
    } else if (win == 2) {
        vpush(o, lo, vb, kb, dvb, dkb, D);
    } else if (win == 3) {
        vpush(o, lo, va, ka, dva, dka, D);
        vpush(o, x, vb + kb * w, kb, dvb + dkb * w, dkb, D);
    } else {
        vpush(o, lo, vb, kb, dvb, dkb, D);
        vpush(o, x, va + ka * w, ka, dva + dka * w, dka, D);
    }
}

/* a cursor reading f(a + d k) + add at increasing k (dadd: add's
 * derivative) */
typedef struct {
    const vpl *f;
    int i, a, d;
    double add, dadd;
} vcur;

/* line at k (value, slope in k); returns the last k of its segment */
static inline int at(vcur *c, int k, double *v, double *sl)
{
    const vpl *f = c->f;
    const int t = c->a + c->d * k;
    while (f->x[c->i + 1] <= t)
        c->i++;
    *sl = f->k[c->i] * (double)c->d;
    *v = f->v[c->i] + f->k[c->i] * (double)(t - f->x[c->i]) + c->add;
    return c->d == 1 ? f->x[c->i + 1] - 1 - c->a : (f->x[c->i + 1] - 1 - c->a) / c->d;
}

/* at, with the derivatives of the value and of the slope (D 0: zero) */
__attribute__((always_inline)) static inline int atd(vcur *c, int k, double *v, double *sl,
                                                     double *dv, double *dsl, const int D)
{
    const vpl *f = c->f;
    const int t = c->a + c->d * k;
    while (f->x[c->i + 1] <= t)
        c->i++;
    const double w = (double)(t - f->x[c->i]);
    *sl = f->k[c->i] * (double)c->d, *dsl = D ? f->dk[c->i] * (double)c->d : 0;
    *v = f->v[c->i] + f->k[c->i] * w + c->add;
    *dv = D ? f->dv[c->i] + f->dk[c->i] * w + c->dadd : 0;
    return c->d == 1 ? f->x[c->i + 1] - 1 - c->a : (f->x[c->i + 1] - 1 - c->a) / c->d;
}

/* o (from x offset xo) = max(A(k), B(k)) for lo <= k < hi; a cursor with
 * f NULL or empty is none */
__attribute__((always_inline)) static inline void vmax(vbld *o, int xo, int lo, int hi, vcur *A,
                                                       vcur *B, const int D)
{
    const int ha = A->f && A->f->n, hb = B->f && B->f->n;
    for (int j = lo; j < hi;) {
        int e = hi - 1;
        double va = -HUGE_VAL, ka = 0, vb = -HUGE_VAL, kb = 0, dva = 0, dka = 0, dvb = 0, dkb = 0;
        if (ha) {
            const int ea = atd(A, j, &va, &ka, &dva, &dka, D);
            if (ea < e) e = ea;
        }
        if (hb) {
            const int eb = atd(B, j, &vb, &kb, &dvb, &dkb, D);
            if (eb < e) e = eb;
        }
        vmax2(o, j + xo, e + xo, va, ka, dva, dka, vb, kb, dvb, dkb, D);
        j = e + 1;
    }
}

/* y(j) = max(y(j − 1) + c, g(j)) on lo..hi, g the line gv (at lo), gk;
 * *prev: y(lo − 1), then y(hi); d*: the derivatives */
__attribute__((always_inline)) static inline void ride(vbld *oy, int lo, int hi, double gv,
                                                       double gk, double dgv, double dgk, double c,
                                                       double dc, double *prev, double *dprev,
                                                       const int D)
{
    if (gv == -HUGE_VAL || gk <= c) {
        if (*prev + c > gv)
            vpush(oy, lo, *prev + c, c, *dprev + dc, dc, D);
        else
            vpush(oy, lo, gv, c, dgv, dc, D);
    } else {
        vmax2(oy, lo, hi, *prev + c, c, *dprev + dc, dc, gv, gk, dgv, dgk, D);
    }
    *prev = vlast_at(oy->f, hi), *dprev = D ? dlast_at(oy->f, hi) : 0;
}

/* a and b (neither empty) the same bits below the returned x (their
 * first segments equal in x, value and slope; m where all are): a scan of
 * both from 0 finds nothing there, and x is where one of them starts a
 * segment (a piece start of that scan); *i: the last segment of both
 * starting at or below it */
static int same_below(const vpl *a, const vpl *b, int m, int *i)
{
    const int n = a->n < b->n ? a->n : b->n;
    int q = 0;
    while (q < n && a->x[q] == b->x[q] && a->v[q] == b->v[q] && a->k[q] == b->k[q])
        q++;
    *i = q ? q - 1 : 0;
    if (q == a->n && q == b->n) return m;
    return a->x[q] < b->x[q] ? a->x[q] : b->x[q];
}

/* the first j of a segment pair on which a and b differ by more than
 * 1e-13 relative, m if none (the scan from where their bits part) */
static int first_differ(const vpl *a, const vpl *b, int m)
{
    if (!a->n || !b->n) return 0;
    int i;
    const int j0 = same_below(a, b, m, &i);
    vcur ca = {a, i, 0, 1, 0, 0}, cb = {b, i, 0, 1, 0, 0};
    for (int j = j0; j < m;) {
        double va, ka, vb, kb;
        int hi = at(&ca, j, &va, &ka);
        const int hb = at(&cb, j, &vb, &kb);
        if (hb < hi) hi = hb;
        const double d0 = va - vb, d1 = d0 + (ka - kb) * (double)(hi - j);
        const double ab = fabs(vb) + fabs(kb) * (double)(hi - j),
                     sc = 1e-13 * (fabs(va) > ab ? fabs(va) : ab);
        if (fabs(d0) > sc || fabs(d1) > sc) return j;
        j = hi + 1;
    }
    return m;
}

/* 1 if a and b differ by more than 1e-13 relative somewhere on [0, m) */
static int differ(const vpl *a, const vpl *b, int m)
{
    if (!a->n || !b->n) return a->n || b->n;
    return first_differ(a, b, m) < m; /* equal bits: m (same_below) */
}

/* The first j from which a changed source value can move the item reading
 * it: a (new) differs from b (the value the held functions read; NULL:
 * none, −∞) by more than 1e-13 relative and a + add exceeds g (the
 * reading class's held ends, add the longest reading item) by more than
 * 1e-13 relative; m if none. Per piece on which all three are lines, from
 * its ends (a piece where both hold somewhere returns its start: never
 * later than the first such j). Where a value differs but stays below,
 * the item reading it ends where it did (the values only rise: a' >= a,
 * so a' + d' <= t = max(t_prev, a) + d' leaves t); where it does not
 * differ, the item reads what it did. */
static int first_above(const vpl *a, const vpl *b, double add, const vpl *g, int m)
{
    /* none read now: nothing moves, unless a value was read before
     * (values only rise; conservative) */
    if (!a->n) return b && b->n ? 0 : m;
    if ((b && !b->n) || !g->n) return 0;
    /* where a and b have the same bits nothing differs (same_below) */
    int i = 0;
    const int j0 = b ? same_below(a, b, m, &i) : 0;
    vcur ca = {a, i, 0, 1, 0, 0}, cb = {b, i, 0, 1, 0, 0}, cg = {g, 0, 0, 1, 0, 0};
    for (int j = j0; j < m;) {
        double va, ka, vg, kg, vb = 0, kb = 0;
        int hi = at(&ca, j, &va, &ka);
        const int hg = at(&cg, j, &vg, &kg);
        if (hg < hi) hi = hg;
        if (b) {
            const int hb = at(&cb, j, &vb, &kb);
            if (hb < hi) hi = hb;
        }
        const double w = (double)(hi - j);
        /* above g (as below()) */
        const double u0 = va + add - vg, u1 = u0 + (ka - kg) * w,
                     su = 1e-13 * (fabs(vg) + fabs(kg) * w);
        if (u0 > su || u1 > su) {
            if (!b) return j;
            /* differs from b (as first_differ()) */
            const double d0 = va - vb, d1 = d0 + (ka - kb) * w, ab = fabs(vb) + fabs(kb) * w,
                         sd = 1e-13 * (fabs(va) > ab ? fabs(va) : ab);
            if (fabs(d0) > sd || fabs(d1) > sd) return j;
        }
        j = hi + 1;
    }
    return m;
}

/* ---- the sweep ---- */

static int reserve(cx_v_sweep_ws *ws, int p)
{
    if (ws->cap_fn >= p) return 1;
    free(ws->pool), free(ws->fn), free(ws->ver), free(ws->free_s), free(ws->vi), free(ws->ddtab);
    const size_t nf = (size_t)p * NCLS + NCLS + KMAX + 2;
    ws->pool = malloc(sizeof(vpl) * nf);
    ws->fn = malloc(sizeof(vpl *) * ((size_t)p * NCLS + NCLS));
    ws->ver = malloc(sizeof(int) * (size_t)p * (2 + MAX_SRC));
    ws->free_s = malloc(sizeof(double) * (size_t)p * 5 * MAX_NCH);
    ws->vi = malloc(sizeof(cx_replay_vsinfo) * (size_t)p * MAX_NCH);
    ws->ddtab = malloc(sizeof(double) * (size_t)p * (1 + 4 * MAX_NCH));
    if (!ws->pool || !ws->fn || !ws->ver || !ws->free_s || !ws->vi || !ws->ddtab) {
        free(ws->pool), free(ws->fn), free(ws->ver), free(ws->free_s), free(ws->vi);
        free(ws->ddtab);
        ws->pool = NULL, ws->fn = NULL, ws->ver = NULL, ws->free_s = NULL, ws->vi = NULL;
        ws->ddtab = NULL;
        ws->cap_fn = 0;
        return 0;
    }
    for (size_t i = 0; i < (size_t)p * NCLS + NCLS; i++)
        ws->fn[i] = &ws->pool[i];
    ws->nf = ws->fn + (size_t)p * NCLS;
    ws->tmp = ws->pool + (size_t)p * NCLS + NCLS;
    ws->usedv = ws->ver + p;
    ws->part = ws->usedv + (size_t)p * MAX_SRC;
    ws->dtab = ws->free_s + p;
    ws->dfree = ws->ddtab + (size_t)p * 4 * MAX_NCH;
    ws->cap_fn = p;
    return 1;
}

/* item durations d' (+P where it sends), by kind, of virtual stage vs */
static inline double dur(const cx_v_sweep_ws *ws, int kind, int vs)
{
    return ws->dtab[4 * vs + kind];
}

/* the winner of max(a, b) on lo..*hi (a: va at lo, slope ka), as
 * cx_pl_max2 splits it: *hi cut to the last k the first winner keeps;
 * 1 when b */
static inline int win2(int lo, int *hi, double va, double ka, double vb, double kb)
{
    const double dk = ka - kb, dlo = va - vb, dhi = dlo + dk * (double)(*hi - lo);
    if (dlo >= 0 && dhi >= 0) return 0;
    if (dlo <= 0 && dhi <= 0) return 1;
    const int a_first = dlo > 0;
    double t = floor(a_first ? dlo / -dk : -dlo / dk);
    if (t < 0) t = 0;
    if (t > *hi - lo - 1) t = *hi - lo - 1;
    *hi = lo + (int)t;
    return !a_first;
}

/* A run of n repetitions in one pass over pieces lo..hi of k on which
 * every dependency is a line and every maximum of the H chain and of the
 * ride keeps its winner (cut where it changes, as cx_pl_max2 splits).
 * Over the dependency items i_1 < i_2 < ... only: H at i_r = max(H at
 * i_{r−1} + P_{i_r} − P_{i_{r−1}}, dep_{i_r} + d'_{i_r}), H_i that of the
 * last i_r <= i plus P_i − P_{i_r}, G = H_{K−1}; e's line on the piece,
 * and the outputs t_i(k) = max(e(k − 1) + P_i, H_i(k)) pushed: a line
 * (k = lo alone where e(lo) is G's). For runs whose built outputs are
 * one item of their class a cycle (q = 1).
 * *chain: e(−1), then e(n − 1). 0 on an output out of microbatch order. */
__attribute__((always_inline)) static inline int
run_pieces(const cx_v_sweep_ws *ws, const vitem *it, int K, int n, int dm, int build,
           vpl *const *srcf[MAX_SRC], int seg[MAX_SRC][NCLS], vbld *ob, int *next, double *chain,
           double *dchain, const int D)
{
    const vpl *X[KMAX];
    int xi[KMAX], xa[KMAX], xd[KMAX], xs[KMAX], nd = 0;
    int oi[KMAX], ox[KMAX], orr[KMAX], no = 0;
    double Pi[KMAX], gap[KMAX], dd[KMAX], off[KMAX], C = 0, Plast = 0;
    double dPi[KMAX], dgap[KMAX], ddd[KMAX], doff[KMAX], dC = 0, dPlast = 0;
    const double *idur = ws->idur + (it - ws->f->items), *didur = ws->didur + (it - ws->f->items);
    for (int i = 0; i < K; i++) {
        const double d = idur[i], e = didur[i];
        C += d, Pi[i] = C, dC += e, dPi[i] = dC;
        if (it[i].src >= 0 && srcf[(int)it[i].src]) {
            const vpl *f = srcf[(int)it[i].src][(int)it[i].src_cls];
            const int sg = seg[(int)it[i].src][(int)it[i].src_cls];
            const int a = it[i].a0 + it[i].da * dm;
            if (f->n) {
                X[nd] = f, xi[nd] = f->x[sg] > a ? 0 : sg, xa[nd] = a, xd[nd] = it[i].step;
                xs[nd] = i, dd[nd] = d, ddd[nd] = e;
                gap[nd] = nd ? C - Plast : 0, dgap[nd] = nd ? dC - dPlast : 0;
                Plast = C, dPlast = dC, nd++;
            }
        }
        const int c = it[i].out;
        if (c >= 0 && (build >> c & 1)) {
            orr[no] = nd - 1, off[no] = C - Plast, doff[no] = dC - dPlast, oi[no] = i;
            const int a = it[i].a0 + it[i].da * dm;
            if (a != next[c]) return 0;
            next[c] = a + n, ox[no++] = a;
        }
    }
    const double gadd = C - Plast, dgadd = dC - dPlast;
    double prev = *chain, dprev = *dchain, hv_[KMAX], hk_[KMAX], dhv_[KMAX], dhk_[KMAX];
    for (int lo = 0; lo < n;) {
        int hi = n - 1;
        double hv = 0, hk = 0, dhv = 0, dhk = 0;
        for (int r = 0; r < nd; r++) {
            const vpl *f = X[r];
            const int t = xa[r] + xd[r] * lo;
            int j = xi[r];
            while (f->x[j + 1] <= t)
                j++;
            xi[r] = j;
            const int e = xd[r] == 1 ? f->x[j + 1] - 1 - xa[r] : (f->x[j + 1] - 1 - xa[r]) / xd[r];
            if (e < hi) hi = e;
            const double w = (double)(t - f->x[j]);
            const double bv = f->v[j] + f->k[j] * w + dd[r], bk = f->k[j] * (double)xd[r];
            hv += gap[r], dhv += dgap[r];
            if (!r || win2(lo, &hi, hv, hk, bv, bk)) {
                hv = bv, hk = bk;
                if (D) dhv = f->dv[j] + f->dk[j] * w + ddd[r], dhk = f->dk[j] * (double)xd[r];
            }
            hv_[r] = hv, hk_[r] = hk, dhv_[r] = dhv, dhk_[r] = dhk;
        }
        /* the ride e(k) = max(e(k − 1) + C, G(k)) */
        double ev = prev + C, ek = C, dev = dprev + dC, dek = dC;
        int line = 1; /* e(k − 1) = prev + C (k − lo) on the piece */
        if (nd) {
            const double gv = hv + gadd;
            int g = 0;
            if (hk <= C)
                g = !(prev + C > gv);
            else
                g = win2(lo, &hi, prev + C, C, gv, hk);
            if (g) {
                ev = gv, dev = dhv + dgadd, line = 0;
                if (hk > C) ek = hk, dek = dhk;
            }
        }
        for (int u = 0; u < no; u++) {
            const int i = oi[u];
            vbld *o = &ob[it[i].out];
            const int h = orr[u] >= 0;
            const double hvi = h ? hv_[orr[u]] + off[u] : -HUGE_VAL, hki = h ? hk_[orr[u]] : 0,
                         dhvi = h ? dhv_[orr[u]] + doff[u] : 0, dhki = h ? dhk_[orr[u]] : 0;
            const int x = ox[u] + lo;
            if (i == K - 1) {
                vpush(o, x, ev, ek, dev, dek, D);
            } else if (line) {
                vmax2(o, x, ox[u] + hi, prev + Pi[i], C, dprev + dPi[i], dC, hvi, hki, dhvi, dhki,
                      D);
            } else {
                const double v0 = prev + Pi[i], d1 = ev + Pi[i] - (hvi + hki);
                if (hvi >= v0 &&
                    (hi == lo || (d1 <= 0 && d1 + (ek - hki) * (double)(hi - lo - 1) <= 0))) {
                    /* H_i wins on the whole piece */
                    vpush(o, x, hvi, hki, dhvi, dhki, D);
                    continue;
                }
                if (hvi > v0)
                    vpush(o, x, hvi, 0, dhvi, 0, D);
                else
                    vpush(o, x, v0, 0, dprev + dPi[i], 0, D);
                if (hi > lo)
                    vmax2(o, x + 1, ox[u] + hi, ev + Pi[i], ek, dev + dPi[i], dek, hvi + hki, hki,
                          dhvi + dhki, dhki, D);
            }
        }
        prev = ev + ek * (double)(hi - lo), dprev = dev + dek * (double)(hi - lo);
        lo = hi + 1;
    }
    for (int r = 0; r < nd; r++)
        seg[(int)it[xs[r]].src][(int)it[xs[r]].src_cls] = xi[r];
    *chain = prev, *dchain = dprev;
    return 1;
}

/* The u-th of a class's q items a cycle at repetition k >= 1 (read
 * through cursor copies), as the point path computes it: max(e(k − 1) +
 * P_u, H_u(k)); *lose the other operand (−∞ none), *wh 1 where H_u won. */
__attribute__((always_inline)) static inline void qval(vcur *e1, vcur *hu, int k, double Pu,
                                                       double dPu, double *v, double *dv,
                                                       double *lose, int *wh, const int D)
{
    double ev, dev, sl, dsl;
    atd(e1, k, &ev, &sl, &dev, &dsl, D);
    *v = ev + Pu, *dv = dev + dPu, *lose = -HUGE_VAL, *wh = 0;
    if (hu->f) {
        double hv, dhv;
        atd(hu, k, &hv, &sl, &dhv, &dsl, D);
        if (hv > *v)
            *lose = *v, *v = hv, *dv = dhv, *wh = 1;
        else
            *lose = hv;
    }
}

/* The points of repetitions ks..k1 of a class with q items a cycle (q
 * consecutive microbatches a repetition, the u-th max(e(k − 1) + P_u,
 * H_u(k)), all lines in k there) pushed in one step where pushing them
 * one by one (vpush) would merge each into the function's last segment S
 * and leave the last point alone after it: S ends in a point P (the last
 * pushed, x = a + q ks − 1) that merges (vpush's test), S starts at least
 * two before P with a slope not 0 (so that each push merges the point
 * before and appends itself), and for every u, at ks and k1: the same
 * operand wins by more than 1e-13 of the smaller end value |v|min, and
 * the value and its derivative lie on S's line to 1e-14 and 1e-13 of
 * |v|min, both ends of one sign. Their gaps to S being lines in k, every
 * point between is within those of S (plus its rounding, ~1e-15), inside
 * vpush's 2e-14 and dsame's 1e-12: each merges. Then P becomes the last
 * point (the same state, the same bits); 0 (nothing changed) otherwise. */
__attribute__((always_inline)) static inline int qskip(vbld *o, int a, int q, int ks, int k1,
                                                       const vcur *e1, const vcur *h,
                                                       const double *Pi, const double *dPi,
                                                       const int *idx, const int D)
{
    vpl *f = o->f;
    const int n = f->n, xl = a + q * ks - 1, i = n - 2;
    if (n < 2 || f->x[n - 1] != xl || f->k[n - 1] != 0 || f->x[i] > xl - 2 || f->k[i] == 0)
        return 0;
    const double pv = f->v[n - 1], e = f->v[i] + f->k[i] * (double)(xl - f->x[i]);
    if (!(e == pv || fabs(e - pv) <= 2e-14 * fabs(pv))) return 0;
    if (D && !dsame(f->dv[i] + f->dk[i] * (double)(xl - f->x[i]), f->dv[n - 1], pv)) return 0;
    double vl = 0, dvl = 0;
    for (int u = 0; u < q; u++) {
        vcur ec = *e1, hc = h[u];
        double v[2], dv[2], lose[2], gap[2], dgap[2];
        int wh[2];
        for (int end = 0; end < 2; end++) {
            const int k = end ? k1 : ks;
            const double x = (double)(a + q * k + u - f->x[i]);
            qval(&ec, &hc, k, Pi[idx[u]], dPi[idx[u]], &v[end], &dv[end], &lose[end], &wh[end], D);
            gap[end] = f->v[i] + f->k[i] * x - v[end];
            dgap[end] = D ? f->dv[i] + f->dk[i] * x - dv[end] : 0;
        }
        const double vmin = fmin(fabs(v[0]), fabs(v[1]));
        if (!(v[0] * v[1] > 0) || wh[0] != wh[1] || !(fabs(gap[0]) <= 1e-14 * vmin) ||
            !(fabs(gap[1]) <= 1e-14 * vmin) || !(fabs(dgap[0]) <= 1e-13 * vmin) ||
            !(fabs(dgap[1]) <= 1e-13 * vmin))
            return 0;
        if (lose[0] != -HUGE_VAL &&
            !(v[0] - lose[0] > 1e-13 * vmin && v[1] - lose[1] > 1e-13 * vmin))
            return 0;
        vl = v[1], dvl = dv[1];
    }
    f->x[n - 1] = a + q * k1 + q - 1, f->v[n - 1] = vl;
    if (D) f->dv[n - 1] = dvl, f->dk[n - 1] = 0;
    return 1;
}

/* Stage s from the current functions of its sources into ws->nf; its free
 * time into *fr. From run rfrom of the stage on (0: all), the runs before
 * as the held functions' (their state at rfrom, its rst); each run's
 * starting state into its rtmp where all classes are built. 0 on too many
 * segments or a function not built in microbatch order. */
__attribute__((always_inline)) static inline int stage_body(cx_v_sweep_ws *ws, int s, int m,
                                                            int build, int rfrom, double *fr,
                                                            double *dfr, const int D)
{
    const vstage *st = &ws->f->st[s];
    const int dm = m - ws->f->ma;
    /* the run states held and being written (read once: the uint8_t flag
     * would be reloaded after every store) */
    const vrstate *const rsh = ws->rsbuf[ws->rsw[s]];
    vrstate *const rsn = ws->rsbuf[ws->rsw[s] ^ 1];
    vbld ob[NCLS];
    int next[NCLS];
    for (int c = 0; c < NCLS; c++) {
        ob[c].f = ws->nf[c], ob[c].over = ob[c].dbad = 0, ob[c].xe = m, ob[c].f->n = 0;
        next[c] = 0;
    }
    /* a source not computed yet reads as none (−∞) */
    vpl *const *srcf[MAX_SRC];
    for (int j = 0; j < st->nsrc; j++)
        srcf[j] = ws->ver[st->src[j]] > 0 ? ws->fn + (size_t)st->src[j] * NCLS : NULL;
    /* the segment each source function was last read at: a class's items
     * come in microbatch order, so the reads of a function only move on */
    int seg[MAX_SRC][NCLS] = {{0}};
    double chain = 0, dchain = 0;
    if (rfrom) {
        /* the held functions' prefix, as they stood at run rfrom */
        const vrstate *z = &rsh[st->run0 + rfrom];
        chain = z->chain, dchain = z->dchain;
        for (int c = 0; c < NCLS; c++) {
            if (!(build >> c & 1)) continue;
            vpl *o = ob[c].f;
            const vpl *h = ws->fn[s * NCLS + c];
            const int nn = z->n[c];
            memcpy(o->x, h->x, sizeof(int) * (size_t)nn);
            memcpy(o->v, h->v, sizeof(double) * (size_t)nn);
            memcpy(o->k, h->k, sizeof(double) * (size_t)nn);
            if (D) {
                memcpy(o->dv, h->dv, sizeof(double) * (size_t)nn);
                memcpy(o->dk, h->dk, sizeof(double) * (size_t)nn);
            }
            for (int u = 0; u < 2; u++)
                if (nn - 2 + u >= 0) {
                    o->x[nn - 2 + u] = z->x[c][u], o->v[nn - 2 + u] = z->v[c][u];
                    o->k[nn - 2 + u] = z->k[c][u];
                    if (D) o->dv[nn - 2 + u] = z->dv[c][u], o->dk[nn - 2 + u] = z->dk[c][u];
                }
            o->n = nn, next[c] = z->next[c];
        }
    }
    const int save = build == st->need;
    vpl *E = &ws->tmp[KMAX], *Ht = &ws->tmp[0];
    int dbad = 0;
    /* building some classes only (the first sweep's): up to the last run
     * writing one (the chain past it, the free time, is the next
     * evaluation's) */
    int rend = st->nrun;
    if (build != st->need) {
        rend = 0;
        for (int c = 0; c < NCLS; c++)
            if (build >> c & 1 && st->lastrun[c] > rend) rend = st->lastrun[c];
    }
    for (int r = st->run0 + rfrom; r < st->run0 + rend; r++) {
        /* only where a resume can start: runs reading another stage
         * (resume_run) */
        if (save && (ws->f->runs[r].ndep[0] | ws->f->runs[r].ndep[1])) {
            vrstate *z = &rsn[r];
            z->chain = chain, z->dchain = dchain;
            for (int c = 0; c < NCLS; c++) {
                if (!(build >> c & 1)) continue;
                const vpl *o = ob[c].f;
                const int nn = o->n;
                z->n[c] = nn, z->next[c] = next[c];
                if (nn >= 2) {
                    memcpy(z->x[c], &o->x[nn - 2], sizeof z->x[c]);
                    memcpy(z->v[c], &o->v[nn - 2], sizeof z->v[c]);
                    memcpy(z->k[c], &o->k[nn - 2], sizeof z->k[c]);
                    if (D) {
                        memcpy(z->dv[c], &o->dv[nn - 2], sizeof z->dv[c]);
                        memcpy(z->dk[c], &o->dk[nn - 2], sizeof z->dk[c]);
                    }
                } else if (nn == 1) {
                    z->x[c][1] = o->x[0], z->v[c][1] = o->v[0], z->k[c][1] = o->k[0];
                    if (D) z->dv[c][1] = o->dv[0], z->dk[c][1] = o->dk[0];
                }
            }
        }
        const vrun *ru = &ws->f->runs[r];
        const int n = ru->n0 + ru->dn * dm, K = ru->K;
        if (n < 0) return 0;
        if (n == 0) continue;
        const vitem *it = &ws->f->items[ru->item0];
        const double *idur = ws->idur + ru->item0, *didur = ws->didur + ru->item0;
        if (n * K <= NSCALAR || n == 1) {
            /* a short run item by item */
            for (int k = 0; k < n; k++)
                for (int i = 0; i < K; i++) {
                    const int mb = it[i].a0 + it[i].da * dm + it[i].step * k;
                    if (it[i].src >= 0 && srcf[(int)it[i].src]) {
                        const vpl *X = srcf[(int)it[i].src][(int)it[i].src_cls];
                        int *sg = &seg[(int)it[i].src][(int)it[i].src_cls];
                        if (X->x[*sg] > mb) *sg = 0;
                        while (X->x[*sg + 1] <= mb)
                            (*sg)++;
                        const double w = (double)(mb - X->x[*sg]);
                        const double dep = X->v[*sg] + X->k[*sg] * w;
                        if (dep > chain) {
                            chain = dep;
                            if (D) dchain = X->dv[*sg] + X->dk[*sg] * w;
                        }
                    }
                    chain += idur[i], dchain += didur[i];
                    const int c = it[i].out;
                    if (c >= 0 && (build >> c & 1)) {
                        if (mb != next[c]) return 0;
                        vpush(&ob[c], mb, chain, 0, dchain, 0, D);
                        next[c]++;
                    }
                }
            continue;
        }
        /* in one pass (run_pieces) where every output is one item of its
         * class a cycle and at most 3 items read another stage (more: the
         * pieces of all of them cut every output; measured, callgrind) */
        int ndep = 0;
        for (int j = 0; j < st->nsrc; j++)
            ndep += srcf[j] ? ru->ndep[j] : 0;
        if (!(ru->qmask & build) && ndep <= 3) {
            if (!run_pieces(ws, it, K, n, dm, build, srcf, seg, ob, next, &chain, &dchain, D))
                return 0;
            continue;
        }
        /* H_i as a view (none: f NULL): the first dependency's source read
         * directly, later ones merged into a scratch function */
        vcur Hv[KMAX], hcur = {NULL, 0, 0, 1, 0, 0};
        double Pi[KMAX], dPi[KMAX], C = 0, dC = 0;
        int nt = 0;
        for (int i = 0; i < K; i++) {
            const double d = idur[i], e = didur[i];
            C += d, Pi[i] = C, hcur.add += d;
            dC += e, dPi[i] = dC, hcur.dadd += e;
            if (it[i].src >= 0 && srcf[(int)it[i].src]) {
                const vpl *X = srcf[(int)it[i].src][(int)it[i].src_cls];
                int *sg = &seg[(int)it[i].src][(int)it[i].src_cls];
                const int a = it[i].a0 + it[i].da * dm;
                if (X->x[*sg] > a) *sg = 0;
                while (X->x[*sg + 1] <= a)
                    (*sg)++;
                vcur B = {X, *sg, a, it[i].step, d, e};
                if (!hcur.f) {
                    hcur = B;
                } else {
                    vpl *h = &Ht[nt++];
                    vbld oh = {h, 0, 0, n};
                    h->n = 0;
                    vmax(&oh, 0, 0, n, &hcur, &B, D);
                    *sg = B.i;
                    h->x[h->n] = n;
                    if (oh.over) return 0;
                    dbad |= oh.dbad;
                    hcur = (vcur){h, 0, 0, 1, 0, 0};
                }
            }
            Hv[i] = hcur;
        }
        /* the ride e(k) = max(e(k − 1) + C, G(k)) */
        vbld oe = {E, 0, 0, n};
        E->n = 0;
        double prev = chain, dprev = dchain;
        if (!hcur.f) {
            vpush(&oe, 0, chain + C, C, dchain + dC, dC, D);
        } else {
            vcur g = hcur;
            for (int j = 0; j < n;) {
                double gv, gk, dgv, dgk;
                int hi = atd(&g, j, &gv, &gk, &dgv, &dgk, D);
                if (hi > n - 1) hi = n - 1;
                ride(&oe, j, hi, gv, gk, dgv, dgk, C, dC, &prev, &dprev, D);
                j = hi + 1;
            }
        }
        E->x[E->n] = n;
        if (oe.over) return 0;
        dbad |= oe.dbad;
        /* the items read by other stages: t_i(k) = max(e(k − 1) + P_i, H_i(k)) */
        for (int i = 0; i < K; i++) {
            const int c = it[i].out;
            if (c < 0 || it[i].j || !(build >> c & 1)) continue;
            const int a = it[i].a0 + it[i].da * dm;
            if (a != next[c]) return 0;
            if (it[i].q == 1 && i == K - 1) {
                /* the cycle's last item: e itself */
                vcur A = {E, 0, 0, 1, 0, 0}, B = {NULL, 0, 0, 1, 0, 0};
                vmax(&ob[c], a, 0, n, &A, &B, D);
                next[c] = a + n;
            } else if (it[i].q == 1) {
                /* k = 0 from the chain, then e(k − 1) */
                double v0 = chain + Pi[i], dv0 = dchain + dPi[i];
                if (Hv[i].f) {
                    double hv, hk, dhv, dhk;
                    vcur h = Hv[i];
                    atd(&h, 0, &hv, &hk, &dhv, &dhk, D);
                    if (hv > v0) v0 = hv, dv0 = dhv;
                }
                vpush(&ob[c], a, v0, 0, dv0, 0, D);
                if (n > 1) {
                    vcur A = {E, 0, -1, 1, Pi[i], dPi[i]}, B = Hv[i];
                    vmax(&ob[c], a, 1, n, &A, &B, D);
                }
                next[c] = a + n;
            } else {
                /* q items of the class a cycle: point by point */
                const int q = it[i].q;
                vcur h[KMAX];
                int idx[KMAX], nq = 0;
                for (int u = i; u < K && nq < q; u++)
                    if (it[u].out == c) {
                        idx[nq] = u;
                        h[nq] = Hv[u];
                        nq++;
                    }
                vcur e1 = {E, 0, -1, 1, 0, 0};
                for (int k = 0; k < n;) {
                    /* the piece k..k1 on which e(k − 1) and every H_u
                     * read are lines (k = 0 alone: the chain's) */
                    double ev = chain, dev = dchain, sl, dsl, hv[KMAX], dhv[KMAX];
                    int k1 = k ? atd(&e1, k, &ev, &sl, &dev, &dsl, D) : 0;
                    for (int u = 0; u < nq; u++)
                        if (h[u].f) {
                            const int e = atd(&h[u], k, &hv[u], &sl, &dhv[u], &dsl, D);
                            if (e < k1) k1 = e;
                        }
                    if (k1 > n - 1) k1 = n - 1;
                    for (int u = 0; u < nq; u++) {
                        double v = ev + Pi[idx[u]], dv = dev + dPi[idx[u]];
                        if (h[u].f && hv[u] > v) v = hv[u], dv = dhv[u];
                        vpush(&ob[c], a + q * k + u, v, 0, dv, 0, D);
                    }
                    /* the rest of the piece: in one step where every
                     * point merges (qskip), else point by point */
                    int kk = k + 1;
                    if (nq == q && k1 >= k + 2 &&
                        qskip(&ob[c], a, q, kk, k1, &e1, h, Pi, dPi, idx, D))
                        kk = k1 + 1;
                    for (; kk <= k1; kk++) {
                        atd(&e1, kk, &ev, &sl, &dev, &dsl, D);
                        for (int u = 0; u < nq; u++) {
                            double v = ev + Pi[idx[u]], dv = dev + dPi[idx[u]];
                            if (h[u].f) {
                                double hw, dhw;
                                atd(&h[u], kk, &hw, &sl, &dhw, &dsl, D);
                                if (hw > v) v = hw, dv = dhw;
                            }
                            vpush(&ob[c], a + q * kk + u, v, 0, dv, 0, D);
                        }
                    }
                    k = kk;
                }
                next[c] = a + q * n;
            }
        }
        chain = vlast_at(E, n - 1), dchain = D ? dlast_at(E, n - 1) : 0;
    }
    int over = 0;
    for (int c = 0; c < NCLS; c++) {
        if (!(build >> c & 1)) continue;
        if (next[c] != m) return 0;
        ob[c].f->x[ob[c].f->n] = m;
        over |= ob[c].over, dbad |= ob[c].dbad;
        if (ob[c].f->n > ws->segs) ws->segs = ob[c].f->n;
    }
    ws->dbad |= dbad;
    *fr = chain, *dfr = D ? dchain : 0;
    return !over;
}

/* stage_body without derivatives (a sweep without a direction: the same
 * values, dv and dk neither computed nor read) and with them */
static int stage_nd(cx_v_sweep_ws *ws, int s, int m, int build, int rfrom, double *fr, double *dfr)
{
    return stage_body(ws, s, m, build, rfrom, fr, dfr, 0);
}

static int stage_d(cx_v_sweep_ws *ws, int s, int m, int build, int rfrom, double *fr, double *dfr)
{
    return stage_body(ws, s, m, build, rfrom, fr, dfr, 1);
}

/* notes the source functions stage s reads (its held functions' inputs):
 * the source's current function (kept when the source replaces it), a
 * copy where the function has another reader */
static void keep_inputs(cx_v_sweep_ws *ws, int s)
{
    const vstage *st = &ws->f->st[s];
    for (int q = 0; q < st->nread; q++) {
        const int src = st->src[(int)st->read[q].src], sc = src * NCLS + st->read[q].src_cls;
        if (!ws->ver[src]) {
            ws->ucst[s * NCLS + q] = 0;
            continue;
        }
        if (ws->rdr[sc] == s * NCLS + q) {
            ws->ucst[s * NCLS + q] = 1;
            continue;
        }
        ws->ucst[s * NCLS + q] = 2;
        const vpl *h = ws->fn[sc];
        vpl *o = ws->ucp[s * NCLS + q];
        o->n = h->n;
        memcpy(o->x, h->x, sizeof(int) * (size_t)(h->n + 1));
        memcpy(o->v, h->v, sizeof(double) * (size_t)h->n);
        memcpy(o->k, h->k, sizeof(double) * (size_t)h->n);
        if (ws->withd) {
            memcpy(o->dv, h->dv, sizeof(double) * (size_t)h->n);
            memcpy(o->dk, h->dk, sizeof(double) * (size_t)h->n);
        }
    }
}

/* The first run of stage s reading a changed source function (newer: the
 * changed sources) at or after its first microbatch that can move the
 * item reading it (first_above: differs from the function the held ones
 * were computed from, and not below the held ends); the run count where
 * none. */
static int resume_run(const cx_v_sweep_ws *ws, int s, int newer, int m)
{
    const vstage *st = &ws->f->st[s];
    const int dm = m - ws->f->ma;
    int best = st->nrun;
    for (int q = 0; q < st->nread && best; q++) {
        if (!(newer >> st->read[q].src & 1)) continue;
        const int uc = ws->ucst[s * NCLS + q];
        if (uc == 1) continue; /* the function read is the source's current */
        const int src = st->src[(int)st->read[q].src];
        const int j0 =
            first_above(ws->fn[src * NCLS + st->read[q].src_cls], uc ? ws->ucp[s * NCLS + q] : NULL,
                        st->read[q].dmax, ws->fn[s * NCLS + st->read[q].cls], m);
        if (j0 >= m) continue;
        for (int r = 0; r < best; r++) {
            const vrun *ru = &ws->f->runs[st->run0 + r];
            const int n = ru->n0 + ru->dn * dm;
            if (n <= 0) continue;
            int hit = 0;
            for (int t = 0; t < ru->K && !hit; t++) {
                const vitem *it = &ws->f->items[ru->item0 + t];
                hit = it->src == st->read[q].src && it->src_cls == st->read[q].src_cls &&
                      it->a0 + it->da * dm + it->step * (n - 1) >= j0;
            }
            if (hit) best = r;
        }
    }
    return best;
}

/* the sweeps; 0 where not certified within the bounds */
static int sweeps(cx_v_sweep_ws *ws, int m)
{
    const int p = ws->f->p, last = p - 1;
    int ver = 0;
    for (int s = 0; s < p; s++) {
        ws->ver[s] = ws->part[s] = 0;
        for (int j = 0; j < MAX_SRC; j++)
            ws->usedv[s * MAX_SRC + j] = 0;
    }
    for (int sw = 0;; sw++) {
        if (sw == MAX_SWEEPS) return 0;
        int ran = 0;
        for (int i = 0; i < p; i++) {
            const int s = sw % 2 ? last - i : i;
            const vstage *st = &ws->f->st[s];
            const int was_part = ws->part[s];
            int *used = ws->usedv + s * MAX_SRC, go = ws->ver[s] == 0 || was_part, newer = 0;
            for (int j = 0; j < st->nsrc; j++)
                newer |= (ws->ver[st->src[j]] != used[j]) << j;
            if (!go && !newer) continue;
            /* from the first run reading a changed value that can move
             * its item (the runs before read what the held functions did,
             * or values below what their items end at); none: nothing
             * changes, the held functions are those of the new inputs */
            int rfrom = 0;
            if (!go) {
                rfrom = resume_run(ws, s, newer, m);
                if (rfrom == st->nrun) {
                    for (int j = 0; j < st->nsrc; j++)
                        used[j] = ws->ver[st->src[j]];
                    keep_inputs(ws, s);
                    ws->checks++;
                    continue;
                }
            }
            ran++;
            for (int j = 0; j < st->nsrc; j++)
                used[j] = ws->ver[st->src[j]];
            keep_inputs(ws, s);
            /* the first sweep (up) builds only what the stages above read:
             * the stage is evaluated again in the second */
            const int build = sw == 0 ? st->need & st->upmask : st->need;
            if (!(ws->withd ? stage_d : stage_nd)(ws, s, m, build, rfrom, &ws->free_s[s],
                                                  &ws->dfree[s]))
                return 0;
            ws->part[s] = build != st->need;
            int ch = ws->ver[s] == 0 || was_part;
            for (int c = 0; c < NCLS && !ch; c++)
                if (st->need >> c & 1) ch = differ(ws->nf[c], ws->fn[s * NCLS + c], m);
            if (ch) {
                for (int c = 0; c < NCLS; c++) {
                    vpl *t = ws->fn[s * NCLS + c];
                    ws->fn[s * NCLS + c] = ws->nf[c], ws->nf[c] = t;
                    /* the reader that noted the displaced function keeps it */
                    const int r = ws->rdr[s * NCLS + c];
                    if (r >= 0 && ws->ucst[r] == 1) {
                        ws->nf[c] = ws->ucp[r], ws->ucp[r] = t;
                        ws->ucst[r] = 2;
                    }
                }
                if (build == st->need && !rfrom)
                    ws->rsw[s] ^= 1;
                else if (build == st->need)
                    memcpy(ws->rsbuf[ws->rsw[s]] + st->run0 + rfrom,
                           ws->rsbuf[ws->rsw[s] ^ 1] + st->run0 + rfrom,
                           sizeof(vrstate) * (size_t)(st->nrun - rfrom));
                ws->ver[s] = ++ver;
            }
        }
        ws->evals += ran;
        ws->sweeps = sw + 1;
        if (!ran) break;
    }
    return 1;
}

/* the sweep of c, no memo; dkey (NULL: none) the derivative of c's time
 * key along a line, dout then the results' derivatives along it: 2 with
 * them, 1 without (a merge joined derivatives that differ), 0 declined */
static int v_sweep(const cx_cost *c, cx_v_sweep_ws *ws, const double *dkey, cx_replay *out,
                   cx_replay *dout)
{
    const cx_sched_desc *sd = c->sched;
    const int p = c->p, m = c->m, v = c->v;
    ws->evals = ws->sweeps = ws->segs = ws->checks = ws->dbad = 0;
    ws->withd = dkey != NULL;
    if (sd->p2p_overlap || p < 2 || p > CX_COST_MAX_STAGES) return 0;
    /* the form of (sd, p, v) kept, else built in the oldest slot */
    ws->f = NULL;
    for (int i = 0; i < NFORM && !ws->f; i++)
        if (ws->form[i].have && ws->form[i].sd == sd && ws->form[i].p == p && ws->form[i].v == v)
            ws->f = &ws->form[i];
    if (!ws->f) {
        ws->f = &ws->form[ws->fnext], ws->fnext = (ws->fnext + 1) % NFORM;
        build_form(ws, sd, p, v);
    }
    if (!ws->f->ok || m < ws->f->ma) return 0;
    const int nch = ws->f->nch, nvs = p * nch;
    if (c->v != nch || !reserve(ws, p)) return 0;
    if (ws->cap_rs < ws->f->nruns) {
        free(ws->rsbuf[0]);
        ws->rsbuf[0] = malloc(sizeof(vrstate) * 2 * (size_t)ws->f->nruns);
        ws->cap_rs = ws->rsbuf[0] ? ws->f->nruns : 0;
        if (!ws->rsbuf[0]) return 0;
        ws->rsbuf[1] = ws->rsbuf[0] + ws->f->nruns;
    }
    memset(ws->rsw, 0, sizeof(uint8_t) * (size_t)p);
    const size_t nuc = NCLS * (size_t)p;
    if (ws->cap_ucp < p) {
        free(ws->ucbuf);
        ws->ucbuf = malloc((sizeof(vpl) + sizeof(vpl *) + sizeof(int) + 1) * nuc);
        ws->cap_ucp = ws->ucbuf ? p : 0;
        if (!ws->ucbuf) return 0;
        ws->ucp = (vpl **)(ws->ucbuf + nuc);
        ws->rdr = (int *)(ws->ucp + nuc);
        ws->ucst = (uint8_t *)(ws->rdr + nuc);
    }
    /* buffers to their home slots (a sweep swaps them between the held
     * functions, the scratch and the readers' notes); the readers */
    for (size_t i = 0; i < NCLS * (size_t)ws->cap_fn + NCLS; i++)
        ws->fn[i] = &ws->pool[i];
    for (size_t i = 0; i < nuc; i++)
        ws->ucp[i] = &ws->ucbuf[i], ws->rdr[i] = -1, ws->ucst[i] = 0;
    for (int s = 0; s < p; s++) {
        const vstage *st = &ws->f->st[s];
        for (int q = 0; q < st->nread; q++) {
            int *r = &ws->rdr[st->src[(int)st->read[q].src] * NCLS + st->read[q].src_cls];
            *r = *r == -1 ? s * NCLS + q : -2;
        }
    }
    const double P = c->p2p_s;
    cx_replay_durations(c, ws->vi);
    for (int vs = 0; vs < nvs; vs++) {
        const cx_replay_vsinfo *x = &ws->vi[vs];
        double *d = &ws->dtab[4 * vs];
        d[CX_WORK_F] = x->dF + (ws->f->send_f[vs] ? P : 0);
        d[CX_WORK_B] = x->dB + (ws->f->send_b[vs] ? P : 0);
        d[CX_WORK_BW] = x->dBW + (ws->f->send_b[vs] ? P : 0);
        d[CX_WORK_W] = x->dW;
    }
    /* the durations' derivatives (cx_replay_vsinfo_of_key is linear) */
    const double dP = dkey ? dkey[7 * c->nclass] : 0;
    for (int vs = 0; vs < nvs; vs++) {
        double *d = &ws->ddtab[4 * vs];
        if (!dkey) {
            d[0] = d[1] = d[2] = d[3] = 0;
            continue;
        }
        cx_replay_vsinfo x;
        cx_replay_vsinfo_of_key(dkey + 7 * c->vs_class[vs], &x);
        d[CX_WORK_F] = x.dF + (ws->f->send_f[vs] ? dP : 0);
        d[CX_WORK_B] = x.dB + (ws->f->send_b[vs] ? dP : 0);
        d[CX_WORK_BW] = x.dBW + (ws->f->send_b[vs] ? dP : 0);
        d[CX_WORK_W] = x.dW;
    }
    if (ws->cap_idur < ws->f->nitems) {
        free(ws->idur);
        ws->idur = malloc(sizeof(double) * 2 * (size_t)ws->f->nitems);
        ws->cap_idur = ws->idur ? ws->f->nitems : 0;
        if (!ws->idur) return 0;
    }
    ws->didur = ws->idur + ws->cap_idur;
    for (int i = 0; i < ws->f->nitems; i++) {
        const int k = ws->f->items[i].kind, vs = ws->f->items[i].vs;
        ws->idur[i] = dur(ws, k, vs), ws->didur[i] = ws->ddtab[4 * vs + k];
    }
    for (int s = 0; s < p; s++) {
        vstage *st = &ws->f->st[s];
        for (int q = 0; q < st->nread; q++) {
            const int vs = ws->f->vs_of[s * nch + st->read[q].cls % nch], kinds = st->read[q].kinds;
            double d = 0;
            for (int k = 0; k < 4; k++)
                if (kinds >> k & 1 && dur(ws, k, vs) > d) d = dur(ws, k, vs);
            st->read[q].dmax = d;
        }
    }
    if (!sweeps(ws, m)) return 0;
    out->makespan_s = 0, dout->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        const vitem *it = &ws->f->items[ws->f->st[s].last];
        const cx_replay_vsinfo *x = &ws->vi[it->vs];
        const double fr = ws->free_s[s], dfr = ws->dfree[s];
        double win, dwin = 0;
        cx_replay_dur(x, it->kind, &win);
        if (dkey) {
            cx_replay_vsinfo dx;
            cx_replay_vsinfo_of_key(dkey + 7 * c->vs_class[it->vs], &dx);
            cx_replay_dur(&dx, it->kind, &dwin);
        }
        const int sends = it->kind == CX_WORK_F   ? ws->f->send_f[it->vs]
                          : it->kind == CX_WORK_W ? 0
                                                  : ws->f->send_b[it->vs];
        out->free_s[s] = fr, dout->free_s[s] = dfr;
        out->last_end_s[s] = sends ? fr - P : fr, dout->last_end_s[s] = sends ? dfr - dP : dfr;
        out->last_item_s[s] = win, dout->last_item_s[s] = dwin;
        if (fr > out->makespan_s) out->makespan_s = fr, dout->makespan_s = dfr;
    }
    return ws->dbad ? 1 : 2;
}

/* ---- the memo of the latest inputs ---- */

static int memo_hit(const cx_v_sweep_ws *ws, int i, const cx_cost *c, uint64_t h, const double *key,
                    int nkey)
{
    const v_memo *e = &ws->memo[i];
    return e->used && (h == 0 || e->hash == h) && e->sd == c->sched && e->p == c->p &&
           e->m == c->m && e->v == c->v && e->nkey == nkey &&
           !memcmp(e->key, key, sizeof(double) * (size_t)nkey) &&
           !memcmp(ws->mcls + (size_t)i * (size_t)ws->mcap * MAX_NCH, c->vs_class,
                   sizeof(int16_t) * (size_t)(c->p * c->v));
}

int cx_core_replay_v_sweep_d(const cx_cost *c, cx_v_sweep_ws *ws, const double *dkey,
                             cx_replay *out, cx_replay *dout)
{
    double key[CX_COST_MAX_CLASSES * 7 + 1];
    const int nkey = cx_replay_time_key(c, key), p = c->p, nvs = p * c->v;
    if (nkey > MKEY || c->v > MAX_NCH) return v_sweep(c, ws, dkey, out, dout);
    /* the last answer first, then the ring by hash */
    int at_ = memo_hit(ws, ws->mlast, c, 0, key, nkey) ? ws->mlast : -1;
    uint64_t h = 0;
    if (at_ < 0) {
        h = cx_pl_fnv(14695981039346656037ull, key, sizeof(double) * (size_t)nkey);
        h = cx_pl_fnv(h, c->vs_class, sizeof(int16_t) * (size_t)nvs) ^ (uint64_t)c->m * 1000003u ^
            (uint64_t)p ^ (uint64_t)(uintptr_t)c->sched;
        if (!h) h = 1;
        for (int i = 0; i < NMEMO && at_ < 0; i++)
            if (memo_hit(ws, i, c, h, key, nkey)) at_ = i;
    }
    if (at_ < 0) {
        if (ws->mcap < p) {
            free(ws->mfree), free(ws->mcls);
            ws->mfree = malloc(sizeof(double) * NMEMO * 6 * (size_t)p);
            ws->mcls = malloc(sizeof(int16_t) * NMEMO * MAX_NCH * (size_t)p);
            memset(ws->memo, 0, sizeof ws->memo);
            ws->mcap = ws->mfree && ws->mcls ? p : 0;
            if (!ws->mcap) return v_sweep(c, ws, dkey, out, dout);
        }
        at_ = ws->mnext, ws->mnext = (ws->mnext + 1) % NMEMO;
        v_memo *e = &ws->memo[at_];
        e->used = 0;
        e->ok = v_sweep(c, ws, dkey, &ws->last, &ws->dlast);
        e->sd = c->sched, e->p = p, e->m = c->m, e->v = c->v, e->nkey = nkey, e->hash = h;
        memcpy(e->key, key, sizeof(double) * (size_t)nkey);
        e->dok = e->ok == 2 && dkey;
        if (e->dok) memcpy(e->dkey, dkey, sizeof(double) * (size_t)nkey);
        memcpy(ws->mcls + (size_t)at_ * (size_t)ws->mcap * MAX_NCH, c->vs_class,
               sizeof(int16_t) * (size_t)nvs);
        if (e->ok) {
            e->makespan_s = ws->last.makespan_s, e->dmakespan_s = ws->dlast.makespan_s;
            double *fr = ws->mfree + (size_t)at_ * (size_t)ws->mcap * 6;
            memcpy(fr, ws->last.free_s, sizeof(double) * (size_t)p);
            memcpy(fr + p, ws->last.last_end_s, sizeof(double) * (size_t)p);
            memcpy(fr + 2 * p, ws->last.last_item_s, sizeof(double) * (size_t)p);
            memcpy(fr + 3 * p, ws->dlast.free_s, sizeof(double) * (size_t)p);
            memcpy(fr + 4 * p, ws->dlast.last_end_s, sizeof(double) * (size_t)p);
            memcpy(fr + 5 * p, ws->dlast.last_item_s, sizeof(double) * (size_t)p);
        }
        e->used = 1;
    }
    ws->mlast = at_;
    const v_memo *e = &ws->memo[at_];
    if (!e->ok) return 0;
    const double *fr = ws->mfree + (size_t)at_ * (size_t)ws->mcap * 6;
    out->makespan_s = e->makespan_s;
    memcpy(out->free_s, fr, sizeof(double) * (size_t)p);
    memcpy(out->last_end_s, fr + p, sizeof(double) * (size_t)p);
    memcpy(out->last_item_s, fr + 2 * p, sizeof(double) * (size_t)p);
    /* derivatives where the answer has them along the same line */
    if (!dkey || !e->dok || memcmp(e->dkey, dkey, sizeof(double) * (size_t)nkey)) return 1;
    dout->makespan_s = e->dmakespan_s;
    memcpy(dout->free_s, fr + 3 * p, sizeof(double) * (size_t)p);
    memcpy(dout->last_end_s, fr + 4 * p, sizeof(double) * (size_t)p);
    memcpy(dout->last_item_s, fr + 5 * p, sizeof(double) * (size_t)p);
    return 2;
}

int cx_core_replay_v_sweep(const cx_cost *c, cx_v_sweep_ws *ws, cx_replay *out)
{
    return cx_core_replay_v_sweep_d(c, ws, NULL, out, &ws->dlast) != 0;
}

int cx_core_replay_v_sweep_pays(const cx_cost *c, int lanes)
{
    /* with clock lanes one play prices all the sweep's clocks: only ZB-V's
     * largest shapes (p >= 64, m >= 16p, past the jump's m' ~ 12p) pay a
     * sweep a clock; without, p >= 32 (DualPipeV: m >= 6p); measured,
     * core/README.md */
    if (c->p < 32) return 0;
    if (lanes) return c->sched == &cx_sched_zb_v && c->p >= 64 && c->m >= 16 * c->p;
    if (c->sched == &cx_sched_zb_v) return 1;
    return c->sched == &cx_sched_dualpipev && c->m >= 6 * c->p;
}

int cx_core_replay_v_sweep_pays_batch(const cx_cost *c, int jump)
{
    /* a batch plays ~3-7 of a curve's clocks (replay_clocks.c), in 4-lane
     * passes of the plain program (~6pm items; compiled once per shape,
     * often held) or, from m = 2 m' on (replay.c, lanes_ratio), by the
     * jump's play (~36p^2 items a point) and jump lanes, against the sweep's
     * O(p) stage evaluations a point (2 a linear run with tangents): the
     * lanes' time grows with m, the sweep's does not, so the sweep pays
     * from an m on whatever p; against the jump from a p on. Measured in
     * time (not callgrind: the lanes pass runs more instructions for less
     * time), scratch timers around each clock batch, the paths alternated
     * run by run in one process (bench_sweep_bench schedules, 21 clocks;
     * the batches' time a run, sweep / lanes): ZB-V m = 768, p 32 / 64
     * 1.50-1.65 / 1.12-1.29, m = 1536, p 64 0.69-0.71; DualPipeV m = 768
     * p 32 / 64 1.69 / 1.84-2.08, m = 1536 p 64 1.06-1.25. Against the
     * jump (`culonx sweep` megatron-1t, tp 8, m 2-8 m', 21 clocks, sweep /
     * jump): ZB-V p 16 0.64-1.65, p 32 0.33-0.53, p 64 0.12-0.22;
     * DualPipeV p 16 1.0-1.8, p 32 1.09-1.54, p 64 0.44-0.92. */
    if (c->sched == &cx_sched_zb_v) return c->m >= 1024 || (jump && c->p >= 32);
    return c->sched == &cx_sched_dualpipev && (c->m >= 2048 || (jump && c->p >= 64));
}
