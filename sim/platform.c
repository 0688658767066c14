/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) on the machine model. Every library
 * access is an EL2 access to the pCPU it names; accesses that would UNDEF at EL2, or that
 * name a register the model does not know, read 0, are ignored, and are counted.
 */
#include "perfvisor/platform.h"

#include "sim.h"

static void note(struct sim_cpu *c, enum sim_acc a, uint32_t key)
{
	if (a == SIM_ACC_OK)
		return;
	if (a == SIM_ACC_UNDEF)
		c->stats.plat_undef++;
	else
		c->stats.plat_unknown++;
	c->stats.last_bad_key = key;
}

uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	struct sim_cpu *c = cpu->plat;
	uint64_t val = 0;
	c->stats.plat_reads++;
	note(c, sim_cpu_read(c, 2, reg, &val), reg);
	return val;
}

void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	struct sim_cpu *c = cpu->plat;
	c->stats.plat_writes++;
	note(c, sim_cpu_write(c, 2, reg, val), reg);
}

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	struct sim_vcpu *v = vcpu->plat;
	if (!v || intid >= 32)
		return;
	v->virq_calls++;
	if (level && !v->line[intid])
		v->rises[intid]++;
	v->line[intid] = level;
}

/* MMIO: the MSCs of the machine's memory system (sim/msc.h); nothing else is mapped. */
#include "msc.h"

uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa)
{
	struct sim_cpu *c = cpu->plat;
	return c->m->mpam ? sim_mpam_read32(c->m->mpam, pa) : 0;
}

void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val)
{
	struct sim_cpu *c = cpu->plat;
	if (c->m->mpam)
		sim_mpam_write32(c->m->mpam, pa, val);
}

/* Guest memory and stage 2 of the vCPU's VM, and PSB CSYNC: the memory model and the SPE unit
 * (sim/spe_machine.h). */
bool pv_plat_guest_read64(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t *val)
{
	return sim_spe_machine_read64(vcpu->plat, ipa, val);
}

bool pv_plat_s2_pin(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t size)
{
	return sim_spe_machine_pin(vcpu->plat, ipa, size, true);
}

void pv_plat_s2_unpin(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t size)
{
	sim_spe_machine_pin(vcpu->plat, ipa, size, false);
}

bool pv_plat_s2_translate(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t *pa)
{
	return sim_spe_machine_translate(vcpu->plat, ipa, pa);
}

void pv_plat_psb_csync(struct pv_pcpu *cpu)
{
	sim_spe_machine_psb(cpu->plat);
}
