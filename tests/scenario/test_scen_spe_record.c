/* SPDX-License-Identifier: MIT */
/*
 * The SPE figures of the live records (core/record.c, docs/records.md's spe=) on the machine
 * model, checked against what the machine did: after every time slice the bytes written are
 * the bytes the unit wrote, the bytes pinned the pages stage 2 holds pinned; the enables,
 * refusals, events, chunks and stage-2 faults those the guest's driver and the unit saw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>

#include "perfvisor/record.h"
#include "test_scen_spe_rig.h"

/* spe=<bytes>,<pinned>,<enables>,<rejected>,<events>,<chunks>,<s2_faults>, as a reader
 * takes them. */
struct spe_fig {
	uint64_t bytes, pinned, enables, rejected, events, chunks, s2_faults;
};

static struct spe_fig record_of(struct sim_machine *m, unsigned vcpu)
{
	char rec[PV_RECORD_MAX];
	struct pv_record_host h = {.vm_name = "spe", .state = "running"};
	struct spe_fig f;
	char end;
	assert_true(pv_record_vcpu(rec, sizeof(rec), &m->vcpu[vcpu].pv, &h) > 0);
	const char *s = strstr(rec, " spe=");
	assert_non_null(s);
	assert_int_equal(sscanf(s,
				" spe=%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64
				",%" SCNu64 ",%" SCNu64 "%c",
				&f.bytes, &f.pinned, &f.enables, &f.rejected, &f.events,
				&f.chunks, &f.s2_faults, &end),
			 8);
	assert_int_equal(end, ' ');
	return f;
}

/* A driver's ring of `size` bytes on scattered pages, pinned 64 KiB at a time; `unmap`: every
 * third slice the host unmaps every pinned page from stage 2 (the profiler then meets stage-2
 * faults that perfvisor repairs); else a VM without SPE shares the pCPU, so that the record
 * is often of a vCPU put, not loaded (its bytes then those its put read). After every slice
 * the record's figures are checked. */
static void profile(uint64_t seed, uint64_t size, bool unmap)
{
	struct sim_config c = rig_spe_config(seed, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	vc.spe.pin_chunk = PV_VSPE_PIN_CHUNK_MIN;
	struct sim_prog p;
	sim_prog_init(&p);
	rig_prog_start(&p, RIG_BUF_VA, size, 256, 0, 0, RIG_SCR);
	rig_prog_work(&p, r, 80);
	size_t last = rig_prog_stop(&p);
	struct sim_prog busy;
	sim_prog_init(&busy);
	rig_prog_work(&busy, r, 80);
	struct pv_vm_config other = scen_vm(PV_PMUVER_V3P5, 4);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	if (!unmap)
		assert_int_equal(scen_vm_vcpu(r->m, &other, 0, &busy), 1);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	struct sim_s2 *s2 = sim_spe_machine_s2(r->m, 0);
	const struct pv_vspe *s = &r->m->vcpu[0].pv.spe;
	uint64_t last_bytes = 0, peak = 0;
	unsigned steps = 0, put = 0;
	while (sim_step(r->m)) {
		/* Beside the busy VM, only records of the vCPU put: one of it loaded would read
		 * the pointer itself, leaving its put nothing to count. */
		if (!unmap && r->m->vcpu[0].pv.cpu) {
			sim_s2_reclaim(s2);
			continue;
		}
		struct spe_fig f = record_of(r->m, 0);
		put += !r->m->vcpu[0].pv.cpu;
		assert_int_equal(f.bytes, RIG_STAT(r->m, bytes));
		assert_true(f.bytes >= last_bytes);
		last_bytes = f.bytes;
		/* Only the buffer's pages (and their tables) are pinned, each once. */
		assert_int_equal(f.pinned, sim_s2_pinned_pages(s2) * 4096);
		assert_int_equal(f.pinned, s->pinned_bytes);
		peak = f.pinned > peak ? f.pinned : peak;
		assert_int_equal(f.s2_faults, RIG_STAT(r->m, s2_faults));
		if (unmap && !(++steps % 3)) {
			for (uint64_t pg = 0; pg < s2->ram_size / 4096; pg++)
				if (s2->pins[pg])
					sim_s2_unmap(s2, s2->ram_ipa + pg * 4096);
		} else {
			sim_s2_reclaim(s2);
		}
	}
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(busy.unexpected, 0);
	assert_true(unmap || put > 10);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, 0);
	struct spe_fig f = record_of(r->m, 0);
	/* The ring wrapped: more than the buffer written. Its pins stay while the driver
	 * restarts it within them: one chunk pinned at the enable, then each other chunk once;
	 * never more than the buffer and its tables pinned. */
	assert_true(f.bytes > size);
	assert_int_equal(f.bytes, RIG_STAT(r->m, bytes));
	assert_int_equal(f.chunks, size / PV_VSPE_PIN_CHUNK_MIN - 1);
	assert_true(peak > size && peak <= size + 16 * 4096);
	assert_int_equal(f.pinned, 0); /* stopped: everything unpinned */
	assert_int_equal(f.rejected, 0);
	/* Every event the guest's driver was interrupted for, and the enables: the first and
	 * one for each restart after an event (a clean stage-2 repair is none). */
	assert_int_equal(f.events, g->drv.fills + g->drv.faults + g->drv.other);
	assert_int_equal(f.events, g->drv.irqs - g->drv.spurious);
	assert_true(f.enables >= 1 && f.enables <= 1 + f.events);
	if (unmap) {
		assert_true(f.s2_faults > 0);
		assert_int_equal(f.s2_faults, RIG_STAT(r->m, s2_faults));
	} else {
		assert_int_equal(f.s2_faults, 0);
		sim_spe_machine_collect(r->m, 0, p.ops[last].value);
		rig_hygiene(r->m, "record");
	}
	sim_prog_free(&p);
	sim_prog_free(&busy);
	rig_free(r);
}

