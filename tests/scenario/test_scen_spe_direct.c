/* SPDX-License-Identifier: MIT */
/*
 * Direct sampling controls on the machine model (docs/spe.md): the model routes each guest
 * access to a PMS* register as D24.7 says (the register's fine-grained trap, then
 * MDCR_EL2.TPMS), so a guest whose VM takes the direct path writes its controls into its
 * pCPU's unit itself. Checked: two VMs profiling side by side with different controls each
 * get records made under their own, matched against the samples their units took; no PMS*
 * access traps after the first SPE access; what each vCPU wrote survives switches and
 * migrations; a guest writing all ones to PMSCR_EL1 still gets no physical address, no
 * CONTEXTIDR_EL2, no EL2 sample and virtual timestamps; an older version's view holds where
 * the hardware's differs (FEAT_FGT), and without FEAT_FGT everything traps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_scen_spe_rig.h"

static bool is_pms(uint32_t key)
{
	return key == PV_PMSCR_EL1 || key == PV_PMSICR_EL1 || key == PV_PMSIRR_EL1 ||
	       key == PV_PMSFCR_EL1 || key == PV_PMSEVFR_EL1 || key == PV_PMSNEVFR_EL1 ||
	       key == PV_PMSLATFR_EL1 || key == PV_PMSIDR_EL1;
}

/* The PMS* accesses of a program that reached EL2. */
static unsigned pms_trapped(const struct sim_prog *p)
{
	unsigned n = 0;
	for (size_t i = 0; i < p->n; i++)
		if ((p->ops[i].kind == SIM_OP_MSR || p->ops[i].kind == SIM_OP_MRS) &&
		    is_pms(p->ops[i].key) && p->ops[i].trapped)
			n++;
	return n;
}

static void run_under_pressure(struct sim_machine *m)
{
	while (sim_step(m))
		for (unsigned i = 0; i < m->nvms; i++) {
			struct sim_s2 *s2 = sim_spe_machine_s2(m, i);
			if (s2)
				sim_s2_reclaim(s2);
		}
}

/* What one side's guest asks for, and reads back in the middle of its run. */
struct side {
	uint64_t irr, fcr, evfr, latfr, scr;
	size_t rd_irr, rd_fcr, rd_latfr, rd_scr, last;
};

static void side_prog(struct spe_rig *r, struct sim_prog *p, struct side *s, unsigned cpus,
		      uint64_t size)
{
	sim_prog_init(p);
	rig_prog_start(p, RIG_BUF_VA, size, s->irr, s->fcr, s->evfr, s->scr);
	sim_prog_msr(p, 1, PV_PMSLATFR_EL1, s->latfr);
	for (unsigned k = 0; k < 6; k++) {
		rig_prog_work(p, r, 12);
		if (cpus > 1)
			sim_prog_migrate(p, (unsigned)(rig_rand(r) % cpus));
	}
	s->rd_irr = sim_prog_mrs(p, 1, PV_PMSIRR_EL1);
	s->rd_fcr = sim_prog_mrs(p, 1, PV_PMSFCR_EL1);
	s->rd_latfr = sim_prog_mrs(p, 1, PV_PMSLATFR_EL1);
	s->rd_scr = sim_prog_mrs(p, 1, PV_PMSCR_EL1);
	rig_prog_work(p, r, 12);
	s->last = rig_prog_stop(p);
}

/* Two VMs, each profiling with controls of its own (A: loads only, timestamps and
 * CONTEXTIDR_EL1, a short interval; B: every operation, neither packet, a long random
 * interval), switched on one pCPU, then on two with migrations: each one's records match the
 * samples its units took, and those are made under its own controls. */
