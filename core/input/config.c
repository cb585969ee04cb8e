/*
 * config.c — loads run files (XML) into a culonx_run, applies "--set
 * section.key=value" overrides and checks a run for consistency.
 *
 * Parsing: libxml2 with XML_PARSE_NONET, no entity substitution (no
 * XML_PARSE_NOENT), no DTD loading, an external-entity resolver that refuses
 * everything, and documents with a DOCTYPE are rejected outright. Each
 * document is validated against configs/culonx.xsd (the explicit path when
 * one is given, else the copy built into the library from configs/culonx.xsd
 * by core/pkg/embed.cmake, so an installed culonx needs no source tree; the
 * parsed schema is cached). The first parse or schema error becomes
 *   file:line: error: <element attr="value">: message
 * through err->file, err->line and err->msg.
 *
 * Vocabulary (configs/culonx.xsd): <run> holds <model>, <system> and
 * <execution>; model and system are inline or file="..." relative to the run
 * file; a <gpu> holds an optional <power> (inline or file="..." relative to
 * the system file); <network> holds one or two <tier>s (0: scale-up, 1:
 * scale-out). Units convert on load: latency-us and kernel-launch-us are
 * stored in seconds. Defaults: kv-heads = heads; ffn = 4*hidden for gpt
 * (required for llama); vp 1; recompute none; schedule 1f1b; dtype bf16;
 * sequence-parallel, distributed-optimizer and dp-overlap false; pue 1;
 * tier efficiency 1, pj-per-bit 0; power time-exp 1; matrix8-tflops 0;
 * absent <perf> fields 0 (library default). dp = gpus/(tp*pp) when omitted,
 * gpus = tp*pp*dp when omitted.
 *
 * Overrides: section is model | system | gpu | power | perf | execution, or
 * network.TIER where TIER is tier0 | tier1 | intra (= tier0) | inter
 * (= tier1) | the tier's name, e.g. network.tier1.bw-gbps=25. Keys are the XML
 * attribute names. Setting model.heads also moves kv-heads when they were
 * equal (MHA); setting model.hidden moves a GPT ffn that was 4*hidden; among
 * gpus and dp the one omitted in the file is re-derived after tp/pp/gpus/dp
 * change.
 *
 * The XML reader (safe parsing, schema, file:line errors) is xml.c; the
 * consistency check of a whole run is check.c.
 */
#include "core/base/base.h"
#include "core/input/xml.h"
#include "core/layout/layout.h"
#include "core/layout/rules.h"
#include "models/model.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlversion.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SET_FILE "--set"

/* ------------------------------------------------------------- fields */

typedef enum {
    FT_NAME,     /* non-empty string */
    FT_TEXT,     /* string, may be empty */
    FT_COUNT,    /* int64_t >= 1 */
    FT_NONNEG,   /* double >= 0 */
    FT_POSITIVE, /* double > 0 */
    FT_BOOL,     /* int 0/1 */
    FT_ARCH,
    FT_RECOMPUTE,
    FT_SCHEDULE,
    FT_DTYPE,
} field_type;

typedef struct {
    const char *key; /* XML attribute name */
    field_type type;
    size_t off, size;
    double scale; /* XML unit -> struct unit; 0 means 1 */
    int required;
} field;

#define FLD(T, key, type, member, scale, req)                                                      \
    {                                                                                              \
        key, type, offsetof(T, member), sizeof(((T *)0)->member), scale, req                       \
    }

static const field model_fields[] = {
    FLD(culonx_model, "name", FT_NAME, name, 0, 1),
    FLD(culonx_model, "arch", FT_ARCH, arch, 0, 1),
    FLD(culonx_model, "layers", FT_COUNT, layers, 0, 1),
    FLD(culonx_model, "hidden", FT_COUNT, hidden, 0, 1),
    FLD(culonx_model, "heads", FT_COUNT, heads, 0, 1),
    FLD(culonx_model, "kv-heads", FT_COUNT, kv_heads, 0, 0),
    FLD(culonx_model, "ffn", FT_COUNT, ffn, 0, 0),
    FLD(culonx_model, "vocab", FT_COUNT, vocab, 0, 1),
    FLD(culonx_model, "seq", FT_COUNT, seq, 0, 1),
};
enum { MODEL_KV_HEADS = 5, MODEL_FFN = 6 };

