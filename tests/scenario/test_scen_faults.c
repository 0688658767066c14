/* SPDX-License-Identifier: MIT */
/*
 * Fault injection on the machine model (issue 8, item 4), each checked against the ground
 * truth:
 *   - an MSC monitor stuck at NRDY: the VM's figure is NOT_READY (no bytes, no bound) while it
 *     is stuck, and exact again as soon as it clears;
 *   - MSC errors recorded in MPAMF_ESR (with the error interrupt enabled) in the middle of a
 *     run: vmpam clears and counts them, every VM keeps exact accounting, no foreign PARTID;
 *   - an External abort on an SPE buffer write (PMBSR_EL1.EA) and sample collisions (COLL):
 *     reflected to the guest as docs/spe.md says, the records before the abort intact, no
 *     stage-2 fault shown, every pin released;
 *   - a PMU overflow storm (hundreds of overflows in a time slice), handled and masked: one
 *     virtual interrupt level per condition, no count lost;
 *   - a vCPU moved to another pCPU in the middle of counting with the PMU, the AMU and SPE all
 *     in use: PMU and AMU exact, SPE drained and restored.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "perfvisor/mpam_regs.h"
#include "test_scen_spe_rig.h"

#define GB UINT64_C(1000000000)

/* ---- MPAM ------------------------------------------------------------------------------- */

/* Two pCPUs, memory nodes 0 and 1 (10 GB/s each), enough monitors for every VM. */
static struct sim_machine *mpam_machine(void)
{
	struct sim_config c = scen_config(21, 6, 0, 2000, 30000);
	c.cpus = 2;
	c.mpam = (struct sim_mpam_config){.nodes = 0x3,
					  .capacity = {10 * GB, 10 * GB},
					  .mons = 8,
					  .partid_max = 63,
					  .pmg_max = 1,
					  .nrdy_ns = 20000};
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	assert_non_null(m->mpam_machine);
	return m;
}

/* Two VMs, a vCPU of each on each pCPU, memory-bound work with traffic on both nodes. */
static void mpam_load(struct sim_machine *m, struct sim_prog *prog)
{
	for (unsigned vm = 0; vm < 2; vm++) {
		struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 2);
		cfg.features |= PV_FEAT_MPAM;
		cfg.mpam.nr_partids = 2;
		assert_int_equal(sim_add_vm(m, &cfg), (int)vm);
		for (unsigned cpu = 0; cpu < 2; cpu++) {
			struct sim_prog *p = &prog[vm * 2 + cpu];
			sim_prog_init(p);
			for (unsigned k = 0; k < 60; k++)
				sim_prog_workload(p, k & 1, SIM_PROF_MEM, 100000);
			int v = sim_add_vcpu(m, vm, cpu, p);
			assert_true(v >= 0);
			assert_int_equal(
				sim_mpam_machine_traffic(m, (unsigned)v, cpu, 3 * GB, 60), 0);
			assert_int_equal(sim_mpam_machine_traffic(m, (unsigned)v, !cpu, GB, 60),
					 0);
		}
	}
}

static int mpam_reading(struct sim_machine *m, unsigned vm, unsigned node,
			struct pv_vmpam_reading *rd)
{
	return pv_vmpam_read(&m->mpam_machine->sys, &m->vm[vm].pv.mpam, node, rd);
}

static void mpam_exact(struct sim_machine *m, const char *tag)
{
	for (unsigned vm = 0; vm < m->nvms; vm++)
		for (unsigned node = 0; node < 2; node++) {
			struct pv_vmpam_reading rd;
			int st = mpam_reading(m, vm, node, &rd);
			uint64_t truth = sim_mpam_machine_vm_bytes(m, vm, node, false);
			if (st != PV_VMPAM_MEASURED || rd.bytes != truth)
				fprintf(stderr,
					"%s: VM %u node %u: status %d, %" PRIu64
					" bytes, truth %" PRIu64 "\n",
					tag, vm, node, st, rd.bytes, truth);
			assert_int_equal(st, PV_VMPAM_MEASURED);
			assert_int_equal(rd.bytes, truth);
			assert_int_equal(rd.bound, 0);
			assert_true(truth > 0);
		}
	assert_int_equal(sim_mpam_machine_foreign_bytes(m), 0);
	assert_int_equal(scen_hygiene(m, tag), 0);
}

