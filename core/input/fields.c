/*
 * fields.c — the vocabulary of run files as one field table per element
 * (attribute name, type, member, unit scale, required), the parser of one
 * value by its field type, and "--set section.key=value" overrides through
 * the same tables (culonx_run_set: parsed into a copy first, so a bad --set
 * leaves the run untouched). The XML loader (config.c) uses the same tables,
 * so a key means the same in a file and on the command line.
 */
#include "core/input/fields.h"
#include "core/base/base.h"
#include "core/input/xml.h"
#include "core/layout/layout.h"
#include "models/model.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SET_FILE "--set"

/* kv-heads and ffn sit at MODEL_KV_HEADS and MODEL_FFN (fields.h) */
static const cx_field model_fields[] = {
    FLD(culonx_model, "name", FT_NAME, name, 0, 1),
    FLD(culonx_model, "arch", FT_ARCH, arch, 0, 1),
    FLD(culonx_model, "layers", FT_COUNT, layers, 0, 1),
    FLD(culonx_model, "hidden", FT_COUNT, hidden, 0, 1),
    FLD(culonx_model, "heads", FT_COUNT, heads, 0, 1),
    FLD(culonx_model, "kv-heads", FT_COUNT, kv_heads, 0, 0),
    FLD(culonx_model, "ffn", FT_COUNT, ffn, 0, 0),
    FLD(culonx_model, "vocab", FT_COUNT, vocab, 0, 1),
    FLD(culonx_model, "seq", FT_COUNT, seq, 0, 1),
    FLD(culonx_model, "head-dim", FT_COUNT, head_dim, 0, 0),
    FLD(culonx_model, "window", FT_COUNT, window, 0, 0),
    FLD(culonx_model, "experts", FT_COUNT, experts, 0, 0),
    FLD(culonx_model, "experts-per-token", FT_COUNT, experts_per_token, 0, 0),
    FLD(culonx_model, "expert-ffn", FT_COUNT, expert_ffn, 0, 0),
    FLD(culonx_model, "shared-experts", FT_COUNT0, shared_experts, 0, 0),
    FLD(culonx_model, "moe-layer-freq", FT_COUNT, moe_layer_freq, 0, 0),
    FLD(culonx_model, "first-dense-layers", FT_COUNT0, first_dense_layers, 0, 0),
    FLD(culonx_model, "q-rank", FT_COUNT, q_rank, 0, 0),
    FLD(culonx_model, "kv-rank", FT_COUNT, kv_rank, 0, 0),
    FLD(culonx_model, "rope-dim", FT_COUNT, rope_dim, 0, 0),
    FLD(culonx_model, "window-every", FT_COUNT, window_every, 0, 0),
};

static const cx_field system_fields[] = {
    FLD(culonx_system, "name", FT_NAME, name, 0, 1),
    FLD(culonx_system, "gpus-per-node", FT_COUNT, gpus_per_node, 0, 1),
    FLD(culonx_system, "node-overhead-w", FT_NONNEG, node_overhead_w, 0, 0),
    FLD(culonx_system, "pue", FT_POSITIVE, pue, 0, 0),
};

static const cx_field gpu_fields[] = {
    FLD(culonx_gpu, "name", FT_NAME, name, 0, 1),
    FLD(culonx_gpu, "matrix16-tflops", FT_POSITIVE, matrix16_tflops, 0, 1),
    FLD(culonx_gpu, "matrix8-tflops", FT_NONNEG, matrix8_tflops, 0, 0),
    FLD(culonx_gpu, "vector-tflops", FT_POSITIVE, vector_tflops, 0, 1),
    FLD(culonx_gpu, "hbm-gbps", FT_POSITIVE, hbm_gbps, 0, 1),
    FLD(culonx_gpu, "mem-gib", FT_POSITIVE, mem_gib, 0, 1),
    FLD(culonx_gpu, "min-mhz", FT_POSITIVE, min_mhz, 0, 1),
    FLD(culonx_gpu, "max-mhz", FT_POSITIVE, max_mhz, 0, 1),
    FLD(culonx_gpu, "step-mhz", FT_POSITIVE, step_mhz, 0, 1),
    FLD(culonx_gpu, "tdp-w", FT_POSITIVE, tdp_w, 0, 1),
    FLD(culonx_gpu, "idle-w", FT_NONNEG, idle_w, 0, 1),
};

