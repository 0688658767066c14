/* SPDX-License-Identifier: MIT */
/*
 * The Statistical Profiling Extension of the QEMU of our own (-cpu max,pv-spe=on: SPEv1p2),
 * against the Arm ARM (D17, D18, D24.7), with no perfvisor: a profiler at EL2 and one at EL1
 * sample the known loop of spe_seq.S, and every record is decoded here and held to what the
 * loop did; the buffer fills, faults at stage 1 and at stage 2, and raises PMBIRQ (PPI 21);
 * the filters, the traps, the ID registers. Stock QEMU has no SPE: with the fixes off (pv-spe
 * off) every check but spe_present_consistent fails, which tests/hw/run.sh expects.
 *
 * The sampling interval is PMSIRR_EL1.INTERVAL = 1: a reload gives 256, and samples are 257
 * instructions apart (D17.3.4.1); writing PMSICR_EL1 := C right before the loop samples its
 * C-th instruction first (SPEToCollectSample()). The records' latencies and cache events are
 * the model's documented inventions (docs/qemu.md, "The SPE model"), checked as documented.
 *
 * The records are also held to published decoder test data: two records, byte for byte with
 * their decoding, from the ARM SPE decoder test of quipper (google/perf_data_converter,
 * src/quipper/arm_spe_decoder_test.cc, BSD-3-Clause): this file's decoder must read them as
 * that test does, and the model's records of the same kinds must use the same encodings.
 */
#include "hw.h"

/* The SPE registers (D24.7), by encoding */
#define PMSCR_EL1 S3_0_C9_C9_0
#define PMSNEVFR_EL1 S3_0_C9_C9_1
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
#define PMSCR_EL2 S3_4_C9_C9_0
#define HDFGRTR_EL2 S3_4_C3_C1_4
#define HDFGWTR_EL2 S3_4_C3_C1_5
#define PSB_CSYNC() __asm__ volatile("hint #17\n\tdsb nsh" : : : "memory")

#define PMSCR_E0SPE (1UL << 0)
#define PMSCR_E1SPE (1UL << 1) /* E2SPE in PMSCR_EL2 */
#define PMSCR_CX (1UL << 3)
#define PMSCR_PA (1UL << 4)
#define PMSCR_TS (1UL << 5)
#define PMSCR_PCT_PHYS (1UL << 6)
#define PMSFCR_FE (1UL << 0)
#define PMSFCR_FT (1UL << 1)
#define PMSFCR_FL (1UL << 2)
#define PMSFCR_FNE (1UL << 3)
#define PMSFCR_B (1UL << 16)
#define PMSFCR_LD (1UL << 17)
#define PMSFCR_ST (1UL << 18)
#define PMBLIMITR_E 1UL
#define PMBLIMITR_FM_DISCARD (2UL << 1)
#define PMBSR_S (1UL << 17)
#define PMBSR_DL (1UL << 19)
#define PMBSR_EC(v) (((v) >> 26) & 0x3f)
#define PMBSR_MSS(v) ((v)&0xffff)
#define MDCR_TPMS (1UL << 14)
#define MDCR_E2PB(v) ((uint64_t)(v) << 12)
#define HCR_VM (1UL << 0)
#define HCR_RW (1UL << 31)
#define HCR_IMO (1UL << 4)
#define INTID_PMBIRQ 21

/* Events packet bits (D18.2.6) */
#define EV_EXC (1u << 0)
#define EV_RETIRED (1u << 1)
#define EV_L1D_ACCESS (1u << 2)
#define EV_L1D_REFILL (1u << 3)
#define EV_TLB_ACCESS (1u << 4)
#define EV_TLB_WALK (1u << 5)
#define EV_NOT_TAKEN (1u << 6)
#define EV_MISPRED (1u << 7)
#define EV_LLC_ACCESS (1u << 8)
#define EV_LLC_MISS (1u << 9)
#define EV_MISALIGNED (1u << 11)

/* The profiling buffer and the tables of the EL1 profiler: a 2 MiB region of RAM. */
#define REGION 0x48000000UL
#define BUF (REGION + 0x10000)    /* records */
#define S1_L3 (REGION + 0x1fe000) /* EL1's stage-1 level 3 table for the region */
#define S2_L3 (REGION + 0x1ff000) /* the stage-2 level 3 table for the region */

struct spe_args {
	uint64_t data, n, icr, stop;
};
uint64_t spe_run_el2(struct spe_args *a);
uint64_t spe_run_el1(struct spe_args *a);
extern char spe_top_el2[], spe_stop_el2[], spe_top_el1[], spe_stop_el1[];

/* ---- This file's record decoder (D18) ---------------------------------------------- */

struct rec {
	uint64_t addr[4]; /* PC, branch target, data VA, data PA */
	unsigned addr_valid;
	uint32_t cnt[3]; /* total, issue, translation latency */
	unsigned cnt_valid;
	uint32_t ctx[2];
	unsigned ctx_valid;
	bool has_op, has_ev, has_ts, has_ds;
	unsigned op_class, op_sub;
	uint64_t ev;
	unsigned ev_bytes;
	uint64_t ts;
	uint8_t hdr[16]; /* the headers, in order */
	unsigned nhdr;
	unsigned bytes;
};

/* One record from b[*pos], padding before it skipped: 1, 0 (only padding left), -1 (bad). */
static int decode(const uint8_t *b, size_t len, size_t *pos, struct rec *r)
{
	size_t p = *pos;

	while (p < len && b[p] == 0x00)
		p++;
	if (p == len) {
		*pos = p;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(*r); i++)
		((uint8_t *)r)[i] = 0;
	size_t start = p;
	for (;;) {
		unsigned idx_hi = 0, h, n;
		uint64_t v = 0;

		if (p >= len)
			return -1;
		h = b[p];
		if (h == 0x00) { /* Padding: as quipper's data has it, inside records too */
			p++;
			continue;
		}
		if (h == 0x01) { /* End */
			if (r->nhdr < 16)
				r->hdr[r->nhdr++] = (uint8_t)h;
			p++;
			break;
		}
		if ((h & 0xe0) == 0x20) { /* extended header: the index's high bits */
			idx_hi = (h & 3) << 3;
			p++;
			if (p >= len)
				return -1;
			h = b[p];
		}
		if (h < 0x40)
			return -1;
		n = 1u << ((h >> 4) & 3);
		if (p + 1 + n > len)
			return -1;
		for (unsigned i = 0; i < n; i++)
			v |= (uint64_t)b[p + 1 + i] << (8 * i);
		if (r->nhdr < 16)
			r->hdr[r->nhdr++] = (uint8_t)h;
		p += 1 + n;
		if (h == 0x71) { /* Timestamp: ends the record */
			r->has_ts = true;
			r->ts = v;
			break;
		} else if ((h & 0xcf) == 0x42) {
			r->has_ev = true;
			r->ev = v;
			r->ev_bytes = n;
		} else if ((h & 0xcf) == 0x43) {
			r->has_ds = true;
		} else if ((h & 0xfc) == 0x64) {
			r->ctx[h & 1] = (uint32_t)v;
			r->ctx_valid |= 1u << (h & 1);
		} else if ((h & 0xfc) == 0x48) {
			r->has_op = true;
			r->op_class = h & 3;
			r->op_sub = (unsigned)v;
		} else if ((h & 0xf8) == 0xb0) {
			unsigned i = idx_hi | (h & 7);
			if (i < 4) {
				r->addr[i] = v;
				r->addr_valid |= 1u << i;
			}
		} else if ((h & 0xf8) == 0x98) {
			unsigned i = idx_hi | (h & 7);
			if (i < 3) {
				r->cnt[i] = (uint32_t)v;
				r->cnt_valid |= 1u << i;
			}
		} /* anything else: ignored, by its size (D18.1.3) */
	}
	r->bytes = (unsigned)(p - start);
	*pos = p;
	return 1;
}

