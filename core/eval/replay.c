/*
 * replay.c — plays a schedule's per-stage work orders with the run's chunk
 * costs, without building a DAG: the closed form's path for schedules whose
 * iteration time has no exact formula under uneven stages and blocking p2p
 * (interleaved, zero-bubble, DualPipeV). The dependency rules are the play
 * engine's (schedules/play.h), which core/eval/walk.c uses too, so both engines
 * give the same times; this file drives it with the timing rule of
 * core/eval/replay_step.h:
 *   start = max(stage free, dependency token), end = start + duration, with
 *   durations F = f + tp_f, B = r + tp_r + b + tp_b (recompute runs right
 *   before the backward), BW = B + w, W = w;
 *   an item whose output crosses to another stage sends it on the stage's PP
 *   stream, serialised there: the output token is max(end, PP free) + p2p,
 *   and the stage's next compute waits for it unless the schedule overlaps
 *   p2p.
 * Long file: the workspace's paths (formula, sweeps, memo, lanes, the
 * clock batch, the steady play) share the workspace, which no other file
 * reads.
 * Activation memory (allocated at F, freed after W or BW, a recompute's
 * transient bytes held during B) follows each stage's order alone, so its
 * per-stage peak is computed apart from the times: from the orders'
 * compiled peak points (core/eval/replay_mem.c, the same bits), else by a
 * scan of the orders.
 *
 * Exact formulas first: where replay_formula.c has a closed form of the
 * times and the activation peaks (interleaved 1F1B, its preconditions), the
 * result comes from it, no orders built. ZB-H1 and ZB-H2 (any stage costs)
 * are swept over the stages as piecewise-linear functions of the cycle
 * (replay_zb_sweep.c, certified fixed point; peaks by replay_formula_zb.c)
 * where that costs less than the play below; so are ZB-V and DualPipeV,
 * their orders compressed into runs of repeated cycles
 * (replay_v_sweep.c), where measured cheaper (p >= 32 without clock
 * lanes; with them ZB-V's largest shapes only; the clock batch's few
 * points a curve have their own measured gates, *_sweep_pays_batch).
 * Fast paths. The held orders are played by a compiled program of the
 * orders (core/eval/replay_prog.c; bit-identical to the engine), which jumps
 * over periods where the play is affine in the period index. Schedules
 * that state a steady state (cx_sched_desc.steady: period c and edge e
 * microbatches) are played, when m >= m' + 4c, from the program of m' = 3e
 * + c microbatches (congruent to m modulo c), whose jump inserts the k =
 * (m - m') / c missing periods; the durations of the last items and the
 * activation peaks are those of m'. When the jump could not insert them all
 * (a transient longer than the steady region of m'), the program of m'' =
 * 4 (3e + c) is tried if m'' < m, then the full orders are played (the
 * reference, cx_core_replay_set_full, plays them without jumping).
 * In a sweep with clocks, a play on this path is followed by the other
 * clocks of the same shape in lanes (replay_jlanes.c), each the bits of
 * its own play, into the memo. bench/fast_agree.c holds both to the full
 * replay.
 *
 * Cost: O(p v (warm-up + transient + cool-down)) time per call, independent
 * of m where the jump applies, else O(p m v); the workspace keeps the engine (orders of
 * the last (schedule, p, m, v), cells, worklist), and the last time and
 * memory results keyed by the bit patterns of their inputs, so repeated
 * calls allocate nothing and calls that differ only in what the replay does
 * not read (DP settings) are answered from the memo with identical results.
 * Every clock of a sweep at once (play_clocks): on a miss of the last
 * batch (batch_get) of a cost whose sweep set its clocks, the cost's curve is priced at all of them
 * and replayed at a few (replay_clocks.c: certified segments, the rest
 * interpolated): the interleaved formula at every clock first (from the
 * keys), the rest played as above (sweeps, lanes, the steady play), the
 * results kept as the last batch (not in the memo: see play_clocks); a batch whose inputs (shape,
 * mode, chunk classes, every clock's key) are the last batch's takes its
 * rows (a rebuild that changed no time: another curve, the same bits).
 * Where the V sweep answers the batch (sweep_gate 2), each point also
 * gives its results' derivatives along its run's key line (tan_clocks),
 * and a run is certified from its two ends' lines (replay_clocks.c,
 * tangents). Points played by the
 * jump (+ jump lanes, about a play a lane) do not make the next round take
 * every point left (bisection instead): callgrind, fast-only sweep_bench
 * schedules, x10^6 instructions, bisect / all left: ZB-V 802.5 / 802.9,
 * DualPipeV 880.7 / 886.7, ZB-H1, ZB-H2, interleaved the same to 0.01%.
 * See core/README.md, "Closed form" (replayed schedules).
 */
#include "core/base/base.h"
#include "core/eval/replay.h"
#include "core/eval/cost_key.h"
#include "core/eval/replay_clocks.h"
#include "core/eval/replay_formula.h"
#include "core/eval/replay_formula_v.h"
#include "core/eval/replay_formula_zb.h"
#include "core/eval/replay_jlanes.h"
#include "core/eval/replay_lanes.h"
#include "core/eval/replay_mem.h"
#include "core/eval/replay_memo.h"
#include "core/eval/replay_prog.h"
#include "core/eval/replay_step.h"
#include "core/eval/replay_v_sweep.h"
#include "core/eval/replay_zb_sweep.h"
#include "schedules/play.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef cx_replay_vsinfo vsinfo;

/* memo keys: per chunk class 7 times (+ p2p) or 2 byte counts, and the
 * class of each virtual stage */
#define TIME_KEY (CX_COST_MAX_CLASSES * 7 + 1)
#define MEM_KEY (CX_COST_MAX_CLASSES * 2)
/* engines of other recent shapes kept (recall), and the bytes they may
 * hold together. 2 MiB (was 24): the V and ZB schedules of
 * `bench_sweep_bench schedules` recall nothing, interleaved 82 shapes (72
 * with 2 MiB), the whole space of "Sweeps" 2-26; each engine new to the
 * process costs its page faults (the first sweep of zb-v 7,192 -> 6,204,
 * dualpipev 8,441 -> 7,204; the whole space 72k -> 59k, peak RSS 293 ->
 * 248 MB), interleaved's lost recalls +0.1% instructions (core/README.md,
 * "Page faults") */
#define NRECENT 64
#define RECENT_BYTES ((size_t)2 << 20)

