/* SPDX-License-Identifier: MIT */
/*
 * PSCI 1.0 for one-vCPU VMs, over HVC or trapped SMC (Arm DEN 0022, SMC Calling Convention
 * DEN 0028: function ID in w0, results in x0), and the SMCCC 1.1 Arm architecture calls a
 * guest's firmware probe makes (SMCCC_VERSION, SMCCC_ARCH_FEATURES; DEN 0028 section 7).
 * SYSTEM_OFF, SYSTEM_RESET and CPU_OFF end the VM (a reset is not offered: the VM ends and
 * says so). Unknown functions return NOT_SUPPORTED; nothing a guest passes can stop the
 * hypervisor.
 */
#include "hyp.h"

#define PSCI_VERSION 0x84000000u
#define PSCI_CPU_SUSPEND 0x84000001u
#define PSCI_CPU_OFF 0x84000002u
#define PSCI_CPU_ON 0x84000003u
#define PSCI_AFFINITY_INFO 0x84000004u
#define PSCI_MIGRATE_INFO_TYPE 0x84000006u
#define PSCI_SYSTEM_OFF 0x84000008u
#define PSCI_SYSTEM_RESET 0x84000009u
#define PSCI_FEATURES 0x8400000Au
#define PSCI_64 0x40000000u /* SMC64 variant of a function */
#define SMCCC_VERSION 0x80000000u
#define SMCCC_ARCH_FEATURES 0x80000001u
#define SMCCC_VERSION_1_1 0x10001 /* major 1 in bits [30:16], minor 1 in [15:0] */

#define PSCI_SUCCESS 0
#define PSCI_NOT_SUPPORTED (-1)
#define PSCI_INVALID_PARAMETERS (-2)
#define PSCI_ALREADY_ON (-4)

static bool implemented(uint32_t fid)
{
	if (fid == SMCCC_VERSION) /* PSCI_FEATURES(SMCCC_VERSION) = 0 says SMCCC 1.1 is there */
		return true;
	switch (fid & ~PSCI_64) {
	case PSCI_VERSION:
	case PSCI_CPU_SUSPEND:
	case PSCI_CPU_OFF:
	case PSCI_CPU_ON:
	case PSCI_AFFINITY_INFO:
	case PSCI_MIGRATE_INFO_TYPE:
	case PSCI_SYSTEM_OFF:
	case PSCI_SYSTEM_RESET:
	case PSCI_FEATURES:
		return true;
	default:
		return false;
	}
}

/* SMCCC_ARCH_FEATURES: which Arm architecture calls exist. None of the optional ones
 * (ARCH_SOC_ID, the ARCH_WORKAROUND_n mitigations) is offered: NOT_SUPPORTED. */
static bool arch_call_implemented(uint32_t fid)
{
	return fid == SMCCC_VERSION || fid == SMCCC_ARCH_FEATURES;
}

struct vcpu *psci_call(struct vcpu *v, bool smc)
{
	uint64_t *x = v->f.x;
	uint32_t fid = (uint32_t)x[0];
	int64_t ret = PSCI_NOT_SUPPORTED;
	(void)smc;
	switch (fid) {
	case PSCI_VERSION:
		ret = 0x10000; /* 1.0 */
		break;
	case PSCI_FEATURES:
		ret = implemented((uint32_t)x[1]) ? PSCI_SUCCESS : PSCI_NOT_SUPPORTED;
		break;
	case SMCCC_VERSION:
		ret = SMCCC_VERSION_1_1;
		break;
	case SMCCC_ARCH_FEATURES:
		ret = arch_call_implemented((uint32_t)x[1]) ? PSCI_SUCCESS : PSCI_NOT_SUPPORTED;
		break;
	case PSCI_CPU_SUSPEND:
	case PSCI_CPU_SUSPEND | PSCI_64:
		ret = PSCI_SUCCESS; /* returns at once, as after a wake-up */
		break;
	case PSCI_CPU_ON:
	case PSCI_CPU_ON | PSCI_64: /* the only CPU is this one */
		ret = (x[1] & 0xFF00FFFFFFul) == (v->vmpidr & 0xFF00FFFFFFul)
			      ? PSCI_ALREADY_ON
			      : PSCI_INVALID_PARAMETERS;
		break;
	case PSCI_AFFINITY_INFO:
	case PSCI_AFFINITY_INFO | PSCI_64:
		ret = (x[1] & 0xFF00FFFFFFul) == (v->vmpidr & 0xFF00FFFFFFul)
			      ? 0 /* ON */
			      : PSCI_INVALID_PARAMETERS;
		break;
	case PSCI_MIGRATE_INFO_TYPE:
		ret = 2; /* no Trusted OS needing migration */
		break;
	case PSCI_SYSTEM_OFF:
		return vm_end(v, "PSCI SYSTEM_OFF");
	case PSCI_SYSTEM_RESET:
		return vm_end(v, "PSCI SYSTEM_RESET (reset not offered: VM ended)");
	case PSCI_CPU_OFF:
		return vm_end(v, "PSCI CPU_OFF of its only CPU");
	default:
		break; /* everything else: NOT_SUPPORTED */
	}
	x[0] = (uint64_t)ret;
	return v;
}
