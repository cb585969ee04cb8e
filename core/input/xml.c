/*
 * xml.c — the safe XML reader behind every config file: libxml2 with
 * XML_PARSE_NONET, no entity substitution, no DTD loading, an external-
 * entity resolver that refuses everything, documents with a DOCTYPE
 * rejected outright; validation against the culonx schema (parsed once and
 * cached, thread-safe); the first parse or schema error reported as
 *   file:line: error: <element attr="value">: message
 * and bounded file reads (regular files only, at most MAX_FILE_BYTES).
 */
#include "core/input/xml.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------ schema cache */

const char *cx_core_xml_skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t schema_lock = PTHREAD_MUTEX_INITIALIZER;
#define SCHEMA_CACHE_SLOTS 8
static struct {
    char path[512];
    xmlSchemaPtr schema;
    xmlDocPtr doc; /* the schema document, kept alive with the schema */
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
void cx_core_xml_render_element(xmlNodePtr el, const char *attr, char *out, size_t cap)
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
            rest = cx_core_xml_skip_space(rest);
        }
    }
    if (strncmp(rest, "[facet '", 8) == 0) { /* "[facet 'minInclusive'] The value..." */
        const char *q = strstr(rest, "] ");
        if (q) rest = q + 2;
    }
    char el[256];
    if (node && node->type == XML_ELEMENT_NODE) {
        cx_core_xml_render_element(node, attr[0] ? attr : NULL, el, sizeof el);
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

static void silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* Reads a user's schema file as a document and refuses xs:include,
 * xs:import and xs:redefine (and DOCTYPEs): a schema may not fetch other
 * files or URLs. */
static culonx_status schema_doc(const char *path, xmlDocPtr *out, culonx_error *err)
{
    char *buf;
    size_t len;
    culonx_status st = cx_core_read_file(path, MAX_FILE_BYTES, &buf, &len, err, path, 0, "");
    if (st != CULONX_OK) return st;
    st = cx_core_xml_prescan(path, buf, len, err);
    xmlDocPtr doc = NULL;
    if (st == CULONX_OK) {
        xmlGenericErrorFunc old_f = xmlGenericError;
        void *old_ctx = xmlGenericErrorContext;
        xmlSetGenericErrorFunc(NULL, silent);
        doc = xmlReadMemory(buf, (int)len, path, NULL,
                            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        xmlSetGenericErrorFunc(old_ctx, old_f);
        if (!doc) st = cx_core_fail(err, CULONX_EINPUT, path, 0, "invalid schema: not well-formed");
    }
    free(buf);
    if (st != CULONX_OK) return st;
    if (doc->intSubset || doc->extSubset) {
        xmlFreeDoc(doc);
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "invalid schema: DOCTYPE not allowed");
    }
    /* depth-first over elements */
    xmlNodePtr n = xmlDocGetRootElement(doc);
    while (n) {
        if (n->type == XML_ELEMENT_NODE && (!xmlStrcmp(n->name, (const xmlChar *)"include") ||
                                            !xmlStrcmp(n->name, (const xmlChar *)"import") ||
                                            !xmlStrcmp(n->name, (const xmlChar *)"redefine") ||
                                            !xmlStrcmp(n->name, (const xmlChar *)"override"))) {
            int line = (int)xmlGetLineNo(n);
            char what[16];
            snprintf(what, sizeof what, "%s", (const char *)n->name);
            xmlFreeDoc(doc); /* n is gone with it */
            return cx_core_fail(err, CULONX_EINPUT, path, line,
                                "invalid schema: <xs:%s> is not allowed (a schema may not load "
                                "other files)",
                                what);
        }
        if (n->children) {
            n = n->children;
            continue;
        }
        while (n && !n->next)
            n = n->parent;
        if (n) n = n->next;
    }
    *out = doc;
    return CULONX_OK;
}

/* configs/culonx.xsd built into the library (generated culonx_xsd.c, by
 * core/pkg/embed.cmake). */
extern const unsigned char cx_core_schema_xsd[];
extern const size_t cx_core_schema_xsd_bytes;
#define BUILTIN_SCHEMA "culonx.xsd (built in)"

/* Returns the cached schema for `schema_path` (NULL or empty: the built-in
 * copy), parsing it on first use. */
culonx_status cx_core_xml_schema(const char *schema_path, xmlSchemaPtr *out, culonx_error *err)
{
    pthread_once(&xml_once, xml_init);
    char path[512];
    int builtin = !(schema_path && schema_path[0]);
    if (!builtin && strlen(schema_path) >= sizeof path)
        return cx_core_fail(err, CULONX_EINPUT, NULL, 0, "schema path too long (at most %zu bytes)",
                            sizeof path - 1);
    snprintf(path, sizeof path, "%s", builtin ? BUILTIN_SCHEMA : schema_path);
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
    if (!builtin && !file_exists(path)) {
        st = cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot find the schema culonx.xsd");
        goto done;
    }
    first_error fe = {0};
    xmlSchemaParserCtxtPtr pctx;
    xmlDocPtr sdoc = NULL;
    if (builtin) {
        pctx = xmlSchemaNewMemParserCtxt((const char *)cx_core_schema_xsd,
                                         (int)cx_core_schema_xsd_bytes);
    } else {
        /* a user's schema is read like any input (regular file, size cap,
         * no network, no entities) and may not pull in other documents */
        if ((st = schema_doc(path, &sdoc, err)) != CULONX_OK) goto done;
        pctx = xmlSchemaNewDocParserCtxt(sdoc);
    }
    if (!pctx) {
        st = cx_core_fail(err, CULONX_EINTERNAL, path, 0, "out of memory loading the schema");
        goto done;
    }
    xmlSchemaSetParserStructuredErrors(pctx, on_structured_error, &fe);
    /* libxml2 prints some errors through its generic handler, with the
     * offending line of the document: silence it (this thread) */
    xmlGenericErrorFunc old_f = xmlGenericError;
    void *old_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, silent);
    xmlSchemaPtr schema = xmlSchemaParse(pctx);
    xmlSetGenericErrorFunc(old_ctx, old_f);
    xmlSchemaFreeParserCtxt(pctx);
    if (!schema) {
        if (sdoc) xmlFreeDoc(sdoc);
        st = cx_core_fail(err, CULONX_EINPUT, path, fe.line, "invalid schema: %s",
                          fe.have ? fe.msg : "cannot parse");
        goto done;
    }
    /* A schema evicted from a full cache is leaked on purpose: another thread
     * may still validate with it. Eight distinct schema paths is already odd. */
    snprintf(schema_cache[slot].path, sizeof schema_cache[slot].path, "%s", path);
    schema_cache[slot].schema = schema;
    schema_cache[slot].doc = sdoc;
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

/* Attributes per element beyond which a document is refused before libxml2
 * sees it: the largest element of the vocabulary (<power> with per-clock
 * tables) has 25; libxml2's duplicate-attribute check and XSD validation
 * are quadratic in the count (100k attributes took minutes). */
#define MAX_ATTRIBUTES 64

/* One linear pass over the document: counts the attributes ('=' outside
 * quotes) of every tag and refuses an element with more than
 * MAX_ATTRIBUTES. Comments, CDATA and processing instructions are skipped;
 * malformed markup is left to the parser. */
culonx_status cx_core_xml_prescan(const char *name, const char *b, size_t n, culonx_error *err)
{
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\n') line++;
        if (b[i] != '<') continue;
        if (i + 3 < n && !memcmp(b + i, "<!--", 4)) { /* comment */
            const char *e = NULL;
            for (size_t j = i + 4; j + 2 < n; j++) {
                if (b[j] == '\n') line++;
                if (!memcmp(b + j, "-->", 3)) {
                    e = b + j;
                    break;
                }
            }
            if (!e) return CULONX_OK;
            i = (size_t)(e - b) + 2;
            continue;
        }
        int tag_line = line, attrs = 0;
        char quote = 0;
        size_t j = i + 1;
        for (; j < n; j++) {
            char c = b[j];
            if (c == '\n') line++;
            if (quote) {
                if (c == quote) quote = 0;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '=') {
                if (++attrs > MAX_ATTRIBUTES)
                    return cx_core_fail(err, CULONX_EINPUT, name, tag_line,
                                        "an element with more than %d attributes", MAX_ATTRIBUTES);
            } else if (c == '>') {
                break;
            }
        }
        i = j;
    }
    return CULONX_OK;
}

