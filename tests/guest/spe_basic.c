/* SPDX-License-Identifier: MIT */
/*
 * The Statistical Profiling Extension from a guest's EL1 (docs/spe.md): a profiling buffer in
 * the guest's own virtual memory, mapped by its own stage 1 onto pages in another order, the
 * records of a known loop decoded here (every PC in the loop and at EL1, every data address
 * in its array), a buffer that fills (PMBSR_EL1 EC 0, BSC 1, the virtual INTID 21 pending)
 * and restarts, the balloon's give-back of a pinned page refused and of an unpinned one done,
 * and a buffer over a page given back reported as the memory the VM no longer has (EC 0x1F,
 * MSS 2), never as a stage-2 fault.
 *
 * Arguments: spe.expect=0 (or a VM named hidden...): the VM must have no SPE (PMSVer 0, every register UNDEFINED, no
 * device-tree node); spe.end=1: profiling runs until the hypervisor ends the VM (limit_ms);
 * spe.end=2: the VM crashes mid-profile (its exception vectors outside its memory);
 * spe.swap=1: the buffer's pages swapped in pairs at stage 1 (above); spe.case=1: stage-1
 * faults on the buffer; spe.case=2: the enables D17.7.4 leaves to the implementation, rewrites
 * while enabled, RES0 garbage (spe.max_kib=N: the VM's spe_max_kib); VMs named side1 and
 * side2: two VMs profiling side by side, each its own loop.
 */
#include "guest.h"

/* Arm ARM D24.7: the SPE registers. */
#define PMSCR_EL1 S3_0_C9_C9_0
#define PMSICR_EL1 S3_0_C9_C9_2
#define PMSIRR_EL1 S3_0_C9_C9_3
#define PMSFCR_EL1 S3_0_C9_C9_4
#define PMSEVFR_EL1 S3_0_C9_C9_5
#define PMSLATFR_EL1 S3_0_C9_C9_6
#define PMSIDR_EL1 S3_0_C9_C9_7
#define PMBLIMITR_EL1 S3_0_C9_C10_0
#define PMBPTR_EL1 S3_0_C9_C10_1
#define PMBSR_EL1 S3_0_C9_C10_3
#define PMBIDR_EL1 S3_0_C9_C10_7
#define ID_AA64DFR0_EL1 S3_0_C0_C5_0

#define PMSCR_E1SPE (1ul << 1)
#define PMSCR_TS (1ul << 5)
#define PMBLIMITR_E 1ul
#define PMBSR_S (1ul << 17)
#define PMBSR_EC(v) (((v) >> 26) & 0x3F)
#define PMBSR_MSS(v) ((v)&0xFFFF)
#define PMBIDR_P (1ul << 4)
#define INTID_SPE 21

#define HYP_CALL_BALLOON_GIVE 0xC6000001ul
#define HYP_CALL_BALLOON_TAKE 0xC6000002ul
#define S2_OK 0
#define S2_PINNED 2

/* The buffer: VA BUF_VA maps page i onto IPA BUF_IPA + i pages (stage 1, level 3), so a
 * hypervisor that took the buffer's VA for an IPA would pin and the profiler write the wrong
 * pages; with spe.swap=1, onto page i ^ 1, so that a record across a page boundary must be
 * split where stage 1 splits it. Code and data are mapped VA = IPA. */
#define PAGE 4096ul
#define BUF_VA 0x60000000ul
#define BUF_IPA 0x42000000ul
#define BUF_PAGES 512ul
#define PV_CHUNK (256ul << 10) /* the hypervisor's pin chunk (docs/spe.md) */
#define CRASH_VA 0xC0000000ul  /* mapped at stage 1, not the VM's at stage 2 */

static uint64_t s1_l1[512] __attribute__((aligned(4096)));
static uint64_t s1_l2[512] __attribute__((aligned(4096)));
static uint64_t s1_l3[512] __attribute__((aligned(4096)));
static uint64_t data[1024] __attribute__((aligned(4096)));
static uint64_t data2[1024] __attribute__((aligned(4096)));

#define D_BLOCK 0x1ul
#define D_TABLE 0x3ul
#define D_PAGE 0x3ul
#define D_AF (1ul << 10)
#define D_SH_INNER (3ul << 8)
#define D_NORMAL (1ul << 2) /* AttrIndx 1: MAIR_EL1 Attr1, Normal write-back */
#define D_MEM (D_AF | D_SH_INNER | D_NORMAL)

static uint64_t swap;

static uint64_t buf_ipa(uint64_t page)
{
	return BUF_IPA + (page ^ swap) * PAGE;
}

static void mmu_on(void)
{
	s1_l1[0] = 0x0ul | D_BLOCK | D_AF; /* devices: Attr0, Device-nGnRnE */
	s1_l1[1] = (uint64_t)s1_l2 | D_TABLE;
	s1_l1[3] = CRASH_VA | D_BLOCK | D_MEM;
	for (uint64_t i = 0; i < 32; i++) /* the first 64 MiB of RAM */
		s1_l2[i] = (0x40000000ul + (i << 21)) | D_BLOCK | D_MEM;
	s1_l2[(BUF_VA - 0x40000000ul) >> 21] = (uint64_t)s1_l3 | D_TABLE;
	for (uint64_t i = 0; i < BUF_PAGES; i++)
		s1_l3[i] = buf_ipa(i) | D_PAGE | D_MEM;
	__asm__ volatile("dsb ish" ::: "memory");
	wr(mair_el1, 0xFF00ul);
	/* TCR_EL1: T0SZ 32, IRGN0/ORGN0 write-back, SH0 inner, TG0 4K, EPD1, IPS 40 bits. */
	wr(tcr_el1, 32ul | (1ul << 8) | (1ul << 10) | (3ul << 12) | (1ul << 23) | (2ul << 32));
	wr(ttbr0_el1, (uint64_t)s1_l1);
	isb();
	__asm__ volatile("tlbi vmalle1\n\tdsb nsh" ::: "memory");
	isb();
	wr(sctlr_el1, rd(sctlr_el1) | 1ul | (1ul << 2) | (1ul << 12)); /* M, C, I */
	isb();
}

