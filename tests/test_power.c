/*
 * test_power.c — the GPU power/DVFS model (hw/power.c), its calibration
 * (hw/calibrate.c: NNLS, synthetic recovery) and the public DVFS API
 * (core/input/dvfs.c: DVFS clock-table CSV, <power> XML, profile-once prediction).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include "culonx.h"
#include "hw/calibrate.h"
#include "hw/power.h"

#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static culonx_gpu gpu_named(const char *name)
{
    culonx_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "%s", name);
    if (strstr(name, "H100")) {
        g.matrix16_tflops = 989;
        g.vector_tflops = 67;
        g.hbm_gbps = 3350;
        g.min_mhz = 210;
        g.max_mhz = 1980;
        g.step_mhz = 15;
        g.tdp_w = 700;
        g.idle_w = 80;
    } else {
        g.matrix16_tflops = 312;
        g.vector_tflops = 19.5;
        g.hbm_gbps = 2039;
        g.min_mhz = 210;
        g.max_mhz = 1410;
        g.step_mhz = 15;
        g.tdp_w = 400;
    }
    culonx_power_default(&g);
    return g;
}

static void test_nnls(void)
{
    /* min ||A x - b|| with x >= 0; unconstrained solution has x1 < 0 */
    const double a[] = {1, 0, 1, 0, 1, 1}; /* columns (1,0,1), (0,1,1) */
    const double b[] = {2, -1, 1};
    double x[2], rss;
    CU_ASSERT_EQUAL(cx_hw_nnls(a, 3, 2, b, x, &rss), 0);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 1.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(rss, 0.25 + 1 + 0.25, 1e-12);
    /* exact non-negative solution is recovered */
    const double b2[] = {2, 3, 5};
    CU_ASSERT_EQUAL(cx_hw_nnls(a, 3, 2, b2, x, &rss), 0);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 2.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 3.0, 1e-12);
}

static unsigned lcg_state = 12345u;
static double urand(void);

static void test_lsq_robust(void)
{
    /* y = 2 + 3 x1 - x2 exactly, plus one gross outlier: Huber recovers the
     * coefficients (plain LS does not); tiny ridge on the slopes only */
    enum { M = 40 };
    double a[3 * M], b[M], x[3] = {0, 0, 0};
    const double pen[3] = {0, 1, 1};
    for (int i = 0; i < M; i++) {
        double x1 = urand(), x2 = urand();
        a[i] = 1.0;
        a[M + i] = x1;
        a[2 * M + i] = x2;
        b[i] = 2.0 + 3.0 * x1 - x2;
    }
    CU_ASSERT_EQUAL(cx_hw_lsq_robust(a, M, 3, b, pen, 0.0, 0, x), 0);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 2.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(x[2], -1.0, 1e-9);
    b[7] += 50.0;
    double xl[3] = {0, 0, 0};
    CU_ASSERT_EQUAL(cx_hw_lsq_robust(a, M, 3, b, pen, 1e-12, 0, xl), 0);
    CU_ASSERT(fabs(xl[0] - 2.0) > 0.1);
    CU_ASSERT_EQUAL(cx_hw_lsq_robust(a, M, 3, b, pen, 1e-12, 1, x), 0);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 2.0, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 3.0, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(x[2], -1.0, 1e-3);
}

static double urand(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (double)(lcg_state >> 8) / 16777216.0;
}

