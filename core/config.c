/*
 * config.c — loads run files (XML) into a culonx_run, applies "--set
 * section.key=value" overrides and checks a run for consistency.
 *
 * Parsing: libxml2 with XML_PARSE_NONET, no entity substitution (no
 * XML_PARSE_NOENT), no DTD loading, an external-entity resolver that refuses
 * everything, and documents with a DOCTYPE are rejected outright. Each
 * document is validated against configs/culonx.xsd (found through the
 * explicit path, else CULONX_SCHEMA_DIR, else CULONX_INSTALL_SCHEMA_DIR; the
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
 * Plausibility limits in culonx_run_check are sanity bounds, not hardware
 * facts: anything beyond them (10000 layers, hidden 1e6, 1e7 GPUs ...) is a
 * typo in practice.
 */
#include "core/base.h"
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

#define MAX_FILE_BYTES ((size_t)16 << 20) /* config files are a few KiB */
#define SET_FILE "--set"

/* -------------------------------------------------------------- names */

const char *culonx_recompute_name(culonx_recompute r)
{
    switch (r) {
    case CULONX_RECOMPUTE_NONE:
        return "none";
    case CULONX_RECOMPUTE_SELECTIVE:
        return "selective";
    case CULONX_RECOMPUTE_FULL:
        return "full";
    }
    return "?";
}

const char *culonx_dtype_name(culonx_dtype d)
{
    switch (d) {
    case CULONX_DTYPE_FP16:
        return "fp16";
    case CULONX_DTYPE_BF16:
        return "bf16";
    case CULONX_DTYPE_FP8:
        return "fp8";
    }
    return "?";
}

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

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static int only_space(const char *s)
{
    return *skip_space(s) == '\0';
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
        const char *t = skip_space(s);
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
        const char *t = skip_space(s);
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
        const char *t = skip_space(s);
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
            for (int i = 0; i < CULONX_SCHED_COUNT && used < sizeof known; i++)
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

/* a*b for positive values, saturating at INT64_MAX */
static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0) return 0;
    if (a > INT64_MAX / b) return INT64_MAX;
    return a * b;
}

/* Re-derives whichever of dp / gpus was omitted in the file. */
static void derive_dp_gpus(culonx_run *run)
{
    culonx_execution *e = &run->exec;
    if (run->dp_derived) {
        int64_t tpp = mul_sat(e->tp, e->pp);
        e->dp = (tpp > 0 && e->gpus % tpp == 0) ? e->gpus / tpp : 0;
    } else if (run->gpus_derived) {
        e->gpus = mul_sat(mul_sat(e->tp, e->pp), e->dp);
    }
}

/* ------------------------------------------------------ schema cache */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t schema_lock = PTHREAD_MUTEX_INITIALIZER;
#define SCHEMA_CACHE_SLOTS 8
static struct {
    char path[512];
    xmlSchemaPtr schema;
} schema_cache[SCHEMA_CACHE_SLOTS];

static void xml_init(void)
{
    xmlInitParser();
}

/* First error reported by libxml2 through a structured handler. */
typedef struct {
    int have;
    int line;
    char file[512];
    char msg[900];
} first_error;