/* The known loop: PMSCR_EL1 := scr, n iterations of six instructions over d[], then
 * PMSCR_EL1 := 0. Every sampled operation is one of spe_loop's. spe_loop2 is the same at
 * other addresses, for the second of two VMs profiling side by side. */
void spe_loop(uint64_t *d, uint64_t n, uint64_t scr);
void spe_loop2(uint64_t *d, uint64_t n, uint64_t scr);
extern const char spe_loop_end[], spe_loop2_end[];
#define SPE_LOOP_ASM(name)                                                                     \
	".global " name "\n"                                                                   \
	".global " name "_end\n"                                                               \
	".balign 64\n" name ":\n"                                                              \
	"	msr S3_0_C9_C9_0, x2\n"                                                              \
	"	isb\n"                                                                               \
	"1:	and x3, x1, #0x3ff\n"                                                              \
	"	ldr x4, [x0, x3, lsl #3]\n"                                                          \
	"	add x4, x4, #1\n"                                                                    \
	"	str x4, [x0, x3, lsl #3]\n"                                                          \
	"	subs x1, x1, #1\n"                                                                   \
	"	b.ne 1b\n"                                                                           \
	"	msr S3_0_C9_C9_0, xzr\n"                                                             \
	"	isb\n"                                                                               \
	"	ret\n" name "_end:\n"
__asm__(".text\n" SPE_LOOP_ASM("spe_loop") SPE_LOOP_ASM("spe_loop2"));

/* What the decoder holds every record to: the loop's PCs and its array's addresses. */
static uint64_t want_pc_lo, want_pc_hi, want_data_lo, want_data_hi;

/* ---- A decoder of the records (Arm ARM D18): enough to hold each to the loop --------- */
struct decoded {
	unsigned records, pcs, data_vas, bad_pc, bad_el, bad_data, bad_packet;
	unsigned stamped;        /* records ended by a Timestamp packet */
	unsigned loads, ops;     /* Operation Type packets: of a load, and in all */
	unsigned pas, ctx1;      /* physical address packets; CONTEXTIDR_EL1 packets */
	unsigned ctx2, bad_ctx1; /* CONTEXTIDR_EL2 packets; CONTEXTIDR_EL1 not ctx1_want */
	uint64_t first_bad;
	bool cut; /* the bad packet is the last, cut short by the end of the bytes */
};

/* The CONTEXTIDR_EL1 a record's Context packet must carry (0: none is checked). */
static uint64_t ctx1_want;

static uint64_t sext56(uint64_t a)
{
	a &= 0x00FFFFFFFFFFFFFFul;
	return a & (1ul << 55) ? a | 0xFF00000000000000ul : a;
}

static void decode(const uint8_t *b, uint64_t len, struct decoded *d)
{
	memset(d, 0, sizeof(*d));
	bool open = false;
	for (uint64_t i = 0; i < len;) {
		unsigned h = b[i++], ext = 0;
		if (h == 0x00) /* Padding */
			continue;
		if (h == 0x01) { /* End */
			d->records += open;
			open = false;
			continue;
		}
		if ((h & 0xFC) == 0x20) { /* extended header: index bits [4:3] */
			ext = h & 3;
			if (i >= len)
				break;
			h = b[i++];
		}
		unsigned size;
		if ((h & 0xF8) == 0xB0) /* Address */
			size = 8;
		else if ((h & 0xF8) == 0x98) /* Counter */
			size = 2;
		else if ((h & 0xC0) ==
			 0x40) /* Events, Data Source, Operation Type, Context, Timestamp */
			size = 1u << ((h >> 4) & 3);
		else {
			if (!d->bad_packet++)
				d->first_bad = i - 1;
			return;
		}
		if (i + size > len) {
			d->cut = !d->bad_packet;
			if (!d->bad_packet++)
				d->first_bad = i - 1;
			return;
		}
		uint64_t v = 0;
		for (unsigned k = 0; k < size; k++)
			v |= (uint64_t)b[i + k] << (8 * k);
		i += size;
		open = true;
		if ((h & 0xFC) == 0x48) { /* Operation Type: class in [1:0] */
			d->ops++;
			if ((h & 3) == 1 && !(v & 1)) /* load/store class, ST clear */
				d->loads++;
		} else if ((h & 0xFC) == 0x64) { /* Context: index 0 EL1, 1 EL2 */
			if (h & 3) {
				d->ctx2++;
			} else {
				d->ctx1++;
				if (ctx1_want && v != ctx1_want)
					d->bad_ctx1++;
			}
		}
		if ((h & 0xF8) == 0xB0) {
			unsigned index = (ext << 3) | (h & 7);
			if (index == 3) /* data physical address */
				d->pas++;
			if (index == 0) { /* PC: EL in bits [62:61] */
				uint64_t pc = sext56(v);
				d->pcs++;
				if (pc < want_pc_lo || pc >= want_pc_hi)
					d->bad_pc++;
				if (((v >> 61) & 3) != 1)
					d->bad_el++;
			} else if (index == 2) { /* data virtual address */
				uint64_t va = sext56(v);
				d->data_vas++;
				if (va < want_data_lo || va >= want_data_hi)
					d->bad_data++;
			}
		} else if (h == 0x71) { /* Timestamp: the record's last packet */
			d->records++;
			d->stamped++;
			open = false;
		}
	}
}

static void buffer_on(uint64_t va, uint64_t size)
{
	wr(PMBPTR_EL1, va);
	wr(PMBSR_EL1, 0);
	wr(PMBLIMITR_EL1, (va + size) | PMBLIMITR_E);
	isb();
}

/* Profiling stopped, everything written (PSB CSYNC; DSB NSH, D17.9). */
static void drain(void)
{
	__asm__ volatile("hint #17\n\tdsb nsh" ::: "memory");
	isb();
}

