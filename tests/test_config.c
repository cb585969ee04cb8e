/*
 * test_config.c — CUnit tests of the config loader (core/input/config.c): every
 * shipped run loads and checks; field values round-trip from the XML
 * (values below are the datasheet/paper numbers in configs/); --set
 * overrides; relative path resolution; inline model/system/power; the
 * bad-input corpus (every .xml file in tests/bad) against tests/bad/expected.txt
 * (file|line|substring). Runs from the source root (CX_SOURCE_DIR).
 */
#include "culonx.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC CX_SOURCE_DIR

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b));
}

static culonx_status load(const char *path, culonx_run *run, culonx_error *err)
{
    return culonx_run_load(path, NULL, 0, NULL, run, err);
}

static char *slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = '\0';
    *len = (size_t)n;
    return b;
}

/* ------------------------------------------------------------ shipped */

static void test_shipped_runs_load(void)
{
    DIR *d = opendir("configs");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".xml")) continue;
        char path[600];
        snprintf(path, sizeof path, "configs/%s", e->d_name);
        culonx_run run;
        culonx_error err;
        culonx_status st = load(path, &run, &err);
        if (st) fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        CU_ASSERT_EQUAL(st, CULONX_OK);
        CU_ASSERT_STRING_EQUAL(run.path, path);
        CU_ASSERT(run.model_at.line > 0 && strstr(run.model_at.file, "configs/models/"));
        CU_ASSERT(run.system_at.line > 0 && strstr(run.system_at.file, "configs/systems/"));
        CU_ASSERT(run.exec_at.line > 0 && strcmp(run.exec_at.file, path) == 0);
        CU_ASSERT_EQUAL(run.system.ntiers, 2);
        /* A100 and H100 systems include their datasheet power fragment */
        int has_power = strstr(run.system.gpu.name, "A100") || strstr(run.system.gpu.name, "H100");
        CU_ASSERT_EQUAL(run.system.gpu.power.present, has_power);
        /* the H100 system carries its generation's fitted <perf>; others
         * use the library defaults */
        int fitted = strstr(run.system.gpu.name, "H100") != NULL;
        CU_ASSERT_EQUAL(run.system.perf.matmul_eff_max > 0.0, fitted);
        CU_ASSERT_EQUAL(run.exec.gpus, run.exec.tp * run.exec.pp * run.exec.dp);
        CU_ASSERT_EQUAL(culonx_run_check(&run, &err), CULONX_OK);
        n++;
    }
    closedir(d);
    CU_ASSERT(n >= 8);
}

