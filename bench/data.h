/*
 * data.h — the published measurements of bench/data (provenance, columns,
 * checksums: bench/data/README.md) as culonx runs, for bench/validate.c
 * (prints the error per row) and bench/fit.c (fits the efficiency parameters
 * of hw/perf.c). Header-only; included by exactly one translation unit per
 * executable. A missing table is reported as "SKIP <set>: <path> missing",
 * never as an empty success.
 *
 * Data sets:
 *  - "SC21-T1": Narayanan et al. SC'21 Table 1 (measured-public.csv), GPT
 *    1.7B-1T on 32-3072 A100-80GB (Selene, DGX A100), full recompute. The
 *    table gives TP/PP/DP and global batch, not microbatch or interleaving:
 *    we assume microbatch 1 and non-interleaved 1F1B for every row.
 *  - "SC21-T2": the PTD-P rows of SC'21 Table 2 (microbatch 1 given).
 *  - "SC21-Z3": the DeepSpeed ZeRO-3 rows of SC'21 Table 2: tp = pp = 1,
 *    dp = GPUs, zero 3 over all of them (zero-impl deepspeed,
 *    core/eval/shard.c), fp16, full recompute, naive
 *    attention (2021), microbatch as given (global batch / dp: one
 *    microbatch per GPU per iteration).
 *  - "MPT": MosaicML llm-foundry's benchmark table (FSDP FULL_SHARD = zero 3
 *    over all GPUs, bf16, FlashAttention, microbatch and recompute as
 *    given; measured time = global batch x seq / (tokens/s/GPU x GPUs)).
 *    The table gives no shapes: MPT-7b/13b/30b/70b are l 32/40/48/80, h
 *    4096/5120/7168/8192, heads 32/40/64/64, ffn 4h, vocab 50368, seq 2048
 *    (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml), expressed as
 *    GPT layers (MPT drops the biases and uses ALiBi instead of learned
 *    positions: < 0.1% of the parameters). Systems: h100_80gb rows on the
 *    DGX H100 system, a100 rows on the DGX A100 system (1600 Gb/s RoCE per
 *    8-GPU node = 25 GB/s per GPU, as its IB tier), a100_40gb with 40 GiB.
 *  - "BLOOM": BigScience tr11 topology search on Jean Zay (A100-80GB, 4 x
 *    100 Gb/s Omni-Path per 8-GPU node = 6.25 GB/s per GPU), ZeRO-1 =
 *    distributed optimizer, vocab 250880. Rows whose layer count does not
 *    divide by PP count the embedding and the output as one layer slot of
 *    the first and last stage (layers + 2 divisible by PP; Megatron-DeepSpeed
 *    "type:transformer|embedding" partitioning); they form the set
 *    "BLOOM-U" so that "BLOOM" stays the rows validated before.
 *  - "vTrain": 1440 single-node 8 x A100 runs (vtrain-single-node.csv),
 *    full activation checkpointing, 1F1B; vocab 51200 (Megatron's padded
 *    GPT-2 vocabulary), ffn 4h, fp16.
 *  - "H100": Megatron-Core r0.8.0 weak-scaling table on H100 (per-GPU
 *    TFLOP/s converted to iteration time with Megatron's FLOP formula,
 *    bench_h100_row below for the assumptions).
 * Rows without an iteration time (the strong-scaling MFU line, OPT) are
 * not expressible as a measured time and are listed as skipped.
 */
#ifndef CX_BENCH_DATA_H
#define CX_BENCH_DATA_H

#include "culonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by CMakeLists.txt; the fallbacks serve a build from the repository root. */
#ifndef CX_SOURCE_DIR
#define CX_SOURCE_DIR "."
#endif
#ifndef CX_BENCH_DATA_DIR
#define CX_BENCH_DATA_DIR CX_SOURCE_DIR "/bench/data"
#endif

/* Exit status of a bench whose data is missing (ctest's SKIP_RETURN_CODE). */
#define BENCH_EXIT_SKIP 77

