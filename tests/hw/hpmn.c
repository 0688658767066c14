/* SPDX-License-Identifier: MIT */
/*
 * The counters at or above MDCR_EL2.HPMN belong to EL2 and are out of reach of EL1 and EL0
 * (D13.1.1, D13.11; GetNumEventCountersAccessible(), J1.3.1): EL1 and EL0 see
 * PMCR_EL0.N = HPMN; the hidden counters' bits of PMCNTENSET/CLR, PMINTENSET/CLR,
 * PMOVSSET/CLR and PMSWINC read as zero and ignore writes; PMCR_EL0.P resets only the
 * counters below HPMN. With FEAT_FGT (which -cpu max has), an access to PMEVCNTR<n>_EL0 or
 * PMEVTYPER<n>_EL0 of a hidden counter, or to PMXEVCNTR_EL0 or PMXEVTYPER_EL0 with
 * PMSELR_EL0.SEL naming one, is trapped to EL2 (EC 0x18) once the register's own traps have
 * not taken it: PMUSERENR_EL0 at EL0 (to EL1), then the fine-grained trap and MDCR_EL2.TPM
 * (to EL2). A counter the PE does not implement is UNDEFINED before any of those, at every EL:
 * PMEVCNTR<n>_EL0 with n >= N, PMXEVCNTR_EL0 with SEL >= N (31 too), PMXEVTYPER_EL0 with
 * N <= SEL < 31 (D24.5.10, D24.5.12, D24.5.27, D24.5.28). Stock QEMU hides PMCR_EL0.N only,
 * and reads zero and ignores writes for SEL >= N.
 *
 * EL2 sets up HPMN = 2 with HPME: counter 0 (EL1's) at 50, counter 3 (EL2's) at 100 counting
 * SW_INCR, both enabled; counter 4's overflow flag and counter 5's interrupt enable set. Then
 * EL1, and EL0, look, and EL2 checks what they could not change. The PE has N = 6 counters.
 */
#include "hw.h"
#include "pmu.h"

#define HPMN 2
#define N 6

/* The syndromes of the accesses trapped (ISS: Op0, Op2, Op1, CRn, CRm, direction). */
#define EVCNTR(n, rd) HW_ISS_SYS64(3, 3, 14, 8 | ((n) >> 3), (n)&7, rd)
#define EVTYPER(n, rd) HW_ISS_SYS64(3, 3, 14, 12 | ((n) >> 3), (n)&7, rd)
#define XEVTYPER(rd) HW_ISS_SYS64(3, 3, 9, 13, 1, rd)
#define XEVCNTR(rd) HW_ISS_SYS64(3, 3, 9, 13, 2, rd)
#define RD 1
#define WR 0

/* HDFGRTR_EL2, HDFGWTR_EL2 (D24.2.67, D24.2.69): PMEVCNTRn_EL0 and PMEVTYPERn_EL0. */
#define HDFGRTR_EL2 S3_4_C3_C1_4
#define HDFGWTR_EL2 S3_4_C3_C1_5
#define FGT_PMEVCNTRN (1UL << 12)
#define FGT_PMEVTYPERN (1UL << 13)

static void setup(void)
{
	pmu_reset();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN) | MDCR_HPME);
	pmu_set_type(0, EV_SW_INCR);
	pmu_set_count(0, 50);
	pmu_set_type(3, PMEVTYPER_NSH | EV_SW_INCR); /* NSH: a type that does not read as 0 */
	pmu_set_count(3, 100);
	WRITE_SYSREG(pmcntenset_el0, (1UL << 0) | (1UL << 3));
	WRITE_SYSREG(pmovsset_el0, 1UL << 4);
	WRITE_SYSREG(pmintenset_el1, 1UL << 5);
	WRITE_SYSREG(pmcr_el0, PMCR_E);
	WRITE_SYSREG(pmuserenr_el0, 0xf); /* EN, SW, CR, ER: EL0 may use the PMU */
	ISB();
}

static const char *where(uint64_t got)
{
	return got & HW_AT_EL2   ? "trapped to EL2"
	       : got & HW_AT_EL1 ? "taken to EL1"
				 : "completed";
}

/* The access was trapped to EL2 with EC 0x18 and the ISS of the register and direction. */
static void trapped(uint64_t got, uint64_t iss, const char *name)
{
	hw_check(hw_outcome_is(got, HW_AT_EL2, HW_EC_SYS64, iss), name,
		 "%s, ESR %#llx (ISS %#llx)", where(got), (unsigned long long)(uint32_t)got,
		 (unsigned long long)iss);
}

