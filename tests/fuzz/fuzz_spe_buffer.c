/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spe_buffer: the profiling buffer against an adversarial guest and odd hardware.
 *
 * The guest writes anything to its stage-1 tables (a 64 KiB window of its RAM that its
 * TTBR0/1_EL1 point into), to TCR/SCTLR, and to every SPE register through pv_trap; the
 * "hardware" reports anything in PMBSR/PMBPTR on the buffer interrupt; the vCPU is put and
 * loaded in between. The first byte's top bit picks the hardware: one whose sampling controls
 * trap, or one where the VM takes direct sampling controls (docs/spe.md), on which the guest
 * also writes the PMS* registers itself once they no longer trap. Platform:
 * tests/support/memplat with the VM's RAM at [RIG_RAM, RIG_RAM + RIG_RAM_SIZE), pins counted
 * per page. Invariants (docs/security.md):
 *   - every pin is balanced: the library never unpins a page it did not pin;
 *   - no page loses its last pin while the pCPU's profiling buffer is enabled or undrained;
 *   - the VM's PMSCR_EL2 word is zero and owns PA, PCT, CX, E2SPE and E0HSPE (no physical
 *     address, no physical timestamp, no EL2 context or sampling); where the controls trap,
 *     the physical PMSCR_EL1 never asks for physical addresses or timestamps either;
 *   - a put leaves the physical PMSCR_EL1 zero: nothing is sampled for a vCPU not loaded;
 *   - when the guest disables its buffer, every pin is released.
 */
#include <stdbool.h>
#include <string.h>

#include "esr.h"
#include "fuzz.h"
#include "tests/unit/test_vspe_rig.h"

static const struct spe_hw_desc hw_desc[2] = {
	{.version = PV_SPE_V1P2, .align = 0, .max_size = 6},
	{.version = PV_SPE_V1P2,
	 .align = 0,
	 .max_size = 6,
	 .fgt = true,
	 .no_eft_fds = true,
	 .fgt_words = true},
};
static struct spe_rig *rigs[2];

#define WINDOW (UINT64_C(64) << 10)

static const uint32_t spe_regs[] = {
	PV_PMSCR_EL1,     PV_PMSICR_EL1,   PV_PMSIRR_EL1,   PV_PMSFCR_EL1,
	PV_PMSEVFR_EL1,   PV_PMSLATFR_EL1, PV_PMSNEVFR_EL1, PV_PMSIDR_EL1,
	PV_PMBLIMITR_EL1, PV_PMBPTR_EL1,   PV_PMBSR_EL1,    PV_PMBIDR_EL1,
};
#define NREGS (sizeof(spe_regs) / sizeof(spe_regs[0]))

/* The sampling controls (the first seven of spe_regs). */
static bool is_control(uint32_t key)
{
	for (unsigned i = 0; i < 7; i++)
		if (spe_regs[i] == key)
			return true;
	return false;
}

