/* SPDX-License-Identifier: MIT */
/*
 * Self-test of the MPAM models against the architecture, programming them directly (no
 * library). Offsets and fields are written out here from the MPAM specification's register
 * map (docs/mpam.md, "Register map"), not taken from include/perfvisor/mpam_regs.h, so a wrong
 * definition there cannot hide a wrong model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "perfvisor/sysreg.h"
#include "sim/mpam_cpu.h"
#include "sim/msc.h"
#include "sim/traffic.h"

/* MSC register offsets (MPAM spec, memory-mapped register summary) */
enum {
	IDR = 0x0000,
	IIDR = 0x0018,
	AIDR = 0x0020,
	CPOR_IDR = 0x0030,
	MBW_IDR = 0x0040,
	MSMON_IDR = 0x0080,
	MBWUMON_IDR = 0x0090,
	ECR = 0x00F0,
	ESR = 0x00F8,
	PART_SEL = 0x0100,
	MBW_MIN = 0x0200,
	MBW_MAX = 0x0208,
	MBW_PROP = 0x0500,
	MON_SEL = 0x0800,
	CAPT_EVNT = 0x0808,
	MBWU_FLT = 0x0820,
	MBWU_CTL = 0x0828,
	MBWU = 0x0860,
	MBWU_CAPTURE = 0x0868,
	MBWU_L = 0x0880,
	MBWU_L_CAPTURE = 0x0890,
	CPBM = 0x1000,
};
/* MSMON_CFG_MBWU_CTL */
#define CTL_MATCH_PARTID (1u << 16)
#define CTL_MATCH_PMG (1u << 17)
#define CTL_SCLEN (1u << 19)
#define CTL_OFLOW_STATUS (1u << 26)
#define CTL_OFLOW_STATUS_L (1u << 15)
#define CTL_CAPT_RESET (1u << 27)
#define CTL_CAPT_LOCAL (7u << 28)
#define CTL_EN (1u << 31)
#define NRDY (1u << 31)

#define GB 1000000000ull
#define MS 1000000ull

/* RIS 0: memory bandwidth (8-bit fractions, MIN and MAX), 16 monitors with 44-bit counters,
 * capture and the read/write filter; RIS 1: 20 cache portions. PARTID_MAX 63, PMG_MAX 3. */
static struct sim_msc_config two_ris(void)
{
	struct sim_msc_config c = {.base = 0x10000000,
				   .node = 0,
				   .partid_max = 63,
				   .pmg_max = 3,
				   .aidr = 0x11,
				   .iidr = 0x1234543B,
				   .nrdy_ns = 20000,
				   .nris = 2};
	c.ris[0] = (struct sim_ris_config){.mbw = true,
					   .bwa_wd = 8,
					   .has_min = true,
					   .has_max = true,
					   .num_mon = 16,
					   .has_long = true,
					   .has_capture = true,
					   .has_rwbw = true,
					   .weight = 1,
					   .capacity = 10 * GB};
	c.ris[1] = (struct sim_ris_config){.cpbm_wd = 20};
	return c;
}

static struct sim_msc *msc_new(const struct sim_msc_config *c)
{
	static struct sim_msc m;
	assert_int_equal(sim_msc_init(&m, c), 0);
	return &m;
}

static uint32_t rd(struct sim_msc *m, uint32_t off)
{
	return sim_msc_read(m, off);
}

static void wr(struct sim_msc *m, uint32_t off, uint32_t v)
{
	sim_msc_write(m, off, v);
}

static unsigned errcode(struct sim_msc *m)
{
	return rd(m, ESR) >> 24 & 0xF;
}

