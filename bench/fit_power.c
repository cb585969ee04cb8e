/*
 * fit_power.c — fits the H100 DVFS power model (configs/power/h100.xml, the
 * form of hw/power.c) to board power measured on a real H100
 * (bench/data/h100-power.csv: NVML readings of 3 s sustained loops, clocks
 * untouched; provenance in bench/data/README.md). The GPU ran at the clock
 * NVML reported, so each row is P(f_reported, activity):
 *   P(f,u) = const + static*Vn + (tensor_w*u_t + sm_w*u_sm)*Vn^2*f/f_max
 *            + dram_w*u_dram,   Vn = V(f)/V(f_max),
 *   V(f)   = v_min below the knee, linear from v_min at the knee to 1 at f_max,
 * activities as culonx prices a pass (bench/power_check.c): u_t = achieved
 * FLOP/s / (dtype peak x f/f_max), u_dram = HBM bytes/s / datasheet
 * bandwidth, u_sm = 1 while a kernel runs.
 *
 * Steps (each parameter from the rows that pin it; deterministic):
 *  1. idle (u = 0, at f_max): const + static = mean of the idle rows; the
 *     split keeps the datasheet shape (const = static x v_min: half of the
 *     idle power at v_min is leakage, hw/README.md "Datasheet-shaped
 *     defaults").
 *  2. the 1 GiB copy (u_t = 0, u_sm = 1, u_dram = 0.90, at f_max): sm_w +
 *     u_dram x dram_w = its power above idle. Both activities are 1 / 0.9 in
 *     every row that has one, so the split is not pinned: the datasheet
 *     ratio sm_w : dram_w = 15 : 10 is kept.
 *  3. tensor_w and the knee (v_min = 0.70 of V(f_max) kept: only the ratio
 *     Vn matters and one ratio is pinned per knee): weighted least squares
 *     in relative error over the power-capped bf16 GEMM rows (2048-8192,
 *     1365-1590 MHz) and the cuDNN attention row (1920 MHz); tensor_w is
 *     linear (closed form per knee), the knee a 1 MHz grid from the
 *     datasheet 0.65 f_max to f_max - 15.
 * Not fitted: FP8 (the model has one tensor_w per u for both dtypes; the FP8
 * row draws ~10% more than that at its clock: printed), the launch-bound
 * 1024 GEMM (SMs idle between kernels, u_sm < 1 unknown), the duty-cycle
 * rows (their gaps did not take) and GELU (vector work the pass model does
 * not see). fp_w = tensor_w / 2, blocked_w = const + static + 0.1 sm_w and
 * time_exp = 1 keep the datasheet rules (hw/power.c cx_hw_power_default).
 * What the rows cannot pin: the V/f curve below 1230 MHz (no row runs there:
 * the flat v_min of the datasheet shape is kept) and above the knee only the
 * attention row constrains its rise.
 *
 * Output: the <power .../> element of configs/power/h100.xml (ctest
 * fit_reproduces checks it is the shipped one) and the per-row error.
 *
 * usage: bench_fit_power [CSV]    (exit 77: table missing)
 */
#include "culonx.h"

#include "csv_table.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 64
#define V_MIN 0.70      /* V(knee) / V(f_max): the datasheet shape (hw/power.c) */
#define SM_PER_DRAM 1.5 /* sm_w : dram_w = 15 : 10 % of TDP (hw/power.c) */

typedef struct {
    char name[64];
    double p, f, thr, ut, ud;
    int fit; /* 1: in the tensor/knee fit */
} prow;

typedef struct {
    double fmax, peak16, peak8, hbm;
    prow r[MAX_ROWS];
    int n;
} pload;

