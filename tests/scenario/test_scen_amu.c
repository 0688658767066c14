/* SPDX-License-Identifier: MIT */
/*
 * The virtual AMU on the machine model, both paths: every counter a guest reads is exactly
 * its vCPU's own activity (the ground truth: what the PE counted while that vCPU was loaded)
 * across random switches, migrations, frequency changes and CPU power cycles; the registers
 * behave as the Arm ARM says from EL0 and EL1; the virtual-offset path reads counters
 * without trapping; a guest's CPU_CYCLES / CNT_CYCLES is the frequency its vCPU ran at.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "scen.h"

#define CPUS 2
#define AUX 4
#define NO_VOFF (1u << 2) /* auxiliary counter 2 has no AMEVCNTVOFF1<2>_EL2 */

/* Which counter reads may run without trapping on the virtual-offset path: those with a
 * hardware offset (not CNT_CYCLES, not auxiliary counter 2). */
static bool direct_counter(int k)
{
	return k != 1 && k != 4 + 2;
}

/* Every completed counter read of vCPU i trapped or not as its path says. */
static unsigned path_check(struct sim_machine *m, unsigned i, const char *tag)
{
	const struct sim_vcpu *v = &m->vcpu[i];
	bool voff = v->vm->pv.amu.path == PV_AMU_PATH_VOFF;
	unsigned bad = 0, direct = 0;
	for (size_t j = 0; j < v->prog->n; j++) {
		const struct sim_op *op = &v->prog->ops[j];
		int k = sim_amu_counter_of(op->key);
		if (op->kind != SIM_OP_MRS || op->outcome != SIM_OUT_OK || k < 0)
			continue;
		bool want_trap = !voff || !direct_counter(k);
		direct += !op->trapped;
		if (op->trapped != want_trap) {
			fprintf(stderr, "%s vcpu %u: op %zu counter %d %s\n", tag, i, j, k,
				op->trapped ? "trapped" : "did not trap");
			bad++;
		}
	}
	if (voff && direct == 0) {
		fprintf(stderr, "%s vcpu %u: no direct read at all\n", tag, i);
		bad++;
	}
	return bad;
}

/* Four VMs on two pCPUs: the full AMUv1p1 view (virtual-offset path where the machine has
 * it), a view with fewer auxiliary counters and an AMUv1 one (both trap path), and two vCPUs
 * of the first VM; random programs with migrations, plus scheduler migrations. */
static unsigned run_mix(struct sim_config c, bool clear_voff, bool power, const char *name,
			uint64_t seed)
{
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	if (clear_voff)
		m->hw.amuhw.voff = false; /* firmware without SCR_EL3.AMVOFFEN */
	unsigned hwv = c.amu.version;
	struct pv_vm_config cfg[3] = {scen_amu_vm(hwv, AUX), scen_amu_vm(hwv, AUX - 2),
				      scen_amu_vm(1, AUX)};
	unsigned aux[4] = {AUX, AUX - 2, AUX, AUX};
	struct sim_prog progs[4];
	uint64_t rng = seed * 131 + 7;
	for (unsigned i = 0; i < 4; i++) {
		sim_prog_init(&progs[i]);
		scen_amu_random_prog(&progs[i], &rng, aux[i], 220, CPUS);
		int vi = i < 3 ? scen_vm_vcpu(m, &cfg[i], i % CPUS, &progs[i])
			       : sim_add_vcpu(m, 0, 1, &progs[i]);
		assert_int_equal(vi, (int)i);
		scen_amu_track(m, i);
	}
	assert_int_equal(m->vm[0].pv.amu.path, hwv == 2 && c.fgt && !clear_voff
						       ? PV_AMU_PATH_VOFF
						       : PV_AMU_PATH_TRAP);
	assert_int_equal(m->vm[1].pv.amu.path, PV_AMU_PATH_TRAP);
	assert_int_equal(m->vm[2].pv.amu.path, PV_AMU_PATH_TRAP);

	char tag[64];
	snprintf(tag, sizeof(tag), "%s seed %" PRIu64, name, seed);
	unsigned steps = 0;
	while (sim_step(m)) {
		if (sim_rand(m) % 6 == 0)
			sim_migrate(m, (unsigned)(sim_rand(m) % m->nvcpus),
				    (unsigned)(sim_rand(m) % CPUS));
		if (power && ++steps % 7 == 0)
			sim_power_cycle(m, (unsigned)(sim_rand(m) % CPUS));
	}
	unsigned bad = scen_hygiene(m, tag);
	unsigned moves = 0;
	for (unsigned i = 0; i < 4; i++) {
		bad += scen_amu_verify(m, i, tag);
		bad += path_check(m, i, tag);
		for (size_t k = 1; k < progs[i].n; k++)
			moves += progs[i].ops[k].cpu != progs[i].ops[k - 1].cpu;
	}
	uint64_t dvfs = 0, cycles = 0;
	for (unsigned i = 0; i < CPUS; i++) {
		dvfs += m->cpu[i].stats.dvfs;
		cycles += m->cpu[i].stats.power_cycles;
	}
	if (moves < 10 || (c.nfreqs > 1 && dvfs < 5) || (power && cycles < 5)) {
		fprintf(stderr,
			"%s: too little happened: %u moves, %" PRIu64 " frequency changes, "
			"%" PRIu64 " power cycles\n",
			tag, moves, dvfs, cycles);
		bad++;
	}
	for (unsigned i = 0; i < 4; i++)
		sim_prog_free(&progs[i]);
	scen_free(m);
	return bad;
}

