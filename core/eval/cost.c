/*
 * cost.c — turns model x system x execution into per-chunk costs (cost.h).
 *
 * Each op of every part of the model's stack (models/: layer kinds,
 * embedding, head) becomes hw work (hw/perf.c): forward, input gradient (B)
 * and weight gradient (W). Virtual stage vs holds the layers [vs_layer0[vs],
 * vs_layer0[vs+1]) of the stack (layers / (pp x chunks) each unless the run
 * gives vstage_layers), plus the embedding on virtual stage 0 and the head
 * (final norm, logits, loss) on the last; a chunk costs the sum over its
 * pieces of count x the part, and virtual stages with the same pieces share
 * one chunk class (cost.h). A tied output on another chunk than the
 * embedding keeps a copy of the shared weights. Recompute adds the
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
#include "core/eval/cost_ops.h"
#include "core/base/base.h"
#include "core/layout/rules.h"
#include "hw/power.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* build numbers (cx_cost.gen), unique over all threads */
static atomic_uint_fast64_t build_gen;

/* CUDA context, cuBLAS workspaces, NCCL buffers and allocator slack: 1 GiB,
 * a round figure in the range PyTorch users observe (0.5-1.5 GiB); plus two
 * gathered activation buffers (2sbh bytes each) for TP communication. */
#define WORKSPACE_BYTES (1.0 * CX_GIB)
/* DeepSpeed ZeRO-3 defaults (deepspeed/runtime/zero/config.py):
 * stage3_max_live_parameters 1e9, reduce_bucket_size 5e8 */
#define DS_MAX_LIVE_PARAMS 1e9
#define DS_REDUCE_BUCKET_PARAMS 5e8

/* FP8 training (Transformer Engine; core/README.md "FP8"): with dtype fp8
 * only the weight GEMMs of the layers run on the FP8 tensor-core peak; the
 * attention kernel, the embedding, the logits and every memory-bound op stay
 * 16-bit. Each FP8 GEMM first casts its 16-bit operand to FP8 with a
 * per-tensor scale (read 2 B, write 1 B per element: the activation input in
 * forward, the output gradient in backward; the weight-gradient GEMM reuses
 * both; weights are cast once per iteration and kept, FP8_WEIGHT_BYTES in
 * memory). The amax reductions are scalars and not priced. */
#define FP8_CAST_BYTES_PER_ELEM 3.0

double cx_core_op_kept_time(const cx_cost *c, const cx_model_op *o, const cx_op_keep *k,
                            double f_mhz)
{
    return cx_cost_op_time(o, NULL, k, cx_cost_clock_ratio(c, f_mhz));
}

static void op_split(const cx_cost *c, const cx_model_op *o, double flops, double bytes, int fp8,
                     double cast_elems, int backward, cx_op_keep *k)
{
    cx_hw_work w;
    /* the busiest expert rank's work (capacity factor; models/moe.c) */
    const double load = o->load > 1.0 ? o->load : 1.0;
    const double wb = o->weight_bytes < bytes ? o->weight_bytes : bytes; /* weights: once */
    flops *= load, bytes = (bytes - wb) * load + wb, cast_elems *= load;
    w.flops = flops;
    w.bytes = bytes;
    w.batch = o->batch;
    w.tensor = o->tensor;
    w.eff = o->fused_attn ? cx_hw_attn_eff(&c->sys.perf, flops, backward) : 0.0;
    culonx_dtype dt = c->run->exec.dtype;
    if (dt == CULONX_DTYPE_FP8 && !fp8) dt = CULONX_DTYPE_BF16;
    cx_hw_work_split(&c->sys, &c->sys.perf, &w, dt, &k->work);
    k->cast = dt == CULONX_DTYPE_FP8 && cast_elems > 0;
    if (k->cast) {
        cx_hw_work cw = {0.0, FP8_CAST_BYTES_PER_ELEM * cast_elems, 1, 0, 0.0};
        cx_hw_work_split(&c->sys, &c->sys.perf, &cw, dt, &k->cast_work);
    }
}

/* The group op o's collective runs over: tp, cp (ring attention), or an
 * expert group (ep all-to-all, etp; core/layout/layout.h). */
static cx_hw_group coll_group(const cx_cost *c, const cx_model_op *o)
{
    const int64_t gpn = c->sys.gpus_per_node;
    if (o->coll_cp) return cx_core_layout_group(&c->layout, CX_DIM_CP, gpn);
    if (o->coll_group == CX_GROUP_EP)
        return cx_core_layout_expert_group(&c->layout, CX_EXPERT_EP, gpn);
    if (o->coll_group == CX_GROUP_ETP)
        return cx_core_layout_expert_group(&c->layout, CX_EXPERT_ETP, gpn);
    return cx_core_layout_group(&c->layout, CX_DIM_TP, gpn);
}

/* Collective k (not none) of op o; an all-to-all moves the busiest rank's
 * load. */
static cx_hw_comm coll_comm(const cx_cost *c, const cx_model_op *o, cx_coll_kind k)
{
    const double load = o->load > 1.0 ? o->load : 1.0;
    const culonx_execution *ex = &c->run->exec;
    cx_hw_comm cm =
        k == CX_COLL_ALL_TO_ALL && ex->route_nodes > 0 /* node-limited routing (a2a.c) */
            ? cx_hw_all_to_all_routed(&c->sys, o->coll_bytes * load, coll_group(c, o),
                                      (double)c->run->model.experts_per_token,
                                      (double)ex->route_nodes)
            : cx_hw_coll_cost(&c->sys, cx_core_hw_coll(k), o->coll_bytes * load, coll_group(c, o));
    return cm;
}