static void side_by_side(unsigned cpus, uint64_t seed)
{
	struct sim_config c = rig_spe_config(seed, cpus);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct side s[2] = {
		{.irr = 512, .fcr = PV_PMSFCR_FT | PV_PMSFCR_LD, .latfr = 0, .scr = RIG_SCR},
		{.irr = 2048 | PV_PMSIRR_RND,
		 .fcr = 0,
		 .latfr = 3,
		 .scr = PV_PMSCR_E0SPE | PV_PMSCR_E1SPE},
	};
	struct sim_prog p[2];
	uint64_t size = UINT64_C(64) << 10;
	for (unsigned i = 0; i < 2; i++)
		side_prog(r, &p[i], &s[i], cpus, size);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(scen_vm_vcpu(r->m, &vc, i % cpus, &p[i]), (int)i);
		assert_true(rig_guest_mm(r, i, i, 12));
		assert_true(rig_map_scattered(r, i, RIG_BUF_VA, size / 4096,
					      SIM_VM_RAM_IPA + (4u << 20),
					      SIM_VM_RAM_IPA + (40u << 20)));
		rig_driver(r, i, RIG_BUF_VA, size);
		assert_int_equal(r->m->vm[i].pv.spe.direct, 1);
	}
	run_under_pressure(r->m);
	for (unsigned i = 0; i < 2; i++) {
		char tag[16];
		snprintf(tag, sizeof(tag), "side %u", i);
		assert_int_equal(p[i].unexpected, 0);
		/* Read back as written, after switches (and migrations). */
		assert_int_equal(p[i].ops[s[i].rd_irr].value, s[i].irr);
		assert_int_equal(p[i].ops[s[i].rd_fcr].value, s[i].fcr);
		assert_int_equal(p[i].ops[s[i].rd_latfr].value, s[i].latfr);
		assert_int_equal(p[i].ops[s[i].rd_scr].value, s[i].scr);
		/* The buffer registers trap; the sampling controls never did (the first SPE
		 * access, PMBPTR_EL1's, put them in the hardware). */
		assert_int_equal(pms_trapped(&p[i]), 0);
		sim_spe_machine_collect(r->m, i, p[i].ops[s[i].last].value);
		size_t n = 0;
		assert_int_equal(rig_match(r->m, i, i, tag, &n, false), 0);
		assert_true(n > 50);
		const struct sim_spe_log *log = &sim_spe_machine_vcpu(r->m, i)->log;
		size_t written = 0;
		for (size_t k = 0; k < log->n; k++) {
			const struct sim_spe_sample *x = &log->s[k];
			assert_true(x->el < 2);
			if (x->status != SIM_SPE_WRITTEN)
				continue;
			written++;
			if (i == 0) { /* loads, with a timestamp and CONTEXTIDR_EL1 */
				assert_int_equal(x->op_class, PV_SPE_OP_LDST);
				assert_int_equal(x->op_sub & 1, 0);
				assert_true(x->has_ts && x->has_ctx1);
				assert_int_equal(x->ctx1, 0x1000u + i);
			} else {
				assert_false(x->has_ts || x->has_ctx1);
			}
			assert_false(x->has_pa || x->has_ctx2);
		}
		assert_int_equal(written, n);
	}
	/* The other's filter and interval were not in force: B sampled more than loads. */
	const struct sim_spe_log *b = &sim_spe_machine_vcpu(r->m, 1)->log;
	size_t other = 0;
	for (size_t k = 0; k < b->n; k++)
		other += b->s[k].status == SIM_SPE_WRITTEN &&
			 b->s[k].op_class != PV_SPE_OP_LDST;
	assert_true(other > 0);
	rig_hygiene(r->m, "side");
	for (unsigned i = 0; i < 2; i++)
		sim_prog_free(&p[i]);
	rig_free(r);
}

static void test_side_by_side(void **state)
{
	(void)state;
	side_by_side(1, 41);
	side_by_side(2, 42);
}

/* Every control each vCPU wrote, its own in every one, survives switches and migrations
 * between two pCPUs beside other vCPUs doing the same; the operator's view agrees. */
