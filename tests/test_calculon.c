/*
 * test_calculon.c — the Calculon importer (core/input/calculon.c): the
 * megatron-1T files of tests/data/calculon/ (written in Calculon's shapes:
 * models/megatron-1T.json, an examples/ execution, systems/a100_80g.json)
 * import into a run that loads and estimates to the iteration time of the
 * shipped configs/megatron-1t.xml (the same model, execution and GPU);
 * bad inputs fail with CULONX_EINPUT, the right file and line and a clear
 * message; a few thousand deterministic mutations (truncations, byte flips,
 * deleted bytes) never crash and give only CULONX_OK or CULONX_EINPUT.
 */
#define _GNU_SOURCE
#include "core/input/calculon.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const paths[3] = {"tests/data/calculon/megatron-1T.json",
                                     "tests/data/calculon/3072_t8_p64_d6_mbs1_full.json",
                                     "tests/data/calculon/a100_80g.json"};
static char *text[3];
static size_t len[3];

static char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    char *b = malloc(1 << 16);
    *n = b ? fread(b, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (b) b[*n] = 0;
    return b;
}

static culonx_status import(const char *const t[3], const size_t l[3], char **xml, size_t *xn,
                            culonx_error *err)
{
    FILE *m = open_memstream(xml, xn);
    culonx_status st = cx_core_calculon_buffers(paths, t, l, m, err);
    fclose(m);
    return st;
}

static void test_megatron_1t(void)
{
    char *xml = NULL;
    size_t xn = 0;
    culonx_error err;
    FILE *ms = open_memstream(&xml, &xn);
    CU_ASSERT_EQUAL(culonx_import_calculon(paths[0], paths[1], paths[2], ms, &err), CULONX_OK);
    fclose(ms);
    CU_ASSERT(xn > 0 && strstr(xml, "<execution gpus=\"3072\" tp=\"8\" pp=\"64\""));
    free(xml);
    CU_ASSERT_EQUAL_FATAL(import((const char *const *)text, len, &xml, &xn, &err), CULONX_OK);
    culonx_run *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load_buffer("imported.xml", xml, xn, NULL, a, &err),
                          CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-1t.xml", NULL, 0, NULL, b, &err),
                          CULONX_OK);
    culonx_result ra, rb;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(a, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(b, &rb, &err), CULONX_OK);
    CU_ASSERT(fabs(ra.iteration_time_s - rb.iteration_time_s) <= 1e-12 * rb.iteration_time_s);
    CU_ASSERT(ra.memory.peak_bytes == rb.memory.peak_bytes);
    CU_ASSERT_EQUAL(a->exec.tp, 8);
    CU_ASSERT_EQUAL(a->exec.pp, 64);
    CU_ASSERT_EQUAL(a->exec.dp, 6);
    free(a), free(b), free(xml);
}

/* file index, text to replace, replacement, expected line, message part */
static const struct {
    int file;
    const char *from, *to;
    int line;
    const char *msg;
} bad[] = {
    {0, "\"hidden\": 25600,", "\"hidden\": 25600", 3, "bad JSON"},
    {0, "\"num_blocks\": 128", "\"blocks\": 128", 0, "num_blocks: missing"},
    {0, "\"attn_size\": 160", "\"attn_size\": 150", 6, "attn_size x attn_heads must equal hidden"},
    {0, "\"hidden\": 25600", "\"hidden\": \"big\"", 2, "hidden: expected a number"},
    {0, "\"hidden\": 25600", "\"hidden\": -1", 2, "outside"},
    {0, "\"seq_size\": 2048", "\"seq_size\": 20.5", 4, "expected a whole number"},
    {1, "\"activation_recompute\": \"full\"", "\"activation_recompute\": \"most\"", 14,
     "expected full, attn_only or none"},
    {1, "\"datatype\": \"float16\"", "\"datatype\": \"int4\"", 11, "expected float16"},
    {2, "\"GBps\": 32", "\"GBps\": -32", 10, "GBps: -32 is outside"},
    {1, "\"training\": true", "\"training\": false", 24, "training only"},
    {1, "\"data_par_overlap\": true", "\"data_par_overlap\": 1", 20, "expected true or false"},
    {2, "\"networks\": [", "\"nets\": [", 0, "networks: needs at least one network"},
    {2, "\"GiB\": 80", "\"GiB\": 0", 10, "GiB: 0 is outside"},
    {2, "\"mem2\": {", "\"mem1\": 1, \"mem2\": {", 11, "duplicate object key"},
};

