/*
 * dvfs.c — public face of the DVFS power model: DVFS clock-table CSV loading, the
 * calibration entry point, the <power> XML fragment (write and read), and
 * "profile once, model everywhere" prediction. The model itself (equations,
 * constants and their sources) is in hw/power.c; the fits in hw/calibrate.c.
 *
 * CSV: header naming (in any order) gpu, benchmark, kernel, input, core_mhz,
 * mem_mhz, time_ms, power_w, sm_active, sm_occupancy, dram_active,
 * fp16_active, fp32_active, fp64_active, tensor_active; parsed with libcsv
 * (Debian libcsv-dev): RFC 4180 quoted fields ("a,b", ""), CRLF or LF line
 * ends, an optional UTF-8 byte-order mark; a record on one line; empty
 * counter cells are missing values (NaN); numbers are decimal (no hex, inf
 * or nan), time and power >= 0, the clock > 0, each column below a sanity
 * bound (col_max), counters are fractions. Energy of a point:
 * E[mJ] = t[ms] * P[W].
 */
#include "culonx.h"
#include "core/base/base.h"
#include "core/input/fields.h"
#include "core/output/svg.h"
#include "core/input/xml.h"
#include "hw/calibrate.h"
#include "hw/power.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ CSV */

enum {
    C_GPU,
    C_BENCH,
    C_KERNEL,
    C_INPUT,
    C_CORE,
    C_MEM,
    C_TIME,
    C_POWER,
    C_SM,
    C_OCC,
    C_DRAM,
    C_FP16,
    C_FP32,
    C_FP64,
    C_TENSOR,
    C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "gpu",         "benchmark",   "kernel",      "input",       "core_mhz",
    "mem_mhz",     "time_ms",     "power_w",     "sm_active",   "sm_occupancy",
    "dram_active", "fp16_active", "fp32_active", "fp64_active", "tensor_active"};

#define CSV_MAX_FIELDS 64

/* One CSV record split by libcsv (RFC 4180: quoted fields, "" escapes,
 * commas inside quotes; strict about stray quotes). Fields are copied into
 * buf, NUL-ended. */
typedef struct {
    char **f;
    int max, n, overflow;
    char *buf;
    size_t used, cap;
} csv_rec;

static void csv_field(void *s, size_t len, void *data)
{
    csv_rec *r = data;
    if (r->n >= r->max || r->used + len + 1 > r->cap) {
        r->overflow = 1;
        return;
    }
    char *d = r->buf + r->used;
    if (len) memcpy(d, s, len);
    d[len] = '\0';
    r->f[r->n++] = d;
    r->used += len + 1;
}

/* Splits one line into fields (copied into buf of cap >= strlen(s) + max + 2
 * bytes): the count, max + 1 when too many, -1 when the
 * quoting is malformed (unterminated or stray quote). */
static int split_fields(char *s, char **f, int max, char *buf, size_t cap)
{
    size_t len = strlen(s);
    csv_rec r = {f, max, 0, 0, buf, 0, cap};
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) return -1;
    int bad = csv_parse(&p, s, len, csv_field, NULL, &r) != len;
    if (!bad && csv_fini(&p, csv_field, NULL, &r) != 0) bad = 1;
    csv_free(&p);
    if (bad) return -1;
    if (r.overflow) return max + 1;
    if (r.n == 0) { /* an empty line (e.g. a byte-order mark alone) is one empty field */
        if (r.used >= cap) return max + 1;
        buf[r.used] = '\0';
        f[r.n++] = buf + r.used;
    }
    return r.n;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* A decimal number (digits, sign, point, exponent: no hex, inf or nan),
 * finite. 1: empty cell, -1: not such a number. */
static int parse_num(const char *s, double *out)
{
    if (!*s) return 1; /* empty */
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789+-.eE", *p)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Plausible upper bounds per numeric column (sanity limits, not hardware
 * facts): clocks up to 100 GHz, a kernel up to 1e7 ms, power up to 100 kW,
 * utilisation counters are fractions (up to 1, with 1% tolerance for
 * counter rounding). */
