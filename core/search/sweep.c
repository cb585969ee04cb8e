/*
 * sweep.c — enumerates the executions of one model on one system, evaluates
 * each in closed form (core/eval/closed.c), and keeps the top K by an objective,
 * the Pareto frontier and per-reason reject counts. Threads on one machine,
 * MPI ranks across machines; results byte-identical for any count of either.
 * Long file: the enumeration loop with its skips (rule ranges, clock blocks,
 * class representatives), the worker pool, the MPI merge and the result.
 *
 * The space is a mixed-radix product of value lists, outermost first:
 *   gpus x global-batch x tp x pp x variant x microbatch x recompute x sp
 *   x clock x distributed-optimizer x dp-overlap
 * where a variant is a (schedule, vp) pair: every vp of the vp list for
 * schedules that take one (interleaved: chunks(v) varies with v), vp = 1 for
 * the rest. The enumeration index of a candidate is its position in this
 * product; it is decoded on the fly (nothing is materialised), and every tie
 * (objective, Pareto duplicates) breaks by it. dp = gpus/(tp*pp) and
 * m = global-batch/(microbatch*dp) are derived.
 *
 * Defaults ("all valid"): gpus and global batch from the run; tp the
 * divisors of gpus-per-node (--tp-across-nodes adds its multiples up to
 * min(heads, gpus)); pp the divisors of layers; vp the divisors of layers
 * >= 2; microbatch 1, 2, 4, ... up to max-microbatch (64); all recompute
 * modes; sp and distributed optimizer off and on; dp-overlap as in the run;
 * all registered schedules (cx_sched_get(id) != NULL); the run's clock (max
 * when 0) — other clocks only with --clocks, as they only pay off with energy.
 *
 * Rules, checked outermost level first; the first failing rule is the
 * candidate's reject reason, and a rule that fails at level L rejects the
 * whole run of indices sharing the digits above L at once (counted, not
 * visited). The rules of an execution are the execution check's predicates
 * (core/layout/rules.c, with each schedule's own supports()); the sweep adds the
 * restrictions of its space and the duplicates: tp divides gpus-per-node or
 * (across nodes) is a multiple of it; heads, kv-heads and ffn % tp; layers
 * % pp; gpus % (tp*pp); pp = 1 only with single-chunk schedules, and then
 * only the canonical one (1f1b if listed) — the others are the same
 * execution; the schedule's rules on (pp, vp, layers) and the stage limit;
 * global batch % (microbatch*dp); the schedule's rules on the microbatch
 * count m (schedules/); sp with tp = 1, distributed optimizer or
 * dp-overlap with dp = 1 are duplicates unless they are the first value of
 * their list. Evaluated candidates whose peak memory exceeds the limit
 * (--max-memory-gib, default the GPU's capacity) are infeasible. Peak memory
 * depends on neither the clock nor dp-overlap, so a candidate whose class
 * representative (same digits, clock and dp-overlap digits 0) does not fit
 * is rejected for memory without being evaluated (it is not an --all row);
 * this is a pure function of the index, like every other rule.
 * Without --all a candidate's exact peak memory comes first
 * (cx_core_closed_memory, no replay, the cost possibly built for memory
 * only): one that does not fit is counted evaluated and infeasible without
 * being timed (its time reaches no output but --all rows).
 *
 * Objectives are per token so that runs at different global batches and GPU
 * counts compare: time = iteration time / tokens per iteration (the order of
 * iteration time at one batch), energy = J per token, tokens-per-joule its
 * inverse (negated to minimise), gpu-hours = gpus x time per token. The
 * Pareto frontier is over (time per token, energy per token, peak memory),
 * or (time, memory) without energy; a candidate dominates another if it is no
 * worse in every coordinate and better in one, or equal and of lower index,
 * which makes the frontier unique whatever the order of insertion.
 *
 * Pruning (unless --no-prune or --all): schedules without an exact closed
 * form (interleaved, zero-bubble, DualPipeV) are evaluated by replaying
 * their orders, O(pp m v) per candidate. Phase 1 evaluates every candidate
 * of the closed-form schedules (GPipe, 1F1B) exactly; their top K and
 * frontier, merged over threads and gathered on every MPI rank, are a
 * function of the space alone. Phase 2 takes the replayed candidates: for
 * each, cx_core_closed_bound gives its exact peak memory (from the orders,
 * not the times) and lower bounds of its iteration time and energy. Peak
 * memory above the limit: infeasible (as evaluation would find). Otherwise
 * it is skipped ("pruned") iff the K-th phase-1 entry ranks before its
 * bound entry (objective bound, then index: it ranks before the exact one
 * too) and a phase-1 frontier point dominates its bound point (hence its
 * exact point, domination being transitive with the index tie-break); it
 * then can enter neither the final top K nor the frontier, which are thus
 * exactly those of the unpruned sweep. Pruned candidates fit in memory and
 * are counted as feasible (and as pruned), not as evaluated. Which are
 * pruned depends only on the space, so counts too are identical for any
 * thread or rank count.
 *
 * Parallelism: the index space is cut into blocks of BLOCK candidates; MPI
 * rank r of K owns blocks r, r+K, ...; its threads claim them from an atomic
 * counter. Per-thread top-K heaps, frontiers and counts merge by (objective,
 * index), so the merge is order-independent. --all rows go through per-block
 * buffers flushed in block order, with at most WINDOW blocks outstanding per
 * thread (bounded memory); --all needs a single MPI rank.
 * Summary and the pruning bounds: core/README.md, "Sweeps".
 */
