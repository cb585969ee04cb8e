/*
 * test_serve.c — serving (core/eval/serve.c, core/eval/serve_plan.c): the
 * physics a serving model must obey, since bench/data holds no serving
 * measurements: KV bytes per token = 2·l·k·d·bytes (GQA, fp8); decode at
 * batch 1 is bound by weight bytes / HBM bandwidth; TTFT grows with the
 * prompt; TTFT and TPOT do not grow with the clock; TPOT grows with the
 * batch and throughput too; more TP is faster; energy per token is U-shaped
 * in the clock; the largest batch is the memory limit; SLO marks; --set
 * serving.*; and the pool plan equals a brute force over every
 * (counts, clocks, full/partial/empty) assignment.
 */
#include "culonx.h"
#include "models/serve.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RUN "configs/llama2-70b-serve-h100.xml"

static void load(culonx_run *r, const char *const *sets, int n)
{
    culonx_error err;
    culonx_status st = culonx_run_load(RUN, sets, n, NULL, r, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
}

static culonx_serve_row eval(const culonx_run *r, int64_t tp, double mhz)
{
    culonx_serve_row row;
    culonx_error err;
    CU_ASSERT_EQUAL(culonx_serve_eval(r, tp, mhz, &row, &err), CULONX_OK);
    return row;
}

static void test_kv_bytes(void)
{
    culonx_run r;
    load(&r, NULL, 0);
    culonx_serve_row a = eval(&r, 8, 0);
    /* Llama 2 70B: l 80, k 8, d 128, 2 bytes: 2*80*8*128*2 = 327680 */
    CU_ASSERT_DOUBLE_EQUAL(a.kv_bytes_per_token, 327680.0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(a.kv_bytes, 16.0 * (1024 + 256) * 327680.0 / 8.0, 1e-3);
    const char *fp8kv[] = {"serving.kv-dtype=fp8"};
    load(&r, fp8kv, 1);
    CU_ASSERT_DOUBLE_EQUAL(eval(&r, 8, 0).kv_bytes_per_token, 327680.0 / 2.0, 1e-6);
    const char *mha[] = {"model.kv-heads=64"};
    load(&r, mha, 1);
    CU_ASSERT_DOUBLE_EQUAL(eval(&r, 8, 0).kv_bytes_per_token, 8.0 * 327680.0, 1e-6);
    /* fp8 weights halve the weight bytes; kv-dtype follows dtype */
    const char *fp8[] = {"serving.dtype=fp8"};
    load(&r, fp8, 1);
    culonx_serve_row b = eval(&r, 8, 0);
    CU_ASSERT_DOUBLE_EQUAL(b.weights_bytes, a.weights_bytes / 2.0, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(b.kv_bytes_per_token, 327680.0, 1e-6); /* kv-dtype given in the file */
    CU_ASSERT(b.tpot_s < a.tpot_s);
    const char *fp8b[] = {"serving.kv-dtype=fp8", "serving.dtype=fp8"};
    load(&r, fp8b, 2);
    CU_ASSERT_DOUBLE_EQUAL(eval(&r, 8, 0).kv_bytes_per_token, 327680.0 / 2.0, 1e-6);
}

static void test_decode_memory_bound(void)
{
    const char *b1[] = {"serving.batch=1"};
    culonx_run r;
    load(&r, b1, 1);
    for (int64_t tp = 2; tp <= 8; tp *= 2) {
        culonx_serve_row x = eval(&r, tp, 0);
        /* weight bytes / (HBM bandwidth x fitted efficiency, hw/perf.c) */
        double bound = x.weights_bytes / (3350e9 * 0.6226);
        double gpu_s = x.tpot_s - x.tpot_comm_s;
        CU_ASSERT(x.tpot_compute_s < 0.02 * gpu_s);
        /* within 2%: the embedding table is counted in the weights but only
         * b of its rows are read */
        if (fabs(gpu_s / bound - 1) > 0.02)
            fprintf(stderr, "tp %lld: decode %g s vs weights/HBM %g s\n", (long long)tp, gpu_s,
                    bound);
        CU_ASSERT(fabs(gpu_s / bound - 1) < 0.02);
        /* memory-bound: the clock barely matters */
        culonx_serve_row lo = eval(&r, tp, 810);
        CU_ASSERT(lo.tpot_s < 1.02 * x.tpot_s);
    }
}

static void test_monotone(void)
{
    culonx_run r;
    load(&r, NULL, 0);
    /* clock: nothing slows down when the clock rises */
    culonx_serve_row prev = eval(&r, 8, 210);
    for (double f = 300; f <= 1980; f += 90) {
        culonx_serve_row x = eval(&r, 8, f);
        CU_ASSERT(x.ttft_s <= prev.ttft_s * (1 + 1e-12));
        CU_ASSERT(x.tpot_s <= prev.tpot_s * (1 + 1e-12));
        prev = x;
    }
    /* compute-bound prefill speeds up nearly 1/f */
    CU_ASSERT(eval(&r, 8, 990).ttft_s > 1.4 * eval(&r, 8, 1980).ttft_s);
    /* batch: a step takes longer, throughput rises */
    double tpot = 0, tput = 0;
    for (int b = 1; b <= 256; b *= 2) {
        char s[64];
        snprintf(s, sizeof s, "serving.batch=%d", b);
        const char *set[] = {s};
        load(&r, set, 1);
        culonx_serve_row x = eval(&r, 8, 0);
        CU_ASSERT(x.tpot_s >= tpot);
        CU_ASSERT(x.tokens_per_s > tput);
        tpot = x.tpot_s, tput = x.tokens_per_s;
    }
    /* prompt length: TTFT grows; from 1024 tokens on (compute-bound) nearly
     * in proportion (the head on the last token and collective latencies do
     * not grow), and convex: the ratio per doubling never falls, since
     * causal attention adds a quadratic part (FlashAttention halves it) */
    double t1 = 0, ratio = 0;
    for (int n = 256; n <= 8192; n *= 2) {
        char s[64];
        snprintf(s, sizeof s, "serving.input-tokens=%d", n);
        const char *set[] = {s};
        load(&r, set, 1);
        culonx_serve_row x = eval(&r, 8, 0);
        if (t1 > 0) CU_ASSERT(x.ttft_s > t1);
        if (n > 1024) {
            CU_ASSERT(x.ttft_s >= 1.85 * t1);
            CU_ASSERT(x.ttft_s / t1 >= ratio - 1e-9);
        }
        if (t1 > 0) ratio = x.ttft_s / t1;
        t1 = x.ttft_s;
    }
    /* TP: more GPUs per instance, lower latency */
    load(&r, NULL, 0);
    CU_ASSERT(eval(&r, 4, 0).tpot_s < eval(&r, 2, 0).tpot_s);
    CU_ASSERT(eval(&r, 8, 0).tpot_s < eval(&r, 4, 0).tpot_s);
    CU_ASSERT(eval(&r, 8, 0).ttft_s < eval(&r, 4, 0).ttft_s);
}

static void test_u_shape_and_slo(void)
{
    const char *noslo[] = {"serving.ttft-slo-ms=0", "serving.tpot-slo-ms=0"};
    culonx_run r;
    load(&r, noslo, 2);
    culonx_serve_row *rows = NULL;
    int n = 0;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_serve_clocks(&r, 0, 0, 0, &rows, &n, &err), CULONX_OK);
    int imin = -1;
    for (int i = 0; i < n; i++) {
        CU_ASSERT(rows[i].slo_ok);
        if (rows[i].min_energy) imin = i;
    }
    CU_ASSERT(imin > 0 && imin < n - 1);
    for (int i = 0; i < n; i++)
        CU_ASSERT(rows[i].energy_j_per_token >= rows[imin].energy_j_per_token);
    /* a TTFT SLO between the fastest and the slowest clock cuts the low clocks */
    double mid = 0.5 * (rows[0].ttft_s + rows[n - 1].ttft_s);
    free(rows);
    char s1[64], s2[64];
    snprintf(s1, sizeof s1, "serving.ttft-slo-ms=%.17g", mid * 1e3);
    const char *cut[] = {s1};
    load(&r, cut, 1);
    CU_ASSERT_EQUAL_FATAL(culonx_serve_clocks(&r, 0, 0, 0, &rows, &n, &err), CULONX_OK);
    CU_ASSERT(!rows[0].ttft_ok && !rows[0].slo_ok);
    CU_ASSERT(rows[n - 1].ttft_ok && rows[n - 1].slo_ok);
    for (int i = 1; i < n; i++)
        CU_ASSERT(rows[i].ttft_ok >= rows[i - 1].ttft_ok);
    int marked = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].min_energy) {
            marked++;
            CU_ASSERT(rows[i].slo_ok);
        }
    CU_ASSERT_EQUAL(marked, 1);
    double tpot = rows[n - 1].tpot_s;
    free(rows);
    /* a TPOT SLO no clock meets: nothing marked */
    snprintf(s2, sizeof s2, "serving.tpot-slo-ms=%.17g", 0.5 * tpot * 1e3);
    const char *tight[] = {s2};
    load(&r, tight, 1);
    CU_ASSERT_EQUAL_FATAL(culonx_serve_clocks(&r, 0, 0, 0, &rows, &n, &err), CULONX_OK);
    for (int i = 0; i < n; i++)
        CU_ASSERT(!rows[i].tpot_ok && !rows[i].slo_ok && !rows[i].min_energy);
    free(rows);
}

