/*
 * check.c — the execution check (check.h) and the names of the reject
 * vocabulary. Rules, in the order cx_core_exec_check applies them:
 *   gpus % (tp*pp) == 0 and gpus == tp*pp*dp        (layout: core/layout/layout.c)
 *   heads, kv-heads, ffn % tp == 0                  (Megatron's TP split)
 *   seq % (2*cp) == 0 and flash attention with cp > 1 (ring attention)
 *   MoE (models/moe.c): experts % ep, expert-ffn % etp, (tp*cp*dp) % (ep*etp)
 *     (the expert groups fold into a stage's ranks, core/layout/layout.h),
 *     shared-experts*expert-ffn % tp; sequence parallelism when tp > 1
 *     (Megatron-Core's rule for MoE with TP); ep = etp = 1 for dense models
 *   the schedule's rules on (pp, vp, layers)         (each schedule's supports;
 *     with uneven stages the split's rule, cx_core_rule_split, decides the
 *     layer counts and the schedule sees one layer per virtual stage)
 *   shard-group: zero >= 1 and dp % shard-group == 0 (HSDP replicas)
 *   global-batch % (microbatch*dp) == 0
 *   the schedule's rules on m = global-batch/(microbatch*dp)
 * and, for the sweep only, the evaluator's capacity: pp <= CX_LAYOUT_MAX_STAGES,
 * pp*chunks <= CX_LAYOUT_MAX_VSTAGES (core/layout/layout.h; an explicit run meets it in
 * cx_core_cost_build, with that file's message). No constants of its own.
 */
#include "core/layout/rules.h"
#include "core/layout/layout.h"

static const char *const reject_names[CULONX_REJECT_ALL_COUNT] = {
    [CULONX_REJECT_GLOBAL_BATCH_RANGE] = "global batch outside --min/--max-global-batch",
    [CULONX_REJECT_TP_NODE] = "tp not aligned to gpus-per-node",
    [CULONX_REJECT_TP_ACROSS] = "tp > gpus-per-node (see --tp-across-nodes)",
    [CULONX_REJECT_HEADS_TP] = "heads % tp",
    [CULONX_REJECT_KV_HEADS_TP] = "kv-heads % tp",
    [CULONX_REJECT_FFN_TP] = "ffn % tp",
    [CULONX_REJECT_LAYERS_PP] = "layers % pp",
    [CULONX_REJECT_GPUS_TP_PP] = "gpus % (tp*cp*pp)",
    [CULONX_REJECT_PP1_CHUNKS] = "multi-chunk schedule with pp = 1",
    [CULONX_REJECT_LAYERS_PP_VP] = "layers % (pp*vp)",
    [CULONX_REJECT_LAYERS_2PP] = "layers % (2*pp) (V-shaped schedule)",
    [CULONX_REJECT_STAGES] = "too many pipeline stages",
    [CULONX_REJECT_BATCH_MB_DP] = "global batch % (mb*dp)",
    [CULONX_REJECT_SCHED_MICROBATCHES] = "too few microbatches for the schedule",
    [CULONX_REJECT_DUP_SCHEDULE] = "duplicate: schedule with pp = 1",
    [CULONX_REJECT_DUP_SP] = "duplicate: sequence parallel with tp = 1",
    [CULONX_REJECT_DUP_DIST_OPT] = "duplicate: distributed optimizer with dp = 1",
    [CULONX_REJECT_DUP_DP_OVERLAP] = "duplicate: dp overlap with dp = 1",
    [CULONX_REJECT_CP] = "cp: seq % (2*cp) or naive attention",
    [CULONX_REJECT_TP_OVERLAP_SP] = "tp-overlap without sequence parallel",
    [CULONX_REJECT_SHARD_GROUP] = "shard-group with zero 0 or not dividing dp",
    [CULONX_REJECT_DUP_ZERO] = "duplicate: shard-group = dp, or dist-opt with zero >= 1",
    [CULONX_REJECT_OFFLOAD_HOST] = "offload without a <host> memory tier",
    [CULONX_REJECT_EVAL] = "evaluation failed",
    [CULONX_REJECT_MEMORY] = "does not fit in memory",
    [CULONX_REJECT_POWER_CAP] = "over the facility power cap",
    [CULONX_REJECT_EP] = "ep/etp do not split the experts or the ranks",
    [CULONX_REJECT_MOE_SP] = "MoE with tp > 1 needs sequence parallel",
    [CULONX_REJECT_MOE_ZERO] = "ZeRO-2/3 with a MoE model (not modelled)",
    [CULONX_REJECT_VP_SCHEDULE] = "vp > 1 with a schedule that takes none",
    [CULONX_REJECT_GPUS_DEGREES] = "gpus != tp*cp*pp*dp",
    [CULONX_REJECT_UNEVEN_SPLIT] = "uneven stages leave no even middle",
    [CULONX_REJECT_CP_SEQ] = "seq % (2*cp) or cp with naive attention",
};