#define _POSIX_C_SOURCE 200809L /* sysconf, clock_gettime */

#include "core/search/sweep.h"
#include "core/layout/rules.h"
#include "core/base/base.h"
#include "core/eval/closed.h"
#include "core/eval/cost.h"
#include "core/eval/cost_key.h"
#include "core/eval/graph.h"
#include "core/eval/replay_lanes.h"
#include "core/output/report.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CULONX_HAVE_MPI
#include <mpi.h>
#endif

/* ------------------------------------------------------------ workers */

typedef struct shared shared;

typedef struct {
    shared *sh;
    pthread_t tid;
    int id;
    culonx_run run;
    cx_cost *cost;
    cx_replay_ws *ws;
    uint64_t evaluated, feasible, pruned;
    uint64_t rejected[CULONX_REJECT_COUNT];
    cx_topk top;
    cx_front fr;
    cx_sbuf out;
    int failed;
    /* memory fit of recent class representatives (see run_block) */
    culonx_run rep_run;
    uint64_t rep_idx[REP_MEMO];
    int rep_fits[REP_MEMO]; /* -1: empty */
    unsigned rep_next;
    cx_space_memo memo; /* the enumeration's prefix rules (space.c) */
    /* stage parameters of recent memory checks (closed.h cx_mem_floor) */
    cx_mem_floor floor[MEM_FLOORS];
    unsigned floor_next;
} worker;

static void remember(worker *w, uint64_t rep, int fits)
{
    unsigned k = w->rep_next++ % REP_MEMO;
    w->rep_idx[k] = rep;
    w->rep_fits[k] = fits;
}