static void test_exact_voff_path(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct sim_config c = scen_amu_config(seed, 2, AUX, NO_VOFF, true, 3);
		c.cpus = CPUS;
		bad += run_mix(c, false, false, "voff", seed);
	}
	assert_int_equal(bad, 0);
}

static void test_exact_trap_path_v1(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct sim_config c = scen_amu_config(seed, 1, AUX, 0, false, 3);
		c.cpus = CPUS;
		bad += run_mix(c, false, false, "v1", seed);
	}
	assert_int_equal(bad, 0);
}

/* AMUv1p1 and FEAT_FGT in the PE, but EL3 leaves SCR_EL3.AMVOFFEN = 0: every VM takes the
 * trap path and the library never touches an offset register (that would trap to EL3). */
static void test_exact_without_el3_delegation(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct sim_config c = scen_amu_config(seed, 2, AUX, NO_VOFF, true, 2);
		c.cpus = CPUS;
		c.el3 = true;
		c.amu.el3_amvoffen = false;
		bad += run_mix(c, true, false, "no-amvoffen", seed);
	}
	assert_int_equal(bad, 0);
}

/* Power-down with vCPUs loaded: firmware keeps the counters (TF-A) or not; the offset
 * registers and AMUSERENR_EL0 come back UNKNOWN either way. */
static void test_exact_across_power_down(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct sim_config c = scen_amu_config(seed, 2, AUX, NO_VOFF, true, 3);
		c.cpus = CPUS;
		c.el3 = true;
		c.amu.fw_keeps_counters = seed & 1;
		bad += run_mix(c, false, true, "power", seed);
		c = scen_amu_config(seed, 1, AUX, 0, false, 1);
		c.cpus = CPUS;
		c.amu.fw_keeps_counters = seed & 1;
		bad += run_mix(c, false, true, "power-v1", seed);
	}
	assert_int_equal(bad, 0);
}

/* ---- frequency ---------------------------------------------------------------------------- */

/* vCPU 0 measures its own frequency over a long stretch of work, as Linux's AMU frequency
 * invariance does: delta CPU_CYCLES / delta CNT_CYCLES * CNTFRQ. Two other vCPUs share the
 * pCPU, so vCPU 0 runs about a third of the time, at levels the governor keeps changing. */