static const field system_fields[] = {
    FLD(culonx_system, "name", FT_NAME, name, 0, 1),
    FLD(culonx_system, "gpus-per-node", FT_COUNT, gpus_per_node, 0, 1),
    FLD(culonx_system, "node-overhead-w", FT_NONNEG, node_overhead_w, 0, 0),
    FLD(culonx_system, "pue", FT_POSITIVE, pue, 0, 0),
};

static const field gpu_fields[] = {
    FLD(culonx_gpu, "name", FT_NAME, name, 0, 1),
    FLD(culonx_gpu, "matrix16-tflops", FT_POSITIVE, matrix16_tflops, 0, 1),
    FLD(culonx_gpu, "matrix8-tflops", FT_NONNEG, matrix8_tflops, 0, 0),
    FLD(culonx_gpu, "vector-tflops", FT_POSITIVE, vector_tflops, 0, 1),
    FLD(culonx_gpu, "hbm-gbps", FT_POSITIVE, hbm_gbps, 0, 1),
    FLD(culonx_gpu, "mem-gib", FT_POSITIVE, mem_gib, 0, 1),
    FLD(culonx_gpu, "min-mhz", FT_POSITIVE, min_mhz, 0, 1),
    FLD(culonx_gpu, "max-mhz", FT_POSITIVE, max_mhz, 0, 1),
    FLD(culonx_gpu, "step-mhz", FT_POSITIVE, step_mhz, 0, 1),
    FLD(culonx_gpu, "tdp-w", FT_POSITIVE, tdp_w, 0, 1),
    FLD(culonx_gpu, "idle-w", FT_NONNEG, idle_w, 0, 1),
};

static const field power_fields[] = {
    FLD(culonx_power_model, "const-w", FT_NONNEG, const_w, 0, 1),
    FLD(culonx_power_model, "static-w", FT_NONNEG, static_w, 0, 1),
    FLD(culonx_power_model, "knee-mhz", FT_NONNEG, knee_mhz, 0, 1),
    FLD(culonx_power_model, "v-min", FT_POSITIVE, v_min, 0, 1),
    FLD(culonx_power_model, "v-slope", FT_NONNEG, v_slope, 0, 1),
    FLD(culonx_power_model, "tensor-w", FT_NONNEG, tensor_w, 0, 1),
    FLD(culonx_power_model, "fp-w", FT_NONNEG, fp_w, 0, 1),
    FLD(culonx_power_model, "sm-w", FT_NONNEG, sm_w, 0, 1),
    FLD(culonx_power_model, "dram-w", FT_NONNEG, dram_w, 0, 1),
    FLD(culonx_power_model, "blocked-w", FT_NONNEG, blocked_w, 0, 1),
    FLD(culonx_power_model, "time-exp", FT_POSITIVE, time_exp, 0, 0),
    FLD(culonx_power_model, "provenance", FT_TEXT, provenance, 0, 0),
};

static const field tier_fields[] = {
    FLD(culonx_net_tier, "name", FT_NAME, name, 0, 1),
    FLD(culonx_net_tier, "bw-gbps", FT_POSITIVE, bw_gbps, 0, 1),
    FLD(culonx_net_tier, "latency-us", FT_NONNEG, latency_s, 1e-6, 1),
    FLD(culonx_net_tier, "efficiency", FT_POSITIVE, efficiency, 0, 0),
    FLD(culonx_net_tier, "pj-per-bit", FT_NONNEG, pj_per_bit, 0, 0),
};

static const field perf_fields[] = {
    FLD(culonx_perf_params, "matmul-eff-max", FT_NONNEG, matmul_eff_max, 0, 0),
    FLD(culonx_perf_params, "matmul-half-dim", FT_NONNEG, matmul_half_dim, 0, 0),
    FLD(culonx_perf_params, "mem-eff", FT_NONNEG, mem_eff, 0, 0),
    FLD(culonx_perf_params, "kernel-launch-us", FT_NONNEG, kernel_launch_s, 1e-6, 0),
    FLD(culonx_perf_params, "optimizer-bytes-per-param", FT_NONNEG, optimizer_bytes_per_param, 0,
        0),
};