struct shared {
    const cx_space *sp;
    const culonx_sweep_spec *spec;
    uint64_t nblocks; /* this rank's */
    int rank, size;
    atomic_uint_fast64_t next; /* next local block (no --all) */
    atomic_uint_fast64_t done; /* candidates processed */
    uint64_t local_total;
    /* --all ordered output */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t claim, flushed;
    cx_sbuf *slots;
    char *ready;
    int nslots;
    int write_failed;
    double last_progress;
    /* pruning (see the file comment): phase 0 = one pass, no pruning;
     * 1 = closed-form schedules only; 2 = replayed schedules, pruned against
     * the exact phase-1 top K and frontier of the whole space (g_top, g_fr) */
    int phase;
    const cx_topk *g_top;
    const cx_front *g_fr;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t block_candidates(const shared *sh, uint64_t gb)
{
    uint64_t lo = gb * BLOCK, hi = lo + BLOCK;
    if (hi > sh->sp->total) hi = sh->sp->total;
    return hi - lo;
}

/* May a candidate whose exact values are bounded below by lb (objective,
 * time, energy, memory; index and exec set) be left out? Only when K exact
 * phase-1 entries all rank before it whatever its exact values (ties break
 * by index, as in the final ranking) and a phase-1 frontier point dominates
 * its bound point, hence its exact point. */
static int prunable(const shared *sh, const culonx_sweep_entry *lb)
{
    const cx_topk *t = sh->g_top;
    if (t->n < t->cap || !cx_core_rank_better(&t->e[0], lb)) return 0;
    cx_point q = cx_core_rank_point(sh->sp, lb);
    if (isnan(q.t) || isnan(q.e) || isnan(q.m)) return 0;
    for (int i = 0; i < sh->g_fr->n; i++)
        if (cx_core_rank_dominates(&sh->g_fr->p[i], &q)) return 1;
    return 0;
}

/* Before a call that builds w->run's cost: whether only the digits of the
 * clock, distributed-optimizer and DP-overlap levels changed since the last
 * such call (emoved: the outermost level changed since), fields of the
 * execution that its cost key folds away (cx_core_cost_key_tail). */
static void tail_word(worker *w, int *emoved)
{
    cx_core_cost_key_tail(cx_core_replay_ws_key(w->ws), &w->run, *emoved > L_OFF);
    *emoved = NLEVELS;
}

/* Processes the candidates of one block; returns how many were settled. */
static uint64_t run_block(worker *w, uint64_t gblock)
{
    const cx_space *sp = w->sh->sp;
    const int phase = w->sh->phase;
    uint64_t lo = gblock * BLOCK, hi = lo + BLOCK;
    if (hi > sp->total) hi = sp->total;
    int d[NLEVELS];
    culonx_sweep_entry x;
    culonx_error err;
    uint64_t idx = lo, settled = 0, didx = UINT64_MAX;
    int moved = 0; /* the outermost level changed since the last rule check (memo) */
    /* and since the last evaluation of w->run (its cost key: tail_word) */
    int emoved = 0;
    /* Clock blocks: candidates that differ only in the clock pass the same
     * rules (no rule reads it) and share the memory representative of
     * their class (below). When the clock-1 block of a strategy (all its
     * dist-opt x dp-overlap candidates) attempted no evaluation, every
     * later clock repeats it exactly: its counts are added once per clock
     * and those candidates skipped. So from the clock-0 block when each of
     * its attempts was its representative's memory check that did not fit
     * (counted evaluated there, not at later clocks, where the rest of the
     * class is rejected by the representative's fit, rejected[] alike). */
    uint64_t cb_start = UINT64_MAX, cb_rej[CULONX_REJECT_COUNT], cb_settled = 0, attempts = 0,
             cb_attempts = 0, misses = 0, cb_misses = 0;
    int cb_clk = 0; /* the clock digit of the block at cb_start */
    const uint64_t cstride = sp->stride[L_CLK];
    while (idx < hi) {
        if (cb_start != UINT64_MAX && idx >= cb_start + cstride) {
            if (idx == cb_start + cstride && attempts - cb_attempts == misses - cb_misses) {
                /* clocks cb_clk + 1 .. */
                const uint64_t k = (uint64_t)(sp->n[L_CLK] - 1 - cb_clk);
                for (int i = 0; i < CULONX_REJECT_COUNT; i++)
                    w->rejected[i] += k * (w->rejected[i] - cb_rej[i]);
                settled += k * (settled - cb_settled);
                idx += k * cstride;
                /* the next strategy: unless d holds it already (a rejected
                 * range ended there), d holds a candidate of this one,
                 * [cb_start - cb_clk * cstride, idx): its last candidate,
                 * stepped */
                if (didx != idx && didx != UINT64_MAX &&
                    didx >= cb_start - (uint64_t)cb_clk * cstride) {
                    for (int l = L_CLK; l < NLEVELS; l++)
                        d[l] = sp->n[l] - 1;
                    const int l = cx_core_space_next(sp, d);
                    moved = l < moved ? l : moved;
                    emoved = l < emoved ? l : emoved;
                    didx = idx;
                } else if (didx != idx) {
                    didx = UINT64_MAX;
                }
            }
            cb_start = UINT64_MAX;
            continue;
        }
        /* consecutive candidates: step the digits, else decode (didx: the
         * index d holds) */
        if (didx != idx) {
            if (didx != UINT64_MAX && idx == didx + 1) {
                const int l = cx_core_space_next(sp, d);
                moved = l < moved ? l : moved;
                emoved = l < emoved ? l : emoved;
            } else {
                cx_core_space_decode(sp, idx, d);
                moved = emoved = 0;
            }
            didx = idx;
        }
        if (phase != 2 && d[L_CLK] <= 1 && d[L_CLK] + 1 < sp->n[L_CLK] && d[L_DOPT] == 0 &&
            d[L_OVL] == 0 && idx + (uint64_t)(sp->n[L_CLK] - d[L_CLK]) * cstride <= hi) {
            cb_start = idx, cb_settled = settled, cb_attempts = attempts, cb_misses = misses;
            cb_clk = d[L_CLK];
            memcpy(cb_rej, w->rejected, sizeof cb_rej);
        }
        int level = 0;
        int r = cx_core_space_check_memo(sp, d, &w->run.exec, &level, &w->memo, moved);
        moved = NLEVELS;
        if (r >= 0) {
            uint64_t s = sp->stride[level];
            uint64_t end = (idx / s + 1) * s;
            if (end > hi) end = hi;
            if (phase != 2) w->rejected[r] += end - idx, settled += end - idx;
            if (end == (idx / s + 1) * s) { /* the digits of end: level + 1, inner 0 */
                for (int l = level + 1; l < NLEVELS; l++)
                    d[l] = 0;
                int l = level;
                for (; l >= 0 && ++d[l] == sp->n[l]; l--)
                    d[l] = 0;
                moved = l < 0 ? 0 : l < moved ? l : moved;
                emoved = l < 0 ? 0 : l < emoved ? l : emoved;
                didx = end;
            }
            idx = end;
            continue;
        }
        int exact = sp->var[d[L_VAR]].exact;
        if ((phase == 1 && !exact) || (phase == 2 && exact)) {
            idx++;
            continue;
        }
        settled++;
        int built = 0;
        if (phase == 2) {
            /* exact memory and lower bounds of time and energy, no replay */
            cx_bound b;
            tail_word(w, &emoved);
            if (cx_core_closed_bound(&w->run, w->run.exec.clock_mhz, w->cost, w->ws, &b, &err) ==
                CULONX_OK) {
                built = 1;
                if (b.peak_bytes > sp->mem_limit) {
                    w->rejected[CULONX_REJECT_MEMORY]++;
                    idx++;
                    continue;
                }
                memset(&x.res, 0, sizeof x.res);
                x.index = idx;
                x.exec = w->run.exec;
                x.res.iteration_time_s = b.time_s;
                x.res.energy.total_j = b.energy_j;
                x.res.memory.peak_bytes = b.peak_bytes;
                x.objective = cx_core_rank_objective(sp, &x.exec, &x.res);
                if (!isnan(b.time_s) && !isnan(b.energy_j) && prunable(w->sh, &x)) {
                    w->pruned++;
                    w->feasible++;
                    idx++;
                    continue;
                }
            }
        }
        /* peak memory depends on neither the clock nor dp-overlap: when the
         * class representative (both digits 0) does not fit, neither does
         * this one, and it is rejected without evaluation */
        uint64_t rep =
            idx - (uint64_t)d[L_CLK] * sp->stride[L_CLK] - (uint64_t)d[L_OVL] * sp->stride[L_OVL];
        int rep_fits = 0; /* the class representative fits: so does this one */
        if (rep != idx && phase != 2) {
            int fits = -1;
            /* the latest entry first (any entry for rep holds its fit) */
            for (unsigned k = 1; k <= REP_MEMO; k++) {
                const unsigned i = (w->rep_next - k) % REP_MEMO;
                if (w->rep_fits[i] >= 0 && w->rep_idx[i] == rep) {
                    fits = w->rep_fits[i];
                    break;
                }
            }
            if (fits < 0) {
                int rd[NLEVELS], lv;
                culonx_run *rr = &w->rep_run;
                cx_core_space_decode(sp, rep, rd);
                fits = cx_core_space_check(sp, rd, &rr->exec, &lv) < 0 &&
                       cx_core_closed_eval_ws(rr, rr->exec.clock_mhz, w->cost, w->ws, &x.res,
                                              &err) == CULONX_OK &&
                       x.res.memory.peak_bytes <= sp->mem_limit;
                remember(w, rep, fits);
            }
            if (!fits) {
                w->rejected[CULONX_REJECT_MEMORY]++;
                idx++;
                continue;
            }
            rep_fits = 1;
        }
        attempts++;
        /* memory first (no --all row wanted): a candidate that does not fit
         * is settled as evaluated and infeasible without timing it (the
         * time, energy and rank of an infeasible candidate reach no output
         * but --all; its exact peak is the one the evaluation reports).
         * Skipped when the class representative fits: the candidate is
         * then timed anyway, and the evaluation's own peak decides (the
         * same counts and outputs whatever the memory check would say). */
        if (!built && phase != 2 && !w->sh->spec->all && !rep_fits) {
            double peak;
            /* a floor of the peak above the limit settles it as the check
             * would (no build: the cost key's word waits, tail_word) */
            culonx_execution fk;
            const int fkey = exact && cx_core_mem_floor_key(&w->run, &fk);
            cx_mem_floor *fl = NULL;
            for (int k = 0; fkey && k < MEM_FLOORS && !fl; k++)
                if (w->floor[k].valid && memcmp(&w->floor[k].key, &fk, sizeof fk) == 0)
                    fl = &w->floor[k];
            if (fl && cx_core_mem_floor(fl, &w->run.exec) > sp->mem_limit) {
                peak = INFINITY;
            } else {
                tail_word(w, &emoved);
                if (cx_core_closed_memory(&w->run, w->run.exec.clock_mhz, w->cost, w->ws, &peak,
                                          &built, &err) != CULONX_OK) {
                    w->rejected[CULONX_REJECT_EVAL]++;
                    idx++;
                    continue;
                }
                if (fkey && !fl)
                    cx_core_mem_floor_take(w->cost, &fk, &w->floor[w->floor_next++ % MEM_FLOORS]);
                else if (fl) /* its activations for this recompute mode */
                    cx_core_mem_floor_take_act(w->cost, fl);
            }
            if (!(peak <= sp->mem_limit)) {
                w->evaluated++;
                misses += rep == idx;
                if (rep == idx) remember(w, idx, 0);
                w->rejected[CULONX_REJECT_MEMORY]++;
                idx++;
                continue;
            }
        }
        if (!built) tail_word(w, &emoved);
        culonx_status st = built ? cx_core_closed_finish(&w->run, w->cost, w->ws, &x.res, &err)
                                 : cx_core_closed_eval_ws(&w->run, w->run.exec.clock_mhz, w->cost,
                                                          w->ws, &x.res, &err);
        if (st != CULONX_OK) {
            w->rejected[CULONX_REJECT_EVAL]++;
            idx++;
            continue;
        }
        w->evaluated++;
        x.index = idx;
        x.exec = w->run.exec;
        x.res.memory.fits = x.res.memory.peak_bytes <= sp->mem_limit;
        if (rep == idx && phase != 2) remember(w, idx, x.res.memory.fits);
        x.objective = cx_core_rank_objective(sp, &x.exec, &x.res);
        if (w->sh->spec->all) cx_core_sweep_row(&w->out, w->sh->spec->all_jsonl, &x);
        /* facility power cap: energy (PUE, node overhead included) / time */
        const double cap = w->sh->spec->power_cap_w;
        if (x.res.memory.fits && cap > 0 && x.res.energy.total_j > cap * x.res.iteration_time_s) {
            w->rejected[CULONX_REJECT_POWER_CAP]++;
        } else if (x.res.memory.fits) {
            w->feasible++;
            cx_core_topk_offer(&w->top, &x);
            cx_point p = cx_core_rank_point(sp, &x);
            cx_core_front_offer(&w->fr, &p, &x);
        } else {
            w->rejected[CULONX_REJECT_MEMORY]++;
        }
        idx++;
    }
    return settled;
}

static void maybe_progress(worker *w)
{
    shared *sh = w->sh;
    if (w->id != 0 || !sh->spec->progress || sh->rank != 0) return;
    double t = now_s();
    if (t - sh->last_progress < 0.2) return;
    sh->last_progress = t;
    sh->spec->progress(sh->spec->progress_ctx, (uint64_t)atomic_load(&sh->done), sh->local_total);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const int ordered = sh->spec->all != NULL;
    for (;;) {
        uint64_t k;
        if (ordered) {
            pthread_mutex_lock(&sh->mu);
            while (sh->claim < sh->nblocks && sh->claim >= sh->flushed + (uint64_t)sh->nslots)
                pthread_cond_wait(&sh->cv, &sh->mu);
            k = sh->claim < sh->nblocks ? sh->claim++ : sh->nblocks;
            pthread_mutex_unlock(&sh->mu);
        } else {
            k = (uint64_t)atomic_fetch_add(&sh->next, 1);
        }
        if (k >= sh->nblocks) break;
        uint64_t gblock = k * (uint64_t)sh->size + (uint64_t)sh->rank;
        w->out.len = 0;
        uint64_t settled = run_block(w, gblock);
        if (ordered) {
            pthread_mutex_lock(&sh->mu);
            cx_sbuf *slot = &sh->slots[k % (uint64_t)sh->nslots];
            cx_sbuf tmp = *slot; /* swap buffers: the worker keeps the slot's old one */
            *slot = w->out;
            w->out = tmp;
            sh->ready[k % (uint64_t)sh->nslots] = 1;
            while (sh->flushed < sh->nblocks && sh->ready[sh->flushed % (uint64_t)sh->nslots]) {
                cx_sbuf *b = &sh->slots[sh->flushed % (uint64_t)sh->nslots];
                if (b->oom) sh->write_failed = 1;
                if (b->len && fwrite(b->buf, 1, b->len, sh->spec->all) != b->len)
                    sh->write_failed = 1;
                b->len = 0;
                sh->ready[sh->flushed % (uint64_t)sh->nslots] = 0;
                sh->flushed++;
            }
            pthread_cond_broadcast(&sh->cv);
            pthread_mutex_unlock(&sh->mu);
        }
        atomic_fetch_add(&sh->done, sh->phase == 0 ? block_candidates(sh, gblock) : settled);
        maybe_progress(w);
    }
    return NULL;
}

/* ------------------------------------------------------------ driver */

culonx_status cx_core_sweep_verify(const culonx_run *run, const culonx_execution *ex,
                                   culonx_result *res, culonx_error *err)
{
    culonx_run *r = malloc(sizeof *r);
    if (!r) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    *r = *run;
    r->exec = *ex;
    cx_graph *g = NULL;
    culonx_status st = cx_core_graph_build(r, ex->clock_mhz, CX_DETAIL_STAGE, &g, err);
    if (st == CULONX_OK) st = cx_core_graph_eval(g, err);
    if (st == CULONX_OK) cx_core_graph_result(g, res);
    cx_core_graph_free(g);
    free(r);
    return st;
}

void culonx_sweep_result_free(culonx_sweep_result *r)
{
    if (!r) return;
    free(r->top);
    free(r->front);
    free(r->verified);
    free(r);
}

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* Runs the current phase of sh on nth workers (the caller is worker 0). */
static void run_phase(shared *sh, worker *ws, int nth)
{
    atomic_store(&sh->next, 0);
    int started = 0;
    for (int i = 1; i < nth; i++) {
        if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) break;
        started = i;
    }
    worker_main(&ws[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(ws[i].tid, NULL);
}

culonx_status culonx_sweep_run(const culonx_run *run, const culonx_sweep_spec *spec,
                               culonx_sweep_result **out, culonx_error *err)
{
    cx_core_error_clear(err);
    *out = NULL;
    if (!run || !spec) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_sweep_run: NULL");
    int rank, size;
    cx_core_mpi_world(&rank, &size);
    if (spec->all && size > 1)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "--all needs a single process (it is written in index order); "
                            "run without mpirun or drop --all");
    cx_space_store *ss = malloc(sizeof *ss);
    culonx_sweep_result *R = calloc(1, sizeof *R);
    cx_cost *probe = malloc(sizeof *probe);
    culonx_status st = CULONX_OK;
    if (!ss || !R || !probe) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
        goto done;
    }
    if ((st = cx_core_space_build(run, spec, ss, err))) goto done;
    cx_space *sp = &ss->sp;

