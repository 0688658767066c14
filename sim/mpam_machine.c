/* SPDX-License-Identifier: MIT */
/* MPAM in the simulated machine's run (see mpam_machine.h). */
#include "mpam_machine.h"

#include <stdlib.h>
#include <string.h>

#include "perfvisor/mpam_regs.h"
#include "sim.h"

_Static_assert(SIM_MPAM_MACHINE_CPUS == SIM_MAX_CPUS, "one MPAM CPU state per pCPU");
_Static_assert(SIM_MPAM_MACHINE_VMS == SIM_MAX_VMS, "one VM table entry per VM");
_Static_assert(SIM_MPAM_MACHINE_VCPUS == SIM_MAX_VCPUS, "one traffic rate per vCPU");

#define MSC_BASE UINT64_C(0x50000000)
#define MSC_STRIDE UINT64_C(0x10000)
#define DEFAULT_WINDOW_NS UINT64_C(100000)
#define DEFAULT_TICK_NS UINT64_C(1000000)

/* A pCPU clock reading (system counter ticks) in ns. */
static uint64_t cpu_ns(const struct sim_cpu *c, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000u / c->m->cfg.cnt_khz);
}

static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

int sim_mpam_machine_init(struct sim_machine *m)
{
	const struct sim_mpam_config *c = &m->cfg.mpam;
	if (!c->nodes)
		return 0;
	uint64_t window = c->window_ns ? c->window_ns : DEFAULT_WINDOW_NS;
	uint64_t tick_ns = c->tick_ns ? c->tick_ns : DEFAULT_TICK_NS;
	if (c->mons > SIM_MSC_MAX_MON || c->cache_portions > 64 ||
	    c->cache_id >= PV_VMPAM_MAX_CACHES || tick_ns % window)
		return PV_ERR_UNSUPPORTED;
	struct sim_mpam_machine *mm = calloc(1, sizeof(*mm));
	if (!mm)
		return PV_ERR_UNSUPPORTED;
	mm->cfg = *c;
	if (!mm->cfg.partid_max)
		mm->cfg.partid_max = 63;
	mm->window_ns = window;
	mm->tick_ns = tick_ns;
	/* Every pCPU: PARTID_MAX, PMG_MAX, MPAM2_EL2.TIDR and, unless told otherwise,
	 * MPAMHCR_EL2 with eight MPAMVPM<n>_EL2 (32 virtual PARTIDs). */
	uint64_t idr = mm->cfg.partid_max | PV_FIELD_PREP(PV_MPAMIDR_PMG_MAX, mm->cfg.pmg_max) |
		       PV_MPAMIDR_HAS_TIDR;
	if (!c->no_hcr)
		idr |= PV_MPAMIDR_HAS_HCR | PV_FIELD_PREP(PV_MPAMIDR_VPMR_MAX, 7);
	unsigned slot = PV_ID_SLOT(PV_ID_AA64PFR0_EL1);
	for (unsigned i = 0; i < m->cfg.cpus; i++) {
		mm->mpamidr[i] = idr;
		sim_mpam_cpu_init(&mm->cpu[i], idr);
		if (!(m->cfg.id_override_mask >> slot & 1)) {
			uint64_t *pfr0 = &m->cpu[i].id[slot];
			*pfr0 = (*pfr0 & ~PV_ID_AA64PFR0_MPAM) |
				PV_FIELD_PREP(PV_ID_AA64PFR0_MPAM, 1);
		}
	}
	m->mpam_machine = mm;
	return 0;
}

static int add_msc(struct sim_mpam_machine *mm, int node, const struct sim_ris_config *ris)
{
	unsigned i = mm->nmsc;
	struct sim_msc_config c = sim_msc_config_v1p1(MSC_BASE + i * MSC_STRIDE, node,
						      mm->cfg.partid_max, mm->cfg.pmg_max,
						      mm->cfg.nrdy_ns, ris, 1);
	if (sim_msc_init(&mm->msc[i], &c))
		return -1;
	mm->nmsc++;
	mm->desc[i] = (struct pv_vmpam_msc_desc){
		.base = c.base,
		.kind = node >= 0 ? PV_VMPAM_MSC_MEMORY : PV_VMPAM_MSC_CACHE,
		.id = (uint8_t)(node >= 0 ? node : mm->cfg.cache_id),
		.nrdy_ns = mm->cfg.nrdy_ns};
	return 0;
}

