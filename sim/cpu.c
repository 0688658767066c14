/* SPDX-License-Identifier: MIT */
/*
 * pCPU model: the EL2 control registers, the ID group, the routing of guest System register
 * accesses, work execution, and the physical PMU interrupt taken at EL2.
 */
#include <string.h>

#include "sim.h"

static bool is_id_group(uint32_t key)
{
	return PV_SYSREG_OP0(key) == 3 && PV_SYSREG_OP1(key) == 0 && PV_SYSREG_CRN(key) == 0 &&
	       PV_SYSREG_CRM(key) >= 1 && PV_SYSREG_CRM(key) <= 7;
}

/* AMU registers, Arm ARM D24.6 accessibility pseudocode: UNDEFINED (no such register, or an
 * MSR below the highest EL), then AMUSERENR_EL0.EN at EL0 (to EL1, HCR_EL2.TGE = 0), then
 * CPTR_EL2.TAM, then the HAFGRTR_EL2 read traps. CPTR_EL3.TAM is 0 (firmware delegates). */
static enum sim_route amu_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el)
{
	if (!sim_amu_has(&c->amu, key, is_read, el, false))
		return SIM_ROUTE_UNDEF;
	if (el == 0 && key != PV_AMUSERENR_EL0 && !(c->amu.userenr & PV_AMUSERENR_EN))
		return SIM_ROUTE_EL1;
	if (c->cptr & PV_CPTR_EL2_TAM)
		return SIM_ROUTE_EL2;
	if (is_read && c->m->cfg.fgt && (c->hafgrtr & sim_amu_fgt_bit(key)))
		return SIM_ROUTE_EL2;
	return SIM_ROUTE_DIRECT;
}

enum sim_route sim_cpu_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el)
{
	if (is_id_group(key)) {
		/* ID group: no MSR encodings; EL0 reads UNDEFINED or, with FEAT_IDST, trapped to
		 * EL1; EL1 reads trapped by HCR_EL2.TID3. */
		if (!is_read)
			return SIM_ROUTE_UNDEF;
		if (el == 0)
			return c->m->cfg.idst ? SIM_ROUTE_EL1 : SIM_ROUTE_UNDEF;
		return (c->hcr & PV_HCR_EL2_TID3) ? SIM_ROUTE_EL2 : SIM_ROUTE_DIRECT;
	}
	if (sim_amu_is_reg(key))
		return amu_route(c, key, is_read, el);
	int mpam = sim_mpam_machine_route(c, key, is_read, el);
	if (mpam >= 0)
		return (enum sim_route)mpam;
	int spe = sim_spe_machine_route(c, key, is_read, el);
	if (spe >= 0)
		return (enum sim_route)spe;
	if (!sim_pmu_is_reg(key))
		return SIM_ROUTE_UNDEF; /* unallocated on this machine, or an EL2 register */
	/* PMU: unimplemented encodings (no PMU, wrong direction, n >= PMCR_EL0.N, PMMIR before
	 * PMUv3p4) are UNDEFINED before any trap. */
	if (!sim_pmu_has(&c->pmu, key, is_read))
		return SIM_ROUTE_UNDEF;
	/* So is PMXEVCNTR/PMXEVTYPER_EL0 with PMSELR_EL0.SEL past N with FEAT_FGT (Arm ARM
	 * D24.5.27, D24.5.28; without it CONSTRAINED UNPREDICTABLE, UNDEFINED at the access). */
	if (c->m->cfg.fgt && sim_pmu_sel_unimplemented(&c->pmu, key))
		return SIM_ROUTE_UNDEF;
	if (el == 0) {
		if (sim_pmu_el1_reg(key) || (key == PV_PMUSERENR_EL0 && !is_read))
			return SIM_ROUTE_UNDEF;
		/* PMUSERENR_EL0 is checked first; a refusal goes to EL1 (HCR_EL2.TGE = 0). */
		if (!sim_pmu_el0_allowed(&c->pmu, key, is_read))
			return SIM_ROUTE_EL1;
	}
	if (sim_pmu_el2_trap(c->mdcr, sim_cpu_fgt(c, false), sim_cpu_fgt(c, true), key,
			     is_read))
		return SIM_ROUTE_EL2;
	/* An event counter in [HPMN, N) from EL1 or EL0: with FEAT_FGT the access traps to EL2,
	 * without it is UNDEFINED at the access (Arm ARM D24.5.10, PMEVCNTR<n>_EL0: n past
	 * GetNumEventCountersAccessible()). */
	if (c->m->cfg.fgt &&
	    sim_pmu_counter_of(&c->pmu, key) >= (int)sim_pmu_hpmn(&c->pmu, c->mdcr))
		return SIM_ROUTE_EL2;
	return SIM_ROUTE_DIRECT;
}

