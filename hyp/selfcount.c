/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor measures itself with the one PMU counter it keeps above HPMN (MDCR_EL2.HPMN
 * = N - 1, counters [HPMN, N) enabled by MDCR_EL2.HPME, not PMCR_EL0.E; Arm ARM D13.x). It
 * counts INST_RETIRED at EL2 only (PMEVTYPER: P = 1, U = 1, NSH = 1). The counter is read once
 * per exception, at the end of its handler, so the difference between two reads is exactly
 * the EL2 instructions of one round trip (vector entry, handler, register restore and ERET);
 * that difference is charged to the vCPU that trapped, under the exception's kind.
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
	hyp.host_counter_key = PV_PMEVCNTR_EL0(n);
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMEVTYPER_EL0(n),
			     PV_EVT_INST_RETIRED | PV_PMEVTYPER_P | PV_PMEVTYPER_U |
				     PV_PMEVTYPER_NSH);
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMEVCNTR_EL0(n), 0);
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMCNTENSET_EL0, 1ul << n);
	hyp.selfcount = true;
}

static uint64_t selfcount_read(void)
{
	return pv_plat_sysreg_read(&hyp.pcpu, hyp.host_counter_key);
}

void selfcount_account(struct vcpu *v, enum exit_kind kind)
{
	if (!hyp.selfcount) {
		if (v)
			v->exits[kind]++;
		return;
	}
	uint64_t now = selfcount_read();
	if (v) {
		v->exits[kind]++;
		v->el2_instr[kind] += now - hyp.last_count;
	}
	hyp.last_count = now;
}