static void test_id_registers(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	struct sim_msc *m = msc_new(&c);
	uint32_t lo = rd(m, IDR), hi = rd(m, IDR + 4);
	assert_int_equal(lo & 0xFFFF, 63);    /* PARTID_MAX */
	assert_int_equal(lo >> 16 & 0xFF, 3); /* PMG_MAX */
	assert_true(lo & 1u << 28);           /* EXT: the IDR is 64 bits */
	assert_true(hi & 1u << 0);            /* HAS_RIS (bit 32) */
	assert_int_equal(hi >> 24 & 0xF, 1);  /* RIS_MAX (59:56) */
	assert_true(hi & 1u << 7);            /* HAS_ESR (39) */
	assert_true(hi & 1u << 6);            /* HAS_EXTD_ESR (38) */
	assert_int_equal(rd(m, AIDR), 0x11);
	assert_int_equal(rd(m, IIDR), 0x1234543B);
	/* The feature bits and ID registers follow MPAMCFG_PART_SEL.RIS (27:24). */
	wr(m, PART_SEL, 0);
	lo = rd(m, IDR);
	assert_true(lo & 1u << 26);  /* HAS_MBW_PART */
	assert_false(lo & 1u << 25); /* HAS_CPOR_PART */
	assert_true(lo & 1u << 30);  /* HAS_MSMON */
	uint32_t mbw = rd(m, MBW_IDR);
	assert_int_equal(mbw & 0x3F, 8);          /* BWA_WD */
	assert_true(mbw & 1u << 10);              /* HAS_MIN */
	assert_true(mbw & 1u << 11);              /* HAS_MAX */
	assert_false(mbw & 1u << 13);             /* HAS_PROP */
	assert_true(rd(m, MSMON_IDR) & 1u << 17); /* MSMON_MBWU */
	uint32_t mb = rd(m, MBWUMON_IDR);
	assert_int_equal(mb & 0xFFFF, 16); /* NUM_MON */
	assert_true(mb & 1u << 30);        /* HAS_LONG */
	assert_false(mb & 1u << 29);       /* LWD: 44-bit */
	assert_true(mb & 1u << 31);        /* HAS_CAPTURE */
	assert_true(mb & 1u << 28);        /* HAS_RWBW */
	wr(m, PART_SEL, 1u << 24);
	lo = rd(m, IDR);
	assert_true(lo & 1u << 25);
	assert_false(lo & 1u << 26);
	assert_false(lo & 1u << 30);
	assert_int_equal(rd(m, CPOR_IDR) & 0xFFFF, 20);
	assert_int_equal(rd(m, MBW_IDR), 0);
	sim_msc_free(m);

	/* One RIS: a 32-bit IDR, no RIS field in PART_SEL. */
	c.nris = 1;
	m = msc_new(&c);
	assert_false(rd(m, IDR) & 1u << 28);
	assert_int_equal(rd(m, IDR + 4), 0);
	wr(m, PART_SEL, 1u << 24 | 5);
	assert_int_equal(rd(m, PART_SEL), 5);
	sim_msc_free(m);
}

static void test_config_errors(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	struct sim_msc *m = msc_new(&c);
	assert_int_equal(rd(m, ESR), 0);
	assert_false(sim_msc_err_irq(m));
	wr(m, ECR, 1); /* INTEN */
	/* PARTID_SEL out of range: PARTID_SEL_Range (1), reads 0, write ignored. */
	wr(m, PART_SEL, 64);
	wr(m, MBW_MAX, 0x1000);
	assert_int_equal(errcode(m), 1);
	assert_int_equal(rd(m, ESR) & 0xFFFF, 64); /* PARTID_MON */
	assert_false(rd(m, ESR) & 1u << 31);       /* OVRWR */
	assert_true(sim_msc_err_irq(m));
	assert_int_equal(rd(m, MBW_MAX), 0);
	/* A second error before software clears ESR sets OVRWR. */
	wr(m, PART_SEL, 2u << 24 | 3); /* RIS 2 does not exist */
	rd(m, MBW_MAX);
	assert_int_equal(errcode(m), 8);           /* Undefined_RIS_PART_SEL */
	assert_int_equal(rd(m, ESR + 4) & 0xF, 2); /* RIS (35:32) */
	assert_true(rd(m, ESR) & 1u << 31);
	wr(m, ESR + 4, 0);
	wr(m, ESR, 0);
	assert_int_equal(rd(m, ESR), 0);
	assert_false(sim_msc_err_irq(m));
	/* A control the selected RIS lacks: RIS_No_Control (9). */
	wr(m, PART_SEL, 1u << 24 | 3);
	wr(m, MBW_MAX, 0x1000);
	assert_int_equal(errcode(m), 9);
	wr(m, ESR, 0);
	wr(m, PART_SEL, 3);
	wr(m, CPBM, 1);
	assert_int_equal(errcode(m), 9);
	wr(m, ESR, 0);
	/* Monitors: MON_SEL beyond NUM_MON (Monitor_Range, 5), a RIS without monitors
	 * (RIS_No_Monitor, 11), an undefined RIS (Undefined_RIS_MON_SEL, 10), a filter PARTID or
	 * PMG out of range (MSMONCFG_ID_RANGE, 3). */
	wr(m, MON_SEL, 16);
	rd(m, MBWU);
	assert_int_equal(errcode(m), 5);
	wr(m, ESR, 0);
	wr(m, MON_SEL, 1u << 24);
	rd(m, MBWU);
	assert_int_equal(errcode(m), 11);
	wr(m, ESR, 0);
	wr(m, MON_SEL, 3u << 24);
	wr(m, MBWU_CTL, CTL_EN);
	assert_int_equal(errcode(m), 10);
	wr(m, ESR, 0);
	wr(m, MON_SEL, 0);
	wr(m, MBWU_FLT, 64);
	assert_int_equal(errcode(m), 3);
	wr(m, ESR, 0);
	wr(m, MBWU_FLT, 4u << 16 | 1);
	assert_int_equal(errcode(m), 3);
	assert_int_equal(rd(m, ESR) >> 16 & 0xFF, 4);
	assert_int_equal(rd(m, MBWU_FLT), 0); /* the bad writes were ignored */
	sim_msc_free(m);
}

