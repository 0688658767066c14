/* SPDX-License-Identifier: MIT */
#include "scen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct sim_config scen_config(uint64_t seed, unsigned counters, unsigned host,
			      uint64_t slice_min, uint64_t slice_max)
{
	struct sim_config c;
	sim_config_default(&c);
	c.seed = seed;
	c.pmu.counters = (uint8_t)counters;
	c.host_counters = host;
	c.slice_min = slice_min;
	c.slice_max = slice_max;
	return c;
}

struct sim_machine *scen_machine(const struct sim_config *c)
{
	struct sim_machine *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	int err = sim_init(m, c);
	if (err) {
		fprintf(stderr, "sim_init: %d (%s)\n", err, pv_strerror(err));
		sim_spe_machine_free(m);
		free(m);
		return NULL;
	}
	return m;
}

void scen_free(struct sim_machine *m)
{
	if (m) {
		for (unsigned i = 0; i < m->nvcpus; i++)
			free(m->vcpu[i].amu_at);
		sim_spe_machine_free(m);
	}
	free(m);
}

struct pv_vm_config scen_vm(unsigned version, unsigned counters)
{
	return (struct pv_vm_config){
		.features = PV_FEAT_PMU,
		.pmu = {.version = (uint8_t)version, .nr_counters = (uint8_t)counters},
	};
}

int scen_vm_vcpu(struct sim_machine *m, const struct pv_vm_config *cfg, unsigned cpu,
		 struct sim_prog *prog)
{
	int vm = sim_add_vm(m, cfg);
	if (vm < 0) {
		fprintf(stderr, "sim_add_vm: %d (%s)\n", vm, pv_strerror(vm));
		return -1;
	}
	return sim_add_vcpu(m, (unsigned)vm, cpu, prog);
}

