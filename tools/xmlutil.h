/* SPDX-License-Identifier: MIT */
/*
 * libxml2 helpers shared by the domain-XML and scenario readers: loading a document with its
 * parse error as "file:line: message", diagnostics that name file, line and element, and
 * strict attribute parsing (numbers in range, yes/no, unknown attributes refused).
 */
#ifndef PERFVISOR_TOOLS_XMLUTIL_H
#define PERFVISOR_TOOLS_XMLUTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/tree.h>

/* The first error of an operation, ready to print: "origin:line: <element>: what". */
struct diag {
	char msg[768];
};

/* Where a document came from: a file path, or "URI (domain NAME)" for XML read from a
 * libvirt connection. Line numbers are the document's. */
struct xsrc {
	const char *origin;
	struct diag *d;
};

/* Records an error at `node` (NULL: the document as a whole) and returns -1. */
int xerr(const struct xsrc *s, const xmlNode *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for an error found later, from a remembered line and element name. */
int xerr_at(struct diag *d, const char *origin, long line, const char *element, const char *fmt,
	    ...) __attribute__((format(printf, 5, 6)));
int xerr_plain(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a file ("-": standard input) or a buffer; NULL with the parse error (file:line:
 * message) in s->d. No network access, no entity substitution, no DTD loading. Free with
 * xmlFreeDoc. */
xmlDoc *xml_load_file(const struct xsrc *s, const char *path);
/* How messages name a file given as `path`: itself, or XML_STDIN_ORIGIN for "-". */
#define XML_STDIN_ORIGIN "(standard input)"
const char *xml_origin_of(const char *path);
xmlDoc *xml_load_memory(const struct xsrc *s, const char *buf, int len);

/* The element's name as written (with its namespace prefix). */
const char *xml_name(const xmlNode *n, char *buf, size_t len);
long xml_line(const xmlNode *n);
/* Element children only. */
xmlNode *xml_first(const xmlNode *n);
xmlNode *xml_next(const xmlNode *n);
/* True if n is the element `name` in namespace `ns` (NULL: no namespace). */
bool xml_is(const xmlNode *n, const char *ns, const char *name);

/* Attribute value (no namespace), or NULL; caller frees with xmlFree. */
char *xml_attr(const xmlNode *n, const char *name);
/* Refuses any attribute not in the NULL-terminated list. */
int xml_only_attrs(const struct xsrc *s, const xmlNode *n, const char *const *allowed);
/* Refuses any element child (for elements that must be empty). */
int xml_no_children(const struct xsrc *s, const xmlNode *n);

/* Numeric attribute in [min, max]. Returns 1 if present and valid, 0 if absent (and not
 * required), -1 on error (recorded). */
int xml_attr_u64(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		 uint64_t min, uint64_t max, uint64_t *out);
int xml_attr_uint(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		  unsigned min, unsigned max, unsigned *out);
/* "yes" / "no" (also "on" / "off" when `onoff`). Same return convention. */
int xml_attr_bool(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		  bool onoff, bool *out);
/* An element's text content, trimmed, into buf; -1 (recorded) if empty or too long. */
int xml_text(const struct xsrc *s, const xmlNode *n, char *buf, size_t len);

/* Parses an unsigned decimal (or 0x hex when `hex`) integer filling the whole string. */
bool parse_u64(const char *str, bool hex, uint64_t *out);

/* libvirt's cpuset syntax, read as libvirt's virBitmapParse reads the domain XML's cpuset and
 * vcpus attributes: comma-separated entries N, N-M or ^N, applied left to right (^N removes N
 * from what the entries before it set: "0-3,^2" is 0-1,3 but "^1,0-1" is 0-1), blanks allowed
 * around numbers, '-' and ',', a trailing comma allowed, numbers up to 16383. perfvisor also
 * wants a set that is not empty and lies below `limit` (at most 64). false with the reason in
 * `why` (e.g. "the range 3-1 ends before it starts"). */
bool cpuset_parse(const char *str, unsigned limit, uint64_t *out, char *why, size_t len);
/* Canonical text of a set ("0-1,3"), "" for the empty set. */
void cpuset_format(uint64_t set, char *buf, size_t len);

#endif
