/* SPDX-License-Identifier: MIT */
/*
 * The guest's MPAM registers: MPAMIDR_EL1 (virtualised), MPAM1_EL1 and MPAM0_EL1 (always
 * trapped), and the EL2 controls that keep its labels its own.
 *
 * Why MPAM1_EL1 and MPAM0_EL1 trap even with the VPM registers: the hardware checks a PARTID
 * against the physical MPAMIDR_EL1.PARTID_MAX before mapping it (Arm ARM GenPARTID), so a
 * guest value above it would put the physical default, PARTID 0, the host's, on the bus; and
 * a virtual PARTID past the VPM table is reduced in an IMPLEMENTATION DEFINED way. A trapped
 * write is sanitised: a virtual PARTID the VM does not have, or a PMG above the usable
 * PMG_MAX, becomes 0. With HAS_HCR the hardware registers then hold the (valid) virtual
 * PARTIDs and MPAMVPM<n>_EL2 maps them; without it they hold the physical ones.
 *
 * The physical PMG labels the pCPU when local bytes are counted (pv_vmpam_init, partid.c):
 * MPAM1_EL1/MPAM0_EL1.PMG_I and PMG_D hold the memory node local to the pCPU the vCPU runs
 * on, set at every load (a migration relabels) and at every trapped write. The VPM registers
 * map PARTIDs only; GenPMG takes the PMG from MPAMn_EL1 as it is, so the node reaches the bus
 * with or without HAS_HCR. The guest's own PMG stays virtual: it reads back what it wrote
 * (sanitised as above), but it never reaches an MSC. A guest has no MSC of its own to
 * program, so a PMG has no physical meaning for it, and it loses nothing.
 */
#include "internal.h"

/* Field i of the label layout (0: PARTID_I, 1: PARTID_D, 2: PMG_I, 3: PMG_D). */
static unsigned label(uint64_t v, unsigned i)
{
	return i < 2 ? (unsigned)(v >> (16 * i) & 0xFFFF)
		     : (unsigned)(v >> (32 + 8 * (i - 2)) & 0xFF);
}

static uint64_t labels(unsigned pi, unsigned pd, unsigned gi, unsigned gd)
{
	return pi | (uint64_t)pd << 16 | (uint64_t)gi << 32 | (uint64_t)gd << 40;
}

/* The hardware value for a guest MPAMn_EL1 value; `node` >= 0 is the PMG of both fields. */
static uint64_t hw_value(const struct pv_vm_mpam *vm, uint64_t guest, int node)
{
	unsigned p[2], g[2];
	for (unsigned i = 0; i < 2; i++) {
		p[i] = label(guest, i);
		g[i] = label(guest, 2 + i);
		if (p[i] >= vm->nr_partids)
			p[i] = 0;
		if (g[i] > vm->pmg_max || node >= 0)
			g[i] = node >= 0 ? (unsigned)node : 0;
		if (!vm->vpm)
			p[i] = vm->partid[p[i]];
	}
	return labels(p[0], p[1], g[0], g[1]);
}

/* The PMG that labels `cpu`'s traffic: its memory node while local bytes are counted, else
 * -1 (the guest's PMG). Only the vCPU and its pCPU are touched (no shared state), so a pCPU
 * index beyond the topology, a hypervisor bug, is not recorded: it is labelled 0, a valid
 * PMG, and no MSC error follows. */
static int pcpu_pmg(const struct pv_vm_mpam *vm, const struct pv_pcpu *cpu)
{
	const struct pv_vmpam_sys *sys = vm->sys;
	if (!sys || !sys->cpu_node || !cpu)
		return -1;
	return cpu->index < sys->ncpus ? sys->cpu_node[cpu->index] : 0;
}

void pv_vmpam__vm_views(const struct pv_vmpam_sys *sys, struct pv_vm_mpam *vm)
{
	struct pv_vmpam_el2 *e = &vm->el2;
	unsigned n = vm->nr_partids;
	/* MPAMIDR_EL1: PARTID_MAX and PMG_MAX of the VM; no HCR/VPM (no EL2 in the guest), no
	 * bandwidth controls, ALTSP, TIDR, SP4, FORCE_NS or SDEFLT. */
	vm->mpamidr = PV_FIELD_PREP(PV_MPAMIDR_PARTID_MAX, vm->nr_partids - 1) |
		      PV_FIELD_PREP(PV_MPAMIDR_PMG_MAX, vm->pmg_max);

	*e = (struct pv_vmpam_el2){0};
	e->mpam2_el2_owned = PV_MPAM2_EL2_TRAPMPAM0EL1 | PV_MPAM2_EL2_TRAPMPAM1EL1 |
			     PV_MPAM2_EL2_TIDR | PV_MPAM2_EL2_EnMPAMSM;
	e->mpam2_el2 = PV_MPAM2_EL2_TRAPMPAM0EL1 | PV_MPAM2_EL2_TRAPMPAM1EL1;
	if (!sys->has_hcr) {
		/* No MPAMHCR_EL2: MPAMIDR_EL1 traps through MPAM2_EL2.TIDR where it exists. */
		if (sys->has_tidr)
			e->mpam2_el2 |= PV_MPAM2_EL2_TIDR;
		return;
	}
	e->mpamhcr_el2_owned = PV_MPAMHCR_EL2_TRAP_MPAMIDR | PV_MPAMHCR_EL2_EL1_VPMEN |
			       PV_MPAMHCR_EL2_EL0_VPMEN | PV_MPAMHCR_EL2_GSTAPP_PLK;
	e->mpamhcr_el2 = PV_MPAMHCR_EL2_TRAP_MPAMIDR | PV_MPAMHCR_EL2_EL1_VPMEN |
			 PV_MPAMHCR_EL2_EL0_VPMEN;
	/* Entry v maps virtual PARTID v; the unused rest of the last register repeats the
	 * default. Only the VM's entries are valid: any other falls back to entry 0. */
	e->nvpm = (uint8_t)((n + PV_MPAMVPM_ENTRIES - 1) / PV_MPAMVPM_ENTRIES);
	for (unsigned v = 0; v < e->nvpm * PV_MPAMVPM_ENTRIES; v++)
		e->vpm[v / 4] |= (uint64_t)vm->partid[v < n ? v : 0] << (16 * (v % 4));
	e->vpmv = n >= 32 ? 0xFFFFFFFFu : (UINT64_C(1) << n) - 1;
}

