/*
 * sched.h — pipeline schedules: per-stage order of forward (F), input-gradient
 * (B) and weight-gradient (W) work, closed-form bubble, and activations in
 * flight. One file per schedule in schedules/, listed by a registry.
 *
 * Model: the network is cut into p*v "virtual stages" (chunks); physical
 * stage `stage` (0..p-1) holds chunks 0..v-1, and chunk c of stage s is
 * virtual stage vstage(p, v, s, c). Microbatch mb flows F through virtual
 * stages 0..p*v-1 in order, then B back from p*v-1 to 0; W(mb, vs) needs
 * B(mb, vs). Schedules that do not split B and W emit CX_WORK_BW items
 * (B and W fused). This header depends only on culonx.h.
 */
#ifndef CX_SCHED_H
#define CX_SCHED_H

#include "culonx.h"

#include <stdint.h>

typedef enum { CX_WORK_F = 0, CX_WORK_B = 1, CX_WORK_W = 2, CX_WORK_BW = 3 } cx_work_kind;

typedef struct {
    uint8_t kind;  /* cx_work_kind */
    uint8_t chunk; /* 0..v-1 on this stage */
    int32_t mb;    /* microbatch 0..m-1 */
} cx_sched_item;

typedef struct {
    const char *name; /* as in execution.schedule */
    culonx_schedule id;
    int splits_bw;    /* emits separate B and W items */
    /* chunks per stage for a requested v (execution.vp): interleaved uses v,
     * V-shaped schedules always 2, the rest 1. */
    int (*chunks)(int v_requested);
    /* which virtual stage chunk c of stage s is */
    int (*vstage)(int p, int v, int stage, int chunk);
    /* Writes the ordered work of `stage` into out (capacity cap, which must be
     * >= 3*m*v); returns the count, or -1 if (p, m, v) is not supported
     * (e.g. interleaved needs m >= p... see the file). */
    int (*order)(int p, int m, int v, int stage, cx_sched_item *out, int cap);
    /* closed-form bubble time per iteration for uniform stages with per-
     * microbatch, per-stage times F, B, W (whole stage, all chunks) */
    double (*bubble_s)(int p, int m, int v, double f_s, double b_s, double w_s);
    /* peak activations held on `stage`, in units of one microbatch's
     * activations for the whole stage (all chunks): 1F1B stage 0 = p */
    double (*inflight)(int p, int m, int v, int stage);
    /* weight copies held per stage (DualPipe: 2), 1 otherwise */
    int weight_copies;
    /* p2p messages per microbatch per stage boundary relative to 1F1B */
    double p2p_factor;
} cx_sched_desc;

/* NULL if id is out of range. */
const cx_sched_desc *cx_sched_get(culonx_schedule id);
const cx_sched_desc *cx_sched_find(const char *name);

#endif
