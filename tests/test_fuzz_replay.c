/*
 * test_fuzz_replay.c — a fuzzer-free robustness test of the config loader
 * that runs in every build: every file of the seed corpus (configs/,
 * tests/bad/, tests/data/) and a few thousand deterministic mutations of the
 * shipped run, model and system files go through culonx_run_load_buffer;
 * random "--set" assignments go through culonx_run_set. Every outcome must
 * be CULONX_OK or CULONX_EINPUT (never CULONX_EINTERNAL for bad input), a
 * failure must carry a message, and nothing may crash (run it under the
 * sanitize preset for ASan/UBSan). The PRNG is xorshift64* with a fixed seed.
 */
#include "culonx.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 256
#define MUTATIONS_PER_FILE 150

typedef struct {
    char path[512];
    char *buf;
    size_t len;
} seed;

static seed seeds[MAX_FILES];
static int nseeds;

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

static void add_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && nseeds < MAX_FILES) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%.250s/%.250s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            add_dir(path);
            continue;
        }
        if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20)) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        seed *s = &seeds[nseeds];
        s->buf = malloc((size_t)st.st_size + 1);
        s->len = s->buf ? fread(s->buf, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
        if (!s->buf) continue;
        snprintf(s->path, sizeof s->path, "%s", path);
        nseeds++;
    }
    closedir(d);
}

static int check_outcome(culonx_status st, const culonx_error *err, const char *what)
{
    if (st == CULONX_OK) return 1;
    if (st == CULONX_EINPUT && err->msg[0]) return 1;
    fprintf(stderr, "\n%s: status %d: %s:%d: %s\n", what, st, err->file, err->line, err->msg);
    return 0;
}

static void test_corpus(void)
{
    CU_ASSERT_FATAL(nseeds >= 20);
    int bad = 0;
    for (int i = 0; i < nseeds; i++) {
        culonx_run run;
        culonx_error err;
        culonx_status st =
            culonx_run_load_buffer(seeds[i].path, seeds[i].buf, seeds[i].len, NULL, &run, &err);
        bad += !check_outcome(st, &err, seeds[i].path);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static const char *const tokens[] = {
    "0",
    "-1",
    "1",
    "3",
    "1e308",
    "1e-308",
    "nan",
    "INF",
    "99999999999999999999",
    "",
    "\"",
    "<",
    ">",
    "&amp;",
    "&x;",
    "<!--",
    "-->",
    "<![CDATA[x]]>",
    "/>",
    "=",
    "<model/>",
    "<system/>",
    "<execution/>",
    "<tier name='t' bw-gbps='1' latency-us='1'/>",
    "file=\"/dev/zero\"",
    "file=\"/etc/passwd\"",
    "file=\"http://x/y.xml\"",
    "file=\"\"",
    "<!DOCTYPE run [<!ENTITY e 'x'>]>",
    "\xff\xfe",
    "\xc3\x28",
    "interleaved",
    "zb-v",
    "dualpipev",
    "llama",
    "fp8",
    "true",
    "false",
    "vp=\"7\"",
    "tp=\"1024\"",
};

/* One random edit of buf (cap bytes available); returns the new length. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
    switch (rnd_below(7)) {
    case 0: /* flip bits */
        if (len) buf[rnd_below(len)] ^= (char)(1u << rnd_below(8));
        return len;
    case 1: /* random byte */
        if (len) buf[rnd_below(len)] = (char)rnd_below(256);
        return len;
    case 2: { /* delete a range */
        if (!len) return len;
        size_t at = rnd_below(len), n = 1 + rnd_below(32);
        if (at + n > len) n = len - at;
        memmove(buf + at, buf + at + n, len - at - n);
        return len - n;
    }
    case 3: { /* insert a token */
        const char *t = tokens[rnd_below(sizeof tokens / sizeof *tokens)];
        size_t n = strlen(t), at = rnd_below(len + 1);
        if (len + n > cap) return len;
        memmove(buf + at + n, buf + at, len - at);
        memcpy(buf + at, t, n);
        return len + n;
    }
    case 4: { /* replace a number with a token */
        size_t at = rnd_below(len + 1);
        while (at < len && !(buf[at] >= '0' && buf[at] <= '9'))
            at++;
        if (at >= len) return len;
        size_t end = at;
        while (end < len && ((buf[end] >= '0' && buf[end] <= '9') || buf[end] == '.'))
            end++;
        const char *t = tokens[rnd_below(10)];
        size_t n = strlen(t);
        if (len - (end - at) + n > cap) return len;
        memmove(buf + at + n, buf + end, len - end);
        memcpy(buf + at, t, n);
        return len - (end - at) + n;
    }
    case 5: { /* duplicate a range */
        if (!len) return len;
        size_t at = rnd_below(len), n = 1 + rnd_below(64);
        if (at + n > len) n = len - at;
        if (len + n > cap) return len;
        memmove(buf + at + n, buf + at, len - at);
        return len + n;
    }
    default: /* truncate */
        return rnd_below(len + 1);
    }
}

