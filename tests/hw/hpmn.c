/* SPDX-License-Identifier: MIT */
/*
 * The counters at or above MDCR_EL2.HPMN belong to EL2 and are hidden from EL1 and EL0
 * (D13.1.1, D13.11): EL1 and EL0 see PMCR_EL0.N = HPMN; the hidden counters' bits of
 * PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR and PMSWINC read as zero and ignore writes;
 * PMCR_EL0.P resets only the counters below HPMN; PMEVCNTR<n>_EL0 and PMEVTYPER<n>_EL0 of a
 * hidden counter are UNDEFINED; and PMSELR_EL0.SEL naming one leaves PMXEVCNTR_EL0 and
 * PMXEVTYPER_EL0 as for a counter the PE does not implement (the model reads zero and ignores
 * writes there, as QEMU does past PMCR_EL0.N). Stock QEMU hides PMCR_EL0.N only.
 *
 * EL2 sets up HPMN = 2 with HPME: counter 0 (EL1's) at 50, counter 3 (EL2's) at 100 counting
 * SW_INCR, both enabled; counter 4's overflow flag and counter 5's interrupt enable set. Then
 * EL1, and EL0, look, and EL2 checks what they could not change.
 */
#include "hw.h"
#include "pmu.h"

#define HPMN 2
#define VISIBLE ((1UL << HPMN) - 1)

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

/* Executes an instruction that may be UNDEFINED at EL1 or EL0; true if it was. */
#define UNDEFINED(stmt)                                                                        \
	({                                                                                     \
		unsigned before_ = hw_lower_faults;                                            \
		stmt;                                                                          \
		hw_lower_faults != before_ && (hw_lower_esr >> 26) == 0;                       \
	})

static uint64_t at_el1(uint64_t arg)
{
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
	hw_check(UNDEFINED(READ_SYSREG(pmevcntr3_el0)),
		 "hpmn_el1_pmevcntr_undef: PMEVCNTR3_EL0 is UNDEFINED at EL1",
		 "%u exceptions, ESR_EL1 %#llx", hw_lower_faults,
		 (unsigned long long)hw_lower_esr);
	hw_check(UNDEFINED(WRITE_SYSREG(pmevcntr5_el0, 7)),
		 "hpmn_el1_pmevcntr_write_undef: writing PMEVCNTR5_EL0 is UNDEFINED at EL1",
		 "%u exceptions, ESR_EL1 %#llx", hw_lower_faults,
		 (unsigned long long)hw_lower_esr);
	hw_check(UNDEFINED(READ_SYSREG(pmevtyper3_el0)),
		 "hpmn_el1_pmevtyper_undef: PMEVTYPER3_EL0 is UNDEFINED at EL1",
		 "%u exceptions, ESR_EL1 %#llx", hw_lower_faults,
		 (unsigned long long)hw_lower_esr);
	{
		uint64_t v = 0;

		hw_check(!UNDEFINED(v = READ_SYSREG(pmevcntr0_el0)) && v == 51,
			 "hpmn_el1_visible: PMEVCNTR0_EL0 reads at EL1 (50 + 1 SW_INCR)",
			 "read %llu", (unsigned long long)v);
	}
	WRITE_SYSREG(pmselr_el0, 3);
	ISB();
	HW_CHECK_EQ("hpmn_el1_pmxevcntr: PMXEVCNTR_EL0 with SEL = 3 reads as zero at EL1",
		    READ_SYSREG(pmxevcntr_el0), 0);
	WRITE_SYSREG(pmxevcntr_el0, 7);
	HW_CHECK_EQ("hpmn_el1_pmxevtyper: PMXEVTYPER_EL0 with SEL = 3 reads as zero at EL1",
		    READ_SYSREG(pmxevtyper_el0), 0);
	WRITE_SYSREG(pmxevtyper_el0, EV_INST_RETIRED);
	WRITE_SYSREG(pmselr_el0, 0);
	ISB();
	HW_CHECK_EQ("hpmn_el1_selected: PMXEVCNTR_EL0 with SEL = 0 reads counter 0 at EL1",
		    READ_SYSREG(pmxevcntr_el0), 51);
	WRITE_SYSREG(pmcr_el0, PMCR_E | PMCR_P);
	ISB();
	return 0;
}