static void test_figures_follow_the_machine(void **state)
{
	(void)state;
	profile(31, UINT64_C(128) << 10, false);
}

static void test_figures_with_stage2_repairs(void **state)
{
	(void)state;
	profile(32, UINT64_C(256) << 10, true);
}

/* Refused enables (a misaligned pointer, a buffer above MaxBuffSize): rejected and events
 * count them, nothing is pinned or written, nothing enabled. */
static void test_refusals_counted(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(33, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(64) << 10);
	struct sim_prog p;
	sim_prog_init(&p);
	static const uint64_t ptr[] = {RIG_BUF_VA + 8, RIG_BUF_VA},
			      limit[] = {RIG_BUF_VA + 8192, RIG_BUF_VA + (UINT64_C(128) << 10)};
	for (unsigned i = 0; i < 2; i++) {
		sim_prog_msr(&p, 1, PV_PMBPTR_EL1, ptr[i]);
		sim_prog_msr(&p, 1, PV_PMBLIMITR_EL1, limit[i] | PV_PMBLIMITR_E);
		sim_prog_msr(&p, 1, PV_PMSIRR_EL1, 256);
		sim_prog_msr(&p, 1, PV_PMSCR_EL1, RIG_SCR);
		rig_prog_work(&p, r, 2);
		sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
		sim_prog_msr(&p, 1, PV_PMBLIMITR_EL1, 0);
		sim_prog_msr(&p, 1, PV_PMBSR_EL1, 0);
	}
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, 32, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	while (sim_step(r->m))
		;
	assert_int_equal(p.unexpected, 0);
	struct spe_fig f = record_of(r->m, 0);
	assert_int_equal(f.rejected, 2);
	assert_int_equal(f.events, 2);
	assert_int_equal(f.enables, 0);
	assert_int_equal(f.bytes + f.pinned + f.chunks + f.s2_faults, 0);
	assert_int_equal(RIG_STAT(r->m, bytes), 0);
	rig_hygiene(r->m, "refusals");
	sim_prog_free(&p);
	rig_free(r);
}

/* A VM without SPE: no spe= in its records. */
static void test_no_figures_without_spe(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(34, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = scen_vm(PV_PMUVER_V3P5, 4);
	struct sim_prog p;
	sim_prog_init(&p);
	rig_prog_work(&p, r, 2);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	while (sim_step(r->m))
		;
	char rec[PV_RECORD_MAX];
	struct pv_record_host h = {.vm_name = "nospe", .state = "ended"};
	assert_true(pv_record_vcpu(rec, sizeof(rec), &r->m->vcpu[0].pv, &h) > 0);
	assert_null(strstr(rec, " spe="));
	sim_prog_free(&p);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures_follow_the_machine),
		cmocka_unit_test(test_figures_with_stage2_repairs),
		cmocka_unit_test(test_refusals_counted),
		cmocka_unit_test(test_no_figures_without_spe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
