/* SPDX-License-Identifier: MIT */
/*
 * Per-VM ID-register views, served under HCR_EL2.TID3 (Arm ARM D24.2, the ID group:
 * Op0=3 Op1=0 CRn=0 CRm=1..7). Fields of features perfvisor manages say what the VM was
 * given; extensions perfvisor does not virtualise but that sit next to them (trace buffer,
 * branch records, PMU snapshot and instruction counter, ...) read as not implemented; the rest
 * is the hardware's value.
 */
#include "regs.h" /* the handlers' prototypes, as the dispatch that calls them sees them */

#define SLOT(key) PV_ID_SLOT(key)

static uint64_t set_field(uint64_t reg, uint64_t mask, unsigned value)
{
	return (reg & ~mask) | PV_FIELD_PREP(mask, value);
}

static uint64_t clear_fields(uint64_t reg, const uint64_t *fields, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		reg &= ~fields[i];
	return reg;
}

void pv_id_views_init(struct pv_vm *vm)
{
	/* ID_AA64DFR0_EL1: PMUVer and PMSVer are the VM's (0 without); trace buffer and filter,
	 * branch records, MTPMU (MDCR_EL2.MTPME stays 0), PMU snapshot, SEBEP and HPMN0 hidden. */
	static const uint64_t dfr0_hidden[] = {
		PV_ID_AA64DFR0_PMSS,        PV_ID_AA64DFR0_SEBEP, PV_ID_AA64DFR0_TRACEFILT,
		PV_ID_AA64DFR0_TRACEBUFFER, PV_ID_AA64DFR0_MTPMU, PV_ID_AA64DFR0_BRBE,
		PV_ID_AA64DFR0_EXTTRCBUFF,  PV_ID_AA64DFR0_HPMN0,
	};
	/* ID_AA64DFR1_EL1: system PMU, instruction counter, trace, EBEP, DPFZS hidden; DPFZS
	 * is the hardware's for a VM with PMCR_EL0.FZS (a PMU and SPEv1p2: Arm ARM D24.5.8),
	 * which reaches the hardware, whose cycle counter then freezes as its own DPFZS says. */
	static const uint64_t dfr1_hidden[] = {
		PV_ID_AA64DFR1_SYSPMUID, PV_ID_AA64DFR1_SPMU, PV_ID_AA64DFR1_PMICNTR,
		PV_ID_AA64DFR1_ITE,      PV_ID_AA64DFR1_EBEP, PV_ID_AA64DFR1_DPFZS,
	};
	const struct pv_hw *hw = vm->hw;
	uint64_t *view = vm->id_view;
	unsigned pmuver;
	uint64_t *dfr0, *dfr1, *pfr0, *pfr1, *dfr0_32, *dfr1_32, *pfr0_32;
	for (unsigned s = 0; s < PV_ID_SLOTS; s++)
		view[s] = s < PV_ID_SLOT_FIRST ? 0 : hw->id[s];

	pmuver = (vm->cfg.features & PV_FEAT_PMU) ? vm->pmu.version : PV_PMUVER_NI;

	dfr0 = &view[SLOT(PV_ID_AA64DFR0_EL1)];
	*dfr0 = clear_fields(*dfr0, dfr0_hidden, sizeof(dfr0_hidden) / sizeof(dfr0_hidden[0]));
	*dfr0 = set_field(*dfr0, PV_ID_AA64DFR0_PMUVER, pmuver);
	*dfr0 = set_field(*dfr0, PV_ID_AA64DFR0_PMSVER, vm->spe.version);

	dfr1 = &view[SLOT(PV_ID_AA64DFR1_EL1)];
	*dfr1 = clear_fields(*dfr1, dfr1_hidden, sizeof(dfr1_hidden) / sizeof(dfr1_hidden[0]));
	if (pmuver != PV_PMUVER_NI && vm->spe.version >= PV_SPE_V1P2)
		*dfr1 |= hw->id[SLOT(PV_ID_AA64DFR1_EL1)] & PV_ID_AA64DFR1_DPFZS;

	/* ID_AA64PFR0_EL1.AMU: the VM's version (0 without). MPAM: v1.0 (MPAM = 1, MPAM_frac =
	 * 0) when the VM is given it, else not implemented. */
	pfr0 = &view[SLOT(PV_ID_AA64PFR0_EL1)];
	*pfr0 = set_field(*pfr0, PV_ID_AA64PFR0_AMU, vm->amu.version);
	*pfr0 = set_field(*pfr0, PV_ID_AA64PFR0_MPAM, vm->mpam.visible ? 1 : 0);
	pfr1 = &view[SLOT(PV_ID_AA64PFR1_EL1)];
	*pfr1 = set_field(*pfr1, PV_ID_AA64PFR1_MPAM_FRAC, 0);

	/* AArch32 views: AArch32 PMU access (CP15, EC 0x03/0x04) is not offered, so PerfMon
	 * reads not implemented; AMU and MTPMU hidden likewise. */
	dfr0_32 = &view[SLOT(PV_ID_DFR0_EL1)];
	*dfr0_32 = set_field(*dfr0_32, PV_ID_DFR0_PERFMON, 0);
	*dfr0_32 = set_field(*dfr0_32, PV_ID_DFR0_TRACEFILT, 0);
	dfr1_32 = &view[SLOT(PV_ID_DFR1_EL1)];
	*dfr1_32 = set_field(*dfr1_32, PV_ID_DFR1_MTPMU, 0);
	*dfr1_32 = set_field(*dfr1_32, PV_ID_DFR1_HPMN0, 0);
	pfr0_32 = &view[SLOT(PV_ID_PFR0_EL1)];
	*pfr0_32 = set_field(*pfr0_32, PV_ID_PFR0_AMU, 0);
}

/* An EL1 read of the ID group (EL0 reads: the IDST rule of the dispatch). */
enum pv_trap_result pv_trap_id_read(struct pv_vcpu *v, unsigned slot, unsigned el,
				    uint64_t *val)
{
	(void)el;
	*val = v->vm->id_view[slot];
	return PV_TRAP_HANDLED;
}
