/* SPDX-License-Identifier: MIT */
/* Running a scenario (run.h), phase 4: every figure checked against the ground truth. */
#include "run.h"

#include <stdarg.h>
#include <stdlib.h>

unsigned run_traffic(const struct run *r, struct rep_traffic *out, unsigned max)
{
	const struct sim_machine *m = r->m;
	uint64_t ns = sim_mpam_machine_now(m) - sim_mpam_machine_start(m);
	unsigned n = 0;
	for (unsigned i = 0; ns && i < r->nvms; i++) {
		const struct run_vm *v = &r->vm[i];
		for (unsigned k = 0; k < r->sc->nnodes && n < max; k++) {
			unsigned id = r->sc->node[k].id;
			uint64_t asked = sim_mpam_machine_vm_bytes(m, v->sim_vm, id, true);
			if (!asked)
				continue;
			struct rep_traffic *t = &out[n++];
			snprintf(t->domain, sizeof(t->domain), "%s", v->sv->dom.name);
			t->node = id;
			t->asked = (uint64_t)((unsigned __int128)asked * 1000000000u / ns);
			t->moved = (uint64_t)((unsigned __int128)sim_mpam_machine_vm_bytes(
						      m, v->sim_vm, id, false) *
					      1000000000u / ns);
			t->moved_local =
				(uint64_t)((unsigned __int128)sim_mpam_machine_vm_local_bytes(
						   m, v->sim_vm, id) *
					   1000000000u / ns);
			unsigned cap = m->vm[v->sim_vm].pv.mpam.cfg.mbw_max[id];
			t->limit_percent = cap < 100 ? cap : 0;
			t->node_bandwidth = r->sc->node[k].bandwidth;
		}
	}
	return n;
}

struct checks {
	struct rep_check *c;
	unsigned n, cap, bad;
};