static double col_max(int c)
{
    switch (c) {
    case C_CORE:
    case C_MEM:
        return 1e5;
    case C_TIME:
        return 1e7;
    case C_POWER:
        return 1e5;
    default:
        return 1.01;
    }
}

culonx_status culonx_dvfs_csv_parse(const char *name, const char *buf, size_t len,
                                    culonx_dvfs_table *out, culonx_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", name ? name : "");
    cx_core_error_clear(err);
    char *text = malloc(len + 1), *fbuf = malloc(len + CSV_MAX_FIELDS + 2);
    if (!text || !fbuf) {
        free(text), free(fbuf);
        return cx_core_fail(err, CULONX_EINTERNAL, name, 0, "out of memory");
    }
    memcpy(text, buf, len);
    text[len] = '\0';
    culonx_status st = CULONX_OK;
    int map[CSV_MAX_FIELDS]; /* field index -> column, or -1 */
    int nhdr = 0, have_header = 0, lineno = 0;
    size_t cap = 0;
    char *line = text;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *next = nl ? nl + 1 : NULL;
        char *l = trim(line);
        if (!*l) {
            line = next;
            continue;
        }
        char *f[CSV_MAX_FIELDS + 1];
        if (lineno == 1 && !strncmp(l, "\xef\xbb\xbf", 3)) l += 3; /* UTF-8 byte-order mark */
        int nf = split_fields(l, f, CSV_MAX_FIELDS, fbuf, len + CSV_MAX_FIELDS + 2);
        if (nf < 0) {
            st = cx_core_fail(err, CULONX_EINPUT, name, lineno,
                              "malformed quoting (a quoted field must be closed on its line, "
                              "quotes inside it doubled)");
            goto fail;
        }
        if (nf > CSV_MAX_FIELDS) {
            st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "more than %d columns",
                              CSV_MAX_FIELDS);
            goto fail;
        }
        if (!have_header) {
            int seen[C_COUNT] = {0};
            for (int i = 0; i < nf; i++) {
                char *h = trim(f[i]);
                map[i] = -1;
                for (int c = 0; c < C_COUNT; c++)
                    if (!strcmp(h, col_names[c])) {
                        if (seen[c]) {
                            st = cx_core_fail(err, CULONX_EINPUT, name, lineno,
                                              "column '%s' appears twice in the header", h);
                            goto fail;
                        }
                        seen[c] = 1;
                        map[i] = c;
                    }
            }
            for (int c = 0; c < C_COUNT; c++)
                if (!seen[c]) {
                    st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "header lacks column '%s'",
                                      col_names[c]);
                    goto fail;
                }
            nhdr = nf;
            have_header = 1;
            line = next;
            continue;
        }
        if (nf != nhdr) {
            st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "expected %d columns, got %d", nhdr,
                              nf);
            goto fail;
        }
        if (out->nrows == cap) {
            size_t ncap = cap ? 2 * cap : 256;
            culonx_dvfs_row *nr = realloc(out->rows, ncap * sizeof *nr);
            if (!nr) {
                st = cx_core_fail(err, CULONX_EINTERNAL, name, lineno, "out of memory");
                goto fail;
            }
            out->rows = nr;
            cap = ncap;
        }
        culonx_dvfs_row *r = &out->rows[out->nrows];
        memset(r, 0, sizeof *r);
        r->line = lineno;
        double *num[C_COUNT] = {NULL,
                                NULL,
                                NULL,
                                NULL,
                                &r->core_mhz,
                                &r->mem_mhz,
                                &r->time_ms,
                                &r->power_w,
                                &r->sm_active,
                                &r->sm_occupancy,
                                &r->dram_active,
                                &r->fp16_active,
                                &r->fp32_active,
                                &r->fp64_active,
                                &r->tensor_active};
        for (int i = 0; i < nf; i++) {
            int c = map[i];
            if (c < 0) continue;
            char *v = trim(f[i]);
            if (c <= C_INPUT) {
                char *dst = c == C_GPU      ? r->gpu
                            : c == C_BENCH  ? r->benchmark
                            : c == C_KERNEL ? r->kernel
                                            : r->input;
                size_t cap_s = c == C_GPU      ? sizeof r->gpu
                               : c == C_BENCH  ? sizeof r->benchmark
                               : c == C_KERNEL ? sizeof r->kernel
                                               : sizeof r->input;
                if (!*v) {
                    st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "empty %s", col_names[c]);
                    goto fail;
                }
                if (strlen(v) >= cap_s) {
                    st = cx_core_fail(err, CULONX_EINPUT, name, lineno,
                                      "%s '%.40s...' is longer than %zu characters", col_names[c],
                                      v, cap_s - 1);
                    goto fail;
                }
                memcpy(dst, v, strlen(v) + 1);
                continue;
            }
            double x = NAN;
            int rc = parse_num(v, &x);
            if (rc < 0) {
                st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "%s: '%.40s' is not a number",
                                  col_names[c], v);
                goto fail;
            }
            if (rc > 0 && c <= C_POWER) {
                st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "%s is empty", col_names[c]);
                goto fail;
            }
            if (rc == 0 && x < 0.0) {
                st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "%s is negative (%g)",
                                  col_names[c], x);
                goto fail;
            }
            if (rc == 0 && x > col_max(c)) {
                st = cx_core_fail(err, CULONX_EINPUT, name, lineno,
                                  "%s = %g is outside the plausible range (at most %g)",
                                  col_names[c], x, col_max(c));
                goto fail;
            }
            *num[c] = x;
        }
        if (!(r->core_mhz > 0.0)) {
            st = cx_core_fail(err, CULONX_EINPUT, name, lineno, "core_mhz must be positive");
            goto fail;
        }
        out->nrows++;
        line = next;
    }
    if (!have_header) {
        st = cx_core_fail(err, CULONX_EINPUT, name, lineno ? lineno : 1, "empty file: no header");
        goto fail;
    }
    free(text), free(fbuf);
    return CULONX_OK;