/* Adds a collective's time and bytes (k: whether there is one). */
static void add_coll(cx_coll_kind k, const cx_hw_comm *cm, double *time_s,
                     double tier_bytes[CULONX_MAX_TIERS])
{
    if (k == CX_COLL_NONE) return;
    *time_s += cm->time_s;
    for (int i = 0; i < CULONX_MAX_TIERS; i++)
        tier_bytes[i] += cm->bytes_tier[i];
}

/* The clock-independent parts of each op of a list (forward, backward and
 * weight-gradient work, op_split) and its forward and backward collectives
 * (they read no clock): what cx_core_cost_reprice keeps of a build. */
static void ops_split(const cx_cost *c, const cx_model_ops *ops, int is_layer,
                      cx_hw_comm (*comm)[2], cx_op_keep (*keep)[3])
{
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        const int fp8 = is_layer && o->kind == CX_OP_GEMM; /* runs in FP8 when dtype is */
        /* a pass with no work takes 0: parts of 0 (op_time) */
        memset(keep[i], 0, sizeof keep[i]);
        if (o->fwd_flops > 0 || o->fwd_bytes > 0)
            op_split(c, o, o->fwd_flops, o->fwd_bytes, fp8, fp8 ? o->m * o->k : 0, 0, &keep[i][0]);
        if (o->b_flops > 0 || o->b_bytes > 0)
            op_split(c, o, o->b_flops, o->b_bytes, fp8, fp8 ? o->m * o->n : 0, 1, &keep[i][1]);
        if (o->w_flops > 0 || o->w_bytes > 0)
            op_split(c, o, o->w_flops, o->w_bytes, fp8, 0, 1, &keep[i][2]);
        if (o->coll_fwd != CX_COLL_NONE) comm[i][0] = coll_comm(c, o, o->coll_fwd);
        if (o->coll_bwd != CX_COLL_NONE) comm[i][1] = coll_comm(c, o, o->coll_bwd);
    }
}

/* Costs of one pass over an op list, accumulated into cc with weight n,
 * from the ops' kept parts and collectives (ops_split). clk: the clock of
 * the F, B, W and R passes (CX_PASS_*; power_cap.c). */
static void ops_cost(const cx_cost *c, const cx_model_ops *ops, double n, int recompute_mode,
                     int is_layer, cx_chunk_cost *cc, cx_op_times *ot, const cx_hw_comm (*comm)[2],
                     const cx_op_keep (*keep)[3], const double *clk, int sums)
{
    double ts_f[CX_MODEL_MAX_OPS], ts_b[CX_MODEL_MAX_OPS], ts_w[CX_MODEL_MAX_OPS];
    double ts_rr[CX_MODEL_MAX_OPS], tp_r[CX_MODEL_MAX_OPS];
    double tiers[CULONX_MAX_TIERS] = {0, 0};
    const int no = ops->nops;
    const double rf = cx_cost_clock_ratio(c, clk[CX_PASS_F]),
                 rb = cx_cost_clock_ratio(c, clk[CX_PASS_B]);
    const double rw = cx_cost_clock_ratio(c, clk[CX_PASS_W]),
                 rr = cx_cost_clock_ratio(c, clk[CX_PASS_R]);
    const int full = is_layer && recompute_mode == CULONX_RECOMPUTE_FULL;
    const int sel = is_layer && recompute_mode == CULONX_RECOMPUTE_SELECTIVE;
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        ts_f[i] = ts_b[i] = ts_w[i] = 0;
        ot->f_s[i] = cx_cost_op_time(o, &ts_f[i], &keep[i][0], rf);
        ot->b_s[i] = cx_cost_op_time(o, &ts_b[i], &keep[i][1], rb);
        ot->w_s[i] = cx_cost_op_time(o, &ts_w[i], &keep[i][2], rw);
        ot->tp_f_s[i] = ot->tp_b_s[i] = tp_r[i] = 0;
        add_coll(o->coll_fwd, &comm[i][0], &ot->tp_f_s[i], tiers);
        add_coll(o->coll_bwd, &comm[i][1], &ot->tp_b_s[i], tiers);
        const int rec = full || (sel && o->sel_recompute);
        ot->r_s[i] = rec ? ot->f_s[i] : 0.0;
        ts_rr[i] = rec ? ts_f[i] : 0.0;
        if (rec && clk[CX_PASS_R] != clk[CX_PASS_F]) /* the recompute pass capped apart: */
            ot->r_s[i] = cx_cost_op_time(o, &ts_rr[i], &keep[i][0], rr);
        if (rec && full) add_coll(o->coll_fwd, &comm[i][0], &tp_r[i], tiers);
    }
    cx_cost_tp_overlap(c, ops, ot, tp_r);
    cx_core_a2a_overlap(c, ops, ot, tp_r);
    double kk[4];
    cx_cost_cpu_floors(c, ot, tp_r, no, kk);
    const double kf = kk[CX_PASS_F], kb = kk[CX_PASS_B], kw = kk[CX_PASS_W], kr = kk[CX_PASS_R];
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        ot->f_s[i] *= kf, ot->b_s[i] *= kb, ot->w_s[i] *= kw;
        double ts_r = ot->r_s[i] > 0 ? ts_rr[i] * kr : 0.0;
        ot->r_s[i] *= kr;
        cc->f_s += n * ot->f_s[i], cc->b_s += n * ot->b_s[i], cc->w_s += n * ot->w_s[i];
        cc->r_s += n * ot->r_s[i];
        cc->tp_f_s += n * ot->tp_f_s[i], cc->tp_b_s += n * ot->tp_b_s[i];
        cc->tp_r_s += n * tp_r[i];
        if (o->coll_group != CX_GROUP_TP) {
            cc->ep_f_s += n * ot->tp_f_s[i], cc->ep_b_s += n * ot->tp_b_s[i];
            cc->ep_r_s += n * tp_r[i];
        }
        if (sums) {
            cc->f_flops += n * o->fwd_flops, cc->b_flops += n * o->b_flops;
            cc->w_flops += n * o->w_flops;
            cc->f_bytes += n * o->fwd_bytes, cc->b_bytes += n * o->b_bytes;
            cc->w_bytes += n * o->w_bytes;
            if (ot->r_s[i] > 0) cc->r_flops += n * o->fwd_flops, cc->r_bytes += n * o->fwd_bytes;
        }
        cc->tensor_s += n * (ts_f[i] * kf + ts_b[i] * kb + ts_w[i] * kw + ts_r);
    }
    for (int k = 0; sums && k < CULONX_MAX_TIERS; k++)
        cc->tp_tier_bytes[k] += n * tiers[k];
}

