/* SPDX-License-Identifier: MIT */
/*
 * The platform contract's stage-2 functions (include/perfvisor/platform.h) for a host that
 * gives its guests no SPE, as the Xen bridge does: pv_vm_init never gives such a VM SPE, so
 * vspe/ never calls these, and they answer as a platform with nothing to pin or translate
 * would. A host that offers SPE provides its own and leaves this file out of its link, as
 * perfvisor's hypervisor does (hyp/platform.c).
 */
#include "perfvisor/platform.h"

bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val)
{
	(void)v, (void)ipa;
	*val = 0;
	return false;
}

bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v, (void)ipa, (void)size;
	return false;
}

void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v, (void)ipa, (void)size;
}

bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa)
{
	(void)v, (void)ipa;
	*pa = 0;
	return false;
}