static void check(struct checks *k, const char *domain, uint64_t figure, uint64_t truth,
		  uint64_t bound, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void check(struct checks *k, const char *domain, uint64_t figure, uint64_t truth,
		  uint64_t bound, const char *fmt, ...)
{
	if (k->n == k->cap) {
		unsigned cap = k->cap ? k->cap * 2 : 64;
		struct rep_check *c = realloc(k->c, cap * sizeof(*c));
		if (!c) {
			k->bad++;
			return;
		}
		k->c = c;
		k->cap = cap;
	}
	struct rep_check *c = &k->c[k->n++];
	snprintf(c->domain, sizeof(c->domain), "%s", domain);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
	c->figure = figure;
	c->truth = truth;
	c->bound = bound;
	k->bad += !rep_check_ok(c);
}

/* What a guest counter of `event` must hold between two instants: the guest's EL0 and EL1
 * events, nothing if the filter denies it or the machine lacks it; 32 bits before PMUv3p5. */
static uint64_t expect(const struct run *r, const struct run_vm *v, uint32_t event, bool cycle,
		       const struct sim_snap *from, const struct sim_snap *to)
{
	if (!run_filter_allows(&v->cfg.pmu, event) ||
	    (!cycle && !run_hw_event(&r->m->hw, event)))
		return 0;
	uint64_t t = sim_snap_delta(from, to, event, 3);
	if (!cycle && v->cfg.pmu.version < PV_PMUVER_V3P5)
		t &= UINT64_C(0xFFFFFFFF);
	return t;
}

static void verify_vcpu(const struct run *r, const struct run_vm *v, unsigned c,
			struct checks *k)
{
	const struct run_ops *o = &v->ops[c];
	struct sim_vcpu *sv = &r->m->vcpu[v->first_vcpu + c];
	const struct sim_prog *p = &v->prog[c];
	const char *name = v->sv->dom.name;
	if (!o->pmu || p->ops[o->start].outcome != SIM_OUT_OK)
		return;
	const struct sim_snap *from = &p->ops[o->start].at;
	for (unsigned i = 0; i <= o->n; i++) {
		bool cycle = i == o->n;
		unsigned idx = cycle ? REP_CYCLE_COUNTER : i;
		uint32_t ev = cycle ? PV_EVT_CPU_CYCLES : o->event[i];
		char reg[16], evn[24];
		snprintf(reg, sizeof(reg), cycle ? "PMCCNTR" : "PMEVCNTR%u", i);
		rep_event_name(ev, evn, sizeof(evn));
		const struct sim_op *rd = &p->ops[o->read[i]];
		if (rd->outcome == SIM_OUT_OK)
			check(k, name, rd->value, expect(r, v, ev, cycle, from, &rd->at), 0,
			      "vCPU %u %s %s, read by the guest", c, reg, evn);
		check(k, name, pv_vpmu_counter(&sv->pv, idx),
		      expect(r, v, ev, cycle, from, &sv->truth.now), 0, "vCPU %u %s %s, stats",
		      c, reg, evn);
	}
}

/* The AMU counters of a vCPU against what its pCPUs counted while it was loaded
 * (sim_vcpu.amu), and the frequency they give against the clock it ran at. */
static void verify_amu(const struct run *r, const struct run_vm *v, unsigned c,
		       struct checks *k)
{
	if (!(v->cfg.features & PV_FEAT_AMU))
		return;
	struct sim_vcpu *sv = &r->m->vcpu[v->first_vcpu + c];
	static const char *const names[REP_AMU_COUNT] = {"CPU_CYCLES", "CNT_CYCLES",
							 "INST_RETIRED", "STALL_BACKEND_MEM"};
	for (unsigned i = 0; i < REP_AMU_COUNT; i++)
		check(k, v->sv->dom.name, pv_vamu_counter(&sv->pv, i), sv->amu.cnt[i], 0,
		      "vCPU %u AMU %s", c, names[i]);
	double cycles = 0, ms = 0;
	for (unsigned l = 0; l < r->cfg.nfreqs; l++) {
		cycles += (double)sv->amu.cycles_at[l];
		ms += (double)sv->amu.cycles_at[l] / r->cfg.cpu_khz[l];
	}
	uint64_t cnt = pv_vamu_counter(&sv->pv, PV_AMU_CNT_CYCLES);
	double mhz = cnt ? (double)pv_vamu_counter(&sv->pv, 0) / (double)cnt * r->cfg.cnt_khz /
				     1e3
			 : 0;
	check(k, v->sv->dom.name, (uint64_t)(mhz + 0.5),
	      ms > 0 ? (uint64_t)(cycles / ms / 1e3 + 0.5) : 0, 0, "vCPU %u AMU frequency, MHz",
	      c);
}

/* Each bandwidth figure against the bytes the VM's vCPUs really moved through the node
 * (the traffic model, after throttling): equal while monitors suffice, within the bound
 * while they rotate. bytes.local against the bytes they moved there while running on a pCPU
 * local to the node: the model's truth knows the sending pCPU, not the label. */
static void verify_bandwidth(const struct run *r, const struct run_vm *v, struct checks *k)
{
	const struct domain *dom = &v->sv->dom;
	if (!(v->cfg.features & PV_FEAT_MPAM) || !r->m->hw.mpam_sys)
		return;
	for (unsigned t = 0; t < dom->nmemorytune; t++)
		for (unsigned j = 0; j < dom->memorytune[t].nmonitors; j++) {
			uint64_t vcpus = dom->memorytune[t].monitor[j].vcpus;
			if (!run_monitor_whole(dom, vcpus))
				continue;
			char name[80];
			domxml_monitor_name(vcpus, name, sizeof(name));
			for (unsigned n = 0; n < r->sc->nnodes; n++) {
				unsigned id = r->sc->node[n].id;
				struct pv_vmpam_reading rd;
				struct pv_vmpam_rate rate;
				int st = run_bw_reading(r, v, id, &rd, &rate);
				if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
					continue;
				check(k, dom->name, rd.bytes,
				      sim_mpam_machine_vm_bytes(r->m, v->sim_vm, id, false),
				      rd.bound, "%s memory node %u bytes", name, id);
				st = run_bw_local_reading(r, v, id, &rd);
				if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
					continue;
				check(k, dom->name, rd.bytes,
				      sim_mpam_machine_vm_local_bytes(r->m, v->sim_vm, id),
				      rd.bound, "%s memory node %u local bytes", name, id);
			}
		}
}

/* SPE: the records decoded from what the guest's driver collected against the samples the
 * units wrote for the VM, one by one; the library's interrupts against those the guest's
 * driver serviced; no record lost, no buffer fault seen by the guest, no pin left. */
static void verify_spe(const struct run *r, const struct run_vm *v, struct checks *k)
{
	if (!v->spe)
		return;
	const char *name = v->sv->dom.name;
	uint64_t events = 0, lost = 0, pinned = 0, s2_faults = 0, s2_repaired = 0;
	for (unsigned c = 0; c < v->sv->dom.vcpus; c++) {
		const struct pv_vspe *s = &r->m->vcpu[v->first_vcpu + c].pv.spe;
		events += s->stats.events;
		lost += s->stats.records_lost;
		pinned += s->pinned_bytes;
		s2_faults += s->stats.s2_faults;
		s2_repaired += s->stats.s2_repaired;
	}
	struct run_spe_tally t;
	run_spe_tally(r, v, &t);
	check(k, name, t.decoded, t.written, 0, "SPE records decoded from the guest's buffer");
	check(k, name, t.matched, t.written, 0, "SPE records equal to the samples taken");
	check(k, name, t.valid, t.written, 0,
	      "SPE records valid (PC, operation, nothing physical)");
	check(k, name, t.undecodable, 0, 0, "SPE bytes that do not decode");
	check(k, name, events, t.irqs, 0, "SPE buffer interrupts serviced by the guest");
	check(k, name, lost, t.lost, 0, "SPE records lost");
	check(k, name, s2_faults - s2_repaired + t.guest_faults, 0, 0,
	      "SPE buffer faults seen by the guest");
	if (!r->cut)
		check(k, name, pinned, t.s2_pinned, 0, "SPE bytes pinned at the end");
}

unsigned run_verify(const struct run *r, struct rep_check **checks, unsigned *n)
{
	struct checks k = {0};
	static const struct sim_snap zero;
	for (unsigned i = 0; i < r->nvms; i++) {
		const struct run_vm *v = &r->vm[i];
		const struct domain *dom = &v->sv->dom;
		for (unsigned c = 0; c < dom->vcpus; c++)
			verify_vcpu(r, v, c, &k);
		for (int e = 0; e < DOM_PERF_COUNT; e++) {
			int slot = run_host_slot(r, dom_perf_events[e].arm);
			if (!domxml_perf_accounted(dom, (enum dom_perf_event)e) || slot < 0)
				continue;
			uint64_t truth = 0;
			for (unsigned c = 0; c < dom->vcpus; c++)
				truth += sim_snap_delta(
					&zero, &r->m->vcpu[v->first_vcpu + c].truth.now,
					(uint32_t)dom_perf_events[e].arm, 3);
			check(&k, dom->name, v->host[slot], truth, 0, "perf.%s",
			      dom_perf_events[e].name);
		}
		for (unsigned c = 0; c < dom->vcpus; c++)
			verify_amu(r, v, c, &k);
		verify_bandwidth(r, v, &k);
		verify_spe(r, v, &k);
	}
	*checks = k.c;
	*n = k.n;
	return k.bad;
}
