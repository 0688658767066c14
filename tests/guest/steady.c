/* SPDX-License-Identifier: MIT */
/*
 * A guest that counts until told to stop, for the live-figures test (tests/guest/prometheus.sh):
 * counter 0 counts INST_RETIRED at EL1 and the cycle counter runs while the guest spins and
 * polls its console; at the first character typed it stops both and prints what it counted
 * ("count: steady inst N cycles M"), then keeps polling, counting nothing, until a second
 * character, and ends. Between the two, the values it printed are what its vCPU's live
 * figures records must show.
 *
 * Host: any that gives the guest a PL011 and console input (perfvisor's hypervisor: focus=).
 */
#include "pmu.h"

#define UARTDR (g_uart_base + 0x000)
#define UARTFR (g_uart_base + 0x018)
#define FR_RXFE (1u << 4)

static uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

/* Spins and polls the console until a character comes; returns it. */
static char wait_char(uint64_t spin_rounds)
{
	while (rd32(UARTFR) & FR_RXFE)
		spin(spin_rounds);
	return (char)(rd32(UARTDR) & 0xFF);
}

void test_main(void)
{
	uint64_t rounds = arg_num("steady.spin", 100000);
	pmu_reset();
	pmevtyper_write(0, EV_INST_RETIRED | EVT_U); /* EL1 only: U = 1 filters EL0 out */
	wr(pmccfiltr_el0, EVT_U);
	wr(pmcntenset_el0, CYCLE_BIT | 1);
	wr(pmcr_el0, PMCR_E);
	gputs("steady: counting; type a character to stop\n");
	char c = wait_char(rounds);
	wr(pmcr_el0, 0); /* everything stops here: the records must show these values */
	isb();
	uint64_t inst = pmevcntr_read(0), cycles = rd(pmccntr_el0);
	gprintf("count: steady inst %lu cycles %lu (stopped by '%c')\n", inst, cycles, c);
	CHECK(inst > 0 && cycles > 0, "steady: counted while it waited");
	gputs("steady: stopped; type a character to end\n");
	(void)wait_char(rounds);
	CHECK_EQ(pmevcntr_read(0), inst, "steady: nothing counted once stopped");
	done();
}
