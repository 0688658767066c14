/* SPDX-License-Identifier: MIT */
/*
 * SPE scenarios on the machine model: a machine with SPE units and memory, a VM with SPE, its
 * guest's stage-1 tables built in its own memory (a kernel's: code and data regions, and a
 * profiling buffer mapped page by page to scattered IPAs), the guest's register programming,
 * and the checks against the ground truth: decode what the guest's driver collected and match
 * it, record by record, with the samples the units logged as written.
 */
#ifndef TEST_SCEN_SPE_RIG_H
#define TEST_SCEN_SPE_RIG_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfvisor/spe_packet.h"
#include "scen.h"

#define RIG_POOL_IPA (SIM_VM_RAM_IPA + (UINT64_C(48) << 20)) /* the guest's table pages */
#define RIG_POOL_SIZE (UINT64_C(8) << 20)
#define RIG_CODE_VA UINT64_C(0xFFFF800010000000)
#define RIG_DATA_VA UINT64_C(0xFFFF000000000000)
#define RIG_BUF_VA UINT64_C(0xFFFF800080000000)
#define RIG_CODE_IPA SIM_VM_RAM_IPA
#define RIG_DATA_IPA (SIM_VM_RAM_IPA + (UINT64_C(1) << 20))
#define RIG_SCR (PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_TS | PV_PMSCR_CX)

struct spe_rig {
	struct sim_machine *m;
	struct sim_s1 s1[SIM_MAX_VMS];
	uint64_t rng;
};

static inline uint64_t rig_rand(struct spe_rig *r)
{
	return scen_rand(&r->rng);
}

/* A machine with SPEv1p2 units on `cpus` pCPUs and 256 MiB of RAM (64 MiB per VM). */
static inline struct sim_config rig_spe_config(uint64_t seed, unsigned cpus)
{
	struct sim_config c = scen_config(seed, 6, 0, 3000, 30000);
	c.cpus = cpus;
	c.spe.unit.version = PV_SPE_V1P2;
	c.spe.ram = UINT64_C(512) << 20;
	c.spe.vm_ram = UINT64_C(64) << 20;
	c.fgt = true;
	return c;
}

static inline struct pv_vm_config rig_spe_vm(unsigned version, uint64_t max_buffer)
{
	return (struct pv_vm_config){
		.features = PV_FEAT_SPE,
		.spe = {.version = (uint8_t)version, .max_buffer = max_buffer}};
}

/* Maps `pages` pages of VA from `va` to IPAs drawn at random (without reuse) from the VM's
 * RAM in [lo, hi), granule pages. */
static inline bool rig_map_scattered(struct spe_rig *r, unsigned vm, uint64_t va,
				     uint64_t pages, uint64_t lo, uint64_t hi)
{
	struct sim_s1 *t = &r->s1[vm];
	uint64_t g = UINT64_C(1) << t->granule, slots = (hi - lo) / g;
	uint8_t *used = calloc(slots, 1);
	if (!used || pages > slots)
		abort();
	for (uint64_t p = 0; p < pages; p++) {
		uint64_t s = rig_rand(r) % slots;
		while (used[s])
			s = (s + 1) % slots;
		used[s] = 1;
		if (!sim_s1_map(t, va + p * g, lo + s * g, g, 0)) {
			free(used);
			return false;
		}
	}
	free(used);
	return true;
}

/* The VM's stage-1 tables (granule 12, 14 or 16; 48-bit VAs), its kernel code and data mapped,
 * and the vCPU's EL1 context pointing at them. */
static inline bool rig_guest_mm(struct spe_rig *r, unsigned vm, unsigned vcpu, unsigned granule)
{
	struct sim_machine *m = r->m;
	struct sim_s1 *t = &r->s1[vm];
	if (!t->root[0] &&
	    !sim_spe_machine_s1(m, vm, t, granule, 48, RIG_POOL_IPA, RIG_POOL_SIZE))
		return false;
	if (!sim_s1_map(t, RIG_CODE_VA, RIG_CODE_IPA, UINT64_C(1) << 20, 0) ||
	    !sim_s1_map(t, RIG_DATA_VA, RIG_DATA_IPA, UINT64_C(1) << 20, 0))
		return false;
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, vcpu);
	g->el1 = (struct sim_el1){.sctlr = PV_SCTLR_M,
				  .ttbr0 = sim_s1_ttbr(t, 0),
				  .ttbr1 = sim_s1_ttbr(t, 1),
				  .tcr = sim_s1_tcr(t, true, false, false),
				  .contextidr = 0x1000u + vcpu};
	g->code[1] = (struct sim_spe_region){RIG_CODE_VA, UINT64_C(1) << 20, RIG_DATA_VA,
					     UINT64_C(1) << 20};
	g->code[0] = g->code[1];
	return true;
}

