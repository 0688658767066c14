/* SPDX-License-Identifier: MIT */
/*
 * Overflow: the virtual PMU interrupt rises once per overflow, the guest's handler
 * acknowledges it through PMOVSCLR and it falls; 32-bit overflow on PMUv3p5 keeps the
 * counter's 64 bits; PMCR.LP gives 64-bit overflow; 32-bit counters before PMUv3p5; CHAIN
 * counts the even counter's overflows; the cycle counter overflows at 2^32 unless LC. All of
 * it time-sliced with other VMs doing the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "scen.h"

#define TOP32 (UINT64_C(1) << 32)

struct run {
	struct sim_machine *m;
	struct sim_prog progs[4];
	struct pv_vm_config cfg[4];
	unsigned n;
};

static void start(struct run *r, uint64_t seed, bool aarch32)
{
	struct sim_config c = scen_config(seed, 8, 1, 700, 25000);
	c.aarch32 = aarch32;
	r->m = scen_machine(&c);
	assert_non_null(r->m);
	r->n = 0;
}

static struct sim_prog *add(struct run *r, unsigned version, unsigned counters)
{
	struct sim_prog *p = &r->progs[r->n];
	sim_prog_init(p);
	r->cfg[r->n] = scen_vm(version, counters);
	assert_true(scen_vm_vcpu(r->m, &r->cfg[r->n], 0, p) >= 0);
	r->n++;
	return p;
}

static unsigned finish(struct run *r, const char *tag)
{
	sim_run(r->m);
	unsigned bad = scen_hygiene(r->m, tag);
	for (unsigned i = 0; i < r->n; i++)
		bad += scen_verify(r->m, i, tag);
	return bad;
}

static void cleanup(struct run *r)
{
	for (unsigned i = 0; i < r->n; i++)
		sim_prog_free(&r->progs[i]);
	scen_free(r->m);
}

/* Sampling: `rounds` times set counter `idx` to 2^32 - period, run more than `period`
 * events, take the interrupt. */
static void sampling(struct sim_prog *p, unsigned idx, uint64_t pmcr, unsigned rounds,
		     uint64_t period)
{
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(idx), PV_EVT_INST_RETIRED);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1u << idx);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 1u << idx);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | pmcr);
	for (unsigned k = 0; k < rounds; k++) {
		sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(idx), TOP32 - period);
		sim_prog_irq_check(p);
		sim_prog_workload(p, k & 1, SIM_PROF_INT, period + 1000 + 37 * k);
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(idx));
		sim_prog_irq_handle(p);
	}
}

static unsigned check_sampling(struct run *r, unsigned vcpu, unsigned idx, unsigned rounds,
			       const char *tag)
{
	const struct sim_vcpu *v = &r->m->vcpu[vcpu];
	const struct sim_prog *p = v->prog;
	unsigned bad = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *op = &p->ops[i];
		/* Low after each acknowledgement, and the handler found the interrupt each time. */
		if ((op->kind == SIM_OP_IRQ_CHECK && op->line) ||
		    (op->kind == SIM_OP_IRQ_HANDLE && !op->line)) {
			fprintf(stderr, "%s vcpu %u op %zu: line %d\n", tag, vcpu, i, op->line);
			bad++;
		}
	}
	if (v->irq.taken != rounds || v->irq.handled[idx] != rounds ||
	    v->rises[PV_INTID_PMU] != rounds || v->irq.empty || v->line[PV_INTID_PMU]) {
		fprintf(stderr,
			"%s vcpu %u: %u handled, %llu acks of counter %u, %u rises (want %u)\n",
			tag, vcpu, v->irq.taken, (unsigned long long)v->irq.handled[idx], idx,
			v->rises[PV_INTID_PMU], rounds);
		bad++;
	}
	return bad;
}

static void test_sampling_once_per_overflow(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct run r;
		start(&r, seed, false);
		sampling(add(&r, PV_PMUVER_V3P5, 4), 0, 0, 12, 30000);
		sampling(add(&r, PV_PMUVER_V3P4, 2), 1, 0, 9, 45000);
		sampling(add(&r, PV_PMUVER_V3, 6), 5, 0, 7, 20000);
		sampling(add(&r, PV_PMUVER_V3P1, 3), 2, 0, 10, 60000);
		char tag[32];
		snprintf(tag, sizeof(tag), "sampling seed %llu", (unsigned long long)seed);
		bad += finish(&r, tag);
		bad += check_sampling(&r, 0, 0, 12, tag);
		bad += check_sampling(&r, 1, 1, 9, tag);
		bad += check_sampling(&r, 2, 5, 7, tag);
		bad += check_sampling(&r, 3, 2, 10, tag);
		cleanup(&r);
	}
	assert_int_equal(bad, 0);
}

