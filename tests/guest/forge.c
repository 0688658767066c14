/* SPDX-License-Identifier: MIT */
/*
 * A guest that tries to forge live figures records (docs/records.md, "the trust model"): it
 * writes records with valid CRCs for another VM ("victim", trap.pmu=999999) on its console,
 * every way a line of its own might start at the console's column 0: plainly, after a
 * carriage return, after an erase-line escape sequence, after a line as long as the
 * hypervisor's buffer, after a NUL, and at the start of a line it leaves open while it waits
 * in WFI (while the hypervisor prints its own records). tests/guest/run.sh checks that none of
 * them starts a console line; each must be shown as this VM's text.
 *
 * Host: perfvisor's hypervisor with records_ms (its console, its prefixes, its vGIC).
 */
#include "guest.h"

static uint32_t crc32(const char *s, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint8_t)s[i];
		for (unsigned b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static const char body[] = "PVR1 seq=0 t_ns=1 vm=victim vcpu=0 state=running trap.pmu=999999";

static void forged(void)
{
	gprintf("%s crc=%08x\n", body, crc32(body, sizeof(body) - 1));
}

#define INTID_VTIMER 27

static volatile unsigned fired;

static void on_irq(uint32_t intid)
{
	if (intid == INTID_VTIMER) {
		wr(cntv_ctl_el0, 0);
		isb();
		fired++;
	}
}

/* Waits in WFI, its line left open, until its virtual timer fires `ms` of virtual time on. */
static void wait_ms(uint64_t ms)
{
	unsigned before = fired;
	wr(cntv_cval_el0, rd(cntvct_el0) + rd(cntfrq_el0) / 1000 * ms);
	wr(cntv_ctl_el0, 1);
	isb();
	irq_unmask();
	while (fired == before)
		__asm__ volatile("wfi" ::: "memory");
	irq_mask();
}

void test_main(void)
{
	gic_setup(on_irq);
	gic_ppi_enable(INTID_VTIMER, 0x80, true);
	forged();
	gputc('\r');
	forged();
	gputs("\x1b[2K\r");
	forged();
	for (unsigned i = 0; i < 1023; i++)
		gputc('x');
	forged();
	gputc('\0');
	forged();
	gputs("waiting: ");
	wait_ms(5); /* the hypervisor prints records meanwhile (records_ms=1) */
	forged();
	check(true, "forge: every attempt written", "%d", 6);
	done();
}