static void test_config_fields(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	struct sim_msc *m = msc_new(&c);
	/* MBW_MIN / MBW_MAX: 16-bit fractions of which the top BWA_WD (8) bits exist; HARDLIM
	 * is bit 31 of MBW_MAX; without HAS_PROP MBW_PROP is RAZ/WI. */
	wr(m, PART_SEL, 7);
	wr(m, MBW_MAX, 0xFFFFFFFF);
	assert_int_equal(rd(m, MBW_MAX), 0x8000FF00);
	wr(m, MBW_MIN, 0xFFFFFFFF);
	assert_int_equal(rd(m, MBW_MIN), 0xFF00);
	wr(m, MBW_PROP, 0xFFFFFFFF);
	assert_int_equal(rd(m, MBW_PROP), 0);
	/* Configuration is per PARTID. */
	wr(m, PART_SEL, 8);
	wr(m, MBW_MAX, 0x3F00);
	wr(m, PART_SEL, 7);
	assert_int_equal(rd(m, MBW_MAX), 0x8000FF00);
	/* CPBM: CPBM_WD (20) bits, the rest RAZ/WI. */
	wr(m, PART_SEL, 1u << 24 | 7);
	wr(m, CPBM, 0xFFFFFFFF);
	assert_int_equal(rd(m, CPBM), 0x000FFFFF);
	wr(m, CPBM + 4, 0xFFFFFFFF);
	assert_int_equal(rd(m, CPBM + 4), 0);
	wr(m, CPBM, 0x0F0);
	wr(m, PART_SEL, 1u << 24 | 9);
	assert_int_equal(rd(m, CPBM), 0x000FFFFF); /* reset: every portion */
	assert_int_equal(sim_mpam_errors(&(struct sim_mpam){.msc = m, .nmsc = 1}), 0);
	sim_msc_free(m);
}

/* Serves `n` streams of `bytes` each (half reads) for 1 ms; returns what each got. */
static void serve(struct sim_msc *m, const uint16_t *partid, const uint64_t *bytes,
		  uint64_t *got, unsigned n, uint64_t t0)
{
	struct sim_req req[8];
	for (unsigned i = 0; i < n; i++)
		req[i] = (struct sim_req){
			.partid = partid[i], .rd = bytes[i] / 2, .wr = bytes[i] - bytes[i] / 2};
	m->now = t0;
	sim_msc_serve(m, 0, req, n, t0, MS);
	for (unsigned i = 0; i < n; i++)
		got[i] = req[i].rd_done + req[i].wr_done;
}

static void set_max(struct sim_msc *m, unsigned partid, uint32_t v)
{
	wr(m, PART_SEL, partid);
	wr(m, MBW_MAX, v);
}

static void test_throttle(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris(); /* 10 GB/s: 10 MB per 1 ms step */
	struct sim_msc *m = msc_new(&c);
	uint16_t p[2] = {1, 2};
	uint64_t want[2] = {8000000, 8000000}, got[2];
	/* No limits: the capacity is shared in proportion to demand. */
	serve(m, p, want, got, 2, 0);
	assert_int_equal(got[0] + got[1], 10000000);
	assert_int_equal(got[0], 5000000);
	/* MBW_MAX.MAX = 63 of 8 bits: (63 + 1) / 256 = 25 % of the bandwidth, hard limit. */
	set_max(m, 1, 63u << 8 | 1u << 31);
	serve(m, p, want, got, 2, MS);
	assert_int_equal(got[0], 2500000);
	assert_int_equal(got[1], 7500000);
	/* Alone, a hard limit still holds; a soft one (HARDLIM = 0) may use idle bandwidth. */
	serve(m, p, want, got, 1, 2 * MS);
	assert_int_equal(got[0], 2500000);
	set_max(m, 1, 63u << 8);
	serve(m, p, want, got, 1, 3 * MS);
	assert_int_equal(got[0], 8000000);
	/* ... but not at the expense of PARTIDs within their limit. */
	serve(m, p, want, got, 2, 4 * MS);
	assert_int_equal(got[0], 2500000);
	assert_int_equal(got[1], 7500000);
	/* MBW_MIN: a PARTID below its minimum (50 %) is served first. */
	set_max(m, 1, 0xFF00);
	wr(m, PART_SEL, 1);
	wr(m, MBW_MIN, 128u << 8);
	uint64_t big[2] = {20000000, 20000000};
	serve(m, p, big, got, 2, 5 * MS);
	assert_true(got[0] >= 5000000);
	assert_true(got[0] > got[1]);
	assert_int_equal(got[0] + got[1], 10000000);
	/* A stream within capacity is served in full. */
	uint64_t small[2] = {1000000, 2000000};
	serve(m, p, small, got, 2, 6 * MS);
	assert_int_equal(got[0], 1000000);
	assert_int_equal(got[1], 2000000);
	sim_msc_free(m);
}

