/*
 * report.h — shared formatting helpers for text and JSON output (durations,
 * byte sizes, SI prefixes, JSON strings and numbers). No modelling.
 */
#ifndef CX_CORE_REPORT_H
#define CX_CORE_REPORT_H

#include "culonx.h"
#include "core/base/base.h"

void cx_core_fmt_time(char *buf, size_t n, double s);
void cx_core_fmt_bytes(char *buf, size_t n, double bytes);
void cx_core_fmt_si(char *buf, size_t n, double v, const char *unit);
void cx_core_json_str(FILE *out, const char *s);
void cx_core_json_num(FILE *out, double v);

/* --all rows of a sweep (sweep_rows.c): the CSV header, and one candidate
 * as a CSV row or (jsonl) a JSON line appended to b. */
extern const char *const cx_core_sweep_csv_header;
void cx_core_sweep_row(cx_sbuf *b, int jsonl, const culonx_sweep_entry *x);

#endif
