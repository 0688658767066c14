/* SPDX-License-Identifier: MIT */
/*
 * A guest that fails before it sets up anything and waits in WFI with no interrupt that
 * could ever wake it (no timer armed, nothing enabled in its GIC). The hypervisor must not
 * spin on it: the VMs beside it run on, and once it is the only one left the hypervisor ends
 * it, says why, and powers off (tests/guest/run.sh, scenario waitforever). Prints "done:"
 * first so the runner knows it got this far.
 */
#include "guest.h"

void test_main(void)
{
	gprintf("done: 0 passed, 0 failed\n");
	gputs("waitforever: waiting for an interrupt that cannot come\n");
	for (;;)
		__asm__ volatile("wfi");
}