int sim_mpam_machine_attach(struct sim_machine *m)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm)
		return 0;
	for (unsigned n = 0; n < SIM_MPAM_MAX_NODES; n++) {
		if (!(mm->cfg.nodes >> n & 1))
			continue;
		struct sim_ris_config ris = {.mbw = true,
					     .bwa_wd = 8,
					     .has_min = true,
					     .has_max = true,
					     .num_mon = mm->cfg.mons,
					     .has_long = true,
					     .lwd = true,
					     .has_capture = true,
					     .has_rwbw = true,
					     .weight = 1,
					     .capacity = mm->cfg.capacity[n]};
		if (add_msc(mm, (int)n, &ris))
			return PV_ERR_UNSUPPORTED;
	}
	if (mm->cfg.cache_portions) {
		struct sim_ris_config l3 = {.cpbm_wd = mm->cfg.cache_portions};
		if (add_msc(mm, -1, &l3))
			return PV_ERR_UNSUPPORTED;
	}
	if (sim_mpam_init(&mm->mp, mm->msc, mm->nmsc))
		return PV_ERR_UNSUPPORTED;
	m->mpam = &mm->mp;
	struct pv_vmpam_setup setup = {.msc = mm->desc,
				       .nmsc = mm->nmsc,
				       .cpu_mpamidr = mm->mpamidr,
				       .ncpus = m->cfg.cpus,
				       .cpu_node = mm->cfg.topology ? mm->cfg.cpu_node : NULL,
				       .vms = mm->table,
				       .max_vms = SIM_MPAM_MACHINE_VMS,
				       .acct = mm->acct};
	setup.nacct = pv_vmpam_acct_entries(&setup);
	if (setup.nacct > sizeof(mm->acct) / sizeof(mm->acct[0]))
		return PV_ERR_UNSUPPORTED;
	int err = pv_vmpam_init(&mm->sys, &m->cpu[0].pv, &setup);
	if (err)
		return err;
	m->hw.mpam_sys = &mm->sys;
	m->hw.mpam_cpu = &m->cpu[0].pv;
	/* VMs created before the run have their monitors ready when vCPUs start. */
	mm->start = (mm->cfg.nrdy_ns + mm->window_ns - 1) / mm->window_ns * mm->window_ns;
	mm->next_tick = mm->tick_ns;
	return 0;
}

void sim_mpam_machine_free(struct sim_machine *m)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm)
		return;
	if (m->mpam == &mm->mp)
		m->mpam = NULL;
	if (m->hw.mpam_sys == &mm->sys) {
		m->hw.mpam_sys = NULL;
		m->hw.mpam_cpu = NULL;
	}
	sim_mpam_free(&mm->mp);
	for (unsigned i = 0; i < mm->nmsc; i++)
		sim_msc_free(&mm->msc[i]);
	for (unsigned i = 0; i < mm->ngen; i++)
		free(mm->gen[i].run);
	free(mm->gen);
	free(mm->tg);
	free(mm);
	m->mpam_machine = NULL;
}

void sim_mpam_machine_vm_added(struct sim_machine *m, unsigned vm)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (mm && vm < SIM_MPAM_MACHINE_VMS)
		mm->vm_ready[vm] = mm->mp.now + mm->cfg.nrdy_ns;
}

struct sim_mpam_cpu *sim_mpam_machine_cpu(struct sim_cpu *c)
{
	struct sim_mpam_machine *mm = c->m->mpam_machine;
	if (!mm)
		return NULL;
	struct sim_mpam_cpu *mc = &mm->cpu[c->idx];
	mc->hcr = c->hcr; /* E2H and TGE take part in the label rule */
	return mc;
}

