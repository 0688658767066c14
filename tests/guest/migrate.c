/* SPDX-License-Identifier: MIT */
/*
 * A vCPU the host moves between pCPUs (run several of these on two pCPUs, without icount:
 * QEMU counts no INST_RETIRED then, and cycles only roughly). Over many rounds, each long
 * enough to be descheduled and moved, the guest's counters stay its own: the cycle counter
 * and a CPU_CYCLES event counter never go backwards, a counter it does not enable keeps the
 * value it wrote (a pattern of its own VM name, so another VM's would show), its PMU's
 * configuration stays as written, and the counters beyond its PMCR_EL0.N (the host's among
 * them) stay out of reach: PMEVCNTR<N> and PMXEVCNTR with PMSELR_EL0.SEL = N UNDEF.
 * `migrate.rounds=R` sets the rounds (default 200).
 */
#include "pmu.h"

static uint64_t pattern(void)
{
	const char *name = dt_vm_name();
	uint64_t h = 0x9E3779B97F4A7C15ul;
	for (; name && *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001B3ul;
	return h & 0xFFFFFFFFul; /* a 32-bit counter value, whatever the PMU version */
}

void test_main(void)
{
	uint64_t pmcr = rd(pmcr_el0);
	unsigned n = (unsigned)PMCR_N(pmcr);
	CHECK_EQ(n, dt_pmu_counters(99), "migrate: PMCR_EL0.N is the VM's");
	if (n < 2)
		return;
	uint64_t rounds = arg_num("migrate.rounds", 200), mine = pattern();
	pmu_reset();
	pmevtyper_write(0, EV_CPU_CYCLES);
	pmevtyper_write(1, EV_CPU_CYCLES); /* never enabled: holds what was written */
	pmevcntr_write(1, mine);
	wr(pmccfiltr_el0, 0);
	wr(pmcntenset_el0, CYCLE_BIT | 1);
	wr(pmcr_el0, PMCR_E | PMCR_LC);
	uint64_t last_cyc = 0, last_ev = 0;
	unsigned backwards = 0, foreign = 0, config = 0, reachable = 0;
	for (uint64_t r = 0; r < rounds; r++) {
		spin(20000);
		uint64_t cyc = rd(pmccntr_el0), ev = pmevcntr_read(0);
		backwards += cyc < last_cyc || ev < last_ev;
		last_cyc = cyc;
		last_ev = ev;
		foreign += pmevcntr_read(1) != mine;
		config += rd(pmcntenset_el0) != (CYCLE_BIT | 1) ||
			  (rd(pmcr_el0) & (PMCR_E | PMCR_LC)) != (PMCR_E | PMCR_LC) ||
			  (pmevtyper_read(0) & 0xFFFF) != EV_CPU_CYCLES;
		if (r % 50 == 0) { /* the counters beyond N: every 50 rounds */
			wr(pmselr_el0, n);
			isb();
			reachable += UNDEFS(rd(pmxevcntr_el0)) != 1;
			reachable += UNDEFS(pmevcntr_read(n)) != 1;
		}
	}
	CHECK_EQ(backwards, 0, "migrate: the cycle counter and CPU_CYCLES never go backwards");
	CHECK(last_cyc > 0 && last_ev > 0, "migrate: the counters counted");
	CHECK_EQ(foreign, 0, "migrate: the counter it did not enable kept its own value");
	CHECK_EQ(config, 0, "migrate: its PMU configuration stayed as written");
	CHECK_EQ(reachable, 0, "migrate: no counter beyond PMCR_EL0.N reachable");
	gprintf("migrate: %lu rounds\n", rounds);
}
