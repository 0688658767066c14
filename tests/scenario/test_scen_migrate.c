/* SPDX-License-Identifier: MIT */
/*
 * vCPUs migrating between pCPUs (by their own hypercall and by the scheduler) keep exact
 * counts; each pCPU's host counter keeps counting that pCPU's EL2 work; a VM with two vCPUs
 * on two pCPUs keeps them apart; an overflow after a migration interrupts the right vCPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "scen.h"

#define CPUS 2

/* A random program with MIGRATE hypercalls sprinkled in. */
static void migrating_prog(struct sim_prog *p, uint64_t *rng, const struct pv_vm_config *vm,
			   unsigned nops)
{
	struct sim_prog tmp;
	sim_prog_init(&tmp);
	scen_random_prog(&tmp, rng, vm, false, nops);
	for (size_t i = 0; i < tmp.n; i++) {
		sim_prog_append(p, &tmp.ops[i]);
		if (scen_rand(rng) % 8 == 0)
			sim_prog_migrate(p, (unsigned)(scen_rand(rng) % CPUS));
	}
	sim_prog_free(&tmp);
}

static unsigned host_check(struct sim_machine *m, const char *tag)
{
	unsigned bad = 0;
	for (unsigned c = 0; c < m->cfg.cpus; c++) {
		uint64_t want = m->cpu[c].truth.el2[SIM_EV_INST_RETIRED];
		if (sim_host_counter(m, c, 0) != want) {
			fprintf(stderr, "%s: pCPU %u host counter %llu, EL2 truth %llu\n", tag,
				c, (unsigned long long)sim_host_counter(m, c, 0),
				(unsigned long long)want);
			bad++;
		}
	}
	return bad;
}

static unsigned run(uint64_t seed)
{
	struct sim_config c = scen_config(seed, 8, 1, 500, 30000);
	c.cpus = CPUS;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	static const uint8_t versions[4] = {PV_PMUVER_V3P5, PV_PMUVER_V3P1, PV_PMUVER_V3P4,
					    PV_PMUVER_V3P5};
	static const uint8_t counters[4] = {7, 2, 4, 5};
	struct sim_prog progs[6];
	struct pv_vm_config cfg[4];
	uint64_t rng = seed * 77 + 1;
	for (unsigned i = 0; i < 4; i++) {
		sim_prog_init(&progs[i]);
		cfg[i] = scen_vm(versions[i], counters[i]);
		migrating_prog(&progs[i], &rng, &cfg[i], 160);
		assert_true(scen_vm_vcpu(m, &cfg[i], i % CPUS, &progs[i]) >= 0);
	}
	/* VM 0 gets two more vCPUs, one on each pCPU. */
	for (unsigned i = 4; i < 6; i++) {
		sim_prog_init(&progs[i]);
		migrating_prog(&progs[i], &rng, &cfg[0], 120);
		assert_int_equal(sim_add_vcpu(m, 0, i % CPUS, &progs[i]), (int)i);
	}
	char tag[32];
	snprintf(tag, sizeof(tag), "migrate seed %llu", (unsigned long long)seed);
	unsigned bad = 0;
	/* The scheduler moves vCPUs too. */
	while (sim_step(m)) {
		if (sim_rand(m) % 5 == 0)
			sim_migrate(m, (unsigned)(sim_rand(m) % m->nvcpus),
				    (unsigned)(sim_rand(m) % CPUS));
		bad += host_check(m, tag);
	}
	bad += scen_hygiene(m, tag);
	unsigned moves = 0;
	for (unsigned i = 0; i < 6; i++) {
		bad += scen_verify(m, i, tag);
		for (size_t k = 1; k < progs[i].n; k++)
			moves += progs[i].ops[k].cpu != progs[i].ops[k - 1].cpu;
		sim_prog_free(&progs[i]);
	}
	if (moves < 10) {
		fprintf(stderr, "%s: only %u moves\n", tag, moves);
		bad++;
	}
	scen_free(m);
	return bad;
}

static void test_migration_exact(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 25; seed++)
		bad += run(seed);
	assert_int_equal(bad, 0);
}

static void test_overflow_after_migration(void **state)
{
	(void)state;
	struct sim_config c = scen_config(1, 6, 1, 2000, 20000);
	c.cpus = CPUS;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	sim_prog_init(&q);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMINTENSET_EL1, 2);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 2);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < 6; k++) {
		sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(1), (UINT64_C(1) << 32) - 20000);
		sim_prog_workload(&p, 0, SIM_PROF_INT, 10000);
		sim_prog_migrate(&p, (k + 1) % CPUS);
		sim_prog_workload(&p, 1, SIM_PROF_INT, 15000);
		sim_prog_irq_handle(&p);
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	}
	uint64_t rng = 3;
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 4);
	scen_random_prog(&q, &rng, &cfg, false, 150);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	assert_true(scen_vm_vcpu(m, &cfg, 1, &q) >= 0);
	sim_run(m);
	assert_int_equal(scen_hygiene(m, "ovf-migrate"), 0);
	assert_int_equal(scen_verify(m, 0, "ovf-migrate"), 0);
	assert_int_equal(scen_verify(m, 1, "ovf-migrate"), 0);
	assert_int_equal(m->vcpu[0].irq.handled[1], 6);
	assert_int_equal(m->vcpu[0].rises[PV_INTID_PMU], 6);
	assert_int_equal(m->vcpu[1].irq.taken, 0);
	assert_int_equal(host_check(m, "ovf-migrate"), 0);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migration_exact),
		cmocka_unit_test(test_overflow_after_migration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
