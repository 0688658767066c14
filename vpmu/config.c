/* SPDX-License-Identifier: MIT */
/*
 * Per-VM configuration: validation and every value the register handlers need, derived once
 * so that the trap paths never recompute them. Per-vCPU reset state.
 */
#include "internal.h"

/* PMUVer, PMCR_EL0.N, the event sets and PMMIR_EL1; the host's counters (hw->host_counters,
 * as asked) are the top ones, [HPMN, N), which needs FEAT_HPMN0 when they are all of them. */
int pv_vpmu_probe(struct pv_hw *hw, struct pv_pcpu *cpu)
{
	unsigned host_counters = hw->host_counters;
	unsigned pmuver = PV_ID_FIELD(hw->id[PV_ID_SLOT(PV_ID_AA64DFR0_EL1)],
				      PV_ID_AA64DFR0_PMUVER);
	if (pmuver == PV_PMUVER_NI || pmuver == PV_PMUVER_IMPDEF) {
		hw->pmu_version = PV_PMUVER_NI;
		hw->host_counters = 0;
		return host_counters ? PV_ERR_HOST_COUNTERS : PV_OK;
	}
	hw->pmu_version = (uint8_t)pmuver;
	hw->pmcr = pv_plat_sysreg_read(cpu, PV_PMCR_EL0);
	hw->pmu_counters = (uint8_t)PV_FIELD_GET(PV_PMCR_N, hw->pmcr);
	hw->pmceid0 = pv_plat_sysreg_read(cpu, PV_PMCEID0_EL0);
	hw->pmceid1 = pv_plat_sysreg_read(cpu, PV_PMCEID1_EL0);
	if (pmuver >= PV_PMUVER_V3P4)
		hw->pmmir = pv_plat_sysreg_read(cpu, PV_PMMIR_EL1);
	if (host_counters > hw->pmu_counters)
		return PV_ERR_HOST_COUNTERS;
	if (host_counters == hw->pmu_counters && host_counters &&
	    PV_ID_FIELD(hw->id[PV_ID_SLOT(PV_ID_AA64DFR0_EL1)], PV_ID_AA64DFR0_HPMN0) == 0)
		return PV_ERR_HPMN0;
	hw->hpmn = (uint8_t)(hw->pmu_counters - host_counters);
	return PV_OK;
}

/* A VM and a vCPU hold nothing of the vPMU's beyond their own memory. */
void pv_vpmu_vm_release(struct pv_vm *vm)
{
	(void)vm;
}

void pv_vpmu_vcpu_release(struct pv_vcpu *v)
{
	(void)v;
}

static bool version_offered(unsigned v)
{
	return v == PV_PMUVER_V3 || v == PV_PMUVER_V3P1 || v == PV_PMUVER_V3P4 ||
	       v == PV_PMUVER_V3P5;
}

/* What the PE has beyond the VM's PMU version that decides whether a PMU register's field
 * is there (the database's conditions, PV_COND_*): AArch32 at some EL (PMCR_EL0.D, LC),
 * EL3 (the NSK, NSU, M filters, PMCR_EL0.DP below PMUv3p1), Secure EL2 with EL3 (SH), RME
 * (RLK, RLU, RLH), and the VM's SPE at SPEv1p2 (PMCR_EL0.FZS). */
static unsigned conds_of(const struct pv_hw *hw, const struct pv_vm_config *cfg)
{
	bool spe_v1p2 = (cfg->features & PV_FEAT_SPE) && cfg->spe.version >= PV_SPE_V1P2;
	return (hw->aarch32 ? PV_COND_AA32 : 0) | (hw->el3 ? PV_COND_EL3 : 0) |
	       (hw->el3 && hw->sel2 ? PV_COND_SEL2 : 0) | (hw->rme ? PV_COND_RME : 0) |
	       (spe_v1p2 ? PV_COND_SPEV1P2 : 0);
}

static int check_config(const struct pv_hw *hw, const struct pv_pmu_config *c)
{
	uint32_t space;
	if (hw->pmu_version == PV_PMUVER_NI || hw->pmu_version == PV_PMUVER_IMPDEF)
		return PV_ERR_NO_PMU;
	if (!version_offered(c->version) || c->version > hw->pmu_version)
		return PV_ERR_PMU_VERSION;
	if (c->nr_counters > hw->hpmn)
		return PV_ERR_PMU_COUNTERS;
	if (c->nr_filters > PV_PMU_MAX_FILTERS)
		return PV_ERR_FILTER_COUNT;
	/* Event space: 10-bit event numbers for PMUv3, 16-bit from PMUv3p1. */
	space = c->version >= PV_PMUVER_V3P1 ? 65536u : 1024u;
	for (unsigned i = 0; i < c->nr_filters; i++) {
		const struct pv_pmu_filter *f = &c->filters[i];
		if (f->nevents == 0 || (uint32_t)f->base_event + f->nevents > space)
			return PV_ERR_FILTER_RANGE;
		if (f->action != PV_PMU_FILTER_ALLOW && f->action != PV_PMU_FILTER_DENY)
			return PV_ERR_FILTER_ACTION;
	}
	return PV_OK;
}

