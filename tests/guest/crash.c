/* SPDX-License-Identifier: MIT */
/*
 * A guest that cannot survive: its EL1 vector table points outside its RAM and it takes an
 * exception. The hypervisor must end this VM (and only it) instead of looping forever on the
 * recursive instruction abort. Prints "done:" first so the runner knows it got this far.
 */
#include "guest.h"

void test_main(void)
{
	gprintf("done: 0 passed, 0 failed\n");
	wr(vbar_el1, 0x30000000ul);
	isb();
	__asm__ volatile("udf #0");
	gputs("not ok crash: survived an exception without vectors\n");
	for (;;)
		;
}