typedef struct {
    char set[16];
    char label[96];
    culonx_run run;
    double measured_s;
    /* > 0: the source does not state the microbatch; bench_estimate tries
     * every power of two up to this that divides the local batch and keeps
     * the fastest that fits in memory (what a throughput-tuned benchmark
     * runs), leaving it in run.exec.microbatch */
    int tune_microbatch;
    /* the measurement is forward + backward compute on one GPU (no optimizer
     * step, no communication): compare with culonx's forward + backward +
     * recompute time, not the iteration time */
    int compute_only;
} bench_row;

typedef struct {
    bench_row *rows;
    int n, cap;
    int skipped;
    char skip_reason[64][160];
    int nskip_reasons;
} bench_rows;

/* Splits one CSV line (RFC 4180 quotes) in place; returns the field count. */
static int bench_csv_split(char *line, char **f, int maxf)
{
    int n = 0;
    char *p = line;
    while (n < maxf) {
        char *out = p;
        f[n++] = p;
        if (*p == '"') {
            char *q = p + 1;
            for (;;) {
                if (*q == '"' && q[1] == '"')
                    *out++ = '"', q += 2;
                else if (*q == '"') {
                    q++;
                    break;
                } else if (*q == '\0')
                    break;
                else
                    *out++ = *q++;
            }
            p = q;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *out++ = *p++;
        }
        char c = *p;
        *out = '\0';
        if (c == ',')
            p++;
        else
            break;
    }
    return n;
}

static bench_row *bench_add(bench_rows *rs)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 256;
        rs->rows = realloc(rs->rows, (size_t)rs->cap * sizeof *rs->rows);
        if (!rs->rows) exit(3);
    }
    bench_row *r = &rs->rows[rs->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* culonx_estimate of a row; with tune_microbatch, of its fastest microbatch
 * and interleaving that fit (see bench_row). */
static culonx_status bench_estimate(bench_row *r, culonx_result *out, culonx_error *err)
{
    if (r->tune_microbatch <= 0) return culonx_estimate(&r->run, out, err);
    culonx_execution *e = &r->run.exec;
    const int64_t local = e->global_batch / (e->dp > 0 ? e->dp : 1);
    const int64_t per_stage = e->pp > 0 ? r->run.model.layers / e->pp : 0;
    const culonx_schedule sched0 = e->schedule;
    culonx_status best_st = CULONX_OK;
    int64_t best_mb = 0, best_vp = 1;
    culonx_result res;
    for (int64_t mb = 1; mb <= r->tune_microbatch && mb <= local; mb *= 2) {
        if (local % mb) continue;
        for (int64_t vp = 1; vp <= (e->pp > 1 ? r->tune_microbatch : 1); vp++) {
            if (vp > 1 && per_stage % vp) continue;
            e->microbatch = mb, e->vp = vp;
            e->schedule = vp > 1 ? CULONX_SCHED_INTERLEAVED : sched0;
            culonx_status st = culonx_estimate(&r->run, &res, err);
            if (st != CULONX_OK) {
                if (!best_mb) best_st = st;
                continue;
            }
            if (!best_mb || (res.memory.fits &&
                             (!out->memory.fits || res.iteration_time_s < out->iteration_time_s))) {
                *out = res;
                best_mb = mb, best_vp = vp;
            }
        }
    }
    e->vp = best_vp, e->schedule = best_vp > 1 ? CULONX_SCHED_INTERLEAVED : sched0;
    if (!best_mb) return best_st;
    e->microbatch = best_mb;
    return CULONX_OK;
}

/* The time a row's measurement is compared with (see compute_only). */
static double bench_predicted_s(const bench_row *r, const culonx_result *res)
{
    if (!r->compute_only) return res->iteration_time_s;
    return res->breakdown.forward_s + res->breakdown.backward_s + res->breakdown.recompute_s;
}

/* The next data row of a CSV file with one header line (read on the first
 * call: the file must be at its start), split in place into f; returns its
 * field count, or -1 at the end. */
static int bench_csv_data_row(FILE *fp, char *line, int cap, char **f, int maxf)
{
    while (fgets(line, cap, fp)) {
        if (ftell(fp) == (long)strlen(line)) continue; /* the header */
        return bench_csv_split(line, f, maxf);
    }
    return -1;
}

static void bench_skip(bench_rows *rs, const char *why)
{
    rs->skipped++;
    if (rs->nskip_reasons < 64) snprintf(rs->skip_reason[rs->nskip_reasons++], 160, "%s", why);
}

static void bench_gpt_model(culonx_model *m, const char *name, long l, long h, long a, long V,
                            long s)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->arch = CULONX_ARCH_GPT;
    m->layers = l, m->hidden = h, m->heads = a, m->kv_heads = a, m->ffn = 4 * h;
    m->vocab = V, m->seq = s;
}

