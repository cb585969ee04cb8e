/*
 * fuzz_power_xml.c — libFuzzer harness for the <power> XML reader that
 * dvfs-predict uses (cx_core_power_parse_xml, core/input/dvfs.c): bad input
 * must give CULONX_OK or CULONX_EINPUT, never a crash or a sanitizer
 * report; a model that loads must predict finite times and powers. Seeds:
 * configs/power. Built with CULONX_FUZZ=ON.
 */
#include "culonx.h"
#include "core/input/xml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culonx_dvfs_model m;
    culonx_error err;
    culonx_status st = cx_core_power_parse_xml("fuzz.xml", (const char *)data, size, &m, &err);
    if (st != CULONX_OK && st != CULONX_EINPUT) {
        if (st == CULONX_EINTERNAL && strstr(err.msg, "out of memory")) return 0;
        abort();
    }
    if (st == CULONX_OK && m.max_mhz > 0) {
        culonx_dvfs_row r;
        memset(&r, 0, sizeof r);
        r.core_mhz = m.max_mhz, r.time_ms = 1, r.power_w = 100;
        r.sm_active = 0.9, r.dram_active = 0.5, r.fp32_active = 0.5;
        double clk[2] = {m.max_mhz * 0.5, m.max_mhz};
        culonx_dvfs_point pt[2];
        if (culonx_dvfs_predict(&m, &r, 1, clk, 2, pt, &err) == CULONX_OK)
            for (int i = 0; i < 2; i++)
                if (!isfinite(pt[i].time_ms) || !isfinite(pt[i].power_w)) abort();
    }
    return 0;
}