struct cx_replay_ws {
    /* the play engine, holding the orders of (sd, p, mr, v) for (sd, p, m, v):
     * mr = m, or the count m' of the fast path (period microbatches, edge) */
    cx_play *pl;
    cx_replay_prog *prog;      /* the held orders compiled */
    cx_play *pl_full;          /* the full orders when pl holds those of mr < m */
    cx_replay_prog *prog_full; /* them compiled */
    cx_play *pl_mid;           /* the second try's orders (mr2 < m), compiled: */
    cx_replay_prog *prog_mid;
    cx_cost_key *key;     /* inputs of the last cost build (cost_key.c) */
    cx_replay_memo *memo; /* recent time results (replay_memo.c) */
    cx_replay_mem *mem;   /* the orders' peak points (replay_mem.c) */
    int mem_tried;        /* ... selected for the held orders */
    double mem_act[CX_COST_MAX_VSTAGES], mem_work[CX_COST_MAX_VSTAGES];
    const cx_sched_desc *sd;
    int p, m, v, have_order;
    int have_items; /* pl holds the orders (items): built when read (items) */
    int mr, mr2, period, edge;
    int jratio; /* the least m / m' for the jump (lanes_ratio), the memo keys it */
    /* the last time result came from an exact closed form (replay_formula.c) */
    int last_formula;
    int last_fast; /* the last time result was extrapolated */
    int last_jump; /* ... by the compiled program's jump (replay_prog.c) */
    int last_back; /* the m' program could not insert every period */
    uint8_t last_kind[CX_COST_MAX_STAGES];
    int16_t last_chunk[CX_COST_MAX_STAGES], lastb_chunk[CX_COST_MAX_STAGES];
    int32_t w_after[CX_COST_MAX_VSTAGES];
    vsinfo vi[CX_COST_MAX_VSTAGES];
    /* memos (valid for the current orders only) */
    int have_time, have_mem;
    double time_key[TIME_KEY], mem_key[MEM_KEY];
    int time_nclass, mem_nclass;
    int16_t time_cls[CX_COST_MAX_VSTAGES], mem_cls[CX_COST_MAX_VSTAGES];
    cx_replay time_out; /* first p entries of each array */
    cx_replay result;   /* cx_core_replay_ws_out */
    double mem_peak[CX_COST_MAX_STAGES];
    cx_replay_formula_memo fmemo; /* replay_formula.c's memory memo */
    /* the last inputs of the exact formulas and their answers (formula_*):
     * shape, chunk classes, time key or byte key; ok: the formula held */
    const cx_sched_desc *ft_sd, *fm_sd;
    int ft_p, ft_m, ft_v, ft_nclass, ft_ok, fm_p, fm_m, fm_v, fm_nclass, fm_ok;
    double ft_key[TIME_KEY], fm_key[MEM_KEY];
    int16_t ft_cls[CX_COST_MAX_VSTAGES], fm_cls[CX_COST_MAX_VSTAGES];
    cx_replay ft_out;
    double fm_peak[CX_COST_MAX_STAGES];
    /* the sweep's clocks played at once (replay_lanes.c; on the virtual
     * jump replay_jlanes.c) */
    cx_replay_lanes *lanes;
    cx_replay_jlanes *jlanes;
    /* the replay at every clock of the sweep from a few of them
     * (replay_clocks.c; lazily): the clocks in ascending order, once each,
     * a copy of the cost priced at each, their time keys, durations and
     * p2p times, and a result's scratch */
    cx_replay_clocks *clocks;
    double *bclk;
    int nb;
    cx_cost *bcost;
    double *bkeys, *bp2p;
    vsinfo *bvi;
    size_t bkeys_cap, bvi_cap;
    cx_replay *btmp, *bdtmp; /* a point's results, their derivatives */
    /* the last batch's results (rows, owned by clocks) under its memo key
     * but the time key (bc_ok: valid): every clock of its curve
     * (play_clocks) */
    int bc_ok, bc_p, bc_m, bc_v, bc_mode, bc_nkey, bc_n;
    int bc_last; /* the clock batch_get found last (a hint) */
    const cx_sched_desc *bc_sd;
    uint64_t bc_curve;
    const double *bc_rows;
    /* the last batch played (pk_ok: valid; its rows are bc_rows): its
     * shape, mode, chunk classes and every clock's time key; a batch with
     * the same inputs (another curve of the same times) takes its rows */
    int pk_ok, pk_n, pk_nkey, pk_p, pk_m, pk_v, pk_mode;
    const cx_sched_desc *pk_sd;
    int16_t pk_cls[CX_COST_MAX_VSTAGES];
    double *pkeys;
    size_t pkeys_cap;
    cx_zb_sweep_ws *zbs; /* replay_zb_sweep.c's scratch (lazily) */
    cx_v_sweep_ws *vsw;  /* replay_v_sweep.c's (lazily) */
    /* the orders of other recent shapes (lazily), most recent first: a
     * sweep returns to its shapes (recall) */
    cx_play *recent[NRECENT];
    long recalled; /* shapes found there */
};

cx_replay_ws *cx_core_replay_ws_new(void)
{
    cx_replay_ws *ws = calloc(1, sizeof(cx_replay_ws));
    if (ws && (!(ws->pl = cx_sched_play_new()) || !(ws->prog = cx_core_replay_prog_new()) ||
               !(ws->key = cx_core_cost_key_new()) || !(ws->pl_full = cx_sched_play_new()) ||
               !(ws->prog_full = cx_core_replay_prog_new()) ||
               !(ws->pl_mid = cx_sched_play_new()) || !(ws->prog_mid = cx_core_replay_prog_new()) ||
               !(ws->memo = cx_core_replay_memo_new()) || !(ws->mem = cx_core_replay_mem_new()))) {
        cx_core_replay_mem_free(ws->mem);
        cx_core_replay_memo_free(ws->memo);
        cx_sched_play_free(ws->pl_mid);
        cx_core_replay_prog_free(ws->prog_full);
        cx_core_replay_prog_free(ws->prog);
        cx_core_cost_key_free(ws->key);
        cx_sched_play_free(ws->pl_full);
        cx_sched_play_free(ws->pl);
        free(ws);
        return NULL;
    }
    /* NULL-safe members: the whole workspace freed */
    if (ws && (!(ws->lanes = cx_core_replay_lanes_new()) ||
               !(ws->jlanes = cx_core_replay_jlanes_new()))) {
        cx_core_replay_ws_free(ws);
        return NULL;
    }
    return ws;
}

cx_replay *cx_core_replay_ws_out(cx_replay_ws *ws)
{
    return &ws->result;
}

void cx_core_replay_ws_free(cx_replay_ws *ws)
{
    if (!ws) return;
    cx_sched_play_free(ws->pl);
    cx_core_replay_prog_free(ws->prog);
    cx_core_cost_key_free(ws->key);
    cx_core_zb_sweep_ws_free(ws->zbs);
    cx_core_v_sweep_ws_free(ws->vsw);
    cx_sched_play_free(ws->pl_full);
    cx_core_replay_prog_free(ws->prog_full);
    cx_sched_play_free(ws->pl_mid);
    cx_core_replay_prog_free(ws->prog_mid);
    cx_core_replay_memo_free(ws->memo);
    cx_core_replay_mem_free(ws->mem);
    cx_core_replay_lanes_free(ws->lanes);
    cx_core_replay_jlanes_free(ws->jlanes);
    cx_core_replay_clocks_free(ws->clocks);
    free(ws->bcost), free(ws->bkeys), free(ws->bp2p), free(ws->bvi), free(ws->btmp);
    free(ws->bdtmp);
    free(ws->pkeys);
    free(ws->bclk);
    for (int i = 0; i < NRECENT; i++)
        cx_sched_play_free(ws->recent[i]);
    free(ws);
}

