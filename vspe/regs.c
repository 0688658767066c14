/* SPDX-License-Identifier: MIT */
/*
 * SPE register handlers (Arm ARM D24.7), reached through MDCR_EL2.TPMS (PMS*) and
 * MDCR_EL2.E2PB = 0b10 (PMB*), and PMBIDR_EL1 through HDFGRTR_EL2 with FEAT_FGT. Every register
 * is UNDEFINED at EL0 (the hardware UNDEFs before any trap; answered the same here). Stored
 * values are masked to the fields the VM's version has; what reaches the hardware is the guest's
 * value without PA and PCT (PMSCR_EL1), the buffer only once checked and pinned.
 *
 * Direct sampling controls (pv_vm_spe.direct, docs/spe.md): the vCPU's first SPE write traps,
 * restores its controls into the hardware and clears MDCR_EL2.TPMS; from then on the guest
 * reads and writes the PMS* registers itself while loaded (those in pv_vm_spe.fgt still trap,
 * by FEAT_FGT, and are answered from the hardware too), PMSCR_EL2 bounding what PMSCR_EL1 may
 * ask. The put saves them all from the hardware, the load writes them back.
 */
#include "internal.h"

/* Whether the hardware has the guest's values: it had them loaded (or gets them now). */
static inline void touch(struct pv_vcpu *v);

/* Programs the hardware with the vCPU's sampling controls (load, first use). On the direct
 * path every one is written, whatever the previous vCPU left there, before the guest can read
 * any of them. */
static void restore(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	struct pv_pcpu *cpu = v->cpu;
	pv_plat_sysreg_write(cpu, PV_PMSFCR_EL1, s->fcr);
	pv_plat_sysreg_write(cpu, PV_PMSEVFR_EL1, s->evfr);
	if (v->vm->spe.version >= PV_SPE_V1P2)
		pv_plat_sysreg_write(cpu, PV_PMSNEVFR_EL1, s->nevfr);
	pv_plat_sysreg_write(cpu, PV_PMSLATFR_EL1, s->latfr);
	pv_plat_sysreg_write(cpu, PV_PMSIRR_EL1, s->irr);
	pv_plat_sysreg_write(cpu, PV_PMSICR_EL1, s->icr);
	pv_vspe__apply(v);
	/* PMSCR_EL1 last, as Linux's arm_spe_pmu_start() orders it. */
	pv_plat_sysreg_write(cpu, PV_PMSCR_EL1, vspe_scr_hw(v, s->scr));
}

/* The vCPU's first SPE write: its registers go to the hardware and are switched from now on.
 * With direct sampling controls, MDCR_EL2.TPMS comes off in its trap words, which the
 * hypervisor writes at each load, and in the hardware now (Arm ARM D24.3.17): the exception
 * return that ends this trap synchronises it. Until then every PMS* access trapped, so the
 * guest never saw what another vCPU left in them. Out of line: every later write pays only
 * touch()'s test. */
static void first_use(struct pv_vcpu *v)
{
	struct pv_pcpu *cpu = v->cpu;
	v->spe.used = true;
	if (cpu)
		restore(v);
	if (!v->vm->spe.direct)
		return;
	v->traps.mdcr_el2 &= ~PV_MDCR_EL2_TPMS;
	if (cpu)
		pv_plat_sysreg_write(cpu, PV_MDCR_EL2,
				     pv_plat_sysreg_read(cpu, PV_MDCR_EL2) & ~PV_MDCR_EL2_TPMS);
}

static inline void touch(struct pv_vcpu *v)
{
	if (!v->spe.used)
		first_use(v);
}

void pv_vspe_load(struct pv_vcpu *v)
{
	if (!vspe_has(v) || !v->spe.used || !v->cpu)
		return;
	restore(v);
}

/* Direct sampling controls: the guest's own values, from the hardware that holds them.
 * PMSCR_EL1 first, before the put stops sampling; the hardware changes none but PMSICR_EL1,
 * which the put reads once the unit is drained. */
static void save_direct(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	struct pv_vspe *s = &v->spe;
	s->scr = pv_plat_sysreg_read(cpu, PV_PMSCR_EL1);
	s->irr = pv_plat_sysreg_read(cpu, PV_PMSIRR_EL1);
	s->fcr = pv_plat_sysreg_read(cpu, PV_PMSFCR_EL1);
	s->evfr = pv_plat_sysreg_read(cpu, PV_PMSEVFR_EL1);
	if (v->vm->spe.version >= PV_SPE_V1P2)
		s->nevfr = pv_plat_sysreg_read(cpu, PV_PMSNEVFR_EL1);
	s->latfr = pv_plat_sysreg_read(cpu, PV_PMSLATFR_EL1);
}

