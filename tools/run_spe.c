/* SPDX-License-Identifier: MIT */
/*
 * SPE in a scenario run (see run.h): the guest profiler of a VM offered SPE, and what it
 * collected next to what the SPE units sampled.
 *
 * The guest is a kernel with Linux's arm_spe_pmu driver: its stage-1 tables in its own memory
 * (code and data regions, and per vCPU a ring of <guest-spe buffer> bytes whose pages are
 * scattered over its RAM), the buffer, filters and interval programmed in the driver's order
 * around the workload, buffer-full interrupts serviced by draining [start, PMBPTR_EL1) and
 * restarting at the base (sim/spe_machine.c runs that handler), and a last drain at the stop.
 * The host takes back every page of the VM that nobody pinned, every few time slices, as a
 * host under memory pressure does: the profiler meets no stage-2 fault only because vspe/
 * pinned its buffer and the tables that map it.
 */
#include <inttypes.h>
#include <string.h>

#include "perfvisor/spe_packet.h"
#include "run.h"

#define POOL_IPA (SIM_VM_RAM_IPA + (UINT64_C(48) << 20)) /* the guest's table pages */
#define POOL_SIZE (UINT64_C(8) << 20)
#define CODE_VA UINT64_C(0xFFFF800010000000)
#define DATA_VA UINT64_C(0xFFFF000000000000)
#define BUF_VA UINT64_C(0xFFFF800080000000)
#define BUF_STRIDE (UINT64_C(16) << 20) /* between the vCPUs' rings */
#define CODE_IPA SIM_VM_RAM_IPA
#define DATA_IPA (SIM_VM_RAM_IPA + (UINT64_C(1) << 20))
#define BUF_IPA_LO (SIM_VM_RAM_IPA + (UINT64_C(4) << 20))
#define BUF_IPA_HI POOL_IPA
#define SCR (PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_TS | PV_PMSCR_CX)
#define RECLAIM_EVERY 16 /* steps */

uint64_t run_spe_vm_ram(void)
{
	return UINT64_C(64) << 20;
}

int run_spe_check(const struct run *r, const struct run_vm *v, struct diag *d)
{
	const struct scen_vm *sv = v->sv;
	uint64_t slot = (BUF_IPA_HI - BUF_IPA_LO) / sv->dom.vcpus & ~UINT64_C(4095);
	long line = sv->guest_spe_line ? sv->guest_spe_line : sv->line;
	const char *el = sv->guest_spe_line ? "guest-spe" : "vm";
	if (sv->spe_buffer > v->cfg.spe.max_buffer)
		return xerr_at(d, r->sc->path, line, el,
			       "the guest's %" PRIu64 "-byte SPE buffer exceeds the %" PRIu64
			       " bytes domain '%s' may pin (<perfvisor:spe max-buffer>)",
			       sv->spe_buffer, v->cfg.spe.max_buffer, sv->dom.name);
	if (sv->spe_buffer > slot)
		return xerr_at(d, r->sc->path, line, el,
			       "%u SPE buffers of %" PRIu64
			       " bytes do not fit the guest's %" PRIu64 " MiB of buffer memory",
			       sv->dom.vcpus, sv->spe_buffer, (BUF_IPA_HI - BUF_IPA_LO) >> 20);
	return 0;
}

/* Linux's arm_spe_pmu_start(): buffer, filters, interval, counter, PMSCR_EL1 last. */
void run_spe_prog_start(struct sim_prog *p, const struct run_vm *v, unsigned c)
{
	uint64_t va = BUF_VA + c * BUF_STRIDE;
	sim_prog_msr(p, 1, PV_PMBPTR_EL1, va);
	sim_prog_msr(p, 1, PV_PMBLIMITR_EL1, (va + v->sv->spe_buffer) | PV_PMBLIMITR_E);
	sim_prog_msr(p, 1, PV_PMSFCR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSEVFR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSLATFR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSIRR_EL1, v->sv->spe_interval);
	sim_prog_msr(p, 1, PV_PMSICR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSCR_EL1, SCR);
}

