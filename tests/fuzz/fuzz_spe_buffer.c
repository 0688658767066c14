/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spe_buffer: the profiling buffer against an adversarial guest and odd hardware.
 *
 * The guest writes anything to its stage-1 tables (a 64 KiB window of its RAM that its
 * TTBR0/1_EL1 point into), to TCR/SCTLR, and to every SPE register through pv_trap; the
 * "hardware" reports anything in PMBSR/PMBPTR on the buffer interrupt; the vCPU is put and
 * loaded in between. Platform: tests/support/memplat with the VM's RAM at [RIG_RAM,
 * RIG_RAM + RIG_RAM_SIZE), pins counted per page. Invariants (docs/security.md):
 *   - every pin is balanced: the library never unpins a page it did not pin;
 *   - no page loses its last pin while the pCPU's profiling buffer is enabled or undrained;
 *   - the physical PMSCR_EL1 never asks for physical addresses or physical timestamps, and the
 *     VM's PMSCR_EL2 word is zero (no PA, no PCT, no EL2 context);
 *   - when the guest disables its buffer, every pin is released.
 */
#include <stdbool.h>
#include <string.h>

#include "esr.h"
#include "fuzz.h"
#include "tests/unit/test_vspe_rig.h"

static const struct spe_hw_desc hw_desc = {.version = PV_SPE_V1P2, .align = 0, .max_size = 6};
static struct spe_rig *rig;

#define WINDOW (UINT64_C(64) << 10)

static const uint32_t spe_regs[] = {
	PV_PMSCR_EL1,     PV_PMSICR_EL1,   PV_PMSIRR_EL1,   PV_PMSFCR_EL1,
	PV_PMSEVFR_EL1,   PV_PMSLATFR_EL1, PV_PMSNEVFR_EL1, PV_PMSIDR_EL1,
	PV_PMBLIMITR_EL1, PV_PMBPTR_EL1,   PV_PMBSR_EL1,    PV_PMBIDR_EL1,
};
#define NREGS (sizeof(spe_regs) / sizeof(spe_regs[0]))

static void check(const struct spe_rig *r)
{
	FZ_CHECK(r->mem.bad_unpins == 0, "unpinned a page that was not pinned");
	FZ_CHECK(r->mem.live_unpins == 0, "%llu pages unpinned under a running buffer",
		 (unsigned long long)r->mem.live_unpins);
	uint64_t scr = *memplat_reg((struct memplat_cpu *)&r->mc[0], PV_PMSCR_EL1);
	FZ_CHECK(!(scr & (PV_PMSCR_PA | PV_PMSCR_PCT)), "PMSCR_EL1 = %#llx",
		 (unsigned long long)scr);
	FZ_CHECK(r->v[0].traps.pmscr_el2 == 0, "PMSCR_EL2 word %#llx",
		 (unsigned long long)r->v[0].traps.pmscr_el2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!rig)
		rig = spe_rig_new(&hw_desc);
	struct spe_rig *r = rig;
	struct fz f = {data, size};
	uint64_t max_buffer = UINT64_C(4096) << (fz_u8(&f) % 11); /* 4 KiB .. 4 MiB */
	if (spe_rig_vm(r, PV_FEAT_SPE, PV_SPE_V1P2, max_buffer) != PV_OK)
		return 0;
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
