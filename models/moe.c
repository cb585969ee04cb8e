/*
 * moe.c — the mixture-of-experts family (arch "moe": Mixtral, DeepSeek-V3,
 * Qwen3-MoE, gpt-oss and the models built like them): a Llama-style
 * decoder (RMSNorm, no biases, rotary positions, untied output) whose MLP
 * is, in MoE layers, a router, E routed SwiGLU experts of inner size fe of
 * which each token uses k, and S always-active shared experts. Two layer
 * kinds: "dense" (attention + SwiGLU MLP of inner size ffn) and "moe"
 * (attention + router + experts). The stack: the first-dense-layers F are
 * dense, then layer j = 0, 1, ... of the rest is MoE iff j % freq == 0
 * (Megatron-Core's moe_layer_freq; freq 1: every layer), runs of one kind
 * merged into segments. models/README.md, "Mixture of experts".
 *
 * Attention: grouped-query attention as models/llama.c, or, with kv-rank
 * > 0, low-rank attention in the manner of DeepSeek's multi-head latent
 * attention (MLA, DeepSeek-V2/V3 papers): the query comes from a rank-qr
 * compression (q-rank; 0 = a full h x a(d+dr) projection), keys and values
 * from a shared rank-kr latent plus a decoupled rotary key of width dr
 * (rope-dim), every head of width d (head-dim) for the no-rotary query/key
 * part and for the value. Training runs it as Megatron-Core does: the down
 * projections (h -> qr, h -> kr + dr) are replicated on the TP ranks, the up
 * projections split by heads, and K and V are materialised per head (a
 * heads, no sharing), so the attention kernel is FlashAttention with a
 * key/value heads, query/key width d + dr and value width d. The
 * approximation: the kernel is priced at one head width (d + dr + d) / 2,
 * which makes its FLOPs 2 b a s keys (d + dr + d) exact and its bytes
 * approximate; the rotary key shared by all heads is counted per head.
 *
 * Parameters per layer (h hidden, a heads, k kv-heads, d head width):
 *   attention, GQA:  h a d + 2 h k d + a d h
 *   attention, MLA:  [h qr + qr + qr a (d+dr)] or h a (d+dr)   (query)
 *                    + h (kr + dr) + kr + kr a 2d + a d h      (kv, output)
 *   norms 2h; dense MLP 3 h f; MoE MLP: router h E, shared 3 h S fe,
 *   routed E 3 h fe (expert_params), of which k 3 h fe are active.
 *   Embedding V h, head h + V h. Active = total less (E - k) 3 h fe per
 *   MoE layer; the embedding row a token reads counts as active (the
 *   convention of Mixtral's and DeepSeek's published figures).
 *
 * Expert parallelism (per rank, per microbatch; T = b s / cp tokens of a
 * TP group, t = tp, ep, etp, capacity factor c): MoE with t > 1 needs
 * sequence parallelism (Megatron-Core's rule), so the router sees Tl = T/t
 * tokens on each rank; it dispatches Tl k token copies by an all-to-all
 * over the ep group (e Tl k h bytes), the etp ranks of an expert all-gather
 * their tokens (Tx = Tl k etp on each), the local E/ep experts run as one
 * grouped GEMM of E/ep GEMMs of Tx ep / E tokens each (gate+up [h, 2fe/etp],
 * down [fe/etp, h]), the etp ranks reduce-scatter, and a combine
 * all-to-all returns the copies; backward runs the same collectives on the
 * gradients. Expert FLOPs per rank 6 Tl k h fe: the balanced share. The
 * busiest expert rank holds c times the mean: the expert GEMMs, SwiGLU and
 * the all-to-alls are timed at c times their work (cx_model_op.load) and keep
 * c times the activations, while the FLOPs stay the balanced, useful ones
 * (the weights are read once: weight_bytes). The grouped GEMM runs on the
 * GEMM size curve of the whole kernel's FLOPs (hw/perf.c, batch 1) and, at
 * small per-expert token counts, streams the weights of all E/ep local
 * experts (roofline memory side): both measured on an H100
 * (bench/data/h100-expert-gemm.csv; models/build.h cx_model_grouped_gemm).
 */
#include "models/build.h"

/* query width per head, key/value structure of the attention */
static double attn_params(const culonx_model *m)
{
    const double h = (double)m->hidden, a = (double)m->heads, d = cx_model_head_dim(m);
    if (m->kv_rank <= 0) {
        const double k = (double)m->kv_heads;
        return h * a * d + 2.0 * h * k * d + a * d * h;
    }
    const double qr = (double)m->q_rank, kr = (double)m->kv_rank, dr = (double)m->rope_dim;
    const double q = qr > 0 ? h * qr + qr + qr * a * (d + dr) : h * a * (d + dr);
    return q + h * (kr + dr) + kr + kr * a * 2.0 * d + a * d * h;
}