/* The monitors of node 0's MSC all stick at NRDY for a while in the middle of the run. */
static void test_msc_nrdy_stuck(void **state)
{
	(void)state;
	struct sim_machine *m = mpam_machine();
	struct sim_prog prog[4];
	mpam_load(m, prog);
	struct sim_mpam_machine *mm = m->mpam_machine;
	struct sim_msc *msc = &mm->msc[0];
	assert_int_equal(msc->cfg.node, 0);
	unsigned stuck_ticks = 0;
	uint64_t ticks_at_stick = 0;
	bool stuck = false, cleared = false;
	while (sim_step(m)) {
		if (!stuck && !stuck_ticks && mm->ticks >= 5) {
			for (unsigned k = 0; k < msc->cfg.ris[0].num_mon; k++)
				sim_msc_stick_nrdy(msc, 0, k, true);
			stuck = true;
			ticks_at_stick = mm->ticks;
		}
		if (stuck && mm->ticks > ticks_at_stick + 1) {
			/* A tick read the stuck counters: no figure on node 0, node 1 unaffected. */
			for (unsigned vm = 0; vm < 2; vm++) {
				struct pv_vmpam_reading rd;
				assert_int_equal(mpam_reading(m, vm, 0, &rd),
						 PV_VMPAM_NOT_READY);
				assert_int_equal(rd.bytes, 0);
				assert_int_equal(rd.bound, 0);
				assert_int_equal(mpam_reading(m, vm, 1, &rd),
						 PV_VMPAM_MEASURED);
				assert_int_equal(rd.bound, 0);
			}
			stuck_ticks++;
		}
		if (stuck && stuck_ticks == 5) {
			for (unsigned k = 0; k < msc->cfg.ris[0].num_mon; k++)
				sim_msc_stick_nrdy(msc, 0, k, false);
			stuck = false;
			cleared = true;
			ticks_at_stick = mm->ticks;
		}
		if (cleared && mm->ticks > ticks_at_stick + 1) {
			/* The first tick after NRDY cleared: exact again, the stuck time included. */
			sim_mpam_machine_flush(m);
			mpam_exact(m, "nrdy cleared");
			cleared = false;
		}
	}
	assert_int_equal(stuck_ticks, 5);
	sim_mpam_machine_flush(m);
	mpam_exact(m, "nrdy stuck");
	assert_int_equal(sim_mpam_machine_msc_errors(m), 0);
	for (unsigned i = 0; i < 4; i++)
		sim_prog_free(&prog[i]);
	sim_mpam_machine_free(m);
	scen_free(m);
}

/* Errors recorded by the MSCs (as a request or a monitor access would: PARTID out of range,
 * monitor out of range, several before software looks: OVRWR) with the error interrupt
 * enabled, at intervals through the run. */