static void bench_exec(culonx_execution *e, long tp, long pp, long dp, long mb, long gb)
{
    e->tp = tp, e->pp = pp, e->dp = dp, e->vp = 1;
    e->cp = 1;
    e->gpus = culonx_execution_gpus(e);
    e->microbatch = mb, e->global_batch = gb;
    e->recompute = CULONX_RECOMPUTE_FULL;
    e->sequence_parallel = 0;
    e->schedule = CULONX_SCHED_1F1B;
    e->distributed_optimizer = 0;
    e->dtype = CULONX_DTYPE_FP16;
    e->dp_overlap = 1;
    e->tokens = 0;
    e->clock_mhz = 0;
    e->attention = CULONX_ATTENTION_NAIVE; /* A100-era rows predate FlashAttention */
    e->tp_overlap = CULONX_TP_OVERLAP_NONE;
    e->param_gather_overlap = 0;
    e->cp = 1;
    e->first_stage_layers = e->last_stage_layers = 0;
    e->embedding_in_split = e->loss_in_split = 0;
}

/* measured-public.csv columns used (0-based) */
enum {
    C_SOURCE = 0,
    C_TABLE,
    C_MODEL,
    C_L,
    C_H,
    C_A,
    C_KV,
    C_FFN,
    C_V,
    C_S,
    C_PB,
    C_GPU,
    C_NGPU,
    C_INTRA,
    C_INTER,
    C_TP,
    C_PP,
    C_DP,
    C_CP,
    C_EP,
    C_VP,
    C_MBS,
    C_GBS,
    C_RECOMP,
    C_SP,
    C_ZERO,
    C_PREC,
    C_FRAMEWORK,
    C_METRIC,
    C_VALUE,
    C_UNIT,
    C_ITER,
    C_NCOLS = 35
};

/* Megatron-Core r0.8.0 H100 weak-scaling table (measured-public.csv, per-GPU
 * TFLOP/s X): GPT, ffn 4h, MHA, vocab 131072, seq 4096, microbatch 1. Megatron
 * counts model FLOPs per iteration as F = 72 B s l h^2 (1 + s/6h + V/12lh)
 * (num_floating_point_operations in megatron/training/training.py; MFU 41.3%
 * = 408.8/989 in the row's notes confirms the 989 TFLOP/s bf16 peak), so the
 * iteration time is t = F / (n X). The table states --overlap-grad-reduce
 * --overlap-param-gather --tp-comm-overlap; the Megatron-Core defaults of that
 * release give the rest: selective recompute, sequence parallelism with TP,
 * distributed optimizer, bf16, FlashAttention (TE fused attention), 1F1B. */
static void bench_h100_row(bench_rows *rs, char **f, const culonx_run *h100)
{
    long l = atol(f[C_L]), h = atol(f[C_H]), a = atol(f[C_A]), V = atol(f[C_V]);
    long s = atol(f[C_S]), tp = atol(f[C_TP]), pp = atol(f[C_PP]), dp = atol(f[C_DP]);
    long gb = atol(f[C_GBS]);
    double X = atof(f[C_VALUE]) * 1e12;
    bench_row *r = bench_add(rs);
    r->run = *h100;
    bench_gpt_model(&r->run.model, f[C_MODEL], l, h, a, V, s);
    bench_exec(&r->run.exec, tp, pp, dp, 1, gb);
    culonx_execution *e = &r->run.exec;
    e->recompute = CULONX_RECOMPUTE_SELECTIVE;
    e->sequence_parallel = tp > 1;
    e->distributed_optimizer = 1;
    e->dtype = CULONX_DTYPE_BF16;
    e->attention = CULONX_ATTENTION_FLASH;
    e->tp_overlap = tp > 1 ? CULONX_TP_OVERLAP_PIPE : CULONX_TP_OVERLAP_NONE;
    e->param_gather_overlap = 1;
    double L = (double)l, H = (double)h, S = (double)s;
    double F =
        72.0 * (double)gb * S * L * H * H * (1.0 + S / (6.0 * H) + (double)V / (12.0 * L * H));
    r->measured_s = F / ((double)e->gpus * X);
    snprintf(r->set, sizeof r->set, "H100");
    snprintf(r->label, sizeof r->label, "%s %ldGPU t%ld p%ld d%ld", f[C_MODEL], (long)e->gpus, tp,
             pp, dp);
}

