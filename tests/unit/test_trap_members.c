/* SPDX-License-Identifier: MIT */
/*
 * The dispatch in a VM given every feature at its highest version (PMUv3p5 with 30 counters,
 * SPEv1p2, AMUv1p1 with 16 auxiliary counters, MPAM): every key of the EC 0x18 space gets the
 * answer the architecture gives for this VM, and every member of every register family
 * reaches its own state. The member index a family's handler receives is checked against n as
 * the Arm ARM encodes it (D24.5.10, D24.5.12, D24.6.9, D24.6.10, D24.6.13, D24.6.14: n =
 * CRm[1:0]:Op2 or CRm[0]:Op2), computed here from the encoding fields, never from the
 * register database; each family is written member by member and read back after all were
 * written, so two members sharing state cannot pass.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "esr.h"
#include "perfvisor/trap.h"
#include "test_vmpam_rig.h"

#define N_PHYS 31  /* physical PMCR_EL0.N: the top counter is the host's */
#define N_GUEST 30 /* the VM's PMCR_EL0.N */
#define N_AUX 16   /* auxiliary activity counters, all given to the VM */

struct everything {
	struct rig *r; /* pCPU 0 (r->mc, r->cpu), its MPAM MSC and PARTID tables */
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v;
	uint64_t x[32];
};

/* The ISS key of an encoding, from ESR_EL2's ISS layout for EC 0x18 (Arm ARM D24.2): Op0
 * [21:20], Op2 [19:17], Op1 [16:14], CRn [13:10], CRm [4:1]. */
static uint32_t enc(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2)
{
	return (uint32_t)op0 << 20 | (uint32_t)op2 << 17 | (uint32_t)op1 << 14 |
	       (uint32_t)crn << 10 | (uint32_t)crm << 1;
}

static unsigned key_crm(uint32_t key)
{
	return key >> 1 & 0xFu;
}

static unsigned key_op2(uint32_t key)
{
	return key >> 17 & 7u;
}

/* The families as the Arm ARM lays them out: member n is Op0 = 3, Op1, CRn, CRm = crm_base |
 * n[k+2:3], Op2 = n[2:0], with k = the CRm bits n takes (crm_nmask); n_vm members exist for
 * the VM. */
struct family {
	const char *name;
	unsigned op1, crn, crm_base, crm_nmask;
	unsigned n_vm;
};

enum { F_PMEVCNTR, F_PMEVTYPER, F_AMEVCNTR0, F_AMEVTYPER0, F_AMEVCNTR1, F_AMEVTYPER1, F_ID };

static const struct family families[] = {
	[F_PMEVCNTR] = {"PMEVCNTR<n>_EL0", 3, 14, 0x8, 3, N_GUEST},
	[F_PMEVTYPER] = {"PMEVTYPER<n>_EL0", 3, 14, 0xC, 3, N_GUEST},
	[F_AMEVCNTR0] = {"AMEVCNTR0<n>_EL0", 3, 13, 0x4, 1, 4},
	[F_AMEVTYPER0] = {"AMEVTYPER0<n>_EL0", 3, 13, 0x6, 1, 4},
	[F_AMEVCNTR1] = {"AMEVCNTR1<n>_EL0", 3, 13, 0xC, 1, N_AUX},
	[F_AMEVTYPER1] = {"AMEVTYPER1<n>_EL0", 3, 13, 0xE, 1, N_AUX},
	[F_ID] = {"ID group", 0, 0, 0, 7, 64}, /* slot n = CRm:Op2, 8..63 */
};
#define N_FAMILIES (sizeof(families) / sizeof(families[0]))

static uint32_t member_key(const struct family *f, unsigned n)
{
	return enc(3, f->op1, f->crn, f->crm_base | n >> 3, n & 7);
}

/* n of `key` in its family, from the encoding. */
static unsigned arch_member(const struct family *f, uint32_t key)
{
	return (key_crm(key) & f->crm_nmask) << 3 | key_op2(key);
}

