/*
 * fuzz_sweep_options.c — libFuzzer harness for the sweep's option parser
 * (culonx_sweep_option, core/search/options.c): each line of the input is
 * "name=value" (value lists "8", "1,2,4", "A:B:STEP", names, on/off); every
 * call must give CULONX_OK or CULONX_EUSAGE, never a crash or a sanitizer
 * report, and the lists it builds must stay sorted, unique and in bounds.
 * Seeds: tests/fuzz/sweep. Built with CULONX_FUZZ=ON.
 */
#include "culonx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static culonx_sweep_spec spec;
    culonx_sweep_spec_init(&spec);
    char line[512];
    size_t i = 0;
    while (i < size) {
        size_t n = 0;
        while (i < size && data[i] != '\n' && n < sizeof line - 1)
            line[n++] = (char)data[i++];
        while (i < size && data[i] != '\n')
            i++;
        i++;
        line[n] = '\0';
        if (memchr(line, '\0', n)) continue;
        char *eq = strchr(line, '=');
        const char *value = eq ? eq + 1 : "";
        if (eq) *eq = '\0';
        culonx_error err;
        culonx_status st = culonx_sweep_option(&spec, line, value, &err);
        if (st != CULONX_OK && st != CULONX_EUSAGE) abort();
        if (st != CULONX_OK && !err.msg[0]) abort();
    }
    for (int d = 0; d < CULONX_SWEEP_NDIMS; d++) {
        const culonx_sweep_list *l = &spec.list[d];
        if (l->n < 0 || l->n > CULONX_SWEEP_MAX_VALUES) abort();
        for (int k = 1; k < l->n; k++)
            if (l->v[k] <= l->v[k - 1]) abort();
    }
    return 0;
}