static void test_msc_error_interrupts(void **state)
{
	(void)state;
	struct sim_machine *m = mpam_machine();
	struct sim_prog prog[4];
	mpam_load(m, prog);
	struct sim_mpam_machine *mm = m->mpam_machine;
	static const unsigned codes[] = {PV_MSC_ERR_PARTID_SEL_RANGE,
					 PV_MSC_ERR_REQ_PARTID_RANGE, PV_MSC_ERR_MONITOR_RANGE,
					 PV_MSC_ERR_REQ_PMG_RANGE};
	unsigned steps = 0, rounds = 0, injected = 0, raised = 0;
	while (sim_step(m)) {
		if (++steps % 7)
			continue;
		struct sim_msc *msc = &mm->msc[rounds % mm->nmsc];
		msc->ecr |= PV_ECR_INTEN;
		sim_msc_inject_error(msc, codes[rounds % 4], 1000 + rounds, 0, 0);
		injected++;
		if (rounds % 3 == 0) { /* a second one before software looks: OVRWR */
			sim_msc_inject_error(msc, codes[(rounds + 1) % 4], 7, 1, 0);
			injected++;
			assert_true(msc->esr & PV_ESR_OVRWR);
		}
		assert_true(sim_msc_err_irq(msc));
		rounds++;
		raised = 0;
		for (unsigned i = 0; i < mm->nmsc; i++)
			raised += sim_msc_err_irq(&mm->msc[i]);
		assert_true(raised >= 1);
	}
	sim_mpam_machine_flush(m);
	assert_true(rounds >= 10);
	/* Every ESR was found and cleared at a tick: the interrupt is low everywhere. */
	for (unsigned i = 0; i < mm->nmsc; i++) {
		assert_false(sim_msc_err_irq(&mm->msc[i]));
		assert_int_equal(mm->msc[i].esr, 0);
	}
	assert_true(mm->sys.stats.msc_errors >= 1);
	assert_true(mm->sys.stats.msc_errors <= injected);
	mpam_exact(m, "msc errors");
	/* No error came from the traffic itself: only the injected ones were ever raised. */
	uint64_t all = 0;
	for (unsigned i = 0; i < mm->nmsc; i++)
		for (unsigned c = 0; c < 16; c++)
			all += mm->msc[i].errors[c];
	assert_int_equal(all, injected);
	/* And limits still take effect after the errors: a new cap programs cleanly. */
	struct pv_vmpam_config cap = m->vm[1].pv.mpam.cfg;
	cap.mbw_max[0] = 25;
	assert_int_equal(
		pv_vmpam_vm_set_limits(&mm->sys, &m->cpu[0].pv, &m->vm[1].pv.mpam, &cap), 0);
	for (unsigned i = 0; i < 4; i++)
		sim_prog_free(&prog[i]);
	sim_mpam_machine_free(m);
	scen_free(m);
}

/* ---- SPE -------------------------------------------------------------------------------- */

/* PMBIDR_EL1.EA = 0b0010: an External abort on a buffer write is a buffer management event.
 * The guest's driver sees S | EA | DL (as Linux's arm_spe_pmu does: fatal, it stops), never a
 * stage-2 fault; the records before the abort are in its buffer; nothing stays pinned. */
static void test_spe_external_abort(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(31, 1);
	c.spe.unit.ea_events = true;
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = UINT64_C(64) << 10;
	rig_prog_start(&p, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	size_t idr = sim_prog_mrs(&p, 1, PV_PMBIDR_EL1);
	rig_prog_work(&p, r, 60);
	rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	/* The abort hits the middle of a record some 10 KiB in. */
	sim_spe_inject_ea(sim_spe_machine_unit(r->m, 0), 10000);
	while (sim_step(r->m))
		;
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(PV_FIELD_GET(PV_PMBIDR_EA, p.ops[idr].value),
			 2); /* EA as the hardware */
	assert_int_equal(RIG_STAT(r->m, ext_aborts), 1);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, 0);
	uint64_t bsr = g->drv.last_bsr;
	assert_true(bsr & PV_PMBSR_S);
	assert_true(bsr & PV_PMBSR_EA);
	assert_true(bsr & PV_PMBSR_DL);
	assert_int_equal(PV_FIELD_GET(PV_PMBSR_EC, bsr), PV_PMBSR_EC_BUF);
	assert_int_equal(g->drv.other, 1);
	assert_true(g->stopped);
	/* Everything before the abort is there, record for record; the cut record is lost. */
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "external abort", &n, true), 0);
	assert_true(n > 50);
	assert_true(RIG_STAT(r->m, lost) >= 1);
	assert_int_equal(r->m->vcpu[0].pv.spe.stats.events, 1);
	rig_hygiene(r->m, "external abort");
	sim_prog_free(&p);
	rig_free(r);
}

