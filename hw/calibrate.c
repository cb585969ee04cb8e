/*
 * calibrate.c — fits the DVFS model of one GPU to a clock sweep of
 * microbenchmarks (rows: kernel, clock, time, power, utilisation counters).
 *
 * Power: P = const + static*Vn + (tensor*u_t + fp*u_fp + sm*u_sm)*Vn^2*f/f_max
 * + dram*u_dram (see power.c). For a fixed knee and voltage ratio
 * rho = V(knee)/V(f_max) the model is linear in the six watt coefficients,
 * which are fitted by non-negative least squares (Lawson & Hanson, "Solving
 * Least Squares Problems", 1974, ch. 23, active-set NNLS; the unconstrained
 * subproblems are solved by LAPACK dgels, QR). knee and rho are found by a
 * grid search over [f_min, f_max) x [0.4, 1] followed by a compass (pattern)
 * search that halves its step down to 1e-10; V is normalised so V(f_max) = 1:
 * v_min = rho, v_slope = (1 - rho)*1000/(f_max - knee) per GHz.
 * Time: each kernel's highest-clock row is its profile; at clock f_j its
 * time ratio is modelled as
 *   (1-c)*max(a_j + e_j*P0/100 W + g_j*u, b_j*u) + c*b_j
 * with the compute fraction c = 1 - clamp((dram - lo)/(hi - lo)) from the
 * profiled DRAM activity, P0 the profiled power and u the profiled FP +
 * tensor activity (the max: FP work takes at least its compute-bound time).
 * a_j, e_j, g_j, b_j >= 0 are fitted per clock by NNLS on relative errors,
 * each kernel on its active piece of the max until the pieces settle;
 * (lo, hi) by grid search (step 0.025) refined by pattern search. time_exp
 * is the least-squares slope of log b_j against log(f_max/f_j).
 * Power ratio: at each clock j, P_j/P0 of every kernel is regressed on the
 * terms phi of its profile (see power.c; R from the time model just fitted)
 * by ridge least squares (LAPACK dgels on the augmented system, lambda =
 * 1e-3 * rows on all but the intercept, a fixed regulariser not tuned on
 * held-out data) with Huber reweighting (k = 1.345, MAD scale; Huber 1964)
 * so that anomalous rows — e.g. an RTX 8000 profile reading 109 W where its
 * neighbours read ~250 W — do not steer the fit. No rows are removed.
 * No other constants: everything comes from the sweep.
 * Method and data: hw/README.md, "Calibration"; the shipped sweeps:
 * bench/data/README.md.
 */
#include "hw/calibrate.h"

#include "core/base/base.h"
#include "hw/power.h"

#include "hw/lapack.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NNLS_MAXN 32

/* Solves the unconstrained LS on the passive columns; z gets the solution
 * (zero outside the passive set). */
static int ls_passive(const double *a, int m, int n, const double *b, const int *passive, double *z,
                      double *work_a, double *work_b)
{
    int np = 0;
    int idx[NNLS_MAXN];
    for (int j = 0; j < n; j++)
        if (passive[j]) idx[np++] = j;
    for (int j = 0; j < n; j++)
        z[j] = 0.0;
    if (np == 0) return 0;
    for (int k = 0; k < np; k++)
        memcpy(work_a + (size_t)k * m, a + (size_t)idx[k] * m, sizeof(double) * (size_t)m);
    memcpy(work_b, b, sizeof(double) * (size_t)m);
    if (m < np) return -1;
    int info = cx_hw_dgels(CX_HW_LAPACK_COL_MAJOR, 'N', m, np, 1, work_a, m, work_b, m);
    if (info != 0) return -1;
    for (int k = 0; k < np; k++)
        z[idx[k]] = work_b[k];
    return 0;
}

