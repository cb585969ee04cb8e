/*
 * test_cost_key_clock.c — the time key of a priced cost at another clock
 * (core/eval/cost_clock_key.c, cx_core_cost_time_key_at) against the
 * reprice it stands for: a copy of the cost repriced at that clock
 * (cx_core_cost_reprice), its replay time key (cx_replay_time_key), bit
 * for bit. Every shipped config (configs/, each .xml that loads), every
 * schedule at a few pipeline depths, the three recompute modes, the three
 * TP overlap modes, bf16 and FP8, ZeRO 2/3 and offload (side traffic),
 * expert all-to-all overlap for the MoE configs, at 13 clocks from the
 * GPU's lowest to its highest; at the higher ones the A100 configs' board
 * power limit binds (per-pass clocks, core/eval/power_cap.c). A memory-only
 * build (no times) is refused (0). And the replay durations from the key
 * (cx_replay_vsinfo_of_key) are those from the chunk. The same clocks
 * through the sweep's per-clock table (core/eval/cost_clocks.c,
 * cx_core_cost_reprice_clocks): the classes and per-run stage sums of the
 * reprice, and the time key (cx_core_cost_time_key_clocks), bit for bit,
 * where it serves and where it declines.
 */
#include "culonx.h"
#include "core/eval/cost.h"
#include "core/eval/replay_lanes.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCLK 13
#define MAXKEY (7 * CX_COST_MAX_CLASSES + 1)

typedef struct {
    long builds, keys, capped, refused, cfgs, table, table_served;
    long sched[CULONX_SCHED_MAX];
} counts;

/* d and e, c repriced alike, hold the same classes and per-run sums */
static int same_prices(const cx_cost *d, const cx_cost *e)
{
    int same = d->nclass == e->nclass && d->nsrun == e->nsrun &&
               memcmp(d->cls, e->cls, (size_t)d->nclass * sizeof d->cls[0]) == 0;
    for (int r = 0; same && r < d->nsrun; r++)
        same = !memcmp(&d->run_f_s[r], &e->run_f_s[r], sizeof(double)) &&
               !memcmp(&d->run_b_s[r], &e->run_b_s[r], sizeof(double)) &&
               !memcmp(&d->run_w_s[r], &e->run_w_s[r], sizeof(double)) &&
               !memcmp(&d->run_e_j[r], &e->run_e_j[r], sizeof(double)) &&
               !memcmp(&d->run_busy_s[r], &e->run_busy_s[r], sizeof(double));
    return same && !memcmp(d->part_fill_f_s, e->part_fill_f_s, sizeof d->part_fill_f_s) &&
           !memcmp(d->part_fill_b_s, e->part_fill_b_s, sizeof d->part_fill_b_s);
}

/* c (priced) through the clock table t at every clock of clk against
 * copies repriced there (d: plain; x: through t, made at its first) */
static void check_table(const cx_cost *c, cx_cost *d, cx_cost *x, cx_cost_clocks *t,
                        const double *clk, counts *n)
{
    cx_core_cost_copy(x, c);
    for (int i = 0; i < NCLK; i++) {
        cx_core_cost_copy(d, c);
        cx_core_cost_reprice(c->run, clk[i], d);
        cx_core_cost_reprice_clocks(c->run, clk[i], x, t);
        n->table_served += !(x->power_limit_w > 0) && cx_core_cost_clocks_rows(t, x) != NULL;
        n->table++;
        double a[MAXKEY], b[MAXKEY]; /* the key through t, as without */
        const int na = cx_core_cost_time_key_at(c, clk[i], a);
        CU_ASSERT_EQUAL(na, cx_core_cost_time_key_clocks(c, clk[i], b, t));
        CU_ASSERT(memcmp(a, b, (size_t)na * sizeof a[0]) == 0);
        const int same = same_prices(d, x);
        CU_ASSERT(same);
        if (!same)
            printf("\n  %s %s clock %g: the table's reprice differs", c->run->model.name,
                   culonx_schedule_name(c->run->exec.schedule), clk[i]);
    }
}