static const cx_field power_fields[] = {
    FLD(culonx_power_model, "const-w", FT_NONNEG, const_w, 0, 1),
    FLD(culonx_power_model, "static-w", FT_NONNEG, static_w, 0, 1),
    FLD(culonx_power_model, "knee-mhz", FT_NONNEG, knee_mhz, 0, 1),
    FLD(culonx_power_model, "v-min", FT_POSITIVE, v_min, 0, 1),
    FLD(culonx_power_model, "v-slope", FT_NONNEG, v_slope, 0, 1),
    FLD(culonx_power_model, "tensor-w", FT_NONNEG, tensor_w, 0, 1),
    FLD(culonx_power_model, "fp-w", FT_NONNEG, fp_w, 0, 1),
    FLD(culonx_power_model, "sm-w", FT_NONNEG, sm_w, 0, 1),
    FLD(culonx_power_model, "dram-w", FT_NONNEG, dram_w, 0, 1),
    FLD(culonx_power_model, "blocked-w", FT_NONNEG, blocked_w, 0, 1),
    FLD(culonx_power_model, "time-exp", FT_POSITIVE, time_exp, 0, 0),
    FLD(culonx_power_model, "provenance", FT_TEXT, provenance, 0, 0),
};

static const cx_field tier_fields[] = {
    FLD(culonx_net_tier, "name", FT_NAME, name, 0, 1),
    FLD(culonx_net_tier, "bw-gbps", FT_POSITIVE, bw_gbps, 0, 1),
    FLD(culonx_net_tier, "latency-us", FT_NONNEG, latency_s, 1e-6, 1),
    FLD(culonx_net_tier, "efficiency", FT_POSITIVE, efficiency, 0, 0),
    FLD(culonx_net_tier, "pj-per-bit", FT_NONNEG, pj_per_bit, 0, 0),
};

static const cx_field perf_fields[] = {
    FLD(culonx_perf_params, "matmul-eff-max", FT_NONNEG, matmul_eff_max, 0, 0),
    FLD(culonx_perf_params, "matmul-half-dim", FT_NONNEG, matmul_half_dim, 0, 0),
    FLD(culonx_perf_params, "mem-eff", FT_NONNEG, mem_eff, 0, 0),
    FLD(culonx_perf_params, "kernel-launch-us", FT_NONNEG, kernel_launch_s, 1e-6, 0),
    FLD(culonx_perf_params, "optimizer-bytes-per-param", FT_NONNEG, optimizer_bytes_per_param, 0,
        0),
    FLD(culonx_perf_params, "attn-eff", FT_NONNEG, attn_eff, 0, 0),
    FLD(culonx_perf_params, "attn-half-gflop", FT_NONNEG, attn_half_gflop, 0, 0),
    FLD(culonx_perf_params, "attn-bwd-eff", FT_NONNEG, attn_bwd_eff, 0, 0),
    FLD(culonx_perf_params, "attn-bwd-half-gflop", FT_NONNEG, attn_bwd_half_gflop, 0, 0),
};

