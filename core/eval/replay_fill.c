/*
 * replay_fill.c — the fills and drains of renamed compiles kept for later
 * shapes (split from replay_compile.c, which restores and copies them).
 * A sweep compiles the renamed program of several m for one (schedule, p,
 * v); the period skip copies their steady middles, but every shape's fill
 * (the levels before the skip's first match) and drain (the levels after
 * the periods it copied) were compiled item by item. The compile is a
 * function of its state at a level's end and of the items still to come,
 * and its state at the end of level L is a function of the items it read
 * up to there (each stage's next one: pm); so a shape whose orders repeat
 * those items (checked here) has the same state at the end of L, the
 * cell indices of the zero and scratch slots apart (which a renamed
 * program never holds), and the same instructions before it, which
 * compile_levels restores instead of compiling. After the periods copied
 * (q of them, q' for the new shape), its state is the kept shape's after
 * q with every cell moved by (q' - q) d microbatches and every slot below
 * the match's slot count renamed by pi^(q' - q) (the skip moves the state
 * so, period by period; slots allocated later are new in both); the
 * compile commutes with such a renaming (it only pops, pushes and
 * compares slots) and such a move of the cells, so where each stage's
 * items from there are the kept drain's moved by (q' - q) d (checked
 * here), the rest of the program is the kept drain with its slots renamed
 * so. tests/test_replay_lanes.c compares the programs with fresh compiles
 * byte for byte. Budget: CX_REPLAY_FILL_N entries per program object,
 * the least recently used replaced.
 * No equations: it holds what the compiler produced.
 * See core/README.md, "Setup per shape".
 */
#include "core/eval/replay_prog_int.h"

#include <string.h>

void cx_core_replay_fill_free(cx_replay_prog *pr)
{
    if (!pr->fills) return;
    for (int i = 0; i < CX_REPLAY_FILL_N; i++) {
        cx_replay_fill *e = &pr->fills[i];
        free(e->sl), free(e->fit), free(e->fcode), free(e->dit), free(e->dcode), free(e->st);
    }
    free(pr->fills);
}

static int same_key(const cx_replay_fill *e, const cx_play *pl, int form)
{
    return e->sd == pl->sd && e->p == pl->p && e->v == pl->v && e->form == form;
}

cx_replay_fill *cx_core_replay_fill_find(cx_replay_prog *pr, const cx_play *pl, int form)
{
    if (!pr->fills) return NULL;
    cx_replay_fill *e = NULL;
    for (int i = 0; i < CX_REPLAY_FILL_N && !e; i++)
        if (pr->fills[i].used && same_key(&pr->fills[i], pl, form)) e = &pr->fills[i];
    if (!e) return NULL;
    const size_t cap = (size_t)pl->cap;
    const cx_sched_item *f = e->fit;
    for (int s = 0; s < pl->p; s++) {
        const size_t n = (size_t)e->pm[s] + 1;
        if ((size_t)pl->len[s] < n + 1 ||
            cx_replay_items_agree(pl->items + (size_t)s * cap, f, n, 0) != n)
            return NULL;
        f += n;
    }
    e->used = ++pr->fill_clock;
    return e;
}

cx_replay_fill *cx_core_replay_fill_take(cx_replay_prog *pr, const cx_play *pl, int form)
{
    if (!pr->fills && !(pr->fills = calloc(CX_REPLAY_FILL_N, sizeof *pr->fills))) return NULL;
    cx_replay_fill *e = NULL;
    for (int i = 0; i < CX_REPLAY_FILL_N && !e; i++)
        if (pr->fills[i].used && same_key(&pr->fills[i], pl, form)) e = &pr->fills[i];
    if (!e) {
        e = &pr->fills[0];
        for (int i = 1; i < CX_REPLAY_FILL_N && e->used; i++)
            if (pr->fills[i].used < e->used) e = &pr->fills[i];
    }
    e->used = 0;
    if (e->st_p < pl->p) {
        /* pm, K, pos, dl; fpre, last_di, fpre_end (16 bits) */
        const size_t n = (size_t)pl->p;
        free(e->st);
        e->st_p = 0;
        if (!(e->st = malloc((4 * n + (3 * n + 1) / 2) * sizeof *e->st))) return NULL;
        e->st_p = pl->p;
    }
    const size_t n = (size_t)e->st_p;
    e->pm = e->st, e->K = e->pm + n, e->pos = e->K + n, e->dl = e->pos + n;
    e->fpre = (uint16_t *)(void *)(e->dl + n), e->last_di = e->fpre + n,
    e->fpre_end = e->last_di + n;
    e->sd = pl->sd, e->p = pl->p, e->v = pl->v, e->form = form, e->m = pl->m;
    return e;
}

int cx_core_replay_fill_drain_agrees(const cx_replay_fill *e, const cx_play *pl, const int32_t *pos,
                                     int32_t dmb)
{
    const size_t cap = (size_t)pl->cap;
    const cx_sched_item *f = e->dit;
    for (int s = 0; s < pl->p; s++) {
        const size_t n = (size_t)e->dl[s];
        if (pl->len[s] - pos[s] != e->dl[s] ||
            cx_replay_items_agree(pl->items + (size_t)s * cap + pos[s], f, n, dmb) != n)
            return 0;
        f += n;
    }
    return 1;
}