/* The access was UNDEFINED, taken to EL1 (from EL1 or EL0). */
static void undefined(uint64_t got, const char *name)
{
	hw_check(hw_outcome_is(got, HW_AT_EL1, HW_EC_UNKNOWN, 0), name, "%s, ESR %#llx",
		 where(got), (unsigned long long)(uint32_t)got);
}

/* Both accesses were UNDEFINED. */
static void undefined2(uint64_t a, uint64_t b, const char *name)
{
	hw_check(hw_outcome_is(a, HW_AT_EL1, HW_EC_UNKNOWN, 0) &&
			 hw_outcome_is(b, HW_AT_EL1, HW_EC_UNKNOWN, 0),
		 name, "%s, ESR %#llx; %s, ESR %#llx", where(a),
		 (unsigned long long)(uint32_t)a, where(b), (unsigned long long)(uint32_t)b);
}

static uint64_t at_el1(uint64_t arg)
{
	uint64_t v = 0, a, b;

	(void)arg;
	HW_CHECK_EQ("hpmn_el1_pmcr_n: PMCR_EL0.N reads HPMN at EL1",
		    PMCR_N(READ_SYSREG(pmcr_el0)), HPMN);
	HW_CHECK_EQ("hpmn_el1_pmcnten: PMCNTENSET_EL0 shows only counter 0 at EL1",
		    READ_SYSREG(pmcntenset_el0), 1);
	HW_CHECK_EQ("hpmn_el1_pmovs: PMOVSSET_EL0 hides counter 4's flag at EL1",
		    READ_SYSREG(pmovsset_el0), 0);
	HW_CHECK_EQ("hpmn_el1_pminten: PMINTENSET_EL1 hides counter 5's enable at EL1",
		    READ_SYSREG(pmintenset_el1), 0);
	/* Writes that must not reach counters 3..5 (EL2 checks them). */
	WRITE_SYSREG(pmcntenclr_el0, 1UL << 3);
	WRITE_SYSREG(pmovsclr_el0, 1UL << 4);
	WRITE_SYSREG(pmintenset_el1, 1UL << 4);
	WRITE_SYSREG(pmswinc_el0, (1UL << 0) | (1UL << 3));

	/* The hidden counters' own registers: trapped to EL2. */
	trapped(HW_OUTCOME(v = READ_SYSREG(pmevcntr3_el0)), EVCNTR(3, RD),
		"hpmn_el1_pmevcntr_trap: reading PMEVCNTR3_EL0 at EL1 traps to EL2");
	trapped(HW_OUTCOME(WRITE_SYSREG(pmevcntr5_el0, 7)), EVCNTR(5, WR),
		"hpmn_el1_pmevcntr_write_trap: writing PMEVCNTR5_EL0 at EL1 traps to EL2");
	trapped(HW_OUTCOME(v = READ_SYSREG(pmevtyper3_el0)), EVTYPER(3, RD),
		"hpmn_el1_pmevtyper_trap: reading PMEVTYPER3_EL0 at EL1 traps to EL2");
	trapped(HW_OUTCOME(WRITE_SYSREG(pmevtyper4_el0, EV_INST_RETIRED)), EVTYPER(4, WR),
		"hpmn_el1_pmevtyper_write_trap: writing PMEVTYPER4_EL0 at EL1 traps to EL2");
	/* A counter the PE does not implement: UNDEFINED (QEMU registers none past N). */
	undefined(HW_OUTCOME(v = READ_SYSREG(pmevcntr6_el0)),
		  "hpmn_el1_pmevcntr_absent_undef: PMEVCNTR6_EL0 (N = 6) is UNDEFINED at EL1");
	a = HW_OUTCOME(v = READ_SYSREG(pmevcntr0_el0));
	hw_check(a == HW_DONE && v == 51,
		 "hpmn_el1_visible: PMEVCNTR0_EL0 reads at EL1 (50 + 1 SW_INCR)",
		 "%s, read %llu", where(a), (unsigned long long)v);

	/* Through PMSELR_EL0.SEL: a hidden counter traps to EL2. */
	pmu_select(3);
	trapped(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)), XEVCNTR(RD),
		"hpmn_el1_pmxevcntr_trap: reading PMXEVCNTR_EL0 with SEL = 3 at EL1 traps to "
		"EL2");
	trapped(HW_OUTCOME(WRITE_SYSREG(pmxevcntr_el0, 7)), XEVCNTR(WR),
		"hpmn_el1_pmxevcntr_write_trap: writing PMXEVCNTR_EL0 with SEL = 3 at EL1 "
		"traps to EL2");
	trapped(HW_OUTCOME(v = READ_SYSREG(pmxevtyper_el0)), XEVTYPER(RD),
		"hpmn_el1_pmxevtyper_trap: reading PMXEVTYPER_EL0 with SEL = 3 at EL1 traps to "
		"EL2");
	trapped(HW_OUTCOME(WRITE_SYSREG(pmxevtyper_el0, EV_INST_RETIRED)), XEVTYPER(WR),
		"hpmn_el1_pmxevtyper_write_trap: writing PMXEVTYPER_EL0 with SEL = 3 at EL1 "
		"traps to EL2");
	/* ... one the PE does not implement is UNDEFINED (SEL = 31: PMXEVTYPER_EL0 only). */
	pmu_select(N);
	a = HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0));
	pmu_select(30);
	b = HW_OUTCOME(WRITE_SYSREG(pmxevcntr_el0, 7));
	undefined2(a, b,
		   "hpmn_el1_pmxevcntr_absent_undef: PMXEVCNTR_EL0 with SEL = 6 (read) and 30 "
		   "(write) is UNDEFINED at EL1");
	pmu_select(N);
	a = HW_OUTCOME(WRITE_SYSREG(pmxevtyper_el0, EV_INST_RETIRED));
	pmu_select(30);
	b = HW_OUTCOME(v = READ_SYSREG(pmxevtyper_el0));
	undefined2(a, b,
		   "hpmn_el1_pmxevtyper_absent_undef: PMXEVTYPER_EL0 with SEL = 6 (write) and "
		   "30 (read) is UNDEFINED at EL1");
	pmu_select(CYCLE_COUNTER);
	undefined(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)),
		  "hpmn_el1_pmxevcntr_sel31_undef: PMXEVCNTR_EL0 with SEL = 31 is UNDEFINED at "
		  "EL1");
	a = HW_OUTCOME(v = READ_SYSREG(pmxevtyper_el0));
	hw_check(a == HW_DONE && v == READ_SYSREG(pmccfiltr_el0),
		 "hpmn_el1_pmxevtyper_sel31: PMXEVTYPER_EL0 with SEL = 31 reads PMCCFILTR_EL0 "
		 "at EL1",
		 "%s, read %#llx", where(a), (unsigned long long)v);
	pmu_select(0);
	HW_CHECK_EQ("hpmn_el1_selected: PMXEVCNTR_EL0 with SEL = 0 reads counter 0 at EL1",
		    READ_SYSREG(pmxevcntr_el0), 51);
	WRITE_SYSREG(pmcr_el0, PMCR_E | PMCR_P);
	ISB();
	return 0;
}

