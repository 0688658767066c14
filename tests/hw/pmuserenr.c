/* SPDX-License-Identifier: MIT */
/*
 * PMUSERENR_EL0's fine-grained traps (FEAT_FGT, which -cpu max has): bit 57 of HDFGRTR_EL2
 * traps MRS reads of PMUSERENR_EL0 at EL1 and EL0, bit 57 of HDFGWTR_EL2 MSR writes at EL1,
 * to EL2 with EC 0x18 (D24.2.67, D24.2.69, D24.5.26), while EL2 is enabled and HCR_EL2.{E2H,
 * TGE} is not {1, 1} (here: no EL3, E2H and TGE clear). Each bit traps only its direction;
 * with neither, only MDCR_EL2.TPM traps the register. Stock QEMU 10.0.13 gives PMUSERENR_EL0
 * no fine-grained trap: a hypervisor cannot take the guest's accesses to it while leaving the
 * counters untrapped.
 *
 * EL2 writes PMUSERENR_EL0 and the trap controls, then EL1 (or EL0) reads or writes it, and
 * EL2 checks where each access went and what the register holds.
 */
#include "hw.h"
#include "pmu.h"

#define HDFGRTR_EL2 S3_4_C3_C1_4
#define HDFGWTR_EL2 S3_4_C3_C1_5
#define FGT_PMUSERENR (1UL << 57)
#define FGT_PMSELR (1UL << 19)

#define USERENR(rd) HW_ISS_SYS64(3, 3, 9, 14, 0, rd)
#define SELR(rd) HW_ISS_SYS64(3, 3, 9, 12, 5, rd)
#define RD 1
#define WR 0

static const char *where(uint64_t got)
{
	return got & HW_AT_EL2   ? "trapped to EL2"
	       : got & HW_AT_EL1 ? "taken to EL1"
				 : "completed";
}

static bool trapped(uint64_t got, uint64_t iss)
{
	return hw_outcome_is(got, HW_AT_EL2, HW_EC_SYS64, iss);
}

/* PMUSERENR_EL0 := value, HDFGRTR_EL2 := rd, HDFGWTR_EL2 := wr, MDCR_EL2.TPM as asked. */
static void set(uint64_t value, uint64_t rd, uint64_t wr, bool tpm)
{
	uint64_t n = PMCR_N(READ_SYSREG(pmcr_el0));

	WRITE_SYSREG(pmuserenr_el0, value);
	WRITE_SYSREG(HDFGRTR_EL2, rd);
	WRITE_SYSREG(HDFGWTR_EL2, wr);
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(n) | (tpm ? MDCR_TPM : 0));
	ISB();
}

/* What a read and a write of PMUSERENR_EL0 did at EL1 (x0 of the write: arg). */
static uint64_t outcome_read, outcome_write, value_read;

static uint64_t el1_read(uint64_t arg)
{
	(void)arg;
	outcome_read = HW_OUTCOME(value_read = READ_SYSREG(pmuserenr_el0));
	return 0;
}

static uint64_t el1_write(uint64_t arg)
{
	outcome_write = HW_OUTCOME(WRITE_SYSREG(pmuserenr_el0, arg));
	return 0;
}

static uint64_t el1_pmselr(uint64_t arg)
{
	uint64_t v = 0;

	(void)arg;
	outcome_read = HW_OUTCOME(v = READ_SYSREG(pmselr_el0));
	(void)v;
	return 0;
}

