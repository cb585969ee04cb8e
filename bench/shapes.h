/*
 * shapes.h — the model shapes and the deterministic generator the
 * agreement benches draw configurations from (header-only, like clock.h:
 * each bench is one translation unit). The PRNG is a 64-bit LCG (Knuth's
 * MMIX constants), seeded by the bench.
 */
#ifndef CX_BENCH_SHAPES_H
#define CX_BENCH_SHAPES_H

#include "culonx.h"

#include <stdint.h>

static uint64_t rng_state;
/* uniform in [0, n) */
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

typedef struct {
    const char *name;
    culonx_arch arch;
    int64_t l, h, a, k, f, V, s;
} shape;

static const shape shapes[] = {
    {"gpt-1.3b", CULONX_ARCH_GPT, 24, 2048, 16, 16, 8192, 51200, 2048},
    {"gpt-6.7b", CULONX_ARCH_GPT, 32, 4096, 32, 32, 16384, 51200, 2048},
    {"gpt-13b", CULONX_ARCH_GPT, 40, 5120, 40, 40, 20480, 51200, 2048},
    {"gpt-39b", CULONX_ARCH_GPT, 48, 8192, 64, 64, 32768, 51200, 2048},
    {"gpt3-175b", CULONX_ARCH_GPT, 96, 12288, 96, 96, 49152, 50257, 2048},
    {"llama3-8b", CULONX_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 128256, 8192},
    {"llama3-70b", CULONX_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 128256, 8192},
};

/* Mixture-of-experts shapes (models/moe.c): a Llama-style shape (f is the
 * dense layers' inner size) plus the experts; d head width (0 = h/a), qr,
 * kr, dr the low-rank attention (0 = GQA); w a sliding window on one layer
 * in every (0 = none). */
typedef struct {
    shape base;
    int64_t d, E, k, fe, shared, first_dense, freq, qr, kr, dr, w, every;
} moe_shape;

static const moe_shape moe_shapes[] = {
    {{"mixtral-8x7b", CULONX_ARCH_MOE, 32, 4096, 32, 8, 14336, 32000, 4096},
     0,
     8,
     2,
     14336,
     0,
     0,
     1,
     0,
     0,
     0,
     0,
     0},
    {{"qwen3-30b-a3b", CULONX_ARCH_MOE, 48, 2048, 32, 4, 8192, 151936, 4096},
     128,
     128,
     8,
     768,
     0,
     0,
     1,
     0,
     0,
     0,
     0,
     0},
    /* DeepSeek-V2-Lite-like (24 layers instead of 27): MLA, 2 shared experts */
    {{"moe-mla-lite", CULONX_ARCH_MOE, 24, 2048, 16, 16, 10944, 102400, 4096},
     128,
     64,
     6,
     1408,
     2,
     1,
     1,
     512,
     512,
     64,
     0,
     0},
    /* every other layer MoE after the first */
    {{"moe-alt", CULONX_ARCH_MOE, 16, 2048, 16, 4, 8192, 32000, 2048},
     0,
     16,
     2,
     4096,
     0,
     2,
     2,
     0,
     0,
     0,
     0,
     0},
    /* gpt-oss-like, 12 layers: sliding window on one layer in two */
    {{"moe-window", CULONX_ARCH_MOE, 12, 2880, 64, 8, 11520, 201088, 4096},
     64,
     32,
     4,
     2880,
     0,
     0,
     1,
     0,
     0,
     0,
     128,
     2},
};

/* The MoE execution fields of a random configuration on shape ms (bench
 * agree and fast_agree draw the same way): tp > 1 runs SP; ep, etp fold into
 * tp x dp; the all-to-all overlap (shared needs shared experts) and
 * node-limited routing. */
static void draw_moe_exec(culonx_execution *e, const moe_shape *ms)
{
    static const int eps[] = {1, 2, 4, 8}, etps[] = {1, 2};
    e->sequence_parallel = e->tp > 1;
    e->ep = eps[rnd(4)], e->etp = etps[rnd(2)];
    e->capacity_factor = rnd(2) ? 1.0 : 1.25;
    if ((e->tp * e->dp) % (e->ep * e->etp)) e->ep = 1, e->etp = 1;
    e->a2a_overlap = (culonx_a2a_overlap)rnd(3);
    if (e->a2a_overlap == CULONX_A2A_OVERLAP_SHARED && !ms->shared)
        e->a2a_overlap = CULONX_A2A_OVERLAP_PIPE;
    e->route_nodes = rnd(2) ? 0 : 1 + rnd(3);
}

#endif
