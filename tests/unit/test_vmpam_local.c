/* SPDX-License-Identifier: MIT */
/*
 * vmpam local bytes, in isolation: the physical PMG a vCPU's MPAM1_EL1/MPAM0_EL1 get on load,
 * on a migration and on a trapped write (the node local to the pCPU), the guest's PMG read
 * back unchanged, when local bytes are counted at all (topology, PMG_MAX), and what the
 * monitors are programmed with (replayed from the MMIO write log: MSMON_CFG_MON_SEL selects,
 * MSMON_CFG_MBWU_FLT / _CTL configure the selected monitor).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_vmpam_rig.h"

#define MPAMEN (UINT64_C(1) << 63)

/* MSMON_CFG_MBWU_CTL: MATCH_PARTID 16, MATCH_PMG 17, EN 31; FLT: PARTID 15:0, PMG 23:16 */
#define CTL_MATCH_PARTID (1u << 16)
#define CTL_MATCH_PMG (1u << 17)
#define CTL_EN (1u << 31)

struct fx {
	struct rig *r;
	struct pv_vm_mpam vm[3];
	struct pv_vcpu v;
};

/* Two memory nodes (MSC 0: node 0, MSC 1: node 1), `mons` monitors each with 63-bit counters,
 * MSC PMG_MAX `pmg_max`; two pCPUs, pCPU n local to node n (given when `topology`). */
static struct fx *fx_new(bool hcr, bool topology, unsigned pmg_max, unsigned mons)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->r = rig_new(CPU_IDR(255, 7, hcr, 1) | (hcr ? 0 : PV_MPAMIDR_HAS_TIDR));
	for (unsigned n = 0; n < 2; n++)
		rig_msc(f->r, PV_VMPAM_MSC_MEMORY, n, IDR(255, pmg_max, 1, 0, 1),
			MBW_IDR(8, 0, 1), 0, MBWUMON_IDR(mons, 0, 1, 1));
	f->r->ncpus = 2;
	f->r->topology = topology;
	f->r->cpu_node[0] = 0;
	f->r->cpu_node[1] = 1;
	return f;
}

static void fx_vm(struct fx *f, unsigned i, unsigned nr_partids)
{
	struct pv_vmpam_config c = {.nr_partids = (uint8_t)nr_partids};
	assert_int_equal(pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->vm[i], &c, true),
			 0);
}

/* fx_new, init, one VM with two PARTIDs and a vCPU of it. */
static struct fx *fx_running(bool hcr, bool topology, unsigned pmg_max)
{
	struct fx *f = fx_new(hcr, topology, pmg_max, 8);
	assert_int_equal(rig_init(f->r, 10), 0);
	fx_vm(f, 0, 2);
	pv_vmpam_vcpu_attach(&f->v.mpam, &f->vm[0]);
	f->v.plat = &f->r->mv;
	return f;
}

static void fx_free(struct fx *f)
{
	free(f->r);
	free(f);
}

static uint64_t hwreg(struct memplat_cpu *mc, uint32_t key)
{
	return *memplat_reg(mc, key);
}

static void load_on(struct fx *f, struct pv_pcpu *cpu)
{
	pv_vmpam_put(&f->v);
	f->v.cpu = cpu;
	pv_vmpam_load(&f->v);
}

/* Both label registers of a pCPU carry `node` as PMG_I and PMG_D, and the VM's PARTIDs the
 * guest chose (virtual with the VPM, physical without). */
static void expect_labels(struct fx *f, struct memplat_cpu *mc, unsigned node, unsigned pi1,
			  unsigned pd1, unsigned pi0, unsigned pd0, bool hcr)
{
	uint64_t m1 = hwreg(mc, PV_MPAM1_EL1), m0 = hwreg(mc, PV_MPAM0_EL1);
	const uint16_t *p = f->vm[0].partid;
	assert_int_equal(m1, MPAMN(hcr ? pi1 : p[pi1], hcr ? pd1 : p[pd1], node, node));
	assert_int_equal(m0, MPAMN(hcr ? pi0 : p[pi0], hcr ? pd0 : p[pd0], node, node));
}