static char *replace(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    if (!p) return NULL;
    size_t a = (size_t)(p - s), fl = strlen(from), tl = strlen(to), sl = strlen(s);
    char *r = malloc(sl - fl + tl + 1);
    memcpy(r, s, a);
    memcpy(r + a, to, tl);
    memcpy(r + a + tl, p + fl, sl - a - fl + 1);
    return r;
}

static void test_bad_inputs(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *t[3] = {text[0], text[1], text[2]};
        size_t l[3] = {len[0], len[1], len[2]};
        char *m = replace(text[bad[i].file], bad[i].from, bad[i].to);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        t[bad[i].file] = m, l[bad[i].file] = strlen(m);
        char *xml = NULL;
        size_t xn = 0;
        culonx_error err;
        culonx_status st = import(t, l, &xml, &xn, &err);
        int ok = st == CULONX_EINPUT && !strcmp(err.file, paths[bad[i].file]) &&
                 (bad[i].line == 0 || err.line == bad[i].line) && strstr(err.msg, bad[i].msg);
        if (!ok)
            printf("\nbad input %zu: status %d, %s:%d: %s\n", i, st, err.file, err.line, err.msg);
        CU_ASSERT(ok);
        free(xml), free(m);
    }
}

/* Calculon's offload flags and mem2 become offload and <host> */
static void test_offload(void)
{
    const char *t[3] = {text[0], text[1], text[2]};
    size_t l[3] = {len[0], len[1], len[2]};
    char *m = replace(text[1], "\"weight_offload\": false", "\"weight_offload\": true");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    t[1] = m, l[1] = strlen(m);
    char *xml = NULL;
    size_t xn = 0;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(import(t, l, &xml, &xn, &err), CULONX_OK);
    culonx_run *r = calloc(1, sizeof *r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load_buffer("imported.xml", xml, xn, NULL, r, &err),
                          CULONX_OK);
    CU_ASSERT_EQUAL(r->exec.offload, CULONX_OFFLOAD_WEIGHTS);
    CU_ASSERT_EQUAL(r->system.host_mem_gib, 512.0 * 8); /* mem2 per GPU x 8 per node */
    CU_ASSERT_EQUAL(r->system.host_bw_gbps, 32.0);
    free(r), free(xml), free(m);
}

static void test_mutations(void)
{
    uint64_t x = 88172645463325252ull;
    int n_ok = 0, n_bad = 0;
    for (int k = 0; k < 3000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int f = (int)(x % 3);
        char *m = malloc(len[f] + 1);
        memcpy(m, text[f], len[f] + 1);
        size_t l = len[f], at = (size_t)((x >> 8) % l);
        switch ((x >> 40) % 3) {
        case 0: /* truncate */
            l = at;
            break;
        case 1: /* flip a byte */
            m[at] = (char)(x >> 48);
            break;
        default: /* delete a byte */
            memmove(m + at, m + at + 1, l - at);
            l--;
        }
        const char *t[3] = {text[0], text[1], text[2]};
        size_t ls[3] = {len[0], len[1], len[2]};
        t[f] = m, ls[f] = l;
        char *xml = NULL;
        size_t xn = 0;
        culonx_error err;
        culonx_status st = import(t, ls, &xml, &xn, &err);
        CU_ASSERT(st == CULONX_OK || st == CULONX_EINPUT);
        if (st == CULONX_OK) {
            /* whatever it writes is a run file the loader judges (OK or bad input) */
            culonx_run *r = calloc(1, sizeof *r);
            culonx_status s2 = culonx_run_load_buffer("m.xml", xml, xn, NULL, r, &err);
            CU_ASSERT(s2 == CULONX_OK || s2 == CULONX_EINPUT);
            free(r);
            n_ok++;
        } else {
            n_bad++;
        }
        free(xml), free(m);
    }
    CU_ASSERT(n_ok > 0 && n_bad > 0);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        if (!(text[i] = slurp(paths[i], &len[i]))) return 2;
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("calculon", NULL, NULL);
    CU_add_test(s, "megatron-1T imports to the shipped run", test_megatron_1t);
    CU_add_test(s, "bad inputs: file, line, message", test_bad_inputs);
    CU_add_test(s, "offload and mem2", test_offload);
    CU_add_test(s, "3000 mutations: OK or bad input", test_mutations);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    for (int i = 0; i < 3; i++)
        free(text[i]);
    return fails ? 1 : 0;
}
