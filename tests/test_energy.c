/*
 * test_energy.c — energy-to-completion of training iterations: for every
 * shipped run the minimum-energy clock lies strictly inside the clock range
 * (U shape); energy parts add up to the total; GPU energy equals average
 * power x time x GPUs; the DAG's per-node energies add up to the closed
 * form's GPU energy; compute-bound work slows ~1/f while the iteration
 * slows less than that; a token budget scales energy; PUE and node overhead.
 */
#include "core/eval/graph.h"
#include "core/eval/energy.h"

#include <CUnit/Basic.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

static void test_u_shape_every_run(void)
{
    glob_t gl;
    CU_ASSERT_EQUAL_FATAL(glob("configs/*.xml", 0, NULL, &gl), 0);
    CU_ASSERT(gl.gl_pathc >= 8);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        culonx_run r;
        culonx_error err;
        CU_ASSERT_EQUAL_FATAL(culonx_run_load(gl.gl_pathv[i], NULL, 0, NULL, &r, &err), CULONX_OK);
        if (r.serving_only) continue; /* no training iteration (tests/test_serve.c) */
        culonx_clock_row *rows = NULL;
        int n = 0;
        CU_ASSERT_EQUAL_FATAL(culonx_energy_clocks(&r, 0, 0, 0, &rows, &n, &err), CULONX_OK);
        int imin = -1, npareto = 0;
        for (int k = 0; k < n; k++) {
            if (rows[k].min_energy) imin = k;
            npareto += rows[k].pareto;
        }
        if (imin <= 0 || imin >= n - 1)
            fprintf(stderr, "%s: minimum energy at row %d of %d\n", gl.gl_pathv[i], imin, n);
        CU_ASSERT(imin > 0 && imin < n - 1);
        /* the fastest clock is the highest; the fastest row is on the
         * frontier (under the board power limit, core/eval/power_cap.c,
         * clocks above the capped ones add no speed: of the rows tied on
         * time the least energy one) */
        CU_ASSERT(rows[n - 1].result.iteration_time_s < rows[0].result.iteration_time_s);
        int kf = n - 1;
        for (int k = n - 2; k >= 0; k--)
            if (rows[k].result.iteration_time_s <= rows[kf].result.iteration_time_s &&
                rows[k].result.energy.total_j < rows[kf].result.energy.total_j)
                kf = k;
        CU_ASSERT(rows[kf].pareto);
        CU_ASSERT(rows[imin].pareto);
        CU_ASSERT(npareto >= 2);
        /* no clock below the minimum-energy one is on the frontier */
        for (int k = 0; k < imin; k++)
            CU_ASSERT(!rows[k].pareto);
        free(rows);
    }
    globfree(&gl);
}

static void test_sums(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/gpt3-175b.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    r.system.pue = 1.2;
    r.system.node_overhead_w = 1500;
    culonx_result a;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &a, &err), CULONX_OK);
    const culonx_energy *e = &a.energy;
    CU_ASSERT(e->compute_j > 0 && e->idle_j > 0 && e->network_j > 0 && e->overhead_j > 0);
    CU_ASSERT(rel(e->compute_j + e->idle_j + e->network_j + e->overhead_j + e->facility_j,
                  e->total_j) < 1e-12);
    CU_ASSERT(rel(e->facility_j, 0.2 * (e->total_j - e->facility_j)) < 1e-12);
    double nodes = (double)r.exec.gpus / (double)r.system.gpus_per_node;
    CU_ASSERT(rel(e->overhead_j, 1500 * nodes * a.iteration_time_s) < 1e-12);
    /* average power x time x GPUs = GPU energy */
    CU_ASSERT(rel(a.avg_power_w * a.iteration_time_s * (double)r.exec.gpus,
                  e->compute_j + e->idle_j) < 1e-12);
    /* GPU power is between idle-ish and TDP */
    CU_ASSERT(a.avg_power_w > 50 && a.avg_power_w < r.system.gpu.tdp_w);
    CU_ASSERT(e->hbm_j > 0 && e->hbm_j < e->compute_j);
    /* a token budget multiplies the iteration */
    r.exec.tokens = 1e9;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &a, &err), CULONX_OK);
    CU_ASSERT(rel(a.energy_to_train_j, a.iterations * a.energy.total_j) < 1e-12);
}

static void graph_node_energy(const char *path)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load(path, NULL, 0, NULL, &r, &err), CULONX_OK);
    r.model.layers = 16;
    r.exec.tp = 8, r.exec.pp = 4, r.exec.dp = 2, r.exec.gpus = 64, r.exec.microbatch = 1;
    r.exec.global_batch = 16;
    for (int level = 0; level <= 1; level++) {
        cx_graph *g = NULL;
        CU_ASSERT_EQUAL_FATAL(cx_core_graph_build(&r, 0, (cx_detail)level, &g, &err), CULONX_OK);
        CU_ASSERT_EQUAL_FATAL(cx_core_graph_eval(g, &err), CULONX_OK);
        culonx_result res;
        cx_core_graph_result(g, &res);
        /* per GPU: compute-stream node energy + blocked power x the rest */
        double blocked = cx_core_blocked_power_w(g->cost), total = 0;
        for (int s = 0; s < g->p; s++) {
            double ej = 0, busy = 0;
            for (int64_t i = 0; i < g->n; i++) {
                const cx_node *nd = &g->node[i];
                if (nd->stage != s) continue;
                if (nd->stream == CX_STREAM_COMPUTE) ej += nd->energy_j, busy += nd->dur_s;
                if (nd->stream == CX_STREAM_TP) ej += nd->energy_j, busy += nd->dur_s;
                /* each node's energy is its power times its duration */
                if (nd->dur_s > 0) CU_ASSERT(nd->energy_j >= 0);
            }
            total += ej + blocked * (res.iteration_time_s - busy);
        }
        total *= (double)cx_core_layout_stage_ranks(&g->cost->layout); /* tp x dp ranks */
        CU_ASSERT(rel(total, res.energy.compute_j + res.energy.idle_j) < 1e-9);
        cx_core_graph_free(g);
    }
}