static uint64_t addr56(uint64_t a)
{
	return a & ((1UL << 56) - 1);
}

static unsigned addr_el(uint64_t a)
{
	return (unsigned)(a >> 61) & 3;
}

/* ---- What the loop did: instruction i (from 1) after the MSR to PMSICR_EL1 ---------- */

enum kind { K_OTHER, K_LOAD, K_STORE, K_BRANCH, K_STOP };

struct insn {
	enum kind kind;
	uint64_t pc;
	uint64_t va; /* loads, stores */
	bool taken;  /* the branch */
};

static struct insn loop_insn(uint64_t i, uint64_t n, uint64_t data, const char *top,
			     const char *stop)
{
	struct insn in = {0};

	if (i > 6 * n) {
		in.kind = K_STOP;
		in.pc = (uint64_t)(uintptr_t)stop;
		return in;
	}
	uint64_t k = (i - 1) % 6, it = (i - 1) / 6, x1 = n - it;

	in.pc = (uint64_t)(uintptr_t)top + 4 * k;
	in.va = data + ((x1 & 0x3ff) << 3);
	in.kind = k == 1 ? K_LOAD : k == 3 ? K_STORE : k == 5 ? K_BRANCH : K_OTHER;
	in.taken = x1 - 1 != 0;
	return in;
}

/* The model's invented micro-architecture, as documented: the last sampled data access. */
static uint64_t last_line = ~0UL, last_page = ~0UL;

/* ---- Set-up --------------------------------------------------------------------------- */

static uint64_t data[1024] __attribute__((aligned(4096)));
static struct rec recs[2048];
static unsigned nrecs;

static void zero(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((volatile uint8_t *)p)[i] = 0;
}

/* Every SPE control off, PMBSR_EL1 clear, the buffer [BUF, BUF + size). */
static void spe_reset(uint64_t size)
{
	WRITE_SYSREG(PMSCR_EL2, 0);
	WRITE_SYSREG(PMSCR_EL1, 0);
	WRITE_SYSREG(PMBLIMITR_EL1, 0);
	ISB();
	PSB_CSYNC();
	WRITE_SYSREG(PMBSR_EL1, 0);
	WRITE_SYSREG(PMSFCR_EL1, 0);
	WRITE_SYSREG(PMSEVFR_EL1, 0);
	WRITE_SYSREG(PMSNEVFR_EL1, 0);
	WRITE_SYSREG(PMSLATFR_EL1, 0);
	WRITE_SYSREG(PMSIRR_EL1, 1UL << 8); /* INTERVAL 1: samples 257 apart */
	WRITE_SYSREG(PMSICR_EL1, 0);
	zero((void *)BUF, size);
	WRITE_SYSREG(PMBPTR_EL1, BUF);
	WRITE_SYSREG(PMBLIMITR_EL1, (BUF + size) | PMBLIMITR_E);
	ISB();
}

/* The records from BUF to PMBPTR_EL1 into recs[]; false if they do not decode. */
static bool collect(void)
{
	uint64_t end = READ_SYSREG(PMBPTR_EL1);
	size_t pos = 0, len = end - BUF;
	int r;

	nrecs = 0;
	while ((r = decode((const uint8_t *)BUF, len, &pos, &recs[nrecs])) == 1) {
		if (++nrecs == sizeof(recs) / sizeof(recs[0]))
			break;
	}
	return r >= 0 && pos == len;
}

/* A record as the documented latencies and events relate them (pv-spe.c's inventions). */
static bool invented_ok(const struct rec *r, enum kind kind)
{
	uint64_t ev = r->ev;
	bool walk = ev & EV_TLB_WALK, refill = ev & EV_L1D_REFILL;
	uint32_t xlat = walk ? 16 : 0;
	/* a load's latency past its translation: an L1D hit, an LLC hit, memory */
	uint32_t load_wait = !refill ? 4 : !walk ? 12 : 60;

	if (r->cnt[1] != 1)
		return false;
	switch (kind) {
	case K_LOAD:
		return r->cnt[2] == xlat && (ev & EV_L1D_ACCESS) && (ev & EV_TLB_ACCESS) &&
		       !!(ev & EV_LLC_ACCESS) == refill &&
		       !!(ev & EV_LLC_MISS) == (refill && walk) &&
		       r->cnt[0] == 1 + xlat + load_wait;
	case K_STORE:
		return r->cnt[2] == xlat && (ev & EV_L1D_ACCESS) && (ev & EV_TLB_ACCESS) &&
		       r->cnt[0] == 2 + xlat;
	case K_BRANCH:
		return r->cnt[0] == ((ev & EV_MISPRED) ? 10 : 2);
	default:
		return r->cnt[0] == 2;
	}
}

/*
 * Record r against instruction in: its PC at EL el, its operation type, data address, branch
 * target, events. Returns NULL or what differs.
 */
static const char *rec_matches(const struct rec *r, const struct insn *in, unsigned el,
			       uint64_t top, bool exact_events)
{
	if (!(r->addr_valid & 1) || addr56(r->addr[0]) != addr56(in->pc) ||
	    addr_el(r->addr[0]) != el || !(r->addr[0] >> 63))
		return "PC packet";
	if (!r->has_op || !r->has_ev || !(r->ev & EV_RETIRED) || (r->ev & EV_EXC))
		return "operation type or events";
	switch (in->kind) {
	case K_LOAD:
	case K_STORE:
		if (r->op_class != 1 || r->op_sub != (in->kind == K_STORE ? 1u : 0u))
			return "load/store type";
		if (!(r->addr_valid & 4) || r->addr[2] != in->va)
			return "data address";
		if (exact_events) {
			uint64_t line = in->va >> 6, page = in->va >> 12;
			uint64_t want = EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS;

			if (line != last_line)
				want |= EV_L1D_REFILL | EV_LLC_ACCESS |
					(page != last_page ? EV_LLC_MISS : 0);
			if (page != last_page)
				want |= EV_TLB_WALK;
			if (r->ev != want)
				return "events of the access";
		}
		break;
	case K_BRANCH:
		if (r->op_class != 2 || r->op_sub != 1)
			return "branch type (direct, conditional)";
		if (in->taken != !(r->ev & EV_NOT_TAKEN))
			return "not-taken event";
		if (in->taken ? !(r->addr_valid & 2) || addr56(r->addr[1]) != addr56(top) ||
					addr_el(r->addr[1]) != el
			      : (r->addr_valid & 2) != 0)
			return "branch target";
		if (!!(r->ev & EV_MISPRED) != !in->taken) /* backward: predicted taken */
			return "mispredicted event";
		break;
	default:
		if (r->op_class != 0 || r->op_sub != 0 || (r->addr_valid & 6))
			return "other type";
		break;
	}
	if (!invented_ok(r, in->kind))
		return "latencies";
	return NULL;
}

/* The sample positions for PMSICR_EL1 = icr: icr, icr + 257, ... up to the stop. */
static uint64_t sample_count(uint64_t icr, uint64_t n)
{
	return icr > 6 * n + 1 ? 0 : (6 * n + 1 - icr) / 257 + 1;
}

