/* SPDX-License-Identifier: MIT */
/* SPE, memory and stage 2 as part of the machine's run (see spe_machine.h). */
#include <stdlib.h>
#include <string.h>

#include "perfvisor/vspe.h"
#include "sim.h"

struct spe_vm {
	struct sim_s2 s2;
	bool has_s2;
	uint64_t cntvoff;
};

struct sim_spe_machine {
	struct sim_mem mem;
	bool has_mem;
	struct sim_spe unit[SIM_MAX_CPUS];
	uint64_t pmscr_el2[SIM_MAX_CPUS]; /* the hypervisor's own */
	struct spe_vm vm[SIM_MAX_VMS];
	struct sim_spe_vcpu *vcpu[SIM_MAX_VCPUS];
	struct pv_vspe_pin *pins[SIM_MAX_VCPUS]; /* the hypervisor's pin stores */
	uint64_t stray;
	uint64_t live_unpins;
};

void sim_spe_machine_config_default(struct sim_spe_machine_config *c)
{
	*c = (struct sim_spe_machine_config){
		.unit = {.align = 6, .max_size = 7, .interval = 2, .events = 0xFFE},
		.vm_ram = UINT64_C(64) << 20,
	};
}

int sim_spe_machine_init(struct sim_machine *m)
{
	const struct sim_spe_machine_config *c = &m->cfg.spe;
	const struct sim_spe_config *u = &c->unit;
	if (!u->version && !c->ram)
		return 0;
	if (u->version > PV_SPE_V1P2 || u->max_size < 4 || u->max_size > 11 ||
	    u->align > u->max_size)
		return PV_ERR_UNSUPPORTED;
	struct sim_spe_machine *sm = calloc(1, sizeof(*sm));
	if (!sm)
		return PV_ERR_UNSUPPORTED;
	m->spe_machine = sm;
	if (c->ram) {
		if (sim_mem_init(&sm->mem, SIM_RAM_BASE, c->ram))
			return PV_ERR_UNSUPPORTED;
		sm->has_mem = true;
	}
	for (unsigned i = 0; i < m->cfg.cpus; i++)
		sim_spe_init(&sm->unit[i], u, m->cfg.seed * 0x9E37u + i + 1);
	return 0;
}

void sim_spe_machine_vm_added(struct sim_machine *m, unsigned vm)
{
	struct sim_spe_machine *sm = m->spe_machine;
	if (!sm)
		return;
	struct spe_vm *s = &sm->vm[vm];
	/* CNTVOFF_EL2: the VM's virtual counter runs far from the physical one. */
	s->cntvoff = (uint64_t)0 - ((uint64_t)(vm + 1) << 40);
	if (sm->has_mem &&
	    !sim_s2_init(&s->s2, &sm->mem, SIM_OWNER_VM(vm), SIM_VM_RAM_IPA, m->cfg.spe.vm_ram))
		s->has_s2 = true;
}

struct sim_spe_vcpu *sim_spe_machine_vcpu(struct sim_machine *m, unsigned vcpu)
{
	struct sim_spe_machine *sm = m->spe_machine;
	if (!sm || vcpu >= SIM_MAX_VCPUS)
		return NULL;
	if (!sm->vcpu[vcpu]) {
		struct sim_spe_vcpu *g = calloc(1, sizeof(*g));
		if (!g)
			abort();
		/* A kernel's code and data by default (TTBR1 half). */
		g->code[1] = (struct sim_spe_region){.pc = UINT64_C(0xFFFF800010000000),
						     .pc_size = 1u << 20,
						     .data = UINT64_C(0xFFFF000000000000),
						     .data_size = 1u << 20};
		g->code[0] = (struct sim_spe_region){.pc = 0x400000,
						     .pc_size = 1u << 20,
						     .data = 0x10000000,
						     .data_size = 1u << 20};
		sm->vcpu[vcpu] = g;
	}
	return sm->vcpu[vcpu];
}