static void test_graph_node_energy(void)
{
    /* an A100 run and a power-capped H100 run (core/eval/power_cap.c) */
    for (int cfg = 0; cfg < 2; cfg++)
        graph_node_energy(cfg ? "configs/llama3-8b-h100.xml" : "configs/megatron-22b.xml");
}

static void test_clock_scaling(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/gpt3-175b.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    culonx_result hi, lo;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &hi, &err), CULONX_OK);
    r.exec.clock_mhz = 0.6 * r.system.gpu.max_mhz;
    r.exec.clock_mhz = 15.0 * floor(r.exec.clock_mhz / 15.0);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &lo, &err), CULONX_OK);
    double ratio = lo.iteration_time_s / hi.iteration_time_s;
    double fr = r.system.gpu.max_mhz / r.exec.clock_mhz;
    /* compute-dominated training slows almost as 1/f, never more */
    CU_ASSERT(ratio > 1.3 && ratio <= fr + 1e-9);
    CU_ASSERT(lo.clock_mhz == r.exec.clock_mhz);
    /* lower clock, lower average power */
    CU_ASSERT(lo.avg_power_w < hi.avg_power_w);
    /* bad clocks are input errors */
    r.exec.clock_mhz = 5000;
    CU_ASSERT_EQUAL(culonx_estimate(&r, &lo, &err), CULONX_EINPUT);
    culonx_clock_row *rows = NULL;
    int n = 0;
    r.exec.clock_mhz = 0;
    CU_ASSERT_EQUAL(culonx_energy_clocks(&r, 100, 5000, 15, &rows, &n, &err), CULONX_EINPUT);
    CU_ASSERT_PTR_NULL(rows);
}

/* The board power limit (core/eval/power_cap.c): on the calibrated H100 no
 * chunk pass draws more than tdp-w, some are capped and the run is slower
 * than without the limit by about the time reported; the closed form and
 * the graph engine agree; a datasheet-shaped A100 run is never capped. */
static void test_board_limit(void)
{
    culonx_run r;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/llama3-8b-h100.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    const double limit = r.system.gpu.tdp_w;
    CU_ASSERT(limit == 700);
    cx_cost *c = malloc(sizeof *c);
    CU_ASSERT_FATAL(c != NULL);
    CU_ASSERT_EQUAL_FATAL(cx_core_cost_build(&r, 0, c, &err), CULONX_OK);
    CU_ASSERT(c->capped_parts > 0);
    for (int k = 0; k < c->nclass; k++) {
        const cx_chunk_cost *cc = &c->cls[k];
        const double t[4] = {cc->f_s, cc->b_s, cc->w_s, cc->r_s};
        const double e[4] = {cc->e_f_j, cc->e_b_j, cc->e_w_j, cc->e_r_j};
        for (int x = 0; x < 4; x++)
            if (t[x] > 0) CU_ASSERT(e[x] / t[x] <= limit * (1 + 1e-9));
    }
    culonx_result a, g, u;
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &a, &err), CULONX_OK);
    CU_ASSERT(a.power_capped_passes > 0 && a.power_limit_w == limit);
    CU_ASSERT(a.power_capped_min_mhz < r.system.gpu.max_mhz && a.power_capped_s > 0);
    for (int op = 0; op < 2; op++) { /* stage and op level */
        CU_ASSERT_EQUAL_FATAL(culonx_estimate_graph(&r, op, &g, &err), CULONX_OK);
        CU_ASSERT(rel(g.iteration_time_s, a.iteration_time_s) < 1e-9);
        CU_ASSERT(rel(g.energy.total_j, a.energy.total_j) < 1e-9);
    }
    culonx_run ru = r;
    ru.system.gpu.tdp_w = 1e5; /* no limit */
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&ru, &u, &err), CULONX_OK);
    CU_ASSERT(u.power_capped_passes == 0);
    CU_ASSERT(u.iteration_time_s < a.iteration_time_s);
    CU_ASSERT(u.avg_power_w > a.avg_power_w);
    /* one stage: the time lost is the compute the cap added */
    CU_ASSERT(rel(a.iteration_time_s - u.iteration_time_s, a.power_capped_s) < 0.05);
    CU_ASSERT_EQUAL_FATAL(culonx_run_load("configs/gpt3-175b.xml", NULL, 0, NULL, &r, &err),
                          CULONX_OK);
    CU_ASSERT_EQUAL_FATAL(culonx_estimate(&r, &a, &err), CULONX_OK);
    CU_ASSERT(a.power_capped_passes == 0 && a.power_capped_s == 0);
    free(c);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_pSuite s = CU_add_suite("energy", NULL, NULL);
    CU_add_test(s, "U shape on every shipped run", test_u_shape_every_run);
    CU_add_test(s, "energy parts and power x time", test_sums);
    CU_add_test(s, "DAG node energies", test_graph_node_energy);
    CU_add_test(s, "clock scaling", test_clock_scaling);
    CU_add_test(s, "board power limit", test_board_limit);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails ? 1 : 0;
}