/* The last-access state the model keeps, brought past samples first..count-1. */
static void track(uint64_t icr, uint64_t n, uint64_t from, uint64_t count, uint64_t d,
		  const char *top, const char *stop)
{
	for (uint64_t j = from; j < count; j++) {
		struct insn in = loop_insn(icr + 257 * j, n, d, top, stop);

		if (in.kind == K_LOAD || in.kind == K_STORE) {
			last_line = in.va >> 6;
			last_page = in.va >> 12;
		}
	}
}

/* ---- Published decoder test data -------------------------------------------------- */

/* quipper's arm_spe_decoder_test.cc: two records, with their padding. */
static const uint8_t published[] = {
	0xb0, 0xd0, 0xc2, 0xa1, 0xed, 0x66, 0xba, 0xff, 0xc0, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x65, 0x80, 0x5f, 0x00, 0x00, 0x49, 0x00, 0x52, 0x16, 0x00, 0x99, 0x04,
	0x00, 0x98, 0x0c, 0x00, 0xb2, 0x28, 0x6b, 0x09, 0x03, 0x37, 0x0e, 0xff, 0x00,
	0x9a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x43,
	0x00, 0x00, 0x00, 0x71, 0x2e, 0x65, 0x2f, 0x6a, 0x0a, 0x00, 0x00, 0x00, 0xb0,
	0xe0, 0xb0, 0xef, 0xed, 0x66, 0xba, 0xff, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x65, 0x0e, 0x00, 0x00, 0x00, 0x4a, 0x01, 0x52, 0x42, 0x00, 0x99, 0x10, 0x00,
	0x98, 0x11, 0x00, 0xb1, 0xe4, 0xb0, 0xef, 0xed, 0x66, 0xba, 0xff, 0xc0, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x71, 0x8d, 0x65, 0x2f, 0x6a, 0x0a, 0x00, 0x00, 0x00,
};

/* What that test expects of them (sign-extended addresses taken as their 56 bits). */
static bool published_decodes(struct rec *r0, struct rec *r1)
{
	size_t pos = 0;
	struct rec extra;

	if (decode(published, sizeof(published), &pos, r0) != 1 ||
	    decode(published, sizeof(published), &pos, r1) != 1 ||
	    decode(published, sizeof(published), &pos, &extra) != 0)
		return false;
	return addr56(r0->addr[0]) == 0xffba66eda1c2d0UL && addr_el(r0->addr[0]) == 2 &&
	       (r0->addr[0] >> 63) && r0->ctx_valid == 2 && r0->ctx[1] == 0x5f80 &&
	       r0->op_class == 1 && r0->op_sub == 0 &&
	       r0->ev == (EV_RETIRED | EV_L1D_ACCESS | EV_TLB_ACCESS) && r0->cnt[1] == 4 &&
	       r0->cnt[0] == 12 && r0->cnt[2] == 1 && r0->cnt_valid == 7 &&
	       addr56(r0->addr[2]) == 0xff0e3703096b28UL && r0->has_ds && r0->has_ts &&
	       r0->ts == 44731163950UL && addr56(r1->addr[0]) == 0xffba66edefb0e0UL &&
	       addr_el(r1->addr[0]) == 2 && r1->ctx_valid == 2 && r1->ctx[1] == 0xe &&
	       r1->op_class == 2 && r1->op_sub == 1 && r1->ev == (EV_RETIRED | EV_NOT_TAKEN) &&
	       r1->cnt[1] == 16 && r1->cnt[0] == 17 &&
	       addr56(r1->addr[1]) == 0xffba66edefb0e4UL && addr_el(r1->addr[1]) == 2 &&
	       r1->ts == 44731164045UL;
}

/* Every header of r is one the published record p uses, or one it has no occasion for. */
static bool same_headers(const struct rec *r, const struct rec *p, const uint8_t *extra,
			 unsigned nextra)
{
	for (unsigned i = 0; i < r->nhdr; i++) {
		bool found = false;

		for (unsigned j = 0; j < p->nhdr && !found; j++)
			found = r->hdr[i] == p->hdr[j];
		for (unsigned j = 0; j < nextra && !found; j++)
			found = r->hdr[i] == extra[j];
		if (!found)
			return false;
	}
	return true;
}

/* ---- The checks -------------------------------------------------------------------- */

static bool has_spe;

static void check_ids(void)
{
	uint64_t dfr0 = READ_SYSREG(id_aa64dfr0_el1);
	uint64_t sidr = READ_SYSREG(PMSIDR_EL1), bidr = READ_SYSREG(PMBIDR_EL1);

	HW_CHECK_EQ("spe_pmsver", (dfr0 >> 32) & 0xf, 3);
	/* FE, FT, FL, ArchInst, FnE; Interval 0; MaxSize 64 bytes; 12-bit counters; Format 0 */
	HW_CHECK_EQ("spe_pmsidr", sidr, 0x7 | 1 << 3 | 1 << 6 | 6 << 12 | 2 << 16);
	/* Align 0, P 0 (EL2 owns the buffer: E2PB 0b00, and this is EL2), F 1, EA 0b0001 */
	HW_CHECK_EQ("spe_pmbidr_el2", bidr, 1 << 5 | 1 << 8);
}

/* The EL2 profiler: every record of the loop, exactly. */
static void check_el2_records(void)
{
	const uint64_t n = 600, icr = 10;
	struct spe_args a = {(uint64_t)(uintptr_t)data, n, icr, 0};
	uint64_t count = sample_count(icr, n);
	const char *bad = NULL;
	uint64_t bad_at = 0, bad_ts = 0;
	unsigned ts_bad = 0;

	spe_reset(0x10000);
	WRITE_SYSREG(PMSCR_EL2,
		     PMSCR_E1SPE | PMSCR_TS | PMSCR_PCT_PHYS); /* E2SPE, TS, physical */
	ISB();
	spe_run_el2(&a);
	PSB_CSYNC();
	hw_check(collect(), "spe_el2_decode", "the buffer does not decode (%u records)", nrecs);
	HW_CHECK_EQ("spe_el2_count", nrecs, count);
	/* The buffer for tests/hw/spe_host.c, which decodes it with perfvisor's codec. */
	hw_printf("spe-dump: %u records, PCs %#llx..%#llx at EL2:", nrecs,
		  (unsigned long long)(uintptr_t)spe_top_el2,
		  (unsigned long long)(uintptr_t)spe_stop_el2);
	for (uint64_t b = BUF; b < READ_SYSREG(PMBPTR_EL1); b++)
		hw_printf(" %x", *(volatile uint8_t *)b);
	hw_printf("\n");
	for (unsigned j = 0; j < nrecs && j < count && !bad; j++) {
		struct insn in = loop_insn(icr + 257 * j, n, a.data, spe_top_el2, spe_stop_el2);

		bad = rec_matches(&recs[j], &in, 2, (uint64_t)(uintptr_t)spe_top_el2, true);
		bad_at = j;
		if (in.kind == K_LOAD || in.kind == K_STORE) {
			last_line = in.va >> 6;
			last_page = in.va >> 12;
		}
		if (!recs[j].has_ts)
			ts_bad++;
		else if (j && recs[j].ts - recs[j - 1].ts != 257 && !ts_bad) {
			ts_bad++;
			bad_ts = recs[j].ts - recs[j - 1].ts;
		}
	}
	hw_check(!bad, "spe_el2_records", "record %llu: %s", (unsigned long long)bad_at,
		 bad ? bad : "");
	hw_check(!ts_bad, "spe_el2_timestamps", "timestamps not 257 ticks apart (%llu)",
		 (unsigned long long)bad_ts);
	HW_CHECK_EQ("spe_el2_pmbsr", READ_SYSREG(PMBSR_EL1), 0);
	/* After the last sample (at icr + 257 (count - 1)) the counter ran down to the stop. */
	HW_CHECK_EQ("spe_el2_pmsicr", READ_SYSREG(PMSICR_EL1),
		    256 - (6 * n + 1 - (icr + 257 * (count - 1)) - 1));

	/* The published data: this decoder reads it as quipper's test does ... */
	struct rec p0, p1;
	bool pub = published_decodes(&p0, &p1);

	hw_check(pub, "spe_published_decode",
		 "the published records do not decode as published");
	/* ... and the model's records of the same kinds use the same encodings. */
	const struct rec *ld = NULL, *nt = NULL;
	for (unsigned j = 0; j < nrecs; j++) {
		if (!ld && recs[j].op_class == 1 && recs[j].op_sub == 0)
			ld = &recs[j];
		if (!nt && recs[j].op_class == 2 && (recs[j].ev & EV_NOT_TAKEN))
			nt = &recs[j];
	}
	static const uint8_t none[1] = {0};
	hw_check(pub && ld && same_headers(ld, &p0, none, 0) && ld->hdr[0] != 0 &&
			 (ld->addr[0] >> 56) == (p0.addr[0] >> 56) &&
			 ld->ev_bytes == p0.ev_bytes,
		 "spe_published_load_format",
		 "a load record's packets differ from the published");
	/* The loop's last branch is not taken: it is sampled when n is chosen so (below). */
	hw_check(pub && (!nt || (same_headers(nt, &p1, none, 0) && nt->op_sub == p1.op_sub &&
				 (nt->addr[0] >> 56) == (p1.addr[0] >> 56))),
		 "spe_published_branch_format",
		 "a branch record's packets differ from the published");
}

