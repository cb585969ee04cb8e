/*
 * fuzz_dvfs_csv.c — libFuzzer harness for the DVFS clock-table CSV reader
 * (core/input/dvfs.c): each input is parsed with culonx_dvfs_csv_parse; a
 * table that loads is reduced to its profile rows and, when small (<= 24 rows), fitted
 * (culonx_power_calibrate) and predicted at a few clocks. Bad input must
 * give CULONX_OK or CULONX_EINPUT, never a crash, a sanitizer report or
 * CULONX_EINTERNAL (other than out of memory or LAPACKE missing); outputs
 * must be finite. Seeds: tests/fuzz/csv. Built with CULONX_FUZZ=ON.
 */
#include "culonx.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect_input_status(culonx_status st, const culonx_error *err)
{
    if (st == CULONX_OK || st == CULONX_EINPUT) return;
    if (st == CULONX_EINTERNAL &&
        (strstr(err->msg, "out of memory") || strstr(err->msg, "LAPACKE")))
        return;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culonx_dvfs_table t, prof;
    culonx_error err;
    culonx_status st = culonx_dvfs_csv_parse("fuzz.csv", (const char *)data, size, &t, &err);
    expect_input_status(st, &err);
    if (st != CULONX_OK) return 0;
    st = culonx_dvfs_profile_rows(&t, &prof, &err);
    expect_input_status(st, &err);
    int have_prof = st == CULONX_OK;
    if (have_prof && t.nrows <= 24) {
        culonx_dvfs_model m;
        culonx_power_fit fit;
        st = culonx_power_calibrate(&t, NULL, &m, &fit, &err);
        expect_input_status(st, &err);
        if (st == CULONX_OK && m.max_mhz > 0 && prof.nrows > 0) {
            double clk[3] = {m.max_mhz * 0.5, m.max_mhz * 0.75, m.max_mhz};
            culonx_dvfs_point pt[3];
            if (culonx_dvfs_predict(&m, prof.rows, 1, clk, 3, pt, &err) == CULONX_OK)
                for (int i = 0; i < 3; i++)
                    if (!isfinite(pt[i].time_ms) || !isfinite(pt[i].power_w)) abort();
        }
    }
    if (have_prof) culonx_dvfs_table_free(&prof);
    culonx_dvfs_table_free(&t);
    return 0;
}
