/* SPDX-License-Identifier: MIT */
/*
 * vSPE end to end on the machine model: guests program SPE as Linux does, their buffers are
 * pinned through stage 2 while the host reclaims every page nobody pinned after every time
 * slice, and what their drivers collect is decoded and matched, record by record, against the
 * samples the units took. Checked every time: no stage-2 fault met by the profiler (or one
 * repaired, never shown to the guest), no byte outside the VM's memory, nothing physical in a
 * record (no PA, no CONTEXTIDR_EL2, virtual timestamps), every pin released at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_scen_spe_rig.h"

/* Runs every program to its end; after each time slice the host takes back every page of
 * every VM that nobody pinned (the profiler cannot fault them in). */
static void run_under_pressure(struct sim_machine *m)
{
	while (sim_step(m))
		for (unsigned i = 0; i < m->nvms; i++) {
			struct sim_s2 *s2 = sim_spe_machine_s2(m, i);
			if (s2)
				sim_s2_reclaim(s2);
		}
}

/* One VM, one vCPU, a 64 KiB buffer on scattered pages: records match the truth, the driver
 * met buffer-full events, the guest asked for physical addresses and a physical timestamp and
 * got neither. */
static void test_profile_matches_truth(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(11, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = UINT64_C(64) << 10;
	uint64_t scr = RIG_SCR | PV_PMSCR_PA | PV_BIT(6) /* PCT: physical, please */;
	rig_prog_start(&p, RIG_BUF_VA, size, 1024, 0, 0, scr);
	size_t rd = sim_prog_mrs(&p, 1, PV_PMSCR_EL1);
	rig_prog_work(&p, r, 60);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	/* The host's own PMSCR_EL2 asks for everything; the trap word clears it for guests. */
	sim_cpu_write(&r->m->cpu[0], 2, PV_PMSCR_EL2, PV_PMSCR_PA | PV_BIT(6) | PV_PMSCR_CX);
	run_under_pressure(r->m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(p.ops[rd].value, scr); /* the guest reads back what it wrote */
	sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	size_t n = 0;
	assert_int_equal(rig_match(r->m, 0, 0, "truth", &n, false), 0);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, 0);
	assert_true(n > 500);
	assert_true(g->drv.fills > 0);
	assert_int_equal(g->drv.faults + g->drv.other, 0);
	assert_int_equal(g->drv.last_bsr, PV_PMBSR_S | PV_PMBSR_BSC_FULL);
	rig_hygiene(r->m, "truth");
	sim_prog_free(&p);
	rig_free(r);
}

/* Buffer full without a driver: the guest sees PMBSR_EL1 = S | BSC "buffer filled", PMBPTR_EL1
 * past LIMIT - 2^MaxSize, the virtual INTID 21 high; clearing PMBSR_EL1 (the pointer moved
 * back first) lowers it. A PMBSR
 * write with S = 1 raises it (it drives PMBIRQ). */
static void test_buffer_full_as_architected(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(12, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = 8192;
	rig_prog_start(&p, RIG_BUF_VA, size, 256, 0, 0, RIG_SCR);
	rig_prog_work(&p, r, 20);
	size_t bsr = sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
	size_t ptr = sim_prog_mrs(&p, 1, PV_PMBPTR_EL1);
	/* The pointer back to the base before S is cleared, as a driver does: a restart with no
	 * room for a record would be refused at once (test_vspe_buffer). */
	sim_prog_msr(&p, 1, PV_PMBPTR_EL1, RIG_BUF_VA);
	sim_prog_msr(&p, 1, PV_PMBSR_EL1, 0);
	size_t bsr0 = sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
	sim_prog_msr(&p, 1, PV_PMBSR_EL1, PV_PMBSR_S | PV_PMBSR_EC | 0xFFFF);
	size_t bsr1 = sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
	sim_prog_msr(&p, 1, PV_PMBSR_EL1, 0);
	rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, 2, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	run_under_pressure(r->m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(p.ops[bsr].value, PV_PMBSR_S | PV_PMBSR_BSC_FULL);
	uint64_t limit = RIG_BUF_VA + size, rec = UINT64_C(1) << c.spe.unit.max_size;
	assert_true(p.ops[ptr].value > limit - rec && p.ops[ptr].value <= limit);
	assert_int_equal(p.ops[bsr0].value, 0);
	assert_int_equal(p.ops[bsr1].value, PV_PMBSR_S | PV_PMBSR_EC | 0xFFFF);
	struct sim_vcpu *v = &r->m->vcpu[0];
	assert_int_equal(v->rises[PV_INTID_SPE], 2);
	assert_false(v->line[PV_INTID_SPE]);
	assert_int_equal(v->pv.spe.stats.events, 1);
	rig_hygiene(r->m, "full");
	sim_prog_free(&p);
	rig_free(r);
}

/* A buffer page the guest's own tables do not map (or map read-only, or without the Access
 * flag): the profiler writes up to it, then the guest gets the stage-1 Data Abort the hardware
 * reports (EC 0x24, the FSC of its fault, PMBPTR_EL1 at the page), never a stage-2 one. */
static void s1_fault(unsigned hole_attrs, uint64_t fsc, unsigned fault_page)
{
	struct sim_config c = rig_spe_config(13, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = 16 * 4096, hole = RIG_BUF_VA + 5 * 4096;
	uint64_t at = RIG_BUF_VA + fault_page * 4096;
	rig_prog_start(&p, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	rig_prog_work(&p, r, 40);
	rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, 16, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	sim_s1_unmap(&r->s1[0], hole, 4096);
	if (hole_attrs != ~0u)
		assert_true(sim_s1_map(&r->s1[0], hole, SIM_VM_RAM_IPA + (12u << 20), 4096,
				       hole_attrs));
	rig_driver(r, 0, RIG_BUF_VA, size);
	run_under_pressure(r->m);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, 0);
	assert_int_equal(g->drv.faults, 1);
	uint64_t bsr = g->drv.last_bsr;
	assert_int_equal(PV_FIELD_GET(PV_PMBSR_EC, bsr), PV_PMBSR_EC_FAULT_S1);
	assert_int_equal(bsr & 0x3F, fsc);
	assert_true(bsr & PV_PMBSR_S);
	assert_int_equal(g->start, at); /* collected up to PMBPTR_EL1: the faulting address */
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "s1 fault", &n, (bsr & PV_PMBSR_DL) != 0), 0);
	assert_true(fault_page == 0 || n > 0);
	assert_int_equal(RIG_STAT(r->m, s1_faults), 1);
	rig_hygiene(r->m, "s1 fault");
	sim_prog_free(&p);
	rig_free(r);
}

static void test_stage1_faults_reflected(void **state)
{
	(void)state;
	s1_fault(~0u, PV_FSC_TRANSLATION(3), 5);
	s1_fault(SIM_S1_RO, PV_FSC_PERMISSION(3), 5);
	s1_fault(SIM_S1_NOAF, PV_FSC_ACCESS_FLAG(3), 5);
	/* APTable[1] on the table above the page write-protects every page it maps: the whole
	 * buffer here, so the very first write faults. */
	s1_fault(SIM_S1_WP, PV_FSC_PERMISSION(3), 0);
}

/* The buffer's checks, seen from the guest (D17.7.4 choices, docs/spe.md): a misaligned
 * pointer or one whose top byte differs from LIMIT's: "not stopped / access not allowed"; no
 * room for a record: "buffer filled"; larger than the VM's MaxBuffSize: "buffer size". The
 * hardware writes nothing, nothing stays pinned. */
static void test_validation_from_the_guest(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(14, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(64) << 10);
	struct sim_prog p;
	sim_prog_init(&p);
	static const struct {
		uint64_t ptr, limit, bsc;
	} bad[] = {
		{RIG_BUF_VA + 8, RIG_BUF_VA + 8192, PV_PMBSR_BSC_NOT_STOPPED},
		{(RIG_BUF_VA & PV_GENMASK(55, 0)) | UINT64_C(0x5A) << 56, RIG_BUF_VA + 8192,
		 PV_PMBSR_BSC_NOT_STOPPED},
		{RIG_BUF_VA + 8192 - 64, RIG_BUF_VA + 8192, PV_PMBSR_BSC_FULL},
		{RIG_BUF_VA, RIG_BUF_VA + (UINT64_C(128) << 10), PV_PMBSR_BSC_SIZE},
	};
	size_t at[4];
	for (unsigned i = 0; i < 4; i++) {
		sim_prog_msr(&p, 1, PV_PMBPTR_EL1, bad[i].ptr);
		sim_prog_msr(&p, 1, PV_PMBLIMITR_EL1, bad[i].limit | PV_PMBLIMITR_E);
		sim_prog_msr(&p, 1, PV_PMSIRR_EL1, 256);
		sim_prog_msr(&p, 1, PV_PMSCR_EL1, RIG_SCR);
		rig_prog_work(&p, r, 2);
		at[i] = sim_prog_mrs(&p, 1, PV_PMBSR_EL1);
		/* Off first: clearing S with the same buffer enabled raises the event again. */
		sim_prog_msr(&p, 1, PV_PMBLIMITR_EL1, 0);
		sim_prog_msr(&p, 1, PV_PMBSR_EL1, 0);
	}
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, 32, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	run_under_pressure(r->m);
	assert_int_equal(p.unexpected, 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(p.ops[at[i]].value, PV_PMBSR_S | bad[i].bsc);
	assert_int_equal(RIG_STAT(r->m, written), 0);
	assert_int_equal(r->m->vcpu[0].pv.spe.stats.rejected, 4);
	rig_hygiene(r->m, "validation");
	sim_prog_free(&p);
	rig_free(r);
}

/* A hypervisor bug (or memory taken away): pinned buffer pages are unmapped from stage 2 while
 * the guest profiles. The profiler meets stage-2 faults; perfvisor repairs them and the guest
 * never sees EC 0x25: nothing at all when the fault hit a record's first byte (the record is
 * lost, and counted), or, when part of a record is already in the buffer, the IMPLEMENTATION
 * DEFINED event 0x1F with DL. With PMBIDR_EL1.Align = 6 every record here is 64 bytes and never
 * straddles a page: only the first kind; with Align = 0 records straddle pages. */
static void stage2_repair(unsigned align)
{
	struct sim_config c = rig_spe_config(15, 1);
	c.spe.unit.align = (uint8_t)align;
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	sim_prog_init(&p);
	uint64_t size = 256 * 4096;
	rig_prog_start(&p, RIG_BUF_VA, size, 256, 0, 0, RIG_SCR);
	rig_prog_work(&p, r, 80);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, 256, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	struct sim_s2 *s2 = sim_spe_machine_s2(r->m, 0);
	unsigned steps = 0;
	while (sim_step(r->m)) {
		if (++steps % 3)
			continue;
		/* Every third slice, unmap every pinned page at stage 2. */
		for (uint64_t pg = 0; pg < s2->ram_size / 4096; pg++)
			if (s2->pins[pg])
				sim_s2_unmap(s2, s2->ram_ipa + pg * 4096);
	}
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, 0);
	struct pv_vspe_stats *st = &r->m->vcpu[0].pv.spe.stats;
	assert_true(st->s2_faults > 0);
	assert_int_equal(st->s2_faults, RIG_STAT(r->m, s2_faults));
	assert_true(st->s2_repaired > 0);
	assert_int_equal(st->records_lost, RIG_STAT(r->m, lost));
	/* Never EC 0x25 for the guest: a clean repair is invisible, a partial record is the
	 * IMPLEMENTATION DEFINED event 0x1F with DL. */
	assert_int_not_equal(PV_FIELD_GET(PV_PMBSR_EC, g->drv.last_bsr), PV_PMBSR_EC_FAULT_S2);
	assert_int_equal(g->stopped, align == 0);
	if (g->stopped)
		assert_int_equal(g->drv.last_bsr, PV_PMBSR_S | PV_PMBSR_DL |
							  (uint64_t)PV_PMBSR_EC_IMPDEF << 26 |
							  PV_PMBSR_IMPDEF_S2_REPAIR_DL);
	else
		sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	assert_int_equal(st->s2_repaired, st->s2_faults - (g->stopped ? 1 : 0));
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "s2 repair", &n, g->stopped), 0);
	assert_int_equal(sim_spe_machine_stray(r->m), 0);
	assert_int_equal(sim_s2_pinned_pages(s2), 0);
	sim_prog_free(&p);
	rig_free(r);
}

