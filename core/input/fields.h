/*
 * fields.h — the field tables of run files shared by the XML loader
 * (config.c) and --set (fields.c). Internal to core/input/.
 */
#ifndef CX_CORE_INPUT_FIELDS_H
#define CX_CORE_INPUT_FIELDS_H

#include "culonx.h"

#include <stddef.h>

typedef enum {
    FT_NAME,     /* non-empty string */
    FT_TEXT,     /* string, may be empty */
    FT_COUNT,    /* int64_t >= 1 */
    FT_COUNT0,   /* int64_t >= 0 */
    FT_NONNEG,   /* double >= 0 */
    FT_POSITIVE, /* double > 0 */
    FT_BOOL,     /* int 0/1 */
    FT_ARCH,
    FT_RECOMPUTE,
    FT_SCHEDULE,
    FT_DTYPE,
    FT_ATTENTION,
    FT_TP_OVERLAP,
    FT_ZERO,    /* int 0..3 */
    FT_OFFLOAD, /* int, CULONX_OFFLOAD_* bits from a comma list (or none) */
    FT_ZERO_IMPL,
    FT_A2A_OVERLAP,
} cx_field_type;

typedef struct {
    const char *key; /* XML attribute name */
    cx_field_type type;
    size_t off, size;
    double scale; /* XML unit -> struct unit; 0 means 1 */
    int required;
} cx_field;

#define FLD(T, key, type, member, scale, req)                                                      \
    {                                                                                              \
        key, type, offsetof(T, member), sizeof(((T *)0)->member), scale, req                       \
    }

typedef struct {
    const cx_field *f;
    int n;
} cx_fields;

/* the attributes of <model>, <system>, <gpu>, <power>, <tier>, <perf> and
 * <execution> */
extern const cx_fields cx_core_model_fields, cx_core_system_fields, cx_core_gpu_fields,
    cx_core_power_fields, cx_core_tier_fields, cx_core_perf_fields, cx_core_exec_fields,
    cx_core_serving_fields, cx_core_host_fields;
/* execution.zero and its alias distributed-optimizer, after either was set:
 * zero_given / dopt_given say which; both given must agree (returns -1),
 * else the other follows (fields.c). */
int cx_core_zero_alias(culonx_execution *e, int zero_given, int dopt_given);

/* positions in the tables of fields the loader treats specially (defaults
 * that depend on whether they were given) */
enum { MODEL_KV_HEADS = 5, MODEL_FFN = 6 };
enum { EXEC_GPUS = 0, EXEC_DP = 3 };
enum { SERV_KV_DTYPE = 6 };

/* Index of `key` in fs[0..n), -1 if none. */
int cx_core_field_find(const cx_field *fs, int n, const char *key);
/* " (did you mean 'x'?); keys: a, b, ..." for an unknown key (fields.c) */
void cx_core_field_hint(const cx_field *fs, int n, const char *key, char *buf, size_t len);
/* Parses `s` into the field at base + f->off. 0, or -1 with `why`. */
int cx_core_field_parse(const cx_field *f, const char *s, void *base, char *why, size_t whylen);
/* Re-derives whichever of dp / gpus was omitted in the file. */
void cx_core_run_derive(culonx_run *run);
/* The plausible ranges of a power model read alone (a <power> file for
 * dvfs-predict), with the run check's messages (check.c). */
culonx_status cx_core_check_power(const culonx_power_model *p, const char *file, int line,
                                  culonx_error *err);
/* kv-dtype follows dtype unless given; a serving-only run gets the
 * execution of one instance (fields.c). */
void cx_core_serving_derive(culonx_run *run);
/* Sets an origin record (file, line). */
void cx_core_origin_set(culonx_origin *o, const char *file, int line);

#endif
