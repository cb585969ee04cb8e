/*
 * csv_table.h — reads a measurement table row by row with libcsv (quotes,
 * CRLF) for the bench drivers that read this project's own H100 tables
 * (fit_kernels.c, kernels_check.c, power_check.c; bench/data/README.md):
 * the header is skipped, each data row reaches a callback as C strings
 * (at most CSVT_NCOL fields of up to CSVT_WIDTH - 1 bytes; longer ones are
 * cut, which these tables never need).
 */
#ifndef CX_BENCH_CSV_TABLE_H
#define CX_BENCH_CSV_TABLE_H

#include <csv.h>
#include <stdio.h>
#include <string.h>

#define CSVT_NCOL 16
#define CSVT_WIDTH 96
#define CSVT_EXIT_SKIP 77 /* ctest's skip code, as bench/data.h */

/* one data row: nf fields (may exceed CSVT_NCOL; only those are kept) */
typedef void (*csvt_row_fn)(char f[][CSVT_WIDTH], int nf, void *ctx);

typedef struct {
    char f[CSVT_NCOL][CSVT_WIDTH];
    int col, header;
    csvt_row_fn fn;
    void *ctx;
} csvt_state;

static void csvt_field(void *s, size_t len, void *data)
{
    csvt_state *S = data;
    if (S->col < CSVT_NCOL) {
        size_t k = len < CSVT_WIDTH - 1 ? len : CSVT_WIDTH - 1;
        memcpy(S->f[S->col], s, k);
        S->f[S->col][k] = 0;
    }
    S->col++;
}

static void csvt_row(int c, void *data)
{
    (void)c;
    csvt_state *S = data;
    int nf = S->col;
    S->col = 0;
    if (S->header) {
        S->header = 0;
        return;
    }
    S->fn(S->f, nf, S->ctx);
}

/* Reads path; 0 when read, CSVT_EXIT_SKIP (after "SKIP <what>: <path>
 * missing" on stdout) when it is missing, 1 on a parse error. */
static int csvt_load(const char *path, const char *what, csvt_row_fn fn, void *ctx)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("SKIP %s: %s missing\n", what, path);
        return CSVT_EXIT_SKIP;
    }
    static csvt_state S;
    memset(&S, 0, sizeof S);
    S.header = 1, S.fn = fn, S.ctx = ctx;
    struct csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL) != 0) {
        fclose(fp);
        return 1;
    }
    char buf[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
        if (csv_parse(&p, buf, got, csvt_field, csvt_row, &S) != got) {
            fprintf(stderr, "%s: %s\n", path, csv_strerror(csv_error(&p)));
            rc = 1;
            break;
        }
    if (!rc) csv_fini(&p, csvt_field, csvt_row, &S);
    csv_free(&p);
    fclose(fp);
    return rc;
}

#endif