static bool spe_node(void)
{
	static const char compat[] = "arm,statistical-profiling-extension-v1";
	const uint8_t *t = g_dtb;
	uint32_t total = (uint32_t)t[4] << 24 | (uint32_t)t[5] << 16 | (uint32_t)t[6] << 8 |
			 t[7];
	for (uint32_t i = 0; i + sizeof(compat) <= total; i++) {
		uint32_t k = 0;
		while (k < sizeof(compat) && t[i + k] == (uint8_t)compat[k])
			k++;
		if (k == sizeof(compat))
			return true;
	}
	return false;
}

static void hidden(void)
{
	CHECK_EQ((rd(ID_AA64DFR0_EL1) >> 32) & 0xF, 0, "hidden: ID_AA64DFR0_EL1.PMSVer is 0");
	CHECK(!spe_node(), "hidden: no SPE node in the device tree");
	CHECK_EQ(UNDEFS(rd(PMSCR_EL1)), 1, "hidden: PMSCR_EL1 read UNDEFINED");
	CHECK_EQ(UNDEFS(rd(PMSIDR_EL1)), 1, "hidden: PMSIDR_EL1 read UNDEFINED");
	CHECK_EQ(UNDEFS(wr(PMBLIMITR_EL1, BUF_VA | 1)), 1,
		 "hidden: PMBLIMITR_EL1 write UNDEFINED");
	CHECK_EQ(UNDEFS(rd(PMBSR_EL1)), 1, "hidden: PMBSR_EL1 read UNDEFINED");
}

static void profile_known_loop(void)
{
	uint64_t size = 64 * 1024;
	memset((void *)BUF_VA, 0, size);
	buffer_on(BUF_VA, size);
	spe_loop(data, 20000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t ptr = rd(PMBPTR_EL1), bsr = rd(PMBSR_EL1);
	CHECK_EQ(bsr, 0, "records: PMBSR_EL1 0 after 20000 iterations into 64 KiB");
	check(ptr > BUF_VA && ptr < BUF_VA + size, "records: PMBPTR_EL1 moved on in the buffer",
	      "PMBPTR_EL1 %lx, buffer %lx", ptr, BUF_VA);
	struct decoded d;
	decode((const uint8_t *)BUF_VA, ptr - BUF_VA, &d);
	gprintf("spe: %u records, %u PCs, %u data addresses in %lu bytes\n", d.records, d.pcs,
		d.data_vas, ptr - BUF_VA);
	if (!check(!d.bad_packet, "records: every packet decodes", "offset %lx", d.first_bad))
		for (unsigned i = 0; i < 64; i++)
			gprintf("%02x%s", ((const uint8_t *)BUF_VA)[i],
				i % 16 == 15 ? "\n" : " ");
	/* 120,000 operations at an interval of 256: about 470 samples. */
	check(d.records >= 300 && d.records == d.pcs, "records: one PC each, about 470 of them",
	      "%u records, %u PCs", d.records, d.pcs);
	CHECK_EQ(d.bad_pc, 0, "records: every PC is in the loop");
	CHECK_EQ(d.bad_el, 0, "records: every PC is at EL1");
	check(d.data_vas >= d.records / 4 && !d.bad_data,
	      "records: the loads' and stores' data addresses are in its array",
	      "%u data addresses, %u outside", d.data_vas, d.bad_data);

	/* The buffer is enabled and pinned: its pages cannot be given back. */
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_GIVE, buf_ipa(0), 0, 0), S2_PINNED,
		 "balloon: a page of the enabled buffer is refused (pinned)");
	wr(PMBLIMITR_EL1, 0);
	isb();
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_GIVE, buf_ipa(0), 0, 0), S2_OK,
		 "balloon: the same page, once the buffer is disabled, is given back");
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_TAKE, buf_ipa(0), 0, 0), S2_OK,
		 "balloon: and taken back");
}