uint64_t scen_rand(uint64_t *rng)
{
	uint64_t z = (*rng += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

bool scen_event_allowed(const struct pv_vm_config *vm, uint32_t event)
{
	const struct pv_pmu_config *c = &vm->pmu;
	if (event == PV_EVT_SW_INCR || event == PV_EVT_CHAIN || c->nr_filters == 0)
		return true;
	bool allowed = c->filters[0].action != PV_PMU_FILTER_ALLOW;
	for (unsigned i = 0; i < c->nr_filters; i++) {
		const struct pv_pmu_filter *f = &c->filters[i];
		if (event >= f->base_event && event < (uint32_t)f->base_event + f->nevents)
			allowed = f->action == PV_PMU_FILTER_ALLOW;
	}
	return allowed;
}

/* ---- the shadow virtual PMU ------------------------------------------------------------ */

static bool p5(const struct shadow *s)
{
	return s->vm->pmu.version >= PV_PMUVER_V3P5;
}

static uint64_t evt_mask(const struct shadow *s)
{
	return s->vm->pmu.version >= PV_PMUVER_V3P1 ? 0xFFFF : 0x3FF;
}

static uint32_t impl_mask(const struct shadow *s)
{
	return (s->n >= 31 ? 0x7FFFFFFFu : (1u << s->n) - 1) | 1u << 31;
}

static bool counting(const struct shadow *s, unsigned idx)
{
	return (s->pmcr & PV_PMCR_E) && (s->cnten >> idx & 1) && (idx == 31 || idx < s->n);
}

/* Adds d to counter idx; returns its 32-bit overflows (the CHAIN events it makes). */
static uint64_t add(struct shadow *s, unsigned idx, uint64_t d)
{
	uint64_t old = s->c[idx].val;
	uint64_t wraps = (d >> 32) + (((old & 0xFFFFFFFFu) + (d & 0xFFFFFFFFu)) >> 32);
	uint64_t v = old + d;
	s->c[idx].val = idx == 31 || p5(s) ? v : v & 0xFFFFFFFFu;
	bool long_ovf = idx != 31 && p5(s) && (s->pmcr & PV_PMCR_LP);
	return long_ovf ? 0 : wraps;
}

/* Brings every counter to the truth snapshot `now`. */
static void fold(struct shadow *s, const struct sim_snap *now)
{
	uint64_t chain = 0;
	for (unsigned idx = 0; idx < s->n; idx++) {
		uint64_t in = chain;
		chain = 0;
		if (!counting(s, idx))
			continue;
		uint64_t type = s->c[idx].type;
		uint32_t evt = (uint32_t)(type & evt_mask(s));
		unsigned els = sim_filter_ns_els(type, s->el3);
		uint64_t d;
		if (evt == PV_EVT_CHAIN)
			d = (idx & 1) ? in : 0;
		else if (evt == PV_EVT_SW_INCR)
			d = sim_snap_swinc(&s->base, now, idx, els);
		else
			d = scen_event_allowed(s->vm, evt)
				    ? sim_snap_delta(&s->base, now, evt, els)
				    : 0;
		uint64_t wraps = add(s, idx, d);
		if ((idx & 1) == 0)
			chain = wraps;
	}
	if (counting(s, 31) && scen_event_allowed(s->vm, PV_EVT_CPU_CYCLES))
		add(s, 31,
		    sim_snap_delta(&s->base, now, PV_EVT_CPU_CYCLES,
				   sim_filter_ns_els(s->c[31].type, s->el3)));
	s->base = *now;
}

/* The counter a key reads or writes, or -1. */
static int counter_of(const struct shadow *s, uint32_t key)
{
	if (key == PV_PMCCNTR_EL0)
		return 31;
	if (key == PV_PMXEVCNTR_EL0)
		return s->selr < s->n ? (int)s->selr : -1;
	if ((key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY && !PV_PMEV_IS_TYPER(key) &&
	    key != PV_PMCCFILTR_EL0)
		return PV_PMEV_INDEX(key) < s->n ? (int)PV_PMEV_INDEX(key) : -1;
	return -1;
}

static int typer_of(const struct shadow *s, uint32_t key)
{
	if (key == PV_PMCCFILTR_EL0)
		return 31;
	if (key == PV_PMXEVTYPER_EL0)
		return s->selr == 31 ? 31 : s->selr < s->n ? (int)s->selr : -1;
	if ((key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY && PV_PMEV_IS_TYPER(key))
		return PV_PMEV_INDEX(key) < s->n ? (int)PV_PMEV_INDEX(key) : -1;
	return -1;
}

static void apply_write(struct shadow *s, uint32_t key, uint64_t val)
{
	int i;
	switch (key) {
	case PV_PMCR_EL0:
		s->pmcr = val & (PV_PMCR_E | (p5(s) ? PV_PMCR_LP : 0));
		if (val & PV_PMCR_P)
			for (unsigned k = 0; k < s->n; k++)
				s->c[k].val = 0;
		if (val & PV_PMCR_C)
			s->c[31].val = 0;
		return;
	case PV_PMCNTENSET_EL0:
		s->cnten |= (uint32_t)val & impl_mask(s);
		return;
	case PV_PMCNTENCLR_EL0:
		s->cnten &= ~((uint32_t)val & impl_mask(s));
		return;
	case PV_PMSELR_EL0:
		s->selr = val & PV_PMSELR_SEL;
		return;
	case PV_PMCCNTR_EL0:
		s->c[31].val = val;
		return;
	default:
		break;
	}
	if ((i = counter_of(s, key)) >= 0)
		s->c[i].val = p5(s) ? val : val & 0xFFFFFFFFu;
	else if ((i = typer_of(s, key)) >= 0)
		s->c[i].type = val;
}

unsigned scen_verify(struct sim_machine *m, unsigned vcpu, const char *tag)
{
	struct sim_vcpu *v = &m->vcpu[vcpu];
	const struct sim_prog *p = v->prog;
	struct pv_vm_config cfg = v->vm->pv.cfg;
	struct shadow s = {.vm = &cfg, .el3 = m->cfg.el3, .n = cfg.pmu.nr_counters};
	unsigned bad = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *op = &p->ops[i];
		if (op->outcome == SIM_OUT_PENDING) {
			fprintf(stderr, "%s vcpu %u: op %zu never ran\n", tag, vcpu, i);
			bad++;
			break;
		}
		if (op->outcome != op->expect) {
			fprintf(stderr,
				"%s vcpu %u: op %zu (key 0x%06x) ended %s, expected %s\n", tag,
				vcpu, i, op->key, sim_outcome_name(op->outcome),
				sim_outcome_name(op->expect));
			bad++;
		}
		if ((op->kind != SIM_OP_MSR && op->kind != SIM_OP_MRS) ||
		    op->outcome != SIM_OUT_OK)
			continue;
		fold(&s, &op->at);
		if (op->kind == SIM_OP_MSR) {
			apply_write(&s, op->key, op->rt == 31 ? 0 : op->imm);
			continue;
		}
		int c = counter_of(&s, op->key);
		if (c < 0 || op->rt == 31)
			continue;
		uint64_t want = s.c[c].val;
		if (op->value != want) {
			char name[16];
			snprintf(name, sizeof(name), c == 31 ? "PMCCNTR" : "PMEVCNTR%d", c);
			fprintf(stderr,
				"%s vcpu %u: op %zu read %s at EL%u on pCPU %u = %" PRIu64
				" (0x%" PRIx64 "), truth says %" PRIu64 " (diff %" PRId64 ")\n",
				tag, vcpu, i, name, op->el, op->cpu, op->value, op->value, want,
				(int64_t)(op->value - want));
			bad++;
		}
	}
	return bad;
}

unsigned scen_hygiene(struct sim_machine *m, const char *tag)
{
	unsigned bad = 0;
	for (unsigned i = 0; i < m->cfg.cpus; i++) {
		const struct sim_cpu_stats *st = &m->cpu[i].stats;
		if (st->plat_undef || st->plat_unknown || st->irq_storms || st->irq_not_mine) {
			fprintf(stderr,
				"%s pCPU %u: %" PRIu64 " EL2 accesses that UNDEF, %" PRIu64
				" unknown (last key 0x%06x), %" PRIu64
				" interrupt storms, %" PRIu64 " interrupts not handled\n",
				tag, i, st->plat_undef, st->plat_unknown, st->last_bad_key,
				st->irq_storms, st->irq_not_mine);
			bad++;
		}
	}
	for (unsigned i = 0; i < m->nvcpus; i++) {
		const struct sim_vcpu *v = &m->vcpu[i];
		if (v->xzr_clobbered || v->irq.stuck || v->irq.failed) {
			fprintf(stderr,
				"%s vcpu %u: %" PRIu64 " writes to x[31], %u stuck / %u failed "
				"interrupt handlers\n",
				tag, i, v->xzr_clobbered, v->irq.stuck, v->irq.failed);
			bad++;
		}
	}
	return bad;
}

/* ---- random programs --------------------------------------------------------------------- */

static const uint16_t events[] = {
	PV_EVT_INST_RETIRED,
	PV_EVT_CPU_CYCLES,
	PV_EVT_MEM_ACCESS,
	PV_EVT_L1D_CACHE,
	PV_EVT_L1D_CACHE_REFILL,
	PV_EVT_BR_RETIRED,
	PV_EVT_BR_MIS_PRED,
	PV_EVT_EXC_TAKEN,
	PV_EVT_STALL_BACKEND,
	PV_EVT_SW_INCR,
	PV_EVT_CHAIN,
	0x30 /* not implemented */,
};

static uint64_t pick(uint64_t *rng, uint64_t n)
{
	return scen_rand(rng) % n;
}

static uint64_t random_filter(uint64_t *rng, bool el3)
{
	/* Any of P, U, NSH, M, SH; NSK and NSU too when the guest sees EL3. */
	uint64_t bits = PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSH | PV_PMEVTYPER_M |
			PV_PMEVTYPER_SH;
	if (el3)
		bits |= PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU;
	return scen_rand(rng) & bits;
}

static uint64_t random_type(uint64_t *rng, bool el3, unsigned idx)
{
	uint16_t e = events[pick(rng, sizeof(events) / sizeof(events[0]))];
	if (e == PV_EVT_CHAIN && (idx & 1) == 0)
		e = PV_EVT_INST_RETIRED;
	return random_filter(rng, el3) | e;
}

static uint64_t random_value(uint64_t *rng, bool wide)
{
	switch (pick(rng, 4)) {
	case 0:
		return 0;
	case 1:
		return pick(rng, 1000000);
	case 2:
		return 0xFFFFFFFFu - pick(rng, 200000); /* near the 32-bit overflow */
	default:
		return wide ? scen_rand(rng) : scen_rand(rng) & 0xFFFFFFFFu;
	}
}

void scen_random_prog(struct sim_prog *p, uint64_t *rng, const struct pv_vm_config *vm,
		      bool el3, unsigned nops)
{
	unsigned n = vm->pmu.nr_counters;
	bool wide = vm->pmu.version >= PV_PMUVER_V3P5;
	uint64_t lp = wide && pick(rng, 2) ? PV_PMCR_LP : 0;
	sim_prog_msr(p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_P | PV_PMCR_C | lp);
	for (unsigned i = 0; i < n; i++) {
		sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(i), random_type(rng, el3, i));
		sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(i), random_value(rng, wide));
	}
	sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, random_filter(rng, el3));
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, (n ? (1u << n) - 1 : 0) | 1u << 31);
	for (unsigned k = 0; k < nops; k++) {
		unsigned el = (unsigned)pick(rng, 2);
		unsigned i = n ? (unsigned)pick(rng, n) : 0;
		uint64_t r = pick(rng, 100);
		if (r < 40 || n == 0) {
			sim_prog_workload(p, el, (enum sim_profile)pick(rng, SIM_PROF_HYP),
					  1 + pick(rng, 40000));
		} else if (r < 65) {
			sim_prog_mrs(p, el, PV_PMEVCNTR_EL0(i));
		} else if (r < 70) {
			sim_prog_mrs(p, el, PV_PMCCNTR_EL0);
		} else if (r < 75) {
			sim_prog_msr(p, el, PV_PMSWINC_EL0, scen_rand(rng));
		} else if (r < 80) {
			sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(i), random_type(rng, el3, i));
		} else if (r < 85) {
			sim_prog_msr(p, el,
				     pick(rng, 2) ? PV_PMCNTENSET_EL0 : PV_PMCNTENCLR_EL0,
				     1u << i);
		} else if (r < 90) {
			sim_prog_msr(p, el, PV_PMEVCNTR_EL0(i), random_value(rng, wide));
		} else if (r < 95) {
			sim_prog_msr(p, el, PV_PMSELR_EL0, i);
			sim_prog_mrs(p, el, PV_PMXEVCNTR_EL0);
		} else if (r < 98) {
			sim_prog_msr(p, 1, PV_PMCR_EL0,
				     PV_PMCR_E | lp | (pick(rng, 4) ? 0 : PV_PMCR_P) |
					     (pick(rng, 4) ? 0 : PV_PMCR_C));
		} else {
			sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, random_filter(rng, el3));
		}
	}
	for (unsigned i = 0; i < n; i++)
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(i));
	sim_prog_mrs(p, 1, PV_PMCCNTR_EL0);
}

