/* SPDX-License-Identifier: MIT */
/*
 * EL2 stage 1: an identity map with 1 GiB blocks (Arm ARM D8, VMSAv8-64 translation, 4 KiB
 * granule, T0SZ = 32 so the walk starts at level 1). 0-1 GiB (MMIO) is Device-nGnRnE and
 * never executable; 1-2 GiB (RAM) is Normal write-back, and so is the rest of the RAM QEMU's
 * device tree describes, up to 4 GiB (mmu_map_ram).
 */
#include "hyp.h"

#define ATTR_DEVICE 0 /* MAIR_EL2 Attr0 = 0x00: Device-nGnRnE */
#define ATTR_NORMAL 1 /* MAIR_EL2 Attr1 = 0xFF: Normal, inner/outer write-back RW-allocate */
#define DESC_BLOCK 0x1ul
#define DESC_AF (1ul << 10)
#define DESC_SH_INNER (3ul << 8)
#define DESC_XN (1ul << 54)
#define DESC_ATTR(i) ((uint64_t)(i) << 2)

static uint64_t el2_l1[512] __attribute__((aligned(4096)));

void mmu_init(void)
{
	el2_l1[0] = DESC_BLOCK | DESC_AF | DESC_ATTR(ATTR_DEVICE) | DESC_XN; /* PA 0: devices */
	el2_l1[1] = 0x40000000ul | DESC_BLOCK | DESC_AF | DESC_SH_INNER |
		    DESC_ATTR(ATTR_NORMAL);

	write_sysreg(mair_el2, 0xFF00ul);
	/* TCR_EL2 (E2H = 0): T0SZ = 32, IRGN0 = ORGN0 = WB-WA, SH0 = inner, TG0 = 4K,
	 * PS = 40 bits, RES1 bits 31 and 23. */
	write_sysreg(tcr_el2, 32ul | (1ul << 8) | (1ul << 10) | (3ul << 12) | (2ul << 16) |
				      (1ul << 23) | (1ul << 31));
	write_sysreg(ttbr0_el2, (uint64_t)el2_l1);
	isb();
	__asm__ volatile("tlbi alle2\n\tdsb ish" ::: "memory");
	isb();
	/* SCTLR_EL2: M, C, I; RES1 bits 4, 5, 11, 16, 18, 22, 23, 28, 29. */
	write_sysreg(sctlr_el2, (1ul << 0) | (1ul << 2) | (1ul << 12) | 0x30C50830ul);
	isb();
}

/* The 1 GiB blocks of RAM past the first, to ram_end (at most 4 GiB: the map's reach), once
 * the device tree in the first has said how much there is: no block without RAM is mapped. */
void mmu_map_ram(uint64_t ram_end)
{
	for (unsigned i = 2; i < 4 && ((uint64_t)i << 30) < ram_end; i++)
		el2_l1[i] = ((uint64_t)i << 30) | DESC_BLOCK | DESC_AF | DESC_SH_INNER |
			    DESC_ATTR(ATTR_NORMAL);
	dsb(ishst);
	__asm__ volatile("tlbi alle2\n\tdsb ish" ::: "memory");
	isb();
}

/* Clean [addr, addr + len) to the point of coherency (DC CVAC), so that a guest running with
 * its MMU off (non-cacheable accesses) sees what the hypervisor wrote through its caches. */
void dcache_clean(uint64_t addr, size_t len)
{
	uint64_t line = 4ul << (read_sysreg(ctr_el0) >> 16 & 0xF); /* CTR_EL0.DminLine */
	for (uint64_t a = addr & ~(line - 1); a < addr + len; a += line)
		__asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
	dsb(sy);
}
