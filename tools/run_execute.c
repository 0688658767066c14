/* SPDX-License-Identifier: MIT */
/* Running a scenario (run.h), phase 2: the machine runs, time is accounted per VM. */
#include "run.h"

#include <time.h>

static uint64_t vcpu_cycles(const struct sim_vcpu *v)
{
	return v->truth.now.ev[0][SIM_EV_CPU_CYCLES] + v->truth.now.ev[1][SIM_EV_CPU_CYCLES];
}

static unsigned run_vm_of(const struct run *r, unsigned vcpu)
{
	unsigned idx = r->m->vcpu[vcpu].vm->idx;
	for (unsigned i = 0; i < r->nvms; i++)
		if (r->vm[i].sim_vm == idx)
			return i;
	return 0;
}

/* After a step: each pCPU ran at most one vCPU (the one its round-robin cursor names); what
 * the host counted at EL0/EL1 meanwhile is that VM's. The pCPU clocks advance by the cycles
 * run at EL2 and by the guests. */
static void account(struct run *r, const unsigned *cpu_of)
{
	struct sim_machine *m = r->m;
	for (unsigned c = 0; c < r->sc->cpus; c++) {
		struct sim_cpu *cpu = &m->cpu[c];
		uint64_t el2 = cpu->truth.el2[SIM_EV_CPU_CYCLES];
		r->cycles[c] += el2 - r->el2_prev[c];
		r->el2_prev[c] = el2;
		for (unsigned k = 0; k < r->nhost; k++) {
			uint64_t now = sim_host_counter(m, c, k);
			uint64_t delta = (now - r->host_prev[c][k]) & r->host_mask;
			r->host_prev[c][k] = now;
			if (delta)
				r->vm[run_vm_of(r, cpu->rr)].host[k] += delta;
		}
	}
	for (unsigned i = 0; i < m->nvcpus; i++) {
		uint64_t cyc = vcpu_cycles(&m->vcpu[i]);
		/* cpu_of[i] was set for every vCPU before the step (the analyser loses that). */
		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
		unsigned c = cpu_of[i];
		r->cycles[c] += cyc - r->vcpu_prev[i];
		r->vcpu_prev[i] = cyc;
	}
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void show_progress(const struct run *r, FILE *tty, uint64_t limit)
{
	const struct sim_machine *m = r->m;
	uint64_t total = 0, done = 0;
	for (unsigned i = 0; i < m->nvcpus; i++) {
		total += m->vcpu[i].prog->n;
		done += m->vcpu[i].done ? m->vcpu[i].prog->n : m->vcpu[i].pc;
	}
	double frac = total ? (double)done / (double)total : 1.0;
	if (limit && (double)run_clock_max(r) / (double)limit > frac)
		frac = (double)run_clock_max(r) / (double)limit;
	fprintf(tty, "\rperfvisor: %s: %3.0f%%, %.3f ms simulated ", r->sc->name, frac * 100.0,
		(double)run_clock_max(r) / (r->sc->mhz * 1e3));
	fflush(tty);
}

void run_execute(struct run *r, FILE *tty)
{
	struct sim_machine *m = r->m;
	uint64_t limit = r->sc->duration_ns ? r->sc->duration_ns * r->sc->mhz / 1000 : 0;
	unsigned cpu_of[SIM_MAX_VCPUS];
	double last = tty ? now_seconds() : 0;
	bool shown = tty != NULL;
	if (tty)
		show_progress(r, tty, limit);
	for (;;) {
		for (unsigned i = 0; i < m->nvcpus; i++)
			cpu_of[i] = m->vcpu[i].cpu->idx;
		bool any = sim_step(m);
		account(r, cpu_of);
		r->steps++;
		run_spe_step(r);
		if (!any)
			break;
		if (limit && run_clock_max(r) >= limit) {
			for (unsigned i = 0; i < m->nvcpus; i++)
				r->cut |= !m->vcpu[i].done;
			break;
		}
		if (tty && (r->steps & 255) == 0) {
			double t = now_seconds();
			if (t - last >= 0.1) {
				show_progress(r, tty, limit);
				last = t;
				shown = true;
			}
		}
	}
	/* The memory system serves what the vCPUs ran up to the last instant, and the bandwidth
	 * monitors are read there. */
	sim_mpam_machine_flush(m);
	run_spe_finish(r);
	if (shown) {
		fputs("\r\033[K", tty);
		fflush(tty);
	}
}