int sim_mpam_machine_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el)
{
	struct sim_mpam_cpu *mc = sim_mpam_machine_cpu(c);
	if (!mc)
		return -1;
	uint64_t val;
	enum sim_acc a = sim_mpam_cpu_read(mc, el, key, &val);
	if (a == SIM_ACC_UNKNOWN)
		return -1;
	/* UNDEFINED first: no such register here, an EL2 register below EL2, any MPAM register
	 * at EL0, an MSR of MPAMIDR_EL1; then the EL2 traps of an EL1 access. */
	if (a != SIM_ACC_OK || (!is_read && key == PV_MPAMIDR_EL1))
		return SIM_ROUTE_UNDEF;
	if (el == 1 && sim_mpam_cpu_traps(mc, key))
		return SIM_ROUTE_EL2;
	return SIM_ROUTE_DIRECT;
}

void sim_mpam_machine_words(struct sim_cpu *c, const struct pv_trap_words *t)
{
	struct sim_mpam_cpu *mc = sim_mpam_machine_cpu(c);
	if (!mc)
		return;
	const struct sim_mpam_machine *mm = c->m->mpam_machine;
	uint64_t mpam2 = mm->hyp_mpam2, hcr = mm->hyp_mpamhcr;
	if (t) {
		mpam2 = (mpam2 & ~t->mpam2_el2_owned) | t->mpam2_el2;
		hcr = (hcr & ~t->mpamhcr_el2_owned) | t->mpamhcr_el2;
	}
	sim_mpam_cpu_write(mc, 2, PV_MPAM2_EL2, mpam2);
	if (!mm->cfg.no_hcr)
		sim_mpam_cpu_write(mc, 2, PV_MPAMHCR_EL2, hcr);
}

/* The generator of (vCPU, EL, label, pCPU), made on first use. */
static struct sim_mpam_gen *gen_for(struct sim_mpam_machine *mm, unsigned vcpu, unsigned cpu,
				    unsigned el, struct sim_mpam_label l)
{
	for (unsigned i = 0; i < mm->ngen; i++) {
		struct sim_mpam_gen *g = &mm->gen[i];
		if (g->vcpu == vcpu && g->cpu == cpu && g->el == el && g->partid == l.partid &&
		    g->pmg == l.pmg)
			return g;
	}
	if (mm->ngen == mm->capgen) {
		unsigned cap = mm->capgen ? mm->capgen * 2 : 16;
		struct sim_mpam_gen *gen = realloc(mm->gen, cap * sizeof(*gen));
		if (!gen)
			return NULL;
		mm->gen = gen;
		struct sim_tgen *tg = realloc(mm->tg, cap * sizeof(*tg));
		if (!tg)
			return NULL;
		mm->tg = tg;
		mm->capgen = cap;
	}
	unsigned i = mm->ngen++;
	mm->gen[i] = (struct sim_mpam_gen){.vcpu = vcpu,
					   .cpu = (uint8_t)cpu,
					   .el = (uint8_t)el,
					   .partid = l.partid,
					   .pmg = l.pmg};
	struct sim_tgen *g = &mm->tg[i];
	sim_tgen_init(g, l.partid, 0, 0,
		      i + 1); /* constant, no noise: the rate is set per window */
	g->pmg = l.pmg;
	g->read_pct = mm->vcpu[vcpu].read_pct;
	return &mm->gen[i];
}