static void strip_newline(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* Renders <tag attr="value"> (or <tag>) of an element for messages. */
static void render_element(xmlNodePtr el, const char *attr, char *out, size_t cap)
{
    const char *tag = el && el->name ? (const char *)el->name : "?";
    xmlChar *v = (el && attr) ? xmlGetProp(el, (const xmlChar *)attr) : NULL;
    if (v)
        snprintf(out, cap, "<%.40s %.40s=\"%.80s\">", tag, attr, (const char *)v);
    else
        snprintf(out, cap, "<%.40s>", tag);
    if (v) xmlFree(v);
}

#if LIBXML_VERSION >= 21200
typedef const xmlError *cx_xml_error_ptr;
#else
typedef xmlErrorPtr cx_xml_error_ptr;
#endif

/* Turns "Element 'x', attribute 'y': text" into "<x y="v">: text". */
static void on_structured_error(void *ud, cx_xml_error_ptr e)
{
    first_error *fe = ud;
    if (fe->have || !e || e->level < XML_ERR_ERROR) return;
    fe->have = 1;
    xmlNodePtr node = e->node;
    fe->line = e->line;
    if (node && node->type == XML_ELEMENT_NODE) {
        long l = xmlGetLineNo(node);
        if (l > 0 && l < INT_MAX) fe->line = (int)l;
    } else if (node && node->type == XML_ATTRIBUTE_NODE) {
        node = node->parent;
    }
    snprintf(fe->file, sizeof fe->file, "%s", e->file ? e->file : "");
    const char *m = e->message ? e->message : "invalid document";
    char attr[64] = "";
    const char *rest = m;
    if (strncmp(m, "Element '", 9) == 0) {
        const char *q = strchr(m + 9, '\'');
        if (q) {
            rest = q + 1;
            if (strncmp(rest, ", attribute '", 13) == 0) {
                const char *a = rest + 13;
                const char *aq = strchr(a, '\'');
                if (aq && (size_t)(aq - a) < sizeof attr) {
                    memcpy(attr, a, (size_t)(aq - a));
                    attr[aq - a] = '\0';
                    rest = aq + 1;
                }
            }
            if (rest[0] == ':') rest++;
            rest = skip_space(rest);
        }
    }
    if (strncmp(rest, "[facet '", 8) == 0) { /* "[facet 'minInclusive'] The value..." */
        const char *q = strstr(rest, "] ");
        if (q) rest = q + 2;
    }
    char el[256];
    if (node && node->type == XML_ELEMENT_NODE) {
        render_element(node, attr[0] ? attr : NULL, el, sizeof el);
        snprintf(fe->msg, sizeof fe->msg, "%s: %s", el, rest);
    } else {
        snprintf(fe->msg, sizeof fe->msg, "%s", m);
    }
    strip_newline(fe->msg);
}

/* Parser errors: libxml2 hands the parser context (ctxt->userData) to the
 * structured handler; our first_error hangs off ctxt->_private. */
static void on_parse_error(void *ud, cx_xml_error_ptr e)
{
    xmlParserCtxtPtr ctxt = ud;
    first_error *fe = ctxt ? ctxt->_private : NULL;
    if (!fe || fe->have || !e || e->level < XML_ERR_ERROR) return;
    fe->have = 1;
    fe->line = e->line;
    snprintf(fe->msg, sizeof fe->msg, "%s", e->message ? e->message : "not well-formed");
    strip_newline(fe->msg);
}

/* libxml2 stamps an element with the line where its start tag ends; a
 * message about <execution ...> spread over three lines should point at the
 * line where it starts. Attribute values cannot hold a literal '<', so the
 * start is the nearest '<' before the parser's position. */
static void on_start_element(void *ud, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr ctxt = ud;
    xmlSAX2StartElementNs(ctxt, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                          nb_defaulted, attributes);
    xmlParserInputPtr in = ctxt->input;
    xmlNodePtr node = ctxt->node;
    if (!in || !in->cur || !in->base || !node || node->type != XML_ELEMENT_NODE) return;
    if (node->line == 0 || node->line >= 65535) return; /* big-line storage: leave alone */
    int newlines = 0;
    for (const xmlChar *p = in->cur; p > in->base;) {
        p--;
        if (*p == '<') {
            if (newlines < node->line) node->line = (unsigned short)(node->line - newlines);
            return;
        }
        if (*p == '\n') newlines++;
    }
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Returns the cached schema for `path`, parsing it on first use. */
static culonx_status get_schema(const char *schema_path, xmlSchemaPtr *out, culonx_error *err)
{
    pthread_once(&xml_once, xml_init);
    char path[512];
    if (schema_path && schema_path[0]) {
        snprintf(path, sizeof path, "%s", schema_path);
    } else {
        path[0] = '\0';
#ifdef CULONX_SCHEMA_DIR
        snprintf(path, sizeof path, "%s/culonx.xsd", CULONX_SCHEMA_DIR);
        if (!file_exists(path)) path[0] = '\0';
#endif
#ifdef CULONX_INSTALL_SCHEMA_DIR
        if (!path[0]) snprintf(path, sizeof path, "%s/culonx.xsd", CULONX_INSTALL_SCHEMA_DIR);
#endif
        if (!path[0]) snprintf(path, sizeof path, "culonx.xsd");
    }
    culonx_status st = CULONX_OK;
    pthread_mutex_lock(&schema_lock);
    int slot = -1;
    for (int i = 0; i < SCHEMA_CACHE_SLOTS; i++) {
        if (schema_cache[i].schema && strcmp(schema_cache[i].path, path) == 0) {
            *out = schema_cache[i].schema;
            pthread_mutex_unlock(&schema_lock);
            return CULONX_OK;
        }
        if (!schema_cache[i].schema && slot < 0) slot = i;
    }
    if (slot < 0) slot = SCHEMA_CACHE_SLOTS - 1; /* evict: schemas are never freed */
    if (!file_exists(path)) {
        st = cx_core_fail(err, CULONX_EUSAGE, path, 0, "cannot find the schema culonx.xsd");
        goto done;
    }
    first_error fe = {0};
    xmlSchemaParserCtxtPtr pctx = xmlSchemaNewParserCtxt(path);
    if (!pctx) {
        st = cx_core_fail(err, CULONX_EINTERNAL, path, 0, "out of memory loading the schema");
        goto done;
    }
    xmlSchemaSetParserStructuredErrors(pctx, on_structured_error, &fe);
    xmlSchemaPtr schema = xmlSchemaParse(pctx);
    xmlSchemaFreeParserCtxt(pctx);
    if (!schema) {
        st = cx_core_fail(err, CULONX_EUSAGE, path, fe.line, "invalid schema: %s",
                          fe.have ? fe.msg : "cannot parse");
        goto done;
    }
    /* A schema evicted from a full cache is leaked on purpose: another thread
     * may still validate with it. Eight distinct schema paths is already odd. */
    snprintf(schema_cache[slot].path, sizeof schema_cache[slot].path, "%s", path);
    schema_cache[slot].schema = schema;
    *out = schema;
done:
    pthread_mutex_unlock(&schema_lock);
    return st;
}

/* ------------------------------------------------------ documents */

/* Refuses every external entity and DTD (defence in depth: DOCTYPEs are
 * rejected after parsing anyway). */
static xmlParserInputPtr refuse_entity(void *ctx, const xmlChar *public_id,
                                       const xmlChar *system_id)
{
    (void)ctx;
    (void)public_id;
    (void)system_id;
    return NULL;
}

static void refuse_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                          const xmlChar *system_id)
{
    (void)ctx;
    (void)name;
    (void)external_id;
    (void)system_id;
}

static int line_of(const char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    int line = 1;
    for (size_t i = 0; i + n <= len; i++) {
        if (buf[i] == '\n') line++;
        if (memcmp(buf + i, needle, n) == 0) return line;
    }
    return 1;
}

/* Parses and validates one document whose root must be <root>. */
static culonx_status read_doc(const char *name, const char *buf, size_t len, xmlSchemaPtr schema,
                              const char *root, xmlDocPtr *out, culonx_error *err)
{
    *out = NULL;
    if (len == 0)
        return cx_core_fail(err, CULONX_EINPUT, name, 1, "empty file: expected <%s>", root);
    if (len > MAX_FILE_BYTES || len > (size_t)INT_MAX)
        return cx_core_fail(err, CULONX_EINPUT, name, 0, "file too large (over %zu bytes)",
                            MAX_FILE_BYTES);
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return cx_core_fail(err, CULONX_EINTERNAL, name, 0, "out of memory");
    first_error pe = {0};
    ctxt->_private = &pe;
    if (ctxt->sax) {
        ctxt->sax->resolveEntity = refuse_entity;
        ctxt->sax->externalSubset = refuse_subset;
        ctxt->sax->serror = on_parse_error;
        if (ctxt->sax->startElementNs == xmlSAX2StartElementNs)
            ctxt->sax->startElementNs = on_start_element;
    }
    int opts = XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
               XML_PARSE_BIG_LINES;
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL, opts);
    if (!doc || !ctxt->wellFormed) {
        xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
        char msg[900];
        snprintf(msg, sizeof msg, "%s",
                 pe.have           ? pe.msg
                 : e && e->message ? e->message
                                   : "not well-formed");
        strip_newline(msg);
        int line = pe.have ? pe.line : e ? e->line : 1;
        if (line < 1) line = 1;
        int oom = e && e->code == XML_ERR_NO_MEMORY;
        xmlFreeDoc(doc);
        xmlFreeParserCtxt(ctxt);
        if (oom) return cx_core_fail(err, CULONX_EINTERNAL, name, line, "out of memory");
        return cx_core_fail(err, CULONX_EINPUT, name, line, "malformed XML: %s", msg);
    }
    xmlFreeParserCtxt(ctxt);
    if (doc->intSubset || doc->extSubset) {
        xmlFreeDoc(doc);
        return cx_core_fail(err, CULONX_EINPUT, name, line_of(buf, len, "<!DOCTYPE"),
                            "DOCTYPE declarations (DTDs, entities) are not allowed");
    }
    xmlSchemaValidCtxtPtr vctx = xmlSchemaNewValidCtxt(schema);
    if (!vctx) {
        xmlFreeDoc(doc);
        return cx_core_fail(err, CULONX_EINTERNAL, name, 0, "out of memory");
    }
    first_error fe = {0};
    xmlSchemaSetValidStructuredErrors(vctx, on_structured_error, &fe);
    int rc = xmlSchemaValidateDoc(vctx, doc);
    xmlSchemaFreeValidCtxt(vctx);
    if (rc != 0) {
        xmlFreeDoc(doc);
        if (fe.have) return cx_core_fail(err, CULONX_EINPUT, name, fe.line, "%s", fe.msg);
        if (rc < 0) return cx_core_fail(err, CULONX_EINTERNAL, name, 0, "schema validation failed");
        return cx_core_fail(err, CULONX_EINPUT, name, 0, "does not match the schema");
    }
    xmlNodePtr r = xmlDocGetRootElement(doc);
    if (!r || strcmp((const char *)r->name, root) != 0) {
        int line = r ? (int)xmlGetLineNo(r) : 1;
        char got[64];
        snprintf(got, sizeof got, "%.40s", r ? (const char *)r->name : "nothing");
        xmlFreeDoc(doc);
        return cx_core_fail(err, CULONX_EINPUT, name, line, "expected root element <%s>, got <%s>",
                            root, got);
    }
    *out = doc;
    return CULONX_OK;
}