#define pmevcntr(n) member_key(&families[F_PMEVCNTR], (n))
#define pmevtyper(n) member_key(&families[F_PMEVTYPER], (n))
#define amevcntr0(n) member_key(&families[F_AMEVCNTR0], (n))
#define amevtyper0(n) member_key(&families[F_AMEVTYPER0], (n))
#define amevcntr1(n) member_key(&families[F_AMEVCNTR1], (n))
#define amevtyper1(n) member_key(&families[F_AMEVTYPER1], (n))
#define id_group(n) member_key(&families[F_ID], (n))

static const struct family *family_of(const struct pv_reg_desc *d)
{
	for (size_t i = 0; i < N_FAMILIES; i++)
		if (!strncmp(d->name, families[i].name, strlen(families[i].name)))
			return &families[i];
	return NULL;
}

static void field(struct memplat_cpu *c, uint32_t reg, uint64_t mask, uint64_t val)
{
	uint64_t *p = memplat_reg(c, reg);
	*p = (*p & ~mask) | PV_FIELD_PREP(mask, val);
}

static struct everything *everything_new(void)
{
	struct everything *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->r = rig_new(CPU_IDR(255, 7, 1, 1));
	struct memplat_cpu *c = &e->r->mc;
	memplat_init(c, N_PHYS);
	c->mmio = &e->r->io;
	/* SPEv1p2, 4 KiB granule only, records up to 2 KiB. */
	field(c, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMSVER, PV_SPE_V1P2);
	*memplat_reg(c, PV_PMBIDR_EL1) = 4 | PV_PMBIDR_F;
	*memplat_reg(c, PV_PMSIDR_EL1) = PV_PMSIDR_FE | PV_PMSIDR_FT | PV_PMSIDR_FL |
					 PV_PMSIDR_FNE | PV_FIELD_PREP(PV_PMSIDR_MAXSIZE, 11) |
					 PV_FIELD_PREP(PV_PMSIDR_COUNTSIZE, 2);
	/* AMUv1p1: 4 architected and 16 auxiliary counters, auxiliary events 0x100 + n. */
	field(c, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_AMU, 2);
	*memplat_reg(c, PV_AMCFGR_EL0) = PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 |
					 PV_FIELD_PREP(PV_AMCFGR_NCG, 1) | (4 + N_AUX - 1);
	*memplat_reg(c, PV_AMCGCR_EL0) = PV_FIELD_PREP(PV_AMCGCR_CG1NC, N_AUX) | 4;
	*memplat_reg(c, PV_AMCG1IDR_EL0) = 0xFFFF;
	*memplat_reg(c, PV_AMCNTENSET0_EL0) = 0xF;
	*memplat_reg(c, PV_AMCNTENSET1_EL0) = 0xFFFF;
	for (unsigned n = 0; n < N_AUX; n++)
		*memplat_reg(c, amevtyper1(n)) = 0x0100 + n;
	/* MPAM: one memory MSC; the VM gets PARTIDs of its own. */
	field(c, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_MPAM, 1);
	*memplat_reg(c, PV_MPAMIDR_EL1) = e->r->cpu_idr[0];
	rig_msc(e->r, PV_VMPAM_MSC_MEMORY, 0, IDR(255, 3, 1, 0, 1), MBW_IDR(8, 0, 1), 0,
		MBWUMON_IDR(8, 0, 1, 1));
	assert_int_equal(rig_init(e->r, 10), 0);
	/* Every ID slot the machine leaves zero gets a value of its own (one small field at
	 * bits [9:4]), so that the VM's view has many different slots; MMFR0 stays as it is
	 * (its granules and FGT shape the SPE walk and the AMU path). */
	for (unsigned s = 8; s < 64; s++) {
		uint64_t *cell = memplat_reg(c, id_group(s));
		if (!*cell && id_group(s) != PV_ID_AA64MMFR0_EL1)
			*cell = (uint64_t)s << 4;
	}