/* A short interval against long-latency memory operations: samples collide. The guest sees
 * PMBSR_EL1.COLL (accumulated across time slices and switches), no interrupt for it, and every
 * sample that was not dropped is in its buffer. */
static void test_spe_collisions(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(32, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = UINT64_C(1) << 20;
	rig_prog_start(&p, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	for (unsigned i = 0; i < 30; i++)
		sim_prog_workload(&p, i & 1, SIM_PROF_MEM, 20000);
	size_t bsr = sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	/* Besides those the model's latencies make, every few slices the next samples are
	 * selected while one is in flight. */
	unsigned steps = 0;
	while (sim_step(r->m))
		if (++steps % 4 == 0)
			sim_spe_inject_collisions(sim_spe_machine_unit(r->m, 0), 3);
	assert_int_equal(p.unexpected, 0);
	assert_true(RIG_STAT(r->m, collisions) >= 3);
	assert_int_equal(p.ops[bsr].value, PV_PMBSR_COLL);
	struct sim_vcpu *v = &r->m->vcpu[0];
	assert_int_equal(v->rises[PV_INTID_SPE], 0);
	sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "collisions", &n, false), 0);
	assert_int_equal(n, RIG_STAT(r->m, written));
	assert_int_equal(RIG_STAT(r->m, lost), 0);
	rig_hygiene(r->m, "collisions");
	sim_prog_free(&p);
	rig_free(r);
}

/* ---- PMU overflow storm ----------------------------------------------------------------- */

/* `n` overflows of counter 1 (INST_RETIRED) and of the cycle counter in quick succession,
 * each a few hundred instructions apart, in slices long enough to hold hundreds of them. With
 * `handled`, the guest takes every interrupt and acknowledges it; masked, it never does. */
static void storm(bool handled, unsigned n)
{
	struct sim_config c = scen_config(41, 6, 1, 400000, 800000);
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	sim_prog_init(&q);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMINTENSET_EL1, 2);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 2);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	size_t first_check = 0;
	for (unsigned k = 0; k < n; k++) {
		sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(1), (UINT64_C(1) << 32) - 40);
		sim_prog_workload(&p, k & 1, SIM_PROF_INT, 200);
		if (handled) {
			sim_prog_irq_handle(&p);
		} else {
			size_t i = sim_prog_irq_check(&p);
			if (!first_check)
				first_check = i;
		}
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	}
	size_t ovs = sim_prog_mrs(&p, 1, PV_PMOVSSET_EL0);
	sim_prog_msr(&p, 1, PV_PMOVSCLR_EL0, 2);
	size_t after = sim_prog_irq_check(&p);
	uint64_t rng = 5;
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 4);
	scen_random_prog(&q, &rng, &cfg, false, 100);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &q) >= 0);
	unsigned steps = 0;
	while (sim_step(m))
		steps++;
	const char *tag = handled ? "storm handled" : "storm masked";
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_hygiene(m, tag), 0);
	assert_int_equal(scen_verify(m, 0, tag), 0);
	assert_int_equal(scen_verify(m, 1, tag), 0);
	struct sim_vcpu *v = &m->vcpu[0];
	/* Hundreds of overflows per slice: the whole storm ran in a few slices. */
	assert_true(m->cpu[0].stats.switches < n / 50);
	if (handled) {
		assert_int_equal(v->irq.handled[1], n);
		assert_int_equal(v->rises[PV_INTID_PMU], n);
		assert_int_equal(v->irq.empty, 0);
		assert_int_equal(p.ops[ovs].value, 0);
	} else {
		/* One level, high from the first overflow until the guest clears PMOVS. */
		assert_int_equal(v->irq.taken, 0);
		assert_int_equal(v->rises[PV_INTID_PMU], 1);
		for (size_t i = first_check; i < p.n; i++)
			if (p.ops[i].kind == SIM_OP_IRQ_CHECK && i != after)
				assert_true(p.ops[i].line);
		assert_int_equal(p.ops[ovs].value, 2);
		assert_false(p.ops[after].line);
	}
	assert_int_equal(m->vcpu[1].irq.taken, 0);
	assert_int_equal(m->vcpu[1].rises[PV_INTID_PMU], 0);
	/* Each overflow cost at most one physical interrupt. */
	assert_true(m->cpu[0].stats.irqs <= n);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

