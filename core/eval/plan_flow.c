/*
 * plan_flow.c — Dinic maximum flow with floating-point capacities for the
 * clock-plan engines (plan_flow.h): breadth-first levels, then blocking
 * flows by an iterative depth-first search over an explicit path. Residual
 * capacities below eps count as saturated. See core/README.md, "Clock plans".
 */
#include "core/eval/plan_flow.h"

#include <stdlib.h>

int cx_core_fn_reset(cx_flownet *f, int32_t nv)
{
    if (nv > f->nv) {
        free(f->head), free(f->level), free(f->it), free(f->queue);
        f->head = malloc(sizeof(int32_t) * (size_t)nv);
        f->level = malloc(sizeof(int32_t) * (size_t)nv);
        f->it = malloc(sizeof(int32_t) * (size_t)nv);
        f->queue = malloc(sizeof(int32_t) * (size_t)nv);
        if (!f->head || !f->level || !f->it || !f->queue) return 0;
    }
    f->nv = nv;
    f->ne = 0;
    for (int32_t i = 0; i < nv; i++)
        f->head[i] = -1;
    return 1;
}

/* edge u->v with capacity cap and its reverse (id ^ 1); returns the id */
int32_t cx_core_fn_add(cx_flownet *f, int32_t u, int32_t v, double cap)
{
    if (f->ne + 2 > f->cape) {
        int32_t nc = f->cape ? 2 * f->cape : 1024;
        cx_fedge *ne = realloc(f->e, sizeof *ne * (size_t)nc);
        if (!ne) return -1;
        f->e = ne, f->cape = nc;
    }
    int32_t id = f->ne;
    f->e[id] = (cx_fedge){v, f->head[u], cap};
    f->head[u] = id;
    f->e[id + 1] = (cx_fedge){u, f->head[v], 0.0};
    f->head[v] = id + 1;
    f->ne += 2;
    return id;
}

int cx_core_fn_bfs(cx_flownet *f, int32_t s, int32_t t, double eps)
{
    for (int32_t i = 0; i < f->nv; i++)
        f->level[i] = -1;
    int32_t qh = 0, qt = 0;
    f->queue[qt++] = s;
    f->level[s] = 0;
    while (qh < qt) {
        int32_t u = f->queue[qh++];
        for (int32_t k = f->head[u]; k >= 0; k = f->e[k].next, f->work++)
            if (f->e[k].cap > eps && f->level[f->e[k].to] < 0) {
                f->level[f->e[k].to] = f->level[u] + 1;
                f->queue[qt++] = f->e[k].to;
            }
    }
    return t < 0 || f->level[t] >= 0;
}

void cx_core_fn_rbfs(cx_flownet *f, int32_t t, double eps, char *mark)
{
    for (int32_t i = 0; i < f->nv; i++)
        mark[i] = 0;
    int32_t qh = 0, qt = 0;
    f->queue[qt++] = t;
    mark[t] = 1;
    while (qh < qt) {
        int32_t u = f->queue[qh++];
        for (int32_t k = f->head[u]; k >= 0; k = f->e[k].next, f->work++) {
            int32_t v = f->e[k].to; /* the arc v -> u is k ^ 1 */
            if (!mark[v] && f->e[k ^ 1].cap > eps) mark[v] = 1, f->queue[qt++] = v;
        }
    }
}

/* blocking-flow DFS, iterative over an explicit path */
static double fn_push(cx_flownet *f, int32_t s, int32_t t, double eps, int32_t *path)
{
    double total = 0;
    for (;;) {
        int32_t depth = 0, u = s;
        for (;;) {
            if (u == t) break;
            int32_t k = f->it[u];
            while (k >= 0 && !(f->e[k].cap > eps && f->level[f->e[k].to] == f->level[u] + 1))
                k = f->e[k].next, f->work++;
            f->it[u] = k;
            if (k < 0) { /* dead end: retreat */
                if (depth == 0) return total;
                f->level[u] = -1;
                depth--;
                u = f->e[path[depth] ^ 1].to;
                continue;
            }
            path[depth++] = k;
            u = f->e[k].to;
        }
        double b = CX_FLOW_INF * 4;
        for (int32_t i = 0; i < depth; i++)
            if (f->e[path[i]].cap < b) b = f->e[path[i]].cap;
        for (int32_t i = 0; i < depth; i++) {
            f->e[path[i]].cap -= b;
            f->e[path[i] ^ 1].cap += b;
        }
        total += b;
    }
}

double cx_core_fn_maxflow(cx_flownet *f, int32_t s, int32_t t, double eps, int32_t *path)
{
    double flow = 0;
    while (cx_core_fn_bfs(f, s, t, eps)) {
        for (int32_t i = 0; i < f->nv; i++)
            f->it[i] = f->head[i];
        double pushed = fn_push(f, s, t, eps, path);
        flow += pushed;
        if (pushed <= 0) break;
    }
    return flow;
}

void cx_core_fn_free(cx_flownet *f)
{
    free(f->head), free(f->level), free(f->it), free(f->queue), free(f->e);
}
