/*
 * plan_series.c — series contraction of the clock-plan DAG (plan.h) for the
 * dual solver of core/eval/plan_scale.c: a chain of nodes u1 -> u2 -> ...
 * -> uk in which each link is exclusive (u_j has no other successor,
 * u_(j+1) no other predecessor) is one node whose curve is the series
 * composition (infimal convolution) of the members' curves: from every
 * member at its fastest point, lengthen the member saving the most per
 * second first, i.e. the members' hull segments merged by slope, steepest
 * first. Exact for the LP (plan.h): the members run back to back in any
 * schedule that does not delay the chain's successors (nothing else
 * waits on the inner links), so the chain's cost at a total duration is
 * the least sum of the members' convex costs over the splits, and the
 * merged segments give that least sum and a split achieving it
 * (cx_core_plan_series_split). In megatron-1t and every 1F1B run with full
 * recomputation each microbatch's recompute R runs right before its
 * backward BW, which waits on nothing else: megatron-1t has 33,216
 * exclusive links, 169,232 -> 136,016 nodes (core/README.md, "Clock
 * plans", has what it buys). No constants.
 */
#include "core/eval/plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    double s, len; /* saving per second, seconds */
    int32_t own;   /* member (index in the chain) */
} segment;

static int by_slope(const void *a, const void *b)
{
    const segment *x = a, *y = b;
    if (x->s != y->s) return x->s > y->s ? -1 : 1; /* steepest first */
    return (x->own > y->own) - (x->own < y->own);
}

void cx_core_plan_series_free(cx_plan_series *c)
{
    if (!c) return;
    free(c->rof), free(c->moff), free(c->mem), free(c->own), free(c->pred), free(c->cls);
    free(c->hoff), free(c->soff), free(c->ht), free(c->hc), free(c->sl);
    memset(c, 0, sizeof *c);
}

/* slope of the segment after point j of d (0 at a class's last point) */
static void slopes_of(const cx_plan_dag *d, double *sl)
{
    for (int k = 0; k < d->nclass; k++) {
        int32_t a = d->hoff[k], b = d->hoff[k + 1] - 1;
        for (int32_t j = a; j < b; j++)
            sl[j] = (d->hc[j] - d->hc[j + 1]) / (d->ht[j + 1] - d->ht[j]);
        sl[b] = 0;
    }
}

/* composite class of the chain mem[0..len): found among the composites so
 * far by its members' classes (hash of the sequence), else appended */
typedef struct {
    int32_t *slot;  /* hash table of composite ids, -1 empty */
    int32_t nslot;  /* a power of two */
    int32_t *khead; /* composite c: a chain of its members (in mem) */
    int32_t *klen;
} ctab;

static uint32_t key_hash(const cx_plan_dag *d, const int32_t *m, int32_t len)
{
    uint32_t h = 2166136261u;
    for (int32_t j = 0; j < len; j++)
        h = (h ^ (uint32_t)d->cls[m[j]]) * 16777619u;
    return h;
}

static int same_key(const cx_plan_dag *d, const int32_t *a, const int32_t *b, int32_t len)
{
    for (int32_t j = 0; j < len; j++)
        if (d->cls[a[j]] != d->cls[b[j]]) return 0;
    return 1;
}

