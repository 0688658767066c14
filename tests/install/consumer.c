/* SPDX-License-Identifier: MIT */
/*
 * A program of the library's user, built by tests/tool/test_tool_install.c against an
 * installed perfvisor alone (pkg-config's flags, the installed headers and library), once
 * statically and once against the shared library, and as C++ (the headers give their
 * declarations C linkage) with hidden visibility by default (the platform functions keep
 * theirs: platform.h's PV_PLATFORM). It includes every installed header, so that each
 * compiles on its own terms, and prints what the test compares:
 *
 *   perfvisor <PV_VERSION_STRING of the installed header>
 *   pv_hw_probe: <code> <pv_strerror(code)>
 *   pv_vm_init: <code> <pv_strerror(code)>
 *
 * Its platform is the out-of-tree integration's (integration_plat.c, built beside it): a
 * machine whose every register reads 0, so one without a PMU: the probe succeeds, and a VM
 * that asks for a PMU is refused with PV_ERR_NO_PMU.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <perfvisor/api.h>
#include <perfvisor/events.h>
#include <perfvisor/mpam_regs.h>
#include <perfvisor/perfvisor.h>
#include <perfvisor/platform.h>
#include <perfvisor/record.h>
#include <perfvisor/sysreg.h>
#include <perfvisor/trap.h>
#include <perfvisor/vamu.h>
#include <perfvisor/version.h>
#include <perfvisor/vmpam.h>
#include <perfvisor/vpmu.h>
#include <perfvisor/vspe.h>

int main(void)
{
	/* Static: struct pv_vm is large for a stack. */
	static struct pv_hw hw;
	static struct pv_pcpu cpu;
	static struct pv_vm vm;

	printf("perfvisor %s\n", PV_VERSION_STRING);
	pv_pcpu_init(&cpu, NULL);
	int probe = pv_hw_probe(&hw, &cpu, 0);
	printf("pv_hw_probe: %d %s\n", probe, pv_strerror(probe));
	/* A configuration starts all zero (static, in C and C++ alike): every field not set
	 * below means "not wanted". */
	static struct pv_vm_config cfg;
	cfg.features = PV_FEAT_PMU;
	cfg.pmu.version = PV_PMUVER_V3;
	cfg.pmu.nr_counters = 1;
	int init = pv_vm_init(&vm, &hw, &cfg);
	printf("pv_vm_init: %d %s\n", init, pv_strerror(init));
	return probe == PV_OK && init == PV_ERR_NO_PMU ? 0 : 1;
}