static struct sim_pmu_ctx ctx(const struct sim_cpu *c, unsigned el, bool secure)
{
	return (struct sim_pmu_ctx){.el = el, .secure = secure, .mdcr = c->mdcr};
}

/* MDCR_EL2 fields this PE implements; the others are RES0. */
static uint64_t mdcr_mask(const struct sim_cpu *c)
{
	uint64_t m = PV_MDCR_EL2_HPMN | PV_MDCR_EL2_TPMCR | PV_MDCR_EL2_TPM | PV_MDCR_EL2_HPME |
		     PV_MDCR_EL2_TDE | PV_MDCR_EL2_TDA | PV_MDCR_EL2_TDOSA | PV_MDCR_EL2_TDRA;
	if (c->pmu.cfg.version >= PV_PMUVER_V3P1 && c->pmu.cfg.version != PV_PMUVER_IMPDEF)
		m |= PV_MDCR_EL2_HPMD;
	if (c->pmu.cfg.version >= PV_PMUVER_V3P5 && c->pmu.cfg.version != PV_PMUVER_IMPDEF)
		m |= PV_MDCR_EL2_HCCD | PV_MDCR_EL2_HLP;
	if (c->m->cfg.spe.unit.version)
		m |= PV_MDCR_EL2_E2PB | PV_MDCR_EL2_TPMS;
	return m;
}

static uint64_t *el2_reg(struct sim_cpu *c, uint32_t key)
{
	switch (key) {
	case PV_HDFGRTR_EL2:
		return c->m->cfg.fgt ? &c->hdfgrtr : NULL;
	case PV_HDFGWTR_EL2:
		return c->m->cfg.fgt ? &c->hdfgwtr : NULL;
	case PV_HCR_EL2:
		return &c->hcr;
	case PV_MDCR_EL2:
		return &c->mdcr;
	case PV_CPTR_EL2:
		return &c->cptr;
	case PV_HAFGRTR_EL2:
		return c->m->cfg.fgt ? &c->hafgrtr : NULL;
	default:
		return NULL;
	}
}

static struct sim_amu_ctx amu_ctx(const struct sim_cpu *c, unsigned el)
{
	const struct sim_config *cfg = &c->m->cfg;
	bool e2h_tge = (c->hcr & PV_HCR_EL2_E2H) && (c->hcr & PV_HCR_EL2_TGE);
	bool offsets = cfg->amu.version >= 2 && (c->hcr & PV_HCR_EL2_AMVOFFEN) &&
		       (!cfg->el3 || cfg->amu.el3_amvoffen) && !e2h_tge;
	/* EL2 is the highest EL without EL3. */
	return (struct sim_amu_ctx){
		.el = el, .highest = el == 3 || (el == 2 && !cfg->el3), .offsets = offsets};
}

/* Ground-truth mark for the AMU counter read of the running vCPU's current op: a direct
 * read, or the first physical counter read the library makes in a new trap. A put after a
 * trap may mark the next op too early; that op's own read marks it again, last. */
static void amu_mark(struct sim_cpu *c, unsigned el, uint32_t key)
{
	struct sim_vcpu *v = c->cur;
	if (!v || !v->amu_at || sim_amu_counter_of(key) < 0 || v->pc >= v->prog->n)
		return;
	if (el == 2) {
		if (c->amu_marked == c->stats.traps)
			return;
		c->amu_marked = c->stats.traps;
	}
	v->amu_at[v->pc] = v->amu;
}