/* Load on pCPU 0 labels with node 0, migration to pCPU 1 with node 1, and back; the guest's
 * PMGs are never on the bus and read back as written. */
static void test_label_follows_pcpu(void **state)
{
	(void)state;
	for (unsigned hcr = 0; hcr < 2; hcr++) {
		struct fx *f = fx_running(hcr, true, 3);
		assert_int_equal(f->r->sys.local, PV_VMPAM_LOCAL_COUNTED);
		/* Written while not loaded: kept, nothing reaches hardware. */
		assert_int_equal(pv_vmpam_mpam1_write(&f->v, 0, 1, MPAMN(1, 0, 3, 2)),
				 PV_TRAP_HANDLED);
		assert_int_equal(pv_vmpam_mpam0_write(&f->v, 0, 1, MPAMN(0, 1, 2, 3)),
				 PV_TRAP_HANDLED);
		assert_int_equal(hwreg(&f->r->mc, PV_MPAM1_EL1), 0);
		load_on(f, &f->r->cpu);
		expect_labels(f, &f->r->mc, 0, 1, 0, 0, 1, hcr);
		assert_int_equal(F_GI(f->v.mpam.hw_mpam1), 0);
		load_on(f, &f->r->cpu2);
		expect_labels(f, &f->r->mc2, 1, 1, 0, 0, 1, hcr);
		assert_int_equal(F_GD(f->v.mpam.hw_mpam0), 1);
		/* A write while on pCPU 1 reaches its registers with node 1, whatever PMG. */
		assert_int_equal(pv_vmpam_mpam1_write(&f->v, 0, 1, MPAMN(0, 1, 0, 0)),
				 PV_TRAP_HANDLED);
		expect_labels(f, &f->r->mc2, 1, 0, 1, 0, 1, hcr);
		assert_int_equal(pv_vmpam_mpam0_write(&f->v, 0, 1, MPAMN(1, 1, 7, 200)),
				 PV_TRAP_HANDLED);
		expect_labels(f, &f->r->mc2, 1, 0, 1, 1, 1, hcr);
		/* Back on pCPU 0: node 0 again. */
		load_on(f, &f->r->cpu);
		expect_labels(f, &f->r->mc, 0, 0, 1, 1, 1, hcr);
		/* The guest reads back its own label fields as written, PMGs 7 and 200 (above
		 * PMG_MAX 3) included, as it always did. */
		uint64_t v;
		pv_vmpam_mpam1_read(&f->v, 0, 1, &v);
		assert_int_equal(v, MPAMN(0, 1, 0, 0) | MPAMEN);
		pv_vmpam_mpam0_read(&f->v, 0, 1, &v);
		assert_int_equal(v, MPAMN(1, 1, 7, 200));
		fx_free(f);
	}
}

/* Without the topology, or with PMG_MAX below nodes - 1, the hardware PMG is the guest's
 * sanitised PMG, as it always was. */
static void test_no_label_without_local(void **state)
{
	(void)state;
	struct fx *f = fx_running(true, false, 3);
	assert_int_equal(f->r->sys.local, PV_VMPAM_LOCAL_NO_TOPOLOGY);
	load_on(f, &f->r->cpu2);
	pv_vmpam_mpam1_write(&f->v, 0, 1, MPAMN(1, 1, 3, 2));
	assert_int_equal(hwreg(&f->r->mc2, PV_MPAM1_EL1), MPAMN(1, 1, 3, 2));
	pv_vmpam_mpam1_write(&f->v, 0, 1, MPAMN(1, 1, 4, 2)); /* above PMG_MAX: default */
	assert_int_equal(hwreg(&f->r->mc2, PV_MPAM1_EL1), MPAMN(1, 1, 0, 2));
	fx_free(f);

	f = fx_running(true, true, 0);
	assert_int_equal(f->r->sys.local, PV_VMPAM_LOCAL_PMG_RANGE);
	assert_int_equal(f->r->sys.pmg_max, 0);
	load_on(f, &f->r->cpu2);
	pv_vmpam_mpam1_write(&f->v, 0, 1, MPAMN(1, 0, 1, 0));
	assert_int_equal(hwreg(&f->r->mc2, PV_MPAM1_EL1), MPAMN(1, 0, 0, 0)); /* never PMG 1 */
	struct pv_vmpam_reading rd;
	pv_vmpam_tick(&f->r->sys, &f->r->cpu, 1000000);
	assert_int_equal(pv_vmpam_read_local(&f->r->sys, &f->vm[0], 1, &rd), PV_VMPAM_NO_DATA);
	assert_int_equal(pv_vmpam_read(&f->r->sys, &f->vm[0], 1, &rd), PV_VMPAM_MEASURED);
	fx_free(f);
}

