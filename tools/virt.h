/* SPDX-License-Identifier: MIT */
/*
 * Domain definitions from a libvirt connection (read-only): virConnectOpenReadOnly, then
 * virConnectListAllDomains or virDomainLookupByName, and virDomainGetXMLDesc, each XML parsed
 * by domxml. "test:///default" needs no daemon; "test:///ABS/PATH/node.xml" is libvirt's test
 * driver loaded from a node description (examples/libvirt-test-node.xml).
 */
#ifndef PERFVISOR_TOOLS_VIRT_H
#define PERFVISOR_TOOLS_VIRT_H

#include "domxml.h"

#define VIRT_DEFAULT_URI "test:///default"

/* The connection when none is named (no --connect, no scenario <libvirt>): as virsh and every
 * libvirt client, $LIBVIRT_DEFAULT_URI when it is set and not empty; else VIRT_DEFAULT_URI,
 * which needs no daemon (libvirt itself would probe for a hypervisor). */
const char *virt_default_uri(void);

/* Reads the named domains (all of them, in the connection's order, when nnames == 0) into
 * out[0..*n). 0, or -1 with the error in *d; on error nothing is filled. */
int virt_load(const char *uri, const char *const *names, unsigned nnames, struct domain *out,
	      unsigned max, unsigned *n, struct diag *d);

#endif