int cx_core_plan_series_build(cx_plan_series *c, const cx_plan_dag *d, const int32_t *soff,
                              int contract)
{
    memset(c, 0, sizeof *c);
    const int64_t n = d->n;
    c->d0 = d;
    c->rof = malloc(sizeof(int32_t) * (size_t)(n + 1));
    c->moff = malloc(sizeof(int32_t) * (size_t)(n + 2));
    c->mem = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int32_t *nxt = malloc(sizeof(int32_t) * (size_t)(n + 1));
    char *inner = calloc((size_t)n + 1, 1);
    if (!c->rof || !c->moff || !c->mem || !nxt || !inner) goto oom;
    /* exclusive links u -> v: v's one predecessor u, u's one successor v */
    int64_t merged = 0;
    for (int64_t v = 0; v < n; v++) {
        nxt[v] = -1;
        int np = 0;
        int32_t u = -1;
        for (int k = 0; k < CX_PLAN_NPRED; k++)
            if (d->pred[v * CX_PLAN_NPRED + k] >= 0) np++, u = d->pred[v * CX_PLAN_NPRED + k];
        if (contract && np == 1 && soff[u + 1] - soff[u] == 1) inner[v] = 1, merged++;
    }
    for (int64_t v = 0; v < n; v++)
        if (inner[v]) {
            for (int k = 0; k < CX_PLAN_NPRED; k++)
                if (d->pred[v * CX_PLAN_NPRED + k] >= 0)
                    nxt[d->pred[v * CX_PLAN_NPRED + k]] = (int32_t)v;
        }
    /* contracted nodes in the order of their chains' heads */
    int64_t r = 0, at = 0;
    for (int64_t h = 0; h < n; h++) {
        if (inner[h]) continue;
        c->moff[r] = (int32_t)at;
        for (int32_t u = (int32_t)h; u >= 0; u = nxt[u])
            c->mem[at++] = u, c->rof[u] = (int32_t)r;
        r++;
    }
    c->moff[r] = (int32_t)at;
    c->merged = merged;
    c->d = *d, c->d.n = r;
    c->sl = malloc(sizeof(double) * (size_t)(d->hoff[d->nclass] + 1));
    if (!c->sl) goto oom;
    if (!merged) { /* the DAG as given (same arrays, same slopes) */
        slopes_of(d, c->sl);
        free(nxt), free(inner);
        return 1;
    }
    /* the contracted DAG: predecessors of each chain's head, successors of
     * its tail (counts: the solver asks only whether there are any) */
    c->pred = malloc(sizeof(int32_t) * (size_t)(r * CX_PLAN_NPRED + 1));
    c->soff = malloc(sizeof(int32_t) * (size_t)(r + 2));
    c->cls = malloc(sizeof(int32_t) * (size_t)(r + 1));
    if (!c->pred || !c->soff || !c->cls) goto oom;
    c->soff[0] = 0;
    for (int64_t x = 0; x < r; x++) {
        int32_t h = c->mem[c->moff[x]], t = c->mem[c->moff[x + 1] - 1];
        for (int k = 0; k < CX_PLAN_NPRED; k++) {
            int32_t q = d->pred[(int64_t)h * CX_PLAN_NPRED + k];
            c->pred[x * CX_PLAN_NPRED + k] = q >= 0 ? c->rof[q] : -1;
        }
        c->soff[x + 1] = c->soff[x] + (soff[t + 1] - soff[t]);
    }
    /* classes: the given ones, then one per distinct sequence of member
     * classes (a chain of one keeps its class) */
    ctab tb = {0};
    tb.nslot = 16;
    while (tb.nslot < 2 * r)
        tb.nslot *= 2;
    tb.slot = malloc(sizeof(int32_t) * (size_t)tb.nslot);
    tb.khead = malloc(sizeof(int32_t) * (size_t)(r + 1));
    tb.klen = malloc(sizeof(int32_t) * (size_t)(r + 1));
    int32_t ncomp = 0, npts = d->hoff[d->nclass];
    if (!tb.slot || !tb.khead || !tb.klen) {
        free(tb.slot), free(tb.khead), free(tb.klen);
        goto oom;
    }
    for (int32_t s = 0; s < tb.nslot; s++)
        tb.slot[s] = -1;
    for (int64_t x = 0; x < r; x++) {
        const int32_t *m = &c->mem[c->moff[x]];
        int32_t len = c->moff[x + 1] - c->moff[x];
        if (len == 1) {
            c->cls[x] = d->cls[m[0]];
            continue;
        }
        uint32_t s = key_hash(d, m, len) & (uint32_t)(tb.nslot - 1);
        while (tb.slot[s] >= 0 &&
               !(tb.klen[tb.slot[s]] == len && same_key(d, &c->mem[tb.khead[tb.slot[s]]], m, len)))
            s = (s + 1) & (uint32_t)(tb.nslot - 1);
        if (tb.slot[s] < 0) {
            tb.slot[s] = ncomp, tb.khead[ncomp] = c->moff[x], tb.klen[ncomp] = len, ncomp++;
            for (int32_t j = 0; j < len; j++)
                npts += d->hoff[d->cls[m[j]] + 1] - d->hoff[d->cls[m[j]]] - 1;
            npts++;
        }
        c->cls[x] = d->nclass + tb.slot[s];
    }
    c->hoff = malloc(sizeof(int32_t) * (size_t)(d->nclass + ncomp + 1));
    c->ht = malloc(sizeof(double) * (size_t)(npts + 1));
    c->hc = malloc(sizeof(double) * (size_t)(npts + 1));
    c->own = malloc(sizeof(int32_t) * (size_t)(npts + 1));
    double *sl = realloc(c->sl, sizeof(double) * (size_t)(npts + 1));
    segment *sg = malloc(sizeof(segment) * (size_t)(npts + 1));
    if (sl) c->sl = sl;
    if (!c->hoff || !c->ht || !c->hc || !c->own || !sl || !sg) {
        free(tb.slot), free(tb.khead), free(tb.klen), free(sg);
        goto oom;
    }
    memcpy(c->hoff, d->hoff, sizeof(int32_t) * (size_t)(d->nclass + 1));
    memcpy(c->ht, d->ht, sizeof(double) * (size_t)d->hoff[d->nclass]);
    memcpy(c->hc, d->hc, sizeof(double) * (size_t)d->hoff[d->nclass]);
    slopes_of(d, c->sl);
    for (int32_t j = 0; j < d->hoff[d->nclass]; j++)
        c->own[j] = 0;
    int32_t pt = d->hoff[d->nclass];
    for (int32_t k = 0; k < ncomp; k++) {
        const int32_t *m = &c->mem[tb.khead[k]];
        double t = 0, cost = 0;
        int32_t ns = 0;
        for (int32_t j = 0; j < tb.klen[k]; j++) {
            int q = d->cls[m[j]];
            int32_t a = d->hoff[q], b = d->hoff[q + 1] - 1;
            t += d->ht[a], cost += d->hc[a];
            for (int32_t i = a; i < b; i++)
                sg[ns++] = (segment){(d->hc[i] - d->hc[i + 1]) / (d->ht[i + 1] - d->ht[i]),
                                     d->ht[i + 1] - d->ht[i], j};
        }
        qsort(sg, (size_t)ns, sizeof *sg, by_slope);
        c->hoff[d->nclass + k] = pt;
        c->ht[pt] = t, c->hc[pt] = cost;
        for (int32_t i = 0; i < ns; i++) {
            c->sl[pt] = sg[i].s, c->own[pt] = sg[i].own;
            t += sg[i].len, cost -= sg[i].s * sg[i].len;
            pt++;
            c->ht[pt] = t, c->hc[pt] = cost;
        }
        c->sl[pt] = 0, c->own[pt] = 0, pt++;
    }
    c->hoff[d->nclass + ncomp] = pt;
    free(tb.slot), free(tb.khead), free(tb.klen), free(sg);
    c->d.pred = c->pred, c->d.cls = c->cls, c->d.nclass = d->nclass + ncomp;
    c->d.hoff = c->hoff, c->d.ht = c->ht, c->d.hc = c->hc;
    free(nxt), free(inner);
    return 1;
oom:
    free(nxt), free(inner);
    cx_core_plan_series_free(c);
    return 0;
}

