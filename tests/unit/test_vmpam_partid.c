/* SPDX-License-Identifier: MIT */
/* vmpam: discovery, the usable PARTID range, allocation and exhaustion, and the per-PARTID
 * limits the driver writes (MPAMCFG_PART_SEL, MBW_MAX, CPBM). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_vmpam_rig.h"

/* Memory MSC of node 0 with 8-bit MBW_MAX and one monitor; cache MSC 0 with 16 portions. */
static struct rig *two_mscs(uint64_t cpu_idr, unsigned mem_partid_max,
			    unsigned cache_partid_max)
{
	struct rig *r = rig_new(cpu_idr);
	rig_msc(r, PV_VMPAM_MSC_MEMORY, 0, IDR(mem_partid_max, 3, 1, 0, 1), MBW_IDR(8, 0, 1), 0,
		MBWUMON_IDR(4, 0, 1, 1));
	rig_msc(r, PV_VMPAM_MSC_CACHE, 0, IDR(cache_partid_max, 7, 0, 1, 0), 0, 16, 0);
	return r;
}

static void test_usable_range(void **state)
{
	(void)state;
	/* The least PARTID_MAX and PMG_MAX over the pCPUs and the MSCs. */
	struct rig *r = two_mscs(CPU_IDR(255, 5, 0, 0), 200, 63);
	r->cpu_idr[1] = CPU_IDR(127, 4, 0, 0);
	r->ncpus = 2;
	assert_int_equal(rig_init(r, 1), 0);
	assert_int_equal(r->sys.partid_max, 63);
	assert_int_equal(r->sys.pmg_max, 3);
	assert_int_equal(r->sys.nnodes, 1);
	assert_int_equal(r->sys.ncaches, 1);
	assert_int_equal(r->sys.node[0].nmons, 4);
	assert_false(r->sys.has_hcr);
	free(r);

	r = two_mscs(CPU_IDR(31, 1, 1, 7), 200, 255);
	assert_int_equal(rig_init(r, 1), 0);
	assert_int_equal(r->sys.partid_max, 31);
	assert_int_equal(r->sys.pmg_max, 1);
	assert_true(r->sys.has_hcr);
	assert_int_equal(r->sys.vpm_entries, 32);
	/* HAS_HCR only if every pCPU has it; VPM entries from the least VPMR_MAX. */
	r->cpu_idr[1] = CPU_IDR(31, 1, 1, 1);
	r->ncpus = 2;
	assert_int_equal(rig_init(r, 1), 0);
	assert_int_equal(r->sys.vpm_entries, 8);
	r->cpu_idr[1] = CPU_IDR(31, 1, 0, 7);
	assert_int_equal(rig_init(r, 1), 0);
	assert_false(r->sys.has_hcr);
	assert_int_equal(r->sys.vpm_entries, 0);
	free(r);
}

static void test_probe_refusals(void **state)
{
	(void)state;
	struct rig *r = two_mscs(CPU_IDR(255, 5, 0, 0), 200, 63);
	*rig_word(r, 1, R_AIDR) = 0x20; /* MPAM v2: not driven */
	assert_int_equal(rig_init(r, 1), PV_VMPAM_ERR_MSC_ARCH);
	*rig_word(r, 1, R_AIDR) = 0x11;
	*rig_word(r, 1, R_IDR) |= 1u << 31; /* HAS_PARTID_NRW */
	assert_int_equal(rig_init(r, 1), PV_VMPAM_ERR_MSC_NRW);
	*rig_word(r, 1, R_IDR) &= ~(1u << 31);
	assert_int_equal(rig_init(r, 64), PV_VMPAM_ERR_SETUP); /* nothing left for VMs */
	assert_int_equal(rig_init(r, 63), 0);
	r->ncpus = 0;
	assert_int_equal(rig_init(r, 1), PV_VMPAM_ERR_CPU);
	r->ncpus = 1;
	r->setup.nacct = 1;
	assert_int_equal(pv_vmpam_init(&r->sys, &r->cpu, &r->setup), PV_VMPAM_ERR_SETUP);
	assert_string_equal(
		pv_vmpam_strerror(PV_VMPAM_ERR_NO_PARTID),
		"no free PARTID: every usable PARTID belongs to the host or another VM");
	free(r);
}