static int by_mhz(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void cx_core_replay_ws_set_clocks(cx_replay_ws *ws, const double *mhz, int n)
{
    if (!ws) return;
    cx_core_replay_lanes_set_clocks(ws->lanes, mhz, n);
    cx_core_replay_jlanes_set_clocks(ws->jlanes, mhz, n);
    ws->nb = 0;
    ws->bc_ok = ws->pk_ok = 0;
    ws->have_order = 0; /* the jump's bound reads the lanes (lanes_ratio) */
    cx_core_cost_key_set_clocks(ws->key, NULL, 0);
    if (n < 3 || n > CX_REPLAY_LANES_MAX_CLOCKS) return; /* no segment inside: none */
    if (!ws->bclk && !(ws->bclk = malloc(CX_REPLAY_LANES_MAX_CLOCKS * sizeof *ws->bclk))) return;
    memcpy(ws->bclk, mhz, (size_t)n * sizeof *mhz);
    qsort(ws->bclk, (size_t)n, sizeof *ws->bclk, by_mhz);
    for (int i = 0; i < n; i++)
        if (ws->nb == 0 || ws->bclk[i] != ws->bclk[ws->nb - 1]) ws->bclk[ws->nb++] = ws->bclk[i];
    cx_core_cost_key_set_clocks(ws->key, ws->bclk, ws->nb);
    if (ws->nb < 3) ws->nb = 0;
}

cx_cost_key *cx_core_replay_ws_key(cx_replay_ws *ws)
{
    return ws ? ws->key : NULL;
}

/* 1: always play the full orders (the reference for bench/fast_agree.c) */
static int full_replay;

void cx_core_replay_set_full(int on)
{
    full_replay = on != 0;
    cx_core_replay_prog_set_jump(!full_replay);
}

/* the fast path's threshold m / m' (see reduced_m) */
static int jump_ratio = 1;

void cx_core_replay_set_jump_ratio(int ratio)
{
    jump_ratio = ratio >= 1 ? ratio : 1;
}

/* The microbatch count to play for (d, p, m, v) on the fast path: the
 * least m' >= scale (3 edge + period) congruent to m modulo the period
 * (from 2 edge + period on, the schedule's steady() states that the orders
 * of m are those of m' with (m - m') / period periods inserted); m when the
 * fast path does not apply or would not gain (m < ratio m', ratio at least
 * jump_ratio, or fewer than 4 periods to insert). */
static int reduced_m(const cx_sched_desc *d, int p, int m, int v, int scale, int ratio, int *period,
                     int *edge)
{
    if (ratio < jump_ratio) ratio = jump_ratio;
    int c, e, c2, e2;
    *period = 0, *edge = 0;
    if (full_replay || !d->steady || !d->steady(p, m, v, &c, &e) || c < 1) return m;
    /* 2 e + c for the orders; e more for the jump: a front of winner
     * changes crossing the stages after the warm-up (~5 p periods measured
     * on megatron-1t's uneven end stages) before the periods go in */
    const int64_t lo = scale * (3 * (int64_t)e + c), mr = lo + (((int64_t)m - lo) % c + c) % c;
    if ((int64_t)m < (int64_t)ratio * mr || (int64_t)m - mr < 4 * (int64_t)c) return m;
    if (!d->steady(p, (int)mr, v, &c2, &e2) || c2 != c || 2 * (int64_t)e2 + c2 > mr) return m;
    *period = c, *edge = e;
    return (int)mr;
}

static culonx_status nomem(culonx_error *err)
{
    return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory in schedule replay");
}

static size_t play_bytes(const cx_play *pl)
{
    return pl->items_cap * sizeof *pl->items + pl->cell_cap * sizeof *pl->cell + pl->cnt_cap;
}

/* Makes ws->pl an engine for the orders of (sd, p, mr, v): the recent one
 * that holds them if any (then cx_sched_play_orders keeps them: no cost),
 * else the least recent one (overwritten) or a new one; the engine left
 * goes first in ws->recent, and those past RECENT_BYTES are freed. The
 * orders are a function of the shape, so no bit changes. (A miss taking
 * a freed engine instead of a new one moved a first sweep's page faults
 * both ways: interleaved -250, zb-h2 +235; core/README.md "Page faults".) */
static void recall(cx_replay_ws *ws, const cx_sched_desc *sd, int p, int mr, int v)
{
    int i = 0;
    for (; i < NRECENT - 1; i++) {
        const cx_play *q = ws->recent[i];
        if (!q || (q->have_order && q->sd == sd && q->p == p && q->m == mr && q->v == v)) break;
    }
    cx_play *take = ws->recent[i];
    if (take && take->have_order && take->sd == sd && take->p == p && take->m == mr && take->v == v)
        ws->recalled++;
    if (!take && !(take = cx_sched_play_new())) return; /* no memory: ws->pl overwritten */
    memmove(ws->recent + 1, ws->recent, (size_t)i * sizeof *ws->recent);
    ws->recent[0] = ws->pl;
    ws->pl = take;
    size_t bytes = 0;
    for (int j = 0; j < NRECENT && ws->recent[j]; j++)
        if ((bytes += play_bytes(ws->recent[j])) > RECENT_BYTES && j > 0) {
            for (int k = j; k < NRECENT; k++)
                cx_sched_play_free(ws->recent[k]), ws->recent[k] = NULL;
            break;
        }
}

/* The least m / m' for the virtual jump: 1, but 2 with clock lanes (a
 * sweep's clocks, cx_core_replay_ws_set_clocks) where a batch's points
 * are played (no sweep answers them, sweep_gate): there the plain
 * program in 4-lane passes (replay_lanes.c) answers them for less time
 * than the jump's play and jump lanes below m = 2 m'. Measured in time
 * (scratch timers around each clock batch, bench_sweep_bench schedules,
 * 21 clocks): the batches of the shapes at m ~1.75-1.98 m' (p 4-64, m =
 * 24p) took 2.6-3.7x less time played plain; `culonx sweep` megatron-1t
 * over m (one m' shared by many m, so its compile too), the paths
 * alternated process by process: the two cross at m / m' ~1.6-2.6 (ZB-V
 * p 16 and 32 ~3-4, ZB-H2 p 64 never). Where a sweep answers, the points
 * it declines (ZB-H2's overflowing sawtooths) keep the jump: the plain
 * program of m would be compiled for a few points (ZB-H2 x0.91 so,
 * paired, bench_sweep_bench). Without lanes a point is one play: the
 * jump's m' items against the plain m. */
static int lanes_ratio(const cx_cost *c, const cx_replay_ws *ws)
{
    if (!cx_core_replay_lanes_on(ws->lanes) || cx_core_replay_zb_sweep_pays_batch(c) ||
        cx_core_replay_v_sweep_pays_batch(c, 0))
        return 1;
    return 2;
}

/* Makes ws hold the orders of c's schedule and their facts. */
/* The shape of c's replay (mr, the fast path's period and edge) held in
 * ws; the orders themselves (items) are built when read: the clock lanes
 * of a shape whose program is held need none. */
static culonx_status shape_of(const cx_cost *c, cx_replay_ws *ws, culonx_error *err)
{
    const int p = c->p, v = c->v, m = c->m, nvs = p * v;
    const cx_sched_desc *sd = c->sched;
    if (ws->have_order && ws->sd == sd && ws->p == p && ws->m == m && ws->v == v) return CULONX_OK;
    ws->have_order = ws->have_items = ws->have_time = ws->have_mem = ws->mem_tried = 0;
    if ((int64_t)m * nvs * 3 > CX_MAX_SCHEDULE_ITEMS)
        return cx_core_fail(err, CULONX_EINPUT, c->run->path, 0,
                            "schedule %s: %d microbatches x %d virtual stages is too many to "
                            "replay (at most %lld work items)",
                            sd->name, m, nvs, (long long)CX_MAX_SCHEDULE_ITEMS);
    ws->jratio = lanes_ratio(c, ws);
    if (ws->jratio < jump_ratio) ws->jratio = jump_ratio;
    ws->mr = reduced_m(sd, p, m, v, 1, ws->jratio, &ws->period, &ws->edge);
    int c2, e2;
    ws->mr2 = ws->mr < m ? reduced_m(sd, p, m, v, 4, 1, &c2, &e2) : m;
    ws->sd = sd, ws->p = p, ws->m = m, ws->v = v;
    ws->have_order = 1;
    return CULONX_OK;
}

/* The orders of the shape held (shape_of) into ws->pl. */
static culonx_status items(const cx_cost *c, cx_replay_ws *ws, culonx_error *err)
{
    if (ws->have_items) return CULONX_OK;
    const int p = ws->p, v = ws->v, m = ws->m;
    const cx_sched_desc *sd = ws->sd;
    const cx_play *pl = ws->pl;
    if (!(pl->have_order && pl->sd == sd && pl->p == p && pl->m == ws->mr && pl->v == v))
        recall(ws, sd, p, ws->mr, v);
    cx_sched_sim_status pst = cx_sched_play_orders(ws->pl, sd, p, ws->mr, v, 0);
    if (pst == CX_SCHED_SIM_UNSUPPORTED)
        return cx_core_fail(err, CULONX_EINPUT, c->run->path, 0,
                            "schedule %s does not support pp=%d with %d microbatches", sd->name, p,
                            m);
    if (pst == CX_SCHED_SIM_NOMEM) return nomem(err);
    if (pst != CX_SCHED_SIM_OK)
        return cx_core_fail(err, CULONX_EINTERNAL, c->run->path, 0,
                            "schedule %s gives invalid work orders for pp=%d, %d microbatches",
                            sd->name, p, m);
    /* chunks(v) == v for every schedule: c->v is already the chunk count */
    for (int s = 0; s < p; s++) {
        int n;
        const cx_sched_item *ord = cx_sched_play_items(ws->pl, s, &n);
        ws->last_kind[s] = n > 0 ? ord[n - 1].kind : CX_WORK_F;
        ws->last_chunk[s] = n > 0 ? ord[n - 1].chunk : 0;
        int32_t *wa = ws->w_after + (size_t)s * (size_t)v;
        for (int k = 0; k < v; k++)
            wa[k] = 0;
        int i = n - 1;
        for (; i >= 0 && ord[i].kind == CX_WORK_W; i--)
            if (ord[i].chunk < v) wa[ord[i].chunk]++;
        ws->lastb_chunk[s] = (int16_t)(i >= 0 && ord[i].kind != CX_WORK_F ? ord[i].chunk : -1);
    }
    ws->have_items = 1;
    return CULONX_OK;
}

static culonx_status orders(const cx_cost *c, cx_replay_ws *ws, culonx_error *err)
{
    culonx_status st = shape_of(c, ws, err);
    return st != CULONX_OK ? st : items(c, ws, err);
}

culonx_status cx_core_replay_shape(const cx_cost *c, cx_replay_ws *ws, cx_replay_shape *shape,
                                   culonx_error *err)
{
    culonx_status st = orders(c, ws, err);
    if (st != CULONX_OK) return st;
    shape->p = c->p, shape->v = c->v;
    shape->last_kind = ws->last_kind;
    shape->last_chunk = ws->last_chunk;
    shape->lastb_chunk = ws->lastb_chunk;
    shape->w_after = ws->w_after;
    return CULONX_OK;
}

static const cx_chunk_cost *kind_of(const cx_cost *c, int k)
{
    return &c->cls[k];
}

/* Do the memo's key (n doubles, nclass classes, vs -> class) match c's? */
static int key_hit(const cx_cost *c, const double *key, const double *memo_key, size_t n,
                   int nclass, const int16_t *cls)
{
    return nclass == c->nclass && memcmp(key, memo_key, n * sizeof *key) == 0 &&
           memcmp(cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *cls) == 0;
}

static void copy_out(cx_replay *dst, const cx_replay *src, int p);

/* Is the exact formula tried for c (replay_formula.c)? Not for the
 * reference, nor for orders too long to replay; and only interleaved has
 * one (the formulas answer 0 at once otherwise: nothing to remember). */
static int formula_tried(const cx_cost *c)
{
    return !full_replay && (int64_t)c->m * c->p * c->v * 3 <= CX_MAX_SCHEDULE_ITEMS;
}

/* cx_core_replay_formula(c, out), answered from ws when its inputs (the
 * shape, the classes and the time key of c, key[0 .. nkey)) are the last
 * ones: a sweep's candidates that differ only in DP settings replay the
 * same durations. Same bits: the formula reads nothing else. */
static int formula_times(const cx_cost *c, cx_replay_ws *ws, const double *key, size_t nkey,
                         cx_replay *out)
{
    if (c->sched != &cx_sched_interleaved) return cx_core_replay_formula(c, out);
    if (ws->ft_sd == c->sched && ws->ft_p == c->p && ws->ft_m == c->m && ws->ft_v == c->v &&
        key_hit(c, key, ws->ft_key, nkey, ws->ft_nclass, ws->ft_cls)) {
        if (ws->ft_ok) copy_out(out, &ws->ft_out, c->p);
        return ws->ft_ok;
    }
    ws->ft_sd = NULL;
    ws->ft_ok = cx_core_replay_formula(c, &ws->ft_out);
    if (ws->ft_ok) copy_out(out, &ws->ft_out, c->p);
    memcpy(ws->ft_key, key, nkey * sizeof *key);
    memcpy(ws->ft_cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *ws->ft_cls);
    ws->ft_sd = c->sched, ws->ft_p = c->p, ws->ft_m = c->m, ws->ft_v = c->v;
    ws->ft_nclass = c->nclass;
    return ws->ft_ok;
}

/* The same for cx_core_replay_formula_memory (inputs: the shape, the
 * classes and their bytes): a sweep's clocks and DP settings change no
 * byte. */
static int formula_peaks(const cx_cost *c, cx_replay_ws *ws, double *peak_act)
{
    /* ZB-H1 / ZB-H2 (m >= h(p - 1) + 1, v 1), ZB-V / DualPipeV (m >= 2p,
     * v 2): the scan's exact integer sums in O(p) (replay_formula_zb.c,
     * replay_formula_v.c), the same bits, no orders */
    const int zb = c->sched == &cx_sched_zb_h1 || c->sched == &cx_sched_zb_h2;
    const int vv = c->sched == &cx_sched_zb_v || c->sched == &cx_sched_dualpipev;
    if (c->sched != &cx_sched_interleaved && !zb && !vv)
        return cx_core_replay_formula_memory(c, &ws->fmemo, peak_act);
    double key[MEM_KEY];
    const size_t nkey = 2 * (size_t)c->nclass;
    for (int k = 0; k < c->nclass; k++)
        key[2 * k] = c->cls[k].act_bytes, key[2 * k + 1] = c->cls[k].work_bytes;
    if (!(ws->fm_sd == c->sched && ws->fm_p == c->p && ws->fm_m == c->m && ws->fm_v == c->v &&
          key_hit(c, key, ws->fm_key, nkey, ws->fm_nclass, ws->fm_cls))) {
        ws->fm_sd = NULL;
        ws->fm_ok = zb   ? cx_core_replay_formula_zb_memory(c, ws->fm_peak)
                    : vv ? cx_core_replay_formula_v_memory(c, ws->fm_peak)
                         : cx_core_replay_formula_memory(c, &ws->fmemo, ws->fm_peak);
        memcpy(ws->fm_key, key, nkey * sizeof *key);
        memcpy(ws->fm_cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *ws->fm_cls);
        ws->fm_sd = c->sched, ws->fm_p = c->p, ws->fm_m = c->m, ws->fm_v = c->v;
        ws->fm_nclass = c->nclass;
    }
    if (ws->fm_ok) memcpy(peak_act, ws->fm_peak, (size_t)c->p * sizeof *peak_act);
    return ws->fm_ok;
}

culonx_status cx_core_replay_memory(const cx_cost *c, cx_replay_ws *ws, double *peak_act,
                                    culonx_error *err)
{
    /* the schedule's exact closed form (replay_formula.c), the same bits */
    if (formula_tried(c) && formula_peaks(c, ws, peak_act)) return CULONX_OK;
    culonx_status st = orders(c, ws, err);
    if (st != CULONX_OK) return st;
    const int p = c->p, v = c->v;
    double key[MEM_KEY];
    const size_t nkey = 2 * (size_t)c->nclass;
    for (int k = 0; k < c->nclass; k++) {
        key[2 * k] = kind_of(c, k)->act_bytes;
        key[2 * k + 1] = kind_of(c, k)->work_bytes;
    }
    if (!ws->have_mem || !key_hit(c, key, ws->mem_key, nkey, ws->mem_nclass, ws->mem_cls)) {
        /* the compiled peak points (replay_mem.c: the same bits), else the
         * scan of the orders (always for the reference, full_replay) */
        for (int i = 0; i < p * v; i++) {
            const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->vs_stage_vs[i]);
            ws->mem_act[i] = cc->act_bytes, ws->mem_work[i] = cc->work_bytes;
        }
        int done = 0;
        if (!full_replay) {
            if (!ws->mem_tried) {
                ws->mem_tried = 1;
                cx_core_replay_mem_select(ws->mem, ws->sd, p, ws->mr, v, ws->pl);
            }
            done = cx_core_replay_mem_peaks(ws->mem, ws->mem_act, ws->mem_work, ws->mem_peak);
        }
        for (int s = 0; s < p && !done; s++) {
            int n;
            const cx_sched_item *ord = cx_sched_play_items(ws->pl, s, &n);
            ws->mem_peak[s] = cx_core_replay_mem_scan(ord, n, ws->mem_act + (size_t)s * (size_t)v,
                                                      ws->mem_work + (size_t)s * (size_t)v);
        }
        memcpy(ws->mem_key, key, nkey * sizeof *key);
        ws->mem_nclass = c->nclass;
        memcpy(ws->mem_cls, c->vs_class, (size_t)(p * v) * sizeof *ws->mem_cls);
        ws->have_mem = 1;
    }
    memcpy(peak_act, ws->mem_peak, (size_t)p * sizeof *peak_act);
    return CULONX_OK;
}