static void test_request_errors(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	struct sim_msc *m = msc_new(&c);
	struct sim_req req[2] = {{.partid = 64, .pmg = 1, .rd = 100},
				 {.partid = 5, .pmg = 4, .wr = 100}};
	sim_msc_serve(m, 0, &req[0], 1, 0, MS);
	assert_int_equal(errcode(m), 2); /* Req_PARTID_Range */
	assert_int_equal(rd(m, ESR) & 0xFFFF, 64);
	assert_int_equal(rd(m, ESR) >> 16 & 0xFF, 1);
	wr(m, ESR, 0);
	sim_msc_serve(m, 0, &req[1], 1, MS, MS);
	assert_int_equal(errcode(m), 4); /* Req_PMG_Range */
	assert_int_equal(rd(m, ESR) >> 16 & 0xFF, 4);
	assert_int_equal(m->errors[2], 1);
	assert_int_equal(m->errors[4], 1);
	sim_msc_free(m);
}

static void mon_cfg(struct sim_msc *m, unsigned mon, uint32_t flt, uint32_t ctl)
{
	wr(m, MON_SEL, mon);
	wr(m, MBWU_FLT, flt);
	wr(m, MBWU_CTL, ctl);
}

static uint64_t mon_long(struct sim_msc *m, unsigned mon)
{
	wr(m, MON_SEL, mon);
	uint32_t lo = rd(m, MBWU_L);
	return (uint64_t)rd(m, MBWU_L + 4) << 32 | lo;
}

static void test_monitors(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	c.ris[0].capacity = 0; /* no throttling */
	struct sim_msc *m = msc_new(&c);
	/* 0: PARTID 5; 1: PARTID 5 PMG 1; 2: PARTID 5 writes; 3: PARTID 5 reads; 4: every
	 * PARTID (no MATCH_*); 5: disabled. */
	mon_cfg(m, 0, 5, CTL_MATCH_PARTID | CTL_EN);
	mon_cfg(m, 1, 1u << 16 | 5, CTL_MATCH_PARTID | CTL_MATCH_PMG | CTL_EN);
	mon_cfg(m, 2, 1u << 30 | 5, CTL_MATCH_PARTID | CTL_EN);
	mon_cfg(m, 3, 2u << 30 | 5, CTL_MATCH_PARTID | CTL_EN);
	mon_cfg(m, 4, 0, CTL_EN);
	mon_cfg(m, 5, 5, CTL_MATCH_PARTID);
	/* The type reads as MBWU (0x42). */
	assert_int_equal(rd(m, MBWU_CTL) & 0xFF, 0x42);
	/* Just configured: NRDY for nrdy_ns (20 us). */
	wr(m, MON_SEL, 0);
	assert_true(rd(m, MBWU) & NRDY);
	assert_true(mon_long(m, 0) >> 63);
	struct sim_req req[3] = {
		{.partid = 5, .pmg = 0, .rd = 1000, .wr = 3000},
		{.partid = 5, .pmg = 1, .rd = 100, .wr = 300},
		{.partid = 6, .pmg = 1, .rd = 10, .wr = 30},
	};
	/* The first 20 us of a 100 us step: the monitors count 80 % of it. */
	sim_msc_serve(m, 0, req, 3, 0, 100000);
	m->now = 100000;
	wr(m, MON_SEL, 0);
	assert_false(rd(m, MBWU) & NRDY);
	assert_int_equal(rd(m, MBWU), 4400 * 8 / 10);
	for (unsigned i = 0; i < 6; i++) {
		wr(m, MON_SEL, i);
		wr(m, MBWU, 0);
	}
	sim_msc_serve(m, 0, req, 3, 100000, 100000);
	const uint64_t want[6] = {4400, 400, 3300, 1100, 4440, 0};
	for (unsigned i = 0; i < 6; i++) {
		wr(m, MON_SEL, i);
		assert_int_equal(rd(m, MBWU), want[i]);
		assert_int_equal(mon_long(m, i), want[i]);
	}
	/* Rewriting CTL with the same configuration is not a reconfiguration. */
	m->now = 200000;
	wr(m, MON_SEL, 0);
	wr(m, MBWU_CTL, CTL_MATCH_PARTID | CTL_EN);
	assert_false(rd(m, MBWU) & NRDY);
	wr(m, MBWU_FLT, 6);
	assert_true(rd(m, MBWU) & NRDY);
	/* Software cannot clear a hardware-managed NRDY. */
	wr(m, MBWU, 0);
	assert_true(rd(m, MBWU) & NRDY);
	m->now = 220000;
	assert_false(rd(m, MBWU) & NRDY);
	/* Stuck. */
	sim_msc_stick_nrdy(m, 0, 0, true);
	m->now = 1000000;
	assert_true(rd(m, MBWU) & NRDY);
	sim_msc_free(m);
}

