/* SPDX-License-Identifier: MIT */
/*
 * A passed-through PMU's overflow interrupt, presented mapped (docs/vpmu.md, "Passthrough":
 * ICH_LR<n>_EL2.HW = 1, pINTID 23), as the GIC architecture (IHI 0069) says a level-sensitive
 * INTID 23 behaves, whatever list register, physical active state or PPI enable the
 * hypervisor uses for it, and across switches; and that nothing of it reaches the next VM.
 * Run as three VMs (tests/guest/run.sh, scenario mapped_irq), in this order on the pCPU:
 *
 * - the owner (any name but those below), its PMU passed through, raises its overflow with
 *   PMOVSSET_EL0 (the level is PMCR_EL0.E && PMINTEN && PMOVS: Arm ARM D13.3.1) and runs
 *   with EOImode 1, so that its EOI only drops the priority and INTID 23 stays active until
 *   its ICC_DIR_EL1 write. It checks: an active INTID 23 is not taken again before it is
 *   deactivated, through several slices; deactivated with its level still high, it is
 *   pending again and taken at once, also after slices spent active (the physical
 *   interrupt's active state went with the vCPU); a software pending state (GICR_ISPENDR0)
 *   and the overflow are one INTID, taken one at a time, never twice at once; a pending
 *   INTID 23 the guest disables (its enable, or its group) is not taken, and comes once it
 *   is enabled again; GICR_ICACTIVER0 deactivates it; WFI with PSTATE.I masked wakes for it
 *   (Arm ARM D1.7.2.1). Then it powers off with INTID 23 active and its overflow raised.
 * - "trapped", whose PMU traps, runs right after the owner at every switch: its cycle
 *   counter overflows over and over, and each overflow must be taken at once, while the
 *   owner holds INTID 23 active, held back or latched, and after the owner has ended.
 *   Whatever a VM leaves in the physical GIC (INTID 23 active, its PPI disabled) would hold
 *   its interrupt back, and it has no way to undo that itself.
 * - "neighbour", its PMU passed through too, does the same with PMOVSSET_EL0 (its own
 *   deactivations may undo what the owner left, so it is the trapped VM that must notice);
 *   then, alone, it waits in WFI for an overflow with the pCPU idle: the interrupt wakes it.
 *
 * The other two run for `mapped.ms` ms of virtual time (default 12; the neighbour 2 more),
 * longer than the owner: the runner checks the order in which they end.
 */
#include "pmu.h"

#define ICC_DIR_EL1 S3_0_C12_C11_1
#define ICC_CTLR_EL1 S3_0_C12_C12_4
#define CTLR_EOIMODE (1ul << 1)
#define GICR_CTLR_RWP (1u << 3)
#define GICD_CTLR_RWP (1u << 31)
#define GICD_CTLR_ARE (1u << 4)
#define GICD_CTLR_GRP1 (1u << 1)
#define SGI (g_gicr_base + 0x10000ul)
#define ISENABLER0 0x100
#define ICENABLER0 0x180
#define ISPENDR0 0x200
#define ISACTIVER0 0x300
#define ICACTIVER0 0x380
#define BIT23 (1u << INTID_PMU)
#define INTID_VTIMER 27

/* "At once": the guest instructions (two a round) an interrupt raised or made pending again
 * may take to arrive. It arrives at the next instruction boundary; a switch in between only
 * delays it by the other VMs' slices, which the guest's own instructions do not count. */
#define SOON 100
/* Several slices of the guest's own: 200,000 instructions, 4 slices of 50 us. */
#define SLICES 100000

static volatile unsigned irqs, others;

static uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

static void wr32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

/* The owner's: counts, and leaves the level and the active state to the tests. The
 * library's EOI follows (with EOImode 1, a priority drop only). */
static void owner_irq(uint32_t intid)
{
	if (intid == INTID_PMU)
		irqs++;
	else
		others++;
}

static void level(bool high)
{
	if (high)
		wr(pmovsset_el0, 1);
	else
		wr(pmovsclr_el0, 1);
	isb();
}

static void deactivate(void)
{
	wr(ICC_DIR_EL1, INTID_PMU);
	isb();
}

static uint32_t active(void)
{
	return rd32(SGI + ISACTIVER0) & BIT23;
}