static void test_allocation(void **state)
{
	(void)state;
	/* PARTIDs 0..15 usable, 0..3 the host's: 12 for VMs. */
	struct rig *r = two_mscs(CPU_IDR(15, 1, 0, 0), 63, 63);
	assert_int_equal(rig_init(r, 4), 0);
	static struct pv_vm_mpam vm[16];
	bool seen[16] = {false};
	struct pv_vmpam_config two = {.nr_partids = 2};
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[i], &two, true),
				 0);
		for (unsigned v = 0; v < 2; v++) {
			unsigned p = vm[i].partid[v];
			assert_true(p >= 4 && p <= 15);
			assert_false(seen[p]); /* never shared */
			seen[p] = true;
		}
	}
	/* Exhausted: a clear error, nothing half-allocated; releasing the refused VM (as a
	 * caller cleaning up would) gives back nothing and leaves the table as it was. */
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[6], NULL, true),
			 PV_VMPAM_ERR_NO_PARTID);
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm[6]);
	assert_int_equal(r->sys.nvms, 6);
	for (unsigned i = 0; i < 6; i++)
		assert_ptr_equal(r->sys.vms[i], &vm[i]);
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm[2]);
	assert_int_equal(r->sys.nvms, 5);
	struct pv_vmpam_config three = {.nr_partids = 3};
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[6], &three, true),
			 PV_VMPAM_ERR_NO_PARTID);
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[6], &two, true), 0);
	assert_true(seen[vm[6].partid[0]] && seen[vm[6].partid[1]]); /* vm[2]'s, reused */
	/* The table stays dense: the last VM took vm[2]'s place. */
	for (unsigned i = 0; i < r->sys.nvms; i++)
		assert_int_equal(r->sys.vms[i]->index, i);
	/* More virtual PARTIDs than a VM can have. */
	struct pv_vmpam_config many = {.nr_partids = 33};
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[7], &many, true),
			 PV_VMPAM_ERR_VPARTIDS);
	/* More PARTIDs than the node has monitors (4). */
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm[0]);
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm[1]);
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm[3]);
	struct pv_vmpam_config five = {.nr_partids = 5};
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[7], &five, true),
			 PV_VMPAM_ERR_MONITORS);
	free(r);
}

/* Through the core: every VM gets PARTIDs where MPAM is managed, and pv_vm_release gives them
 * back (the next VM is given the same ones). */
static void test_vm_release_through_the_core(void **state)
{
	(void)state;
	struct rig *r = two_mscs(CPU_IDR(15, 1, 0, 0), 63, 63);
	assert_int_equal(rig_init(r, 4), 0);
	struct pv_hw hw = {.mpam = true, .mpam_sys = &r->sys, .mpam_cpu = &r->cpu};
	static struct pv_vm vm[2];
	struct pv_vm_config cfg = {.features = 0, .mpam = {.nr_partids = 2}};
	assert_int_equal(pv_vm_init(&vm[0], &hw, &cfg), PV_OK);
	assert_int_equal(r->sys.nvms, 1);
	unsigned p0 = vm[0].mpam.partid[0], p1 = vm[0].mpam.partid[1];
	assert_true(p0 >= 4 && p1 >= 4 && p0 != p1);
	pv_vm_release(&vm[0]);
	assert_int_equal(r->sys.nvms, 0);
	assert_int_equal(pv_vm_init(&vm[1], &hw, &cfg), PV_OK);
	assert_true((vm[1].mpam.partid[0] == p0 || vm[1].mpam.partid[0] == p1) &&
		    (vm[1].mpam.partid[1] == p0 || vm[1].mpam.partid[1] == p1));
	pv_vm_release(&vm[1]);
	free(r);
}

static void test_vpm_limit_and_table(void **state)
{
	(void)state;
	/* VPMR_MAX = 0: four virtual PARTIDs per VM at most. */
	struct rig *r = two_mscs(CPU_IDR(255, 1, 1, 0), 255, 255);
	assert_int_equal(rig_init(r, 1), 0);
	static struct pv_vm_mpam vm[RIG_VMS + 1];
	struct pv_vmpam_config five = {.nr_partids = 5}, four = {.nr_partids = 4};
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[0], &five, true),
			 PV_VMPAM_ERR_VPARTIDS);
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[0], &four, true), 0);
	for (unsigned i = 1; i < RIG_VMS; i++)
		assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[i], NULL, false),
				 0);
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm[RIG_VMS], NULL, false),
			 PV_VMPAM_ERR_VM_TABLE);
	free(r);
}

/* The MBW_MAX value nearest to pct % (the fraction is (MAX + 1) / 2^wd), computed here by
 * search rather than by formula. */
static uint32_t nearest_max(unsigned pct, unsigned wd)
{
	unsigned best = 1;
	for (unsigned k = 1; k <= (1u << wd); k++) {
		long d = labs((long)k * 100 - (long)pct * (1L << wd));
		long db = labs((long)best * 100 - (long)pct * (1L << wd));
		if (d < db)
			best = k;
	}
	return (best - 1) << (16 - wd) | 1u << 31;
}

