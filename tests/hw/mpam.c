/* SPDX-License-Identifier: MIT */
/*
 * The MPAM model's CPU side alone (-cpu max,pv-mpam=on: FEAT_MPAMv1p1), bare metal at EL2, EL1
 * and EL0, against the Arm ARM: the ID fields (D21.1.8, D24.2.93, D24.2.94, D24.12.13), the
 * reset values without EL3, each register's RES0 bits and read/write fields, the MPAM enable
 * control and its read-only copy in MPAM1_EL1 (D21.1.6), the HCR_EL2.E2H aliases (D21.7.6),
 * the traps to EL2 with EC 0x18 and the ISS (D21.7.3, D21.7.2, the accessibility pseudocode of
 * D24.12), UNDEFINED at EL0 and for the EL2 registers at EL1, FEAT_NV's traps and FEAT_NV2's
 * redirection to VNCR_EL2 (D21.7.7), and the labels GenMPAM() gives a data access (J1.3.3,
 * D21.3, D21.4, D21.9): disabled, at each EL, MPAMHCR_EL2.GSTAPP_PLK, virtual PARTIDs through
 * MPAMVPM<n>_EL2 with and without a valid mapping, out-of-range PARTIDs and PMGs, EL0 in the
 * host. The labels are read through the model's own test hook, IMPLEMENTATION DEFINED
 * registers no hardware has (docs/qemu.md, "The MPAM model (CPU side)"): S3_3_C15_C15_0 the
 * label of a data access at the current EL, S3_4_C15_C15_<n> at ELn (EL2 only).
 * Where the Arm ARM leaves a choice CONSTRAINED UNPREDICTABLE, the checks take the
 * pseudocode's (the Default PARTID for an out-of-range PARTID, a virtual PARTID above the
 * mapping registers reduced modulo their count), or either of the choices (the PMG sent with
 * a PARTID error, D21.9.4).
 * Without the model (stock QEMU) ID_AA64PFR0_EL1.MPAM is 0 and the registers are UNDEFINED:
 * mpam_id_agrees passes there too, every other check fails with "no MPAM".
 */
#include "hw.h"

#define MPAMIDR S3_0_C10_C4_4
#define MPAM0 S3_0_C10_C5_1
#define MPAM1 S3_0_C10_C5_0
#define MPAMSM S3_0_C10_C5_3
#define MPAM1_EL12 S3_5_C10_C5_0
#define MPAM2 S3_4_C10_C5_0
#define MPAMHCR S3_4_C10_C4_0
#define MPAMVPMV S3_4_C10_C4_1
#define MPAMVPM0 S3_4_C10_C6_0
#define MPAMVPM1 S3_4_C10_C6_1
#define MPAMVPM2 S3_4_C10_C6_2
#define MPAMVPM3 S3_4_C10_C6_3
#define MPAMVPM4 S3_4_C10_C6_4
#define MPAMVPM5 S3_4_C10_C6_5
#define MPAMVPM6 S3_4_C10_C6_6
#define MPAMVPM7 S3_4_C10_C6_7
#define VNCR_EL2 S3_4_C2_C2_0
/* The model's test hook */
#define LABEL S3_3_C15_C15_0
#define LABEL_AT0 S3_4_C15_C15_0
#define LABEL_AT1 S3_4_C15_C15_1
#define LABEL_AT2 S3_4_C15_C15_2

/* The model's MPAMIDR_EL1: HAS_TIDR, PMG_MAX 1, VPMR_MAX 7, HAS_HCR, PARTID_MAX 63 */
#define IDR_VALUE ((1UL << 58) | (1UL << 32) | (7UL << 18) | (1UL << 17) | 63)

#define IDS 0x0000ffffffffffffUL
#define MPAMEN (1UL << 63)
#define TIDR (1UL << 58)
#define ENMPAMSM (1UL << 50)
#define TRAP0 (1UL << 49)
#define TRAP1 (1UL << 48)
#define TRAP_MPAMIDR (1UL << 31)
#define GSTAPP_PLK (1UL << 8)
#define EL1_VPMEN (1UL << 1)
#define EL0_VPMEN (1UL << 0)

#define HCR_RW (1UL << 31)
#define HCR_TGE (1UL << 27)
#define HCR_E2H (1UL << 34)
#define HCR_NV (1UL << 42)
#define HCR_NV1 (1UL << 43)
#define HCR_NV2 (1UL << 45)

/* MPAMn_ELx from its data and instruction identifiers */
#define IDS_OF(partid_d, pmg_d, partid_i, pmg_i)                                               \
	(((uint64_t)(pmg_d) << 40) | ((uint64_t)(pmg_i) << 32) |                               \
	 ((uint64_t)(partid_d) << 16) | (uint64_t)(partid_i))
/* The hook's value: PARTID [15:0], PMG [23:16], MPAM_NS [24] (Non-secure: always here) */
#define LBL(partid, pmg) ((uint64_t)(partid) | ((uint64_t)(pmg) << 16) | (1UL << 24))