static void on_row(char f[][CSVT_WIDTH], int ncol, void *data)
{
    pload *L = data;
    if (ncol < 14 || L->n >= MAX_ROWS) return;
    prow *r = &L->r[L->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", f[0]);
    r->p = atof(f[2]), r->f = atof(f[5]), r->thr = atof(f[9]);
    const double tflops = atof(f[11]), gbps = atof(f[12]);
    const int fp8 = strstr(r->name, "fp8") != NULL;
    if (tflops > 0) r->ut = tflops * 1e12 / ((fp8 ? L->peak8 : L->peak16) * r->f / L->fmax);
    if (!strncmp(r->name, "gemm-", 5)) {
        /* HBM bytes of a square GEMM of side s: both operands and the output */
        const char *d = strrchr(r->name, '-');
        double s = d ? atof(d + 1) : 0;
        if (strstr(r->name, "duty")) s = 8192;
        if (s > 0) r->ud = (fp8 ? 4.0 : 6.0) * s * s * (tflops * 1e12 / (2.0 * s * s * s)) / L->hbm;
    } else if (gbps > 0) {
        r->ud = gbps * 1e9 / L->hbm;
    }
    if (r->ut > 1) r->ut = 1;
    if (r->ud > 1) r->ud = 1;
    r->fit = (!strncmp(r->name, "gemm-bf16-", 10) && !strstr(r->name, "duty") && r->thr >= 0.5) ||
             !strncmp(r->name, "attn-", 5);
}

static double vn(double f, double knee, double fmax)
{
    return f <= knee ? V_MIN : V_MIN + (1.0 - V_MIN) * (f - knee) / (fmax - knee);
}

typedef struct {
    double cst, stat, sm, dram, tensor, knee;
} pmodel;

static double pred(const pmodel *m, const prow *r, double fmax, double tensor_w)
{
    if (!strcmp(r->name, "idle")) return m->cst + m->stat * vn(r->f, m->knee, fmax);
    const double v = vn(r->f, m->knee, fmax);
    return m->cst + m->stat * v + (tensor_w * r->ut + m->sm) * v * v * r->f / fmax +
           m->dram * r->ud;
}

int main(int argc, char **argv)
{
    char path[1024], cfg[1024];
    snprintf(path, sizeof path, "%s/h100-power.csv", CX_BENCH_DATA_DIR);
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    static culonx_run run;
    culonx_error err;
    snprintf(cfg, sizeof cfg, "%s/configs/llama3-8b-h100.xml", CX_SOURCE_DIR);
    if (culonx_run_load(cfg, NULL, 0, NULL, &run, &err) != CULONX_OK) {
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.msg);
        return 1;
    }
    const culonx_gpu *g = &run.system.gpu;
    static pload L;
    L.fmax = g->max_mhz, L.peak16 = g->matrix16_tflops * 1e12, L.peak8 = g->matrix8_tflops * 1e12;
    L.hbm = g->hbm_gbps * 1e9;
    int rc = csvt_load(path, "power", on_row, &L);
    if (rc) return rc;
    const double fmax = L.fmax;
    /* 1. idle */
    double idle = 0, ni = 0, copy = 0, ucopy = 0;
    for (int i = 0; i < L.n; i++)
        if (!strcmp(L.r[i].name, "idle")) idle += L.r[i].p, ni++;
    /* 2. the copy */
    for (int i = 0; i < L.n; i++)
        if (!strncmp(L.r[i].name, "copy", 4)) copy = L.r[i].p, ucopy = L.r[i].ud;
    if (!(ni > 0) || !(copy > 0)) {
        fprintf(stderr, "%s: needs idle and copy rows\n", path);
        return 1;
    }
    idle /= ni;
    pmodel m = {0};
    m.stat = idle / (1.0 + V_MIN);
    m.cst = m.stat * V_MIN;
    m.dram = (copy - idle) / (SM_PER_DRAM + ucopy);
    m.sm = SM_PER_DRAM * m.dram;
    /* 3. tensor_w (closed form) per knee; the knee on a 1 MHz grid */
    double best = -1, best_knee = 0, best_t = 0;
    for (double knee = floor(0.65 * fmax); knee <= fmax - 15; knee += 1) {
        m.knee = knee;
        double sab = 0, saa = 0;
        for (int i = 0; i < L.n; i++) {
            const prow *r = &L.r[i];
            if (!r->fit) continue;
            double p0 = pred(&m, r, fmax, 0), a = pred(&m, r, fmax, 1) - p0;
            sab += a * (r->p - p0) / (r->p * r->p), saa += a * a / (r->p * r->p);
        }
        const double tw = saa > 0 ? sab / saa : 0;
        double sse = 0;
        for (int i = 0; i < L.n; i++)
            if (L.r[i].fit) {
                double e = pred(&m, &L.r[i], fmax, tw) / L.r[i].p - 1;
                sse += e * e;
            }
        if (best < 0 || sse < best) best = sse, best_knee = knee, best_t = tw;
    }
    m.knee = best_knee, m.tensor = best_t;
    int nfit = 0;
    for (int i = 0; i < L.n; i++)
        nfit += L.r[i].fit;
    const double slope = (1.0 - V_MIN) * 1000.0 / (fmax - m.knee);
    printf("H100 power fit to %s (%d rows; * = fitted)\n", path, L.n);
    for (int i = 0; i < L.n; i++) {
        const prow *r = &L.r[i];
        double p = pred(&m, r, fmax, m.tensor);
        printf(
            "  %c %-30s %5.0f MHz u_t %.3f u_dram %.3f measured %6.1f W model %6.1f W %+6.1f%%\n",
            r->fit ? '*' : ' ', r->name, r->f, r->ut, r->ud, r->p, p, 100 * (p / r->p - 1));
    }
    printf("idle %.2f W at %.0f MHz, copy %.2f W above idle at u_dram %.3f; knee %.0f MHz, "
           "rms error of the fitted rows %.2f%%\n",
           idle, fmax, copy - idle, ucopy, m.knee, 100 * sqrt(best / (nfit > 0 ? nfit : 1)));
    printf(
        "<power gpu=\"H100\"\n"
        "       const-w=\"%.4f\" static-w=\"%.4f\" knee-mhz=\"%.0f\" v-min=\"%.2f\" "
        "v-slope=\"%.6f\"\n"
        "       tensor-w=\"%.4f\" fp-w=\"%.4f\" sm-w=\"%.4f\" dram-w=\"%.4f\" blocked-w=\"%.4f\" "
        "time-exp=\"1\" max-mhz=\"%.0f\"\n",
        m.cst, m.stat, m.knee, V_MIN, slope, m.tensor, 0.5 * m.tensor, m.sm, m.dram,
        m.cst + m.stat + 0.1 * m.sm, fmax);
    return 0;
}