static double expert_params(const culonx_model *m)
{
    return 3.0 * (double)m->hidden * (double)m->expert_ffn;
}

static double moe_params(const culonx_model *m)
{
    const double h = (double)m->hidden, E = (double)m->experts;
    return attn_params(m) + 2.0 * h + h * E + (double)m->shared_experts * expert_params(m) +
           E * expert_params(m);
}

static double dense_params(const culonx_model *m)
{
    return attn_params(m) + 2.0 * (double)m->hidden + 3.0 * (double)m->hidden * (double)m->ffn;
}

/* A collective holder with no work of its own (op tables attach one
 * collective to each op). */
static cx_model_op *marker(cx_model_builder *bd, const char *name, cx_coll_kind fwd,
                           cx_coll_kind bwd, double bytes, cx_coll_group g)
{
    cx_model_op *o = cx_model_elem(bd, name, 0.0, 0.0, bd->e, 0.0);
    cx_model_coll(o, fwd, bwd, bytes);
    o->coll_group = (int)g;
    return o;
}

/* Attention block: norm, projections, kernel, output projection, residual. */
static void attention(const culonx_model *m, const cx_model_dims *dm, cx_model_builder *bd)
{
    const double b = dm->b, t = dm->t, e = bd->e, s = (double)m->seq, h = (double)m->hidden;
    const int sp = dm->sp;
    const double d = cx_model_head_dim(m), T = b * s / dm->cp, Tn = sp ? T / t : T;
    const double sh = sp ? t : 1.0, ah = (double)m->heads / t, full = e * T * h;
    const cx_coll_kind f_fwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    const cx_coll_kind f_bwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_fwd = sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE;
    const cx_coll_kind g_bwd = sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE;
    double kh = (double)m->kv_heads / t, width = d;
    cx_model_op *o = cx_model_elem(bd, "rmsnorm1", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1) cx_model_coll(o, f_fwd, f_bwd, full);
    if (m->kv_rank <= 0) {
        cx_model_gemm(bd, "qkv", T, (ah + 2.0 * kh) * d, h, e * T * h / sh);
    } else { /* MLA: replicated down projections, head-split up projections */
        const double qr = (double)m->q_rank, kr = (double)m->kv_rank, dr = (double)m->rope_dim;
        if (qr > 0) {
            cx_model_gemm(bd, "q_down", T, qr, h, e * T * h / sh);
            cx_model_elem(bd, "q_norm", T * qr, T * qr, e, e * T * qr);
            cx_model_gemm(bd, "q_up", T, ah * (d + dr), qr, e * T * qr);
        } else {
            cx_model_gemm(bd, "q_proj", T, ah * (d + dr), h, e * T * h / sh);
        }
        /* its input is the normalised x, kept by the query projection */
        cx_model_gemm(bd, "kv_down", T, kr + dr, h, 0.0);
        cx_model_elem(bd, "kv_norm", T * kr, T * kr, e, e * T * kr);
        cx_model_gemm(bd, "kv_up", T, ah * 2.0 * d, kr, e * T * kr);
        kh = ah, width = (2.0 * d + dr) / 2.0;
    }
    cx_model_attention_core(bd, dm, cx_model_attn_keys(m), b, ah, kh, s, width,
                            e * T * width * (ah + 2.0 * kh), 0);
    o = cx_model_gemm(bd, "attn_out", T, h, ah * d, e * T * ah * d);
    if (t > 1) cx_model_coll(o, g_fwd, g_bwd, full);
    cx_model_elem(bd, "residual_add1", 2.0 * Tn * h, Tn * h, e, 0.0);
}

/* SwiGLU MLP of inner size f split over the TP group (Megatron f/g). */
static void mlp(const cx_model_dims *dm, cx_model_builder *bd, double T, double h, double f,
                const char *n_up, const char *n_act, const char *n_down)
{
    const double t = dm->t, e = bd->e;
    const int sp = dm->sp;
    const double sh = sp ? t : 1.0, full = e * T * h;
    cx_model_gemm(bd, n_up, T, 2.0 * f / t, h, e * T * h / sh);
    cx_model_elem(bd, n_act, 2.0 * T * f / t, T * f / t, e, e * 2.0 * T * f / t);
    cx_model_op *o = cx_model_gemm(bd, n_down, T, h, f / t, e * T * f / t);
    if (t > 1)
        cx_model_coll(o, sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE,
                      sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE, full);
}