/* c (priced) keyed at every clock of clk against a copy repriced there */
static void check_clocks(const cx_cost *c, cx_cost *d, const double *clk, counts *n)
{
    double a[MAXKEY], b[MAXKEY];
    for (int i = 0; i < NCLK; i++) {
        const int na = cx_core_cost_time_key_at(c, clk[i], a);
        const double f = clk[i] > 0 ? clk[i] : c->run->system.gpu.max_mhz;
        if (na == 0) { /* a priced cost of fresh builds: never */
            n->refused++;
            continue;
        }
        cx_core_cost_copy(d, c);
        cx_core_cost_reprice(c->run, clk[i], d);
        const int nb = cx_replay_time_key(d, b);
        CU_ASSERT_EQUAL(na, nb);
        if (na != nb) continue;
        const int same = memcmp(a, b, (size_t)na * sizeof a[0]) == 0;
        CU_ASSERT(same);
        if (!same) {
            for (int q = 0; q < na; q++)
                if (memcmp(&a[q], &b[q], sizeof a[q]))
                    printf("\n  %s %s clock %g key[%d]: %.17g vs reprice %.17g", c->run->model.name,
                           culonx_schedule_name(c->run->exec.schedule), clk[i], q, a[q], b[q]);
            continue;
        }
        for (int k = 0; k < d->nclass; k++) { /* the durations the batch plays */
            cx_replay_vsinfo x, y;
            cx_replay_vsinfo_of_key(a + 7 * k, &x);
            cx_replay_vsinfo_of(&d->cls[k], &y);
            CU_ASSERT(memcmp(&x, &y, sizeof x) == 0);
        }
        n->keys++;
        n->capped += cx_core_power_limit_at(c, f) > 0;
    }
}

/* the variants of one run (tp, pp, schedule set): recompute, TP overlap,
 * dtype, side traffic, all-to-all overlap */
static void variants(culonx_run *run, cx_cost *c, cx_cost *d, cx_cost *x, cx_cost_clocks *t,
                     const double *clk, counts *n)
{
    culonx_execution *e = &run->exec;
    const culonx_execution base = *e;
    const int moe = run->model.arch == CULONX_ARCH_MOE;
    const int side[4][3] = {/* zero, offload, deepspeed */
                            {-1, 0, 0},
                            {3, 0, 0},
                            {3, CULONX_OFFLOAD_WEIGHTS, 1},
                            {2, CULONX_OFFLOAD_ACTIVATIONS | CULONX_OFFLOAD_OPTIMIZER, 0}};
    culonx_error err;
    for (int rc = 0; rc < 3; rc++)
        for (int tpo = 0; tpo < (e->tp > 1 ? 3 : 1); tpo++)
            for (int fp8 = 0; fp8 < 2; fp8++)
                for (int sd = 0; sd < 4; sd++)
                    for (int a2a = 0; a2a < (moe ? 3 : 1); a2a++) {
                        *e = base;
                        e->recompute = (culonx_recompute)rc;
                        e->tp_overlap = (culonx_tp_overlap)tpo;
                        if (fp8) e->dtype = CULONX_DTYPE_FP8;
                        if (side[sd][0] >= 0) {
                            e->zero = side[sd][0], e->distributed_optimizer = 1;
                            e->offload = side[sd][1];
                            e->zero_impl = (culonx_zero_impl)side[sd][2];
                        }
                        if (moe) e->a2a_overlap = (culonx_a2a_overlap)a2a;
                        /* built at one clock of the list, keyed at all */
                        const double f0 = clk[(rc + 3 * sd + a2a) % NCLK];
                        e->clock_mhz = f0;
                        if (cx_core_cost_build(run, f0, c, &err) != CULONX_OK) continue;
                        n->builds++;
                        n->sched[e->schedule]++;
                        check_clocks(c, d, clk, n);
                        check_table(c, d, x, t, clk, n);
                    }
    *e = base;
}

