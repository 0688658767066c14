/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor's scheduler: round-robin time slices of pseudo-random length (in guest
 * cycles, so switch points fall inside work chunks) on each pCPU, vCPU switches through
 * pv_vcpu_put / pv_vcpu_load, and migration between pCPUs. Deterministic for a seed.
 */
#include "sim.h"

uint64_t sim_rand(struct sim_machine *m)
{
	/* splitmix64 */
	uint64_t z = (m->rng += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static struct sim_vcpu *pick(struct sim_cpu *c)
{
	struct sim_machine *m = c->m;
	for (unsigned k = 1; k <= m->nvcpus; k++) {
		unsigned i = (c->rr + k) % m->nvcpus;
		struct sim_vcpu *v = &m->vcpu[i];
		if (v->cpu == c && !v->done) {
			c->rr = i;
			return v;
		}
	}
	return NULL;
}

static void hyp_words(struct sim_cpu *c)
{
	c->mdcr = c->hyp_mdcr;
	c->hcr = c->hyp_hcr;
	c->cptr = c->hyp_cptr;
	c->hafgrtr = c->hyp_hafgrtr;
	c->hdfgrtr = c->hyp_hdfgrtr;
	c->hdfgwtr = c->hyp_hdfgwtr;
	sim_mpam_machine_words(c, NULL);
}

/* The vCPU already took its exception to EL2: put it and go back to the hypervisor's own
 * trap configuration. */
static void leave(struct sim_cpu *c)
{
	struct sim_vcpu *v = c->cur;
	c->el = 2;
	sim_cpu_el2_work(c, c->m->cfg.switch_insts / 2, false);
	pv_vcpu_put(&v->pv);
	c->pmu_ppi_active = false; /* a mapped PMU interrupt's active state goes with it */
	hyp_words(c);
	c->cur = NULL;
}

/* The vCPU's trap words (perfvisor.h: hyp & ~owned | words). */
static void guest_words(struct sim_cpu *c, const struct sim_vcpu *v)
{
	const struct pv_trap_words *t = &v->pv.traps;
	c->mdcr = (c->hyp_mdcr & ~t->mdcr_el2_owned) | t->mdcr_el2;
	c->hcr = (c->hyp_hcr & ~t->hcr_el2_owned) | t->hcr_el2;
	c->cptr = (c->hyp_cptr & ~t->cptr_el2_owned) | t->cptr_el2;
	c->hafgrtr = (c->hyp_hafgrtr & ~t->hafgrtr_el2_owned) | t->hafgrtr_el2;
	c->hdfgrtr = (c->hyp_hdfgrtr & ~t->hdfgrtr_el2_owned) | t->hdfgrtr_el2;
	c->hdfgwtr = (c->hyp_hdfgwtr & ~t->hdfgwtr_el2_owned) | t->hdfgwtr_el2;
	sim_mpam_machine_words(c, t); /* MPAM2_EL2, MPAMHCR_EL2 */
}

/* Writes the vCPU's trap words and loads it. */
static void enter(struct sim_cpu *c, struct sim_vcpu *v)
{
	guest_words(c, v);
	pv_vcpu_load(&v->pv, &c->pv);
	c->pmu_ppi_active = v->pmu_mapped;
	c->cur = v;
	c->stats.switches++;
}

/* The frequency governor, run at each scheduler tick: every dvfs_ticks of the pCPU's time
 * it moves to a pseudo-random level. */
static void dvfs(struct sim_cpu *c)
{
	struct sim_machine *m = c->m;
	if (m->cfg.nfreqs < 2 || c->time < c->next_dvfs)
		return;
	c->level = (unsigned)(sim_rand(m) % m->cfg.nfreqs);
	c->next_dvfs = c->time + m->cfg.dvfs_ticks;
	c->stats.dvfs++;
}

static bool slice(struct sim_cpu *c)
{
	struct sim_machine *m = c->m;
	struct sim_vcpu *next = pick(c);
	if (!next) {
		sim_guest_check_irq(c); /* idle at EL2 with interrupts unmasked */
		return false;
	}
	dvfs(c);
	unsigned sw = m->cfg.switch_insts;
	if (c->cur) {
		/* Timer tick: the running vCPU takes an IRQ to EL2. */
		sim_cpu_guest_exception(c, c->cur);
		c->stats.ticks++;
		if (c->cur != next)
			leave(c);
		else
			c->el = 2;
	}
	sim_cpu_el2_work(c, sw / 2, false);
	if (!c->cur)
		enter(c, next);
	sim_cpu_el2_work(c, sw - sw / 2, true); /* ERET to the guest */
	c->el = next->el;
	sim_guest_check_irq(c);

	/* 0 when the slices span the whole of uint64_t (max - min + 1 wraps). */
	uint64_t span = m->cfg.slice_max - m->cfg.slice_min + 1;
	/* cppcheck-suppress knownConditionTrueFalse */
	uint64_t budget = m->cfg.slice_min + (span ? sim_rand(m) % span : 0);
	if (sim_guest_run(next, budget)) {
		leave(c); /* finished or migrating: it already trapped to EL2 */
		sim_cpu_el2_work(c, sw - sw / 2, false);
	}
	return true;
}

bool sim_step(struct sim_machine *m)
{
	bool any = false;
	for (unsigned i = 0; i < m->cfg.cpus; i++)
		if (slice(&m->cpu[i]))
			any = true;
	sim_mpam_machine_step(m, any); /* the memory system catches up */
	return any;
}

void sim_run(struct sim_machine *m)
{
	while (sim_step(m))
		;
}

void sim_power_cycle(struct sim_machine *m, unsigned cpu)
{
	if (cpu >= m->cfg.cpus)
		return;
	struct sim_cpu *c = &m->cpu[cpu];
	struct sim_vcpu *v = c->cur;
	if (v)
		sim_cpu_guest_exception(c,
					v); /* the vCPU's PSCI call, or the host's decision */
	c->el = 2;
	pv_pcpu_suspend(&c->pv);
	/* Power is off: nothing runs, nothing counts. EL2's own registers are lost; the
	 * hypervisor restores its trap configuration on the way up. */
	sim_amu_power_down(&c->amu);
	c->hcr = c->mdcr = c->cptr = c->hafgrtr = c->hdfgrtr = c->hdfgwtr = UINT64_C(0);
	sim_amu_power_up(&c->amu);
	hyp_words(c);
	if (v)
		guest_words(c, v);
	pv_pcpu_resume(&c->pv);
	c->stats.power_cycles++;
	if (v)
		c->el = v->el;
}

void sim_migrate(struct sim_machine *m, unsigned vcpu, unsigned cpu)
{
	if (vcpu >= m->nvcpus || cpu >= m->cfg.cpus)
		return;
	struct sim_vcpu *v = &m->vcpu[vcpu];
	struct sim_cpu *c = v->cpu;
	if (c->cur == v) {
		sim_cpu_guest_exception(c, v);
		leave(c);
	}
	v->cpu = &m->cpu[cpu];
}