	assert_int_equal(pv_hw_probe(&e->hw, &e->r->cpu, 1), PV_OK);
	e->hw.mpam_sys = &e->r->sys;
	e->hw.mpam_cpu = &e->r->cpu;
	pv_pcpu_setup(&e->r->cpu, &e->hw);
	struct pv_vm_config cfg = {.features = PV_FEAT_PMU | PV_FEAT_SPE | PV_FEAT_AMU |
					       PV_FEAT_MPAM};
	cfg.pmu.version = PV_PMUVER_V3P5;
	cfg.pmu.nr_counters = N_GUEST;
	cfg.amu.version = PV_AMU_V1P1;
	cfg.amu.nr_aux = N_AUX;
	cfg.spe.version = PV_SPE_V1P2;
	cfg.spe.max_buffer = UINT64_C(1) << 20;
	cfg.mpam.nr_partids = 2;
	assert_int_equal(pv_vm_init(&e->vm, &e->hw, &cfg), PV_OK);
	pv_vcpu_init(&e->v, &e->vm, 0, &e->r->mv);
	pv_vcpu_load(&e->v, &e->r->cpu);
	return e;
}

static void everything_free(struct everything *e)
{
	pv_vcpu_release(&e->v);
	assert_int_equal(pv_vm_release(&e->vm), PV_OK);
	free(e->r);
	free(e);
}

static enum pv_trap_result rd(struct everything *e, uint32_t key, unsigned rt)
{
	return pv_trap(&e->v, esr_sys(key, rt, true), 1, e->x);
}

static enum pv_trap_result wr(struct everything *e, uint32_t key, unsigned rt, uint64_t val)
{
	e->x[rt] = val;
	return pv_trap(&e->v, esr_sys(key, rt, false), 1, e->x);
}

/* The test's families are the architecture's encodings, and the keys perfvisor names are
 * the same. */
static void test_family_encodings_are_the_architectures(void **state)
{
	(void)state;
	for (unsigned n = 0; n < 31; n++) {
		assert_int_equal(pmevcntr(n), PV_PMEVCNTR_EL0(n));
		assert_int_equal(pmevtyper(n), PV_PMEVTYPER_EL0(n));
	}
	for (unsigned n = 0; n < 16; n++) {
		assert_int_equal(amevcntr0(n), PV_AMEVCNTR0_EL0(n));
		assert_int_equal(amevtyper0(n), PV_AMEVTYPER0_EL0(n));
		assert_int_equal(amevcntr1(n), PV_AMEVCNTR1_EL0(n));
		assert_int_equal(amevtyper1(n), PV_AMEVTYPER1_EL0(n));
	}
	assert_int_equal(enc(3, 3, 9, 13, 0), PV_PMCCNTR_EL0);
	assert_int_equal(enc(3, 0, 0, 4, 0), PV_ID_AA64PFR0_EL1);
	assert_int_equal(enc(3, 0, 0, 5, 0), PV_ID_AA64DFR0_EL1);
	/* The table's families are these families, with the architecture's members. */
	size_t count;
	const struct pv_reg_desc *t = pv_reg_table(&count);
	unsigned seen = 0;
	for (size_t i = 0; i < count; i++) {
		const struct family *f = family_of(&t[i]);
		if (!f)
			continue;
		seen++;
		for (unsigned n = t[i].first; n <= t[i].last; n++) {
			assert_ptr_equal(pv_reg_lookup(member_key(f, n)), &t[i]);
			assert_int_equal(arch_member(f, member_key(f, n)), n);
		}
	}
	assert_int_equal(seen, N_FAMILIES);
}

/* Every key of the EC 0x18 space, read and written from EL1 in the every-feature VM: one the
 * table does not own is the hypervisor's; one it owns is HANDLED when the register exists
 * for this VM in that direction and UNDEF otherwise. Members exist below the VM's counts
 * (PMCR_EL0.N = 30, 4 architected and 16 auxiliary activity counters, the whole ID group). */