int cx_core_cost_stage_of(const cx_cost *c, int vs, int *chunk)
{
    if (vs < 0 || vs >= c->p * c->v) return -1;
    if (chunk) *chunk = c->vs_chunk[vs];
    return c->vs_stage[vs];
}

/* First layer of each virtual stage: the run's vstage_layers, or the even
 * split of layers / nvs each. */
static culonx_status split_layers(const culonx_run *run, cx_cost *c, int nvs, culonx_error *err)
{
    const culonx_model *md = &run->model;
    if (!run->vstage_layers && cx_core_exec_uneven(&run->exec)) {
        int64_t n[CX_COST_MAX_VSTAGES];
        if (cx_core_rule_split(md->layers, &run->exec, nvs, n) != CULONX_REJECT_NONE)
            return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                                "the uneven stage split does not fit %lld layers on %d virtual "
                                "stages",
                                (long long)md->layers, nvs);
        c->vs_layer0[0] = 0;
        for (int vs = 0; vs < nvs; vs++)
            c->vs_layer0[vs + 1] = c->vs_layer0[vs] + (int32_t)n[vs];
        return CULONX_OK;
    }
    if (!run->vstage_layers) {
        if (md->layers % nvs != 0)
            return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                                "schedule %s needs layers (%lld) divisible by pp x chunks = %lld",
                                c->sched->name, (long long)md->layers, (long long)nvs);
        const int64_t lpc = md->layers / nvs;
        for (int vs = 0; vs <= nvs; vs++)
            c->vs_layer0[vs] = (int32_t)(vs * lpc);
        return CULONX_OK;
    }
    if (run->n_vstage_layers != nvs)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "%d layer counts given for pp x chunks = %d virtual stages",
                            run->n_vstage_layers, nvs);
    int64_t sum = 0;
    c->vs_layer0[0] = 0;
    for (int vs = 0; vs < nvs; vs++) {
        int64_t n = run->vstage_layers[vs];
        if (n < 0 || n > md->layers - sum)
            return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                                "layers of virtual stage %d (%lld) leave the model's %lld layers",
                                vs, (long long)n, (long long)md->layers);
        sum += n;
        c->vs_layer0[vs + 1] = (int32_t)sum;
    }
    if (sum != md->layers)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "layers of the virtual stages add up to %lld, not the model's %lld",
                            (long long)sum, (long long)md->layers);
    return CULONX_OK;
}

static int same_content(const cx_chunk_cost *cc, const cx_chunk_piece *pc, int np)
{
    if (cc->npieces != np) return 0;
    for (int i = 0; i < np; i++)
        if (cc->piece[i].part != pc[i].part || cc->piece[i].count != pc[i].count) return 0;
    return 1;
}

/* A new chunk class of np pieces: costs zeroed, content set. */
static int new_class(cx_cost *c, const cx_chunk_piece *pc, int np, int embed, int head)
{
    int k = c->nclass++;
    cx_chunk_cost *cc = &c->cls[k];
    memset(cc, 0, offsetof(cx_chunk_cost, piece)); /* piece[np ..] is never read */
    cc->npieces = np;
    memcpy(cc->piece, pc, (size_t)np * sizeof *pc);
    cc->has_embed = embed;
    cc->has_head = head;
    c->class_vstages[k] = 0;
    return k;
}

/* Cuts the stack into the virtual stages' slices (the embedding on the
 * first, the segments' layers in [vs_layer0[vs], vs_layer0[vs+1]), the head
 * on the last) and gives each distinct slice a class, in order of first
 * appearance; the classes' costs are zeroed, their contents set. */