/* irq_auto: the guest takes the interrupt as soon as the line rises, mid-work. */
static void test_auto_handler(void **state)
{
	(void)state;
	struct run r;
	start(&r, 5, false);
	struct sim_prog *p = add(&r, PV_PMUVER_V3P5, 4);
	p->irq_auto = true;
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(3), PV_EVT_CPU_CYCLES | PV_PMEVTYPER_U);
	sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(3), TOP32 - 50000);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1u << 3);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 1u << 3);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < 10; k++) {
		sim_prog_workload(p, 1, SIM_PROF_MEM, 10000);
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(3));
	}
	sim_prog_irq_check(p);
	uint64_t rng = 9;
	struct sim_prog *q = add(&r, PV_PMUVER_V3P5, 5);
	scen_random_prog(q, &rng, &r.cfg[1], false, 100);
	assert_int_equal(finish(&r, "auto"), 0);
	const struct sim_vcpu *v = &r.m->vcpu[0];
	assert_int_equal(v->irq.taken, 1);
	assert_int_equal(v->irq.handled[3], 1);
	assert_int_equal(v->rises[PV_INTID_PMU], 1);
	assert_false(p->ops[p->n - 1].line);
	assert_true(p->ops[p->n - 2].value > TOP32); /* 64-bit counter kept counting */
	assert_int_equal(r.m->vcpu[1].irq.taken, 0);
	cleanup(&r);
}

static void test_long_counters(void **state)
{
	(void)state;
	struct run r;
	start(&r, 2, false);
	/* PMUv3p5 with LP: nothing at 2^32, overflow at 2^64. */
	struct sim_prog *p = add(&r, PV_PMUVER_V3P5, 2);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(0), TOP32 - 1000);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 1);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LP);
	sim_prog_workload(p, 1, SIM_PROF_INT, 50000);
	size_t no_irq = sim_prog_irq_check(p);
	size_t past = sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(0));
	sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(0), UINT64_MAX - 1000);
	sim_prog_workload(p, 1, SIM_PROF_INT, 50000);
	size_t irq = sim_prog_irq_check(p);
	size_t wrapped = sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(0));
	sim_prog_irq_handle(p);
	/* PMUv3p4: 32-bit counters, upper bits of writes ignored, LP RES0. */
	struct sim_prog *q = add(&r, PV_PMUVER_V3P4, 2);
	sim_prog_msr(q, 1, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED);
	sim_prog_msr(q, 1, PV_PMEVCNTR_EL0(1), UINT64_C(0xABCD00000000) | (TOP32 - 1000));
	sim_prog_msr(q, 1, PV_PMINTENSET_EL1, 2);
	sim_prog_msr(q, 1, PV_PMCNTENSET_EL0, 2);
	sim_prog_msr(q, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LP);
	sim_prog_workload(q, 0, SIM_PROF_BRANCH, 50000);
	size_t q_read = sim_prog_mrs(q, 1, PV_PMEVCNTR_EL0(1));
	size_t q_irq = sim_prog_irq_check(q);
	sim_prog_irq_handle(q);
	assert_int_equal(finish(&r, "long"), 0);
	assert_false(p->ops[no_irq].line);
	assert_true(p->ops[past].value > TOP32);
	assert_true(p->ops[irq].line);
	assert_true(p->ops[wrapped].value < 100000);
	assert_int_equal(r.m->vcpu[0].irq.handled[0], 1);
	assert_true(q->ops[q_read].value < 100000);
	assert_true(q->ops[q_irq].line);
	assert_int_equal(r.m->vcpu[1].irq.handled[1], 1);
	cleanup(&r);
}

/* CHAIN: odd counter counts the even counter's 32-bit overflows (and overflows itself). */
static void chain_prog(struct sim_prog *p, uint64_t odd_init)
{
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(2), PV_EVT_INST_RETIRED);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(3), PV_EVT_CHAIN);
	sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(2), TOP32 - 3000);
	sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(3), odd_init);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1u << 3);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 3u << 2);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < 6; k++) {
		sim_prog_workload(p, k & 1, SIM_PROF_STREAM, 2000);
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(2));
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(3));
	}
	sim_prog_mrs(p, 1, PV_PMOVSSET_EL0);
	sim_prog_irq_check(p);
}

