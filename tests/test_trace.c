/*
 * test_trace.c — Perfetto-clean traces (core/output/trace.c,
 * core/output/trace_file.c): on every shipped run, at stage and at op level,
 * no event of a (stage, stream) thread starts before the previous one ends in
 * the integer nanoseconds the trace writes (exact, 0 ns tolerance);
 * a ".gz" trace decompresses (zlib) to the same bytes as the plain one;
 * --max-events keeps at most that many events; the temporary file is renamed
 * away and an unwritable path fails with CULONX_EINPUT; a traced clock plan
 * (--plan T) lasts the plan's time, carries each compute event's clock and a
 * power track that falls as T grows.
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

/* largest value after `key` in s, and the first one */
static double scan(const char *s, const char *key, double *first, int *count)
{
    double mx = -1;
    int n = 0;
    size_t kl = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + kl, key)) {
        double v = strtod(p + kl, NULL);
        if (n == 0 && first) *first = v;
        if (v > mx) mx = v;
        n++;
    }
    if (count) *count = n;
    return mx;
}

static void test_plan_trace(void)
{
    culonx_run *r = calloc(1, sizeof *r);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/megatron-22b.xml", NULL, 0, NULL, r, &err),
                          CULONX_OK);
    culonx_plan_result pr;
    CU_ASSERT_EQUAL_FATAL(culonx_plan(r, NULL, &pr, &err), CULONX_OK);
    const double tmin = pr.min_time_s, tmax = pr.max_time_s;
    culonx_plan_result_free(&pr);
    const double ts[3] = {0.5 * tmin, 0.5 * (tmin + tmax), 2 * tmax};
    double peak_w[3] = {0};
    for (int k = 0; k < 3; k++) {
        culonx_plan_options po = {0};
        po.target_time_s = ts[k];
        CU_ASSERT_EQUAL_FATAL(culonx_plan(r, &po, &pr, &err), CULONX_OK);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        culonx_trace_options opt = {0};
        opt.plan_time_s = ts[k];
        CU_ASSERT_EQUAL(culonx_trace_write_opts(f, r, &opt, NULL, &err), CULONX_OK);
        fclose(f);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"plan\": {\"target_time_s\": "));
        double t_trace = 0, t_plan = 0;
        scan(buf, "\"iteration_time_s\": ", &t_trace, NULL);
        /* otherData's iteration time (the DAG timed with the plan's
         * durations) is the plan's time; the nearest frontier point */
        scan(strstr(buf, "\"plan\": {"), "\"iteration_time_s\": ", &t_plan, NULL);
        CU_ASSERT_DOUBLE_EQUAL(t_trace, pr.plan_time_s, 1e-6 * pr.plan_time_s);
        CU_ASSERT_DOUBLE_EQUAL(t_plan, pr.plan_time_s, 1e-6 * pr.plan_time_s);
        /* the JSON prints 9 significant digits: compare to that precision */
        CU_ASSERT(t_trace >= tmin * (1 - 1e-8) && t_trace <= tmax * (1 + 1e-8));
        int nclk = 0;
        double maxclk = scan(buf, "\"clock_mhz\": ", NULL, &nclk);
        CU_ASSERT(nclk > 0 && maxclk <= r->system.gpu.max_mhz + 1e-9);
        peak_w[k] = scan(buf, "\"W\": ", NULL, NULL);
        free(buf);
        culonx_plan_result_free(&pr);
    }
    /* slower plans run at lower clocks: the power track's peak falls */
    CU_ASSERT(peak_w[0] > peak_w[1] && peak_w[1] > peak_w[2]);
    /* stage level only; a positive time */
    culonx_trace_options bad = {0};
    bad.plan_time_s = tmin;
    bad.op_level = 1;
    CU_ASSERT_EQUAL(culonx_trace_write_opts(stdout, r, &bad, NULL, &err), CULONX_EUSAGE);
    bad.op_level = 0;
    bad.plan_time_s = -1;
    CU_ASSERT_EQUAL(culonx_trace_write_opts(stdout, r, &bad, NULL, &err), CULONX_EUSAGE);
    free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("trace", NULL, NULL);
    CU_add_test(s, "shipped runs, stage and op level: 0 ns overlap", test_no_overlap_shipped);
    CU_add_test(s, "gzip, max-events, temporary file", test_gzip_and_limits);
    CU_add_test(s, "clock plan: plan's time, clocks, power track", test_plan_trace);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