/* Parses and validates one document whose root must be <root>. */
culonx_status cx_core_xml_read_doc(const char *name, const char *buf, size_t len,
                                   xmlSchemaPtr schema, const char *root, xmlDocPtr *out,
                                   culonx_error *err)
{
    *out = NULL;
    if (len == 0)
        return cx_core_fail(err, CULONX_EINPUT, name, 1, "empty file: expected <%s>", root);
    if (len > MAX_FILE_BYTES || len > (size_t)INT_MAX)
        return cx_core_fail(err, CULONX_EINPUT, name, 0, "file too large (over %zu bytes)",
                            MAX_FILE_BYTES);
    culonx_status ps = cx_core_xml_prescan(name, buf, len, err);
    if (ps != CULONX_OK) return ps;
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

culonx_status cx_core_read_file(const char *path, size_t max_bytes, char **buf, size_t *len,
                                culonx_error *err, const char *from, int from_line,
                                const char *what)
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
    if ((uintmax_t)st.st_size > max_bytes)
        return cx_core_fail(err, CULONX_EINPUT, from, from_line,
                            "%s'%s' is too large (%ju bytes; at most %zu)", what, path,
                            (uintmax_t)st.st_size, max_bytes);
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

culonx_status cx_core_xml_read_file(const char *path, char **buf, size_t *len, culonx_error *err,
                                    const char *from, int from_line, const char *what)
{
    return cx_core_read_file(path, MAX_FILE_BYTES, buf, len, err, from, from_line, what);
}