static void copy_out(cx_replay *dst, const cx_replay *src, int p)
{
    size_t n = (size_t)p * sizeof(double);
    dst->makespan_s = src->makespan_s;
    memcpy(dst->last_end_s, src->last_end_s, n);
    memcpy(dst->last_item_s, src->last_item_s, n);
    memcpy(dst->free_s, src->free_s, n);
}

typedef cx_replay_timing timing;
enum {
    R_FREE = CX_R_FREE,
    R_PP_FREE = CX_R_PP_FREE,
    R_LAST_END = CX_R_LAST_END,
    R_LAST_ITEM = CX_R_LAST_ITEM
};

/* The item durations of c's virtual stages into ws->vi. */
static timing durations(const cx_cost *c, cx_replay_ws *ws)
{
    cx_replay_durations(c, ws->vi);
    timing tm = {ws->vi, c->p2p_s, c->sched->p2p_overlap};
    return tm;
}

static culonx_status deadlock(const cx_cost *c, culonx_error *err)
{
    return cx_core_fail(err, CULONX_EINTERNAL, c->run->path, 0,
                        "schedule %s deadlocks for pp=%d, %d microbatches", c->sched->name, c->p,
                        c->m);
}

/* The result from the stage registers of the engine. */
static void collect(const cx_play *pl, int p, cx_replay *out)
{
    out->makespan_s = 0;
    for (int s = 0; s < p; s++) {
        const double *reg = cx_sched_play_regs(pl, s);
        out->last_end_s[s] = reg[R_LAST_END];
        out->last_item_s[s] = reg[R_LAST_ITEM];
        out->free_s[s] = reg[R_FREE];
        if (reg[R_FREE] > out->makespan_s) out->makespan_s = reg[R_FREE];
    }
}