/* PMCEID0/1_EL0 bit b describes event lo + b (b < 32) or hi + b - 32 (b >= 32). */
static uint64_t ceid_view(const struct pv_vm_pmu *p, uint64_t ceid, uint32_t lo, uint32_t hi)
{
	uint64_t out = 0;
	for (unsigned b = 0; b < 64; b++) {
		uint32_t event = b < 32 ? lo + b : hi + (b - 32);
		if (((ceid >> b) & 1) && vpmu_event_allowed(p, event))
			out |= PV_BIT(b);
	}
	return out;
}

static void clear_vm_pmu(struct pv_vm_pmu *p)
{
	p->counter_mask = 0;
	p->evtyper_mask = p->ccfiltr_mask = 0;
	p->pmcr_stored = p->pmcr_fixed = p->pmcr_res1 = 0;
	p->pmceid0 = p->pmceid1 = p->pmmir = 0;
	p->cycles_allowed = 0;
	p->version = p->nr_counters = p->conds = 0;
	p->el3 = false;
	p->direct = false;
	p->passthrough = false;
	p->event_mask = p->host_mask = 0;
	p->evcntr_mask = 0;
	p->hw_nothing = PV_PMEVTYPER_P | PV_PMEVTYPER_U;
}

int pv_vpmu_vm_init(struct pv_vm *vm)
{
	struct pv_vm_pmu *p = &vm->pmu;
	const struct pv_hw *hw = vm->hw;
	const struct pv_pmu_config *c = &vm->cfg.pmu;
	int err;
	unsigned n;
	unsigned ver;
	unsigned h;
	uint64_t ceid0;
	uint64_t ceid1;

	clear_vm_pmu(p);
	/* Known for every VM: the PMU interrupt handler needs it whatever vCPU is loaded. */
	if (hw->pmu_version != PV_PMUVER_NI && hw->pmu_counters > hw->hpmn)
		p->host_mask = (uint32_t)PV_GENMASK(hw->pmu_counters - 1, hw->hpmn);
	if (!(vm->cfg.features & PV_FEAT_PMU))
		return PV_OK; /* no PMU: the trap table UNDEFs every PMU register */
	err = check_config(hw, c);
	if (err)
		return err;

	n = c->nr_counters;
	ver = c->version;
	/* The registers' bits are the database's (arch/sysregs.txt: PV_BITS_*, by version and
	 * by what the PE has); what follows takes from those masks what the handlers keep. */
	h = conds_of(hw, &vm->cfg);
	p->version = (uint8_t)ver;
	p->nr_counters = (uint8_t)n;
	p->conds = (uint8_t)h;
	/* The bitmaps' P<m> for the VM's counters m < N, and C. */
	p->counter_mask = (uint32_t)(PV_BITS_PMCNTENSET_EL0_W1S(ver, h) &
				     (((UINT64_C(1) << n) - 1) | PV_PMCNTENSET_C));
	p->el3 = hw->el3;
	p->event_mask = (uint32_t)(PV_BITS_PMEVTYPER_EL0_RW(ver, h) & PV_PMEVTYPER_EVT_V3P1);
	p->evcntr_mask = PV_BITS_PMEVCNTR_EL0_RW(ver, h);
	/* Direct access: every PMU register of the VM but the event types, PMCEID0/1 and PMMIR
	 * is the hardware's while it runs (vpmu.md), so the hardware's PMU must be the version
	 * the VM was given (PMCR_EL0's fields, the counters' width, PMUSERENR_EL0; none of the
	 * later registers, PMICNTR or PMZR, that TPM clear would leave untrapped), and its HPMN
	 * is set to N (so N >= 1: FEAT_HPMN0 is not used). */
	p->direct = c->direct && hw->fgt && hw->fgt_words && n >= 1 &&
		    c->version == hw->pmu_version;
	/* Passthrough: the hardware's PMU is the VM's as it is, so what the guest sees of it
	 * must be what the VM was given (PMUVer, N = HPMN, every event; the hardware keeps the
	 * host's counters [HPMN, N) out of its reach), and the hardware itself must keep EL2
	 * out of every count whatever the guest's filters say: HPMD (PMUv3p1) for the event
	 * counters, HCCD (PMUv3p5) for the cycle counter (MDCR_EL2, Arm ARM D24.3.17). Since
	 * the VM's version is one offered (at most PMUv3p5), the hardware's is exactly
	 * PMUv3p5: none of the later PMU registers (PMICNTR, PMZR, the snapshots, PMUACR)
	 * exists, which the ID view would hide and a switch would not carry. */
	p->passthrough = c->passthrough && hw->pmu_version >= PV_PMUVER_V3P5 &&
			 c->version == hw->pmu_version && n == hw->hpmn && c->nr_filters == 0 &&
			 n >= 1;
	if (p->passthrough)
		p->direct = false;

	/* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0: a filter bit is there when the state it filters
	 * exists on the PE (EL2 always; EL3, Secure EL2, Realm as the hardware). */
	p->ccfiltr_mask = PV_BITS_PMCCFILTR_EL0_RW(ver, h);
	p->evtyper_mask = PV_BITS_PMEVTYPER_EL0_RW(ver, h);

	/* PMCR_EL0: what a write stores (LC is RES1 and D RES0 without AArch32, LP from
	 * PMUv3p5, DP from PMUv3p1 or with EL3, FZS with the VM's SPEv1p2; X is RAZ/WI: no
	 * export bus); P and C are actions, not state; IMP and IDCODE are the hardware's, N the
	 * VM's counters. */
	p->pmcr_res1 = PV_BITS_PMCR_EL0_RES1(ver, h);
	p->pmcr_stored = PV_BITS_PMCR_EL0_RW(ver, h);
	p->pmcr_fixed = (hw->pmcr & (PV_PMCR_IMP | PV_PMCR_IDCODE)) |
			PV_FIELD_PREP(PV_PMCR_N, n) | p->pmcr_res1;

	pv_vpmu__filter_build(p, c);
	pv_vpmu__filter_lut(p);
	p->cycles_allowed = vpmu_event_in_hw(p, PV_EVT_CPU_CYCLES);

	/* PMCEID: what the hardware implements plus the emulated SW_INCR and CHAIN, less what
	 * the filter denies (Arm ARM D24.5.4). The upper halves (events 0x4000+) exist from
	 * PMUv3p1. */
	ceid0 = hw->pmceid0;
	if (!p->direct) /* direct: the hardware's own SW_INCR and CHAIN, as it has them */
		ceid0 |= PV_BIT(PV_EVT_SW_INCR) | PV_BIT(PV_EVT_CHAIN);
	ceid1 = hw->pmceid1;
	if (c->version < PV_PMUVER_V3P1) {
		ceid0 &= 0xFFFFFFFFu;
		ceid1 &= 0xFFFFFFFFu;
	}
	p->pmceid0 = ceid_view(p, ceid0, 0x0000, 0x4000);
	p->pmceid1 = ceid_view(p, ceid1, 0x0020, 0x4020);
	if (c->version >= PV_PMUVER_V3P4)
		p->pmmir = hw->pmmir &
			   (PV_PMMIR_SLOTS | PV_PMMIR_BUS_SLOTS | PV_PMMIR_BUS_WIDTH);
	return PV_OK;
}