const char *culonx_sweep_reject_name(culonx_sweep_reject r)
{
    return (unsigned)r < CULONX_REJECT_ALL_COUNT ? reject_names[r] : "?";
}

culonx_sweep_reject cx_core_rule_gpus(const cx_layout *l, int64_t gpus)
{
    int64_t dp = cx_core_layout_derive_dp(l, gpus);
    if (dp == 0) return CULONX_REJECT_GPUS_TP_PP;
    if (dp != l->degree[CX_DIM_DP]) return CULONX_REJECT_GPUS_DEGREES;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_tp(const culonx_model *md, int64_t tp)
{
    if (md->heads % tp) return CULONX_REJECT_HEADS_TP;
    if (md->kv_heads % tp) return CULONX_REJECT_KV_HEADS_TP;
    if (md->ffn % tp) return CULONX_REJECT_FFN_TP;
    return CULONX_REJECT_NONE;
}

int cx_core_rule_chunks(const cx_sched_desc *d, int64_t v)
{
    return d->chunks((int)(v > 1000000 ? 1000000 : v));
}

culonx_sweep_reject cx_core_rule_pipeline(const cx_sched_desc *d, const cx_sched_shape *s)
{
    return d->supports(s);
}

culonx_sweep_reject cx_core_rule_stages(const cx_sched_desc *d, const cx_sched_shape *s)
{
    if (s->p > CX_LAYOUT_MAX_STAGES || s->p * cx_core_rule_chunks(d, s->v) > CX_LAYOUT_MAX_VSTAGES)
        return CULONX_REJECT_STAGES;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_batch(int64_t global_batch, int64_t microbatch, int64_t dp)
{
    if (global_batch % (microbatch * dp)) return CULONX_REJECT_BATCH_MB_DP;
    return CULONX_REJECT_NONE;
}

int cx_core_exec_uneven(const culonx_execution *ex)
{
    return ex->first_stage_layers > 0 || ex->last_stage_layers > 0 || ex->embedding_in_split ||
           ex->loss_in_split;
}

culonx_sweep_reject cx_core_rule_split(int64_t layers, const culonx_execution *ex, int nvs,
                                       int64_t *out)
{
    const int64_t first = ex->first_stage_layers, last = ex->last_stage_layers;
    const int64_t emb = ex->embedding_in_split ? 1 : 0, loss = ex->loss_in_split ? 1 : 0;
    if (nvs < 2 || ((first || last) && (emb || loss))) return CULONX_REJECT_UNEVEN_SPLIT;
    int64_t head, tail, slots, mid = nvs;
    if (first || last) { /* given counts, the rest even over the middle */
        slots = layers - first - last;
        mid = nvs - (first > 0) - (last > 0);
    } else { /* embedding / loss as one layer slot each */
        slots = layers + emb + loss;
    }
    if (mid == 0 && slots == 0 && first && last) { /* two stages, both given */
        if (out) out[0] = first, out[1] = last;
        return CULONX_REJECT_NONE;
    }
    if (slots < 0 || mid < 1 || slots % mid) return CULONX_REJECT_UNEVEN_SPLIT;
    int64_t per = slots / mid;
    if (first || last)
        head = first ? first : per, tail = last ? last : per;
    else
        head = per - emb, tail = per - loss;
    if (per < 1 || head < 0 || tail < 0) return CULONX_REJECT_UNEVEN_SPLIT;
    if (out) {
        for (int i = 0; i < nvs; i++)
            out[i] = per;
        out[0] = head, out[nvs - 1] = tail;
    }
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_cp(const culonx_model *md, const culonx_execution *ex)
{
    if (ex->cp <= 1) return CULONX_REJECT_NONE;
    if (md->seq % (2 * ex->cp) || ex->attention != CULONX_ATTENTION_FLASH)
        return CULONX_REJECT_CP_SEQ;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_moe(const culonx_model *md, const culonx_execution *ex)
{
    const int64_t ep = ex->ep > 1 ? ex->ep : 1, etp = ex->etp > 1 ? ex->etp : 1;
    if (md->arch != CULONX_ARCH_MOE)
        return ep > 1 || etp > 1 ? CULONX_REJECT_EP : CULONX_REJECT_NONE;
    cx_layout l;
    cx_core_layout_init(&l, ex);
    /* degrees are at most 1e7 each (the loader's ranges): no overflow */
    if (md->experts % ep || md->expert_ffn % etp || cx_core_layout_stage_ranks(&l) % (ep * etp) ||
        (md->shared_experts * md->expert_ffn) % ex->tp)
        return CULONX_REJECT_EP;
    if (ex->tp > 1 && !ex->sequence_parallel) return CULONX_REJECT_MOE_SP;
    /* sharded expert gradients and gathered expert weights are not modelled */
    if (cx_core_layout_zero(ex) >= 2) return CULONX_REJECT_MOE_ZERO;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_shard(const culonx_execution *ex)
{
    if (ex->shard_group <= 0) return CULONX_REJECT_NONE;
    if (cx_core_layout_zero(ex) == 0 || ex->dp % ex->shard_group) return CULONX_REJECT_SHARD_GROUP;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_rule_offload(const culonx_execution *ex, const culonx_system *sys)
{
    if (ex->offload && !(sys->host_bw_gbps > 0 && sys->host_mem_gib > 0))
        return CULONX_REJECT_OFFLOAD_HOST;
    return CULONX_REJECT_NONE;
}

culonx_sweep_reject cx_core_exec_check(const culonx_model *md, const culonx_execution *ex)
{
    const cx_sched_desc *d = cx_sched_get(ex->schedule);
    if (!d || ex->tp < 1 || ex->pp < 1 || ex->dp < 1 || ex->microbatch < 1)
        return CULONX_REJECT_EVAL;
    cx_layout l;
    cx_core_layout_init(&l, ex);
    culonx_sweep_reject r;
    if ((r = cx_core_rule_gpus(&l, ex->gpus)) != CULONX_REJECT_NONE) return r;
    if ((r = cx_core_rule_tp(md, ex->tp)) != CULONX_REJECT_NONE) return r;
    if ((r = cx_core_rule_cp(md, ex)) != CULONX_REJECT_NONE) return r;
    if ((r = cx_core_rule_moe(md, ex)) != CULONX_REJECT_NONE) return r;
    if ((r = cx_core_rule_shard(ex)) != CULONX_REJECT_NONE) return r;
    cx_sched_shape s = {ex->pp, 0, ex->vp, md->layers};
    if (cx_core_exec_uneven(ex)) { /* the split's own rule replaces layer divisibility */
        int nvs = (int)ex->pp * cx_core_rule_chunks(d, ex->vp);
        if (ex->pp > CX_LAYOUT_MAX_STAGES || nvs > CX_LAYOUT_MAX_VSTAGES)
            return CULONX_REJECT_STAGES;
        if ((r = cx_core_rule_split(md->layers, ex, nvs, NULL)) != CULONX_REJECT_NONE) return r;
        s.layers = nvs;
    }
    if ((r = cx_core_rule_pipeline(d, &s)) != CULONX_REJECT_NONE) return r;
    if ((r = cx_core_rule_batch(ex->global_batch, ex->microbatch, ex->dp)) != CULONX_REJECT_NONE)
        return r;
    s.m = ex->global_batch / (ex->microbatch * ex->dp);
    return d->supports(&s);
}
