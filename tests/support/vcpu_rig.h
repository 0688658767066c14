/* SPDX-License-Identifier: MIT */
/*
 * One pCPU of the plain-memory platform (memplat.h) with one VM and its vCPU loaded on it: the
 * rig the unit tests of the trap path, the lifecycle and the records share. Include it after
 * <cmocka.h>.
 */
#ifndef PERFVISOR_TEST_VCPU_RIG_H
#define PERFVISOR_TEST_VCPU_RIG_H

#include <stdlib.h>

#include "memplat.h"
#include "perfvisor/perfvisor.h"

struct vcpu_rig {
	struct memplat_cpu mc;
	struct memplat_vcpu mv;
	struct pv_pcpu cpu;
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v;
	uint64_t x[32]; /* x0..x30, and room where an out-of-bounds x[31] would land */
};

/* A machine of 6 PMU counters, `host_counters` of them the host's; a VM with `features`, the
 * PMU `version` and `counters` of them; its vCPU 0 loaded. Freed with free(). */
static inline struct vcpu_rig *vcpu_rig_new(unsigned host_counters, uint32_t features,
					    uint8_t version, uint8_t counters)
{
	struct vcpu_rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	memplat_init(&r->mc, 6);
	pv_pcpu_init(&r->cpu, &r->mc);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, host_counters), PV_OK);
	pv_pcpu_setup(&r->cpu, &r->hw);
	struct pv_vm_config cfg = {.features = features};
	cfg.pmu.version = version;
	cfg.pmu.nr_counters = counters;
	assert_int_equal(pv_vm_init(&r->vm, &r->hw, &cfg), PV_OK);
	pv_vcpu_init(&r->v, &r->vm, 0, &r->mv);
	pv_vcpu_load(&r->v, &r->cpu);
	return r;
}

#endif