/* gpus and dp sit at EXEC_GPUS and EXEC_DP (fields.h) */
static const cx_field exec_fields[] = {
    FLD(culonx_execution, "gpus", FT_COUNT, gpus, 0, 0),
    FLD(culonx_execution, "tp", FT_COUNT, tp, 0, 1),
    FLD(culonx_execution, "pp", FT_COUNT, pp, 0, 1),
    FLD(culonx_execution, "dp", FT_COUNT, dp, 0, 0),
    FLD(culonx_execution, "vp", FT_COUNT, vp, 0, 0),
    FLD(culonx_execution, "microbatch", FT_COUNT, microbatch, 0, 1),
    FLD(culonx_execution, "global-batch", FT_COUNT, global_batch, 0, 1),
    FLD(culonx_execution, "recompute", FT_RECOMPUTE, recompute, 0, 0),
    FLD(culonx_execution, "sequence-parallel", FT_BOOL, sequence_parallel, 0, 0),
    FLD(culonx_execution, "schedule", FT_SCHEDULE, schedule, 0, 0),
    FLD(culonx_execution, "distributed-optimizer", FT_BOOL, distributed_optimizer, 0, 0),
    FLD(culonx_execution, "dtype", FT_DTYPE, dtype, 0, 0),
    FLD(culonx_execution, "dp-overlap", FT_BOOL, dp_overlap, 0, 0),
    FLD(culonx_execution, "tokens", FT_NONNEG, tokens, 0, 0),
    FLD(culonx_execution, "clock-mhz", FT_NONNEG, clock_mhz, 0, 0),
    FLD(culonx_execution, "attention", FT_ATTENTION, attention, 0, 0),
    FLD(culonx_execution, "tp-overlap", FT_TP_OVERLAP, tp_overlap, 0, 0),
    FLD(culonx_execution, "param-gather-overlap", FT_BOOL, param_gather_overlap, 0, 0),
    FLD(culonx_execution, "cp", FT_COUNT, cp, 0, 0),
    FLD(culonx_execution, "first-stage-layers", FT_COUNT, first_stage_layers, 0, 0),
    FLD(culonx_execution, "last-stage-layers", FT_COUNT, last_stage_layers, 0, 0),
    FLD(culonx_execution, "embedding-in-split", FT_BOOL, embedding_in_split, 0, 0),
    FLD(culonx_execution, "loss-in-split", FT_BOOL, loss_in_split, 0, 0),
    FLD(culonx_execution, "ep", FT_COUNT, ep, 0, 0),
    FLD(culonx_execution, "etp", FT_COUNT, etp, 0, 0),
    FLD(culonx_execution, "capacity-factor", FT_POSITIVE, capacity_factor, 0, 0),
    FLD(culonx_execution, "zero", FT_ZERO, zero, 0, 0),
    FLD(culonx_execution, "shard-group", FT_COUNT, shard_group, 0, 0),
    FLD(culonx_execution, "offload", FT_OFFLOAD, offload, 0, 0),
    FLD(culonx_execution, "zero-impl", FT_ZERO_IMPL, zero_impl, 0, 0),
    FLD(culonx_execution, "a2a-overlap", FT_A2A_OVERLAP, a2a_overlap, 0, 0),
    FLD(culonx_execution, "route-nodes", FT_COUNT, route_nodes, 0, 0),
};

/* <host> inside <system> (offload): host memory per node, host<->GPU
 * bandwidth per GPU */
static const cx_field host_fields[] = {
    FLD(culonx_system, "mem-gib", FT_POSITIVE, host_mem_gib, 0, 1),
    FLD(culonx_system, "bw-gbps", FT_POSITIVE, host_bw_gbps, 0, 1),
};

/* <serving> (core/eval/serve.c); kv-dtype sits at SERV_KV_DTYPE (fields.h);
 * SLOs are given in ms and stored in seconds */
static const cx_field serving_fields[] = {
    FLD(culonx_serving, "tp", FT_COUNT, tp, 0, 1),
    FLD(culonx_serving, "pp", FT_COUNT, pp, 0, 0),
    FLD(culonx_serving, "batch", FT_COUNT, batch, 0, 1),
    FLD(culonx_serving, "input-tokens", FT_COUNT, input_tokens, 0, 1),
    FLD(culonx_serving, "output-tokens", FT_COUNT, output_tokens, 0, 1),
    FLD(culonx_serving, "dtype", FT_DTYPE, dtype, 0, 0),
    FLD(culonx_serving, "kv-dtype", FT_DTYPE, kv_dtype, 0, 0),
    FLD(culonx_serving, "load-tokens-per-s", FT_NONNEG, load_tokens_per_s, 0, 0),
    FLD(culonx_serving, "ttft-slo-ms", FT_NONNEG, ttft_slo_s, 1e-3, 0),
    FLD(culonx_serving, "tpot-slo-ms", FT_NONNEG, tpot_slo_s, 1e-3, 0),
};

#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const cx_fields cx_core_model_fields = {model_fields, NFIELDS(model_fields)};
const cx_fields cx_core_system_fields = {system_fields, NFIELDS(system_fields)};
const cx_fields cx_core_gpu_fields = {gpu_fields, NFIELDS(gpu_fields)};
const cx_fields cx_core_power_fields = {power_fields, NFIELDS(power_fields)};
const cx_fields cx_core_tier_fields = {tier_fields, NFIELDS(tier_fields)};
const cx_fields cx_core_perf_fields = {perf_fields, NFIELDS(perf_fields)};
const cx_fields cx_core_exec_fields = {exec_fields, NFIELDS(exec_fields)};
const cx_fields cx_core_serving_fields = {serving_fields, NFIELDS(serving_fields)};
const cx_fields cx_core_host_fields = {host_fields, NFIELDS(host_fields)};

