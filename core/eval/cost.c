/*
 * cost.c — turns model x system x execution into per-chunk costs (cost.h).
 *
 * Each op of the layer table (models/) becomes hw work (hw/perf.c): forward,
 * input gradient (B) and weight gradient (W). A chunk of L layers costs L
 * times the layer, plus the embedding on virtual stage 0 and the head
 * (final norm, logits, loss) on the last virtual stage. Recompute adds the
 * forward of every layer (full) or of the attention core (selective,
 * Korthikanti et al. 2022) before the backward. TP collectives are blocking
 * (Megatron default: no TP overlap) and priced by hw/net.c over the tp group
 * of the layout (core/layout/layout.h). PP p2p carries 2sbh bytes (/t when
 * scattered, i.e. with SP) between neighbouring stages (the layout's pp
 * neighbours). DP gradient sync all-reduces fp32 gradients (4 B/param;
 * reduce-scatter of gradients + all-gather of 16-bit parameters with the
 * distributed optimizer) over the dp group. The Adam step moves
 * optimizer_bytes_per_param bytes of HBM per parameter it updates.
 * Formulas and constants (workspace, DDP buckets): core/README.md, "Chunk
 */
#include "core/eval/cost.h"
#include "core/base/base.h"
#include "core/eval/energy.h"
#include "hw/power.h"

#include <math.h>
#include <string.h>

/* CUDA context, cuBLAS workspaces, NCCL buffers and allocator slack: 1 GiB,
 * a round figure in the range PyTorch users observe (0.5-1.5 GiB); plus two
 * gathered activation buffers (2sbh bytes each) for TP communication. */
#define WORKSPACE_BYTES (1.0 * CX_GIB)
/* Megatron DDP gradient buckets: max(40M, 1M x dp) parameters each; we
 * model at most 64 per stage (the tail effect is the last bucket's). */
#define DDP_BUCKET_PARAMS 40e6
#define DDP_MAX_BUCKETS 64

static cx_hw_coll hw_coll(cx_coll_kind k)
{
    switch (k) {
    case CX_COLL_ALL_REDUCE: return CX_HW_ALL_REDUCE;
    case CX_COLL_REDUCE_SCATTER: return CX_HW_REDUCE_SCATTER;
    case CX_COLL_ALL_GATHER: return CX_HW_ALL_GATHER;
    default: return CX_HW_ALL_REDUCE;
    }
}

static double op_time(const cx_cost *c, const cx_model_op *o, double flops, double bytes,
                      double *tensor_s)
{
    if (flops <= 0 && bytes <= 0) return 0.0;
    cx_hw_work w;
    w.flops = flops;
    w.bytes = bytes;
    w.batch = o->batch;
    w.tensor = o->tensor;
    cx_hw_time t = cx_hw_work_time(&c->sys, &c->sys.perf, &w, c->run->exec.dtype, c->clock_mhz);
    if (o->tensor && tensor_s) *tensor_s += t.time_s;
    return t.time_s;
}

static void add_coll(const cx_cost *c, cx_coll_kind k, double bytes, double *time_s,
                     double tier_bytes[CULONX_MAX_TIERS])
{
    if (k == CX_COLL_NONE) return;
    cx_hw_comm cm =
        cx_hw_coll_cost(&c->sys, hw_coll(k), bytes,
                        cx_core_layout_group(&c->layout, CX_DIM_TP, c->sys.gpus_per_node));
    *time_s += cm.time_s;
    for (int i = 0; i < CULONX_MAX_TIERS; i++) tier_bytes[i] += cm.bytes_tier[i];
}

/* Costs of one pass over an op list, accumulated into cc with weight n. */
/* CPU launch floor of one pass over an op list (framework overhead): the
 * GPU work of the pass cannot take less than launch_s per kernel issued,
 * collectives included; when it would, the compute ops are stretched
 * uniformly so the pass takes exactly the floor. Returns the stretch. */
static double cpu_floor(const cx_cost *c, const double *op_s, const double *coll_s, int n)
{
    double gpu = 0, coll = 0;
    int kernels = 0;
    for (int i = 0; i < n; i++) {
        gpu += op_s[i], coll += coll_s ? coll_s[i] : 0.0;
        kernels += (op_s[i] > 0) + (coll_s && coll_s[i] > 0);
    }
    double floor_s = kernels * c->sys.perf.kernel_launch_s;
    if (gpu <= 0 || floor_s <= gpu + coll) return 1.0;
    return (floor_s - coll) / gpu;
}

