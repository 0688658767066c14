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
	if (!sim_pmu_is_reg(key))
		return SIM_ROUTE_UNDEF; /* unallocated on this machine, or an EL2 register */
	/* PMU: unimplemented encodings (no PMU, wrong direction, n >= PMCR_EL0.N, PMMIR before
	 * PMUv3p4) are UNDEFINED before any trap. */
	if (!sim_pmu_has(&c->pmu, key, is_read))
		return SIM_ROUTE_UNDEF;
	if (el == 0) {
		if (sim_pmu_el1_reg(key) || (key == PV_PMUSERENR_EL0 && !is_read))
			return SIM_ROUTE_UNDEF;
		/* PMUSERENR_EL0 is checked first; a refusal goes to EL1 (HCR_EL2.TGE = 0). */
		if (!sim_pmu_el0_allowed(&c->pmu, key, is_read))
			return SIM_ROUTE_EL1;
	}
	if ((c->mdcr & PV_MDCR_EL2_TPM) || (key == PV_PMCR_EL0 && (c->mdcr & PV_MDCR_EL2_TPMCR)))
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
	uint64_t m = PV_MDCR_EL2_HPMN_MASK | PV_MDCR_EL2_TPMCR | PV_MDCR_EL2_TPM |
		     PV_MDCR_EL2_HPME | PV_MDCR_EL2_TDE | PV_MDCR_EL2_TDA | PV_MDCR_EL2_TDOSA |
		     PV_MDCR_EL2_TDRA;
	if (c->pmu.cfg.version >= PV_PMUVER_V3P1 && c->pmu.cfg.version != PV_PMUVER_IMPDEF)
		m |= PV_MDCR_EL2_HPMD;
	if (c->pmu.cfg.version >= PV_PMUVER_V3P5 && c->pmu.cfg.version != PV_PMUVER_IMPDEF)
		m |= PV_MDCR_EL2_HCCD | PV_MDCR_EL2_HLP;
	return m;
}

static uint64_t *el2_reg(struct sim_cpu *c, uint32_t key)
{
	switch (key) {
	case PV_HCR_EL2:
		return &c->hcr;
	case PV_MDCR_EL2:
		return &c->mdcr;
	case PV_CPTR_EL2:
		return &c->cptr;
	default:
		return NULL;
	}
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
	return SIM_ACC_UNKNOWN;
}

enum sim_acc sim_cpu_write(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t val)
{
	uint64_t *r = el2_reg(c, key);
	if (r) {
		if (el < 2)
			return SIM_ACC_UNDEF;
		*r = key == PV_MDCR_EL2 ? val & mdcr_mask(c) : val;
		return SIM_ACC_OK;
	}
	if (is_id_group(key))
		return SIM_ACC_UNDEF;
	if (sim_pmu_is_reg(key)) {
		struct sim_pmu_ctx x = ctx(c, el, c->secure);
		return sim_pmu_write(&c->pmu, &x, key, val);
	}
	return SIM_ACC_UNKNOWN;
}

void sim_cpu_exec(struct sim_cpu *c, unsigned el, bool secure, const struct sim_work *w)
{
	struct sim_pmu_ctx x = ctx(c, el, secure);
	sim_pmu_count(&c->pmu, &x, w);
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
	/* EXC_TAKEN is attributed to the EL the exception is taken from (D13.7.2). */
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

static void take_irq(struct sim_cpu *c)
{
	struct sim_vcpu *v = c->cur;
	unsigned saved = c->el;
	if (v && saved < 2)
		sim_cpu_guest_exception(c, v);
	c->el = 2;
	c->stats.irqs++;
	unsigned insts = c->m->cfg.irq_insts;
	sim_cpu_el2_work(c, insts / 2, false);
	enum pv_irq_result r = pv_irq(&c->pv, PV_INTID_PMU);
	if (r == PV_IRQ_HOST_PENDING) {
		c->stats.irq_host++;
		host_ack(c);
	} else if (r == PV_IRQ_NOT_MINE) {
		c->stats.irq_not_mine++;
	}
	sim_cpu_el2_work(c, insts - insts / 2, true);
	c->el = saved;
}

void sim_cpu_check_irq(struct sim_cpu *c)
{
	/* A level-sensitive PPI: taken again while it stays asserted; a handler that never
	 * lowers it would storm, so give up after a few rounds and count it. */
	for (int i = 0; i < 4; i++) {
		if (!sim_pmu_irq(&c->pmu, c->mdcr))
			return;
		take_irq(c);
	}
	if (sim_pmu_irq(&c->pmu, c->mdcr))
		c->stats.irq_storms++;
}