static uint32_t pending(void)
{
	return rd32(SGI + ISPENDR0) & BIT23;
}

/* A write to the redistributor's enables has taken effect once GICR_CTLR.RWP reads 0. */
static void enable(bool on)
{
	wr32(SGI + (on ? ISENABLER0 : ICENABLER0), BIT23);
	while (rd32(g_gicr_base) & GICR_CTLR_RWP)
		;
}

static void group1(bool on)
{
	wr32(g_gicd_base, GICD_CTLR_ARE | (on ? GICD_CTLR_GRP1 : 0));
	while (rd32(g_gicd_base) & GICD_CTLR_RWP)
		;
}

/* Spins SLICES rounds; whether another VM ran meanwhile: the virtual counter (CNTVOFF_EL2
 * is 0, so all of the machine's time) moved 40 us past the guest's own instructions (one a
 * nanosecond under -icount shift=0): more than the hypervisor's own exits take over them,
 * less than another VM's slice of 50 us. */
static bool across_slices(void)
{
	uint64_t t0 = rd(cntvct_el0);
	spin(SLICES);
	uint64_t ns = (rd(cntvct_el0) - t0) * 1000000000ul / rd(cntfrq_el0);
	return ns > 2 * SLICES + 40000;
}

/* The owner's overflow, taken: INTID 23 active, its level still high. */
static bool take(const char *name)
{
	unsigned before = irqs;
	level(true);
	spin(SOON);
	return check(irqs == before + 1 && active(), name, "%u interrupts, active %u",
		     irqs - before, active());
}

/* Ends one test: the level low, INTID 23 deactivated, nothing more taken. */
static void settle(void)
{
	level(false);
	deactivate();
	spin(SOON);
}

static void active_across_slices(void)
{
	take("active: the raised overflow is taken at once, INTID 23 active after its EOI");
	unsigned n = irqs;
	bool away = across_slices();
	check(away && irqs == n && active(),
	      "active: not taken again before its deactivation, through slices of the other VM",
	      "other VM ran %d, %u more interrupts, active %u", away, irqs - n, active());
	deactivate();
	spin(SOON);
	check(irqs == n + 1 && active(),
	      "active: deactivated after slices away with its level high: pending again, taken "
	      "at once",
	      "%u more interrupts, active %u", irqs - n, active());
	n = irqs;
	settle();
	CHECK_EQ(irqs - n, 0, "active: its level low, deactivated: not taken again");
}

/* A software pending state in a list register first, then the overflow: one INTID, so the
 * second waits for the first's deactivation (no two list registers hold one vINTID). */
static void latch_then_overflow(void)
{
	unsigned n = irqs;
	irq_mask();
	wr32(SGI + ISPENDR0, BIT23);
	level(true);
	irq_unmask();
	spin(SOON);
	bool away = across_slices();
	check(away && irqs == n + 1 && active(),
	      "latched, then raised: taken once, not again while active, through slices",
	      "other VM ran %d, %u interrupts, active %u", away, irqs - n, active());
	deactivate();
	spin(SOON);
	check(irqs == n + 2 && active(),
	      "latched, then raised: once the latched one is deactivated, the raised level is "
	      "taken at once",
	      "%u interrupts, active %u", irqs - n, active());
	n = irqs;
	settle();
	CHECK_EQ(irqs - n, 0, "latched, then raised: nothing more once both are done");
}

/* Pending, not yet taken (PSTATE.I masked), then disabled: a disabled interrupt is not
 * signalled; enabled again, with its level still high, it is. `by_group`: GICD_CTLR's
 * EnableGrp1 instead of its own enable. */
static void disabled_while_pending(bool by_group)
{
	static const char *const names[2][2] = {
		{"disabled: INTID 23 disabled while pending: not taken, through slices",
		 "disabled: INTID 23 enabled again, the level high: taken at once"},
		{"disabled: group 1 off with INTID 23 pending: not taken, through slices",
		 "disabled: group 1 on again, the level high: taken at once"},
	};
	const char *off = names[by_group][0], *on = names[by_group][1];
	unsigned n = irqs;
	irq_mask();
	level(true);
	spin(SOON);
	uint32_t was_pending = pending();
	if (by_group)
		group1(false);
	else
		enable(false);
	irq_unmask();
	spin(SOON);
	bool away = across_slices();
	check(was_pending && away && irqs == n, off,
	      "pending before %u, other VM ran %d, %u interrupts taken while disabled",
	      was_pending, away, irqs - n);
	if (by_group)
		group1(true);
	else
		enable(true);
	spin(SOON);
	check(irqs == n + 1 && active(), on, "%u interrupts, active %u", irqs - n, active());
	settle();
}