    /* energy: does the power model give any for this run? */
    {
        culonx_result r0;
        culonx_error e0;
        sp->energy = cx_core_closed_eval(run, run->exec.clock_mhz, probe, &r0, &e0) == CULONX_OK &&
                     r0.energy.total_j > 0;
    }
    if (!sp->energy &&
        (spec->objective == CULONX_OBJECTIVE_ENERGY ||
         spec->objective == CULONX_OBJECTIVE_TOKENS_PER_J || spec->power_cap_w > 0)) {
        st = cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                          "--objective %s needs energy, but the power model gives none for %s "
                          "(energy is zero): use --objective time or gpu-hours",
                          culonx_objective_name(spec->objective), run->system.name);
        goto done;
    }

    R->run = *run;
    R->spec = *spec;
    R->spec.all = NULL;
    R->spec.progress = NULL;
    R->spec.progress_ctx = NULL;
    R->spec.top_k = spec->top_k > 0 ? spec->top_k : DEFAULT_TOP_K;
    R->spec.threads = spec->threads > 0 ? spec->threads : online_cores();
    R->spec.max_microbatch =
        spec->max_microbatch > 0 ? spec->max_microbatch : DEFAULT_MAX_MICROBATCH;
    R->enumerated = sp->total;
    R->energy_available = sp->energy;
    R->memory_limit_bytes = sp->mem_limit;
    R->is_root = rank == 0;

    int nth = R->spec.threads;
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.sp = sp;
    sh.spec = spec;
    sh.rank = rank;
    sh.size = size;
    uint64_t gblocks = (sp->total + BLOCK - 1) / BLOCK;
    sh.nblocks = gblocks / (uint64_t)size + ((uint64_t)rank < gblocks % (uint64_t)size ? 1 : 0);
    sh.local_total = 0;
    for (uint64_t k = 0; k < sh.nblocks; k++)
        sh.local_total += block_candidates(&sh, k * (uint64_t)size + (uint64_t)rank);
    atomic_init(&sh.next, 0);
    atomic_init(&sh.done, 0);
    if ((uint64_t)nth > sh.nblocks && sh.nblocks > 0) nth = (int)sh.nblocks;
    if (nth < 1) nth = 1;
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    worker *ws = calloc((size_t)nth, sizeof *ws);
    if (spec->all) {
        sh.nslots = WINDOW * nth;
        sh.slots = calloc((size_t)sh.nslots, sizeof *sh.slots);
        sh.ready = calloc((size_t)sh.nslots, 1);
        if (sh.slots && sh.ready) {
            if (spec->all_jsonl == 0 && fputs(cx_core_sweep_csv_header, spec->all) == EOF)
                sh.write_failed = 1;
        }
    }
    int ok = ws != NULL && (!spec->all || (sh.slots && sh.ready));
    for (int i = 0; ok && i < nth; i++) {
        worker *w = &ws[i];
        w->sh = &sh;
        w->id = i;
        w->run = *run;
        w->rep_run = *run;
        for (int k = 0; k < REP_MEMO; k++)
            w->rep_fits[k] = -1;
        w->cost = malloc(sizeof *w->cost);
        w->ws = cx_core_replay_ws_new();
        /* w->run's model, system and layer split stay; its execution alone
         * changes: the cost key compares only that */
        cx_core_cost_key_pin(cx_core_replay_ws_key(w->ws), &w->run);
        if (w->ws && sp->n[L_CLK] <= CX_REPLAY_LANES_MAX_CLOCKS) {
            /* the clocks a replay memo miss plays at once (clock lanes) */
            double mhz[CX_REPLAY_LANES_MAX_CLOCKS];
            for (int k = 0; k < sp->n[L_CLK]; k++)
                mhz[k] = (double)sp->vals[L_CLK][k];
            cx_core_replay_ws_set_clocks(w->ws, mhz, sp->n[L_CLK]);
        }
        w->top.cap = R->spec.top_k;
        w->top.distinct = cx_core_topk_distinct(R->spec.objective);
        w->top.e = malloc((size_t)w->top.cap * sizeof *w->top.e);
        if (!w->cost || !w->ws || !w->top.e) ok = 0;
    }
    /* pruning: phase 1 evaluates the closed-form schedules of the whole
     * space; their top K and frontier, merged over threads and ranks, are
     * the same for any thread or rank count, and phase 2 prunes the
     * replayed schedules against them */
    /* a power cap rejects after evaluation: bounds cannot prune under it */
    int prune = !spec->no_prune && !spec->all && !(spec->power_cap_w > 0);
    R->pruning_on = prune;
    cx_topk g_top = {NULL, 0, 0, 0};
    cx_front g_fr;
    memset(&g_fr, 0, sizeof g_fr);
    if (ok) {
        sh.last_progress = now_s();
        sh.phase = prune ? 1 : 0;
        run_phase(&sh, ws, nth);
        if (prune) {
            g_top.cap = R->spec.top_k;
            g_top.distinct = cx_core_topk_distinct(R->spec.objective);
            g_top.e = malloc((size_t)g_top.cap * sizeof *g_top.e);
            if (!g_top.e) ok = 0;
            for (int i = 0; ok && i < nth; i++) {
                for (int k = 0; k < ws[i].top.n; k++)
                    cx_core_topk_offer(&g_top, &ws[i].top.e[k]);
                for (int k = 0; k < ws[i].fr.n; k++)
                    cx_core_front_offer(&g_fr, &ws[i].fr.p[k], &ws[i].fr.e[k]);
            }
#ifdef CULONX_HAVE_MPI
            if (size > 1 && g_top.e) {
                int nt = 0, nf = 0;
                culonx_sweep_entry *gt = cx_core_mpi_allgather_entries(g_top.e, g_top.n, size, &nt);
                culonx_sweep_entry *gf = cx_core_mpi_allgather_entries(g_fr.e, g_fr.n, size, &nf);
                if (!gt || !gf) ok = 0;
                g_top.n = 0, g_fr.n = 0;
                for (int k = 0; ok && k < nt; k++)
                    cx_core_topk_offer(&g_top, &gt[k]);
                for (int k = 0; ok && k < nf; k++) {
                    cx_point p = cx_core_rank_point(sp, &gf[k]);
                    cx_core_front_offer(&g_fr, &p, &gf[k]);
                }
                free(gt);
                free(gf);
            }
#endif
            if (g_fr.oom) ok = 0;
            /* every rank goes on (collectives follow); with ok = 0 phase 2
             * prunes nothing */
            if (!ok) g_top.n = 0, g_fr.n = 0;
            if (g_top.e) {
                sh.g_top = &g_top;
                sh.g_fr = &g_fr;
                sh.phase = 2;
                run_phase(&sh, ws, nth);
            }
        }
        if (spec->progress && rank == 0)
            spec->progress(spec->progress_ctx, sh.local_total, sh.local_total);
    }
    free(g_top.e);
    cx_core_front_free(&g_fr);

    /* merge the threads */
    cx_topk all_top = {NULL, 0, 0, 0};
    cx_front all_fr;
    memset(&all_fr, 0, sizeof all_fr);
    all_top.cap = R->spec.top_k;
    all_top.distinct = cx_core_topk_distinct(R->spec.objective);
    all_top.e = ok ? malloc((size_t)all_top.cap * sizeof *all_top.e) : NULL;
    if (!all_top.e) ok = 0;
    uint64_t counts[4 + CULONX_REJECT_COUNT];
    memset(counts, 0, sizeof counts);
    for (int i = 0; ok && i < nth; i++) {
        worker *w = &ws[i];
        counts[0] += w->evaluated, counts[1] += w->feasible;
        counts[3 + CULONX_REJECT_COUNT] += w->pruned;
        for (int r = 0; r < CULONX_REJECT_COUNT; r++)
            counts[3 + r] += w->rejected[r];
        for (int k = 0; k < w->top.n; k++)
            cx_core_topk_offer(&all_top, &w->top.e[k]);
        for (int k = 0; k < w->fr.n; k++)
            cx_core_front_offer(&all_fr, &w->fr.p[k], &w->fr.e[k]);
        if (w->fr.oom || w->out.oom) ok = 0;
    }
    if (!all_top.e || all_fr.oom) ok = 0;
    counts[2] = ok ? 0 : 1;
    if (sh.write_failed && ok) {
        ok = 0;
        counts[2] = 2;
    }

