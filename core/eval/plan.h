/*
 * plan.h — the time–energy frontier of a DAG whose nodes each choose a
 * duration on a convex, decreasing cost curve (core/eval/plan_cut.c), and the
 * clock plans of a training iteration built on it (core/eval/plan.c).
 * See core/README.md, "Clock plans".
 */
#ifndef CX_CORE_PLAN_H
#define CX_CORE_PLAN_H

#include "core/base/base.h"

#define CX_PLAN_NPRED 4

/* Node i runs for a duration on the piecewise-linear curve of its class
 * cls[i]: points (t, c) hoff[k] .. hoff[k+1]-1 of class k, t increasing,
 * c decreasing, slopes increasing (convex); one point = fixed duration.
 * Between two points the node time-shares the two clocks. */
typedef struct {
    int64_t n;
    const int32_t *pred; /* [n * CX_PLAN_NPRED], -1 = none */
    const int32_t *cls;  /* [n] */
    int nclass;
    const int32_t *hoff; /* [nclass + 1] */
    const double *ht, *hc;
} cx_plan_dag;

typedef struct {
    double time_s, cost; /* makespan and sum of node costs */
} cx_plan_break;

typedef struct {
    cx_plan_break *brk; /* frontier breakpoints, slowest first, malloc'd */
    int nbrk;
    double *dur_s;      /* [n] durations at the snapshot time (malloc'd) */
    double snap_time_s; /* makespan of the snapshot */
    int64_t cuts;       /* min cuts solved */
    int uncertified;    /* exact points whose descent ran out of steps */
} cx_plan_frontier;

/* Phillips–Dessouky: from every node at its cheapest (longest) duration,
 * repeatedly shorten the makespan through a minimum cut of the critical
 * subgraph, step lengths set by the next event, until the makespan cannot
 * fall; records every breakpoint (exact frontier of the LP of the
 * convex-hull curves) and the durations when the makespan reaches
 * snap_time_s (<= 0: the fastest). */
culonx_status cx_core_plan_frontier(const cx_plan_dag *d, double snap_time_s, cx_plan_frontier *out,
                                    culonx_error *err);
/* The frontier at npoints times evenly spread from the fastest to the
 * slowest (breakpoints slowest first) and the plan at snap_time_s (<= 0:
 * the fastest) in linear passes (core/eval/plan_fast.c): the best of a
 * common-price plan and a single-clock plan (udur[k * nu + q]: duration of
 * class k at clock q), slack reclaimed. Not exact; never worse than one
 * clock. slow_s[k] (NULL: the curves' ends): class durations whose makespan
 * is the slowest time of the frontier. exact: each plan is then carried to
 * the LP optimum at its time by cx_core_plan_descent (exact at every point;
 * cuts counts the descent's steps); max_steps > 0: at most that many cuts
 * per point, the points where they run out counted in out->uncertified. */
culonx_status cx_core_plan_fast(const cx_plan_dag *d, const double *udur, int nu, int npoints,
                                const double *slow_s, double snap_time_s, int exact,
                                int64_t max_steps, cx_plan_frontier *out, culonx_error *err);
void cx_core_plan_frontier_free(cx_plan_frontier *f);

/* Cut descent to the exact LP optimum at one time (core/eval/plan_exact.c):
 * workspace over a DAG with its topological order and successors (CSR
 * soff/succ, borrowed). */
struct cx_flownet;
/* Series contraction (core/eval/plan_series.c): every chain of exclusive
 * links (a node whose one successor has it as its one predecessor) one
 * node whose curve is the members' series composition (hull segments
 * merged by slope); the LP over d is the LP over c->d. */
typedef struct {
    cx_plan_dag d;         /* contracted (d0's arrays where nothing merged) */
    const cx_plan_dag *d0; /* as given */
    int64_t merged;        /* nodes merged into a predecessor's chain */
    int32_t *rof;          /* [d0 node]: its contracted node */
    int32_t *moff, *mem;   /* contracted x: members mem[moff[x] .. moff[x+1]), in order */
    int32_t *own;          /* composite point j: member lengthened on segment j -> j+1 */
    int32_t *pred, *cls, *hoff, *soff; /* owned arrays of d (soff: successor counts) */
    double *ht, *hc, *sl; /* sl[j]: slope of the segment after point j (0 at the last) */
} cx_plan_series;
/* contract = 0: d as given. 1 on success, 0 when out of memory. */
int cx_core_plan_series_build(cx_plan_series *c, const cx_plan_dag *d, const int32_t *soff,
                              int contract);
void cx_core_plan_series_free(cx_plan_series *c);
/* a plan of d0 (earliest starts es, durations dur) as one of c->d */
void cx_core_plan_series_gather(const cx_plan_series *c, const double *es, const double *dur,
                                double *ces, double *cdur);
/* durations of c->d split over the members (each chain's cheapest split) */
void cx_core_plan_series_split(const cx_plan_series *c, const double *cdur, double *dur);
/* The dual min-cost circulation by cost scaling (core/eval/plan_scale.c),
 * over the series contraction of d when contract is 1. */