static void test_shipped_models_and_systems_validate(void)
{
    /* a model or system file is not a run */
    culonx_run run;
    culonx_error err;
    CU_ASSERT_EQUAL(load("configs/models/gpt3-175b.xml", &run, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected root element <run>, got <model>"));
    CU_ASSERT_EQUAL(load("configs/systems/h100-80g.xml", &run, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "got <system>"));
}

static void test_roundtrip_megatron_1t(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load("configs/megatron-1t.xml", &r, &err), CULONX_OK);
    CU_ASSERT_STRING_EQUAL(r.model.name, "megatron-1t");
    CU_ASSERT_EQUAL(r.model.arch, CULONX_ARCH_GPT);
    CU_ASSERT_EQUAL(r.model.layers, 128);
    CU_ASSERT_EQUAL(r.model.hidden, 25600);
    CU_ASSERT_EQUAL(r.model.heads, 160);
    CU_ASSERT_EQUAL(r.model.kv_heads, 160);  /* default = heads */
    CU_ASSERT_EQUAL(r.model.ffn, 4 * 25600); /* default 4h for gpt */
    CU_ASSERT_EQUAL(r.model.vocab, 51200);
    CU_ASSERT_EQUAL(r.model.seq, 2048);
    const culonx_system *s = &r.system;
    CU_ASSERT_STRING_EQUAL(s->name, "a100-80g");
    CU_ASSERT_EQUAL(s->gpus_per_node, 8);
    CU_ASSERT(near(s->pue, 1.1));              /* typical facility (hw/README.md) */
    CU_ASSERT(near(s->node_overhead_w, 1800)); /* typical DGX A100 at training load */
    CU_ASSERT_STRING_EQUAL(s->gpu.name, "A100-SXM4-80GB");
    CU_ASSERT(near(s->gpu.matrix16_tflops, 312));
    CU_ASSERT(near(s->gpu.matrix8_tflops, 0));
    CU_ASSERT(near(s->gpu.vector_tflops, 19.5));
    CU_ASSERT(near(s->gpu.hbm_gbps, 2039));
    CU_ASSERT(near(s->gpu.mem_gib, 80));
    CU_ASSERT(near(s->gpu.min_mhz, 210));
    CU_ASSERT(near(s->gpu.max_mhz, 1410));
    CU_ASSERT(near(s->gpu.step_mhz, 15));
    CU_ASSERT(near(s->gpu.tdp_w, 400));
    CU_ASSERT(near(s->gpu.idle_w, 60));
    CU_ASSERT_STRING_EQUAL(s->tier[0].name, "nvlink");
    CU_ASSERT(near(s->tier[0].bw_gbps, 300));
    CU_ASSERT(near(s->tier[0].latency_s, 2e-6));
    CU_ASSERT(near(s->tier[0].efficiency, 0.75));
    CU_ASSERT(near(s->tier[0].pj_per_bit, 2.0));
    CU_ASSERT_STRING_EQUAL(s->tier[1].name, "ib");
    CU_ASSERT(near(s->tier[1].bw_gbps, 25));
    CU_ASSERT(near(s->tier[1].latency_s, 5e-6));
    CU_ASSERT(near(s->tier[1].efficiency, 0.85));
    CU_ASSERT(near(s->tier[1].pj_per_bit, 25));
    const culonx_execution *e = &r.exec;
    CU_ASSERT_EQUAL(e->gpus, 3072);
    CU_ASSERT_EQUAL(e->tp, 8);
    CU_ASSERT_EQUAL(e->pp, 64);
    CU_ASSERT_EQUAL(e->dp, 6);
    CU_ASSERT_EQUAL(r.dp_derived, 1);
    CU_ASSERT_EQUAL(r.gpus_derived, 0);
    CU_ASSERT_EQUAL(e->vp, 1);
    CU_ASSERT_EQUAL(e->microbatch, 1);
    CU_ASSERT_EQUAL(e->global_batch, 3072);
    CU_ASSERT_EQUAL(e->recompute, CULONX_RECOMPUTE_FULL);
    CU_ASSERT_EQUAL(e->sequence_parallel, 0);
    CU_ASSERT_EQUAL(e->schedule, CULONX_SCHED_1F1B);
    CU_ASSERT_EQUAL(e->distributed_optimizer, 0);
    CU_ASSERT_EQUAL(e->dtype, CULONX_DTYPE_FP16);
    CU_ASSERT_EQUAL(e->dp_overlap, 1);
    CU_ASSERT(near(e->tokens, 450e9));
    CU_ASSERT(near(e->clock_mhz, 0));
}

static void test_roundtrip_llama(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load("configs/llama3-405b-h100.xml", &r, &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.model.arch, CULONX_ARCH_LLAMA);
    CU_ASSERT_EQUAL(r.model.layers, 126);
    CU_ASSERT_EQUAL(r.model.hidden, 16384);
    CU_ASSERT_EQUAL(r.model.heads, 128);
    CU_ASSERT_EQUAL(r.model.kv_heads, 8);
    CU_ASSERT_EQUAL(r.model.ffn, 53248);
    CU_ASSERT_EQUAL(r.model.vocab, 128256);
    CU_ASSERT_EQUAL(r.model.seq, 8192);
    CU_ASSERT(near(r.system.gpu.matrix16_tflops, 989));
    CU_ASSERT(near(r.system.gpu.matrix8_tflops, 1979));
    CU_ASSERT(near(r.system.gpu.max_mhz, 1980));
    CU_ASSERT(near(r.system.tier[0].bw_gbps, 450));
    CU_ASSERT(near(r.system.tier[1].bw_gbps, 50));
    CU_ASSERT_EQUAL(r.exec.gpus, 16384); /* the published layout: pp 16, uneven ends */
    CU_ASSERT_EQUAL(r.exec.pp, 16);
    CU_ASSERT_EQUAL(r.exec.vp, 2);
    CU_ASSERT_EQUAL(r.exec.first_stage_layers, 3);
    CU_ASSERT_EQUAL(r.exec.last_stage_layers, 3);
    CU_ASSERT_EQUAL(r.exec.cp, 1);
    CU_ASSERT_EQUAL(r.exec.dp, 128);
    CU_ASSERT_EQUAL(r.exec.schedule, CULONX_SCHED_INTERLEAVED);
    CU_ASSERT_EQUAL(r.exec.dtype, CULONX_DTYPE_BF16);
    CU_ASSERT_EQUAL(r.exec.recompute, CULONX_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(r.exec.sequence_parallel, 1);
    CU_ASSERT_EQUAL(r.exec.distributed_optimizer, 1);

    CU_ASSERT_EQUAL_FATAL(load("configs/megatron-22b.xml", &r, &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.gpus, 64); /* derived from dp */
    CU_ASSERT_EQUAL(r.gpus_derived, 1);
    CU_ASSERT_EQUAL(r.dp_derived, 0);

    CU_ASSERT_EQUAL_FATAL(load("configs/llama2-7b-v100.xml", &r, &err), CULONX_OK);
    CU_ASSERT(near(r.system.gpu.max_mhz, 1530));
    CU_ASSERT(near(r.system.gpu.min_mhz, 135));
    CU_ASSERT(near(r.system.tier[1].bw_gbps, 12.5));
    CU_ASSERT_EQUAL(r.model.kv_heads, 32);
    CU_ASSERT_EQUAL(r.model.ffn, 11008);
}

/* ------------------------------------------------------------ inline */

static void test_inline_run(void)
{
    culonx_run r;
    culonx_error err;
    culonx_status st = load("tests/data/inline-run.xml", &r, &err);
    if (st) fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
    CU_ASSERT_STRING_EQUAL(r.model.name, "tiny-llama");
    CU_ASSERT_EQUAL(r.model.kv_heads, 4);
    CU_ASSERT_EQUAL(r.model.ffn, 2816);
    CU_ASSERT_STRING_EQUAL(r.model_at.file, "tests/data/inline-run.xml");
    CU_ASSERT_EQUAL(r.model_at.line, 9);
    CU_ASSERT_EQUAL(r.exec_at.line, 5);
    CU_ASSERT_EQUAL(r.system_at.line, 11);
    CU_ASSERT_EQUAL(r.tier_at[0].line, 13);
    CU_ASSERT_EQUAL(r.gpu_at.line, 16);
    CU_ASSERT_EQUAL(r.power_at.line, 19);
    CU_ASSERT_EQUAL(r.system.ntiers, 1);
    CU_ASSERT(near(r.system.tier[0].latency_s, 1.5e-6));
    CU_ASSERT(near(r.system.tier[0].pj_per_bit, 2.5));
    CU_ASSERT(near(r.system.pue, 1.2));
    CU_ASSERT(near(r.system.node_overhead_w, 350));
    CU_ASSERT(near(r.system.perf.matmul_eff_max, 0.8));
    CU_ASSERT(near(r.system.perf.mem_eff, 0.9));
    CU_ASSERT(near(r.system.perf.kernel_launch_s, 4e-6));
    CU_ASSERT(near(r.system.perf.matmul_half_dim, 0)); /* absent: library default */
    const culonx_power_model *p = &r.system.gpu.power;
    CU_ASSERT_EQUAL(p->present, 1);
    CU_ASSERT(near(p->const_w, 60));
    CU_ASSERT(near(p->static_w, 40));
    CU_ASSERT(near(p->knee_mhz, 1200));
    CU_ASSERT(near(p->v_min, 0.7));
    CU_ASSERT(near(p->v_slope, 0.4));
    CU_ASSERT(near(p->tensor_w, 350));
    CU_ASSERT(near(p->fp_w, 120));
    CU_ASSERT(near(p->sm_w, 90));
    CU_ASSERT(near(p->dram_w, 70));
    CU_ASSERT(near(p->blocked_w, 85));
    CU_ASSERT(near(p->time_exp, 1.0)); /* default */
    CU_ASSERT_STRING_EQUAL(p->provenance, "test fixture");
    CU_ASSERT_EQUAL(r.exec.gpus, 16);
    CU_ASSERT_EQUAL(r.gpus_derived, 1);
    CU_ASSERT_EQUAL(r.exec.vp, 2);
    CU_ASSERT_EQUAL(r.exec.dtype, CULONX_DTYPE_FP8);
    CU_ASSERT_EQUAL(r.exec.dp_overlap, 0);
    CU_ASSERT(near(r.exec.tokens, 1.5e9));
    CU_ASSERT(near(r.exec.clock_mhz, 1200));
}

static void test_power_fragment_relative(void)
{
    culonx_run r;
    culonx_error err;
    culonx_status st = load("tests/data/power-run.xml", &r, &err);
    if (st) fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
    CU_ASSERT_STRING_EQUAL(r.model_at.file, "tests/data/../../configs/models/llama3-8b.xml");
    CU_ASSERT_STRING_EQUAL(r.system_at.file, "tests/data/systems/with-power.xml");
    CU_ASSERT_STRING_EQUAL(r.power_at.file, "tests/data/systems/../power/example.xml");
    CU_ASSERT_EQUAL(r.power_at.line, 3);
    CU_ASSERT_EQUAL(r.system.gpu.power.present, 1);
    CU_ASSERT(near(r.system.gpu.power.time_exp, 0.95));
    CU_ASSERT_STRING_EQUAL(r.system.gpu.power.provenance, "tests/data/power/example.xml");
    CU_ASSERT_EQUAL(r.system.ntiers, 1);
    CU_ASSERT(near(r.system.tier[0].efficiency, 1.0)); /* default */
    CU_ASSERT(near(r.system.tier[0].pj_per_bit, 0.0));
    CU_ASSERT(near(r.system.pue, 1.0));
    CU_ASSERT_EQUAL(r.exec.gpus, 8);
    CU_ASSERT(near(r.exec.clock_mhz, 1005));
    /* defaults of execution */
    CU_ASSERT_EQUAL(r.exec.vp, 1);
    CU_ASSERT_EQUAL(r.exec.schedule, CULONX_SCHED_1F1B);
    CU_ASSERT_EQUAL(r.exec.recompute, CULONX_RECOMPUTE_NONE);
    CU_ASSERT_EQUAL(r.exec.dtype, CULONX_DTYPE_BF16);
}

static void test_absolute_path(void)
{
    culonx_run a, b;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load(SRC "/configs/gpt3-175b.xml", &a, &err), CULONX_OK);
    CU_ASSERT_STRING_EQUAL(a.model_at.file, SRC "/configs/models/gpt3-175b.xml");
    CU_ASSERT_EQUAL_FATAL(load("configs/gpt3-175b.xml", &b, &err), CULONX_OK);
    CU_ASSERT_EQUAL(memcmp(&a.model, &b.model, sizeof a.model), 0);
    CU_ASSERT_EQUAL(memcmp(&a.system, &b.system, sizeof a.system), 0);
    CU_ASSERT_EQUAL(memcmp(&a.exec, &b.exec, sizeof a.exec), 0);
}

static void test_load_buffer(void)
{
    size_t len;
    char *buf = slurp("configs/gpt3-175b.xml", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    culonx_run a, b;
    culonx_error err;
    CU_ASSERT_EQUAL(culonx_run_load_buffer("configs/gpt3-175b.xml", buf, len, NULL, &a, &err),
                    CULONX_OK);
    CU_ASSERT_EQUAL(load("configs/gpt3-175b.xml", &b, &err), CULONX_OK);
    CU_ASSERT_EQUAL(memcmp(&a.model, &b.model, sizeof a.model), 0);
    CU_ASSERT_EQUAL(memcmp(&a.exec, &b.exec, sizeof a.exec), 0);
    /* no terminating NUL needed: cut the buffer short */
    CU_ASSERT_EQUAL(culonx_run_load_buffer("x.xml", buf, len / 2, NULL, &a, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "x.xml");
    free(buf);
    const char *inl = "<run><model name='m' arch='gpt' layers='4' hidden='256' heads='4'"
                      " vocab='1000' seq='128'/><system name='s' gpus-per-node='1'><gpu name='g'"
                      " matrix16-tflops='1' vector-tflops='1' hbm-gbps='1' mem-gib='1'"
                      " min-mhz='1' max-mhz='2' step-mhz='1' tdp-w='10' idle-w='1'/><network>"
                      "<tier name='t' bw-gbps='1' latency-us='1'/></network></system>"
                      "<execution gpus='1' tp='1' pp='1' microbatch='1' global-batch='1'/></run>";
    CU_ASSERT_EQUAL(culonx_run_load_buffer(NULL, inl, strlen(inl), NULL, &a, &err), CULONX_OK);
    CU_ASSERT_STRING_EQUAL(a.path, "<buffer>");
    CU_ASSERT_EQUAL(a.model.ffn, 1024);
    CU_ASSERT_EQUAL(a.exec.dp, 1);
}

static void test_schema_path(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL(
        culonx_run_load("configs/gpt3-175b.xml", NULL, 0, SRC "/configs/culonx.xsd", &r, &err),
        CULONX_OK);
    CU_ASSERT_EQUAL(
        culonx_run_load("configs/gpt3-175b.xml", NULL, 0, "/nonexistent/culonx.xsd", &r, &err),
        CULONX_EINPUT); /* a missing input file is bad input (exit 1), not usage */
    CU_ASSERT_STRING_EQUAL(err.file, "/nonexistent/culonx.xsd");
    CU_ASSERT_EQUAL(load("/nonexistent/run.xml", &r, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot open"));
    /* a schema may not pull in other files (no network, no local reads) */
    const char *evil = "/tmp/culonx-test-evil.xsd";
    FILE *f = fopen(evil, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("<?xml version=\"1.0\"?>\n<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n"
          "  <xs:include schemaLocation=\"/etc/passwd\"/>\n</xs:schema>\n",
          f);
    fclose(f);
    CU_ASSERT_EQUAL(culonx_run_load("configs/gpt3-175b.xml", NULL, 0, evil, &r, &err),
                    CULONX_EINPUT);
    CU_ASSERT_EQUAL(err.line, 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "<xs:include> is not allowed"));
    remove(evil);
    /* paths are never truncated */
    char longp[700];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    CU_ASSERT_EQUAL(load(longp, &r, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too long"));
}

/* ------------------------------------------------------------ --set */

static void test_set_overrides(void)
{
    const char *ov[] = {"execution.tp=4",
                        "network.inter.bw-gbps=50",
                        "network.tier0.latency-us=3",
                        "network.nvlink.efficiency=0.5",
                        "gpu.max-mhz=1300",
                        "execution.clock-mhz=1200",
                        "execution.schedule=zb-h1",
                        "execution.recompute=selective",
                        "execution.sequence-parallel=true",
                        "execution.dtype=bf16",
                        "perf.kernel-launch-us=5",
                        "system.pue=1.3",
                        "model.seq=4096",
                        "execution.tokens=1e12"};
    culonx_run r;
    culonx_error err;
    culonx_status st =
        culonx_run_load("configs/gpt3-175b.xml", ov, (int)(sizeof ov / sizeof *ov), NULL, &r, &err);
    if (st) fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.tp, 4);
    CU_ASSERT_EQUAL(r.exec.gpus, 1536);
    CU_ASSERT_EQUAL(r.exec.dp, 32); /* re-derived: dp was omitted in the file */
    CU_ASSERT(near(r.system.tier[1].bw_gbps, 50));
    CU_ASSERT(near(r.system.tier[0].latency_s, 3e-6));
    CU_ASSERT(near(r.system.tier[0].efficiency, 0.5));
    CU_ASSERT(near(r.system.gpu.max_mhz, 1300));
    CU_ASSERT(near(r.exec.clock_mhz, 1200));
    CU_ASSERT_EQUAL(r.exec.schedule, CULONX_SCHED_ZB_H1);
    CU_ASSERT_EQUAL(r.exec.recompute, CULONX_RECOMPUTE_SELECTIVE);
    CU_ASSERT_EQUAL(r.exec.sequence_parallel, 1);
    CU_ASSERT_EQUAL(r.exec.dtype, CULONX_DTYPE_BF16);
    CU_ASSERT(near(r.system.perf.kernel_launch_s, 5e-6));
    CU_ASSERT(near(r.system.pue, 1.3));
    CU_ASSERT_EQUAL(r.model.seq, 4096);
    CU_ASSERT(near(r.exec.tokens, 1e12));
    CU_ASSERT_STRING_EQUAL(r.exec_at.file, "--set");
    CU_ASSERT_EQUAL(r.exec_at.line, 0);
    CU_ASSERT_STRING_EQUAL(r.model_at.file, "--set");
    CU_ASSERT(ends_with(r.system_at.file, "--set"));
}

static void test_set_derivation(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load("configs/gpt3-175b.xml", &r, &err), CULONX_OK);
    /* heads move kv-heads along (MHA), hidden moves a GPT's 4h ffn */
    CU_ASSERT_EQUAL(culonx_run_set(&r, "model.heads=48", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.model.kv_heads, 48);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "model.hidden=6144", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.model.ffn, 4 * 6144);
    /* giving dp makes gpus the derived one */
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.dp=4", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.gpus, 8 * 12 * 4);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.pp=6", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.gpus, 8 * 6 * 4);
    /* giving gpus as well pins both: they must agree (issue 15: no silent
     * run on another GPU count) */
    culonx_run both = r;
    CU_ASSERT_EQUAL(culonx_run_set(&both, "execution.gpus=480", &err), CULONX_OK);
    CU_ASSERT_EQUAL(both.exec.dp, 4);
    CU_ASSERT_EQUAL(culonx_run_check(&both, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpus must equal tp*pp*dp = 8*6*4 = 192, got 480"));
    CU_ASSERT_EQUAL(culonx_run_set(&both, "execution.gpus=192", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_check(&both, &err), CULONX_OK);
    /* giving only gpus makes dp the derived one */
    CU_ASSERT_EQUAL_FATAL(load("configs/gpt3-175b.xml", &r, &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.pp=6", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.gpus=480", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.dp, 10);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.global-batch=480", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_check(&r, &err), CULONX_OK);
    /* tp that does not divide gpus: dp cannot be derived, check says why */
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.tp=7", &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_check(&r, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "--set");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "480 GPUs are not a multiple of tp*pp = 7*6 = 42"));
    /* power overrides need a power model */
    CU_ASSERT_EQUAL(load("tests/data/inline-run.xml", &r, &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "power.tensor-w=400", &err), CULONX_OK);
    CU_ASSERT(near(r.system.gpu.power.tensor_w, 400));
    CU_ASSERT_EQUAL(culonx_run_set(&r, "power.provenance=override", &err), CULONX_OK);
    CU_ASSERT_STRING_EQUAL(r.system.gpu.power.provenance, "override");
    CU_ASSERT_EQUAL(culonx_run_set(&r, "model.arch=gpt", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.model.arch, CULONX_ARCH_GPT);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "gpu.name=H200", &err), CULONX_OK);
    CU_ASSERT_STRING_EQUAL(r.system.gpu.name, "H200");
}

static void test_set_errors(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"execution.tp=abc", "--set execution.tp=abc: tp: expected a positive integer, got 'abc'"},
        {"execution.tp=0", "tp: expected a positive integer, got '0'"},
        {"execution.tp=-2", "tp: expected a positive integer, got '-2'"},
        {"execution.tp=3.5", "tp: expected a positive integer"},
        {"execution.tp=", "tp: expected a positive integer, got ''"},
        {"execution.tp=99999999999999999999", "tp: expected a positive integer"},
        {"execution.tp", "expected section.key=value"},
        {"tp=4", "expected section.key=value"},
        {"exec.tp=4", "unknown section 'exec'"},
        {"execution.tensor=4", "unknown key 'tensor' in execution"},
        {"execution.schedule=pipedream", "unknown schedule 'pipedream'"},
        {"execution.recompute=some", "expected none, selective or full"},
        {"execution.dtype=fp4", "expected fp16, bf16 or fp8"},
        {"execution.dp-overlap=maybe", "expected true or false"},
        {"gpu.min-mhz=nan", "expected a positive number, got 'nan'"},
        {"gpu.tdp-w=inf", "expected a positive number"},
        {"gpu.idle-w=-1", "expected a non-negative number"},
        {"gpu.idle-w=1e999", "expected a non-negative number"},
        {"model.arch=bert", "expected gpt or llama"},
        {"model.name=", "expected a non-empty name"},
        {"network.tier5.bw-gbps=1", "has no network tier 'tier5'"},
        {"network.bw-gbps=1", "expected network.TIER.key=value"},
        {"network.tier1.speed=1", "unknown key 'speed' in network"},
        {"model.file=x.xml", "unknown key 'file'"},
    };
    culonx_run r, before;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load("configs/gpt3-175b.xml", &r, &err), CULONX_OK);
    before = r;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        culonx_status st = culonx_run_set(&r, cases[i].set, &err);
        CU_ASSERT_EQUAL(st, CULONX_EINPUT);
        CU_ASSERT_STRING_EQUAL(err.file, "--set");
        CU_ASSERT_EQUAL(err.line, 0);
        if (!strstr(err.msg, cases[i].msg))
            fprintf(stderr, "--set %s: got '%s', want '%s'\n", cases[i].set, err.msg, cases[i].msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].msg));
        CU_ASSERT_EQUAL(memcmp(&r, &before, sizeof r), 0); /* untouched */
    }
    /* a system without a power model (the V100 run) refuses power.* */
    CU_ASSERT_EQUAL_FATAL(load("configs/llama2-7b-v100.xml", &r, &err), CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "power.tensor-w=1", &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has no <power> model"));
    const char *ov[] = {"execution.tp=3"};
    CU_ASSERT_EQUAL(culonx_run_load("configs/gpt3-175b.xml", ov, 1, NULL, &r, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "--set");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1536 GPUs are not a multiple of tp*pp = 3*12 = 36"));
    const char *ov2[] = {"execution.tp=16", "execution.gpus=3072", "execution.tp=64"};
    CU_ASSERT_EQUAL(culonx_run_load("configs/gpt3-175b.xml", ov2, 3, NULL, &r, &err),
                    CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "<execution tp=\"64\">: 64 does not divide 96 heads"));
}

/* ------------------------------------------------------------ check */

static void test_check_code_built(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(load("configs/megatron-22b.xml", &r, &err), CULONX_OK);
    culonx_run c;
    memset(&c, 0, sizeof c);
    snprintf(c.path, sizeof c.path, "built-in-code");
    c.model = r.model;
    c.system = r.system;
    c.exec = r.exec;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_OK);
    c.exec.tp = 3;
    c.exec.gpus = 24;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "built-in-code");
    CU_ASSERT_EQUAL(err.line, 0);
    CU_ASSERT_STRING_EQUAL(err.msg, "<execution tp=\"3\">: 3 does not divide 64 heads");
    c.exec = r.exec;
    c.system.tier[1].efficiency = 0;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "<tier efficiency=\"0\">: efficiency must be greater than 0"));
    c.system = r.system;
    c.system.gpu.idle_w = NAN;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    c.system = r.system;
    c.exec.schedule = (culonx_schedule)99;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    c.exec = r.exec;
    c.exec.clock_mhz = 100;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "outside the A100-SXM4-80GB range 210-1410 MHz"));
    c.exec = r.exec;
    c.system.pue = 0.5;
    CU_ASSERT_EQUAL(culonx_run_check(&c, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pue must be at least 1"));
    CU_ASSERT_EQUAL(culonx_run_check(NULL, &err), CULONX_EUSAGE);
    /* the file and line of the element at fault */
    r.exec.microbatch = 5;
    CU_ASSERT_EQUAL(culonx_run_check(&r, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "configs/megatron-22b.xml");
    CU_ASSERT_EQUAL(err.line, 12);
}

static void test_names(void)
{
    CU_ASSERT_STRING_EQUAL(culonx_recompute_name(CULONX_RECOMPUTE_NONE), "none");
    CU_ASSERT_STRING_EQUAL(culonx_recompute_name(CULONX_RECOMPUTE_SELECTIVE), "selective");
    CU_ASSERT_STRING_EQUAL(culonx_recompute_name(CULONX_RECOMPUTE_FULL), "full");
    CU_ASSERT_STRING_EQUAL(culonx_recompute_name((culonx_recompute)7), "?");
    CU_ASSERT_STRING_EQUAL(culonx_dtype_name(CULONX_DTYPE_FP16), "fp16");
    CU_ASSERT_STRING_EQUAL(culonx_dtype_name(CULONX_DTYPE_BF16), "bf16");
    CU_ASSERT_STRING_EQUAL(culonx_dtype_name(CULONX_DTYPE_FP8), "fp8");
    CU_ASSERT_STRING_EQUAL(culonx_dtype_name((culonx_dtype)7), "?");
    /* every schedule name is accepted by the loader */
    for (int i = 0; i < culonx_schedule_count(); i++) {
        culonx_run r;
        culonx_error err;
        CU_ASSERT_EQUAL_FATAL(load("configs/gpt3-175b.xml", &r, &err), CULONX_OK);
        char set[64];
        snprintf(set, sizeof set, "execution.schedule=%s",
                 culonx_schedule_name((culonx_schedule)i));
        CU_ASSERT_EQUAL(culonx_run_set(&r, set, &err), CULONX_OK);
        CU_ASSERT_EQUAL((int)r.exec.schedule, i);
    }
}

/* ------------------------------------------------------------ bad corpus */

static void test_bad_corpus(void)
{
    FILE *f = fopen("tests/bad/expected.txt", "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    int n = 0;
    char listed[256][128];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        char *p1 = strchr(line, '|');
        char *p2 = p1 ? strchr(p1 + 1, '|') : NULL;
        CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
        *p1 = *p2 = '\0';
        const char *name = line, *sub = p2 + 1;
        int want_line = atoi(p1 + 1);
        char path[1024];
        snprintf(path, sizeof path, "tests/bad/%.400s", name);
        culonx_run run;
        culonx_error err;
        culonx_status st = load(path, &run, &err);
        int ok = st == CULONX_EINPUT && err.line == want_line && strstr(err.msg, sub);
        if (!ok)
            fprintf(stderr, "\n%s: status %d, got %s:%d: %s\n  want line %d, '%s'\n", name, st,
                    err.file, err.line, err.msg, want_line, sub);
        CU_ASSERT(ok);
        if (n < 256) snprintf(listed[n], sizeof listed[n], "%.100s", name);
        n++;
    }
    fclose(f);
    CU_ASSERT(n >= 25);
    /* every corpus file is in the table */
    DIR *d = opendir("tests/bad");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".xml")) continue;
        int found = 0;
        for (int i = 0; i < n && i < 256; i++)
            found |= strcmp(listed[i], e->d_name) == 0;
        if (!found) fprintf(stderr, "\n%s is not in tests/bad/expected.txt\n", e->d_name);
        CU_ASSERT(found);
    }
    closedir(d);
}