/* The setup: accounting memory doubles with a topology; a node the machine lacks is refused;
 * PMG_MAX 1 suffices for two nodes (the least over pCPUs and MSCs decides). */
static void test_setup(void **state)
{
	(void)state;
	struct fx *f = fx_new(true, true, 1, 8);
	assert_int_equal(rig_init(f->r, 10), 0);
	assert_int_equal(f->r->sys.local, PV_VMPAM_LOCAL_COUNTED);
	assert_int_equal(pv_vmpam_acct_entries(&f->r->setup), (size_t)RIG_VMS * 2 * 2);
	assert_ptr_equal(f->r->sys.cpu_node, f->r->cpu_node);
	f->r->topology = false;
	assert_int_equal(rig_init(f->r, 10), 0);
	assert_int_equal(pv_vmpam_acct_entries(&f->r->setup), (size_t)RIG_VMS * 2);
	assert_null(f->r->sys.cpu_node);
	/* Too little accounting memory for the local accounts. */
	f->r->topology = true;
	f->r->setup = (struct pv_vmpam_setup){.msc = f->r->desc,
					      .nmsc = f->r->ndesc,
					      .cpu_mpamidr = f->r->cpu_idr,
					      .ncpus = 2,
					      .cpu_node = f->r->cpu_node,
					      .vms = f->r->table,
					      .max_vms = RIG_VMS,
					      .acct = f->r->acct,
					      .nacct = RIG_VMS * 2};
	assert_int_equal(pv_vmpam_init(&f->r->sys, &f->r->cpu, &f->r->setup),
			 PV_VMPAM_ERR_SETUP);
	/* pCPU 1 on node 2, which has no memory MSC. */
	f->r->cpu_node[1] = 2;
	assert_int_equal(rig_init(f->r, 10), PV_VMPAM_ERR_SETUP);
	fx_free(f);

	/* The pCPUs' PMG_MAX counts too: 0 on a pCPU leaves one PMG. */
	f = fx_new(true, true, 3, 8);
	f->r->cpu_idr[1] = CPU_IDR(255, 0, 1, 1);
	assert_int_equal(rig_init(f->r, 10), 0);
	assert_int_equal(f->r->sys.local, PV_VMPAM_LOCAL_PMG_RANGE);
	fx_free(f);
}

/* Per monitor of MSC `msc`, the last FLT and CTL written to it (by replaying MON_SEL). */
struct mon_cfg {
	uint32_t flt, ctl;
	bool set;
};
static void replay(const struct rig *r, unsigned msc, struct mon_cfg *mon, unsigned nmon)
{
	uint64_t base = RIG_BASE + msc * RIG_FRAME;
	unsigned sel = 0;
	for (unsigned i = 0; i < nmon; i++)
		mon[i] = (struct mon_cfg){0};
	for (unsigned i = 0; i < r->nwlog; i++) {
		uint64_t pa = r->wlog[i].pa;
		uint32_t v = r->wlog[i].val;
		if (pa == base + R_MON_SEL)
			sel = v & 0xFFFF;
		else if (pa == base + R_MBWU_FLT && sel < nmon)
			mon[sel].flt = v;
		else if (pa == base + R_MBWU_CTL && sel < nmon)
			mon[sel].ctl = v, mon[sel].set = true;
	}
}

