/*
 * fuzz_config.c — libFuzzer harness for the config loader (core/input/config.c).
 * Each input is a run file loaded with culonx_run_load_buffer (named
 * tests/bad/fuzz.xml, so relative model/system references resolve against
 * tests/bad/ from the source root); its first line, up to 200 bytes, is also
 * tried as a "--set" assignment on a known-good run. Bad input must give
 * CULONX_OK or CULONX_EINPUT, never a crash, a sanitizer report or
 * CULONX_EINTERNAL (other than out of memory); a run with <serving> is also
 * evaluated (culonx_serve_eval, a small culonx_serve_plan_solve). Built with CULONX_FUZZ=ON
 * (clang); ctest runs it for 20 s as fuzz_config_bounded.
 */
#include "culonx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect_input_status(culonx_status st, const culonx_error *err)
{
    if (st == CULONX_OK || st == CULONX_EINPUT) return;
    if (st == CULONX_EINTERNAL && strstr(err->msg, "out of memory")) return;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culonx_run run;
    culonx_error err;
    culonx_status st =
        culonx_run_load_buffer("tests/bad/fuzz.xml", (const char *)data, size, NULL, &run, &err);
    expect_input_status(st, &err);
    if (st == CULONX_OK) expect_input_status(culonx_run_check(&run, &err), &err);
    if (st == CULONX_OK && run.has_serving) {
        /* a serving run: one row and a small plan must not crash either */
        culonx_serve_row row;
        expect_input_status(culonx_serve_eval(&run, run.serving.tp, 0, &row, &err), &err);
        if (run.serving.load_tokens_per_s > 0) {
            static culonx_serve_plan plan;
            expect_input_status(culonx_serve_plan_solve(&run, 8, 0, 0, 1e4, &plan, &err), &err);
        }
    }

    static culonx_run good;
    static int have_good = -1;
    if (have_good < 0)
        have_good = culonx_run_load("configs/gpt3-175b.xml", NULL, 0, NULL, &good, &err) == 0;
    if (have_good) {
        char set[201];
        size_t n = 0;
        while (n < size && n < 200 && data[n] != '\n' && data[n] != '\0') {
            set[n] = (char)data[n];
            n++;
        }
        set[n] = '\0';
        culonx_run r = good;
        st = culonx_run_set(&r, set, &err);
        expect_input_status(st, &err);
        if (st == CULONX_OK) expect_input_status(culonx_run_check(&r, &err), &err);
    }
    return 0;
}