enum sim_acc sim_cpu_read(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t *val)
{
	*val = 0;
	uint64_t *r = el2_reg(c, key);
	if (r) {
		if (el < 2)
			return SIM_ACC_UNDEF;
		*val = *r;
		return SIM_ACC_OK;
	}
	if (is_id_group(key)) {
		if (el == 0)
			return SIM_ACC_UNDEF;
		*val = c->id[PV_ID_SLOT(key)];
		return SIM_ACC_OK;
	}
	if (sim_pmu_is_reg(key)) {
		struct sim_pmu_ctx x = ctx(c, el, c->secure);
		return sim_pmu_read(&c->pmu, &x, key, val);
	}
	if (sim_amu_is_reg(key) || sim_amu_is_voff(key)) {
		struct sim_amu_ctx x = amu_ctx(c, el);
		if (el == 2 && sim_amu_is_voff(key) && c->m->cfg.el3 &&
		    !c->m->cfg.amu.el3_amvoffen)
			return SIM_ACC_UNDEF; /* trapped to EL3: firmware did not delegate */
		amu_mark(c, el, key);
		return sim_amu_read(&c->amu, &x, key, val);
	}
	struct sim_mpam_cpu *mpam = sim_mpam_machine_cpu(c);
	enum sim_acc mpam_acc = mpam ? sim_mpam_cpu_read(mpam, el, key, val) : SIM_ACC_UNKNOWN;
	if (mpam_acc != SIM_ACC_UNKNOWN)
		return mpam_acc;
	return sim_spe_machine_read(c, el, key, val);
}

enum sim_acc sim_cpu_write(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t val)
{
	uint64_t *r = el2_reg(c, key);
	if (r) {
		if (el < 2)
			return SIM_ACC_UNDEF;
		*r = key == PV_MDCR_EL2      ? val & mdcr_mask(c)
		     : key == PV_HAFGRTR_EL2 ? val & PV_HAFGRTR_MASK
					     : val;
		return SIM_ACC_OK;
	}
	if (is_id_group(key))
		return SIM_ACC_UNDEF;
	if (sim_pmu_is_reg(key)) {
		struct sim_pmu_ctx x = ctx(c, el, c->secure);
		return sim_pmu_write(&c->pmu, &x, key, val);
	}
	if (sim_amu_is_reg(key) || sim_amu_is_voff(key)) {
		struct sim_amu_ctx x = amu_ctx(c, el);
		if (el == 2 && sim_amu_is_voff(key) && c->m->cfg.el3 &&
		    !c->m->cfg.amu.el3_amvoffen)
			return SIM_ACC_UNDEF;
		return sim_amu_write(&c->amu, &x, key, val);
	}
	struct sim_mpam_cpu *mpam = sim_mpam_machine_cpu(c);
	enum sim_acc mpam_acc = mpam ? sim_mpam_cpu_write(mpam, el, key, val) : SIM_ACC_UNKNOWN;
	if (mpam_acc != SIM_ACC_UNKNOWN)
		return mpam_acc;
	return sim_spe_machine_write(c, el, key, val);
}

/* The pCPU's clock: system counter ticks for `cycles` at the current frequency, exact over
 * time (the remainder is carried). */
static uint64_t advance_time(struct sim_cpu *c, uint64_t cycles)
{
	const struct sim_config *cfg = &c->m->cfg;
	unsigned __int128 t = (unsigned __int128)cycles * cfg->cnt_khz + c->time_rem;
	uint32_t khz = cfg->cpu_khz[c->level];
	uint64_t ticks = (uint64_t)(t / khz);
	c->time_rem = (uint64_t)(t % khz);
	c->time += ticks;
	return ticks;
}

void sim_cpu_exec(struct sim_cpu *c, unsigned el, bool secure, const struct sim_work *w)
{
	struct sim_pmu_ctx x = ctx(c, el, secure);
	sim_pmu_count(&c->pmu, &x, w);
	uint64_t cycles = w->ev[SIM_EV_CPU_CYCLES];
	uint64_t t0 = c->time;
	uint64_t ticks = advance_time(c, cycles);
	sim_amu_count(&c->amu, w, ticks);
	sim_mpam_machine_exec(c, el, secure, t0); /* the running vCPU's memory traffic */
	sim_spe_machine_exec(c, el, secure, w, t0, ticks); /* the profiler samples it */
	/* Truth: everything the PE does while a vCPU is loaded is that vCPU's activity. */
	struct sim_vcpu *v = c->cur;
	if (v) {
		v->amu.cycles_at[c->level] += cycles;
		for (unsigned k = 0; k < SIM_AMU_COUNTERS; k++)
			if (sim_amu_enabled(&c->amu, k))
				v->amu.cnt[k] += sim_amu_event(&c->amu, k, w, ticks);
	}
}

void sim_cpu_el2_work(struct sim_cpu *c, uint64_t insts, bool eret)
{
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_HYP, insts);
	if (eret)
		w.ev[SIM_EV_EXC_RETURN]++;
	sim_cpu_exec(c, 2, false, &w);
	for (int i = 0; i < SIM_EV_COUNT; i++)
		c->truth.el2[i] += w.ev[i];
}