/* Makes pl hold the orders of ws's (schedule, p, v) for mr microbatches. */
static culonx_status hold(const cx_cost *c, const cx_replay_ws *ws, cx_play *pl, int mr,
                          culonx_error *err)
{
    cx_sched_sim_status pst = cx_sched_play_orders(pl, ws->sd, ws->p, mr, ws->v, 0);
    if (pst == CX_SCHED_SIM_NOMEM) return nomem(err);
    if (pst != CX_SCHED_SIM_OK)
        return cx_core_fail(err, CULONX_EINTERNAL, c->run->path, 0,
                            "schedule %s gives invalid work orders for pp=%d, %d microbatches",
                            ws->sd->name, ws->p, mr);
    return CULONX_OK;
}

/* Plays the held orders of mr < m microbatches through their program as
 * those of m; 1 done, 0 when the jump could not insert every period. */
static int try_reduced(const cx_cost *c, cx_replay_ws *ws, cx_play *pl, cx_replay_prog *pr, int mr,
                       const timing *tm, cx_replay *out, culonx_status *st, culonx_error *err)
{
    cx_sched_sim_status pst = cx_core_replay_prog_run_ext(pr, pl, tm, (ws->m - mr) / ws->period);
    *st = CULONX_OK;
    if (pst == CX_SCHED_SIM_DEADLOCK) *st = deadlock(c, err);
    if (pst == CX_SCHED_SIM_NOMEM) *st = nomem(err);
    if (pst != CX_SCHED_SIM_OK) return *st != CULONX_OK;
    collect(pl, c->p, out);
    ws->last_fast = 1;
    return 1;
}

/* Plays the schedule for ws->m microbatches: on the fast path (ws->mr <
 * ws->m) the compiled program of the orders of m' = ws->mr, inserting the
 * k = (m - m') / period missing periods where its jump finds the play
 * affine (core/eval/replay_prog.c); when the jump could not insert them
 * all (a long transient used up the steady region), the same with m'' =
 * ws->mr2 (a steady region four times as long) if below m; else the full
 * orders through their compiled program (which jumps over its own
 * periods). Every call starts from the same path: the path taken, and so
 * the rounding of the result, depends on the inputs only, never on earlier
 * calls, which keeps sweeps identical for any thread or MPI rank count.
 * The full orders live in ws->pl when no fast path applies, else in their
 * own engine (ws->pl_full), as do those of m'' (ws->pl_mid), so that all
 * stay compiled. */
static culonx_status play_steady(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                 culonx_error *err)
{
    culonx_status st = items(c, ws, err);
    if (st != CULONX_OK) return st;
    timing tm = durations(c, ws);
    ws->last_fast = ws->last_jump = ws->last_back = 0;
    if (ws->mr < ws->m) {
        if (try_reduced(c, ws, ws->pl, ws->prog, ws->mr, &tm, out, &st, err)) return st;
        ws->last_back = 1;
        if (ws->mr2 < ws->m) {
            if ((st = hold(c, ws, ws->pl_mid, ws->mr2, err)) != CULONX_OK) return st;
            if (try_reduced(c, ws, ws->pl_mid, ws->prog_mid, ws->mr2, &tm, out, &st, err))
                return st;
        }
    }
    cx_play *pl = ws->pl;
    cx_replay_prog *pr = ws->prog;
    if (ws->mr < ws->m) {
        pl = ws->pl_full, pr = ws->prog_full;
        if ((st = hold(c, ws, pl, ws->m, err)) != CULONX_OK) return st;
    }
    /* no virtual jump (m below m' + 4 c, see reduced_m): the plain program,
     * every item played (no jump over its own periods either), the bits of
     * the clock lanes (replay_lanes.c) whether batched or not; else, after
     * the jump failed, the full orders jumping over their periods */
    cx_sched_sim_status pst = ws->mr < ws->m ? cx_core_replay_prog_run(pr, pl, &tm)
                                             : cx_core_replay_prog_run_plain(pr, pl, &tm);
    if (pst == CX_SCHED_SIM_DEADLOCK) return deadlock(c, err);
    if (pst != CX_SCHED_SIM_OK) return nomem(err);
    ws->last_jump = cx_core_replay_prog_jumped(pr);
    collect(pl, c->p, out);
    return CULONX_OK;
}

/* Where a sweep is tried (mode: SWEEP_ALONE a call without clock lanes,
 * SWEEP_LANES with them, SWEEP_BATCH a point of the clock batch, whose
 * own gates replay_zb_sweep.c and replay_v_sweep.c measured): 1 the ZB
 * sweep, 2 the V sweep, 0 none. A function of c's shape only (ws->mr:
 * the shape's jump), so the path a point takes never depends on earlier
 * calls. */
enum { SWEEP_ALONE, SWEEP_LANES, SWEEP_BATCH };
static int sweep_gate(const cx_cost *c, const cx_replay_ws *ws, int mode)
{
    if (full_replay || (int64_t)c->m * c->p * c->v * 3 > CX_MAX_SCHEDULE_ITEMS) return 0;
    if (mode == SWEEP_BATCH)
        return cx_core_replay_zb_sweep_pays_batch(c)                  ? 1
               : cx_core_replay_v_sweep_pays_batch(c, ws->mr < ws->m) ? 2
                                                                      : 0;
    const int zb = c->sched == &cx_sched_zb_h1 || c->sched == &cx_sched_zb_h2;
    return zb && cx_core_replay_zb_sweep_pays(c)                 ? 1
           : cx_core_replay_v_sweep_pays(c, mode == SWEEP_LANES) ? 2
                                                                 : 0;
}

/* ZB-H1 / ZB-H2 swept in O(p) (replay_zb_sweep.c), no orders; ZB-V /
 * DualPipeV: their orders' runs swept (replay_v_sweep.c), the same way,
 * where measured cheaper than the play (sweep_gate). 1 answered. */
static int sweep_times(const cx_cost *c, cx_replay_ws *ws, int mode, cx_replay *out)
{
    const int g = sweep_gate(c, ws, mode);
    if (g == 1)
        return (ws->zbs || (ws->zbs = cx_core_zb_sweep_ws_new())) &&
               cx_core_replay_zb_times(c, ws->zbs, out);
    return g == 2 && (ws->vsw || (ws->vsw = cx_core_v_sweep_ws_new())) &&
           cx_core_replay_v_sweep(c, ws->vsw, out);
}