static culonx_status classify(const culonx_run *run, cx_cost *c, int nvs, culonx_error *err)
{
    const cx_model_stack *stk = &c->stack;
    c->nclass = 0;
    if (!run->vstage_layers && !cx_core_exec_uneven(&run->exec) && stk->nseg == 1) {
        /* the even split of one segment (the default; the loop below gives
         * the same, tests/test_stack.c): first, middle and last classes */
        const int32_t L = c->vs_layer0[1];
        const cx_chunk_piece e = {CX_MODEL_PART_EMBED, 1}, h = {CX_MODEL_PART_HEAD, 1};
        const cx_chunk_piece l = {(int16_t)stk->seg[0].kind, L};
        const cx_chunk_piece first[3] = {e, l, h}, last[2] = {l, h};
        int k0 = new_class(c, first, nvs == 1 ? 3 : 2, 1, nvs == 1);
        int k1 = nvs > 2 ? new_class(c, &l, 1, 0, 0) : k0;
        int k2 = nvs > 1 ? new_class(c, last, 2, 0, 1) : k0;
        c->vs_class[0] = (int16_t)k0;
        for (int vs = 1; vs < nvs - 1; vs++)
            c->vs_class[vs] = (int16_t)k1;
        if (nvs > 1) c->vs_class[nvs - 1] = (int16_t)k2;
        c->class_vstages[k0] = 1;
        if (nvs > 2) c->class_vstages[k1] = nvs - 2;
        if (nvs > 1) c->class_vstages[k2] = 1;
        return CULONX_OK;
    }
    int g0 = 0, prev_g = -1; /* segment holding the first layer (ranges move forward) */
    int64_t base0 = 0, prev_n = -1;
    for (int vs = 0; vs < nvs; vs++) {
        const int64_t a = c->vs_layer0[vs], b = c->vs_layer0[vs + 1];
        while (g0 + 1 < stk->nseg && a >= base0 + stk->seg[g0].count)
            base0 += stk->seg[g0].count, g0++;
        /* a middle virtual stage with as many layers as the previous one,
         * both inside one segment: the same content (the common case) */
        const int inside = stk->nseg > 0 && b <= base0 + stk->seg[g0].count;
        if (vs >= 2 && vs < nvs - 1 && inside && prev_g == g0 && prev_n == b - a) {
            c->vs_class[vs] = c->vs_class[vs - 1];
            c->class_vstages[c->vs_class[vs]]++;
            continue;
        }
        prev_g = inside ? g0 : -1, prev_n = b - a;
        cx_chunk_piece pc[CX_COST_MAX_PIECES];
        int np = 0;
        if (vs == 0) pc[np].part = CX_MODEL_PART_EMBED, pc[np++].count = 1;
        int64_t base = base0;
        for (int g = g0; g < stk->nseg && base < b; base += stk->seg[g].count, g++) {
            int64_t lo = a > base ? a : base, end = base + stk->seg[g].count;
            int64_t hi = b < end ? b : end;
            if (hi > lo)
                pc[np].part = (int16_t)stk->seg[g].kind, pc[np++].count = (int32_t)(hi - lo);
        }
        if (vs == nvs - 1) pc[np].part = CX_MODEL_PART_HEAD, pc[np++].count = 1;
        int k = -1;
        if (vs > 0 && same_content(&c->cls[c->vs_class[vs - 1]], pc, np)) k = c->vs_class[vs - 1];
        for (int j = 0; k < 0 && j < c->nclass; j++)
            if (same_content(&c->cls[j], pc, np)) k = j;
        if (k < 0) {
            if (c->nclass == CX_COST_MAX_CLASSES)
                return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                                    "more than %d distinct virtual stage contents",
                                    CX_COST_MAX_CLASSES);
            k = new_class(c, pc, np, vs == 0, vs == nvs - 1);
        }
        c->vs_class[vs] = (int16_t)k;
        c->class_vstages[k]++;
    }
    return CULONX_OK;
}

/* Expert gradients (Pe parameters per GPU) are reduced over the expert
 * data-parallel group, tp cp dp / (ep etp) ranks (core/layout/layout.h),
 * the same collectives as the dense ones; added to a (reduce-scatter or
 * all-reduce) and b (all-gather) so the DP stream runs them in turn. */

static void price(const culonx_run *run, cx_cost *c, int times, int same_shape, cx_cost_clocks *tab,
                  const double *limit_w);
static culonx_status build(const culonx_run *run, double clock_mhz, cx_cost *c, int mem_only,
                           int same_sys, culonx_error *err);

culonx_status cx_core_cost_build(const culonx_run *run, double clock_mhz, cx_cost *c,
                                 culonx_error *err)
{
    return build(run, clock_mhz, c, 0, 0, err);
}

culonx_status cx_core_cost_build_mem(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     culonx_error *err)
{
    return build(run, clock_mhz, c, 1, 0, err);
}

culonx_status cx_core_cost_build_same_sys(const culonx_run *run, double clock_mhz, cx_cost *c,
                                          int mem_only, culonx_error *err)
{
    return build(run, clock_mhz, c, mem_only, 1, err);
}