static const field exec_fields[] = {
    FLD(culonx_execution, "gpus", FT_COUNT, gpus, 0, 0),
    FLD(culonx_execution, "tp", FT_COUNT, tp, 0, 1),
    FLD(culonx_execution, "pp", FT_COUNT, pp, 0, 1),
    FLD(culonx_execution, "dp", FT_COUNT, dp, 0, 0),
    FLD(culonx_execution, "vp", FT_COUNT, vp, 0, 0),
    FLD(culonx_execution, "microbatch", FT_COUNT, microbatch, 0, 1),
    FLD(culonx_execution, "global-batch", FT_COUNT, global_batch, 0, 1),
    FLD(culonx_execution, "recompute", FT_RECOMPUTE, recompute, 0, 0),
    FLD(culonx_execution, "sequence-parallel", FT_BOOL, sequence_parallel, 0, 0),
    FLD(culonx_execution, "schedule", FT_SCHEDULE, schedule, 0, 0),
    FLD(culonx_execution, "distributed-optimizer", FT_BOOL, distributed_optimizer, 0, 0),
    FLD(culonx_execution, "dtype", FT_DTYPE, dtype, 0, 0),
    FLD(culonx_execution, "dp-overlap", FT_BOOL, dp_overlap, 0, 0),
    FLD(culonx_execution, "tokens", FT_NONNEG, tokens, 0, 0),
    FLD(culonx_execution, "clock-mhz", FT_NONNEG, clock_mhz, 0, 0),
};
enum { EXEC_GPUS = 0, EXEC_DP = 3 };

#define NFIELDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int find_field(const field *fs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fs[i].key, key) == 0) return i;
    return -1;
}

static int only_space(const char *s)
{
    return *cx_core_xml_skip_space(s) == '\0';
}