static void test_counter_widths(void **state)
{
	(void)state;
	for (unsigned kind = 0; kind < 3; kind++) {
		struct sim_msc_config c = two_ris();
		c.ris[0].capacity = 0;
		c.ris[0].has_long = kind > 0;
		c.ris[0].lwd = kind == 2;
		c.nrdy_ns = 0;
		struct sim_msc *m = msc_new(&c);
		unsigned bits = kind == 0 ? 31 : kind == 1 ? 44 : 63;
		mon_cfg(m, 0, 5, CTL_MATCH_PARTID | CTL_EN);
		/* Start 1000 below the wrap of the 31-bit view and of the whole counter. */
		wr(m, MON_SEL, 0);
		wr(m, MBWU, 0x7FFFFFFF - 999);
		struct sim_req req = {.partid = 5, .rd = 3000};
		sim_msc_serve(m, 0, &req, 1, 0, MS);
		assert_int_equal(rd(m, MBWU), 2000); /* bits 30:0 wrapped */
		assert_true(rd(m, MBWU_CTL) & CTL_OFLOW_STATUS);
		if (kind == 0) {
			assert_int_equal(mon_long(m, 0), 0); /* no MSMON_MBWU_L: RAZ */
			sim_msc_free(m);
			continue;
		}
		assert_int_equal(mon_long(m, 0), (UINT64_C(1) << 31) + 2000);
		assert_false(rd(m, MBWU_CTL) & CTL_OFLOW_STATUS_L);
		/* The long counter wraps at 2^44 or 2^63. */
		uint64_t top = (UINT64_C(1) << bits) - 1000;
		wr(m, MBWU_L, (uint32_t)top);
		wr(m, MBWU_L + 4, (uint32_t)(top >> 32));
		assert_int_equal(mon_long(m, 0), top);
		wr(m, MBWU_CTL, CTL_MATCH_PARTID | CTL_EN); /* clear the status bits */
		sim_msc_serve(m, 0, &req, 1, MS, MS);
		assert_int_equal(mon_long(m, 0), 2000);
		assert_true(rd(m, MBWU_CTL) & CTL_OFLOW_STATUS_L);
		/* Bits above the width are RAZ/WI. */
		wr(m, MBWU_L + 4, 0xFFFFFFFF);
		assert_int_equal(mon_long(m, 0) >> bits, 0);
		sim_msc_free(m);
	}
}

