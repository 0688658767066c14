/* SPDX-License-Identifier: MIT */
/* ID-register views, trap words and machine/VM configuration checks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "esr.h"
#include "memplat.h"
#include "perfvisor/trap.h"

struct rig {
	struct memplat_cpu mc;
	struct pv_pcpu cpu;
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	memplat_init(&r->mc, 6);
	pv_pcpu_init(&r->cpu, &r->mc);
	return r;
}

static void set_field(struct rig *r, uint32_t reg, uint64_t mask, unsigned val)
{
	uint64_t *p = memplat_reg(&r->mc, reg);
	*p = (*p & ~mask) | PV_FIELD_PREP(mask, val);
}

static int vm_with(struct rig *r, uint32_t features, uint8_t version, uint8_t counters)
{
	struct pv_vm_config cfg = {.features = features};
	cfg.pmu.version = version;
	cfg.pmu.nr_counters = counters;
	int err = pv_vm_init(&r->vm, &r->hw, &cfg);
	if (err == PV_OK)
		pv_vcpu_init(&r->v, &r->vm, 0, NULL);
	return err;
}

static uint64_t guest_read(struct rig *r, uint32_t key)
{
	uint64_t x[31] = {0};
	assert_int_equal(pv_trap(&r->v, esr_sys(key, 0, true), 1, x), PV_TRAP_HANDLED);
	return x[0];
}

static void test_pmuver_follows_vm(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	static const uint8_t versions[] = {PV_PMUVER_V3, PV_PMUVER_V3P1, PV_PMUVER_V3P4,
					   PV_PMUVER_V3P5};
	for (size_t i = 0; i < sizeof(versions); i++) {
		assert_int_equal(vm_with(r, PV_FEAT_PMU, versions[i], 2), PV_OK);
		uint64_t dfr0 = guest_read(r, PV_ID_AA64DFR0_EL1);
		assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMUVER), versions[i]);
		/* Fields perfvisor does not touch are the hardware's (DebugVer, BRPs, ...). */
		uint64_t hw = *memplat_reg(&r->mc, PV_ID_AA64DFR0_EL1);
		assert_int_equal(dfr0 & 0xF0FF, hw & 0xF0FF);
	}
	assert_int_equal(vm_with(r, 0, 0, 0), PV_OK);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_AA64DFR0_EL1), PV_ID_AA64DFR0_PMUVER),
			 0);
	free(r);
}

static void test_unmanaged_extensions_hidden(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	/* A richer machine: SPE, TRBE, BRBE, MTPMU, AMUv1p1, MPAM, PMU instruction counter. */
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMSVER, 3);
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_TRACEBUFFER, 1);
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_BRBE, 1);
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_MTPMU, 1);
	set_field(r, PV_ID_AA64DFR1_EL1, PV_ID_AA64DFR1_PMICNTR, 1);
	set_field(r, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_AMU, 2);
	set_field(r, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_MPAM, 1);
	set_field(r, PV_ID_AA64PFR1_EL1, PV_ID_AA64PFR1_MPAM_FRAC, 1);
	set_field(r, PV_ID_PFR0_EL1, PV_ID_PFR0_AMU, 1);
	*memplat_reg(&r->mc, PV_MPAMIDR_EL1) = PV_MPAMIDR_HAS_HCR;
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_true(r->hw.spe && r->hw.trbe && r->hw.amu && r->hw.amuv1p1 && r->hw.mpam);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 6), PV_OK);
	uint64_t dfr0 = guest_read(r, PV_ID_AA64DFR0_EL1);
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMSVER), 0);
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_TRACEBUFFER), 0);
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_BRBE), 0);
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_MTPMU), 0);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_AA64DFR1_EL1), PV_ID_AA64DFR1_PMICNTR),
			 0);
	uint64_t pfr0 = guest_read(r, PV_ID_AA64PFR0_EL1);
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_AMU), 0);
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_MPAM), 0);
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL2_STATES), 2); /* untouched field */
	assert_int_equal(
		PV_ID_FIELD(guest_read(r, PV_ID_AA64PFR1_EL1), PV_ID_AA64PFR1_MPAM_FRAC), 0);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_PFR0_EL1), PV_ID_PFR0_AMU), 0);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_DFR0_EL1), PV_ID_DFR0_PERFMON), 0);

	/* ...and the same features trap: SPE by MDCR_EL2, AMU by CPTR_EL2, MPAM by MPAM2_EL2. */
	const struct pv_trap_words *w = &r->v.traps;
	assert_int_equal(PV_FIELD_GET(PV_MDCR_EL2_E2PB, w->mdcr_el2), PV_MDCR_EL2_E2PB_EL2);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_TPMS);
	assert_true(w->mdcr_el2_owned & PV_MDCR_EL2_E2PB);
	assert_true(w->cptr_el2 & PV_CPTR_EL2_TAM);
	assert_true(w->hcr_el2_owned & PV_HCR_EL2_AMVOFFEN);
	assert_false(w->hcr_el2 & PV_HCR_EL2_AMVOFFEN);
	assert_true(w->mpam2_el2 & PV_MPAM2_EL2_TRAPMPAM1EL1);
	assert_true(w->mpam2_el2 & PV_MPAM2_EL2_TRAPMPAM0EL1);
	assert_true(w->mpamhcr_el2 & PV_MPAMHCR_EL2_TRAP_MPAMIDR);
	assert_false(w->mpamhcr_el2 & (PV_MPAMHCR_EL2_EL1_VPMEN | PV_MPAMHCR_EL2_EL0_VPMEN));
	free(r);
}