static culonx_status read_file(const char *path, char **buf, size_t *len, culonx_error *err,
                               const char *from, int from_line, const char *what)
{
    *buf = NULL;
    *len = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return cx_core_fail(err, CULONX_EINPUT, from, from_line, "%scannot open '%s': %s", what,
                            path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return cx_core_fail(err, CULONX_EINPUT, from, from_line, "%s'%s' is not a regular file",
                            what, path);
    if ((uintmax_t)st.st_size > MAX_FILE_BYTES)
        return cx_core_fail(err, CULONX_EINPUT, from, from_line, "%s'%s' is too large", what, path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return cx_core_fail(err, CULONX_EINPUT, from, from_line, "%scannot open '%s': %s", what,
                            path, strerror(errno));
    size_t cap = (size_t)st.st_size + 1;
    char *b = malloc(cap);
    if (!b) {
        fclose(f);
        return cx_core_fail(err, CULONX_EINTERNAL, path, 0, "out of memory");
    }
    size_t n = fread(b, 1, cap - 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return cx_core_fail(err, CULONX_EINPUT, from, from_line, "%scannot read '%s'", what, path);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return CULONX_OK;
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
        render_element(el, key, where, sizeof where);
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
            render_element(el, "name", where, sizeof where);
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
    render_element(el, "file", where, sizeof where);
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
            render_element(el, (const char *)a->name, where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: an element with file=\"...\" takes no other attributes",
                                where);
        }
    for (xmlNodePtr c = el->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) {
            char where[256];
            render_element(el, "file", where, sizeof where);
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
    render_element(el, "file", where, sizeof where);
    char what[720];
    snprintf(what, sizeof what, "%s: ", where);
    char *buf;
    size_t len;
    if ((st = read_file(path, &buf, &len, L->err, file, elem_line(el), what))) return st;
    xmlDocPtr doc;
    st = read_doc(path, buf, len, L->schema, tag, &doc, L->err);
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
            render_element(el, "name", where, sizeof where);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: %s models need ffn (%s)", where, fam->name, fam->ffn_why);
        }
        m->ffn = mul_sat(fam ? fam->ffn_per_hidden : 4, m->hidden);
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
            render_element(c, NULL, where, sizeof where);
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
        render_element(c, "name", where, sizeof where);
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
            render_element(c, NULL, where, sizeof where);
            st = cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(c),
                              "%s: unexpected element inside <system>", where);
        }
        if (st) return st;
    }
    if (!have_gpu || !have_net) {
        char where[256];
        render_element(el, "name", where, sizeof where);
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
    culonx_status st = read_doc(name, buf, len, schema, "run", &doc, err);
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
            render_element(c, NULL, where, sizeof where);
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
    culonx_status st = get_schema(schema_path, &schema, err);
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
    culonx_status st = get_schema(schema_path, &schema, err);
    if (st) return st;
    char *buf;
    size_t len;
    if ((st = read_file(path, &buf, &len, err, path, 0, ""))) return st;
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
            old.model.ffn == mul_sat(fam->ffn_per_hidden, old.model.hidden))
            m->ffn = mul_sat(fam->ffn_per_hidden, m->hidden);
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

