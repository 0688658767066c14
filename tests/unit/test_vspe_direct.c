/* SPDX-License-Identifier: MIT */
/*
 * Direct sampling controls (docs/spe.md): where a VM's view of the PMS* registers is the
 * hardware's, MDCR_EL2.TPMS comes off at a vCPU's first SPE access and the guest reads and
 * writes them itself while loaded; registers whose view differs trap by FEAT_FGT, and without
 * it (or the fine-grained words applied) everything traps. The "hardware" is the plain-memory
 * platform: the tests play the hypervisor (the trap words into the EL2 cells at each load)
 * and the CPU (each guest access routed as the D24.7 accessibility pseudocode routes it:
 * the register's fine-grained trap, then TPMS, else the register itself).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "guest_trap.h"
#include "test_vspe_rig.h"

static const struct spe_hw_desc DIRECT = {.version = 3,
					  .align = 6,
					  .max_size = 7,
					  .fgt = true,
					  .no_eft_fds = true,
					  .fgt_words = true};

static const uint32_t controls[] = {PV_PMSCR_EL1,   PV_PMSICR_EL1,  PV_PMSIRR_EL1,
				    PV_PMSFCR_EL1,  PV_PMSEVFR_EL1, PV_PMSNEVFR_EL1,
				    PV_PMSLATFR_EL1};
#define NCONTROLS (sizeof(controls) / sizeof(controls[0]))

static void apply(struct memplat_cpu *c, uint32_t key, uint64_t owned, uint64_t word)
{
	uint64_t *p = memplat_reg(c, key);
	*p = (*p & ~owned) | word;
}

/* The hypervisor's load: the vCPU's trap words into the EL2 controls, over what the cells
 * hold (the hypervisor's own fields), then the library's load. */
static void hyp_load(struct spe_rig *r, struct pv_vcpu *v, unsigned cpu)
{
	struct memplat_cpu *c = &r->mc[cpu];
	const struct pv_trap_words *t = &v->traps;
	apply(c, PV_MDCR_EL2, t->mdcr_el2_owned, t->mdcr_el2);
	apply(c, PV_HDFGRTR_EL2, t->hdfgrtr_el2_owned, t->hdfgrtr_el2);
	apply(c, PV_HDFGWTR_EL2, t->hdfgwtr_el2_owned, t->hdfgwtr_el2);
	apply(c, PV_PMSCR_EL2, t->pmscr_el2_owned, t->pmscr_el2);
	pv_vcpu_load(v, &r->cpu[cpu]);
}

/* The fine-grained trap bit of a sampling control (the same in both words), 0 for none. */
static uint64_t fgt_bit(uint32_t key)
{
	switch (key) {
	case PV_PMSCR_EL1:
		return PV_HDFGRTR_EL2_PMSCR_EL1;
	case PV_PMSEVFR_EL1:
		return PV_HDFGRTR_EL2_PMSEVFR_EL1;
	case PV_PMSFCR_EL1:
		return PV_HDFGRTR_EL2_PMSFCR_EL1;
	case PV_PMSICR_EL1:
		return PV_HDFGRTR_EL2_PMSICR_EL1;
	case PV_PMSIDR_EL1:
		return PV_HDFGRTR_EL2_PMSIDR_EL1;
	case PV_PMSIRR_EL1:
		return PV_HDFGRTR_EL2_PMSIRR_EL1;
	case PV_PMSLATFR_EL1:
		return PV_HDFGRTR_EL2_PMSLATFR_EL1;
	default:
		return 0;
	}
}

/* Whether the loaded vCPU's EL1 access of a PMS* register traps (D24.7: the register's
 * fine-grained trap, PMSNEVFR_EL1's while its n-bit is 0, then MDCR_EL2.TPMS). */
static bool traps(struct spe_rig *r, unsigned cpu, uint32_t key, bool is_read)
{
	struct memplat_cpu *c = &r->mc[cpu];
	uint64_t w = *memplat_reg(c, is_read ? PV_HDFGRTR_EL2 : PV_HDFGWTR_EL2);
	if (r->hw.fgt) {
		if (key == PV_PMSNEVFR_EL1 && !(w & PV_HDFGRTR_EL2_nPMSNEVFR_EL1))
			return true;
		if (w & fgt_bit(key))
			return true;
	}
	return (*memplat_reg(c, PV_MDCR_EL2) & PV_MDCR_EL2_TPMS) != 0;
}

