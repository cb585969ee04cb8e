/*
 * test_stack.c — a model as a stack of layer kinds (models/) and its cut
 * into virtual stages (core/eval/cost.c): the family registry; parameter counts
 * of the stack equal the per-part sums; the even split has the chunk
 * classes first / middle / last; an uneven split (culonx_run.vstage_layers)
 * keeps the model's totals (parameters, FLOPs), moves exactly the layers'
 * parameters between stages, and the closed form and the graph engine agree
 * on it to 1e-9 relative time and to the byte on memory for every schedule;
 * the op-level graph expands each virtual stage's own layers; bad splits are
 * input errors.
 */
#include "core/eval/graph.h"
#include "core/layout/rules.h"
#include "models/model.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static culonx_run load(const char *path)
{
    culonx_run r;
    culonx_error err;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load(path, NULL, 0, NULL, &r, &err), CULONX_OK);
    return r;
}

static double rel(double a, double b)
{
    return b == 0 ? fabs(a) : fabs(a - b) / fabs(b);
}

/* megatron-22b cut to 16 layers on 64 GPUs, pp = 4, 8 microbatches */
static culonx_run small(culonx_schedule s)
{
    culonx_run r = load("configs/megatron-22b.xml");
    r.model.layers = 16;
    r.exec.tp = 8, r.exec.pp = 4, r.exec.dp = 2, r.exec.gpus = 64, r.exec.microbatch = 1;
    r.exec.vp = s == CULONX_SCHED_INTERLEAVED ? 2 : 1;
    r.exec.schedule = s;
    r.exec.global_batch = 8 * r.exec.dp;
    return r;
}

static int nvstages(const culonx_run *r)
{
    return (int)r->exec.pp * cx_sched_get(r->exec.schedule)->chunks((int)r->exec.vp);
}

static void test_families(void)
{
    CU_ASSERT_PTR_EQUAL(cx_model_family_of(CULONX_ARCH_GPT), &cx_model_gpt);
    CU_ASSERT_PTR_EQUAL(cx_model_family_of(CULONX_ARCH_LLAMA), &cx_model_llama);
    CU_ASSERT_PTR_NULL(cx_model_family_of((culonx_arch)99));
    CU_ASSERT_PTR_EQUAL(cx_model_family_named("llama"), &cx_model_llama);
    CU_ASSERT_PTR_NULL(cx_model_family_named("mamba"));
    char names[64];
    cx_model_family_names(names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, "gpt or llama or moe");
    const char *runs[] = {"configs/gpt3-175b.xml", "configs/llama3-8b-h100.xml"};
    for (int i = 0; i < 2; i++) {
        culonx_run r = load(runs[i]);
        cx_model_stack st;
        CU_ASSERT_EQUAL_FATAL(cx_model_build(&r.model, 2, 4, 1, 2.0, 0, &st), 0);
        CU_ASSERT_PTR_EQUAL(st.family, cx_model_family_of(r.model.arch));
        CU_ASSERT_EQUAL(st.nparts, 3);
        CU_ASSERT_EQUAL(st.nseg, 1);
        CU_ASSERT_EQUAL(st.seg[0].count, r.model.layers);
        CU_ASSERT_STRING_EQUAL(st.part[st.seg[0].kind].name, "dense");
        CU_ASSERT(st.part[CX_MODEL_PART_LAYER].recompute);
        CU_ASSERT(!st.part[CX_MODEL_PART_EMBED].recompute &&
                  !st.part[CX_MODEL_PART_HEAD].recompute);
        /* the parameter-only build counts the same */
        CU_ASSERT_EQUAL(cx_model_stack_params(&st), cx_model_total_params(&r.model));
        CU_ASSERT_EQUAL(st.part[CX_MODEL_PART_LAYER].params, cx_model_layer_params(&r.model));
        /* the embedding and head are never recomputed: same bytes in every mode */
        for (int p = 0; p < 2; p++)
            CU_ASSERT(st.part[p].act_bytes[0] == st.part[p].act_bytes[2]);
        /* GPT ties its output to the embedding; Llama does not */
        CU_ASSERT_EQUAL(st.part[CX_MODEL_PART_HEAD].tied_params > 0,
                        r.model.arch == CULONX_ARCH_GPT);
    }
}