/* EL2 has set MDCR_EL2.TPM and PMSELR_EL0.SEL = N: the trap comes after UNDEFINED only. */
static uint64_t at_el1_tpm(uint64_t arg)
{
	uint64_t v = 0;

	(void)arg;
	trapped(HW_OUTCOME(v = READ_SYSREG(pmevcntr3_el0)), EVCNTR(3, RD),
		"hpmn_el1_tpm_pmevcntr: with MDCR_EL2.TPM, PMEVCNTR3_EL0 at EL1 traps to EL2");
	undefined(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)),
		  "hpmn_el1_tpm_absent_undef: with MDCR_EL2.TPM, PMXEVCNTR_EL0 with SEL = 6 is "
		  "UNDEFINED at EL1, not trapped");
	undefined(HW_OUTCOME(v = READ_SYSREG(pmevcntr6_el0)),
		  "hpmn_el1_tpm_pmevcntr_absent: with MDCR_EL2.TPM, PMEVCNTR6_EL0 is UNDEFINED "
		  "at EL1");
	(void)v;
	return 0;
}

/* EL2 has set the PMEVCNTRn_EL0 and PMEVTYPERn_EL0 fine-grained traps and SEL = N. */
static uint64_t at_el1_fgt(uint64_t arg)
{
	uint64_t v = 0;

	(void)arg;
	trapped(HW_OUTCOME(WRITE_SYSREG(pmevtyper3_el0, 0)), EVTYPER(3, WR),
		"hpmn_el1_fgt_pmevtyper: with HDFGWTR_EL2.PMEVTYPERn_EL0, writing "
		"PMEVTYPER3_EL0 at EL1 traps to EL2");
	undefined(
		HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)),
		"hpmn_el1_fgt_absent_undef: with HDFGRTR_EL2.PMEVCNTRn_EL0, PMXEVCNTR_EL0 with "
		"SEL = 6 is UNDEFINED at EL1, not trapped");
	(void)v;
	return 0;
}