/* A guest MRS at EL1 of a sampling control, as the CPU routes it; *trapped says which. */
static uint64_t g_rd(struct spe_rig *r, struct pv_vcpu *v, unsigned cpu, uint32_t key,
		     bool *trapped)
{
	bool t = traps(r, cpu, key, true);
	if (trapped)
		*trapped = t;
	return t ? guest_mrs_ok(v, key) : *memplat_reg(&r->mc[cpu], key);
}

static void g_wr(struct spe_rig *r, struct pv_vcpu *v, unsigned cpu, uint32_t key, uint64_t val,
		 bool *trapped)
{
	bool t = traps(r, cpu, key, false);
	if (trapped)
		*trapped = t;
	if (t)
		guest_msr_ok(v, key, val);
	else
		*memplat_reg(&r->mc[cpu], key) = val;
}

/* A second VM on the rig's machine, its vCPU and pin store. */
struct other {
	struct pv_vm vm;
	struct pv_vcpu v;
	struct memplat_vcpu mv;
	struct pv_vspe_pin *pins;
};

static void other_new(struct spe_rig *r, struct other *o, unsigned version)
{
	struct pv_vm_config cfg = {.features = PV_FEAT_SPE,
				   .spe = {.version = (uint8_t)version, .max_buffer = 1 << 20}};
	assert_int_equal(pv_vm_init(&o->vm, &r->hw, &cfg), PV_OK);
	o->mv = (struct memplat_vcpu){.mem = &r->mem};
	pv_vcpu_init(&o->v, &o->vm, 9, &o->mv);
	uint32_t n = PV_VSPE_PIN_SLOTS(o->vm.spe.max_buffer);
	o->pins = calloc(n, sizeof(*o->pins));
	assert_non_null(o->pins);
	pv_vspe_vcpu_pins(&o->v, o->pins, n);
}

static void other_free(struct other *o)
{
	pv_vcpu_release(&o->v);
	assert_int_equal(pv_vm_release(&o->vm), PV_OK);
	free(o->pins);
}

/* Where the path is taken: up to SPEv1p2, no FEAT_SPE_FDS, and each register either the
 * VM's view or trapped by FEAT_FGT with the words applied. The trap words: TPMS set (it
 * comes off per vCPU), the fine-grained bits of what still traps, PMSNEVFR_EL1's n-bit. */