static uint64_t at_el1_cnten(uint64_t arg)
{
	(void)arg;
	return READ_SYSREG(pmcntenset_el0);
}

static uint64_t at_el0(uint64_t arg)
{
	(void)arg;
	HW_CHECK_EQ("hpmn_el0_pmcr_n: PMCR_EL0.N reads HPMN at EL0",
		    PMCR_N(READ_SYSREG(pmcr_el0)), HPMN);
	HW_CHECK_EQ("hpmn_el0_pmcnten: PMCNTENSET_EL0 shows only counter 0 at EL0",
		    READ_SYSREG(pmcntenset_el0), 1);
	hw_check(UNDEFINED(READ_SYSREG(pmevcntr3_el0)),
		 "hpmn_el0_pmevcntr_undef: PMEVCNTR3_EL0 is UNDEFINED at EL0",
		 "%u exceptions, ESR_EL1 %#llx", hw_lower_faults,
		 (unsigned long long)hw_lower_esr);
	WRITE_SYSREG(pmswinc_el0, 1UL << 3);
	return 0;
}

int main(void)
{
	setup();
	HW_CHECK_EQ("hpmn_el2_pmcnten: PMCNTENSET_EL0 shows every counter at EL2",
		    READ_SYSREG(pmcntenset_el0), (1UL << 0) | (1UL << 3));
	HW_CHECK_EQ("hpmn_el2_pmcr_n: PMCR_EL0.N reads the implemented counters at EL2",
		    PMCR_N(READ_SYSREG(pmcr_el0)), 6);

	hw_run_lower(at_el1, 0, 1);
	HW_CHECK_EQ("hpmn_el1_pmcntenclr_ignored: EL1's PMCNTENCLR_EL0 write left counter 3 "
		    "enabled",
		    READ_SYSREG(pmcntenset_el0) & (1UL << 3), 1UL << 3);
	HW_CHECK_EQ("hpmn_el1_pmovsclr_ignored: EL1's PMOVSCLR_EL0 write left counter 4's flag",
		    READ_SYSREG(pmovsset_el0) & (1UL << 4), 1UL << 4);
	HW_CHECK_EQ("hpmn_el1_pmintenset_ignored: EL1's PMINTENSET_EL1 write left counter 4's "
		    "enable clear",
		    READ_SYSREG(pmintenset_el1) & (1UL << 4), 0);
	HW_CHECK_EQ("hpmn_el1_pmswinc_ignored: EL1's PMSWINC_EL0 write left counter 3 at 100",
		    pmu_count(3), 100);
	HW_CHECK_EQ("hpmn_el1_pmxevtyper_ignored: EL1's PMXEVTYPER_EL0 write left counter 3's "
		    "type",
		    READ_SYSREG(pmxevtyper_el0), PMEVTYPER_NSH | EV_SW_INCR); /* SEL is 3 */
	HW_CHECK_EQ("hpmn_el1_pmcr_p_guest: EL1's PMCR_EL0.P reset counter 0", pmu_count(0), 0);
	HW_CHECK_EQ("hpmn_el1_pmcr_p_host: EL1's PMCR_EL0.P left counter 3 at 100",
		    pmu_count(3), 100);

	setup();
	hw_run_lower(at_el0, 0, 0);
	HW_CHECK_EQ("hpmn_el0_pmswinc_ignored: EL0's PMSWINC_EL0 write left counter 3 at 100",
		    pmu_count(3), 100);

	/* HPMN = N hides nothing: EL1 sees every counter. */
	setup();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(6) | MDCR_HPME);
	ISB();
	HW_CHECK_EQ("hpmn_n_el1_pmcnten: with HPMN = N, EL1 sees counter 3 enabled",
		    hw_run_lower(at_el1_cnten, 0, 1), (1UL << 0) | (1UL << 3));
	pmu_reset();
	WRITE_SYSREG(pmuserenr_el0, 0);
	return 0;
}