/* The orders of ws's shape ready for the clock lanes: the program held or
 * in the cache (the lanes read only the shape, hdr: the orders are not
 * built), else built and compiled; NULL when they cannot run. */
static cx_play *lanes_ready(const cx_cost *c, cx_replay_ws *ws, cx_play *hdr)
{
    cx_play *pl = ws->pl;
    if (!ws->have_items) {
        memset(hdr, 0, sizeof *hdr);
        hdr->sd = ws->sd, hdr->p = ws->p, hdr->m = ws->mr, hdr->v = hdr->nch = ws->v;
        hdr->nvs = ws->p * ws->v, hdr->have_order = 1;
        if (cx_core_replay_prog_ready(ws->prog, hdr))
            pl = hdr;
        else if (items(c, ws, NULL) != CULONX_OK)
            return NULL; /* play_steady reports it */
        else
            pl = ws->pl; /* items may have recalled another engine */
    }
    const timing tm = durations(c, ws);
    return cx_core_replay_prog_compile(ws->prog, pl, &tm) == CX_SCHED_SIM_OK ? pl : NULL;
}

/* The replay of c's shape at every clock of the sweep at once, the
 * program compiled first if need be (clock lanes, replay_lanes.c), into the
 * memo; 1 and out filled from there, else 0 (play it). */
static int play_lanes(const cx_cost *c, cx_replay_ws *ws, const cx_replay_memo_key *mk,
                      cx_replay *out)
{
    cx_play hdr;
    const cx_play *pl = lanes_ready(c, ws, &hdr);
    int flags;
    return pl && cx_core_replay_lanes_batch(ws->lanes, c, pl, ws->prog, ws->memo, mk) &&
           cx_core_replay_memo_get(ws->memo, mk, out, &flags);
}

/* A batch of play_clocks: the cost, the clock of c in ws->bclk, the orders
 * ready for lanes (NULL: each clock played alone), the clock bcost is
 * priced at (-1 none, -2 not yet a copy of c) and the first failure. */
typedef struct {
    const cx_cost *c;
    cx_replay_ws *ws;
    const cx_play *pl;
    int ic, priced, lanes_tried;
    culonx_status st;
    culonx_error *err;
    cx_play hdr;
} clocks_ctx;

/* bcost priced at clock i of the batch (c itself at its own) */
static const cx_cost *priced_at(clocks_ctx *cx, int i)
{
    if (i == cx->ic) return cx->c;
    if (cx->priced != i) {
        if (cx->priced == -2) cx_core_cost_copy(cx->ws->bcost, cx->c); /* the first reprice */
        cx_core_cost_reprice_clocks(cx->c->run, cx->ws->bclk[i], cx->ws->bcost,
                                    cx_core_cost_key_clocks(cx->ws->key));
    }
    cx->priced = i;
    return cx->ws->bcost;
}

/* The points idx[0 .. n) of a batch: each by the exact formula or a sweep
 * where they answer, the rest played, in clock lanes where the plain
 * program runs, else each alone, on the virtual jump the others of the
 * round in lanes taking the first one's jump (replay_jlanes.c). Each
 * result has the bits of its own play (or formula, or sweep). */
static int eval_clocks(void *vctx, const int *idx, int n, double *rows, int stride, int *wide)
{
    clocks_ctx *cx = vctx;
    cx_replay_ws *ws = cx->ws;
    const cx_cost *c = cx->c;
    const int lanes = cx_core_replay_lanes_on(ws->lanes);
    int rest[CX_REPLAY_LANES_MAX_CLOCKS], done[CX_REPLAY_LANES_MAX_CLOCKS], nr = 0;
    /* the sweeps' gates read the shape: where none may answer, no point
     * is priced for them (the lanes read the durations priced by
     * play_clocks; the formula answered before, clocks_pre) */
    const int ask = sweep_gate(c, ws, SWEEP_BATCH);
    for (int j = 0; j < n; j++) {
        const int i = idx[j];
        if (ask && sweep_times(priced_at(cx, i), ws, SWEEP_BATCH, ws->btmp))
            cx_core_replay_row_pack(ws->btmp, c->p, rows + (size_t)i * (size_t)stride);
        else
            rest[nr++] = i;
    }
    if (nr == 0) return 0;
    if (ws->mr == ws->m && lanes) {
        if (!cx->lanes_tried) cx->lanes_tried = 1, cx->pl = lanes_ready(c, ws, &cx->hdr);
        if (cx->pl && !cx_core_replay_lanes_rows(ws->lanes, c, cx->pl, ws->prog, nr, rest, ws->bvi,
                                                 ws->bp2p, rows, stride)) {
            *wide = 1;
            return 0;
        }
    }
    for (int j = 0; j < nr; j++)
        done[j] = 0;
    for (int j = 0; j < nr; j++) {
        if (done[j]) continue;
        const int i = rest[j];
        ws->last_fast = ws->last_back = 0;
        cx->st = play_steady(priced_at(cx, i), ws, ws->btmp, cx->err);
        if (cx->st != CULONX_OK) return 1;
        cx_core_replay_row_pack(ws->btmp, c->p, rows + (size_t)i * (size_t)stride);
        done[j] = 1;
        /* jump lanes cost about a play a lane: not wide (the next round
         * bisects; measured, see the top of the file) */
        if (j == 0 && nr > 1 && ws->last_fast && !ws->last_back && ws->mr < ws->m && lanes)
            cx_core_replay_jlanes_rows(ws->jlanes, c, ws->pl, ws->prog,
                                       (ws->m - ws->mr) / ws->period, nr - 1, rest + 1, ws->bvi,
                                       ws->bp2p, rows, stride, done + 1);
    }
    return 0;
}

/* The points idx[0 .. n) of a batch the V sweep answers (sweep_gate 2),
 * each with its results' derivatives along its direction (dirs: its
 * run's key line, replay_clocks.c's tangents) where the sweep gives them;
 * the rest as eval_clocks. */
static int tan_clocks(void *vctx, const int *idx, int n, const double *dirs, double *rows,
                      double *drows, int stride, unsigned char *has)
{
    clocks_ctx *cx = vctx;
    cx_replay_ws *ws = cx->ws;
    const cx_cost *c = cx->c;
    const size_t nkey = 7 * (size_t)c->nclass + 1;
    int rest[CX_REPLAY_LANES_MAX_CLOCKS], nr = 0, wide = 0;
    if (!ws->vsw && !(ws->vsw = cx_core_v_sweep_ws_new())) return 1;
    for (int j = 0; j < n; j++) {
        const int i = idx[j];
        const int got = cx_core_replay_v_sweep_d(priced_at(cx, i), ws->vsw, dirs + (size_t)j * nkey,
                                                 ws->btmp, ws->bdtmp);
        if (!got) {
            rest[nr++] = i;
            continue;
        }
        cx_core_replay_row_pack(ws->btmp, c->p, rows + (size_t)i * (size_t)stride);
        if (got == 2) {
            cx_core_replay_row_pack(ws->bdtmp, c->p, drows + (size_t)i * (size_t)stride);
            has[i] = 1;
        }
    }
    return nr ? eval_clocks(vctx, rest, nr, rows, stride, &wide) : 0;
}

/* The points of a batch where the exact formula answers (interleaved;
 * from each clock's time key, replay_formula.c), before any is played. */
static int clocks_pre(void *vctx, int n, double *rows, int stride, unsigned char *done)
{
    clocks_ctx *cx = vctx;
    const cx_cost *c = cx->c;
    const size_t nkey = 7 * (size_t)c->nclass + 1;
    for (int i = 0; i < n; i++)
        if (cx_core_replay_formula_key(c, cx->ws->bkeys + (size_t)i * nkey, cx->ws->btmp)) {
            cx_core_replay_row_pack(cx->ws->btmp, c->p, rows + (size_t)i * (size_t)stride);
            done[i] = 1;
        }
    return 0;
}