/* A ZeRO-3 / FSDP row (see the top): SC'21 Table 2 (shapes given) or
 * MosaicML MPT (shapes from the MPT table below). -1: unknown model. */
static int bench_zero3_row(bench_rows *rs, char **f, const culonx_run *a100, const culonx_run *h100,
                           double iter)
{
    static const struct {
        const char *name;
        long l, h, a;
    } mpt[] = {{"MPT-7b", 32, 4096, 32},
               {"MPT-13b", 40, 5120, 40},
               {"MPT-30b", 48, 7168, 64},
               {"MPT-70b", 80, 8192, 64}};
    const int is_mpt = strncmp(f[C_MODEL], "MPT-", 4) == 0;
    long l = atol(f[C_L]), h = atol(f[C_H]), a = atol(f[C_A]), V = atol(f[C_V]);
    long s = atol(f[C_S]), dp = atol(f[C_DP]), mb = atol(f[C_MBS]), gb = atol(f[C_GBS]);
    if (is_mpt) {
        l = 0;
        for (size_t i = 0; i < sizeof mpt / sizeof mpt[0]; i++)
            if (strcmp(f[C_MODEL], mpt[i].name) == 0) l = mpt[i].l, h = mpt[i].h, a = mpt[i].a;
        V = 50368;
    }
    if (l <= 0 || h <= 0 || a <= 0 || dp <= 0 || mb <= 0 || gb <= 0) return -1;
    const int h100_row = strstr(f[C_GPU], "h100") != NULL || strstr(f[C_GPU], "H100") != NULL;
    if (h100_row && !h100) return -1;
    bench_row *r = bench_add(rs);
    r->run = h100_row ? *h100 : *a100;
    bench_gpt_model(&r->run.model, f[C_MODEL], l, h, a, V, s);
    bench_exec(&r->run.exec, 1, 1, dp, mb, gb);
    culonx_execution *e = &r->run.exec;
    e->zero = 3;
    e->distributed_optimizer = 1;
    e->recompute = strcmp(f[C_RECOMP], "full") == 0 ? CULONX_RECOMPUTE_FULL : CULONX_RECOMPUTE_NONE;
    if (!is_mpt) e->zero_impl = CULONX_ZERO_IMPL_DEEPSPEED;
    if (is_mpt) {
        e->dtype = CULONX_DTYPE_BF16;
        e->attention = CULONX_ATTENTION_FLASH;
        if (strstr(f[C_GPU], "40gb")) r->run.system.gpu.mem_gib = 40;
    }
    r->measured_s = iter;
    snprintf(r->set, sizeof r->set, is_mpt ? "MPT" : "SC21-Z3");
    snprintf(r->label, sizeof r->label, "%s %s %ldGPU z3 mb%ld gb%ld", f[C_MODEL],
             is_mpt ? f[C_GPU] : "", (long)e->gpus, mb, gb);
    return 0;
}