/* same_sys: c holds a whole build for run->system (cost_key.c) */
static culonx_status build(const culonx_run *run, double clock_mhz, cx_cost *c, int mem_only,
                           int same_sys, culonx_error *err)
{
    const culonx_model *md = &run->model;
    const culonx_execution *ex = &run->exec;
    c->gen = atomic_fetch_add(&build_gen, 1) + 1;
    c->curve = c->gen;
    /* a new shape: nothing kept */
    c->nkeep_dp = c->keep_dp_next = c->keep_dp_last = c->nkeep_mem = c->keep_mem_next =
        c->keep_mem_last = 0;
    c->keep_run = run, c->keep_curve = c->curve, c->keep_mixed = 0;
    c->run = run;
    if (!same_sys) {
        c->sys = run->system;
        cx_hw_perf_defaults(&c->sys.perf);
        cx_hw_power_default(&c->sys.gpu);
    }
    c->clock_mhz = clock_mhz > 0 ? clock_mhz : run->system.gpu.max_mhz;
    cx_core_layout_init(&c->layout, ex);
    cx_core_shard_init(c);
    /* the last build's virtual-stage maps and equal stages, kept when they
     * are a function of what is the same now (same_sys: c holds that build) */
    const cx_sched_desc *old_sched = same_sys ? c->sched : NULL;
    const int old_p = c->p, old_v = c->v;
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
    c->m = (int)(ex->global_batch / (ex->microbatch * ex->dp));
    c->weight_copies = c->sched->weight_copies > 0 ? c->sched->weight_copies : 1;

    const double e = 2.0; /* 16-bit activations (fp8 runs keep bf16 activations) */
    cx_model_dims dims;
    dims.b = (double)ex->microbatch, dims.t = (double)ex->tp, dims.e = e;
    dims.sp = ex->tp <= 1 ? 0 : ex->sequence_parallel;
    dims.flash = ex->attention == CULONX_ATTENTION_FLASH;
    dims.cp = ex->cp > 1 ? (double)ex->cp : 1.0;
    dims.ep = (double)c->layout.expert_ep, dims.etp = (double)c->layout.expert_etp;
    dims.capacity = ex->capacity_factor > 1.0 ? ex->capacity_factor : 1.0;
    if (cx_model_build_dims(md, &dims, &c->stack) != 0)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0, "model arch %d is not available",
                            (int)md->arch);
    culonx_status st = split_layers(run, c, (int)nvs, err);
    if (st != CULONX_OK) return st;
    const int same_maps = old_sched == c->sched && old_p == c->p && old_v == c->v;
    int16_t old_class[CX_COST_MAX_VSTAGES];
    if (same_maps) memcpy(old_class, c->vs_class, (size_t)nvs * sizeof old_class[0]);
    st = classify(run, c, (int)nvs, err);
    if (st != CULONX_OK) return st;
    for (int s = 0; !same_maps && s < c->p; s++) /* a function of (schedule, p, v) */
        for (int k = 0; k < c->v; k++) {
            int vs = c->sched->vstage(c->p, c->v, s, k);
            c->vs_stage[vs] = (int16_t)s;
            c->vs_chunk[vs] = (int16_t)k;
            c->vs_stage_vs[s * c->v + k] = (int16_t)vs;
        }
    /* of the maps and the classes of the virtual stages */
    if (!same_maps || memcmp(old_class, c->vs_class, (size_t)nvs * sizeof old_class[0]))
        cx_core_cost_stage_shape(c);
    /* side traffic (ZeRO-2/3, offload) makes the replay decision read
     * times (closed.c replays): priced whole */
    const int times = !mem_only || c->zero >= 2 || ex->offload != 0;
    c->pe.f_in = NAN; /* clock terms where priced (else cost.h's fallback: the same bits) */
    if (times) cx_hw_pass_energy_prepare(&c->sys.gpu, ex->dtype, c->clock_mhz, &c->pe);
    c->comm_kept = 0;
    c->closed.gen = 0;         /* no build is numbered 0 */
    c->closed.fixed_curve = 0; /* nor any curve: the fixed terms made at first use */
    price(run, c, times, 0, NULL, NULL);
    c->comm_kept = c->priced = times;
    return CULONX_OK;
}

/* Everything of cx_core_cost_build that the clock changes (or the DP
 * settings): the parts at c->clock_mhz, the classes as sums of parts, the
 * PP p2p, the stage sums and the DP part; the shape (stack, layout, classes'
 * contents, virtual-stage maps, equal stages) is kept. same_shape: c was
 * priced for the same execution but the clock and the DP settings before,
 * so its per-stage bytes and parameters stand. tab: the parts' times at
 * the clock where it holds them (cost_clocks.c, a reprice's fast path). */