/* A not-taken branch sampled: icr chosen so that a sample falls on the last b.ne. */
static void check_not_taken(void)
{
	const uint64_t n = 100;
	const uint64_t icr = 6 * n - 257 * 2; /* samples at 6n - 514, 6n - 257, 6n */
	struct spe_args a = {(uint64_t)(uintptr_t)data, n, icr, 0};
	struct rec p0, p1;
	const char *bad = NULL;

	spe_reset(0x1000);
	WRITE_SYSREG(PMSCR_EL2, PMSCR_E1SPE | PMSCR_TS | PMSCR_PCT_PHYS);
	ISB();
	spe_run_el2(&a);
	PSB_CSYNC();
	collect();
	HW_CHECK_EQ("spe_not_taken_count", nrecs, 3);
	for (unsigned j = 0; j < nrecs && j < 3 && !bad; j++) {
		struct insn in = loop_insn(icr + 257 * j, n, a.data, spe_top_el2, spe_stop_el2);
		bad = rec_matches(&recs[j], &in, 2, (uint64_t)(uintptr_t)spe_top_el2, false);
	}
	hw_check(!bad && nrecs == 3 && (recs[2].ev & EV_NOT_TAKEN) && (recs[2].ev & EV_MISPRED),
		 "spe_not_taken", "%s", bad ? bad : "the last b.ne: not taken, mispredicted");
	track(icr, n, 0, 3, a.data, spe_top_el2, spe_stop_el2);
	bool pub = published_decodes(&p0, &p1);
	static const uint8_t none[1] = {0};
	hw_check(pub && nrecs == 3 && same_headers(&recs[2], &p1, none, 0) &&
			 recs[2].op_sub == p1.op_sub && recs[2].ev == (p1.ev | EV_MISPRED) &&
			 (recs[2].addr[0] >> 56) == (p1.addr[0] >> 56),
		 "spe_published_not_taken",
		 "the not-taken branch's record differs from the published");
}

static unsigned irq_count;
static void on_irq(unsigned intid, struct hw_frame *f)
{
	(void)f;
	if (intid == INTID_PMBIRQ) {
		irq_count++;
		/* The handler's job: clear the service bit, which lowers PMBIRQ. */
		WRITE_SYSREG(PMBSR_EL1, 0);
		ISB();
	}
}

/* A small buffer fills: the buffer-full event, PMBIRQ on PPI 21, the write pointer. */
static void check_buffer_full(void)
{
	const uint64_t size = 0x1000, n = 5000;
	struct spe_args a = {(uint64_t)(uintptr_t)data, n, 10, 0};

	spe_reset(size);
	WRITE_SYSREG(PMSCR_EL2, PMSCR_E1SPE | PMSCR_TS | PMSCR_PCT_PHYS);
	ISB();
	spe_run_el2(&a);
	PSB_CSYNC();
	uint64_t sr = READ_SYSREG(PMBSR_EL1), ptr = READ_SYSREG(PMBPTR_EL1);

	hw_check((sr & PMBSR_S) && PMBSR_EC(sr) == 0 && PMBSR_MSS(sr) == 1 && !(sr & PMBSR_DL),
		 "spe_full_pmbsr", "PMBSR_EL1 %#llx, not S, EC 0, BSC 1 (buffer filled)",
		 (unsigned long long)sr);
	/* SPEBufferIsFull(): stopped once a 64-byte record would not fit; never past the limit */
	hw_check(ptr + 64 > BUF + size && ptr <= BUF + size, "spe_full_pointer",
		 "PMBPTR_EL1 %#llx, limit %#llx", (unsigned long long)ptr,
		 (unsigned long long)(BUF + size));
	hw_check(collect() && nrecs > 40, "spe_full_records",
		 "%u whole records before the event", nrecs);
	/* The samples the full buffer took: count the records, the rest were not taken. */
	track(10, n, 0, nrecs, a.data, spe_top_el2, spe_stop_el2);
	HW_CHECK_EQ("spe_full_irq_pending", hw_irq_pending(), INTID_PMBIRQ);
	/* Taken when unmasked; the handler clears PMBSR_EL1.S, and the line drops. */
	irq_count = 0;
	__asm__ volatile("msr daifclr, #2\n\tisb\n\tnop\n\tnop\n\tmsr daifset, #2"
			 :
			 :
			 : "memory");
	HW_CHECK_EQ("spe_full_irq_taken", irq_count, 1);
	HW_CHECK_EQ("spe_full_irq_lowered", hw_irq_pending(), HW_INTID_NONE);
	/* Software's write of S raises it (PMBIRQ follows PMBSR_EL1.S). */
	WRITE_SYSREG(PMBLIMITR_EL1, 0);
	WRITE_SYSREG(PMBSR_EL1, PMBSR_S);
	ISB();
	HW_CHECK_EQ("spe_full_irq_sw_set", hw_irq_pending(), INTID_PMBIRQ);
	WRITE_SYSREG(PMBSR_EL1, 0);
	ISB();
}

/* Run the loop at EL2 with the filter registers as given; the records in recs[]. */
static void run_filtered(uint64_t fcr, uint64_t evfr, uint64_t nevfr, uint64_t minlat,
			 uint64_t n)
{
	struct spe_args a = {(uint64_t)(uintptr_t)data, n, 10, 0};

	spe_reset(0x10000);
	WRITE_SYSREG(PMSFCR_EL1, fcr);
	WRITE_SYSREG(PMSEVFR_EL1, evfr);
	WRITE_SYSREG(PMSNEVFR_EL1, nevfr);
	WRITE_SYSREG(PMSLATFR_EL1, minlat);
	WRITE_SYSREG(PMSCR_EL2, PMSCR_E1SPE);
	ISB();
	spe_run_el2(&a);
	PSB_CSYNC();
	collect();
	track(10, n, 0, sample_count(10, n), a.data, spe_top_el2, spe_stop_el2);
}