static void test_overflow_storm(void **state)
{
	(void)state;
	storm(true, 400);
	storm(false, 400);
}

/* ---- a vCPU moved mid-count --------------------------------------------------------------- */

/* One VM with the PMU, the AMU and SPE; its vCPU counts and profiles while the scheduler moves
 * it between two pCPUs every few slices (and it asks to move itself). */
static void test_migrate_mid_count(void **state)
{
	(void)state;
	struct sim_config c = scen_amu_config(51, 1, 2, 0, true, 1);
	struct sim_config s = rig_spe_config(51, 2);
	c.cpus = 2;
	c.spe = s.spe;
	c.slice_min = 3000;
	c.slice_max = 30000;
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = scen_amu_vm(1, 2);
	vc.features |= PV_FEAT_PMU | PV_FEAT_SPE;
	vc.pmu = scen_vm(PV_PMUVER_V3P5, 4).pmu;
	vc.spe = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20).spe;
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = UINT64_C(256) << 10;
	rig_prog_start(&p, RIG_BUF_VA, size, 1024, 0, 0, RIG_SCR);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(2), PV_EVT_CPU_CYCLES);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 5 | PV_BIT(31));
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned i = 0; i < 80; i++) {
		sim_prog_workload(&p, (unsigned)(rig_rand(r) % 2),
				  (enum sim_profile)(rig_rand(r) % 4),
				  5000 + rig_rand(r) % 40000);
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(2));
		sim_prog_mrs(&p, 1, PV_PMCCNTR_EL0);
		sim_prog_mrs(&p, 1, PV_AMEVCNTR0_EL0(i % 4));
		if (i % 9 == 4)
			sim_prog_migrate(&p, (unsigned)(rig_rand(r) % 2));
	}
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	scen_amu_track(r->m, 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	unsigned steps = 0;
	while (sim_step(r->m)) {
		if (++steps % 3 == 0) /* mid-count: the vCPU is in the middle of its program */
			sim_migrate(r->m, 0, (unsigned)(rig_rand(r) % 2));
		for (unsigned i = 0; i < r->m->nvms; i++)
			sim_s2_reclaim(sim_spe_machine_s2(r->m, i));
	}
	assert_int_equal(p.unexpected, 0);
	unsigned moves = 0;
	for (size_t k = 1; k < p.n; k++)
		moves += p.ops[k].cpu != p.ops[k - 1].cpu;
	assert_true(moves >= 10);
	assert_int_equal(scen_verify(r->m, 0, "migrate mid-count"), 0);
	assert_int_equal(scen_amu_verify(r->m, 0, "migrate mid-count"), 0);
	/* SPE: both units sampled for it, and its buffer holds exactly what they wrote. */
	assert_true(sim_spe_machine_unit(r->m, 0)->stats.written > 0);
	assert_true(sim_spe_machine_unit(r->m, 1)->stats.written > 0);
	sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "migrate mid-count", &n, false), 0);
	assert_true(n > 100);
	assert_int_equal(sim_spe_machine_vcpu(r->m, 0)->drv.faults, 0);
	rig_hygiene(r->m, "migrate mid-count");
	sim_prog_free(&p);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msc_nrdy_stuck),
		cmocka_unit_test(test_msc_error_interrupts),
		cmocka_unit_test(test_spe_external_abort),
		cmocka_unit_test(test_spe_collisions),
		cmocka_unit_test(test_overflow_storm),
		cmocka_unit_test(test_migrate_mid_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
