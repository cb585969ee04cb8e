/*
 * validate.c — accuracy of culonx against published measurements.
 *
 * For every row of bench/data/measured-public.csv and
 * vtrain-single-node.csv that culonx can express (see bench/data.h for the
 * data sets and the assumptions made for each, bench/data/README.md for
 * their provenance), runs the closed-form estimate and prints predicted vs
 * measured iteration time and the error; then the mean absolute percentage
 * error (MAPE) and max error per data set.
 *
 * usage: bench_validate [DATA_DIR] [--quiet] [--check]
 * DATA_DIR defaults to the repository's bench/data. A missing table prints
 * "SKIP <set>: <path> missing" and the exit status is 77 (ctest's skip
 * code), never 0. --check (the ctest validate_data) turns a missing table
 * into a failure and fails when a set's MAPE exceeds its bound in `bound`
 * below: generous ceilings over today's errors, a guard against regressions,
 * not accuracy claims.
 */
#include "culonx.h"
#include "data.h"
#include "data_moe.h"

#include <math.h>

int main(int argc, char **argv)
{
    const char *dir = CX_BENCH_DATA_DIR;
    int quiet = 0, check = 0, missing = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0)
            quiet = 1;
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else
            dir = argv[i];
    }
    bench_rows rs;
    memset(&rs, 0, sizeof rs);
    culonx_run base;
    if (bench_load_all(&rs, dir, &base, &missing) != 0) return 1;

    char path[1024];
    snprintf(path, sizeof path, "%s/moe-public.csv", dir);
    if (bench_load_moe(&rs, path) != 0) {
        printf("SKIP MoE: %s missing\n", path);
        missing++;
    }

    enum { NSETS = 10 };
    const char *sets[NSETS] = {"SC21-T1", "SC21-T2", "SC21-Z3", "MPT",     "BLOOM",
                               "BLOOM-U", "H100",    "MoE",     "H100-1G", "vTrain"};
    /* --check: MAPE ceilings, generous on purpose (regressions, not targets:
     * the H100 target of issue 9 is 10% and is reported, not asserted);
     * SC21-Z3 and MPT: issue 10's target, 12%; 0: reported only — H100-1G
     * (compute on one GPU: where the whole-iteration fit stands) and the MoE row
     * measures what culonx does not model yet, bench/data_moe.h */
    const double bound[NSETS] = {0.05, 0.06, 0.12, 0.12, 0.10, 0.20, 0.12, 0, 0, 0.15};
    int failed = 0;
    double sum[NSETS] = {0}, mx[NSETS] = {0};
    int cnt[NSETS] = {0};
    if (!quiet)
        printf("%-8s %-44s %12s %12s %8s\n", "set", "row", "measured_s", "predicted_s", "error");
    for (int i = 0; i < rs.n; i++) {
        bench_row *r = &rs.rows[i];
        culonx_result res;
        culonx_error err;
        if (bench_estimate(r, &res, &err) != CULONX_OK) {
            printf("%-8s %-44s error: %s\n", r->set, r->label, err.msg);
            failed = 1;
            continue;
        }
        const double pred_s = bench_predicted_s(r, &res);
        double e = (pred_s - r->measured_s) / r->measured_s;
        int k = 0;
        while (k < NSETS && strcmp(sets[k], r->set))
            k++;
        if (k < NSETS) {
            sum[k] += fabs(e);
            mx[k] = fmax(mx[k], fabs(e));
            cnt[k]++;
        }
        if (!quiet || k < NSETS - 1)
            printf("%-8s %-44s %12.4f %12.4f %+7.1f%%%s", r->set, r->label, r->measured_s, pred_s,
                   100 * e, res.memory.fits ? "" : "  (predicted OOM)");
        if ((!quiet || k < NSETS - 1) && r->tune_microbatch > 0)
            printf("  mb%lld vp%lld", (long long)r->run.exec.microbatch, (long long)r->run.exec.vp);
        if (!quiet || k < NSETS - 1) printf("\n");
    }
    printf("\n%-8s %6s %8s %8s\n", "set", "rows", "MAPE", "max");
    for (int k = 0; k < NSETS; k++) {
        if (!cnt[k]) {
            if (check && !missing) printf("%-8s no rows: FAIL\n", sets[k]), failed = 1;
            continue;
        }
        double mape = sum[k] / cnt[k];
        printf("%-8s %6d %7.2f%% %7.2f%%", sets[k], cnt[k], 100 * mape, 100 * mx[k]);
        if (check && bound[k] <= 0) printf("   reported, not asserted");
        if (check && bound[k] > 0) {
            printf("   bound %.0f%%: %s", 100 * bound[k], mape <= bound[k] ? "ok" : "EXCEEDED");
            if (mape > bound[k]) failed = 1;
        }
        printf("\n");
    }
    /* Sensitivity (printed, never asserted): the H100 table states neither
     * microbatch nor interleaving; the set above assumes microbatch 1 and
     * 1F1B. With each row at the microbatch and interleaving that culonx
     * predicts fastest among those that fit (what a throughput-tuned
     * benchmark would run), the same rows give: */
    double tsum = 0, tmax = 0;
    int tn = 0;
    for (int i = 0; i < rs.n; i++) {
        bench_row t = rs.rows[i];
        if (strcmp(t.set, "H100")) continue;
        t.tune_microbatch = 8;
        culonx_result res;
        culonx_error err;
        if (bench_estimate(&t, &res, &err) != CULONX_OK) continue;
        const double e = fabs(bench_predicted_s(&t, &res) - t.measured_s) / t.measured_s;
        tsum += e, tmax = fmax(tmax, e), tn++;
        if (!quiet)
            printf("  tuned %-38s %+7.1f%%  mb%lld vp%lld\n", t.label,
                   100 * (bench_predicted_s(&t, &res) - t.measured_s) / t.measured_s,
                   (long long)t.run.exec.microbatch, (long long)t.run.exec.vp);
    }
    if (tn)
        printf("H100 with tuned microbatch and interleaving (sensitivity, not a claim): "
               "%d rows, MAPE %.2f%%, max %.2f%%\n",
               tn, 100 * tsum / tn, 100 * tmax);
    printf("skipped %d rows:\n", rs.skipped);
    for (int i = 0; i < rs.nskip_reasons; i++)
        printf("  %s\n", rs.skip_reason[i]);
    free(rs.rows);
    if (missing) {
        printf("%d data set(s) skipped: %s\n", missing,
               check ? "FAIL (the tables ship in bench/data)" : "SKIP");
        return check ? 1 : BENCH_EXIT_SKIP;
    }
    if (check) printf("validate_data: %s\n", failed ? "FAIL" : "ok");
    return check && failed ? 1 : 0;
}