/* How many of the loop's samples are of each kind (for the filters' expected counts). */
static unsigned expected_of(uint64_t n, bool (*keep)(const struct insn *))
{
	unsigned c = 0;

	for (uint64_t j = 0; j < sample_count(10, n); j++) {
		struct insn in = loop_insn(10 + 257 * j, n, 0, spe_top_el2, spe_stop_el2);
		c += keep(&in);
	}
	return c;
}

static bool is_branch(const struct insn *in)
{
	return in->kind == K_BRANCH;
}
static bool is_load(const struct insn *in)
{
	return in->kind == K_LOAD;
}
static bool is_store(const struct insn *in)
{
	return in->kind == K_STORE;
}
static bool is_ldst(const struct insn *in)
{
	return in->kind == K_LOAD || in->kind == K_STORE;
}
static bool not_ldst(const struct insn *in)
{
	return !is_ldst(in);
}

static bool all_of_class(unsigned cls, int sub)
{
	for (unsigned j = 0; j < nrecs; j++)
		if (recs[j].op_class != cls || (sub >= 0 && recs[j].op_sub != (unsigned)sub))
			return false;
	return true;
}

static void check_filters(void)
{
	const uint64_t n = 1000;

	run_filtered(PMSFCR_FT | PMSFCR_B, 0, 0, 0, n);
	hw_check(all_of_class(2, -1) && nrecs == expected_of(n, is_branch), "spe_filter_branch",
		 "%u records, %u of the loop's samples are branches", nrecs,
		 expected_of(n, is_branch));
	run_filtered(PMSFCR_FT | PMSFCR_LD, 0, 0, 0, n);
	hw_check(all_of_class(1, 0) && nrecs == expected_of(n, is_load), "spe_filter_load",
		 "%u records, %u loads", nrecs, expected_of(n, is_load));
	run_filtered(PMSFCR_FT | PMSFCR_ST, 0, 0, 0, n);
	hw_check(all_of_class(1, 1) && nrecs == expected_of(n, is_store), "spe_filter_store",
		 "%u records, %u stores", nrecs, expected_of(n, is_store));
	/* FE: only records with every event of PMSEVFR_EL1 (L1D access: loads and stores) */
	run_filtered(PMSFCR_FE, EV_L1D_ACCESS, 0, 0, n);
	hw_check(all_of_class(1, -1) && nrecs == expected_of(n, is_ldst), "spe_filter_events",
		 "%u records, %u loads and stores", nrecs, expected_of(n, is_ldst));
	/* FnE: only records with none of PMSNEVFR_EL1's (the same event: everything else) */
	run_filtered(PMSFCR_FNE, 0, EV_L1D_ACCESS, 0, n);
	bool none_ldst = true;
	for (unsigned j = 0; j < nrecs; j++)
		none_ldst &= recs[j].op_class != 1;
	hw_check(none_ldst && nrecs == expected_of(n, not_ldst), "spe_filter_inverted_events",
		 "%u records, %u not loads or stores", nrecs, expected_of(n, not_ldst));
	/* FL: total latency >= MINLAT 5: loads (5, 13, 77 and more) and stores after a walk */
	run_filtered(PMSFCR_FL, 0, 0, 5, n);
	bool lat_ok = nrecs > 0;
	for (unsigned j = 0; j < nrecs; j++)
		lat_ok &= recs[j].cnt[0] >= 5 && recs[j].op_class == 1;
	hw_check(lat_ok && nrecs >= expected_of(n, is_load), "spe_filter_latency",
		 "%u records, latencies below 5 or not loads and stores", nrecs);
	/* Discard mode (SPEv1p2): nothing written, no event, the pointer where it was */
	{
		struct spe_args a = {(uint64_t)(uintptr_t)data, n, 10, 0};

		spe_reset(0x1000);
		WRITE_SYSREG(PMBLIMITR_EL1,
			     (BUF + 0x1000) | PMBLIMITR_FM_DISCARD | PMBLIMITR_E);
		WRITE_SYSREG(PMSCR_EL2, PMSCR_E1SPE);
		ISB();
		spe_run_el2(&a);
		PSB_CSYNC();
		track(10, n, 0, sample_count(10, n), a.data, spe_top_el2, spe_stop_el2);
		hw_check(READ_SYSREG(PMBPTR_EL1) == BUF && READ_SYSREG(PMBSR_EL1) == 0 &&
				 *(volatile uint8_t *)BUF == 0,
			 "spe_discard_mode", "PMBPTR_EL1 %#llx, PMBSR_EL1 %#llx",
			 (unsigned long long)READ_SYSREG(PMBPTR_EL1),
			 (unsigned long long)READ_SYSREG(PMBSR_EL1));
	}
	/* RND: intervals of 257 to 512, and not all the same */
	{
		struct spe_args a = {(uint64_t)(uintptr_t)data, 3000, 10, 0};
		bool in_range = true, varied = false;

		spe_reset(0x10000);
		WRITE_SYSREG(PMSIRR_EL1, 1UL << 8 | 1);
		WRITE_SYSREG(PMSCR_EL2, PMSCR_E1SPE | PMSCR_TS | PMSCR_PCT_PHYS);
		ISB();
		spe_run_el2(&a);
		PSB_CSYNC();
		collect();
		for (unsigned j = 1; j < nrecs; j++) {
			uint64_t d = recs[j].ts - recs[j - 1].ts;
			in_range &= d >= 257 && d <= 512;
			varied |= j > 1 && d != recs[1].ts - recs[0].ts;
		}
		hw_check(nrecs > 20 && in_range && varied, "spe_random_interval",
			 "%u records; intervals %s", nrecs,
			 !in_range ? "outside 257..512" : "all equal");
		last_line = last_page = ~0UL - 1; /* unknown from here: no exact events below */
	}
}

/* ---- The EL1 profiler: stage 1 and stage 2 -------------------------------------------- */

static uint64_t s1_l1[512] __attribute__((aligned(4096)));
static uint64_t s1_l2[512] __attribute__((aligned(4096)));
static uint64_t s2_l1[512] __attribute__((aligned(4096)));
static uint64_t s2_l2[512] __attribute__((aligned(4096)));

/* VMSAv8-64 descriptors, 4 KiB granule (D8.3): AF, inner shareable; stage 1 AttrIndx 1 is
 * Normal write-back (MAIR_EL1), stage 2 MemAttr 0b1111 with S2AP read/write. */
#define S1_NORMAL (1UL << 10 | 3UL << 8 | 1UL << 2)
#define S1_DEVICE (1UL << 10)
#define S2_NORMAL (1UL << 10 | 3UL << 8 | 3UL << 6 | 0xfUL << 2)
#define S2_DEVICE (1UL << 10 | 3UL << 6)
#define BLOCK 1UL
#define TABLE 3UL
#define PAGE 3UL

