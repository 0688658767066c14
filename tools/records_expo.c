/* SPDX-License-Identifier: MIT */
/*
 * The records' figures as metric families, with the labels libvirt-exporter users know:
 * `domain` (the VM's name) and `vcpu`; `counter`, `event` (its number) and `name` (as perf
 * spells it, the event database's) for PMU counters, `group` for
 * trap groups, `kind` for exit kinds, `counter` for AMU counters (the group 0 counter's name,
 * an auxiliary counter's index). A family is written only when some vCPU has a sample.
 */
#include "records_expo.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static const char *const states[] = {"running", "waiting", "ended", "stopped"};

struct vlabels {
	char vcpu[12];
	const char *l[11];
};

/* domain, vcpu, then up to two more label pairs. */
static const char *const *vl(struct vlabels *b, const struct rec_vcpu *v, const char *k1,
			     const char *v1, const char *k2, const char *v2)
{
	snprintf(b->vcpu, sizeof(b->vcpu), "%u", v->vcpu);
	unsigned i = 0;
	b->l[i++] = "domain";
	b->l[i++] = v->vm;
	b->l[i++] = "vcpu";
	b->l[i++] = b->vcpu;
	if (k1) {
		b->l[i++] = k1;
		b->l[i++] = v1;
	}
	if (k2) {
		b->l[i++] = k2;
		b->l[i++] = v2;
	}
	b->l[i] = NULL;
	return b->l;
}

/* A per-vCPU counter family of one field. */
static void per_vcpu(struct expo *e, const struct rec_store *s, const char *name,
		     const char *help, size_t offset)
{
	if (!s->n)
		return;
	expo_family(e, name, EXPO_COUNTER, NULL, help);
	for (unsigned i = 0; i < s->n; i++) {
		struct vlabels b = {0};
		uint64_t v;
		memcpy(&v, (const char *)&s->vcpu[i] + offset, sizeof(v));
		expo_sample(e, vl(&b, &s->vcpu[i], NULL, NULL, NULL, NULL), v);
	}
}

static void counters(struct expo *e, const struct rec_store *s)
{
	bool any = false;
	for (unsigned i = 0; i < s->n; i++)
		any |= s->vcpu[i].ncounters > 0;
	if (!any)
		return;
	expo_family(
		e, "perfvisor_vcpu_pmu_events", EXPO_GAUGE, NULL,
		"Value of a virtual PMU counter as the guest reads it (it may write or reset "
		"it: a gauge); counter is the index (cycle: PMCCNTR_EL0), event the number of "
		"the event programmed in it, name that event as perf spells it.");
	for (unsigned i = 0; i < s->n; i++) {
		const struct rec_vcpu *v = &s->vcpu[i];
		for (unsigned c = 0; c < v->ncounters; c++) {
			char idx[8], ev[8], name[16];
			struct vlabels b = {0};
			const struct rec_counter *k = &v->counter[c];
			if (k->index == PV_PMU_CYCLE_IDX)
				snprintf(idx, sizeof(idx), "cycle");
			else
				snprintf(idx, sizeof(idx), "%u", k->index);
			snprintf(ev, sizeof(ev), "0x%04X", k->event);
			rep_event_name(k->event, name, sizeof(name));
			const char *const *l = vl(&b, v, "counter", idx, "event", ev);
			b.l[8] = "name";
			b.l[9] = name;
			b.l[10] = NULL;
			expo_sample(e, l, k->value);
		}
	}
}

static void traps(struct expo *e, const struct rec_store *s)
{
	if (!s->n)
		return;
	expo_family(e, "perfvisor_vcpu_traps_total", EXPO_COUNTER, NULL,
		    "System register traps perfvisor answered, by register group.");
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned g = 0; g < PV_KIND_COUNT; g++) {
			struct vlabels b = {0};
			expo_sample(
				e, vl(&b, &s->vcpu[i], "group", rec_trap_groups[g], NULL, NULL),
				s->vcpu[i].traps[g]);
		}
}