static void price(const culonx_run *run, cx_cost *c, int times, int same_shape, cx_cost_clocks *tab,
                  const double *limit_w)
{
    const culonx_model *md = &run->model;
    const culonx_execution *ex = &run->exec;
    const double e = 2.0; /* 16-bit activations (fp8 runs keep bf16 activations) */
    /* one instance of each part, then each class as a sum of parts */
    const cx_model_stack *stk = &c->stack;
    cx_chunk_cost part[CX_MODEL_MAX_PARTS];
    double added[CX_MODEL_MAX_PARTS]; /* compute time the power cap added */
    /* a reprice of a priced cost (reprice_start: c->priced): the classes'
     * FLOPs, bytes, TP bytes, parameters and activations and the p2p read
     * no clock and stand; only times and energies are summed again (the
     * same operations on them, so the same bits) */
    const int fast = same_shape && times && c->priced;
    if (limit_w) /* the board limit at the clock, known (reprice_start) */
        cx_core_power_cap_init_limit(c, *limit_w);
    else if (!times) /* memory only: no pass is timed, no limit read until a pricing that times */
        cx_core_power_cap_init_limit(c, 0.0);
    else
        cx_core_power_cap_init(c);
    /* the parts' FLOPs and bytes: for the classes, or the cap's energies */
    const int part_sums = !fast || c->power_limit_w > 0;
    const double *rows =
        fast && tab && !(c->power_limit_w > 0) ? cx_core_cost_clocks_rows(tab, c) : NULL;
    /* and the classes' times and energies at this clock, made with the
     * rows (the loops below, four clocks at a time: the same bits) */
    if (rows && cx_core_cost_clocks_apply(tab, c)) { /* the classes and runs too */
        cx_core_cost_dp_runs(run, c);
        return;
    }
    for (int q = 0; q < stk->nparts; q++) {
        int i = (q + CX_MODEL_PART_LAYER) % stk->nparts; /* layer kinds, embedding, head */
        added[i] = 0.0;
        if (!times) continue; /* memory only: no op is priced, part[i] unread */
        cx_zero(&part[i], offsetof(cx_chunk_cost, has_embed)); /* no content read */
        const cx_model_ops *ops = &stk->part[i].ops;
        const int is_layer = stk->part[i].recompute;
        if (rows) { /* ops_cost's sums and no side traffic (cx_core_shard_part) */
            const double *x = rows + (size_t)i * CX_COST_CLOCK_FIELDS;
            cx_chunk_cost *pc = &part[i];
            pc->f_s = x[0], pc->b_s = x[1], pc->w_s = x[2], pc->r_s = x[3];
            pc->tp_f_s = x[4], pc->tp_b_s = x[5], pc->tp_r_s = x[6];
            pc->ep_f_s = x[7], pc->ep_b_s = x[8], pc->ep_r_s = x[9], pc->tensor_s = x[10];
            c->part_fill_f_s[i] = c->part_fill_b_s[i] = 0.0;
            c->part_sh_f_s[i] = c->part_sh_b_s[i] = 0.0;
            continue;
        }
        if (!c->comm_kept) {
            ops_split(c, ops, is_layer, c->part_comm[i], c->part_keep[i]);
            c->cap_memo[i].valid = 0; /* new parts */
        }
        added[i] = cx_core_power_cap_part(c, i, ex->recompute, c->part_clk[i]);
        ops_cost(c, ops, 1.0, ex->recompute, is_layer, &part[i], &c->part_t[i],
                 (const cx_hw_comm(*)[2])c->part_comm[i], (const cx_op_keep(*)[3])c->part_keep[i],
                 c->part_clk[i], part_sums);
        cx_core_shard_part(c, i, &part[i], &c->part_t[i]);
    }
    const double t = (double)ex->tp;
    for (int k = 0; fast && k < c->nclass; k++) {
        cx_chunk_cost *cc = &c->cls[k];
        /* clang-format off */
#define ZERO(f) cc->f = 0
        ZERO(f_s); ZERO(b_s); ZERO(w_s); ZERO(r_s);
        ZERO(tp_f_s); ZERO(tp_b_s); ZERO(tp_r_s);
        ZERO(ep_f_s); ZERO(ep_b_s); ZERO(ep_r_s);
        ZERO(tensor_s); ZERO(sh_f_s); ZERO(sh_b_s); ZERO(sh_total_s);
#undef ZERO
        for (int i = 0; i < cc->npieces; i++) {
            const cx_chunk_cost *pc = &part[cc->piece[i].part];
            const double L = (double)cc->piece[i].count;
#define ADD(f) cc->f += L * pc->f
            ADD(f_s); ADD(b_s); ADD(w_s); ADD(r_s);
            ADD(tp_f_s); ADD(tp_b_s); ADD(tp_r_s);
            ADD(ep_f_s); ADD(ep_b_s); ADD(ep_r_s);
            ADD(tensor_s); ADD(sh_f_s); ADD(sh_b_s); ADD(sh_total_s);
#undef ADD
            /* clang-format on */
        }
        if (cc->npieces > 0) {
            cc->sh_fill_f_s = c->part_fill_f_s[cc->piece[0].part];
            cc->sh_fill_b_s = c->part_fill_b_s[cc->piece[cc->npieces - 1].part];
            cc->sh_f_s += cc->sh_fill_f_s, cc->tp_f_s += cc->sh_fill_f_s;
            cc->sh_b_s += cc->sh_fill_b_s, cc->tp_b_s += cc->sh_fill_b_s;
        }
        cc->e_f_j = cx_core_pass_energy_j(c, cc->f_s, cc->f_flops, cc->f_bytes, NULL);
        cc->e_b_j = cx_core_pass_energy_j(c, cc->b_s, cc->b_flops, cc->b_bytes, NULL);
        cc->e_w_j = cx_core_pass_energy_j(c, cc->w_s, cc->w_flops, cc->w_bytes, NULL);
        cc->e_r_j = cx_core_pass_energy_j(c, cc->r_s, cc->r_flops, cc->r_bytes, NULL);
        if (c->capped_parts > 0) cx_core_power_cap_class(c, k, part, added);
    }
    for (int k = 0; !fast && k < c->nclass; k++) {
        cx_chunk_cost *cc = &c->cls[k];
        for (int i = 0; i < cc->npieces; i++) {
            const int pi = cc->piece[i].part;
            const cx_model_part *mp = &stk->part[pi];
            const cx_chunk_cost *pc = &part[pi];
            const double L = (double)cc->piece[i].count;
            /* memory only: the class's zeroed times, FLOPs and bytes stay 0 */
            if (times) {
                /* clang-format off */
#define ADD(f) cc->f += L * pc->f
                ADD(f_s); ADD(b_s); ADD(w_s); ADD(r_s);
                ADD(tp_f_s); ADD(tp_b_s); ADD(tp_r_s);
                ADD(ep_f_s); ADD(ep_b_s); ADD(ep_r_s);
                ADD(f_flops); ADD(b_flops); ADD(w_flops); ADD(r_flops);
                ADD(f_bytes); ADD(b_bytes); ADD(w_bytes); ADD(r_bytes);
                ADD(tensor_s); ADD(sh_f_s); ADD(sh_b_s); ADD(sh_total_s);
#undef ADD
                /* clang-format on */
                for (int q = 0; q < CULONX_MAX_TIERS; q++)
                    cc->tp_tier_bytes[q] += L * pc->tp_tier_bytes[q];
            }
            cc->act_bytes += L * mp->act_bytes[ex->recompute];
            /* routed experts are split over ep x etp, the rest over tp */
            const double xe =
                mp->expert_params / (double)(c->layout.expert_ep * c->layout.expert_etp);
            const double piece_params = (mp->params - mp->expert_params) / t + xe;
            cc->params += L * piece_params;
            cc->expert_params += L * xe;
            cc->piece_params_max = cx_maxd(cc->piece_params_max, piece_params);
            if (pi >= CX_MODEL_PART_LAYER) {
                cc->layer_act_max = cx_maxd(cc->layer_act_max, mp->act_bytes[ex->recompute]);
                cc->layers += cc->piece[i].count;
                /* full recompute holds one layer's full activations */
                if (ex->recompute == CULONX_RECOMPUTE_FULL)
                    cc->work_bytes = cx_maxd(cc->work_bytes, mp->act_bytes[CULONX_RECOMPUTE_NONE]);
            }
            /* a tied output on another chunk than the embedding keeps a copy */
            if (mp->tied_params > 0 && !cc->has_embed) cc->params += mp->tied_params / t;
        }
        /* the prefetch fill of each pass: the first piece forward, the last
         * backward (core/eval/shard.c) */
        if (cc->npieces > 0) {
            cc->sh_fill_f_s = c->part_fill_f_s[cc->piece[0].part];
            cc->sh_fill_b_s = c->part_fill_b_s[cc->piece[cc->npieces - 1].part];
            cc->sh_f_s += cc->sh_fill_f_s, cc->tp_f_s += cc->sh_fill_f_s;
            cc->sh_b_s += cc->sh_fill_b_s, cc->tp_b_s += cc->sh_fill_b_s;
        }
        if (!times) continue;
        cc->e_f_j = cx_core_pass_energy_j(c, cc->f_s, cc->f_flops, cc->f_bytes, NULL);
        cc->e_b_j = cx_core_pass_energy_j(c, cc->b_s, cc->b_flops, cc->b_bytes, NULL);
        cc->e_w_j = cx_core_pass_energy_j(c, cc->w_s, cc->w_flops, cc->w_bytes, NULL);
        cc->e_r_j = cx_core_pass_energy_j(c, cc->r_s, cc->r_flops, cc->r_bytes, NULL);
        if (c->capped_parts > 0) cx_core_power_cap_class(c, k, part, added);
    }

    if (fast) { /* the p2p stands too; the per-stage DP values wait (dp_stale) */
        cx_core_cost_stage_sums(c, 1);
        cx_core_cost_dp_runs(run, c);
        return;
    }
    /* PP p2p: the boundary activation, 2sbh bytes (/t with SP scatter-gather) */
    c->p2p_bytes = e * (double)ex->microbatch * (double)md->seq /
                   (ex->cp > 1 ? (double)ex->cp : 1.0) * (double)md->hidden /
                   (ex->sequence_parallel && ex->tp > 1 ? t : 1.0);
    c->p2p_s = 0;
    c->p2p_tier = 0;
    if (c->p > 1 && times) {
        cx_hw_comm cm =
            cx_hw_coll_cost(&c->sys, CX_HW_P2P, c->p2p_bytes,
                            cx_core_layout_p2p(&c->layout, CX_DIM_PP, c->sys.gpus_per_node));
        c->p2p_s = cm.time_s;
        c->p2p_tier = cm.bytes_tier[0] > 0 ? 0 : 1;
    }

    /* per physical stage: parameters, DP sync, optimizer */
    cx_core_cost_stage_sums(c, same_shape);
    if (times) cx_core_cost_stages(run, c);
}

