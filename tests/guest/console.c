/* SPDX-License-Identifier: MIT */
/*
 * The console both ways at the PL011's registers: a 300-character line written is shown
 * whole; the line typed at the terminal (tests/guest/run.sh feeds it, the VM has the focus)
 * arrives in the receive FIFO with its interrupt: UARTRIS.RXRIS set, UARTMIS with RXIM,
 * INTID 33 pending in the GIC, and the guest waits for it in WFI.
 *
 * Host: perfvisor's hypervisor (its PL011 and focus; tests/guest/run.sh types the line).
 */
#include "guest.h"

#define UART g_uart_base
#define UARTDR (UART + 0x000)
#define UARTFR (UART + 0x018)
#define UARTIMSC (UART + 0x038)
#define UARTRIS (UART + 0x03C)
#define UARTMIS (UART + 0x040)
#define UARTICR (UART + 0x044)
#define FR_RXFE (1u << 4)
#define INT_RX (1u << 4)
#define INT_TX (1u << 5)
#define INTID_UART 33

static uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

static void wr32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

void test_main(void)
{
	gputs("console: long ");
	for (unsigned i = 0; i < 300; i++)
		gputc((char)('0' + i % 10));
	gputc('\n');

	wr32(UARTICR, 0x7FF);
	CHECK_EQ(rd32(UARTRIS) & INT_TX, 0, "uart: UARTICR clears TXRIS");
	wr32(UARTDR, 'x');
	gputc('\n');
	CHECK(rd32(UARTRIS) & INT_TX, "uart: a data register write sets TXRIS");
	wr32(UARTICR, INT_TX);

	/* Input: wait in WFI for the receive interrupt (masked at PSTATE: not taken). */
	gic_setup(NULL);
	/* The SPI's distributor registers: enable INTID 33 (ISENABLER1), Group 1. */
	wr32(g_gicd_base + 0x84, 0xFFFFFFFFu);
	wr32(g_gicd_base + 0x104, 1u << (INTID_UART - 32));
	wr32(UARTIMSC, INT_RX);
	gputs("console: waiting for input\n"); /* run.sh types the line once it sees this */
	unsigned wfis = 0;
	while ((rd32(UARTFR) & FR_RXFE) && wfis < 100) {
		__asm__ volatile("wfi");
		wfis++;
	}
	CHECK(!(rd32(UARTFR) & FR_RXFE), "uart: input arrives in the receive FIFO");
	check(wfis >= 1 && wfis <= 2,
	      "uart: the guest waited for it in WFI, woken by its interrupt", "%u WFIs", wfis);
	CHECK(rd32(UARTRIS) & INT_RX, "uart: UARTRIS.RXRIS while the FIFO holds data");
	CHECK(rd32(UARTMIS) & INT_RX, "uart: UARTMIS.RXMIS with RXIM set");
	CHECK(rd32(g_gicd_base + 0x204) & (1u << (INTID_UART - 32)),
	      "uart: INTID 33 pending in GICD_ISPENDR1");
	char line[80];
	unsigned n = 0;
	for (unsigned spins = 0; n < sizeof(line) - 1 && spins < 1000000; spins++) {
		if (rd32(UARTFR) & FR_RXFE)
			continue;
		char c = (char)(rd32(UARTDR) & 0xFF);
		if (c == '\n')
			break;
		line[n++] = c;
	}
	line[n] = '\0';
	gprintf("console: got '%s'\n", line);
	CHECK(!(rd32(UARTRIS) & INT_RX), "uart: RXRIS clears once the FIFO is read empty");
	wr32(UARTIMSC, 0);
}
