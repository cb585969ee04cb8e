/*
 * sweep.h — internals of the sweep (core/search/): the space and its rules
 * (space.c), ranking (rank.c), options (options.c), the threaded driver
 * (sweep.c), MPI (mpi.c); re-evaluation of a candidate with the graph engine
 * (--verify) and the space size, exposed for tests and the benchmark. The
 * rows and reports are written by core/output/sweep_rows.c and
 * sweep_report.c.
 */
#ifndef CX_CORE_SWEEP_H
#define CX_CORE_SWEEP_H

#include "culonx.h"
#include "schedules/sched.h"

#include <stdint.h>

#define BLOCK 2048   /* candidates per work unit */
#define REP_MEMO 8   /* memory-fit memo entries per worker */
#define MEM_FLOORS 4 /* memory floors per worker (closed.h cx_mem_floor) */
#define WINDOW 4     /* --all: blocks in flight per thread */
#define DEFAULT_TOP_K 10
#define DEFAULT_MAX_MICROBATCH 64
#define MAX_TOP_K 100000
#define MAX_THREADS 1024
#define MAX_INT_VALUE 1000000000LL

/* internal levels (the public dims with schedule and vp fused) */
enum {
    L_GPUS,
    L_GB,
    L_TP,
    L_CP,
    L_PP,
    L_VAR,
    L_MB,
    L_RC,
    L_SP,
    L_ATT,
    L_TPO,
    L_EP,
    L_ETP,
    L_ZERO,
    L_SHARD,
    L_OFF,
    L_CLK,
    L_DOPT,
    L_OVL,
    NLEVELS
};

typedef struct {
    int sched; /* culonx_schedule */
    const cx_sched_desc *desc;
    int64_t vp; /* requested vp (1 for schedules that take none) */
    int chunks; /* per stage */
    int exact;  /* closed form without replay (cx_sched_desc.closed_exact) */
} cx_variant;

typedef struct {
    const culonx_run *run;
    const int64_t *vals[NLEVELS]; /* L_VAR: unused */
    int n[NLEVELS];
    cx_variant *var;
    uint64_t stride[NLEVELS];
    uint64_t total;
    int canon_var; /* the variant evaluated at pp = 1 (-1: none) */
    int64_t gpn;
    int tp_across;
    int64_t gb_min, gb_max;
    double mem_limit;
    culonx_objective obj;
    int energy;
    /* the zero level lists 1, the shard-group level lists 0 (check_tail) */
    int zero_lists1, shard_lists0;
} cx_space;

/* The space of a spec: value lists (defaults materialised) and variants. */
typedef struct {
    cx_space sp;
    culonx_sweep_list lists[NLEVELS]; /* defaults materialised */
    cx_variant var[CULONX_SCHED_MAX * CULONX_SWEEP_MAX_VALUES];
} cx_space_store;

/* top K by (objective, index): a max-heap of the worst kept entry; with
 * distinct, one entry per strategy (every execution field but the clock):
 * the best clock of each (cx_core_topk_distinct) */
typedef struct {
    culonx_sweep_entry *e; /* max-heap: the worst kept entry at e[0] */
    int n, cap;
    int distinct;
} cx_topk;

/* Does the top K of this objective list distinct strategies? Yes for time
 * and GPU-hours (a slower clock of the same strategy is never better); no
 * for energy and tokens per joule, where the clock is the question. */
int cx_core_topk_distinct(culonx_objective obj);

typedef struct {
    double t, e, m;
    uint64_t idx;
} cx_point;

typedef struct {
    cx_point *p;
    culonx_sweep_entry *e;
    double *pt, *pe, *pm; /* p's t, e and m by field (cx_core_front_offer's scan) */
    int n, cap;
    int oom;
    int hint; /* the last point found dominating an offer (cx_core_front_offer) */
} cx_front;