static void test_max_batch(void)
{
    culonx_run r;
    load(&r, NULL, 0);
    culonx_serve_row x = eval(&r, 8, 0);
    CU_ASSERT(x.fits && x.max_batch > 16);
    char s[64];
    snprintf(s, sizeof s, "serving.batch=%lld", (long long)x.max_batch);
    const char *at[] = {s};
    load(&r, at, 1);
    CU_ASSERT(eval(&r, 8, 0).fits);
    snprintf(s, sizeof s, "serving.batch=%lld", (long long)x.max_batch + 1);
    load(&r, at, 1);
    CU_ASSERT(!eval(&r, 8, 0).fits);
    /* TP 1: 140 GB of weights do not fit in 80 GiB */
    load(&r, NULL, 0);
    culonx_serve_row one = eval(&r, 1, 0);
    CU_ASSERT(!one.fits && one.max_batch == 0 && !one.slo_ok);
}

static void test_set_and_errors(void)
{
    culonx_run r, before;
    culonx_error err;
    load(&r, NULL, 0);
    CU_ASSERT(r.serving_only && r.has_serving);
    CU_ASSERT_EQUAL(r.exec.tp, 8);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "serving.tp=4", &err), CULONX_OK);
    CU_ASSERT_EQUAL(r.exec.tp, 4); /* the derived execution follows */
    CU_ASSERT_EQUAL(r.exec.gpus, 4);
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"serving.tp=abc", "tp: expected a positive integer, got 'abc'"},
        {"serving.batch=0", "batch: expected a positive integer, got '0'"},
        {"serving.input-tokens=-1", "input-tokens: expected a positive integer"},
        {"serving.output-tokens=1.5", "output-tokens: expected a positive integer"},
        {"serving.kv-dtype=fp4", "expected fp16, bf16 or fp8"},
        {"serving.dtype=int8", "expected fp16, bf16 or fp8"},
        {"serving.load-tokens-per-s=-3", "expected a non-negative number"},
        {"serving.ttft-slo-ms=nan", "expected a non-negative number"},
        {"serving.tpot-slo-ms=inf", "expected a non-negative number"},
        {"serving.pp=x", "pp: expected a positive integer"},
        {"serving.speed=1", "unknown key 'speed' in serving"},
    };
    before = r;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CU_ASSERT_EQUAL(culonx_run_set(&r, cases[i].set, &err), CULONX_EINPUT);
        if (!strstr(err.msg, cases[i].msg))
            fprintf(stderr, "--set %s: got '%s'\n", cases[i].set, err.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].msg));
        CU_ASSERT_EQUAL(memcmp(&r, &before, sizeof r), 0);
    }
    /* checked on load: tp must split the model */
    const char *bad[] = {"serving.tp=3"};
    CU_ASSERT_EQUAL(culonx_run_load(RUN, bad, 1, NULL, &r, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3 does not divide 64 heads"));
    /* a training run has no <serving> */
    CU_ASSERT_EQUAL(culonx_run_load("configs/llama2-70b-h100.xml", NULL, 0, NULL, &r, &err),
                    CULONX_OK);
    CU_ASSERT_EQUAL(culonx_run_set(&r, "serving.tp=8", &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has no <serving>"));
    culonx_serve_row *rows = NULL;
    int n = 0;
    CU_ASSERT_EQUAL(culonx_serve_clocks(&r, 0, 0, 0, &rows, &n, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NULL(rows);
    load(&r, NULL, 0);
    CU_ASSERT_EQUAL(culonx_serve_clocks(&r, 100, 1980, 10, &rows, &n, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "outside the GPU's"));
    culonx_serve_plan p;
    const char *noload[] = {"serving.load-tokens-per-s=0"};
    load(&r, noload, 1);
    CU_ASSERT_EQUAL(culonx_serve_plan_solve(&r, 8, 0, 0, 0, &p, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "load-tokens-per-s > 0"));
}

/* ---- the plan against a brute force */

typedef struct {
    double R, B, I;
    int ok;
} opt;

static double brute(int K, const int64_t *g, opt (*o)[8], int nclk, int64_t N, double load,
                    double U, int k, int64_t left, int64_t *n, int *c)
{
    if (k < K) {
        double best = HUGE_VAL;
        n[k] = 0;
        best = brute(K, g, o, nclk, N, load, U, k + 1, left, n, c);
        for (int64_t m = 1; m * g[k] <= left; m++)
            for (int j = 0; j < nclk; j++) {
                if (!o[k][j].ok) continue;
                n[k] = m, c[k] = j;
                double v = brute(K, g, o, nclk, N, load, U, k + 1, left - m * g[k], n, c);
                if (v < best) best = v;
            }
        n[k] = 0;
        return best;
    }
    /* every pattern: each used pool full, empty or (at most one) partial */
    double best = HUGE_VAL;
    int pat[8], used[8], nu = 0;
    for (int i = 0; i < K; i++)
        if (n[i]) used[nu++] = i;
    int total = 1;
    for (int i = 0; i < nu; i++)
        total *= 3;
    for (int code = 0; code < total; code++) {
        int x = code, partial = -1, okp = 1;
        for (int i = 0; i < nu; i++) {
            pat[i] = x % 3, x /= 3;
            if (pat[i] == 2) {
                if (partial >= 0) okp = 0;
                partial = i;
            }
        }
        if (!okp) continue;
        double p = U * (double)left, full = 0;
        for (int i = 0; i < nu; i++) {
            const opt *q = &o[used[i]][c[used[i]]];
            double nn = (double)n[used[i]];
            p += nn * q->I;
            if (pat[i] == 1) full += nn * q->R, p += nn * (q->B - q->I);
        }
        double rest = load - full;
        if (partial < 0) {
            if (fabs(rest) > 1e-9 * load) continue;
        } else {
            const opt *q = &o[used[partial]][c[used[partial]]];
            double cap = (double)n[used[partial]] * q->R;
            if (rest < 0 || rest > cap) continue;
            p += (q->B - q->I) / q->R * rest;
        }
        if (p < best) best = p;
    }
    (void)N;
    return best;
}

static void test_plan_brute_force(void)
{
    static const double loads[] = {150, 600, 1500, 3000, 9000};
    static const int64_t gpus[] = {8, 16};
    const double clk[] = {810, 1200, 1590, 1980};
    const int nclk = 4;
    for (int li = 0; li < 5; li++)
        for (int gi = 0; gi < 2; gi++) {
            char s[64];
            snprintf(s, sizeof s, "serving.load-tokens-per-s=%g", loads[li]);
            const char *set[] = {s, "serving.ttft-slo-ms=400"};
            culonx_run r;
            load(&r, set, 2);
            culonx_serve_plan p;
            culonx_error err;
            CU_ASSERT_EQUAL_FATAL(culonx_serve_plan_solve(&r, gpus[gi], 810, 1980, 390, &p, &err),
                                  CULONX_OK);
            CU_ASSERT_EQUAL(p.nclocks, nclk);
            opt o[8][8];
            int64_t g[8], n[8] = {0};
            int c[8] = {0};
            for (int k = 0; k < p.ntp; k++) {
                g[k] = p.tp[k];
                for (int j = 0; j < nclk; j++) {
                    culonx_serve_row x = eval(&r, p.tp[k], clk[j]);
                    o[k][j].ok = x.slo_ok && x.tokens_per_s > 0;
                    o[k][j].R = x.tokens_per_s;
                    o[k][j].B = x.power_w * (double)x.gpus;
                    o[k][j].I = x.idle_power_w * (double)x.gpus;
                }
            }
            double U = eval(&r, 8, 810).idle_power_w;
            double want = brute(p.ntp, g, o, nclk, gpus[gi], loads[li], U, 0, gpus[gi], n, c);
            CU_ASSERT_EQUAL(p.feasible, want < HUGE_VAL);
            if (p.feasible && want < HUGE_VAL) {
                if (fabs(p.power_w / want - 1) > 1e-9)
                    fprintf(stderr, "load %g gpus %lld: plan %.9g W, brute force %.9g W\n",
                            loads[li], (long long)gpus[gi], p.power_w, want);
                CU_ASSERT(fabs(p.power_w / want - 1) <= 1e-9);
                /* pools add up: load, GPUs, power */
                double served = 0, pw = 0;
                int64_t used = 0;
                for (int i = 0; i < p.npools; i++) {
                    served += p.pool[i].load_tokens_per_s;
                    used += p.pool[i].instances * p.pool[i].row.gpus;
                    pw += p.pool[i].power_w;
                    CU_ASSERT(p.pool[i].row.slo_ok);
                    CU_ASSERT(p.pool[i].load_tokens_per_s <=
                              p.pool[i].instances * p.pool[i].row.tokens_per_s * (1 + 1e-12));
                }
                CU_ASSERT(fabs(served / loads[li] - 1) < 1e-9);
                CU_ASSERT(used <= gpus[gi]);
                CU_ASSERT(fabs((pw + U * (double)(gpus[gi] - used)) / p.power_w - 1) < 1e-9);
                /* never worse than the baseline when that is feasible */
                if (p.baseline_feasible) CU_ASSERT(p.power_w <= p.baseline_power_w * (1 + 1e-12));
            }
        }
}

/* prefill and decode are the family's training tables (forward), with
 * decode's attention core over the KV cache */
static void test_shared_op_tables(void)
{
    culonx_run r;
    load(&r, NULL, 0);
    const culonx_model *m = &r.model;
    const double b = 4, t = 8, ctx = 100, L = ctx + 1;
    const double d = (double)m->hidden / (double)m->heads;
    const double ah = (double)m->heads / t, kh = (double)m->kv_heads / t;
    cx_model_stack train, dec, pre;
    culonx_model m1 = *m;
    m1.seq = 1;
    CU_ASSERT_EQUAL_FATAL(cx_model_build(&m1, 4, 8, 0, 2.0, 1, &train), 0);
    cx_model_serve_dims dd = {b, 1, ctx, t, 2.0, 2.0};
    CU_ASSERT_EQUAL_FATAL(cx_model_serve_build(m, CX_MODEL_DECODE, &dd, &dec), 0);
    const cx_model_ops *tr = &train.part[CX_MODEL_PART_LAYER].ops;
    const cx_model_ops *de = &dec.part[CX_MODEL_PART_LAYER].ops;
    double gemm_tr = 0, gemm_de = 0, attn = 0, kv_read = 0, kv_write = 0;
    int kept = 0;
    for (int i = 0; i < tr->nops; i++)
        if (tr->op[i].kind == CX_OP_GEMM) gemm_tr += tr->op[i].fwd_flops;
    for (int i = 0; i < de->nops; i++) {
        const cx_model_op *o = &de->op[i];
        if (o->kind == CX_OP_GEMM) gemm_de += o->fwd_flops;
        if (!strcmp(o->name, "kv_scores") || !strcmp(o->name, "kv_context")) {
            attn += o->fwd_flops;
            kv_read += o->fwd_bytes - 2.0 * b * ah * (d + L);
        }
        if (!strcmp(o->name, "kv_cache_write")) kv_write = o->fwd_bytes;
        for (int j = 0; j < tr->nops; j++)
            if (!strcmp(o->name, tr->op[j].name) && o->fwd_bytes == tr->op[j].fwd_bytes &&
                o->coll_fwd == tr->op[j].coll_fwd)
                kept++;
    }
    CU_ASSERT(gemm_tr > 0);
    CU_ASSERT_DOUBLE_EQUAL(gemm_de, gemm_tr, 1e-6 * gemm_tr);
    CU_ASSERT_DOUBLE_EQUAL(attn, 4.0 * b * ah * L * d, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(kv_read, 2.0 * 2.0 * b * kh * L * d, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(kv_write, 2.0 * 2.0 * b * kh * d, 1e-9);
    CU_ASSERT(kept >= tr->nops - 3); /* all but the s x s attention core */
    /* prefill: the training forward of the prompt, plus the KV write */
    culonx_model ms = *m;
    ms.seq = 512;
    CU_ASSERT_EQUAL_FATAL(cx_model_build(&ms, 1, 8, 0, 2.0, 1, &train), 0);
    cx_model_serve_dims dp = {1, 512, 0, t, 2.0, 2.0};
    CU_ASSERT_EQUAL_FATAL(cx_model_serve_build(m, CX_MODEL_PREFILL, &dp, &pre), 0);
    double f_tr = 0, f_pre = 0;
    tr = &train.part[CX_MODEL_PART_LAYER].ops;
    const cx_model_ops *pr = &pre.part[CX_MODEL_PART_LAYER].ops;
    for (int i = 0; i < tr->nops; i++)
        f_tr += tr->op[i].fwd_flops;
    for (int i = 0; i < pr->nops; i++)
        f_pre += pr->op[i].fwd_flops;
    CU_ASSERT_DOUBLE_EQUAL(f_pre, f_tr, 1e-9 * f_tr);
    CU_ASSERT_EQUAL(pr->nops, tr->nops + 1);
    /* the head runs on the last token only: logits of 1 token, not 512 */
    const cx_model_ops *hd = &pre.part[CX_MODEL_PART_HEAD].ops;
    double logits = 0;
    for (int i = 0; i < hd->nops; i++)
        if (!strcmp(hd->op[i].name, "logits")) logits = hd->op[i].fwd_flops;
    CU_ASSERT_DOUBLE_EQUAL(logits, 2.0 * (double)m->hidden * (double)m->vocab / t, 1e-6);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 3;
    CU_pSuite s = CU_add_suite("serve", NULL, NULL);
    CU_add_test(s, "prefill/decode share the training op tables", test_shared_op_tables);
    CU_add_test(s, "kv bytes per token (GQA, fp8)", test_kv_bytes);
    CU_add_test(s, "decode at batch 1 is weights / HBM", test_decode_memory_bound);
    CU_add_test(s, "monotone in clock, batch, prompt, TP", test_monotone);
    CU_add_test(s, "energy U-shape and SLO marks", test_u_shape_and_slo);
    CU_add_test(s, "largest batch is the memory limit", test_max_batch);
    CU_add_test(s, "--set serving.* and errors", test_set_and_errors);
    CU_add_test(s, "plan equals brute force", test_plan_brute_force);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
