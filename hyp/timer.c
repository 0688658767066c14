/* SPDX-License-Identifier: MIT */
/*
 * Timers (Arm ARM D12, the Generic Timer).
 *
 * The scheduler tick is the EL2 physical timer (CNTHP_*_EL2, INTID 26): it fires at the end
 * of the current slice. QEMU 7.2 notices an event counter's overflow only at a PMU operation
 * or an exception-level change (its overflow timer is armed one count early and never
 * re-armed), so while the hardware has an event counter whose overflow interrupts
 * (hyp.plat.pmu.event_irq, tracked from the PMU enables it is given: plat_sysreg.h), the timer
 * also fires for a poll: that exit lets QEMU see the overflow. The poll is set for the soonest
 * moment one of those counters can overflow, or one `pmu_poll` period from now if that is
 * later: no QEMU event counts faster than one a nanosecond of virtual time (CPU_CYCLES is
 * virtual ns at 1 GHz, INST_RETIRED one per 2^shift ns under -icount), so the guest gets its
 * interrupt within one period of the overflow, and a counter far from overflowing (a counting
 * event's, 2^31 away) costs no poll at all. A counter written while they run sets the poll
 * again (plat_pmu_event_counter_written). Neither exit is visible to guest counters.
 *
 * A passthrough vCPU (pmu_passthrough=on) writes its PMU without a trap, so no deadline can
 * be known: while it runs, the poll comes every `pmu_poll` period, whatever its counters
 * are. Such a poll is the exit itself, which is what QEMU needs: the fast vectors serve it
 * at the exception entry (vectors.S, vcpu.poll_ticks), in about twenty instructions.
 *
 * Guests get the physical counter (CNTHCTL_EL2.EL1PCTEN) and their own virtual timer
 * (CNTV_*_EL0, INTID 27), switched with the vCPU; the EL1 physical timer traps (EL1PCEN = 0)
 * and is RAZ/WI. The CNTV interrupt is taken at EL2 (HCR_EL2.IMO): its level (ENABLE &&
 * ISTATUS && !IMASK) is copied to the vCPU's virtual line 27 and the physical PPI is disabled
 * until the guest's timer condition clears, so a level that stays high does not storm the
 * hypervisor.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

#define CNT_ENABLE 1ul
#define CNT_IMASK 2ul
#define CNT_ISTATUS 4ul

uint64_t timer_now(void)
{
	return read_sysreg(S3_3_C14_C0_1); /* CNTPCT_EL0 */
}

/* Ticks until the soonest overflow of an event counter that can interrupt: counts to the
 * overflow point (bit 31, or bit 63 with PMCR_EL0.LP, Arm ARM D24.5.8) at one a nanosecond. */
static uint64_t ticks_to_overflow(void)
{
	struct plat_pmu_enables *e = &hyp.plat.pmu;
	uint32_t live = e->cnten & e->inten & 0x7FFFFFFFu;
	bool lp = read_sysreg(S3_3_C9_C12_0) & PV_PMCR_LP; /* PMCR_EL0 */
	uint64_t soonest = UINT64_MAX;
	for (unsigned n = 0; live; n++, live >>= 1) {
		if (!(live & 1))
			continue;
		uint64_t v = pv_plat_pmevcntr_read(&hyp.pcpu, n);
		/* 0 is a whole 2^64 away, more than a uint64_t holds: capped below anyway. */
		uint64_t left = lp ? (v ? -v : UINT64_MAX) : (UINT64_C(1) << 32) - (uint32_t)v;
		if (left < soonest)
			soonest = left;
	}
	if (soonest > (UINT64_C(1) << 40)) /* far off (18 minutes): no product overflow */
		soonest = UINT64_C(1) << 40;
	return soonest * hyp.cntfrq / 1000000000u;
}

