/* SPDX-License-Identifier: MIT */
/*
 * Counting behaviour (Arm ARM D14.3.1 / D24.5): SW_INCR, CHAIN (software and hardware-driven),
 * 32- and 64-bit overflow of event counters (PMCR.LP) and of the cycle counter (PMCR.LC), and
 * the overflow interrupt: delivered through the GIC exactly once per overflow, with level
 * semantics (still asserted after EOI if PMOVS was not cleared), gated by PMINTEN, the
 * redistributor enable and the priority mask.
 *
 * QEMU 7.2 arms its event-counter overflow timer one count early and then never re-arms it
 * (target/arm/helper.c pmevcntr_op_finish: delta = -(count + 1)), so an event counter's
 * overflow is only noticed at the next PMU operation or exception-level change; settle()
 * makes one (a trapped PMCR read) where a test waits for such an overflow. The cycle counter
 * is not affected.
 */
#include "pmu.h"

static unsigned N;
static volatile unsigned irqs, irq_other;
static volatile uint64_t irq_ovs;
static volatile bool irq_leave_set; /* handler does not clear PMOVS once */

static void settle(void)
{
	(void)rd(pmcr_el0);
	spin(10);
}

static void on_irq(uint32_t intid)
{
	if (intid != INTID_PMU) {
		irq_other++;
		return;
	}
	irqs++;
	uint64_t ovs = rd(pmovsset_el0);
	irq_ovs |= ovs;
	if (irq_leave_set)
		irq_leave_set = false;
	else
		wr(pmovsclr_el0, ovs);
}

static void test_swincr(void)
{
	pmu_reset();
	pmevtyper_write(0, EV_SW_INCR);
	pmevtyper_write(1, EV_INST_RETIRED | EVT_P);
	wr(pmcntenset_el0, 3);
	wr(pmcr_el0, PMCR_E);
	for (int i = 0; i < 5; i++)
		wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 5, "sw_incr: five PMSWINC writes count five");
	wr(pmswinc_el0, 2);
	CHECK_EQ(pmevcntr_read(1), 0, "sw_incr: PMSWINC ignores counters of other events");
	wr(pmswinc_el0, 0xFFFFFFFFul & ~1ul);
	CHECK_EQ(pmevcntr_read(0), 5, "sw_incr: PMSWINC bits of other counters ignored");
	wr(pmcntenclr_el0, 1);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 5, "sw_incr: disabled counter does not count");
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, 0);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 5, "sw_incr: PMCR.E = 0 stops it");
	CHECK_EQ(UNDEFS((void)rd(S3_3_C9_C12_4)), 1, "sw_incr: PMSWINC read UNDEFINED");
}

static void test_overflow(void)
{
	pmu_reset();
	pmevtyper_write(0, EV_SW_INCR);
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	pmevcntr_write(0, 0xFFFFFFFFul);
	wr(pmswinc_el0, 1);
	uint64_t v = pmevcntr_read(0);
	CHECK_EQ(v & 0xFFFFFFFFul, 0, "overflow32: counter wraps at 2^32 (LP = 0)");
	CHECK_EQ(rd(pmovsset_el0), 1, "overflow32: PMOVS bit set");
	wr(pmovsclr_el0, 1);
	CHECK_EQ(rd(pmovsset_el0), 0, "overflow32: PMOVSCLR clears it");

	wr(pmcr_el0, PMCR_E | PMCR_LP);
	pmevcntr_write(0, 0xFFFFFFFFul);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 0x100000000ul, "overflow64: LP = 1 counts past 2^32");
	CHECK_EQ(rd(pmovsset_el0), 0, "overflow64: no overflow at 2^32 with LP = 1");
	pmevcntr_write(0, ~0ul);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 0, "overflow64: counter wraps at 2^64");
	CHECK_EQ(rd(pmovsset_el0), 1, "overflow64: PMOVS bit set at 2^64");
	pmu_reset();

	/* Cycle counter: PMCR.LC picks 32- or 64-bit overflow. */
	wr(pmccfiltr_el0, 0);
	wr(pmccntr_el0, 0xFFFFFF00ul);
	wr(pmcntenset_el0, CYCLE_BIT);
	wr(pmcr_el0, PMCR_E);
	spin(1000);
	wr(pmcr_el0, 0);
	CHECK_EQ(rd(pmovsset_el0), CYCLE_BIT, "cycle overflow32: LC = 0 overflows at 2^32");
	wr(pmovsclr_el0, CYCLE_BIT);
	wr(pmccntr_el0, 0xFFFFFF00ul);
	wr(pmcr_el0, PMCR_E | PMCR_LC);
	spin(1000);
	wr(pmcr_el0, PMCR_LC);
	CHECK_EQ(rd(pmovsset_el0), 0, "cycle overflow64: LC = 1 does not overflow at 2^32");
	CHECK(rd(pmccntr_el0) > 0x100000000ul, "cycle overflow64: counts past 2^32");
	wr(pmccntr_el0, ~0ul - 0x100);
	wr(pmcr_el0, PMCR_E | PMCR_LC);
	spin(1000);
	wr(pmcr_el0, PMCR_LC);
	CHECK_EQ(rd(pmovsset_el0), CYCLE_BIT, "cycle overflow64: overflows at 2^64");
	pmu_reset();
}