/* The hypervisor gives every vCPU of an SPE VM a pin store for its largest buffer. */
void sim_spe_machine_vcpu_added(struct sim_machine *m, unsigned vcpu)
{
	struct sim_spe_machine *sm = m->spe_machine;
	struct sim_vcpu *v = &m->vcpu[vcpu];
	if (!sm || !v->vm->pv.spe.version)
		return;
	uint32_t n = PV_VSPE_PIN_SLOTS(v->vm->pv.spe.max_buffer);
	free(sm->pins[vcpu]);
	sm->pins[vcpu] = calloc(n, sizeof(struct pv_vspe_pin));
	if (!sm->pins[vcpu])
		abort();
	pv_vspe_vcpu_pins(&v->pv, sm->pins[vcpu], n);
	sim_spe_machine_vcpu(m, vcpu);
}

void sim_spe_machine_free(struct sim_machine *m)
{
	struct sim_spe_machine *sm = m->spe_machine;
	if (!sm)
		return;
	for (unsigned i = 0; i < SIM_MAX_VCPUS; i++) {
		if (sm->vcpu[i]) {
			sim_spe_log_free(&sm->vcpu[i]->log);
			free(sm->vcpu[i]->out);
			free(sm->vcpu[i]);
		}
		free(sm->pins[i]);
	}
	for (unsigned i = 0; i < SIM_MAX_VMS; i++)
		if (sm->vm[i].has_s2)
			sim_s2_fini(&sm->vm[i].s2);
	if (sm->has_mem)
		sim_mem_fini(&sm->mem);
	free(sm);
	m->spe_machine = NULL;
}

struct sim_spe *sim_spe_machine_unit(struct sim_machine *m, unsigned cpu)
{
	return m->spe_machine && cpu < m->cfg.cpus ? &m->spe_machine->unit[cpu] : NULL;
}

struct sim_s2 *sim_spe_machine_s2(struct sim_machine *m, unsigned vm)
{
	struct sim_spe_machine *sm = m->spe_machine;
	return sm && vm < SIM_MAX_VMS && sm->vm[vm].has_s2 ? &sm->vm[vm].s2 : NULL;
}

struct sim_mem *sim_spe_machine_mem(struct sim_machine *m)
{
	return m->spe_machine && m->spe_machine->has_mem ? &m->spe_machine->mem : NULL;
}

uint64_t sim_spe_machine_cntvoff(const struct sim_machine *m, unsigned vm)
{
	return m->spe_machine && vm < SIM_MAX_VMS ? m->spe_machine->vm[vm].cntvoff : 0;
}

uint64_t sim_spe_machine_stray(const struct sim_machine *m)
{
	return m->spe_machine ? m->spe_machine->stray : 0;
}

uint64_t sim_spe_machine_live_unpins(const struct sim_machine *m)
{
	return m->spe_machine ? m->spe_machine->live_unpins : 0;
}

/* ---- registers -------------------------------------------------------------------------- */

static bool is_el1_ctx(uint32_t key)
{
	return key == PV_SCTLR_EL1 || key == PV_TTBR0_EL1 || key == PV_TTBR1_EL1 ||
	       key == PV_TCR_EL1 || key == PV_CONTEXTIDR_EL1;
}

/* The vCPU whose EL1 context the pCPU holds: the running one, or the one being loaded. */
static struct sim_vcpu *context_of(struct sim_cpu *c)
{
	if (c->cur)
		return c->cur;
	return c->pv.loaded ? c->pv.loaded->plat : NULL;
}

static uint64_t *el1_reg(struct sim_el1 *e, uint32_t key)
{
	switch (key) {
	case PV_SCTLR_EL1:
		return &e->sctlr;
	case PV_TTBR0_EL1:
		return &e->ttbr0;
	case PV_TTBR1_EL1:
		return &e->ttbr1;
	case PV_TCR_EL1:
		return &e->tcr;
	default:
		return &e->contextidr;
	}
}

/* An EL2 control in force: the hypervisor's value, with the running vCPU's word applied. */
static uint64_t in_force(const struct sim_cpu *c, uint64_t hyp, uint64_t owned, uint64_t word)
{
	return c->cur ? (hyp & ~owned) | word : hyp;
}

