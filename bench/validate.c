/*
 * validate.c — accuracy of culonx against published measurements.
 *
 * For every row of ../shared/data/measured-public.csv and
 * vtrain-single-node.csv that culonx can express (see bench/data.h for the
 * data sets and the assumptions made for each), runs the closed-form
 * estimate and prints predicted vs measured iteration time and the error;
 * then the mean absolute percentage error (MAPE) and max error per data set.
 *
 * usage: bench_validate [DATA_DIR] [--quiet]   (default ../shared/data)
 * Run from the repository root (it loads configs/megatron-1t.xml).
 */
#include "culonx.h"
#include "data.h"

#include <math.h>

int main(int argc, char **argv)
{
    const char *dir = "../shared/data";
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
        else dir = argv[i];
    }
    bench_rows rs;
    memset(&rs, 0, sizeof rs);
    culonx_run base;
    if (bench_load_all(&rs, dir, &base) != 0) return 1;

    const char *sets[] = {"SC21-T1", "SC21-T2", "BLOOM", "vTrain"};
    double sum[4] = {0}, mx[4] = {0};
    int cnt[4] = {0};
    if (!quiet) printf("%-8s %-44s %12s %12s %8s\n", "set", "row", "measured_s", "predicted_s", "error");
    for (int i = 0; i < rs.n; i++) {
        bench_row *r = &rs.rows[i];
        culonx_result res;
        culonx_error err;
        if (culonx_estimate(&r->run, &res, &err) != CULONX_OK) {
            printf("%-8s %-44s error: %s\n", r->set, r->label, err.msg);
            continue;
        }
        double e = (res.iteration_time_s - r->measured_s) / r->measured_s;
        int k = 0;
        while (k < 4 && strcmp(sets[k], r->set)) k++;
        if (k < 4) {
            sum[k] += fabs(e);
            mx[k] = fmax(mx[k], fabs(e));
            cnt[k]++;
        }
        if (!quiet || k < 3)
            printf("%-8s %-44s %12.4f %12.4f %+7.1f%%%s\n", r->set, r->label, r->measured_s,
                   res.iteration_time_s, 100 * e, res.memory.fits ? "" : "  (predicted OOM)");
    }
    printf("\n%-8s %6s %8s %8s\n", "set", "rows", "MAPE", "max");
    for (int k = 0; k < 4; k++)
        if (cnt[k])
            printf("%-8s %6d %7.2f%% %7.2f%%\n", sets[k], cnt[k], 100 * sum[k] / cnt[k], 100 * mx[k]);
    printf("skipped %d rows:\n", rs.skipped);
    for (int i = 0; i < rs.nskip_reasons; i++) printf("  %s\n", rs.skip_reason[i]);
    free(rs.rows);
    return 0;
}
