/* SPDX-License-Identifier: MIT */
/* The core's lifecycle verbs: a pCPU's power-down (pv_pcpu_suspend/resume) keeps the loaded
 * vCPU's state through a hardware that forgets its own, a vCPU released while its pCPU is down
 * does not come back with it, and pv_vcpu_release leaves nothing loaded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "vcpu_rig.h"
#include "perfvisor/trap.h"

static struct vcpu_rig *rig_new(void)
{
	return vcpu_rig_new(0, PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
}

static enum pv_trap_result guest(struct vcpu_rig *r, uint32_t key, bool is_read, uint64_t *val)
{
	r->x[3] = is_read ? 0 : *val;
	enum pv_trap_result res = pv_trap(&r->v, esr_sys(key, 3, is_read), 1, r->x);
	if (is_read)
		*val = r->x[3];
	return res;
}

/* Power is lost: the PMU's registers read 0 again (the architecture says UNKNOWN; the ID
 * registers are read-only and stay). */
static void power_loss(struct vcpu_rig *r)
{
	static const uint32_t keys[] = {PV_PMCR_EL0,       PV_PMCNTENSET_EL0, PV_PMCNTENCLR_EL0,
					PV_PMINTENSET_EL1, PV_PMOVSSET_EL0,   PV_PMSELR_EL0,
					PV_PMUSERENR_EL0,  PV_PMCCNTR_EL0,    PV_PMCCFILTR_EL0};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		*memplat_reg(&r->mc, keys[i]) = 0;
	for (unsigned n = 0; n < 31; n++)
		*memplat_reg(&r->mc, PV_PMEVCNTR_EL0(n)) = *memplat_reg(
			&r->mc, PV_PMEVTYPER_EL0(n)) = 0;
}

static void test_suspend_resume_keeps_the_vcpu(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	uint64_t cyc = 0x1234, ev = 77, en = 1u | 1u << PV_PMU_CYCLE_IDX, sel = 2;
	assert_int_equal(guest(r, PV_PMCCNTR_EL0, false, &cyc), PV_TRAP_HANDLED);
	assert_int_equal(guest(r, PV_PMEVCNTR_EL0(0), false, &ev), PV_TRAP_HANDLED);
	assert_int_equal(guest(r, PV_PMCNTENSET_EL0, false, &en), PV_TRAP_HANDLED);
	assert_int_equal(guest(r, PV_PMSELR_EL0, false, &sel), PV_TRAP_HANDLED);

	pv_pcpu_suspend(&r->cpu);
	assert_null(r->cpu.loaded);
	assert_null(r->v.cpu);
	assert_ptr_equal(r->cpu.suspended, &r->v);
	/* The counters stopped before power went (the plain-memory platform keeps the set and
	 * clear views as two cells: the clear was written). */
	assert_int_equal(*memplat_reg(&r->mc, PV_PMCNTENCLR_EL0) & en, en);
	power_loss(r);

	pv_pcpu_resume(&r->cpu);
	assert_ptr_equal(r->cpu.loaded, &r->v);
	assert_ptr_equal(r->v.cpu, &r->cpu);
	assert_null(r->cpu.suspended);
	/* pcpu_setup ran again (EL0 access to the PMU reaches EL2 only with PMUSERENR.EN), and
	 * the vCPU's counters and enables are back in the hardware. */
	assert_int_equal(*memplat_reg(&r->mc, PV_PMUSERENR_EL0), PV_PMUSERENR_EN);
	assert_int_equal(*memplat_reg(&r->mc, PV_PMCCNTR_EL0), 0x1234);
	assert_int_equal(*memplat_reg(&r->mc, PV_PMEVCNTR_EL0(0)), 77);
	assert_int_equal(*memplat_reg(&r->mc, PV_PMCNTENSET_EL0) & en, en);
	uint64_t val = 0;
	assert_int_equal(guest(r, PV_PMCCNTR_EL0, true, &val), PV_TRAP_HANDLED);
	assert_int_equal(val, 0x1234);
	assert_int_equal(guest(r, PV_PMSELR_EL0, true, &val), PV_TRAP_HANDLED);
	assert_int_equal(val, 2);
	free(r);
}

/* Nothing loaded at suspend: resume only sets the pCPU up again. */
static void test_suspend_idle_pcpu(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	pv_vcpu_put(&r->v);
	pv_pcpu_suspend(&r->cpu);
	assert_null(r->cpu.suspended);
	power_loss(r);
	pv_pcpu_resume(&r->cpu);
	assert_null(r->cpu.loaded);
	assert_null(r->v.cpu);
	assert_int_equal(*memplat_reg(&r->mc, PV_PMUSERENR_EL0), PV_PMUSERENR_EN);
	free(r);
}

