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
	if (reg == PV_PMBLIMITR_EL1 && (val & PV_PMBLIMITR_E))
		c->spe_undrained = true;
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
	*memplat_reg(c, PV_PMCR_EL0) = UINT64_C(0x41010000) |
				       PV_FIELD_PREP(PV_PMCR_N, counters);
	*memplat_reg(c, PV_PMCEID0_EL0) = UINT64_C(
		0x00020101) /* SW_INCR, INST_RETIRED, CPU_CYCLES */;
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

/* ---- guest memory and stage 2 ------------------------------------------------------------- */

static struct memplat_mem *mem_of(struct pv_vcpu *v)
{
	struct memplat_vcpu *mv = v->plat;
	return mv ? mv->mem : NULL;
}

static bool in_ram(const struct memplat_mem *m, uint64_t ipa, uint64_t size)
{
	return m && ipa >= m->base && size <= m->size && ipa - m->base <= m->size - size;
}

bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val)
{
	struct memplat_mem *m = mem_of(v);
	*val = 0;
	if (!in_ram(m, ipa, 8) || (ipa & 7))
		return false;
	m->reads++;
	memcpy(val, m->bytes + (ipa - m->base), 8);
	return true;
}

bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	struct memplat_mem *m = mem_of(v);
	if (!in_ram(m, ipa, size) || ((ipa | size) & 0xFFF) || !size)
		return false;
	m->pin_calls++;
	for (uint64_t p = (ipa - m->base) >> 12; p < (ipa - m->base + size) >> 12; p++)
		m->pins[p]++;
	return true;
}

void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	struct memplat_mem *m = mem_of(v);
	if (!in_ram(m, ipa, size) || ((ipa | size) & 0xFFF)) {
		if (m)
			m->bad_unpins++;
		return;
	}
	m->unpin_calls++;
	struct memplat_cpu *c = v->cpu ? v->cpu->plat : NULL;
	bool live = c &&
		    ((*memplat_reg(c, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_E) || c->spe_undrained);
	for (uint64_t p = (ipa - m->base) >> 12; p < (ipa - m->base + size) >> 12; p++) {
		if (m->pins[p] == 1 && live)
			m->live_unpins++;
		if (m->pins[p])
			m->pins[p]--;
		else
			m->bad_unpins++;
	}
}

bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa)
{
	struct memplat_mem *m = mem_of(v);
	*pa = 0;
	if (!in_ram(m, ipa, 1))
		return false;
	*pa = ipa + m->pa_offset;
	return true;
}

void pv_plat_psb_csync(struct pv_pcpu *cpu)
{
	struct memplat_cpu *c = cpu->plat;
	c->psb++;
	c->spe_undrained = false;
}

uint64_t memplat_pinned_pages(const struct memplat_mem *m)
{
	uint64_t n = 0;
	for (uint64_t p = 0; p < m->size >> 12; p++)
		n += m->pins[p] != 0;
	return n;
}