/* Each VM PARTID has, on each node M, a monitor counting it with any PMG (total) and one
 * counting it with PMG M only (local). */
static void test_local_monitors(void **state)
{
	(void)state;
	struct fx *f = fx_new(true, true, 3, 8);
	assert_int_equal(rig_init(f->r, 10), 0);
	fx_vm(f, 0, 2);
	fx_vm(f, 1, 1);
	for (unsigned n = 0; n < 2; n++) {
		const struct pv_vmpam_node *node = &f->r->sys.node[n];
		assert_false(node->rotating);
		assert_int_equal(node->used, 6); /* (2 + 1) PARTIDs, total and local */
		struct mon_cfg mon[8];
		replay(f->r, n, mon, 8);
		for (unsigned vm = 0; vm < 2; vm++)
			for (unsigned p = 0; p < f->vm[vm].nr_partids; p++) {
				unsigned total = 0, local = 0;
				for (unsigned s = 0; s < 8; s++) {
					if (!mon[s].set ||
					    (mon[s].flt & 0xFFFF) != f->vm[vm].partid[p])
						continue;
					assert_true(mon[s].ctl & CTL_EN);
					assert_true(mon[s].ctl & CTL_MATCH_PARTID);
					if (mon[s].ctl & CTL_MATCH_PMG) {
						assert_int_equal(mon[s].flt >> 16 & 0xFF, n);
						local++;
					} else {
						total++;
					}
				}
				assert_int_equal(total, 1);
				assert_int_equal(local, 1);
			}
	}
	/* Released: the slots of its two accounts are free. */
	pv_vmpam_partition_release(&f->r->sys, &f->r->cpu, &f->vm[0]);
	assert_int_equal(f->r->sys.node[0].used, 2);
	unsigned busy = 0;
	for (unsigned s = 0; s < 8; s++)
		busy += f->r->sys.node[0].slot[s] != PV_VMPAM_SLOT_FREE;
	assert_int_equal(busy, 2);
	fx_free(f);
}

/* Three monitors for four accounts: rotation. Every window's monitors are configured for the
 * account they measure (MATCH_PMG exactly on local ones), and every account gets windows. */
static void test_local_rotation(void **state)
{
	(void)state;
	struct fx *f = fx_new(true, true, 3, 3);
	assert_int_equal(rig_init(f->r, 10), 0);
	fx_vm(f, 0, 1);
	fx_vm(f, 1, 1);
	uint64_t now = 0;
	unsigned seen[4] = {0};
	for (unsigned t = 0; t < 8; t++) {
		f->r->nwlog = 0;
		pv_vmpam_tick(&f->r->sys, &f->r->cpu, now += 10000000);
		const struct pv_vmpam_node *node = &f->r->sys.node[1];
		assert_true(node->rotating);
		struct mon_cfg mon[3];
		replay(f->r, 1, mon, 3);
		for (unsigned s = 0; s < 3; s++) {
			uint32_t e = node->slot[s];
			if (e == PV_VMPAM_SLOT_FREE)
				continue;
			unsigned acc = e >> 5, vm = acc >> 1;
			bool local = acc & 1;
			seen[acc]++;
			assert_int_equal(node->match_pmg[s], local);
			/* FLT written for this window; CTL rewritten when MATCH_PMG changed. */
			assert_true(mon[s].flt != 0);
			assert_int_equal(mon[s].flt & 0xFFFF, f->vm[vm].partid[0]);
			assert_int_equal(mon[s].flt >> 16 & 0xFF, local ? 1 : 0);
		}
	}
	for (unsigned a = 0; a < 4; a++)
		assert_true(seen[a] >= 5);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_follows_pcpu),
		cmocka_unit_test(test_no_label_without_local),
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_local_monitors),
		cmocka_unit_test(test_local_rotation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
