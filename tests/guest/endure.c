/* SPDX-License-Identifier: MIT */
/*
 * Endurance: random PMU programs, every window's counts exact, however many VMs share the
 * pCPU and however long. Each round programs a random subset of the VM's counters, each with
 * a random one of:
 *   INST_RETIRED at EL1 (PMEVTYPER U = 1)       the window's K instructions, exactly;
 *   CPU_CYCLES at EL1                           K too (-icount shift=0: a cycle each);
 *   INST_RETIRED at EL2 only (P = U = 1, NSH)   0: none of the hypervisor's, or anyone's;
 *   SW_INCR at EL1                              the window's PMSWINC writes, a random number;
 * from random starting values, with the cycle counter on EL1 (K), then runs a window of a
 * random length (a known loop and the PMSWINC writes, which trap) and checks every counter.
 * Any difference is printed at once ("not ok endure: ..."), with the round.
 *
 * Its end depends on the number at the end of its VM's name (e0 ... e31), modulo 4:
 *   0: endure.rounds rounds, "done:", then PSCI SYSTEM_OFF;
 *   1: a crash at a random round: its exception vectors outside its memory (the hypervisor
 *      ends it);
 *   2: PSCI CPU_OFF of its only CPU at a random round;
 *   3: rounds until the hypervisor's time limit ends it.
 * Every 100 rounds it prints "endure: R rounds exact" (R so far), and before ending by 1 or
 * 2 "done: P passed, F failed" with what it checked.
 */
#include "pmu.h"

#define PSCI_CPU_OFF 0x84000002ul

static uint64_t lcg;

/* A 64-bit LCG (Knuth's MMIX constants), the high half: enough to pick programs. */
static uint32_t rnd(void)
{
	lcg = lcg * 6364136223846793005ul + 1442695040888963407ul;
	return (uint32_t)(lcg >> 32);
}

enum kind { K_INST, K_CYCLES, K_EL2, K_SWINC, K_KINDS };

static const uint64_t typer[K_KINDS] = {
	[K_INST] = EV_INST_RETIRED | EVT_U,
	[K_CYCLES] = EV_CPU_CYCLES | EVT_U,
	[K_EL2] = EV_INST_RETIRED | EVT_P | EVT_U | EVT_NSH,
	[K_SWINC] = EV_SW_INCR | EVT_U,
};

/* The window: opened by the PMCNTENSET write (counting starts after it), closed by the
 * PMCNTENCLR write (counted): MOV, 2n loop instructions, MOV, CBZ, 3 per PMSWINC write (the
 * write, SUBS, B.NE), the closing write. Returns K, the EL1 instructions counted. */
static uint64_t window(uint64_t enable, uint64_t n, uint64_t swinc, uint64_t incr_mask)
{
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tsubs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "mov x10, %[s]\n\t"
			 "cbz x10, 3f\n"
			 "2:\tmsr pmswinc_el0, %[i]\n\t"
			 "subs x10, x10, #1\n\t"
			 "b.ne 2b\n"
			 "3:\tmsr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(enable), [n] "r"(n), [s] "r"(swinc), [i] "r"(incr_mask)
			 : "x9", "x10", "cc", "memory");
	return 2 * n + 3 * swinc + 4;
}

/* One round: false, with the difference printed, if a counter is not what it must be. */
static bool round_exact(unsigned nr, uint64_t r)
{
	enum kind kind[31];
	uint64_t start[31], incr = 0;
	uint64_t enable = CYCLE_BIT;
	uint64_t mask = rnd() & ((1ul << nr) - 1);
	if (!mask)
		mask = 1;
	for (unsigned i = 0; i < nr; i++) {
		if (!(mask >> i & 1))
			continue;
		kind[i] = (enum kind)(rnd() % K_KINDS);
		start[i] = rnd() & 0x7FFFFFFFu; /* 32-bit counters: no overflow in a window */
		pmevtyper_write(i, typer[kind[i]]);
		pmevcntr_write(i, start[i]);
		enable |= (1ul << i);
		if (kind[i] == K_SWINC)
			incr |= (1ul << i);
	}
	uint64_t cstart = ((uint64_t)rnd() << 8) | rnd();
	wr(pmccntr_el0, cstart);
	uint64_t n = 1 + rnd() % 20000, swinc = rnd() % 8;
	isb();
	uint64_t k = window(enable, n, swinc, incr);
	bool ok = true;
	for (unsigned i = 0; i < nr; i++) {
		if (!(mask >> i & 1))
			continue;
		uint64_t want = kind[i] == K_INST || kind[i] == K_CYCLES ? k
				: kind[i] == K_SWINC                     ? swinc
									 : 0;
		uint64_t got = pmevcntr_read(i) - start[i];
		if (got != want) {
			gprintf("not ok endure: round %lu counter %u kind %u: got %lu, "
				"expected %lu\n",
				r, i, (unsigned)kind[i], got, want);
			ok = false;
		}
	}
	uint64_t cgot = rd(pmccntr_el0) - cstart;
	if (cgot != k) {
		gprintf("not ok endure: round %lu cycle counter: got %lu, expected %lu\n", r,
			cgot, k);
		ok = false;
	}
	return ok;
}

/* The number at the end of the VM's name (e17: 17), 0 without one. */
static unsigned name_number(void)
{
	const char *s = dt_vm_name();
	unsigned v = 0;
	for (; s && *s; s++)
		v = *s >= '0' && *s <= '9' ? v * 10 + (unsigned)(*s - '0') : 0;
	return v;
}

void test_main(void)
{
	unsigned me = name_number(), mode = me % 4;
	uint64_t rounds = arg_num("endure.rounds", 1000);
	lcg = arg_num("endure.seed", 1) * 0x9E3779B97F4A7C15ul + me;
	pmu_reset();
	unsigned nr = PMCR_N(rd(pmcr_el0));
	wr(pmcr_el0, PMCR_E | PMCR_LC);
	uint64_t end_at = mode == 1 || mode == 2 ? 1 + rnd() % rounds : rounds;
	uint64_t exact = 0;
	for (uint64_t r = 1; mode == 3 || r <= end_at; r++) {
		exact += round_exact(nr, r);
		if (r % 100 == 0)
			gprintf("endure: %lu rounds exact of %lu\n", exact, r);
		if (exact != r)
			break; /* the first difference is the finding */
	}
	check(exact == end_at, "endure", "%lu of %lu rounds exact over %u counters", exact,
	      end_at, nr);
	if (mode == 1) {
		gprintf("done: %u passed, %u failed\n", g_passed, g_failed);
		wr(vbar_el1, 0x30000000ul); /* outside its memory: the next exception ends it */
		isb();
		__asm__ volatile("udf #0");
	} else if (mode == 2) {
		gprintf("done: %u passed, %u failed\n", g_passed, g_failed);
		psci_call(PSCI_CPU_OFF, 0, 0, 0);
	}
	/* mode 0: done() from the library; mode 3 never gets here. */
}