static void test_stage2_faults_repaired(void **state)
{
	(void)state;
	stage2_repair(6);
	stage2_repair(0);
}

/* A VM without SPE on the same machine: PMSVer reads 0, every SPE register UNDEFs (PMBIDR_EL1
 * too, trapped by FEAT_FGT), its memory untouched while another VM profiles. */
static void test_hidden_and_isolated(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(16, 2);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config with = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct pv_vm_config without = scen_vm(PV_PMUVER_V3P5, 4);
	struct sim_prog a, b;
	sim_prog_init(&a);
	sim_prog_init(&b);
	uint64_t size = UINT64_C(32) << 10;
	rig_prog_start(&a, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	rig_prog_work(&a, r, 40);
	size_t last = rig_prog_stop(&a);
	static const uint32_t keys[] = {PV_PMSCR_EL1,    PV_PMSNEVFR_EL1, PV_PMSICR_EL1,
					PV_PMSIRR_EL1,   PV_PMSFCR_EL1,   PV_PMSEVFR_EL1,
					PV_PMSLATFR_EL1, PV_PMSIDR_EL1,   PV_PMBLIMITR_EL1,
					PV_PMBPTR_EL1,   PV_PMBSR_EL1,    PV_PMBIDR_EL1};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		for (unsigned el = 0; el < 2; el++) {
			sim_prog_expect(&b, sim_prog_mrs(&b, el, keys[i]), SIM_OUT_UNDEF);
			sim_prog_expect(&b, sim_prog_msr(&b, el, keys[i], 1), SIM_OUT_UNDEF);
		}
	size_t dfr0 = sim_prog_mrs(&b, 1, PV_ID_AA64DFR0_EL1);
	rig_prog_work(&b, r, 40);
	assert_int_equal(scen_vm_vcpu(r->m, &with, 0, &a), 0);
	assert_int_equal(scen_vm_vcpu(r->m, &without, 1, &b), 1);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_guest_mm(r, 1, 1, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	struct sim_mem *mem = sim_spe_machine_mem(r->m);
	uint64_t before = sim_mem_digest(mem, SIM_OWNER_VM(1));
	run_under_pressure(r->m);
	assert_int_equal(a.unexpected, 0);
	assert_int_equal(b.unexpected, 0);
	assert_int_equal(PV_ID_FIELD(b.ops[dfr0].value, PV_ID_AA64DFR0_PMSVER), 0);
	assert_int_equal(sim_mem_digest(mem, SIM_OWNER_VM(1)), before);
	sim_spe_machine_collect(r->m, 0, a.ops[last].value);
	size_t n;
	assert_int_equal(rig_match(r->m, 0, 0, "isolated", &n, false), 0);
	assert_true(n > 0);
	rig_hygiene(r->m, "isolated");
	sim_prog_free(&a);
	sim_prog_free(&b);
	rig_free(r);
}

/* Random buffers: granule (4, 16, 64 KiB), size, VA (either half), scattered IPAs or one
 * block, interval and jitter, filters; one to three VMs with one or two vCPUs, on one or two
 * pCPUs, migrating; the host reclaiming after every slice. Every record matches the truth, no
 * stage-2 fault, nothing outside the VM's memory, every pin released. */
static void random_round(uint64_t seed)
{
	struct spe_rig *r;
	struct sim_config c = rig_spe_config(seed, 1 + (unsigned)(seed % 2));
	c.spe.unit.align = (uint8_t)(seed % 7); /* records from 1-byte to 64-byte multiples */
	r = rig_new(&c);
	unsigned nvms = 1 + (unsigned)(rig_rand(r) % 3);
	struct sim_prog prog[6];
	size_t last[6];
	unsigned nv = 0;
	for (unsigned vm = 0; vm < nvms; vm++) {
		static const unsigned granules[] = {12, 14, 16};
		unsigned gran = granules[rig_rand(r) % 3];
		uint64_t g = UINT64_C(1) << gran;
		uint64_t max = UINT64_C(1) << (16 + rig_rand(r) % 6); /* 64 KiB .. 2 MiB */
		if (max < 2 * g)
			max = 2 * g;
		struct pv_vm_config vc = rig_spe_vm(1 + (unsigned)(rig_rand(r) % 3), max);
		unsigned vcpus = 1 + (unsigned)(rig_rand(r) % 2);
		int vmi = -1;
		for (unsigned k = 0; k < vcpus; k++, nv++) {
			struct sim_prog *p = &prog[nv];
			sim_prog_init(p);
			uint64_t pages = 2 + rig_rand(r) % (max / g - 1);
			uint64_t half = rig_rand(r) % 2 ? RIG_BUF_VA
							: UINT64_C(0x0000007000000000);
			uint64_t va = half + (uint64_t)k * (UINT64_C(1) << 30) +
				      (rig_rand(r) % 64) * g;
			uint64_t irr = (256 + (rig_rand(r) % 16) * 256) | (rig_rand(r) % 2);
			uint64_t fcr = rig_rand(r) % 3
					       ? 0
					       : PV_PMSFCR_FT | PV_PMSFCR_LD | PV_PMSFCR_B;
			rig_prog_start(p, va, pages * g, irr, fcr, 0, RIG_SCR);
			rig_prog_work(p, r, 30);
			if (c.cpus > 1 && rig_rand(r) % 2) {
				sim_prog_migrate(p, (unsigned)(rig_rand(r) % c.cpus));
				rig_prog_work(p, r, 20);
			}
			last[nv] = rig_prog_stop(p);
			unsigned cpu = (unsigned)(rig_rand(r) % c.cpus);
			if (vmi < 0) {
				vmi = (int)r->m->nvms;
				assert_int_equal(scen_vm_vcpu(r->m, &vc, cpu, p), (int)nv);
			} else {
				assert_int_equal(sim_add_vcpu(r->m, (unsigned)vmi, cpu, p),
						 (int)nv);
			}
			assert_true(rig_guest_mm(r, (unsigned)vmi, nv, gran));
			uint64_t lo = SIM_VM_RAM_IPA + (4u << 20) + (uint64_t)k * (20u << 20);
			if (gran == 12 && pages * g >= (2u << 20) && !(va & ((2u << 20) - 1)) &&
			    rig_rand(r) % 2)
				assert_true(sim_s1_map(&r->s1[vmi], va, lo, pages * g,
						       SIM_S1_BLOCK));
			else
				assert_true(rig_map_scattered(r, (unsigned)vmi, va, pages, lo,
							      lo + (16u << 20)));
			rig_driver(r, nv, va, pages * g);
		}
	}
	run_under_pressure(r->m);
	char tag[32];
	snprintf(tag, sizeof(tag), "seed %" PRIu64, seed);
	for (unsigned i = 0; i < nv; i++) {
		assert_int_equal(prog[i].unexpected, 0);
		sim_spe_machine_collect(r->m, i, prog[i].ops[last[i]].value);
		size_t n;
		assert_int_equal(rig_match(r->m, i, r->m->vcpu[i].vm->idx, tag, &n, false), 0);
		assert_int_equal(sim_spe_machine_vcpu(r->m, i)->drv.faults, 0);
	}
	rig_hygiene(r->m, tag);
	for (unsigned i = 0; i < nv; i++)
		sim_prog_free(&prog[i]);
	rig_free(r);
}

static void test_random_buffers(void **state)
{
	(void)state;
	for (uint64_t seed = 100; seed < 130; seed++)
		random_round(seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_matches_truth),
		cmocka_unit_test(test_buffer_full_as_architected),
		cmocka_unit_test(test_stage1_faults_reflected),
		cmocka_unit_test(test_validation_from_the_guest),
		cmocka_unit_test(test_stage2_faults_repaired),
		cmocka_unit_test(test_hidden_and_isolated),
		cmocka_unit_test(test_random_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
