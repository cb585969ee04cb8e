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
 * <execution> or <serving> (or both; core/eval/serve.c); model and system are inline or file="..."
 * relative to the run file; a <gpu> holds an optional <power> (inline or file="..." relative to the
 * system file); <network> holds one or two <tier>s (0: scale-up, 1: scale-out). Units convert on
 * load: latency-us and kernel-launch-us are stored in seconds. Defaults: kv-heads = heads; ffn =
 * 4*hidden for gpt (required for llama); vp 1; recompute none; schedule 1f1b; dtype bf16;
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
#include "core/input/fields.h"
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

void cx_core_origin_set(culonx_origin *o, const char *file, int line)
{
    snprintf(o->file, sizeof o->file, "%s", file);
    o->line = line;
}

/* Attributes `culonx calibrate` writes for dvfs-predict (the sweep clocks
 * and per-clock time tables, core/input/dvfs.c); the training model does not use
 * them, the schema checks their syntax. */
static int is_calibration_attr(const char *key)
{
    static const char *const keys[] = {"gpu",
                                       "max-mhz",
                                       "clocks-mhz",
                                       "time-mem-scale",
                                       "time-compute-scale",
                                       "split-dram",
                                       "power-ratio",
                                       "time-mem-power-scale",
                                       "time-mem-fp-scale"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0) return 1;
    return 0;
}

/* Reads the attributes of `el` into base via fields; `file` names the
 * document for messages. Attributes in `skip` (NULL-terminated) are ignored.
 * Sets bit i of *seen for each field i given. */
static culonx_status load_attrs(loader *L, xmlNodePtr el, const char *file, const cx_field *fs,
                                int nf, void *base, uint64_t *seen)
{
    *seen = 0;
    if (nf > 64) /* a field table outgrew the given-attribute mask */
        return cx_core_fail(L->err, CULONX_EINTERNAL, file, elem_line(el),
                            "internal: %d fields in one element, at most 64", nf);
    for (xmlAttrPtr a = el->properties; a; a = a->next) {
        const char *key = (const char *)a->name;
        if (strcmp(key, "file") == 0) continue;
        if (fs == cx_core_power_fields.f && is_calibration_attr(key)) continue;
        char where[256];
        cx_core_xml_render_element(el, key, where, sizeof where);
        int i = cx_core_field_find(fs, nf, key);
        if (i < 0) {
            char hint[1024];
            cx_core_field_hint(fs, nf, key, hint, sizeof hint);
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                                "%s: unknown attribute '%s'%s", where, key, hint);
        }
        xmlChar *v = xmlNodeListGetString(el->doc, a->children, 1);
        char why[512];
        int bad = cx_core_field_parse(&fs[i], v ? (const char *)v : "", base, why, sizeof why);
        if (v) xmlFree(v);
        if (bad)
            return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el), "%s: %s: %s", where,
                                key, why);
        *seen |= (uint64_t)1 << i;
    }
    return CULONX_OK;
}

static culonx_status require_attrs(loader *L, xmlNodePtr el, const char *file, const cx_field *fs,
                                   int nf, uint64_t seen)
{
    for (int i = 0; i < nf; i++)
        if (fs[i].required && !(seen & ((uint64_t)1 << i))) {
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
    int too_long = v && strlen((const char *)v) >= sizeof rel;
    snprintf(rel, sizeof rel, "%s", v && !too_long ? (const char *)v : "");
    if (v) xmlFree(v);
    char where[700];
    cx_core_xml_render_element(el, "file", where, sizeof where);
    if (too_long) /* never truncate: a cut path may name another file */
        return cx_core_fail(L->err, CULONX_EINPUT, base_file, elem_line(el),
                            "%s: path too long (at most %zu bytes)", where, sizeof rel - 1);
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
    if ((st = cx_core_xml_read_file(path, &buf, &len, L->err, file, elem_line(el), what)))
        return st;
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
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_model_fields.f, cx_core_model_fields.n, m, &seen);
    if (!st) st = require_attrs(L, el, file, cx_core_model_fields.f, cx_core_model_fields.n, seen);
    if (st) return st;
    cx_core_origin_set(&L->run->model_at, file, elem_line(el));
    if (!(seen & ((uint64_t)1 << MODEL_KV_HEADS))) m->kv_heads = m->heads;
    if (!(seen & ((uint64_t)1 << MODEL_FFN))) {
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
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_power_fields.f, cx_core_power_fields.n, p, &seen);
    if (!st) st = require_attrs(L, el, file, cx_core_power_fields.f, cx_core_power_fields.n, seen);
    if (st) return st;
    p->present = 1;
    cx_core_origin_set(&L->run->power_at, file, elem_line(el));
    return CULONX_OK;
}

