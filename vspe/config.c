/* SPDX-License-Identifier: MIT */
/*
 * Probe, per-VM configuration and views (Arm ARM D24.7.1 PMBIDR_EL1, D24.7.14 PMSIDR_EL1), the
 * per-vCPU state, and the physical buffer interrupt.
 */
#include "internal.h"

#define SLOT(key) PV_ID_SLOT(key)

/* PMSEVFR_EL1/PMSNEVFR_EL1 bits that may hold a filter for a version (D24.7.11): retired, L1D
 * refill, TLB walk, mispredicted always; L1D access, TLB access, LLC access/miss, remote access
 * optionally; alignment, and the partial and empty predicate events (17, 18) where the PE has
 * SVE or SME (the probe finds them implemented or not), from SPEv1p1; not taken with
 * FEAT_SPE_FnE; IMPLEMENTATION DEFINED events in [15:12], [31:24] and [63:48]. Bit 0 is
 * RAZ/WI. With direct sampling controls the guest holds every one the hardware implements,
 * so the trapped path's view must have them too. */
static uint64_t event_filter_bits(unsigned version)
{
	uint64_t m = PV_GENMASK(5, 1) | PV_BIT(7) | PV_GENMASK(10, 8) | PV_GENMASK(15, 12) |
		     PV_GENMASK(31, 24) | PV_GENMASK(63, 48);
	if (version >= PV_SPE_V1P1)
		m |= PV_BIT(11) | PV_GENMASK(18, 17);
	if (version >= PV_SPE_V1P2)
		m |= PV_BIT(6);
	return m;
}

static const uint8_t pa_bits[8] = {32, 36, 40, 42, 44, 48, 48, 48};

/*
 * Direct sampling controls (docs/spe.md): with MDCR_EL2.TPMS clear, EL1's MRS and MSR of
 * PMSCR_EL1, PMSEVFR_EL1, PMSFCR_EL1, PMSICR_EL1, PMSIRR_EL1, PMSLATFR_EL1 and PMSIDR_EL1 reach
 * the hardware, and so do PMSNEVFR_EL1 with FEAT_SPE_FnE and PMSDSFR_EL1 with FEAT_SPE_FDS
 * (Arm ARM D24.3.17, MDCR_EL2.TPMS). A guest then holds in the hardware every field the
 * hardware implements, so the path is taken only where each register it reaches has the
 * VM's fields, or else traps by its own fine-grained trap (D24.2.67, D24.2.69):
 *   - up to SPEv1p2 the controls have no field perfvisor does not know; later versions add
 *     some (PMSCR_EL1.EE and KE with FEAT_SPE_EXC, D24.7.8), so above it everything traps;
 *   - PMSDSFR_EL1 (FEAT_SPE_FDS) is trapped by TPMS alone, or by FEAT_FGT2, which perfvisor
 *     does not program: with it everything traps;
 *   - a VM with PMSNEVFR_EL1 (SPEv1p2) needs the hardware's: an UNDEFINED access cannot be
 *     turned into a register;
 *   - PMSIDR_EL1 whose view hides a feature (EFT, FnE), PMSFCR_EL1 with fields the VM lacks
 *     (FnE below SPEv1p2, the extended type filter), PMSEVFR_EL1 with event filters of a later
 *     version, and PMSNEVFR_EL1 for a VM below SPEv1p2 trap by FEAT_FGT, which needs the
 *     hypervisor to apply the fine-grained words (pv_hw.fgt_words); without, everything traps.
 * What the guest may then set and perfvisor would have refused is bounded by PMSCR_EL2, all
 * zero (trap words): PMSCR_EL1.PA only counts with PMSCR_EL2.PA (CollectPhysicalAddress()),
 * PMSCR_EL2.PCT = 0b00 makes every timestamp virtual whatever PMSCR_EL1.PCT asks
 * (CollectTimeStamp(), J1.1.1), and an EL1-owned buffer never samples EL2
 * (StatisticalProfilingEnabled()). RES0 bits the hardware keeps (a RES0 bit may hold what was
 * written, with no effect: Glossary, RES0) are the vCPU's, saved and restored with the rest.
 */
static void direct_path(struct pv_vm *vm)
{
	const struct pv_hw *hw = vm->hw;
	const struct pv_hw_spe *a = &hw->spehw;
	struct pv_vm_spe *p = &vm->spe;
	bool hw_fne = (a->pmsidr & PV_PMSIDR_FNE) != 0, v1p2 = p->version >= PV_SPE_V1P2;
	unsigned fgt = 0;
	if (a->version > PV_SPE_V1P2 || (a->pmsidr & PV_PMSIDR_FDS) || (v1p2 && !hw_fne))
		return;
	if (p->pmsidr != a->pmsidr)
		fgt |= PV_VSPE_FGT_PMSIDR;
	if ((a->pmsidr & PV_PMSIDR_EFT) || (hw_fne && !v1p2))
		fgt |= PV_VSPE_FGT_PMSFCR;
	if (a->evfr_mask & event_filter_bits(a->version) & ~p->evfr_mask)
		fgt |= PV_VSPE_FGT_PMSEVFR;
	if (hw_fne &&
	    (!v1p2 || (a->nevfr_mask & event_filter_bits(a->version) & ~p->nevfr_mask)))
		fgt |= PV_VSPE_FGT_PMSNEVFR;
	if (fgt && !(hw->fgt && hw->fgt_words))
		return;
	p->direct = 1;
	p->fgt = (uint8_t)fgt;
}