/* Costs of one pass over an op list, accumulated into cc with weight n. */
static void ops_cost(const cx_cost *c, const cx_model_ops *ops, double n, int recompute_mode,
                     int is_layer, cx_chunk_cost *cc, cx_op_times *ot)
{
    double ts_f[CX_MODEL_MAX_OPS], ts_b[CX_MODEL_MAX_OPS], ts_w[CX_MODEL_MAX_OPS];
    double tp_r[CX_MODEL_MAX_OPS];
    double tiers[CULONX_MAX_TIERS] = {0, 0};
    const int no = ops->nops;
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        ts_f[i] = ts_b[i] = ts_w[i] = 0;
        ot->f_s[i] = op_time(c, o, o->fwd_flops, o->fwd_bytes, &ts_f[i]);
        ot->b_s[i] = op_time(c, o, o->b_flops, o->b_bytes, &ts_b[i]);
        ot->w_s[i] = op_time(c, o, o->w_flops, o->w_bytes, &ts_w[i]);
        ot->tp_f_s[i] = ot->tp_b_s[i] = tp_r[i] = 0;
        add_coll(c, o->coll_fwd, o->coll_bytes, &ot->tp_f_s[i], tiers);
        add_coll(c, o->coll_bwd, o->coll_bytes, &ot->tp_b_s[i], tiers);
        int rec = is_layer && (recompute_mode == CULONX_RECOMPUTE_FULL ||
                               (recompute_mode == CULONX_RECOMPUTE_SELECTIVE && o->sel_recompute));
        ot->r_s[i] = rec ? ot->f_s[i] : 0.0;
        if (rec && recompute_mode == CULONX_RECOMPUTE_FULL)
            add_coll(c, o->coll_fwd, o->coll_bytes, &tp_r[i], tiers);
    }
    double kf = cpu_floor(c, ot->f_s, ot->tp_f_s, no), kb = cpu_floor(c, ot->b_s, ot->tp_b_s, no);
    double kw = cpu_floor(c, ot->w_s, NULL, no), kr = cpu_floor(c, ot->r_s, tp_r, no);
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        ot->f_s[i] *= kf, ot->b_s[i] *= kb, ot->w_s[i] *= kw;
        double ts_r = ot->r_s[i] > 0 ? ts_f[i] * kr : 0.0;
        ot->r_s[i] *= kr;
        cc->f_s += n * ot->f_s[i], cc->b_s += n * ot->b_s[i], cc->w_s += n * ot->w_s[i];
        cc->r_s += n * ot->r_s[i];
        cc->tp_f_s += n * ot->tp_f_s[i], cc->tp_b_s += n * ot->tp_b_s[i];
        cc->tp_r_s += n * tp_r[i];
        cc->f_flops += n * o->fwd_flops, cc->b_flops += n * o->b_flops;
        cc->w_flops += n * o->w_flops;
        cc->f_bytes += n * o->fwd_bytes, cc->b_bytes += n * o->b_bytes;
        cc->w_bytes += n * o->w_bytes;
        if (ot->r_s[i] > 0) cc->r_flops += n * o->fwd_flops, cc->r_bytes += n * o->fwd_bytes;
        cc->tensor_s += n * (ts_f[i] * kf + ts_b[i] * kb + ts_w[i] * kw + ts_r);
    }
    for (int k = 0; k < CULONX_MAX_TIERS; k++) cc->tp_tier_bytes[k] += n * tiers[k];
}

int cx_core_cost_stage_of(const cx_cost *c, int vs, int *chunk)
{
    if (vs < 0 || vs >= c->p * c->v) return -1;
    if (chunk) *chunk = c->vs_chunk[vs];
    return c->vs_stage[vs];
}