static void dense(const culonx_model *m, const cx_model_dims *dm, cx_model_builder *bd)
{
    const double t = dm->t, e = bd->e, h = (double)m->hidden;
    const int sp = dm->sp;
    const double T = dm->b * (double)m->seq / dm->cp, Tn = sp ? T / t : T;
    attention(m, dm, bd);
    cx_model_op *o = cx_model_elem(bd, "rmsnorm2", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1)
        cx_model_coll(o, sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE,
                      sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, e * T * h);
    mlp(dm, bd, T, h, (double)m->ffn, "gate_up", "swiglu", "fc2");
    cx_model_elem(bd, "residual_add2", 2.0 * Tn * h, Tn * h, e, 0.0);
}

/* Marks the op as run by the busiest expert rank (capacity factor c): timed
 * at c times its work, and it keeps c times the activations (memory is the
 * most loaded GPU's). */
static cx_model_op *busiest(cx_model_op *o, double c)
{
    o->load = c;
    o->saved_bytes *= c;
    return o;
}

static void moe(const culonx_model *m, const cx_model_dims *dm, cx_model_builder *bd)
{
    const double t = dm->t, e = bd->e, h = (double)m->hidden;
    const int sp = dm->sp;
    const double T = dm->b * (double)m->seq / dm->cp, Tn = sp ? T / t : T;
    const double E = (double)m->experts, k = (double)m->experts_per_token;
    const double fe = (double)m->expert_ffn, S = (double)m->shared_experts;
    const double ep = dm->ep, etp = dm->etp, c = dm->capacity;
    const double Tl = T / t;              /* tokens this rank routes */
    const double Tx = Tl * k * etp;       /* token copies its local experts process */
    const double groups = E / ep;         /* local experts */
    const double mx = Tx * ep / E;        /* tokens per local expert (balanced) */
    const double copies = e * Tl * k * h; /* dispatched bytes per rank */
    attention(m, dm, bd);
    cx_model_op *o = cx_model_elem(bd, "rmsnorm2", Tn * h, Tn * h, e, e * Tn * h);
    if (t > 1 && S > 0) /* the shared experts see the whole sequence (f operator) */
        cx_model_coll(o, sp ? CX_COLL_ALL_GATHER : CX_COLL_NONE,
                      sp ? CX_COLL_REDUCE_SCATTER : CX_COLL_ALL_REDUCE, e * T * h);
    cx_model_gemm(bd, "router", Tl, E, h, e * Tl * h);
    cx_model_elem(bd, "router_topk", Tl * E, Tl * k, 4.0, 4.0 * Tl * E);
    o = busiest(cx_model_elem(bd, "permute", Tl * h, Tl * k * h, e, 0.0), c);
    if (ep > 1) {
        o->a2a_pair = 1; /* its collective is the dispatch */
        cx_model_coll(o, CX_COLL_ALL_TO_ALL, CX_COLL_ALL_TO_ALL, copies);
        o->coll_group = CX_GROUP_EP;
    }
    if (etp > 1)
        busiest(marker(bd, "expert_gather", CX_COLL_ALL_GATHER, CX_COLL_REDUCE_SCATTER,
                       copies * etp, CX_GROUP_ETP),
                c);
    busiest(cx_model_grouped_gemm(bd, "expert_gate_up", groups, mx, 2.0 * fe / etp, h, e * Tx * h),
            c);
    busiest(cx_model_elem(bd, "expert_swiglu", 2.0 * Tx * fe / etp, Tx * fe / etp, e,
                          e * 2.0 * Tx * fe / etp),
            c);
    o = busiest(
        cx_model_grouped_gemm(bd, "expert_down", groups, mx, h, fe / etp, e * Tx * fe / etp), c);
    if (etp > 1) {
        cx_model_coll(o, CX_COLL_REDUCE_SCATTER, CX_COLL_ALL_GATHER, copies * etp);
        o->coll_group = CX_GROUP_ETP;
    }
    if (ep > 1)
        busiest(
            marker(bd, "a2a_combine", CX_COLL_ALL_TO_ALL, CX_COLL_ALL_TO_ALL, copies, CX_GROUP_EP),
            c)
            ->a2a_pair = 2;
    cx_model_elem(bd, "unpermute", Tl * k * h, Tl * h, e, e * Tl * k * h);
    if (S > 0) { /* gate+up and SwiGLU can run beside the dispatch, down beside the combine */
        const int n0 = bd->ops->nops;
        mlp(dm, bd, T, h, S * fe, "shared_gate_up", "shared_swiglu", "shared_down");
        bd->ops->op[n0].a2a_pair = bd->ops->op[n0 + 1].a2a_pair = 1;
        bd->ops->op[n0 + 2].a2a_pair = 2;
        cx_model_elem(bd, "shared_add", 2.0 * Tn * h, Tn * h, e, 0.0);
    }
    cx_model_elem(bd, "residual_add2", 2.0 * Tn * h, Tn * h, e, 0.0);
}