/* Stop sampling, drain, save (as KVM's __debug_save_spe: PMSCR_EL1 = 0, PSB CSYNC, DSB NSH,
 * then the buffer registers), and leave the pCPU with no buffer enabled. */
void pv_vspe_put(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	struct pv_pcpu *cpu = v->cpu;
	if (!vspe_has(v) || !s->used || !cpu)
		return;
	if (v->vm->spe.direct)
		save_direct(v, cpu);
	pv_plat_sysreg_write(cpu, PV_PMSCR_EL1, 0);
	pv_plat_psb_csync(cpu);
	s->stats.drains++;
	pv_vspe__sync(v, true);
	s->icr = pv_plat_sysreg_read(cpu, PV_PMSICR_EL1);
	if (s->hw_on) {
		pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1, 0);
		s->hw_on = false;
	}
}

/* ---- the sampling controls (TPMS) --------------------------------------------------------- */

/* Neither the member nor the EL plays a part here: the dispatch UNDEFs EL0 accesses. */
#define UNUSED_IDX_EL()                                                                        \
	do {                                                                                   \
		(void)idx;                                                                     \
		(void)el;                                                                      \
	} while (0)

/* A control register: stored masked, and written to the hardware while loaded; read from
 * the hardware while it holds the guest's (direct sampling controls: a register that still
 * traps there by FEAT_FGT holds what was written here). */
#define CONTROL(name, field, reg, mask)                                                        \
	enum pv_trap_result pv_vspe_##name##_read(struct pv_vcpu *v, unsigned idx,             \
						  unsigned el, uint64_t *val)                  \
	{                                                                                      \
		UNUSED_IDX_EL();                                                               \
		*val = vspe_live(v) ? pv_plat_sysreg_read(v->cpu, reg) : v->spe.field;         \
		return PV_TRAP_HANDLED;                                                        \
	}                                                                                      \
	enum pv_trap_result pv_vspe_##name##_write(struct pv_vcpu *v, unsigned idx,            \
						   unsigned el, uint64_t val)                  \
	{                                                                                      \
		UNUSED_IDX_EL();                                                               \
		v->spe.field = val & (mask);                                                   \
		touch(v);                                                                      \
		if (v->cpu)                                                                    \
			pv_plat_sysreg_write(v->cpu, reg, v->spe.field);                       \
		return PV_TRAP_HANDLED;                                                        \
	}

CONTROL(pmsirr, irr, PV_PMSIRR_EL1, PV_PMSIRR_INTERVAL | PV_PMSIRR_RND)
CONTROL(pmsfcr, fcr, PV_PMSFCR_EL1, v->vm->spe.fcr_mask)
CONTROL(pmsevfr, evfr, PV_PMSEVFR_EL1, v->vm->spe.evfr_mask)
CONTROL(pmsnevfr, nevfr, PV_PMSNEVFR_EL1, v->vm->spe.nevfr_mask)
CONTROL(pmslatfr, latfr, PV_PMSLATFR_EL1, v->vm->spe.latfr_mask)

/* PMSCR_EL1: the guest reads back what it wrote (PA and PCT included); trapped, the hardware
 * never gets PA or PCT; direct, it holds them and PMSCR_EL2 (trap words) keeps PA, PCT and CX
 * clear: no physical address, no physical timestamp, no CONTEXTIDR_EL2 in a guest's records
 * (D24.7.8, D24.7.9, CollectTimeStamp()). */
enum pv_trap_result pv_vspe_pmscr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
				       uint64_t *val)
{
	UNUSED_IDX_EL();
	*val = vspe_live(v) ? pv_plat_sysreg_read(v->cpu, PV_PMSCR_EL1) : v->spe.scr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmscr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t val)
{
	UNUSED_IDX_EL();
	v->spe.scr = val & v->vm->spe.scr_mask;
	touch(v);
	if (v->cpu)
		pv_plat_sysreg_write(v->cpu, PV_PMSCR_EL1, vspe_scr_hw(v, v->spe.scr));
	return PV_TRAP_HANDLED;
}

