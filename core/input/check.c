/*
 * check.c — culonx_run_check: ranges and consistency of a whole run (model,
 * system, execution), with messages that point at the element and the
 * offending value (file:line from the run's origins). The plausibility
 * limits are sanity bounds, not hardware facts: anything beyond them (10000
 * layers, hidden 1e6, 1e7 GPUs ...) is a typo in practice.
 */
#include "core/input/fields.h"
#include "core/base/base.h"
#include "core/layout/layout.h"
#include "core/layout/rules.h"
#include "models/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const culonx_run *run;
    culonx_error *err;
} checker;

static culonx_status bad(checker *C, const culonx_origin *o, const char *fmt, ...) CX_PRINTF(3, 4);
static culonx_status bad(checker *C, const culonx_origin *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = o && o->file[0] ? o->file : C->run->path;
    return cx_core_fail(C->err, CULONX_EINPUT, file, o ? o->line : 0, "%s", msg);
}

static culonx_status int_range(checker *C, const culonx_origin *o, const char *tag, const char *key,
                               int64_t v, int64_t lo, int64_t hi)
{
    if (v < lo)
        return bad(C, o, "<%s %s=\"%lld\">: %s must be at least %lld", tag, key, (long long)v, key,
                   (long long)lo);
    if (v > hi)
        return bad(C, o, "<%s %s=\"%lld\">: %s = %lld is implausibly large (limit %lld)", tag, key,
                   (long long)v, key, (long long)v, (long long)hi);
    return CULONX_OK;
}

/* lo_open: v must be > lo (else >= lo). `shown` is v in XML units. */
static culonx_status dbl_range(checker *C, const culonx_origin *o, const char *tag, const char *key,
                               double v, double lo, int lo_open, double hi, double scale)
{
    double shown = scale ? v / scale : v;
    if (!isfinite(v))
        return bad(C, o, "<%s %s=\"%g\">: %s must be a finite number", tag, key, shown, key);
    if (v < lo || (lo_open && v == lo))
        return bad(C, o, "<%s %s=\"%g\">: %s must be %s %g", tag, key, shown, key,
                   lo_open ? "greater than" : "at least", scale ? lo / scale : lo);
    if (v > hi)
        return bad(C, o, "<%s %s=\"%g\">: %s = %g is outside the plausible range (at most %g)", tag,
                   key, shown, key, shown, scale ? hi / scale : hi);
    return CULONX_OK;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        culonx_status st_ = (x);                                                                   \
        if (st_ != CULONX_OK) return st_;                                                          \
    } while (0)

/* Mixture-of-experts fields (models/moe.c): only with arch="moe", which
 * needs experts, experts-per-token and expert-ffn; low-rank attention
 * (q-rank, kv-rank, rope-dim) only there too, q-rank and rope-dim with a
 * kv-rank, and kv-rank with kv-heads = heads (MLA has no grouped heads). */