int cx_hw_nnls(const double *a, int m, int n, const double *b, double *x, double *rss)
{
    if (m < 1 || n < 1 || n > NNLS_MAXN) return -1;
    int passive[NNLS_MAXN] = {0};
    double z[NNLS_MAXN];
    double *wa = malloc(sizeof(double) * (size_t)m * (size_t)(n + 2));
    if (!wa) return -1;
    double *wb = wa + (size_t)m * (size_t)n;
    double *r = wb + m;
    int rc = 0;
    double anorm = 0.0;
    for (size_t i = 0; i < (size_t)m * (size_t)n; i++)
        anorm = cx_maxd(anorm, fabs(a[i]));
    double bnorm = 0.0;
    for (int i = 0; i < m; i++)
        bnorm = cx_maxd(bnorm, fabs(b[i]));
    double tol = 10.0 * 2.220446049250313e-16 * anorm * (double)(m > n ? m : n);
    double tolw = tol * cx_maxd(bnorm, 1e-300) * (double)m;
    for (int j = 0; j < n; j++)
        x[j] = 0.0;
    int iter = 0, maxiter = 3 * n + 10;
    for (;;) {
        /* w = A^T (b - A x) */
        for (int i = 0; i < m; i++) {
            double s = b[i];
            for (int j = 0; j < n; j++)
                s -= a[(size_t)j * m + i] * x[j];
            r[i] = s;
        }
        int t = -1;
        double wmax = 0.0;
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int i = 0; i < m; i++)
                s += a[(size_t)j * m + i] * r[i];
            if (!passive[j] && s > tolw && s > wmax) {
                wmax = s;
                t = j;
            }
        }
        if (t < 0) break;
        if (++iter > maxiter) break;
        passive[t] = 1;
        for (;;) {
            if (ls_passive(a, m, n, b, passive, z, wa, wb) != 0) {
                rc = -1;
                goto done;
            }
            int feasible = 1;
            for (int j = 0; j < n; j++)
                if (passive[j] && z[j] <= 0.0) feasible = 0;
            if (feasible) break;
            double alpha = 1.0;
            for (int j = 0; j < n; j++)
                if (passive[j] && z[j] <= 0.0) {
                    double q = x[j] / (x[j] - z[j]);
                    if (q < alpha) alpha = q;
                }
            for (int j = 0; j < n; j++) {
                x[j] += alpha * (z[j] - x[j]);
                if (passive[j] && x[j] <= tol) {
                    passive[j] = 0;
                    x[j] = 0.0;
                }
            }
            if (t >= 0 && !passive[t]) {
                /* the column just added went straight back: stop trying it */
                t = -1;
            }
        }
        for (int j = 0; j < n; j++)
            x[j] = passive[j] ? z[j] : 0.0;
    }
    if (rss) {
        double s2 = 0.0;
        for (int i = 0; i < m; i++) {
            double s = b[i];
            for (int j = 0; j < n; j++)
                s -= a[(size_t)j * m + i] * x[j];
            s2 += s * s;
        }
        *rss = s2;
    }
done:
    free(wa);
    return rc;
}

/* ------------------------------------------------------------ power */

/* rows the power fit and kernels the time-split search use at most (see
 * cx_hw_calibrate): deterministic samples of larger tables */
#define MAX_POWER_ROWS 20000
#define MAX_SPLIT_KERNELS 20000

typedef struct {
    const culonx_dvfs_row *const *rows;
    size_t n;
    double fmax;
    double *a, *b; /* n x 6, n */
} power_ctx;

static cx_hw_util util_of(const culonx_dvfs_row *r)
{
    return cx_hw_dvfs_row_util(r);
}

static void set_volt(culonx_power_model *m, double fmax, double knee, double rho)
{
    m->knee_mhz = knee;
    m->v_min = rho;
    m->v_slope = (1.0 - rho) * 1000.0 / (fmax - knee);
}