static void tables_init(void)
{
	volatile uint64_t *l3s1 = (volatile uint64_t *)S1_L3,
			  *l3s2 = (volatile uint64_t *)S2_L3;

	zero(s1_l1, sizeof(s1_l1));
	zero(s2_l1, sizeof(s2_l1));
	s1_l1[0] = 0 | S1_DEVICE | BLOCK;
	s1_l1[1] = (uint64_t)(uintptr_t)s1_l2 | TABLE;
	s2_l1[0] = 0 | S2_DEVICE | BLOCK;
	s2_l1[1] = (uint64_t)(uintptr_t)s2_l2 | TABLE;
	for (unsigned i = 0; i < 512; i++) {
		uint64_t pa = 0x40000000UL + ((uint64_t)i << 21);
		s1_l2[i] = pa | S1_NORMAL | BLOCK;
		s2_l2[i] = pa | S2_NORMAL | BLOCK;
	}
	s1_l2[(REGION - 0x40000000UL) >> 21] = S1_L3 | TABLE;
	s2_l2[(REGION - 0x40000000UL) >> 21] = S2_L3 | TABLE;
	for (unsigned i = 0; i < 512; i++) {
		l3s1[i] = (REGION + ((uint64_t)i << 12)) | S1_NORMAL | PAGE;
		l3s2[i] = (REGION + ((uint64_t)i << 12)) | S2_NORMAL | PAGE;
	}
}

static void tlb_flush(void)
{
	__asm__ volatile("dsb ishst\n\ttlbi vmalls12e1\n\tdsb ish\n\tisb" : : : "memory");
}

/* EL1&0: stage 1 on (4 GiB, 4 KiB granule), stage 2 on (HCR_EL2.VM), both identity maps. */
static void el1_mmu_on(void)
{
	tables_init();
	WRITE_SYSREG(mair_el1, 0xff00);
	WRITE_SYSREG(tcr_el1, 32 | 1UL << 8 | 1UL << 10 | 3UL << 12 | 1UL << 23);
	WRITE_SYSREG(ttbr0_el1, (uint64_t)(uintptr_t)s1_l1);
	WRITE_SYSREG(sctlr_el1, 0x30d00800UL | 1 | 4 | 0x1000);
	WRITE_SYSREG(vtcr_el2, 32 | 1UL << 6 | 1UL << 8 | 1UL << 10 | 3UL << 12 | 1UL << 31);
	WRITE_SYSREG(vttbr_el2, (uint64_t)(uintptr_t)s2_l1);
	WRITE_SYSREG(hcr_el2, READ_SYSREG(hcr_el2) | HCR_VM);
	tlb_flush();
}

static uint64_t el1_loop(uint64_t arg)
{
	return spe_run_el1((struct spe_args *)(uintptr_t)arg);
}

/* The EL1 owner (MDCR_EL2.E2PB 0b11), E1SPE: the buffer at [ptr, limit). */
static void el1_profile(uint64_t ptr, uint64_t limit, uint64_t n, uint64_t icr)
{
	static struct spe_args a;

	a.data = (uint64_t)(uintptr_t)data;
	a.n = n;
	a.icr = icr;
	a.stop = 0;
	WRITE_SYSREG(mdcr_el2, (READ_SYSREG(mdcr_el2) & ~MDCR_E2PB(3)) | MDCR_E2PB(3));
	WRITE_SYSREG(PMSCR_EL2, 0);
	WRITE_SYSREG(PMBLIMITR_EL1, 0);
	ISB();
	WRITE_SYSREG(PMBSR_EL1, 0);
	WRITE_SYSREG(PMSFCR_EL1, 0);
	WRITE_SYSREG(PMSIRR_EL1, 1UL << 8);
	WRITE_SYSREG(PMSICR_EL1, 0xffffffffUL); /* no sample before the loop's own */
	WRITE_SYSREG(PMBPTR_EL1, ptr);
	WRITE_SYSREG(PMBLIMITR_EL1, limit | PMBLIMITR_E);
	WRITE_SYSREG(contextidr_el1, 0x5ca1ab1e);
	WRITE_SYSREG(PMSCR_EL2, PMSCR_PA); /* CX 0: no CONTEXTIDR_EL2; PA allowed */
	WRITE_SYSREG(PMSCR_EL1, PMSCR_E1SPE | PMSCR_CX | PMSCR_PA);
	/* PMBIRQ not to EL2 while EL1 runs (HCR_EL2.IMO): EL1 masks it, EL2 looks after */
	WRITE_SYSREG(hcr_el2, READ_SYSREG(hcr_el2) & ~HCR_IMO);
	ISB();
	hw_run_lower(el1_loop, (uint64_t)(uintptr_t)&a, 1);
	WRITE_SYSREG(PMSCR_EL1, 0);
	WRITE_SYSREG(hcr_el2, READ_SYSREG(hcr_el2) | HCR_IMO);
	ISB();
	PSB_CSYNC();
}