static culonx_status check_moe(checker *C)
{
    typedef long long ll;
    const culonx_model *m = &C->run->model;
    const culonx_origin *o = &C->run->model_at;
    if (m->arch != CULONX_ARCH_MOE) {
        static const char *const keys[] = {
            "experts",        "experts-per-token",  "expert-ffn", "shared-experts",
            "moe-layer-freq", "first-dense-layers", "q-rank",     "kv-rank",
            "rope-dim",       "window-every"};
        const int64_t v[] = {m->experts,        m->experts_per_token, m->expert_ffn,
                             m->shared_experts, m->moe_layer_freq,    m->first_dense_layers,
                             m->q_rank,         m->kv_rank,           m->rope_dim,
                             m->window_every};
        for (int i = 0; i < 10; i++)
            if (v[i])
                return bad(C, o, "<model %s=\"%lld\">: %s needs arch=\"moe\"", keys[i], (ll)v[i],
                           keys[i]);
        return CULONX_OK;
    }
    if (!m->experts || !m->experts_per_token || !m->expert_ffn)
        return bad(C, o,
                   "<model arch=\"moe\">: needs experts, experts-per-token and expert-ffn (got "
                   "%lld, %lld, %lld)",
                   (ll)m->experts, (ll)m->experts_per_token, (ll)m->expert_ffn);
    TRY(int_range(C, o, "model", "experts", m->experts, 1, 100000));
    TRY(int_range(C, o, "model", "experts-per-token", m->experts_per_token, 1, m->experts));
    TRY(int_range(C, o, "model", "expert-ffn", m->expert_ffn, 1, 10000000));
    TRY(int_range(C, o, "model", "shared-experts", m->shared_experts, 0, 1000));
    if (m->moe_layer_freq)
        TRY(int_range(C, o, "model", "moe-layer-freq", m->moe_layer_freq, 1, m->layers));
    if (m->first_dense_layers >= m->layers)
        return bad(C, o,
                   "<model first-dense-layers=\"%lld\">: leaves no MoE layer among %lld layers",
                   (ll)m->first_dense_layers, (ll)m->layers);
    if (m->window_every) {
        TRY(int_range(C, o, "model", "window-every", m->window_every, 1, m->layers));
        if (!m->window)
            return bad(C, o, "<model window-every=\"%lld\">: needs a sliding window (window)",
                       (ll)m->window_every);
    }
    int nseg = cx_model_moe_segments(m);
    if (nseg > CX_MODEL_MAX_SEGMENTS && m->window_every > 1)
        return bad(C, o,
                   "<model window-every=\"%lld\">: %lld layers alternate in %d runs of layer kinds "
                   "(dense or MoE, windowed or full attention); at most %d are modelled",
                   (ll)m->window_every, (ll)m->layers, nseg, CX_MODEL_MAX_SEGMENTS);
    if (nseg > CX_MODEL_MAX_SEGMENTS)
        return bad(C, o,
                   "<model moe-layer-freq=\"%lld\">: %lld layers alternate in %d runs of dense and "
                   "MoE layers; at most %d are modelled",
                   (ll)m->moe_layer_freq, (ll)m->layers, nseg, CX_MODEL_MAX_SEGMENTS);
    if ((m->q_rank || m->rope_dim) && !m->kv_rank)
        return bad(C, o, "<model %s=\"%lld\">: low-rank attention needs kv-rank",
                   m->q_rank ? "q-rank" : "rope-dim", (ll)(m->q_rank ? m->q_rank : m->rope_dim));
    if (m->kv_rank) {
        TRY(int_range(C, o, "model", "kv-rank", m->kv_rank, 1, 1000000));
        if (m->q_rank) TRY(int_range(C, o, "model", "q-rank", m->q_rank, 1, 1000000));
        if (m->rope_dim) TRY(int_range(C, o, "model", "rope-dim", m->rope_dim, 1, 100000));
        if (m->kv_heads != m->heads)
            return bad(C, o,
                       "<model kv-rank=\"%lld\">: low-rank attention has a key/value head per "
                       "query head: kv-heads %lld must equal heads %lld",
                       (ll)m->kv_rank, (ll)m->kv_heads, (ll)m->heads);
    }
    return CULONX_OK;
}

static culonx_status check_model(checker *C)
{
    const culonx_model *m = &C->run->model;
    const culonx_origin *o = &C->run->model_at;
    if (!cx_model_family_of(m->arch)) return bad(C, o, "<model>: unknown arch %d", (int)m->arch);
    TRY(int_range(C, o, "model", "layers", m->layers, 1, 10000));
    TRY(int_range(C, o, "model", "hidden", m->hidden, 1, 1000000));
    TRY(int_range(C, o, "model", "heads", m->heads, 1, 100000));
    TRY(int_range(C, o, "model", "kv-heads", m->kv_heads, 1, 100000));
    TRY(int_range(C, o, "model", "ffn", m->ffn, 1, 10000000));
    TRY(int_range(C, o, "model", "vocab", m->vocab, 1, 100000000));
    TRY(int_range(C, o, "model", "seq", m->seq, 1, 10000000));
    if (m->head_dim) TRY(int_range(C, o, "model", "head-dim", m->head_dim, 1, 100000));
    if (m->window) TRY(int_range(C, o, "model", "window", m->window, 1, 10000000));
    /* an explicit head-dim frees hidden from being heads x head width */
    if (!m->head_dim && m->hidden % m->heads)
        return bad(C, o, "<model heads=\"%lld\">: %lld heads do not divide hidden %lld",
                   (long long)m->heads, (long long)m->heads, (long long)m->hidden);
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return bad(C, o, "<model kv-heads=\"%lld\">: %lld kv-heads do not divide %lld heads",
                   (long long)m->kv_heads, (long long)m->kv_heads, (long long)m->heads);
    return check_moe(C);
}