static void test_even_classes(void)
{
    cx_cost *c = malloc(sizeof *c);
    culonx_error err;
    const int64_t pps[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        culonx_run r = small(CULONX_SCHED_1F1B);
        r.exec.pp = pps[i], r.exec.dp = 16 / pps[i];
        r.exec.global_batch = 8 * r.exec.dp;
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
        int nvs = (int)pps[i];
        CU_ASSERT_EQUAL(c->nclass, nvs < 3 ? nvs : 3);
        CU_ASSERT(c->cls[0].has_embed && c->cls[c->nclass - 1].has_head);
        if (nvs >= 3) CU_ASSERT_EQUAL(c->class_vstages[1], nvs - 2);
        for (int vs = 0; vs < nvs; vs++)
            CU_ASSERT_EQUAL(cx_core_cost_chunk(c, vs)->layers, 16 / nvs);
    }
    free(c);
}

static void test_uneven_classes(void)
{
    static const int64_t split[] = {1, 2, 3, 2, 2, 1, 3, 2};
    static const int16_t want[] = {0, 1, 2, 1, 1, 3, 2, 4};
    culonx_run r = small(CULONX_SCHED_INTERLEAVED);
    r.vstage_layers = split, r.n_vstage_layers = 8;
    cx_cost *c = malloc(sizeof *c);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
    CU_ASSERT_EQUAL(c->nclass, 5);
    for (int vs = 0; vs < 8; vs++) {
        CU_ASSERT_EQUAL(c->vs_class[vs], want[vs]);
        CU_ASSERT_EQUAL(cx_core_cost_chunk(c, vs)->layers, split[vs]);
    }
    /* contents: embedding + 1 layer; 2 layers; ...; 2 layers + head */
    CU_ASSERT_EQUAL(c->cls[0].npieces, 2);
    CU_ASSERT_EQUAL(c->cls[0].piece[0].part, CX_MODEL_PART_EMBED);
    CU_ASSERT_EQUAL(c->cls[4].piece[1].part, CX_MODEL_PART_HEAD);
    CU_ASSERT_EQUAL(c->class_vstages[1], 3);
    free(c);
}

static void test_uneven_totals(void)
{
    static const int64_t split[] = {3, 5, 4, 4};
    culonx_run even = small(CULONX_SCHED_1F1B), un = even;
    un.vstage_layers = split, un.n_vstage_layers = 4;
    cx_cost *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&even, 0, a, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&un, 0, b, &err), CULONX_OK);
    const double lp = cx_model_layer_params(&even.model) / (double)even.exec.tp;
    double sa = 0, sb = 0;
    for (int s = 0; s < 4; s++) {
        sa += a->stage_params[s], sb += b->stage_params[s];
        double moved = (double)(split[s] - 4) * lp;
        CU_ASSERT(fabs(b->stage_params[s] - a->stage_params[s] - moved) <=
                  1e-12 * a->stage_params[s]);
    }
    CU_ASSERT(rel(sb, sa) < 1e-12);
    CU_ASSERT(b->stage_params[1] > a->stage_params[1]);
    CU_ASSERT(b->stage_params[0] < a->stage_params[0]);
    culonx_result ra, rb;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&even, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&un, &rb, &err), CULONX_OK);
    CU_ASSERT_EQUAL(ra.params, rb.params);
    CU_ASSERT(rel(rb.model_flops, ra.model_flops) < 1e-12);
    CU_ASSERT(rel(rb.hardware_flops, ra.hardware_flops) < 1e-12);
    /* the heavier stage 1 sets a longer iteration */
    CU_ASSERT(rb.iteration_time_s > ra.iteration_time_s);
    free(a);
    free(b);
}

/* closed form = graph engine, time to 1e-9 and memory to the byte */
static void agree(const culonx_run *r)
{
    culonx_result a, g;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(r, &a, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(r, 0, &g, &err), CULONX_OK);
    CU_ASSERT(rel(a.iteration_time_s, g.iteration_time_s) <= 1e-9);
    CU_ASSERT_EQUAL(a.memory.peak_bytes, g.memory.peak_bytes);
    CU_ASSERT(rel(a.model_flops, g.model_flops) <= 1e-12);
}

static void test_uneven_engines_agree(void)
{
    static const int64_t four[] = {3, 5, 4, 4}, hole[] = {0, 6, 6, 4};
    static const int64_t eight[] = {1, 2, 3, 2, 2, 1, 3, 2};
    for (int s = 0; s < culonx_schedule_count(); s++) {
        culonx_run r = small((culonx_schedule)s);
        int nvs = nvstages(&r);
        r.vstage_layers = nvs == 4 ? four : eight, r.n_vstage_layers = nvs;
        agree(&r);
        if (nvs == 4) { /* a first stage with the embedding only */
            r.vstage_layers = hole;
            agree(&r);
        }
    }
}