int pv_vspe_probe(struct pv_hw *hw, struct pv_pcpu *cpu)
{
	struct pv_hw_spe *a = &hw->spehw;
	uint64_t mmfr0;
	unsigned max;
	unsigned align;
	hw->spe = PV_ID_FIELD(hw->id[SLOT(PV_ID_AA64DFR0_EL1)], PV_ID_AA64DFR0_PMSVER) != 0;
	if (!hw->spe)
		return PV_OK;
	mmfr0 = hw->id[SLOT(PV_ID_AA64MMFR0_EL1)];
	a->version = (uint8_t)PV_ID_FIELD(hw->id[SLOT(PV_ID_AA64DFR0_EL1)],
					  PV_ID_AA64DFR0_PMSVER);
	a->ecv = PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_ECV) != 0;
	a->pa_bits = pa_bits[PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_PARANGE) & 7];
	a->tgran = (uint8_t)((PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_TGRAN4) != 0xF ? 1 : 0) |
			     (PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_TGRAN16) != 0 ? 2 : 0) |
			     (PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_TGRAN64) != 0xF ? 4 : 0));
	/* PMBIDR_EL1 is readable at EL2 whoever owns the buffer; the others trap to EL3 unless it
	 * delegated SPE to the Non-secure side (MDCR_EL3.NSPB), which P = 0 at EL2 says. */
	a->pmbidr = pv_plat_sysreg_read(cpu, PV_PMBIDR_EL1);
	if (a->pmbidr & PV_PMBIDR_P)
		return PV_OK; /* not usable: a VM asking for SPE is refused at pv_vm_init */
	a->pmsidr = pv_plat_sysreg_read(cpu, PV_PMSIDR_EL1);
	max = (unsigned)PV_FIELD_GET(PV_PMSIDR_MAXSIZE, a->pmsidr);
	align = (unsigned)PV_FIELD_GET(PV_PMBIDR_ALIGN, a->pmbidr);
	/* MaxSize 16 B..2 KiB, Align at most 2 KiB and at most MaxSize (D24.7.1, D24.7.14). */
	if (max < 4 || max > 11 || align > max || a->version == 0 || !a->tgran)
		return PV_OK;
	/* Filter bits that are not implemented are RAZ/WI: write ones, read back. */
	pv_plat_sysreg_write(cpu, PV_PMSEVFR_EL1, ~UINT64_C(0));
	a->evfr_mask = pv_plat_sysreg_read(cpu, PV_PMSEVFR_EL1);
	pv_plat_sysreg_write(cpu, PV_PMSEVFR_EL1, 0);
	if (a->pmsidr & PV_PMSIDR_FNE) {
		pv_plat_sysreg_write(cpu, PV_PMSNEVFR_EL1, ~UINT64_C(0));
		a->nevfr_mask = pv_plat_sysreg_read(cpu, PV_PMSNEVFR_EL1);
		pv_plat_sysreg_write(cpu, PV_PMSNEVFR_EL1, 0);
	}
	a->usable = true;
	return PV_OK;
}

/* PMBIDR_EL1.MaxBuffSize (D24.7.1): E = 0: M * 4 KiB; else ('1':M) << (E + 11). The largest
 * encodable size not above `bytes`. */
static uint64_t maxbuff_encode(uint64_t bytes)
{
	uint64_t pages = bytes >> 12;
	unsigned msb;
	unsigned e;
	uint64_t m;
	if (pages < 512)
		return pages;
	msb = 63 - (unsigned)__builtin_clzll(bytes);
	e = msb - 20;
	m = (bytes >> (e + 11)) - 512;
	return (uint64_t)e << 9 | m;
}

static uint64_t maxbuff_decode(uint64_t code)
{
	uint64_t m = code & 0x1FF, e = code >> 9 & 0x1F;
	return e ? (512 + m) << (e + 11) : m << 12;
}