static void test_chain(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct run r;
		start(&r, seed, false);
		struct sim_prog *p = add(&r, PV_PMUVER_V3P5, 4);
		chain_prog(p, 41);
		struct sim_prog *q = add(&r, PV_PMUVER_V3, 4);
		chain_prog(q, 0xFFFFFFFFu);
		uint64_t rng = seed;
		scen_random_prog(add(&r, PV_PMUVER_V3P1, 6), &rng, &r.cfg[2], false, 80);
		char tag[32];
		snprintf(tag, sizeof(tag), "chain seed %llu", (unsigned long long)seed);
		bad += finish(&r, tag);
		/* p: 64-bit even counter went past 2^32 once: odd = 42, overflow bit 2 only. */
		bad += p->ops[p->n - 3].value != 42;
		bad += (p->ops[p->n - 2].value & 0xC) != 0x4;
		bad += p->ops[p->n - 1].line;
		/* q: 32-bit counters: even wrapped, odd wrapped from 0xFFFFFFFF to 0 and raised
		 * its interrupt. */
		bad += q->ops[q->n - 3].value != 0;
		bad += (q->ops[q->n - 2].value & 0xC) != 0xC;
		bad += !q->ops[q->n - 1].line;
		cleanup(&r);
	}
	assert_int_equal(bad, 0);
}

static void cycle_prog(struct sim_prog *p, uint64_t pmcr)
{
	sim_prog_msr(p, 1, PV_PMCCNTR_EL0, TOP32 - 20000);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1u << 31);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 1u << 31);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | pmcr);
	for (unsigned k = 0; k < 4; k++) {
		sim_prog_workload(p, 1, SIM_PROF_MEM, 5000);
		sim_prog_mrs(p, 1, PV_PMCCNTR_EL0);
	}
	sim_prog_irq_check(p);
}

static void test_cycle_counter(void **state)
{
	(void)state;
	/* With AArch32, PMCR.LC is writable: LC = 0 overflows at 2^32, LC = 1 does not. */
	struct run r;
	start(&r, 4, true);
	struct sim_prog *p = add(&r, PV_PMUVER_V3P5, 2);
	cycle_prog(p, 0);
	struct sim_prog *q = add(&r, PV_PMUVER_V3P5, 2);
	cycle_prog(q, PV_PMCR_LC);
	assert_int_equal(finish(&r, "cycles aarch32"), 0);
	assert_true(p->ops[p->n - 1].line);
	assert_false(q->ops[q->n - 1].line);
	assert_true(q->ops[q->n - 2].value > TOP32);
	cleanup(&r);
	/* AArch64 only: LC is RES1, the cycle counter overflows at 2^64. */
	start(&r, 4, false);
	p = add(&r, PV_PMUVER_V3P5, 2);
	cycle_prog(p, 0);
	assert_int_equal(finish(&r, "cycles aarch64"), 0);
	assert_false(p->ops[p->n - 1].line);
	cleanup(&r);
}

/* A guest write to PMOVSSET raises the line; its handler clears it. */
static void test_pmovsset_raises(void **state)
{
	(void)state;
	struct run r;
	start(&r, 6, false);
	struct sim_prog *p = add(&r, PV_PMUVER_V3P5, 4);
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, 1u << 2);
	sim_prog_msr(p, 1, PV_PMOVSSET_EL0, 1u << 2);
	size_t off = sim_prog_irq_check(p); /* PMCR.E = 0: no request */
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	size_t on = sim_prog_irq_check(p);
	size_t h = sim_prog_irq_handle(p);
	size_t after = sim_prog_irq_check(p);
	assert_int_equal(finish(&r, "pmovsset"), 0);
	assert_false(p->ops[off].line);
	assert_true(p->ops[on].line);
	assert_true(p->ops[h].line);
	assert_false(p->ops[after].line);
	assert_int_equal(r.m->vcpu[0].irq.handled[2], 1);
	cleanup(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampling_once_per_overflow),
		cmocka_unit_test(test_auto_handler),
		cmocka_unit_test(test_long_counters),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_cycle_counter),
		cmocka_unit_test(test_pmovsset_raises),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
