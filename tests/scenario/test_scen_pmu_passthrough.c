/* SPDX-License-Identifier: MIT */
/*
 * Passthrough (pv_pmu_config.passthrough) on the machine model: a VM that owns the guests'
 * part of the PMU ([0, HPMN) and the cycle counter) makes no PMU trap at all, and still
 * counts exactly what it executed: EL2 never (MDCR_EL2.HPMD and HCCD, whatever NSH it asks
 * for), nothing of another VM on the same pCPU (the whole state is switched at load and put),
 * the host's counters untouched. Its overflow interrupt is presented mapped
 * (PV_IRQ_GUEST_MAPPED): once per overflow, taken again only after the guest deactivates it.
 * Where passthrough cannot hold (an event filter, another N or PMUVer, hardware before
 * PMUv3p5), the VM traps as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scen.h"

#define TOP32 (UINT64_C(1) << 32)
#define COUNTERS 6
#define HOST 1
#define HPMN (COUNTERS - HOST)

static struct sim_machine *machine(uint64_t seed)
{
	struct sim_config c = scen_config(seed, COUNTERS, HOST, 2000, 20000);
	return scen_machine(&c);
}

static struct pv_vm_config passthrough_vm(void)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, HPMN);
	cfg.pmu.passthrough = 1;
	return cfg;
}

/* PMU register accesses of the program that completed and trapped. */
static unsigned pmu_traps(const struct sim_prog *p)
{
	unsigned n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *o = &p->ops[i];
		if ((o->kind == SIM_OP_MSR || o->kind == SIM_OP_MRS) && o->trapped)
			n++;
	}
	return n;
}

/* Counting with every filter bit the guest can ask for, NSH (count EL2) included, reads
 * and writes of the counters, PMXEVCNTR through PMSELR, at EL1 and EL0. */
static void counting_prog(struct sim_prog *p, uint64_t seed)
{
	sim_prog_init(p);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED | PV_PMEVTYPER_NSH);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(2), PV_EVT_CPU_CYCLES | PV_PMEVTYPER_U);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(3), PV_EVT_INST_RETIRED | PV_PMEVTYPER_P);
	sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, PV_PMEVTYPER_NSH);
	sim_prog_msr(p, 1, PV_PMSELR_EL0, 2);
	sim_prog_msr(p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 0xDu | 1u << 31);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	for (unsigned i = 0; i < 40; i++) {
		sim_prog_workload(p, i & 1, SIM_PROF_INT, 3000 + seed * 100 + i);
		sim_prog_mrs(p, i & 1, PV_PMEVCNTR_EL0(0));
		sim_prog_mrs(p, 1, PV_PMXEVCNTR_EL0);
		sim_prog_mrs(p, i & 1, PV_PMCCNTR_EL0);
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(3));
		if (i % 8 == 7) {
			sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(0), seed << 20);
			sim_prog_msr(p, 1, PV_PMCCNTR_EL0, seed << 24);
		}
	}
}

/* Two passthrough VMs time-sliced on one pCPU: not one trap, every read exact. */
static void test_counting(void **state)
{
	(void)state;
	struct sim_machine *m = machine(3);
	assert_non_null(m);
	struct sim_prog a, b;
	counting_prog(&a, 1);
	counting_prog(&b, 2);
	struct pv_vm_config cfg = passthrough_vm();
	assert_true(scen_vm_vcpu(m, &cfg, 0, &a) >= 0);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &b) >= 0);
	assert_true(m->vcpu[0].pv.vm->pmu.passthrough);
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "passthrough"), 0);
	assert_int_equal(scen_verify(m, 1, "passthrough"), 0);
	assert_int_equal(scen_hygiene(m, "passthrough"), 0);
	assert_true(m->cpu[0].stats.switches > 10); /* the two VMs did share the counters */
	assert_int_equal(pmu_traps(&a), 0);
	assert_int_equal(pmu_traps(&b), 0);
	assert_int_equal(m->cpu[0].stats.traps, 0);
	sim_prog_free(&a);
	sim_prog_free(&b);
	scen_free(m);
}

/* The trap words: nothing of the PMU traps, the partition is the hardware's (HPMN), EL2 is
 * prohibited for the guest's counters and the cycle counter, and the host's counters keep
 * counting (HPME). */
