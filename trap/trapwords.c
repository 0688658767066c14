/* SPDX-License-Identifier: MIT */
/*
 * Per-VM trap words: the MDCR_EL2, CPTR_EL2, HCR_EL2, MPAM and SPE EL2 controls, every field
 * perfvisor owns set explicitly, and set together with the ID view (a feature the VM lacks
 * is both hidden and trapped). Fields of features the hardware lacks are RES0 and left 0.
 */
#include "perfvisor/trap.h"
#include "../core/modules.h"

static bool pmu_present(const struct pv_hw *hw)
{
	return hw->pmu_version != PV_PMUVER_NI && hw->pmu_version != PV_PMUVER_IMPDEF;
}

static void mdcr_words(const struct pv_vm *vm, struct pv_trap_words *w)
{
	const struct pv_hw *hw = vm->hw;
	uint64_t owned = PV_MDCR_EL2_HPMN | PV_MDCR_EL2_TPMCR | PV_MDCR_EL2_TPM |
			 PV_MDCR_EL2_HPME | PV_MDCR_EL2_E2PB | PV_MDCR_EL2_TPMS |
			 PV_MDCR_EL2_EnSPM | PV_MDCR_EL2_HPMD | PV_MDCR_EL2_TTRF |
			 PV_MDCR_EL2_HCCD | PV_MDCR_EL2_E2TB | PV_MDCR_EL2_HLP |
			 PV_MDCR_EL2_MTPME | PV_MDCR_EL2_HPMFZO | PV_MDCR_EL2_PMSSE |
			 PV_MDCR_EL2_HPMFZS | PV_MDCR_EL2_PMEE;
	uint64_t m = 0;
	if (pmu_present(hw)) {
		/* Guests own counters [0, HPMN); every PMU register traps (TPM, and TPMCR which
		 * TPM already implies) whether or not the VM has a PMU: hidden means UNDEF, given
		 * means emulated. */
		m |= PV_FIELD_PREP(PV_MDCR_EL2_HPMN, hw->hpmn) | PV_MDCR_EL2_TPM |
		     PV_MDCR_EL2_TPMCR;
		if (vm->pmu.passthrough) {
			/* Passthrough: the guest owns every counter and nothing traps; HPMD and
			 * HCCD below keep EL2 out of its counts (vpmu/passthrough.c). */
			m &= ~(PV_MDCR_EL2_TPM | PV_MDCR_EL2_TPMCR);
		} else if (vm->pmu.direct) {
			/* Direct access (fgt_words): the hardware's own partition is the VM's N,
			 * so PMCR_EL0.N reads N at EL1 and EL0, PMCR_EL0.P resets [0, N) alone,
			 * the bitmaps' bits past N are RAZ/WI there and an access to a counter
			 * past it traps (Arm ARM D13.1.1, D24.5.8, D24.5.10); nothing traps but
			 * what the fine-grained words below name. */
			m &= ~(PV_MDCR_EL2_HPMN | PV_MDCR_EL2_TPM | PV_MDCR_EL2_TPMCR);
			m |= PV_FIELD_PREP(PV_MDCR_EL2_HPMN, vm->pmu.nr_counters);
		}
		if (hw->host_counters)
			m |= PV_MDCR_EL2_HPME; /* host counters [HPMN, N) count for the host */
		if (hw->pmu_version >= PV_PMUVER_V3P1)
			m |= PV_MDCR_EL2_HPMD; /* guest counters never count at EL2 */
		if (hw->pmu_version >= PV_PMUVER_V3P5)
			m |= PV_MDCR_EL2_HCCD | PV_MDCR_EL2_HLP; /* nor the cycle counter; host
								    counters overflow at 64 bits */
		/* MTPME, HPMFZO, HPMFZS, PMEE, EnSPM: 0 (extensions not offered). */
	}
	if (hw->spe) {
		/* The sampling controls trap (TPMS); with direct sampling controls each vCPU's
		 * first SPE access clears it in its own words (vspe/regs.c). A VM with SPE owns
		 * its buffer in its EL1&0 regime, so records go through stage 2, and its PMB*
		 * accesses trap (E2PB = 0b10); without, the buffer is EL2's and EL1 PMB* accesses
		 * trap (E2PB = 0b00). */
		unsigned e2pb = vm->spe.version ? PV_MDCR_EL2_E2PB_EL1_TRAP
						: PV_MDCR_EL2_E2PB_EL2;
		m |= PV_FIELD_PREP(PV_MDCR_EL2_E2PB, e2pb) | PV_MDCR_EL2_TPMS;
	}
	if (hw->trf)
		m |= PV_MDCR_EL2_TTRF; /* trace filter control traps; trace not offered */
	/* E2TB = 0b00: a trace buffer, if any, is EL2's and its EL1 accesses trap. */
	w->mdcr_el2 = m;
	w->mdcr_el2_owned = owned;
}