static culonx_status load_gpu(loader *L, xmlNodePtr el, const char *file)
{
    culonx_gpu *g = &L->run->system.gpu;
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_gpu_fields.f, cx_core_gpu_fields.n, g, &seen);
    if (!st) st = require_attrs(L, el, file, cx_core_gpu_fields.f, cx_core_gpu_fields.n, seen);
    if (st) return st;
    cx_core_origin_set(&L->run->gpu_at, file, elem_line(el));
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
    cx_core_origin_set(&L->run->network_at, file, elem_line(el));
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
        uint64_t seen;
        culonx_status st =
            load_attrs(L, c, file, cx_core_tier_fields.f, cx_core_tier_fields.n, t, &seen);
        if (!st) st = require_attrs(L, c, file, cx_core_tier_fields.f, cx_core_tier_fields.n, seen);
        if (st) return st;
        cx_core_origin_set(&L->run->tier_at[s->ntiers], file, elem_line(c));
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
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_system_fields.f, cx_core_system_fields.n, s, &seen);
    if (!st)
        st = require_attrs(L, el, file, cx_core_system_fields.f, cx_core_system_fields.n, seen);
    if (st) return st;
    cx_core_origin_set(&L->run->system_at, file, elem_line(el));
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
        } else if (strcmp(n, "host") == 0) {
            st = load_attrs(L, c, file, cx_core_host_fields.f, cx_core_host_fields.n, s, &seen);
            if (!st)
                st = require_attrs(L, c, file, cx_core_host_fields.f, cx_core_host_fields.n, seen);
        } else if (strcmp(n, "perf") == 0) {
            cx_core_origin_set(&L->run->perf_at, file, elem_line(c));
            st = load_attrs(L, c, file, cx_core_perf_fields.f, cx_core_perf_fields.n, &s->perf,
                            &seen);
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
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_exec_fields.f, cx_core_exec_fields.n, e, &seen);
    if (!st) st = require_attrs(L, el, file, cx_core_exec_fields.f, cx_core_exec_fields.n, seen);
    if (st) return st;
    cx_core_origin_set(&L->run->exec_at, file, elem_line(el));
    int has_gpus = (seen >> EXEC_GPUS) & 1, has_dp = (seen >> EXEC_DP) & 1;
    if (!has_gpus && !has_dp)
        return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                            "<execution>: give gpus or dp (the other is derived: gpus = tp*pp*dp)");
    const int iz = cx_core_field_find(cx_core_exec_fields.f, cx_core_exec_fields.n, "zero");
    const int io =
        cx_core_field_find(cx_core_exec_fields.f, cx_core_exec_fields.n, "distributed-optimizer");
    if (cx_core_zero_alias(e, (seen >> iz) & 1, (seen >> io) & 1) != 0)
        return cx_core_fail(L->err, CULONX_EINPUT, file, elem_line(el),
                            "<execution zero=\"%d\" distributed-optimizer=\"%s\">: they disagree "
                            "(distributed-optimizer is zero 1: true needs zero >= 1, false zero 0)",
                            e->zero, e->distributed_optimizer ? "true" : "false");
    L->run->dp_derived = !has_dp;
    L->run->gpus_derived = !has_gpus;
    cx_core_run_derive(L->run);
    return CULONX_OK;
}

static culonx_status load_serving(loader *L, xmlNodePtr el, const char *file)
{
    culonx_serving *v = &L->run->serving;
    memset(v, 0, sizeof *v);
    v->pp = 1;
    v->dtype = CULONX_DTYPE_BF16;
    uint64_t seen;
    culonx_status st =
        load_attrs(L, el, file, cx_core_serving_fields.f, cx_core_serving_fields.n, v, &seen);
    if (!st)
        st = require_attrs(L, el, file, cx_core_serving_fields.f, cx_core_serving_fields.n, seen);
    if (st) return st;
    cx_core_origin_set(&L->run->serving_at, file, elem_line(el));
    v->kv_dtype_given = (seen >> SERV_KV_DTYPE) & 1;
    L->run->has_serving = 1;
    return CULONX_OK;
}

static culonx_status load_run_buffer(const char *name, const char *buf, size_t len,
                                     xmlSchemaPtr schema, culonx_run *run, culonx_error *err)
{
    loader L = {schema, run, err};
    xmlDocPtr doc;
    culonx_status st = cx_core_xml_read_doc(name, buf, len, schema, "run", &doc, err);
    if (st) return st;
    int have[4] = {0, 0, 0, 0};
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
        } else if (strcmp(n, "serving") == 0) {
            have[3]++;
            st = load_serving(&L, c, name);
        } else {
            char where[256];
            cx_core_xml_render_element(c, NULL, where, sizeof where);
            st = cx_core_fail(err, CULONX_EINPUT, name, elem_line(c),
                              "%s: unexpected element inside <run>", where);
        }
    }
    if (!st &&
        (have[0] != 1 || have[1] != 1 || have[2] > 1 || have[3] > 1 || have[2] + have[3] == 0))
        st = cx_core_fail(err, CULONX_EINPUT, name, elem_line(xmlDocGetRootElement(doc)),
                          "<run>: needs exactly one <model>, <system> and <execution> (or "
                          "<serving>)");
    if (!st && have[3]) {
        run->serving_only = have[2] == 0;
        cx_core_serving_derive(run);
    }
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
    if (strlen(name) >= sizeof run->path)
        return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "file name too long (at most %zu bytes)",
                            sizeof run->path - 1);
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
    if (strlen(path) >= sizeof run->path)
        return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "file name too long (at most %zu bytes)",
                            sizeof run->path - 1);
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