static bool mpam, sme;

static void absent(const char *name)
{
	hw_check(false, name, "no MPAM (ID_AA64PFR0_EL1.MPAM is 0)");
}

static void check_ids(void)
{
	uint64_t pfr0 = READ_SYSREG(id_aa64pfr0_el1), pfr1 = READ_SYSREG(id_aa64pfr1_el1);
	bool undef = HW_EL2_UNDEF((void)READ_SYSREG(MPAMIDR));

	mpam = ((pfr0 >> 40) & 0xf) != 0;
	sme = ((pfr1 >> 24) & 0xf) != 0;
	hw_check(mpam != undef, "mpam_id_agrees", "ID_AA64PFR0_EL1.MPAM %llu, MPAMIDR_EL1 %s",
		 (unsigned long long)((pfr0 >> 40) & 0xf), undef ? "UNDEFINED" : "accessible");
	if (!mpam) {
		return;
	}
	hw_check(((pfr0 >> 40) & 0xf) == 1 && ((pfr1 >> 16) & 0xf) == 1, "mpam_id_v1p1",
		 "MPAM %llu, MPAM_frac %llu: not v1.1",
		 (unsigned long long)((pfr0 >> 40) & 0xf),
		 (unsigned long long)((pfr1 >> 16) & 0xf));
	HW_CHECK_EQ("mpam_mpamidr", READ_SYSREG(MPAMIDR), IDR_VALUE);
	hw_check(HW_EL2_UNDEF(WRITE_SYSREG(MPAMIDR, 0)), "mpam_mpamidr_write_undef",
		 "MSR MPAMIDR_EL1 did not UNDEF");
}

/* Before anything writes them: the Warm reset without EL3 (D24.12.2, .3, .12). */
static void check_reset(void)
{
	HW_CHECK_EQ("mpam_reset_mpam2", READ_SYSREG(MPAM2) & (MPAMEN | TRAP0 | TRAP1),
		    TRAP0 | TRAP1);
	HW_CHECK_EQ("mpam_reset_mpamhcr", READ_SYSREG(MPAMHCR) & TRAP_MPAMIDR, TRAP_MPAMIDR);
	HW_CHECK_EQ("mpam_reset_mpam1_mpamen", READ_SYSREG(MPAM1) & MPAMEN, 0);
}

static void check_fields(void)
{
	uint64_t mpam2_rw = MPAMEN | TIDR | (sme ? ENMPAMSM : 0) | TRAP0 | TRAP1 | IDS, got;
	bool vpm_ok = true;

	WRITE_SYSREG(MPAM0, ~0UL);
	HW_CHECK_EQ("mpam_mpam0_res0", READ_SYSREG(MPAM0), IDS);
	WRITE_SYSREG(MPAM1, ~0UL);
	HW_CHECK_EQ("mpam_mpam1_res0", READ_SYSREG(MPAM1), IDS);
	WRITE_SYSREG(MPAM2, ~0UL);
	HW_CHECK_EQ("mpam_mpam2_res0", READ_SYSREG(MPAM2), mpam2_rw);
	WRITE_SYSREG(MPAMHCR, ~0UL);
	HW_CHECK_EQ("mpam_mpamhcr_res0", READ_SYSREG(MPAMHCR),
		    TRAP_MPAMIDR | GSTAPP_PLK | EL1_VPMEN | EL0_VPMEN);
	WRITE_SYSREG(MPAMVPMV, ~0UL);
	HW_CHECK_EQ("mpam_mpamvpmv_res0", READ_SYSREG(MPAMVPMV), 0xffffffffUL);
	/* every PhyPARTID<n> field whole */
	WRITE_SYSREG(MPAMVPM0, 0x8001800280038004UL);
	WRITE_SYSREG(MPAMVPM1, 0x1111222233334444UL);
	WRITE_SYSREG(MPAMVPM2, 0x2111222233334444UL);
	WRITE_SYSREG(MPAMVPM3, 0x3111222233334444UL);
	WRITE_SYSREG(MPAMVPM4, 0x4111222233334444UL);
	WRITE_SYSREG(MPAMVPM5, 0x5111222233334444UL);
	WRITE_SYSREG(MPAMVPM6, 0x6111222233334444UL);
	WRITE_SYSREG(MPAMVPM7, 0xffffffffffffffffUL);
	vpm_ok = READ_SYSREG(MPAMVPM0) == 0x8001800280038004UL &&
		 READ_SYSREG(MPAMVPM1) == 0x1111222233334444UL &&
		 READ_SYSREG(MPAMVPM2) == 0x2111222233334444UL &&
		 READ_SYSREG(MPAMVPM3) == 0x3111222233334444UL &&
		 READ_SYSREG(MPAMVPM4) == 0x4111222233334444UL &&
		 READ_SYSREG(MPAMVPM5) == 0x5111222233334444UL &&
		 READ_SYSREG(MPAMVPM6) == 0x6111222233334444UL &&
		 READ_SYSREG(MPAMVPM7) == 0xffffffffffffffffUL;
	hw_check(vpm_ok, "mpam_mpamvpm_rw", "an MPAMVPM<n>_EL2 did not keep its value");
	if (sme) {
		WRITE_SYSREG(MPAMSM, ~0UL);
		HW_CHECK_EQ("mpam_mpamsm_res0", READ_SYSREG(MPAMSM), 0x0000ff00ffff0000UL);
	} else {
		hw_check(HW_EL2_UNDEF((void)READ_SYSREG(MPAMSM)), "mpam_mpamsm_res0",
			 "MPAMSM_EL1 accessible without FEAT_SME");
	}

	/* MPAMEN: read/write in MPAM2_EL2 (EL2 is the highest EL), a read-only copy in MPAM1 */
	WRITE_SYSREG(MPAM2, MPAMEN);
	WRITE_SYSREG(MPAM1, 0);
	got = READ_SYSREG(MPAM1);
	hw_check(got == MPAMEN && READ_SYSREG(MPAM2) == MPAMEN, "mpam_mpamen_rao",
		 "MPAM1_EL1 %#llx with MPAM2_EL2.MPAMEN set", (unsigned long long)got);
	WRITE_SYSREG(MPAM2, 0);
	WRITE_SYSREG(MPAM1, MPAMEN);
	got = READ_SYSREG(MPAM1);
	hw_check(got == 0 && READ_SYSREG(MPAM2) == 0, "mpam_mpamen_raz",
		 "MPAM1_EL1 %#llx with MPAM2_EL2.MPAMEN clear", (unsigned long long)got);
}