static void test_synthetic_recovery(void)
{
    culonx_power_model truth;
    memset(&truth, 0, sizeof truth);
    const double fmax = 1500.0;
    truth.const_w = 30.0;
    truth.static_w = 45.0;
    truth.knee_mhz = 905.0;
    truth.v_min = 0.68;
    truth.v_slope = (1.0 - 0.68) * 1000.0 / (fmax - truth.knee_mhz);
    truth.tensor_w = 180.0;
    truth.fp_w = 90.0;
    truth.sm_w = 40.0;
    truth.dram_w = 25.0;
    enum { NK = 40, NC = 10 };
    static culonx_dvfs_row rows[NK * NC];
    const culonx_dvfs_row *ptr[NK * NC];
    int n = 0;
    for (int k = 0; k < NK; k++) {
        double ut = urand(), uf = urand(), us = 0.5 + 0.5 * urand(), ud = urand();
        for (int c = 0; c < NC; c++) {
            culonx_dvfs_row *r = &rows[n];
            memset(r, 0, sizeof *r);
            r->core_mhz = 600.0 + 100.0 * c;
            r->tensor_active = ut * (0.8 + 0.2 * urand());
            r->fp16_active = 0.0;
            r->fp32_active = uf * (0.8 + 0.2 * urand());
            r->fp64_active = 0.0;
            r->sm_active = us;
            r->dram_active = ud * (0.8 + 0.2 * urand());
            cx_hw_util u = cx_hw_dvfs_row_util(r);
            r->power_w = cx_hw_power_w_at(&truth, fmax, r->core_mhz, &u);
            ptr[n] = r;
            n++;
        }
    }
    culonx_power_model fit;
    memset(&fit, 0, sizeof fit);
    double rss;
    CU_ASSERT_EQUAL_FATAL(cx_hw_calibrate_power(ptr, (size_t)n, fmax, &fit, &rss), 0);
    const double tol = 1e-6;
    CU_ASSERT_DOUBLE_EQUAL(fit.const_w, truth.const_w, tol * truth.const_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.static_w, truth.static_w, tol * truth.static_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.tensor_w, truth.tensor_w, tol * truth.tensor_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.fp_w, truth.fp_w, tol * truth.fp_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.sm_w, truth.sm_w, tol * truth.sm_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.dram_w, truth.dram_w, tol * truth.dram_w);
    CU_ASSERT_DOUBLE_EQUAL(fit.knee_mhz, truth.knee_mhz, tol * truth.knee_mhz);
    CU_ASSERT_DOUBLE_EQUAL(fit.v_min, truth.v_min, tol * truth.v_min);
    CU_ASSERT_DOUBLE_EQUAL(fit.v_slope, truth.v_slope, tol * truth.v_slope);
    CU_ASSERT(rss < 1e-12);
}

