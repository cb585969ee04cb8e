/*
 * play.c — the play engine (rules and API in play.h): generation and check
 * of a schedule's per-stage orders, and the worklist that plays them under
 * the virtual-stage chain's dependencies, calling a STEP callback per item.
 * No constants: everything follows from the schedule's order() and
 * vstage() (one file per schedule in schedules/). The orders' range check
 * takes two items per step where SSE2 is there (callgrind, fast-only
 * bench schedules dualpipev: cx_sched_play_orders 21.0M -> 19.9M), four
 * per step with one compare per two (ZB-V 16.7M -> 13.6M); skipped for
 * unchecked plays of generators whose items are in range by construction
 * (cx_sched_desc.ranged). The dependency cells (24 bytes per (microbatch,
 * virtual stage), as large as the orders) are allocated by the first play
 * (cx_sched_play_cells): orders that are only compiled (replay_compile.c)
 * never touch them (core/README.md, "Page faults").
 */
#include "schedules/play.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* items compared two at a time where schedules/sched.h allows it */
#ifdef CX_SCHED_ITEM_SSE2
#include <emmintrin.h>
#endif

cx_play *cx_sched_play_new(void)
{
    return calloc(1, sizeof(cx_play));
}

static void free_stage_arrays(cx_play *pl)
{
    free(pl->len), free(pl->nbr_off), free(pl->pos), free(pl->queue), free(pl->inq);
    free(pl->regs);
    pl->regs = NULL;
    pl->len = pl->nbr_off = pl->pos = pl->queue = NULL;
    pl->inq = NULL;
    pl->stage_cap = 0;
}

static void free_vs_arrays(cx_play *pl)
{
    free(pl->vs_of), free(pl->stage_of), free(pl->send_f), free(pl->send_b), free(pl->nbr);
    pl->vs_of = pl->stage_of = pl->nbr = NULL;
    pl->send_f = pl->send_b = NULL;
    pl->vs_cap = 0;
}

void cx_sched_play_free(cx_play *pl)
{
    if (!pl) return;
    free_stage_arrays(pl);
    free_vs_arrays(pl);
    free(pl->items), free(pl->cnt), free(pl->cell);
    free(pl);
}

/* Makes *buf hold at least n elements of size sz (contents not kept). */
static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    free(*buf);
    *buf = malloc(n * sz);
    *cap = *buf ? n : 0;
    return *buf ? 0 : -1;
}

static int reserve(cx_play *pl, int p, int nvs, size_t items, size_t cells, int check)
{
    if (p > pl->stage_cap) {
        free_stage_arrays(pl);
        size_t n = (size_t)p + 1;
        pl->len = malloc(n * sizeof *pl->len);
        pl->nbr_off = malloc(n * sizeof *pl->nbr_off);
        pl->pos = malloc(n * sizeof *pl->pos);
        pl->queue = malloc(n * sizeof *pl->queue);
        pl->inq = calloc(n, 1);
        pl->regs = malloc(n * CX_PLAY_REGS * sizeof *pl->regs);
        if (!pl->len || !pl->nbr_off || !pl->pos || !pl->queue || !pl->inq || !pl->regs) {
            free_stage_arrays(pl);
            return -1;
        }
        pl->stage_cap = p;
    }
    if (nvs > pl->vs_cap) {
        free_vs_arrays(pl);
        size_t n = (size_t)nvs;
        pl->vs_of = malloc(n * sizeof *pl->vs_of);
        pl->stage_of = malloc(n * sizeof *pl->stage_of);
        pl->send_f = malloc(n);
        pl->send_b = malloc(n);
        pl->nbr = malloc(2 * n * sizeof *pl->nbr);
        if (!pl->vs_of || !pl->stage_of || !pl->send_f || !pl->send_b || !pl->nbr) {
            free_vs_arrays(pl);
            return -1;
        }
        pl->vs_cap = nvs;
    }
    if (grow((void **)&pl->items, &pl->items_cap, items, sizeof *pl->items) ||
        (check && grow((void **)&pl->cnt, &pl->cnt_cap, 4 * cells, 1)))
        return -1;
    return 0;
}

int cx_sched_play_cells(cx_play *pl, size_t n)
{
    return grow((void **)&pl->cell, &pl->cell_cap, n, sizeof *pl->cell);
}

