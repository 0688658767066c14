/* SPDX-License-Identifier: MIT */
/*
 * An idle guest, as an OS idles: `idle.waits=K` times (default 100) it arms its virtual timer
 * 1 ms ahead and waits in WFI, interrupts unmasked, until its handler has taken the timer
 * interrupt (and turned the timer off). Each wait must take one WFI and last its millisecond:
 * the vCPU waits for its timer, it does not spin through WFIs that return at once. make bench divides the hypervisor's EL2
 * instructions for these waits by K: hyp.idle_ms (tests/guest/run.sh, bench).
 */
#include "guest.h"

#define INTID_VTIMER 27
#define CNTV_ISTATUS 4u

static volatile unsigned fired;

static void on_irq(uint32_t intid)
{
	if (intid == INTID_VTIMER) {
		wr(cntv_ctl_el0, 0); /* the interrupt's condition ends here, as an OS's handler */
		isb();
		fired++;
	}
}

void test_main(void)
{
	unsigned waits = (unsigned)arg_num("idle.waits", 100);
	uint64_t ms = rd(cntfrq_el0) / 1000;
	gic_setup(on_irq);
	gic_ppi_enable(INTID_VTIMER, 0x80, true);
	unsigned extra = 0, short_waits = 0;
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
		short_waits += rd(cntvct_el0) - t0 < ms;
	}
	check(extra == 0, "idle: each 1 ms wait is one WFI: the vCPU waits for its timer",
	      "%u extra WFIs over %u waits", extra, waits);
	CHECK_EQ(short_waits, 0, "idle: no wait ends before its millisecond");
	CHECK_EQ(fired, waits, "idle: one timer interrupt per wait");
	gprintf("idle: %u waits of 1 ms\n", waits);
}