/* A reprice's start: new number, run and clock; class costs zeroed
 * (zero; price's fast path zeroes only their times). The pass energy's
 * terms, and the board limit at the clock (1 and *limit_w), from tab
 * where it holds them for c's curve (the same values). */
static int reprice_start(const culonx_run *run, double clock_mhz, cx_cost *c, int zero,
                         const cx_cost_clocks *tab, double *limit_w)
{
    c->gen = atomic_fetch_add(&build_gen, 1) + 1;
    c->run = run;
    c->clock_mhz = clock_mhz > 0 ? clock_mhz : run->system.gpu.max_mhz;
    const int known =
        cx_core_cost_clocks_clock_terms(tab, c, c->clock_mhz, run->exec.dtype, limit_w, &c->pe);
    if (!known) cx_hw_pass_energy_prepare(&c->sys.gpu, run->exec.dtype, c->clock_mhz, &c->pe);
    for (int k = 0; zero && k < c->nclass; k++)
        cx_zero(&c->cls[k], offsetof(cx_chunk_cost, has_embed));
    return known;
}

void cx_core_cost_reprice(const culonx_run *run, double clock_mhz, cx_cost *c)
{
    cx_core_cost_reprice_clocks(run, clock_mhz, c, NULL);
}

void cx_core_cost_reprice_clocks(const culonx_run *run, double clock_mhz, cx_cost *c,
                                 cx_cost_clocks *tab)
{
    double limit_w;
    /* price's fast path where priced */
    const int known = reprice_start(run, clock_mhz, c, !c->priced, tab, &limit_w);
    cx_core_shard_groups(c);
    /* the ops' parts are kept unless a memory-only build left none */
    price(run, c, 1, 1, tab, known ? &limit_w : NULL);
    c->comm_kept = c->priced = 1;
}

void cx_core_cost_reexec(const culonx_run *run, double clock_mhz, cx_cost *c, int mem_only)
{
    double limit_w;
    reprice_start(run, clock_mhz, c, 1, NULL, &limit_w);
    c->curve = c->gen; /* other op prices: another curve */
    /* other bytes (recompute, ZeRO, offload): nothing kept */
    c->nkeep_dp = c->keep_dp_next = c->keep_dp_last = c->nkeep_mem = c->keep_mem_next =
        c->keep_mem_last = 0;
    c->keep_run = run, c->keep_curve = c->curve, c->keep_mixed = 0;
    cx_core_shard_init(c);
    const int times = !mem_only || c->zero >= 2 || run->exec.offload != 0; /* as build */
    price(run, c, times, 0, NULL, NULL); /* the ops' parts kept, or split now (times) */
    c->priced = times;
    c->comm_kept = c->comm_kept || times;
}