fail:
    free(text), free(fbuf);
    culonx_dvfs_table_free(out);
    return st;
}

culonx_status culonx_dvfs_csv_load(const char *path, culonx_dvfs_table *out, culonx_error *err)
{
    memset(out, 0, sizeof *out);
    char *buf;
    size_t n;
    culonx_status st = cx_core_read_file(path, MAX_TABLE_BYTES, &buf, &n, err, path, 0, "");
    if (st != CULONX_OK) return st;
    if (memchr(buf, '\0', n)) {
        free(buf);
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "not a text file (NUL byte)");
    }
    st = culonx_dvfs_csv_parse(path, buf, n, out, err);
    free(buf);
    return st;
}

void culonx_dvfs_table_free(culonx_dvfs_table *s)
{
    if (!s) return;
    free(s->rows);
    s->rows = NULL;
    s->nrows = 0;
}

/* rows by kernel, then by position (first appearance first) */
static const culonx_dvfs_row *sort_base;
static int cmp_kernel_index(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = cx_hw_dvfs_kernel_cmp(&sort_base[a], &sort_base[b]);
    return c ? c : (a > b) - (a < b);
}

static int cmp_size(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

culonx_status culonx_dvfs_profile_rows(const culonx_dvfs_table *in, culonx_dvfs_table *out,
                                       culonx_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", in->path);
    if (in->nrows == 0) return CULONX_OK;
    out->rows = malloc(in->nrows * sizeof *out->rows);
    if (!out->rows) return cx_core_fail(err, CULONX_EINTERNAL, in->path, 0, "out of memory");
    /* O(n log n): sort row indices by kernel, keep each kernel's highest
     * clock (the earliest row among equal clocks), then restore the order
     * of first appearance */
    size_t n = in->nrows;
    size_t *idx = malloc(n * sizeof *idx), *pick = malloc(n * 2 * sizeof *pick);
    if (!idx || !pick) {
        free(idx), free(pick), free(out->rows);
        out->rows = NULL;
        return cx_core_fail(err, CULONX_EINTERNAL, in->path, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_base = in->rows; /* qsort has no context argument in C11 */
    qsort(idx, n, sizeof *idx, cmp_kernel_index);
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i, best = idx[i];
        while (e < n && cx_hw_dvfs_kernel_cmp(&in->rows[idx[e]], &in->rows[idx[i]]) == 0) {
            if (in->rows[idx[e]].core_mhz > in->rows[best].core_mhz) best = idx[e];
            e++;
        }
        pick[2 * ng] = idx[i]; /* first appearance */
        pick[2 * ng + 1] = best;
        ng++;
        i = e;
    }
    qsort(pick, ng, 2 * sizeof *pick, cmp_size);
    for (size_t g = 0; g < ng; g++)
        out->rows[out->nrows++] = in->rows[pick[2 * g + 1]];
    free(idx), free(pick);
    return CULONX_OK;
}

culonx_status culonx_power_calibrate(const culonx_dvfs_table *table, const char *exclude_family,
                                     culonx_dvfs_model *model, culonx_power_fit *fit,
                                     culonx_error *err)
{
    cx_core_error_clear(err);
    const culonx_dvfs_row **rows = malloc((table->nrows ? table->nrows : 1) * sizeof *rows);
    if (!rows) return cx_core_fail(err, CULONX_EINTERNAL, table->path, 0, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < table->nrows; i++) {
        if (exclude_family && !strcmp(table->rows[i].benchmark, exclude_family)) continue;
        rows[n++] = &table->rows[i];
    }
    culonx_status st;
    if (exclude_family && n == table->nrows)
        st = cx_core_fail(err, CULONX_EINPUT, table->path, 0,
                          "no benchmark family '%s' in the clock table", exclude_family);
    else
        st = cx_hw_calibrate(rows, n, model, fit, err, table->path);
    if (st == CULONX_OK && exclude_family) {
        size_t l = strlen(model->power.provenance);
        snprintf(model->power.provenance + l, sizeof model->power.provenance - l,
                 ", family %s held out", exclude_family);
    }
    free(rows);
    return st;
}

void culonx_power_default(culonx_gpu *gpu)
{
    cx_hw_power_default(gpu);
}

/* ------------------------------------------------------------------ XML */

static void write_list(FILE *out, const char *attr, const double *v, int n)
{
    fprintf(out, "\n       %s=\"", attr);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%.10g", i ? " " : "", v[i]);
    fputc('"', out);
}

culonx_status culonx_power_write_xml(FILE *out, const culonx_dvfs_model *d, const char *comment,
                                     culonx_error *err)
{
    const culonx_power_model *m = &d->power;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    if (comment && *comment) {
        fputs("<!--\n", out);
        for (const char *s = comment; *s; s++) {
            fputc(*s, out);
            if (*s == '-' && s[1] == '-') fputc(' ', out); /* "--" is not allowed */
        }
        fputs("\n-->\n", out);
    }
    fputs("<power", out);
    if (d->gpu[0]) {
        fputs(" gpu=\"", out);
        cx_core_html_esc(out, d->gpu);
        fputc('"', out);
    }
    fprintf(out,
            "\n       const-w=\"%.10g\" static-w=\"%.10g\" knee-mhz=\"%.10g\" v-min=\"%.10g\""
            " v-slope=\"%.10g\"\n       tensor-w=\"%.10g\" fp-w=\"%.10g\" sm-w=\"%.10g\""
            " dram-w=\"%.10g\" blocked-w=\"%.10g\" time-exp=\"%.10g\"",
            m->const_w, m->static_w, m->knee_mhz, m->v_min, m->v_slope, m->tensor_w, m->fp_w,
            m->sm_w, m->dram_w, m->blocked_w, m->time_exp);
    if (d->max_mhz > 0.0) fprintf(out, " max-mhz=\"%.10g\"", d->max_mhz);
    if (d->nclocks > 0) {
        write_list(out, "clocks-mhz", d->clock_mhz, d->nclocks);
        write_list(out, "time-mem-scale", d->mem_scale, d->nclocks);
        write_list(out, "time-compute-scale", d->compute_scale, d->nclocks);
        int any_pw = 0;
        for (int j = 0; j < d->nclocks; j++)
            any_pw |= d->mem_power_scale[j] != 0.0;
        if (any_pw) write_list(out, "time-mem-power-scale", d->mem_power_scale, d->nclocks);
        int any_fp = 0;
        for (int j = 0; j < d->nclocks; j++)
            any_fp |= d->mem_fp_scale[j] != 0.0;
        if (any_fp) write_list(out, "time-mem-fp-scale", d->mem_fp_scale, d->nclocks);
        fprintf(out, "\n       split-dram=\"%.10g %.10g\"", d->split_dram_lo, d->split_dram_hi);
        if (d->power_terms == CULONX_DVFS_POWER_TERMS)
            write_list(out, "power-ratio", &d->power_ratio[0][0],
                       d->nclocks * CULONX_DVFS_POWER_TERMS);
    }
    fputs("\n       provenance=\"", out);
    cx_core_html_esc(out, m->provenance);
    fputs("\"/>\n", out);
    if (ferror(out)) return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "write error");
    return CULONX_OK;
}

static int parse_list(const char *s, double *v, int max)
{
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s) break;
        if (n == max) return -1;
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || errno == ERANGE || !isfinite(x)) return -1;
        if (*end && !isspace((unsigned char)*end)) return -1;
        v[n++] = x;
        s = end;
    }
    return n;
}