void cx_core_replay_fill_power(const int32_t *pi, int32_t n, int64_t e, int32_t *out, int32_t *seen)
{
    for (int32_t r = 0; r < n; r++)
        seen[r] = 0;
    for (int32_t r = 0; r < n; r++) {
        if (seen[r]) continue;
        /* r's cycle, its length first */
        int32_t len = 0;
        for (int32_t x = r; !seen[x]; x = pi[x])
            seen[x] = 1, len++;
        int64_t sh = e % len;
        if (sh < 0) sh += len;
        /* y: pi^sh(x), walking the cycle with x */
        int32_t y = r;
        for (int64_t j = 0; j < sh; j++)
            y = pi[y];
        for (int32_t x = r, j = 0; j < len; j++, x = pi[x], y = pi[y])
            out[x] = y;
    }
}

int64_t cx_core_replay_fill_order(const int32_t *pi, int32_t n, int64_t cap, int32_t *seen)
{
    for (int32_t r = 0; r < n; r++)
        seen[r] = 0;
    int64_t ord = 1;
    for (int32_t r = 0; r < n; r++) {
        if (seen[r]) continue;
        int64_t len = 0;
        for (int32_t x = r; !seen[x]; x = pi[x])
            seen[x] = 1, len++;
        int64_t a = ord, b = len;
        while (b) { /* a = gcd(ord, len) */
            const int64_t t = a % b;
            a = b, b = t;
        }
        ord = ord / a * len;
        if (ord > cap) return cap + 1;
    }
    return ord;
}

/* Budget: the buffers of all entries of a program object in bytes; an
 * entry needing more than a quarter of it is not kept (each page new to
 * the process costs about what compiling into it does, replay_prog_int.h) */
#define FILL_BYTES ((size_t)16 << 20)

static size_t entry_bytes(const cx_replay_fill *e)
{
    return (e->fit_cap + e->dit_cap) * sizeof(cx_sched_item) + e->fcode_cap + e->dcode_cap +
           e->sl_cap * sizeof *e->sl;
}

static void drop(cx_replay_fill *e)
{
    free(e->sl), free(e->fit), free(e->fcode), free(e->dit), free(e->dcode);
    e->sl = NULL, e->fit = e->dit = NULL, e->fcode = e->dcode = NULL;
    e->sl_cap = e->fit_cap = e->fcode_cap = e->dit_cap = e->dcode_cap = 0;
    e->used = 0;
}

/* Drops the least recently used entries other than keep while the
 * buffers are over the budget. */
static void trim(cx_replay_prog *pr, const cx_replay_fill *keep)
{
    for (;;) {
        size_t all = 0;
        cx_replay_fill *x = NULL;
        for (int i = 0; i < CX_REPLAY_FILL_N; i++) {
            cx_replay_fill *y = &pr->fills[i];
            all += entry_bytes(y);
            if (y != keep && entry_bytes(y) > 0 && (!x || y->used < x->used)) x = y;
        }
        if (all <= FILL_BYTES || !x) return;
        drop(x);
    }
}

void cx_core_replay_fill_keep(cx_replay_prog *pr, cx_replay_fill *e, const cx_play *pl, int fresh,
                              const void *code, size_t sz, size_t fn, size_t virt)
{
    const int p = pl->p, fo = e->form & 1;
    const size_t cap = (size_t)pl->cap;
    e->used = 0;
    size_t nf = 0, nd = 0;
    for (int s = 0; s < p; s++)
        nf += (size_t)e->pm[s] + 1, e->dl[s] = pl->len[s] - e->pos[s], nd += (size_t)e->dl[s];
    const size_t fill_n = fo ? e->fk : e->k,
                 from = (fo ? e->fk + (size_t)e->q * e->FB : e->k + (size_t)e->q * e->B) - virt;
    const size_t need =
        (nf + nd) * sizeof(cx_sched_item) + (fill_n + fn - from) * sz + e->sl_cap * sizeof *e->sl;
    if (need > FILL_BYTES / 4) {
        drop(e);
        return;
    }
    if (fresh) {
        if (cx_core_replay_grow((void **)&e->fit, &e->fit_cap, nf, sizeof *e->fit) ||
            cx_core_replay_grow((void **)&e->fcode, &e->fcode_cap, fill_n * sz, 1))
            return;
        cx_sched_item *f = e->fit;
        for (int s = 0; s < p; s++) {
            const size_t n = (size_t)e->pm[s] + 1;
            memcpy(f, pl->items + (size_t)s * cap, n * sizeof *f);
            f += n;
        }
        memcpy(e->fcode, code, fill_n * sz);
    }
    if (cx_core_replay_grow((void **)&e->dit, &e->dit_cap, nd, sizeof *e->dit) ||
        cx_core_replay_grow((void **)&e->dcode, &e->dcode_cap, (fn - from) * sz, 1))
        return;
    cx_sched_item *f = e->dit;
    for (int s = 0; s < p; s++) {
        memcpy(f, pl->items + (size_t)s * cap + e->pos[s], (size_t)e->dl[s] * sizeof *f);
        f += e->dl[s];
    }
    memcpy(e->dcode, (const unsigned char *)code + from * sz, (fn - from) * sz);
    e->dfn = fn - from;
    e->m = pl->m;
    e->used = ++pr->fill_clock;
    trim(pr, e);
}
