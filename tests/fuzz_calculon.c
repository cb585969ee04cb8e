/*
 * fuzz_calculon.c — libFuzzer harness for the Calculon importer
 * (core/input/calculon.c). The input is split at the first two NUL bytes into
 * the application, execution and system JSON; a missing part is taken from
 * tests/data/calculon/ (megatron-1T), so single-file mutations reach the
 * semantic checks. Bad input must give CULONX_OK or CULONX_EINPUT, never a
 * crash or a sanitizer report; what an OK import writes must load as a run
 * (OK or CULONX_EINPUT). Built with CULONX_FUZZ=ON (clang); ctest runs it for
 * 10 s as fuzz_calculon_bounded.
 */
#define _GNU_SOURCE
#include "core/input/calculon.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[3] = {"tests/data/calculon/megatron-1T.json",
                                     "tests/data/calculon/3072_t8_p64_d6_mbs1_full.json",
                                     "tests/data/calculon/a100_80g.json"};

static char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    char *b = malloc(1 << 16);
    *n = f && b ? fread(b, 1, 1 << 16, f) : 0;
    if (f) fclose(f);
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *good[3];
    static size_t good_len[3];
    if (!good[0])
        for (int i = 0; i < 3; i++)
            good[i] = slurp(paths[i], &good_len[i]);
    const char *t[3] = {good[0], good[1], good[2]};
    size_t l[3] = {good_len[0], good_len[1], good_len[2]};
    const char *p = (const char *)data, *end = p + size;
    for (int i = 0; i < 3 && p <= end; i++) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        t[i] = p, l[i] = z ? (size_t)(z - p) : (size_t)(end - p);
        if (!z) break;
        p = z + 1;
    }
    char *xml = NULL;
    size_t xn = 0;
    FILE *m = open_memstream(&xml, &xn);
    culonx_error err;
    culonx_status st = cx_core_calculon_buffers(paths, t, l, m, &err);
    fclose(m);
    if (st != CULONX_OK && st != CULONX_EINPUT) abort();
    if (st == CULONX_OK) {
        culonx_run *r = malloc(sizeof *r);
        culonx_status s2 = culonx_run_load_buffer("fuzz.xml", xml, xn, NULL, r, &err);
        if (s2 != CULONX_OK && s2 != CULONX_EINPUT) abort();
        free(r);
    }
    free(xml);
    return 0;
}