void sim_cpu_guest_exception(struct sim_cpu *c, struct sim_vcpu *v)
{
	/* EXC_TAKEN is attributed to the EL the exception is taken from (D13.7.3.1). */
	struct sim_work w = {0};
	w.ev[SIM_EV_EXC_TAKEN] = 1;
	sim_cpu_exec(c, v->el, false, &w);
	sim_truth_work(&v->truth, v->el, &w);
	v->truth.exceptions++;
}

/* The host's own overflow handling: acknowledge its counters [N - k, N). */
static void host_ack(struct sim_cpu *c)
{
	unsigned n = c->pmu.cfg.counters, k = c->m->cfg.host_counters;
	uint32_t mine = 0;
	for (unsigned i = n - k; i < n; i++)
		mine |= 1u << i;
	uint64_t ovs = 0;
	sim_cpu_read(c, 2, PV_PMOVSSET_EL0, &ovs);
	uint32_t ack = (uint32_t)ovs & mine;
	if (ack) {
		c->stats.host_overflows += (uint64_t)__builtin_popcount(ack);
		sim_cpu_write(c, 2, PV_PMOVSCLR_EL0, ack);
	}
}

static void take_irq(struct sim_cpu *c, uint32_t intid)
{
	struct sim_vcpu *v = c->cur;
	unsigned saved = c->el;
	if (v && saved < 2)
		sim_cpu_guest_exception(c, v);
	c->el = 2;
	c->stats.irqs++;
	unsigned insts = c->m->cfg.irq_insts;
	sim_cpu_el2_work(c, insts / 2, false);
	enum pv_irq_result r = pv_irq(&c->pv, intid);
	if (r == PV_IRQ_HOST_PENDING) {
		c->stats.irq_host++;
		host_ack(c);
	} else if (r == PV_IRQ_NOT_MINE) {
		c->stats.irq_not_mine++;
	} else if (r == PV_IRQ_GUEST_MAPPED) {
		/* The host presents it mapped and leaves it active (perfvisor.h, pv_irq). */
		struct sim_vcpu *g = c->pv.loaded ? c->pv.loaded->plat : NULL;
		c->stats.irq_mapped++;
		c->pmu_ppi_active = true;
		if (g) {
			if (!g->line[PV_INTID_PMU])
				g->rises[PV_INTID_PMU]++;
			g->line[PV_INTID_PMU] = true;
			g->pmu_mapped = true;
		}
	}
	sim_cpu_el2_work(c, insts - insts / 2, true);
	c->el = saved;
}

static bool irq_level(struct sim_cpu *c, uint32_t intid)
{
	if (intid == PV_INTID_PMU && c->pmu_ppi_active)
		return false; /* active: not signalled again until deactivated */
	return intid == PV_INTID_SPE ? sim_spe_machine_irq(c) : sim_pmu_irq(&c->pmu, c->mdcr);
}

void sim_cpu_check_irq(struct sim_cpu *c)
{
	/* Level-sensitive PPIs (PMU overflow, SPE buffer): taken again while asserted; a handler
	 * that never lowers one would storm, so give up after a few rounds and count it. */
	static const uint32_t ppi[] = {PV_INTID_PMU, PV_INTID_SPE};
	for (unsigned p = 0; p < 2; p++) {
		int i = 0;
		for (; i < 4 && irq_level(c, ppi[p]); i++)
			take_irq(c, ppi[p]);
		if (i == 4 && irq_level(c, ppi[p]))
			c->stats.irq_storms++;
	}
}

/* The one way a guest's access reaches perfvisor: EL2 entered, the trap handed to pv_trap
 * with `regs` as the guest's x0..x30 (x[31] past them), EL2 left, the EL2 instructions of
 * the exit (trap_insts) charged half on the way in and half on the way out. The caller has
 * taken the guest's exception (sim_cpu_guest_exception). */
enum pv_trap_result sim_cpu_trap(struct sim_cpu *c, struct sim_vcpu *v, uint64_t esr,
				 unsigned el, uint64_t *regs)
{
	unsigned insts = c->m->cfg.trap_insts, saved = c->el;
	c->el = 2;
	sim_cpu_el2_work(c, insts / 2, false);
	c->stats.traps++;
	enum pv_trap_result r = pv_trap(&v->pv, esr, el, regs);
	sim_cpu_el2_work(c, insts - insts / 2, true);
	c->el = saved;
	return r;
}
