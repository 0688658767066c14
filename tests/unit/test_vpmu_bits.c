/* SPDX-License-Identifier: MIT */
/* Every bit of the vPMU's guest-writable registers, as the register database accounts for
 * them (arch/sysregs.txt; PV_BITS_<register>_<access>(v, h), regdb.h): each register, in
 * every PMU version a VM can be given, on PEs with and without what its fields need,
 * written with all ones and then with zeros through the trap dispatch, as a guest's MSR,
 * reads back what the database says a write leaves: RW and W1S bits set, W1C, WO and RES0
 * bits clear, RES1 bits set, RO bits not the write's. The one rule beyond the masks: the
 * bitmaps' bits of counters the VM does not have are RAZ/WI (Arm ARM D24.5.7,
 * PMCNTENSET_EL0: "When m >= GetNumEventCountersAccessible(), access to this field is
 * RAZ/WI"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "perfvisor/perfvisor.h"
#include "vpmu_fixture.h"

#define NR 5 /* the VM's event counters: some of the hardware's, not all */

/* What the database says of a register's bits, for version v and conditions h. */
struct bits {
	uint64_t rw, ro, wo, w1s, w1c, res1;
};

#define BITS_OF(ident, key0)                                                                   \
	static struct bits bits_##ident(unsigned v, unsigned h)                                \
	{                                                                                      \
		(void)v, (void)h;                                                              \
		return (struct bits){                                                          \
			PV_BITS_##ident##_RW(v, h),  PV_BITS_##ident##_RO(v, h),               \
			PV_BITS_##ident##_WO(v, h),  PV_BITS_##ident##_W1S(v, h),              \
			PV_BITS_##ident##_W1C(v, h), PV_BITS_##ident##_RES1(v, h)};            \
	}
PV_REGDB_BITS(BITS_OF)

struct reg {
	const char *name;
	uint32_t key; /* a family's first member */
	struct bits (*bits)(unsigned v, unsigned h);
};

#define REG_OF(ident, key0) {#ident, (key0), bits_##ident},
static const struct reg REGS[] = {PV_REGDB_BITS(REG_OF)};
#define NREGS (sizeof(REGS) / sizeof(REGS[0]))

static const struct reg *reg_of(uint32_t key)
{
	for (size_t i = 0; i < NREGS; i++)
		if (REGS[i].key == key)
			return &REGS[i];
	return NULL;
}

/* What the PE has, as the fixture's hardware and the VM's configuration say it. */
struct pe {
	bool aarch32, el3, sel2, rme, spe_v1p2;
};

static const struct pe PES[] = {
	{false, false, false, false, false}, /* AArch64 only, no EL3: LC RES1, D RES0 */
	{true, false, false, false, false},  /* AArch32: D, LC stored */
	{false, true, true, true, false},    /* EL3, Secure EL2, RME: every filter bit */
	{true, true, false, false, true},    /* the VM's SPE is SPEv1p2: PMCR_EL0.FZS */
};

static unsigned conds(const struct pe *pe)
{
	return (pe->aarch32 ? PV_COND_AA32 : 0) | (pe->el3 ? PV_COND_EL3 : 0) |
	       (pe->el3 && pe->sel2 ? PV_COND_SEL2 : 0) | (pe->rme ? PV_COND_RME : 0) |
	       (pe->spe_v1p2 ? PV_COND_SPEV1P2 : 0);
}

/* A VM of PMU version `ver` on the PE `pe`, its vCPU 0 loaded; as fx_vm, with the VM's SPE
 * in its configuration (which the vPMU reads for PMCR_EL0.FZS). */
static int vm_on(struct fx *f, unsigned ver, const struct pe *pe)
{
	f->hw.aarch32 = pe->aarch32;
	f->hw.el3 = pe->el3;
	f->hw.sel2 = pe->sel2;
	f->hw.rme = pe->rme;
	f->vm = (struct pv_vm){.hw = &f->hw};
	f->vm.cfg.features = PV_FEAT_PMU | (pe->spe_v1p2 ? PV_FEAT_SPE : 0);
	f->vm.cfg.spe.version = pe->spe_v1p2 ? PV_SPE_V1P2 : 0;
	f->vm.cfg.pmu.version = (uint8_t)ver;
	f->vm.cfg.pmu.nr_counters = NR;
	int err = pv_vpmu_vm_init(&f->vm);
	if (err)
		return err;
	pv_trap_gates_init(&f->vm);
	f->mv[0] = (struct memplat_vcpu){0};
	f->v[0] = (struct pv_vcpu){.vm = &f->vm, .plat = &f->mv[0]};
	memcpy(f->v[0].reg_limit, f->vm.reg_limit, sizeof(f->vm.reg_limit));
	pv_vpmu_vcpu_init(&f->v[0]);
	fx_load(f, 0);
	return PV_OK;
}

/* A guest's MSR and MRS from EL1, through the dispatch; each must be handled. */
static void msr(struct pv_vcpu *v, uint32_t key, uint64_t val)
{
	uint64_t x[31] = {0};
	x[3] = val;
	assert_int_equal(pv_trap(v, esr_sys(key, 3, false), 1, x), PV_TRAP_HANDLED);
}

static uint64_t mrs(struct pv_vcpu *v, uint32_t key)
{
	uint64_t x[31] = {0};
	assert_int_equal(pv_trap(v, esr_sys(key, 3, true), 1, x), PV_TRAP_HANDLED);
	return x[3];
}

/* The bitmaps (PMCNTEN*, PMINTEN*, PMOVS*) that share one state: CLR's partner. */
static uint32_t set_of(uint32_t clr)
{
	if (clr == PV_PMCNTENCLR_EL0)
		return PV_PMCNTENSET_EL0;
	if (clr == PV_PMINTENCLR_EL1)
		return PV_PMINTENSET_EL1;
	if (clr == PV_PMOVSCLR_EL0)
		return PV_PMOVSSET_EL0;
	return 0;
}

/* All ones, then zeros, into register `key` (of layout `b`): what each read gives back. */
static void check_reg(struct pv_vcpu *v, const char *name, uint32_t key, struct bits b,
		      bool readable, unsigned ver)
{
	/* The bits of counters m >= N are RAZ/WI; C (bit 31) is the cycle counter's. */
	uint64_t implemented = ((UINT64_C(1) << NR) - 1) | PV_BIT(PV_PMU_CYCLE_IDX);
	uint64_t w1x = (b.w1s | b.w1c) & implemented;
	if (!readable) {
		/* Write-only: nothing to read back, every bit a write acts on is WO. */
		assert_int_equal(b.rw | b.ro | b.w1s | b.w1c | b.res1, 0);
		assert_int_not_equal(b.wo, 0);
		msr(v, key, ~UINT64_C(0));
		msr(v, key, 0);
		return;
	}
	uint32_t set = set_of(key);
	if (set) { /* something for the W1C bits to clear, seen through either view */
		msr(v, set, ~UINT64_C(0));
		assert_int_equal(mrs(v, key) & ~b.ro, w1x);
	}
	msr(v, key, ~UINT64_C(0));
	uint64_t ones = mrs(v, key) & ~b.ro;
	uint64_t want = b.rw | (b.w1s & implemented) | b.res1;
	if (ones != want)
		fail_msg("%s, PMUVer %u: all ones read back %#llx, the database says %#llx",
			 name, ver, (unsigned long long)ones, (unsigned long long)want);
	msr(v, key, 0);
	uint64_t zeros = mrs(v, key) & ~b.ro;
	/* A 0 in a W1S or W1C bit changes nothing. */
	want = b.res1 | (ones & w1x);
	if (zeros != want)
		fail_msg("%s, PMUVer %u: zeros read back %#llx, the database says %#llx", name,
			 ver, (unsigned long long)zeros, (unsigned long long)want);
}

/* PMXEVTYPER_EL0 and PMXEVCNTR_EL0 have no bits of their own (the database's `as`): they
 * are those of the register PMSELR_EL0.SEL selects. */
static void check_selected(struct pv_vcpu *v, unsigned ver, unsigned h)
{
	static const unsigned sels[] = {0, NR - 1, PV_PMU_CYCLE_IDX};
	for (size_t i = 0; i < sizeof(sels) / sizeof(sels[0]); i++) {
		unsigned sel = sels[i];
		msr(v, PV_PMSELR_EL0, sel);
		if (sel == PV_PMU_CYCLE_IDX) {
			check_reg(v, "PMXEVTYPER_EL0 (PMCCFILTR_EL0)", PV_PMXEVTYPER_EL0,
				  bits_PMCCFILTR_EL0(ver, h), true, ver);
			continue;
		}
		check_reg(v, "PMXEVTYPER_EL0", PV_PMXEVTYPER_EL0, bits_PMEVTYPER_EL0(ver, h),
			  true, ver);
		check_reg(v, "PMXEVCNTR_EL0", PV_PMXEVCNTR_EL0, bits_PMEVCNTR_EL0(ver, h), true,
			  ver);
	}
}

static void test_every_bit_reads_back_as_the_database_says(void **state)
{
	(void)state;
	static const unsigned versions[] = {PV_PMUVER_V3,   PV_PMUVER_V3P1, PV_PMUVER_V3P4,
					    PV_PMUVER_V3P5, PV_PMUVER_V3P7, PV_PMUVER_V3P8,
					    PV_PMUVER_V3P9};
	unsigned offered = 0, checked = 0;
	struct fx *f = fx_new();
	f->hw.pmu_version = PV_PMUVER_V3P9; /* so that only the library says what it offers */
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		unsigned ver = versions[i];
		for (size_t p = 0; p < sizeof(PES) / sizeof(PES[0]); p++) {
			int err = vm_on(f, ver, &PES[p]);
			if (err == PV_ERR_PMU_VERSION)
				break; /* not offered: every PMU register UNDEFs */
			assert_int_equal(err, PV_OK);
			offered |= 1u << ver;
			unsigned h = conds(&PES[p]);
			struct pv_vcpu *v = &f->v[0];
			size_t count;
			const struct pv_reg_desc *t = pv_reg_table(&count);
			for (size_t e = 0; e < count; e++) {
				const struct pv_reg_desc *d = &t[e];
				if (d->kind != PV_KIND_PMU || !d->write)
					continue;
				if (d->key == PV_PMXEVTYPER_EL0 || d->key == PV_PMXEVCNTR_EL0)
					continue; /* check_selected */
				const struct reg *r = reg_of(d->key);
				if (!r)
					fail_msg("%s is guest-writable and has no PV_BITS_*",
						 d->name);
				/* A family: each member the VM has. */
				unsigned last = d->first == d->last ? d->first : NR - 1;
				for (unsigned n = d->first; n <= last; n++) {
					uint32_t key = d->first == d->last
							       ? d->key
							       : (d->key & d->mask) |
									 PV_SYSREG(0, 0, 0,
										   n >> 3,
										   n & 7);
					check_reg(v, d->name, key, r->bits(ver, h),
						  d->read != NULL, ver);
					checked++;
				}
			}
			check_selected(v, ver, h);
			fx_put(f, 0);
		}
	}
	/* The versions docs/vpmu.md offers, every one checked. */
	unsigned want = 1u << PV_PMUVER_V3 | 1u << PV_PMUVER_V3P1 | 1u << PV_PMUVER_V3P4 |
			1u << PV_PMUVER_V3P5;
	assert_int_equal(offered & want, want);
	assert_true(checked > 0);
	free(f);
}