/* The driver's ring at `va` (`size` bytes, mapped by the caller). */
static inline void rig_driver(struct spe_rig *r, unsigned vcpu, uint64_t va, uint64_t size)
{
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(r->m, vcpu);
	g->driver = true;
	g->base = g->start = va;
	g->size = size;
}

/* Guest programming, as Linux's arm_spe_pmu_start() orders it: buffer, filters, interval,
 * counter, PMSCR_EL1 last. */
static inline void rig_prog_start(struct sim_prog *p, uint64_t va, uint64_t size, uint64_t irr,
				  uint64_t fcr, uint64_t evfr, uint64_t scr)
{
	sim_prog_msr(p, 1, PV_PMBPTR_EL1, va);
	sim_prog_msr(p, 1, PV_PMBLIMITR_EL1, (va + size) | PV_PMBLIMITR_E);
	sim_prog_msr(p, 1, PV_PMSFCR_EL1, fcr);
	sim_prog_msr(p, 1, PV_PMSEVFR_EL1, evfr);
	sim_prog_msr(p, 1, PV_PMSLATFR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSIRR_EL1, irr);
	sim_prog_msr(p, 1, PV_PMSICR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMSCR_EL1, scr);
}

/* Stop (arm_spe_pmu_stop: PMSCR_EL1 = 0, buffer off) and read the pointer: returns that op. */
static inline size_t rig_prog_stop(struct sim_prog *p)
{
	sim_prog_msr(p, 1, PV_PMSCR_EL1, 0);
	sim_prog_msr(p, 1, PV_PMBLIMITR_EL1, 0);
	return sim_prog_mrs(p, 1, PV_PMBPTR_EL1);
}

static inline void rig_prog_work(struct sim_prog *p, struct spe_rig *r, unsigned chunks)
{
	for (unsigned i = 0; i < chunks; i++)
		sim_prog_workload(p, (unsigned)(rig_rand(r) % 2),
				  (enum sim_profile)(rig_rand(r) % 4),
				  2000 + rig_rand(r) % 60000);
}

static inline uint64_t rig_pc_packet(uint64_t pc, unsigned el)
{
	return (pc & PV_GENMASK(55, 0)) | PV_BIT(63) | (uint64_t)el << 61;
}

/* Decodes the collected stream of vCPU `vcpu` and matches it with the truth, in order: every
 * WRITTEN sample, and nothing else. Prints each difference; returns their number. The stream
 * may contain Padding (alignment); with `tail_ok` it may end in part of a record (PMBSR.DL). */
