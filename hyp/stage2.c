/* SPDX-License-Identifier: MIT */
/*
 * Stage 2 per VM (Arm ARM D8, stage 2 translation; VTCR_EL2, VTTBR_EL2). IPA space 4 GiB
 * (T0SZ = 32, walk from level 1). The VM's RAM is mapped with 2 MiB blocks at IPA RAM_BASE
 * onto its own physical slot; nothing else is mapped, so every access outside its RAM
 * (devices included) faults to EL2, where it is emulated or answered with an abort. The VM
 * can never reach the hypervisor or another VM. Each VM has its own VMID (index + 1).
 *
 * A page can be taken from a VM (a balloon's give-back: stage2_unmap_page) and given back
 * (stage2_map_page): its 2 MiB block is split into a level-3 table of 4 KiB pages first.
 * Pages pinned for the VM's profiling buffer (pv_plat_s2_pin, platform.c) are counted per
 * page here, and a pinned page is never unmapped: the profiler must never meet a stage-2
 * fault on it (docs/spe.md).
 */
#include "hyp.h"

#define S2_VALID 0x1ul
#define S2_BLOCK 0x1ul
#define S2_TABLE 0x3ul
#define S2_PAGE 0x3ul
#define S2_TYPE_MASK 0x3ul
#define S2_MEMATTR_NORMAL_WB (0xFul << 2) /* MemAttr[3:0] = 0b1111 (FWB = 0) */
#define S2_AP_RW (3ul << 6)
#define S2_SH_INNER (3ul << 8)
#define S2_AF (1ul << 10)
#define S2_ATTRS (S2_MEMATTR_NORMAL_WB | S2_AP_RW | S2_SH_INNER | S2_AF)
#define S2_OA_MASK 0x0000FFFFFFFFF000ul /* output address, 4 KiB granule, 48 bits */
#define BLOCK_2M 0x200000ul
#define PAGE_4K 0x1000ul
#define L2_BASE 0x40000000ul /* the IPA the level-2 table's first entry maps */

/* Level-3 tables for split blocks, a few for each VM: a balloon gives back a few pages, and
 * one VM's give-backs never use up another's. */
#define S2_L3_TABLES 4

/* Pin counts of every page of the VM slots (by PA), each VM's in its own slots. */
#define SLOT_PAGES (MAX_VMS * VM_RAM_SIZE / PAGE_4K)

static uint64_t s2_tables[MAX_VMS][2][512] __attribute__((aligned(4096)));
static uint64_t s2_l3[MAX_VMS][S2_L3_TABLES][512] __attribute__((aligned(4096)));
static unsigned s2_l3_used[MAX_VMS];
static struct s2_account s2_accounts[MAX_VMS];

static struct s2_account *acct(const struct vm *vm)
{
	return &s2_accounts[vm->index];
}

const struct s2_account *stage2_account(const struct vm *vm)
{
	return acct(vm);
}
static uint16_t pin_count[SLOT_PAGES];

void stage2_init(struct vm *vm)
{
	uint64_t *l1 = s2_tables[vm->index][0];
	uint64_t *l2 = s2_tables[vm->index][1];
	memset(l1, 0, 4096);
	memset(l2, 0, 4096);
	*acct(vm) = (struct s2_account){0};
	s2_l3_used[vm->index] = 0;
	for (uint64_t off = 0; off < vm->ram_size; off += BLOCK_2M)
		l2[(RAM_BASE + off - L2_BASE) / BLOCK_2M] = (vm->pa_base + off) | S2_BLOCK |
							    S2_ATTRS;
	l1[RAM_BASE >> 30] = (uint64_t)l2 | S2_TABLE;
	dsb(ishst);
	vm->s2_l1 = l1;
	vm->s2_l2 = l2;
	vm->vttbr = ((uint64_t)(vm->index + 1) << 48) | (uint64_t)l1;
}

static bool in_ram(const struct vm *vm, uint64_t ipa)
{
	return ipa >= RAM_BASE && ipa - RAM_BASE < vm->ram_size;
}

/* The level-2 entry of an IPA of the VM's RAM. */
static uint64_t *l2_entry(const struct vm *vm, uint64_t ipa)
{
	return &vm->s2_l2[(ipa - L2_BASE) / BLOCK_2M];
}

/* The leaf descriptor that maps `ipa` (a block or a page), or NULL where nothing does. */
static const uint64_t *leaf(const struct vm *vm, uint64_t ipa, uint64_t *size)
{
	if (!in_ram(vm, ipa))
		return NULL;
	const uint64_t *d = l2_entry(vm, ipa);
	if ((*d & S2_TYPE_MASK) == S2_BLOCK) {
		*size = BLOCK_2M;
		return d;
	}
	if ((*d & S2_TYPE_MASK) != S2_TABLE)
		return NULL;
	const uint64_t *l3 = (const uint64_t *)(*d & S2_OA_MASK);
	d = &l3[(ipa / PAGE_4K) % 512];
	*size = PAGE_4K;
	return (*d & S2_TYPE_MASK) == S2_PAGE ? d : NULL;
}

bool stage2_translate(const struct vm *vm, uint64_t ipa, uint64_t *pa, bool write)
{
	uint64_t size = 0;
	const uint64_t *d = leaf(vm, ipa, &size);
	if (!d || !(*d & S2_AF) || (write && (*d & S2_AP_RW) != S2_AP_RW))
		return false;
	*pa = (*d & S2_OA_MASK & ~(size - 1)) | (ipa & (size - 1));
	return true;
}

/* The pin count of the VM's page at `ipa` (in its RAM). */
static uint16_t *pins_of(const struct vm *vm, uint64_t ipa)
{
	return &pin_count[(vm->pa_base + (ipa - RAM_BASE) - VM_SLOT(0)) / PAGE_4K];
}

