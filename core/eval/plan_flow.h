/*
 * plan_flow.h — maximum flow (Dinic, floating-point capacities) for the
 * clock-plan cut engines (core/eval/plan_cut.c, core/eval/plan_exact.c):
 * the minimum cuts of Phillips & Dessouky and the circulations with lower
 * bounds of the LP certificate. See core/README.md, "Clock plans".
 */
#ifndef CX_CORE_PLAN_FLOW_H
#define CX_CORE_PLAN_FLOW_H

#include <stdint.h>

#define CX_FLOW_INF 1e30

typedef struct {
    int32_t to, next;
    double cap;
} cx_fedge;

typedef struct cx_flownet {
    int32_t nv, ne, cape;
    int32_t *head, *level, *it, *queue;
    cx_fedge *e;
    double work; /* vertices and arcs scanned by the searches (a budget) */
} cx_flownet;

/* Empties the network and sizes it for nv vertices; 0 when out of memory. */
int cx_core_fn_reset(cx_flownet *f, int32_t nv);
/* Edge u->v of capacity cap and its reverse (id ^ 1); returns the id, -1
 * when out of memory. */
int32_t cx_core_fn_add(cx_flownet *f, int32_t u, int32_t v, double cap);
/* Levels by residual capacity > eps from s (level -1: unreached); 1 when t
 * is reached (or t < 0). */
int cx_core_fn_bfs(cx_flownet *f, int32_t s, int32_t t, double eps);
/* Reverse reach: mark[v] = 1 where v reaches t by residual capacity > eps. */
void cx_core_fn_rbfs(cx_flownet *f, int32_t t, double eps, char *mark);
/* Maximum flow s -> t (residual capacities left in f->e); path: scratch
 * of nv entries. */
double cx_core_fn_maxflow(cx_flownet *f, int32_t s, int32_t t, double eps, int32_t *path);
void cx_core_fn_free(cx_flownet *f);

#endif