/* The plausible ranges of a <power> model (also for power files read
 * alone, cx_core_check_power). */
static culonx_status power_ranges(checker *C, const culonx_origin *po, const culonx_power_model *p)
{
    TRY(dbl_range(C, po, "power", "const-w", p->const_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "static-w", p->static_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "knee-mhz", p->knee_mhz, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "v-min", p->v_min, 0, 1, 100, 0));
    TRY(dbl_range(C, po, "power", "v-slope", p->v_slope, 0, 0, 100, 0));
    TRY(dbl_range(C, po, "power", "tensor-w", p->tensor_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "fp-w", p->fp_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "sm-w", p->sm_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "dram-w", p->dram_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "blocked-w", p->blocked_w, 0, 0, 1e5, 0));
    TRY(dbl_range(C, po, "power", "time-exp", p->time_exp, 0, 1, 4, 0));
    return CULONX_OK;
}

culonx_status cx_core_check_power(const culonx_power_model *p, const char *file, int line,
                                  culonx_error *err)
{
    culonx_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.path, sizeof r.path, "%s", file);
    culonx_origin o;
    memset(&o, 0, sizeof o);
    snprintf(o.file, sizeof o.file, "%s", file);
    o.line = line;
    checker C = {&r, err};
    return power_ranges(&C, &o, p);
}

static culonx_status check_system(checker *C)
{
    const culonx_run *r = C->run;
    const culonx_system *s = &r->system;
    const culonx_gpu *g = &s->gpu;
    const culonx_origin *so = &r->system_at, *go = &r->gpu_at;
    TRY(int_range(C, so, "system", "gpus-per-node", s->gpus_per_node, 1, 100000));
    TRY(dbl_range(C, so, "system", "node-overhead-w", s->node_overhead_w, 0, 0, 1e6, 0));
    TRY(dbl_range(C, so, "system", "pue", s->pue, 1, 0, 10, 0));
    TRY(dbl_range(C, go, "gpu", "matrix16-tflops", g->matrix16_tflops, 1e-3, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "matrix8-tflops", g->matrix8_tflops, 0, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "vector-tflops", g->vector_tflops, 1e-3, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "hbm-gbps", g->hbm_gbps, 1e-3, 0, 1e6, 0));
    TRY(dbl_range(C, go, "gpu", "mem-gib", g->mem_gib, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "min-mhz", g->min_mhz, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "max-mhz", g->max_mhz, g->min_mhz, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "step-mhz", g->step_mhz, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "tdp-w", g->tdp_w, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "idle-w", g->idle_w, 0, 0, g->tdp_w, 0));
    if (g->power.present) TRY(power_ranges(C, &r->power_at, &g->power));
    if (s->ntiers < 1 || s->ntiers > CULONX_MAX_TIERS)
        return bad(C, &r->network_at, "<network>: needs 1 or %d tiers, has %d", CULONX_MAX_TIERS,
                   s->ntiers);
    for (int i = 0; i < s->ntiers; i++) {
        const culonx_net_tier *t = &s->tier[i];
        const culonx_origin *to = &r->tier_at[i];
        if (!t->name[0]) return bad(C, to, "<tier>: tier %d has no name", i);
        TRY(dbl_range(C, to, "tier", "bw-gbps", t->bw_gbps, 1e-3, 0, 1e6, 0));
        TRY(dbl_range(C, to, "tier", "latency-us", t->latency_s, 0, 0, 1.0, 1e-6));
        TRY(dbl_range(C, to, "tier", "efficiency", t->efficiency, 0, 1, 1, 0));
        TRY(dbl_range(C, to, "tier", "pj-per-bit", t->pj_per_bit, 0, 0, 1e4, 0));
    }
    /* <host> (offload; 0 = absent) */
    TRY(dbl_range(C, so, "host", "mem-gib", s->host_mem_gib, 0, 0, 1e7, 0));
    TRY(dbl_range(C, so, "host", "bw-gbps", s->host_bw_gbps, 0, 0, 1e5, 0));
    const culonx_perf_params *pf = &s->perf;
    const culonx_origin *fo = &r->perf_at;
    TRY(dbl_range(C, fo, "perf", "matmul-eff-max", pf->matmul_eff_max, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "matmul-half-dim", pf->matmul_half_dim, 0, 0, 1e6, 0));
    TRY(dbl_range(C, fo, "perf", "mem-eff", pf->mem_eff, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "attn-eff", pf->attn_eff, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "attn-half-gflop", pf->attn_half_gflop, 0, 0, 1e6, 0));
    TRY(dbl_range(C, fo, "perf", "attn-bwd-eff", pf->attn_bwd_eff, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "attn-bwd-half-gflop", pf->attn_bwd_half_gflop, 0, 0, 1e6, 0));
    TRY(dbl_range(C, fo, "perf", "kernel-launch-us", pf->kernel_launch_s, 0, 0, 1.0, 1e-6));
    TRY(dbl_range(C, fo, "perf", "optimizer-bytes-per-param", pf->optimizer_bytes_per_param, 0, 0,
                  1e4, 0));
    return CULONX_OK;
}

