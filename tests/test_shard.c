/*
 * test_shard.c — ZeRO-2/3 (FSDP, HSDP) and offload (core/eval/shard.c,
 * core/README.md "Sharding" and "Offload"): sharded memory is 2/4/12 bytes
 * per parameter over the shard group as the stage says; HSDP's groups come
 * from the layout (shard group inside the node, replicas across); the alias
 * zero 1 = distributed-optimizer under --set; closed form, stage-level and
 * op-level graph agree with side traffic; offload moves weights, optimizer
 * state and activations to host memory and checks its capacity.
 */
#include "core/eval/graph.h"
#include "core/layout/layout.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <string.h>

static culonx_run load(const char *path)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load(path, NULL, 0, NULL, &r, &err), CULONX_OK);
    return r;
}

static void set(culonx_run *r, const char *a)
{
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_set(r, a, &err), CULONX_OK);
}

static culonx_result est(const culonx_run *r)
{
    culonx_result res;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(r, &res, &err), CULONX_OK);
    return res;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

static void test_memory_by_stage(void)
{
    culonx_run r = load("configs/llama3-70b-fsdp-h100.xml");
    culonx_result z3 = est(&r);
    double P = z3.params_per_gpu, S = 512;
    CU_ASSERT(rel(z3.memory.weights_bytes, 2 * P / S) < 1e-12);
    CU_ASSERT(rel(z3.memory.gradients_bytes, 4 * P / S) < 1e-12);
    CU_ASSERT(rel(z3.memory.optimizer_bytes, 12 * P / S) < 1e-12);
    CU_ASSERT(z3.memory.gathered_bytes > 0);
    CU_ASSERT(z3.side_traffic_s > 0);
    set(&r, "execution.zero=2");
    culonx_result z2 = est(&r);
    CU_ASSERT(rel(z2.memory.weights_bytes, 2 * P) < 1e-12);
    CU_ASSERT(rel(z2.memory.gradients_bytes, 4 * P / S) < 1e-12);
    CU_ASSERT(rel(z2.memory.optimizer_bytes, 12 * P / S) < 1e-12);
    set(&r, "execution.zero=1");
    culonx_result z1 = est(&r);
    CU_ASSERT(rel(z1.memory.gradients_bytes, 4 * P) < 1e-12);
    CU_ASSERT_EQUAL(z1.side_traffic_s, 0);
    CU_ASSERT_EQUAL(z1.memory.gathered_bytes, 0);
    /* HSDP: shard over 8, replicate over 64 */
    set(&r, "execution.zero=3");
    set(&r, "execution.shard-group=8");
    culonx_result h = est(&r);
    CU_ASSERT(rel(h.memory.weights_bytes, 2 * P / 8) < 1e-12);
    CU_ASSERT(h.breakdown.dp_comm_s > 0); /* the replicas' all-reduce */
}

static void test_hsdp_groups(void)
{
    culonx_run r = load("configs/llama3-70b-fsdp-h100.xml");
    set(&r, "execution.shard-group=8");
    cx_layout l;
    cx_core_layout_init(&l, &r.exec);
    cx_hw_group s = cx_core_layout_shard_group(&l, &r.exec, 8);
    cx_hw_group q = cx_core_layout_replica_group(&l, &r.exec, 8);
    CU_ASSERT_EQUAL(s.size, 8);
    CU_ASSERT_EQUAL(s.per_node, 8); /* inside the node: NVLink */
    CU_ASSERT_EQUAL(q.size, 64);
    CU_ASSERT_EQUAL(q.per_node, 1); /* one per node: the scale-out network */
    CU_ASSERT_EQUAL(cx_core_layout_replicas(&l, &r.exec), 64);
    set(&r, "execution.shard-group=512");
    CU_ASSERT_EQUAL(cx_core_layout_replicas(&l, &r.exec), 1);
}

static void test_alias(void)
{
    culonx_run r = load("configs/llama3-8b-h100.xml");
    set(&r, "execution.zero=3");
    CU_ASSERT_EQUAL(r.exec.distributed_optimizer, 1);
    set(&r, "execution.distributed-optimizer=false");
    CU_ASSERT_EQUAL(r.exec.zero, 0);
    set(&r, "execution.distributed-optimizer=true");
    CU_ASSERT_EQUAL(r.exec.zero, 1);
    culonx_error err;
    CU_ASSERT_EQUAL(culonx_run_set(&r, "execution.zero=7", &err), CULONX_EINPUT);
    CU_ASSERT_EQUAL(r.exec.zero, 1); /* a bad --set leaves the run as it was */
}

/* closed form, stage and op level with side traffic (pp 2, HSDP, offload) */
static void test_engines_agree(void)
{
    culonx_run r = load("configs/llama3-70b-fsdp-h100.xml");
    set(&r, "execution.pp=2");
    set(&r, "execution.shard-group=8");
    set(&r, "execution.offload=activations");
    set(&r, "system.gpus-per-node=4"); /* the shard group spans nodes */
    /* without DP overlap: the op level slices the last backward at op
     * boundaries (tests/test_graph.c, test_levels_agree) */
    set(&r, "execution.dp-overlap=false");
    culonx_result c = est(&r), a, b;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(&r, 0, &a, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(&r, 1, &b, &err), CULONX_OK);
    CU_ASSERT(rel(a.iteration_time_s, c.iteration_time_s) <= 1e-9);
    CU_ASSERT(rel(b.iteration_time_s, c.iteration_time_s) <= 1e-9);
    CU_ASSERT_EQUAL(a.memory.peak_bytes, c.memory.peak_bytes);
    CU_ASSERT(rel(a.breakdown.shard_comm_s, c.breakdown.shard_comm_s) <= 1e-9);
    CU_ASSERT(c.breakdown.shard_comm_s > 0);
}

static void test_offload(void)
{
    culonx_run r = load("configs/llama3-70b-fsdp-h100.xml");
    set(&r, "execution.zero=2");
    set(&r, "execution.shard-group=8");
    culonx_result base = est(&r);
    set(&r, "execution.offload=weights,optimizer,activations");
    culonx_result off = est(&r);
    CU_ASSERT_EQUAL(off.memory.weights_bytes, 0);
    CU_ASSERT_EQUAL(off.memory.optimizer_bytes, 0);
    CU_ASSERT(off.memory.activations_bytes < base.memory.activations_bytes);
    CU_ASSERT(rel(off.memory.host_bytes, base.memory.weights_bytes + base.memory.optimizer_bytes +
                                             base.memory.activations_bytes -
                                             off.memory.activations_bytes) < 1e-9);
    CU_ASSERT(off.memory.peak_bytes < base.memory.peak_bytes);
    CU_ASSERT(off.iteration_time_s > base.iteration_time_s); /* PCIe traffic */
    CU_ASSERT(off.memory.fits);
    set(&r, "host.mem-gib=64"); /* 8 GiB per GPU: too little */
    culonx_result small = est(&r);
    CU_ASSERT(!small.memory.fits);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 3;
    CU_pSuite s = CU_add_suite("shard", NULL, NULL);
    CU_add_test(s, "memory by ZeRO stage", test_memory_by_stage);
    CU_add_test(s, "HSDP groups", test_hsdp_groups);
    CU_add_test(s, "zero / distributed-optimizer alias", test_alias);
    CU_add_test(s, "engines agree with side traffic", test_engines_agree);
    CU_add_test(s, "offload", test_offload);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