/* arm_spe_pmu_stop(): sampling off, buffer off, then where the records end. */
size_t run_spe_prog_stop(struct sim_prog *p)
{
	sim_prog_msr(p, 1, PV_PMSCR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMBLIMITR_EL1, 0);
	return sim_prog_mrs(p, 1, PV_PMBPTR_EL1);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

int run_spe_guest(struct run *r, struct run_vm *v, struct diag *d)
{
	struct sim_machine *m = r->m;
	const struct domain *dom = &v->sv->dom;
	struct sim_s1 *t = &v->s1;
	if (!sim_spe_machine_s1(m, v->sim_vm, t, 12, 48, POOL_IPA, POOL_SIZE) ||
	    !sim_s1_map(t, CODE_VA, CODE_IPA, UINT64_C(1) << 20, 0) ||
	    !sim_s1_map(t, DATA_VA, DATA_IPA, UINT64_C(1) << 20, 0))
		return xerr_at(d, dom->origin, dom->line, "domain",
			       "cannot build the guest's stage-1 tables");
	/* Each vCPU's ring: its pages over its share of the buffer memory, in a scattered
	 * order (page p at slot p * stride mod slots, stride prime to slots). */
	uint64_t slots = (BUF_IPA_HI - BUF_IPA_LO) / dom->vcpus / 4096;
	uint64_t stride = 7;
	while (gcd(stride, slots) != 1)
		stride += 2;
	for (unsigned c = 0; c < dom->vcpus; c++) {
		uint64_t va = BUF_VA + c * BUF_STRIDE, lo = BUF_IPA_LO + c * slots * 4096;
		for (uint64_t p = 0; p < v->sv->spe_buffer / 4096; p++)
			if (!sim_s1_map(t, va + p * 4096, lo + (p * stride % slots) * 4096,
					4096, 0))
				return xerr_at(d, dom->origin, dom->line, "domain",
					       "cannot map the guest's SPE buffer");
		struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, v->first_vcpu + c);
		g->el1 = (struct sim_el1){.sctlr = PV_SCTLR_M,
					  .ttbr0 = sim_s1_ttbr(t, 0),
					  .ttbr1 = sim_s1_ttbr(t, 1),
					  .tcr = sim_s1_tcr(t, true, false, false),
					  .contextidr = 0x1000u + c};
		g->code[1] = (struct sim_spe_region){CODE_VA, UINT64_C(1) << 20, DATA_VA,
						     UINT64_C(1) << 20};
		g->code[0] = g->code[1];
		g->driver = true;
		g->base = g->start = va;
		g->size = v->sv->spe_buffer;
	}
	return 0;
}

void run_spe_step(struct run *r)
{
	struct sim_machine *m = r->m;
	bool reclaim = r->steps % RECLAIM_EVERY == 0;
	for (unsigned i = 0; i < r->nvms; i++) {
		struct run_vm *v = &r->vm[i];
		if (!v->spe)
			continue;
		uint64_t pinned = 0;
		for (unsigned c = 0; c < v->sv->dom.vcpus; c++)
			pinned += m->vcpu[v->first_vcpu + c].pv.spe.pinned_bytes;
		if (pinned > v->spe_pinned_peak)
			v->spe_pinned_peak = pinned;
		struct sim_s2 *s2 = reclaim ? sim_spe_machine_s2(m, v->sim_vm) : NULL;
		if (s2)
			sim_s2_reclaim(s2);
	}
}

/* The driver's last drain: up to where the stop left PMBPTR_EL1 (the library's view of it
 * when the run was cut before). */