/* The replay of c's curve (cx_cost.curve) at every clock of the sweep
 * (ws->bclk) from a few of them (replay_clocks.c), kept as the workspace's
 * last batch (batch_get): c's own clock must be one of them, priced to the
 * same key (else 0, nothing done). Every clock is priced again on a copy
 * of c, so the results depend on the curve and the clocks only, never on
 * the clock that asked. 1 with out filled (*st the status).
 * The batch's rows are not stored in the memo: a curve is a build's number
 * (cost.c, never reused), a sweep prices one cost per workspace, so the
 * curve's later clocks always find this batch still the last one; the memo
 * never answered a curve's key (0 hits of 85,698 stores in
 * `bench_sweep_bench calculon 1 noprune`, 0 of 4,011 per ZB-V sweep), and
 * the stores were ~1.5% of a ZB-V sweep's time (core/README.md, "Sweeps").
 * A caller that alternates costs on one workspace gets the same bits (a
 * batch is a function of its inputs), only plays the batch again. */
static int play_clocks(const cx_cost *c, cx_replay_ws *ws, const double *key, size_t nkey,
                       const cx_replay_memo_key *mk, cx_replay *out, culonx_status *st,
                       culonx_error *err)
{
    *st = CULONX_OK;
    const int n = ws->nb, nc = c->nclass;
    if (nkey != 7 * (size_t)nc + 1 || nc < 1 || nc > CX_COST_MAX_CLASSES) return 0;
    if (!ws->clocks && !(ws->clocks = cx_core_replay_clocks_new())) return 0;
    if (!ws->bcost && !(ws->bcost = malloc(sizeof *ws->bcost))) return 0;
    if (!ws->btmp && !(ws->btmp = malloc(sizeof *ws->btmp))) return 0;
    if (!ws->bdtmp && !(ws->bdtmp = malloc(sizeof *ws->bdtmp))) return 0;
    if (!ws->bp2p && !(ws->bp2p = malloc(CX_REPLAY_LANES_MAX_CLOCKS * sizeof *ws->bp2p))) return 0;
    if ((size_t)n * nkey > ws->bkeys_cap) {
        free(ws->bkeys);
        ws->bkeys_cap = 0;
        if (!(ws->bkeys = malloc((size_t)n * nkey * sizeof *ws->bkeys))) return 0;
        ws->bkeys_cap = (size_t)n * nkey;
    }
    if ((size_t)n * (size_t)nc > ws->bvi_cap) {
        free(ws->bvi);
        ws->bvi_cap = 0;
        if (!(ws->bvi = malloc((size_t)n * (size_t)nc * sizeof *ws->bvi))) return 0;
        ws->bvi_cap = (size_t)n * (size_t)nc;
    }
    /* bcost: the played points' reprices (priced_at), a copy of c made
     * at the first (priced -2: none yet; lanes read the keys only) */
    int ic = -1, priced = -2;
    cx_cost_clocks *tab = cx_core_cost_key_clocks(ws->key); /* the parts' times per clock */
    for (int i = 0; i < n; i++) {
        double *ki = ws->bkeys + (size_t)i * nkey;
        /* the key alone (cost_clock_key.c, the reprice's bits), else
         * (where it cannot answer) the whole reprice */
        if ((size_t)cx_core_cost_time_key_clocks(c, ws->bclk[i], ki, tab) != nkey) {
            if (priced == -2) cx_core_cost_copy(ws->bcost, c);
            cx_core_cost_reprice_clocks(c->run, ws->bclk[i], ws->bcost, tab);
            priced = i;
            if ((size_t)cx_replay_time_key(ws->bcost, ki) != nkey) return 0;
        }
        if (ws->bclk[i] == c->clock_mhz) {
            if (memcmp(ki, key, nkey * sizeof *key) != 0) return 0;
            ic = i;
        }
        for (int k = 0; k < nc; k++)
            cx_replay_vsinfo_of_key(ki + 7 * k, ws->bvi + (size_t)i * (size_t)nc + (size_t)k);
        ws->bp2p[i] = ki[7 * nc];
    }
    if (ic < 0) return 0;
    /* the formula's points first (clocks_pre); the rest played in clock
     * lanes where no sweep may answer and there is no virtual jump: two
     * points inside each run first, or all where at most 4 are left, a
     * 4-lane pass (replay_lanes.c) costing about what 3 lanes do */
    const int gate = sweep_gate(c, ws, SWEEP_BATCH);
    const int in_lanes = ws->mr == ws->m && cx_core_replay_lanes_on(ws->lanes) && !gate;
    const int pre = formula_tried(c) && cx_core_replay_formula_shape(c);
    clocks_ctx cx = {c, ws, NULL, ic, priced, 0, CULONX_OK, err, {0}};
    double *rows;
    /* the last batch's inputs again (the same times under another curve:
     * a rebuild that changed no time): its rows, the bits a play gives
     * (every choice below reads these inputs only) */
    const size_t nk = (size_t)n * nkey, ncls = (size_t)c->p * (size_t)c->v;
    if (ws->pk_ok && ws->bc_ok && ws->pk_n == n && ws->pk_nkey == (int)nkey &&
        ws->pk_sd == mk->sched && ws->pk_p == mk->p && ws->pk_m == mk->m && ws->pk_v == mk->v &&
        ws->pk_mode == mk->mode && !memcmp(ws->pk_cls, c->vs_class, ncls * sizeof *c->vs_class) &&
        !memcmp(ws->pkeys, ws->bkeys, nk * sizeof *ws->bkeys)) {
        rows = (double *)ws->bc_rows;
    } else {
        ws->bc_ok = ws->pk_ok = 0; /* the keys and rows are redone */
        /* where the V sweep answers, with tangents (each run from its
         * ends' derivatives, replay_clocks.c) */
        const int got =
            !pre && gate == 2
                ? cx_core_replay_clocks_run_tan(ws->clocks, n, (int)nkey, ws->bkeys, c->p,
                                                tan_clocks, &cx, &rows)
                : cx_core_replay_clocks_run(ws->clocks, n, (int)nkey, ws->bkeys, c->p,
                                            in_lanes ? 2 : 1, in_lanes ? 4 : 0,
                                            pre ? clocks_pre : NULL, eval_clocks, &cx, &rows);
        if (got < 0) {
            *st = cx.st;
            return cx.st != CULONX_OK;
        }
        if (nk > ws->pkeys_cap) {
            free(ws->pkeys);
            ws->pkeys_cap = 0;
            if ((ws->pkeys = malloc(nk * sizeof *ws->pkeys))) ws->pkeys_cap = nk;
        }
        if (ws->pkeys && ncls <= CX_COST_MAX_VSTAGES) {
            memcpy(ws->pkeys, ws->bkeys, nk * sizeof *ws->bkeys);
            memcpy(ws->pk_cls, c->vs_class, ncls * sizeof *c->vs_class);
            ws->pk_n = n, ws->pk_nkey = (int)nkey, ws->pk_sd = mk->sched, ws->pk_p = mk->p;
            ws->pk_m = mk->m, ws->pk_v = mk->v, ws->pk_mode = mk->mode, ws->pk_ok = 1;
        }
    }
    const int len = cx_replay_row_len(c->p);
    ws->bc_ok = 1, ws->bc_sd = mk->sched, ws->bc_p = mk->p, ws->bc_m = mk->m, ws->bc_v = mk->v;
    ws->bc_mode = mk->mode, ws->bc_nkey = mk->nkey, ws->bc_curve = mk->curve, ws->bc_n = n;
    ws->bc_rows = rows;
    cx_core_replay_row_unpack(rows + (size_t)ic * (size_t)len, c->p, out);
    return 1;
}

/* The last batch's result under mk (its time key at c's clock), 1 and
 * out's time fields filled; else 0. */