static void test_scaling_and_capture(void **state)
{
	(void)state;
	struct sim_msc_config c = two_ris();
	c.ris[0].capacity = 0;
	c.ris[0].scale = 6;
	c.nrdy_ns = 0;
	struct sim_msc *m = msc_new(&c);
	assert_int_equal(rd(m, MBWUMON_IDR) >> 16 & 0x1F, 6); /* SCALE */
	/* SCLEN: the counter counts 2^SCALE-byte units; without it, bytes. */
	mon_cfg(m, 0, 5, CTL_MATCH_PARTID | CTL_SCLEN | CTL_EN);
	mon_cfg(m, 1, 5, CTL_MATCH_PARTID | CTL_EN | CTL_CAPT_LOCAL | CTL_CAPT_RESET);
	struct sim_req req = {.partid = 5, .rd = 1000};
	sim_msc_serve(m, 0, &req, 1, 0, MS);
	sim_msc_serve(m, 0, &req, 1, MS, MS);
	wr(m, MON_SEL, 0);
	assert_int_equal(rd(m, MBWU), 2000 / 64);
	/* MSMON_CAPT_EVNT.NOW: monitors whose CAPT_EVNT selects the local event copy their
	 * counter to the capture registers (and reset it with CAPT_RESET). */
	wr(m, CAPT_EVNT, 1);
	wr(m, MON_SEL, 1);
	assert_int_equal(rd(m, MBWU_CAPTURE), 2000);
	assert_int_equal(rd(m, MBWU_L_CAPTURE), 2000);
	assert_int_equal(rd(m, MBWU), 0);
	wr(m, MON_SEL, 0);
	assert_int_equal(rd(m, MBWU_CAPTURE), 0); /* monitor 0 does not capture */
	assert_int_equal(rd(m, MBWU), 2000 / 64);
	sim_msc_free(m);
}

static void test_memory_system(void **state)
{
	(void)state;
	/* Node 0: two MSCs (channels) with weights 1 and 3; node 1: one MSC at 1 GB/s. */
	static struct sim_msc msc[3];
	struct sim_msc_config c = two_ris();
	c.nris = 1;
	c.ris[0].capacity = 0;
	c.nrdy_ns = 0;
	assert_int_equal(sim_msc_init(&msc[0], &c), 0);
	c.base += 0x4000;
	c.ris[0].weight = 3;
	assert_int_equal(sim_msc_init(&msc[1], &c), 0);
	c.base += 0x4000;
	c.node = 1;
	c.ris[0].capacity = GB;
	assert_int_equal(sim_msc_init(&msc[2], &c), 0);
	struct sim_mpam mp;
	assert_int_equal(sim_mpam_init(&mp, msc, 3), 0);
	assert_int_equal(mp.nodes, 2);
	/* MMIO reaches the MSC whose frame holds the address. */
	sim_mpam_write32(&mp, 0x10004000 + MON_SEL, 0);
	sim_mpam_write32(&mp, 0x10004000 + MBWU_FLT, 9);
	sim_mpam_write32(&mp, 0x10004000 + MBWU_CTL, CTL_MATCH_PARTID | CTL_EN);
	assert_int_equal(sim_mpam_read32(&mp, 0x10004000 + MBWU_FLT), 9);
	assert_int_equal(sim_mpam_read32(&mp, 0x10000000 + MBWU_FLT), 0);
	assert_int_equal(sim_mpam_read32(&mp, 0x20000000), 0);
	assert_int_equal(mp.mmio_unmapped, 1);
	struct sim_tgen g[2];
	sim_tgen_init(&g[0], 9, 0, 4 * GB, 1);
	g[0].rate[1] = 2 * GB; /* above node 1's capacity */
	sim_tgen_init(&g[1], 10, 1, 0, 2);
	for (unsigned i = 0; i < 10; i++)
		sim_traffic_step(&mp, g, 2, MS);
	assert_int_equal(mp.now, 10 * MS);
	assert_int_equal(sim_mpam_truth(&mp, 0, 9), 40000000);
	assert_int_equal(g[0].delivered[0], 40000000);
	assert_int_equal(sim_mpam_truth(&mp, 1, 9), 10000000); /* throttled to 1 GB/s */
	assert_int_equal(g[0].demanded[1], 20000000);
	/* The monitor on the second channel saw its 3/4. */
	assert_int_equal(sim_mpam_read32(&mp, 0x10004000 + MBWU), 30000000);
	assert_int_equal(sim_mpam_errors(&mp), 0);
	sim_mpam_free(&mp);
	for (unsigned i = 0; i < 3; i++)
		sim_msc_free(&msc[i]);
}

/* ---- CPU side ---- */

#define IDR_CPU(partid_max, pmg_max, hcr, vpmr)                                                \
	((uint64_t)(partid_max) | (uint64_t)(pmg_max) << 32 | (uint64_t)(hcr) << 17 |          \
	 (uint64_t)(vpmr) << 18)
#define MPAMN(pi, pd, gi, gd)                                                                  \
	((uint64_t)(pi) | (uint64_t)(pd) << 16 | (uint64_t)(gi) << 32 | (uint64_t)(gd) << 40)

static void expect_label(const struct sim_mpam_cpu *c, unsigned el, bool ifetch,
			 unsigned partid, unsigned pmg, bool err)
{
	struct sim_mpam_label l = sim_mpam_cpu_label(c, el, ifetch);
	assert_int_equal(l.partid, partid);
	assert_int_equal(l.pmg, pmg);
	assert_int_equal(l.err, err);
}