/* The explicit even split is the default split: the same chunk classes
 * (the default takes a shortcut) and, for replayed schedules, results. */
/* The execution keys first/last-stage-layers and embedding/loss-in-split
 * (core/layout/rules.c cx_core_rule_split) give the same costs as the same
 * split passed as vstage_layers, and the published Llama 3 405B layout
 * (126 layers, pp 16 x vp 2, first/last virtual stage 3) is 7 + 14 x 8 + 7. */
static void test_split_keys(void)
{
    culonx_execution e;
    memset(&e, 0, sizeof e);
    int64_t n[32];
    e.first_stage_layers = e.last_stage_layers = 3;
    CU_ASSERT_EQUAL(cx_core_rule_split(126, &e, 32, n), CULONX_REJECT_NONE);
    CU_ASSERT(n[0] == 3 && n[31] == 3 && n[1] == 4 && n[30] == 4);
    CU_ASSERT_EQUAL(n[0] + n[16], 7); /* stage 0 holds virtual stages 0 and 16 */
    e.first_stage_layers = e.last_stage_layers = 0;
    e.embedding_in_split = e.loss_in_split = 1; /* BLOOM: 70 layers on pp 12 */
    CU_ASSERT_EQUAL(cx_core_rule_split(70, &e, 12, n), CULONX_REJECT_NONE);
    CU_ASSERT(n[0] == 5 && n[1] == 6 && n[11] == 5);
    CU_ASSERT_EQUAL(cx_core_rule_split(71, &e, 12, n), CULONX_REJECT_UNEVEN_SPLIT);
    e.first_stage_layers = 2; /* counts and slots do not mix */
    CU_ASSERT_EQUAL(cx_core_rule_split(70, &e, 12, n), CULONX_REJECT_UNEVEN_SPLIT);

    cx_cost *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    culonx_error err;
    for (int sc = 0; sc < 2; sc++) {
        culonx_run r = small(sc ? CULONX_SCHED_INTERLEAVED : CULONX_SCHED_1F1B), x;
        r.model.layers = 14;
        r.exec.first_stage_layers = sc ? 1 : 2, r.exec.last_stage_layers = sc ? 1 : 4;
        x = r;
        x.exec.first_stage_layers = x.exec.last_stage_layers = 0;
        int64_t split[16];
        int nv = nvstages(&r);
        CU_ASSERT_EQUAL_FATAL(cx_core_rule_split(14, &r.exec, nv, split), CULONX_REJECT_NONE);
        x.vstage_layers = split, x.n_vstage_layers = nv;
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, a, &err), CULONX_OK);
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&x, 0, b, &err), CULONX_OK);
        CU_ASSERT(memcmp(a->vs_layer0, b->vs_layer0, (size_t)(nv + 1) * sizeof a->vs_layer0[0]) ==
                  0);
        for (int vs = 0; vs < nv; vs++)
            CU_ASSERT(rel(cx_core_cost_chunk(a, vs)->f_s, cx_core_cost_chunk(b, vs)->f_s) < 1e-12);
        culonx_result ra; /* the public path accepts the keys (the check's split rule) */
        CU_ASSERT_EQUAL(culonx_estimate(&r, &ra, &err), CULONX_OK);
    }
    free(a), free(b);
}