culonx_status cx_core_cost_build(const culonx_run *run, double clock_mhz, cx_cost *c,
                                 culonx_error *err)
{
    const culonx_model *md = &run->model;
    const culonx_execution *ex = &run->exec;
    c->run = run;
    c->sys = run->system;
    cx_hw_perf_defaults(&c->sys.perf);
    cx_hw_power_default(&c->sys.gpu);
    c->clock_mhz = clock_mhz > 0 ? clock_mhz : run->system.gpu.max_mhz;
    cx_core_layout_init(&c->layout, ex);
    c->sched = cx_sched_get(ex->schedule);
    if (!c->sched)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0, "schedule '%s' is not available",
                            culonx_schedule_name(ex->schedule));
    c->p = (int)ex->pp;
    c->v = c->sched->chunks((int)(ex->vp > 0 ? ex->vp : 1));
    int64_t nvs = (int64_t)c->p * c->v;
    if (c->p > CX_COST_MAX_STAGES || nvs > CX_COST_MAX_VSTAGES)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "pp=%lld with %d chunks per stage: at most %d stages are modelled",
                            (long long)ex->pp, c->v, CX_COST_MAX_STAGES);
    if (md->layers % nvs != 0)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "schedule %s needs layers (%lld) divisible by pp x chunks = %lld",
                            c->sched->name, (long long)md->layers, (long long)nvs);
    c->m = (int)(ex->global_batch / (ex->microbatch * ex->dp));
    c->weight_copies = c->sched->weight_copies > 0 ? c->sched->weight_copies : 1;

    const double e = 2.0; /* 16-bit activations (fp8 runs keep bf16 activations) */
    cx_model_build(md, ex->microbatch, ex->tp, ex->sequence_parallel, e, &c->tab);

    /* one layer, then scale */
    cx_chunk_cost layer, embed, head;
    memset(&layer, 0, sizeof layer);
    memset(&embed, 0, sizeof embed);
    memset(&head, 0, sizeof head);
    ops_cost(c, &c->tab.layer, 1.0, ex->recompute, 1, &layer, &c->layer_t);
    ops_cost(c, &c->tab.embed, 1.0, ex->recompute, 0, &embed, &c->embed_t);
    ops_cost(c, &c->tab.head, 1.0, ex->recompute, 0, &head, &c->head_t);

    const double t = (double)ex->tp;
    const int64_t lpc = md->layers / nvs;
    const double layer_params = cx_model_layer_params(md) / t;
    cx_chunk_cost *kinds[4] = {&c->mid, &c->first, &c->last, &c->only};
    for (int kind = 0; kind < 4; kind++) {
        /* only the kinds cx_core_cost_chunk can return for this nvs */
        cx_chunk_cost *cc = kinds[kind];
        if (nvs == 1 ? kind != 3 : kind == 3 || (kind == 0 && nvs == 2)) {
            memset(cc, 0, sizeof *cc);
            continue;
        }
        int emb = kind == 1 || kind == 3, hd = kind == 2 || kind == 3;
        double L = (double)lpc;
        memset(cc, 0, sizeof *cc);
        cc->layers = lpc;
#define SCALE(f) cc->f = L * layer.f
        SCALE(f_s); SCALE(b_s); SCALE(w_s); SCALE(r_s);
        SCALE(tp_f_s); SCALE(tp_b_s); SCALE(tp_r_s);
        SCALE(f_flops); SCALE(b_flops); SCALE(w_flops); SCALE(r_flops);
        SCALE(f_bytes); SCALE(b_bytes); SCALE(w_bytes); SCALE(r_bytes);
        SCALE(tensor_s);
#undef SCALE
        for (int k = 0; k < CULONX_MAX_TIERS; k++) cc->tp_tier_bytes[k] = L * layer.tp_tier_bytes[k];
        cc->act_bytes = L * c->tab.layer_act_bytes[ex->recompute];
        cc->work_bytes = ex->recompute == CULONX_RECOMPUTE_FULL
                             ? c->tab.layer_act_bytes[CULONX_RECOMPUTE_NONE]
                             : 0.0;
        cc->params = L * layer_params;
        const cx_chunk_cost *extra[2] = {emb ? &embed : NULL, hd ? &head : NULL};
        for (int x = 0; x < 2; x++) {
            const cx_chunk_cost *ec = extra[x];
            if (!ec) continue;
            cc->f_s += ec->f_s, cc->b_s += ec->b_s, cc->w_s += ec->w_s;
            cc->tp_f_s += ec->tp_f_s, cc->tp_b_s += ec->tp_b_s;
            cc->f_flops += ec->f_flops, cc->b_flops += ec->b_flops, cc->w_flops += ec->w_flops;
            cc->f_bytes += ec->f_bytes, cc->b_bytes += ec->b_bytes, cc->w_bytes += ec->w_bytes;
            cc->tensor_s += ec->tensor_s;
            for (int k = 0; k < CULONX_MAX_TIERS; k++) cc->tp_tier_bytes[k] += ec->tp_tier_bytes[k];
        }
        if (emb) {
            cc->has_embed = 1;
            cc->act_bytes += c->tab.embed_act_bytes;
            cc->params += cx_model_embed_params(md) / t;
        }
        if (hd) {
            cc->has_head = 1;
            cc->act_bytes += c->tab.head_act_bytes;
            cc->params += cx_model_head_params(md) / t;
            /* GPT ties the output to the embedding: the last stage keeps a copy */
            if (md->arch == CULONX_ARCH_GPT && nvs > 1)
                cc->params += (double)md->vocab * (double)md->hidden / t;
        }
        cc->e_f_j = cx_core_pass_energy_j(c, cc->f_s, cc->f_flops, cc->f_bytes, NULL);
        cc->e_b_j = cx_core_pass_energy_j(c, cc->b_s, cc->b_flops, cc->b_bytes, NULL);
        cc->e_w_j = cx_core_pass_energy_j(c, cc->w_s, cc->w_flops, cc->w_bytes, NULL);
        cc->e_r_j = cx_core_pass_energy_j(c, cc->r_s, cc->r_flops, cc->r_bytes, NULL);
    }

    /* PP p2p: the boundary activation, 2sbh bytes (/t with SP scatter-gather) */
    c->p2p_bytes = e * (double)ex->microbatch * (double)md->seq * (double)md->hidden /
                   (ex->sequence_parallel && ex->tp > 1 ? t : 1.0);
    c->p2p_s = 0;
    c->p2p_tier = 0;
    if (c->p > 1) {
        cx_hw_comm cm =
            cx_hw_coll_cost(&c->sys, CX_HW_P2P, c->p2p_bytes,
                            cx_core_layout_p2p(&c->layout, CX_DIM_PP, c->sys.gpus_per_node));
        c->p2p_s = cm.time_s;
        c->p2p_tier = cm.bytes_tier[0] > 0 ? 0 : 1;
    }

    /* per physical stage: parameters, DP sync, optimizer */
    for (int s = 0; s < c->p; s++)
        for (int k = 0; k < c->v; k++) {
            int vs = c->sched->vstage(c->p, c->v, s, k);
            c->vs_stage[vs] = (int16_t)s;
            c->vs_chunk[vs] = (int16_t)k;
            c->vs_stage_vs[s * c->v + k] = (int16_t)vs;
        }
    /* per stage: sends, chunk aggregates; DP and optimizer are recomputed
     * only when the stage's parameters differ from its predecessor's */
    double prev_P = -1;
    for (int s = 0; s < c->p; s++) {
        int nf = 0, nb = 0, mid = 1;
        double P = 0, F = 0, B = 0, W = 0, act = 0, work = 0, ej = 0, busy = 0, by = 0;
        for (int k = 0; k < c->v; k++) {
            int vs = c->vs_stage_vs[s * c->v + k];
            if (vs + 1 < nvs && c->vs_stage[vs + 1] != s) nf++;
            if (vs > 0 && c->vs_stage[vs - 1] != s) nb++;
            mid &= vs != 0 && vs != nvs - 1;
            const cx_chunk_cost *cc = cx_core_cost_chunk(c, vs);
            P += cc->params;
            F += cc->f_s + cc->tp_f_s;
            B += cc->b_s + cc->tp_b_s + cc->r_s + cc->tp_r_s;
            W += cc->w_s;
            act += cc->act_bytes;
            work = cx_maxd(work, cc->work_bytes);
            ej += cc->e_f_j + cc->e_b_j + cc->e_w_j + cc->e_r_j;
            busy += cc->f_s + cc->b_s + cc->w_s + cc->r_s;
            by += cc->f_bytes + cc->b_bytes + cc->w_bytes + cc->r_bytes;
        }
        c->same_prev[s] = (unsigned char)(s > 0 && mid && c->same_prev_mid && nf == c->sends_f[s - 1] &&
                                          nb == c->sends_b[s - 1]);
        c->same_prev_mid = mid;
        c->sends_f[s] = nf, c->sends_b[s] = nb;
        c->stage_f_s[s] = F, c->stage_b_s[s] = B, c->stage_w_s[s] = W;
        c->stage_act_bytes[s] = act, c->stage_work_bytes[s] = work;
        c->stage_e_j[s] = ej, c->stage_busy_s[s] = busy, c->stage_bytes[s] = by;
        P *= c->weight_copies;
        c->stage_params[s] = P;
        if (s > 0 && P == prev_P) { /* same parameters as the previous stage */
            c->dp_s[s] = c->dp_s[s - 1];
            c->dp_nb[s] = c->dp_nb[s - 1];
            c->dp_tier_bytes[s][0] = c->dp_tier_bytes[s - 1][0];
            c->dp_tier_bytes[s][1] = c->dp_tier_bytes[s - 1][1];
            c->optimizer_s[s] = c->optimizer_s[s - 1];
            c->optimizer_j[s] = c->optimizer_j[s - 1];
            c->optimizer_bytes[s] = c->optimizer_bytes[s - 1];
            continue;
        }
        prev_P = P;
        c->dp_s[s] = 0;
        c->dp_tier_bytes[s][0] = c->dp_tier_bytes[s][1] = 0;
        c->dp_nb[s] = 1;
        if (ex->dp > 1) {
            cx_hw_comm a, b;
            cx_hw_group dg = cx_core_layout_group(&c->layout, CX_DIM_DP, c->sys.gpus_per_node);
            if (ex->distributed_optimizer) {
                a = cx_hw_coll_cost(&c->sys, CX_HW_REDUCE_SCATTER, 4.0 * P, dg);
                b = cx_hw_coll_cost(&c->sys, CX_HW_ALL_GATHER, 2.0 * P, dg);
            } else {
                a = cx_hw_coll_cost(&c->sys, CX_HW_ALL_REDUCE, 4.0 * P, dg);
                memset(&b, 0, sizeof b);
            }
            c->dp_s[s] = a.time_s + b.time_s;
            for (int k = 0; k < CULONX_MAX_TIERS; k++)
                c->dp_tier_bytes[s][k] = a.bytes_tier[k] + b.bytes_tier[k];
            if (ex->dp_overlap) {
                double bucket = cx_maxd(DDP_BUCKET_PARAMS, 1e6 * (double)ex->dp);
                double n = ceil(P / bucket);
                c->dp_nb[s] = n < 1 ? 1 : n > DDP_MAX_BUCKETS ? DDP_MAX_BUCKETS : (int)n;
            }
        }
        double upd = ex->distributed_optimizer ? P / (double)ex->dp : P;
        c->optimizer_bytes[s] = upd * c->sys.perf.optimizer_bytes_per_param;
        c->optimizer_s[s] = c->optimizer_bytes[s] / (c->sys.gpu.hbm_gbps * 1e9 * c->sys.perf.mem_eff);
        c->optimizer_j[s] =
            cx_core_pass_energy_j(c, c->optimizer_s[s], 0.0, c->optimizer_bytes[s], NULL);
    }
    return CULONX_OK;
}