static void test_release_while_suspended(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	pv_pcpu_suspend(&r->cpu);
	pv_vcpu_release(&r->v);
	assert_null(r->cpu.suspended);
	pv_pcpu_resume(&r->cpu);
	assert_null(r->cpu.loaded); /* the released vCPU did not come back */
	assert_null(r->v.cpu);
	assert_int_equal(pv_vm_release(&r->vm), PV_OK);
	free(r);
}

static void test_release_puts(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	uint64_t en = 1u;
	assert_int_equal(guest(r, PV_PMCNTENSET_EL0, false, &en), PV_TRAP_HANDLED);
	pv_vcpu_release(&r->v);
	assert_null(r->cpu.loaded);
	assert_null(r->v.cpu);
	assert_int_equal(*memplat_reg(&r->mc, PV_PMCNTENCLR_EL0) & 1u, 1u); /* stopped */
	pv_vm_release(&r->vm);
	free(r);
}

/* A second pCPU for the same VM: the rig's platform memory serves both (the tests only
 * move the vCPU and look at who is loaded where). */
static void second_cpu(struct vcpu_rig *r, struct pv_pcpu *cpu1)
{
	pv_pcpu_init(cpu1, &r->mc);
	pv_pcpu_setup(cpu1, &r->hw);
}

/* Suspending a pCPU twice keeps the vCPU of the first: it comes back at the resume. */
static void test_suspend_twice(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	pv_pcpu_suspend(&r->cpu);
	pv_pcpu_suspend(&r->cpu);
	assert_ptr_equal(r->cpu.suspended, &r->v);
	pv_pcpu_resume(&r->cpu);
	assert_ptr_equal(r->cpu.loaded, &r->v);
	assert_ptr_equal(r->v.cpu, &r->cpu);
	free(r);
}

/* A vCPU the hypervisor ran elsewhere, or stopped running, while its pCPU was down is not
 * loaded there again at the resume. */
static void test_resume_after_move_or_put(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	struct pv_pcpu cpu1;
	second_cpu(r, &cpu1);
	pv_pcpu_suspend(&r->cpu);
	pv_vcpu_load(&r->v, &cpu1);
	pv_vcpu_put(&r->v);
	pv_pcpu_resume(&r->cpu);
	assert_null(r->cpu.loaded);
	assert_null(r->v.cpu);

	pv_vcpu_load(&r->v, &r->cpu);
	pv_pcpu_suspend(&r->cpu);
	pv_vcpu_put(&r->v); /* descheduled while the pCPU is down */
	pv_pcpu_resume(&r->cpu);
	assert_null(r->cpu.loaded);
	assert_null(r->v.cpu);
	free(r);
}

/* Suspended on one pCPU, moved and suspended on another, then released: neither resume
 * brings it back. */
static void test_release_after_two_suspends(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	struct pv_pcpu cpu1;
	second_cpu(r, &cpu1);
	pv_pcpu_suspend(&r->cpu);
	pv_vcpu_load(&r->v, &cpu1);
	pv_pcpu_suspend(&cpu1);
	pv_vcpu_release(&r->v);
	pv_pcpu_resume(&r->cpu);
	pv_pcpu_resume(&cpu1);
	assert_null(r->cpu.loaded);
	assert_null(cpu1.loaded);
	assert_null(r->v.cpu);
	assert_int_equal(pv_vm_release(&r->vm), PV_OK);
	free(r);
}

/* A VM with a vCPU not released is not released: nothing is given back. */
static void test_vm_release_waits_for_vcpus(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	assert_int_equal(pv_vm_release(&r->vm), PV_ERR_VCPUS_LIVE);
	assert_ptr_equal(r->cpu.loaded, &r->v); /* untouched */
	pv_vcpu_release(&r->v);
	pv_vcpu_release(&r->v); /* twice: the second does nothing */
	assert_int_equal(r->vm.nr_vcpus, 0);
	assert_int_equal(pv_vm_release(&r->vm), PV_OK);
	assert_non_null(strstr(pv_strerror(PV_ERR_VCPUS_LIVE), "vCPU"));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suspend_resume_keeps_the_vcpu),
		cmocka_unit_test(test_suspend_idle_pcpu),
		cmocka_unit_test(test_release_while_suspended),
		cmocka_unit_test(test_release_puts),
		cmocka_unit_test(test_suspend_twice),
		cmocka_unit_test(test_resume_after_move_or_put),
		cmocka_unit_test(test_release_after_two_suspends),
		cmocka_unit_test(test_vm_release_waits_for_vcpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