/* ---- HCR_EL2.E2H (D21.7.6) ---------------------------------------------------------------- */

static void set_hcr(uint64_t v)
{
	WRITE_SYSREG(hcr_el2, v);
	ISB();
}

static void check_e2h(void)
{
	uint64_t hcr = READ_SYSREG(hcr_el2), a, b, c;

	hw_check(HW_EL2_UNDEF((void)READ_SYSREG(MPAM1_EL12)), "mpam_el12_undef_no_e2h",
		 "MPAM1_EL12 accessible at EL2 with HCR_EL2.E2H 0");
	WRITE_SYSREG(MPAM2, 0);
	WRITE_SYSREG(MPAM1, 0);
	set_hcr(hcr | HCR_E2H);
	WRITE_SYSREG(MPAM1, MPAMEN | IDS_OF(21, 1, 22, 0)); /* MPAM2_EL2 */
	WRITE_SYSREG(MPAM1_EL12, IDS_OF(23, 0, 24, 1));     /* MPAM1_EL1 */
	a = READ_SYSREG(MPAM1);
	b = READ_SYSREG(MPAM1_EL12);
	set_hcr(hcr);
	c = READ_SYSREG(MPAM1);
	hw_check(a == (MPAMEN | IDS_OF(21, 1, 22, 0)) && READ_SYSREG(MPAM2) == a,
		 "mpam_e2h_mpam1_is_mpam2",
		 "MPAM1_EL1 at EL2 with E2H read %#llx, MPAM2_EL2 %#llx", (unsigned long long)a,
		 (unsigned long long)READ_SYSREG(MPAM2));
	hw_check(b == (MPAMEN | IDS_OF(23, 0, 24, 1)) && c == b, "mpam_e2h_mpam1_el12",
		 "MPAM1_EL12 read %#llx, MPAM1_EL1 %#llx after", (unsigned long long)b,
		 (unsigned long long)c);
	WRITE_SYSREG(MPAM2, 0);
}

/* ---- Below EL2: traps and UNDEFINED ------------------------------------------------------ */

static uint64_t outcome, value;

#define LOWER_READ(fn, reg)                                                                    \
	static uint64_t fn(uint64_t arg)                                                       \
	{                                                                                      \
		(void)arg;                                                                     \
		outcome = HW_OUTCOME(value = READ_SYSREG(reg));                                \
		return 0;                                                                      \
	}
#define LOWER_WRITE(fn, reg)                                                                   \
	static uint64_t fn(uint64_t arg)                                                       \
	{                                                                                      \
		outcome = HW_OUTCOME(WRITE_SYSREG(reg, arg));                                  \
		return 0;                                                                      \
	}

LOWER_READ(read_mpam0, MPAM0)
LOWER_READ(read_mpam1, MPAM1)
LOWER_READ(read_idr, MPAMIDR)
LOWER_READ(read_sm, MPAMSM)
LOWER_READ(read_mpam2, MPAM2)
LOWER_READ(read_hcr, MPAMHCR)
LOWER_READ(read_vpmv, MPAMVPMV)
LOWER_READ(read_vpm0, MPAMVPM0)
LOWER_READ(read_vpm7, MPAMVPM7)
LOWER_READ(read_el12, MPAM1_EL12)
LOWER_WRITE(write_mpam0, MPAM0)
LOWER_WRITE(write_mpam1, MPAM1)
LOWER_WRITE(write_hcr, MPAMHCR)

