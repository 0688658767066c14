/* SPDX-License-Identifier: MIT */
/* libxml2 helpers: loading with located errors, diagnostics, strict attribute parsing. */
#include "xmlutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>

static void vrecord(struct diag *d, const char *prefix, const char *fmt, va_list ap)
{
	size_t n = (size_t)snprintf(d->msg, sizeof(d->msg), "%s", prefix);
	if (n < sizeof(d->msg))
		vsnprintf(d->msg + n, sizeof(d->msg) - n, fmt, ap);
}

int xerr_plain(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrecord(d, "", fmt, ap);
	va_end(ap);
	return -1;
}

int xerr_at(struct diag *d, const char *origin, long line, const char *element, const char *fmt,
	    ...)
{
	char prefix[384];
	if (element && line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%ld: <%s>: ", origin, line, element);
	else if (line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%ld: ", origin, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", origin);
	va_list ap;
	va_start(ap, fmt);
	vrecord(d, prefix, fmt, ap);
	va_end(ap);
	return -1;
}

int xerr(const struct xsrc *s, const xmlNode *node, const char *fmt, ...)
{
	char prefix[384];
	if (node) {
		char name[96];
		snprintf(prefix, sizeof(prefix), "%s:%ld: <%s>: ", s->origin, xml_line(node),
			 xml_name(node, name, sizeof(name)));
	} else
		snprintf(prefix, sizeof(prefix), "%s: ", s->origin);
	va_list ap;
	va_start(ap, fmt);
	vrecord(s->d, prefix, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- loading ---------------------------------------------------------------------------- */

#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOCDATA)

/* libxml2 reports every error through the structured handler; the first one is kept (the
 * later ones are usually its consequences). */
struct first_error {
	bool seen;
	int line;
	char msg[256];
};

static void keep_first(void *data, xmlErrorPtr e)
{
	struct first_error *f = data;
	if (f->seen || !e || e->level < XML_ERR_ERROR)
		return;
	f->seen = true;
	f->line = e->line;
	snprintf(f->msg, sizeof(f->msg), "%s", e->message ? e->message : "malformed XML");
	size_t n = strlen(f->msg);
	while (n && (f->msg[n - 1] == '\n' || f->msg[n - 1] == ' '))
		f->msg[--n] = '\0';
}

/* One of: a file (path), standard input (path "-"), or a buffer. */
static xmlDoc *load(const struct xsrc *s, const char *path, const char *buf, int len)
{
	xmlParserCtxt *ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		xerr(s, NULL, "out of memory");
		return NULL;
	}
	struct first_error first = {0};
	xmlSetStructuredErrorFunc(&first, keep_first);
	xmlDoc *doc = !path ? xmlCtxtReadMemory(ctxt, buf, len, NULL, NULL, XML_OPTIONS)
		      : strcmp(path, "-") == 0
			      ? xmlCtxtReadFd(ctxt, STDIN_FILENO, NULL, NULL, XML_OPTIONS)
			      : xmlCtxtReadFile(ctxt, path, NULL, XML_OPTIONS);
	xmlSetStructuredErrorFunc(NULL, NULL);
	if (!doc || !ctxt->wellFormed || first.seen) {
		if (!first.seen)
			xerr(s, NULL, "malformed XML");
		else if (first.line > 0)
			xerr_at(s->d, s->origin, first.line, NULL, "malformed XML: %s",
				first.msg);
		else
			xerr(s, NULL, "malformed XML: %s", first.msg);
		if (doc)
			xmlFreeDoc(doc);
		doc = NULL;
	}
	xmlFreeParserCtxt(ctxt);
	return doc;
}

const char *xml_origin_of(const char *path)
{
	return strcmp(path, "-") == 0 ? XML_STDIN_ORIGIN : path;
}

xmlDoc *xml_load_file(const struct xsrc *s, const char *path)
{
	if (strcmp(path, "-") == 0)
		return load(s, path, NULL, 0);
	FILE *f = fopen(path, "r");
	if (!f) {
		xerr(s, NULL, "cannot read: %s", strerror(errno));
		return NULL;
	}
	fclose(f);
	return load(s, path, NULL, 0);
}

xmlDoc *xml_load_memory(const struct xsrc *s, const char *buf, int len)
{
	return load(s, NULL, buf, len);
}

/* ---- nodes ------------------------------------------------------------------------------ */

const char *xml_name(const xmlNode *n, char *buf, size_t len)
{
	if (n->ns && n->ns->prefix)
		snprintf(buf, len, "%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
	else
		snprintf(buf, len, "%s", (const char *)n->name);
	return buf;
}

long xml_line(const xmlNode *n)
{
	return xmlGetLineNo(n);
}

static xmlNode *element_from(xmlNode *n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

xmlNode *xml_first(const xmlNode *n)
{
	return element_from(n->children);
}

xmlNode *xml_next(const xmlNode *n)
{
	return element_from(n->next);
}

bool xml_is(const xmlNode *n, const char *ns, const char *name)
{
	if (!n || n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, name) != 0)
		return false;
	if (!ns)
		return n->ns == NULL;
	return n->ns && n->ns->href && strcmp((const char *)n->ns->href, ns) == 0;
}

char *xml_attr(const xmlNode *n, const char *name)
{
	return (char *)xmlGetNoNsProp(n, (const xmlChar *)name);
}

int xml_only_attrs(const struct xsrc *s, const xmlNode *n, const char *const *allowed)
{
	for (const xmlAttr *a = n->properties; a; a = a->next) {
		bool ok = false;
		for (const char *const *p = allowed; *p && !ok; p++)
			ok = !a->ns && strcmp((const char *)a->name, *p) == 0;
		if (!ok)
			return xerr(s, n, "unknown attribute '%s'", (const char *)a->name);
	}
	return 0;
}

int xml_no_children(const struct xsrc *s, const xmlNode *n)
{
	const xmlNode *c = xml_first(n);
	if (c) {
		char name[96];
		return xerr(s, c, "unexpected element inside <%s>",
			    xml_name(n, name, sizeof(name)));
	}
	return 0;
}

/* ---- values ----------------------------------------------------------------------------- */

bool parse_u64(const char *str, bool hex, uint64_t *out)
{
	if (!str || !*str || *str == '-' || *str == '+' || *str == ' ')
		return false;
	int base = 10;
	if (hex && str[0] == '0' && (str[1] == 'x' || str[1] == 'X')) {
		base = 16;
		str += 2;
		if (!*str)
			return false;
	}
	errno = 0;
	char *end = NULL;
	unsigned long long v = strtoull(str, &end, base);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

int xml_attr_u64(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		 uint64_t min, uint64_t max, uint64_t *out)
{
	char *v = xml_attr(n, name);
	if (!v) {
		if (required)
			return xerr(s, n, "missing attribute '%s'", name);
		return 0;
	}
	uint64_t x;
	int r = 1;
	if (!parse_u64(v, false, &x))
		r = xerr(s, n, "%s='%s' is not a number", name, v);
	else if (x < min || x > max)
		r = xerr(s, n, "%s='%s' out of range (%" PRIu64 "..%" PRIu64 ")", name, v, min,
			 max);
	else
		*out = x;
	xmlFree(v);
	return r;
}

int xml_attr_uint(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		  unsigned min, unsigned max, unsigned *out)
{
	uint64_t x = 0;
	int r = xml_attr_u64(s, n, name, required, min, max, &x);
	if (r == 1)
		*out = (unsigned)x;
	return r;
}

int xml_attr_bool(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		  bool onoff, bool *out)
{
	char *v = xml_attr(n, name);
	if (!v) {
		if (required)
			return xerr(s, n, "missing attribute '%s'", name);
		return 0;
	}
	int r = 1;
	if (strcmp(v, "yes") == 0 || (onoff && strcmp(v, "on") == 0))
		*out = true;
	else if (strcmp(v, "no") == 0 || (onoff && strcmp(v, "off") == 0))
		*out = false;
	else
		r = xerr(s, n, "%s='%s' must be %s", name, v,
			 onoff ? "'on' or 'off'" : "'yes' or 'no'");
	xmlFree(v);
	return r;
}

int xml_text(const struct xsrc *s, const xmlNode *n, char *buf, size_t len)
{
	xmlChar *t = xmlNodeGetContent(n);
	const char *p = t ? (const char *)t : "";
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	size_t k = strlen(p);
	while (k &&
	       (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\n' || p[k - 1] == '\r'))
		k--;
	int r = 0;
	if (k == 0)
		r = xerr(s, n, "empty");
	else if (k >= len)
		r = xerr(s, n, "longer than %zu characters", len - 1);
	else {
		memcpy(buf, p, k);
		buf[k] = '\0';
	}
	xmlFree(t);
	return r;
}

/* ---- cpusets ---------------------------------------------------------------------------- */

/* libvirt numbers CPUs below VIR_DOMAIN_CPUMASK_LEN and refuses any number from there, in a
 * set entry and in an exclusion alike. */
#define CPUSET_LIBVIRT_BITS 16384

/* The blanks libvirt skips (C-locale isspace). */
static const char *cpuset_skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\v' || *p == '\f' || *p == '\r')
		p++;
	return p;
}

/* Decimal digits at p: their end, or NULL if p holds none. The value saturates, so a number
 * too long for any type is still "too large". */
static const char *cpuset_number(const char *p, unsigned long *value)
{
	if (*p < '0' || *p > '9')
		return NULL;
	unsigned long v = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		v = v < CPUSET_LIBVIRT_BITS ? v * 10 + (unsigned long)(*p - '0') : v;
	*value = v;
	return p;
}

static bool cpuset_fail(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool cpuset_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && len)
		vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

bool cpuset_parse(const char *str, unsigned limit, uint64_t *out, char *why, size_t len)
{
	/* Every number libvirt accepts, so that a bit set and then excluded again is exactly as
	 * libvirt leaves it, whatever the limit. */
	uint64_t bits[CPUSET_LIBVIRT_BITS / 64] = {0};
	const char *p = cpuset_skip_blanks(str ? str : "");
	if (limit > 64)
		limit = 64;
	if (!*p)
		return cpuset_fail(why, len, "it is empty");
	while (*p) {
		const char *entry = p;
		bool exclude = *p == '^';
		unsigned long first, last;
		const char *end = cpuset_number(p + exclude, &first);
		if (!end)
			return cpuset_fail(why, len, "expected %sa number at '%s'",
					   exclude ? "" : "'^' or ", entry);
		last = first;
		p = cpuset_skip_blanks(end);
		if (*p == '-') {
			if (exclude)
				return cpuset_fail(
					why, len,
					"'^%lu-': an exclusion takes one number, not a "
					"range",
					first);
			p = cpuset_skip_blanks(p + 1);
			/* libvirt reads a range's end with strtol, which takes a '+'. */
			end = cpuset_number(p + (*p == '+'), &last);
			if (!end)
				return cpuset_fail(why, len, "the range '%lu-' has no end",
						   first);
			if (last < first)
				return cpuset_fail(why, len,
						   "the range %lu-%lu ends before it starts",
						   first, last);
			p = cpuset_skip_blanks(end);
		}
		if (last >= CPUSET_LIBVIRT_BITS)
			return cpuset_fail(why, len,
					   "%lu is above %d, the largest number libvirt "
					   "accepts",
					   last, CPUSET_LIBVIRT_BITS - 1);
		for (unsigned long i = first; i <= last; i++) {
			if (exclude)
				bits[i / 64] &= ~(UINT64_C(1) << (i % 64));
			else
				bits[i / 64] |= UINT64_C(1) << (i % 64);
		}
		if (*p == ',')
			p = cpuset_skip_blanks(p + 1); /* a trailing comma ends the set */
		else if (*p)
			return cpuset_fail(why, len,
					   "unexpected '%s' (entries are separated by "
					   "commas)",
					   p);
	}
	for (unsigned i = limit; i < CPUSET_LIBVIRT_BITS; i++)
		if (bits[i / 64] >> (i % 64) & 1)
			return cpuset_fail(why, len, "%u is out of range (0..%u)", i,
					   limit - 1);
	if (!bits[0])
		return cpuset_fail(why, len, "it leaves no CPU in the set");
	*out = bits[0];
	return true;
}

void cpuset_format(uint64_t set, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < 64 && n < len; i++) {
		if (!(set >> i & 1))
			continue;
		unsigned j = i;
		while (j + 1 < 64 && (set >> (j + 1) & 1))
			j++;
		if (j == i)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", i);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u-%u", n ? "," : "", i, j);
		i = j;
	}
}
