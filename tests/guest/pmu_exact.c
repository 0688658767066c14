/* SPDX-License-Identifier: MIT */
/*
 * Exactness under -icount shift=0 (one instruction = one cycle): a window of K guest EL1
 * instructions reads exactly K on INST_RETIRED and on CPU_CYCLES (event counter and cycle
 * counter), whether or not the window contains trapped PMU accesses, hypercalls, stage-2
 * MMIO exits or scheduler ticks, and however many other VMs share the CPU. Counters asked to
 * count EL2 (NSH) or EL0 read zero: no hypervisor or foreign instruction leaks in. Every
 * window prints a "count:" line; the runner compares them between a run alone and a run beside
 * three busy VMs.
 */
#include "pmu.h"

#define MASK (CYCLE_BIT | 0x1Ful)
struct counts {
	uint64_t inst, cyc, ccnt, el2, el0;
};

static unsigned N;

static void setup(void)
{
	pmu_reset();
	pmevtyper_write(0, EV_INST_RETIRED | EVT_U);                   /* EL1 only */
	pmevtyper_write(1, EV_CPU_CYCLES | EVT_U);                     /* EL1 only */
	pmevtyper_write(2, EV_INST_RETIRED | EVT_P | EVT_U | EVT_NSH); /* asks for EL2 */
	pmevtyper_write(3, EV_INST_RETIRED | EVT_P);                   /* EL0 only */
	wr(pmccfiltr_el0, EVT_U);
	wr(pmcr_el0, PMCR_E | PMCR_LC);
}

static void collect(struct counts *c)
{
	c->inst = pmevcntr_read(0);
	c->cyc = pmevcntr_read(1);
	c->ccnt = rd(pmccntr_el0);
	c->el2 = pmevcntr_read(2);
	c->el0 = pmevcntr_read(3);
}

/* The windows: opened by the PMCNTENSET write (counting starts after it) and closed by the
 * PMCNTENCLR write, which is counted (it executes with the counters enabled). Each returns
 * K, the instructions counted: those in between plus the closing write. */
static uint64_t w_plain(uint64_t n)
{
	uint64_t m = MASK;
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tsubs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(m), [n] "r"(n)
			 : "x9", "cc", "memory");
	return 2 + 2 * n;
}

static uint64_t w_trapped(uint64_t n)
{
	uint64_t m = MASK;
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tmrs x10, pmcr_el0\n\t"
			 "subs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(m), [n] "r"(n)
			 : "x9", "x10", "cc", "memory");
	return 2 + 3 * n;
}

static uint64_t w_hvc(uint64_t n)
{
	uint64_t m = MASK;
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tmov x0, #0xC6000000\n\t"
			 "hvc #0\n\t"
			 "subs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(m), [n] "r"(n)
			 : "x0", "x1", "x2", "x3", "x9", "cc", "memory");
	return 2 + 4 * n;
}

static uint64_t w_mmio(uint64_t n)
{
	uint64_t m = MASK;
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n\t"
			 "mov x11, %[uart]\n"
			 "1:\tldr w10, [x11, #0x18]\n\t"
			 "subs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(m), [n] "r"(n), [uart] "r"(g_uart_base)
			 : "x9", "x10", "x11", "cc", "memory");
	return 3 + 3 * n;
}

static void run(const char *name, uint64_t (*w)(uint64_t), uint64_t n)
{
	struct counts c;
	char buf[96];
	setup();
	uint64_t k = w(n);
	collect(&c);
	gprintf("count: %s K=%lu inst=%lu cycles=%lu ccnt=%lu el2=%lu el0=%lu\n", name, k,
		c.inst, c.cyc, c.ccnt, c.el2, c.el0);
	unsigned len = 0;
	for (const char *s = name; *s && len < 40; s++)
		buf[len++] = *s;
	const char *sfx[] = {": INST_RETIRED == K", ": CPU_CYCLES == K", ": PMCCNTR == K",
			     ": nothing counted at EL2", ": nothing counted at EL0"};
	uint64_t got[] = {c.inst, c.cyc, c.ccnt, c.el2, c.el0};
	uint64_t want[] = {k, k, k, 0, 0};
	for (unsigned i = 0; i < 5; i++) {
		unsigned l = len;
		for (const char *s = sfx[i]; *s; s++)
			buf[l++] = *s;
		buf[l] = '\0';
		check(got[i] == want[i], buf, "got %lu, expected %lu", got[i], want[i]);
	}
}

void test_main(void)
{
	N = (unsigned)dt_pmu_counters(0);
	if (N < 4) {
		check(false, "exact: needs 4 counters", "N = %u", N);
		return;
	}
	run("exact short", w_plain, 10);
	run("exact plain", w_plain, 100000);
	run("exact trapped", w_trapped, 1000);
	run("exact hvc", w_hvc, 1000);
	run("exact mmio", w_mmio, 1000);
	/* Long enough to span many scheduler ticks. */
	run("exact long", w_plain, 3000000);
	run("exact long trapped", w_trapped, 30000);
	pmu_reset();
}