static void test_cpu_labels(void **state)
{
	(void)state;
	struct sim_mpam_cpu c;
	/* Without virtualisation: each EL uses its own register, _I for fetches, _D for data. */
	sim_mpam_cpu_init(&c, IDR_CPU(63, 3, 0, 0));
	c.mpam0 = MPAMN(1, 2, 1, 2);
	c.mpam1 = MPAMN(3, 4, 3, 0);
	c.mpam2 = MPAMN(5, 6, 0, 1);
	expect_label(&c, 0, true, 1, 1, false);
	expect_label(&c, 0, false, 2, 2, false);
	expect_label(&c, 1, true, 3, 3, false);
	expect_label(&c, 1, false, 4, 0, false);
	expect_label(&c, 2, false, 6, 1, false);
	/* GenPARTID: above PARTID_MAX gives the default PARTID and PMG; GenPMG: a PMG above
	 * PMG_MAX gives the default PMG. */
	c.mpam1 = MPAMN(64, 7, 2, 9);
	expect_label(&c, 1, true, 0, 0, true);
	expect_label(&c, 1, false, 7, 0, false);
	/* MPAM disabled at the highest EL: everything is the default. */
	c.mpamen = false;
	expect_label(&c, 0, false, 0, 0, false);
	c.mpamen = true;

	/* Virtual PARTIDs: VPMR_MAX = 1, eight entries. */
	sim_mpam_cpu_init(&c, IDR_CPU(63, 3, 1, 1));
	c.mpamhcr = PV_MPAMHCR_EL2_EL1_VPMEN | PV_MPAMHCR_EL2_EL0_VPMEN;
	c.vpm[0] = 10 | 11ull << 16 | 12ull << 32 | 13ull << 48;
	c.vpm[1] = 14 | 15ull << 16 | 99ull << 32 | 17ull << 48;
	c.vpmv = 0x3F; /* entries 0..5 valid */
	c.mpam1 = MPAMN(1, 5, 0, 0);
	expect_label(&c, 1, true, 11, 0, false);
	expect_label(&c, 1, false, 15, 0, false);
	c.mpam1 = MPAMN(7, 6, 0, 0); /* invalid entries: entry 0 */
	expect_label(&c, 1, true, 10, 0, false);
	expect_label(&c, 1, false, 10, 0, false);
	c.vpmv = 0xFF;
	expect_label(&c, 1, false, 0, 0, true); /* entry 6 maps 99 > PARTID_MAX: default */
	c.mpam1 = MPAMN(9, 0, 0, 0);            /* beyond the table: reduced modulo its size */
	expect_label(&c, 1, true, 11, 0, false);
	c.mpam1 = MPAMN(63, 0, 0, 0);
	expect_label(&c, 1, true, 17, 0, false);
	c.vpmv = 0x3E; /* entry 0 invalid too: the default, with an error */
	c.mpam1 = MPAMN(6, 0, 2, 0);
	expect_label(&c, 1, true, 0, 0, true);
	/* A virtual PARTID above PARTID_MAX is the default before any mapping. */
	c.vpmv = 0xFF;
	c.mpam1 = MPAMN(64, 0, 0, 0);
	expect_label(&c, 1, true, 0, 0, true);
	/* EL0: mapped through EL0_VPMEN, except for the host's EL0 (E2H = TGE = 1). */
	c.mpam0 = MPAMN(2, 3, 0, 0);
	expect_label(&c, 0, true, 12, 0, false);
	c.hcr = PV_HCR_EL2_E2H | PV_HCR_EL2_TGE;
	expect_label(&c, 0, true, 2, 0, false);
	c.hcr = 0;
	c.mpamhcr = PV_MPAMHCR_EL2_EL1_VPMEN;
	expect_label(&c, 0, true, 2, 0, false);
	/* GSTAPP_PLK: guest EL0 uses EL1's labels. */
	c.mpamhcr |= PV_MPAMHCR_EL2_GSTAPP_PLK;
	c.mpam1 = MPAMN(3, 0, 1, 0);
	expect_label(&c, 0, true, 13, 1, false);
	c.hcr = PV_HCR_EL2_TGE;
	expect_label(&c, 0, true, 2, 0, false);
	/* EL2 is never virtual. */
	c.mpam2 = MPAMN(3, 0, 0, 0);
	expect_label(&c, 2, true, 3, 0, false);
}

