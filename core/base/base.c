/*
 * base.c — error records and the arena allocator (see base.h). No modelling.
 */
#include "core/base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

culonx_status cx_core_fail(culonx_error *err, culonx_status st, const char *file, int line,
                           const char *fmt, ...)
{
    if (!err) return st;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return st;
}

void cx_core_error_clear(culonx_error *err)
{
    if (err) memset(err, 0, sizeof *err);
}

struct cx_arena_block {
    cx_arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

void cx_core_arena_init(cx_arena *a, size_t block_bytes)
{
    a->head = NULL;
    a->block_bytes = block_bytes ? block_bytes : (size_t)1 << 20;
    a->used_bytes = 0;
}

void *cx_core_arena_alloc(cx_arena *a, size_t bytes)
{
    void *p = cx_core_arena_alloc_raw(a, bytes);
    if (p) memset(p, 0, (bytes + 15u) & ~(size_t)15u);
    return p;
}

void *cx_core_arena_alloc_raw(cx_arena *a, size_t bytes)
{
    bytes = (bytes + 15u) & ~(size_t)15u;
    cx_arena_block *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > a->block_bytes ? bytes : a->block_bytes;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += bytes;
    a->used_bytes += bytes;
    return p;
}

void cx_core_arena_reset(cx_arena *a)
{
    /* keep the newest block, drop the rest */
    if (!a->head) return;
    cx_arena_block *b = a->head->next;
    while (b) {
        cx_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head->next = NULL;
    a->head->used = 0;
    a->used_bytes = 0;
}

void cx_core_arena_free(cx_arena *a)
{
    if (!a) return;
    cx_arena_block *b = a->head;
    while (b) {
        cx_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

size_t cx_core_arena_reserved_bytes(const cx_arena *a)
{
    size_t n = 0;
    for (const cx_arena_block *b = a->head; b; b = b->next)
        n += sizeof *b + b->cap;
    return n;
}

void cx_core_sbuf_printf(cx_sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->buf ? b->buf + b->len : NULL, b->buf ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < room && b->buf) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + (size_t)n + 1)
            nc *= 2;
        char *nb = realloc(b->buf, nc);
        if (!nb) {
            b->oom = 1;
            return;
        }
        b->buf = nb, b->cap = nc;
    }
}

int cx_core_edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 64) la = 64;
    if (lb > 64) lb = 64;
    int row[65];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
        }
    }
    return row[lb];
}

int cx_core_closest(const char *word, const char *const *cands, int n)
{
    int best = -1, bd = 1 << 30, prefix = -1, nprefix = 0;
    size_t wl = strlen(word);
    for (int i = 0; i < n; i++) {
        if (!cands[i]) continue;
        int d = cx_core_edit_distance(word, cands[i]);
        if (d < bd) bd = d, best = i;
        if (wl >= 2 && !strncmp(cands[i], word, wl)) prefix = i, nprefix++;
    }
    int limit = (int)wl / 3 > 1 ? (int)wl / 3 : 1;
    if (best >= 0 && bd <= limit) return best;
    return nprefix == 1 ? prefix : -1;
}