/* The loader's message for a broken execution rule (core/layout/rules.c). */
static culonx_status exec_reject(checker *C, culonx_sweep_reject why)
{
    const culonx_run *r = C->run;
    const culonx_execution *e = &r->exec;
    const culonx_model *m = &r->model;
    const culonx_origin *o = &r->exec_at;
    const cx_sched_desc *d = cx_sched_get(e->schedule);
    const char *sname = culonx_schedule_name(e->schedule);
    typedef long long ll;
    cx_layout l;
    cx_core_layout_init(&l, e);
    int64_t mp = cx_core_layout_model_ranks(&l), mbdp = cx_mul_sat_i64(e->microbatch, e->dp);
    int chunks = d ? cx_core_rule_chunks(d, e->vp) : 1;

    if (why == CULONX_REJECT_NONE) return CULONX_OK;
    if (why == CULONX_REJECT_GPUS_TP_PP && r->dp_derived)
        return bad(C, o,
                   "<execution gpus=\"%lld\">: %lld GPUs are not a multiple of tp*pp = %lld*%lld "
                   "= %lld",
                   (ll)e->gpus, (ll)e->gpus, (ll)e->tp, (ll)e->pp, (ll)mp);
    switch (why) {
    case CULONX_REJECT_GPUS_TP_PP:
    case CULONX_REJECT_GPUS_DEGREES:
        if (e->cp > 1)
            return bad(C, o,
                       "<execution gpus=\"%lld\">: gpus must equal tp*cp*pp*dp = "
                       "%lld*%lld*%lld*%lld = %lld, got %lld",
                       (ll)e->gpus, (ll)e->tp, (ll)e->cp, (ll)e->pp, (ll)e->dp, (ll)l.gpus,
                       (ll)e->gpus);
        return bad(C, o,
                   "<execution gpus=\"%lld\">: gpus must equal tp*pp*dp = %lld*%lld*%lld = %lld, "
                   "got %lld",
                   (ll)e->gpus, (ll)e->tp, (ll)e->pp, (ll)e->dp, (ll)l.gpus, (ll)e->gpus);
    case CULONX_REJECT_UNEVEN_SPLIT:
        return bad(C, o,
                   "<execution>: uneven stages: first-stage-layers %lld, last-stage-layers %lld, "
                   "embedding-in-split %s, loss-in-split %s leave no even split of %lld layers "
                   "over the %lld middle virtual stages of pp*chunks = %lld*%d (the given counts "
                   "leave nothing or an indivisible rest; the slot keys exclude the counts)",
                   (ll)e->first_stage_layers, (ll)e->last_stage_layers,
                   e->embedding_in_split ? "true" : "false", e->loss_in_split ? "true" : "false",
                   (ll)m->layers,
                   (ll)(e->pp * chunks - (e->first_stage_layers > 0) - (e->last_stage_layers > 0)),
                   (ll)e->pp, chunks);
    case CULONX_REJECT_SHARD_GROUP:
        if (cx_core_layout_zero(e) == 0)
            return bad(C, o,
                       "<execution shard-group=\"%lld\">: sharding needs zero=\"1\", \"2\" or "
                       "\"3\" (HSDP shards optimizer state, gradients or weights in groups)",
                       (ll)e->shard_group);
        return bad(C, o,
                   "<execution shard-group=\"%lld\">: %lld does not divide dp = %lld (dp / "
                   "shard-group replicas of the shard group)",
                   (ll)e->shard_group, (ll)e->shard_group, (ll)e->dp);
    case CULONX_REJECT_OFFLOAD_HOST: {
        char off[64];
        return bad(C, o,
                   "<execution offload=\"%s\">: system %s has no host memory tier: add <host "
                   "mem-gib=\"..\" bw-gbps=\"..\"/> to <system>",
                   culonx_offload_names(e->offload, off, sizeof off), r->system.name);
    }
    case CULONX_REJECT_CP_SEQ:
        if (e->attention != CULONX_ATTENTION_FLASH)
            return bad(C, o,
                       "<execution cp=\"%lld\">: context parallelism runs ring attention on the "
                       "fused kernel: needs attention=\"flash\"",
                       (ll)e->cp);
        return bad(C, o,
                   "<execution cp=\"%lld\">: seq %lld is not a multiple of 2*cp = %lld (two "
                   "chunks per rank for causal load balance)",
                   (ll)e->cp, (ll)m->seq, (ll)(2 * e->cp));
    case CULONX_REJECT_EP: {
        const int64_t ep = e->ep > 1 ? e->ep : 1, etp = e->etp > 1 ? e->etp : 1;
        const int64_t ranks = cx_core_layout_stage_ranks(&l);
        if (m->arch != CULONX_ARCH_MOE)
            return bad(C, o,
                       "<execution ep=\"%lld\" etp=\"%lld\">: expert parallelism needs a "
                       "mixture-of-experts model (arch=\"moe\")",
                       (ll)ep, (ll)etp);
        if (m->experts % ep)
            return bad(C, o, "<execution ep=\"%lld\">: ep %lld does not divide %lld experts",
                       (ll)ep, (ll)ep, (ll)m->experts);
        if (m->expert_ffn % etp)
            return bad(C, o, "<execution etp=\"%lld\">: etp %lld does not divide expert-ffn %lld",
                       (ll)etp, (ll)etp, (ll)m->expert_ffn);
        if (ranks % (ep * etp))
            return bad(C, o,
                       "<execution ep=\"%lld\">: ep*etp = %lld*%lld does not divide the "
                       "tp*cp*dp = %lld ranks of a pipeline stage (expert groups fold into them)",
                       (ll)ep, (ll)ep, (ll)etp, (ll)ranks);
        return bad(C, o,
                   "<execution tp=\"%lld\">: %lld does not divide the shared experts' inner size "
                   "%lld*%lld",
                   (ll)e->tp, (ll)e->tp, (ll)m->shared_experts, (ll)m->expert_ffn);
    }
    case CULONX_REJECT_MOE_SP:
        return bad(C, o,
                   "<execution tp=\"%lld\">: a mixture-of-experts model with tp > 1 needs "
                   "sequence-parallel=\"true\" (each TP rank routes its own tokens)",
                   (ll)e->tp);
    case CULONX_REJECT_MOE_ZERO:
        return bad(C, o,
                   "<execution zero=\"%d\">: ZeRO-2/3 with a mixture-of-experts model is not "
                   "modelled (use zero 0 or 1: the distributed optimizer shards expert and "
                   "dense optimizer state)",
                   e->zero);
    case CULONX_REJECT_HEADS_TP:
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide %lld heads", (ll)e->tp,
                   (ll)e->tp, (ll)m->heads);
    case CULONX_REJECT_KV_HEADS_TP:
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide %lld kv-heads", (ll)e->tp,
                   (ll)e->tp, (ll)m->kv_heads);
    case CULONX_REJECT_FFN_TP:
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide ffn %lld", (ll)e->tp,
                   (ll)e->tp, (ll)m->ffn);
    case CULONX_REJECT_PP1_CHUNKS:
        return bad(C, o, "<execution vp=\"%lld\">: vp > 1 needs pipeline parallelism (pp > 1)",
                   (ll)e->vp);
    case CULONX_REJECT_VP_SCHEDULE: {
        const char *takes = "?"; /* the first registered schedule that takes vp */
        for (int i = culonx_schedule_count() - 1; i >= 0; i--) {
            const cx_sched_desc *x = cx_sched_get((culonx_schedule)i);
            if (x && cx_sched_takes_vp(x)) takes = x->name;
        }
        return bad(C, o, "<execution vp=\"%lld\">: vp > 1 needs schedule=\"%s\", not %s", (ll)e->vp,
                   takes, sname);
    }
    case CULONX_REJECT_LAYERS_PP:
        return bad(C, o, "<execution pp=\"%lld\">: pp %lld does not divide %lld layers", (ll)e->pp,
                   (ll)e->pp, (ll)m->layers);
    case CULONX_REJECT_LAYERS_PP_VP:
        return bad(C, o, "<execution vp=\"%lld\">: pp*vp = %lld*%lld does not divide %lld layers",
                   (ll)e->vp, (ll)e->pp, (ll)e->vp, (ll)m->layers);
    case CULONX_REJECT_LAYERS_2PP:
        return bad(C, o,
                   "<execution pp=\"%lld\">: %s puts %d chunks per stage: %d*pp = %lld does not "
                   "divide %lld layers",
                   (ll)e->pp, sname, chunks, chunks, (ll)cx_mul_sat_i64(e->pp, chunks),
                   (ll)m->layers);
    case CULONX_REJECT_BATCH_MB_DP:
        return bad(C, o,
                   "<execution global-batch=\"%lld\">: %lld is not a multiple of microbatch*dp = "
                   "%lld*%lld = %lld",
                   (ll)e->global_batch, (ll)e->global_batch, (ll)e->microbatch, (ll)e->dp,
                   (ll)mbdp);
    case CULONX_REJECT_SCHED_MICROBATCHES:
        return bad(C, o,
                   "<execution global-batch=\"%lld\">: %s needs at least %lld microbatches per "
                   "pipeline, global-batch/(microbatch*dp) = %lld",
                   (ll)e->global_batch, sname, (ll)d->min_microbatches(e->pp, e->vp),
                   (ll)(e->global_batch / mbdp));
    default:
        return bad(C, o, "<execution>: %s", culonx_sweep_reject_name(why));
    }
}

