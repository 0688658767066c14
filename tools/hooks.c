/* SPDX-License-Identifier: MIT */
/* SPE, AMU and MPAM figures (see hooks.h). */
#include "hooks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

/* The common part: not asked for, or refused by pv_vm_init (its reason). Returns true when
 * the feature is offered to the VM. */
static bool offered(const struct run_vm *v, uint32_t feature, struct rep_feature *f)
{
	if (!(v->requested & feature)) {
		f->state = REP_NOT_REQUESTED;
		return false;
	}
	if (!(v->cfg.features & feature)) {
		f->state = REP_NOT_OFFERED;
		snprintf(f->why, sizeof(f->why), "%s", v->why[__builtin_ctz(feature)]);
		return false;
	}
	return true;
}

/* vspe/ serves the guest's SPE once pv_vm_init accepted it: the library's counts per vCPU
 * (pv_vspe stats, its pins), the records the SPE units wrote for the VM, and the records
 * decoded from what its guest's driver collected. */
void hook_spe(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	if (!offered(v, PV_FEAT_SPE, &out->spe))
		return;
	out->spe.state = REP_MEASURED;
	struct rep_spe *f = &out->spe_fig;
	const struct pv_vm_spe *vm = &r->m->vm[v->sim_vm].pv.spe;
	f->version = vm->version;
	f->max_buffer = vm->max_buffer;
	for (unsigned c = 0; c < out->nvcpus; c++) {
		const struct pv_vspe *s = &r->m->vcpu[v->first_vcpu + c].pv.spe;
		f->profiling |= (s->limitr & PV_PMBLIMITR_E) && (s->scr & PV_PMSCR_EL2_OWNED)
					? 1
					: 0;
		f->enables += s->stats.enables;
		f->interrupts += s->stats.events;
		f->pinned += s->pinned_bytes;
		f->pin_calls += s->stats.pin_calls;
		f->unpin_calls += s->stats.unpin_calls;
		f->s2_faults += s->stats.s2_faults;
		f->s2_repaired += s->stats.s2_repaired;
		f->records_lost += s->stats.records_lost;
	}
	f->pinned_peak = v->spe_pinned_peak;
	struct run_spe_tally t;
	run_spe_tally(r, v, &t);
	f->records_written = t.written;
	f->records_decoded = t.decoded;
	f->records_valid = t.valid;
	f->bytes_collected = t.bytes;
}

/* Each vCPU's four architected counters as the library holds them (pv_vamu_counter: loaded
 * or not), and the average frequency they give. */
void hook_amu(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	if (!offered(v, PV_FEAT_AMU, &out->amu))
		return;
	out->amu.state = REP_MEASURED;
	for (unsigned c = 0; c < out->nvcpus; c++) {
		struct pv_vcpu *pv = &r->m->vcpu[v->first_vcpu + c].pv;
		struct rep_vcpu *rv = &out->vcpu[c];
		for (unsigned k = 0; k < REP_AMU_COUNT; k++)
			rv->amu[k] = pv_vamu_counter(pv, k);
		uint64_t cnt = rv->amu[REP_AMU_cnt_cycles];
		rv->amu_mhz = cnt ? (double)rv->amu[REP_AMU_cpu_cycles] / (double)cnt *
					      r->cfg.cnt_khz / 1e3
				  : 0;
		rv->amu_measured = true;
	}
}

static void note(struct rep_domain *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct rep_domain *out, const char *fmt, ...)
{
	if (out->nnotes == sizeof(out->note) / sizeof(out->note[0]))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->note[out->nnotes++], sizeof(out->note[0]), fmt, ap);
	va_end(ap);
}

static enum rep_bw_status bw_status(int st)
{
	return st == PV_VMPAM_MEASURED    ? REP_BW_MEASURED
	       : st == PV_VMPAM_ESTIMATED ? REP_BW_ESTIMATED
	       : st == PV_VMPAM_NOT_READY ? REP_BW_NOT_READY
	       : st == PV_VMPAM_OVERFLOW  ? REP_BW_OVERFLOW
					  : REP_BW_NO_DATA;
}

/* One monitor: the VM's bytes on every memory node of the machine (ascending ids, as
 * libvirt lists a monitor's memory controllers), from vmpam's accounting. */