static void test_limits_programmed(void **state)
{
	(void)state;
	struct rig *r = two_mscs(CPU_IDR(255, 1, 0, 0), 255, 255);
	assert_int_equal(rig_init(r, 1), 0);
	static struct pv_vm_mpam vm;
	static const unsigned pcts[] = {1, 10, 25, 33, 50, 60, 75, 99};
	for (unsigned i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		struct pv_vmpam_config c = {.mbw_max = {(uint8_t)pcts[i]}, .cpbm = {0x00F0}};
		assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm, &c, true), 0);
		/* The memory MSC's PART_SEL names the VM's PARTID; MBW_MAX is the cap. */
		assert_int_equal(*rig_word(r, 0, R_PART_SEL), vm.partid[0]);
		assert_int_equal(*rig_word(r, 0, R_MBW_MAX), nearest_max(pcts[i], 8));
		assert_int_equal(*rig_word(r, 1, R_PART_SEL), vm.partid[0]);
		assert_int_equal(*rig_word(r, 1, R_CPBM), 0x00F0);
		pv_vmpam_partition_release(&r->sys, &r->cpu, &vm);
		/* Released: no limit, every portion. */
		assert_int_equal(*rig_word(r, 0, R_MBW_MAX) & 0x8000FF00, 0xFF00);
		assert_int_equal(*rig_word(r, 1, R_CPBM) & 0xFFFF, 0xFFFF);
	}
	/* 0 and 100 % are no cap. */
	struct pv_vmpam_config c = {.mbw_max = {100}};
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm, &c, true), 0);
	assert_int_equal(*rig_word(r, 0, R_MBW_MAX) & 0x8000FF00, 0xFF00);
	/* Changing the limits live. */
	c.mbw_max[0] = 50;
	assert_int_equal(pv_vmpam_vm_set_limits(&r->sys, &r->cpu, &vm, &c), 0);
	assert_int_equal(*rig_word(r, 0, R_MBW_MAX), nearest_max(50, 8));
	/* Refused: above 100 %, a node without MBW_MAX, an unknown cache, portions past
	 * CPBM_WD; nothing changes. */
	c.mbw_max[0] = 101;
	assert_int_equal(pv_vmpam_vm_set_limits(&r->sys, &r->cpu, &vm, &c),
			 PV_VMPAM_ERR_BANDWIDTH);
	c.mbw_max[0] = 50;
	c.mbw_max[1] = 50;
	assert_int_equal(pv_vmpam_vm_set_limits(&r->sys, &r->cpu, &vm, &c),
			 PV_VMPAM_ERR_BANDWIDTH);
	c.mbw_max[1] = 0;
	c.cpbm[1] = 1;
	assert_int_equal(pv_vmpam_vm_set_limits(&r->sys, &r->cpu, &vm, &c), PV_VMPAM_ERR_CACHE);
	c.cpbm[1] = 0;
	c.cpbm[0] = 0x10000;
	assert_int_equal(pv_vmpam_vm_set_limits(&r->sys, &r->cpu, &vm, &c), PV_VMPAM_ERR_CACHE);
	assert_int_equal(vm.cfg.mbw_max[0], 50);
	free(r);
}

static void test_msc_error_on_config(void **state)
{
	(void)state;
	struct rig *r = two_mscs(CPU_IDR(255, 1, 0, 0), 255, 255);
	assert_int_equal(rig_init(r, 1), 0);
	static struct pv_vm_mpam vm;
	/* The cache MSC reports an error: the VM is refused, its PARTID freed, ESR cleared. */
	*rig_word(r, 1, R_ESR) = 9u << 24 | 5;
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm, NULL, true),
			 PV_VMPAM_ERR_MSC_ERROR);
	assert_int_equal(*rig_word(r, 1, R_ESR), 0);
	assert_int_equal(r->sys.stats.msc_errors, 1);
	assert_int_equal(r->sys.stats.last_esr, 9u << 24 | 5);
	assert_int_equal(r->sys.nvms, 0);
	pv_vmpam_partition_release(&r->sys, &r->cpu, &vm); /* the refused VM: nothing to give */
	assert_int_equal(r->sys.nvms, 0);
	assert_int_equal(pv_vmpam_partition_init(&r->sys, &r->cpu, &vm, NULL, true), 0);
	assert_int_equal(vm.partid[0], 1);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usable_range),
		cmocka_unit_test(test_probe_refusals),
		cmocka_unit_test(test_allocation),
		cmocka_unit_test(test_vm_release_through_the_core),
		cmocka_unit_test(test_vpm_limit_and_table),
		cmocka_unit_test(test_limits_programmed),
		cmocka_unit_test(test_msc_error_on_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