void cx_core_plan_series_gather(const cx_plan_series *c, const double *es, const double *dur,
                                double *ces, double *cdur)
{
    for (int64_t x = 0; x < c->d.n; x++) {
        double t = 0;
        for (int32_t j = c->moff[x]; j < c->moff[x + 1]; j++)
            t += dur[c->mem[j]];
        ces[x] = es[c->mem[c->moff[x]]], cdur[x] = t;
    }
}

void cx_core_plan_series_split(const cx_plan_series *c, const double *cdur, double *dur)
{
    const cx_plan_dag *d0 = c->d0;
    for (int64_t x = 0; x < c->d.n; x++) {
        const int32_t *m = &c->mem[c->moff[x]];
        int32_t len = c->moff[x + 1] - c->moff[x];
        if (len == 1) {
            dur[m[0]] = cdur[x];
            continue;
        }
        int k = c->d.cls[x];
        int32_t a = c->hoff[k], b = c->hoff[k + 1] - 1;
        for (int32_t j = 0; j < len; j++)
            dur[m[j]] = d0->ht[d0->hoff[d0->cls[m[j]]]];
        double L = cdur[x] - c->ht[a]; /* lengthening past the fastest, segments in turn */
        for (int32_t j = a; j < b && L > 0; j++) {
            double seg = c->ht[j + 1] - c->ht[j], take = L < seg ? L : seg;
            dur[m[c->own[j]]] += take, L -= take;
        }
        for (int32_t j = 0; j < len; j++) { /* rounding of the sums: within each curve */
            int q = d0->cls[m[j]];
            double hi = d0->ht[d0->hoff[q + 1] - 1];
            if (dur[m[j]] > hi) dur[m[j]] = hi;
        }
    }
}
