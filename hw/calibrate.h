/*
 * calibrate.h — fitting the DVFS power and time model of one GPU to a DVFS clock table
 * (see calibrate.c). Internal to libculonx.
 * Method: hw/README.md, "Calibration".
 */
#ifndef CX_HW_CALIBRATE_H
#define CX_HW_CALIBRATE_H

#include "culonx_types.h"

/* Non-negative least squares min ||A x - b||, x >= 0 (Lawson & Hanson 1974,
 * active set). A is m x n column-major (lda = m), m >= 1, 1 <= n <= 32.
 * Returns 0 on success, -1 on numerical failure or bad sizes. *rss (may be
 * NULL) receives the residual sum of squares. */
int cx_hw_nnls(const double *a, int m, int n, const double *b, double *x, double *rss);

/* Ridge least squares min ||A x - b||^2 + lambda * sum_k pen_k x_k^2 (pen
 * may be NULL: all 1), with Huber reweighting (k = 1.345, scale = MAD/0.6745
 * of the residuals, IRLS) when huber != 0. A is m x n column-major, n <= 32.
 * x must hold n values (overwritten). Returns 0, or -1 on failure. */
int cx_hw_lsq_robust(const double *a, int m, int n, const double *b, const double *pen,
                     double lambda, int huber, double *x);

/* Fits the power model, given rows measured at their clocks (counters at
 * each clock), with f_max = max_mhz. Returns 0, or -1 on failure. */
int cx_hw_calibrate_power(const culonx_dvfs_row *const *rows, size_t nrows, double max_mhz,
                          culonx_power_model *out, double *rss);

/* Fits the whole DVFS model (power + per-clock time scaling) of the rows
 * (one GPU); fills the fit report when non-NULL. */
culonx_status cx_hw_calibrate(const culonx_dvfs_row *const *rows, size_t nrows,
                              culonx_dvfs_model *model, culonx_power_fit *fit, culonx_error *err,
                              const char *errfile);

#endif