void timer_program(void)
{
	uint64_t cval = hyp.slice_deadline;
	hyp.poll_armed = false;
	/* A passthrough vCPU polls at a fixed period (its poll_ticks, pmu_poll_ticks). */
	const struct vcpu *cur = hyp.current;
	bool fixed = cur && cur->poll_ticks;
	if (hyp.pmu_poll_ticks && (fixed || hyp.plat.pmu.event_irq)) {
		uint64_t wait = fixed ? 0 : ticks_to_overflow();
		uint64_t poll = timer_now() +
				(wait > hyp.pmu_poll_ticks ? wait : hyp.pmu_poll_ticks);
		if (poll < cval) {
			cval = poll;
			hyp.poll_armed = true;
		}
	}
	write_sysreg(S3_4_C14_C2_2, cval);       /* CNTHP_CVAL_EL2 */
	write_sysreg(S3_4_C14_C2_1, CNT_ENABLE); /* CNTHP_CTL_EL2 */
	isb();
}

/* The PMU can now interrupt for an event counter (plat_sysreg.h, a write the vPMU or a load
 * just made): the poll starts at once. When they stop, an armed poll fires once and re-arms
 * for the slice. Before the first slice, timer_rearm decides. */
void plat_pmu_event_irq_started(struct pv_pcpu *cpu)
{
	(void)cpu; /* the one pCPU */
	if (hyp.pmu_poll_ticks && hyp.current && !hyp.poll_armed)
		timer_program();
}

/* The poll waits for the soonest overflow: a counter written may have brought it nearer. */
void plat_pmu_event_counter_written(struct pv_pcpu *cpu)
{
	(void)cpu; /* the one pCPU */
	if (hyp.pmu_poll_ticks && hyp.current)
		timer_program();
}

bool timer_slice_over(void)
{
	return timer_now() >= hyp.slice_deadline;
}

void timer_rearm(void)
{
	isb();
	hyp.slice_deadline = timer_now() + hyp.slice_ticks;
	timer_program();
}

void timer_init(uint64_t slice_ticks, uint64_t poll_ticks)
{
	hyp.slice_ticks = slice_ticks;
	hyp.pmu_poll_ticks = poll_ticks;
	hyp.cntfrq = read_sysreg(cntfrq_el0);
	write_sysreg(S3_4_C14_C1_0, 1ul); /* CNTHCTL_EL2: EL1PCTEN = 1, EL1PCEN = 0 */
	write_sysreg(S3_4_C14_C0_3, 0ul); /* CNTVOFF_EL2: virtual time = physical time */
	write_sysreg(S3_3_C14_C3_1, 0ul); /* CNTV_CTL_EL0 off until a guest programs it */
	isb();
}

/* When a virtual timer with these CNTV_CTL/CVAL raises its interrupt (CNTVOFF_EL2 = 0:
 * virtual time is physical time), or UINT64_MAX if it cannot (disabled or masked). */
uint64_t vtimer_deadline(uint64_t ctl, uint64_t cval)
{
	return (ctl & (CNT_ENABLE | CNT_IMASK)) == CNT_ENABLE ? cval : UINT64_MAX;
}

/* The pCPU is idle (sched.c): the EL2 timer wakes it at `deadline`, or not at all. */
void timer_wake_at(uint64_t deadline)
{
	hyp.poll_armed = false;
	if (deadline == UINT64_MAX) {
		write_sysreg(S3_4_C14_C2_1, 0ul);
	} else {
		write_sysreg(S3_4_C14_C2_2, deadline);
		write_sysreg(S3_4_C14_C2_1, CNT_ENABLE);
	}
	isb();
}

/* Recompute the loaded vCPU's virtual timer line from CNTV_CTL_EL0. */
void vtimer_sync(struct vcpu *v)
{
	uint64_t ctl = read_sysreg(S3_3_C14_C3_1);
	bool level = (ctl & (CNT_ENABLE | CNT_IMASK | CNT_ISTATUS)) ==
		     (CNT_ENABLE | CNT_ISTATUS);
	vgic_set_line(v, INTID_VTIMER, level);
	gic_enable_ppi(INTID_VTIMER, !level);
}