static void exits(struct expo *e, const struct rec_store *s)
{
	bool any = false, measured = false;
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = 0; k < s->vcpu[i].nexits; k++) {
			any = true;
			measured |= s->vcpu[i].exit[k].el2_instructions > 0;
		}
	if (!any)
		return;
	expo_family(e, "perfvisor_vcpu_exits_total", EXPO_COUNTER, NULL,
		    "Exits of the vCPU to the hypervisor, by the hypervisor's kind of exit.");
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = 0; k < s->vcpu[i].nexits; k++) {
			struct vlabels b = {0};
			const struct rec_exit *x = &s->vcpu[i].exit[k];
			expo_sample(e, vl(&b, &s->vcpu[i], "kind", x->kind, NULL, NULL),
				    x->exits);
		}
	if (!measured)
		return;
	expo_family(e, "perfvisor_vcpu_exit_el2_instructions_total", EXPO_COUNTER, NULL,
		    "EL2 instructions the hypervisor spent on the vCPU's exits, by kind "
		    "(self-measured; absent where it does not measure).");
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = 0; k < s->vcpu[i].nexits; k++) {
			struct vlabels b = {0};
			const struct rec_exit *x = &s->vcpu[i].exit[k];
			expo_sample(e, vl(&b, &s->vcpu[i], "kind", x->kind, NULL, NULL),
				    x->el2_instructions);
		}
}

/* The SPE figures (spe=), a family each, samples only for the vCPUs of VMs with SPE. */
static void spe(struct expo *e, const struct rec_store *s)
{
	static const struct {
		const char *name, *unit, *help;
		enum expo_type type;
		size_t offset;
	} fam[] = {
		{"perfvisor_vcpu_spe_written_bytes_total", "bytes",
		 "Bytes the vCPU's profiler wrote into its guest's SPE buffers (the write "
		 "pointer's progress, counted when perfvisor reads it back).",
		 EXPO_COUNTER, offsetof(struct rec_spe, bytes)},
		{"perfvisor_vcpu_spe_pinned_bytes", "bytes",
		 "Bytes of the VM's memory the vCPU holds pinned in stage 2 for its SPE buffer "
		 "now (buffer pages and the stage-1 tables they are reached through).",
		 EXPO_GAUGE, offsetof(struct rec_spe, pinned)},
		{"perfvisor_vcpu_spe_buffer_enables_total", NULL,
		 "SPE buffers of the guest checked, walked and pinned.", EXPO_COUNTER,
		 offsetof(struct rec_spe, enables)},
		{"perfvisor_vcpu_spe_buffer_rejected_total", NULL,
		 "Enables of an SPE buffer refused with a buffer management event.",
		 EXPO_COUNTER, offsetof(struct rec_spe, rejected)},
		{"perfvisor_vcpu_spe_buffer_events_total", NULL,
		 "SPE buffer management events reflected to the guest (buffer full, stage-1 "
		 "fault, refusals...).",
		 EXPO_COUNTER, offsetof(struct rec_spe, events)},
		{"perfvisor_vcpu_spe_pin_chunks_total", NULL,
		 "Chunks of an SPE buffer pinned as the profiler reached the end of what was.",
		 EXPO_COUNTER, offsetof(struct rec_spe, chunks)},
		{"perfvisor_vcpu_spe_stage2_faults_total", NULL,
		 "Stage-2 faults the SPE profiler met on the guest's buffer (0 unless its "
		 "memory "
		 "moved under a pin).",
		 EXPO_COUNTER, offsetof(struct rec_spe, s2_faults)},
	};
	bool any = false;
	for (unsigned i = 0; i < s->n; i++)
		any |= s->vcpu[i].has_spe;
	if (!any)
		return;
	for (unsigned f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		expo_family(e, fam[f].name, fam[f].type, fam[f].unit, fam[f].help);
		for (unsigned i = 0; i < s->n; i++) {
			struct vlabels b = {0};
			uint64_t v;
			if (!s->vcpu[i].has_spe)
				continue;
			memcpy(&v, (const char *)&s->vcpu[i].spe + fam[f].offset, sizeof(v));
			expo_sample(e, vl(&b, &s->vcpu[i], NULL, NULL, NULL, NULL), v);
		}
	}
}

_Static_assert(REP_AMU_COUNT == PV_AMU_GROUP0, "amu= starts with the stats' four counters");