static void test_where_direct(void **state)
{
	(void)state;
	static const struct {
		unsigned hw, vm;
		bool fgt, words, eft_fds, want;
		unsigned fgt_regs;
	} t[] = {
		{3, 3, true, true, false, true, 0},
		{3, 3, false, false, false, true, 0}, /* no FEAT_FGT: nothing differs */
		{3, 2, true, true, false, true,
		 PV_VSPE_FGT_PMSIDR | PV_VSPE_FGT_PMSFCR | PV_VSPE_FGT_PMSEVFR |
			 PV_VSPE_FGT_PMSNEVFR},
		{3, 1, true, true, false, true,
		 PV_VSPE_FGT_PMSIDR | PV_VSPE_FGT_PMSFCR | PV_VSPE_FGT_PMSEVFR |
			 PV_VSPE_FGT_PMSNEVFR},
		{3, 2, false, false, false, false, 0}, /* PMSNEVFR_EL1 would be reachable */
		{3, 2, true, false, false, false, 0},  /* the words not applied */
		{2, 2, false, false, false, true, 0},
		{2, 1, false, false, false, false, 0}, /* PMSEVFR_EL1 bit 11 */
		{2, 1, true, true, false, true, PV_VSPE_FGT_PMSEVFR},
		{1, 1, false, false, false, true, 0},
		{3, 3, true, true, true, false, 0},  /* FEAT_SPE_FDS: PMSDSFR_EL1 */
		{4, 3, true, true, false, false, 0}, /* above SPEv1p2: fields unknown */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct spe_hw_desc d = DIRECT;
		d.version = t[i].hw;
		d.fgt = t[i].fgt;
		d.fgt_words = t[i].words;
		d.no_eft_fds = !t[i].eft_fds;
		struct spe_rig *r = spe_rig_new(&d);
		assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, t[i].vm, 1 << 20), PV_OK);
		assert_int_equal(r->vm.spe.direct, t[i].want);
		assert_int_equal(r->vm.spe.fgt, t[i].fgt_regs);
		const struct pv_trap_words *w = &r->v[0].traps;
		assert_true(w->mdcr_el2 & PV_MDCR_EL2_TPMS);
		assert_int_equal(w->pmscr_el2, 0);
		assert_int_equal(w->pmscr_el2_owned & PV_PMSCR_EL2_OWNED, PV_PMSCR_EL2_OWNED);
		if (t[i].want && t[i].fgt) {
			assert_int_equal(w->hdfgrtr_el2_owned & PV_HDFGRTR_EL2_PMSCR_EL1,
					 PV_HDFGRTR_EL2_PMSCR_EL1);
			bool sidr = t[i].fgt_regs & PV_VSPE_FGT_PMSIDR;
			bool fcr = t[i].fgt_regs & PV_VSPE_FGT_PMSFCR;
			bool evfr = t[i].fgt_regs & PV_VSPE_FGT_PMSEVFR;
			assert_int_equal(!!(w->hdfgrtr_el2 & PV_HDFGRTR_EL2_PMSIDR_EL1), sidr);
			assert_int_equal(!!(w->hdfgrtr_el2 & PV_HDFGRTR_EL2_PMSFCR_EL1), fcr);
			assert_int_equal(!!(w->hdfgwtr_el2 & PV_HDFGWTR_EL2_PMSFCR_EL1), fcr);
			assert_int_equal(!!(w->hdfgrtr_el2 & PV_HDFGRTR_EL2_PMSEVFR_EL1), evfr);
			assert_int_equal(!!(w->hdfgwtr_el2 & PV_HDFGWTR_EL2_PMSEVFR_EL1), evfr);
			/* Never trapped here: the registers Linux writes at every switch. */
			uint64_t never = PV_HDFGRTR_EL2_PMSCR_EL1 | PV_HDFGRTR_EL2_PMSICR_EL1 |
					 PV_HDFGRTR_EL2_PMSIRR_EL1 |
					 PV_HDFGRTR_EL2_PMSLATFR_EL1;
			assert_int_equal(w->hdfgrtr_el2 & never, 0);
			assert_int_equal(w->hdfgwtr_el2 & never, 0);
			if (t[i].hw >= 3) { /* FnE: PMSNEVFR_EL1 traps while its n-bit is 0 */
				bool open = !(t[i].fgt_regs & PV_VSPE_FGT_PMSNEVFR);
				assert_true(w->hdfgrtr_el2_owned &
					    PV_HDFGRTR_EL2_nPMSNEVFR_EL1);
				assert_int_equal(
					!!(w->hdfgrtr_el2 & PV_HDFGRTR_EL2_nPMSNEVFR_EL1),
					open);
				assert_int_equal(
					!!(w->hdfgwtr_el2 & PV_HDFGWTR_EL2_nPMSNEVFR_EL1),
					open);
			}
		} else if (t[i].fgt) { /* trapped: PMBIDR_EL1's bit alone */
			assert_int_equal(w->hdfgrtr_el2, PV_HDFGRTR_EL2_PMBIDR_EL1);
			assert_int_equal(w->hdfgwtr_el2_owned, 0);
		}
		spe_rig_free(r);
	}
}

/* TPMS comes off at the vCPU's first SPE write, in its trap words and in the MDCR_EL2 in
 * force (the other fields kept), once its controls are in the hardware; a read before that
 * traps and changes nothing. A VM on the trapped path keeps TPMS. */