/* Taken and active; the overflow cleared; made pending by software (GICR_ISPENDR0): active
 * and pending, taken once, after its deactivation (the hypervisor looks at the pending
 * state at the WFI that waits for it). */
static void latch_while_active(void)
{
	take("latched while active: the raised overflow is taken");
	unsigned n = irqs;
	level(false);
	wr32(SGI + ISPENDR0, BIT23);
	spin(SOON);
	check(irqs == n && pending() && active(),
	      "latched while active: active and pending, not taken before its deactivation",
	      "%u more interrupts, pending %u, active %u", irqs - n, pending(), active());
	deactivate();
	for (unsigned i = 0; i < 10 && irqs == n; i++)
		__asm__ volatile("wfi" ::: "memory");
	check(irqs == n + 1 && active(), "latched while active: taken once it is deactivated",
	      "%u more interrupts, active %u", irqs - n, active());
	deactivate();
	spin(SOON);
	bool away = across_slices();
	check(away && irqs == n + 1 && !pending() && !active(),
	      "latched while active: one software pending state, one interrupt",
	      "other VM ran %d, %u more interrupts, pending %u, active %u", away, irqs - n,
	      pending(), active());
}

/* GICR_ICACTIVER0 deactivates it as ICC_DIR_EL1 does: the next overflow comes. */
static void icactiver(void)
{
	take("icactiver: the raised overflow is taken");
	level(false);
	wr32(SGI + ICACTIVER0, BIT23);
	CHECK_EQ(active(), 0, "icactiver: GICR_ICACTIVER0 deactivates INTID 23");
	take("icactiver: the next overflow is taken at once");
	settle();
}

/* A WFI wakes for a pending INTID 23 with PSTATE.I masked (Arm ARM D1.7.2.1). */
static void wfi_masked(void)
{
	unsigned n = irqs;
	irq_mask();
	level(true);
	unsigned woke = 0;
	for (unsigned i = 0; i < 20; i++) {
		__asm__ volatile("wfi" ::: "memory");
		woke++;
	}
	check(woke == 20 && pending() && irqs == n,
	      "wfi: returns with INTID 23 pending, masked", "%u WFIs returned, pending %u",
	      woke, pending());
	irq_unmask();
	spin(SOON);
	CHECK_EQ(irqs - n, 1, "wfi: unmasked, taken");
	settle();
}

static void owner(void)
{
	gic_setup(owner_irq);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	wr(ICC_CTLR_EL1, rd(ICC_CTLR_EL1) | CTLR_EOIMODE);
	isb();
	pmu_reset();
	wr(pmintenset_el1, 1);
	wr(pmcr_el0, PMCR_E);
	irq_unmask();
	active_across_slices();
	latch_then_overflow();
	disabled_while_pending(false);
	disabled_while_pending(true);
	latch_while_active();
	icactiver();
	wfi_masked();
	CHECK_EQ(others, 0, "no other interrupt taken");
	/* It ends with INTID 23 active and its level high: the neighbour's, next, must come. */
	take("end: powers off with INTID 23 active, its overflow raised");
	done();
}

/* ---- The trapped VM and the neighbour: their interrupts come, whatever the owner left ---- */

static volatile unsigned nb_irqs, nb_bogus, nb_timer;
static uint32_t nb_bit; /* the counter whose overflow it raises: 0, or the cycle counter */

/* Its own overflow, cleared, and deactivated by the EOI (EOImode 0); its virtual timer,
 * turned off. */
static void neighbour_irq(uint32_t intid)
{
	if (intid == INTID_VTIMER) {
		wr(cntv_ctl_el0, 0);
		isb();
		nb_timer++;
		return;
	}
	if (intid != INTID_PMU || !(rd(pmovsset_el0) & nb_bit)) {
		nb_bogus++;
		return;
	}
	wr(pmovsclr_el0, nb_bit);
	isb();
	nb_irqs++;
}