/* Parses `s` into the field at base+f->off. Returns 0, or -1 with `why`. */
static int parse_value(const field *f, const char *s, void *base, char *why, size_t whylen)
{
    char *p = (char *)base + f->off;
    switch (f->type) {
    case FT_NAME:
    case FT_TEXT: {
        size_t n = strlen(s);
        if (f->type == FT_NAME && n == 0) {
            snprintf(why, whylen, "expected a non-empty name");
            return -1;
        }
        if (n >= f->size) {
            snprintf(why, whylen, "longer than %zu characters", f->size - 1);
            return -1;
        }
        memcpy(p, s, n + 1);
        return 0;
    }
    case FT_COUNT: {
        const char *t = cx_core_xml_skip_space(s);
        char *end = NULL;
        long long v = 0;
        int ok = (*t >= '0' && *t <= '9') || (*t == '+' && t[1] >= '0' && t[1] <= '9');
        if (ok) {
            errno = 0;
            v = strtoll(t, &end, 10);
            ok = end != t && only_space(end) && errno != ERANGE && v >= 1;
        }
        if (!ok) {
            snprintf(why, whylen, "expected a positive integer, got '%.64s'", s);
            return -1;
        }
        int64_t iv = (int64_t)v;
        memcpy(p, &iv, sizeof iv);
        return 0;
    }
    case FT_NONNEG:
    case FT_POSITIVE: {
        const char *t = cx_core_xml_skip_space(s);
        char *end;
        errno = 0;
        double v = strtod(t, &end);
        int bad = end == t || !only_space(end) || !isfinite(v) || errno == ERANGE ||
                  (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'));
        if (bad || v < 0 || (f->type == FT_POSITIVE && v == 0)) {
            snprintf(why, whylen, "expected a %s number, got '%.64s'",
                     f->type == FT_POSITIVE ? "positive" : "non-negative", s);
            return -1;
        }
        if (f->scale != 0) v *= f->scale;
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_BOOL: {
        int v;
        const char *t = cx_core_xml_skip_space(s);
        size_t n = strlen(t);
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' || t[n - 1] == '\r'))
            n--;
        if ((n == 4 && strncmp(t, "true", 4) == 0) || (n == 1 && t[0] == '1'))
            v = 1;
        else if ((n == 5 && strncmp(t, "false", 5) == 0) || (n == 1 && t[0] == '0'))
            v = 0;
        else {
            snprintf(why, whylen, "expected true or false, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_ARCH: {
        const cx_model_family *fam = cx_model_family_named(s);
        if (!fam) {
            char names[128];
            cx_model_family_names(names, sizeof names);
            snprintf(why, whylen, "expected %s, got '%.64s'", names, s);
            return -1;
        }
        culonx_arch v = fam->arch;
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_RECOMPUTE: {
        culonx_recompute v;
        if (strcmp(s, "none") == 0)
            v = CULONX_RECOMPUTE_NONE;
        else if (strcmp(s, "selective") == 0)
            v = CULONX_RECOMPUTE_SELECTIVE;
        else if (strcmp(s, "full") == 0)
            v = CULONX_RECOMPUTE_FULL;
        else {
            snprintf(why, whylen, "expected none, selective or full, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_SCHEDULE: {
        culonx_schedule v;
        if (culonx_schedule_parse(s, &v) != 0) {
            char known[256] = "";
            size_t used = 0;
            for (int i = 0; i < culonx_schedule_count() && used < sizeof known; i++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                         culonx_schedule_name((culonx_schedule)i));
            snprintf(why, whylen, "unknown schedule '%.64s' (known: %s)", s, known);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case FT_DTYPE: {
        culonx_dtype v;
        if (strcmp(s, "fp16") == 0)
            v = CULONX_DTYPE_FP16;
        else if (strcmp(s, "bf16") == 0)
            v = CULONX_DTYPE_BF16;
        else if (strcmp(s, "fp8") == 0)
            v = CULONX_DTYPE_FP8;
        else {
            snprintf(why, whylen, "expected fp16, bf16 or fp8, got '%.64s'", s);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    }
    snprintf(why, whylen, "internal: bad field type");
    return -1;
}

/* ------------------------------------------------------ integer helpers */

/* Re-derives whichever of dp / gpus was omitted in the file. */
static void derive_dp_gpus(culonx_run *run)
{
    culonx_execution *e = &run->exec;
    cx_layout l;
    cx_core_layout_init(&l, e);
    if (run->dp_derived)
        e->dp = cx_core_layout_derive_dp(&l, e->gpus);
    else if (run->gpus_derived)
        e->gpus = l.gpus;
}

/* ------------------------------------------------------ elements */

typedef struct {
    xmlSchemaPtr schema;
    culonx_run *run;
    culonx_error *err;
} loader;

static int elem_line(xmlNodePtr el)
{
    long l = xmlGetLineNo(el);
    return l > 0 && l < INT_MAX ? (int)l : 0;
}

static void set_origin(culonx_origin *o, const char *file, int line)
{
    snprintf(o->file, sizeof o->file, "%s", file);
    o->line = line;
}

/* Attributes `culonx calibrate` writes for dvfs-predict (the sweep clocks
 * and per-clock time tables, core/dvfs.c); the training model does not use
 * them, the schema checks their syntax. */
static int is_calibration_attr(const char *key)
{
    static const char *const keys[] = {"gpu", "max-mhz", "clocks-mhz", "time-mem-scale",
                                       "time-compute-scale", "split-dram", "power-ratio"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0) return 1;
    return 0;
}

/* Reads the attributes of `el` into base via fields; `file` names the
 * document for messages. Attributes in `skip` (NULL-terminated) are ignored.
 * Sets bit i of *seen for each field i given. */
static culonx_status load_attrs(loader *L, xmlNodePtr el, const char *file, const field *fs, int nf,
                                void *base, uint32_t *seen)
{
    *seen = 0;
    for (xmlAttrPtr a = el->properties; a; a = a->next) {
        const char *key = (const char *)a->name;
        if (strcmp(key, "file") == 0) continue;
        if (fs == power_fields && is_calibration_attr(key)) continue;
        char where[256];
        cx_core_xml_render_element(el, key, where, sizeof where);
        int i = find_field(fs, nf, key);
        if (i < 0)
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: unknown attribute '%s'", where, key);
        xmlChar *v = xmlNodeListGetString(el->doc, a->children, 1);
        char why[512];
        int bad = parse_value(&fs[i], v ? (const char *)v : "", base, why, sizeof why);
        if (v) xmlFree(v);
        if (bad)
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el), "%s: %s: %s", where,
                                key, why);
        *seen |= (uint32_t)1 << i;
    }
    return CULONX_OK;
}

static culonx_status require_attrs(loader *L, xmlNodePtr el, const char *file, const field *fs,
                                   int nf, uint32_t seen)
{
    for (int i = 0; i < nf; i++)
        if (fs[i].required && !(seen & ((uint32_t)1 << i))) {
            char where[256];
            cx_core_xml_render_element(el, "name", where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: missing required attribute '%s'", where, fs[i].key);
        }
    return CULONX_OK;
}

/* Resolves `rel` against the directory of `base_file`. */
static culonx_status resolve_path(loader *L, xmlNodePtr el, const char *base_file, char *out,
                                  size_t cap)
{
    xmlChar *v = xmlGetProp(el, (const xmlChar *)"file");
    char rel[512];
    snprintf(rel, sizeof rel, "%s", v ? (const char *)v : "");
    if (v) xmlFree(v);
    char where[700];
    cx_core_xml_render_element(el, "file", where, sizeof where);
    if (!rel[0])
        return cx_core_fail(L->err, CULONX_EINPUT, base_file, elem_line(el), "%s: empty file name",
                            where);
    if (strstr(rel, "://") || strncmp(rel, "file:", 5) == 0 || strncmp(rel, "http:", 5) == 0)
        return cx_core_fail(L->err, CULONX_EINPUT, base_file, elem_line(el),
                            "%s: only local files may be referenced, not URLs", where);
    int n;
    const char *slash = strrchr(base_file, '/');
    if (rel[0] == '/' || !slash)
        n = snprintf(out, cap, "%s", rel);
    else
        n = snprintf(out, cap, "%.*s/%s", (int)(slash - base_file), base_file, rel);
    if (n < 0 || (size_t)n >= cap)
        return cx_core_fail(L->err, CULONX_EINPUT, base_file, elem_line(el), "%s: path too long",
                            where);
    return CULONX_OK;
}

/* For a file="..." element: no other attributes and no children. */
static culonx_status ref_only(loader *L, xmlNodePtr el, const char *file)
{
    for (xmlAttrPtr a = el->properties; a; a = a->next)
        if (strcmp((const char *)a->name, "file") != 0) {
            char where[256];
            cx_core_xml_render_element(el, (const char *)a->name, where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: an element with file=\"...\" takes no other attributes",
                                where);
        }
    for (xmlNodePtr c = el->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) {
            char where[256];
            cx_core_xml_render_element(el, "file", where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                                "%s: an element with file=\"...\" takes no children", where);
        }
    return CULONX_OK;
}

typedef culonx_status (*element_fn)(loader *L, xmlNodePtr el, const char *file);

/* Follows file="..." of `el` (relative to `file`) into a document with root
 * <tag>, and calls fn on that root; else calls fn on `el` itself. */
static culonx_status inline_or_file(loader *L, xmlNodePtr el, const char *file, const char *tag,
                                    element_fn fn)
{
    if (!xmlHasProp(el, (const xmlChar *)"file")) return fn(L, el, file);
    culonx_status st = ref_only(L, el, file);
    if (st) return st;
    char path[512];
    if ((st = resolve_path(L, el, file, path, sizeof path))) return st;
    char where[700];
    cx_core_xml_render_element(el, "file", where, sizeof where);
    char what[720];
    snprintf(what, sizeof what, "%s: ", where);
    char *buf;
    size_t len;
    if ((st = cx_core_xml_read_file(path, &buf, &len, L->err, file, elem_line(el), what))) return st;
    xmlDocPtr doc;
    st = cx_core_xml_read_doc(path, buf, len, L->schema, tag, &doc, L->err);
    free(buf);
    if (st) return st;
    st = fn(L, xmlDocGetRootElement(doc), path);
    xmlFreeDoc(doc);
    return st;
}

static culonx_status load_model(loader *L, xmlNodePtr el, const char *file)
{
    culonx_model *m = &L->run->model;
    uint32_t seen;
    culonx_status st = load_attrs(L, el, file, model_fields, NFIELDS(model_fields), m, &seen);
    if (!st) st = require_attrs(L, el, file, model_fields, NFIELDS(model_fields), seen);
    if (st) return st;
    set_origin(&L->run->model_at, file, elem_line(el));
    if (!(seen & (1u << MODEL_KV_HEADS))) m->kv_heads = m->heads;
    if (!(seen & (1u << MODEL_FFN))) {
        const cx_model_family *fam = cx_model_family_of(m->arch);
        if (fam && fam->ffn_per_hidden <= 0) {
            char where[256];
            cx_core_xml_render_element(el, "name", where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: %s models need ffn (%s)", where, fam->name, fam->ffn_why);
        }
        m->ffn = cx_mul_sat_i64(fam ? fam->ffn_per_hidden : 4, m->hidden);
    }
    return CULONX_OK;
}

static culonx_status load_power(loader *L, xmlNodePtr el, const char *file)
{
    culonx_power_model *p = &L->run->system.gpu.power;
    memset(p, 0, sizeof *p);
    p->time_exp = 1.0;
    uint32_t seen;
    culonx_status st = load_attrs(L, el, file, power_fields, NFIELDS(power_fields), p, &seen);
    if (!st) st = require_attrs(L, el, file, power_fields, NFIELDS(power_fields), seen);
    if (st) return st;
    p->present = 1;
    set_origin(&L->run->power_at, file, elem_line(el));
    return CULONX_OK;
}

static culonx_status load_gpu(loader *L, xmlNodePtr el, const char *file)
{
    culonx_gpu *g = &L->run->system.gpu;
    uint32_t seen;
    culonx_status st = load_attrs(L, el, file, gpu_fields, NFIELDS(gpu_fields), g, &seen);
    if (!st) st = require_attrs(L, el, file, gpu_fields, NFIELDS(gpu_fields), seen);
    if (st) return st;
    set_origin(&L->run->gpu_at, file, elem_line(el));
    for (xmlNodePtr c = el->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (strcmp((const char *)c->name, "power") != 0) {
            char where[256];
            cx_core_xml_render_element(c, NULL, where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                                "%s: unexpected element inside <gpu>", where);
        }
        if ((st = inline_or_file(L, c, file, "power", load_power))) return st;
    }
    return CULONX_OK;
}

static culonx_status load_network(loader *L, xmlNodePtr el, const char *file)
{
    culonx_system *s = &L->run->system;
    s->ntiers = 0;
    set_origin(&L->run->network_at, file, elem_line(el));
    for (xmlNodePtr c = el->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        char where[256];
        cx_core_xml_render_element(c, "name", where, sizeof where);
        if (strcmp((const char *)c->name, "tier") != 0)
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                                "%s: unexpected element inside <network>", where);
        if (s->ntiers >= CULONX_MAX_TIERS)
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                                "%s: at most %d network tiers", where, CULONX_MAX_TIERS);
        culonx_net_tier *t = &s->tier[s->ntiers];
        memset(t, 0, sizeof *t);
        t->efficiency = 1.0;
        uint32_t seen;
        culonx_status st = load_attrs(L, c, file, tier_fields, NFIELDS(tier_fields), t, &seen);
        if (!st) st = require_attrs(L, c, file, tier_fields, NFIELDS(tier_fields), seen);
        if (st) return st;
        set_origin(&L->run->tier_at[s->ntiers], file, elem_line(c));
        s->ntiers++;
    }
    if (s->ntiers == 0)
        return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                            "<network>: needs at least one <tier>");
    return CULONX_OK;
}

static culonx_status load_system(loader *L, xmlNodePtr el, const char *file)
{
    culonx_system *s = &L->run->system;
    s->pue = 1.0;
    uint32_t seen;
    culonx_status st = load_attrs(L, el, file, system_fields, NFIELDS(system_fields), s, &seen);
    if (!st) st = require_attrs(L, el, file, system_fields, NFIELDS(system_fields), seen);
    if (st) return st;
    set_origin(&L->run->system_at, file, elem_line(el));
    int have_gpu = 0, have_net = 0;
    for (xmlNodePtr c = el->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        const char *n = (const char *)c->name;
        if (strcmp(n, "gpu") == 0 && !have_gpu) {
            have_gpu = 1;
            st = load_gpu(L, c, file);
        } else if (strcmp(n, "network") == 0 && !have_net) {
            have_net = 1;
            st = load_network(L, c, file);
        } else if (strcmp(n, "perf") == 0) {
            set_origin(&L->run->perf_at, file, elem_line(c));
            st = load_attrs(L, c, file, perf_fields, NFIELDS(perf_fields), &s->perf, &seen);
        } else {
            char where[256];
            cx_core_xml_render_element(c, NULL, where, sizeof where);
            st = cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                              "%s: unexpected element inside <system>", where);
        }
        if (st) return st;
    }
    if (!have_gpu || !have_net) {
        char where[256];
        cx_core_xml_render_element(el, "name", where, sizeof where);
        return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el), "%s: missing <%s>", where,
                            have_gpu ? "network" : "gpu");
    }
    return CULONX_OK;
}

static culonx_status load_execution(loader *L, xmlNodePtr el, const char *file)
{
    culonx_execution *e = &L->run->exec;
    memset(e, 0, sizeof *e);
    e->vp = 1;
    e->recompute = CULONX_RECOMPUTE_NONE;
    e->schedule = CULONX_SCHED_1F1B;
    e->dtype = CULONX_DTYPE_BF16;
    uint32_t seen;
    culonx_status st = load_attrs(L, el, file, exec_fields, NFIELDS(exec_fields), e, &seen);
    if (!st) st = require_attrs(L, el, file, exec_fields, NFIELDS(exec_fields), seen);
    if (st) return st;
    set_origin(&L->run->exec_at, file, elem_line(el));
    int has_gpus = (seen >> EXEC_GPUS) & 1, has_dp = (seen >> EXEC_DP) & 1;
    if (!has_gpus && !has_dp)
        return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                            "<execution>: give gpus or dp (the other is derived: gpus = tp*pp*dp)");
    L->run->dp_derived = !has_dp;
    L->run->gpus_derived = !has_gpus;
    derive_dp_gpus(L->run);
    return CULONX_OK;
}

static culonx_status load_run_buffer(const char *name, const char *buf, size_t len,
                                     xmlSchemaPtr schema, culonx_run *run, culonx_error *err)
{
    loader L = {schema, run, err};
    xmlDocPtr doc;
    culonx_status st = cx_core_xml_read_doc(name, buf, len, schema, "run", &doc, err);
    if (st) return st;
    int have[3] = {0, 0, 0};
    for (xmlNodePtr c = xmlDocGetRootElement(doc)->children; c && !st; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        const char *n = (const char *)c->name;
        if (strcmp(n, "model") == 0) {
            have[0]++;
            st = inline_or_file(&L, c, name, "model", load_model);
        } else if (strcmp(n, "system") == 0) {
            have[1]++;
            st = inline_or_file(&L, c, name, "system", load_system);
        } else if (strcmp(n, "execution") == 0) {
            have[2]++;
            st = load_execution(&L, c, name);
        } else {
            char where[256];
            cx_core_xml_render_element(c, NULL, where, sizeof where);
            st = cx_core_fail(err, CULONX_EINPUT, name, elem_line(c),
                              "%s: unexpected element inside <run>", where);
        }
    }
    if (!st && (have[0] != 1 || have[1] != 1 || have[2] != 1))
        st = cx_core_fail(err, CULONX_EINPUT, name, elem_line(xmlDocGetRootElement(doc)),
                          "<run>: needs exactly one <model>, <system> and <execution>");
    xmlFreeDoc(doc);
    return st;
}

/* ------------------------------------------------------ public: load */

culonx_status culonx_run_load_buffer(const char *name, const char *buf, size_t len,
                                     const char *schema_path, culonx_run *run, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || (!buf && len))
        return cx_core_fail(err, CULONX_EUSAGE, name, 0, "culonx_run_load_buffer: NULL argument");
    if (!name || !name[0]) name = "<buffer>";
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "%s", name);
    xmlSchemaPtr schema;
    culonx_status st = cx_core_xml_schema(schema_path, &schema, err);
    if (!st) st = load_run_buffer(name, buf ? buf : "", len, schema, run, err);
    if (!st) st = culonx_run_check(run, err);
    return st;
}

culonx_status culonx_run_load(const char *path, const char *const *overrides, int noverrides,
                              const char *schema_path, culonx_run *run, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!path || !run || (noverrides > 0 && !overrides))
        return cx_core_fail(err, CULONX_EUSAGE, path, 0, "culonx_run_load: NULL argument");
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "%s", path);
    xmlSchemaPtr schema;
    culonx_status st = cx_core_xml_schema(schema_path, &schema, err);
    if (st) return st;
    char *buf;
    size_t len;
    if ((st = cx_core_xml_read_file(path, &buf, &len, err, path, 0, ""))) return st;
    st = load_run_buffer(path, buf, len, schema, run, err);
    free(buf);
    for (int i = 0; !st && i < noverrides; i++)
        st = culonx_run_set(run, overrides[i], err);
    if (!st) st = culonx_run_check(run, err);
    return st;
}