static void test_first_write_clears_tpms(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&DIRECT);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	struct memplat_cpu *c = &r->mc[0];
	/* What the previous vCPU left in the hardware. */
	for (size_t i = 0; i < NCONTROLS; i++)
		*memplat_reg(c, controls[i]) = 0x5A5A;
	hyp_load(r, v, 0);
	uint64_t mdcr = *memplat_reg(c, PV_MDCR_EL2);
	assert_true(mdcr & PV_MDCR_EL2_TPMS);
	bool trapped;
	assert_int_equal(g_rd(r, v, 0, PV_PMSIRR_EL1, &trapped), 0);
	assert_true(trapped);
	assert_true(*memplat_reg(c, PV_MDCR_EL2) & PV_MDCR_EL2_TPMS);
	assert_false(v->spe.used);
	g_wr(r, v, 0, PV_PMSIRR_EL1, 0x1100, &trapped);
	assert_true(trapped);
	assert_true(v->spe.used);
	assert_false(v->traps.mdcr_el2 & PV_MDCR_EL2_TPMS);
	assert_int_equal(*memplat_reg(c, PV_MDCR_EL2), mdcr & ~PV_MDCR_EL2_TPMS);
	/* Every control is the vCPU's now, none the previous one's. */
	for (size_t i = 0; i < NCONTROLS; i++)
		assert_int_equal(*memplat_reg(c, controls[i]),
				 controls[i] == PV_PMSIRR_EL1 ? 0x1100 : 0);
	/* From here on its accesses are the hardware's. */
	g_wr(r, v, 0, PV_PMSLATFR_EL1, 77, &trapped);
	assert_false(trapped);
	assert_int_equal(g_rd(r, v, 0, PV_PMSLATFR_EL1, &trapped), 77);
	assert_false(trapped);
	/* The PMSIDR_EL1 view is the hardware's here: its read is the hardware's too. */
	assert_int_equal(g_rd(r, v, 0, PV_PMSIDR_EL1, &trapped), r->hw.spehw.pmsidr);
	assert_false(trapped);
	/* The next load writes the words without TPMS. */
	pv_vcpu_put(v);
	*memplat_reg(c, PV_MDCR_EL2) |= PV_MDCR_EL2_TPMS;
	hyp_load(r, v, 0);
	assert_false(*memplat_reg(c, PV_MDCR_EL2) & PV_MDCR_EL2_TPMS);
	pv_vcpu_put(v);
	spe_rig_free(r);

	struct spe_hw_desc no_fgt = DIRECT;
	no_fgt.fgt = no_fgt.fgt_words = false;
	r = spe_rig_new(&no_fgt);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, 1 << 20), PV_OK); /* v1p1 on v1p2 */
	assert_false(r->vm.spe.direct);
	hyp_load(r, &r->v[0], 0);
	g_wr(r, &r->v[0], 0, PV_PMSIRR_EL1, 0x1100, &trapped);
	assert_true(trapped);
	assert_true(r->v[0].traps.mdcr_el2 & PV_MDCR_EL2_TPMS);
	assert_true(*memplat_reg(&r->mc[0], PV_MDCR_EL2) & PV_MDCR_EL2_TPMS);
	g_wr(r, &r->v[0], 0, PV_PMSLATFR_EL1, 5, &trapped);
	assert_true(trapped);
	pv_vcpu_put(&r->v[0]);
	spe_rig_free(r);
}

/* What a guest writes into the hardware itself is its own: saved at put (PMSCR_EL1 before
 * sampling stops, so the guest's value, not 0), restored at load on any pCPU, never seen by
 * another VM's vCPU (which traps until its first write puts its own there), and what the
 * operator reads, live while loaded. */