void pv_vpmu_vcpu_init(struct pv_vcpu *v)
{
	struct pv_vpmu *s = &v->pmu;
	const struct pv_vm_pmu *p = &v->vm->pmu;

	/* Reset: counters, types, enables, PMUSERENR, PMSELR 0; PMCR.E = 0, LC per RES1. */
	s->pmcr = p->pmcr_res1;
	for (unsigned n = 0; n < PV_PMU_MAX_COUNTERS; n++) {
		s->evcntr[n] = 0;
		s->evtyper[n] = 0;
		/* Event 0 is SW_INCR: counted in software, or by the hardware for a direct VM. */
		s->hwtype[n] = p->direct ? vpmu_hw_evtyper(p, 0) : p->hw_nothing;
	}
	s->ccntr = 0;
	s->ccfiltr = 0;
	s->hwtype[PV_PMU_CYCLE_IDX] = vpmu_hw_ccfiltr(p, 0);
	s->cnten = s->inten = s->ovs = 0;
	s->emulated = p->counter_mask & ~(1u << PV_PMU_CYCLE_IDX);
	s->chain = 0;
	s->slow = ~0u; /* inactive: every access activates first */
	s->selr = 0;
	s->userenr = 0;
	/* Direct: the guest reaches its registers before any trap says so, so its state is in
	 * the hardware from its first load (and never another vCPU's). */
	s->active = p->direct || p->passthrough;
	s->irq_level = false;
	s->el0_open = 0;
	v->fast = (struct pv_vpmu_fast){
		.evcntr_mask = p->evcntr_mask, .xev_el0 = 31, .xev_el1 = 31};
}
