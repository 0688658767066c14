/* SPDX-License-Identifier: MIT */
/* The bridge's pCPU object (pvx.h: pvx_pcpu_size()), shared by its files. */
#ifndef PVX_PCPU_H
#define PVX_PCPU_H

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"

/* The EL2 accessors' state first (pv_pcpu.plat points to it: el2/plat_sysreg.h), then the
 * library's, then the host's handle of the pCPU. */
struct pvx_pcpu {
	struct plat_pcpu plat;
	struct pv_pcpu pv;
	void *host;
};

#endif