void sim_mpam_machine_exec(struct sim_cpu *c, unsigned el, bool secure, uint64_t t0)
{
	struct sim_machine *m = c->m;
	struct sim_mpam_machine *mm = m->mpam_machine;
	struct sim_vcpu *v = c->cur;
	if (!mm || !v || el >= 2 || secure || c->time == t0 || !mm->vcpu[v->idx].set)
		return;
	uint64_t a = mm->start + cpu_ns(c, t0), b = mm->start + cpu_ns(c, c->time);
	uint64_t ready = mm->vm_ready[v->vm->idx];
	if (a < ready)
		a = ready;
	if (a < mm->mp.now) { /* a pCPU whose clock is behind memory time (it was idle) */
		mm->late_ns += (b < mm->mp.now ? b : mm->mp.now) - a;
		a = mm->mp.now;
	}
	if (b <= a)
		return;
	struct sim_mpam_label l = sim_mpam_cpu_label(sim_mpam_machine_cpu(c), el, false);
	struct sim_mpam_gen *g = gen_for(mm, v->idx, c->idx, el, l);
	if (!g)
		return;
	if (g->nrun && g->run[g->nrun - 1].t1 == a) {
		g->run[g->nrun - 1].t1 = b;
		return;
	}
	if (g->nrun == g->caprun) {
		size_t cap = g->caprun ? g->caprun * 2 : 16;
		struct sim_mpam_span *run = realloc(g->run, cap * sizeof(*run));
		if (!run)
			return;
		g->run = run;
		g->caprun = cap;
	}
	g->run[g->nrun++] = (struct sim_mpam_span){a, b};
}

static void tick(struct sim_machine *m)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	pv_vmpam_tick(&mm->sys, &m->cpu[0].pv, mm->mp.now);
	mm->last_tick = mm->mp.now;
	mm->ticks++;
}

/* One window [now, now + dt): each generator demands its vCPU's rate for the time the vCPU
 * ran with its label in the window; the memory system serves it; vmpam ticks on schedule. */
static void serve_window(struct sim_machine *m, uint64_t dt)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	uint64_t t0 = mm->mp.now, t1 = t0 + dt;
	for (unsigned i = 0; i < mm->ngen; i++) {
		struct sim_mpam_gen *g = &mm->gen[i];
		uint64_t ran = 0;
		size_t keep = 0;
		for (size_t j = 0; j < g->nrun; j++) {
			struct sim_mpam_span s = g->run[j];
			uint64_t lo = s.t0 > t0 ? s.t0 : t0, hi = s.t1 < t1 ? s.t1 : t1;
			if (hi > lo)
				ran += hi - lo;
			if (s.t1 > t1)
				g->run[keep++] = s;
		}
		g->nrun = keep;
		const struct sim_mpam_vtraffic *vt = &mm->vcpu[g->vcpu];
		for (unsigned n = 0; n < SIM_MPAM_MAX_NODES; n++)
			mm->tg[i].rate[n] = ran ? mul_div(vt->rate[n], ran, dt) : 0;
	}
	sim_traffic_step(&mm->mp, mm->tg, mm->ngen, dt);
	mm->windows++;
	while (mm->next_tick <= mm->mp.now) {
		tick(m);
		mm->next_tick += mm->tick_ns;
	}
}

static void advance(struct sim_machine *m, uint64_t target, bool partial)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	while (mm->mp.now + mm->window_ns <= target)
		serve_window(m, mm->window_ns);
	if (partial && mm->mp.now < target)
		serve_window(m, target - mm->mp.now);
}

static bool busy(const struct sim_machine *m, const struct sim_cpu *c)
{
	for (unsigned i = 0; i < m->nvcpus; i++)
		if (m->vcpu[i].cpu == c && !m->vcpu[i].done)
			return true;
	return false;
}

void sim_mpam_machine_flush(struct sim_machine *m)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm)
		return;
	uint64_t hi = 0;
	for (unsigned i = 0; i < m->cfg.cpus; i++) {
		uint64_t t = cpu_ns(&m->cpu[i], m->cpu[i].time);
		if (t > hi)
			hi = t;
	}
	advance(m, mm->start + hi, true);
	if (!mm->ticks || mm->last_tick != mm->mp.now)
		tick(m);
}

void sim_mpam_machine_step(struct sim_machine *m, bool running)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm)
		return;
	uint64_t lo = UINT64_MAX;
	for (unsigned i = 0; running && i < m->cfg.cpus; i++) {
		uint64_t t = cpu_ns(&m->cpu[i], m->cpu[i].time);
		if (t < lo && busy(m, &m->cpu[i]))
			lo = t;
	}
	if (lo == UINT64_MAX)
		sim_mpam_machine_flush(m);
	else
		advance(m, mm->start + lo, false);
}