static void test_mutations(void)
{
    int bad = 0, ok = 0, total = 0;
    for (int i = 0; i < nseeds; i++) {
        if (!strstr(seeds[i].path, "configs/") || !strstr(seeds[i].path, ".xml")) continue;
        size_t cap = seeds[i].len * 2 + 4096;
        char *buf = malloc(cap);
        CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
        for (int m = 0; m < MUTATIONS_PER_FILE; m++) {
            memcpy(buf, seeds[i].buf, seeds[i].len);
            size_t len = seeds[i].len;
            int edits = 1 + (int)rnd_below(4);
            for (int k = 0; k < edits; k++)
                len = mutate(buf, len, cap);
            culonx_run run;
            culonx_error err;
            culonx_status st = culonx_run_load_buffer(seeds[i].path, buf, len, NULL, &run, &err);
            char what[600];
            snprintf(what, sizeof what, "%.400s mutation %d", seeds[i].path, m);
            bad += !check_outcome(st, &err, what);
            ok += st == CULONX_OK;
            total++;
        }
        free(buf);
    }
    CU_ASSERT(total >= 2000);
    CU_ASSERT(ok > 0); /* some mutations stay valid (comments, whitespace) */
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_set_random(void)
{
    static const char *const sections[] = {
        "model",         "system",        "gpu",        "power",     "perf",  "execution",
        "network.tier0", "network.inter", "network.ib", "network.x", "bogus", ""};
    static const char *const keys[] = {
        "name",
        "arch",
        "layers",
        "hidden",
        "heads",
        "kv-heads",
        "ffn",
        "vocab",
        "seq",
        "gpus-per-node",
        "pue",
        "node-overhead-w",
        "matrix16-tflops",
        "min-mhz",
        "max-mhz",
        "idle-w",
        "tdp-w",
        "bw-gbps",
        "latency-us",
        "efficiency",
        "pj-per-bit",
        "mem-eff",
        "kernel-launch-us",
        "gpus",
        "tp",
        "pp",
        "dp",
        "vp",
        "microbatch",
        "global-batch",
        "recompute",
        "schedule",
        "dtype",
        "clock-mhz",
        "tokens",
        "sequence-parallel",
        "file",
        "",
        "ep",
        "etp",
        "capacity-factor",
        "experts",
        "expert-ffn",
        "kv-rank",
        "a2a-overlap",
        "route-nodes",
        "window-every",
        "window",
    };
    static const char *const values[] = {"1",           "2",     "8",     "64",
                                         "0",           "-3",    "0.5",   "1e9",
                                         "nan",         "abc",   "",      "full",
                                         "interleaved", "gpt",   "llama", "moe",
                                         "true",        "fp8",   "1410",  "99999999999999999999",
                                         "pipe",        "shared"};
    culonx_run good;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(
        culonx_run_load("configs/llama2-70b-h100.xml", NULL, 0, NULL, &good, &err), CULONX_OK);
    int bad = 0, ok = 0;
    /* its own sequence: independent of what the earlier tests drew */
    rng_state = 0x243F6A8885A308D3ull;
    for (int i = 0; i < 6000; i++) {
        culonx_run r = good;
        char set[256];
        snprintf(set, sizeof set, "%s.%s=%s",
                 sections[rnd_below(sizeof sections / sizeof *sections)],
                 keys[rnd_below(sizeof keys / sizeof *keys)],
                 values[rnd_below(sizeof values / sizeof *values)]);
        culonx_status st = culonx_run_set(&r, set, &err);
        bad += !check_outcome(st, &err, set);
        if (st == CULONX_OK) {
            ok++;
            bad += !check_outcome(culonx_run_check(&r, &err), &err, set);
        }
    }
    fprintf(stderr, " (%d of 6000 sets accepted) ", ok);
    CU_ASSERT(ok > 100);
    CU_ASSERT_EQUAL(bad, 0);
}

/* random --set on the serving run (serving.* and model.*), then a row and a
 * small plan: OK or EINPUT, never a crash or an internal error */
static void test_serve_random(void)
{
    static const char *const keys[] = {
        "serving.tp",
        "serving.pp",
        "serving.batch",
        "serving.input-tokens",
        "serving.output-tokens",
        "serving.dtype",
        "serving.kv-dtype",
        "serving.load-tokens-per-s",
        "serving.ttft-slo-ms",
        "serving.tpot-slo-ms",
        "serving.bogus",
        "model.kv-heads",
        "model.heads",
        "model.layers",
        "model.hidden",
        "gpu.mem-gib",
        "execution.tp",
        "system.gpus-per-node",
    };
    static const char *const values[] = {"1",
                                         "2",
                                         "4",
                                         "8",
                                         "3",
                                         "0",
                                         "-1",
                                         "64",
                                         "1e6",
                                         "nan",
                                         "abc",
                                         "fp8",
                                         "bf16",
                                         "",
                                         "1000",
                                         "12345",
                                         "0.5",
                                         "1e13",
                                         "99999999999999999999"};
    culonx_run good;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(
        culonx_run_load("configs/llama2-70b-serve-h100.xml", NULL, 0, NULL, &good, &err),
        CULONX_OK);
    static culonx_serve_plan plan;
    int bad = 0, ok = 0;
    for (int i = 0; i < 400; i++) {
        culonx_run r = good;
        char set[256];
        snprintf(set, sizeof set, "%s=%s", keys[rnd_below(sizeof keys / sizeof *keys)],
                 values[rnd_below(sizeof values / sizeof *values)]);
        culonx_status st = culonx_run_set(&r, set, &err);
        bad += !check_outcome(st, &err, set);
        if (st != CULONX_OK) continue;
        st = culonx_run_check(&r, &err);
        bad += !check_outcome(st, &err, set);
        if (st != CULONX_OK) continue;
        ok++;
        culonx_serve_row row;
        bad += !check_outcome(culonx_serve_eval(&r, r.serving.tp, 0, &row, &err), &err, set);
        if (r.serving.load_tokens_per_s > 0)
            bad += !check_outcome(culonx_serve_plan_solve(&r, 8, 810, 1980, 390, &plan, &err), &err,
                                  set);
    }
    CU_ASSERT(ok > 50);
    CU_ASSERT_EQUAL(bad, 0);
}

int main(void)
{
    add_dir("configs");
    add_dir("tests/bad");
    add_dir("tests/data");
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("fuzz_replay", NULL, NULL);
    CU_add_test(s, "seed corpus", test_corpus);
    CU_add_test(s, "mutations of shipped configs", test_mutations);
    CU_add_test(s, "random --set", test_set_random);
    CU_add_test(s, "random --set on a serving run, then serve", test_serve_random);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    for (int i = 0; i < nseeds; i++)
        free(seeds[i].buf);
    return failed ? 1 : 0;
}
