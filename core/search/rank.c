/*
 * rank.c — ranking of sweep candidates: the objective per token, the order
 * (objective, then enumeration index), the top-K heap and the Pareto
 * frontier over (time, energy, memory) per token with the index tie-break
 * that makes it unique whatever the insertion order. The front keeps its
 * points' coordinates by field too, for a four-at-a-time dominator scan.
 */
#include "core/search/sweep.h"
#include "core/base/base.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------- ranking and frontier */

double cx_core_rank_objective(const cx_space *sp, const culonx_execution *ex,
                              const culonx_result *r)
{
    double tok = (double)ex->global_batch * (double)sp->run->model.seq;
    double v;
    switch (sp->obj) {
    case CULONX_OBJECTIVE_ENERGY:
        v = r->energy.total_j / tok;
        break;
    case CULONX_OBJECTIVE_TOKENS_PER_J:
        v = -(tok / r->energy.total_j);
        break;
    case CULONX_OBJECTIVE_GPU_HOURS:
        v = r->iteration_time_s * (double)ex->gpus / tok;
        break;
    default:
        v = r->iteration_time_s / tok;
        break;
    }
    return isnan(v) ? INFINITY : v;
}

/* a before b: better objective, then lower index */
int cx_core_rank_better(const culonx_sweep_entry *a, const culonx_sweep_entry *b)
{
    if (a->objective != b->objective) return a->objective < b->objective;
    return a->index < b->index;
}

int cx_core_rank_cmp(const void *x, const void *y)
{
    const culonx_sweep_entry *a = x, *b = y;
    return cx_core_rank_better(a, b) ? -1 : cx_core_rank_better(b, a) ? 1 : 0;
}

int cx_core_topk_distinct(culonx_objective obj)
{
    return obj == CULONX_OBJECTIVE_TIME || obj == CULONX_OBJECTIVE_GPU_HOURS;
}

/* the same strategy: every execution field but the clock (a new swept
 * execution field belongs here too) */
/* Two executions that differ in nothing but the clock (every field of
 * culonx_execution except clock_mhz: a new field must be added here, or
 * strategies differing only in it would be merged in the top K). */
static int same_strategy(const culonx_execution *a, const culonx_execution *b)
{
    return a->gpus == b->gpus && a->tp == b->tp && a->pp == b->pp && a->dp == b->dp &&
           a->vp == b->vp && a->microbatch == b->microbatch && a->global_batch == b->global_batch &&
           a->recompute == b->recompute && a->sequence_parallel == b->sequence_parallel &&
           a->schedule == b->schedule && a->distributed_optimizer == b->distributed_optimizer &&
           a->dtype == b->dtype && a->dp_overlap == b->dp_overlap && a->tokens == b->tokens &&
           a->attention == b->attention && a->tp_overlap == b->tp_overlap &&
           a->param_gather_overlap == b->param_gather_overlap && a->cp == b->cp &&
           a->first_stage_layers == b->first_stage_layers &&
           a->last_stage_layers == b->last_stage_layers &&
           a->embedding_in_split == b->embedding_in_split && a->loss_in_split == b->loss_in_split &&
           a->ep == b->ep && a->etp == b->etp && a->capacity_factor == b->capacity_factor &&
           a->zero == b->zero && a->shard_group == b->shard_group && a->offload == b->offload &&
           a->zero_impl == b->zero_impl && a->a2a_overlap == b->a2a_overlap &&
           a->route_nodes == b->route_nodes;
}

/* moves h->e[i] down the max-heap (towards better entries) */
static void sift_down(cx_topk *h, int i)
{
    culonx_sweep_entry x = h->e[i];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        const culonx_sweep_entry *wv = &x;
        if (l < h->n && cx_core_rank_better(wv, &h->e[l])) w = l, wv = &h->e[l];
        if (r < h->n && cx_core_rank_better(wv, &h->e[r])) w = r;
        if (w == i) break;
        h->e[i] = h->e[w];
        i = w;
    }
    h->e[i] = x;
}

void cx_core_topk_offer(cx_topk *h, const culonx_sweep_entry *x)
{
    if (h->cap <= 0) return;
    /* worse than the worst kept entry: also worse than its strategy's */
    if (h->n == h->cap && !cx_core_rank_better(x, &h->e[0])) return;
    if (h->distinct)
        for (int i = 0; i < h->n; i++)
            if (same_strategy(&h->e[i].exec, &x->exec)) {
                /* one entry per strategy: the better one stays; a better
                 * entry moves down the max-heap */
                if (cx_core_rank_better(x, &h->e[i])) {
                    h->e[i] = *x;
                    sift_down(h, i);
                }
                return;
            }
    if (h->n < h->cap) {
        int i = h->n++;
        while (i > 0) {
            int p = (i - 1) / 2;
            if (!cx_core_rank_better(&h->e[p], x)) break;
            h->e[i] = h->e[p];
            i = p;
        }
        h->e[i] = *x;
        return;
    }
    if (!cx_core_rank_better(x, &h->e[0])) return;
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, w = i;
        const culonx_sweep_entry *wv = x;
        if (l < h->n && cx_core_rank_better(wv, &h->e[l])) w = l, wv = &h->e[l];
        if (r < h->n && cx_core_rank_better(wv, &h->e[r])) w = r;
        if (w == i) break;
        h->e[i] = h->e[w];
        i = w;
    }
    h->e[i] = *x;
}