void pv_vmpam_vcpu_attach(struct pv_vmpam *s, const struct pv_vm_mpam *vm)
{
	*s = (struct pv_vmpam){.vm = vm};
	s->hw_mpam0 = s->hw_mpam1 = hw_value(vm, 0, -1);
}

/* The vCPU's MPAM1_EL1, MPAM0_EL1 and, with VPM, MPAMVPM<n>_EL2 / MPAMVPMV_EL2 into v->cpu;
 * with local bytes counted, the PMGs name the pCPU's memory node. Out of line: a VM without
 * PARTIDs of its own costs the switch only the test in pv_vmpam_load. */
__attribute__((noinline)) static void load_labels(struct pv_vcpu *v, struct pv_vmpam *s)
{
	const struct pv_vmpam_el2 *e = &s->vm->el2;
	int pmg = pcpu_pmg(s->vm, v->cpu);
	if (pmg >= 0) {
		s->hw_mpam1 = hw_value(s->vm, s->mpam1, pmg);
		s->hw_mpam0 = hw_value(s->vm, s->mpam0, pmg);
	}
	for (unsigned n = 0; n < e->nvpm; n++)
		pv_plat_sysreg_write(v->cpu, PV_MPAMVPM_EL2(n), e->vpm[n]);
	if (e->nvpm)
		pv_plat_sysreg_write(v->cpu, PV_MPAMVPMV_EL2, e->vpmv);
	pv_plat_sysreg_write(v->cpu, PV_MPAM1_EL1, s->hw_mpam1);
	pv_plat_sysreg_write(v->cpu, PV_MPAM0_EL1, s->hw_mpam0);
}

void pv_vmpam_load(struct pv_vcpu *v)
{
	struct pv_vmpam *s = PV_VMPAM_VCPU(v);
	if (s->vm && v->cpu)
		load_labels(v, s);
}

/* Nothing to save: the guest's values are kept at every write. */
void pv_vmpam_put(struct pv_vcpu *v)
{
	(void)v;
}

/* MPAMIDR_EL1, MPAM1_EL1 and MPAM0_EL1 are EL1 registers (an EL0 access is UNDEFINED: the
 * EL0 rule of the register database). */
static enum pv_trap_result read_reg(struct pv_vcpu *v, uint32_t key, uint64_t *val)
{
	const struct pv_vmpam *s = PV_VMPAM_VCPU(v);
	if (!s->vm)
		return PV_TRAP_UNDEF;
	if (key == PV_MPAMIDR_EL1)
		*val = s->vm->mpamidr;
	else if (key == PV_MPAM1_EL1)
		*val = s->mpam1 | PV_MPAM1_MPAMEN; /* enabled; FORCED_NS, ALTSP_FRCD 0 */
	else
		*val = s->mpam0;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vmpam_mpamidr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					  uint64_t *val)
{
	(void)idx, (void)el;
	return read_reg(v, PV_MPAMIDR_EL1, val);
}

enum pv_trap_result pv_vmpam_mpam1_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	(void)idx, (void)el;
	return read_reg(v, PV_MPAM1_EL1, val);
}

enum pv_trap_result pv_vmpam_mpam0_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	(void)idx, (void)el;
	return read_reg(v, PV_MPAM0_EL1, val);
}

/* Keeps the guest's label fields (the register database's RW bits: the other bits are
 * read-only or RES0; MPAM v1.0, nothing needed of the PE) and loads the hardware with the
 * sanitised value when the vCPU is running. */
static enum pv_trap_result write_labels(struct pv_vcpu *v, uint64_t val, bool el1)
{
	struct pv_vmpam *s = PV_VMPAM_VCPU(v);
	/* Each register's own mask, though today's are the same bits. */
	const uint64_t rw1 = PV_BITS_MPAM1_EL1_RW(1, 0), rw0 = PV_BITS_MPAM0_EL1_RW(1, 0);
	uint64_t guest, hw;
	if (!s->vm)
		return PV_TRAP_UNDEF;
	guest = val & (el1 ? rw1 : rw0);
	hw = hw_value(s->vm, guest, pcpu_pmg(s->vm, v->cpu));
	if (el1) {
		s->mpam1 = guest;
		s->hw_mpam1 = hw;
	} else {
		s->mpam0 = guest;
		s->hw_mpam0 = hw;
	}
	if (v->cpu)
		pv_plat_sysreg_write(v->cpu, el1 ? PV_MPAM1_EL1 : PV_MPAM0_EL1, hw);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vmpam_mpam1_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t val)
{
	(void)idx, (void)el;
	return write_labels(v, val, true);
}

enum pv_trap_result pv_vmpam_mpam0_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t val)
{
	(void)idx, (void)el;
	return write_labels(v, val, false);
}