static uint64_t pmscr_el2(const struct sim_cpu *c)
{
	const struct pv_trap_words *t = c->cur ? &c->cur->pv.traps : NULL;
	uint64_t hyp = c->m->spe_machine->pmscr_el2[c->idx];
	return t ? in_force(c, hyp, t->pmscr_el2_owned, t->pmscr_el2) : hyp;
}

/* The fine-grained trap of a sampling control at EL1 (HDFGRTR_EL2 for an MRS, HDFGWTR_EL2 for
 * an MSR, D24.2.67, D24.2.69): each register's bit, which the D24.7 accessibility pseudocode
 * tests before MDCR_EL2.TPMS; PMSNEVFR_EL1's traps while it is 0, wherever FEAT_FGT is. */
static bool pms_fgt_trap(const struct sim_cpu *c, uint32_t key, bool is_read)
{
	uint64_t w = sim_cpu_fgt(c, !is_read), bit;
	switch (key) {
	case PV_PMSCR_EL1:
		bit = PV_HDFGRTR_EL2_PMSCR_EL1;
		break;
	case PV_PMSEVFR_EL1:
		bit = PV_HDFGRTR_EL2_PMSEVFR_EL1;
		break;
	case PV_PMSFCR_EL1:
		bit = PV_HDFGRTR_EL2_PMSFCR_EL1;
		break;
	case PV_PMSICR_EL1:
		bit = PV_HDFGRTR_EL2_PMSICR_EL1;
		break;
	case PV_PMSIDR_EL1:
		bit = PV_HDFGRTR_EL2_PMSIDR_EL1;
		break;
	case PV_PMSIRR_EL1:
		bit = PV_HDFGRTR_EL2_PMSIRR_EL1;
		break;
	case PV_PMSLATFR_EL1:
		bit = PV_HDFGRTR_EL2_PMSLATFR_EL1;
		break;
	case PV_PMSNEVFR_EL1:
		return c->m->cfg.fgt && !(w & PV_HDFGRTR_EL2_nPMSNEVFR_EL1);
	default:
		return false;
	}
	/* HDFGWTR_EL2 has the same bit for each register it traps (PMSIDR_EL1 is read-only). */
	return (w & bit) != 0;
}

int sim_spe_machine_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el)
{
	struct sim_spe_machine *sm = c->m->spe_machine;
	if (!sm || (!sim_spe_is_reg(key) && !is_el1_ctx(key)))
		return -1;
	if (is_el1_ctx(
		    key)) /* EL1 registers: UNDEFINED at EL0, not trapped (HCR_EL2.TVM = 0) */
		return el == 0 ? SIM_ROUTE_UNDEF : SIM_ROUTE_DIRECT;
	if (!sim_spe_has(&sm->unit[c->idx], key, is_read, el) || key == PV_PMSCR_EL2)
		return SIM_ROUTE_UNDEF;
	if (key == PV_PMBIDR_EL1) /* trapped only by FEAT_FGT */
		return (sim_cpu_fgt(c, false) & PV_HDFGRTR_EL2_PMBIDR_EL1) ? SIM_ROUTE_EL2
									   : SIM_ROUTE_DIRECT;
	if (key == PV_PMBLIMITR_EL1 || key == PV_PMBPTR_EL1 || key == PV_PMBSR_EL1)
		return !(PV_FIELD_GET(PV_MDCR_EL2_E2PB, c->mdcr) & 1u)
			       ? SIM_ROUTE_EL2 /* E2PB 0bx0 */
			       : SIM_ROUTE_DIRECT;
	if (pms_fgt_trap(c, key, is_read))
		return SIM_ROUTE_EL2;
	return (c->mdcr & PV_MDCR_EL2_TPMS) ? SIM_ROUTE_EL2 : SIM_ROUTE_DIRECT;
}

/* An EL1 translation or context register: the running vCPU's, or at EL2 the one in context
 * (*reg NULL when there is none); UNDEFINED at EL0. */