static void one_config(const char *path, cx_cost *c, cx_cost *d, cx_cost *x, cx_cost_clocks *t,
                       counts *n)
{
    culonx_error err;
    culonx_run *run = calloc(1, sizeof *run);
    CU_ASSERT_FATAL(run != NULL);
    if (culonx_run_load(path, NULL, 0, NULL, run, &err) != CULONX_OK) {
        free(run);
        return;
    }
    n->cfgs++;
    culonx_execution *e = &run->exec;
    const culonx_execution base = *e;
    const culonx_gpu *g = &run->system.gpu;
    const double fmax = g->max_mhz > 0 ? g->max_mhz : 1500.0;
    const double fmin = g->min_mhz > 0 && g->min_mhz < fmax ? g->min_mhz : 0.3 * fmax;
    double clk[NCLK];
    for (int i = 0; i < NCLK - 1; i++)
        clk[i] = fmin + (fmax - fmin) * i / (NCLK - 2);
    clk[NCLK - 1] = 0;                         /* the GPU's max */
    cx_core_cost_clocks_set(t, clk, NCLK - 1); /* the sweep's clocks (0 not among them) */
    const int64_t pps[3] = {base.pp, 2, 4};
    for (int s = 0; s < culonx_schedule_count(); s++)
        for (int q = 0; q < 3; q++) {
            if (q > 0 && pps[q] == base.pp) continue;
            *e = base;
            e->schedule = (culonx_schedule)s;
            e->pp = pps[q];
            e->vp = s == CULONX_SCHED_INTERLEAVED ? 2 : 1;
            const int64_t cp = e->cp > 1 ? e->cp : 1;
            if (e->gpus % (e->tp * e->pp * cp) != 0) continue;
            e->dp = e->gpus / (e->tp * e->pp * cp);
            variants(run, c, d, x, t, clk, n);
        }
    /* a memory-only build keeps no times: refused */
    *e = base;
    if (cx_core_cost_build_mem(run, 0, c, &err) == CULONX_OK && !c->priced) {
        double k[MAXKEY];
        CU_ASSERT_EQUAL(cx_core_cost_time_key_at(c, 0, k), 0);
    }
    free(run);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_key_is_reprice(void)
{
    cx_cost *c = malloc(sizeof *c), *d = malloc(sizeof *d), *x = malloc(sizeof *x);
    cx_cost_clocks *t = cx_core_cost_clocks_new();
    CU_ASSERT_FATAL(c && d && x && t);
    counts n;
    memset(&n, 0, sizeof n);
    DIR *dir = opendir("configs");
    CU_ASSERT_FATAL(dir != NULL);
    char *names[256];
    int nn = 0;
    for (struct dirent *de; (de = readdir(dir)) && nn < 256;) {
        const size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".xml")) {
            names[nn] = malloc(l + 9);
            CU_ASSERT_FATAL(names[nn] != NULL);
            snprintf(names[nn++], l + 9, "configs/%s", de->d_name);
        }
    }
    closedir(dir);
    qsort(names, (size_t)nn, sizeof names[0], by_name);
    for (int i = 0; i < nn; i++) {
        one_config(names[i], c, d, x, t, &n);
        free(names[i]);
    }
    printf("\n  %ld configs, %ld builds, %ld keys bit for bit (%ld under a binding power limit), "
           "%ld refused; %ld table reprices bit for bit (%ld from the table)\n",
           n.cfgs, n.builds, n.keys, n.capped, n.refused, n.table, n.table_served);
    CU_ASSERT(n.table_served > 2000);
    CU_ASSERT(n.table_served < n.table); /* and it declines (overlap, side traffic, limit) */
    CU_ASSERT(n.cfgs >= 10);
    CU_ASSERT(n.keys > 100000);
    CU_ASSERT(n.capped > 10000); /* the A100 configs' limit binds at high clocks */
    CU_ASSERT(n.refused == 0);
    for (int s = 0; s < culonx_schedule_count(); s++)
        CU_ASSERT(n.sched[s] > 100);
    free(c), free(d), free(x);
    cx_core_cost_clocks_free(t);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
    CU_pSuite s = CU_add_suite("cost_key_clock", NULL, NULL);
    CU_add_test(s, "the key at a clock is the reprice's, bit for bit", test_key_is_reprice);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
