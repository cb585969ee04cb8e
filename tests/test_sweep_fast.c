/*
 * test_sweep_fast.c — the sweep's shortcuts that must not change a result
 * (core/README.md, "Sweeps", "Clock-independent work, done once"): memory
 * first (a candidate that does not fit is settled from its exact peak
 * memory, its cost possibly built for memory only, and never timed) gives
 * the counts, top K and frontier of timing every candidate (--all), with
 * and without ZeRO-2/3 (whose side traffic forces whole builds), on 1 and 2
 * threads. The bit-for-bit check of memory-only builds against cold
 * evaluations is in test_sweep.c (test_bounds_sound).
 */
#define _POSIX_C_SOURCE 200809L

#include "culonx.h"
#include "sweep_fixture.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Memory first (core/README.md, "Sweeps"): without --all a candidate that
 * does not fit is settled from its exact peak memory (its cost possibly
 * built for memory only) and never timed; with --all every one is timed.
 * Both give the same counts, top K and frontier to the bit. */
static void test_memory_first(void)
{
    for (int space = 0; space < 2; space++)
        for (int t = 1; t <= 2; t++) {
            culonx_run run;
            culonx_sweep_spec *s = spec_new();
            tiny(&run, 16, 4, 64, 256);
            run.model.hidden = 2048, run.model.heads = 16, run.model.kv_heads = 16;
            run.model.ffn = 8192, run.model.seq = 1024;
            opt(s, "clocks", "1410,1000,800");
            opt(s, "dp-overlap", "on,off");
            opt(s, "max-memory-gib", space ? "4" : "7");
            if (space) opt(s, "zero", "0,1,2,3");
            opt(s, "objective", space ? "energy" : "time");
            opt(s, "threads", t == 1 ? "1" : "2");
            opt(s, "no-prune", ""); /* --all does not prune */
            culonx_sweep_result *R[2] = {NULL, NULL};
            culonx_error err;
            for (int all = 0; all < 2; all++) {
                FILE *a = all ? tmpfile() : NULL;
                s->all = a;
                CU_ASSERT_EQUAL_FATAL(culonx_sweep_run(&run, s, &R[all], &err), CULONX_OK);
                s->all = NULL;
                if (a) fclose(a);
            }
            const culonx_sweep_result *A = R[0], *B = R[1];
            CU_ASSERT(A->rejected[CULONX_REJECT_MEMORY] > 0 && A->feasible > 0);
            CU_ASSERT_EQUAL(A->evaluated, B->evaluated);
            CU_ASSERT_EQUAL(A->feasible, B->feasible);
            CU_ASSERT(memcmp(A->rejected, B->rejected, sizeof A->rejected) == 0);
            CU_ASSERT_EQUAL_FATAL(A->ntop, B->ntop);
            CU_ASSERT_EQUAL_FATAL(A->nfront, B->nfront);
            for (int k = 0; k < A->ntop; k++)
                CU_ASSERT(A->top[k].index == B->top[k].index &&
                          memcmp(&A->top[k].res, &B->top[k].res, sizeof A->top[k].res) == 0);
            for (int k = 0; k < A->nfront; k++)
                CU_ASSERT(A->front[k].index == B->front[k].index &&
                          memcmp(&A->front[k].res, &B->front[k].res, sizeof A->front[k].res) == 0);
            culonx_sweep_result_free(R[0]);
            culonx_sweep_result_free(R[1]);
            free(s);
        }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("sweep_fast", NULL, NULL);
    CU_add_test(s, "memory first: the counts and results of timing every candidate",
                test_memory_first);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
