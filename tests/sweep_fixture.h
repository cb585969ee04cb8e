/*
 * sweep_fixture.h — what the sweep tests (test_sweep.c, test_sweep_fast.c)
 * share: the tiny GPT run on DGX-A100-like nodes they enumerate (small
 * enough to time every candidate; A100 datasheet numbers as
 * configs/systems/a100-80g.xml gives them, hw/README.md; network tiers
 * rounded), and building a sweep spec option by option.
 */
#ifndef CX_TESTS_SWEEP_FIXTURE_H
#define CX_TESTS_SWEEP_FIXTURE_H

#include "culonx.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny GPT on DGX-A100-like nodes of `gpn` GPUs. */
static void tiny(culonx_run *r, int64_t layers, int64_t gpn, int64_t gpus, int64_t gb)
{
    memset(r, 0, sizeof *r);
    culonx_model *m = &r->model;
    snprintf(m->name, sizeof m->name, "tiny");
    m->arch = CULONX_ARCH_GPT;
    m->layers = layers, m->hidden = 256, m->heads = 8, m->kv_heads = 8, m->ffn = 1024;
    m->vocab = 1024, m->seq = 256;
    culonx_system *s = &r->system;
    snprintf(s->name, sizeof s->name, "a100x%lld", (long long)gpn);
    snprintf(s->gpu.name, sizeof s->gpu.name, "A100");
    s->gpu.matrix16_tflops = 312, s->gpu.vector_tflops = 19.5, s->gpu.hbm_gbps = 2039;
    s->gpu.mem_gib = 80, s->gpu.min_mhz = 210, s->gpu.max_mhz = 1410, s->gpu.step_mhz = 15;
    s->gpu.tdp_w = 400, s->gpu.idle_w = 60;
    s->gpus_per_node = gpn, s->ntiers = 2, s->pue = 1.0;
    s->tier[0] = (culonx_net_tier){"nvlink", 300, 2e-6, 0.75, 2.0};
    s->tier[1] = (culonx_net_tier){"ib", 25, 5e-6, 0.85, 25.0};
    culonx_execution *e = &r->exec;
    e->gpus = gpus, e->tp = 1, e->pp = 1, e->dp = gpus, e->vp = 1, e->microbatch = 1;
    e->global_batch = gb, e->recompute = CULONX_RECOMPUTE_NONE, e->schedule = CULONX_SCHED_1F1B;
    e->dp_overlap = 1;
}

static culonx_sweep_spec *spec_new(void)
{
    culonx_sweep_spec *s = malloc(sizeof *s);
    culonx_sweep_spec_init(s);
    return s;
}

static void opt(culonx_sweep_spec *s, const char *k, const char *v)
{
    culonx_error err;
    culonx_status st = culonx_sweep_option(s, k, v, &err);
    CU_ASSERT_EQUAL_FATAL(st, CULONX_OK);
}

#endif