/* Fills st from run and spec (defaults of every dimension). */
culonx_status cx_core_space_build(const culonx_run *run, const culonx_sweep_spec *spec,
                                  cx_space_store *st, culonx_error *err);
/* Digits of an enumeration index. */
void cx_core_space_decode(const cx_space *sp, uint64_t idx, int d[NLEVELS]);
/* The digits of index idx + 1 from those of idx (no division); returns
 * the outermost level whose digit changed (0 when all wrapped). */
int cx_core_space_next(const cx_space *sp, int d[NLEVELS]);
/* The first failing rule of digits d (a culonx_sweep_reject) and its level
 * in *level, or -1 when valid; fills ex. */
int cx_core_space_check(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex, int *level);
/* The outcome of the levels up to L_VAR (layout, schedule) for their
 * digits, kept between calls (one per worker; zeroed: empty). */
typedef struct {
    int valid;
    int d[L_VAR + 1];
    int r, level; /* the prefix's first failing rule and level, or r = -1 */
    int64_t dp;
    /* and of the levels L_MB..L_OFF (no rule of theirs reads a digit
     * below): the sweep's clock, distributed-optimizer and DP-overlap
     * levels check only their own rules */
    int mid_valid;
    int md[L_OFF + 1];
    int mr, mlevel;
    int64_t mdp; /* the prefix's dp for md */
    /* the execution the tail's rules last filled whole for md (NULL: none) */
    const culonx_execution *tail_ex;
    /* the last call passed the rules of md (its digits up to L_OFF) */
    int tail_ready;
} cx_space_memo;
/* cx_core_space_check, with the prefix's rules taken from m when its
 * digits are m's: the same result. moved: the outermost level whose digit
 * may differ from those of m's last call (0: unknown); above L_OFF only the
 * tail's rules are checked when that call passed the others. */
int cx_core_space_check_memo(const cx_space *sp, const int d[NLEVELS], culonx_execution *ex,
                             int *level, cx_space_memo *m, int moved);

/* Ranking (rank.c): objective per token, order, top K, Pareto frontier. */
double cx_core_rank_objective(const cx_space *sp, const culonx_execution *ex,
                              const culonx_result *r);
int cx_core_rank_better(const culonx_sweep_entry *a, const culonx_sweep_entry *b);
int cx_core_rank_cmp(const void *x, const void *y); /* qsort: best first */
void cx_core_topk_offer(cx_topk *h, const culonx_sweep_entry *x);
cx_point cx_core_rank_point(const cx_space *sp, const culonx_sweep_entry *x);
int cx_core_rank_dominates(const cx_point *a, const cx_point *b);
void cx_core_front_offer(cx_front *f, const cx_point *x, const culonx_sweep_entry *xe);
/* Frees f's arrays (f itself is the caller's). */
void cx_core_front_free(cx_front *f);
int cx_core_front_cmp(const void *x, const void *y); /* qsort: by time, then index */

/* MPI (mpi.c): the world (rank 0 of 1 without MPI) and entry gathers. */
void cx_core_mpi_world(int *rank, int *size);
#ifdef CULONX_HAVE_MPI
culonx_sweep_entry *cx_core_mpi_gather_entries(const culonx_sweep_entry *e, int n, int rank,
                                               int size, int *total);
culonx_sweep_entry *cx_core_mpi_allgather_entries(const culonx_sweep_entry *e, int n, int size,
                                                  int *total);
#endif

/* Re-evaluates one execution of `run` with the graph engine (core/eval/walk.c,
 * core/eval/graph_eval.c; stage detail) for --verify. */
culonx_status cx_core_sweep_verify(const culonx_run *run, const culonx_execution *ex,
                                   culonx_result *res, culonx_error *err);

/* Number of candidates in the space of `spec` (defaults filled from run);
 * 0 with err set when the spec is unusable. */
uint64_t cx_core_sweep_size(const culonx_run *run, const culonx_sweep_spec *spec,
                            culonx_error *err);

#endif