static void test_chain(void)
{
	if (N < 4) {
		check(true, "chain: skipped (needs 4 counters)", "-");
		return;
	}
	pmu_reset();
	pmevtyper_write(0, EV_SW_INCR);
	pmevtyper_write(1, EV_CHAIN);
	pmevcntr_write(0, 0xFFFFFFFFul);
	wr(pmcntenset_el0, 3);
	wr(pmcr_el0, PMCR_E);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(1), 1, "chain: odd counter counts the even counter's overflow");
	CHECK_EQ(rd(pmovsset_el0), 1, "chain: only the even counter overflowed");
	pmevcntr_write(1, 0xFFFFFFFFul);
	pmevcntr_write(0, 0xFFFFFFFFul);
	wr(pmswinc_el0, 1);
	CHECK_EQ(rd(pmovsset_el0), 3, "chain: the odd counter overflows in turn");
	pmu_reset();

	/* Hardware event on counter 2, CHAIN on counter 3 (QEMU does not implement CHAIN: the
	 * vPMU must produce it from the overflow of counter 2). */
	pmevtyper_write(2, EV_INST_RETIRED | EVT_U);
	pmevtyper_write(3, EV_CHAIN);
	pmevcntr_write(2, 0xFFFFFFFFul - 500);
	pmevcntr_write(3, 7);
	wr(pmcntenset_el0, 0xC);
	wr(pmcr_el0, PMCR_E);
	spin(1000);
	wr(pmcr_el0, 0);
	CHECK_EQ(pmevcntr_read(3), 8,
		 "chain: INST_RETIRED overflow of counter 2 increments counter 3");
	CHECK_EQ(rd(pmovsset_el0), 4, "chain: counter 2 overflow flagged");
	uint64_t low = pmevcntr_read(2) & 0xFFFFFFFFul;
	check(low > 1000 && low < 1600, "chain: counter 2 kept counting past the wrap", "0x%lx",
	      low);
	pmu_reset();
	pmevtyper_write(2, 0);
	pmevtyper_write(3, 0);
}

/* Overflow of counter 0 (INST_RETIRED at EL1) with its interrupt enabled. */
static void arm_overflow(uint64_t before)
{
	pmevtyper_write(0, EV_INST_RETIRED | EVT_U);
	pmevcntr_write(0, 0xFFFFFFFFul - before);
	wr(pmcntenset_el0, 1);
}