static void test_explicit_even(void)
{
    static const int64_t fours[] = {4, 4, 4, 4};
    const int64_t pps[] = {1, 2, 4, 8};
    cx_cost *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    culonx_error err;
    for (int i = 0; i < 8; i++) {
        culonx_run r = small(i < 4 ? CULONX_SCHED_ZB_H1 : CULONX_SCHED_INTERLEAVED), x;
        r.model.layers = 32;
        r.exec.pp = pps[i % 4], r.exec.dp = 16 / pps[i % 4];
        if (i >= 4 && r.exec.pp == 1) r.exec.schedule = CULONX_SCHED_1F1B, r.exec.vp = 1;
        r.exec.global_batch = 8 * r.exec.dp;
        x = r;
        int64_t split[16];
        for (int vs = 0; vs < nvstages(&r); vs++)
            split[vs] = 32 / nvstages(&r);
        x.vstage_layers = split, x.n_vstage_layers = nvstages(&r);
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, a, &err), CULONX_OK);
        CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&x, 0, b, &err), CULONX_OK);
        CU_ASSERT_EQUAL(a->nclass, b->nclass);
        CU_ASSERT(memcmp(a->vs_class, b->vs_class, (size_t)nvstages(&r) * 2) == 0);
        for (int k = 0; k < a->nclass && k < b->nclass; k++) {
            CU_ASSERT_EQUAL(a->class_vstages[k], b->class_vstages[k]);
            CU_ASSERT_EQUAL(a->cls[k].npieces, b->cls[k].npieces);
            for (int q = 0; q < a->cls[k].npieces; q++) {
                CU_ASSERT_EQUAL(a->cls[k].piece[q].part, b->cls[k].piece[q].part);
                CU_ASSERT_EQUAL(a->cls[k].piece[q].count, b->cls[k].piece[q].count);
            }
            CU_ASSERT_EQUAL(a->cls[k].f_s, b->cls[k].f_s);
            CU_ASSERT_EQUAL(a->cls[k].params, b->cls[k].params);
        }
    }
    free(a);
    free(b);

    culonx_run r = small(CULONX_SCHED_ZB_H1), x = r;
    x.vstage_layers = fours, x.n_vstage_layers = 4;
    culonx_result ra, rb;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &ra, &err), CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&x, &rb, &err), CULONX_OK);
    CU_ASSERT_EQUAL(ra.iteration_time_s, rb.iteration_time_s);
    CU_ASSERT_EQUAL(ra.memory.peak_bytes, rb.memory.peak_bytes);
    CU_ASSERT_EQUAL(ra.energy.total_j, rb.energy.total_j);
}

/* At op level every virtual stage expands its own layers, numbered from 0,
 * and only stage 0 / the last carry the embedding / head ops. */
static void test_op_level_layers(void)
{
    static const int64_t split[] = {3, 5, 6, 2};
    culonx_run r = small(CULONX_SCHED_1F1B);
    r.vstage_layers = split, r.n_vstage_layers = 4;
    cx_graph *g = NULL;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(cx_core_graph_build(&r, 0, CX_DETAIL_OP, &g, &err), CULONX_OK);
    int top[4] = {-1, -1, -1, -1}, embed[4] = {0}, head[4] = {0};
    for (int64_t i = 0; i < g->n; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->kind != CX_NODE_F || nd->stream != CX_STREAM_COMPUTE || nd->mb != 0) continue;
        if (nd->layer > top[nd->vstage]) top[nd->vstage] = nd->layer;
        const char *name = cx_core_node_name(g, nd);
        embed[nd->vstage] += strcmp(name, "embedding") == 0;
        head[nd->vstage] += strcmp(name, "logits") == 0;
    }
    for (int vs = 0; vs < 4; vs++) {
        CU_ASSERT_EQUAL(top[vs] + 1, split[vs]);
        CU_ASSERT_EQUAL(embed[vs], vs == 0);
        CU_ASSERT_EQUAL(head[vs], vs == 3);
    }
    cx_core_graph_free(g);
}

static void test_bad_splits(void)
{
    static const int64_t three[] = {8, 4, 4}, sum[] = {4, 4, 4, 5}, neg[] = {-1, 9, 4, 4};
    const int64_t *bad[] = {three, sum, neg};
    const int n[] = {3, 4, 4};
    for (int i = 0; i < 3; i++) {
        culonx_run r = small(CULONX_SCHED_1F1B);
        r.vstage_layers = bad[i], r.n_vstage_layers = n[i];
        culonx_result res;
        culonx_error err;
        CU_ASSERT_EQUAL(culonx_estimate(&r, &res, &err), CULONX_EINPUT);
        CU_ASSERT(strlen(err.msg) > 0);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("stack", NULL, NULL);
    CU_add_test(s, "family registry and stack parameters", test_families);
    CU_add_test(s, "even split: first / middle / last classes", test_even_classes);
    CU_add_test(s, "uneven split: classes by content", test_uneven_classes);
    CU_add_test(s, "uneven split: totals kept, layers moved", test_uneven_totals);
    CU_add_test(s, "uneven split: closed form = graph", test_uneven_engines_agree);
    CU_add_test(s, "explicit even split = default", test_explicit_even);
    CU_add_test(s, "uneven split keys = vstage_layers", test_split_keys);
    CU_add_test(s, "op level expands each stage's layers", test_op_level_layers);
    CU_add_test(s, "bad splits are input errors", test_bad_splits);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