typedef struct cx_plan_scale cx_plan_scale;
cx_plan_scale *cx_core_plan_scale_new(const cx_plan_dag *d, const int32_t *soff,
                                      int contract); /* NULL: OOM */
void cx_core_plan_scale_free(cx_plan_scale *S);      /* NULL-safe */
/* The LP optimum at T into dur (every node), warm from the previous call's
 * flow and prices (the first call starts from the prices of the plan
 * `start` with earliest starts es): 1 with dur optimal (exact prices), 2
 * with dur from eps-optimal prices (nearly optimal, possibly past T by
 * rounding), 0 when it ran out of work budget (dur untouched), -2 internal
 * error; adds its refine phases to *work. */
int cx_core_plan_scale_solve(cx_plan_scale *S, double T, const double *es, const double *start,
                             double *dur, int64_t *work);
/* The next solve starts cold (from the plan it is given). */
void cx_core_plan_scale_cold(cx_plan_scale *S);
typedef struct {
    const cx_plan_dag *d;
    const int32_t *order, *soff, *succ;
    double *es, *ls, *rate, *l0, *sg, *lower, *upper, *lim, *dl, *dr, *ex, *ev, *hd;
    int32_t *map, *crit, *arc, *path, *hi;
    int64_t nheap;
    struct cx_flownet *fn;
    cx_plan_scale *sc; /* set by init: the descent starts from its optimum */
    int no_scale;      /* 1: plain cut descent (the reference in tests) */
    int certify;       /* 1: the descent checks the solver's optimum too */
    int solved;        /* the solver ran before: its next start is warm */
    int64_t scale_work;
} cx_plan_descent;
/* 1 on success, 0 when out of memory (free it either way). */
int cx_core_plan_descent_init(cx_plan_descent *D, const cx_plan_dag *d, const int32_t *order,
                              const int32_t *soff, const int32_t *succ);
void cx_core_plan_descent_free(cx_plan_descent *D);
/* From durations dur whose makespan is at most T (to 1e-12), descends to
 * the minimum of sum_i c_i at makespan <= T, in place. Returns 1 at the
 * optimum (KKT conditions hold), 0 after max_steps cuts, -1 out of memory,
 * -2 internal inconsistency; adds the cuts solved to *steps. */
int cx_core_plan_descent(cx_plan_descent *D, double T, double *dur, int64_t max_steps,
                         int64_t *steps);
/* A lower bound (LP weak duality, plan_cut.c) on sum_i c_i of any plan
 * whose makespan is at most that of durations dur: *certified = 1 when the
 * dual (KKT) flow of dur's critical subgraph exists (then the bound is
 * tight except for non-critical nodes above their cheapest cost), 2 from
 * that circulation with overflow past the upper bounds, 3 from a maximum
 * flow of the critical subgraph within its upper bounds, 0 the trivial sum
 * of the cheapest costs (no critical subgraph). */
culonx_status cx_core_plan_bound(const cx_plan_dag *d, const double *dur, double *bound,
                                 int *certified, culonx_error *err);
/* Work budget of the bound's widening rounds (cx_core_plan_bound): arcs
 * and vertices its flow searches may scan (core/README.md, "Clock plans",
 * has what it buys on the shipped runs). */
#define CX_BOUND_WORK 4e8
/* The same with a work budget for the widening rounds (vertices and arcs
 * the flow searches scan; cx_core_plan_bound: CX_BOUND_WORK): *certified
 * = 4 when the circulation exists once the node arcs on its minimum cuts
 * are widened by hull segments (each widening only loosens the flow's
 * bounds: still a flow, still a bound by weak duality). */
culonx_status cx_core_plan_bound_work(const cx_plan_dag *d, const double *dur, double budget,
                                      double *bound, int *certified, culonx_error *err);
/* Makespan of the DAG with durations dur (longest path). */
double cx_core_plan_makespan(const cx_plan_dag *d, const double *dur);
/* Cost of class k at duration t (interpolated on its curve). */
double cx_core_plan_cost(const cx_plan_dag *d, int k, double t);

/* Per node of the stage-level iteration DAG (cx_core_graph_build at the
 * GPU's max clock, node order), at the plan's chosen point: duration,
 * clock (MHz; 0 for communication, which keeps its cost) and energy per GPU
 * (compute: E + P_b x TP wait, as the graph's nodes carry it). */
typedef struct {
    int64_t n;
    double *dur_s, *clock_mhz, *energy_j;
} cx_plan_nodes;

/* culonx_plan, plus the chosen point per node when pn is non-NULL. */
culonx_status cx_core_plan_run(const culonx_run *run, const culonx_plan_options *opts,
                               culonx_plan_result *res, cx_plan_nodes *pn, culonx_error *err);
void cx_core_plan_nodes_free(cx_plan_nodes *pn); /* NULL-safe */

#endif
