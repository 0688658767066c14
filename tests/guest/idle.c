/* SPDX-License-Identifier: MIT */
/*
 * An idle guest, as an OS idles: `idle.waits=K` times (default 100) it arms its virtual timer
 * 1 ms ahead and waits in WFI, interrupts unmasked, until its handler has taken the timer
 * interrupt (and turned the timer off). Each wait must take one WFI: the vCPU waits for its
 * timer, it does not spin through WFIs that return at once; with idle.prompt_us=T each wake
 * must come within T microseconds of the timer: in time, not in counter ticks, whose rate is
 * CNTFRQ_EL0's (62.5 MHz on QEMU 7.2, 1 GHz from QEMU 9.1's virt on, as Armv8.6 requires:
 * Arm ARM D12). make bench divides the hypervisor's EL2
 * instructions for these waits by K: hyp.idle_ms (tests/guest/run.sh, bench).
 * With idle.near_ns=N it then waits for timers armed 0, 1, 2, ... ticks ahead, up to N ns:
 * however soon a timer fires, at the WFI, as it traps or while the hypervisor decides
 * whether the VM can still wake, it is a wake-up event (Arm ARM D1.7.2.1), and the VM is
 * not ended as one waiting for nothing.
 */
#include "guest.h"

#define INTID_VTIMER 27
#define CNTV_ISTATUS 4u

static volatile unsigned fired;
static volatile uint64_t woke_at;

static void on_irq(uint32_t intid)
{
	if (intid == INTID_VTIMER) {
		woke_at = rd(cntvct_el0);
		wr(cntv_ctl_el0,
		   0); /* the interrupt's condition ends here, as an OS's handler */
		isb();
		fired++;
	}
}

void test_main(void)
{
	unsigned waits = (unsigned)arg_num("idle.waits", 100);
	uint64_t freq = rd(cntfrq_el0), ms = freq / 1000;
	gic_setup(on_irq);
	gic_ppi_enable(INTID_VTIMER, 0x80, true);
	/* idle.prompt_us=T: every wake must come within T us of its timer (when nothing else
	 * runs: with a busy VM beside it, a wake waits for the end of that VM's slice). */
	uint64_t prompt = arg_num("idle.prompt_us", 0), worst = 0;
	unsigned extra = 0;
	for (unsigned i = 0; i < waits; i++) {
		uint64_t t0 = rd(cntvct_el0);
		unsigned before = fired, wfis = 0;
		wr(cntv_cval_el0, t0 + ms);
		wr(cntv_ctl_el0, 1);
		isb();
		irq_unmask();
		while (fired == before) {
			__asm__ volatile("wfi" ::: "memory");
			wfis++;
		}
		irq_mask();
		extra += wfis > 1 ? wfis - 1 : 0;
		uint64_t late = woke_at - (t0 + ms);
		if (late > worst)
			worst = late;
	}
	check(extra == 0, "idle: each 1 ms wait is one WFI: the vCPU waits for its timer",
	      "%u extra WFIs over %u waits", extra, waits);
	uint64_t worst_us = worst * 1000000 / freq;
	if (prompt)
		check(worst <= prompt * freq / 1000000,
		      "idle: every wake comes promptly after its timer",
		      "latest %lu us after it (at most %lu us)", worst_us, prompt);
	CHECK_EQ(fired, waits, "idle: one timer interrupt per wait");
	gprintf("idle: %u waits of 1 ms, the latest wake %lu us (%lu ticks) after its timer\n",
		waits, worst_us, worst);
	uint64_t near = arg_num("idle.near_ns", 0) * freq / 1000000000;
	if (!near)
		return;
	/* PSTATE.I masked from the check to the WFI, which a pending interrupt wakes all the
	 * same: a timer that fires between them does not leave the WFI waiting for nothing. */
	unsigned before = fired;
	for (uint64_t t = 0; t <= near; t++) {
		unsigned f = fired;
		wr(cntv_cval_el0, rd(cntvct_el0) + t);
		wr(cntv_ctl_el0, 1);
		isb();
		while (fired == f) {
			__asm__ volatile("wfi" ::: "memory");
			irq_unmask();
			irq_mask();
		}
	}
	CHECK_EQ(fired - before, near + 1,
		 "idle: timers armed 0 to idle.near_ns ahead, each woke");
}