static void test_trap_words(void **state)
{
	(void)state;
	struct sim_machine *m = machine(1);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	struct pv_vm_config cfg = passthrough_vm();
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	const struct pv_trap_words *w = &m->vcpu[0].pv.traps;
	uint64_t mdcr = w->mdcr_el2;
	assert_int_equal(mdcr & (PV_MDCR_EL2_TPM | PV_MDCR_EL2_TPMCR), 0);
	assert_int_equal(PV_FIELD_GET(PV_MDCR_EL2_HPMN, mdcr), HPMN);
	assert_true(mdcr & PV_MDCR_EL2_HPMD);
	assert_true(mdcr & PV_MDCR_EL2_HCCD);
	assert_true(mdcr & PV_MDCR_EL2_HPME);
	assert_true(w->mdcr_el2_owned & PV_MDCR_EL2_TPM);
	sim_prog_free(&p);
	scen_free(m);
}

/* Sampling: each overflow raises the mapped interrupt once; the guest's handler clears
 * PMOVS directly and deactivates it, and the next one comes only after. */
static void test_overflow_mapped(void **state)
{
	(void)state;
	struct sim_machine *m = machine(5);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	const unsigned rounds = 9, idx = 3;
	const uint64_t period = 30000;
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(idx), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMINTENSET_EL1, 1u << idx);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 1u << idx);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < rounds; k++) {
		sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(idx), TOP32 - period);
		sim_prog_irq_check(&p);
		sim_prog_workload(&p, k & 1, SIM_PROF_INT, period + 1000 + 37 * k);
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(idx));
		sim_prog_irq_handle(&p);
	}
	counting_prog(&q, 4); /* a second passthrough VM beside, without interrupts */
	struct pv_vm_config cfg = passthrough_vm();
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &q) >= 0);
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "mapped"), 0);
	assert_int_equal(scen_verify(m, 1, "mapped"), 0);
	assert_int_equal(scen_hygiene(m, "mapped"), 0);
	for (size_t i = 0; i < p.n; i++) {
		const struct sim_op *op = &p.ops[i];
		if (op->kind == SIM_OP_IRQ_CHECK)
			assert_false(op->line); /* low after each deactivation */
		if (op->kind == SIM_OP_IRQ_HANDLE)
			assert_true(op->line); /* and there each time the handler looked */
	}
	const struct sim_vcpu *v = &m->vcpu[0];
	assert_int_equal(v->irq.taken, rounds);
	assert_int_equal(v->irq.handled[idx], rounds);
	assert_int_equal(v->rises[PV_INTID_PMU], rounds);
	assert_int_equal(v->pv.stats.pmu_irqs, rounds);
	assert_int_equal(v->irq.stuck, 0);
	assert_int_equal(v->virq_calls, 0); /* never through the software line */
	assert_int_equal(m->cpu[0].stats.irq_mapped, rounds);
	assert_int_equal(m->cpu[0].stats.irq_storms, 0);
	assert_int_equal(m->vcpu[1].rises[PV_INTID_PMU], 0);
	assert_int_equal(pmu_traps(&p), 0);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

/* A passthrough VM, a trapping VM and a direct-less one on one pCPU: each one's counts are
 * its own, whatever the previous one left in the hardware. */
static void test_mixed(void **state)
{
	(void)state;
	struct sim_machine *m = machine(7);
	assert_non_null(m);
	struct sim_prog a, b, c;
	counting_prog(&a, 5);
	counting_prog(&b, 6);
	uint64_t rng = 17;
	struct pv_vm_config pt = passthrough_vm(), trapped = scen_vm(PV_PMUVER_V3P5, 4);
	sim_prog_init(&c);
	scen_random_prog(&c, &rng, &trapped, false, 150);
	assert_true(scen_vm_vcpu(m, &pt, 0, &a) >= 0);
	assert_true(scen_vm_vcpu(m, &trapped, 0, &b) >= 0);
	assert_true(scen_vm_vcpu(m, &trapped, 0, &c) >= 0);
	sim_run(m);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(scen_verify(m, i, "mixed passthrough"), 0);
	assert_int_equal(scen_hygiene(m, "mixed passthrough"), 0);
	assert_true(m->cpu[0].stats.switches > 20);
	assert_int_equal(pmu_traps(&a), 0);
	assert_true(pmu_traps(&b) > 0);
	sim_prog_free(&a);
	sim_prog_free(&b);
	sim_prog_free(&c);
	scen_free(m);
}

