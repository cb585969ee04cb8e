/*
 * test_trace.c — Perfetto-clean traces (core/output/trace.c,
 * core/output/trace_file.c): on every shipped run, at stage and at op level,
 * no event of a (stage, stream) thread starts before the previous one ends in
 * the integer nanoseconds the trace writes (exact, 0 ns tolerance);
 * a ".gz" trace decompresses (zlib) to the same bytes as the plain one;
 * --max-events keeps at most that many events; the temporary file is renamed
 * away and an unwritable path fails with CULONX_EINPUT.
 */
#define _GNU_SOURCE
#include "core/eval/graph.h"

#include <CUnit/Basic.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void test_no_overlap_shipped(void)
{
    glob_t gl;
    CU_ASSERT_EQUAL_FATAL(glob("configs/*.xml", 0, NULL, &gl), 0);
    CU_ASSERT(gl.gl_pathc >= 8);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        culonx_run *r = calloc(1, sizeof *r);
        culonx_error err;
        CU_ASSERT_EQUAL_FATAL(culonx_run_load(gl.gl_pathv[i], NULL, 0, NULL, r, &err), CULONX_OK);
        for (int op = 0; op <= 1; op++) {
            cx_graph *g = NULL;
            CU_ASSERT_EQUAL_FATAL(cx_core_graph_run(r, op, &g, &err), CULONX_OK);
            int64_t bad = cx_core_trace_overlaps(g);
            if (bad)
                printf("\n%s %s level: %lld overlaps\n", gl.gl_pathv[i], op ? "op" : "stage",
                       (long long)bad);
            CU_ASSERT_EQUAL(bad, 0);
            cx_core_graph_free(g);
        }
        free(r);
    }
    globfree(&gl);
}

static char *slurp_gz(const char *path, size_t *n)
{
    gzFile f = gzopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    int k;
    while (b && (k = gzread(f, b + len, (unsigned)(cap - len - 1))) > 0) {
        len += (size_t)k;
        if (len + 1 >= cap) b = realloc(b, cap *= 2);
    }
    if (b) b[len] = 0;
    gzclose(f);
    *n = len;
    return b;
}

static void test_gzip_and_limits(void)
{
    culonx_run *r = calloc(1, sizeof *r);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/llama2-70b-h100.xml", NULL, 0, NULL, r, &err),
                          CULONX_OK);
    char dir[] = "/tmp/cx_trace_XXXXXX", plain[64], gz[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(plain, sizeof plain, "%s/t.json", dir);
    snprintf(gz, sizeof gz, "%s/t.json.gz", dir);
    culonx_trace_options opt = {0};
    culonx_trace_info a, b;
    CU_ASSERT_EQUAL(culonx_trace_save(plain, r, &opt, &a, &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_trace_save(gz, r, &opt, &b, &err), CULONX_OK);
    CU_ASSERT(a.events > 0 && a.events == b.events && a.bytes == b.bytes && a.dropped == 0);
    size_t n1 = 0, n2 = 0;
    char *p1 = slurp_gz(plain, &n1), *p2 = slurp_gz(gz, &n2); /* gzread reads plain files too */
    CU_ASSERT(p1 && p2 && n1 == n2 && (int64_t)n1 == a.bytes && !memcmp(p1, p2, n1));
    CU_ASSERT(p2 && n2 > 2 && strstr(p2, "\"ph\": \"s\"") && strstr(p2, "\"ph\": \"C\""));
    FILE *raw = fopen(gz, "rb");
    unsigned char magic[2] = {0};
    CU_ASSERT(raw && fread(magic, 1, 2, raw) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
    if (raw) fclose(raw);
    free(p1), free(p2);
    opt.max_events = 10;
    CU_ASSERT_EQUAL(culonx_trace_save(plain, r, &opt, &b, &err), CULONX_OK);
    CU_ASSERT(b.events <= 10 && b.events > 0 && b.events + b.dropped == a.events);
    CU_ASSERT_EQUAL(culonx_trace_save("/nonexistent/dir/t.json", r, &opt, &b, &err), CULONX_EINPUT);
    glob_t gl;
    char pat[80];
    snprintf(pat, sizeof pat, "%s/*.tmp.*", dir);
    CU_ASSERT_EQUAL(glob(pat, 0, NULL, &gl), GLOB_NOMATCH);
    remove(plain), remove(gz), remove(dir);
    free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("trace", NULL, NULL);
    CU_add_test(s, "shipped runs, stage and op level: 0 ns overlap", test_no_overlap_shipped);
    CU_add_test(s, "gzip, max-events, temporary file", test_gzip_and_limits);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