static void mpam_words(const struct pv_vm *vm, struct pv_trap_words *w)
{
	const struct pv_hw *hw = vm->hw;
	if (!hw->mpam)
		return;
	if (vm->mpam.sys) {
		/* The VM has PARTIDs of its own (vmpam/): its controls, with VPM where present. */
		const struct pv_vmpam_el2 *e = pv_vmpam_el2(&vm->mpam);
		w->mpam2_el2 = e->mpam2_el2;
		w->mpam2_el2_owned = e->mpam2_el2_owned;
		w->mpamhcr_el2 = e->mpamhcr_el2;
		w->mpamhcr_el2_owned = e->mpamhcr_el2_owned;
		return;
	}
	/* No MSC management: MPAM0/1_EL1 trap (and UNDEF) so no guest-chosen PARTID reaches an
	 * MSC, and MPAMIDR_EL1 traps through MPAMHCR_EL2 or, without it, MPAM2_EL2.TIDR. */
	w->mpam2_el2_owned = PV_MPAM2_EL2_TRAPMPAM0EL1 | PV_MPAM2_EL2_TRAPMPAM1EL1 |
			     PV_MPAM2_EL2_TIDR | PV_MPAM2_EL2_EnMPAMSM;
	w->mpam2_el2 = PV_MPAM2_EL2_TRAPMPAM0EL1 | PV_MPAM2_EL2_TRAPMPAM1EL1;
	if (hw->mpamidr & PV_MPAMIDR_HAS_HCR) {
		w->mpamhcr_el2_owned = PV_MPAMHCR_EL2_TRAP_MPAMIDR | PV_MPAMHCR_EL2_EL1_VPMEN |
				       PV_MPAMHCR_EL2_EL0_VPMEN | PV_MPAMHCR_EL2_GSTAPP_PLK;
		w->mpamhcr_el2 = PV_MPAMHCR_EL2_TRAP_MPAMIDR;
	} else if (hw->mpamidr & PV_MPAMIDR_HAS_TIDR) {
		w->mpam2_el2 |= PV_MPAM2_EL2_TIDR;
	}
}

/* The sampling controls' fine-grained traps (D24.2.67, D24.2.69). */
#define FGT_PMS_READ                                                                           \
	(PV_HDFGRTR_EL2_PMSCR_EL1 | PV_HDFGRTR_EL2_PMSEVFR_EL1 | PV_HDFGRTR_EL2_PMSFCR_EL1 |   \
	 PV_HDFGRTR_EL2_PMSICR_EL1 | PV_HDFGRTR_EL2_PMSIDR_EL1 | PV_HDFGRTR_EL2_PMSIRR_EL1 |   \
	 PV_HDFGRTR_EL2_PMSLATFR_EL1)
#define FGT_PMS_WRITE                                                                          \
	(PV_HDFGWTR_EL2_PMSCR_EL1 | PV_HDFGWTR_EL2_PMSEVFR_EL1 | PV_HDFGWTR_EL2_PMSFCR_EL1 |   \
	 PV_HDFGWTR_EL2_PMSICR_EL1 | PV_HDFGWTR_EL2_PMSIRR_EL1 | PV_HDFGWTR_EL2_PMSLATFR_EL1)

/* SPE: PMSCR_EL2 all zero while any guest runs (D24.7.9): no EL2 or host-EL0 sampling, no
 * CONTEXTIDR_EL2 (CX), no physical address (PA), virtual timestamps only (PCT = 0b00 makes
 * CollectTimeStamp() virtual whatever PMSCR_EL1.PCT says). With direct sampling controls
 * that is all that bounds what the guest writes to PMSCR_EL1 itself. PMBIDR_EL1 is trapped
 * only by FEAT_FGT: its reads trap so a VM with SPE sees its MaxBuffSize and one without
 * UNDEFs. */
static void spe_words(const struct pv_vm *vm, struct pv_trap_words *w)
{
	const struct pv_hw *hw = vm->hw;
	unsigned fgt = vm->spe.fgt;
	if (!hw->spe)
		return;
	w->pmscr_el2_owned = PV_PMSCR_EL2_OWNED;
	w->pmscr_el2 = 0;
	if (!hw->fgt)
		return;
	w->hdfgrtr_el2_owned |= PV_HDFGRTR_EL2_PMBIDR_EL1;
	w->hdfgrtr_el2 |= PV_HDFGRTR_EL2_PMBIDR_EL1;
	if (!vm->spe.direct)
		return; /* TPMS traps them all */
	/* Direct sampling controls: what the VM's view does not share with the hardware traps
	 * by its own bit (vspe/config.c); PMSNEVFR_EL1's bit traps while it is 0. */
	w->hdfgrtr_el2_owned |= FGT_PMS_READ;
	w->hdfgwtr_el2_owned |= FGT_PMS_WRITE;
	if (fgt & PV_VSPE_FGT_PMSIDR)
		w->hdfgrtr_el2 |= PV_HDFGRTR_EL2_PMSIDR_EL1;
	if (fgt & PV_VSPE_FGT_PMSFCR) {
		w->hdfgrtr_el2 |= PV_HDFGRTR_EL2_PMSFCR_EL1;
		w->hdfgwtr_el2 |= PV_HDFGWTR_EL2_PMSFCR_EL1;
	}
	if (fgt & PV_VSPE_FGT_PMSEVFR) {
		w->hdfgrtr_el2 |= PV_HDFGRTR_EL2_PMSEVFR_EL1;
		w->hdfgwtr_el2 |= PV_HDFGWTR_EL2_PMSEVFR_EL1;
	}
	if (hw->spehw.pmsidr & PV_PMSIDR_FNE) {
		w->hdfgrtr_el2_owned |= PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
		w->hdfgwtr_el2_owned |= PV_HDFGWTR_EL2_nPMSNEVFR_EL1;
		if (!(fgt & PV_VSPE_FGT_PMSNEVFR)) {
			w->hdfgrtr_el2 |= PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
			w->hdfgwtr_el2 |= PV_HDFGWTR_EL2_nPMSNEVFR_EL1;
		}
	}
}

