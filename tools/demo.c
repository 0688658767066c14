/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor demo`: a vPMU scenario on the simulated machine. Four VMs with different PMU
 * versions, counter counts, filters and workloads are time-sliced on one pCPU whose top
 * counter is reserved for the host; each guest programs its counters, runs, and reads them.
 * The table puts what each guest read next to the ground truth the machine model kept.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "tool.h"

#define DEMO_VMS 4
#define DEMO_MAX_CTRS 6

struct demo_counter {
	uint16_t event;
	uint64_t filter; /* P, U, NSH as the guest writes them */
};

struct demo_vm {
	const char *name;
	uint8_t version;
	enum sim_profile profile;
	uint64_t cycle_filter;
	unsigned n;
	struct demo_counter ctr[DEMO_MAX_CTRS];
};

#define EL0_ONLY PV_PMEVTYPER_P
#define EL1_ONLY PV_PMEVTYPER_U
#define BOTH 0
#define WITH_EL2 PV_PMEVTYPER_NSH /* the guest asks for EL2 too: it must get nothing of it */

static const struct demo_vm demo_vms[DEMO_VMS] = {
	{"web", PV_PMUVER_V3P5, SIM_PROF_INT, BOTH, 4,
	 {{PV_EVT_INST_RETIRED, BOTH}, {PV_EVT_CPU_CYCLES, EL0_ONLY},
	  {PV_EVT_BR_MIS_PRED, EL1_ONLY}, {PV_EVT_EXC_TAKEN, BOTH}}},
	{"db", PV_PMUVER_V3P4, SIM_PROF_MEM, EL1_ONLY, 3,
	 {{PV_EVT_MEM_ACCESS, BOTH}, {PV_EVT_L1D_CACHE_REFILL, EL0_ONLY},
	  {PV_EVT_STALL_BACKEND, BOTH | WITH_EL2}}},
	{"batch", PV_PMUVER_V3P1, SIM_PROF_STREAM, EL0_ONLY, 2,
	 {{PV_EVT_INST_RETIRED, EL0_ONLY | WITH_EL2}, {0x17 /* L2D_CACHE_REFILL */, BOTH}}},
	{"branchy", PV_PMUVER_V3, SIM_PROF_BRANCH, BOTH | WITH_EL2, 6,
	 {{PV_EVT_BR_RETIRED, BOTH}, {PV_EVT_BR_MIS_PRED, BOTH}, {PV_EVT_INST_RETIRED, EL1_ONLY},
	  {PV_EVT_CPU_CYCLES, BOTH | WITH_EL2}, {PV_EVT_L1D_CACHE, EL0_ONLY},
	  {PV_EVT_EXC_TAKEN, EL1_ONLY}}},
};

/* Op indices of one guest's program that the table needs. */
struct demo_ops {
	size_t start;       /* PMCR_EL0.E = 1: counting starts */
	size_t read[DEMO_MAX_CTRS + 1]; /* last: the cycle counter */
};

static void build(struct sim_prog *p, const struct demo_vm *vm, unsigned idx,
		  struct demo_ops *ops)
{
	for (unsigned i = 0; i < vm->n; i++) {
		sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(i), vm->ctr[i].filter | vm->ctr[i].event);
		sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(i), 0);
	}
	sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, vm->cycle_filter);
	sim_prog_msr(p, 1, PV_PMCCNTR_EL0, 0);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, ((1u << vm->n) - 1) | 1u << 31);
	ops->start = sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < 24; k++) {
		uint64_t insts = 20000 + 7919 * ((k * 5 + idx * 3) % 11);
		sim_prog_workload(p, k & 1, vm->profile, insts);
		if (k % 6 == 5)
			sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(k % vm->n)); /* a read mid-run */
	}
	for (unsigned i = 0; i < vm->n; i++)
		ops->read[i] = sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(i));
	ops->read[vm->n] = sim_prog_mrs(p, 1, PV_PMCCNTR_EL0);
}

static const char *filter_name(uint64_t f)
{
	bool el0 = !(f & PV_PMEVTYPER_U), el1 = !(f & PV_PMEVTYPER_P);
	bool el2 = f & PV_PMEVTYPER_NSH;
	static const char *const names[8] = {"none",    "EL0",     "EL1",     "EL0+EL1",
					      "EL2",     "EL0+EL2", "EL1+EL2", "EL0+EL1+EL2"};
	return names[el0 | el1 << 1 | el2 << 2];
}

static const char *version_name(unsigned v)
{
	switch (v) {
	case PV_PMUVER_V3:
		return "PMUv3";
	case PV_PMUVER_V3P1:
		return "PMUv3p1";
	case PV_PMUVER_V3P4:
		return "PMUv3p4";
	case PV_PMUVER_V3P5:
		return "PMUv3p5";
	default:
		return "?";
	}
}

static void event_name(char *buf, size_t len, uint32_t event)
{
	const char *n = sim_ev_name(event);
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "0x%04x", event);
}

static void demo_usage(FILE *out)
{
	fputs("usage: perfvisor demo [--seed N]\n"
	      "Runs four VMs time-sliced on one simulated pCPU (one counter reserved for the\n"
	      "host) and prints, per VM, each counter the guest read next to the ground truth.\n"
	      "Exit status 1 if any guest value differs from the truth.\n",
	      out);
}

static int parse(int argc, char **argv, uint64_t *seed)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			demo_usage(stdout);
			return 0;
		}
		if (strcmp(arg, "--seed") == 0 && i + 1 < argc)
			value = argv[++i];
		else if (strncmp(arg, "--seed=", 7) == 0)
			value = arg + 7;
		char *end = NULL;
		if (value)
			*seed = strtoull(value, &end, 0);
		if (!value || !*value || *end) {
			fprintf(stderr, "perfvisor demo: bad %s '%s'\n",
				arg[0] == '-' ? "option" : "argument", value ? value : arg);
			demo_usage(stderr);
			return 2;
		}
	}
	return -1;
}

static int run(uint64_t seed)
{
	struct sim_config cfg;
	sim_config_default(&cfg);
	cfg.seed = seed;
	cfg.pmu.counters = 7;
	cfg.host_counters = 1;
	cfg.slice_min = 1000;
	cfg.slice_max = 30000;
	struct sim_machine *m = calloc(1, sizeof(*m));
	if (!m) {
		fputs("perfvisor demo: out of memory\n", stderr);
		return 1;
	}
	int err = sim_init(m, &cfg);
	if (err) {
		fprintf(stderr, "perfvisor demo: machine setup failed: %s\n", pv_strerror(err));
		free(m);
		return 1;
	}
	struct sim_prog progs[DEMO_VMS];
	struct demo_ops ops[DEMO_VMS];
	for (unsigned i = 0; i < DEMO_VMS; i++) {
		const struct demo_vm *d = &demo_vms[i];
		struct pv_vm_config vc = {.features = PV_FEAT_PMU,
					  .pmu = {.version = d->version, .nr_counters = (uint8_t)d->n}};
		sim_prog_init(&progs[i]);
		build(&progs[i], d, i, &ops[i]);
		int vm = sim_add_vm(m, &vc);
		if (vm < 0 || sim_add_vcpu(m, (unsigned)vm, 0, &progs[i]) < 0) {
			fprintf(stderr, "perfvisor demo: VM %s: %s\n", d->name, pv_strerror(vm));
			return 1;
		}
	}
	sim_run(m);

	const struct sim_cpu *cpu = &m->cpu[0];
	uint64_t splits = 0;
	for (unsigned i = 0; i < DEMO_VMS; i++)
		splits += m->vcpu[i].truth.splits;
	printf("perfvisor demo: %u VMs time-sliced on 1 pCPU (%s, %u counters, counter %u "
	       "reserved for the host), seed %" PRIu64 "\n",
	       DEMO_VMS, version_name(cfg.pmu.version), cfg.pmu.counters, cfg.pmu.counters - 1,
	       seed);
	printf("%" PRIu64 " vCPU switches, %" PRIu64 " trapped accesses, %" PRIu64
	       " PMU interrupts, %" PRIu64 " work chunks cut by a switch\n\n",
	       cpu->stats.switches, cpu->stats.traps, cpu->stats.irqs, splits);
	printf("%-8s %-8s %-10s %-18s %-12s %14s %14s  %s\n", "VM", "PMU", "counter", "event",
	       "filter", "guest read", "ground truth", "match");

	unsigned bad = 0;
	for (unsigned i = 0; i < DEMO_VMS; i++) {
		const struct demo_vm *d = &demo_vms[i];
		const struct sim_prog *p = &progs[i];
		const struct sim_snap *from = &p->ops[ops[i].start].at;
		for (unsigned c = 0; c <= d->n; c++) {
			const struct sim_op *rd = &p->ops[ops[i].read[c]];
			bool cyc = c == d->n;
			uint32_t event = cyc ? PV_EVT_CPU_CYCLES : d->ctr[c].event;
			uint64_t filter = cyc ? d->cycle_filter : d->ctr[c].filter;
			uint64_t truth = sim_snap_delta(from, &rd->at, event,
							sim_filter_ns_els(filter, cfg.el3));
			if (d->version < PV_PMUVER_V3P5 && !cyc)
				truth &= 0xFFFFFFFFu; /* 32-bit event counters */
			bool ok = rd->outcome == SIM_OUT_OK && rd->value == truth;
			bad += !ok;
			char name[16], ev[24];
			snprintf(name, sizeof(name), cyc ? "PMCCNTR" : "PMEVCNTR%u", c);
			event_name(ev, sizeof(ev), event);
			printf("%-8s %-8s %-10s %-18s %-12s %14" PRIu64 " %14" PRIu64 "  %s\n",
			       c == 0 ? d->name : "", c == 0 ? version_name(d->version) : "", name, ev,
			       filter_name(filter), rd->value, truth, ok ? "yes" : "NO");
		}
		bad += p->unexpected;
	}
	unsigned host = cfg.pmu.counters - 1;
	uint64_t host_read = sim_host_counter(m, 0, 0);
	uint64_t host_truth = sim_cpu_truth_get(cpu->truth.el2, sim_host_event(m, 0));
	char ev[24];
	event_name(ev, sizeof(ev), sim_host_event(m, 0));
	printf("%-8s %-8s PMEVCNTR%-2u %-18s %-12s %14" PRIu64 " %14" PRIu64 "  %s\n", "host",
	       "", host, ev, "EL2", host_read, host_truth, host_read == host_truth ? "yes" : "NO");
	bad += host_read != host_truth;
	printf("\n%s\n", bad ? "MISMATCH: a guest or the host read something other than the truth"
			     : "every guest read equals its ground truth; no EL2 event reached a guest");

	for (unsigned i = 0; i < DEMO_VMS; i++)
		sim_prog_free(&progs[i]);
	free(m);
	return bad ? 1 : 0;
}

int tool_demo(int argc, char **argv)
{
	uint64_t seed = 1;
	int r = parse(argc, argv, &seed);
	if (r >= 0)
		return r;
	return run(seed);
}