/* ID_AA64DFR1_EL1.DPFZS says whether PMCR_EL0.FZS freezes the cycle counter (with DP): a
 * VM has FZS with a PMU and SPEv1p2 (Arm ARM D24.5.8), and its FZS is the hardware's, so it
 * sees the hardware's DPFZS; a VM without FZS sees none. */
static void test_dpfzs_with_fzs(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMSVER, 3);
	set_field(r, PV_ID_AA64DFR1_EL1, PV_ID_AA64DFR1_DPFZS, 1);
	*memplat_reg(&r->mc, PV_PMSIDR_EL1) = PV_FIELD_PREP(PV_PMSIDR_MAXSIZE, 6);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	struct pv_vm_config cfg = {.features = PV_FEAT_PMU | PV_FEAT_SPE};
	cfg.pmu.version = PV_PMUVER_V3P5;
	cfg.pmu.nr_counters = 2;
	cfg.spe.version = PV_SPE_V1P2;
	cfg.spe.max_buffer = PV_SPE_PAGE;
	assert_int_equal(pv_vm_init(&r->vm, &r->hw, &cfg), PV_OK);
	pv_vcpu_init(&r->v, &r->vm, 0, NULL);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_AA64DFR1_EL1), PV_ID_AA64DFR1_DPFZS),
			 1);
	assert_true(r->vm.pmu.pmcr_stored & PV_PMCR_FZS);
	cfg.spe.version = PV_SPE_V1P1; /* no FZS, no DPFZS */
	assert_int_equal(pv_vm_init(&r->vm, &r->hw, &cfg), PV_OK);
	pv_vcpu_init(&r->v, &r->vm, 0, NULL);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_AA64DFR1_EL1), PV_ID_AA64DFR1_DPFZS),
			 0);
	assert_false(r->vm.pmu.pmcr_stored & PV_PMCR_FZS);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 2), PV_OK);
	assert_int_equal(PV_ID_FIELD(guest_read(r, PV_ID_AA64DFR1_EL1), PV_ID_AA64DFR1_DPFZS),
			 0);
	free(r);
}

static void test_mpam_without_hcr_uses_tidr(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	set_field(r, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_MPAM, 1);
	*memplat_reg(&r->mc, PV_MPAMIDR_EL1) = PV_MPAMIDR_HAS_TIDR;
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, 0, 0, 0), PV_OK);
	assert_true(r->v.traps.mpam2_el2 & PV_MPAM2_EL2_TIDR);
	assert_int_equal(r->v.traps.mpamhcr_el2_owned, 0);
	free(r);
}

static void test_mdcr_partition(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 2), PV_OK);
	assert_int_equal(r->hw.hpmn, 4);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 4), PV_OK);
	const struct pv_trap_words *w = &r->v.traps;
	assert_int_equal(w->mdcr_el2 & PV_MDCR_EL2_HPMN, 4);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_TPM);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_TPMCR);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_HPME);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_HPMD);
	assert_true(w->mdcr_el2 & PV_MDCR_EL2_HCCD);
	assert_false(w->mdcr_el2 & PV_MDCR_EL2_TPMS); /* no SPE: RES0 left clear */
	/* Every field set is a field owned; the hypervisor's debug fields are not owned. */
	assert_int_equal(w->mdcr_el2 & ~w->mdcr_el2_owned, 0);
	assert_int_equal(w->mdcr_el2_owned & (PV_MDCR_EL2_TDE | PV_MDCR_EL2_TDA |
					      PV_MDCR_EL2_TDOSA | PV_MDCR_EL2_TDRA),
			 0);
	assert_int_equal(w->hcr_el2 & ~w->hcr_el2_owned, 0);
	assert_true(w->hcr_el2 & PV_HCR_EL2_TID3);
	/* A VM without PMU is trapped just the same: its accesses must UNDEF, not reach HW. */
	assert_int_equal(vm_with(r, 0, 0, 0), PV_OK);
	assert_true(r->v.traps.mdcr_el2 & PV_MDCR_EL2_TPM);
	free(r);

	r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 6), PV_OK);
	assert_false(r->v.traps.mdcr_el2 & PV_MDCR_EL2_HPME); /* no host counters */
	assert_int_equal(r->v.traps.mdcr_el2 & PV_MDCR_EL2_HPMN, 6);
	free(r);
}