/* A CHAIN counter's own EL filter: the hardware applies it to each overflow it chains, at
 * the EL the overflow happens; perfvisor's emulation, like KVM's, does not (vpmu/chain.c),
 * and so neither does the checker. A passthrough VM gets the hardware's behaviour, so the
 * random programs here leave CHAIN counters unfiltered, where the two agree. */
static void unfiltered_chain(struct sim_prog *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct sim_op *o = &p->ops[i];
		if (o->kind == SIM_OP_MSR &&
		    (o->key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY &&
		    PV_PMEV_IS_TYPER(o->key) && o->key != PV_PMCCFILTR_EL0 &&
		    (o->imm & 0xFFFF) == PV_EVT_CHAIN)
			o->imm = PV_EVT_CHAIN;
	}
}

/* Random programs (reprogramming, enables, CHAIN, PMSWINC, PMSELR/PMXEV*, EL0 and EL1) in
 * two passthrough VMs: the hardware gives each the architecture's answers. */
static void test_random(void **state)
{
	(void)state;
	for (uint64_t round = 0; round < 8; round++) {
		struct sim_machine *m = machine(40 + round);
		assert_non_null(m);
		uint64_t rng = 91 + round;
		struct pv_vm_config cfg = passthrough_vm();
		struct sim_prog a, b;
		sim_prog_init(&a);
		sim_prog_init(&b);
		scen_random_prog(&a, &rng, &cfg, false, 150);
		scen_random_prog(&b, &rng, &cfg, false, 150);
		unfiltered_chain(&a);
		unfiltered_chain(&b);
		assert_true(scen_vm_vcpu(m, &cfg, 0, &a) >= 0);
		assert_true(scen_vm_vcpu(m, &cfg, 0, &b) >= 0);
		sim_run(m);
		assert_int_equal(scen_verify(m, 0, "random passthrough"), 0);
		assert_int_equal(scen_verify(m, 1, "random passthrough"), 0);
		assert_int_equal(scen_hygiene(m, "random passthrough"), 0);
		assert_int_equal(pmu_traps(&a) + pmu_traps(&b), 0);
		sim_prog_free(&a);
		sim_prog_free(&b);
		scen_free(m);
	}
}

static uint64_t hw(struct sim_machine *m, uint32_t key)
{
	uint64_t v = 0;
	assert_int_equal(sim_cpu_read(&m->cpu[0], 2, key, &v), SIM_ACC_OK);
	return v;
}

static void hw_set(struct sim_machine *m, uint32_t key, uint64_t v)
{
	assert_int_equal(sim_cpu_write(&m->cpu[0], 2, key, v), SIM_ACC_OK);
}

/* Load, put and pv_vpmu_sync() by hand: what the guest left in the hardware is what
 * perfvisor reads back (sync, put), what put leaves is the pCPU's quiet state, and the next
 * load gives the guest all of it again. */