static void check(const struct spe_rig *r)
{
	const uint64_t bound = PV_PMSCR_PA | PV_PMSCR_PCT | PV_PMSCR_CX | PV_PMSCR_E1SPE |
			       PV_PMSCR_E0SPE;
	const struct pv_trap_words *w = &r->v[0].traps;
	FZ_CHECK(r->mem.bad_unpins == 0, "unpinned a page that was not pinned");
	FZ_CHECK(r->mem.live_unpins == 0, "%llu pages unpinned under a running buffer",
		 (unsigned long long)r->mem.live_unpins);
	uint64_t scr = *memplat_reg((struct memplat_cpu *)&r->mc[0], PV_PMSCR_EL1);
	FZ_CHECK(r->vm.spe.direct || !(scr & (PV_PMSCR_PA | PV_PMSCR_PCT)), "PMSCR_EL1 = %#llx",
		 (unsigned long long)scr);
	FZ_CHECK(r->v[0].cpu || scr == 0, "PMSCR_EL1 = %#llx with no vCPU loaded",
		 (unsigned long long)scr);
	FZ_CHECK(w->pmscr_el2 == 0 && (w->pmscr_el2_owned & bound) == bound,
		 "PMSCR_EL2 word %#llx, owned %#llx", (unsigned long long)w->pmscr_el2,
		 (unsigned long long)w->pmscr_el2_owned);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	uint8_t first = fz_u8(&f);
	unsigned which = first >> 7;
	if (!rigs[which])
		rigs[which] = spe_rig_new(&hw_desc[which]);
	struct spe_rig *r = rigs[which];
	uint64_t max_buffer = UINT64_C(4096) << ((first & 0x7F) % 11); /* 4 KiB .. 4 MiB */
	if (spe_rig_vm(r, PV_FEAT_SPE, PV_SPE_V1P2, max_buffer) != PV_OK)
		return 0;
	FZ_CHECK(r->vm.spe.direct == which, "direct %u on rig %u", r->vm.spe.direct, which);
	memset(rig_ipa(r, RIG_TABLES), 0, WINDOW);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	uint64_t x[31] = {0};
	for (unsigned step = 0; step < 64 && fz_left(&f); step++) {
		switch (fz_u8(&f) % 6) {
		case 0: { /* a descriptor anywhere in the window; outputs biased into the RAM */
			uint64_t at = RIG_TABLES + (fz_u16(&f) & (WINDOW - 8));
			uint64_t val = fz_u64(&f);
			if (fz_u8(&f) & 1)
				val = (val & ~PV_GENMASK(47, 12)) |
				      ((RIG_RAM + (val >> 12) % RIG_RAM_SIZE) &
				       PV_GENMASK(47, 12));
			*rig_ipa(r, at) = val;
			break;
		}
		case 1: /* the guest's EL1 translation regime */
			*memplat_reg(&r->mc[0], PV_TTBR0_EL1) = RIG_TABLES +
								(fz_u16(&f) & 0xF000);
			*memplat_reg(&r->mc[0], PV_TTBR1_EL1) = RIG_TABLES +
								(fz_u16(&f) & 0xF000);
			*memplat_reg(&r->mc[0], PV_TCR_EL1) = fz_u64(&f);
			*memplat_reg(&r->mc[0], PV_SCTLR_EL1) = fz_u8(&f) & 1 ? PV_SCTLR_M : 0;
			break;
		case 2: { /* an SPE register write from the guest */
			x[1] = fz_u64(&f);
			uint32_t key = spe_regs[fz_u8(&f) % NREGS];
			if (key == PV_PMBPTR_EL1 ||
			    key == PV_PMBLIMITR_EL1) /* bias into a region */
				x[1] = (x[1] & 0xFF0000000000FFFFu) |
				       UINT64_C(0xFFFF000000000000);
			/* A sampling control no longer trapped is the hardware's: the guest
			 * writes it itself (its fine-grained traps are none here). */
			if (is_control(key) && !(v->traps.mdcr_el2 & PV_MDCR_EL2_TPMS))
				*memplat_reg(&r->mc[0], key) = x[1];
			else
				pv_trap(v, esr_sys(key, 1, false), 1, x);
			break;
		}
		case 3: /* the hardware raises a buffer event */
			*memplat_reg(&r->mc[0], PV_PMBSR_EL1) = fz_u64(&f) | PV_PMBSR_S;
			*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = fz_u64(&f);
			pv_irq(&r->cpu[0], PV_INTID_SPE);
			break;
		case 4: /* a switch */
			pv_vcpu_put(v);
			pv_vcpu_load(v, &r->cpu[0]);
			break;
		default: /* a read */
			pv_trap(v, esr_sys(spe_regs[fz_u8(&f) % NREGS], 2, true), fz_u8(&f) & 1,
				x);
			break;
		}
		check(r);
	}
	/* The guest turns its buffer off: nothing stays pinned. */
	x[1] = 0;
	pv_trap(v, esr_sys(PV_PMBLIMITR_EL1, 1, false), 1, x);
	pv_vcpu_put(v);
	check(r);
	FZ_CHECK(rig_pinned(r) == 0, "%llu pages still pinned after the buffer was disabled",
		 (unsigned long long)rig_pinned(r));
	return 0;
}