static void test_irq(void)
{
	gic_setup(on_irq);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	pmu_reset();

	irqs = 0;
	irq_ovs = 0;
	arm_overflow(2000);
	wr(pmintenset_el1, 1);
	irq_unmask();
	wr(pmcr_el0, PMCR_E);
	spin(5000);
	settle();
	CHECK_EQ(irqs, 1, "irq: one overflow, one interrupt");
	CHECK_EQ(irq_ovs, 1, "irq: handler saw counter 0's overflow");
	spin(5000);
	settle();
	wr(pmcr_el0, 0);
	CHECK_EQ(irqs, 1, "irq: no further interrupt after PMOVSCLR and EOI");
	CHECK_EQ(irq_other, 0, "irq: no spurious interrupt IDs");

	/* Overflow with PMINTEN clear: no interrupt; enabling it later raises the level. */
	irqs = 0;
	wr(pmintenclr_el1, 1);
	arm_overflow(100);
	wr(pmcr_el0, PMCR_E);
	spin(1000);
	wr(pmcr_el0, 0);
	CHECK_EQ(irqs, 0, "irq: PMINTEN clear, no interrupt");
	CHECK_EQ(rd(pmovsset_el0), 1, "irq: overflow still recorded");
	wr(pmcr_el0, PMCR_E);
	wr(pmintenset_el1, 1);
	spin(10);
	CHECK_EQ(irqs, 1, "irq: enabling PMINTEN on a pending overflow interrupts at once");
	wr(pmcr_el0, 0);

	/* Redistributor enable and the priority mask gate delivery; the level waits. */
	irqs = 0;
	gic_ppi_enable(INTID_PMU, 0x80, false);
	wr(pmovsset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	spin(100);
	CHECK_EQ(irqs, 0, "irq: disabled in the redistributor, not delivered");
	CHECK(gic_ppi_pending() & (1u << INTID_PMU),
	      "irq: GICR_ISPENDR0 shows INTID 23 pending");
	gic_set_pmr(0x80);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	spin(100);
	CHECK_EQ(irqs, 0, "irq: masked by ICC_PMR_EL1 (priority 0x80 >= mask 0x80)");
	gic_set_pmr(0xFF);
	spin(10);
	CHECK_EQ(irqs, 1, "irq: delivered once the priority mask allows it");

	/* Level semantics: EOI without clearing PMOVS delivers it again. */
	irqs = 0;
	irq_leave_set = true;
	wr(pmovsset_el0, 1);
	spin(100);
	CHECK_EQ(irqs, 2, "irq: still asserted after EOI, delivered again until PMOVS cleared");

	/* SW_INCR and cycle counter overflows interrupt too. */
	irqs = 0;
	irq_ovs = 0;
	pmevtyper_write(1, EV_SW_INCR);
	pmevcntr_write(1, 0xFFFFFFFFul);
	wr(pmcntenset_el0, 2);
	wr(pmintenset_el1, 2 | CYCLE_BIT);
	wr(pmswinc_el0, 2);
	spin(10);
	CHECK_EQ(irqs, 1, "irq: SW_INCR overflow interrupts once");
	wr(pmccntr_el0, 0xFFFFFFFFul - 300);
	wr(pmcntenset_el0, CYCLE_BIT);
	spin(1000);
	wr(pmcr_el0, 0);
	CHECK_EQ(irqs, 2, "irq: cycle counter overflow interrupts once");
	CHECK_EQ(irq_ovs, 2 | CYCLE_BIT, "irq: handler saw both overflow bits");
	irq_mask();
	pmu_reset();
}

/* Count, stop, then wait for the interrupt: an overflow that happened while the counter
 * counted interrupts after counting stopped, however it stopped: PMCNTENCLR, a type change,
 * or PMCR.E = 0 (then it waits for E, which gates the interrupt). The interrupt is masked
 * while the counter counts, so nothing is taken before the stop. */
enum stop_by { STOP_CNTENCLR, STOP_TYPE, STOP_PMCR_E };

static void test_irq_after_stop(enum stop_by how, const char *name)
{
	pmu_reset();
	irqs = 0;
	irq_ovs = 0;
	arm_overflow(2000);
	wr(pmintenset_el1, 1);
	wr(pmcr_el0, PMCR_E);
	spin(5000); /* the overflow: about 10000 instructions */
	if (how == STOP_CNTENCLR)
		wr(pmcntenclr_el0, 1);
	else if (how == STOP_TYPE)
		pmevtyper_write(0, EV_SW_INCR);
	else
		wr(pmcr_el0, 0);
	irq_unmask();
	spin(1000);
	if (how == STOP_PMCR_E) {
		check(irqs == 0, name, "%u interrupts with PMCR_EL0.E = 0", irqs);
		check(rd(pmovsset_el0) == 1, name, "PMOVSSET %lx after the stop",
		      rd(pmovsset_el0));
		wr(pmcr_el0, PMCR_E);
		spin(100);
	}
	irq_mask();
	check(irqs == 1 && irq_ovs == 1, name, "%u interrupts, overflow bits seen %lx", irqs,
	      irq_ovs);
	pmu_reset();
}

void test_main(void)
{
	N = (unsigned)dt_pmu_counters(0);
	test_swincr();
	test_overflow();
	test_chain();
	test_irq();
	test_irq_after_stop(STOP_CNTENCLR,
			    "irq: overflow then PMCNTENCLR: the interrupt comes");
	test_irq_after_stop(STOP_TYPE, "irq: overflow then a type change: the interrupt comes");
	test_irq_after_stop(STOP_PMCR_E,
			    "irq: overflow then PMCR.E = 0: the interrupt comes with E");
}
