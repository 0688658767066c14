/* SPDX-License-Identifier: MIT */
/*
 * The integration's platform (integration.h), in C as a hypervisor's would be: a machine whose
 * every register reads 0, so one without a PMU. Built with Linux's and with Xen's flags, so it
 * includes every installed header (their inline functions meet those flags in C here, in C++
 * in integration.cpp); every function has its prototype from an installed header or
 * integration.h, as -Wmissing-prototypes asks.
 */
#include <stdbool.h>
#include <stdint.h>

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

static unsigned reads;

unsigned integration_sysreg_reads(void)
{
	return reads;
}

uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	(void)cpu;
	(void)reg;
	reads++;
	return 0;
}

void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	(void)cpu;
	(void)reg;
	(void)val;
}

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	(void)vcpu;
	(void)intid;
	(void)level;
}

uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa)
{
	(void)cpu;
	(void)pa;
	return 0;
}

void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val)
{
	(void)cpu;
	(void)pa;
	(void)val;
}

bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val)
{
	(void)v;
	(void)ipa;
	(void)val;
	return false;
}

bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v;
	(void)ipa;
	(void)size;
	return false;
}

void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v;
	(void)ipa;
	(void)size;
}

bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa)
{
	(void)v;
	(void)ipa;
	(void)pa;
	return false;
}

void pv_plat_psb_csync(struct pv_pcpu *cpu)
{
	(void)cpu;
}