static enum sim_acc el1_ctx(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t **reg)
{
	struct sim_vcpu *v = el == 2 ? context_of(c) : c->cur;
	*reg = NULL;
	if (el == 0)
		return SIM_ACC_UNDEF;
	if (v)
		*reg = el1_reg(&sim_spe_machine_vcpu(c->m, v->idx)->el1, key);
	return SIM_ACC_OK;
}

enum sim_acc sim_spe_machine_read(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t *val)
{
	struct sim_spe_machine *sm = c->m->spe_machine;
	*val = 0;
	if (!sm)
		return SIM_ACC_UNKNOWN;
	if (is_el1_ctx(key)) {
		uint64_t *r;
		enum sim_acc a = el1_ctx(c, el, key, &r);
		if (r)
			*val = *r;
		return a;
	}
	if (!sim_spe_is_reg(key))
		return SIM_ACC_UNKNOWN;
	if (key == PV_PMSCR_EL2) {
		if (el < 2 || !sim_spe_has(&sm->unit[c->idx], key, true, el))
			return SIM_ACC_UNDEF;
		*val = sm->pmscr_el2[c->idx];
		return SIM_ACC_OK;
	}
	unsigned e2pb = (unsigned)PV_FIELD_GET(PV_MDCR_EL2_E2PB, c->mdcr);
	return sim_spe_read(&sm->unit[c->idx], el, e2pb, key, val);
}

enum sim_acc sim_spe_machine_write(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t val)
{
	struct sim_spe_machine *sm = c->m->spe_machine;
	if (!sm)
		return SIM_ACC_UNKNOWN;
	if (is_el1_ctx(key)) {
		uint64_t *r;
		enum sim_acc a = el1_ctx(c, el, key, &r);
		if (r)
			*r = val;
		return a;
	}
	if (!sim_spe_is_reg(key))
		return SIM_ACC_UNKNOWN;
	if (key == PV_PMSCR_EL2) {
		if (el < 2 || !sim_spe_has(&sm->unit[c->idx], key, false, el))
			return SIM_ACC_UNDEF;
		sm->pmscr_el2[c->idx] = val & PV_PMSCR_EL2_OWNED & ~PV_GENMASK(11, 7);
		return SIM_ACC_OK;
	}
	return sim_spe_write(&sm->unit[c->idx], el, key, val);
}

/* ---- translation of the owning regime ------------------------------------------------------- */

struct walk_ctx {
	struct sim_s2 *s2;
	bool buffer; /* the profiler's access: nothing is faulted in at stage 2 */
};

static bool s1_read(void *ctx, uint64_t ipa, uint64_t *d, struct sim_fault *f)
{
	struct walk_ctx *w = ctx;
	uint64_t pa;
	struct sim_fault s2f;
	if (w->buffer ? !sim_s2_translate(w->s2, ipa, false, &pa, &s2f)
		      : !sim_s2_fault_in(w->s2, ipa, &pa)) {
		if (w->buffer)
			*f = s2f; /* a stage-2 fault on the walk */
		return false;
	}
	return sim_mem_read(w->s2->mem, pa, d, 8);
}

static void s1_write(void *ctx, uint64_t ipa, uint64_t d)
{
	struct walk_ctx *w = ctx;
	uint64_t pa;
	struct sim_fault f;
	if (sim_s2_translate(w->s2, ipa, true, &pa, &f))
		sim_mem_write(w->s2->mem, pa, &d, 8);
}