/* PMSICR_EL1 counts while sampling: live from the hardware while loaded. */
enum pv_trap_result pv_vspe_pmsicr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	UNUSED_IDX_EL();
	if (v->cpu && v->spe.used)
		v->spe.icr = pv_plat_sysreg_read(v->cpu, PV_PMSICR_EL1);
	*val = v->spe.icr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmsicr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t val)
{
	bool ernd;
	UNUSED_IDX_EL();
	ernd = v->vm->spe.pmsidr & PV_PMSIDR_ERND;
	v->spe.icr = val & (PV_PMSICR_COUNT | (ernd ? PV_PMSICR_ECOUNT : 0));
	touch(v);
	if (v->cpu)
		pv_plat_sysreg_write(v->cpu, PV_PMSICR_EL1, v->spe.icr);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmsidr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	UNUSED_IDX_EL();
	*val = v->vm->spe.pmsidr;
	return PV_TRAP_HANDLED;
}

/* ---- the buffer (E2PB = 0b10) --------------------------------------------------------------- */

/* PMBIDR_EL1 (trapped only with FEAT_FGT): P = 0, the guest owns its buffer; MaxBuffSize the
 * VM's largest buffer; no physical-address mode. */
enum pv_trap_result pv_vspe_pmbidr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	UNUSED_IDX_EL();
	*val = v->vm->spe.pmbidr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmblimitr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	UNUSED_IDX_EL();
	*val = v->spe.limitr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmblimitr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	UNUSED_IDX_EL();
	pv_vspe__sync(v, false);
	v->spe.limitr = val & v->vm->spe.limitr_mask;
	touch(v);
	pv_vspe__apply(v);
	return PV_TRAP_HANDLED;
}

/* PMBPTR_EL1 advances while the hardware writes: synchronised first (PSB CSYNC). */
enum pv_trap_result pv_vspe_pmbptr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	UNUSED_IDX_EL();
	pv_vspe__sync(v, false);
	*val = v->spe.ptr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmbptr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t val)
{
	UNUSED_IDX_EL();
	pv_vspe__sync(v, false);
	v->spe.ptr =
		val; /* low bits RW: a misaligned pointer is seen, and refused, at enable */
	touch(v);
	pv_vspe__apply(v);
	return PV_TRAP_HANDLED;
}

/* PMBSR_EL1: a management event the hardware raised is the guest's once read; a write sets it
 * (S drives the virtual INTID 21, as it drives PMBIRQ) and, with S = 0, restarts the buffer. */
enum pv_trap_result pv_vspe_pmbsr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
				       uint64_t *val)
{
	UNUSED_IDX_EL();
	pv_vspe__sync(v, false);
	*val = v->spe.bsr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vspe_pmbsr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t val)
{
	UNUSED_IDX_EL();
	pv_vspe__sync(v, false);
	v->spe.bsr = val & VSPE_BSR_MASK;
	pv_vspe__line(v);
	touch(v);
	pv_vspe__apply(v);
	return PV_TRAP_HANDLED;
}

/* ---- operator view ------------------------------------------------------------------------- */

uint64_t pv_vspe_status(const struct pv_vcpu *v)
{
	return v->spe.bsr;
}

uint64_t pv_vspe_pointer(struct pv_vcpu *v)
{
	pv_vspe__sync(v, false);
	return v->spe.ptr;
}

/* As vamu_userenr() for AMUSERENR_EL0: the hardware's while it holds the guest's. */
uint64_t pv_vspe_control(const struct pv_vcpu *v, uint32_t reg)
{
	const struct pv_vspe *s = &v->spe;
	const uint64_t *field;
	switch (reg) {
	case PV_PMSCR_EL1:
		field = &s->scr;
		break;
	case PV_PMSICR_EL1:
		field = &s->icr;
		break;
	case PV_PMSIRR_EL1:
		field = &s->irr;
		break;
	case PV_PMSFCR_EL1:
		field = &s->fcr;
		break;
	case PV_PMSEVFR_EL1:
		field = &s->evfr;
		break;
	case PV_PMSNEVFR_EL1:
		field = &s->nevfr;
		break;
	case PV_PMSLATFR_EL1:
		field = &s->latfr;
		break;
	default:
		return 0;
	}
	if (!vspe_has(v) || (reg == PV_PMSNEVFR_EL1 && v->vm->spe.version < PV_SPE_V1P2))
		return 0;
	/* PMSICR_EL1 counts in the hardware on either path once the vCPU used SPE. */
	if (vspe_live(v) || (reg == PV_PMSICR_EL1 && v->cpu && s->used))
		return pv_plat_sysreg_read(v->cpu, reg);
	return *field;
}