/* ---- AMU --------------------------------------------------------------------------------- */

static const uint16_t amu_aux_events[] = {
	PV_EVT_L1D_CACHE, PV_EVT_MEM_ACCESS, PV_EVT_BR_MIS_PRED,    PV_EVT_L2D_CACHE_REFILL,
	PV_EVT_INST_SPEC, PV_EVT_BR_RETIRED, PV_EVT_STALL_FRONTEND, PV_EVT_L1I_CACHE,
};

struct sim_config scen_amu_config(uint64_t seed, unsigned version, unsigned aux,
				  uint16_t no_voff, bool fgt, unsigned nfreqs)
{
	static const uint32_t khz[] = {3000000, 2000000, 1200000, 2600000};
	struct sim_config c = scen_config(seed, 4, 0, 2000, 20000);
	c.amu.version = (uint8_t)version;
	c.amu.aux = (uint8_t)aux;
	for (unsigned n = 0; n < SIM_AMU_AUX_MAX; n++)
		c.amu.aux_events[n] = amu_aux_events[n % (sizeof(amu_aux_events) / 2)];
	c.amu.aux_voff = (uint16_t)(0xFFFFu & ~no_voff);
	c.fgt = fgt;
	c.nfreqs = nfreqs ? nfreqs : 1;
	for (unsigned i = 0; i < c.nfreqs && i < 4; i++)
		c.cpu_khz[i] = khz[i];
	c.dvfs_ticks = 20000;
	return c;
}