/* ------------------------------------------------------ public: check */

typedef struct {
    const culonx_run *run;
    culonx_error *err;
} checker;

static culonx_status bad(checker *C, const culonx_origin *o, const char *fmt, ...) CX_PRINTF(3, 4);
static culonx_status bad(checker *C, const culonx_origin *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = o && o->file[0] ? o->file : C->run->path;
    return cx_core_fail(C->err, CULONX_EINPUT, file, o ? o->line : 0, "%s", msg);
}

static culonx_status int_range(checker *C, const culonx_origin *o, const char *tag, const char *key,
                               int64_t v, int64_t lo, int64_t hi)
{
    if (v < lo)
        return bad(C, o, "<%s %s=\"%lld\">: %s must be at least %lld", tag, key, (long long)v, key,
                   (long long)lo);
    if (v > hi)
        return bad(C, o, "<%s %s=\"%lld\">: %s = %lld is implausibly large (limit %lld)", tag, key,
                   (long long)v, key, (long long)v, (long long)hi);
    return CULONX_OK;
}

/* lo_open: v must be > lo (else >= lo). `shown` is v in XML units. */
static culonx_status dbl_range(checker *C, const culonx_origin *o, const char *tag, const char *key,
                               double v, double lo, int lo_open, double hi, double scale)
{
    double shown = scale ? v / scale : v;
    if (!isfinite(v))
        return bad(C, o, "<%s %s=\"%g\">: %s must be a finite number", tag, key, shown, key);
    if (v < lo || (lo_open && v == lo))
        return bad(C, o, "<%s %s=\"%g\">: %s must be %s %g", tag, key, shown, key,
                   lo_open ? "greater than" : "at least", scale ? lo / scale : lo);
    if (v > hi)
        return bad(C, o, "<%s %s=\"%g\">: %s = %g is outside the plausible range (at most %g)", tag,
                   key, shown, key, shown, scale ? hi / scale : hi);
    return CULONX_OK;
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        culonx_status st_ = (x);                                                                   \
        if (st_ != CULONX_OK) return st_;                                                          \
    } while (0)