/* The PMU's fine-grained trap bits (HDFGRTR_EL2, HDFGWTR_EL2: Arm ARM D24.2.67, D24.2.69). */
#define FGT_PMU_READ                                                                           \
	(PV_HDFGRTR_EL2_PMEVCNTRn_EL0 | PV_HDFGRTR_EL2_PMEVTYPERn_EL0 |                        \
	 PV_HDFGRTR_EL2_PMCCFILTR_EL0 | PV_HDFGRTR_EL2_PMCCNTR_EL0 | PV_HDFGRTR_EL2_PMCNTEN |  \
	 PV_HDFGRTR_EL2_PMINTEN | PV_HDFGRTR_EL2_PMOVS | PV_HDFGRTR_EL2_PMSELR_EL0 |           \
	 PV_HDFGRTR_EL2_PMMIR_EL1 | PV_HDFGRTR_EL2_PMUSERENR_EL0 | PV_HDFGRTR_EL2_PMCEIDn_EL0)
#define FGT_PMU_WRITE                                                                          \
	(PV_HDFGWTR_EL2_PMEVCNTRn_EL0 | PV_HDFGWTR_EL2_PMEVTYPERn_EL0 |                        \
	 PV_HDFGWTR_EL2_PMCCFILTR_EL0 | PV_HDFGWTR_EL2_PMCCNTR_EL0 | PV_HDFGWTR_EL2_PMCNTEN |  \
	 PV_HDFGWTR_EL2_PMINTEN | PV_HDFGWTR_EL2_PMOVS | PV_HDFGWTR_EL2_PMSELR_EL0 |           \
	 PV_HDFGWTR_EL2_PMSWINC_EL0 | PV_HDFGWTR_EL2_PMCR_EL0 | PV_HDFGWTR_EL2_PMUSERENR_EL0)

/* FEAT_FGT and a VM with direct access (vpmu.md): what the event filter needs traps, by its
 * fine-grained bit; the rest of the PMU is the hardware's (PV_FGT_DIRECT_*, trap.h). */
static void fgt_words(const struct pv_vm *vm, struct pv_trap_words *w)
{
	if (vm->pmu.passthrough && vm->hw->fgt) { /* nothing of the PMU traps */
		w->hdfgrtr_el2_owned |= FGT_PMU_READ;
		w->hdfgwtr_el2_owned |= FGT_PMU_WRITE;
		return;
	}
	if (!vm->pmu.direct)
		return;
	w->hdfgrtr_el2_owned |= FGT_PMU_READ;
	w->hdfgrtr_el2 |= PV_FGT_DIRECT_READ;
	w->hdfgwtr_el2_owned |= FGT_PMU_WRITE;
	w->hdfgwtr_el2 |= PV_FGT_DIRECT_WRITE;
}

void pv_trap_words_init(struct pv_vm *vm)
{
	struct pv_trap_words *w = &vm->traps;
	bool voff;
	*w = (struct pv_trap_words){0};
	mdcr_words(vm, w);

	/* AMU: every register traps (CPTR_EL2.TAM, bit 30 in both E2H modes), unless the VM
	 * takes the virtual-offset path: then counters are read directly with the offsets
	 * applied (HCR_EL2.AMVOFFEN) and only the reads in vm->amu.hafgrtr trap. */
	voff = vm->amu.version && vm->amu.path == PV_AMU_PATH_VOFF;
	if (vm->hw->amu) {
		w->cptr_el2_owned = PV_CPTR_EL2_TAM;
		w->cptr_el2 = voff ? 0 : PV_CPTR_EL2_TAM;
		if (vm->hw->fgt) {
			w->hafgrtr_el2_owned = PV_HAFGRTR_MASK;
			w->hafgrtr_el2 = voff ? vm->amu.hafgrtr : 0;
		}
	}

	/* ID registers are served per VM (TID3). */
	w->hcr_el2_owned = PV_HCR_EL2_TID3 | (vm->hw->amuv1p1 ? PV_HCR_EL2_AMVOFFEN : 0);
	w->hcr_el2 = PV_HCR_EL2_TID3 | (voff ? PV_HCR_EL2_AMVOFFEN : 0);

	mpam_words(vm, w);
	spe_words(vm, w);
	fgt_words(vm, w);
}