int cx_core_zero_alias(culonx_execution *e, int zero_given, int dopt_given)
{
    if (zero_given && dopt_given) return (e->zero >= 1) == (e->distributed_optimizer != 0) ? 0 : -1;
    if (zero_given)
        e->distributed_optimizer = e->zero >= 1;
    else if (dopt_given)
        e->zero = e->distributed_optimizer ? (e->zero >= 1 ? e->zero : 1) : 0;
    return 0;
}

/* A run with <serving> and no <execution> gets the execution of one
 * instance (tp, pp, dp 1, microbatch 1, global batch pp: valid for every
 * training rule once <serving> is), so that every command has one. */
void cx_core_serving_derive(culonx_run *run)
{
    culonx_serving *v = &run->serving;
    if (!v->kv_dtype_given) v->kv_dtype = v->dtype;
    if (!run->serving_only) return;
    culonx_execution *e = &run->exec;
    memset(e, 0, sizeof *e);
    e->tp = v->tp;
    e->pp = v->pp;
    e->dp = 1;
    e->vp = 1;
    e->gpus = cx_mul_sat_i64(v->tp, v->pp);
    e->microbatch = 1;
    e->global_batch = v->pp;
    e->recompute = CULONX_RECOMPUTE_NONE;
    e->schedule = CULONX_SCHED_1F1B;
    e->dtype = v->dtype;
    /* a MoE model trains with SP under tp > 1 (core/layout/rules.c) */
    e->sequence_parallel = run->model.arch == CULONX_ARCH_MOE && v->tp > 1;
    run->exec_at = run->serving_at;
    run->dp_derived = run->gpus_derived = 0;
}

int cx_core_field_find(const cx_field *fs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fs[i].key, key) == 0) return i;
    return -1;
}

void cx_core_field_hint(const cx_field *fs, int n, const char *key, char *buf, size_t len)
{
    const char *cands[128];
    int m = n < 128 ? n : 128;
    for (int i = 0; i < m; i++)
        cands[i] = fs[i].key;
    int c = cx_core_closest(key, cands, m);
    size_t k = 0;
    int w = c >= 0 ? snprintf(buf, len, " (did you mean '%s'?); keys:", fs[c].key)
                   : snprintf(buf, len, "; keys:");
    k = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
    for (int i = 0; i < m && k + 1 < len; i++) {
        w = snprintf(buf + k, len - k, "%s %s", i ? "," : "", fs[i].key);
        k += w > 0 && (size_t)w < len - k ? (size_t)w : len - k - 1;
    }
}

static int only_space(const char *s)
{
    return *cx_core_xml_skip_space(s) == '\0';
}