static void test_time_scaling(void)
{
    const char *names[] = {"A100", "H100"};
    for (int g = 0; g < 2; g++) {
        culonx_gpu gpu = gpu_named(names[g]);
        double f = 0.6 * gpu.max_mhz;
        /* memory-bound op: 97% of its time in HBM traffic */
        double m1 = cx_hw_power_time_s(&gpu.power, &gpu, gpu.max_mhz, 0.97e-3, 0.03e-3);
        double m2 = cx_hw_power_time_s(&gpu.power, &gpu, f, 0.97e-3, 0.03e-3);
        CU_ASSERT(m2 / m1 < 1.05);
        CU_ASSERT(m2 / m1 >= 1.0);
        /* compute-bound op: ~ 1/f */
        double c1 = cx_hw_power_time_s(&gpu.power, &gpu, gpu.max_mhz, 0.0, 1e-3);
        double c2 = cx_hw_power_time_s(&gpu.power, &gpu, f, 0.0, 1e-3);
        CU_ASSERT_DOUBLE_EQUAL(c2 / c1, 1.0 / 0.6, 1e-9);
        /* same through profile-once prediction with a datasheet model */
        culonx_dvfs_model d;
        memset(&d, 0, sizeof d);
        d.power = gpu.power;
        d.max_mhz = gpu.max_mhz;
        culonx_dvfs_row r[2];
        memset(r, 0, sizeof r);
        r[0].core_mhz = r[1].core_mhz = gpu.max_mhz;
        r[0].time_ms = r[1].time_ms = 1.0;
        r[0].power_w = r[1].power_w = 300.0;
        r[0].dram_active = 0.98; /* memory-bound */
        r[0].sm_active = r[1].sm_active = 1.0;
        r[1].tensor_active = 0.8; /* compute-bound */
        r[1].dram_active = 0.05;
        double clk[2] = {gpu.max_mhz, f};
        culonx_dvfs_point pt[4];
        culonx_error err;
        CU_ASSERT_EQUAL_FATAL(culonx_dvfs_predict(&d, r, 2, clk, 2, pt, &err), CULONX_OK);
        CU_ASSERT(pt[1].time_ms / pt[0].time_ms < 1.05);
        CU_ASSERT_DOUBLE_EQUAL(pt[3].time_ms / pt[2].time_ms, 1.0 / 0.6, 0.1);
        for (int i = 0; i < 4; i++) /* energy = power x time (mJ = W x ms) */
            CU_ASSERT_DOUBLE_EQUAL(pt[i].energy_millijoules, pt[i].power_w * pt[i].time_ms, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(pt[0].power_w, 300.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(pt[2].power_w, 300.0, 1e-9);
        CU_ASSERT(pt[3].power_w < pt[2].power_w);
    }
}

/* Energy of one training-iteration-like op (t_mem + t_compute at f_max) at f. */
static double op_energy_j(const culonx_gpu *g, double f, double t_mem, double t_comp, double ut)
{
    double t = cx_hw_power_time_s(&g->power, g, f, t_mem, t_comp);
    double tc = t_comp * g->max_mhz / f;
    cx_hw_util u;
    u.tensor = ut * tc / t; /* tensor pipes busy while computing */
    u.fp = 0.1 * tc / t;
    u.sm = 1.0;
    u.dram = 0.9 * (t_mem + 0.2 * t_comp) / t; /* same bytes, over a longer time */
    if (u.dram > 1.0) u.dram = 1.0;
    return cx_hw_power_w(&g->power, g, f, &u) * t;
}

static void test_u_shape(void)
{
    const char *names[] = {"A100", "H100"};
    const double mix[2][2] = {{0.0, 1.0}, {0.35, 0.65}}; /* compute-bound, mixed */
    for (int g = 0; g < 2; g++) {
        culonx_gpu gpu = gpu_named(names[g]);
        CU_ASSERT(gpu.power.present);
        CU_ASSERT(gpu.power.provenance[0] != '\0');
        CU_ASSERT(gpu.power.knee_mhz > 0.6 * gpu.max_mhz &&
                  gpu.power.knee_mhz < 0.75 * gpu.max_mhz);
        for (int w = 0; w < 2; w++) {
            double emin = HUGE_VAL, fbest = 0.0;
            double e_lo = 0.0, e_hi = 0.0;
            for (double f = gpu.min_mhz; f <= gpu.max_mhz + 1e-9; f += gpu.step_mhz) {
                double e = op_energy_j(&gpu, f, mix[w][0], mix[w][1], 0.8);
                if (f == gpu.min_mhz) e_lo = e;
                e_hi = e;
                if (e < emin) {
                    emin = e;
                    fbest = f;
                }
            }
            CU_ASSERT(fbest > gpu.min_mhz && fbest < gpu.max_mhz);
            CU_ASSERT(e_lo > 1.02 * emin);
            CU_ASSERT(e_hi > 1.02 * emin);
        }
    }
    /* datasheet anchors */
    culonx_gpu h = gpu_named("H100"), a = gpu_named("A100");
    CU_ASSERT_DOUBLE_EQUAL(cx_hw_power_idle_w(&h.power, &h, h.min_mhz), 80.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(cx_hw_power_blocked_w(&a.power, &a), 85.0, 1e-9);
    cx_hw_util full = {1.0, 0.0, 1.0, 1.0};
    CU_ASSERT_DOUBLE_EQUAL(cx_hw_power_w(&h.power, &h, h.max_mhz, &full), 700.0, 1e-9);
    /* per-op energies: lower clock, lower pJ/FLOP below the knee */
    double e_hi = cx_hw_power_tensor_pj_per_flop(&h.power, &h, h.max_mhz);
    double e_lo = cx_hw_power_tensor_pj_per_flop(&h.power, &h, 0.5 * h.max_mhz);
    CU_ASSERT(e_hi > 0.0 && e_lo < e_hi);
    double hbm = cx_hw_power_hbm_pj_per_byte(&h.power, &h);
    CU_ASSERT(hbm > 8.0 && hbm < 64.0); /* 1-8 pJ/bit */
}

static const char *hdr = "gpu,benchmark,kernel,input,core_mhz,mem_mhz,time_ms,power_w,"
                         "sm_active,sm_occupancy,dram_active,fp16_active,fp32_active,"
                         "fp64_active,tensor_active\n";
static const char *good = "V100,fam,k,i0,1380,877,1.5,150,0.9,0.5,0.1,0,0.2,0,0\n";

static void expect_bad(const char *body, int line, const char *needle)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s%s", hdr, good, body);
    culonx_dvfs_table s;
    culonx_error err;
    culonx_status st = culonx_dvfs_csv_parse("bad.csv", buf, strlen(buf), &s, &err);
    CU_ASSERT_EQUAL(st, CULONX_EINPUT);
    CU_ASSERT_EQUAL(err.line, line);
    CU_ASSERT_STRING_EQUAL(err.file, "bad.csv");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
    if (!strstr(err.msg, needle)) fprintf(stderr, "message was: %s\n", err.msg);
    CU_ASSERT_PTR_NULL(s.rows);
}

static void test_csv(void)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%sV100,fam,k,i0,405,877,5,40,,,,,,,\n", hdr, good);
    culonx_dvfs_table s;
    culonx_error err;
    CU_ASSERT_EQUAL_FATAL(culonx_dvfs_csv_parse("ok.csv", buf, strlen(buf), &s, &err), CULONX_OK);
    CU_ASSERT_EQUAL(s.nrows, 2);
    CU_ASSERT(isnan(s.rows[1].dram_active));
    CU_ASSERT_EQUAL(s.rows[1].line, 3);
    culonx_dvfs_table p;
    CU_ASSERT_EQUAL(culonx_dvfs_profile_rows(&s, &p, &err), CULONX_OK);
    CU_ASSERT_EQUAL(p.nrows, 1);
    CU_ASSERT_DOUBLE_EQUAL(p.rows[0].core_mhz, 1380, 0);
    culonx_dvfs_table_free(&p);
    culonx_dvfs_table_free(&s);
    culonx_dvfs_table_free(NULL);

    expect_bad("V100,fam,k,i1,1380,877,1.5,150,0.9\n", 3, "columns");
    expect_bad("V100,fam,k,i1,1380,877,abc,150,0.9,0.5,0.1,0,0.2,0,0\n", 3, "not a number");
    expect_bad("V100,fam,k,i1,1380,877,-1.5,150,0.9,0.5,0.1,0,0.2,0,0\n", 3, "negative");
    expect_bad("V100,fam,k,i1,1380,877,1.5,-150,0.9,0.5,0.1,0,0.2,0,0\n", 3, "negative");
    expect_bad("\nV100,fam,k,i1,1380,877,1.5,,0.9,0.5,0.1,0,0.2,0,0\n", 4, "empty");
    const char *nohdr = "gpu,benchmark,kernel,input,core_mhz,mem_mhz,time_ms,"
                        "sm_active,sm_occupancy,dram_active,fp16_active,fp32_active,"
                        "fp64_active,tensor_active\n";
    CU_ASSERT_EQUAL(culonx_dvfs_csv_parse("h.csv", nohdr, strlen(nohdr), &s, &err), CULONX_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "power_w"));
    CU_ASSERT_EQUAL(culonx_dvfs_csv_load("/nonexistent/x.csv", &s, &err), CULONX_EINPUT);
}