/* One access at EL: where it went, and the value it read. */
static uint64_t at(uint64_t (*fn)(uint64_t), uint64_t arg, unsigned el)
{
	hw_run_lower(fn, arg, el);
	return outcome;
}

static bool trapped(uint64_t got, uint64_t iss)
{
	return hw_outcome_is(got, HW_AT_EL2, HW_EC_SYS64, iss);
}

static bool undef_el1(uint64_t got)
{
	return hw_outcome_is(got, HW_AT_EL1, HW_EC_UNKNOWN, 0);
}

#define ISS_MPAM0(rd) HW_ISS_SYS64(3, 0, 10, 5, 1, rd)
#define ISS_MPAM1(rd) HW_ISS_SYS64(3, 0, 10, 5, 0, rd)
#define ISS_IDR HW_ISS_SYS64(3, 0, 10, 4, 4, 1)
#define ISS_SM HW_ISS_SYS64(3, 0, 10, 5, 3, 1)
#define ISS_MPAM2 HW_ISS_SYS64(3, 4, 10, 5, 0, 1)
#define ISS_HCR HW_ISS_SYS64(3, 4, 10, 4, 0, 1)
#define ISS_EL12 HW_ISS_SYS64(3, 5, 10, 5, 0, 1)

static void check_traps(void)
{
	uint64_t got;
	bool ok;

	hw_el2_take_lower_traps = true;
	WRITE_SYSREG(MPAM0, IDS_OF(1, 0, 2, 0));
	WRITE_SYSREG(MPAM1, IDS_OF(3, 0, 4, 0));
	WRITE_SYSREG(MPAM2, TRAP0 | TRAP1);
	WRITE_SYSREG(MPAMHCR, TRAP_MPAMIDR);
	ISB();
	got = at(read_mpam0, 0, 1);
	hw_check(trapped(got, ISS_MPAM0(1)), "mpam_trap_mpam0_read",
		 "EL1's read of MPAM0_EL1 with TRAPMPAM0EL1: %#llx", (unsigned long long)got);
	got = at(write_mpam0, IDS_OF(9, 1, 9, 1), 1);
	hw_check(trapped(got, ISS_MPAM0(0)) && READ_SYSREG(MPAM0) == IDS_OF(1, 0, 2, 0),
		 "mpam_trap_mpam0_write", "EL1's write of MPAM0_EL1 with TRAPMPAM0EL1: %#llx",
		 (unsigned long long)got);
	got = at(read_mpam1, 0, 1);
	hw_check(trapped(got, ISS_MPAM1(1)), "mpam_trap_mpam1_read",
		 "EL1's read of MPAM1_EL1 with TRAPMPAM1EL1: %#llx", (unsigned long long)got);
	got = at(write_mpam1, IDS_OF(9, 1, 9, 1), 1);
	hw_check(trapped(got, ISS_MPAM1(0)) && READ_SYSREG(MPAM1) == IDS_OF(3, 0, 4, 0),
		 "mpam_trap_mpam1_write", "EL1's write of MPAM1_EL1 with TRAPMPAM1EL1: %#llx",
		 (unsigned long long)got);
	got = at(read_idr, 0, 1);
	hw_check(trapped(got, ISS_IDR), "mpam_trap_mpamidr_hcr",
		 "EL1's read of MPAMIDR_EL1 with TRAP_MPAMIDR_EL1: %#llx",
		 (unsigned long long)got);
	/* EL2's own accesses: no trap */
	ok = !HW_EL2_UNDEF((void)READ_SYSREG(MPAM0)) &&
	     !HW_EL2_UNDEF((void)READ_SYSREG(MPAMIDR)) &&
	     !HW_EL2_UNDEF(WRITE_SYSREG(MPAM1, IDS_OF(3, 0, 4, 0)));
	hw_check(ok, "mpam_trap_not_el2", "a trap control faulted EL2's own access");
	/* EL0: UNDEFINED before any trap */
	ok = undef_el1(at(read_mpam0, 0, 0)) && undef_el1(at(read_mpam1, 0, 0)) &&
	     undef_el1(at(read_idr, 0, 0)) && undef_el1(at(read_sm, 0, 0)) &&
	     undef_el1(at(write_mpam0, 0, 0));
	hw_check(ok, "mpam_el0_undef", "an EL0 access was not UNDEFINED: %#llx",
		 (unsigned long long)outcome);

	WRITE_SYSREG(MPAMHCR, 0);
	WRITE_SYSREG(MPAM2, TIDR);
	ISB();
	got = at(read_idr, 0, 1);
	hw_check(trapped(got, ISS_IDR), "mpam_trap_mpamidr_tidr",
		 "EL1's read of MPAMIDR_EL1 with MPAM2_EL2.TIDR: %#llx",
		 (unsigned long long)got);
	WRITE_SYSREG(MPAM2, 0);
	ISB();
	got = at(read_idr, 0, 1);
	hw_check(got == HW_DONE && value == IDR_VALUE, "mpam_mpamidr_el1",
		 "EL1's read of MPAMIDR_EL1 untrapped: %#llx, value %#llx",
		 (unsigned long long)got, (unsigned long long)value);
	ok = at(write_mpam0, IDS_OF(5, 1, 6, 0), 1) == HW_DONE &&
	     at(write_mpam1, IDS_OF(7, 0, 8, 1), 1) == HW_DONE;
	ok = ok && at(read_mpam0, 0, 1) == HW_DONE && value == IDS_OF(5, 1, 6, 0);
	ok = ok && at(read_mpam1, 0, 1) == HW_DONE && value == IDS_OF(7, 0, 8, 1);
	hw_check(ok && READ_SYSREG(MPAM0) == IDS_OF(5, 1, 6, 0) &&
			 READ_SYSREG(MPAM1) == IDS_OF(7, 0, 8, 1),
		 "mpam_el1_rw", "EL1's untrapped accesses: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	/* MPAM1_EL1 at EL1 shows the enable control */
	WRITE_SYSREG(MPAM2, MPAMEN);
	ISB();
	got = at(read_mpam1, 0, 1);
	hw_check(got == HW_DONE && value == (MPAMEN | IDS_OF(7, 0, 8, 1)),
		 "mpam_el1_mpamen_copy", "EL1's read of MPAM1_EL1: %#llx, value %#llx",
		 (unsigned long long)got, (unsigned long long)value);
	WRITE_SYSREG(MPAM2, 0);
	ISB();

	/* MPAMSM_EL1: MPAM2_EL2.EnMPAMSM 0 traps EL1 */
	if (sme) {
		got = at(read_sm, 0, 1);
		ok = trapped(got, ISS_SM);
		WRITE_SYSREG(MPAM2, ENMPAMSM);
		ISB();
		ok = ok && at(read_sm, 0, 1) == HW_DONE;
		WRITE_SYSREG(MPAM2, 0);
	} else {
		got = at(read_sm, 0, 1);
		ok = undef_el1(got);
	}
	hw_check(ok, "mpam_trap_mpamsm", "EL1's MPAMSM_EL1 reads: %#llx, then %#llx",
		 (unsigned long long)got, (unsigned long long)outcome);

	/* The EL2 registers, and MPAM1_EL12, are UNDEFINED at EL1 without FEAT_NV's HCR_EL2.NV */
	ok = undef_el1(at(read_mpam2, 0, 1)) && undef_el1(at(read_hcr, 0, 1)) &&
	     undef_el1(at(read_vpmv, 0, 1)) && undef_el1(at(read_vpm0, 0, 1)) &&
	     undef_el1(at(read_el12, 0, 1));
	hw_check(ok, "mpam_el1_el2_undef", "an EL2 register at EL1 was not UNDEFINED: %#llx",
		 (unsigned long long)outcome);
	hw_el2_take_lower_traps = false;
}

/* ---- FEAT_NV and FEAT_NV2 (D21.7.7) -------------------------------------------------------- */

static void check_nv(void)
{
	uint64_t hcr = READ_SYSREG(hcr_el2), got, *page = (uint64_t *)hw_buffer;
	unsigned i;
	bool ok;

	hw_el2_take_lower_traps = true;
	WRITE_SYSREG(MPAMHCR, 0);
	set_hcr(hcr | HCR_NV);
	got = at(read_mpam2, 0, 1);
	hw_check(trapped(got, ISS_MPAM2), "mpam_nv_mpam2_trap",
		 "EL1's read of MPAM2_EL2 with HCR_EL2.NV: %#llx", (unsigned long long)got);
	got = at(read_hcr, 0, 1);
	hw_check(trapped(got, ISS_HCR), "mpam_nv_mpamhcr_trap",
		 "EL1's read of MPAMHCR_EL2 with HCR_EL2.NV: %#llx", (unsigned long long)got);
	got = at(read_el12, 0, 1);
	hw_check(trapped(got, ISS_EL12), "mpam_nv_el12_trap",
		 "EL1's read of MPAM1_EL12 with HCR_EL2.NV: %#llx", (unsigned long long)got);

	/* NV2: to memory at VNCR_EL2 + the register's offset */
	for (i = 0; i < 512; i++) {
		page[i] = 0xa5a5000000000000UL | (i * 8);
	}
	__asm__ volatile("dsb sy" : : : "memory");
	WRITE_SYSREG(VNCR_EL2, (uint64_t)(uintptr_t)page);
	set_hcr(hcr | HCR_NV | HCR_NV2);
	ok = at(read_hcr, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x930);
	hw_check(ok, "mpam_nv2_mpamhcr", "EL1's read of MPAMHCR_EL2: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	ok = at(read_vpmv, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x938);
	hw_check(ok, "mpam_nv2_mpamvpmv", "EL1's read of MPAMVPMV_EL2: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	ok = at(read_vpm0, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x940);
	ok = ok && at(read_vpm7, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x978);
	hw_check(ok, "mpam_nv2_mpamvpm", "EL1's read of MPAMVPM0/7_EL2: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	ok = at(read_el12, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x900);
	hw_check(ok, "mpam_nv2_el12", "EL1's read of MPAM1_EL12 with NV1 0: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	got = at(write_hcr, EL1_VPMEN, 1);
	__asm__ volatile("dsb sy" : : : "memory");
	hw_check(got == HW_DONE && page[0x930 / 8] == EL1_VPMEN && READ_SYSREG(MPAMHCR) == 0,
		 "mpam_nv2_write",
		 "EL1's write of MPAMHCR_EL2: %#llx, memory %#llx, register %#llx",
		 (unsigned long long)got, (unsigned long long)page[0x930 / 8],
		 (unsigned long long)READ_SYSREG(MPAMHCR));
	got = at(read_mpam2, 0, 1);
	hw_check(trapped(got, ISS_MPAM2), "mpam_nv2_mpam2_trap",
		 "EL1's read of MPAM2_EL2 with NV2 (no offset): %#llx",
		 (unsigned long long)got);
	/* MPAM1_EL1 with NV1: to memory, but TRAPMPAM1EL1 first */
	set_hcr(hcr | HCR_NV | HCR_NV1 | HCR_NV2);
	WRITE_SYSREG(MPAM2, 0);
	ISB();
	ok = at(read_mpam1, 0, 1) == HW_DONE && value == (0xa5a5000000000000UL | 0x900);
	hw_check(ok, "mpam_nv2_nv1_mpam1", "EL1's read of MPAM1_EL1: %#llx, value %#llx",
		 (unsigned long long)outcome, (unsigned long long)value);
	WRITE_SYSREG(MPAM2, TRAP1);
	ISB();
	got = at(read_mpam1, 0, 1);
	hw_check(trapped(got, ISS_MPAM1(1)), "mpam_nv2_trap_first",
		 "EL1's read of MPAM1_EL1 with TRAPMPAM1EL1 and NV2: %#llx",
		 (unsigned long long)got);
	WRITE_SYSREG(MPAM2, 0);
	set_hcr(hcr);
	hw_el2_take_lower_traps = false;
}

/* ---- Labels (GenMPAM() for a data access) ------------------------------------------------- */

static uint64_t lower_label(uint64_t arg)
{
	(void)arg;
	return READ_SYSREG(LABEL);
}

/* The label of a data access at EL, made there. */
static uint64_t label(unsigned el)
{
	ISB();
	return el == 2 ? READ_SYSREG(LABEL) : hw_run_lower(lower_label, 0, el);
}

/* The label of a data access at EL0 as EL2 sees it (EL0 in the host cannot be run here). */
static uint64_t label0_view(void)
{
	ISB();
	return READ_SYSREG(LABEL_AT0);
}

static bool check_label(const char *name, unsigned el, uint64_t want)
{
	uint64_t got = label(el);

	return hw_check(got == want, name, "EL%u's label %#llx, not %#llx", el,
			(unsigned long long)got, (unsigned long long)want);
}

/* A PARTID error: the Default PARTID, and either PMG (D21.9.4). */
static bool check_label_error(const char *name, unsigned el, unsigned pmg)
{
	uint64_t got = label(el);

	return hw_check(got == LBL(0, 0) || got == LBL(0, pmg), name,
			"EL%u's label %#llx, not PARTID 0 with PMG 0 or %u", el,
			(unsigned long long)got, pmg);
}

static void check_labels(void)
{
	uint64_t hcr = READ_SYSREG(hcr_el2), got;

	WRITE_SYSREG(MPAMHCR, 0);
	WRITE_SYSREG(MPAMVPMV, 0);
	WRITE_SYSREG(MPAM0, IDS_OF(11, 1, 13, 0));
	WRITE_SYSREG(MPAM1, IDS_OF(9, 0, 3, 1));
	WRITE_SYSREG(MPAM2, IDS_OF(5, 1, 7, 0)); /* MPAMEN 0 */
	got = label(2) | label(1) << 32;
	hw_check(got == (LBL(0, 0) | LBL(0, 0) << 32) && label(0) == LBL(0, 0),
		 "mpam_label_disabled", "with MPAMEN 0: EL2 and EL1 %#llx, EL0 %#llx",
		 (unsigned long long)got, (unsigned long long)label(0));

	WRITE_SYSREG(MPAM2, MPAMEN | IDS_OF(5, 1, 7, 0));
	check_label("mpam_label_el2", 2, LBL(5, 1));
	check_label("mpam_label_el1", 1, LBL(9, 0));
	check_label("mpam_label_el0", 0, LBL(11, 1));
	ISB();
	hw_check(READ_SYSREG(LABEL_AT0) == LBL(11, 1) && READ_SYSREG(LABEL_AT1) == LBL(9, 0) &&
			 READ_SYSREG(LABEL_AT2) == LBL(5, 1),
		 "mpam_label_views", "the at-EL views: %#llx %#llx %#llx",
		 (unsigned long long)READ_SYSREG(LABEL_AT0),
		 (unsigned long long)READ_SYSREG(LABEL_AT1),
		 (unsigned long long)READ_SYSREG(LABEL_AT2));

	/* GSTAPP_PLK: EL0 with MPAM1_EL1's identifiers, unless HCR_EL2.TGE */
	WRITE_SYSREG(MPAMHCR, GSTAPP_PLK);
	check_label("mpam_label_gstapp_plk", 0, LBL(9, 0));
	set_hcr(hcr | HCR_TGE);
	got = label0_view();
	set_hcr(hcr);
	hw_check(got == LBL(11, 1), "mpam_label_gstapp_tge", "EL0's label with TGE: %#llx",
		 (unsigned long long)got);
	WRITE_SYSREG(MPAMHCR, 0);

	/* Out of range (D21.9): PMG above PMG_MAX, PARTID above PARTID_MAX */
	WRITE_SYSREG(MPAM1, IDS_OF(9, 2, 3, 1));
	check_label("mpam_label_pmg_out_of_range", 1, LBL(9, 0));
	WRITE_SYSREG(MPAM1, IDS_OF(63, 1, 3, 1));
	check_label("mpam_label_partid_max", 1, LBL(63, 1));
	WRITE_SYSREG(MPAM1, IDS_OF(64, 1, 3, 1));
	check_label_error("mpam_label_partid_out_of_range", 1, 1);
	WRITE_SYSREG(MPAM2, MPAMEN | IDS_OF(0xffff, 1, 7, 0));
	check_label_error("mpam_label_el2_out_of_range", 2, 1);
	WRITE_SYSREG(MPAM2, MPAMEN | IDS_OF(5, 1, 7, 0));

	/* Virtual PARTIDs (D21.3.1): v9 -> 40 (MPAMVPM2_EL2.PhyPARTID9), v0 -> 33 */
	WRITE_SYSREG(MPAMVPM0, 33);
	WRITE_SYSREG(MPAMVPM2, 40UL << 16);
	WRITE_SYSREG(MPAMVPMV, (1UL << 9) | 1);
	WRITE_SYSREG(MPAM1, IDS_OF(9, 1, 3, 0));
	WRITE_SYSREG(MPAMHCR, EL1_VPMEN);
	check_label("mpam_label_vpm_el1", 1, LBL(40, 1));
	check_label("mpam_label_vpm_el0_physical", 0, LBL(11, 1));
	check_label("mpam_label_vpm_el2_physical", 2, LBL(5, 1));
	/* no valid mapping: the Default virtual PARTID's, no error (the PMG stays) */
	WRITE_SYSREG(MPAM1, IDS_OF(10, 1, 3, 0));
	check_label("mpam_label_vpm_invalid", 1, LBL(33, 1));
	/* ... and none for virtual PARTID 0 either: the Default physical PARTID */
	WRITE_SYSREG(MPAMVPMV, 1UL << 9);
	check_label_error("mpam_label_vpm_none", 1, 1);
	/* a mapping to a physical PARTID above PARTID_MAX */
	WRITE_SYSREG(MPAMVPMV, (1UL << 9) | 1);
	WRITE_SYSREG(MPAM1, IDS_OF(9, 1, 3, 0));
	WRITE_SYSREG(MPAMVPM2, 100UL << 16);
	check_label_error("mpam_label_vpm_phys_out_of_range", 1, 1);
	WRITE_SYSREG(MPAMVPM2, 40UL << 16);
	/* above the 32 mapping fields, within PARTID_MAX: modulo 32, as the pseudocode reduces */
	WRITE_SYSREG(MPAM1, IDS_OF(41, 1, 3, 0));
	check_label("mpam_label_vpm_modulo", 1, LBL(40, 1));
	/* above PARTID_MAX: the Default PARTID before any mapping (GenPARTID()) */
	WRITE_SYSREG(MPAM1, IDS_OF(64, 1, 3, 0));
	check_label_error("mpam_label_vpm_out_of_range", 1, 1);

	/* EL0_VPMEN: MPAM0_EL1's PARTIDs virtual */
	WRITE_SYSREG(MPAM0, IDS_OF(9, 0, 13, 0));
	WRITE_SYSREG(MPAM1, IDS_OF(12, 1, 3, 0));
	WRITE_SYSREG(MPAMHCR, EL0_VPMEN);
	check_label("mpam_label_vpm_el0", 0, LBL(40, 0));
	check_label("mpam_label_vpm_el1_physical", 1, LBL(12, 1));
	/* GSTAPP_PLK with EL1_VPMEN: EL0 takes EL1's mapped PARTID */
	WRITE_SYSREG(MPAM1, IDS_OF(9, 1, 3, 0));
	WRITE_SYSREG(MPAMHCR, GSTAPP_PLK | EL1_VPMEN);
	check_label("mpam_label_vpm_gstapp", 0, LBL(40, 1));

	/* EL0 in the host (HCR_EL2.{E2H, TGE} {1, 1}): EL0_VPMEN ignored; TGE alone: not */
	WRITE_SYSREG(MPAM0, IDS_OF(9, 0, 13, 0));
	WRITE_SYSREG(MPAMHCR, EL0_VPMEN | GSTAPP_PLK);
	set_hcr(hcr | HCR_E2H | HCR_TGE);
	got = label0_view();
	set_hcr(hcr);
	hw_check(got == LBL(9, 0), "mpam_label_vpm_host_physical",
		 "EL0's label in the host: %#llx", (unsigned long long)got);
	set_hcr(hcr | HCR_TGE);
	got = label0_view();
	set_hcr(hcr);
	hw_check(got == LBL(40, 0), "mpam_label_vpm_tge_virtual",
		 "EL0's label with TGE and not E2H: %#llx", (unsigned long long)got);

	/* MPAMEN 0 again: everything the Default PARTID and PMG */
	WRITE_SYSREG(MPAM2, IDS_OF(5, 1, 7, 0));
	got = label(2) | label(1) << 32;
	hw_check(got == (LBL(0, 0) | LBL(0, 0) << 32) && label(0) == LBL(0, 0),
		 "mpam_label_disabled_mapped", "with MPAMEN 0: EL2 and EL1 %#llx, EL0 %#llx",
		 (unsigned long long)got, (unsigned long long)label(0));
	WRITE_SYSREG(MPAMHCR, 0);
}

int main(void)
{
	static const char *const rest[] = {
		"mpam_id_v1p1",
		"mpam_mpamidr",
		"mpam_mpamidr_write_undef",
		"mpam_reset_mpam2",
		"mpam_reset_mpamhcr",
		"mpam_reset_mpam1_mpamen",
		"mpam_mpam0_res0",
		"mpam_mpam1_res0",
		"mpam_mpam2_res0",
		"mpam_mpamhcr_res0",
		"mpam_mpamvpmv_res0",
		"mpam_mpamvpm_rw",
		"mpam_mpamsm_res0",
		"mpam_mpamen_rao",
		"mpam_mpamen_raz",
		"mpam_el12_undef_no_e2h",
		"mpam_e2h_mpam1_is_mpam2",
		"mpam_e2h_mpam1_el12",
		"mpam_trap_mpam0_read",
		"mpam_trap_mpam0_write",
		"mpam_trap_mpam1_read",
		"mpam_trap_mpam1_write",
		"mpam_trap_mpamidr_hcr",
		"mpam_trap_not_el2",
		"mpam_el0_undef",
		"mpam_trap_mpamidr_tidr",
		"mpam_mpamidr_el1",
		"mpam_el1_rw",
		"mpam_el1_mpamen_copy",
		"mpam_trap_mpamsm",
		"mpam_el1_el2_undef",
		"mpam_nv_mpam2_trap",
		"mpam_nv_mpamhcr_trap",
		"mpam_nv_el12_trap",
		"mpam_nv2_mpamhcr",
		"mpam_nv2_mpamvpmv",
		"mpam_nv2_mpamvpm",
		"mpam_nv2_el12",
		"mpam_nv2_write",
		"mpam_nv2_mpam2_trap",
		"mpam_nv2_nv1_mpam1",
		"mpam_nv2_trap_first",
		"mpam_label_disabled",
		"mpam_label_el2",
		"mpam_label_el1",
		"mpam_label_el0",
		"mpam_label_views",
		"mpam_label_gstapp_plk",
		"mpam_label_gstapp_tge",
		"mpam_label_pmg_out_of_range",
		"mpam_label_partid_max",
		"mpam_label_partid_out_of_range",
		"mpam_label_el2_out_of_range",
		"mpam_label_vpm_el1",
		"mpam_label_vpm_el0_physical",
		"mpam_label_vpm_el2_physical",
		"mpam_label_vpm_invalid",
		"mpam_label_vpm_none",
		"mpam_label_vpm_phys_out_of_range",
		"mpam_label_vpm_modulo",
		"mpam_label_vpm_out_of_range",
		"mpam_label_vpm_el0",
		"mpam_label_vpm_el1_physical",
		"mpam_label_vpm_gstapp",
		"mpam_label_vpm_host_physical",
		"mpam_label_vpm_tge_virtual",
		"mpam_label_disabled_mapped",
	};
	unsigned i;

	check_ids();
	if (!mpam) {
		for (i = 0; i < sizeof(rest) / sizeof(rest[0]); i++) {
			absent(rest[i]);
		}
		hw_done();
	}
	check_reset();
	check_fields();
	check_e2h();
	check_traps();
	check_nv();
	check_labels();
	hw_done();
}
