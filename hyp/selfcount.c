/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor measures itself with the one PMU counter it keeps above HPMN (MDCR_EL2.HPMN
 * = N - 1, counters [HPMN, N) enabled by MDCR_EL2.HPME, not PMCR_EL0.E; D13.1.1, D13.5.1.1). It
 * counts INST_RETIRED at EL2 only (PMEVTYPER: P = 1, U = 1, NSH = 1). The counter is read once
 * per exception, at the end of its handler (selfcount_account, hyp.h), so the difference
 * between two reads is exactly the EL2 instructions of one round trip (vector entry, handler,
 * register restore and ERET); that difference is charged to the vCPU that trapped, under the
 * exception's kind. The read is a single MRS of PMXEVCNTR_EL0, with the physical PMSELR_EL0
 * set to the host counter once here: the guests' PMSELR is perfvisor's virtual one (every
 * PMU access traps, MDCR_EL2.TPM) and the library emulates PMXEV* without the physical
 * PMSELR, so nothing else writes it; report_all checks that it still holds.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

void selfcount_init(void)
{
	hyp.selfcount = false;
	if (!hyp.hw.host_counters)
		return;
	/* INST_RETIRED exists on QEMU only with -icount (PMCEID0 bit 8). */
	if (!(hyp.hw.pmceid0 & (1ul << PV_EVT_INST_RETIRED))) {
		hyp_puts("hyp: INST_RETIRED not implemented (run QEMU with -icount shift=0): "
			 "no self-measurement\n");
		return;
	}
	unsigned n = hyp.hw.hpmn;
	hyp.host_counter = n;
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMEVTYPER_EL0(n),
			     PV_EVT_INST_RETIRED | PV_PMEVTYPER_P | PV_PMEVTYPER_U |
				     PV_PMEVTYPER_NSH);
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMEVCNTR_EL0(n), 0);
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMCNTENSET_EL0, 1ul << n);
	write_sysreg(S3_3_C9_C12_5, (uint64_t)n); /* PMSELR_EL0 */
	isb();
	hyp.selfcount = true;
}