static void test_xml_roundtrip(void)
{
    culonx_dvfs_model m;
    memset(&m, 0, sizeof m);
    culonx_gpu g = gpu_named("H100");
    m.power = g.power;
    snprintf(m.power.provenance, sizeof m.power.provenance, "test <&> \"quoted\"");
    snprintf(m.gpu, sizeof m.gpu, "H100");
    m.max_mhz = 1980;
    m.nclocks = 3;
    const double clk[3] = {990, 1485, 1980};
    for (int i = 0; i < 3; i++) {
        m.clock_mhz[i] = clk[i];
        m.mem_scale[i] = 1.0 + 0.01 * (2 - i);
        m.compute_scale[i] = 1980.0 / clk[i];
        m.mem_power_scale[i] = 0.05 * (2 - i);
        m.mem_fp_scale[i] = 0.3 * (2 - i);
    }
    m.split_dram_lo = 0.4;
    m.split_dram_hi = 0.75;
    m.power_terms = CULONX_DVFS_POWER_TERMS;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < CULONX_DVFS_POWER_TERMS; k++)
            m.power_ratio[i][k] = 0.1 * (k + 1) - 0.05 * i - 0.2; /* some negative */
    char path[] = "/tmp/culonx_power_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    culonx_error err;
    CU_ASSERT_EQUAL(culonx_power_write_xml(f, &m, "a comment -- with dashes", &err), CULONX_OK);
    fclose(f);
    culonx_dvfs_model r;
    CU_ASSERT_EQUAL_FATAL(culonx_power_read_xml(path, &r, &err), CULONX_OK);
    const double tol = 1e-9;
    CU_ASSERT_DOUBLE_EQUAL(r.power.const_w, m.power.const_w, tol * m.power.const_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.static_w, m.power.static_w, tol * m.power.static_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.knee_mhz, m.power.knee_mhz, tol * m.power.knee_mhz);
    CU_ASSERT_DOUBLE_EQUAL(r.power.v_min, m.power.v_min, tol);
    CU_ASSERT_DOUBLE_EQUAL(r.power.v_slope, m.power.v_slope, tol * m.power.v_slope);
    CU_ASSERT_DOUBLE_EQUAL(r.power.tensor_w, m.power.tensor_w, tol * m.power.tensor_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.fp_w, m.power.fp_w, tol * m.power.fp_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.sm_w, m.power.sm_w, tol * m.power.sm_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.dram_w, m.power.dram_w, tol * m.power.dram_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.blocked_w, m.power.blocked_w, tol * m.power.blocked_w);
    CU_ASSERT_DOUBLE_EQUAL(r.power.time_exp, m.power.time_exp, tol);
    CU_ASSERT_STRING_EQUAL(r.power.provenance, m.power.provenance);
    CU_ASSERT_STRING_EQUAL(r.gpu, "H100");
    CU_ASSERT_EQUAL(r.nclocks, 3);
    CU_ASSERT_DOUBLE_EQUAL(r.max_mhz, 1980, 0);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_DOUBLE_EQUAL(r.clock_mhz[i], m.clock_mhz[i], tol);
        CU_ASSERT_DOUBLE_EQUAL(r.mem_scale[i], m.mem_scale[i], tol);
        CU_ASSERT_DOUBLE_EQUAL(r.compute_scale[i], m.compute_scale[i], tol);
        CU_ASSERT_DOUBLE_EQUAL(r.mem_power_scale[i], m.mem_power_scale[i], tol);
        CU_ASSERT_DOUBLE_EQUAL(r.mem_fp_scale[i], m.mem_fp_scale[i], tol);
    }
    CU_ASSERT_EQUAL(r.power_terms, CULONX_DVFS_POWER_TERMS);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < CULONX_DVFS_POWER_TERMS; k++)
            CU_ASSERT_DOUBLE_EQUAL(r.power_ratio[i][k], m.power_ratio[i][k], tol);
    CU_ASSERT_DOUBLE_EQUAL(r.split_dram_lo, 0.4, tol);
    CU_ASSERT_DOUBLE_EQUAL(r.split_dram_hi, 0.75, tol);
    /* bad fragments: unknown attribute, missing attribute, not XML */
    const char *bad[] = {
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "bogus=\"1\"/>",
        "<power const-w=\"1\"/>",
        "<power const-w=\"abc\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\"/>",
        "<?xml version=\"1.0\"?>\n<power\n",
        /* power-ratio of the wrong length (2 clocks want 12 numbers) */
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "clocks-mhz=\"1 2\" time-mem-scale=\"1 1\" time-compute-scale=\"2 1\" "
        "power-ratio=\"1 2 3\"/>",
        /* time-mem-power-scale of the wrong length, negative, without clocks */
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "clocks-mhz=\"1 2\" time-mem-scale=\"1 1\" time-compute-scale=\"2 1\" "
        "time-mem-power-scale=\"0.1\"/>",
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "clocks-mhz=\"1 2\" time-mem-scale=\"1 1\" time-compute-scale=\"2 1\" "
        "time-mem-power-scale=\"0.1 -1\"/>",
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "time-mem-power-scale=\"0.1 0.2\"/>",
        /* time-mem-fp-scale of the wrong length, negative, without clocks */
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "clocks-mhz=\"1 2\" time-mem-scale=\"1 1\" time-compute-scale=\"2 1\" "
        "time-mem-fp-scale=\"0.1\"/>",
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "clocks-mhz=\"1 2\" time-mem-scale=\"1 1\" time-compute-scale=\"2 1\" "
        "time-mem-fp-scale=\"0.1 -1\"/>",
        "<power const-w=\"1\" static-w=\"1\" knee-mhz=\"1\" v-min=\"1\" v-slope=\"1\" "
        "tensor-w=\"1\" fp-w=\"1\" sm-w=\"1\" dram-w=\"1\" blocked-w=\"1\" time-exp=\"1\" "
        "time-mem-fp-scale=\"0.1 0.2\"/>",
        "<other/>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fopen(path, "w");
        fputs(bad[i], f);
        fclose(f);
        CU_ASSERT_EQUAL(culonx_power_read_xml(path, &r, &err), CULONX_EINPUT);
        CU_ASSERT(err.line >= 1);
        CU_ASSERT_STRING_EQUAL(err.file, path);
    }
    remove(path);
}