static void test_every_key_answers_as_the_architecture(void **state)
{
	(void)state;
	struct everything *e = everything_new();
	unsigned owned = 0, handled = 0;
	for (uint32_t bits = 0; bits < (1u << 16); bits++) {
		uint32_t key = ((bits >> 4) << PV_ISS_SYS_CRN_SHIFT) | ((bits & 0xFu) << 1);
		const struct pv_reg_desc *d = pv_reg_lookup(key);
		owned += d != NULL;
		const struct family *f = d ? family_of(d) : NULL;
		bool exists = d && (!f || arch_member(f, key) < f->n_vm);
		for (unsigned dir = 0; dir < 2; dir++) {
			bool read = dir == 0;
			enum pv_trap_result want = PV_TRAP_UNKNOWN;
			if (d)
				want = exists && (read ? d->read != NULL : d->write != NULL)
					       ? PV_TRAP_HANDLED
					       : PV_TRAP_UNDEF;
			/* A zero write: the one value every writable register takes without
			 * side effects (no enable, no reset). */
			e->x[7] = 0;
			enum pv_trap_result res = pv_trap(&e->v, esr_sys(key, 7, read), 1,
							  e->x);
			if (res != want)
				fail_msg("%s key %#x %s: %d, want %d", d ? d->name : "-", key,
					 read ? "read" : "write", res, want);
			handled += res == PV_TRAP_HANDLED;
		}
	}
	/* 17 PMU registers, 2 x 31 PMEV, AMU 9 + 4 x 16, MPAM 4, SPE 12, ID group 56. */
	assert_int_equal(owned, 17 + 62 + 9 + 64 + 4 + 12 + 56);
	assert_true(handled > 2 * 60 + 56); /* the families alone give that many */
	everything_free(e);
}

/* PMEVCNTR<n>_EL0 and PMEVTYPER<n>_EL0 for every n the VM has, and PMXEVCNTR_EL0 /
 * PMXEVTYPER_EL0 through PMSELR_EL0.SEL = n: each reaches counter n. Counter n's value is
 * seen through the operator's view (pv_vpmu_counter), which does not go through the
 * dispatch, and in physical counter n (the vCPU is loaded). */
static void test_pmu_members_reach_their_counter(void **state)
{
	(void)state;
	struct everything *e = everything_new();
	for (unsigned n = 0; n < N_GUEST; n++) {
		assert_int_equal(wr(e, pmevcntr(n), 3, 0x10000u + n * 0x101u), PV_TRAP_HANDLED);
		/* Event 0x0040 + n (none of them SW_INCR or CHAIN, which software counts),
		 * at EL1 and EL0 (P, U, NSH clear). */
		assert_int_equal(wr(e, pmevtyper(n), 4, 0x0040u + n), PV_TRAP_HANDLED);
	}
	for (unsigned n = 0; n < N_GUEST; n++) {
		assert_int_equal(pv_vpmu_counter(&e->v, n), 0x10000u + n * 0x101u);
		assert_int_equal(*memplat_reg(&e->r->mc, pmevcntr(n)) & 0xFFFFFFFFu,
				 0x10000u + n * 0x101u);
		assert_int_equal(*memplat_reg(&e->r->mc, pmevtyper(n)) & 0xFFFFu, 0x0040u + n);
		assert_int_equal(rd(e, pmevcntr(n), 7), PV_TRAP_HANDLED);
		assert_int_equal(e->x[7], 0x10000u + n * 0x101u);
		assert_int_equal(rd(e, pmevtyper(n), 8), PV_TRAP_HANDLED);
		assert_int_equal(e->x[8] & 0xFFFFu, 0x0040u + n);
	}
	/* The same counters through the selector, in reverse so no order hides an alias. */
	const uint32_t pmselr = enc(3, 3, 9, 12, 5), pmxevcntr = enc(3, 3, 9, 13, 2);
	for (unsigned n = N_GUEST; n-- > 0;) {
		assert_int_equal(wr(e, pmselr, 2, n), PV_TRAP_HANDLED);
		assert_int_equal(wr(e, pmxevcntr, 3, 0x20000u + n), PV_TRAP_HANDLED);
	}
	for (unsigned n = 0; n < N_GUEST; n++) {
		assert_int_equal(pv_vpmu_counter(&e->v, n), 0x20000u + n);
		assert_int_equal(rd(e, pmevcntr(n), 7), PV_TRAP_HANDLED);
		assert_int_equal(e->x[7], 0x20000u + n);
	}
	/* n = N_GUEST and above: not this VM's (the host's counter 30 among them). */
	for (unsigned n = N_GUEST; n < 31; n++) {
		assert_int_equal(rd(e, pmevcntr(n), 7), PV_TRAP_UNDEF);
		assert_int_equal(wr(e, pmevcntr(n), 3, 1), PV_TRAP_UNDEF);
	}
	assert_int_equal(*memplat_reg(&e->r->mc, pmevcntr(N_GUEST)), 0);
	everything_free(e);
}