void cx_core_stage_memory(const cx_cost *c, int s, double work_bytes, culonx_memory *mm)
{
    const culonx_execution *ex = &c->run->exec;
    double P = c->stage_params[s];
    double T = (double)ex->microbatch * (double)c->run->model.seq;
    double comm_buf = ex->tp > 1 ? 2.0 * 2.0 * T * (double)c->run->model.hidden : 0.0;
    mm->weights_bytes = 2.0 * P;
    mm->gradients_bytes = 4.0 * P;
    mm->optimizer_bytes = 12.0 * P / (ex->distributed_optimizer ? (double)ex->dp : 1.0);
    mm->workspace_bytes = WORKSPACE_BYTES + comm_buf + work_bytes;
    mm->capacity_bytes = c->run->system.gpu.mem_gib * CX_GIB;
}

void cx_core_result_rates(const culonx_run *run, culonx_result *res)
{
    const culonx_execution *ex = &run->exec;
    double peak = (double)ex->gpus * cx_hw_peak_flops(&run->system.gpu, ex->dtype, 1);
    double T = res->iteration_time_s;
    res->mfu = res->model_flops / (T * peak);
    res->hfu = res->hardware_flops / (T * peak);
    res->tokens_per_s = (double)ex->global_batch * (double)run->model.seq / T;
    if (ex->tokens > 0) {
        double tok = (double)ex->global_batch * (double)run->model.seq;
        res->iterations = ceil(ex->tokens / tok);
        res->time_to_train_s = res->iterations * T;
        res->gpu_hours = res->time_to_train_s * (double)ex->gpus / 3600.0;
    }
}

int cx_core_dp_buckets(const cx_cost *c, int s)
{
    return c->dp_nb[s];
}