/* NNLS at fixed (knee, rho); returns rss (HUGE_VAL on failure), coefficients in c. */
static double power_eval(power_ctx *p, double knee, double rho, double *c)
{
    culonx_power_model m;
    memset(&m, 0, sizeof m);
    set_volt(&m, p->fmax, knee, rho);
    size_t n = p->n;
    for (size_t i = 0; i < n; i++) {
        const culonx_dvfs_row *r = p->rows[i];
        cx_hw_util u = util_of(r);
        double vn = cx_hw_power_vnorm(&m, r->core_mhz, p->fmax);
        double g = vn * vn * r->core_mhz / p->fmax;
        p->a[0 * n + i] = 1.0;
        p->a[1 * n + i] = vn;
        p->a[2 * n + i] = u.tensor * g;
        p->a[3 * n + i] = u.fp * g;
        p->a[4 * n + i] = u.sm * g;
        p->a[5 * n + i] = u.dram;
        p->b[i] = r->power_w;
    }
    double rss;
    if (cx_hw_nnls(p->a, (int)n, 6, p->b, c, &rss) != 0) return HUGE_VAL;
    return rss;
}

int cx_hw_calibrate_power(const culonx_dvfs_row *const *rows, size_t nrows, double max_mhz,
                          culonx_power_model *out, double *rss_out)
{
    if (nrows < 6 || !(max_mhz > 0.0) || nrows > (size_t)1 << 28) return -1;
    double fmin = max_mhz;
    for (size_t i = 0; i < nrows; i++)
        fmin = cx_mind(fmin, rows[i]->core_mhz);
    power_ctx p = {rows, nrows, max_mhz, NULL, NULL};
    p.a = malloc(sizeof(double) * nrows * 7);
    if (!p.a) return -1;
    p.b = p.a + nrows * 6;
    double c[6], best_c[6] = {0};
    double best = HUGE_VAL, bk = fmin, br = 1.0;
    /* grid: knee from f_min to just below f_max, rho from 0.4 to 1 */
    const int nk = 48, nr = 31;
    double span = max_mhz - fmin;
    if (span <= 0.0) span = max_mhz * 0.5;
    for (int i = 0; i < nk; i++) {
        double knee = max_mhz - span * (1.0 - (double)i / nk);
        for (int j = 0; j < nr; j++) {
            double rho = 0.4 + 0.6 * j / (nr - 1);
            double s = power_eval(&p, knee, rho, c);
            if (s < best) {
                best = s;
                bk = knee;
                br = rho;
                memcpy(best_c, c, sizeof c);
            }
        }
    }
    /* compass search on (knee, rho) */
    double hk = span / nk, hr = 0.6 / (nr - 1);
    while (hk > 1e-10 * max_mhz || hr > 1e-10) {
        int moved = 0;
        const double dk[4] = {1, -1, 0, 0}, dr[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; d++) {
            double knee = bk + dk[d] * hk, rho = br + dr[d] * hr;
            if (knee < fmin - span || knee >= max_mhz - 1e-9 * max_mhz || rho <= 0.05 || rho > 1.0)
                continue;
            double s = power_eval(&p, knee, rho, c);
            if (s < best) {
                best = s;
                bk = knee;
                br = rho;
                memcpy(best_c, c, sizeof c);
                moved = 1;
            }
        }
        if (!moved) {
            hk *= 0.5;
            hr *= 0.5;
        }
    }
    free(p.a);
    if (!(best < HUGE_VAL)) return -1;
    set_volt(out, max_mhz, bk, br);
    out->const_w = best_c[0];
    out->static_w = best_c[1];
    out->tensor_w = best_c[2];
    out->fp_w = best_c[3];
    out->sm_w = best_c[4];
    out->dram_w = best_c[5];
    out->present = 1;
    if (rss_out) *rss_out = best;
    return 0;
}

/* ------------------------------------------------------------- time */

typedef struct {
    const culonx_dvfs_row *ref; /* highest-clock row */
    double ratio[CULONX_DVFS_MAX_CLOCKS];
    double power[CULONX_DVFS_MAX_CLOCKS]; /* W at clock j (0: none) */
    int has[CULONX_DVFS_MAX_CLOCKS];
} kernel_t;

static int same_kernel(const culonx_dvfs_row *a, const culonx_dvfs_row *b)
{
    return cx_hw_dvfs_kernel_cmp(a, b) == 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const culonx_dvfs_row *a = *(const culonx_dvfs_row *const *)pa;
    const culonx_dvfs_row *b = *(const culonx_dvfs_row *const *)pb;
    int c = cx_hw_dvfs_kernel_cmp(a, b);
    if (!c) c = (a->core_mhz > b->core_mhz) - (a->core_mhz < b->core_mhz);
    if (!c) c = (a->line > b->line) - (a->line < b->line);
    return c;
}