static void frequency_run(unsigned version, bool fgt, uint64_t seed)
{
	struct sim_config c = scen_amu_config(seed, version, 0, 0, fgt, 3);
	c.dvfs_ticks = 15000;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct pv_vm_config cfg = scen_amu_vm(version, 0);
	struct sim_prog p[3];
	for (unsigned i = 0; i < 3; i++)
		sim_prog_init(&p[i]);
	size_t cyc0 = sim_prog_mrs(&p[0], 1, PV_AMEVCNTR0_EL0(0));
	size_t cnt0 = sim_prog_mrs(&p[0], 1, PV_AMEVCNTR0_EL0(1));
	for (unsigned k = 0; k < 40; k++)
		sim_prog_workload(&p[0], k & 1, (enum sim_profile)(k % 4), 60000);
	size_t cyc1 = sim_prog_mrs(&p[0], 1, PV_AMEVCNTR0_EL0(0));
	size_t cnt1 = sim_prog_mrs(&p[0], 1, PV_AMEVCNTR0_EL0(1));
	for (unsigned i = 1; i < 3; i++)
		for (unsigned k = 0; k < 50; k++)
			sim_prog_workload(&p[i], 1, (enum sim_profile)((k + i) % 4), 60000);
	for (unsigned i = 0; i < 3; i++) {
		assert_true(scen_vm_vcpu(m, &cfg, 0, &p[i]) >= 0);
		scen_amu_track(m, i);
	}
	sim_run(m);
	assert_int_equal(scen_hygiene(m, "freq"), 0);
	assert_int_equal(scen_amu_verify(m, 0, "freq"), 0);

	const struct sim_op *ops = p[0].ops;
	double dcyc = (double)(ops[cyc1].value - ops[cyc0].value);
	double dcnt = (double)(ops[cnt1].value - ops[cnt0].value);
	double guest_khz = dcyc / dcnt * c.cnt_khz;

	/* Truth: the cycles vCPU 0 ran at each level between its two CPU_CYCLES reads. */
	const struct sim_amu_truth *a = &m->vcpu[0].amu_at[cyc0], *b = &m->vcpu[0].amu_at[cyc1];
	double cycles = 0, time_ms = 0, at[SIM_MAX_FREQS];
	unsigned levels = 0;
	for (unsigned l = 0; l < c.nfreqs; l++) {
		at[l] = (double)(b->cycles_at[l] - a->cycles_at[l]);
		cycles += at[l];
		time_ms += at[l] / c.cpu_khz[l];
	}
	for (unsigned l = 0; l < c.nfreqs; l++)
		levels += at[l] >= 0.1 * cycles; /* a level that carried a real share */
	double true_khz = cycles / time_ms;
	/* CNT_CYCLES is an integer count sampled at every load and put: at most one tick of
	 * rounding per load, plus the few cycles between the paired reads. */
	double bound = (double)(m->vcpu[0].pv.stats.loads + 4) / dcnt + 1e-5;
	fprintf(stderr,
		"freq v%u%s seed %" PRIu64 ": guest %.1f kHz, truth %.1f kHz over %u "
		"levels, %" PRIu64 " loads\n",
		version, fgt ? " fgt" : "", seed, guest_khz, true_khz, levels,
		m->vcpu[0].pv.stats.loads);
	assert_true(levels >= 2);
	assert_true(fabs(guest_khz - true_khz) / true_khz <= bound);
	/* A mixed schedule (two levels or more with 10 % of the cycles each, checked above), and
	 * vCPU 0 ran under 40 % of the pCPU's time: a CNT_CYCLES that kept counting while it
	 * was descheduled would give less than half its frequency. */
	assert_true((double)m->cpu[0].time > 2.5 * dcnt);
	/* The pair really diverges: CPU_CYCLES is not a fixed multiple of CNT_CYCLES. */
	assert_true(fabs(dcyc / dcnt - (double)c.cpu_khz[0] / c.cnt_khz) > 0.01);
	for (unsigned i = 0; i < 3; i++)
		sim_prog_free(&p[i]);
	scen_free(m);
}

static void test_guest_frequency(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		frequency_run(2, true, seed);  /* virtual-offset path */
		frequency_run(1, false, seed); /* trap path */
	}
}

/* ---- registers as the guest sees them ------------------------------------------------------ */

struct reg_prog {
	struct sim_prog p;
	size_t cfgr, cgcr, g1idr, cr, en0, en1, ty[4], ty1[AUX], userenr0, cnt0_el0, after;
};

/* The same directed program for every VM: identification reads, forbidden writes, the EL0
 * gate. */