static uint64_t at_el1_all(uint64_t arg)
{
	uint64_t v = 0, a;

	(void)arg;
	HW_CHECK_EQ("hpmn_n_el1_pmcnten: with HPMN = N, EL1 sees counter 3 enabled",
		    READ_SYSREG(pmcntenset_el0), (1UL << 0) | (1UL << 3));
	a = HW_OUTCOME(v = READ_SYSREG(pmevcntr3_el0));
	hw_check(a == HW_DONE && v == 100,
		 "hpmn_n_el1_pmevcntr: with HPMN = N, PMEVCNTR3_EL0 reads at EL1",
		 "%s, read %llu", where(a), (unsigned long long)v);
	return 0;
}

static uint64_t at_el0(uint64_t arg)
{
	uint64_t v = 0;

	(void)arg;
	HW_CHECK_EQ("hpmn_el0_pmcr_n: PMCR_EL0.N reads HPMN at EL0",
		    PMCR_N(READ_SYSREG(pmcr_el0)), HPMN);
	HW_CHECK_EQ("hpmn_el0_pmcnten: PMCNTENSET_EL0 shows only counter 0 at EL0",
		    READ_SYSREG(pmcntenset_el0), 1);
	trapped(HW_OUTCOME(v = READ_SYSREG(pmevcntr3_el0)), EVCNTR(3, RD),
		"hpmn_el0_pmevcntr_trap: reading PMEVCNTR3_EL0 at EL0 traps to EL2");
	pmu_select(3);
	trapped(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)), XEVCNTR(RD),
		"hpmn_el0_pmxevcntr_trap: reading PMXEVCNTR_EL0 with SEL = 3 at EL0 traps to "
		"EL2");
	pmu_select(N);
	undefined(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)),
		  "hpmn_el0_pmxevcntr_absent_undef: PMXEVCNTR_EL0 with SEL = 6 is UNDEFINED at "
		  "EL0");
	pmu_select(0);
	WRITE_SYSREG(pmswinc_el0, 1UL << 3);
	(void)v;
	return 0;
}

/* EL2 has cleared PMUSERENR_EL0 and set SEL = N: EL0's accesses go to EL1 first. */
static uint64_t at_el0_denied(uint64_t arg)
{
	uint64_t v = 0, got;

	(void)arg;
	got = HW_OUTCOME(v = READ_SYSREG(pmevcntr3_el0));
	hw_check(hw_outcome_is(got, HW_AT_EL1, HW_EC_SYS64, EVCNTR(3, RD)),
		 "hpmn_el0_userenr_first: with PMUSERENR_EL0 clear, PMEVCNTR3_EL0 at EL0 traps "
		 "to EL1 (before the HPMN trap)",
		 "%s, ESR %#llx", where(got), (unsigned long long)(uint32_t)got);
	undefined(HW_OUTCOME(v = READ_SYSREG(pmxevcntr_el0)),
		  "hpmn_el0_userenr_absent_undef: with PMUSERENR_EL0 clear, PMXEVCNTR_EL0 with "
		  "SEL = 6 is UNDEFINED at EL0, not trapped to EL1");
	(void)v;
	return 0;
}

/* An access at EL2 to a counter the PE does not implement: UNDEFINED there too. */
static bool el2_undefined(bool write)
{
	unsigned before = hw_el2_faults;
	uint64_t v = 0;

	hw_el2_skip_faults = true;
	if (write)
		WRITE_SYSREG(pmxevtyper_el0, EV_INST_RETIRED);
	else
		v = READ_SYSREG(pmxevcntr_el0);
	hw_el2_skip_faults = false;
	(void)v;
	return hw_el2_faults == before + 1 && ((hw_el2_esr >> 26) & 0x3f) == HW_EC_UNKNOWN;
}

