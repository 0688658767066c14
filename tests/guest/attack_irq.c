/* SPDX-License-Identifier: MIT */
/*
 * An adversarial guest, by volume (docs/security.md): a flood of PMSWINC writes, a storm of
 * PMU overflow interrupts re-armed as fast as the counter overflows, then counters left
 * overflowing with their interrupt enabled while the guest keeps interrupts masked, spins,
 * waits in WFI, and finally powers off with the interrupt still pending.
 *
 * Each attempt must get the architected answer (exact software counts, real interrupts
 * only, WFI returning while an interrupt is pending); one that does not is an escape. The
 * hypervisor must stay up and the other VMs' exact counts must not move: the runner checks
 * those (tests/guest/run.sh, scenario attack). Ends with "attacks: <tried>, escapes: <n>".
 */
#include "attack.h"
#include "pmu.h"

#define REARM (0xFFFFFFFFul - 500)

static unsigned N;
static volatile unsigned irqs, bogus, others;

static void on_irq(uint32_t intid)
{
	if (intid != INTID_PMU) {
		others++;
		return;
	}
	irqs++;
	/* A level-sensitive interrupt is taken only while its condition holds. */
	if (!(rd(pmovsset_el0) & 1))
		bogus++;
	pmevcntr_write(0, REARM);
	wr(pmovsclr_el0, 1);
}

static void attack_swinc_flood(void)
{
	pmu_reset();
	pmevtyper_write(0, EV_SW_INCR);
	pmevtyper_write(1, EV_CHAIN);
	pmevcntr_write(0, 0xFFFFFFFFul - 9999);
	wr(pmcntenset_el0, 3);
	wr(pmcr_el0, PMCR_E);
	for (unsigned i = 0; i < 20000; i++)
		wr(pmswinc_el0, ~0ul);
	wr(pmcr_el0, 0);
	uint64_t c0 = pmevcntr_read(0) & 0xFFFFFFFFul, c1 = pmevcntr_read(1);
	/* A PMU without CHAIN (PMCEID0_EL0 bit 0x1E clear: a passed-through QEMU 7.2 one)
	 * counts nothing on counter 1. */
	uint64_t chained = (rd(pmceid0_el0) >> EV_CHAIN) & 1;
	attempt(c0 == 10000 && c1 == chained && (rd(pmovsset_el0) & 1),
		"flood: 20000 PMSWINC counted exactly, one overflow chained",
		"counter0 %lx chain %lx", c0, c1);
	tried += 20000 - 1;
	pmu_reset();
}

static void attack_irq_storm(void)
{
	pmu_reset();
	pmevtyper_write(0, EVT_U | EV_CPU_CYCLES);
	pmevcntr_write(0, REARM);
	wr(pmintenset_el1, 1);
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	irq_unmask();
	for (unsigned i = 0; i < 4000 && irqs < 200; i++)
		spin(1000);
	irq_mask();
	wr(pmcr_el0, 0);
	tried += irqs ? irqs - 1 : 0;
	attempt(bogus == 0 && others == 0,
		"storm: every PMU interrupt taken had its overflow set",
		"%lu of %lu interrupts without an overflow", bogus + others, irqs);
	check(irqs >= 200, "storm: overflow interrupts kept coming", "%u interrupts", irqs);
	pmu_reset();
}

static void attack_masked(void)
{
	/* Every counter overflowing, every interrupt enabled, PSTATE.I masked. */
	pmu_reset();
	irq_mask();
	for (unsigned n = 0; n < N; n++) {
		pmevtyper_write(n, EVT_U | EV_CPU_CYCLES);
		pmevcntr_write(n, 0xFFFFFFFFul - 100);
	}
	wr(pmccfiltr_el0, 0);
	wr(pmccntr_el0, 0xFFFFFFFFul - 100);
	wr(pmintenset_el1, ~0ul);
	wr(pmcntenset_el0, ~0ul);
	wr(pmcr_el0, PMCR_E);
	spin(3000000); /* several slices: the other VMs run, the line stays high */
	uint64_t ovs = rd(pmovsset_el0);
	uint32_t want = (uint32_t)((1ul << N) - 1) | (uint32_t)CYCLE_BIT;
	attempt(ovs == want, "masked: every counter overflowed, nothing else",
		"PMOVSSET %lx, expected %lx", ovs, want);
	unsigned woke = 0;
	for (unsigned i = 0; i < 2000; i++) {
		__asm__ volatile("wfi" ::: "memory");
		woke++;
	}
	tried += woke - 1;
	attempt(woke == 2000 && (gic_ppi_pending() & (1u << INTID_PMU)),
		"masked: WFI returns while the PMU interrupt is pending",
		"%lu of 2000 WFIs returned, pending PPIs %lx", woke, gic_ppi_pending());
	/* And the guest leaves with all of it still pending. */
}

void test_main(void)
{
	N = PMCR_N(rd(pmcr_el0));
	gic_setup(on_irq);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	attack_swinc_flood();
	attack_irq_storm();
	attack_masked();
	attack_report();
	done();
}