static void test_included_file_error_location(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL(load("tests/bad/35-bad-included-model.xml", &r, &err), CULONX_EINPUT);
    CU_ASSERT_STRING_EQUAL(err.file, "tests/bad/inc/bad-model.xml");
    CU_ASSERT_EQUAL(err.line, 3);
}

static void test_no_entity_expansion(void)
{
    /* whatever happens, nothing from /etc/passwd may reach the run */
    const char *x = "<?xml version='1.0'?><!DOCTYPE run [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                    "<run><model name='a&x;' arch='gpt'/></run>";
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL(culonx_run_load_buffer("xxe.xml", x, strlen(x), NULL, &r, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NULL(strstr(err.msg, "root:"));
    CU_ASSERT_PTR_NULL(strstr(r.model.name, "root"));
}

/* ------------------------------------------------------------ threads */

static void *load_many(void *arg)
{
    int *fails = arg;
    for (int i = 0; i < 20; i++) {
        culonx_run r;
        culonx_error err;
        if (load("configs/llama2-70b-h100.xml", &r, &err) != CULONX_OK || r.exec.dp != 16)
            (*fails)++;
        if (load("tests/bad/09-heads-tp.xml", &r, &err) != CULONX_EINPUT || err.line != 6)
            (*fails)++;
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[4];
    int fails[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, load_many, &fails[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(fails[i], 0);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("config", NULL, NULL);
    CU_add_test(s, "shipped runs load and check", test_shipped_runs_load);
    CU_add_test(s, "model/system files are not runs", test_shipped_models_and_systems_validate);
    CU_add_test(s, "megatron-1t round-trip", test_roundtrip_megatron_1t);
    CU_add_test(s, "llama and derived fields", test_roundtrip_llama);
    CU_add_test(s, "inline model/system/power", test_inline_run);
    CU_add_test(s, "power fragment, relative paths", test_power_fragment_relative);
    CU_add_test(s, "absolute path", test_absolute_path);
    CU_add_test(s, "load from buffer", test_load_buffer);
    CU_add_test(s, "schema path", test_schema_path);
    CU_add_test(s, "--set overrides", test_set_overrides);
    CU_add_test(s, "--set derivations", test_set_derivation);
    CU_add_test(s, "--set errors", test_set_errors);
    CU_add_test(s, "check of code-built runs", test_check_code_built);
    CU_add_test(s, "names", test_names);
    CU_add_test(s, "bad-input corpus", test_bad_corpus);
    CU_add_test(s, "error inside an included file", test_included_file_error_location);
    CU_add_test(s, "no entity expansion", test_no_entity_expansion);
    CU_add_test(s, "concurrent loads", test_threads);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