cx_sched_sim_status cx_sched_play_orders(cx_play *pl, const cx_sched_desc *d, int p, int m, int v,
                                         int check)
{
    if (pl->have_order >= 1 + (check != 0) && pl->sd == d && pl->p == p && pl->m == m && pl->v == v)
        return CX_SCHED_SIM_OK;
    pl->have_order = 0;
    if (!d || !d->order || p < 1 || m < 1 || v < 1) return CX_SCHED_SIM_UNSUPPORTED;
    const int nch = d->chunks(v), nvs = p * nch;
    if (nch < 1) return CX_SCHED_SIM_UNSUPPORTED;
    const int cap = 3 * m * nch + 8;
    const size_t cells = (size_t)m * (size_t)nvs;
    if (reserve(pl, p, nvs, (size_t)cap * (size_t)p, cells, check)) return CX_SCHED_SIM_NOMEM;
    pl->cap = cap, pl->nch = nch, pl->nvs = nvs;
    /* (stage, chunk) -> virtual stage must be a bijection */
    for (int k = 0; k < nvs; k++)
        pl->stage_of[k] = -1;
    for (int s = 0; s < p; s++)
        for (int ch = 0; ch < nch; ch++) {
            int k = d->vstage(p, v, s, ch);
            if (k < 0 || k >= nvs || pl->stage_of[k] >= 0) return CX_SCHED_SIM_BAD_ORDER;
            pl->stage_of[k] = s;
            pl->vs_of[s * nch + ch] = k;
        }
    for (int k = 0; k < nvs; k++) {
        pl->send_f[k] = k + 1 < nvs && pl->stage_of[k + 1] != pl->stage_of[k];
        pl->send_b[k] = k > 0 && pl->stage_of[k - 1] != pl->stage_of[k];
    }
    /* the orders, each (mb, vs) counted per kind when checking */
    if (check) memset(pl->cnt, 0, 4 * cells);
    for (int s = 0; s < p; s++) {
        cx_sched_item *ord = pl->items + (size_t)s * (size_t)cap;
        int n = d->order(p, m, v, s, ord, cap);
        if (n < 0) return CX_SCHED_SIM_UNSUPPORTED;
        pl->len[s] = n;
        /* the ranges, without a branch per item (the closed form's replay
         * generates millions of items per sweep): one OR a field, a value
         * out of range setting the top bit (mb < 0 or mb >= m, chunk >=
         * nch; unsigned, no overflow) or a kind bit above BW's */
        if (d->ranged && !check) continue;
        uint32_t top = 0;
        unsigned kinds = 0;
        const uint32_t mlast = (uint32_t)m - 1u, clast = (uint32_t)nch - 1u;
        int j = 0;
#ifdef CX_SCHED_ITEM_SSE2
        /* four at a time, in two registers: chunk << 8 and mb as 32-bit
         * lanes, mb's sign bit flipped so that one signed compare is the
         * unsigned one (above (clast << 8, m - 1), mb below 0 included);
         * the padding masked (chunk is a byte: a clast above 255 as 255);
         * the items ORed for a kind bit above BW's, tested once */
        const int cl8 = (int)(clast < 255u ? clast : 255u) << 8;
        const __m128i mc = _mm_set_epi32(-1, 0xff00, -1, 0xff00),
                      mk = _mm_set_epi32(0, 0xff & ~CX_WORK_BW, 0, 0xff & ~CX_WORK_BW),
                      sg = _mm_set_epi32(INT32_MIN, 0, INT32_MIN, 0),
                      lim = _mm_xor_si128(_mm_set_epi32((int)mlast, cl8, (int)mlast, cl8), sg),
                      zero = _mm_setzero_si128();
        __m128i bad = zero, all = zero;
        for (; j + 4 <= n; j += 4) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(ord + j));
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(ord + j + 2));
            all = _mm_or_si128(all, _mm_or_si128(a, b));
            const __m128i fa = _mm_and_si128(_mm_xor_si128(a, sg), mc),
                          fb = _mm_and_si128(_mm_xor_si128(b, sg), mc);
            bad =
                _mm_or_si128(bad, _mm_or_si128(_mm_cmpgt_epi32(fa, lim), _mm_cmpgt_epi32(fb, lim)));
        }
        bad = _mm_or_si128(bad, _mm_and_si128(all, mk));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, zero)) != 0xffff) return CX_SCHED_SIM_BAD_ORDER;
#endif
        for (; j < n; j++) {
            const uint32_t mb = (uint32_t)ord[j].mb;
            top |= mb | (mlast - mb) | (clast - ord[j].chunk);
            kinds |= ord[j].kind;
        }
        if ((top >> 31) || (kinds & ~(unsigned)CX_WORK_BW)) return CX_SCHED_SIM_BAD_ORDER;
        for (int i = 0; check && i < n; i++) {
            const cx_sched_item *it = &ord[i];
            size_t x = (size_t)it->mb * (size_t)nvs + (size_t)pl->vs_of[s * nch + it->chunk];
            if (pl->cnt[4 * x + it->kind]++ > 1) return CX_SCHED_SIM_BAD_ORDER;
        }
    }
    for (size_t i = 0; check && i < cells; i++) {
        const uint8_t *q = &pl->cnt[4 * i];
        int split = q[CX_WORK_B] == 1 && q[CX_WORK_W] == 1 && q[CX_WORK_BW] == 0;
        int fused = q[CX_WORK_B] == 0 && q[CX_WORK_W] == 0 && q[CX_WORK_BW] == 1;
        if (q[CX_WORK_F] != 1 || !(split || fused)) return CX_SCHED_SIM_BAD_ORDER;
    }
    /* worklist neighbours: the stages of vs-1 and vs+1 of each chunk */
    int k = 0;
    for (int s = 0; s < p; s++) {
        pl->nbr_off[s] = k;
        for (int ch = 0; ch < nch; ch++) {
            int vs = pl->vs_of[s * nch + ch];
            for (int dv = -1; dv <= 1; dv += 2) {
                int u = vs + dv;
                if (u < 0 || u >= nvs) continue;
                int t = pl->stage_of[u], dup = t == s;
                for (int j = pl->nbr_off[s]; j < k && !dup; j++)
                    dup = pl->nbr[j] == t;
                if (!dup) pl->nbr[k++] = t;
            }
        }
    }
    pl->nbr_off[p] = k;
    pl->sd = d, pl->p = p, pl->m = m, pl->v = v;
    pl->have_order = check ? 2 : 1;
    return CX_SCHED_SIM_OK;
}