static int clock_index(const culonx_dvfs_model *m, double f)
{
    for (int j = 0; j < m->nclocks; j++)
        if (fabs(m->clock_mhz[j] - f) < 0.5) return j;
    return -1;
}

/* Per-clock fit of (a_j, e_j, g_j, b_j) at split (lo, hi); returns the sum
 * of squared relative errors; fills the scales of m. R is piecewise linear
 * in the scales (the memory part is max(a + e*P0/100 + g*u, b*u)): NNLS on
 * each kernel's active piece, repeated until the pieces stop changing (at
 * most 8 rounds; a deterministic alternation). */
static double time_eval(culonx_dvfs_model *m, const kernel_t *k, size_t nk, double lo, double hi,
                        double *work)
{
    m->split_dram_lo = lo;
    m->split_dram_hi = hi;
    double total = 0.0;
    for (int j = 0; j < m->nclocks; j++) {
        int n = 0;
        for (size_t i = 0; i < nk; i++)
            n += k[i].has[j];
        if (n == 0) {
            m->mem_scale[j] = 1.0;
            m->mem_power_scale[j] = 0.0;
            m->mem_fp_scale[j] = 0.0;
            m->compute_scale[j] = m->max_mhz / m->clock_mhz[j];
            continue;
        }
        double *a = work, *b = work + 4 * (size_t)n;
        unsigned char *fpb = (unsigned char *)(b + n); /* 1: the FP bound is active */
        memset(fpb, 0, (size_t)n);
        double x[4] = {0}, rss = 0.0;
        for (int round = 0; round < 8; round++) {
            int q = 0;
            for (size_t i = 0; i < nk; i++) {
                if (!k[i].has[j]) continue;
                double c = cx_hw_dvfs_compute_fraction(m, k[i].ref->dram_active);
                double pw = k[i].ref->power_w > 0.0 ? k[i].ref->power_w / 100.0 : 0.0;
                double u = cx_hw_dvfs_row_fp(k[i].ref);
                double w = 1.0 / k[i].ratio[j];
                double mw = fpb[q] ? 0.0 : (1.0 - c) * w;
                a[q] = mw;
                a[n + q] = mw * pw;
                a[2 * n + q] = mw * u;
                a[3 * n + q] = (c + (fpb[q] ? (1.0 - c) * u : 0.0)) * w;
                b[q] = 1.0;
                q++;
            }
            if (cx_hw_nnls(a, n, 4, b, x, &rss) != 0) return HUGE_VAL;
            int changed = 0;
            q = 0;
            for (size_t i = 0; i < nk; i++) {
                if (!k[i].has[j]) continue;
                double pw = k[i].ref->power_w > 0.0 ? k[i].ref->power_w / 100.0 : 0.0;
                double u = cx_hw_dvfs_row_fp(k[i].ref);
                unsigned char on = x[3] * u > x[0] + x[1] * pw + x[2] * u;
                changed |= on != fpb[q];
                fpb[q++] = on;
            }
            if (!changed) break;
        }
        m->mem_scale[j] = x[0];
        m->mem_power_scale[j] = x[1];
        m->mem_fp_scale[j] = x[2];
        m->compute_scale[j] = x[3];
        total += rss;
    }
    return total;
}

static int cmp_double(const void *pa, const void *pb);