/* Raises an overflow, over and over for `mapped.ms` ms of virtual time: each must be taken
 * at once. The neighbour's PMU is passed through: it writes PMOVSSET_EL0, and its interrupt
 * is mapped too. The trapped VM's PMU traps (its event filter rules passthrough out), so
 * PMOVSSET_EL0 would be perfvisor's alone: its cycle counter overflows in the hardware, 100
 * cycles after it is set, and the physical interrupt reaches it through EL2 as a line. */
static void raise_overflows(const char *who, bool trapped, uint64_t ms)
{
	nb_bit = trapped ? (uint32_t)CYCLE_BIT : 1u;
	gic_setup(neighbour_irq);
	gic_ppi_enable(INTID_PMU, 0x80, true);
	pmu_reset();
	wr(pmccfiltr_el0, 0);
	wr(pmintenset_el1, nb_bit);
	wr(pmcntenset_el0, nb_bit);
	wr(pmcr_el0, PMCR_E | PMCR_LC);
	irq_unmask();
	uint64_t end = rd(cntvct_el0) + ms * (rd(cntfrq_el0) / 1000);
	unsigned trials = 0, late = 0;
	while (rd(cntvct_el0) < end) {
		unsigned n = nb_irqs;
		if (trapped)
			wr(pmccntr_el0, ~0ul - 100);
		else
			wr(pmovsset_el0, nb_bit);
		isb();
		spin(SOON);
		if (nb_irqs != n + 1) {
			late++;
			/* it may come later, and is then counted as taken without an overflow */
			wr(pmovsclr_el0, nb_bit);
			isb();
		}
		trials++;
		spin(SOON);
	}
	wr(pmcntenclr_el0, nb_bit);
	isb();
	gprintf("%s: %u overflows raised, %u late\n", who, trials, late);
	check(trials > 500 && late == 0 && nb_bogus == 0,
	      "every overflow taken at once, while the owner held INTID 23 and after it ended",
	      "%u of %u late, %u taken without an overflow", late, trials, nb_bogus);
}

/* Alone now, the others ended: a counter that overflows just before a WFI, 16 times. The
 * interrupt is a wake-up event for the WFI (Arm ARM D1.7.2.1), whether it reached the CPU
 * before the WFI or after the WFI trapped and the pCPU went to wait at EL2 with this vCPU
 * loaded; its virtual timer, 1 ms ahead, is the backstop. */
static void neighbour_wfi(void)
{
	gic_ppi_enable(INTID_VTIMER, 0x80, true);
	pmevtyper_write(0, EV_INST_RETIRED);
	unsigned late = 0;
	for (unsigned round = 0; round < 16; round++) {
		uint64_t backstop = rd(cntvct_el0) + rd(cntfrq_el0) / 1000;
		wr(cntv_cval_el0, backstop);
		wr(cntv_ctl_el0, 1);
		unsigned n = nb_irqs;
		pmevcntr_write(0, 0xFFFFFFFFul - 20);
		wr(pmcntenset_el0, 1);
		isb();
		spin(SOON + 7 * round);
		for (unsigned i = 0; i < 10 && nb_irqs == n; i++)
			__asm__ volatile("wfi" ::: "memory");
		if (nb_irqs != n + 1 || nb_timer || rd(cntvct_el0) >= backstop)
			late++;
		wr(pmcntenclr_el0, 1);
		wr(cntv_ctl_el0, 0);
		isb();
	}
	check(late == 0 && !nb_timer,
	      "neighbour: a WFI wakes for its overflow, before its timer",
	      "%u of 16 woke late, the timer fired %u times", late, nb_timer);
}

void test_main(void)
{
	const char *name = dt_vm_name();
	uint64_t ms = arg_num("mapped.ms", 12);
	if (name && !strncmp(name, "trapped", 7)) {
		raise_overflows("trapped", true, ms);
		done();
	}
	if (name && !strncmp(name, "neighbour", 9)) {
		raise_overflows("neighbour", false, ms + 2);
		neighbour_wfi();
		done();
	}
	owner();
}