static void test_values_are_the_vcpus(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&DIRECT);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	struct other o;
	other_new(r, &o, 3);
	struct pv_vcpu *a = &r->v[0], *b = &o.v;
	/* Values with bits the VM's view lacks too: a RES0 bit the hardware may keep (a plain
	 * cell keeps all) is the vCPU's, as the rest. */
	static const uint64_t mine[] = {~UINT64_C(0),      0x2345, 0x10000101, 0x70007,
					0x8A | PV_BIT(40), 0x20,   0xFFFF1234};
	hyp_load(r, a, 0);
	g_wr(r, a, 0, PV_PMSIRR_EL1, 0x100, NULL); /* the first write traps */
	for (size_t i = 0; i < NCONTROLS; i++) {
		bool trapped;
		g_wr(r, a, 0, controls[i], mine[i], &trapped);
		assert_false(trapped);
		assert_int_equal(pv_vspe_control(a, controls[i]), mine[i]); /* live */
	}
	assert_int_equal(a->spe.irr, 0x100); /* the field is stale while loaded */
	pv_vcpu_put(a);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSCR_EL1), 0); /* sampling stopped */
	for (size_t i = 0; i < NCONTROLS; i++)
		assert_int_equal(pv_vspe_control(a, controls[i]), mine[i]); /* saved */

	/* Another VM's vCPU on the same pCPU: every access traps until its first write, and
	 * reads its own reset values, never a's. */
	hyp_load(r, b, 0);
	for (size_t i = 0; i < NCONTROLS; i++) {
		bool trapped;
		assert_int_equal(g_rd(r, b, 0, controls[i], &trapped), 0);
		assert_true(trapped);
	}
	g_wr(r, b, 0, PV_PMSFCR_EL1, PV_PMSFCR_FT, NULL);
	for (size_t i = 0; i < NCONTROLS; i++) {
		bool trapped;
		uint64_t want = controls[i] == PV_PMSFCR_EL1 ? PV_PMSFCR_FT : 0;
		assert_int_equal(g_rd(r, b, 0, controls[i], &trapped), want);
		assert_false(trapped);
		assert_int_equal(*memplat_reg(&r->mc[0], controls[i]), want);
	}
	pv_vcpu_put(b);

	/* a on the other pCPU: everything back, before it runs; b's values are b's. */
	hyp_load(r, a, 1);
	for (size_t i = 0; i < NCONTROLS; i++) {
		bool trapped;
		assert_int_equal(g_rd(r, a, 1, controls[i], &trapped), mine[i]);
		assert_false(trapped);
	}
	assert_int_equal(pv_vspe_control(b, PV_PMSFCR_EL1), PV_PMSFCR_FT);
	assert_int_equal(pv_vspe_control(b, PV_PMSCR_EL1), 0);
	/* The operator's view of PMSICR_EL1 is the counter as it runs. */
	*memplat_reg(&r->mc[1], PV_PMSICR_EL1) = 0x33;
	assert_int_equal(pv_vspe_control(a, PV_PMSICR_EL1), 0x33);
	assert_int_equal(pv_vspe_control(a, PV_PMBSR_EL1), 0); /* not a control */
	pv_vcpu_put(a);
	assert_int_equal(pv_vspe_control(a, PV_PMSICR_EL1), 0x33);
	other_free(&o);
	spe_rig_free(r);
}

/* The bounds of what a guest asks in PMSCR_EL1: it writes all ones and reads back every bit
 * it wrote that the hardware holds (PA and PCT among them), and the hypervisor's PMSCR_EL2
 * while it runs is all zero with every field that could widen the guest's owned: no physical
 * address (PMSCR_EL2.PA), virtual timestamps (PCT 0b00), no CONTEXTIDR_EL2 (CX), no EL2 or
 * host-EL0 sampling (E2SPE, E0HSPE). On the trapped path the hardware never holds PA or
 * PCT. */
static void test_pmscr_bounds(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&DIRECT);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	*memplat_reg(&r->mc[0], PV_PMSCR_EL2) = ~UINT64_C(0); /* the host's own asks for all */
	hyp_load(r, v, 0);
	uint64_t el2 = *memplat_reg(&r->mc[0], PV_PMSCR_EL2);
	assert_int_equal(el2 & (PV_PMSCR_PA | PV_PMSCR_PCT | PV_PMSCR_CX | PV_PMSCR_E1SPE |
				PV_PMSCR_E0SPE),
			 0);
	/* The first write traps: stored as the VM's fields, given to the hardware whole. */
	guest_msr_ok(v, PV_PMSCR_EL1, ~UINT64_C(0));
	uint64_t all = PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_PA |
		       PV_PMSCR_TS | PV_BIT(6);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSCR_EL1), all);
	assert_int_equal(guest_mrs_ok(v, PV_PMSCR_EL1), all);
	pv_vcpu_put(v);
	assert_int_equal(v->spe.scr, all);
	spe_rig_free(r);
}

/* A VM of an older version on SPEv1p2 with FEAT_FGT: what its view lacks traps by its own
 * fine-grained bit and reads as its view (PMSFCR_EL1 without FnE, PMSEVFR_EL1 without the
 * not-taken event, PMSIDR_EL1 without FnE, PMSNEVFR_EL1 UNDEFINED), the rest is direct; the
 * trapped ones hold in the hardware only what the VM has. */