static culonx_status check_model(checker *C)
{
    const culonx_model *m = &C->run->model;
    const culonx_origin *o = &C->run->model_at;
    if (!cx_model_family_of(m->arch)) return bad(C, o, "<model>: unknown arch %d", (int)m->arch);
    TRY(int_range(C, o, "model", "layers", m->layers, 1, 10000));
    TRY(int_range(C, o, "model", "hidden", m->hidden, 1, 1000000));
    TRY(int_range(C, o, "model", "heads", m->heads, 1, 100000));
    TRY(int_range(C, o, "model", "kv-heads", m->kv_heads, 1, 100000));
    TRY(int_range(C, o, "model", "ffn", m->ffn, 1, 10000000));
    TRY(int_range(C, o, "model", "vocab", m->vocab, 1, 100000000));
    TRY(int_range(C, o, "model", "seq", m->seq, 1, 10000000));
    if (m->hidden % m->heads)
        return bad(C, o, "<model heads=\"%lld\">: %lld heads do not divide hidden %lld",
                   (long long)m->heads, (long long)m->heads, (long long)m->hidden);
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return bad(C, o, "<model kv-heads=\"%lld\">: %lld kv-heads do not divide %lld heads",
                   (long long)m->kv_heads, (long long)m->kv_heads, (long long)m->heads);
    return CULONX_OK;
}