static void check_el1(void)
{
	const uint64_t n = 600, icr = 100;
	volatile uint64_t *l3s1 = (volatile uint64_t *)S1_L3,
			  *l3s2 = (volatile uint64_t *)S2_L3;
	const char *bad = NULL;
	unsigned bad_at = 0;

	el1_mmu_on();
	zero((void *)BUF, 0x10000);
	el1_profile(BUF, BUF + 0x10000, n, icr);
	hw_check(collect(), "spe_el1_decode", "the buffer does not decode (%u records)", nrecs);
	HW_CHECK_EQ("spe_el1_count", nrecs, sample_count(icr, n));
	for (unsigned j = 0; j < nrecs && !bad; j++) {
		struct insn in = loop_insn(icr + 257 * j, n, (uint64_t)(uintptr_t)data,
					   spe_top_el1, spe_stop_el1);
		const struct rec *r = &recs[j];

		bad = rec_matches(r, &in, 1, (uint64_t)(uintptr_t)spe_top_el1, false);
		bad_at = j;
		if (!bad && !(r->ctx_valid == 1 && r->ctx[0] == 0x5ca1ab1e))
			bad = "CONTEXTIDR_EL1 packet";
		/* PA collected (PMSCR_EL2.PA and PMSCR_EL1.PA): the identity maps give the VA */
		if (!bad && (in.kind == K_LOAD || in.kind == K_STORE) &&
		    (!(r->addr_valid & 8) || addr56(r->addr[3]) != in.va ||
		     !(r->addr[3] >> 63)))
			bad = "data physical address";
		if (!bad && r->has_ts)
			bad = "a timestamp without PMSCR_EL1.TS";
	}
	hw_check(!bad, "spe_el1_records", "record %u: %s", bad_at, bad ? bad : "");
	HW_CHECK_EQ("spe_el1_pmbsr", READ_SYSREG(PMBSR_EL1), 0);
	/* EL1 sees PMBIDR_EL1.P clear: it owns the buffer */
	WRITE_SYSREG(PMSCR_EL1, 0);

	/* Stage-1 fault: the page at BUF + 0x4000 unmapped in EL1's tables. A record started 16
	 * bytes below it is cut there (DL), one started on it writes nothing. */
	const uint64_t hole = BUF + 0x4000;
	l3s1[(hole - REGION) >> 12] = 0;
	tlb_flush();
	el1_profile(hole - 16, BUF + 0x10000, n, icr);
	uint64_t sr = READ_SYSREG(PMBSR_EL1);
	hw_check((sr & PMBSR_S) && (sr & PMBSR_DL) && PMBSR_EC(sr) == 0x24 &&
			 PMBSR_MSS(sr) == 0x07,
		 "spe_s1_fault",
		 "PMBSR_EL1 %#llx: not S, DL, EC 0x24, FSC 0x07 (level 3 translation)",
		 (unsigned long long)sr);
	HW_CHECK_EQ("spe_s1_fault_pointer", READ_SYSREG(PMBPTR_EL1), hole);
	HW_CHECK_EQ("spe_s1_fault_irq", hw_irq_pending(), INTID_PMBIRQ);
	el1_profile(hole, BUF + 0x10000, n, icr);
	sr = READ_SYSREG(PMBSR_EL1);
	hw_check((sr & PMBSR_S) && !(sr & PMBSR_DL) && PMBSR_EC(sr) == 0x24 &&
			 PMBSR_MSS(sr) == 0x07 && READ_SYSREG(PMBPTR_EL1) == hole,
		 "spe_s1_fault_whole", "PMBSR_EL1 %#llx, PMBPTR_EL1 %#llx: S, EC 0x24, no DL",
		 (unsigned long long)sr, (unsigned long long)READ_SYSREG(PMBPTR_EL1));
	l3s1[(hole - REGION) >> 12] = hole | S1_NORMAL | PAGE;

	/* Stage-2 fault: the same page mapped by EL1, unmapped in stage 2 (as a hypervisor that
	 * has not pinned it) */
	l3s2[(hole - REGION) >> 12] = 0;
	tlb_flush();
	uint64_t far = READ_SYSREG(far_el2);
	unsigned lower = hw_lower_faults, traps = hw_el2_lower_traps;
	el1_profile(hole - 16, BUF + 0x10000, n, icr);
	sr = READ_SYSREG(PMBSR_EL1);
	hw_check((sr & PMBSR_S) && (sr & PMBSR_DL) && PMBSR_EC(sr) == 0x25 &&
			 PMBSR_MSS(sr) == 0x07,
		 "spe_s2_fault",
		 "PMBSR_EL1 %#llx: not S, DL, EC 0x25, FSC 0x07 (level 3 translation)",
		 (unsigned long long)sr);
	HW_CHECK_EQ("spe_s2_fault_pointer", READ_SYSREG(PMBPTR_EL1), hole);
	/* A management event, not an exception: EL2's last exception is the HVC back from EL1,
	 * FAR_EL2 as it was, nothing taken to EL1 */
	hw_check(((READ_SYSREG(esr_el2) >> 26) & 0x3f) == 0x16 && READ_SYSREG(far_el2) == far &&
			 hw_lower_faults == lower && hw_el2_lower_traps == traps,
		 "spe_s2_fault_no_exception",
		 "ESR_EL2 %#llx, or FAR_EL2 changed, or a fault taken",
		 (unsigned long long)READ_SYSREG(esr_el2));
	l3s2[(hole - REGION) >> 12] = hole | S2_NORMAL | PAGE;

	/* Stage-2 fault on the stage-1 walk: EL1's level 3 table itself unmapped in stage 2 */
	l3s2[(S1_L3 - REGION) >> 12] = 0;
	tlb_flush();
	el1_profile(hole, BUF + 0x10000, n, icr);
	sr = READ_SYSREG(PMBSR_EL1);
	hw_check((sr & PMBSR_S) && PMBSR_EC(sr) == 0x25 && PMBSR_MSS(sr) == 0x07 &&
			 READ_SYSREG(PMBPTR_EL1) == hole,
		 "spe_s2_fault_walk", "PMBSR_EL1 %#llx, PMBPTR_EL1 %#llx: EC 0x25, FSC 0x07",
		 (unsigned long long)sr, (unsigned long long)READ_SYSREG(PMBPTR_EL1));
	l3s2[(S1_L3 - REGION) >> 12] = S1_L3 | S2_NORMAL | PAGE;
	tlb_flush();

	WRITE_SYSREG(PMBLIMITR_EL1, 0);
	WRITE_SYSREG(PMBSR_EL1, 0);
	WRITE_SYSREG(hcr_el2, READ_SYSREG(hcr_el2) & ~HCR_VM);
	WRITE_SYSREG(sctlr_el1, 0x30d00800UL);
	ISB();
	tlb_flush();
}

/* ---- Traps ------------------------------------------------------------------------------ */

static uint64_t outcome;
static uint64_t el1_read_pmscr(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMSCR_EL1));
	return 0;
}
static uint64_t el1_read_pmbptr(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMBPTR_EL1));
	return 0;
}
static uint64_t el1_read_pmsirr(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMSIRR_EL1));
	return 0;
}
static uint64_t el1_read_pmsnevfr(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMSNEVFR_EL1));
	return 0;
}
static uint64_t el1_read_pmscr_el2(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMSCR_EL2));
	return 0;
}
static uint64_t el1_read_pmbidr(uint64_t a)
{
	(void)a;
	return READ_SYSREG(PMBIDR_EL1);
}
static uint64_t el0_read_pmscr(uint64_t a)
{
	(void)a;
	outcome = HW_OUTCOME(READ_SYSREG(PMSCR_EL1));
	return 0;
}

static uint64_t at_el1(uint64_t (*fn)(uint64_t))
{
	hw_run_lower(fn, 0, 1);
	return outcome;
}

#define ISS(crm, op1, op2) HW_ISS_SYS64(3, op1, 9, crm, op2, 1)