static void test_older_version_by_fgt(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&DIRECT);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, 1 << 20), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	bool trapped;
	hyp_load(r, v, 0);
	g_wr(r, v, 0, PV_PMSCR_EL1, PV_PMSCR_E1SPE, &trapped); /* first: traps */
	assert_true(trapped);
	g_wr(r, v, 0, PV_PMSFCR_EL1, ~UINT64_C(0), &trapped);
	assert_true(trapped);
	assert_int_equal(g_rd(r, v, 0, PV_PMSFCR_EL1, &trapped), 0x70007);
	assert_true(trapped);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSFCR_EL1), 0x70007);
	g_wr(r, v, 0, PV_PMSEVFR_EL1, ~UINT64_C(0), &trapped);
	assert_true(trapped);
	assert_false(g_rd(r, v, 0, PV_PMSEVFR_EL1, NULL) & PV_BIT(6));
	assert_false(*memplat_reg(&r->mc[0], PV_PMSEVFR_EL1) & PV_BIT(6));
	assert_false(g_rd(r, v, 0, PV_PMSIDR_EL1, &trapped) & PV_PMSIDR_FNE);
	assert_true(trapped);
	assert_true(traps(r, 0, PV_PMSNEVFR_EL1, true));
	assert_true(traps(r, 0, PV_PMSNEVFR_EL1, false));
	assert_int_equal(guest_mrs(v, PV_PMSNEVFR_EL1, 1, NULL), PV_TRAP_UNDEF);
	assert_int_equal(guest_msr(v, PV_PMSNEVFR_EL1, 1, 1), PV_TRAP_UNDEF);
	for (size_t i = 0; i < NCONTROLS; i++) {
		uint32_t k = controls[i];
		if (k == PV_PMSFCR_EL1 || k == PV_PMSEVFR_EL1 || k == PV_PMSNEVFR_EL1)
			continue;
		assert_false(traps(r, 0, k, true));
		assert_false(traps(r, 0, k, false));
	}
	/* Across a put and a load, the trapped ones keep their view too. */
	pv_vcpu_put(v);
	hyp_load(r, v, 1);
	assert_int_equal(g_rd(r, v, 1, PV_PMSFCR_EL1, NULL), 0x70007);
	assert_int_equal(g_rd(r, v, 1, PV_PMSCR_EL1, NULL), PV_PMSCR_E1SPE);
	pv_vcpu_put(v);
	spe_rig_free(r);
}

/* PMSEVFR_EL1 and PMSNEVFR_EL1 hold the same filters whichever path a VM is on. Hardware
 * with SVE or SME and SPEv1p1 has E[17] and E[18], the partial and empty predicate events
 * (D24.7.11, PMSNEVFR_EL1 alike; the QEMU of our own's model holds 0x60bfe): on the direct
 * path the guest holds them in the hardware itself, so the trapped path's view must have them
 * too, or the same guest would filter on them on one path and not the other. */
static void test_event_filters_both_paths(void **state)
{
	(void)state;
	static const uint64_t implemented = UINT64_C(0x60bfe);
	uint64_t got[2][2];
	for (unsigned path = 0; path < 2; path++) {
		struct spe_hw_desc d = DIRECT;
		d.no_eft_fds = path == 0; /* 1: FEAT_SPE_FDS, everything traps */
		struct spe_rig *r = spe_rig_new(&d);
		r->hw.spehw.evfr_mask = r->hw.spehw.nevfr_mask = implemented;
		assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
		assert_int_equal(r->vm.spe.direct, path == 0);
		struct pv_vcpu *v = &r->v[0];
		hyp_load(r, v, 0);
		g_wr(r, v, 0, PV_PMSFCR_EL1, PV_PMSFCR_FE | PV_PMSFCR_FnE, NULL);
		g_wr(r, v, 0, PV_PMSEVFR_EL1, PV_GENMASK(18, 17) | PV_BIT(1), NULL);
		g_wr(r, v, 0, PV_PMSNEVFR_EL1, PV_BIT(18), NULL);
		got[path][0] = g_rd(r, v, 0, PV_PMSEVFR_EL1, NULL);
		got[path][1] = g_rd(r, v, 0, PV_PMSNEVFR_EL1, NULL);
		pv_vcpu_put(v);
		spe_rig_free(r);
	}
	assert_int_equal(got[0][0], PV_GENMASK(18, 17) | PV_BIT(1)); /* the hardware's */
	assert_int_equal(got[0][1], PV_BIT(18));
	assert_int_equal(got[1][0], got[0][0]);
	assert_int_equal(got[1][1], got[0][1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_direct),
		cmocka_unit_test(test_first_write_clears_tpms),
		cmocka_unit_test(test_values_are_the_vcpus),
		cmocka_unit_test(test_pmscr_bounds),
		cmocka_unit_test(test_older_version_by_fgt),
		cmocka_unit_test(test_event_filters_both_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