static void monitor(const struct run *r, const struct run_vm *v, uint64_t vcpus,
		    struct rep_bw_monitor *m)
{
	const struct scenario *sc = r->sc;
	const struct pv_vm_mpam *vm = &r->m->vm[v->sim_vm].pv.mpam;
	domxml_monitor_name(vcpus, m->name, sizeof(m->name));
	m->vcpus = vcpus;
	for (unsigned id = 0; id < PV_VMPAM_MAX_NODES; id++) {
		if (!scenario_node(sc, id))
			continue;
		struct rep_bw_node *b = &m->node[m->nnodes++];
		struct pv_vmpam_reading rd;
		struct pv_vmpam_rate rate;
		*b = (struct rep_bw_node){.id = id};
		b->status = bw_status(run_bw_reading(r, v, id, &rd, &rate));
		if (rep_bw_has_figure(b)) {
			b->bytes_total = rd.bytes;
			b->bound = rd.bound;
			b->bytes_per_s = rate.bytes_per_s;
			b->bound_per_s = rate.bound_per_s;
		}
		/* bytes.local: its own monitors (PMG = the node), its own status and bound. Only
		 * written beside a total, as libvirt writes both from one monitor group. */
		b->local_status = bw_status(run_bw_local_reading(r, v, id, &rd));
		b->has_local = rep_bw_has_figure(b) && (b->local_status == REP_BW_MEASURED ||
							b->local_status == REP_BW_ESTIMATED);
		if (b->has_local) {
			b->bytes_local = rd.bytes;
			b->local_bound = rd.bound;
		}
		/* The cap in force (what pv_vmpam_partition_init programmed), 0 or 100: none. */
		unsigned cap = vm->cfg.mbw_max[id];
		b->limit_percent = cap < 100 ? cap : 0;
	}
}

/* Limits applied, monitors measured: a monitor has figures when it covers every vCPU of the
 * domain (perfvisor counts a VM as a whole, by its PARTID). */
void hook_mpam(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	const struct domain *dom = &v->sv->dom;
	bool managed = r->m->hw.mpam_sys != NULL;
	for (unsigned t = 0; managed && t < DOM_MAX_TUNES; t++) {
		out->memorytune_applied[t] = v->memorytune_applied[t];
		out->cachetune_applied[t] = v->cachetune_applied[t];
		out->limits_enforced |= v->memorytune_applied[t] || v->cachetune_applied[t];
	}
	snprintf(out->limits_why, sizeof(out->limits_why), "%s", v->limits_why);
	if (!offered(v, PV_FEAT_MPAM, &out->mpam))
		return;
	out->mpam.state = REP_MEASURED;
	char set[96], all[96], why[200];
	bool local = run_local_counted(r, why, sizeof(why));
	cpuset_format(dom->vcpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dom->vcpus) - 1, all,
		      sizeof(all));
	for (unsigned t = 0; t < dom->nmemorytune; t++)
		for (unsigned j = 0; j < dom->memorytune[t].nmonitors; j++) {
			uint64_t vcpus = dom->memorytune[t].monitor[j].vcpus;
			cpuset_format(vcpus, set, sizeof(set));
			if (run_monitor_whole(dom, vcpus)) {
				monitor(r, v, vcpus, &out->monitor[out->nmonitors++]);
				if (!local)
					note(out,
					     "memory-bandwidth monitor vcpus_%s bytes.local "
					     "not offered: %s",
					     set, why);
			} else
				note(out,
				     "memory-bandwidth monitor vcpus_%s not offered: perfvisor "
				     "counts a "
				     "VM's bandwidth as a whole, and this monitor covers vCPUs "
				     "%s of %s",
				     set, set, all);
		}
	for (unsigned t = 0; t < dom->ncachetune; t++)
		for (unsigned j = 0; j < dom->cachetune[t].nmonitors; j++) {
			cpuset_format(dom->cachetune[t].monitor[j].vcpus, set, sizeof(set));
			note(out,
			     "cache monitor vcpus_%s not offered: perfvisor has no "
			     "cache-occupancy "
			     "(CSU) monitors yet",
			     set);
		}
}