static void test_cpu_registers(void **state)
{
	(void)state;
	struct sim_mpam_cpu c;
	uint64_t v;
	sim_mpam_cpu_init(&c, IDR_CPU(63, 3, 0, 0) | PV_MPAMIDR_HAS_TIDR);
	/* Without HAS_HCR, MPAMHCR_EL2 and the VPM registers do not exist. */
	assert_int_equal(sim_mpam_cpu_read(&c, 2, PV_MPAMHCR_EL2, &v), SIM_ACC_UNDEF);
	assert_int_equal(sim_mpam_cpu_write(&c, 2, PV_MPAMVPM_EL2(0), 1), SIM_ACC_UNDEF);
	assert_int_equal(sim_mpam_cpu_read(&c, 2, PV_MPAMVPMV_EL2, &v), SIM_ACC_UNDEF);
	/* EL2 registers UNDEF below EL2; every MPAM register UNDEFs at EL0; MPAMIDR_EL1 is
	 * read-only. */
	assert_int_equal(sim_mpam_cpu_read(&c, 1, PV_MPAM2_EL2, &v), SIM_ACC_UNDEF);
	assert_int_equal(sim_mpam_cpu_read(&c, 0, PV_MPAM0_EL1, &v), SIM_ACC_UNDEF);
	assert_int_equal(sim_mpam_cpu_write(&c, 1, PV_MPAMIDR_EL1, 0), SIM_ACC_UNDEF);
	assert_int_equal(sim_mpam_cpu_read(&c, 1, PV_MPAMIDR_EL1, &v), SIM_ACC_OK);
	assert_int_equal(v, IDR_CPU(63, 3, 0, 0) | PV_MPAMIDR_HAS_TIDR);
	/* MPAM1_EL1: label fields stored, MPAMEN reads 1 while MPAM is enabled. */
	assert_int_equal(sim_mpam_cpu_write(&c, 1, PV_MPAM1_EL1, ~UINT64_C(0)), SIM_ACC_OK);
	assert_int_equal(sim_mpam_cpu_read(&c, 1, PV_MPAM1_EL1, &v), SIM_ACC_OK);
	assert_int_equal(v, PV_GENMASK(47, 0) | PV_BIT(63));
	/* Traps of EL1 accesses: TRAPMPAM1EL1, TRAPMPAM0EL1, TIDR. */
	assert_false(sim_mpam_cpu_traps(&c, PV_MPAM1_EL1));
	sim_mpam_cpu_write(&c, 2, PV_MPAM2_EL2, PV_MPAM2_EL2_TRAPMPAM1EL1 | PV_MPAM2_EL2_TIDR);
	assert_true(sim_mpam_cpu_traps(&c, PV_MPAM1_EL1));
	assert_false(sim_mpam_cpu_traps(&c, PV_MPAM0_EL1));
	assert_true(sim_mpam_cpu_traps(&c, PV_MPAMIDR_EL1));
	/* With HAS_HCR and VPMR_MAX = 2: MPAMVPM0..2, 12 valid bits. */
	sim_mpam_cpu_init(&c, IDR_CPU(63, 3, 1, 2));
	assert_int_equal(sim_mpam_cpu_write(&c, 2, PV_MPAMVPM_EL2(2), 5), SIM_ACC_OK);
	assert_int_equal(sim_mpam_cpu_write(&c, 2, PV_MPAMVPM_EL2(3), 5), SIM_ACC_UNDEF);
	sim_mpam_cpu_write(&c, 2, PV_MPAMVPMV_EL2, 0xFFFFFFFF);
	sim_mpam_cpu_read(&c, 2, PV_MPAMVPMV_EL2, &v);
	assert_int_equal(v, 0xFFF);
	sim_mpam_cpu_write(&c, 2, PV_MPAMHCR_EL2, ~UINT64_C(0));
	sim_mpam_cpu_read(&c, 2, PV_MPAMHCR_EL2, &v);
	assert_int_equal(v, PV_BIT(0) | PV_BIT(1) | PV_BIT(8) | PV_BIT(31));
	assert_true(sim_mpam_cpu_traps(&c, PV_MPAMIDR_EL1));
	/* Not an MPAM register. */
	assert_int_equal(sim_mpam_cpu_read(&c, 1, PV_PMCR_EL0, &v), SIM_ACC_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_registers),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_fields),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_request_errors),
		cmocka_unit_test(test_monitors),
		cmocka_unit_test(test_counter_widths),
		cmocka_unit_test(test_scaling_and_capture),
		cmocka_unit_test(test_memory_system),
		cmocka_unit_test(test_cpu_labels),
		cmocka_unit_test(test_cpu_registers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