#ifdef CULONX_HAVE_MPI
    if (size > 1) {
        uint64_t sum[4 + CULONX_REJECT_COUNT];
        MPI_Reduce(counts, sum, 4 + CULONX_REJECT_COUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        int nt = 0, nf = 0;
        culonx_sweep_entry *gt = cx_core_mpi_gather_entries(all_top.e, all_top.n, rank, size, &nt);
        culonx_sweep_entry *gf = cx_core_mpi_gather_entries(all_fr.e, all_fr.n, rank, size, &nf);
        if (rank == 0) {
            memcpy(counts, sum, sizeof counts);
            all_top.n = 0;
            for (int k = 0; k < nt; k++)
                cx_core_topk_offer(&all_top, &gt[k]);
            all_fr.n = 0;
            for (int k = 0; k < nf; k++) {
                cx_point p = cx_core_rank_point(sp, &gf[k]);
                cx_core_front_offer(&all_fr, &p, &gf[k]);
            }
            ok = ok && counts[2] == 0 && !all_fr.oom;
        }
        free(gt);
        free(gf);
    }
#endif
    if (!ok) {
        st = counts[2] == 2 || sh.write_failed
                 ? cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "error writing the --all file")
                 : cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    } else {
        R->evaluated = counts[0];
        R->feasible = counts[1];
        R->pruned = counts[3 + CULONX_REJECT_COUNT];
        for (int r = 0; r < CULONX_REJECT_COUNT; r++)
            R->rejected[r] = counts[3 + r];
        if (all_top.n > 0) qsort(all_top.e, (size_t)all_top.n, sizeof *all_top.e, cx_core_rank_cmp);
        R->top = all_top.e, R->ntop = all_top.n;
        all_top.e = NULL;
        if (all_fr.n > 0) qsort(all_fr.e, (size_t)all_fr.n, sizeof *all_fr.e, cx_core_front_cmp);
        R->front = all_fr.e, R->nfront = all_fr.n;
        all_fr.e = NULL;
        R->verify_status = CULONX_OK;
        if (R->spec.verify_k > 0 && rank == 0 && R->ntop > 0) {
            int nv = R->spec.verify_k < R->ntop ? R->spec.verify_k : R->ntop;
            R->verified = calloc((size_t)nv, sizeof *R->verified);
            if (!R->verified) {
                st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
            } else {
                for (int i = 0; i < nv && R->verify_status == CULONX_OK; i++) {
                    culonx_error ve;
                    R->verify_status =
                        (int)cx_core_sweep_verify(run, &R->top[i].exec, &R->verified[i], &ve);
                    if (R->verify_status == CULONX_OK) R->nverified = i + 1;
                }
            }
        }
    }
    free(all_top.e);
    cx_core_front_free(&all_fr);
    for (int i = 0; ws && i < nth; i++) {
        free(ws[i].cost);
        cx_core_replay_ws_free(ws[i].ws);
        free(ws[i].top.e);
        cx_core_front_free(&ws[i].fr);
        free(ws[i].out.buf);
    }
    if (sh.slots)
        for (int i = 0; i < sh.nslots; i++)
            free(sh.slots[i].buf);
    free(sh.slots);
    free(sh.ready);
    free(ws);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
done:
    free(probe);
    free(ss);
    if (st == CULONX_OK)
        *out = R;
    else
        culonx_sweep_result_free(R);
    return st;
}
