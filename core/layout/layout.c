/*
 * layout.c — degrees and rank order of a parallelism layout (layout.h):
 * the GPU count, the strides and the groups each collective runs over, and
 * the one place where degrees are multiplied. Equations in layout.h; the
 * rank order is Megatron-LM's default (parallel_state.py, "tp-cp-ep-dp-pp").
 */
#include "core/layout/layout.h"

/* Megatron's order, fastest first */
static const uint8_t megatron_order[CX_DIM_COUNT] = {CX_DIM_TP, CX_DIM_CP, CX_DIM_EP, CX_DIM_DP,
                                                     CX_DIM_PP};

/* a*b for positive values, saturating at INT64_MAX; 0 if either is not */
static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0) return 0;
    if (a < ((int64_t)1 << 31) && b < ((int64_t)1 << 31)) return a * b; /* no overflow */
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t at_least_1(int64_t x)
{
    return x < 1 ? 1 : x;
}

void cx_core_layout_init(cx_layout *l, const culonx_execution *ex)
{
    for (int d = 0; d < CX_DIM_COUNT; d++)
        l->degree[d] = 1;
    l->degree[CX_DIM_TP] = ex->tp;
    l->degree[CX_DIM_PP] = ex->pp;
    l->degree[CX_DIM_DP] = ex->dp;
    l->degree[CX_DIM_CP] = ex->cp > 1 ? ex->cp : 1;
    int64_t s = 1;
    for (int i = 0; i < CX_DIM_COUNT; i++) {
        int d = megatron_order[i];
        l->order[i] = (uint8_t)d;
        l->stride[d] = s;
        s = mul_sat(s, at_least_1(l->degree[d]));
    }
    int64_t g = 1;
    for (int d = 0; d < CX_DIM_COUNT; d++)
        g = mul_sat(g, l->degree[d]);
    l->gpus = g;
    l->expert_ep = at_least_1(ex->ep);
    l->expert_etp = at_least_1(ex->etp);
}

int64_t cx_core_layout_expert_dp(const cx_layout *l)
{
    int64_t r = mul_sat(mul_sat(at_least_1(l->degree[CX_DIM_TP]), at_least_1(l->degree[CX_DIM_CP])),
                        at_least_1(l->degree[CX_DIM_DP]));
    int64_t e = mul_sat(l->expert_ep, l->expert_etp);
    return e > 0 && r >= e ? r / e : 1;
}

cx_hw_group cx_core_layout_expert_group(const cx_layout *l, cx_expert_dim d, int64_t gpus_per_node)
{
    int64_t n = l->expert_etp, stride = 1;
    if (d == CX_EXPERT_EP) n = l->expert_ep, stride = l->expert_etp;
    if (d == CX_EXPERT_EDP)
        n = cx_core_layout_expert_dp(l), stride = mul_sat(l->expert_ep, l->expert_etp);
    int64_t gpn = at_least_1(gpus_per_node);
    int64_t r = stride >= gpn ? 1 : gpn / stride;
    if (r > n) r = n;
    if (r < 1) r = 1;
    cx_hw_group g = {n, r};
    return g;
}

cx_hw_group cx_core_layout_group(const cx_layout *l, cx_dim d, int64_t gpus_per_node)
{
    int64_t n = at_least_1(l->degree[d]), stride = l->stride[d];
    int64_t gpn = at_least_1(gpus_per_node);
    int64_t r = stride >= gpn ? 1 : gpn / stride;
    if (r > n) r = n;
    if (r < 1) r = 1;
    cx_hw_group g = {n, r};
    return g;
}

cx_hw_group cx_core_layout_grad_group(const cx_layout *l, int64_t gpus_per_node)
{
    int64_t n = mul_sat(mul_sat(at_least_1(l->degree[CX_DIM_CP]), at_least_1(l->degree[CX_DIM_EP])),
                        at_least_1(l->degree[CX_DIM_DP]));
    int64_t stride = l->stride[CX_DIM_CP], gpn = at_least_1(gpus_per_node);
    int64_t r = stride >= gpn ? 1 : gpn / stride;
    if (r > n) r = n;
    if (r < 1) r = 1;
    cx_hw_group g = {n, r};
    return g;
}

int cx_core_layout_zero(const culonx_execution *ex)
{
    if (ex->zero > 0) return ex->zero;
    return ex->distributed_optimizer ? 1 : 0;
}

int64_t cx_core_layout_replicas(const cx_layout *l, const culonx_execution *ex)
{
    int64_t dp = at_least_1(l->degree[CX_DIM_DP]);
    if (ex->shard_group <= 0 || ex->shard_group >= dp || dp % ex->shard_group) return 1;
    return dp / ex->shard_group;
}

/* a group of n ranks `stride` apart (see the top of layout.h) */
static cx_hw_group strided_group(int64_t n, int64_t stride, int64_t gpus_per_node)
{
    int64_t gpn = at_least_1(gpus_per_node);
    int64_t r = stride >= gpn ? 1 : gpn / stride;
    if (r > n) r = n;
    if (r < 1) r = 1;
    cx_hw_group g = {n, r};
    return g;
}

cx_hw_group cx_core_layout_shard_group(const cx_layout *l, const culonx_execution *ex,
                                       int64_t gpus_per_node)
{
    cx_hw_group g = cx_core_layout_grad_group(l, gpus_per_node);
    int64_t R = cx_core_layout_replicas(l, ex);
    if (R == 1) return g;
    return strided_group(g.size / R, l->stride[CX_DIM_CP], gpus_per_node);
}

cx_hw_group cx_core_layout_replica_group(const cx_layout *l, const culonx_execution *ex,
                                         int64_t gpus_per_node)
{
    cx_hw_group g = cx_core_layout_grad_group(l, gpus_per_node);
    int64_t R = cx_core_layout_replicas(l, ex);
    return strided_group(R, mul_sat(l->stride[CX_DIM_CP], g.size / R), gpus_per_node);
}

cx_hw_group cx_core_layout_p2p(const cx_layout *l, cx_dim d, int64_t gpus_per_node)
{
    cx_hw_group g = {2, l->stride[d] >= at_least_1(gpus_per_node) ? 1 : 2};
    return g;
}

int64_t cx_core_layout_stage_ranks(const cx_layout *l)
{
    int64_t r = 1;
    for (int d = 0; d < CX_DIM_COUNT; d++)
        if (d != CX_DIM_PP) r = mul_sat(r, l->degree[d]);
    return r;
}

int64_t cx_core_layout_model_ranks(const cx_layout *l)
{
    int64_t r = 1;
    for (int d = 0; d < CX_DIM_COUNT; d++)
        if (d != CX_DIM_DP) r = mul_sat(r, l->degree[d]);
    return r;
}

int64_t cx_core_layout_derive_dp(const cx_layout *l, int64_t gpus)
{
    int64_t mr = cx_core_layout_model_ranks(l);
    return mr > 0 && gpus % mr == 0 ? gpus / mr : 0;
}

int64_t culonx_execution_gpus(const culonx_execution *ex)
{
    cx_layout l;
    cx_core_layout_init(&l, ex);
    return l.gpus;
}