/* The masks are the architecture's: spot values from the Arm ARM (D24.5.8 PMCR_EL0,
 * D24.5.12 PMEVTYPER<n>_EL0, D24.5.10 PMEVCNTR<n>_EL0), so that a wrong database line does
 * not pass for a right one because the handler follows it. */
static void test_masks_are_the_architecture_s(void **state)
{
	(void)state;
	/* PMCR_EL0, PMUv3p5, AArch64 only, no EL3: E, DP, LP stored; LC RES1; P, C actions;
	 * N, IDCODE, IMP read-only; X RAZ/WI; D RES0. */
	struct bits b = bits_PMCR_EL0(PV_PMUVER_V3P5, 0);
	assert_int_equal(b.rw, PV_PMCR_E | PV_PMCR_DP | PV_PMCR_LP);
	assert_int_equal(b.res1, PV_PMCR_LC);
	assert_int_equal(b.wo, PV_PMCR_P | PV_PMCR_C);
	assert_int_equal(b.ro, UINT64_C(0xFFFFF800));
	/* PMUv3 without EL3: no DP (it needs EL3, or PMUv3p1 with EL2); with EL3, DP. */
	assert_int_equal(bits_PMCR_EL0(PV_PMUVER_V3, 0).rw, PV_PMCR_E);
	assert_int_equal(bits_PMCR_EL0(PV_PMUVER_V3, PV_COND_EL3).rw, PV_PMCR_E | PV_PMCR_DP);
	/* AArch32: D and LC stored, nothing RES1; SPEv1p2: FZS, bit 32. */
	assert_int_equal(bits_PMCR_EL0(PV_PMUVER_V3P4, PV_COND_AA32 | PV_COND_SPEV1P2).rw,
			 PV_PMCR_E | PV_PMCR_D | PV_PMCR_DP | PV_PMCR_LC | PV_BIT(32));
	assert_int_equal(bits_PMCR_EL0(PV_PMUVER_V3P4, PV_COND_AA32).res1, 0);
	/* PMEVTYPER<n>_EL0: P, U, NSH and the 10-bit event; evtCount[15:10] from PMUv3p1;
	 * NSK, NSU, M with EL3; SH with Secure EL2; RLK, RLU, RLH with RME; bits [63:32], 25,
	 * 23 and [19:16] RES0. */
	assert_int_equal(bits_PMEVTYPER_EL0(PV_PMUVER_V3, 0).rw, UINT64_C(0xC80003FF));
	assert_int_equal(bits_PMEVTYPER_EL0(PV_PMUVER_V3P1, 0).rw, UINT64_C(0xC800FFFF));
	assert_int_equal(
		bits_PMEVTYPER_EL0(PV_PMUVER_V3P5, PV_COND_EL3 | PV_COND_SEL2 | PV_COND_RME).rw,
		UINT64_C(0xFD70FFFF));
	assert_int_equal(
		bits_PMCCFILTR_EL0(PV_PMUVER_V3P5, PV_COND_EL3 | PV_COND_SEL2 | PV_COND_RME).rw,
		UINT64_C(0xFD700000));
	/* PMEVCNTR<n>_EL0: 32 bits, 64 from PMUv3p5. PMSELR_EL0.SEL, PMUSERENR_EL0.{ER,CR,SW,
	 * EN}; PMSWINC_EL0's P<m> write-only; the bitmaps' P<m> and C. */
	assert_int_equal(bits_PMEVCNTR_EL0(PV_PMUVER_V3P4, 0).rw, UINT64_C(0xFFFFFFFF));
	assert_int_equal(bits_PMEVCNTR_EL0(PV_PMUVER_V3P5, 0).rw, ~UINT64_C(0));
	assert_int_equal(bits_PMSELR_EL0(PV_PMUVER_V3, 0).rw, 0x1F);
	assert_int_equal(bits_PMUSERENR_EL0(PV_PMUVER_V3P5, 0).rw, 0xF);
	assert_int_equal(bits_PMSWINC_EL0(PV_PMUVER_V3, 0).wo, 0x7FFFFFFF);
	assert_int_equal(bits_PMCNTENSET_EL0(PV_PMUVER_V3, 0).w1s, 0xFFFFFFFF);
	assert_int_equal(bits_PMOVSCLR_EL0(PV_PMUVER_V3, 0).w1c, 0xFFFFFFFF);
	assert_int_equal(bits_PMCCNTR_EL0(PV_PMUVER_V3, 0).rw, ~UINT64_C(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_bit_reads_back_as_the_database_says),
		cmocka_unit_test(test_masks_are_the_architecture_s),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