static void buffer_full_and_restart(void)
{
	uint64_t base = BUF_VA + 16 * PAGE;
	buffer_on(base, PAGE);
	spe_loop(data, 20000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t bsr = rd(PMBSR_EL1), ptr = rd(PMBPTR_EL1);
	check((bsr & PMBSR_S) && PMBSR_EC(bsr) == 0 && PMBSR_MSS(bsr) == 1,
	      "full: PMBSR_EL1 S, EC 0, BSC 1 (buffer full)", "PMBSR_EL1 %lx (PMBPTR_EL1 %lx)",
	      bsr, ptr);
	uint64_t max = 1ul << ((rd(PMSIDR_EL1) >> 12) & 0xF); /* MaxSize */
	check(ptr <= base + PAGE && ptr > base + PAGE - 2 * max,
	      "full: PMBPTR_EL1 within a record of the limit", "PMBPTR_EL1 %lx, limit %lx", ptr,
	      base + PAGE);
	check(gic_ppi_pending() & (1u << INTID_SPE), "full: the virtual INTID 21 is pending",
	      "GICR_ISPENDR0 %x", gic_ppi_pending());
	struct decoded d;
	decode((const uint8_t *)base, ptr - base, &d);
	check(!d.bad_packet && !d.bad_pc && d.records >= 40,
	      "full: the records before it decode", "%u records, %u bad PCs, bad packet at %lx",
	      d.records, d.bad_pc, d.first_bad);
	/* Restart as a driver does: the pointer back, S cleared. */
	wr(PMBPTR_EL1, base);
	wr(PMBSR_EL1, 0);
	isb();
	check(!(gic_ppi_pending() & (1u << INTID_SPE)), "restart: INTID 21 no longer pending",
	      "GICR_ISPENDR0 %x", gic_ppi_pending());
	spe_loop(data, 1000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	ptr = rd(PMBPTR_EL1);
	bsr = rd(PMBSR_EL1);
	check(bsr == 0 && ptr > base && ptr < base + PAGE, "restart: new records, no event",
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx", bsr, ptr);
	wr(PMBLIMITR_EL1, 0);
	isb();
}

/* A buffer whose first page the VM has given back: the hypervisor cannot pin it, the
 * profiler meets the stage-2 fault, and the guest is told the memory is gone (docs/spe.md,
 * "Events and the buffer interrupt"), with nothing written. */
static void buffer_over_ballooned_page(void)
{
	uint64_t page = 32, va = BUF_VA + page * PAGE;
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_GIVE, buf_ipa(page), 0, 0), S2_OK,
		 "ballooned: a buffer page given back");
	buffer_on(va, 4 * PAGE);
	spe_loop(data, 5000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t bsr = rd(PMBSR_EL1), ptr = rd(PMBPTR_EL1);
	check((bsr & PMBSR_S) && PMBSR_EC(bsr) == 0x1F && PMBSR_MSS(bsr) == 2,
	      "ballooned: PMBSR_EL1 S, EC 0x1F, MSS 2 (no memory), never EC 0x25",
	      "PMBSR_EL1 %lx", bsr);
	CHECK_EQ(ptr, va, "ballooned: PMBPTR_EL1 at the page, nothing written");
	wr(PMBLIMITR_EL1, 0);
	wr(PMBSR_EL1, 0);
	isb();
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_TAKE, buf_ipa(page), 0, 0), S2_OK,
		 "ballooned: the page taken back");
	buffer_on(va, 4 * PAGE);
	spe_loop(data, 1000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	bsr = rd(PMBSR_EL1);
	ptr = rd(PMBPTR_EL1);
	check(bsr == 0 && ptr > va, "ballooned: taken back, the buffer there works",
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx", bsr, ptr);
	wr(PMBLIMITR_EL1, 0);
	isb();
}

/* ---- spe.case=1: a stage-1 fault, the guest's own (docs/spe.md, "Walk and pin") ------------ */

/* "PREFIX: TEXT" for a check's name, in one of two buffers (a check names two at most). */
static const char *named(const char *prefix, const char *text)
{
	static char buf[2][96];
	static unsigned k;
	char *b = buf[k++ & 1];
	size_t n = strlen(prefix), m = strlen(text);
	if (n + m + 3 > sizeof(buf[0]))
		m = sizeof(buf[0]) - n - 3;
	memcpy(b, prefix, n);
	memcpy(b + n, ": ", 2);
	memcpy(b + n + 2, text, m);
	b[n + 2 + m] = 0;
	return b;
}

/* One level-3 descriptor of the guest's stage 1 changed, its old translation forgotten. */
static void s1_set(uint64_t page, uint64_t desc)
{
	s1_l3[page] = desc;
	__asm__ volatile("dsb ish\n\ttlbi vmalle1\n\tdsb nsh" ::: "memory");
	isb();
}

#define PMBSR_DL (1ul << 19)
#define D_RDONLY (1ul << 7) /* AP[2]: read-only at EL1, so no SPU write (D17.7.1) */

/* The third page of a four-page buffer made unwritable in the guest's own stage 1: the SPU's
 * write there is a stage-1 Data Abort, the guest's event: EC 0x24 with the FSC (D24.7.5),
 * PMBPTR_EL1 at the faulting page, the records before it in place; the hypervisor pins what
 * translates and never meets (nor shows) a stage-2 fault. Once the page is mapped again the
 * buffer restarts there (D17.7.4: an MMU fault may be restarted from the saved pointer). */
static void stage1_fault(const char *what, uint64_t first, uint64_t desc, unsigned fsc)
{
	uint64_t va = BUF_VA + first * PAGE, bad_va = va + 2 * PAGE;
	uint64_t good = buf_ipa(first + 2) | D_PAGE | D_MEM;
	struct decoded d;
	memset((void *)va, 0, 2 * PAGE);
	s1_set(first + 2, desc);
	buffer_on(va, 4 * PAGE);
	spe_loop(data, 20000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t bsr = rd(PMBSR_EL1), ptr = rd(PMBPTR_EL1);
	check((bsr & PMBSR_S) && PMBSR_EC(bsr) == 0x24 && (bsr & 0x3F) == fsc,
	      named(what, "PMBSR_EL1 S, EC 0x24 (stage-1 Data Abort) with its FSC"),
	      "PMBSR_EL1 %lx, want FSC %x", bsr, fsc);
	CHECK_EQ(ptr, bad_va, named(what, "PMBPTR_EL1 at the faulting page"));
	check(gic_ppi_pending() & (1u << INTID_SPE),
	      named(what, "the virtual INTID 21 is pending"), "GICR_ISPENDR0 %x",
	      gic_ppi_pending());
	decode((const uint8_t *)va, bad_va - va, &d);
	/* A record cut by the page is data lost: DL says PMBPTR_EL1 may not follow a whole one. */
	check(d.records >= 100 && !d.bad_pc && !d.bad_data &&
		      (!d.bad_packet || (d.bad_packet == 1 && d.cut && (bsr & PMBSR_DL))),
	      named(what, "the records before the page are in place"),
	      "%u records, %u bad PCs, %u bad data, %u bad packets (cut %d), PMBSR_EL1 %lx",
	      d.records, d.bad_pc, d.bad_data, d.bad_packet, d.cut, bsr);
	s1_set(first + 2, good);
	wr(PMBPTR_EL1, bad_va);
	wr(PMBSR_EL1, 0);
	isb();
	check(!(gic_ppi_pending() & (1u << INTID_SPE)),
	      named(what, "mapped again, S cleared: INTID 21 no longer pending"),
	      "GICR_ISPENDR0 %x", gic_ppi_pending());
	spe_loop(data, 2000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	bsr = rd(PMBSR_EL1);
	ptr = rd(PMBPTR_EL1);
	check(bsr == 0 && ptr > bad_va && ptr < va + 4 * PAGE,
	      named(what, "restarted at the page, records written there"),
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx", bsr, ptr);
	wr(PMBLIMITR_EL1, 0);
	isb();
}

/* ---- spe.case=2: what the architecture leaves to the implementation (D17.7.4) -------------- */

#define ID_AA64MMFR0_EL1 S3_0_C0_C7_0
#define PMSCR_ALL 0x3Bul /* E0SPE, E1SPE, CX, PA, TS */

/* PMSCR_EL1 all ones, as the guest may write it itself with direct sampling controls: it
 * reads back every field SPEv1p2 has (PCT two bits with FEAT_ECV), physical address and
 * physical timestamp asked for, and the records of a profile under it carry no physical
 * address and no CONTEXTIDR_EL2 (PMSCR_EL2 is the hypervisor's, all zero), but its own
 * CONTEXTIDR_EL1, and every one a timestamp. */
static void all_ones_pmscr(uint64_t base)
{
	bool ecv = (rd(ID_AA64MMFR0_EL1) >> 60 & 0xF) != 0;
	uint64_t want = PMSCR_ALL | (ecv ? 3ul << 6 : 1ul << 6);
	struct decoded d;
	wr(PMSCR_EL1, ~0ul);
	uint64_t got = rd(PMSCR_EL1);
	wr(PMSCR_EL1, 0);
	check(got == want, "all ones: PMSCR_EL1 reads back E0SPE, E1SPE, CX, PA, TS and PCT",
	      "PMSCR_EL1 %lx, want %lx", got, want);
	ctx1_want = 0xA11;
	wr(contextidr_el1, ctx1_want);
	memset((void *)base, 0, 16 * PAGE);
	buffer_on(base, 16 * PAGE);
	spe_loop(data, 5000, ~0ul);
	drain();
	uint64_t ptr = rd(PMBPTR_EL1), bsr = rd(PMBSR_EL1);
	wr(PMBLIMITR_EL1, 0);
	isb();
	decode((const uint8_t *)base, ptr - base, &d);
	check(bsr == 0 && !d.bad_packet && !d.bad_pc && d.records >= 50 &&
		      d.stamped == d.records && d.ctx1 == d.records && !d.bad_ctx1 && !d.ctx2 &&
		      !d.pas,
	      "all ones: records with its CONTEXTIDR_EL1 and a timestamp, no physical address, "
	      "no CONTEXTIDR_EL2",
	      "PMBSR_EL1 %lx: %u records (%u bad packets, %u bad PCs), %u stamped, "
	      "%u CONTEXTIDR_EL1 (%u not its own), %u CONTEXTIDR_EL2, %u PA",
	      bsr, d.records, d.bad_packet, d.bad_pc, d.stamped, d.ctx1, d.bad_ctx1, d.ctx2,
	      d.pas);
	ctx1_want = 0;
}

static uint64_t rec_max, ptr_align;

/* An enable the vSPE refuses (docs/spe.md, "Enable: checks"): PMBSR_EL1 S with EC 0 and `bsc`
 * at once, INTID 21 pending, PMBPTR_EL1 as written, and nothing written (the bytes at `mem`
 * keep their pattern) however long the loop runs. */
static void refused(const char *what, uint64_t ptr, uint64_t limitr, unsigned bsc, uint64_t mem)
{
	memset((void *)mem, 0xA5, 256);
	wr(PMBPTR_EL1, ptr);
	wr(PMBSR_EL1, 0);
	wr(PMBLIMITR_EL1, limitr);
	isb();
	uint64_t bsr = rd(PMBSR_EL1);
	check(bsr == (PMBSR_S | bsc) && (gic_ppi_pending() & (1u << INTID_SPE)),
	      named(what, "a buffer management event at once: S, EC 0, its BSC; INTID 21"),
	      "PMBSR_EL1 %lx, want %lx; GICR_ISPENDR0 %x", bsr, PMBSR_S | bsc,
	      gic_ppi_pending());
	spe_loop(data, 5000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	unsigned changed = 0;
	for (unsigned i = 0; i < 256; i++)
		changed += ((const uint8_t *)mem)[i] != 0xA5;
	check(rd(PMBPTR_EL1) == ptr && rd(PMBSR_EL1) == bsr && !changed,
	      named(what, "nothing written, PMBPTR_EL1 as written"),
	      "PMBPTR_EL1 %lx (wrote %lx), PMBSR_EL1 %lx, %u bytes changed", rd(PMBPTR_EL1),
	      ptr, rd(PMBSR_EL1), changed);
	wr(PMBLIMITR_EL1, 0);
	wr(PMBSR_EL1, 0);
	isb();
}

/* Profiles into [va, ...) with the buffer already enabled; true if records came, whole. */
static bool profiled(uint64_t va, uint64_t n, struct decoded *d)
{
	spe_loop(data, n, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t ptr = rd(PMBPTR_EL1);
	if (ptr <= va || ptr - va > 64 * PAGE)
		return false;
	decode((const uint8_t *)va, ptr - va, d);
	return d->records > 0 && !d->bad_packet && !d->bad_pc && !d->bad_data;
}

static void adversarial(void)
{
	uint64_t base = BUF_VA + 64 * PAGE, top = 0x0100000000000000ul;
	struct decoded d;
	rec_max = 1ul << ((rd(PMSIDR_EL1) >> 12) & 0xF);
	ptr_align = 1ul << (rd(PMBIDR_EL1) & 0xF);
	gprintf("spe: records up to %lu bytes, pointer aligned to %lu\n", rec_max, ptr_align);

	/* No room for one record: SPEBufferIsFull() (BSC 1). */
	refused("at the limit", base + PAGE, (base + PAGE) | PMBLIMITR_E, 1, base);
	refused("past the limit", base + 2 * PAGE, (base + PAGE) | PMBLIMITR_E, 1, base);
	if (ptr_align < rec_max)
		refused("less than a record below the limit", base + PAGE - ptr_align,
			(base + PAGE) | PMBLIMITR_E, 1, base);
	/* RHLXGD: PTR aligned to PMBIDR_EL1.Align; RHXSYK: PTR[63:56] == LIMIT[63:56]. */
	if (ptr_align > 1) {
		refused("misaligned", base + ptr_align / 2, (base + PAGE) | PMBLIMITR_E, 0,
			base);
	} else {
		/* Align 0: every byte address is aligned, so an odd pointer is a buffer. */
		buffer_on(base + 0x21, PAGE);
		check(rd(PMBSR_EL1) == 0 && profiled(base + 0x21, 1000, &d),
		      "odd pointer (PMBIDR_EL1.Align 0): accepted, records from there",
		      "PMBSR_EL1 %lx PMBPTR_EL1 %lx", rd(PMBSR_EL1), rd(PMBPTR_EL1));
		wr(PMBLIMITR_EL1, 0);
		isb();
	}
	refused("top byte of PMBPTR_EL1 only", base | top, (base + PAGE) | PMBLIMITR_E, 0,
		base);
	refused("top byte of PMBLIMITR_EL1 only", base, ((base + PAGE) | top) | PMBLIMITR_E, 0,
		base);

	/* Larger than PMBIDR_EL1.MaxBuffSize says (the VM's spe_max_kib): BSC 4. Exactly that
	 * size works. */
	uint64_t mbs = (rd(PMBIDR_EL1) >> 32) & 0xFFFF, m = mbs & 0x1FF, e = (mbs >> 9) & 0x1F;
	uint64_t max = e ? (512 + m) << (e + 11) : m << 12;
	uint64_t want = arg_num("spe.max_kib", 0) << 10;
	check(want && max == want, "size: PMBIDR_EL1.MaxBuffSize is the VM's spe_max_kib",
	      "MaxBuffSize %lx: %lu bytes, want %lu", mbs, max, want);
	if (max && max <= BUF_PAGES * PAGE) {
		refused("a page more than MaxBuffSize", BUF_VA,
			(BUF_VA + max + PAGE) | PMBLIMITR_E, 4, BUF_VA);
		buffer_on(BUF_VA, max);
		check(rd(PMBSR_EL1) == 0 && profiled(BUF_VA, 2000, &d),
		      "size: a buffer of exactly MaxBuffSize works", "PMBSR_EL1 %lx",
		      rd(PMBSR_EL1));
		wr(PMBLIMITR_EL1, 0);
		isb();
	}

	/* PMBPTR_EL1 rewritten while enabled, within the buffer: the records go on from there;
	 * between the old pointer and the new nothing is written. */
	memset((void *)base, 0xA5, 8 * PAGE);
	buffer_on(base, 8 * PAGE);
	bool ok = profiled(base, 1000, &d);
	uint64_t old = rd(PMBPTR_EL1);
	wr(PMBPTR_EL1, base + 4 * PAGE);
	isb();
	ok = ok && profiled(base + 4 * PAGE, 1000, &d) && rd(PMBSR_EL1) == 0;
	unsigned changed = 0;
	for (uint64_t a = old; a < base + 4 * PAGE; a++)
		changed += *(const uint8_t *)a != 0xA5;
	check(ok && !changed,
	      "rewrite: PMBPTR_EL1 moved while enabled, records go on from there",
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx, %u bytes changed between", rd(PMBSR_EL1),
	      rd(PMBPTR_EL1), changed);
	/* The buffer moved while enabled (PMBLIMITR_EL1, then PMBPTR_EL1) to pages 512 KiB on:
	 * its records there, and the old buffer's pages no longer pinned (the balloon takes one). */
	uint64_t far = base + 128 * PAGE;
	wr(PMBLIMITR_EL1, (far + 8 * PAGE) | PMBLIMITR_E);
	wr(PMBPTR_EL1, far);
	isb();
	check(profiled(far, 1000, &d) && rd(PMBSR_EL1) == 0,
	      "rewrite: the buffer moved while enabled, records in the new one",
	      "PMBSR_EL1 %lx", rd(PMBSR_EL1));
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_GIVE, buf_ipa(64), 0, 0), S2_OK,
		 "rewrite: a page of the old buffer is no longer pinned (given back)");
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_GIVE, buf_ipa(128 + 64), 0, 0), S2_PINNED,
		 "rewrite: a page of the new one is (refused)");
	CHECK_EQ(hvc_call(HYP_CALL_BALLOON_TAKE, buf_ipa(64), 0, 0), S2_OK,
		 "rewrite: the old page taken back");
	/* PMBLIMITR_EL1 rewritten below the pointer while enabled: no room, buffer full at once. */
	uint64_t ptr = rd(PMBPTR_EL1);
	wr(PMBLIMITR_EL1, far | PMBLIMITR_E);
	isb();
	uint64_t bsr = rd(PMBSR_EL1);
	spe_loop(data, 2000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	check(bsr == (PMBSR_S | 1) && rd(PMBPTR_EL1) == ptr && rd(PMBSR_EL1) == bsr,
	      "rewrite: PMBLIMITR_EL1 below the pointer while enabled: buffer full, nothing "
	      "written",
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx (was %lx)", bsr, rd(PMBPTR_EL1), ptr);
	wr(PMBLIMITR_EL1, 0);
	wr(PMBSR_EL1, 0);
	isb();

	/* Garbage in RES0 bits (D24.7): perfvisor keeps only the fields the VM's version has
	 * (read back without them; docs/spe.md), and the buffer is the one its fields say. */
	uint64_t junk_limit = 0xF00ul | (1ul << 7) | (1ul << 6) |
			      (3ul << 3); /* [11:6], [4:3] */
	wr(PMBLIMITR_EL1, (base + PAGE) | junk_limit);
	CHECK_EQ(rd(PMBLIMITR_EL1), base + PAGE, "RES0: PMBLIMITR_EL1 reads back without them");
	wr(PMBLIMITR_EL1, 0);
	wr(PMSCR_EL1, 0xFFFFFFFFFFFFFF00ul | (1ul << 2));
	CHECK_EQ(rd(PMSCR_EL1), 0, "RES0: PMSCR_EL1 reads back without them");
	wr(PMSCR_EL1, 0);
	all_ones_pmscr(base);
	wr(PMBSR_EL1, 0xFFFFFFFF00000000ul | (0x3Ful << 20));
	CHECK_EQ(rd(PMBSR_EL1), 0, "RES0: PMBSR_EL1 reads back without them (S clear)");
	check(!(gic_ppi_pending() & (1u << INTID_SPE)), "RES0: and no event for them",
	      "GICR_ISPENDR0 %x", gic_ppi_pending());
	wr(PMSIRR_EL1, 0x100 | 0xFFFFFFFF00000000ul | (0x7Eul << 1));
	CHECK_EQ(rd(PMSIRR_EL1) & ~1ul, 0x100, "RES0: PMSIRR_EL1 reads back without them");
	wr(PMSIRR_EL1, 0x100);
	/* A one-page buffer enabled with them set fills at its LIMIT, as without them. */
	memset((void *)base, 0, PAGE);
	wr(PMBPTR_EL1, base);
	wr(PMBSR_EL1, 0);
	wr(PMBLIMITR_EL1, (base + PAGE) | junk_limit | PMBLIMITR_E);
	isb();
	spe_loop(data, 20000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	bsr = rd(PMBSR_EL1);
	ptr = rd(PMBPTR_EL1);
	check(bsr == (PMBSR_S | 1) && ptr <= base + PAGE && ptr > base + PAGE - 2 * rec_max,
	      "RES0: a buffer enabled with them fills at its LIMIT",
	      "PMBSR_EL1 %lx PMBPTR_EL1 %lx", bsr, ptr);
	wr(PMBLIMITR_EL1, 0);
	wr(PMBSR_EL1, 0);
	isb();
}

/* ---- Two VMs side by side (named side1 and side2) -------------------------------------------- */

/* Each profiles its own loop (side2: spe_loop2 over data2) into its buffer, at the same VA
 * and IPA as the other's, for several rounds while the hypervisor switches them every few
 * tens of us: every record holds one of its own PCs and data addresses, never the other's.
 * Each under sampling controls of its own, which it writes itself where the hypervisor gives
 * direct sampling controls (docs/spe.md): side1 every operation with a timestamp, side2 loads
 * alone (PMSFCR_EL1.FT, LD) with CONTEXTIDR_EL1 and no timestamp, at a random interval. Each
 * record shows the controls in force were its own, and they read back as written. */
#define PMSCR_CX (1ul << 3)
#define PMSFCR_FT (1ul << 1)
#define PMSFCR_LD (1ul << 17)
static void side_by_side(bool second)
{
	void (*loop)(uint64_t *, uint64_t, uint64_t) = second ? spe_loop2 : spe_loop;
	uint64_t *d_arr = second ? data2 : data;
	uint64_t scr = second ? PMSCR_E1SPE | PMSCR_CX : PMSCR_E1SPE | PMSCR_TS;
	/* side2's interval with random low bits (RND): its samples then fall on every
	 * instruction of the loop, the load among them, not on a fixed few. */
	uint64_t irr = second ? 0x101 : 0x100, fcr = second ? PMSFCR_FT | PMSFCR_LD : 0;
	uint64_t latfr = second ? 2 : 1;
	unsigned records = 0, bad = 0, rounds = 6, data_vas = 0;
	if (second) {
		want_pc_lo = (uint64_t)spe_loop2;
		want_pc_hi = (uint64_t)spe_loop2_end;
		want_data_lo = (uint64_t)data2;
		want_data_hi = (uint64_t)(data2 + 1024);
		ctx1_want = 0x5EC2;
		wr(contextidr_el1, ctx1_want);
	}
	wr(PMSIRR_EL1, irr);
	wr(PMSFCR_EL1, fcr);
	wr(PMSLATFR_EL1, latfr);
	for (unsigned r = 0; r < rounds; r++) {
		struct decoded d;
		memset((void *)BUF_VA, 0, 64 * 1024);
		buffer_on(BUF_VA, 64 * 1024);
		loop(d_arr, 20000, scr);
		drain();
		uint64_t ptr = rd(PMBPTR_EL1), bsr = rd(PMBSR_EL1);
		wr(PMBLIMITR_EL1, 0);
		isb();
		if (bsr || ptr <= BUF_VA || ptr >= BUF_VA + 64 * 1024) {
			bad++;
			gprintf("spe: round %u: PMBSR_EL1 %lx PMBPTR_EL1 %lx\n", r, bsr, ptr);
			continue;
		}
		decode((const uint8_t *)BUF_VA, ptr - BUF_VA, &d);
		records += d.records;
		data_vas += d.data_vas;
		if (d.bad_packet || d.bad_pc || d.bad_el || d.bad_data ||
		    d.records < (second ? 30 : 300)) {
			bad++;
			gprintf("spe: round %u: %u records, %u bad packets, %u PCs and %u data "
				"addresses not its own\n",
				r, d.records, d.bad_packet, d.bad_pc, d.bad_data);
		}
		/* Its own controls, not the other's: side1's records each stamped, with no
		 * CONTEXTIDR_EL1 and some not loads; side2's loads alone, never stamped, each
		 * with its CONTEXTIDR_EL1. */
		bool own = second ? !d.stamped && d.loads == d.records && d.ops == d.records
				  : d.stamped == d.records && d.loads < d.records;
		bool ctx = second ? d.ctx1 == d.records && !d.bad_ctx1 : !d.ctx1;
		if (!own || !ctx || d.ctx2 || d.pas) {
			bad++;
			gprintf("spe: round %u: %u records, %u stamped, %u of %u loads, %u "
				"CONTEXTIDR_EL1 (%u not its own), %u CONTEXTIDR_EL2, %u PA\n",
				r, d.records, d.stamped, d.loads, d.ops, d.ctx1, d.bad_ctx1,
				d.ctx2, d.pas);
		}
	}
	gprintf("spe: %u records in %u rounds, %u data addresses\n", records, rounds, data_vas);
	check(!bad && data_vas >= records / 4,
	      "side by side: every record has its own loop's PC and its own array's address, "
	      "made under its own sampling controls",
	      "%u of %u rounds bad", bad, rounds);
	uint64_t got_irr = rd(PMSIRR_EL1), got_fcr = rd(PMSFCR_EL1), got_lat = rd(PMSLATFR_EL1);
	check(got_irr == irr && got_fcr == fcr && got_lat == latfr,
	      "side by side: its sampling controls read back as it wrote them",
	      "PMSIRR_EL1 %lx PMSFCR_EL1 %lx PMSLATFR_EL1 %lx", got_irr, got_fcr, got_lat);
}

/* ---- spe.bench=1: the figures of `make bench` (docs/benchmarks.md) ------------------------- */

/* A 64 MiB buffer at BIG_VA, 4 KiB pages as a kernel's vmalloc gives them, onto 16 MiB of IPA
 * from BUF_IPA over and over: only what is written (a few MiB) must be distinct. */
#define BIG_VA 0x80000000ul
#define BIG_SIZE (64ul << 20)
static uint64_t big_l2[512] __attribute__((aligned(4096)));
static uint64_t big_l3[32][512] __attribute__((aligned(4096)));

static void big_map(void)
{
	for (uint64_t t = 0; t < 32; t++) {
		for (uint64_t i = 0; i < 512; i++)
			big_l3[t][i] = (BUF_IPA + ((t * 512 + i) % 4096) * PAGE) | D_PAGE |
				       D_MEM;
		big_l2[t] = (uint64_t)big_l3[t] | D_TABLE;
	}
	s1_l1[BIG_VA >> 30] = (uint64_t)big_l2 | D_TABLE;
	__asm__ volatile("dsb ish\n\ttlbi vmalle1\n\tdsb nsh" ::: "memory");
	isb();
}

static uint64_t now(void)
{
	isb();
	return rd(cntvct_el0);
}

/* Under -icount shift=0 one instruction is one nanosecond, so CNTVCT_EL0 counts the
 * instructions of every level: the ticks across the enabling PMBLIMITR_EL1 write, less those
 * across a NOP in the same frame, are the EL2 instructions of the enable (the trapped MSR does
 * not retire; the runner divides). Then a profile of about 2 MiB into the same buffer, whose
 * chunk advances are the hypervisor's buffer management events (its report's irq-spe). */
static void bench(void)
{
	const unsigned n = 32;
	uint64_t enable = 0, nop = 0;
	big_map();
	for (unsigned i = 0; i < n; i++) {
		wr(PMBPTR_EL1, BIG_VA);
		wr(PMBSR_EL1, 0);
		uint64_t t0 = now();
		wr(PMBLIMITR_EL1, (BIG_VA + BIG_SIZE) | PMBLIMITR_E);
		uint64_t t1 = now();
		__asm__ volatile("nop");
		uint64_t t2 = now();
		enable += t1 - t0;
		nop += t2 - t1;
		CHECK_EQ(rd(PMBSR_EL1), 0, "bench: the 64 MiB buffer enabled");
		wr(PMBLIMITR_EL1, 0);
		isb();
	}
	buffer_on(BIG_VA, BIG_SIZE);
	spe_loop(data, 2600000, PMSCR_E1SPE | PMSCR_TS);
	drain();
	uint64_t written = rd(PMBPTR_EL1) - BIG_VA, bsr = rd(PMBSR_EL1);
	wr(PMBLIMITR_EL1, 0);
	isb();
	check(bsr == 0 && written > 4 * PV_CHUNK && written < BIG_SIZE,
	      "bench: a profile of several chunks, no event for the guest",
	      "PMBSR_EL1 %lx, %lu bytes written", bsr, written);
	gprintf("spe: bench: %lu Hz: enable-64mib %u enables %lu ticks; nop %u %lu ticks; "
		"profile %lu bytes written\n",
		rd(cntfrq_el0), n, enable, n, nop, written);
}

/* Ended while profiling: the hypervisor's accounting must show every pin released. */
static void end_mid_profile(uint64_t how)
{
	buffer_on(BUF_VA, 256 * PAGE);
	gprintf("spe: profiling until the VM is ended (%s)\n",
		how == 1 ? "time limit" : "crash");
	if (how == 2) {
		spe_loop(data, 1000, PMSCR_E1SPE);
		wr(PMSCR_EL1, PMSCR_E1SPE);
		wr(vbar_el1,
		   CRASH_VA); /* vectors outside its memory: the next exception ends it */
		isb();
		__asm__ volatile("udf #0");
	}
	for (;;)
		spe_loop(data, 1ul << 40, PMSCR_E1SPE);
}

void test_main(void)
{
	want_pc_lo = (uint64_t)spe_loop;
	want_pc_hi = (uint64_t)spe_loop_end;
	want_data_lo = (uint64_t)data;
	want_data_hi = (uint64_t)(data + 1024);
	swap = arg_num("spe.swap", 0) ? 1 : 0;
	mmu_on();
	const char *name = dt_vm_name();
	if (!arg_num("spe.expect", 1) || (name && !strncmp(name, "hidden", 6))) {
		hidden();
		done();
	}
	uint64_t dfr0 = rd(ID_AA64DFR0_EL1);
	check(((dfr0 >> 32) & 0xF) >= 1, "ID_AA64DFR0_EL1.PMSVer shows SPE", "%lx", dfr0);
	CHECK(spe_node(), "the device tree has the SPE node");
	uint64_t pmbidr = rd(PMBIDR_EL1);
	CHECK_EQ(pmbidr & PMBIDR_P, 0, "PMBIDR_EL1.P 0: the buffer is the guest's");
	wr(PMSIRR_EL1, 0x100); /* an interval of 256 operations */
	wr(PMSFCR_EL1, 0);
	wr(PMSEVFR_EL1, 0);
	wr(PMSLATFR_EL1, 0);
	wr(PMSICR_EL1, 0);
	gic_setup(NULL);
	uint64_t how = arg_num("spe.end", 0);
	if (how)
		end_mid_profile(how);
	if (arg_num("spe.bench", 0)) {
		bench();
		done();
	}
	if (name && !strncmp(name, "side", 4))
		side_by_side(name[4] == '2');
	else if (how == 0 && arg_num("spe.case", 0) == 1) {
		stage1_fault("s1 translation", 160, 0, 0x07);
		stage1_fault("s1 permission", 176, buf_ipa(178) | D_PAGE | D_MEM | D_RDONLY,
			     0x0F);
	} else if (how == 0 && arg_num("spe.case", 0) == 2)
		adversarial();
	if (arg_num("spe.case", 0) || (name && !strncmp(name, "side", 4)))
		done();
	profile_known_loop();
	buffer_full_and_restart();
	buffer_over_ballooned_page();
	done();
}