static culonx_status check_exec(checker *C)
{
    const culonx_run *r = C->run;
    const culonx_execution *e = &r->exec;
    const culonx_model *m = &r->model;
    const culonx_gpu *g = &r->system.gpu;
    const culonx_origin *o = &r->exec_at;

    if ((unsigned)e->recompute > CULONX_RECOMPUTE_FULL)
        return bad(C, o, "<execution>: unknown recompute %d", (int)e->recompute);
    if ((unsigned)e->schedule >= (unsigned)culonx_schedule_count() || !cx_sched_get(e->schedule))
        return bad(C, o, "<execution>: unknown schedule %d", (int)e->schedule);
    if ((unsigned)e->dtype > CULONX_DTYPE_FP8)
        return bad(C, o, "<execution>: unknown dtype %d", (int)e->dtype);
    if ((unsigned)e->attention > CULONX_ATTENTION_NAIVE)
        return bad(C, o, "<execution>: unknown attention %d", (int)e->attention);
    if ((unsigned)e->tp_overlap > CULONX_TP_OVERLAP_RING)
        return bad(C, o, "<execution>: unknown tp-overlap %d", (int)e->tp_overlap);
    if (e->tp_overlap != CULONX_TP_OVERLAP_NONE && e->tp > 1 && !e->sequence_parallel)
        return bad(C, o,
                   "<execution tp-overlap=\"%s\">: TP overlap needs sequence-parallel=\"true\" "
                   "(it splits the reduce-scatter and all-gather of SP)",
                   e->tp_overlap == CULONX_TP_OVERLAP_PIPE ? "pipe" : "ring");
    if ((unsigned)e->zero > 3) return bad(C, o, "<execution>: unknown zero %d", e->zero);
    if ((unsigned)e->zero_impl > CULONX_ZERO_IMPL_DEEPSPEED)
        return bad(C, o, "<execution>: unknown zero-impl %d", (int)e->zero_impl);
    if ((e->zero >= 1) != (e->distributed_optimizer != 0) && e->zero != 0)
        return bad(C, o,
                   "<execution zero=\"%d\">: distributed-optimizer=\"false\" disagrees (it is "
                   "zero 1; zero >= 1 shards the optimizer state)",
                   e->zero);
    if (e->offload &
        ~(CULONX_OFFLOAD_WEIGHTS | CULONX_OFFLOAD_ACTIVATIONS | CULONX_OFFLOAD_OPTIMIZER))
        return bad(C, o, "<execution>: unknown offload bits %d", e->offload);
    if (e->param_gather_overlap && !e->distributed_optimizer)
        return bad(C, o,
                   "<execution param-gather-overlap=\"true\">: needs "
                   "distributed-optimizer=\"true\" (no parameter all-gather without it)");
    TRY(int_range(C, o, "execution", "gpus", e->gpus, 1, 10000000));
    TRY(int_range(C, o, "execution", "tp", e->tp, 1, e->gpus));
    TRY(int_range(C, o, "execution", "pp", e->pp, 1, e->gpus));
    if (e->ep) TRY(int_range(C, o, "execution", "ep", e->ep, 1, e->gpus));
    if (e->etp) TRY(int_range(C, o, "execution", "etp", e->etp, 1, e->gpus));
    if ((unsigned)e->a2a_overlap > CULONX_A2A_OVERLAP_PIPE)
        return bad(C, o, "<execution>: unknown a2a-overlap %d", (int)e->a2a_overlap);
    if (e->route_nodes)
        TRY(int_range(C, o, "execution", "route-nodes", e->route_nodes, 1, e->gpus));
    if (e->route_nodes && m->arch != CULONX_ARCH_MOE)
        return bad(C, o,
                   "<execution route-nodes=\"%lld\">: node-limited routing needs a "
                   "mixture-of-experts model (arch=\"moe\")",
                   (long long)e->route_nodes);
    if (e->a2a_overlap != CULONX_A2A_OVERLAP_NONE && m->arch != CULONX_ARCH_MOE)
        return bad(C, o,
                   "<execution a2a-overlap=\"%s\">: the expert all-to-all overlap needs a "
                   "mixture-of-experts model (arch=\"moe\")",
                   culonx_a2a_overlap_name(e->a2a_overlap));
    if (e->a2a_overlap == CULONX_A2A_OVERLAP_SHARED && !m->shared_experts)
        return bad(C, o,
                   "<execution a2a-overlap=\"shared\">: overlaps the all-to-all with the shared "
                   "experts, and the model has none (shared-experts); use pipe or none");
    if (e->capacity_factor != 0) {
        TRY(dbl_range(C, o, "execution", "capacity-factor", e->capacity_factor, 1, 0, 1000, 0));
        if (m->arch != CULONX_ARCH_MOE && e->capacity_factor != 1.0)
            return bad(C, o,
                       "<execution capacity-factor=\"%g\">: a capacity factor needs a "
                       "mixture-of-experts model (arch=\"moe\")",
                       e->capacity_factor);
    }
    /* the rules are core/layout/rules.c's; ranges are checked first, in between
     * as before so that the first message of a run is unchanged */
    cx_layout l;
    cx_core_layout_init(&l, e);
    if (r->dp_derived && cx_core_rule_gpus(&l, e->gpus) == CULONX_REJECT_GPUS_TP_PP)
        return exec_reject(C, CULONX_REJECT_GPUS_TP_PP);
    TRY(int_range(C, o, "execution", "dp", e->dp, 1, e->gpus));
    TRY(exec_reject(C, cx_core_rule_gpus(&l, e->gpus)));
    TRY(int_range(C, o, "execution", "vp", e->vp, 1, 1000));
    TRY(int_range(C, o, "execution", "global-batch", e->global_batch, 1, 1000000000));
    TRY(int_range(C, o, "execution", "microbatch", e->microbatch, 1, e->global_batch));
    TRY(dbl_range(C, o, "execution", "tokens", e->tokens, 0, 0, 1e16, 0));
    if (!isfinite(e->clock_mhz) || e->clock_mhz < 0 ||
        (e->clock_mhz != 0 && (e->clock_mhz < g->min_mhz || e->clock_mhz > g->max_mhz)))
        return bad(C, o,
                   "<execution clock-mhz=\"%g\">: clock %g MHz is outside the %s range %g-%g MHz "
                   "(0 = max)",
                   e->clock_mhz, e->clock_mhz, g->name, g->min_mhz, g->max_mhz);
    TRY(exec_reject(C, cx_core_exec_check(m, e)));
    TRY(exec_reject(C, cx_core_rule_offload(e, &r->system)));
    if (e->dtype == CULONX_DTYPE_FP8 && !(g->matrix8_tflops > 0))
        return bad(C, o, "<execution dtype=\"fp8\">: GPU %s has no fp8 (matrix8-tflops = 0)",
                   g->name);
    return CULONX_OK;
}