/* ------------------------------------------------------ public: --set */

culonx_status culonx_run_set(culonx_run *run, const char *assignment, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || !assignment)
        return cx_core_fail(err, CULONX_EUSAGE, SET_FILE, 0, "culonx_run_set: NULL argument");
    const char *a = assignment;
    const char *eq = strchr(a, '=');
    const char *dot = strchr(a, '.');
    if (!eq || !dot || dot > eq)
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: expected section.key=value", a);
    char sec[64], key[128];
    size_t sl = (size_t)(dot - a);
    if (sl >= sizeof sec) sl = sizeof sec - 1;
    memcpy(sec, a, sl);
    sec[sl] = '\0';
    const char *k = dot + 1;
    const char *value = eq + 1;

    const field *fs = NULL;
    int nf = 0;
    void *base = NULL;
    culonx_origin *origin = NULL;
    culonx_system *s = &run->system;
    if (strcmp(sec, "network") == 0) {
        const char *dot2 = strchr(k, '.');
        if (!dot2 || dot2 > eq)
            return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                                "--set %.200s: expected network.TIER.key=value "
                                "(TIER: tier0, tier1, intra, inter or a tier name)",
                                a);
        char tier[64];
        size_t tl = (size_t)(dot2 - k);
        if (tl >= sizeof tier) tl = sizeof tier - 1;
        memcpy(tier, k, tl);
        tier[tl] = '\0';
        int ti = -1;
        if (strcmp(tier, "tier0") == 0 || strcmp(tier, "intra") == 0)
            ti = 0;
        else if (strcmp(tier, "tier1") == 0 || strcmp(tier, "inter") == 0)
            ti = 1;
        else
            for (int i = 0; i < s->ntiers && i < CULONX_MAX_TIERS; i++)
                if (strcmp(tier, s->tier[i].name) == 0) ti = i;
        if (ti < 0 || ti >= s->ntiers)
            return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                                "--set %.200s: system '%s' has no network tier '%s' (it has %d)", a,
                                s->name, tier, s->ntiers);
        k = dot2 + 1;
        fs = tier_fields;
        nf = NFIELDS(tier_fields);
        base = &s->tier[ti];
        origin = &run->tier_at[ti];
    } else if (strcmp(sec, "model") == 0) {
        fs = model_fields, nf = NFIELDS(model_fields), base = &run->model, origin = &run->model_at;
    } else if (strcmp(sec, "system") == 0) {
        fs = system_fields, nf = NFIELDS(system_fields), base = s, origin = &run->system_at;
    } else if (strcmp(sec, "gpu") == 0) {
        fs = gpu_fields, nf = NFIELDS(gpu_fields), base = &s->gpu, origin = &run->gpu_at;
    } else if (strcmp(sec, "power") == 0) {
        fs = power_fields, nf = NFIELDS(power_fields), base = &s->gpu.power,
        origin = &run->power_at;
    } else if (strcmp(sec, "perf") == 0) {
        fs = perf_fields, nf = NFIELDS(perf_fields), base = &s->perf, origin = &run->perf_at;
    } else if (strcmp(sec, "execution") == 0) {
        fs = exec_fields, nf = NFIELDS(exec_fields), base = &run->exec, origin = &run->exec_at;
    } else {
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: unknown section '%s' (model, system, gpu, power, "
                            "network, perf, execution)",
                            a, sec);
    }
    size_t kl = (size_t)(eq - k);
    if (kl >= sizeof key) kl = sizeof key - 1;
    memcpy(key, k, kl);
    key[kl] = '\0';
    int i = find_field(fs, nf, key);
    if (i < 0)
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0, "--set %.200s: unknown key '%s' in %s",
                            a, key, sec);
    if (base == &s->gpu.power && !s->gpu.power.present)
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0,
                            "--set %.200s: GPU '%s' has no <power> model to override", a,
                            s->gpu.name);

    /* parse into a copy first so a bad value leaves the run untouched */
    culonx_run old = *run;
    char why[512];
    if (parse_value(&fs[i], value, base, why, sizeof why) != 0) {
        *run = old;
        return cx_core_fail(err, CULONX_EINPUT, SET_FILE, 0, "--set %.200s: %s: %s", a, key, why);
    }
    set_origin(origin, SET_FILE, 0);
    if (base == &run->model) {
        culonx_model *m = &run->model;
        if (strcmp(key, "heads") == 0 && old.model.kv_heads == old.model.heads)
            m->kv_heads = m->heads;
        const cx_model_family *fam = cx_model_family_of(m->arch);
        if (strcmp(key, "hidden") == 0 && fam && fam->ffn_per_hidden > 0 &&
            old.model.ffn == cx_mul_sat_i64(fam->ffn_per_hidden, old.model.hidden))
            m->ffn = cx_mul_sat_i64(fam->ffn_per_hidden, m->hidden);
    }
    if (base == &run->exec) {
        if (strcmp(key, "dp") == 0 && run->dp_derived) {
            run->dp_derived = 0;
            run->gpus_derived = 1;
        } else if (strcmp(key, "gpus") == 0 && run->gpus_derived) {
            run->gpus_derived = 0;
            run->dp_derived = 1;
        }
        derive_dp_gpus(run);
    }
    return CULONX_OK;
}