void run_spe_finish(struct run *r)
{
	for (unsigned i = 0; i < r->nvms; i++) {
		struct run_vm *v = &r->vm[i];
		for (unsigned c = 0; v->spe && c < v->sv->dom.vcpus; c++) {
			const struct sim_op *op = &v->prog[c].ops[v->spe_stop[c]];
			unsigned idx = v->first_vcpu + c;
			uint64_t ptr = op->outcome == SIM_OUT_OK
					       ? op->value
					       : pv_vspe_pointer(&r->m->vcpu[idx].pv);
			sim_spe_machine_collect(r->m, idx, ptr);
		}
	}
}

static uint64_t pc_packet(uint64_t pc, unsigned el)
{
	return (pc & PV_GENMASK(55, 0)) | PV_BIT(63) | (uint64_t)el << 61;
}

/* A record as the guest's perf tool would accept it: a PC, an operation type, nothing
 * physical (no physical address, no CONTEXTIDR_EL2). */
static bool record_valid(const struct pv_spe_record *rec)
{
	return (rec->addr_valid >> PV_SPE_ADDR_PC & 1) && rec->has_op &&
	       !(rec->addr_valid >> PV_SPE_ADDR_DATA_PA & 1) && !(rec->ctx_valid & 2);
}

static bool record_is(const struct pv_spe_record *rec, const struct sim_spe_sample *s)
{
	return rec->addr[PV_SPE_ADDR_PC] == pc_packet(s->pc, s->el) && rec->has_op &&
	       rec->op_class == s->op_class && rec->op_subclass == s->op_sub &&
	       rec->has_events && rec->events == s->events && rec->cnt[0] == s->lat[0] &&
	       rec->cnt[1] == s->lat[1] && rec->has_ts == s->has_ts &&
	       (!s->has_ts || rec->timestamp == s->ts) &&
	       !!(rec->addr_valid >> PV_SPE_ADDR_DATA_VA & 1) == s->has_va &&
	       (!s->has_va || rec->addr[PV_SPE_ADDR_DATA_VA] == s->va) &&
	       !!(rec->addr_valid >> PV_SPE_ADDR_BRANCH & 1) == s->has_target &&
	       (!s->has_target ||
		rec->addr[PV_SPE_ADDR_BRANCH] == pc_packet(s->target, s->el)) &&
	       !!(rec->ctx_valid & 1) == s->has_ctx1 &&
	       (!s->has_ctx1 || rec->context[0] == s->ctx1);
}

void run_spe_tally(const struct run *r, const struct run_vm *v, struct run_spe_tally *t)
{
	memset(t, 0, sizeof(*t));
	struct sim_machine *m = r->m;
	for (unsigned c = 0; v->spe && c < v->sv->dom.vcpus; c++) {
		struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, v->first_vcpu + c);
		if (!g)
			continue;
		t->bytes += g->len;
		t->irqs += g->drv.irqs - g->drv.spurious;
		t->guest_faults += g->drv.faults + g->drv.other;
		size_t k = 0;
		for (size_t i = 0; i < g->log.n; i++) {
			t->written += g->log.s[i].status == SIM_SPE_WRITTEN;
			t->lost += g->log.s[i].status == SIM_SPE_LOST;
		}
		/* The collected bytes, record by record, against the samples written, in order. */
		size_t pos = 0;
		for (;;) {
			struct pv_spe_record rec;
			int res = pv_spe_record_decode(g->out, g->len, &pos, &rec, NULL);
			if (res <= 0) {
				t->undecodable += res < 0 ? g->len - pos : 0;
				break;
			}
			t->decoded++;
			t->valid += record_valid(&rec);
			while (k < g->log.n && g->log.s[k].status != SIM_SPE_WRITTEN)
				k++;
			if (k < g->log.n && record_is(&rec, &g->log.s[k++]))
				t->matched++;
		}
	}
	struct sim_s2 *s2 = v->spe ? sim_spe_machine_s2(m, v->sim_vm) : NULL;
	t->s2_pinned = s2 ? sim_s2_pinned_pages(s2) * 4096 : 0;
}