struct pv_vm_config scen_amu_vm(unsigned version, unsigned aux)
{
	return (struct pv_vm_config){
		.features = PV_FEAT_AMU,
		.amu = {.version = (uint8_t)version, .nr_aux = (uint8_t)aux},
	};
}

void scen_amu_track(struct sim_machine *m, unsigned vcpu)
{
	struct sim_vcpu *v = &m->vcpu[vcpu];
	free(v->amu_at);
	v->amu_at = calloc(v->prog->n ? v->prog->n : 1, sizeof(*v->amu_at));
	if (!v->amu_at)
		abort();
}

unsigned scen_amu_verify(struct sim_machine *m, unsigned vcpu, const char *tag)
{
	const struct sim_vcpu *v = &m->vcpu[vcpu];
	const struct sim_prog *p = v->prog;
	unsigned bad = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *op = &p->ops[i];
		if (op->outcome != op->expect) {
			fprintf(stderr,
				"%s vcpu %u: op %zu (key 0x%06x, EL%u) ended %s, expected %s\n",
				tag, vcpu, i, op->key, op->el, sim_outcome_name(op->outcome),
				sim_outcome_name(op->expect));
			bad++;
		}
		int k = sim_amu_counter_of(op->key);
		if (op->kind != SIM_OP_MRS || op->outcome != SIM_OUT_OK || k < 0 ||
		    op->rt == 31 || !v->amu_at)
			continue;
		uint64_t want = v->amu_at[i].cnt[k];
		if (op->value != want) {
			fprintf(stderr,
				"%s vcpu %u: op %zu read AMU counter %d at EL%u on pCPU %u = "
				"%" PRIu64 ", truth %" PRIu64 " (diff %" PRId64 ")%s\n",
				tag, vcpu, i, k, op->el, op->cpu, op->value, want,
				(int64_t)(op->value - want), op->trapped ? " (trapped)" : "");
			bad++;
		}
	}
	return bad;
}

