/* SPDX-License-Identifier: MIT */
/*
 * The machine's own power: SYSTEM_OFF to the firmware below EL2 (QEMU's PSCI, as "EL3"),
 * which ends the run. Not the PSCI a guest calls (psci.c emulates that one for its VM).
 */
#include "hyp.h"

/* PSCI SYSTEM_OFF, SMC calling convention (Arm DEN 0022). */
#define FW_PSCI_SYSTEM_OFF 0x84000008u

void machine_off(void)
{
	register uint64_t x0 __asm__("x0") = FW_PSCI_SYSTEM_OFF;
	__asm__ volatile("smc #0" : "+r"(x0) : : "memory");
	for (;;)
		__asm__ volatile("wfe");
}
