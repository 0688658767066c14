// SPDX-License-Identifier: MIT
//
// The integration's hypervisor (integration.h), in C++: every installed header included, the
// machine of integration_plat.c probed, a VM that asks for a PMU refused, and the syndrome of
// an MRS of PMCR_EL0 decoded by the header's inline pv_decode_sys(). It prints
//
//   probe: <code>, <whether the platform served the probe's register reads>
//   vm: <code> <pv_strerror(code)>
//   trap: <key is PMCR_EL0> x<Rt> <read|write>
#include <cstdint>
#include <cstdio>

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

#include "integration.h"

namespace
{
// Static: struct pv_vm is large for a stack, and a configuration starts all zero.
pv_hw hw;
pv_pcpu cpu;
pv_vm vm;
pv_vm_config cfg;

// MRS x3, PMCR_EL0 as ESR_EL2 has it: EC 0x18, Rt 3, direction 1 (a read).
constexpr std::uint64_t mrs_pmcr_x3 = (std::uint64_t{PV_EC_SYS64} << 26) | PV_PMCR_EL0 |
				      (3u << PV_ISS_SYS_RT_SHIFT) | PV_ISS_SYS_DIR_READ;
} // namespace

int main()
{
	pv_pcpu_init(&cpu, nullptr);
	int probe = pv_hw_probe(&hw, &cpu, 0);
	std::printf("probe: %d, %s\n", probe,
		    integration_sysreg_reads() ? "registers read" : "no register read");
	cfg.features = PV_FEAT_PMU;
	cfg.pmu.version = PV_PMUVER_V3;
	cfg.pmu.nr_counters = 1;
	int init = pv_vm_init(&vm, &hw, &cfg);
	std::printf("vm: %d %s\n", init, pv_strerror(init));
	pv_sys_access acc{};
	if (!pv_decode_sys(mrs_pmcr_x3, &acc))
		return 1;
	std::printf("trap: %s x%u %s\n", acc.key == PV_PMCR_EL0 ? "PMCR_EL0" : "other",
		    unsigned{acc.rt}, acc.is_read ? "read" : "write");
	return probe == PV_OK && init == PV_ERR_NO_PMU ? 0 : 1;
}