static void test_values_survive(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(43, 2);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	static const uint32_t keys[] = {PV_PMSICR_EL1,  PV_PMSIRR_EL1,   PV_PMSFCR_EL1,
					PV_PMSEVFR_EL1, PV_PMSNEVFR_EL1, PV_PMSLATFR_EL1,
					PV_PMSCR_EL1};
	enum { NK = sizeof(keys) / sizeof(keys[0]), NV = 3 };
	struct sim_prog p[NV];
	size_t rd[NV][NK];
	uint64_t val[NV][NK];
	for (unsigned v = 0; v < NV; v++) {
		/* Distinct values the unit holds: PMSCR_EL1 without E0SPE/E1SPE, no buffer. */
		uint64_t k = v + 1;
		uint64_t want[NK] = {0x100 * k + 7,
				     (0x400 * k) | (k & 1),
				     k == 1 ? PV_PMSFCR_FT | PV_PMSFCR_B : PV_PMSFCR_FE,
				     (uint64_t)2 << k,
				     (uint64_t)0x10 << k,
				     40 + k,
				     k == 2 ? PV_PMSCR_TS : PV_PMSCR_CX | PV_PMSCR_PA};
		sim_prog_init(&p[v]);
		for (unsigned i = 0; i < NK; i++) {
			val[v][i] = want[i];
			sim_prog_msr(&p[v], 1, keys[i], want[i]);
		}
		for (unsigned n = 0; n < 8; n++) {
			rig_prog_work(&p[v], r, 6);
			sim_prog_migrate(&p[v], (unsigned)(rig_rand(r) % 2));
		}
		for (unsigned i = 0; i < NK; i++)
			rd[v][i] = sim_prog_mrs(&p[v], 1, keys[i]);
	}
	/* VM 0 with two vCPUs, VM 1 with one. */
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p[0]), 0);
	assert_int_equal(sim_add_vcpu(r->m, 0, 1, &p[1]), 1);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 1, &p[2]), 2);
	run_under_pressure(r->m);
	for (unsigned v = 0; v < NV; v++) {
		assert_int_equal(p[v].unexpected, 0);
		for (unsigned i = 0; i < NK; i++) {
			assert_int_equal(p[v].ops[rd[v][i]].value, val[v][i]);
			assert_int_equal(pv_vspe_control(&r->m->vcpu[v].pv, keys[i]),
					 val[v][i]);
		}
		/* The first write trapped, and nothing after it. */
		assert_int_equal(pms_trapped(&p[v]), 1);
		assert_true(r->m->vcpu[v].pv.stats.loads > 4);
	}
	rig_hygiene(r->m, "survive");
	for (unsigned v = 0; v < NV; v++)
		sim_prog_free(&p[v]);
	rig_free(r);
}

/* PMSCR_EL1 written all ones by the guest itself, the host's own PMSCR_EL2 asking for
 * physical addresses, physical timestamps and CONTEXTIDR_EL2: the guest reads back every
 * field the unit has (PA and PCT among them), and still gets none of them: no PA packet, no
 * CONTEXTIDR_EL2, timestamps of its virtual count (rig_match), nothing sampled at EL2. */