static culonx_status check_system(checker *C)
{
    const culonx_run *r = C->run;
    const culonx_system *s = &r->system;
    const culonx_gpu *g = &s->gpu;
    const culonx_origin *so = &r->system_at, *go = &r->gpu_at;
    TRY(int_range(C, so, "system", "gpus-per-node", s->gpus_per_node, 1, 100000));
    TRY(dbl_range(C, so, "system", "node-overhead-w", s->node_overhead_w, 0, 0, 1e6, 0));
    TRY(dbl_range(C, so, "system", "pue", s->pue, 1, 0, 10, 0));
    TRY(dbl_range(C, go, "gpu", "matrix16-tflops", g->matrix16_tflops, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "matrix8-tflops", g->matrix8_tflops, 0, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "vector-tflops", g->vector_tflops, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "hbm-gbps", g->hbm_gbps, 0, 1, 1e6, 0));
    TRY(dbl_range(C, go, "gpu", "mem-gib", g->mem_gib, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "min-mhz", g->min_mhz, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "max-mhz", g->max_mhz, g->min_mhz, 0, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "step-mhz", g->step_mhz, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "tdp-w", g->tdp_w, 0, 1, 1e5, 0));
    TRY(dbl_range(C, go, "gpu", "idle-w", g->idle_w, 0, 0, g->tdp_w, 0));
    if (g->power.present) {
        const culonx_power_model *p = &g->power;
        const culonx_origin *po = &r->power_at;
        TRY(dbl_range(C, po, "power", "const-w", p->const_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "static-w", p->static_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "knee-mhz", p->knee_mhz, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "v-min", p->v_min, 0, 1, 100, 0));
        TRY(dbl_range(C, po, "power", "v-slope", p->v_slope, 0, 0, 100, 0));
        TRY(dbl_range(C, po, "power", "tensor-w", p->tensor_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "fp-w", p->fp_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "sm-w", p->sm_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "dram-w", p->dram_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "blocked-w", p->blocked_w, 0, 0, 1e5, 0));
        TRY(dbl_range(C, po, "power", "time-exp", p->time_exp, 0, 1, 4, 0));
    }
    if (s->ntiers < 1 || s->ntiers > CULONX_MAX_TIERS)
        return bad(C, &r->network_at, "<network>: needs 1 or %d tiers, has %d", CULONX_MAX_TIERS,
                   s->ntiers);
    for (int i = 0; i < s->ntiers; i++) {
        const culonx_net_tier *t = &s->tier[i];
        const culonx_origin *to = &r->tier_at[i];
        if (!t->name[0]) return bad(C, to, "<tier>: tier %d has no name", i);
        TRY(dbl_range(C, to, "tier", "bw-gbps", t->bw_gbps, 0, 1, 1e6, 0));
        TRY(dbl_range(C, to, "tier", "latency-us", t->latency_s, 0, 0, 1.0, 1e-6));
        TRY(dbl_range(C, to, "tier", "efficiency", t->efficiency, 0, 1, 1, 0));
        TRY(dbl_range(C, to, "tier", "pj-per-bit", t->pj_per_bit, 0, 0, 1e4, 0));
    }
    const culonx_perf_params *pf = &s->perf;
    const culonx_origin *fo = &r->perf_at;
    TRY(dbl_range(C, fo, "perf", "matmul-eff-max", pf->matmul_eff_max, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "matmul-half-dim", pf->matmul_half_dim, 0, 0, 1e6, 0));
    TRY(dbl_range(C, fo, "perf", "mem-eff", pf->mem_eff, 0, 0, 1, 0));
    TRY(dbl_range(C, fo, "perf", "kernel-launch-us", pf->kernel_launch_s, 0, 0, 1.0, 1e-6));
    TRY(dbl_range(C, fo, "perf", "optimizer-bytes-per-param", pf->optimizer_bytes_per_param, 0, 0,
                  1e4, 0));
    return CULONX_OK;
}