static void test_load_put_sync(void **state)
{
	(void)state;
	struct sim_machine *m = machine(2);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	struct pv_vm_config cfg = passthrough_vm();
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	struct pv_vcpu *v = &m->vcpu[0].pv;
	uint64_t host_selr = 7;
	hw_set(m, PV_PMSELR_EL0, host_selr);
	pv_vcpu_load(v, &m->cpu[0].pv);
	/* The guest's own writes, with no trap. */
	const uint64_t type = PV_EVT_CPU_CYCLES | PV_PMEVTYPER_P | PV_PMEVTYPER_NSH;
	hw_set(m, PV_PMEVTYPER_EL0(1), type);
	hw_set(m, PV_PMEVCNTR_EL0(1), 0x123456789ull);
	hw_set(m, PV_PMCCNTR_EL0, 0xABCDull);
	hw_set(m, PV_PMCCFILTR_EL0, PV_PMEVTYPER_U);
	hw_set(m, PV_PMINTENSET_EL1, 0x2u);
	hw_set(m, PV_PMOVSSET_EL0, 0x80000002u);
	hw_set(m, PV_PMSELR_EL0, 3);
	hw_set(m, PV_PMUSERENR_EL0, PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	hw_set(m, PV_PMCNTENSET_EL0, 0x80000002u);
	hw_set(m, PV_PMCR_EL0, PV_PMCR_LC | PV_PMCR_LP); /* E off: nothing moves */
	/* Its overflow pending with its interrupt enabled, but PMCR.E clear: no level, so a
	 * physical interrupt now is a late one, not the guest's. */
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_HANDLED);
	pv_vpmu_sync(v);
	assert_int_equal(v->pmu.evtyper[1], type);
	assert_int_equal(v->pmu.evcntr[1], 0x123456789ull);
	assert_int_equal(v->pmu.ccntr, 0xABCD);
	assert_int_equal(v->pmu.cnten, 0x80000002u);
	assert_int_equal(v->pmu.inten, 0x2u);
	assert_int_equal(v->pmu.ovs, 0x80000002u);
	assert_int_equal(v->pmu.selr, 3);
	assert_true(v->pmu.pmcr & PV_PMCR_LP);
	assert_false(v->pmu.irq_level); /* PMCR.E clear */
	assert_int_equal(pv_vpmu_counter(v, 1), 0x123456789ull);
	pv_vcpu_put(v);
	uint32_t mine = ((1u << HPMN) - 1) | 1u << 31;
	assert_int_equal(hw(m, PV_PMCNTENSET_EL0) & mine, 0);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0);
	assert_int_equal(hw(m, PV_PMOVSSET_EL0) & mine, 0);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_EN);
	assert_int_equal(hw(m, PV_PMSELR_EL0), host_selr);
	assert_int_equal(v->pmu.evcntr[1], 0x123456789ull);
	hw_set(m, PV_PMEVCNTR_EL0(1), 0); /* another vCPU's, meanwhile */
	pv_vcpu_load(v, &m->cpu[0].pv);
	assert_int_equal(hw(m, PV_PMEVCNTR_EL0(1)), 0x123456789ull);
	assert_int_equal(hw(m, PV_PMEVTYPER_EL0(1)), type);
	assert_int_equal(hw(m, PV_PMCCNTR_EL0), 0xABCD);
	assert_int_equal(hw(m, PV_PMCCFILTR_EL0), PV_PMEVTYPER_U);
	assert_int_equal(hw(m, PV_PMCNTENSET_EL0) & mine, 0x80000002u);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0x2u);
	assert_int_equal(hw(m, PV_PMOVSSET_EL0) & mine, 0x80000002u);
	assert_int_equal(hw(m, PV_PMSELR_EL0), 3);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	assert_true(hw(m, PV_PMCR_EL0) & PV_PMCR_LP);
	/* With PMCR.E its level is high: its own, presented mapped, counted; the host's
	 * counter overflowing as well is reported first. */
	hw_set(m, PV_PMCR_EL0, PV_PMCR_LC | PV_PMCR_LP | PV_PMCR_E);
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_GUEST_MAPPED);
	assert_int_equal(v->stats.pmu_irqs, 1);
	hw_set(m, PV_PMOVSSET_EL0, 1u << HPMN);
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_HOST_PENDING);
	hw_set(m, PV_PMOVSCLR_EL0, 1u << HPMN);
	pv_vcpu_put(v);
	/* Put leaves the partition disabled (PMCR.E too), and no bit of the host's counter in
	 * what it saved. */
	assert_int_equal(hw(m, PV_PMCR_EL0) & PV_PMCR_E, 0);
	assert_int_equal(v->pmu.ovs & ~mine, 0);
	assert_true(v->pmu.pmcr & PV_PMCR_E);
	sim_prog_free(&p);
	scen_free(m);
}

/* With FEAT_FGT an access to a counter at or past HPMN traps to EL2 (Arm ARM D24.5.10): the
 * one PMU trap a passthrough VM takes. PMXEVCNTR_EL0 and PMXEVTYPER_EL0 name their counter by
 * the PMSELR_EL0.SEL the guest wrote to the hardware, untrapped, not the one perfvisor saved
 * at the last put (0 here), so each such access UNDEFs and leaves the guest's registers as
 * they were: its interrupt enable and its overflow flag included. */