/* <serving> (core/eval/serve.c): ranges, the TP split of the model, layers
 * by pp, fp8 on the GPU. SLOs are stored in seconds and shown in ms. */
static culonx_status check_serving(checker *C)
{
    const culonx_run *r = C->run;
    const culonx_serving *v = &r->serving;
    const culonx_model *m = &r->model;
    const culonx_origin *o = &r->serving_at;
    if ((unsigned)v->dtype > CULONX_DTYPE_FP8 || (unsigned)v->kv_dtype > CULONX_DTYPE_FP8)
        return bad(C, o, "<serving>: unknown dtype %d", (int)v->dtype);
    TRY(int_range(C, o, "serving", "tp", v->tp, 1, 100000));
    TRY(int_range(C, o, "serving", "pp", v->pp, 1, m->layers));
    TRY(int_range(C, o, "serving", "batch", v->batch, 1, 1000000));
    TRY(int_range(C, o, "serving", "input-tokens", v->input_tokens, 1, 10000000));
    TRY(int_range(C, o, "serving", "output-tokens", v->output_tokens, 1, 10000000));
    TRY(dbl_range(C, o, "serving", "load-tokens-per-s", v->load_tokens_per_s, 0, 0, 1e12, 0));
    TRY(dbl_range(C, o, "serving", "ttft-slo-ms", v->ttft_slo_s, 0, 0, 1e6 * 1e-3, 1e-3));
    TRY(dbl_range(C, o, "serving", "tpot-slo-ms", v->tpot_slo_s, 0, 0, 1e6 * 1e-3, 1e-3));
    culonx_sweep_reject why = cx_core_rule_tp(m, v->tp);
    if (why == CULONX_REJECT_HEADS_TP || why == CULONX_REJECT_KV_HEADS_TP ||
        why == CULONX_REJECT_FFN_TP) {
        const char *what = why == CULONX_REJECT_HEADS_TP      ? "heads"
                           : why == CULONX_REJECT_KV_HEADS_TP ? "kv-heads"
                                                              : "ffn";
        long long n = why == CULONX_REJECT_HEADS_TP      ? (long long)m->heads
                      : why == CULONX_REJECT_KV_HEADS_TP ? (long long)m->kv_heads
                                                         : (long long)m->ffn;
        return bad(C, o, "<serving tp=\"%lld\">: %lld does not divide %lld %s", (long long)v->tp,
                   (long long)v->tp, n, what);
    }
    if (m->layers % v->pp)
        return bad(C, o, "<serving pp=\"%lld\">: pp %lld does not divide %lld layers",
                   (long long)v->pp, (long long)v->pp, (long long)m->layers);
    const culonx_gpu *g = &r->system.gpu;
    if (v->dtype == CULONX_DTYPE_FP8 && !(g->matrix8_tflops > 0))
        return bad(C, o, "<serving dtype=\"fp8\">: GPU %s has no fp8 (matrix8-tflops = 0)",
                   g->name);
    return CULONX_OK;
}

culonx_status culonx_run_check(const culonx_run *run, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_run_check: NULL run");
    checker C = {run, err};
    TRY(check_model(&C));
    TRY(check_system(&C));
    if (run->has_serving) TRY(check_serving(&C));
    TRY(check_exec(&C));
    return CULONX_OK;
}
