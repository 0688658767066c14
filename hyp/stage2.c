/* SPDX-License-Identifier: MIT */
/*
 * Stage 2 per VM (Arm ARM D8, stage 2 translation; VTCR_EL2, VTTBR_EL2). IPA space 4 GiB
 * (T0SZ = 32, walk from level 1). The VM's RAM is mapped with 2 MiB blocks at IPA RAM_BASE
 * onto its own physical slot; nothing else is mapped, so every access outside its RAM
 * (devices included) faults to EL2, where it is emulated or answered with an abort. The VM
 * can never reach the hypervisor or another VM. Each VM has its own VMID (index + 1).
 */
#include "hyp.h"

#define S2_BLOCK 0x1ul
#define S2_TABLE 0x3ul
#define S2_MEMATTR_NORMAL_WB (0xFul << 2) /* MemAttr[3:0] = 0b1111 (FWB = 0) */
#define S2_AP_RW (3ul << 6)
#define S2_SH_INNER (3ul << 8)
#define S2_AF (1ul << 10)
#define BLOCK_2M 0x200000ul

static uint64_t s2_tables[MAX_VMS][2][512] __attribute__((aligned(4096)));

void stage2_init(struct vm *vm)
{
	uint64_t *l1 = s2_tables[vm->index][0];
	uint64_t *l2 = s2_tables[vm->index][1];
	memset(l1, 0, 4096);
	memset(l2, 0, 4096);
	for (uint64_t off = 0; off < vm->ram_size; off += BLOCK_2M)
		l2[(RAM_BASE + off - 0x40000000ul) / BLOCK_2M] = (vm->pa_base + off) |
								 S2_BLOCK |
								 S2_MEMATTR_NORMAL_WB |
								 S2_AP_RW | S2_SH_INNER | S2_AF;
	l1[RAM_BASE >> 30] = (uint64_t)l2 | S2_TABLE;
	dsb(ishst);
	vm->s2_l1 = l1;
	vm->s2_l2 = l2;
	vm->vttbr = ((uint64_t)(vm->index + 1) << 48) | (uint64_t)l1;
}

bool stage2_ipa_to_pa(const struct vm *vm, uint64_t ipa, uint64_t *pa)
{
	if (ipa < RAM_BASE || ipa - RAM_BASE >= vm->ram_size)
		return false;
	*pa = vm->pa_base + (ipa - RAM_BASE);
	return true;
}