static void test_probe_and_config_errors(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 7), PV_ERR_HOST_COUNTERS);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 6), PV_ERR_HPMN0); /* QEMU: no HPMN0 */
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_HPMN0, 1);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 6), PV_OK);
	assert_int_equal(r->hw.hpmn, 0);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 1), PV_ERR_PMU_COUNTERS);

	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 1), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 6), PV_ERR_PMU_COUNTERS);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P7, 2), PV_ERR_PMU_VERSION);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, 2, 2), PV_ERR_PMU_VERSION);
	assert_int_equal(vm_with(r, PV_FEAT_SPE, 0, 0), PV_ERR_FEATURE);
	assert_int_equal(vm_with(r, PV_FEAT_AMU, 0, 0), PV_ERR_FEATURE);
	assert_int_equal(vm_with(r, PV_FEAT_MPAM, 0, 0), PV_ERR_FEATURE);
	assert_int_equal(vm_with(r, 1u << 7, 0, 0), PV_ERR_UNSUPPORTED);
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMSVER, 1);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 1), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_SPE, 0, 0), PV_ERR_UNSUPPORTED);

	/* No PMU at all: a PMU VM is refused, a host reservation too. */
	set_field(r, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMUVER, 0);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 1), PV_ERR_HOST_COUNTERS);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3, 1), PV_ERR_NO_PMU);
	assert_int_equal(vm_with(r, 0, 0, 0), PV_OK);
	assert_int_equal(r->v.traps.mdcr_el2 & (PV_MDCR_EL2_TPM | PV_MDCR_EL2_HPMN), 0);

	for (int e = 0; e >= -10; e--)
		assert_string_not_equal(pv_strerror(e), "unknown error");
	assert_string_equal(pv_strerror(-99), "unknown error");
	free(r);
}

static void test_id_el0_and_reserved(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 2), PV_OK);
	uint64_t x[31] = {0};
	/* Without FEAT_IDST an EL0 read of the ID space is UNDEFINED... */
	assert_int_equal(pv_trap(&r->v, esr_sys(PV_ID_AA64DFR0_EL1, 0, true), 0, x),
			 PV_TRAP_UNDEF);
	/* ...with it, it traps to EL1 as EC 0x18. */
	set_field(r, PV_ID_AA64MMFR2_EL1, PV_ID_AA64MMFR2_IDS, 1);
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 2), PV_OK);
	assert_int_equal(pv_trap(&r->v, esr_sys(PV_ID_AA64DFR0_EL1, 0, true), 0, x),
			 PV_TRAP_EL1_SYSREG);
	/* Reserved encodings in the group read as the hardware's (zero). */
	x[0] = 77;
	assert_int_equal(guest_read(r, PV_SYSREG(3, 0, 0, 5, 3)), 0);
	free(r);
}

static void test_load_put_robust(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	assert_int_equal(pv_hw_probe(&r->hw, &r->cpu, 0), PV_OK);
	assert_int_equal(vm_with(r, PV_FEAT_PMU, PV_PMUVER_V3P5, 2), PV_OK);
	struct pv_vcpu other;
	pv_vcpu_init(&other, &r->vm, 1, NULL);
	pv_vcpu_put(&r->v); /* not loaded: nothing happens */
	pv_vcpu_load(&r->v, &r->cpu);
	pv_vcpu_load(&r->v, &r->cpu); /* twice: still one load */
	assert_int_equal(r->v.stats.loads, 1);
	pv_vcpu_load(&other, &r->cpu); /* forgot the put: the previous vCPU is put */
	assert_null(r->v.cpu);
	assert_ptr_equal(r->cpu.loaded, &other);
	pv_vcpu_put(&other);
	assert_null(r->cpu.loaded);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmuver_follows_vm),
		cmocka_unit_test(test_unmanaged_extensions_hidden),
		cmocka_unit_test(test_dpfzs_with_fzs),
		cmocka_unit_test(test_mpam_without_hcr_uses_tidr),
		cmocka_unit_test(test_mdcr_partition),
		cmocka_unit_test(test_probe_and_config_errors),
		cmocka_unit_test(test_id_el0_and_reserved),
		cmocka_unit_test(test_load_put_robust),
	};
	return cmocka_run_group_tests_name("trap_views", tests, NULL, NULL);
}