/* AMEVCNTR0<n>/AMEVCNTR1<n> read counter n of their group, AMEVTYPER0<n> the architected
 * event of counter n (Arm ARM D16.3.1, D24.6.13: CPU_CYCLES, CNT_CYCLES, INST_RETIRED,
 * STALL_BACKEND_MEM), AMEVTYPER1<n> the event of auxiliary counter n. Every physical
 * counter moves by a different amount; each guest read equals the operator's view of that
 * counter (pv_vamu_counter, not through the dispatch), and the 20 readings differ. */
static void test_amu_members_reach_their_counter(void **state)
{
	(void)state;
	struct everything *e = everything_new();
	for (unsigned k = 0; k < 4 + N_AUX; k++) {
		uint64_t *cell = memplat_reg(&e->r->mc,
					     k < 4 ? amevcntr0(k) : amevcntr1(k - 4));
		*cell += UINT64_C(1000) * (k + 1) + k;
	}
	uint64_t seen[4 + N_AUX];
	for (unsigned k = 0; k < 4 + N_AUX; k++) {
		uint32_t key = k < 4 ? amevcntr0(k) : amevcntr1(k - 4);
		assert_int_equal(rd(e, key, 9), PV_TRAP_HANDLED);
		assert_int_equal(e->x[9], pv_vamu_counter(&e->v, k));
		seen[k] = e->x[9];
		for (unsigned j = 0; j < k; j++)
			assert_int_not_equal(seen[j], seen[k]);
	}
	static const uint16_t architected[4] = {0x0011, 0x4004, 0x0008, 0x4005};
	for (unsigned n = 0; n < 4; n++) {
		assert_int_equal(rd(e, amevtyper0(n), 10), PV_TRAP_HANDLED);
		assert_int_equal(e->x[10] & 0xFFFFu, architected[n]);
	}
	for (unsigned n = 0; n < N_AUX; n++) {
		assert_int_equal(rd(e, amevtyper1(n), 11), PV_TRAP_HANDLED);
		assert_int_equal(e->x[11] & 0xFFFFu, 0x0100u + n);
	}
	/* Group 0 has four counters: n = 4..15 of its families are no register (UNDEF). */
	for (unsigned n = 4; n < 16; n++) {
		assert_int_equal(rd(e, amevcntr0(n), 9), PV_TRAP_UNDEF);
		assert_int_equal(rd(e, amevtyper0(n), 9), PV_TRAP_UNDEF);
	}
	everything_free(e);
}

/* ID group slot s (CRm:Op2) reads the VM's view of that slot: the every-feature VM's view
 * has many different non-zero slots, so a slot read through another's index shows. */
static void test_id_members_reach_their_slot(void **state)
{
	(void)state;
	struct everything *e = everything_new();
	unsigned distinct = 0;
	for (unsigned s = 8; s < 64; s++) {
		assert_int_equal(rd(e, id_group(s), 12), PV_TRAP_HANDLED);
		assert_int_equal(e->x[12], e->vm.id_view[s]);
		bool again = e->x[12] == 0;
		for (unsigned t = 8; t < s && !again; t++)
			again = e->vm.id_view[t] == e->x[12];
		distinct += !again;
	}
	assert_true(distinct >= 20);
	assert_int_not_equal(
		PV_ID_FIELD(e->vm.id_view[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)], PV_ID_AA64PFR0_AMU),
		0);
	assert_int_not_equal(PV_ID_FIELD(e->vm.id_view[PV_ID_SLOT(PV_ID_AA64DFR0_EL1)],
					 PV_ID_AA64DFR0_PMSVER),
			     0);
	everything_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_encodings_are_the_architectures),
		cmocka_unit_test(test_every_key_answers_as_the_architecture),
		cmocka_unit_test(test_pmu_members_reach_their_counter),
		cmocka_unit_test(test_amu_members_reach_their_counter),
		cmocka_unit_test(test_id_members_reach_their_slot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