culonx_status culonx_power_read_xml(const char *path, culonx_dvfs_model *d, culonx_error *err)
{
    cx_core_error_clear(err);
    memset(d, 0, sizeof *d);
    /* read the file ourselves (a regular file, size-capped): libxml2 would
     * print I/O warnings and block on a FIFO */
    char *buf;
    size_t len;
    culonx_status rs = cx_core_read_file(path, MAX_FILE_BYTES, &buf, &len, err, path, 0, "");
    if (rs != CULONX_OK) return rs;
    rs = cx_core_power_parse_xml(path, buf, len, d, err);
    free(buf);
    return rs;
}

culonx_status cx_core_power_parse_xml(const char *path, const char *buf, size_t len,
                                      culonx_dvfs_model *d, culonx_error *err)
{
    cx_core_error_clear(err);
    memset(d, 0, sizeof *d);
    if (len > MAX_FILE_BYTES || len > (size_t)INT_MAX)
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "file too large");
    culonx_status ps = cx_core_xml_prescan(path, buf, len, err);
    if (ps != CULONX_OK) return ps;
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return cx_core_fail(err, CULONX_EINTERNAL, path, 0, "out of memory");
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, path, NULL,
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    culonx_status st = CULONX_OK;
    if (!doc) {
        xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
        char msg[256] = "cannot parse XML";
        int line = 0;
        if (e && e->message) {
            snprintf(msg, sizeof msg, "%s", e->message);
            size_t l = strlen(msg);
            while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
                msg[--l] = '\0';
            line = e->line;
        }
        xmlFreeParserCtxt(ctxt);
        return cx_core_fail(err, CULONX_EINPUT, path, line, "%s", msg);
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (doc->intSubset || doc->extSubset) {
        st = cx_core_fail(err, CULONX_EINPUT, path, 1, "DTDs and entities are not accepted");
        goto out;
    }
    if (!root || xmlStrcmp(root->name, (const xmlChar *)"power")) {
        st = cx_core_fail(err, CULONX_EINPUT, path, root ? (int)xmlGetLineNo(root) : 1,
                          "root element must be <power>");
        goto out;
    }
    int line = (int)xmlGetLineNo(root);
    culonx_power_model *m = &d->power;
    struct {
        const char *name;
        double *dst;
        int required;
    } sc[] = {{"const-w", &m->const_w, 1},   {"static-w", &m->static_w, 1},
              {"knee-mhz", &m->knee_mhz, 1}, {"v-min", &m->v_min, 1},
              {"v-slope", &m->v_slope, 1},   {"tensor-w", &m->tensor_w, 1},
              {"fp-w", &m->fp_w, 1},         {"sm-w", &m->sm_w, 1},
              {"dram-w", &m->dram_w, 1},     {"blocked-w", &m->blocked_w, 1},
              {"time-exp", &m->time_exp, 1}, {"max-mhz", &d->max_mhz, 0}};
    const int nsc = (int)(sizeof sc / sizeof sc[0]);
    int seen[16] = {0};
    int nclk = -1, nmem = -1, ncomp = -1, npr = -1, nmpw = -1, nmfp = -1;
    for (xmlAttrPtr a = root->properties; a; a = a->next) {
        xmlChar *v = xmlNodeListGetString(doc, a->children, 1);
        const char *name = (const char *)a->name, *val = v ? (const char *)v : "";
        int ok = 1, known = 0;
        for (int i = 0; i < nsc; i++)
            if (!strcmp(name, sc[i].name)) {
                double x;
                known = 1;
                seen[i] = 1;
                if (parse_num(val, &x) != 0 || x < 0.0)
                    ok = 0;
                else
                    *sc[i].dst = x;
            }
        if (!known) {
            known = 1;
            if (!strcmp(name, "provenance"))
                snprintf(m->provenance, sizeof m->provenance, "%s", val);
            else if (!strcmp(name, "gpu"))
                snprintf(d->gpu, sizeof d->gpu, "%s", val);
            else if (!strcmp(name, "clocks-mhz"))
                ok = (nclk = parse_list(val, d->clock_mhz, CULONX_DVFS_MAX_CLOCKS)) > 0;
            else if (!strcmp(name, "time-mem-scale"))
                ok = (nmem = parse_list(val, d->mem_scale, CULONX_DVFS_MAX_CLOCKS)) > 0;
            else if (!strcmp(name, "time-compute-scale"))
                ok = (ncomp = parse_list(val, d->compute_scale, CULONX_DVFS_MAX_CLOCKS)) > 0;
            else if (!strcmp(name, "time-mem-power-scale"))
                ok = (nmpw = parse_list(val, d->mem_power_scale, CULONX_DVFS_MAX_CLOCKS)) > 0;
            else if (!strcmp(name, "time-mem-fp-scale"))
                ok = (nmfp = parse_list(val, d->mem_fp_scale, CULONX_DVFS_MAX_CLOCKS)) > 0;
            else if (!strcmp(name, "power-ratio"))
                ok = (npr = parse_list(val, &d->power_ratio[0][0],
                                       CULONX_DVFS_MAX_CLOCKS * CULONX_DVFS_POWER_TERMS)) > 0;
            else if (!strcmp(name, "split-dram")) {
                double s2[2] = {0.0, 0.0};
                ok = parse_list(val, s2, 2) == 2 && s2[1] > s2[0];
                d->split_dram_lo = s2[0];
                d->split_dram_hi = s2[1];
            } else
                known = 0;
        }
        if (!known)
            st = cx_core_fail(err, CULONX_EINPUT, path, line, "<power>: unknown attribute '%s'",
                              name);
        else if (!ok)
            st = cx_core_fail(err, CULONX_EINPUT, path, line,
                              "<power %s=\"%.60s\">: not a valid non-negative value", name, val);
        if (v) xmlFree(v);
        if (st != CULONX_OK) goto out;
    }
    for (int i = 0; i < nsc; i++)
        if (sc[i].required && !seen[i]) {
            st = cx_core_fail(err, CULONX_EINPUT, path, line, "<power>: missing attribute '%s'",
                              sc[i].name);
            goto out;
        }
    if (nclk > 0 || nmem > 0 || ncomp > 0) {
        if (nclk != nmem || nclk != ncomp) {
            st = cx_core_fail(err, CULONX_EINPUT, path, line,
                              "<power>: clocks-mhz, time-mem-scale and time-compute-scale "
                              "must have the same length");
            goto out;
        }
        for (int i = 0; i < nclk; i++)
            if (!(d->clock_mhz[i] > 0.0) || (i && d->clock_mhz[i] <= d->clock_mhz[i - 1])) {
                st = cx_core_fail(err, CULONX_EINPUT, path, line,
                                  "<power clocks-mhz>: clocks must be positive and ascending");
                goto out;
            }
        if (nmpw > 0 && nmpw != nclk) {
            st = cx_core_fail(err, CULONX_EINPUT, path, line,
                              "<power time-mem-power-scale>: wants %d numbers (one per clock), "
                              "got %d",
                              nclk, nmpw);
            goto out;
        }
        if (nmfp > 0 && nmfp != nclk) {
            st = cx_core_fail(err, CULONX_EINPUT, path, line,
                              "<power time-mem-fp-scale>: wants %d numbers (one per clock), "
                              "got %d",
                              nclk, nmfp);
            goto out;
        }
        d->nclocks = nclk;
        if (npr > 0) {
            if (npr != nclk * CULONX_DVFS_POWER_TERMS) {
                st = cx_core_fail(err, CULONX_EINPUT, path, line,
                                  "<power power-ratio>: wants %d numbers (%d per clock), got %d",
                                  nclk * CULONX_DVFS_POWER_TERMS, CULONX_DVFS_POWER_TERMS, npr);
                goto out;
            }
            d->power_terms = CULONX_DVFS_POWER_TERMS;
        }
        if (!(d->max_mhz > 0.0)) d->max_mhz = d->clock_mhz[nclk - 1];
    }
    if (nmpw > 0 && nclk <= 0) {
        st = cx_core_fail(err, CULONX_EINPUT, path, line,
                          "<power time-mem-power-scale>: needs clocks-mhz and the time tables");
        goto out;
    }
    if (nmfp > 0 && nclk <= 0) {
        st = cx_core_fail(err, CULONX_EINPUT, path, line,
                          "<power time-mem-fp-scale>: needs clocks-mhz and the time tables");
        goto out;
    }
    if (npr > 0 && nclk <= 0) {
        st = cx_core_fail(err, CULONX_EINPUT, path, line,
                          "<power power-ratio>: needs clocks-mhz and the time tables");
        goto out;
    }
    if (!(m->knee_mhz >= 0.0) || !(m->v_min > 0.0)) {
        st = cx_core_fail(err, CULONX_EINPUT, path, line, "<power>: v-min must be positive");
        goto out;
    }
    if ((st = cx_core_check_power(m, path, line, err)) != CULONX_OK) goto out;
    for (int j = 0; j < nclk; j++)
        /* the memory-bound factor is a_j + e_j*P0/100: a_j may be 0 where
         * the power term carries it all (V100 at 405 MHz) */
        if (!(d->mem_scale[j] >= 0 && d->mem_scale[j] < 1e6 && d->compute_scale[j] > 0 &&
              d->compute_scale[j] < 1e6 && d->mem_power_scale[j] >= 0.0 &&
              d->mem_power_scale[j] < 1e6 && d->mem_fp_scale[j] >= 0.0 &&
              d->mem_fp_scale[j] < 1e6 &&
              d->mem_scale[j] + d->mem_power_scale[j] + d->mem_fp_scale[j] > 0.0)) {
            st = cx_core_fail(err, CULONX_EINPUT, path, line,
                              "<power>: time-mem-scale and time-compute-scale must be plausible "
                              "(below 1e6; compute positive, memory non-negative) and "
                              "time-mem-power-scale and time-mem-fp-scale non-negative, not "
                              "all memory scales 0");
            goto out;
        }
    if (d->max_mhz > 1e5) {
        st = cx_core_fail(err, CULONX_EINPUT, path, line, "<power>: max-mhz = %g is implausible",
                          d->max_mhz);
        goto out;
    }
    m->present = 1;
out:
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return st;
}

/* ------------------------------------------------------------- predict */

culonx_status culonx_dvfs_predict(const culonx_dvfs_model *model, const culonx_dvfs_row *profile,
                                  size_t nprofile, const double *clocks_mhz, int nclocks,
                                  culonx_dvfs_point *out, culonx_error *err)
{
    if (!(model->max_mhz > 0.0))
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "DVFS model has no maximum clock (max-mhz)");
    for (int j = 0; j < nclocks; j++)
        if (!(clocks_mhz[j] > 0.0))
            return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "clock %g MHz is not positive",
                                clocks_mhz[j]);
    for (size_t i = 0; i < nprofile; i++)
        for (int j = 0; j < nclocks; j++) {
            culonx_dvfs_point *p = &out[i * (size_t)nclocks + (size_t)j];
            p->profile_index = i;
            p->core_mhz = clocks_mhz[j];
            cx_hw_dvfs_predict_row(model, &profile[i], clocks_mhz[j], &p->time_ms, &p->power_w);
            p->energy_millijoules = p->time_ms * p->power_w;
        }
    return CULONX_OK;
}