/* VA -> PA through a vCPU's stage 1 and its VM's stage 2. */
static bool translate(struct sim_machine *m, struct sim_vcpu *v, uint64_t va, bool buffer,
		      uint64_t *pa, struct sim_fault *f)
{
	memset(f, 0, sizeof(*f));
	struct sim_s2 *s2 = sim_spe_machine_s2(m, v->vm->idx);
	const struct sim_el1 *e = &sim_spe_machine_vcpu(m, v->idx)->el1;
	if (!s2) {
		f->kind = SIM_FAULT_TRANSLATION;
		return false;
	}
	uint64_t ipa = va, block;
	if (e->sctlr & PV_SCTLR_M) {
		struct sim_walk w;
		struct walk_ctx ctx = {.s2 = s2, .buffer = buffer};
		if (!sim_s1_params(e->tcr, e->ttbr0, e->ttbr1, va, 48, 7, &w)) {
			f->kind = SIM_FAULT_TRANSLATION;
			return false;
		}
		w.read = s1_read;
		w.write = s1_write;
		w.ctx = &ctx;
		if (!sim_walk(&w, va, buffer, true, &ipa, &block, f))
			return false;
	} else if (va >> 48) {
		f->kind = SIM_FAULT_ADDR_SIZE;
		return false;
	}
	if (buffer)
		return sim_s2_translate(s2, ipa, true, pa, f);
	if (sim_s2_fault_in(s2, ipa, pa))
		return true;
	f->kind = SIM_FAULT_EXTERNAL;
	return false;
}

static bool unit_xlate(void *ctx, uint64_t va, bool buffer, uint64_t *pa, struct sim_fault *f)
{
	struct sim_cpu *c = ctx;
	if (PV_FIELD_GET(PV_MDCR_EL2_E2PB, c->mdcr) ==
	    0) { /* owned by EL2: the hypervisor's identity map */
		*pa = va;
		return true;
	}
	if (!c->cur) {
		memset(f, 0, sizeof(*f));
		f->kind = SIM_FAULT_TRANSLATION;
		return false;
	}
	return translate(c->m, c->cur, va, buffer, pa, f);
}

static void unit_write(void *ctx, uint64_t pa, const uint8_t *b, size_t n)
{
	struct sim_cpu *c = ctx;
	struct sim_spe_machine *sm = c->m->spe_machine;
	unsigned want = PV_FIELD_GET(PV_MDCR_EL2_E2PB, c->mdcr) == 0 || !c->cur
				? SIM_OWNER_HYP
				: SIM_OWNER_VM(c->cur->vm->idx);
	if (!sm->has_mem || sim_mem_owner(&sm->mem, pa) != want ||
	    sim_mem_owner(&sm->mem, pa + n - 1) != want) {
		sm->stray += n; /* never written: it is not the owner's memory */
		sm->unit[c->idx].stats.stray += n;
		return;
	}
	sim_mem_write(&sm->mem, pa, b, n);
}

void sim_spe_machine_exec(struct sim_cpu *c, unsigned el, bool secure, const struct sim_work *w,
			  uint64_t t0, uint64_t ticks)
{
	struct sim_spe_machine *sm = c->m->spe_machine;
	if (!sm || !c->m->cfg.spe.unit.version)
		return;
	struct sim_spe *u = &sm->unit[c->idx];
	struct sim_vcpu *v = c->cur;
	struct sim_spe_vcpu *g = v ? sim_spe_machine_vcpu(c->m, v->idx) : NULL;
	static const struct sim_spe_region hyp = {.pc = UINT64_C(0xFFFFC00000000000),
						  .pc_size = 1u << 16};
	struct sim_spe_env e = {
		.el = secure ? 3 : el, /* Secure work is never the Non-secure owner's */
		.mdcr_el2 = c->mdcr,
		.hcr_el2 = c->hcr,
		.pmscr_el2 = pmscr_el2(c),
		.cntpct = t0,
		.ticks = ticks,
		.cntvoff = v ? sm->vm[v->vm->idx].cntvoff : 0,
		.contextidr_el1 = g ? (uint32_t)g->el1.contextidr : 0,
		.contextidr_el2 = 0xC0DE0000u | c->idx,
		.code = g && el < 2 ? g->code[el] : hyp,
		.xlate = unit_xlate,
		.write = unit_write,
		.ctx = c,
		.log = g ? &g->log : NULL,
	};
	sim_spe_exec(u, &e, w);
}

bool sim_spe_machine_irq(struct sim_cpu *c)
{
	return c->m->spe_machine && sim_spe_irq(&c->m->spe_machine->unit[c->idx]);
}

