/* SPDX-License-Identifier: MIT */
/*
 * The `make run` demo: a workload measured from inside the VM with its own virtual PMU,
 * the way `perf stat` and `perf record` would: INST_RETIRED and CPU_CYCLES counted at EL1, and
 * an overflow interrupt every 100000 instructions taken as a sample. The workload depends on
 * the VM's name (/chosen/perfvisor,vm-name): "sieve..." counts primes, anything else sorts.
 */
#include "pmu.h"

#define PERIOD 100000ul
static volatile unsigned samples;
static uint8_t sieve[200000];
static uint32_t data[4096];

static void on_irq(uint32_t intid)
{
	if (intid != INTID_PMU)
		return;
	uint64_t ovs = rd(pmovsset_el0);
	if (ovs & 4) {
		samples++;
		/* next period, keeping the instructions counted since the wrap (the skid) */
		uint64_t skid = pmevcntr_read(2) & 0xFFFFFFFFul;
		pmevcntr_write(2, 0xFFFFFFFFul - PERIOD + 1 + skid);
	}
	wr(pmovsclr_el0, ovs);
}

static unsigned run_sieve(void)
{
	unsigned n = sizeof(sieve), primes = 0;
	for (unsigned i = 2; i < n; i++) {
		if (sieve[i])
			continue;
		primes++;
		for (unsigned j = 2 * i; j < n; j += i)
			sieve[j] = 1;
	}
	return primes;
}

static unsigned run_sort(void)
{
	uint32_t x = 12345;
	unsigned n = sizeof(data) / sizeof(data[0]);
	for (unsigned i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = x >> 8;
	}
	for (unsigned gap = n / 2; gap; gap /= 2) /* shell sort */
		for (unsigned i = gap; i < n; i++)
			for (unsigned j = i; j >= gap && data[j - gap] > data[j]; j -= gap) {
				uint32_t t = data[j];
				data[j] = data[j - gap];
				data[j - gap] = t;
			}
	unsigned sorted = 1;
	for (unsigned i = 1; i < n; i++)
		sorted &= data[i - 1] <= data[i];
	return sorted;
}

void test_main(void)
{
	const char *name = dt_vm_name();
	bool sieve_vm = name && !strncmp(name, "sieve", 5);
	gic_setup(on_irq);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	pmu_reset();
	pmevtyper_write(0, EV_INST_RETIRED | EVT_U);
	pmevtyper_write(1, EV_CPU_CYCLES | EVT_U);
	pmevtyper_write(2, EV_INST_RETIRED | EVT_U); /* sampling counter */
	pmevcntr_write(2, 0xFFFFFFFFul - PERIOD + 1);
	wr(pmintenset_el1, 4);
	irq_unmask();
	wr(pmcntenset_el0, 7);
	wr(pmcr_el0, PMCR_E);
	unsigned result = sieve_vm ? run_sieve() : run_sort();
	wr(pmcr_el0, 0);
	irq_mask();
	uint64_t inst = pmevcntr_read(0), cyc = pmevcntr_read(1);
	if (sieve_vm)
		gprintf("sieve: %u primes below %u\n", result, (unsigned)sizeof(sieve));
	else
		gprintf("sort: %u words %s\n", (unsigned)(sizeof(data) / sizeof(data[0])),
			result ? "sorted" : "NOT sorted");
	gprintf("perf: %lu instructions, %lu cycles, IPC %lu.%02lu, %u samples every %lu "
		"instructions\n",
		inst, cyc, inst / cyc, inst * 100 / cyc % 100, samples, PERIOD);
	CHECK(result != 0, "demo: workload result");
	check(samples == inst / PERIOD || samples + 1 == inst / PERIOD,
	      "demo: one sample per period (overflow interrupts)",
	      "%u samples for %lu instructions", samples, inst);
	pmu_reset();
}