static void build_reg_prog(struct reg_prog *r, unsigned version)
{
	struct sim_prog *p = &r->p;
	sim_prog_init(p);
	r->cfgr = sim_prog_mrs(p, 1, PV_AMCFGR_EL0);
	r->cgcr = sim_prog_mrs(p, 1, PV_AMCGCR_EL0);
	r->g1idr = sim_prog_mrs(p, 1, PV_AMCG1IDR_EL0);
	if (version < 2)
		sim_prog_expect(p, r->g1idr, SIM_OUT_UNDEF); /* AMUv1p1 register */
	r->cr = sim_prog_mrs(p, 1, PV_AMCR_EL0);
	r->en0 = sim_prog_mrs(p, 1, PV_AMCNTENSET0_EL0);
	r->en1 = sim_prog_mrs(p, 1, PV_AMCNTENCLR1_EL0);
	for (unsigned n = 0; n < 4; n++)
		r->ty[n] = sim_prog_mrs(p, 1, PV_AMEVTYPER0_EL0(n));
	for (unsigned n = 0; n < AUX; n++)
		r->ty1[n] = sim_prog_mrs(p, 0 + 1, PV_AMEVTYPER1_EL0(n));
	/* Only the highest EL writes these; a guest never is: UNDEFINED, not trapped. */
	const uint32_t ro[] = {PV_AMCR_EL0,         PV_AMCNTENSET0_EL0,  PV_AMCNTENCLR0_EL0,
			       PV_AMCNTENSET1_EL0,  PV_AMCNTENCLR1_EL0,  PV_AMEVCNTR0_EL0(0),
			       PV_AMEVCNTR0_EL0(1), PV_AMEVCNTR1_EL0(0), PV_AMEVTYPER1_EL0(1),
			       PV_AMCFGR_EL0,       PV_AMCGCR_EL0,       PV_AMEVTYPER0_EL0(2)};
	for (unsigned el = 0; el < 2; el++)
		for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
			sim_prog_expect(p, sim_prog_msr(p, el, ro[i], 0xF), SIM_OUT_UNDEF);
	/* Beyond the counters: UNDEFINED. */
	sim_prog_expect(p, sim_prog_mrs(p, 1, PV_AMEVCNTR0_EL0(4)), SIM_OUT_UNDEF);
	sim_prog_expect(p, sim_prog_mrs(p, 1, PV_AMEVTYPER0_EL0(7)), SIM_OUT_UNDEF);
	sim_prog_expect(p, sim_prog_mrs(p, 1, PV_AMEVCNTR1_EL0(AUX)), SIM_OUT_UNDEF);
	sim_prog_expect(p, sim_prog_mrs(p, 1, PV_AMEVTYPER1_EL0(AUX + 3)), SIM_OUT_UNDEF);
	/* AMUSERENR_EL0: reset 0; EL0 may read it but not write it; EN gates EL0 (to EL1). */
	r->userenr0 = sim_prog_mrs(p, 0, PV_AMUSERENR_EL0);
	sim_prog_expect(p, sim_prog_msr(p, 0, PV_AMUSERENR_EL0, 1), SIM_OUT_UNDEF);
	sim_prog_expect(p, sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(0)), SIM_OUT_EL1_SYSREG);
	sim_prog_expect(p, sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(1)), SIM_OUT_EL1_SYSREG);
	sim_prog_expect(p, sim_prog_mrs(p, 0, PV_AMCFGR_EL0), SIM_OUT_EL1_SYSREG);
	sim_prog_msr(p, 1, PV_AMUSERENR_EL0, ~UINT64_C(0)); /* RES0 bits dropped */
	r->after = sim_prog_mrs(p, 0, PV_AMUSERENR_EL0);
	r->cnt0_el0 = sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(0));
	sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(1));
	sim_prog_mrs(p, 0, PV_AMEVCNTR1_EL0(AUX - 1));
	sim_prog_workload(p, 0, SIM_PROF_INT, 5000);
	sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(2));
	sim_prog_msr(p, 1, PV_AMUSERENR_EL0, 0);
	sim_prog_expect(p, sim_prog_mrs(p, 0, PV_AMEVCNTR0_EL0(2)), SIM_OUT_EL1_SYSREG);
	sim_prog_mrs(p, 1, PV_AMEVCNTR0_EL0(2));
}