int main(void)
{
	setup();
	HW_CHECK_EQ("hpmn_el2_pmcnten: PMCNTENSET_EL0 shows every counter at EL2",
		    READ_SYSREG(pmcntenset_el0), (1UL << 0) | (1UL << 3));
	HW_CHECK_EQ("hpmn_el2_pmcr_n: PMCR_EL0.N reads the implemented counters at EL2",
		    PMCR_N(READ_SYSREG(pmcr_el0)), N);
	pmu_select(N);
	hw_check(el2_undefined(false),
		 "hpmn_el2_pmxevcntr_absent_undef: PMXEVCNTR_EL0 with SEL = 6 is UNDEFINED at "
		 "EL2",
		 "%u faults, ESR_EL2 %#llx", hw_el2_faults, (unsigned long long)hw_el2_esr);
	hw_check(el2_undefined(true),
		 "hpmn_el2_pmxevtyper_absent_undef: writing PMXEVTYPER_EL0 with SEL = 6 is "
		 "UNDEFINED at EL2",
		 "%u faults, ESR_EL2 %#llx", hw_el2_faults, (unsigned long long)hw_el2_esr);
	pmu_select(0);

	hw_el2_take_lower_traps = true;
	hw_run_lower(at_el1, 0, 1);
	HW_CHECK_EQ("hpmn_el1_pmcntenclr_ignored: EL1's PMCNTENCLR_EL0 write left counter 3 "
		    "enabled",
		    READ_SYSREG(pmcntenset_el0) & (1UL << 3), 1UL << 3);
	HW_CHECK_EQ("hpmn_el1_pmovsclr_ignored: EL1's PMOVSCLR_EL0 write left counter 4's flag",
		    READ_SYSREG(pmovsset_el0) & (1UL << 4), 1UL << 4);
	HW_CHECK_EQ("hpmn_el1_pmintenset_ignored: EL1's PMINTENSET_EL1 write left counter 4's "
		    "enable clear",
		    READ_SYSREG(pmintenset_el1) & (1UL << 4), 0);
	HW_CHECK_EQ("hpmn_el1_pmswinc_ignored: EL1's PMSWINC_EL0 and PMXEVCNTR_EL0 writes left "
		    "counter 3 at 100",
		    pmu_count(3), 100);
	HW_CHECK_EQ("hpmn_el1_pmxevtyper_ignored: EL1's PMXEVTYPER_EL0 write left counter 3's "
		    "type",
		    READ_SYSREG(pmxevtyper_el0), PMEVTYPER_NSH | EV_SW_INCR); /* SEL is 3 */
	pmu_select(4);
	HW_CHECK_EQ(
		"hpmn_el1_pmevtyper_write_ignored: EL1's PMEVTYPER4_EL0 write left counter 4's "
		"type",
		READ_SYSREG(pmxevtyper_el0), 0);
	HW_CHECK_EQ("hpmn_el1_pmcr_p_guest: EL1's PMCR_EL0.P reset counter 0", pmu_count(0), 0);
	HW_CHECK_EQ("hpmn_el1_pmcr_p_host: EL1's PMCR_EL0.P left counter 3 at 100",
		    pmu_count(3), 100);

	/* The register's own traps first: MDCR_EL2.TPM, then a fine-grained trap. */
	setup();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN) | MDCR_HPME | MDCR_TPM);
	pmu_select(N);
	hw_run_lower(at_el1_tpm, 0, 1);
	setup();
	WRITE_SYSREG(HDFGRTR_EL2, FGT_PMEVCNTRN | FGT_PMEVTYPERN);
	WRITE_SYSREG(HDFGWTR_EL2, FGT_PMEVCNTRN | FGT_PMEVTYPERN);
	pmu_select(N);
	hw_run_lower(at_el1_fgt, 0, 1);
	WRITE_SYSREG(HDFGRTR_EL2, 0);
	WRITE_SYSREG(HDFGWTR_EL2, 0);
	ISB();

	setup();
	hw_run_lower(at_el0, 0, 0);
	HW_CHECK_EQ("hpmn_el0_pmswinc_ignored: EL0's PMSWINC_EL0 write left counter 3 at 100",
		    pmu_count(3), 100);
	setup();
	WRITE_SYSREG(pmuserenr_el0, 0);
	pmu_select(N);
	hw_run_lower(at_el0_denied, 0, 0);

	/* HPMN = N hides nothing: EL1 sees every counter. */
	setup();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(N) | MDCR_HPME);
	ISB();
	hw_run_lower(at_el1_all, 0, 1);
	hw_el2_take_lower_traps = false;
	pmu_reset();
	WRITE_SYSREG(pmuserenr_el0, 0);
	return 0;
}
