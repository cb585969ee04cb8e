/*
 * replay_mem.c — the replay's activation peaks (core/eval/replay.c,
 * cx_core_replay_memory) compiled from the orders. A stage's activation
 * bytes follow its order alone: + act at F, - act after a W or BW. Its
 * peak candidates are after an F (act), at a B (act + the chunk's
 * transient work bytes, recompute included), at a BW (the same, then
 * - act) and at a W (act, then - act). At each candidate the bytes are
 * sum_k n_k act_k (+ work_j), n_k the microbatches of chunk k in flight, so
 * the peak is the maximum over the points (n, j) met along the order, and
 * a point below another (every count <=, the same or no transient chunk)
 * never wins: a stage keeps the points no other is above, a few whatever
 * the microbatch count (ZB-H1: one or two; at most MAX_STAGE, else the
 * orders are scanned), and the points of the last NENT orders are kept (a sweep returns
 * to the same orders with other byte counts: recompute, sp, tp, ...).
 * Orders whose points cost more than a quarter of the scan are scanned too.
 * Offers below another offer are left out (an F's before another F, a W's
 * once the counts were offered): the kept points are the same set; only
 * the MAX_STAGE limit, checked as points come, may then pass where it
 * failed before (the points or the scan: the same bits either way).
 * Exactness: the scan adds and subtracts the bytes in order; when every
 * byte count is an integer and every sum stays below 2^53 each of its
 * partial sums is exact, so the maximum of the exact sums here is the same
 * double. Otherwise the caller scans (cx_core_replay_mem_peaks returns 0).
 * Memory: at most MAX_POINTS counts per orders, NENT orders.
 * See core/README.md, "Closed form" (replayed schedules, "Compiled peaks").
 */
#include "core/eval/replay_mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the most counts (v + 1 per point) kept per orders: 64 KiB */
#define MAX_POINTS (1 << 14)
/* orders kept (a sweep cycles through ~100 orders per schedule: the
 * microbatch counts of each pp, for every tp): at most 16 MiB */
#define NENT 256
/* the most points per stage (each item compares with them) */
#define MAX_STAGE 32

typedef struct {
    const void *sd;
    int p, m, v, ok, used;
    unsigned stamp;
    int32_t *pt; /* points: v counts, then the transient chunk (-1: none) */
    size_t npt, cap;
    int32_t *off; /* [p + 1]: each stage's first point */
    size_t off_cap;
} entry;

struct cx_replay_mem {
    entry e[NENT];
    entry *cur;
    unsigned clock;
    int32_t *cnt; /* [v + 1]: counts while compiling */
    size_t cnt_cap;
    size_t *hint; /* [v + 1]: per transient chunk (+ 1), add's hint */
    size_t hint_cap;
};

cx_replay_mem *cx_core_replay_mem_new(void)
{
    return calloc(1, sizeof(cx_replay_mem));
}

void cx_core_replay_mem_free(cx_replay_mem *mm)
{
    if (!mm) return;
    for (int i = 0; i < NENT; i++)
        free(mm->e[i].pt), free(mm->e[i].off);
    free(mm->cnt);
    free(mm->hint);
    free(mm);
}

static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < n)
        nc *= 2;
    void *nb = realloc(*buf, nc * sz);
    if (!nb) return -1;
    *buf = nb, *cap = nc;
    return 0;
}

/* Does point a never exceed point b (every count <=, same or no transient
 * chunk)? */
static int below(const int32_t *a, const int32_t *b, int v)
{
    if (a[v] >= 0 && a[v] != b[v]) return 0;
    for (int k = 0; k < v; k++)
        if (a[k] > b[k]) return 0;
    return 1;
}

/* Adds the point (cnt, j) to e's points of the stage starting at `first`,
 * kept as the points no other is above: nothing when one is above it, else
 * it replaces those below it; -1 when full or out of memory. *hint: a
 * point tried first (the last one above an offer of the same transient
 * chunk, or the last added: in a steady state the same point is above
 * them cycle after cycle). */
static int add(cx_replay_mem *mm, entry *e, size_t first, int j, size_t *hint)
{
    const int v = e->v, w = v + 1;
    int32_t *const cnt = mm->cnt;
    cnt[v] = j;
    if (*hint >= first && *hint < e->npt && below(cnt, e->pt + *hint * (size_t)w, v)) return 0;
    for (size_t i = first; i < e->npt; i++)
        if (below(cnt, e->pt + i * (size_t)w, v)) {
            *hint = i;
            return 0;
        }
    size_t kept = first;
    for (size_t i = first; i < e->npt; i++) {
        const int32_t *q = e->pt + i * (size_t)w;
        if (below(q, cnt, v)) continue;
        if (kept != i) memcpy(e->pt + kept * (size_t)w, q, (size_t)w * sizeof *q);
        kept++;
    }
    e->npt = kept;
    if ((e->npt + 1) * (size_t)w > MAX_POINTS || e->npt - first >= MAX_STAGE ||
        grow((void **)&e->pt, &e->cap, (e->npt + 1) * (size_t)w, sizeof *e->pt))
        return -1;
    memcpy(e->pt + e->npt * (size_t)w, cnt, (size_t)w * sizeof *cnt);
    *hint = e->npt++;
    return 0;
}

/* add, first trying *hint inline (most offers of a long order are below
 * it) */
static inline int offer(cx_replay_mem *mm, entry *e, size_t first, int j, size_t *hint)
{
    const int v = e->v;
    mm->cnt[v] = j;
    if (*hint < e->npt && *hint >= first && below(mm->cnt, e->pt + *hint * (size_t)(v + 1), v))
        return 0;
    return add(mm, e, first, j, hint);
}