/* The AMU counters (amu=), samples only for the vCPUs of VMs with the AMU: group 0 in the
 * family `perfvisor stats` writes for a run (its name, labels and help: one query serves
 * both), each auxiliary counter by its index n (AMEVCNTR1<n>_EL0, whose event is the
 * hardware's AMEVTYPER1<n>_EL0) in a family of its own, where the VM has any. */
static void amu(struct expo *e, const struct rec_store *s)
{
	bool any = false, aux = false;
	for (unsigned i = 0; i < s->n; i++) {
		any |= s->vcpu[i].namu > 0;
		aux |= s->vcpu[i].namu > PV_AMU_GROUP0;
	}
	if (!any)
		return;
	expo_family(e, "perfvisor_vcpu_amu_events_total", EXPO_COUNTER, NULL,
		    rep_amu_events_help);
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = 0; k < REP_AMU_COUNT && s->vcpu[i].namu; k++) {
			struct vlabels b = {0};
			expo_sample(
				e, vl(&b, &s->vcpu[i], "counter", rep_amu_names[k], NULL, NULL),
				s->vcpu[i].amu[k]);
		}
	if (!aux)
		return;
	expo_family(
		e, "perfvisor_vcpu_amu_aux_events_total", EXPO_COUNTER, NULL,
		"A vCPU's own count of an auxiliary activity monitor (AMU group 1): counter "
		"is its index n, the event the hardware's AMEVTYPER1<n>_EL0.");
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = PV_AMU_GROUP0; k < s->vcpu[i].namu; k++) {
			char idx[12];
			struct vlabels b = {0};
			snprintf(idx, sizeof(idx), "%u", k - PV_AMU_GROUP0);
			expo_sample(e, vl(&b, &s->vcpu[i], "counter", idx, NULL, NULL),
				    s->vcpu[i].amu[k]);
		}
}

static void state(struct expo *e, const struct rec_store *s)
{
	if (!s->n)
		return;
	expo_family(e, "perfvisor_vcpu_state", EXPO_GAUGE, NULL,
		    "1 for the vCPU's state in its last record, 0 for the others.");
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
			struct vlabels b = {0};
			expo_sample(e, vl(&b, &s->vcpu[i], "state", states[k], NULL, NULL),
				    !strcmp(s->vcpu[i].state, states[k]));
		}
	expo_family(e, "perfvisor_vcpu_record_time_seconds", EXPO_GAUGE, "seconds",
		    "The hypervisor's clock at the vCPU's last record (virtual time under "
		    "QEMU).");
	for (unsigned i = 0; i < s->n; i++) {
		struct vlabels b = {0};
		expo_sample_double(e, vl(&b, &s->vcpu[i], NULL, NULL, NULL, NULL),
				   (double)s->vcpu[i].time_ns / 1e9);
	}
}

void records_expo(struct expo *e, const struct rec_store *s)
{
	counters(e, s);
	traps(e, s);
	exits(e, s);
	per_vcpu(e, s, "perfvisor_vcpu_switches_total", "Times the vCPU was scheduled in.",
		 offsetof(struct rec_vcpu, switches));
	per_vcpu(e, s, "perfvisor_vcpu_pmu_loads_total",
		 "Times perfvisor loaded the vCPU's PMU state on a pCPU.",
		 offsetof(struct rec_vcpu, loads));
	per_vcpu(e, s, "perfvisor_vcpu_pmu_interrupts_total",
		 "Rising edges of the vCPU's virtual PMU overflow interrupt.",
		 offsetof(struct rec_vcpu, pmu_irqs));
	spe(e, s);
	amu(e, s);
	state(e, s);
	expo_family(
		e, "perfvisor_records_read_total", EXPO_COUNTER, NULL,
		"Lines read from the hypervisor's channel, by what they were: ok (a record), "
		"not-record (other output), and the skipped ones: version, crc (corrupt or "
		"truncated), malformed, too-long (longer than a record can be: counted, never "
		"held).");
	for (unsigned st = 0; st < REC_STATUS_COUNT; st++) {
		const char *l[] = {"status", rec_status_name(st), NULL};
		expo_sample(e, l, s->lines[st]);
	}
	expo_family(
		e, "perfvisor_records_evicted_total", EXPO_COUNTER, NULL,
		"vCPUs forgotten to make room for a new one (perfvisor serve keeps 4096): the "
		"one heard from longest ago each time.");
	expo_sample(e, NULL, s->evicted);
}