static inline unsigned rig_match(struct sim_machine *m, unsigned vcpu, unsigned vm,
				 const char *tag, size_t *nrecords, bool tail_ok)
{
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, vcpu);
	uint64_t voff = sim_spe_machine_cntvoff(m, vm);
	unsigned bad = 0;
	size_t pos = 0, k = 0, n = 0;
	for (;;) {
		struct pv_spe_record rec;
		int res = pv_spe_record_decode(g->out, g->len, &pos, &rec, NULL);
		if (res == 0)
			break;
		if (res < 0) {
			if (tail_ok)
				break;
			fprintf(stderr, "%s: decode error at %zu: %s\n", tag, pos,
				pv_spe_strerror(res));
			return bad + 1;
		}
		while (k < g->log.n && g->log.s[k].status != SIM_SPE_WRITTEN)
			k++;
		if (k == g->log.n) {
			fprintf(stderr, "%s: record %zu in the buffer, none in the truth\n",
				tag, n);
			return bad + 1;
		}
		const struct sim_spe_sample *s = &g->log.s[k++];
		bool ok = rec.addr[PV_SPE_ADDR_PC] == rig_pc_packet(s->pc, s->el) &&
			  rec.has_op && rec.op_class == s->op_class &&
			  rec.op_subclass == s->op_sub && rec.has_events &&
			  rec.events == s->events && rec.cnt[0] == s->lat[0] &&
			  rec.cnt[1] == s->lat[1] && rec.has_ts == s->has_ts &&
			  (!s->has_ts || rec.timestamp == s->ts) &&
			  !!(rec.addr_valid >> PV_SPE_ADDR_DATA_VA & 1) == s->has_va &&
			  (!s->has_va || rec.addr[PV_SPE_ADDR_DATA_VA] == s->va) &&
			  !!(rec.addr_valid >> PV_SPE_ADDR_BRANCH & 1) == s->has_target &&
			  (!s->has_target ||
			   rec.addr[PV_SPE_ADDR_BRANCH] == rig_pc_packet(s->target, s->el)) &&
			  !!(rec.ctx_valid & 1) == s->has_ctx1 &&
			  (!s->has_ctx1 || rec.context[0] == s->ctx1) &&
			  rec.has_ds == s->has_ds && (!s->has_ds || rec.data_source == s->ds);
		/* Nothing physical in a guest's records: no PA packet, no CONTEXTIDR_EL2, and a
		 * virtual timestamp: physical count - CNTVOFF_EL2, which the model sets to -(vm+1)
		 * * 2^40, so a virtual stamp is at least 2^40 past any physical one of a test. */
		if (rec.addr_valid >> PV_SPE_ADDR_DATA_PA & 1 || rec.ctx_valid & 2 ||
		    s->has_pa || (rec.has_ts && rec.timestamp < (uint64_t)0 - voff)) {
			fprintf(stderr,
				"%s: record %zu carries a physical address, CONTEXTIDR_EL2 or "
				"a "
				"physical timestamp\n",
				tag, n);
			bad++;
		}
		if (!ok) {
			fprintf(stderr,
				"%s: record %zu (sample %" PRIu64 ") differs from the truth\n",
				tag, n, s->seq);
			bad++;
		}
		n++;
	}
	while (k < g->log.n && g->log.s[k].status != SIM_SPE_WRITTEN)
		k++;
	if (k != g->log.n && !tail_ok) {
		fprintf(stderr,
			"%s: the truth has written samples the buffer lacks (from %zu)\n", tag,
			k);
		bad++;
	}
	if (nrecords)
		*nrecords = n;
	return bad;
}

static inline uint64_t rig_stat(struct sim_machine *m, size_t off)
{
	uint64_t n = 0;
	for (unsigned c = 0; c < m->cfg.cpus; c++)
		n += *(const uint64_t *)((const char *)&sim_spe_machine_unit(m, c)->stats +
					 off);
	return n;
}
#define RIG_STAT(m, field) rig_stat(m, offsetof(struct sim_spe_stats, field))

/* The rig's machine (cmocka's asserts: include <cmocka.h> before this header). */
static inline struct spe_rig *rig_new(const struct sim_config *c)
{
	struct spe_rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->m = scen_machine(c);
	assert_non_null(r->m);
	r->rng = c->seed;
	return r;
}

static inline void rig_free(struct spe_rig *r)
{
	scen_free(r->m);
	free(r);
}

/* After a run: the library's hygiene, no record outside a VM, no page unpinned while its
 * vCPU's unit could still write it, no stage-2 fault seen by a unit or a vCPU, and every pin
 * released and balanced. */
static inline void rig_hygiene(struct sim_machine *m, const char *tag)
{
	assert_int_equal(scen_hygiene(m, tag), 0);
	assert_int_equal(sim_spe_machine_stray(m), 0);
	assert_int_equal(sim_spe_machine_live_unpins(m), 0);
	assert_int_equal(RIG_STAT(m, s2_faults), 0);
	for (unsigned i = 0; i < m->nvcpus; i++) {
		assert_int_equal(m->vcpu[i].pv.spe.stats.s2_faults, 0);
		assert_int_equal(m->vcpu[i].pv.spe.npins, 0);
	}
	for (unsigned i = 0; i < m->nvms; i++) {
		struct sim_s2 *s2 = sim_spe_machine_s2(m, i);
		if (s2) {
			assert_int_equal(sim_s2_pinned_pages(s2), 0);
			assert_int_equal(s2->stats.bad_unpins, 0);
		}
	}
}

#endif