static int bench_load_public(bench_rows *rs, const char *path, const culonx_run *a100,
                             const culonx_run *h100)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char line[8192], *f[64];
    int lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        if (++lineno == 1) continue;
        int n = bench_csv_split(line, f, 64);
        if (n < C_NCOLS) continue;
        char why[160];
        const char *src = f[C_SOURCE], *tab = f[C_TABLE], *zero = f[C_ZERO];
        double iter = atof(f[C_ITER]);
        snprintf(why, sizeof why, "line %d %s (%s): ", lineno, f[C_MODEL], f[C_GPU]);
        if (strstr(tab, "weak-scaling") && strstr(f[C_GPU], "H100") && h100) {
            bench_h100_row(rs, f, h100);
            continue;
        }
        if (!f[C_ITER][0] || iter <= 0) {
            strncat(why, "no iteration time", sizeof why - strlen(why) - 1);
            bench_skip(rs, why);
            continue;
        }
        if (strstr(zero, "ZeRO-3") || strstr(zero, "FSDP")) {
            if (bench_zero3_row(rs, f, a100, h100, iter) != 0) {
                strncat(why, "ZeRO-3/FSDP model shape unknown", sizeof why - strlen(why) - 1);
                bench_skip(rs, why);
            }
            continue;
        }
        long l = atol(f[C_L]), h = atol(f[C_H]), a = atol(f[C_A]), V = atol(f[C_V]);
        long s = atol(f[C_S]), tp = atol(f[C_TP]), pp = atol(f[C_PP]), dp = atol(f[C_DP]);
        long mb = f[C_MBS][0] ? atol(f[C_MBS]) : 1, gb = atol(f[C_GBS]);
        /* BLOOM's Megatron-DeepSpeed partitions "type:transformer|embedding":
         * the embedding and the tied output count as one layer slot each of
         * the first and last stage (execution.embedding/loss-in-split) */
        int uneven = l % pp != 0 && strstr(src, "BigScience") && (l + 2) % pp == 0;
        if (l % pp != 0 && !uneven) {
            strncat(why, "layers not divisible by PP", sizeof why - strlen(why) - 1);
            bench_skip(rs, why);
            continue;
        }
        bench_row *r = bench_add(rs);
        r->run = *a100;
        bench_gpt_model(&r->run.model, f[C_MODEL], l, h, a, V, s);
        bench_exec(&r->run.exec, tp, pp, dp, mb, gb);
        r->measured_s = iter;
        r->run.exec.embedding_in_split = r->run.exec.loss_in_split = uneven;
        if (strstr(src, "BigScience")) {
            snprintf(r->set, sizeof r->set, uneven ? "BLOOM-U" : "BLOOM");
            /* Jean Zay: 4 x 100 Gb/s Omni-Path per 8-GPU node */
            r->run.system.tier[1].bw_gbps = 4 * 12.5 / 8.0;
            r->run.exec.distributed_optimizer = 1;
            r->run.exec.dtype = CULONX_DTYPE_BF16;
        } else if (strstr(tab, "Table 1")) {
            snprintf(r->set, sizeof r->set, "SC21-T1");
        } else {
            snprintf(r->set, sizeof r->set, "SC21-T2");
        }
        snprintf(r->label, sizeof r->label, "%s %ldGPU t%ld p%ld d%ld mb%ld", f[C_MODEL],
                 (long)r->run.exec.gpus, tp, pp, dp, mb);
    }
    fclose(fp);
    return 0;
}

static int bench_load_vtrain(bench_rows *rs, const char *path, const culonx_run *a100)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char line[1024], *f[16];
    int n;
    while ((n = bench_csv_data_row(fp, line, sizeof line, f, 16)) >= 0) {
        if (n < 11) continue;
        long gpus = atol(f[0]), gb = atol(f[1]), mb = atol(f[2]), h = atol(f[3]);
        long a = atol(f[4]), l = atol(f[5]), s = atol(f[6]), tp = atol(f[7]);
        long dp = atol(f[8]), pp = atol(f[9]);
        culonx_execution deg = {.tp = tp, .pp = pp, .dp = dp};
        if (gpus != culonx_execution_gpus(&deg) || l % pp || gb % (mb * dp)) {
            bench_skip(rs, "vTrain row inconsistent");
            continue;
        }
        bench_row *r = bench_add(rs);
        r->run = *a100;
        char name[64];
        snprintf(name, sizeof name, "gpt-l%ld-h%ld", l, h);
        bench_gpt_model(&r->run.model, name, l, h, a, 51200, s);
        bench_exec(&r->run.exec, tp, pp, dp, mb, gb);
        r->measured_s = atof(f[10]) * 1e-3;
        snprintf(r->set, sizeof r->set, "vTrain");
        snprintf(r->label, sizeof r->label, "%s s%ld t%ld p%ld d%ld mb%ld gb%ld", name, s, tp, pp,
                 dp, mb, gb);
    }
    fclose(fp);
    return 0;
}

