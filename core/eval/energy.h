/*
 * energy.h — energy-to-completion of an iteration from its costs (closed
 * form) or its DAG (graph engine); see energy.c for the model.
 * See core/README.md, "Energy".
 */
#ifndef CX_CORE_ENERGY_H
#define CX_CORE_ENERGY_H

#include "core/eval/cost.h"

/* Fills res->energy and res->avg_power_w (and energy_to_train_j) given
 * per-stage GPU compute energy and busy compute time over the iteration. */
void cx_core_energy_finish(const cx_cost *c, const double *stage_compute_j,
                           const double *stage_busy_s, const double *stage_hbm_j,
                           culonx_result *res);

/* The whole energy result of an iteration whose res->iteration_time_s (and
 * iterations) is known: every stage runs m microbatches of its chunks'
 * passes and the optimizer step; the rest of the iteration is blocked. */
void cx_core_energy_result(const cx_cost *c, culonx_result *res);

/* That result in two steps (the same bits): the sums over the stages at
 * iteration time T (acc: compute J, idle s, HBM J, unused), which read no
 * other field of the result, then the result from them once
 * res->iteration_time_s is T and res->iterations is set. closed.c starts
 * the sums (a chain of dependent adds) before its other result work. */
void cx_core_energy_runs(const cx_cost *c, double T, double acc[4]);
void cx_core_energy_from_runs(const cx_cost *c, const double acc[4], culonx_result *res);

/* The terms of that result that read only one pricing of c (closed.c keeps
 * them in cx_closed_sums for its evaluations): the nodes, and the network
 * bits per tier of TP and PP traffic, given the ranks per stage. */
void cx_core_energy_sums(const cx_cost *c, double stage_ranks, double *nodes,
                         double bits[CULONX_MAX_TIERS]);

#endif