void sim_spe_machine_psb(struct sim_cpu *c)
{
	if (c->m->spe_machine)
		sim_spe_psb(&c->m->spe_machine->unit[c->idx]);
}

/* ---- guest memory and stage 2 (platform.c) ------------------------------------------------- */

bool sim_spe_machine_read64(struct sim_vcpu *v, uint64_t ipa, uint64_t *val)
{
	struct sim_s2 *s2 = sim_spe_machine_s2(v->m, v->vm->idx);
	*val = 0;
	return s2 && !(ipa & 7) && sim_s2_read(s2, ipa, val, 8);
}

bool sim_spe_machine_pin(struct sim_vcpu *v, uint64_t ipa, uint64_t size, bool pin)
{
	struct sim_s2 *s2 = sim_spe_machine_s2(v->m, v->vm->idx);
	if (!s2)
		return false;
	if (pin)
		return sim_s2_pin(s2, ipa, size);
	struct sim_cpu *c = v->pv.cpu ? v->pv.cpu->plat : NULL;
	const struct sim_spe *u = c ? &v->m->spe_machine->unit[c->idx] : NULL;
	if (u && ((u->limitr & PV_PMBLIMITR_E) || u->undrained))
		for (uint64_t off = 0; off < size; off += SIM_PAGE)
			if (sim_s2_is_ram(s2, ipa + off) &&
			    s2->pins[(ipa + off - s2->ram_ipa) / SIM_PAGE] == 1)
				v->m->spe_machine->live_unpins++;
	sim_s2_unpin(s2, ipa, size);
	return true;
}

bool sim_spe_machine_translate(struct sim_vcpu *v, uint64_t ipa, uint64_t *pa)
{
	struct sim_s2 *s2 = sim_spe_machine_s2(v->m, v->vm->idx);
	struct sim_fault f;
	*pa = 0;
	return s2 && sim_s2_translate(s2, ipa, true, pa, &f);
}

/* ---- tests' and the guest's view of guest memory --------------------------------------------- */

static bool ipa_read(void *ctx, uint64_t ipa, uint64_t *val)
{
	return sim_s2_read(ctx, ipa, val, 8);
}

static bool ipa_write(void *ctx, uint64_t ipa, uint64_t val)
{
	return sim_s2_write(ctx, ipa, &val, 8);
}

bool sim_spe_machine_s1(struct sim_machine *m, unsigned vm, struct sim_s1 *t, unsigned granule,
			unsigned va_bits, uint64_t pool, uint64_t pool_size)
{
	struct sim_s2 *s2 = sim_spe_machine_s2(m, vm);
	return s2 && sim_s1_init(t, granule, va_bits, pool, pool_size, ipa_read, ipa_write, s2);
}

bool sim_spe_machine_guest_read(struct sim_machine *m, unsigned vcpu, uint64_t va, void *buf,
				size_t n)
{
	struct sim_vcpu *v = &m->vcpu[vcpu];
	uint8_t *out = buf;
	while (n) {
		uint64_t pa;
		struct sim_fault f;
		size_t k = SIM_PAGE - (va & (SIM_PAGE - 1));
		k = k < n ? k : n;
		if (!translate(m, v, va, false, &pa, &f) ||
		    !sim_mem_read(&m->spe_machine->mem, pa, out, k))
			return false;
		out += k;
		va += k;
		n -= k;
	}
	return true;
}

void sim_spe_machine_collect(struct sim_machine *m, unsigned vcpu, uint64_t ptr)
{
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, vcpu);
	if (!g || ptr <= g->start || ptr - g->start > g->size)
		return;
	size_t n = (size_t)(ptr - g->start);
	if (g->len + n > g->cap) {
		size_t cap = g->cap ? g->cap : 4096;
		while (cap < g->len + n)
			cap *= 2;
		uint8_t *p = realloc(g->out, cap);
		if (!p)
			abort();
		g->out = p;
		g->cap = cap;
	}
	if (sim_spe_machine_guest_read(m, vcpu, g->start, g->out + g->len, n))
		g->len += n;
	g->start = ptr;
}