/* Parses `s` into the field at base+f->off. Returns 0, or -1 with `why`. */
int cx_core_field_parse(const cx_field *f, const char *s, void *base, char *why, size_t whylen)
{
    char *p = (char *)base + f->off;
    switch (f->type) {
    case FT_NAME:
    case FT_TEXT: {
        size_t n = strlen(s);
        if (f->type == FT_NAME && n == 0) {
            snprintf(why, whylen, "expected a non-empty name");
            return -1;
        }
        if (n >= f->size) {
            snprintf(why, whylen, "longer than %zu characters", f->size - 1);
            return -1;
        }
        memcpy(p, s, n + 1);
        return 0;
    }
    case FT_COUNT:
    case FT_COUNT0: {
        const char *t = cx_core_xml_skip_space(s);
        char *end = NULL;
        long long v = 0;
        int ok = (*t >= '0' && *t <= '9') || (*t == '+' && t[1] >= '0' && t[1] <= '9');
        if (ok) {
            errno = 0;
            v = strtoll(t, &end, 10);
            ok = end != t && only_space(end) && errno != ERANGE && v >= (f->type == FT_COUNT);
        }
        if (!ok) {
            snprintf(why, whylen, "expected a %s integer, got '%.64s'",
                     f->type == FT_COUNT ? "positive" : "non-negative", s);
            return -1;
        }
        int64_t iv = (int64_t)v;
        memcpy(p, &iv, sizeof iv);
        return 0;
    }
    case FT_NONNEG:
    case FT_POSITIVE: {
        const char *t = cx_core_xml_skip_space(s);
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        int bad = end == t || !only_space(end) || !isfinite(v) || errno == ERANGE ||
                  (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'));
        if (bad || v < 0 || (f->type == FT_POSITIVE && v == 0)) {
            snprintf(why, whylen, "expected a %s number, got '%.64s'",
                     f->type == FT_POSITIVE ? "positive" : "non-negative", s);
            return -1;
        }
        if (f->scale != 0) v *= f->scale;
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_BOOL: {
        int v;
        const char *t = cx_core_xml_skip_space(s);
        size_t n = strlen(t);
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' || t[n - 1] == '\r'))
            n--;
        if ((n == 4 && strncmp(t, "true", 4) == 0) || (n == 1 && t[0] == '1'))
            v = 1;
        else if ((n == 5 && strncmp(t, "false", 5) == 0) || (n == 1 && t[0] == '0'))
            v = 0;
        else {
            snprintf(why, whylen, "expected true or false, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_ARCH: {
        const cx_model_family *fam = cx_model_family_named(s);
        if (!fam) {
            char names[128];
            cx_model_family_names(names, sizeof names);
            snprintf(why, whylen, "expected %s, got '%.64s'", names, s);
            return -1;
        }
        culonx_arch v = fam->arch;
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_RECOMPUTE: {
        culonx_recompute v;
        if (strcmp(s, "none") == 0)
            v = CULONX_RECOMPUTE_NONE;
        else if (strcmp(s, "selective") == 0)
            v = CULONX_RECOMPUTE_SELECTIVE;
        else if (strcmp(s, "full") == 0)
            v = CULONX_RECOMPUTE_FULL;
        else {
            snprintf(why, whylen, "expected none, selective or full, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_SCHEDULE: {
        culonx_schedule v;
        if (culonx_schedule_parse(s, &v) != 0) {
            char known[256] = "";
            size_t used = 0;
            for (int i = 0; i < culonx_schedule_count() && used < sizeof known; i++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                         culonx_schedule_name((culonx_schedule)i));
            snprintf(why, whylen, "unknown schedule '%.64s' (known: %s)", s, known);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_ATTENTION: {
        culonx_attention v;
        if (strcmp(s, "flash") == 0)
            v = CULONX_ATTENTION_FLASH;
        else if (strcmp(s, "naive") == 0)
            v = CULONX_ATTENTION_NAIVE;
        else {
            snprintf(why, whylen, "expected flash or naive, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_TP_OVERLAP: {
        culonx_tp_overlap v;
        if (strcmp(s, "none") == 0)
            v = CULONX_TP_OVERLAP_NONE;
        else if (strcmp(s, "pipe") == 0)
            v = CULONX_TP_OVERLAP_PIPE;
        else if (strcmp(s, "ring") == 0)
            v = CULONX_TP_OVERLAP_RING;
        else {
            snprintf(why, whylen, "expected none, pipe or ring, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_ZERO: {
        const char *t = cx_core_xml_skip_space(s);
        if (t[0] < '0' || t[0] > '3' || !only_space(t + 1)) {
            snprintf(why, whylen, "expected 0, 1, 2 or 3, got '%.64s'", s);
            return -1;
        }
        int v = t[0] - '0';
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_ZERO_IMPL: {
        culonx_zero_impl v;
        if (strcmp(s, "fsdp") == 0)
            v = CULONX_ZERO_IMPL_FSDP;
        else if (strcmp(s, "deepspeed") == 0)
            v = CULONX_ZERO_IMPL_DEEPSPEED;
        else {
            snprintf(why, whylen, "expected fsdp or deepspeed, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_A2A_OVERLAP: {
        culonx_a2a_overlap v;
        if (strcmp(s, "none") == 0)
            v = CULONX_A2A_OVERLAP_NONE;
        else if (strcmp(s, "shared") == 0)
            v = CULONX_A2A_OVERLAP_SHARED;
        else if (strcmp(s, "pipe") == 0)
            v = CULONX_A2A_OVERLAP_PIPE;
        else {
            snprintf(why, whylen, "expected none, shared or pipe, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_OFFLOAD: {
        static const struct {
            const char *name;
            int bit;
        } names[] = {{"weights", CULONX_OFFLOAD_WEIGHTS},
                     {"activations", CULONX_OFFLOAD_ACTIVATIONS},
                     {"optimizer", CULONX_OFFLOAD_OPTIMIZER}};
        int v = 0;
        const char *t = cx_core_xml_skip_space(s);
        if (strcmp(t, "none") != 0 && *t) {
            for (;;) {
                size_t n = strcspn(t, ", \t\n\r");
                int bit = 0;
                for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                    if (strlen(names[i].name) == n && strncmp(t, names[i].name, n) == 0)
                        bit = names[i].bit;
                if (!bit || (v & bit)) {
                    snprintf(why, whylen,
                             "expected a list of weights, activations, optimizer (or none), "
                             "got '%.64s'",
                             s);
                    return -1;
                }
                v |= bit;
                t = cx_core_xml_skip_space(t + n);
                if (*t == '\0') break;
                if (*t != ',') {
                    snprintf(why, whylen,
                             "expected a list of weights, activations, optimizer (or none), "
                             "got '%.64s'",
                             s);
                    return -1;
                }
                t = cx_core_xml_skip_space(t + 1);
            }
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_DTYPE: {
        culonx_dtype v;
        if (strcmp(s, "fp16") == 0)
            v = CULONX_DTYPE_FP16;
        else if (strcmp(s, "bf16") == 0)
            v = CULONX_DTYPE_BF16;
        else if (strcmp(s, "fp8") == 0)
            v = CULONX_DTYPE_FP8;
        else {
            snprintf(why, whylen, "expected fp16, bf16 or fp8, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    }
    snprintf(why, whylen, "internal: bad field type");
    return -1;
}

/* Re-derives whichever of dp / gpus was omitted in the file. */
void cx_core_run_derive(culonx_run *run)
{
    culonx_execution *e = &run->exec;
    cx_layout l;
    cx_core_layout_init(&l, e);
    if (run->dp_derived)
        e->dp = cx_core_layout_derive_dp(&l, e->gpus);
    else if (run->gpus_derived)
        e->gpus = l.gpus;
}

culonx_status culonx_run_set(culonx_run *run, const char *assignment, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || !assignment)
        return cx_core_fail(err, CULONX_EUSAGE, SET_FILE, 0, "culonx_run_set: NULL argument");
    const char *a = assignment;
    const char *eq = strchr(a, '=');
    const char *dot = strchr(a, '.');
    if (!eq || !dot || dot > eq)
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: expected section.key=value", a);
    char sec[64], key[128];
    size_t sl = (size_t)(dot - a);
    if (sl >= sizeof sec) sl = sizeof sec - 1;
    memcpy(sec, a, sl);
    sec[sl] = '\0';
    const char *k = dot + 1;
    const char *value = eq + 1;

    const cx_field *fs = NULL;
    int nf = 0;
    void *base = NULL;
    culonx_origin *origin = NULL;
    culonx_system *s = &run->system;
    if (strcmp(sec, "network") == 0) {
        const char *dot2 = strchr(k, '.');
        if (!dot2 || dot2 > eq)
            return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                                "--set %.200s: expected network.TIER.key=value "
                                "(TIER: tier0, tier1, intra, inter or a tier name)",
                                a);
        char tier[64];
        size_t tl = (size_t)(dot2 - k);
        if (tl >= sizeof tier) tl = sizeof tier - 1;
        memcpy(tier, k, tl);
        tier[tl] = '\0';
        int ti = -1;
        if (strcmp(tier, "tier0") == 0 || strcmp(tier, "intra") == 0)
            ti = 0;
        else if (strcmp(tier, "tier1") == 0 || strcmp(tier, "inter") == 0)
            ti = 1;
        else
            for (int i = 0; i < s->ntiers && i < CULONX_MAX_TIERS; i++)
                if (strcmp(tier, s->tier[i].name) == 0) ti = i;
        if (ti < 0 || ti >= s->ntiers)
            return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                                "--set %.200s: system '%s' has no network tier '%s' (it has %d)", a,
                                s->name, tier, s->ntiers);
        k = dot2 + 1;
        fs = cx_core_tier_fields.f;
        nf = cx_core_tier_fields.n;
        base = &s->tier[ti];
        origin = &run->tier_at[ti];
    } else if (strcmp(sec, "model") == 0) {
        fs = cx_core_model_fields.f, nf = cx_core_model_fields.n, base = &run->model,
        origin = &run->model_at;
    } else if (strcmp(sec, "system") == 0) {
        fs = cx_core_system_fields.f, nf = cx_core_system_fields.n, base = s,
        origin = &run->system_at;
    } else if (strcmp(sec, "gpu") == 0) {
        fs = cx_core_gpu_fields.f, nf = cx_core_gpu_fields.n, base = &s->gpu, origin = &run->gpu_at;
    } else if (strcmp(sec, "power") == 0) {
        fs = cx_core_power_fields.f, nf = cx_core_power_fields.n, base = &s->gpu.power,
        origin = &run->power_at;
    } else if (strcmp(sec, "host") == 0) {
        fs = cx_core_host_fields.f, nf = cx_core_host_fields.n, base = s, origin = &run->system_at;
    } else if (strcmp(sec, "perf") == 0) {
        fs = cx_core_perf_fields.f, nf = cx_core_perf_fields.n, base = &s->perf,
        origin = &run->perf_at;
    } else if (strcmp(sec, "execution") == 0) {
        fs = cx_core_exec_fields.f, nf = cx_core_exec_fields.n, base = &run->exec,
        origin = &run->exec_at;
    } else if (strcmp(sec, "serving") == 0) {
        if (!run->has_serving)
            return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                                "--set %.200s: the run has no <serving> element", a);
        fs = cx_core_serving_fields.f, nf = cx_core_serving_fields.n, base = &run->serving,
        origin = &run->serving_at;
    } else {
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: unknown section '%s' (model, system, gpu, power, "
                            "network, host, perf, execution, serving)",
                            a, sec);
    }
    size_t kl = (size_t)(eq - k);
    if (kl >= sizeof key) kl = sizeof key - 1;
    memcpy(key, k, kl);
    key[kl] = '\0';
    int i = cx_core_field_find(fs, nf, key);
    if (i < 0) {
        char hint[1024];
        cx_core_field_hint(fs, nf, key, hint, sizeof hint);
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: unknown key '%s' in %s%s", a, key, sec, hint);
    }
    if (base == &s->gpu.power && !s->gpu.power.present)
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: GPU '%s' has no <power> model to override", a,
                            s->gpu.name);

    /* parse into a copy first so a bad value leaves the run untouched */
    culonx_run old = *run;
    char why[512];
    if (cx_core_field_parse(&fs[i], value, base, why, sizeof why) != 0) {
        *run = old;
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0, "--set %.200s: %s: %s", a, key, why);
    }
    cx_core_origin_set(origin, SET_FILE, 0);
    if (base == &run->model) {
        culonx_model *m = &run->model;
        if (strcmp(key, "heads") == 0 && old.model.kv_heads == old.model.heads)
            m->kv_heads = m->heads;
        const cx_model_family *fam = cx_model_family_of(m->arch);
        if (strcmp(key, "hidden") == 0 && fam && fam->ffn_per_hidden > 0 &&
            old.model.ffn == cx_mul_sat_i64(fam->ffn_per_hidden, old.model.hidden))
            m->ffn = cx_mul_sat_i64(fam->ffn_per_hidden, m->hidden);
    }
    if (base == &run->serving) {
        if (strcmp(key, "kv-dtype") == 0) run->serving.kv_dtype_given = 1;
        cx_core_serving_derive(run);
    }
    if (base == &run->exec) {
        /* zero and its alias distributed-optimizer: the one set last wins */
        if (strcmp(key, "zero") == 0) cx_core_zero_alias(&run->exec, 1, 0);
        if (strcmp(key, "distributed-optimizer") == 0) {
            if (!run->exec.distributed_optimizer) run->exec.zero = 0;
            cx_core_zero_alias(&run->exec, 0, 1);
        }
        /* the one of gpus and dp not given is derived; once both are given
         * by --set neither is, and culonx_run_check requires them to agree */
        if (strcmp(key, "dp") == 0) {
            run->dp_set = 1;
            run->dp_derived = 0;
            run->gpus_derived = !run->gpus_set;
        } else if (strcmp(key, "gpus") == 0) {
            run->gpus_set = 1;
            run->gpus_derived = 0;
            run->dp_derived = !run->dp_set;
        }
        cx_core_run_derive(run);
    }
    return CULONX_OK;
}