void cx_core_stage_memory(const cx_cost *c, int s, double work_bytes, culonx_memory *mm)
{
    const culonx_execution *ex = &c->run->exec;
    double P = c->stage_params[s];
    double T = (double)ex->microbatch * (double)c->run->model.seq /
               (ex->cp > 1 ? (double)ex->cp : 1.0); /* tokens per rank */
    double comm_buf = ex->tp > 1 ? 2.0 * 2.0 * T * (double)c->run->model.hidden : 0.0;
    /* FP8: Transformer Engine keeps an FP8 copy of each weight and of its
     * transpose beside the 16-bit weight (1 + 1 B per parameter) */
    /* ZeRO (core/README.md, "Sharding"): stage >= 1 shards the optimizer
     * state, >= 2 the gradients, 3 the weights over the shard group (S) */
    const double S = c->shard_n, wb = ex->dtype == CULONX_DTYPE_FP8 ? 4.0 : 2.0;
    double piece = 0; /* the stage's largest piece (layer, embedding, head) */
    for (int k = 0; k < c->v; k++)
        piece =
            cx_maxd(piece, cx_core_cost_chunk(c, c->vs_stage_vs[s * c->v + k])->piece_params_max);
    memset(mm, 0, sizeof *mm);
    /* experts (MoE; ZeRO-2/3 with experts is refused, core/layout/rules.c):
     * weights and gradients whole, optimizer state over the expert
     * data-parallel group with ZeRO 1 */
    const double Pe = c->stage_expert_params[s], Pd = P - Pe;
    /* (no expert parameters: 12 x 0 / eo is 0 for any eo >= 1) */
    const double eo = c->zero >= 1 && Pe != 0 ? (double)cx_core_layout_expert_dp(&c->layout) : 1.0;
    cx_param_bytes(Pd, Pe, c->zero, S, eo, wb, &mm->weights_bytes, &mm->gradients_bytes,
                   &mm->optimizer_bytes);
    mm->expert_bytes = (wb + 4.0) * Pe + 12.0 * Pe / eo;
    /* unsharded working copies in flight: zero 3 the gathered weights of
     * the current and the prefetched piece and the current piece's 16-bit
     * gradient before its reduce-scatter; zero 2 that gradient */
    if (c->zero >= 3 && ex->zero_impl == CULONX_ZERO_IMPL_DEEPSPEED)
        /* DeepSpeed gathers per parameter, at most stage3_max_live_parameters
         * (1e9) live, and reduces in reduce_bucket_size (5e8) buckets: its
         * defaults (core/eval/shard.c) */
        mm->gathered_bytes = wb * cx_mind(2.0 * piece, DS_MAX_LIVE_PARAMS) +
                             2.0 * cx_mind(piece, DS_REDUCE_BUCKET_PARAMS);
    else if (c->zero >= 3)
        mm->gathered_bytes = 2.0 * wb * piece + 2.0 * piece;
    else if (c->zero == 2)
        mm->gathered_bytes = 2.0 * piece;
    /* offload: host memory keeps the weights (the GPU streams the current
     * and the prefetched piece) and the optimizer state */
    if (ex->offload & CULONX_OFFLOAD_WEIGHTS) {
        mm->host_bytes += mm->weights_bytes;
        mm->weights_bytes = 0;
        if (c->zero < 3) mm->gathered_bytes += 2.0 * wb * piece;
    }
    if (ex->offload & CULONX_OFFLOAD_OPTIMIZER) {
        mm->host_bytes += mm->optimizer_bytes;
        mm->optimizer_bytes = 0;
    }
    mm->workspace_bytes = WORKSPACE_BYTES + comm_buf + work_bytes + mm->gathered_bytes;
    mm->capacity_bytes = c->run->system.gpu.mem_gib * CX_GIB;
}

void cx_core_result_rates(const culonx_run *run, culonx_result *res)
{
    const culonx_execution *ex = &run->exec;
    /* MFU and HFU against the dense 16-bit peak, also for FP8 runs, as the
     * field reports them (Megatron, Llama 3, MosaicML) */
    double peak = (double)ex->gpus * cx_hw_peak_flops(&run->system.gpu, CULONX_DTYPE_BF16, 1);
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

/* Largest iteration time taken as an estimate: 1e9 s (32 years) per
 * iteration is far beyond any real run; beyond it (or NaN/inf anywhere) the
 * inputs are degenerate (a GPU of 1e-300 TFLOP/s) and printing the numbers
 * would be nonsense. */
#define MAX_ITERATION_S 1e9

culonx_status cx_core_result_check(const culonx_run *run, const culonx_result *res,
                                   culonx_error *err)
{
    const double v[] = {res->iteration_time_s,
                        res->memory.peak_bytes,
                        res->model_flops,
                        res->hardware_flops,
                        res->mfu,
                        res->hfu,
                        res->tokens_per_s,
                        res->energy.total_j,
                        res->avg_power_w,
                        res->time_to_train_s,
                        res->gpu_hours,
                        res->energy_to_train_j};
    int ok = res->iteration_time_s > 0 && res->iteration_time_s <= MAX_ITERATION_S;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ok = ok && isfinite(v[i]);
    if (ok) return CULONX_OK;
    return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                        "the estimate is not usable (iteration time %g s; a derived quantity "
                        "overflows or is not finite): check the GPU's throughput, bandwidth and "
                        "network fields",
                        res->iteration_time_s);
}