int cx_hw_lsq_robust(const double *a, int m, int n, const double *b, const double *pen,
                     double lambda, int huber, double *x)
{
    if (m < 1 || n < 1 || n > NNLS_MAXN) return -1;
    int rows = m + n;
    double *wa = malloc(sizeof(double) * ((size_t)rows * (size_t)n + 3 * (size_t)rows));
    if (!wa) return -1;
    double *wb = wa + (size_t)rows * (size_t)n, *w = wb + rows, *r = w + rows;
    for (int i = 0; i < m; i++)
        w[i] = 1.0;
    int rc = 0, iters = huber ? 50 : 1;
    for (int it = 0; it < iters; it++) {
        /* rows sqrt(w_i)*a_i, then the ridge rows sqrt(lambda*pen_k)*e_k */
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < m; i++)
                wa[(size_t)k * rows + i] = sqrt(w[i]) * a[(size_t)k * m + i];
            for (int q = 0; q < n; q++)
                wa[(size_t)k * rows + m + q] = q == k ? sqrt(lambda * (pen ? pen[k] : 1.0)) : 0.0;
        }
        for (int i = 0; i < m; i++)
            wb[i] = sqrt(w[i]) * b[i];
        for (int q = 0; q < n; q++)
            wb[m + q] = 0.0;
        int info = cx_hw_dgels(CX_HW_LAPACK_COL_MAJOR, 'N', rows, n, 1, wa, rows, wb, rows);
        if (info != 0) {
            rc = -1;
            break;
        }
        double change = 0.0;
        for (int k = 0; k < n; k++) {
            change = cx_maxd(change, fabs(wb[k] - x[k]));
            x[k] = wb[k];
        }
        if (!huber) break;
        /* Huber weights, scale = MAD/0.6745 of the residuals, k = 1.345 */
        for (int i = 0; i < m; i++) {
            double s = b[i];
            for (int k = 0; k < n; k++)
                s -= a[(size_t)k * m + i] * x[k];
            r[i] = s;
            wb[i] = fabs(s);
        }
        qsort(wb, (size_t)m, sizeof *wb, cmp_double);
        double mad = m % 2 ? wb[m / 2] : 0.5 * (wb[m / 2 - 1] + wb[m / 2]);
        double sc = 1.345 * mad / 0.6745;
        if (!(sc > 0.0)) break;
        for (int i = 0; i < m; i++)
            w[i] = fabs(r[i]) <= sc ? 1.0 : sc / fabs(r[i]);
        if (it > 0 && change < 1e-12) break;
    }
    free(wa);
    return rc;
}

/* Per-clock power-ratio tables: at each clock j, P_j/P0 of every kernel on
 * its terms phi (predicted time ratio of the fitted time model), Huber
 * ridge least squares. Returns 0 or -1. */
