/* SPDX-License-Identifier: MIT */
/* Domain definitions from a libvirt connection (see virt.h). */
#include "virt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlerror.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

/* libvirt prints every error on stderr by default; the tool reports them itself. */
static void quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

/* libvirt's message, first line only (XML errors add the offending line and a caret). */
/* libvirt parses XML with libxml2 too; its I/O warnings would go straight to stderr. */
static void silent(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

const char *virt_default_uri(void)
{
	const char *env = getenv("LIBVIRT_DEFAULT_URI");
	return env && *env ? env : VIRT_DEFAULT_URI;
}

static const char *last_error(void)
{
	static char buf[256];
	const char *m = virGetLastErrorMessage();
	if (!m)
		return "unknown libvirt error";
	size_t n = strcspn(m, "\n");
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, m, n);
	buf[n] = '\0';
	return buf;
}

static int load_one(const char *uri, virDomainPtr dom, struct domain *out, struct diag *d)
{
	const char *name = virDomainGetName(dom);
	char origin[sizeof(out->origin)];
	snprintf(origin, sizeof(origin), "%s (domain %s)", uri, name ? name : "?");
	char *xml = virDomainGetXMLDesc(dom, 0);
	if (!xml)
		return xerr_plain(d, "%s: cannot read the domain XML: %s", origin,
				  last_error());
	int r = domxml_parse_memory(xml, origin, out, d);
	free(xml);
	return r;
}

int virt_load(const char *uri, const char *const *names, unsigned nnames, struct domain *out,
	      unsigned max, unsigned *n, struct diag *d)
{
	*n = 0;
	virSetErrorFunc(NULL, quiet);
	xmlSetGenericErrorFunc(NULL, silent);
	virConnectPtr conn = virConnectOpenReadOnly(uri);
	xmlSetGenericErrorFunc(NULL, NULL);
	if (!conn)
		return xerr_plain(d, "%s: cannot connect: %s", uri, last_error());
	int r = 0;
	unsigned got = 0;
	if (nnames) {
		for (unsigned i = 0; i < nnames && !r; i++) {
			virDomainPtr dom = virDomainLookupByName(conn, names[i]);
			if (!dom) {
				r = xerr_plain(d, "%s: no domain '%s'", uri, names[i]);
				break;
			}
			if (got == max)
				r = xerr_plain(d, "%s: more than %u domains", uri, max);
			else
				r = load_one(uri, dom, &out[got++], d);
			virDomainFree(dom);
		}
	} else {
		virDomainPtr *doms = NULL;
		int count = virConnectListAllDomains(conn, &doms, 0);
		if (count < 0)
			r = xerr_plain(d, "%s: cannot list domains: %s", uri, last_error());
		else if ((unsigned)count > max)
			r = xerr_plain(d, "%s: %d domains, at most %u can be read", uri, count,
				       max);
		for (int i = 0; i < count; i++) {
			if (!r)
				r = load_one(uri, doms[i], &out[got++], d);
			virDomainFree(doms[i]);
		}
		free(doms);
	}
	virConnectClose(conn);
	if (r && got)
		memset(out, 0, sizeof(*out) * got);
	else if (!r)
		*n = got;
	return r;
}