int main(void)
{
	pmu_reset();
	hw_el2_take_lower_traps = true;

	/* Reads trapped by HDFGRTR_EL2.PMUSERENR_EL0, writes not. */
	set(0x5, FGT_PMUSERENR, 0, false);
	hw_run_lower(el1_read, 0, 1);
	hw_check(trapped(outcome_read, USERENR(RD)),
		 "fgt_pmuserenr_read: with HDFGRTR_EL2.PMUSERENR_EL0, reading PMUSERENR_EL0 at "
		 "EL1 traps to EL2",
		 "%s, ESR %#llx", where(outcome_read),
		 (unsigned long long)(uint32_t)outcome_read);
	hw_run_lower(el1_write, 0x1, 1);
	hw_check(outcome_write == HW_DONE && READ_SYSREG(pmuserenr_el0) == 0x1,
		 "fgt_pmuserenr_write_untrapped: with HDFGRTR_EL2.PMUSERENR_EL0 alone, EL1 "
		 "writes PMUSERENR_EL0",
		 "%s, ESR %#llx, PMUSERENR_EL0 %#llx", where(outcome_write),
		 (unsigned long long)(uint32_t)outcome_write,
		 (unsigned long long)READ_SYSREG(pmuserenr_el0));

	/* Writes trapped by HDFGWTR_EL2.PMUSERENR_EL0, reads not. */
	set(0x5, 0, FGT_PMUSERENR, false);
	hw_run_lower(el1_write, 0xf, 1);
	hw_check(
		trapped(outcome_write, USERENR(WR)),
		"fgt_pmuserenr_write: with HDFGWTR_EL2.PMUSERENR_EL0, writing PMUSERENR_EL0 at "
		"EL1 traps to EL2",
		"%s, ESR %#llx", where(outcome_write),
		(unsigned long long)(uint32_t)outcome_write);
	HW_CHECK_EQ("fgt_pmuserenr_write_kept: the trapped write left PMUSERENR_EL0 as EL2 "
		    "wrote it",
		    READ_SYSREG(pmuserenr_el0), 0x5);
	set(0x5, 0, FGT_PMUSERENR, false);
	hw_run_lower(el1_read, 0, 1);
	hw_check(
		outcome_read == HW_DONE && value_read == 0x5,
		"fgt_pmuserenr_read_untrapped: with HDFGWTR_EL2.PMUSERENR_EL0 alone, EL1 reads "
		"PMUSERENR_EL0",
		"%s, ESR %#llx, read %#llx", where(outcome_read),
		(unsigned long long)(uint32_t)outcome_read, (unsigned long long)value_read);

	/* EL0's reads too (EL0 cannot write it: UNDEFINED, whatever the traps). */
	set(0x1, FGT_PMUSERENR, FGT_PMUSERENR, false);
	hw_run_lower(el1_read, 0, 0);
	hw_check(trapped(outcome_read, USERENR(RD)),
		 "fgt_pmuserenr_el0_read: with HDFGRTR_EL2.PMUSERENR_EL0, reading "
		 "PMUSERENR_EL0 at EL0 traps to EL2",
		 "%s, ESR %#llx", where(outcome_read),
		 (unsigned long long)(uint32_t)outcome_read);
	hw_run_lower(el1_write, 0, 0);
	hw_check(
		hw_outcome_is(outcome_write, HW_AT_EL1, HW_EC_UNKNOWN, 0),
		"fgt_pmuserenr_el0_write_undef: writing PMUSERENR_EL0 at EL0 is UNDEFINED, not "
		"trapped to EL2",
		"%s, ESR %#llx", where(outcome_write),
		(unsigned long long)(uint32_t)outcome_write);

	/* Neither bit: EL1 and EL0 reach it; MDCR_EL2.TPM traps it. */
	set(0x1, 0, 0, false);
	hw_run_lower(el1_write, 0xd, 1);
	hw_run_lower(el1_read, 0, 1);
	hw_check(
		outcome_write == HW_DONE && outcome_read == HW_DONE && value_read == 0xd,
		"fgt_pmuserenr_untrapped: with neither bit, EL1 writes and reads PMUSERENR_EL0",
		"write %s, read %s, read %#llx", where(outcome_write), where(outcome_read),
		(unsigned long long)value_read);
	hw_run_lower(el1_read, 0, 0);
	hw_check(outcome_read == HW_DONE && value_read == 0xd,
		 "fgt_pmuserenr_el0_untrapped: with neither bit, EL0 reads PMUSERENR_EL0",
		 "%s, read %#llx", where(outcome_read), (unsigned long long)value_read);
	set(0x1, 0, 0, true);
	hw_run_lower(el1_read, 0, 1);
	hw_check(trapped(outcome_read, USERENR(RD)),
		 "fgt_pmuserenr_tpm: with MDCR_EL2.TPM, reading PMUSERENR_EL0 at EL1 traps to "
		 "EL2",
		 "%s, ESR %#llx", where(outcome_read),
		 (unsigned long long)(uint32_t)outcome_read);

	/* The control: another PMU register's fine-grained trap, which QEMU has. */
	set(0x1, FGT_PMSELR, 0, false);
	hw_run_lower(el1_pmselr, 0, 1);
	hw_check(trapped(outcome_read, SELR(RD)),
		 "fgt_pmselr_control: with HDFGRTR_EL2.PMSELR_EL0, reading PMSELR_EL0 at EL1 "
		 "traps to EL2",
		 "%s, ESR %#llx", where(outcome_read),
		 (unsigned long long)(uint32_t)outcome_read);

	set(0, 0, 0, false);
	hw_el2_take_lower_traps = false;
	pmu_reset();
	return 0;
}