/* "H100-1G": whole GPT forward + backward micro-steps timed on one real H100
 * (bench/data/h100-gpt-step.csv, bench/gpu/h100_gpt_step.py; provenance in
 * bench/data/README.md): Megatron GPT layers with bias, ffn 4h, MHA, cuDNN
 * fused attention, no recomputation, bf16, vocabulary 131072, seq 4096;
 * layers reduced for the wide shapes so that one GPU holds them. Rows of
 * mode "compiled-drop": torch.compile fuses the elementwise ops as
 * Megatron's fused kernels do, and dropout 0.1 is on, as culonx's GPT layer
 * has it (models/gpt.c; Megatron's default). Rows with tp > 1 time one
 * tensor-parallel rank's share (every GEMM tp-sliced, no communication, no
 * sequence parallelism): compared with culonx's forward + backward compute
 * at that tp (TP communication is its own line there). The GPU ran at its
 * own clocks under its 700 W limit (the sm_mhz column). */
static int bench_load_h100_step(bench_rows *rs, const char *path, const culonx_run *h100)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char line[1024], *f[16];
    int n;
    while ((n = bench_csv_data_row(fp, line, sizeof line, f, 16)) >= 0) {
        if (n < 15 || strcmp(f[8], "compiled-drop")) continue;
        long l = atol(f[1]), h = atol(f[2]), a = atol(f[3]), V = atol(f[5]), s = atol(f[6]);
        long mb = atol(f[7]), tp = atol(f[14]);
        bench_row *r = bench_add(rs);
        r->run = *h100;
        bench_gpt_model(&r->run.model, f[0], l, h, a, V, s);
        bench_exec(&r->run.exec, tp, 1, 1, mb, mb);
        culonx_execution *e = &r->run.exec;
        e->recompute = CULONX_RECOMPUTE_NONE;
        e->dtype = CULONX_DTYPE_BF16;
        e->attention = CULONX_ATTENTION_FLASH;
        e->dp_overlap = 0;
        e->zero = 0; /* one GPU: nothing to shard */
        r->compute_only = 1;
        r->measured_s = atof(f[10]) * 1e-3;
        snprintf(r->set, sizeof r->set, "H100-1G");
        snprintf(r->label, sizeof r->label, "%s t%ld mb%ld (%s MHz)", f[0], tp, mb, f[13]);
    }
    fclose(fp);
    return 0;
}

/* Loads every expressible row; the A100 system comes from the shipped
 * configs/megatron-1t.xml, the H100 system from configs/llama3-8b-h100.xml
 * (systems/h100-80g.xml). A table that cannot be opened is not an error:
 * "SKIP <set>: <path> missing" is printed for each data set it holds and
 * *missing counts them. Returns 0, or prints why not and returns -1. */
static int bench_load_all(bench_rows *rs, const char *data_dir, culonx_run *base, int *missing)
{
    culonx_error err;
    memset(&err, 0, sizeof err);
    *missing = 0;
    if (culonx_run_load(CX_SOURCE_DIR "/configs/megatron-1t.xml", NULL, 0, NULL, base, &err) !=
        CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return -1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/measured-public.csv", data_dir);
    static culonx_run h100;
    if (culonx_run_load(CX_SOURCE_DIR "/configs/llama3-8b-h100.xml", NULL, 0, NULL, &h100, &err) !=
        CULONX_OK) {
        fprintf(stderr, "%s:%d: error: %s\n", err.file, err.line, err.msg);
        return -1;
    }
    if (bench_load_public(rs, path, base, &h100) != 0) {
        const char *sets[] = {"SC21-T1", "SC21-T2", "BLOOM", "H100", "SC21-Z3", "MPT"};
        for (int k = 0; k < 6; k++)
            printf("SKIP %s: %s missing\n", sets[k], path);
        *missing += 4;
    }
    snprintf(path, sizeof path, "%s/h100-gpt-step.csv", data_dir);
    if (bench_load_h100_step(rs, path, &h100) != 0) {
        printf("SKIP H100-1G: %s missing\n", path);
        *missing += 1;
    }
    snprintf(path, sizeof path, "%s/vtrain-single-node.csv", data_dir);
    if (bench_load_vtrain(rs, path, base) != 0) {
        printf("SKIP vTrain: %s missing\n", path);
        *missing += 1;
    }
    return 0;
}

#endif