static culonx_status check_exec(checker *C)
{
    const culonx_run *r = C->run;
    const culonx_execution *e = &r->exec;
    const culonx_model *m = &r->model;
    const culonx_gpu *g = &r->system.gpu;
    const culonx_origin *o = &r->exec_at;
    typedef long long ll;

    if ((unsigned)e->recompute > CULONX_RECOMPUTE_FULL)
        return bad(C, o, "<execution>: unknown recompute %d", (int)e->recompute);
    if ((unsigned)e->schedule >= CULONX_SCHED_COUNT)
        return bad(C, o, "<execution>: unknown schedule %d", (int)e->schedule);
    if ((unsigned)e->dtype > CULONX_DTYPE_FP8)
        return bad(C, o, "<execution>: unknown dtype %d", (int)e->dtype);
    TRY(int_range(C, o, "execution", "gpus", e->gpus, 1, 10000000));
    TRY(int_range(C, o, "execution", "tp", e->tp, 1, e->gpus));
    TRY(int_range(C, o, "execution", "pp", e->pp, 1, e->gpus));
    int64_t tpp = mul_sat(e->tp, e->pp);
    if (r->dp_derived && (tpp > e->gpus || e->gpus % tpp))
        return bad(C, o,
                   "<execution gpus=\"%lld\">: %lld GPUs are not a multiple of tp*pp = %lld*%lld "
                   "= %lld",
                   (ll)e->gpus, (ll)e->gpus, (ll)e->tp, (ll)e->pp, (ll)tpp);
    TRY(int_range(C, o, "execution", "dp", e->dp, 1, e->gpus));
    if (tpp > e->gpus || e->gpus % tpp || e->gpus / tpp != e->dp)
        return bad(C, o,
                   "<execution gpus=\"%lld\">: gpus must equal tp*pp*dp = %lld*%lld*%lld = %lld, "
                   "got %lld",
                   (ll)e->gpus, (ll)e->tp, (ll)e->pp, (ll)e->dp, (ll)mul_sat(tpp, e->dp),
                   (ll)e->gpus);
    TRY(int_range(C, o, "execution", "vp", e->vp, 1, 1000));
    TRY(int_range(C, o, "execution", "global-batch", e->global_batch, 1, 1000000000));
    TRY(int_range(C, o, "execution", "microbatch", e->microbatch, 1, e->global_batch));
    TRY(dbl_range(C, o, "execution", "tokens", e->tokens, 0, 0, 1e16, 0));
    if (!isfinite(e->clock_mhz) || e->clock_mhz < 0 ||
        (e->clock_mhz != 0 && (e->clock_mhz < g->min_mhz || e->clock_mhz > g->max_mhz)))
        return bad(C, o,
                   "<execution clock-mhz=\"%g\">: clock %g MHz is outside the %s range %g-%g MHz "
                   "(0 = max)",
                   e->clock_mhz, e->clock_mhz, g->name, g->min_mhz, g->max_mhz);

    if (m->heads % e->tp)
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide %lld heads", (ll)e->tp,
                   (ll)e->tp, (ll)m->heads);
    if (m->kv_heads % e->tp)
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide %lld kv-heads", (ll)e->tp,
                   (ll)e->tp, (ll)m->kv_heads);
    if (m->ffn % e->tp)
        return bad(C, o, "<execution tp=\"%lld\">: %lld does not divide ffn %lld", (ll)e->tp,
                   (ll)e->tp, (ll)m->ffn);
    if (e->vp > 1 && e->pp < 2)
        return bad(C, o, "<execution vp=\"%lld\">: vp > 1 needs pipeline parallelism (pp > 1)",
                   (ll)e->vp);
    if (e->vp > 1 && e->schedule != CULONX_SCHED_INTERLEAVED)
        return bad(C, o, "<execution vp=\"%lld\">: vp > 1 needs schedule=\"interleaved\", not %s",
                   (ll)e->vp, culonx_schedule_name(e->schedule));
    int64_t chunks = e->schedule == CULONX_SCHED_INTERLEAVED ? e->vp
                     : (e->schedule == CULONX_SCHED_ZB_V || e->schedule == CULONX_SCHED_DUALPIPE_V)
                         ? 2
                         : 1;
    int64_t stages = mul_sat(e->pp, chunks);
    if (stages > m->layers || m->layers % stages) {
        if (chunks == 1)
            return bad(C, o, "<execution pp=\"%lld\">: pp %lld does not divide %lld layers",
                       (ll)e->pp, (ll)e->pp, (ll)m->layers);
        if (e->schedule == CULONX_SCHED_INTERLEAVED)
            return bad(C, o,
                       "<execution vp=\"%lld\">: pp*vp = %lld*%lld does not divide %lld layers",
                       (ll)e->vp, (ll)e->pp, (ll)e->vp, (ll)m->layers);
        return bad(C, o,
                   "<execution pp=\"%lld\">: %s puts 2 chunks per stage: 2*pp = %lld does not "
                   "divide %lld layers",
                   (ll)e->pp, culonx_schedule_name(e->schedule), (ll)stages, (ll)m->layers);
    }
    int64_t mbdp = mul_sat(e->microbatch, e->dp);
    if (mbdp > e->global_batch || e->global_batch % mbdp)
        return bad(C, o,
                   "<execution global-batch=\"%lld\">: %lld is not a multiple of microbatch*dp = "
                   "%lld*%lld = %lld",
                   (ll)e->global_batch, (ll)e->global_batch, (ll)e->microbatch, (ll)e->dp,
                   (ll)mbdp);
    /* microbatches per pipeline the schedule needs (schedules/: interleaved
     * m >= pp, V-shaped zb-v / dualpipev m >= 2 pp) */
    int64_t m_count = e->global_batch / mbdp;
    int64_t m_need = e->schedule == CULONX_SCHED_INTERLEAVED && e->vp > 1 ? e->pp
                     : chunks == 2 && e->schedule != CULONX_SCHED_INTERLEAVED ? 2 * e->pp
                                                                              : 1;
    if (m_count < m_need)
        return bad(C, o,
                   "<execution global-batch=\"%lld\">: %s needs at least %lld microbatches per "
                   "pipeline, global-batch/(microbatch*dp) = %lld",
                   (ll)e->global_batch, culonx_schedule_name(e->schedule), (ll)m_need,
                   (ll)m_count);
    if (e->dtype == CULONX_DTYPE_FP8 && !(g->matrix8_tflops > 0))
        return bad(C, o, "<execution dtype=\"fp8\">: GPU %s has no fp8 (matrix8-tflops = 0)",
                   g->name);
    return CULONX_OK;
}

culonx_status culonx_run_check(const culonx_run *run, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_run_check: NULL run");
    checker C = {run, err};
    TRY(check_model(&C));
    TRY(check_system(&C));
    TRY(check_exec(&C));
    return CULONX_OK;
}
