/*
 * xml.h — the safe XML reader of config files (see xml.c): schema lookup
 * and cache, bounded file reads, parsing with validation and file:line
 * errors. Internal to core/input/.
 */
#ifndef CX_CORE_INPUT_XML_H
#define CX_CORE_INPUT_XML_H

#include "core/base/base.h"

#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include <stddef.h>

#define MAX_FILE_BYTES ((size_t)16 << 20) /* config files are a few KiB */
/* a DVFS clock table: 2M rows of ~170 bytes */
#define MAX_TABLE_BYTES ((size_t)512 << 20)

/* The schema at schema_path, or (NULL) the default one; cached. */
culonx_status cx_core_xml_schema(const char *schema_path, xmlSchemaPtr *out, culonx_error *err);
/* Parses and validates one document whose root element must be <root>;
 * `name` is used in messages. *out is freed with xmlFreeDoc. */
culonx_status cx_core_xml_read_doc(const char *name, const char *buf, size_t len,
                                   xmlSchemaPtr schema, const char *root, xmlDocPtr *out,
                                   culonx_error *err);
/* Reads a regular file (never a FIFO, device or directory: they could block
 * or never end) of at most max_bytes into a malloc'd, NUL-terminated
 * buffer; errors name from:from_line and start with `what`. */
culonx_status cx_core_read_file(const char *path, size_t max_bytes, char **buf, size_t *len,
                                culonx_error *err, const char *from, int from_line,
                                const char *what);
/* Reads a regular file of at most MAX_FILE_BYTES into a malloc'd buffer;
 * errors name from:from_line and start with `what`. */
culonx_status cx_core_xml_read_file(const char *path, char **buf, size_t *len, culonx_error *err,
                                    const char *from, int from_line, const char *what);

/* Refuses (file:line) an element with more than 64 attributes, in one
 * linear pass before libxml2 sees the document (its checks are quadratic). */
culonx_status cx_core_xml_prescan(const char *name, const char *buf, size_t len, culonx_error *err);
/* Parses a <power> document held in memory (culonx_power_read_xml reads
 * the file; dvfs.c); `path` names it in messages. */
culonx_status cx_core_power_parse_xml(const char *path, const char *buf, size_t len,
                                      culonx_dvfs_model *d, culonx_error *err);
/* s past leading blanks (space, tab, CR, LF). */
const char *cx_core_xml_skip_space(const char *s);
/* `<tag attr="value">` of an element for messages (attr may be NULL). */
void cx_core_xml_render_element(xmlNodePtr el, const char *attr, char *out, size_t cap);

#endif
