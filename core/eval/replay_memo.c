/*
 * replay_memo.c — recent replay time results of one thread, looked up by
 * the exact bits of every input the replay reads (replay_memo.h). A sweep
 * meets the same replay inputs many times and not back to back: strategies
 * that differ only in what no chunk duration reads (ZeRO 0 and 1, the
 * optimizer offload, the distributed optimizer, DP overlap) or in choices
 * that happen to price the same, with other candidates between them (the
 * offload, clock and DP levels are inside the zero level). The replay is a
 * pure function of its inputs (replay.c: every call starts from the first
 * try, so the path taken and the rounding depend on the inputs only), so an
 * entry that matches to the bit returns exactly the play's result; sweeps
 * stay byte-identical for any thread or MPI rank count.
 *
 * Table: NSET sets of WAYS entries, set = hash of the inputs; a miss
 * replaces the least recently stored entry of the set. An entry holds the
 * key (7 durations per chunk class + p2p), the class of each virtual stage
 * and the result (makespan, and per stage last end, last item, free time:
 * 1 + 3p doubles); entries above MAX_ENTRY_BYTES are not stored, so a
 * worker holds at most NSET * WAYS * MAX_ENTRY_BYTES (16 MiB), whatever the
 * microbatch count. No constants from outside: sizes chosen on the
 * megatron-1t 4096-GPU whole-space sweep (core/README.md, "Sweeps").
 */
#include "core/eval/replay_memo.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NSET 2048
#define WAYS 2
#define MAX_ENTRY_BYTES (16 * 1024)

typedef struct {
    uint64_t hash, curve;
    const void *sched;
    int p, m, v, mode, nkey, nvs, flags, used;
    unsigned stamp;
    size_t cap;
    double *buf; /* key[nkey], makespan, last_end[p], last_item[p], free[p], cls[nvs] */
} entry;

/* Entry buffers come from the memo's own chunks in power-of-two size
 * classes (MIN_BUF_BYTES << c, up to MAX_ENTRY_BYTES) with a free list per
 * class: a store that needs a larger buffer hands its old one to its class
 * and takes one of the larger class. No malloc, realloc (which copied the
 * old contents) or free per store, and the memo's end frees a few chunks
 * instead of one block per entry (malloc/realloc/free under the memo were
 * ~2% of a ZB-V sweep's time when clock batches were stored here too;
 * core/README.md, "Sweeps"). An entry's buffer only grows, as the realloc
 * did, so the chunks hold at most NSET * WAYS * MAX_ENTRY_BYTES. */
#define MIN_BUF_BYTES 256
#define NCLASS 7 /* 256 B .. 16 KiB */
#define CHUNK_BYTES (1024 * 1024)

typedef struct chunk {
    struct chunk *next;
} chunk;

/* The table (320 KB) is allocated by the first store: a sweep that replays
 * nothing (GPipe, 1F1B) zeroes and faults none of it. */
struct cx_replay_memo {
    entry *e; /* [NSET * WAYS], NULL until the first store */
    unsigned clock;
    chunk *chunks;           /* the buffers' memory, each CHUNK_BYTES */
    char *bump, *bump_end;   /* the unused rest of the newest chunk */
    void *free_list[NCLASS]; /* freed buffers of each class, linked by their first word */
};

cx_replay_memo *cx_core_replay_memo_new(void)
{
    return calloc(1, sizeof(cx_replay_memo));
}

void cx_core_replay_memo_free(cx_replay_memo *mm)
{
    if (!mm) return;
    for (chunk *ch = mm->chunks, *nx; ch; ch = nx) {
        nx = ch->next;
        free(ch);
    }
    free(mm->e);
    free(mm);
}

