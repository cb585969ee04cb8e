/*
 * lapack.h — the LAPACK least-squares solver culonx fits with (dgels, from
 * OpenBLAS through LAPACKE), loaded on first use (see lapack.c).
 */
#ifndef CX_HW_LAPACK_H
#define CX_HW_LAPACK_H

#define CX_HW_LAPACK_ROW_MAJOR 101 /* LAPACK_ROW_MAJOR */
#define CX_HW_LAPACK_COL_MAJOR 102 /* LAPACK_COL_MAJOR */
#define CX_HW_LAPACK_UNAVAILABLE (-100000)

/* LAPACKE_dgels: least squares min |A x - b| by QR; returns LAPACK's info
 * (0 ok), or CX_HW_LAPACK_UNAVAILABLE when liblapacke cannot be loaded. */
int cx_hw_dgels(int layout, char trans, int m, int n, int nrhs, double *a, int lda, double *b,
                int ldb);
/* 1 when LAPACKE could be loaded (loads it). */
int cx_hw_lapack_available(void);
/* Where LAPACKE was (or would be) loaded from, for messages. */
const char *cx_hw_lapack_path(void);

#endif