/* The points of pl's orders into e: 0, or -1. */
static int compile(cx_replay_mem *mm, entry *e, const cx_play *pl)
{
    const int p = e->p, v = e->v, w = v + 1;
    e->npt = 0;
    if (v < 1 || grow((void **)&e->off, &e->off_cap, (size_t)p + 1, sizeof *e->off) ||
        grow((void **)&mm->cnt, &mm->cnt_cap, (size_t)w, sizeof *mm->cnt) ||
        grow((void **)&mm->hint, &mm->hint_cap, (size_t)w, sizeof *mm->hint))
        return -1;
    for (int s = 0; s < p; s++) {
        int n;
        const cx_sched_item *ord = cx_sched_play_items(pl, s, &n);
        const size_t first = e->npt;
        e->off[s] = (int32_t)first;
        memset(mm->cnt, 0, (size_t)v * sizeof *mm->cnt);
        /* points below another one offered are left out (the kept points
         * are the ones no offered point is above, whatever the order of
         * the offers): an F's when the next item is an F (that one's is
         * above), a W's (the counts) once any point was offered (every
         * offer is at the counts or above them, and only W and BW lower
         * them) */
        int covered = 0;
        size_t *const hint = mm->hint + 1; /* [-1 .. v) */
        for (int k = -1; k < v; k++)
            hint[k] = first;
        for (int i = 0; i < n; i++) {
            const int k = ord[i].chunk;
            if (k < 0 || k >= v) return -1;
            int st = 0;
            switch (ord[i].kind) {
            case CX_WORK_F:
                mm->cnt[k]++;
                if (i + 1 < n && ord[i + 1].kind == CX_WORK_F) {
                    covered = 0;
                    break;
                }
                st = offer(mm, e, first, -1, &hint[-1]), covered = 1;
                break;
            case CX_WORK_B:
                st = offer(mm, e, first, k, &hint[k]), covered = 1;
                break;
            case CX_WORK_BW:
                st = offer(mm, e, first, k, &hint[k]), covered = 1;
                mm->cnt[k]--;
                break;
            default:
                if (!covered) st = offer(mm, e, first, -1, &hint[-1]), covered = 1;
                mm->cnt[k]--;
                break;
            }
            if (st) return -1;
        }
    }
    e->off[p] = (int32_t)e->npt;
    return 0;
}

void cx_core_replay_mem_select(cx_replay_mem *mm, const void *sd, int p, int m, int v,
                               const cx_play *pl)
{
    entry *e = &mm->e[0];
    for (int i = 0; i < NENT; i++) {
        entry *x = &mm->e[i];
        if (x->used && x->sd == sd && x->p == p && x->m == m && x->v == v) {
            x->stamp = ++mm->clock;
            mm->cur = x;
            return;
        }
        if (!x->used || (e->used && x->stamp < e->stamp)) e = x;
    }
    e->sd = sd, e->p = p, e->m = m, e->v = v, e->used = 1, e->stamp = ++mm->clock;
    /* kept where evaluating the points is cheaper than the scan (a few
     * points per stage; interleaved with many chunks has many) */
    size_t items = 0;
    for (int s = 0; s < p; s++)
        items += (size_t)pl->len[s];
    e->ok = compile(mm, e, pl) == 0 && e->npt * (size_t)(v + 1) * 4 <= items;
    if (!e->ok) free(e->pt), e->pt = NULL, e->cap = 0, e->npt = 0;
    mm->cur = e;
}

int cx_core_replay_mem_peaks(const cx_replay_mem *mm, const double *act, const double *work,
                             double *peak)
{
    const entry *e = mm->cur;
    if (!e || !e->ok) return 0;
    const int p = e->p, v = e->v, w = v + 1;
    /* every count an integer below 2^52 and every sum below 2^53: exact */
    const double lim = 4503599627370496.0;
    for (int i = 0; i < p * v; i++)
        if (!(act[i] >= 0 && act[i] < lim && act[i] == floor(act[i]) && work[i] >= 0 &&
              work[i] < lim && work[i] == floor(work[i])))
            return 0;
    for (int s = 0; s < p; s++) {
        const double *a = act + (size_t)s * (size_t)v, *wk = work + (size_t)s * (size_t)v;
        double best = 0;
        for (int32_t i = e->off[s]; i < e->off[s + 1]; i++) {
            const int32_t *q = e->pt + (size_t)i * (size_t)w;
            double x = 0, bound = 0;
            for (int k = 0; k < v; k++) {
                x += (double)q[k] * a[k];
                bound += (double)q[k] * (a[k] + 1.0);
            }
            if (q[v] >= 0) x += wk[q[v]], bound += wk[q[v]] + 1.0;
            if (bound >= 2 * lim) return 0;
            if (x > best) best = x;
        }
        peak[s] = best;
    }
    return 1;
}

double cx_core_replay_mem_scan(const cx_sched_item *ord, int n, const double *act,
                               const double *work)
{
    double bytes = 0, peak = 0;
    for (int i = 0; i < n; i++) {
        const int k = ord[i].chunk;
        switch (ord[i].kind) {
        case CX_WORK_F:
            bytes += act[k];
            if (bytes > peak) peak = bytes;
            break;
        case CX_WORK_B:
            if (bytes + work[k] > peak) peak = bytes + work[k];
            break;
        case CX_WORK_BW:
            if (bytes + work[k] > peak) peak = bytes + work[k];
            bytes -= act[k];
            break;
        default:
            if (bytes > peak) peak = bytes;
            bytes -= act[k];
            break;
        }
    }
    return peak;
}