static int batch_get(const cx_cost *c, cx_replay_ws *ws, const cx_replay_memo_key *mk,
                     cx_replay *out, cx_replay_times *t)
{
    if (!ws->bc_ok || ws->bc_curve != mk->curve || ws->bc_sd != mk->sched || ws->bc_p != mk->p ||
        ws->bc_m != mk->m || ws->bc_v != mk->v || ws->bc_mode != mk->mode ||
        ws->bc_nkey != mk->nkey || ws->bc_n != ws->nb)
        return 0;
    /* the sweep's clocks are distinct (cx_core_replay_ws_set_clocks) and
     * visited in order: the last one found or the next first */
    int i0 = ws->bc_last >= 0 && ws->bc_last < ws->bc_n ? ws->bc_last : 0;
    if (ws->bclk[i0] != c->clock_mhz && i0 + 1 < ws->bc_n && ws->bclk[i0 + 1] == c->clock_mhz) i0++;
    if (ws->bclk[i0] != c->clock_mhz) i0 = 0;
    for (int i = i0; i < ws->bc_n; i++) {
        if (ws->bclk[i] != c->clock_mhz) continue;
        ws->bc_last = i;
        const double *k = ws->bkeys + (size_t)i * (size_t)mk->nkey;
        if (memcmp(k, mk->key, (size_t)mk->nkey * sizeof *k) != 0) return 0;
        const double *row = ws->bc_rows + (size_t)i * (size_t)cx_replay_row_len(mk->p);
        if (t) { /* the row's layout (cx_core_replay_row_unpack) */
            out->makespan_s = row[0];
            t->last_end_s = row + 1, t->last_item_s = row + 1 + mk->p;
            t->free_s = row + 1 + 2 * mk->p;
        } else {
            cx_core_replay_row_unpack(row, mk->p, out);
        }
        return 1;
    }
    return 0;
}

/* cx_core_replay_ws; without peaks, out->peak_act_bytes may be left
 * unfilled */
static culonx_status replay_ws(const cx_cost *c, cx_replay_ws *ws, cx_replay *out, int peaks,
                               cx_replay_times *t, culonx_error *err)
{
    if (!ws) {
        cx_replay_ws *tmp = cx_core_replay_ws_new();
        if (!tmp) return nomem(err);
        culonx_status st = replay_ws(c, tmp, out, peaks, NULL, err);
        cx_core_replay_ws_free(tmp);
        return st;
    }
    /* an exact closed form of times and memory (replay_formula.c) needs no
     * orders */
    double key[TIME_KEY];
    const size_t nkey = (size_t)cx_replay_time_key(c, key);
    const int formula = formula_tried(c) && formula_times(c, ws, key, nkey, out);
    if (formula && formula_peaks(c, ws, out->peak_act_bytes)) {
        ws->last_fast = ws->last_jump = ws->last_back = 0;
        ws->last_formula = 1;
        return CULONX_OK;
    }
    /* every clock of a sweep from a few of them (replay_clocks.c) */
    if (!full_replay && ws->nb >= 3 && c->curve != 0) {
        culonx_status st = shape_of(c, ws, err);
        if (st != CULONX_OK) return st;
        cx_replay_memo_key mk = {ws->sd, ws->p,     ws->m,       ws->v,   ws->jratio << 1,
                                 key,    (int)nkey, c->vs_class, c->curve};
        if (batch_get(c, ws, &mk, out, peaks ? NULL : t) ||
            play_clocks(c, ws, key, nkey, &mk, out, &st, err)) {
            if (st != CULONX_OK) return st;
            ws->last_fast = ws->last_jump = ws->last_back = ws->last_formula = 0;
            return peaks ? cx_core_replay_memory(c, ws, out->peak_act_bytes, err) : CULONX_OK;
        }
    }
    /* ZB-H1 / ZB-H2 and ZB-V / DualPipeV swept in O(p) where that pays: a
     * function of the inputs only; peaks by closed form, else the scan */
    if (sweep_times(c, ws, cx_core_replay_lanes_on(ws->lanes) ? SWEEP_LANES : SWEEP_ALONE, out)) {
        ws->last_fast = ws->last_jump = ws->last_back = 0;
        ws->last_formula = 1;
        return peaks ? cx_core_replay_memory(c, ws, out->peak_act_bytes, err) : CULONX_OK;
    }
    culonx_status st = shape_of(c, ws, err);
    if (st != CULONX_OK) return st;
    if (ws->have_time && key_hit(c, key, ws->time_key, nkey, ws->time_nclass, ws->time_cls)) {
        copy_out(out, &ws->time_out, c->p);
    } else {
        ws->have_time = 0;
        ws->last_formula = 0;
        /* not the last inputs: the schedule's closed form where it holds
         * (replay_formula.c), else a recent play of the same inputs (same
         * bits), else play and remember */
        cx_replay_memo_key mk = {
            ws->sd, ws->p,     ws->m,       ws->v, full_replay | ws->jratio << 1,
            key,    (int)nkey, c->vs_class, 0};
        int flags;
        /* no virtual jump: the plain program, which the clock lanes run for
         * every clock of the sweep at once (replay_lanes.c), the same bits */
        const int lanes = !full_replay && ws->mr == ws->m && cx_core_replay_lanes_on(ws->lanes);
        if (formula) { /* times by the formula above (out untouched since) */
            ws->last_fast = ws->last_jump = ws->last_back = 0;
            ws->last_formula = 1;
        } else if (cx_core_replay_memo_get(ws->memo, &mk, out, &flags)) {
            ws->last_fast = flags & 1, ws->last_jump = flags >> 1 & 1,
            ws->last_back = flags >> 2 & 1;
        } else if (lanes && play_lanes(c, ws, &mk, out)) {
            ws->last_fast = ws->last_jump = ws->last_back = 0; /* a plain play */
        } else {
            st = play_steady(c, ws, out, err);
            if (st != CULONX_OK) return st;
            cx_core_replay_memo_put(ws->memo, &mk, out,
                                    ws->last_fast | ws->last_jump << 1 | ws->last_back << 2);
            /* on the virtual jump (the program of m' answered): the
             * sweep's other clocks in lanes (replay_jlanes.c), the same
             * bits */
            if (!full_replay && ws->last_fast && !ws->last_back && ws->mr < ws->m &&
                cx_core_replay_lanes_on(ws->lanes))
                cx_core_replay_jlanes_batch(ws->jlanes, c, ws->pl, ws->prog,
                                            (ws->m - ws->mr) / ws->period, ws->memo, &mk);
        }
        memcpy(ws->time_key, key, nkey * sizeof *key);
        ws->time_nclass = c->nclass;
        memcpy(ws->time_cls, c->vs_class, (size_t)(c->p * c->v) * sizeof *ws->time_cls);
        copy_out(&ws->time_out, out, c->p);
        ws->have_time = 1;
    }
    return peaks ? cx_core_replay_memory(c, ws, out->peak_act_bytes, err) : CULONX_OK;
}

culonx_status cx_core_replay_ws(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                culonx_error *err)
{
    return replay_ws(c, ws, out, 1, NULL, err);
}

culonx_status cx_core_replay_ws_times(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                      culonx_error *err)
{
    return replay_ws(c, ws, out, 0, NULL, err);
}

culonx_status cx_core_replay_ws_times_at(const cx_cost *c, cx_replay_ws *ws, cx_replay *out,
                                         cx_replay_times *t, culonx_error *err)
{
    t->last_end_s = NULL;
    culonx_status st = replay_ws(c, ws, out, 0, ws ? t : NULL, err);
    if (!t->last_end_s) /* in out */
        t->last_end_s = out->last_end_s, t->last_item_s = out->last_item_s, t->free_s = out->free_s;
    return st;
}

int cx_core_replay_ws_fast(const cx_replay_ws *ws)
{
    return ws->last_fast;
}

int cx_core_replay_ws_formula(const cx_replay_ws *ws)
{
    return ws->last_formula;
}

int cx_core_replay_ws_fallback(const cx_replay_ws *ws)
{
    return ws->last_back;
}

int cx_core_replay_ws_jumped(const cx_replay_ws *ws)
{
    return ws->last_jump;
}

long cx_core_replay_ws_recalled(const cx_replay_ws *ws)
{
    return ws->recalled;
}

culonx_status cx_core_replay(const cx_cost *c, cx_replay *out, culonx_error *err)
{
    return cx_core_replay_ws(c, NULL, out, err);
}