static size_t amu_expect(struct sim_prog *p, size_t i, enum sim_outcome o)
{
	sim_prog_expect(p, i, o);
	return i;
}

void scen_amu_random_prog(struct sim_prog *p, uint64_t *rng, unsigned aux, unsigned nops,
			  unsigned cpus)
{
	unsigned counters = 4 + aux;
	bool en = pick(rng, 2);
	sim_prog_msr(p, 1, PV_AMUSERENR_EL0, en ? PV_AMUSERENR_EN : 0);
	for (unsigned i = 0; i < nops; i++) {
		unsigned el = (unsigned)pick(rng, 2);
		uint64_t r = pick(rng, 100);
		unsigned k = (unsigned)pick(rng, counters);
		uint32_t cntr = k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4);
		bool denied = el == 0 && !en;
		if (r < 35) {
			sim_prog_workload(p, el, (enum sim_profile)pick(rng, SIM_PROF_HYP),
					  1 + pick(rng, 40000));
		} else if (r < 70) {
			amu_expect(p, sim_prog_mrs(p, el, cntr),
				   denied ? SIM_OUT_EL1_SYSREG : SIM_OUT_OK);
		} else if (r < 75) {
			en = pick(rng, 2);
			sim_prog_msr(p, 1, PV_AMUSERENR_EL0, en ? PV_AMUSERENR_EN : 0);
		} else if (r < 77) {
			/* EL0 may always read AMUSERENR_EL0, never write it. */
			sim_prog_mrs(p, 0, PV_AMUSERENR_EL0);
			amu_expect(p, sim_prog_msr(p, 0, PV_AMUSERENR_EL0, 1), SIM_OUT_UNDEF);
		} else if (r < 85) {
			/* Writable only at the highest EL: UNDEFINED before any trap, even at EL0. */
			static const uint32_t ro[] = {PV_AMCNTENSET0_EL0, PV_AMCNTENCLR0_EL0,
						      PV_AMCR_EL0, PV_AMCFGR_EL0,
						      PV_AMEVTYPER0_EL0(0)};
			uint32_t key = pick(rng, 2) ? cntr : ro[pick(rng, sizeof(ro) / 4)];
			if (aux && pick(rng, 4) == 0)
				key = pick(rng, 2) ? PV_AMCNTENCLR1_EL0
						   : PV_AMEVTYPER1_EL0(k % aux);
			amu_expect(p, sim_prog_msr(p, el, key, scen_rand(rng)), SIM_OUT_UNDEF);
		} else if (r < 93) {
			static const uint32_t id[] = {PV_AMCFGR_EL0, PV_AMCGCR_EL0,
						      PV_AMCNTENSET0_EL0, PV_AMCNTENCLR0_EL0,
						      PV_AMCR_EL0};
			uint32_t key = pick(rng, 2) ? id[pick(rng, 5)]
						    : PV_AMEVTYPER0_EL0(k % 4);
			amu_expect(p, sim_prog_mrs(p, el, key),
				   denied ? SIM_OUT_EL1_SYSREG : SIM_OUT_OK);
		} else if (r < 96 && aux < 16) {
			/* Past the counters the VM has: UNDEFINED. */
			unsigned n = aux + (unsigned)pick(rng, 16 - aux);
			amu_expect(p, sim_prog_mrs(p, el, PV_AMEVCNTR1_EL0(n)), SIM_OUT_UNDEF);
		} else if (cpus > 1) {
			sim_prog_migrate(p, (unsigned)pick(rng, cpus));
		}
	}
	for (unsigned k = 0; k < counters; k++)
		sim_prog_mrs(p, 1, k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4));
}