static void test_all_ones_bounded(void **state)
{
	(void)state;
	struct sim_config c = rig_spe_config(44, 1);
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	struct sim_prog p;
	uint64_t size = UINT64_C(64) << 10;
	sim_prog_init(&p);
	rig_prog_start(&p, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	size_t wr = sim_prog_msr(&p, 1, PV_PMSCR_EL1, ~UINT64_C(0));
	size_t rd = sim_prog_mrs(&p, 1, PV_PMSCR_EL1);
	rig_prog_work(&p, r, 60);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	sim_cpu_write(&r->m->cpu[0], 2, PV_PMSCR_EL2,
		      PV_PMSCR_PA | PV_BIT(6) | PV_PMSCR_CX | PV_PMSCR_TS);
	run_under_pressure(r->m);
	assert_int_equal(p.unexpected, 0);
	assert_false(p.ops[wr].trapped);
	assert_int_equal(p.ops[rd].value, PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX |
						  PV_PMSCR_PA | PV_PMSCR_TS | PV_BIT(6));
	sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	size_t n = 0;
	assert_int_equal(rig_match(r->m, 0, 0, "ones", &n, false), 0);
	assert_true(n > 300);
	const struct sim_spe_log *log = &sim_spe_machine_vcpu(r->m, 0)->log;
	size_t stamped = 0;
	for (size_t k = 0; k < log->n; k++) {
		assert_true(log->s[k].el < 2);
		assert_false(log->s[k].has_pa || log->s[k].has_ctx2);
		stamped += log->s[k].status == SIM_SPE_WRITTEN && log->s[k].has_ts;
	}
	assert_true(stamped > 0);
	rig_hygiene(r->m, "ones");
	sim_prog_free(&p);
	rig_free(r);
}

/* SPEv1p1 on SPEv1p2 units with FEAT_FGT: what its view lacks traps by its own fine-grained
 * bit and reads as its view, PMSNEVFR_EL1 is UNDEFINED, the rest is the hardware's; its
 * records still match. The same VM without FEAT_FGT traps every access (TPMS stays); an
 * SPEv1p2 VM there needs no fine-grained trap and is direct. */
static void older(bool fgt, unsigned version)
{
	struct sim_config c = rig_spe_config(45, 1);
	c.fgt = fgt;
	struct spe_rig *r = rig_new(&c);
	struct pv_vm_config vc = rig_spe_vm(version, UINT64_C(1) << 20);
	struct sim_prog p;
	uint64_t size = UINT64_C(32) << 10;
	bool v1p2 = version >= PV_SPE_V1P2;
	sim_prog_init(&p);
	rig_prog_start(&p, RIG_BUF_VA, size, 512, 0, 0, RIG_SCR);
	size_t fcr_w = sim_prog_msr(&p, 1, PV_PMSFCR_EL1, ~UINT64_C(0) & ~PV_PMSFCR_FL);
	size_t fcr_r = sim_prog_mrs(&p, 1, PV_PMSFCR_EL1);
	sim_prog_msr(&p, 1, PV_PMSFCR_EL1, 0);
	size_t evfr_w = sim_prog_msr(&p, 1, PV_PMSEVFR_EL1, ~UINT64_C(0));
	size_t evfr_r = sim_prog_mrs(&p, 1, PV_PMSEVFR_EL1);
	sim_prog_msr(&p, 1, PV_PMSEVFR_EL1, 0);
	size_t idr = sim_prog_mrs(&p, 1, PV_PMSIDR_EL1);
	size_t nevfr_r = sim_prog_mrs(&p, 1, PV_PMSNEVFR_EL1);
	size_t nevfr_w = sim_prog_msr(&p, 1, PV_PMSNEVFR_EL1, 0);
	if (!v1p2) {
		sim_prog_expect(&p, nevfr_r, SIM_OUT_UNDEF);
		sim_prog_expect(&p, nevfr_w, SIM_OUT_UNDEF);
	}
	size_t irr = sim_prog_mrs(&p, 1, PV_PMSIRR_EL1);
	size_t icr = sim_prog_mrs(&p, 1, PV_PMSICR_EL1);
	rig_prog_work(&p, r, 40);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r->m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(r, 0, 0, 12));
	assert_true(rig_map_scattered(r, 0, RIG_BUF_VA, size / 4096,
				      SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (40u << 20)));
	rig_driver(r, 0, RIG_BUF_VA, size);
	bool direct = fgt || v1p2;
	assert_int_equal(r->m->vm[0].pv.spe.direct, direct);
	run_under_pressure(r->m);
	assert_int_equal(p.unexpected, 0);
	uint64_t fcr = PV_PMSFCR_FE | PV_PMSFCR_FT | PV_PMSFCR_B | PV_PMSFCR_LD | PV_PMSFCR_ST;
	assert_int_equal(p.ops[fcr_r].value, fcr | (v1p2 ? PV_PMSFCR_FnE : 0));
	assert_int_equal(!!(p.ops[evfr_r].value & PV_BIT(6)), v1p2);
	assert_int_equal(!!(p.ops[idr].value & PV_PMSIDR_FNE), v1p2);
	/* What traps: all on the trapped path; by FEAT_FGT what the view does not share. */
	bool differs = !v1p2;
	assert_int_equal(p.ops[fcr_w].trapped, !direct || differs);
	assert_int_equal(p.ops[fcr_r].trapped, !direct || differs);
	assert_int_equal(p.ops[evfr_w].trapped, !direct || differs);
	assert_int_equal(p.ops[evfr_r].trapped, !direct || differs);
	assert_int_equal(p.ops[idr].trapped, !direct || differs);
	assert_int_equal(p.ops[irr].trapped, !direct);
	assert_int_equal(p.ops[icr].trapped, !direct);
	assert_int_equal(p.ops[nevfr_r].trapped, !direct || differs);
	sim_spe_machine_collect(r->m, 0, p.ops[last].value);
	size_t n = 0;
	assert_int_equal(rig_match(r->m, 0, 0, "older", &n, false), 0);
	assert_true(n > 0);
	rig_hygiene(r->m, "older");
	sim_prog_free(&p);
	rig_free(r);
}

static void test_older_version(void **state)
{
	(void)state;
	older(true, PV_SPE_V1P1);
	older(false, PV_SPE_V1P1);
	older(false, PV_SPE_V1P2);
	older(true, PV_SPE_V1P2);
}

