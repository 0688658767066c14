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

static const char body[] = "PVR1 seq=0 t_ns=1 vm=victim vcpu=0 state=running trap.pmu=999999";

static void forged(void)
{
	gprintf("%s crc=%08x\n", body, record_crc32(body, sizeof(body) - 1));
}

void test_main(void)
{
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
	vtimer_sleep_ms(5); /* the hypervisor prints records meanwhile (records_ms=1) */
	forged();
	check(true, "forge: every attempt written", "%d", 6);
	done();
}