static void check_traps(void)
{
	uint64_t mdcr = READ_SYSREG(mdcr_el2) & ~(MDCR_TPMS | MDCR_E2PB(3));

	hw_el2_take_lower_traps = true;
	WRITE_SYSREG(HDFGRTR_EL2, 1UL << 62); /* nPMSNEVFR_EL1 set: not trapped */
	WRITE_SYSREG(HDFGWTR_EL2, 1UL << 62);
	WRITE_SYSREG(mdcr_el2, mdcr | MDCR_TPMS | MDCR_E2PB(3));
	ISB();
	hw_check(hw_outcome_is(at_el1(el1_read_pmscr), HW_AT_EL2, HW_EC_SYS64, ISS(9, 0, 0)),
		 "spe_trap_tpms", "PMSCR_EL1 at EL1 with MDCR_EL2.TPMS: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(mdcr_el2, mdcr | MDCR_E2PB(3));
	ISB();
	HW_CHECK_EQ("spe_no_trap_pms", at_el1(el1_read_pmscr), HW_DONE);
	HW_CHECK_EQ("spe_no_trap_pmb", at_el1(el1_read_pmbptr), HW_DONE);
	HW_CHECK_EQ("spe_pmbidr_el1_owner", hw_run_lower(el1_read_pmbidr, 0, 1),
		    1 << 5 | 1 << 8);
	WRITE_SYSREG(mdcr_el2,
		     mdcr | MDCR_E2PB(2)); /* EL1 owns the buffer, its accesses trap */
	ISB();
	hw_check(hw_outcome_is(at_el1(el1_read_pmbptr), HW_AT_EL2, HW_EC_SYS64, ISS(10, 0, 1)),
		 "spe_trap_e2pb_10", "PMBPTR_EL1 at EL1 with E2PB 0b10: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(mdcr_el2, mdcr | MDCR_E2PB(0)); /* EL2 owns it */
	ISB();
	hw_check(hw_outcome_is(at_el1(el1_read_pmbptr), HW_AT_EL2, HW_EC_SYS64, ISS(10, 0, 1)),
		 "spe_trap_e2pb_00", "PMBPTR_EL1 at EL1 with E2PB 0b00: %#llx",
		 (unsigned long long)outcome);
	HW_CHECK_EQ("spe_pmbidr_p", hw_run_lower(el1_read_pmbidr, 0, 1),
		    1 << 4 | 1 << 5 | 1 << 8);
	/* Fine-grained traps: HDFGRTR_EL2.PMSIRR_EL1 (31); nPMSNEVFR_EL1 (62) clear traps */
	WRITE_SYSREG(mdcr_el2, mdcr | MDCR_E2PB(3));
	WRITE_SYSREG(HDFGRTR_EL2, 1UL << 31 | 1UL << 62);
	ISB();
	hw_check(hw_outcome_is(at_el1(el1_read_pmsirr), HW_AT_EL2, HW_EC_SYS64, ISS(9, 0, 3)),
		 "spe_fgt_pmsirr", "PMSIRR_EL1 at EL1 with HDFGRTR_EL2 bit 31: %#llx",
		 (unsigned long long)outcome);
	HW_CHECK_EQ("spe_fgt_pmsnevfr_set", at_el1(el1_read_pmsnevfr), HW_DONE);
	WRITE_SYSREG(HDFGRTR_EL2, 0);
	ISB();
	hw_check(hw_outcome_is(at_el1(el1_read_pmsnevfr), HW_AT_EL2, HW_EC_SYS64, ISS(9, 0, 1)),
		 "spe_fgt_npmsnevfr", "PMSNEVFR_EL1 at EL1 with nPMSNEVFR_EL1 clear: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(HDFGRTR_EL2, 1UL << 62);
	ISB();
	/* PMSCR_EL2 UNDEFINED at EL1 (no FEAT_NV in use), the registers UNDEFINED at EL0 */
	hw_check(hw_outcome_is(at_el1(el1_read_pmscr_el2), HW_AT_EL1, HW_EC_UNKNOWN, 0),
		 "spe_pmscr_el2_at_el1", "PMSCR_EL2 at EL1: %#llx",
		 (unsigned long long)outcome);
	hw_run_lower(el0_read_pmscr, 0, 0);
	hw_check(hw_outcome_is(outcome, HW_AT_EL1, HW_EC_UNKNOWN, 0), "spe_el0_undef",
		 "PMSCR_EL1 at EL0: %#llx", (unsigned long long)outcome);
	hw_el2_take_lower_traps = false;
	WRITE_SYSREG(HDFGRTR_EL2, 0);
	WRITE_SYSREG(HDFGWTR_EL2, 0);
	WRITE_SYSREG(mdcr_el2, mdcr);
	ISB();
}

/* Registers' own bits: what reads back (RES0 bits dropped). */
static void check_register_bits(void)
{
	WRITE_SYSREG(PMSCR_EL1, ~0UL);
	WRITE_SYSREG(PMSIRR_EL1, ~0UL);
	WRITE_SYSREG(PMSFCR_EL1, ~0UL);
	WRITE_SYSREG(PMSEVFR_EL1, ~0UL);
	WRITE_SYSREG(PMSLATFR_EL1, ~0UL);
	WRITE_SYSREG(PMBSR_EL1, ~0UL);
	ISB();
	hw_check(READ_SYSREG(PMSCR_EL1) == 0xfb && READ_SYSREG(PMSIRR_EL1) == 0xffffff01 &&
			 READ_SYSREG(PMSFCR_EL1) == 0x7000f &&
			 READ_SYSREG(PMSEVFR_EL1) == 0x60bfe &&
			 READ_SYSREG(PMSLATFR_EL1) == 0xfff &&
			 READ_SYSREG(PMBSR_EL1) == 0x00fffffffc0fffffUL,
		 "spe_register_bits", "PMSCR %#llx PMSIRR %#llx PMSFCR %#llx PMSEVFR %#llx",
		 (unsigned long long)READ_SYSREG(PMSCR_EL1),
		 (unsigned long long)READ_SYSREG(PMSIRR_EL1),
		 (unsigned long long)READ_SYSREG(PMSFCR_EL1),
		 (unsigned long long)READ_SYSREG(PMSEVFR_EL1));
	HW_CHECK_EQ("spe_irq_follows_s", hw_irq_pending(), INTID_PMBIRQ);
	WRITE_SYSREG(PMBSR_EL1, 0);
	WRITE_SYSREG(PMSCR_EL1, 0);
	WRITE_SYSREG(PMSFCR_EL1, 0);
	WRITE_SYSREG(PMSEVFR_EL1, 0);
	WRITE_SYSREG(PMSLATFR_EL1, 0);
	ISB();
}

/* The names of every check after spe_present_consistent, for a CPU without SPE. */
static const char *const all_checks[] = {
	"spe_pmsver",
	"spe_pmsidr",
	"spe_pmbidr_el2",
	"spe_el2_decode",
	"spe_el2_count",
	"spe_el2_records",
	"spe_el2_timestamps",
	"spe_el2_pmbsr",
	"spe_el2_pmsicr",
	"spe_published_decode",
	"spe_published_load_format",
	"spe_published_branch_format",
	"spe_not_taken_count",
	"spe_not_taken",
	"spe_published_not_taken",
	"spe_full_pmbsr",
	"spe_full_pointer",
	"spe_full_records",
	"spe_full_irq_pending",
	"spe_full_irq_taken",
	"spe_full_irq_lowered",
	"spe_full_irq_sw_set",
	"spe_filter_branch",
	"spe_filter_load",
	"spe_filter_store",
	"spe_filter_events",
	"spe_filter_inverted_events",
	"spe_filter_latency",
	"spe_discard_mode",
	"spe_random_interval",
	"spe_el1_decode",
	"spe_el1_count",
	"spe_el1_records",
	"spe_el1_pmbsr",
	"spe_s1_fault",
	"spe_s1_fault_pointer",
	"spe_s1_fault_irq",
	"spe_s1_fault_whole",
	"spe_s2_fault",
	"spe_s2_fault_pointer",
	"spe_s2_fault_no_exception",
	"spe_s2_fault_walk",
	"spe_trap_tpms",
	"spe_no_trap_pms",
	"spe_no_trap_pmb",
	"spe_pmbidr_el1_owner",
	"spe_trap_e2pb_10",
	"spe_trap_e2pb_00",
	"spe_pmbidr_p",
	"spe_fgt_pmsirr",
	"spe_fgt_pmsnevfr_set",
	"spe_fgt_npmsnevfr",
	"spe_pmscr_el2_at_el1",
	"spe_el0_undef",
	"spe_register_bits",
	"spe_irq_follows_s",
};

int main(void)
{
	uint64_t pmsver = (READ_SYSREG(id_aa64dfr0_el1) >> 32) & 0xf;
	unsigned undef;

	/* PMSIDR_EL1 is readable exactly when ID_AA64DFR0_EL1 says SPE is there. */
	hw_el2_skip_faults = true;
	undef = hw_el2_faults;
	(void)READ_SYSREG(PMSIDR_EL1);
	undef = hw_el2_faults - undef;
	hw_el2_skip_faults = false;
	has_spe = pmsver != 0;
	hw_check(has_spe == (undef == 0), "spe_present_consistent",
		 "PMSVer %llu, PMSIDR_EL1 %s", (unsigned long long)pmsver,
		 undef ? "UNDEFINED" : "readable");
	if (!has_spe) {
		for (unsigned i = 0; i < sizeof(all_checks) / sizeof(all_checks[0]); i++)
			hw_check(false, all_checks[i], "no SPE (ID_AA64DFR0_EL1.PMSVer 0)");
		hw_done();
	}
	hw_gic_init();
	hw_irq_enable(INTID_PMBIRQ);
	hw_irq_handler(on_irq);
	/* EL2 owns the buffer (E2PB 0b00), E2H 0: the EL2 regime's identity map */
	WRITE_SYSREG(mdcr_el2, READ_SYSREG(mdcr_el2) & ~MDCR_E2PB(3));
	ISB();
	check_ids();
	check_el2_records();
	check_not_taken();
	check_buffer_full();
	check_filters();
	check_el1();
	check_traps();
	check_register_bits();
	return 0;
}