/* The table, allocated here the first time; NULL without memory. */
static entry *table(cx_replay_memo *mm)
{
    if (!mm->e) mm->e = calloc(NSET * WAYS, sizeof *mm->e);
    return mm->e;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* The hash of everything but the time key (the shape, the classes, the
 * curve: shared by a clock batch's entries), then of the key. Only the
 * set an entry falls in depends on it. */
static uint64_t hash_head(const cx_replay_memo_key *k)
{
    uint64_t h = mix(0x243f6a8885a308d3ull, (uint64_t)(uintptr_t)k->sched);
    h = mix(h, (uint64_t)(uint32_t)k->p | (uint64_t)(uint32_t)k->m << 32);
    h = mix(h, (uint64_t)(uint32_t)k->v | (uint64_t)(uint32_t)k->mode << 32);
    h = mix(h, k->curve);
    const int nvs = k->p * k->v;
    int i = 0;
    for (; i + 4 <= nvs; i += 4) {
        uint64_t w;
        memcpy(&w, &k->cls[i], sizeof w);
        h = mix(h, w);
    }
    for (; i < nvs; i++)
        h = mix(h, (uint64_t)(uint16_t)k->cls[i]);
    return h;
}

static uint64_t hash_key(uint64_t h, const double *key, int nkey)
{
    for (int i = 0; i < nkey; i++) {
        uint64_t w;
        memcpy(&w, &key[i], sizeof w);
        h = mix(h, w);
    }
    return h;
}

static uint64_t hash_of(const cx_replay_memo_key *k)
{
    return hash_key(hash_head(k), k->key, k->nkey);
}

static size_t doubles_of(const cx_replay_memo_key *k)
{
    return (size_t)k->nkey + 1 + 3 * (size_t)k->p;
}

static int matches(const entry *e, uint64_t h, const cx_replay_memo_key *k)
{
    const int nvs = k->p * k->v;
    return e->used && e->hash == h && e->sched == k->sched && e->p == k->p && e->m == k->m &&
           e->v == k->v && e->mode == k->mode && e->curve == k->curve && e->nkey == k->nkey &&
           e->nvs == nvs && memcmp(e->buf, k->key, (size_t)k->nkey * sizeof *k->key) == 0 &&
           memcmp(e->buf + doubles_of(k), k->cls, (size_t)nvs * sizeof *k->cls) == 0;
}

int cx_core_replay_memo_get(cx_replay_memo *mm, const cx_replay_memo_key *k, cx_replay *out,
                            int *flags)
{
    if (!mm || !mm->e) return 0;
    const uint64_t h = hash_of(k);
    entry *set = &mm->e[(h % NSET) * WAYS];
    for (int w = 0; w < WAYS; w++) {
        const entry *e = &set[w];
        if (!matches(e, h, k)) continue;
        const double *r = e->buf + k->nkey;
        const size_t n = (size_t)k->p * sizeof(double);
        out->makespan_s = r[0];
        memcpy(out->last_end_s, r + 1, n);
        memcpy(out->last_item_s, r + 1 + k->p, n);
        memcpy(out->free_s, r + 1 + 2 * (size_t)k->p, n);
        *flags = e->flags;
        return 1;
    }
    return 0;
}

/* The size class whose buffers hold bytes (<= MAX_ENTRY_BYTES). */
static int class_of(size_t bytes)
{
    int c = 0;
    while ((size_t)MIN_BUF_BYTES << c < bytes)
        c++;
    return c;
}

/* A buffer of class c: a freed one, else the next of the newest chunk;
 * NULL without memory. */
static double *buf_take(cx_replay_memo *mm, int c)
{
    void *b = mm->free_list[c];
    if (b) {
        memcpy(&mm->free_list[c], b, sizeof b);
        return b;
    }
    const size_t size = (size_t)MIN_BUF_BYTES << c;
    if (!mm->bump || (size_t)(mm->bump_end - mm->bump) < size) {
        chunk *ch = malloc(CHUNK_BYTES);
        if (!ch) return NULL;
        ch->next = mm->chunks, mm->chunks = ch;
        /* buffers start 64-byte aligned (the chunk header padded) */
        mm->bump = (char *)ch + 64, mm->bump_end = (char *)ch + CHUNK_BYTES;
    }
    b = mm->bump;
    mm->bump += size;
    return b;
}

/* The entry of k's set that a store under k (hash h) replaces, with room
 * for bytes; NULL without memory. */
static entry *slot(cx_replay_memo *mm, uint64_t h, size_t bytes)
{
    entry *set = &mm->e[(h % NSET) * WAYS], *e = &set[0];
    for (int w = 0; w < WAYS; w++) {
        if (!set[w].used) {
            e = &set[w];
            break;
        }
        if (set[w].stamp < e->stamp) e = &set[w];
    }
    if (e->cap < bytes) {
        const int c = class_of(bytes);
        double *nb = buf_take(mm, c);
        if (!nb) {
            e->used = 0;
            return NULL;
        }
        if (e->buf) { /* to its class's free list */
            void *old = e->buf;
            const int oc = class_of(e->cap);
            memcpy(old, &mm->free_list[oc], sizeof old);
            mm->free_list[oc] = old;
        }
        e->buf = nb, e->cap = (size_t)MIN_BUF_BYTES << c;
    }
    return e;
}

static void stamp(cx_replay_memo *mm, entry *e, uint64_t h, const cx_replay_memo_key *k, int flags)
{
    const int nvs = k->p * k->v;
    memcpy(e->buf + doubles_of(k), k->cls, (size_t)nvs * sizeof *k->cls);
    e->hash = h, e->sched = k->sched, e->p = k->p, e->m = k->m, e->v = k->v;
    e->mode = k->mode, e->curve = k->curve, e->nkey = k->nkey, e->nvs = nvs, e->flags = flags;
    e->stamp = ++mm->clock, e->used = 1;
}

void cx_core_replay_memo_put(cx_replay_memo *mm, const cx_replay_memo_key *k, const cx_replay *res,
                             int flags)
{
    if (!mm) return;
    const int nvs = k->p * k->v;
    const size_t bytes = doubles_of(k) * sizeof(double) + (size_t)nvs * sizeof(int16_t);
    if (bytes > MAX_ENTRY_BYTES || !table(mm)) return;
    const uint64_t h = hash_of(k);
    entry *e = slot(mm, h, bytes);
    if (!e) return;
    double *r = e->buf;
    memcpy(r, k->key, (size_t)k->nkey * sizeof *k->key);
    r += k->nkey;
    const size_t n = (size_t)k->p * sizeof(double);
    r[0] = res->makespan_s;
    memcpy(r + 1, res->last_end_s, n);
    memcpy(r + 1 + k->p, res->last_item_s, n);
    memcpy(r + 1 + 2 * (size_t)k->p, res->free_s, n);
    stamp(mm, e, h, k, flags);
}