/* Is layer i (0-based) a MoE layer? */
static int is_moe(const culonx_model *m, int64_t i)
{
    const int64_t freq = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
    return i >= m->first_dense_layers && (i - m->first_dense_layers) % freq == 0;
}

/* Does layer i attend in full although the model has a window (window-every
 * n > 1: the window applies to layers i % n == 0 only)? */
static int is_full(const culonx_model *m, int64_t i)
{
    return m->window > 0 && m->window_every > 1 && i % m->window_every != 0;
}

/* Layer kind of layer i: 0 dense, 1 MoE, + 2 when it attends in full
 * beside windowed layers. */
static int kind_of(const culonx_model *m, int64_t i)
{
    return is_moe(m, i) + 2 * is_full(m, i);
}

/* Segments of the stack; more runs than CX_MODEL_MAX_SEGMENTS leave nseg 0
 * (the loader refuses such a model first, cx_model_moe_segments). */
static void segments(const culonx_model *m, cx_model_stack *st)
{
    st->nseg = 0;
    for (int64_t i = 0; i < m->layers; i++) {
        int kind = CX_MODEL_PART_LAYER + kind_of(m, i);
        if (st->nseg > 0 && st->seg[st->nseg - 1].kind == kind) {
            st->seg[st->nseg - 1].count++;
            continue;
        }
        if (st->nseg == CX_MODEL_MAX_SEGMENTS) {
            st->nseg = 0;
            return;
        }
        st->seg[st->nseg].kind = kind;
        st->seg[st->nseg++].count = 1;
    }
}

int cx_model_moe_segments(const culonx_model *m)
{
    int n = 0, prev = -1;
    for (int64_t i = 0; i < m->layers; i++) {
        int kind = kind_of(m, i);
        n += kind != prev;
        prev = kind;
    }
    return n;
}

static void build(const culonx_model *m, const cx_model_dims *d, cx_model_stack *st)
{
    const double h = (double)m->hidden, V = (double)m->vocab;
    const int kd = CX_MODEL_PART_LAYER, km = CX_MODEL_PART_LAYER + 1;
    st->family = &cx_model_moe;
    st->nparts = 0;
    cx_model_part *emb = cx_model_part_begin(st, CX_MODEL_PART_EMBED, "embedding", V * h, 0);
    cx_model_part *head = cx_model_part_begin(st, CX_MODEL_PART_HEAD, "head", h + V * h, 0);
    cx_model_part *dl = cx_model_part_begin(st, kd, "dense", dense_params(m), 1);
    cx_model_part *ml = cx_model_part_begin(st, km, "moe", moe_params(m), 1);
    ml->expert_params = (double)m->experts * expert_params(m);
    ml->active_params = ml->params - (double)(m->experts - m->experts_per_token) * expert_params(m);
    /* window-every n > 1: the same two kinds attending in full (no window) */
    const int alt = m->window > 0 && m->window_every > 1;
    cx_model_part *dlf = NULL, *mlf = NULL;
    if (alt) {
        dlf = cx_model_part_begin(st, kd + 2, "dense-full", dl->params, 1);
        mlf = cx_model_part_begin(st, km + 2, "moe-full", ml->params, 1);
        mlf->expert_params = ml->expert_params, mlf->active_params = ml->active_params;
    }
    segments(m, st);
    if (!d) return;

    const double T = d->b * (double)m->seq / d->cp, in = d->e * T * h / (d->sp ? d->t : 1.0);
    cx_model_builder bd = {d->e, &dl->ops};
    dense(m, d, &bd);
    cx_model_layer_acts(dl, in);
    bd.ops = &ml->ops;
    moe(m, d, &bd);
    cx_model_layer_acts(ml, in);
    if (alt) {
        culonx_model full = *m;
        full.window = 0;
        bd.ops = &dlf->ops;
        dense(&full, d, &bd);
        cx_model_layer_acts(dlf, in);
        bd.ops = &mlf->ops;
        moe(&full, d, &bd);
        cx_model_layer_acts(mlf, in);
    }
    bd.ops = &emb->ops;
    cx_model_embedding_lookup(&bd, T, h, V, d);
    cx_model_fixed_acts(emb);
    bd.ops = &head->ops;
    cx_model_norm_logits_loss(&bd, "final_rmsnorm", T, h, V, d);
    cx_model_fixed_acts(head);
}

const cx_model_family cx_model_moe = {"moe", CULONX_ARCH_MOE, 4,
                                      "the dense layers' SwiGLU inner size", build};