/* The model's routing of the sampling controls (D24.7's accessibility pseudocode): EL0
 * UNDEFINED first; then, with FEAT_FGT, a register's own bit in HDFGRTR_EL2 for its MRS or in
 * HDFGWTR_EL2 for its MSR, PMSNEVFR_EL1's while its n-bit is 0; then MDCR_EL2.TPMS. A
 * register the unit lacks UNDEFs before any trap; the buffer registers go by E2PB. */
static void test_routes(void **state)
{
	(void)state;
	static const struct {
		uint32_t key;
		uint64_t bit;
	} regs[] = {
		{PV_PMSCR_EL1, PV_HDFGRTR_EL2_PMSCR_EL1},
		{PV_PMSEVFR_EL1, PV_HDFGRTR_EL2_PMSEVFR_EL1},
		{PV_PMSFCR_EL1, PV_HDFGRTR_EL2_PMSFCR_EL1},
		{PV_PMSICR_EL1, PV_HDFGRTR_EL2_PMSICR_EL1},
		{PV_PMSIDR_EL1, PV_HDFGRTR_EL2_PMSIDR_EL1},
		{PV_PMSIRR_EL1, PV_HDFGRTR_EL2_PMSIRR_EL1},
		{PV_PMSLATFR_EL1, PV_HDFGRTR_EL2_PMSLATFR_EL1},
	};
	const size_t nregs = sizeof(regs) / sizeof(regs[0]);
	struct sim_config cfg = rig_spe_config(46, 1);
	struct spe_rig *r = rig_new(&cfg);
	struct sim_cpu *c = &r->m->cpu[0];
	c->mdcr = PV_FIELD_PREP(PV_MDCR_EL2_E2PB, PV_MDCR_EL2_E2PB_EL1_TRAP) | PV_MDCR_EL2_TPMS;
	c->hdfgrtr = c->hdfgwtr = 0;
	for (size_t i = 0; i < nregs; i++) {
		bool ro = regs[i].key == PV_PMSIDR_EL1;
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 0), SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 1), SIM_ROUTE_EL2);
		assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
				 ro ? SIM_ROUTE_UNDEF : SIM_ROUTE_EL2);
	}
	assert_int_equal(sim_cpu_route(c, PV_PMBPTR_EL1, true, 1), SIM_ROUTE_EL2);
	c->mdcr &= ~PV_MDCR_EL2_TPMS;
	assert_int_equal(sim_cpu_route(c, PV_PMBPTR_EL1, true, 1), SIM_ROUTE_EL2);
	/* PMSNEVFR_EL1: its n-bit 0 traps, in each direction by its own word. */
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_EL2);
	c->hdfgrtr = PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_EL2);
	c->hdfgwtr = PV_HDFGWTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_DIRECT);
	/* Each register's own bit, one direction at a time. */
	for (size_t i = 0; i < nregs; i++) {
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 1), SIM_ROUTE_DIRECT);
		c->hdfgrtr |= regs[i].bit;
		for (size_t j = 0; j < nregs; j++)
			assert_int_equal(sim_cpu_route(c, regs[j].key, true, 1),
					 i == j ? SIM_ROUTE_EL2 : SIM_ROUTE_DIRECT);
		if (regs[i].key != PV_PMSIDR_EL1) {
			assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
					 SIM_ROUTE_DIRECT);
			c->hdfgwtr |= regs[i].bit;
			assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
					 SIM_ROUTE_EL2);
			c->hdfgwtr &= ~regs[i].bit;
		}
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 0), SIM_ROUTE_UNDEF);
		c->hdfgrtr &= ~regs[i].bit;
	}
	/* Without FEAT_FGT the words do nothing: TPMS alone. */
	r->m->cfg.fgt = false;
	c->hdfgrtr = c->hdfgwtr = ~UINT64_C(0) & ~PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSCR_EL1, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_DIRECT);
	rig_free(r);
	/* A unit without FEAT_SPE_FnE: PMSNEVFR_EL1 UNDEFINED whatever traps. */
	cfg.spe.unit.version = PV_SPE_V1P1;
	r = rig_new(&cfg);
	c = &r->m->cpu[0];
	c->mdcr = PV_MDCR_EL2_TPMS;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMSEVFR_EL1, true, 1), SIM_ROUTE_EL2);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),         cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_values_survive), cmocka_unit_test(test_all_ones_bounded),
		cmocka_unit_test(test_older_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
