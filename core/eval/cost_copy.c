/*
 * cost_copy.c — a copy of a cost (cost.h) that leaves out the unused tails
 * of its fixed-capacity arrays: a cx_cost holds every per-stage, per-class,
 * per-virtual-stage and per-part array at its capacity (1,024 stages, 64
 * classes, 8 parts; ~440 KB), of which a run uses p, nclass, p x v and
 * nparts entries. Everything else, fields added later included, is copied
 * whole: the copy skips only the bytes listed here, each past its array's
 * live count, which no reader of the cost reads (those counts bound every
 * loop over them). For the replay's clock lanes, which price a copy of the
 * cost at each other clock (core/README.md, "Clock lanes").
 */
#include "core/eval/cost.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* bytes [off, off + live) of an array of cap bytes at off are used */
typedef struct {
    size_t off, live, cap;
} span;

static int by_offset(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* n entries of an array member of cx_cost, clamped to its capacity */
#define SPAN(member, n)                                                                            \
    (span)                                                                                         \
    {                                                                                              \
        offsetof(cx_cost, member), (size_t)((n) > 0 ? (n) : 0) * sizeof s->member[0],              \
            sizeof s->member                                                                       \
    }

void cx_core_cost_copy(cx_cost *d, const cx_cost *s)
{
    const int p = s->p, nvs = s->p * s->v, nc = s->nclass, np = s->stack.nparts;
    const int ns = s->nsrun, nr = s->nprun;
    span sp[] = {
        SPAN(stack.part, np),
        SPAN(part_t, np),
        SPAN(part_comm, np),
        SPAN(part_keep, np),
        SPAN(cls, nc),
        SPAN(class_vstages, nc),
        SPAN(vs_class, nvs),
        SPAN(vs_layer0, nvs + 1),
        SPAN(stage_params, p),
        SPAN(stage_expert_params, p),
        SPAN(stage_act_bytes, p),
        SPAN(stage_work_bytes, p),
        SPAN(run_f_s, ns),
        SPAN(run_b_s, ns),
        SPAN(run_w_s, ns),
        SPAN(run_e_j, ns),
        SPAN(run_busy_s, ns),
        SPAN(run_bytes, ns),
        SPAN(dp_nb, p),
        SPAN(same_prev, p),
        SPAN(prun, nr + 1),
        SPAN(srun, ns + 1),
        SPAN(sends_f, p),
        SPAN(sends_b, p),
        SPAN(vs_stage, nvs),
        SPAN(vs_chunk, nvs),
        SPAN(vs_stage_vs, nvs),
        SPAN(prun_of, p),
        SPAN(dpr_s, nr),
        SPAN(dpr_tier, nr),
        SPAN(dpr_nb, nr),
        SPAN(optr_s, nr),
        SPAN(optr_j, nr),
        SPAN(optr_bytes, nr),
        SPAN(dp_s, p),
        SPAN(dp_tier_bytes, p),
        SPAN(optimizer_s, p),
        SPAN(optimizer_j, p),
        SPAN(optimizer_bytes, p),
        SPAN(cap_added_s, nc),
        SPAN(closed.ahead_s, ns),
        SPAN(closed.window_s, ns),
        SPAN(prun_srun, nr),
    };
    const size_t n = sizeof sp / sizeof sp[0];
    qsort(sp, n, sizeof sp[0], by_offset);
    const char *a = (const char *)s;
    char *b = (char *)d;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t live = sp[i].live < sp[i].cap ? sp[i].live : sp[i].cap;
        memcpy(b + at, a + at, sp[i].off + live - at); /* the fields before, and the used part */
        at = sp[i].off + sp[i].cap;
    }
    memcpy(b + at, a + at, sizeof *s - at);
}
