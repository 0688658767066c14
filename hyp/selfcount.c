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
 *
 * With a passthrough vCPU loaded the guest owns PMSELR_EL0, so the read selects the host
 * counter and gives the guest's selection back (selfcount_charge, hyp.h). QEMU 7.2 does not keep counters past HPMN from EL1 (docs/qemu.md), so a
 * passthrough guest can stop or reset this one: the hypervisor keeps none in that mode
 * unless host_counters= asks for one, for measurement, and then enables it again at every
 * exception and skips a count that went backwards.
 *
 * With selfcount_page=on a VM reads what the hypervisor has spent on it from a register page
 * of its own (selfcount_mmio, in its device tree as "perfvisor,selfcount"), so that a guest
 * can time its own windows exactly. Only what was charged to it: its own exceptions, the
 * switches away from it among them (which load whatever runs next).
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

/* The self-count page, at SELFCOUNT_IPA in every VM: the 64-bit register at offset 0 reads
 * the EL2 instructions the hypervisor has spent on this vCPU so far (the exception reading it
 * excluded), or all ones without self-measurement. The rest of the page reads 0; writes are
 * ignored. */
bool selfcount_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val)
{
	if (!hyp.selfcount_page || ipa - SELFCOUNT_IPA >= 0x1000)
		return false;
	if (write)
		return true;
	uint64_t sum = 0;
	for (unsigned k = 0; k < EXIT_KINDS; k++)
		sum += v->el2_instr[k];
	*val = ipa == SELFCOUNT_IPA && size == 8 ? (hyp.selfcount ? sum : UINT64_MAX) : 0;
	return true;
}