static int fit_power_ratio(culonx_dvfs_model *m, const kernel_t *k, size_t nk)
{
    const int nt = CULONX_DVFS_POWER_TERMS;
    double *a = malloc(sizeof(double) * nk * (size_t)(nt + 1));
    if (!a) return -1;
    double *b = a + nk * (size_t)nt;
    const double pen[CULONX_DVFS_POWER_TERMS] = {0, 1, 1, 1, 1, 1};
    int rc = 0;
    for (int j = 0; j < m->nclocks && rc == 0; j++) {
        size_t n = 0;
        for (size_t i = 0; i < nk; i++)
            if (k[i].has[j] && k[i].power[j] > 0.0 && k[i].ref->power_w > 0.0) n++;
        double x[CULONX_DVFS_POWER_TERMS] = {0};
        if (n < (size_t)nt) {
            /* too few kernels: power scales with the model's idle power */
            x[0] = 1.0;
        } else {
            size_t q = 0;
            for (size_t i = 0; i < nk; i++) {
                if (!(k[i].has[j] && k[i].power[j] > 0.0 && k[i].ref->power_w > 0.0)) continue;
                const culonx_dvfs_row *r = k[i].ref;
                double c = cx_hw_dvfs_compute_fraction(m, r->dram_active);
                double ufp = cx_hw_dvfs_row_fp(r);
                double r0 = cx_hw_dvfs_time_factor(m, r->core_mhz, c, r->power_w, ufp);
                double r1 = cx_hw_dvfs_time_factor(m, m->clock_mhz[j], c, r->power_w, ufp);
                double phi[CULONX_DVFS_POWER_TERMS];
                cx_hw_dvfs_power_terms(r, r->power_w, r0 > 0.0 ? r1 / r0 : 1.0, phi);
                for (int t = 0; t < nt; t++)
                    a[(size_t)t * n + q] = phi[t];
                b[q] = k[i].power[j] / r->power_w;
                q++;
            }
            rc = cx_hw_lsq_robust(a, (int)n, nt, b, pen, 1e-3 * (double)n, 1, x);
        }
        for (int t = 0; t < nt; t++)
            m->power_ratio[j][t] = x[t];
    }
    m->power_terms = rc == 0 ? nt : 0;
    free(a);
    return rc;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

culonx_status cx_hw_calibrate(const culonx_dvfs_row *const *rows_in, size_t nrows,
                              culonx_dvfs_model *model, culonx_power_fit *fit, culonx_error *err,
                              const char *errfile)
{
    culonx_status st = CULONX_OK;
    if (nrows < 6)
        return cx_core_fail(err, CULONX_EINPUT, errfile, 0,
                            "calibration needs at least 6 sweep rows, got %zu", nrows);
    const culonx_dvfs_row **rows = malloc(sizeof *rows * nrows);
    const culonx_dvfs_row **prow = malloc(sizeof *prow * nrows);
    kernel_t *k = calloc(nrows, sizeof *k);
    double *work = malloc(sizeof(double) * (6 * nrows + 8)); /* time_eval: 6 per kernel */
    if (!rows || !prow || !k || !work) {
        st = cx_core_fail(err, CULONX_EINTERNAL, errfile, 0, "out of memory");
        goto out;
    }
    memcpy(rows, rows_in, sizeof *rows * nrows);
    qsort(rows, nrows, sizeof *rows, cmp_rows);
    for (size_t i = 1; i < nrows; i++)
        if (strcmp(rows[i]->gpu, rows[0]->gpu)) {
            st = cx_core_fail(err, CULONX_EINPUT, errfile, rows[i]->line,
                              "sweep mixes GPUs '%s' and '%s'; calibrate one GPU at a time",
                              rows[0]->gpu, rows[i]->gpu);
            goto out;
        }
    memset(model, 0, sizeof *model);
    snprintf(model->gpu, sizeof model->gpu, "%s", rows[0]->gpu);
    /* the clock table */
    double *fs = work;
    for (size_t i = 0; i < nrows; i++)
        fs[i] = rows[i]->core_mhz;
    qsort(fs, nrows, sizeof *fs, cmp_double);
    for (size_t i = 0; i < nrows; i++) {
        if (model->nclocks > 0 && fabs(fs[i] - model->clock_mhz[model->nclocks - 1]) < 0.5)
            continue;
        if (model->nclocks == CULONX_DVFS_MAX_CLOCKS) {
            st = cx_core_fail(err, CULONX_EINPUT, errfile, 0,
                              "sweep has more than %d distinct clocks", CULONX_DVFS_MAX_CLOCKS);
            goto out;
        }
        model->clock_mhz[model->nclocks++] = fs[i];
    }
    model->max_mhz = model->clock_mhz[model->nclocks - 1];
    if (model->nclocks < 2 || !(model->clock_mhz[0] > 0.0)) {
        st = cx_core_fail(err, CULONX_EINPUT, errfile, 0,
                          "sweep needs at least two positive clocks");
        goto out;
    }
    /* power: rows with every counter present */
    size_t np = 0;
    for (size_t i = 0; i < nrows; i++) {
        const culonx_dvfs_row *r = rows[i];
        if (isnan(r->sm_active) || isnan(r->dram_active) || isnan(r->fp16_active) ||
            isnan(r->fp32_active) || isnan(r->fp64_active) || isnan(r->tensor_active))
            continue;
        prow[np++] = r;
    }
    /* The power fit (grid and pattern search over the knee and voltage, an
     * NNLS per step) grows faster than linearly in the rows; 6
     * coefficients need far fewer than MAX_POWER_ROWS rows, so a larger
     * table is fitted on a deterministic, evenly strided sample of its rows
     * (sorted by kernel and clock, so every kernel and clock stays
     * represented). The shipped tables (1380 rows) are fitted whole. */
    if (np > MAX_POWER_ROWS) {
        for (size_t i = 0; i < MAX_POWER_ROWS; i++)
            prow[i] = prow[i * np / MAX_POWER_ROWS];
        np = MAX_POWER_ROWS;
    }
    if (cx_hw_calibrate_power(prow, np, model->max_mhz, &model->power, NULL) != 0) {
        st = cx_core_fail(err, cx_hw_lapack_available() ? CULONX_EINPUT : CULONX_EINTERNAL, errfile,
                          0, "power fit failed (%zu rows: degenerate or inconsistent data)%s%s", np,
                          cx_hw_lapack_available() ? "" : ": cannot load LAPACKE from ",
                          cx_hw_lapack_available() ? "" : cx_hw_lapack_path());
        goto out;
    }
    /* kernels and their time ratios */
    size_t nk = 0;
    for (size_t i = 0; i < nrows;) {
        size_t e = i;
        while (e < nrows && same_kernel(rows[e], rows[i]))
            e++;
        const culonx_dvfs_row *ref = rows[e - 1];
        if (ref->time_ms > 0.0) {
            kernel_t *kk = &k[nk++];
            kk->ref = ref;
            for (size_t q = i; q < e; q++) {
                int j = clock_index(model, rows[q]->core_mhz);
                if (j < 0 || !(rows[q]->time_ms > 0.0)) continue;
                kk->ratio[j] = rows[q]->time_ms / ref->time_ms;
                kk->power[j] = rows[q]->power_w;
                kk->has[j] = 1;
            }
        }
        i = e;
    }
    if (nk == 0) {
        st = cx_core_fail(err, CULONX_EINPUT, errfile, 0, "no kernel with a positive time");
        goto out;
    }
    /* The split search evaluates the per-clock fits about a thousand
     * times: on tables of more than MAX_SPLIT_KERNELS kernels it runs on a
     * deterministic, evenly strided sample of them (sorted by kernel, so
     * every benchmark family stays represented); the scales are then fitted
     * on every kernel at the split found. */
    const kernel_t *ks = k;
    size_t nks = nk;
    kernel_t *sample = NULL;
    if (nk > MAX_SPLIT_KERNELS) {
        sample = malloc(MAX_SPLIT_KERNELS * sizeof *sample);
        if (!sample) {
            st = cx_core_fail(err, CULONX_EINTERNAL, errfile, 0, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < MAX_SPLIT_KERNELS; i++)
            sample[i] = k[i * nk / MAX_SPLIT_KERNELS];
        ks = sample, nks = MAX_SPLIT_KERNELS;
    }
    double best = HUGE_VAL, blo = 0.0, bhi = 1.0;
    const double h0 = 0.025;
    for (int i = 0; i < 40; i++)
        for (int j = i + 1; j <= 48; j++) {
            double lo = i * h0, hi = j * h0;
            double s = time_eval(model, ks, nks, lo, hi, work);
            if (s < best) {
                best = s;
                blo = lo;
                bhi = hi;
            }
        }
    for (double h = h0 / 2; h > 1e-4; h *= 0.5) {
        int moved = 1;
        while (moved) {
            moved = 0;
            const double dl[4] = {1, -1, 0, 0}, dh[4] = {0, 0, 1, -1};
            for (int d = 0; d < 4; d++) {
                double lo = blo + dl[d] * h, hi = bhi + dh[d] * h;
                if (lo < 0.0 || hi <= lo + 1e-3) continue;
                double s = time_eval(model, ks, nks, lo, hi, work);
                if (s < best - 1e-15) {
                    best = s;
                    blo = lo;
                    bhi = hi;
                    moved = 1;
                }
            }
        }
    }
    free(sample);
    time_eval(model, k, nk, blo, bhi, work);
    /* time_exp: slope of log(compute_scale) vs log(f_max/f) */
    double sxy = 0.0, sxx = 0.0;
    for (int j = 0; j < model->nclocks; j++) {
        double x = log(model->max_mhz / model->clock_mhz[j]);
        if (model->compute_scale[j] > 0.0) {
            sxy += x * log(model->compute_scale[j]);
            sxx += x * x;
        }
    }
    model->power.time_exp = sxx > 0.0 ? sxy / sxx : 1.0;
    if (fit_power_ratio(model, k, nk) != 0) {
        st = cx_core_fail(err, CULONX_EINPUT, errfile, 0,
                          "power-ratio fit failed (degenerate or inconsistent data)");
        goto out;
    }
    /* blocked: the model's power of a spinning kernel (SM active, nothing else) */
    {
        cx_hw_util u = {0.0, 0.0, 1.0, 0.0};
        model->power.blocked_w =
            cx_hw_power_w_at(&model->power, model->max_mhz, model->max_mhz, &u);
    }
    snprintf(model->power.provenance, sizeof model->power.provenance,
             "fitted to a %s DVFS sweep: %zu rows, %zu kernels, %d clocks", model->gpu, nrows, nk,
             model->nclocks);
    if (fit) {
        memset(fit, 0, sizeof *fit);
        fit->nrows = nrows;
        fit->nkernels = nk;
        fit->nclocks = model->nclocks;
        memcpy(fit->clock_mhz, model->clock_mhz, sizeof fit->clock_mhz);
        double pm = 0.0, tm = 0.0;
        size_t tn = 0;
        for (size_t i = 0; i < np; i++)
            pm += prow[i]->power_w;
        pm /= (double)np;
        double ssr = 0.0, sst = 0.0;
        int cntp[CULONX_DVFS_MAX_CLOCKS] = {0}, cntt[CULONX_DVFS_MAX_CLOCKS] = {0};
        for (size_t i = 0; i < np; i++) {
            cx_hw_util u = util_of(prow[i]);
            double p = cx_hw_power_w_at(&model->power, model->max_mhz, prow[i]->core_mhz, &u);
            double y = prow[i]->power_w;
            ssr += (p - y) * (p - y);
            sst += (y - pm) * (y - pm);
            int j = clock_index(model, prow[i]->core_mhz);
            if (j >= 0 && y > 0.0) {
                fit->power_mape[j] += fabs(p / y - 1.0);
                cntp[j]++;
            }
        }
        fit->power_r2 = sst > 0.0 ? 1.0 - ssr / sst : 1.0;
        for (size_t i = 0; i < nk; i++)
            for (int j = 0; j < model->nclocks; j++)
                if (k[i].has[j]) {
                    tm += k[i].ratio[j];
                    tn++;
                }
        tm /= (double)(tn ? tn : 1);
        ssr = sst = 0.0;
        size_t ki = 0;
        for (size_t i = 0; i < nrows; i++) {
            const culonx_dvfs_row *r = rows[i];
            /* rows and kernels are in the same (sorted) order: a moving
             * index finds each row's kernel in O(1) amortised */
            while (ki < nk && cx_hw_dvfs_kernel_cmp(k[ki].ref, r) < 0)
                ki++;
            if (ki == nk || !same_kernel(k[ki].ref, r) || !(r->time_ms > 0.0)) continue;
            int j = clock_index(model, r->core_mhz);
            double t, p;
            cx_hw_dvfs_predict_row(model, k[ki].ref, r->core_mhz, &t, &p);
            double y = r->time_ms / k[ki].ref->time_ms, yp = t / k[ki].ref->time_ms;
            ssr += (yp - y) * (yp - y);
            sst += (y - tm) * (y - tm);
            if (j >= 0) {
                fit->time_mape[j] += fabs(t / r->time_ms - 1.0);
                if (r->power_w > 0.0)
                    fit->energy_mape[j] += fabs(t * p / (r->time_ms * r->power_w) - 1.0);
                cntt[j]++;
            }
        }
        fit->time_r2 = sst > 0.0 ? 1.0 - ssr / sst : 1.0;
        for (int j = 0; j < model->nclocks; j++) {
            if (cntp[j]) fit->power_mape[j] /= cntp[j];
            if (cntt[j]) {
                fit->time_mape[j] /= cntt[j];
                fit->energy_mape[j] /= cntt[j];
            }
        }
    }
out:
    free(rows);
    free(prow);
    free(k);
    free(work);
    return st;
}