#define V100_SWEEP CX_SOURCE_DIR "/bench/data/dvfs-v100-microbench.csv"

static int v100_sweep_present(void)
{
    FILE *fp = fopen(V100_SWEEP, "r");
    if (fp) fclose(fp);
    return fp != NULL;
}

static void test_shipped_and_data(void)
{
    const char *cfg[] = {"configs/power/v100.xml", "configs/power/rtx8000.xml",
                         "configs/power/a100.xml", "configs/power/h100.xml"};
    for (int i = 0; i < 4; i++) {
        culonx_dvfs_model m;
        culonx_error err;
        culonx_status st = culonx_power_read_xml(cfg[i], &m, &err);
        if (st != CULONX_OK) fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
        CU_ASSERT_EQUAL(st, CULONX_OK);
        CU_ASSERT(m.power.provenance[0] != '\0');
        CU_ASSERT(m.max_mhz > 0.0);
    }
    /* the real V100 sweep (bench/data): loads (one row has empty counters)
     * and calibrates; when the file is missing main() reports SKIP (77) */
    culonx_dvfs_table s;
    culonx_error err;
    if (!v100_sweep_present()) return;
    CU_ASSERT_EQUAL_FATAL(culonx_dvfs_csv_load(V100_SWEEP, &s, &err), CULONX_OK);
    CU_ASSERT_EQUAL(s.nrows, 1380);
    culonx_dvfs_model m;
    culonx_power_fit fit;
    CU_ASSERT_EQUAL(culonx_power_calibrate(&s, "shmembench", &m, &fit, &err), CULONX_OK);
    CU_ASSERT(fit.power_r2 > 0.8);
    CU_ASSERT(fit.time_r2 > 0.8);
    CU_ASSERT_EQUAL(fit.nclocks, 10);
    CU_ASSERT_EQUAL(m.power_terms, CULONX_DVFS_POWER_TERMS);
    /* profile-once energy on the rows it was fitted to: within 15% mean at
     * every clock; at the profiled clock the profile itself */
    for (int j = 0; j < fit.nclocks; j++)
        CU_ASSERT(fit.energy_mape[j] < 0.15);
    CU_ASSERT_DOUBLE_EQUAL(fit.energy_mape[fit.nclocks - 1], 0.0, 1e-12);
    CU_ASSERT_EQUAL(culonx_power_calibrate(&s, "no-such-family", &m, &fit, &err), CULONX_EINPUT);
    culonx_dvfs_table_free(&s);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("power", NULL, NULL);
    CU_add_test(s, "nnls", test_nnls);
    CU_add_test(s, "synthetic recovery to 1e-6", test_synthetic_recovery);
    CU_add_test(s, "robust (Huber) ridge least squares", test_lsq_robust);
    CU_add_test(s, "time scaling (memory vs compute bound), E = P*t", test_time_scaling);
    CU_add_test(s, "U-shaped energy for A100/H100 defaults", test_u_shape);
    CU_add_test(s, "DVFS clock-table CSV and bad input", test_csv);
    CU_add_test(s, "power XML round trip and bad input", test_xml_roundtrip);
    CU_add_test(s, "shipped power models and the V100 sweep", test_shipped_and_data);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    if (!fails && !v100_sweep_present()) {
        printf("SKIP V100 sweep: %s missing\n", V100_SWEEP);
        return 77; /* ctest SKIP_RETURN_CODE (tests/CMakeLists.txt) */
    }
    return fails ? 1 : 0;
}
