/* SPDX-License-Identifier: MIT */
/*
 * A domain given Xen's console input trying to forge live figures records (docs/records.md,
 * "the trust model"; docs/xen.md, "Live figures"). Xen echoes the input domain's vPL011
 * output a character at a time, each with printk(), so its lines carry "(XEN) " but not
 * "DOMn: ", and a line it leaves open is continued by its next character, prefix-less, on
 * the pCPU it runs on. It writes records with valid CRCs for another domain ("victim",
 * trap.pmu=999999) every way it might start a console line: plainly, after a carriage
 * return, after an erase-line escape sequence, on a line it leaves open while it waits in WFI
 * across Xen's records (the record ends that line; the guest's next character must not begin
 * the one after it), after a wait with no line open, and through the console hypercall
 * (CONSOLEIO_write: "(dN) ", printed under guest_loglvl=all). integrations/xen/check.sh
 * checks that none starts a console line.
 *
 * It starts at the first character typed (it must be the input domain then); forge_input.wait_ms
 * (default 50) is each wait, longer than the records' period.
 */
#include "guest.h"

#define UARTDR (g_uart_base + 0x000)
#define UARTFR (g_uart_base + 0x018)
#define FR_RXFE (1u << 4)
static uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

static const char body[] = "PVR1 seq=0 t_ns=1 vm=victim vcpu=0 state=running trap.pmu=999999";
static char line[sizeof(body) + 16];

/* The forged record, its newline included, in line[]: its length. */
static size_t forge(void)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t crc = record_crc32(body, sizeof(body) - 1);
	size_t n = 0;
	for (size_t i = 0; i < sizeof(body) - 1; i++)
		line[n++] = body[i];
	for (const char *s = " crc="; *s; s++)
		line[n++] = *s;
	for (int sh = 28; sh >= 0; sh -= 4)
		line[n++] = hex[(crc >> sh) & 0xF];
	line[n++] = '\n';
	line[n] = '\0';
	return n;
}

static void forged(void)
{
	forge();
	gputs(line);
}

/* Xen's console_io hypercall (18), CONSOLEIO_write (0): HVC #0xEA1, the number in x16. */
static int64_t console_io_write(const char *s, size_t n)
{
	register uint64_t x0 __asm__("x0") = 0;
	register uint64_t x1 __asm__("x1") = n;
	register uint64_t x2 __asm__("x2") = (uint64_t)s;
	register uint64_t x16 __asm__("x16") = 18;
	__asm__ volatile("hvc #0xea1"
			 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x16)
			 :
			 : "x3", "x4", "memory");
	return (int64_t)x0;
}

void test_main(void)
{
	uint64_t ms = arg_num("forge_input.wait_ms", 50);
	gputs("forge_input: type a character to start\n");
	while (rd32(UARTFR) & FR_RXFE)
		spin(1000);
	(void)rd32(UARTDR);
	forged();
	gputc('\r');
	forged();
	gputs("\x1b[2K\r");
	forged();
	gputs("waiting: ");
	vtimer_sleep_ms(ms); /* Xen writes records meanwhile, the first one ending this line */
	forged();
	vtimer_sleep_ms(ms);
	forged();
	int64_t r = console_io_write(line, forge());
	check(r == 0, "forge_input: the console hypercall took the line", "returned %ld",
	      (long)r);
	check(true, "forge_input: every attempt written", "%d", 6);
	done();
}