static void test_sel_past_hpmn(void **state)
{
	(void)state;
	struct sim_config c = scen_config(9, COUNTERS, HOST, 2000, 20000);
	c.fgt = true;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(0), 0x1234);
	sim_prog_msr(&p, 1, PV_PMINTENSET_EL1, 0x1u);
	sim_prog_msr(&p, 1, PV_PMOVSSET_EL0, 0x1u); /* PMCR.E clear: no interrupt */
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, HPMN);
	size_t rd = sim_prog_mrs(&p, 1, PV_PMXEVCNTR_EL0);
	size_t rd0 = sim_prog_mrs(&p, 0, PV_PMXEVCNTR_EL0); /* EN clear: the guest's EL1 */
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	size_t rd0_en = sim_prog_mrs(&p, 0, PV_PMXEVCNTR_EL0);
	size_t wr = sim_prog_msr(&p, 1, PV_PMXEVCNTR_EL0, 7);
	size_t ty = sim_prog_msr(&p, 1, PV_PMXEVTYPER_EL0, PV_EVT_CHAIN);
	size_t ev = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(HPMN));
	size_t inten = sim_prog_mrs(&p, 1, PV_PMINTENSET_EL1);
	size_t ovs = sim_prog_mrs(&p, 1, PV_PMOVSSET_EL0);
	size_t cnt = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	sim_prog_expect(&p, rd, SIM_OUT_UNDEF);
	sim_prog_expect(&p, rd0, SIM_OUT_EL1_SYSREG);
	sim_prog_expect(&p, rd0_en, SIM_OUT_UNDEF);
	sim_prog_expect(&p, wr, SIM_OUT_UNDEF);
	sim_prog_expect(&p, ty, SIM_OUT_UNDEF);
	sim_prog_expect(&p, ev, SIM_OUT_UNDEF);
	sim_prog_workload(&p, 1, SIM_PROF_INT, 500);
	struct pv_vm_config cfg = passthrough_vm();
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	assert_true(m->vcpu[0].pv.vm->pmu.passthrough);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "SEL past HPMN"), 0);
	assert_int_equal(scen_hygiene(m, "SEL past HPMN"), 0);
	assert_true(p.ops[rd].trapped && p.ops[wr].trapped && p.ops[ty].trapped);
	assert_int_equal(p.ops[inten].value, 0x1u);
	assert_int_equal(p.ops[ovs].value, 0x1u);
	assert_int_equal(p.ops[cnt].value, 0x1234);
	assert_int_equal(pmu_traps(&p), 5); /* only the accesses past HPMN */
	sim_prog_free(&p);
	scen_free(m);
}

/* Where passthrough cannot keep the VM's PMU exact, the VM traps as before. */
static void test_not_possible(void **state)
{
	(void)state;
	struct {
		const char *why;
		unsigned version, counters, pmu_version;
		bool filter;
	} cases[] = {
		{"an event filter", PV_PMUVER_V3P5, HPMN, PV_PMUVER_V3P5, true},
		{"fewer counters than HPMN", PV_PMUVER_V3P5, HPMN - 1, PV_PMUVER_V3P5, false},
		{"another PMUVer", PV_PMUVER_V3P4, HPMN, PV_PMUVER_V3P5, false},
		{"hardware before PMUv3p5 (no HCCD)", PV_PMUVER_V3P4, HPMN, PV_PMUVER_V3P4,
		 false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_config c = scen_config(1, COUNTERS, HOST, 2000, 20000);
		c.pmu.version = (uint8_t)cases[i].pmu_version;
		struct sim_machine *m = scen_machine(&c);
		assert_non_null(m);
		struct sim_prog p;
		counting_prog(&p, 1);
		struct pv_vm_config cfg = scen_vm(cases[i].version, cases[i].counters);
		cfg.pmu.passthrough = 1;
		if (cases[i].filter) {
			cfg.pmu.nr_filters = 1;
			cfg.pmu.filters[0] = (struct pv_pmu_filter){
				.base_event = PV_EVT_STALL_BACKEND,
				.nevents = 1,
				.action = PV_PMU_FILTER_DENY};
		}
		assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
		print_message("%s\n", cases[i].why);
		assert_false(m->vcpu[0].pv.vm->pmu.passthrough);
		assert_true(m->vcpu[0].pv.traps.mdcr_el2 & PV_MDCR_EL2_TPM);
		sim_run(m);
		assert_int_equal(scen_verify(m, 0, cases[i].why), 0);
		assert_true(pmu_traps(&p) > 0);
		sim_prog_free(&p);
		scen_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting),        cmocka_unit_test(test_trap_words),
		cmocka_unit_test(test_overflow_mapped), cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_random),          cmocka_unit_test(test_load_put_sync),
		cmocka_unit_test(test_sel_past_hpmn),   cmocka_unit_test(test_not_possible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