cx_point cx_core_rank_point(const cx_space *sp, const culonx_sweep_entry *x)
{
    double tok = (double)x->exec.global_batch * (double)sp->run->model.seq;
    cx_point p = {x->res.iteration_time_s / tok, sp->energy ? x->res.energy.total_j / tok : 0.0,
                  x->res.memory.peak_bytes, x->index};
    return p;
}

int cx_core_rank_dominates(const cx_point *a, const cx_point *b)
{
    if (a->t > b->t || a->e > b->e || a->m > b->m) return 0;
    if (a->t < b->t || a->e < b->e || a->m < b->m) return 1;
    return a->idx < b->idx;
}

/* The first point of f (from index i0) that dominates x, or -1. */
static int dominator_scalar(const cx_front *f, const cx_point *x, int i0)
{
    for (int i = i0; i < f->n; i++)
        if (cx_core_rank_dominates(&f->p[i], x)) return i;
    return -1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The same, four points at a time: a point can dominate x only where none
 * of its t, e, m is above x's (!(a > b): NaN passes, as in
 * cx_core_rank_dominates); those are asked in order. */
__attribute__((target("avx"))) static int dominator_avx(const cx_front *f, const cx_point *x,
                                                        int i0)
{
    const __m256d xt = _mm256_set1_pd(x->t), xe = _mm256_set1_pd(x->e), xm = _mm256_set1_pd(x->m);
    int i = i0;
    for (; i + 4 <= f->n; i += 4) {
        const __m256d a = _mm256_cmp_pd(_mm256_loadu_pd(f->pt + i), xt, _CMP_NGT_UQ);
        const __m256d b = _mm256_cmp_pd(_mm256_loadu_pd(f->pe + i), xe, _CMP_NGT_UQ);
        const __m256d c = _mm256_cmp_pd(_mm256_loadu_pd(f->pm + i), xm, _CMP_NGT_UQ);
        int mask = _mm256_movemask_pd(_mm256_and_pd(_mm256_and_pd(a, b), c));
        for (; mask; mask &= mask - 1) {
            const int k = i + __builtin_ctz((unsigned)mask);
            if (cx_core_rank_dominates(&f->p[k], x)) return k;
        }
    }
    return dominator_scalar(f, x, i);
}

static int (*dominator)(const cx_front *, const cx_point *, int) = dominator_scalar;
CX_PICK_ISA(pick_dominator, "avx", dominator, dominator_avx)
#else
#define dominator dominator_scalar
#endif

void cx_core_front_offer(cx_front *f, const cx_point *x, const culonx_sweep_entry *xe)
{
    /* the last dominator first: it is likely to strike again (the front is
     * a set, its order free: sorted when the sweep ends); then the first
     * (the hint, asked again, does not dominate) */
    const int h = f->hint;
    if (h < f->n && cx_core_rank_dominates(&f->p[h], x)) return;
    const int d = dominator(f, x, 0);
    if (d >= 0) {
        f->hint = d;
        return;
    }
    int k = 0;
    for (int i = 0; i < f->n; i++)
        if (!cx_core_rank_dominates(x, &f->p[i])) {
            if (k != i) {
                f->p[k] = f->p[i], f->e[k] = f->e[i];
                f->pt[k] = f->pt[i], f->pe[k] = f->pe[i], f->pm[k] = f->pm[i];
            }
            k++;
        }
    f->n = k;
    if (f->n == f->cap) {
        int nc = f->cap ? 2 * f->cap : 64;
        cx_point *np = realloc(f->p, (size_t)nc * sizeof *np);
        if (np) f->p = np;
        culonx_sweep_entry *ne = np ? realloc(f->e, (size_t)nc * sizeof *ne) : NULL;
        if (ne) f->e = ne;
        double *nt = ne ? realloc(f->pt, (size_t)nc * sizeof *nt) : NULL;
        if (nt) f->pt = nt;
        double *nen = nt ? realloc(f->pe, (size_t)nc * sizeof *nen) : NULL;
        if (nen) f->pe = nen;
        double *nm = nen ? realloc(f->pm, (size_t)nc * sizeof *nm) : NULL;
        if (nm) f->pm = nm;
        if (!nm) {
            f->oom = 1;
            return;
        }
        f->cap = nc;
    }
    f->p[f->n] = *x;
    f->e[f->n] = *xe;
    f->pt[f->n] = x->t, f->pe[f->n] = x->e, f->pm[f->n] = x->m;
    f->n++;
}

void cx_core_front_free(cx_front *f)
{
    free(f->p), free(f->e), free(f->pt), free(f->pe), free(f->pm);
    f->p = NULL, f->e = NULL, f->pt = f->pe = f->pm = NULL;
    f->n = f->cap = 0;
}

int cx_core_front_cmp(const void *x, const void *y)
{
    const culonx_sweep_entry *a = x, *b = y;
    if (a->res.iteration_time_s != b->res.iteration_time_s)
        return a->res.iteration_time_s < b->res.iteration_time_s ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}
