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
 * spe.swap=1: the buffer's pages swapped in pairs at stage 1 (above).
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
#define CRASH_VA 0xC0000000ul /* mapped at stage 1, not the VM's at stage 2 */

static uint64_t s1_l1[512] __attribute__((aligned(4096)));
static uint64_t s1_l2[512] __attribute__((aligned(4096)));
static uint64_t s1_l3[512] __attribute__((aligned(4096)));
static uint64_t data[1024] __attribute__((aligned(4096)));

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

/* The known loop: PMSCR_EL1 := scr, n iterations of six instructions over data[], then
 * PMSCR_EL1 := 0. Every sampled operation is one of spe_loop's. */
void spe_loop(uint64_t *d, uint64_t n, uint64_t scr);
extern const char spe_loop_end[];
__asm__(".text\n"
	".global spe_loop\n"
	".global spe_loop_end\n"
	".balign 64\n"
	"spe_loop:\n"
	"	msr S3_0_C9_C9_0, x2\n"
	"	isb\n"
	"1:	and x3, x1, #0x3ff\n"
	"	ldr x4, [x0, x3, lsl #3]\n"
	"	add x4, x4, #1\n"
	"	str x4, [x0, x3, lsl #3]\n"
	"	subs x1, x1, #1\n"
	"	b.ne 1b\n"
	"	msr S3_0_C9_C9_0, xzr\n"
	"	isb\n"
	"	ret\n"
	"spe_loop_end:\n");

/* ---- A decoder of the records (Arm ARM D18): enough to hold each to the loop --------- */
struct decoded {
	unsigned records, pcs, data_vas, bad_pc, bad_el, bad_data, bad_packet;
	uint64_t first_bad;
};

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
			if (!d->bad_packet++)
				d->first_bad = i - 1;
			return;
		}
		uint64_t v = 0;
		for (unsigned k = 0; k < size; k++)
			v |= (uint64_t)b[i + k] << (8 * k);
		i += size;
		open = true;
		if ((h & 0xF8) == 0xB0) {
			unsigned index = (ext << 3) | (h & 7);
			if (index == 0) { /* PC: EL in bits [62:61] */
				uint64_t pc = sext56(v);
				d->pcs++;
				if (pc < (uint64_t)spe_loop || pc >= (uint64_t)spe_loop_end)
					d->bad_pc++;
				if (((v >> 61) & 3) != 1)
					d->bad_el++;
			} else if (index == 2) { /* data virtual address */
				uint64_t va = sext56(v);
				d->data_vas++;
				if (va < (uint64_t)data || va >= (uint64_t)(data + 1024))
					d->bad_data++;
			}
		} else if (h == 0x71) { /* Timestamp: the record's last packet */
			d->records++;
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
	profile_known_loop();
	buffer_full_and_restart();
	buffer_over_ballooned_page();
	done();
}