bool stage2_pin(struct vm *vm, uint64_t ipa, uint64_t size)
{
	uint64_t pa;
	if (ipa % PAGE_4K || size % PAGE_4K || !size || ipa + size < ipa)
		return false;
	/* All or nothing: every page mapped writable, with room in its count, before any is
	 * counted. */
	for (uint64_t a = ipa; a < ipa + size; a += PAGE_4K)
		if (!stage2_translate(vm, a, &pa, true) || *pins_of(vm, a) == UINT16_MAX)
			return false;
	for (uint64_t a = ipa; a < ipa + size; a += PAGE_4K)
		if ((*pins_of(vm, a))++ == 0)
			acct(vm)->pinned_pages++;
	if (acct(vm)->pinned_pages > acct(vm)->pinned_max)
		acct(vm)->pinned_max = acct(vm)->pinned_pages;
	acct(vm)->pin_calls++;
	return true;
}

void stage2_unpin(struct vm *vm, uint64_t ipa, uint64_t size)
{
	for (uint64_t a = ipa; a - ipa < size; a += PAGE_4K) {
		uint16_t *n = in_ram(vm, a) ? pins_of(vm, a) : NULL;
		if (!n || !*n) {
			acct(vm)->unpin_unbalanced++; /* never pinned: the report shows it */
			continue;
		}
		if (--*n == 0)
			acct(vm)->pinned_pages--;
	}
}

unsigned stage2_pins(const struct vm *vm, uint64_t ipa)
{
	return in_ram(vm, ipa) ? *pins_of(vm, ipa & ~(PAGE_4K - 1)) : 0;
}

/* Stage-2 TLB entries of the VM for `ipa`, and the combined stage 1 and 2 entries its VMID
 * tags, invalidated (Arm ARM D8.17, TLB maintenance): TLBI IPAS2E1IS and TLBI VMALLE1IS act
 * on the VMID in VTTBR_EL2, so the VM's is put there for them. */
static void tlb_flush_ipa(const struct vm *vm, uint64_t ipa)
{
	uint64_t vttbr = read_sysreg(vttbr_el2);
	write_sysreg(vttbr_el2, vm->vttbr);
	isb();
	__asm__ volatile("dsb ishst\n\t"
			 "tlbi ipas2e1is, %0\n\t"
			 "dsb ish\n\t"
			 "tlbi vmalle1is\n\t"
			 "dsb ish" ::"r"(ipa >> 12)
			 : "memory");
	write_sysreg(vttbr_el2, vttbr);
	isb();
}

/* The 2 MiB block holding `ipa` as a level-3 table of the same 512 pages, by
 * break-before-make (Arm ARM D8.17.1): the block entry invalid and its TLB entries gone
 * before the table entry is written. false: no level-3 table left. */
static bool split_block(struct vm *vm, uint64_t ipa)
{
	uint64_t *d = l2_entry(vm, ipa);
	if ((*d & S2_TYPE_MASK) == S2_TABLE)
		return true;
	if (s2_l3_used[vm->index] == S2_L3_TABLES)
		return false;
	uint64_t *l3 = s2_l3[vm->index][s2_l3_used[vm->index]++];
	uint64_t base = *d & S2_OA_MASK & ~(BLOCK_2M - 1);
	for (unsigned i = 0; i < 512; i++)
		l3[i] = (base + i * PAGE_4K) | S2_PAGE | S2_ATTRS;
	*d = 0;
	tlb_flush_ipa(vm, ipa & ~(BLOCK_2M - 1));
	*d = (uint64_t)l3 | S2_TABLE;
	dsb(ishst);
	return true;
}

enum s2_result stage2_unmap_page(struct vm *vm, uint64_t ipa)
{
	if (ipa % PAGE_4K || !in_ram(vm, ipa))
		return S2_NOT_RAM;
	if (*pins_of(vm, ipa)) {
		acct(vm)->unmap_refused++;
		return S2_PINNED; /* the profiler may write it: it stays until unpinned */
	}
	uint64_t pa;
	if (!stage2_translate(vm, ipa, &pa, false))
		return S2_NOT_MAPPED;
	if (!split_block(vm, ipa))
		return S2_NO_TABLE;
	uint64_t *l3 = (uint64_t *)(*l2_entry(vm, ipa) & S2_OA_MASK);
	l3[(ipa / PAGE_4K) % 512] = 0;
	tlb_flush_ipa(vm, ipa);
	acct(vm)->unmapped_pages++;
	return S2_OK;
}

enum s2_result stage2_map_page(struct vm *vm, uint64_t ipa)
{
	if (ipa % PAGE_4K || !in_ram(vm, ipa))
		return S2_NOT_RAM;
	uint64_t pa;
	if (stage2_translate(vm, ipa, &pa, false))
		return S2_OK; /* mapped already */
	/* Only a page unmapped here is invalid, so its block is split already. */
	uint64_t *l3 = (uint64_t *)(*l2_entry(vm, ipa) & S2_OA_MASK);
	l3[(ipa / PAGE_4K) % 512] = (vm->pa_base + (ipa - RAM_BASE)) | S2_PAGE | S2_ATTRS;
	dsb(ishst);
	acct(vm)->unmapped_pages--;
	return S2_OK;
}

const char *stage2_result_name(enum s2_result r)
{
	switch (r) {
	case S2_OK:
		return "done";
	case S2_NOT_RAM:
		return "not a page of its RAM";
	case S2_PINNED:
		return "pinned";
	case S2_NOT_MAPPED:
		return "not mapped";
	case S2_NO_TABLE:
		return "no level-3 table left";
	}
	return "?";
}