int pv_vspe_vm_init(struct pv_vm *vm)
{
	struct pv_vm_spe *p = &vm->spe;
	const struct pv_spe_config *c = &vm->cfg.spe;
	const struct pv_hw_spe *a = &vm->hw->spehw;
	bool v1p2;
	uint64_t code;
	*p = (struct pv_vm_spe){0};
	if (!(vm->cfg.features & PV_FEAT_SPE))
		return PV_OK;
	if (!a->usable) /* owned by EL3 or Secure, or identification outside the architecture */
		return PV_ERR_UNSUPPORTED;
	if (c->version < PV_SPE_V1 || c->version > PV_SPE_V1P2 || c->version > a->version)
		return PV_ERR_SPE_VERSION;
	if (c->max_buffer < PV_SPE_PAGE || c->max_buffer % PV_SPE_PAGE ||
	    c->max_buffer > PV_SPE_MAX_BUFFER)
		return PV_ERR_SPE_BUFFER;
	if (c->pin_chunk &&
	    (c->pin_chunk < PV_VSPE_PIN_CHUNK_MIN || c->pin_chunk > PV_SPE_MAX_BUFFER ||
	     (c->pin_chunk & (c->pin_chunk - 1))))
		return PV_ERR_SPE_BUFFER;
	v1p2 = c->version >= PV_SPE_V1P2;
	code = maxbuff_encode(c->max_buffer);
	p->version = c->version;
	p->max_buffer = maxbuff_decode(code);
	p->pin_chunk = c->pin_chunk ? c->pin_chunk : PV_VSPE_PIN_CHUNK;
	p->align = (uint8_t)PV_FIELD_GET(PV_PMBIDR_ALIGN, a->pmbidr);
	p->max_record = (uint8_t)PV_FIELD_GET(PV_PMSIDR_MAXSIZE, a->pmsidr);
	/* Views: filter features whose registers perfvisor does not emulate are hidden (EFT's
	 * PMSFCR_EL1 fields, FDS's PMSDSFR_EL1, FnE below SPEv1p2); what only shapes the records
	 * (PBT, CRR, FPF, LDS, ...) is the hardware's, since the records are. */
	p->pmsidr = a->pmsidr & ~(PV_PMSIDR_EFT | PV_PMSIDR_FDS | (v1p2 ? 0 : PV_PMSIDR_FNE));
	p->pmbidr = (a->pmbidr & (PV_PMBIDR_ALIGN | PV_PMBIDR_F | PV_PMBIDR_EA)) |
		    PV_FIELD_PREP(PV_PMBIDR_MAXBUFFSIZE, code);
	p->scr_mask = PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_PA |
		      PV_PMSCR_TS | (a->ecv ? PV_PMSCR_PCT : PV_BIT(6));
	p->fcr_mask = PV_PMSFCR_FE | PV_PMSFCR_FT | PV_PMSFCR_FL | PV_PMSFCR_B | PV_PMSFCR_LD |
		      PV_PMSFCR_ST | (v1p2 ? PV_PMSFCR_FnE : 0);
	p->evfr_mask = a->evfr_mask & event_filter_bits(c->version);
	p->nevfr_mask = v1p2 ? a->nevfr_mask & event_filter_bits(c->version) : 0;
	p->latfr_mask = PV_FIELD_GET(PV_PMSIDR_COUNTSIZE, a->pmsidr) == PV_PMSIDR_COUNTSIZE_16
				? 0xFFFF
				: 0xFFF;
	p->limitr_mask = PV_PMBLIMITR_LIMIT | PV_PMBLIMITR_FM | PV_PMBLIMITR_E |
			 (v1p2 ? PV_PMBLIMITR_PMFZ : 0);
	direct_path(vm);
	return PV_OK;
}

void pv_vspe_vcpu_init(struct pv_vcpu *v)
{
	/* PMBLIMITR_EL1.E resets to 0; the other fields are UNKNOWN, perfvisor gives 0. */
	v->spe = (struct pv_vspe){0};
	pv_vspe__tables_forget(&v->spe);
}

/* A new store: the old pins go (the hardware's pointer read first, the buffer stopped), and
 * a buffer still enabled is pinned again into the new one at once rather than left off. */
void pv_vspe_vcpu_pins(struct pv_vcpu *v, struct pv_vspe_pin *store, uint32_t n)
{
	pv_vspe__sync(v, false);
	if (v->spe.npins)
		pv_vspe__unpin_all(v);
	v->spe.pins = store;
	v->spe.max_pins = store ? n : 0;
	if (v->spe.used)
		pv_vspe__apply(v);
}

void pv_vspe_release(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	pv_vspe__sync(v, false);
	s->limitr &= ~PV_PMBLIMITR_E;
	pv_vspe__apply(v);
}

void pv_vspe_vcpu_release(struct pv_vcpu *v)
{
	pv_vspe_release(v);
}

/* The pins are the vCPUs' (pv_vspe_vcpu_release); a VM holds nothing more. */
void pv_vspe_vm_release(struct pv_vm *vm)
{
	(void)vm;
}

void pv_vspe_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	if (!hw->spehw.usable)
		return;
	pv_plat_sysreg_write(cpu, PV_PMSCR_EL1, 0);
	pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1, 0);
	pv_plat_sysreg_write(cpu, PV_PMBSR_EL1, 0);
}

bool pv_vspe_irq(struct pv_pcpu *cpu)
{
	const struct pv_hw *hw = cpu->hw;
	struct pv_vcpu *v = cpu->loaded;
	if (!hw || !hw->spehw.usable)
		return false;
	if (v && vspe_has(v) && v->spe.hw_on) {
		pv_vspe__sync(v, false);
		return true;
	}
	/* Not a guest's buffer: a pending event is the host's; none, a late interrupt. */
	return !(pv_plat_sysreg_read(cpu, PV_PMBSR_EL1) & PV_PMBSR_S);
}
