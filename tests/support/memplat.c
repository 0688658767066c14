/* SPDX-License-Identifier: MIT */
#include "memplat.h"

#include <string.h>

uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	struct memplat_cpu *c = cpu->plat;
	c->reads++;
	return *memplat_reg(c, reg);
}

void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	struct memplat_cpu *c = cpu->plat;
	c->writes++;
	*memplat_reg(c, reg) = val;
}

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	struct memplat_vcpu *mv = vcpu->plat;
	if (!mv || intid >= 32)
		return;
	mv->line[intid] = level;
	mv->changes++;
}

void memplat_init(struct memplat_cpu *c, unsigned counters)
{
	memset(c, 0, sizeof(*c));
	/* Values read off QEMU 7.2 -cpu max (see docs): PMUVer 6, PMSVer 0, EL3 absent. */
	*memplat_reg(c, PV_ID_AA64DFR0_EL1) = UINT64_C(0x10305609);
	*memplat_reg(c, PV_ID_AA64PFR0_EL1) = UINT64_C(0x1201001121110222);
	*memplat_reg(c, PV_ID_AA64PFR1_EL1) = UINT64_C(0x01000021);
	*memplat_reg(c, PV_ID_DFR0_EL1) = UINT64_C(0x06000000);
	*memplat_reg(c, PV_PMCR_EL0) = UINT64_C(0x41010000) | ((uint64_t)counters << PV_PMCR_N_SHIFT);
	*memplat_reg(c, PV_PMCEID0_EL0) = UINT64_C(0x00020101) /* SW_INCR, INST_RETIRED, CPU_CYCLES */;
	*memplat_reg(c, PV_PMCEID1_EL0) = UINT64_C(0x10000018);
	*memplat_reg(c, PV_MDCR_EL2) = counters;
	c->reads = c->writes = 0;
}

uint32_t *memplat_mmio_word(struct memplat_mmio *io, uint64_t pa)
{
	if (!io || !io->words || pa < io->base || (pa & 3) || (pa - io->base) / 4 >= io->nwords)
		return NULL;
	return &io->words[(pa - io->base) / 4];
}

uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa)
{
	struct memplat_mmio *io = ((struct memplat_cpu *)cpu->plat)->mmio;
	if (!io)
		return 0;
	io->reads++;
	if (io->dev_read)
		return io->dev_read(io->dev, pa);
	uint32_t *w = memplat_mmio_word(io, pa);
	if (!w)
		io->outside++;
	return w ? *w : 0;
}

void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val)
{
	struct memplat_mmio *io = ((struct memplat_cpu *)cpu->plat)->mmio;
	if (!io)
		return;
	io->writes++;
	if (io->dev_write) {
		io->dev_write(io->dev, pa, val);
		return;
	}
	uint32_t *w = memplat_mmio_word(io, pa);
	if (w)
		*w = val;
	else
		io->outside++;
}