int sim_mpam_machine_traffic(struct sim_machine *m, unsigned vcpu, unsigned node,
			     uint64_t bytes_per_s, unsigned read_pct)
{
	struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm || vcpu >= m->nvcpus || node >= SIM_MPAM_MAX_NODES ||
	    !(mm->cfg.nodes >> node & 1) || read_pct > 100)
		return -1;
	struct sim_mpam_vtraffic *vt = &mm->vcpu[vcpu];
	vt->rate[node] = bytes_per_s;
	vt->read_pct = (uint8_t)read_pct;
	vt->set = true;
	for (unsigned i = 0; i < mm->ngen; i++)
		if (mm->gen[i].vcpu == vcpu)
			mm->tg[i].read_pct = (uint8_t)read_pct;
	return 0;
}

static uint64_t gen_bytes(const struct sim_mpam_machine *mm, unsigned i, unsigned node,
			  bool demanded)
{
	return demanded ? mm->tg[i].demanded[node] : mm->tg[i].delivered[node];
}

uint64_t sim_mpam_machine_vcpu_bytes(const struct sim_machine *m, unsigned vcpu, unsigned node,
				     bool demanded)
{
	const struct sim_mpam_machine *mm = m->mpam_machine;
	uint64_t sum = 0;
	for (unsigned i = 0; mm && node < SIM_MPAM_MAX_NODES && i < mm->ngen; i++)
		if (mm->gen[i].vcpu == vcpu)
			sum += gen_bytes(mm, i, node, demanded);
	return sum;
}

uint64_t sim_mpam_machine_vm_bytes(const struct sim_machine *m, unsigned vm, unsigned node,
				   bool demanded)
{
	const struct sim_mpam_machine *mm = m->mpam_machine;
	uint64_t sum = 0;
	for (unsigned i = 0; mm && node < SIM_MPAM_MAX_NODES && i < mm->ngen; i++)
		if (m->vcpu[mm->gen[i].vcpu].vm->idx == vm)
			sum += gen_bytes(mm, i, node, demanded);
	return sum;
}

uint64_t sim_mpam_machine_vm_local_bytes(const struct sim_machine *m, unsigned vm,
					 unsigned node)
{
	const struct sim_mpam_machine *mm = m->mpam_machine;
	uint64_t sum = 0;
	for (unsigned i = 0; mm && node < SIM_MPAM_MAX_NODES && i < mm->ngen; i++)
		if (m->vcpu[mm->gen[i].vcpu].vm->idx == vm &&
		    mm->cfg.cpu_node[mm->gen[i].cpu] == node)
			sum += gen_bytes(mm, i, node, false);
	return sum;
}

uint64_t sim_mpam_machine_foreign_bytes(const struct sim_machine *m)
{
	const struct sim_mpam_machine *mm = m->mpam_machine;
	uint64_t sum = 0;
	for (unsigned i = 0; mm && i < mm->ngen; i++) {
		const struct pv_vm_mpam *vm = &m->vcpu[mm->gen[i].vcpu].vm->pv.mpam;
		bool own = false;
		for (unsigned p = 0; p < vm->nr_partids; p++)
			own |= vm->partid[p] == mm->gen[i].partid;
		if (own && vm->sys)
			continue;
		for (unsigned n = 0; n < SIM_MPAM_MAX_NODES; n++)
			sum += gen_bytes(mm, i, n, true);
	}
	return sum;
}

uint64_t sim_mpam_machine_msc_errors(const struct sim_machine *m)
{
	const struct sim_mpam_machine *mm = m->mpam_machine;
	if (!mm)
		return 0;
	uint64_t n = sim_mpam_errors(&mm->mp);
	for (unsigned i = 0; i < mm->nmsc; i++)
		n += (mm->msc[i].esr & PV_ESR_ERRCODE) != 0;
	return n;
}

uint64_t sim_mpam_machine_now(const struct sim_machine *m)
{
	return m->mpam_machine ? m->mpam_machine->mp.now : 0;
}

uint64_t sim_mpam_machine_start(const struct sim_machine *m)
{
	return m->mpam_machine ? m->mpam_machine->start : 0;
}