static void check_views(const struct reg_prog *r, const struct sim_config *c, unsigned version)
{
	const struct sim_op *o = r->p.ops;
	assert_int_equal(o[r->cfgr].value, PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 |
						   PV_FIELD_PREP(PV_AMCFGR_NCG, UINT64_C(1)) |
						   (4 + AUX - 1));
	assert_int_equal(o[r->cgcr].value, PV_FIELD_PREP(PV_AMCGCR_CG1NC, (uint64_t)AUX) | 4);
	if (version >= 2)
		assert_int_equal(
			o[r->g1idr].value,
			0xFu | PV_FIELD_PREP(PV_AMCG1IDR_OFF, (uint64_t)(0xFu & ~NO_VOFF)));
	assert_int_equal(o[r->cr].value, 0);
	assert_int_equal(o[r->en0].value, 0xF);
	assert_int_equal(o[r->en1].value, 0xF);
	static const uint64_t ty[4] = {0x0011, 0x4004, 0x0008, 0x4005};
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(o[r->ty[n]].value, ty[n]);
	for (unsigned n = 0; n < AUX; n++)
		assert_int_equal(o[r->ty1[n]].value, c->amu.aux_events[n]);
	assert_int_equal(o[r->userenr0].value, 0);
	assert_int_equal(o[r->after].value, PV_AMUSERENR_EN);
}

static void test_registers_as_guest_sees_them(void **state)
{
	(void)state;
	/* AMUv1p1 with FGT (virtual-offset path), the same hardware on the trap path, AMUv1. */
	for (unsigned variant = 0; variant < 3; variant++) {
		unsigned version = variant == 2 ? 1 : 2;
		struct sim_config c = scen_amu_config(5, version, AUX, NO_VOFF, version == 2,
						      2);
		struct sim_machine *m = scen_machine(&c);
		assert_non_null(m);
		if (variant == 1)
			m->hw.amuhw.voff = false;
		struct pv_vm_config cfg = scen_amu_vm(version, AUX);
		struct reg_prog r;
		build_reg_prog(&r, version);
		assert_true(scen_vm_vcpu(m, &cfg, 0, &r.p) >= 0);
		scen_amu_track(m, 0);
		/* A VM without the AMU beside it: hidden in ID_AA64PFR0_EL1 and every register
		 * UNDEFINED, from EL0 (AMUSERENR_EL0.EN is 1 outside AMU guests, so EL0 reaches
		 * CPTR_EL2.TAM) and EL1. */
		struct sim_prog h;
		sim_prog_init(&h);
		size_t pfr0 = sim_prog_mrs(&h, 1, PV_ID_AA64PFR0_EL1);
		const uint32_t keys[] = {
			PV_AMCR_EL0,          PV_AMCFGR_EL0,       PV_AMUSERENR_EL0,
			PV_AMCNTENSET0_EL0,   PV_AMEVCNTR0_EL0(0), PV_AMEVCNTR0_EL0(1),
			PV_AMEVTYPER0_EL0(0), PV_AMEVCNTR1_EL0(0), PV_AMCG1IDR_EL0};
		for (unsigned el = 0; el < 2; el++)
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				sim_prog_expect(&h, sim_prog_mrs(&h, el, keys[i]),
						SIM_OUT_UNDEF);
				sim_prog_workload(&h, el, SIM_PROF_INT, 3000);
			}
		struct pv_vm_config none = {.features = 0};
		assert_true(scen_vm_vcpu(m, &none, 0, &h) >= 0);
		sim_run(m);
		assert_int_equal(scen_hygiene(m, "regs"), 0);
		assert_int_equal(scen_amu_verify(m, 0, "regs"), 0);
		assert_int_equal(scen_amu_verify(m, 1, "regs-hidden"), 0);
		check_views(&r, &c, version);
		assert_int_equal(PV_ID_FIELD(h.ops[pfr0].value, PV_ID_AA64PFR0_AMU), 0);
		/* On the virtual-offset path the identification reads did not trap. */
		assert_int_equal(r.p.ops[r.cfgr].trapped, variant != 0);
		assert_int_equal(r.p.ops[r.cnt0_el0].trapped, variant != 0);
		sim_prog_free(&r.p);
		sim_prog_free(&h);
		scen_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_voff_path),
		cmocka_unit_test(test_exact_trap_path_v1),
		cmocka_unit_test(test_exact_without_el3_delegation),
		cmocka_unit_test(test_exact_across_power_down),
		cmocka_unit_test(test_guest_frequency),
		cmocka_unit_test(test_registers_as_guest_sees_them),
	};
	return cmocka_run_group_tests_name("scen_amu", tests, NULL, NULL);
}
