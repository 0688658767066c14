/* SPDX-License-Identifier: MIT */
#include "mpamscen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfvisor/mpam_regs.h"
#include "scen.h"

struct mscen_config mscen_default(void)
{
	return (struct mscen_config){
		.nodes = 1,
		.channels = 1,
		.mons = 16,
		.longc = true,
		.lwd = true,
		.capacity = 100000000000ull,
		.nrdy_ns = 20000,
		.partid_max = 511,
		.pmg_max = 3,
		.cpu_mpamidr = 1023 | UINT64_C(7) << 32 | PV_MPAMIDR_HAS_HCR |
			       UINT64_C(7) << 18,
		.max_vms = 64,
	};
}

static int add_msc(struct mscen *s, int node, const struct sim_ris_config *ris, unsigned nris)
{
	struct sim_msc_config c = sim_msc_config_v1p1(0x50000000u + s->nmsc * 0x10000u, node,
						      s->cfg.partid_max, s->cfg.pmg_max,
						      s->cfg.nrdy_ns, ris, nris);
	return sim_msc_init(&s->msc[s->nmsc++], &c);
}

struct mscen *mscen_new(const struct mscen_config *c)
{
	struct mscen *s = calloc(1, sizeof(*s));
	s->cfg = *c;
	struct sim_config mc = scen_config(1, 6, 0, 2000, 20000);
	s->m = scen_machine(&mc);
	if (!s->m || c->nodes + c->cache > MSCEN_MAX_MSCS || c->channels > SIM_MSC_MAX_RIS) {
		fprintf(stderr, "mscen: bad configuration\n");
		return NULL;
	}
	s->cpu = &s->m->cpu[0].pv;
	struct sim_ris_config ris[SIM_MSC_MAX_RIS];
	for (unsigned k = 0; k < c->channels; k++)
		ris[k] = (struct sim_ris_config){.mbw = true,
						 .bwa_wd = 8,
						 .has_max = true,
						 .has_min = true,
						 .num_mon = c->mons,
						 .has_long = c->longc,
						 .lwd = c->lwd,
						 .scale = c->scale,
						 .has_capture = true,
						 .has_rwbw = true,
						 .weight = 1,
						 .capacity = c->capacity / c->channels};
	struct pv_vmpam_msc_desc desc[MSCEN_MAX_MSCS];
	for (unsigned n = 0; n < c->nodes; n++) {
		if (add_msc(s, (int)n, ris, c->channels))
			return NULL;
		desc[s->nmsc - 1] = (struct pv_vmpam_msc_desc){
			.base = s->msc[s->nmsc - 1].cfg.base,
			.kind = PV_VMPAM_MSC_MEMORY,
			.id = (uint8_t)n,
			.nrdy_ns = (uint32_t)c->nrdy_ns};
	}
	if (c->cache) {
		struct sim_ris_config l3 = {.cpbm_wd = 16};
		if (add_msc(s, -1, &l3, 1))
			return NULL;
		desc[s->nmsc - 1] = (struct pv_vmpam_msc_desc){
			.base = s->msc[s->nmsc - 1].cfg.base,
			.kind = PV_VMPAM_MSC_CACHE,
			.id = 0};
	}
	if (sim_mpam_init(&s->mp, s->msc, s->nmsc))
		return NULL;
	s->m->mpam = &s->mp;
	unsigned n = c->max_vms;
	s->table = calloc(n, sizeof(*s->table));
	s->acct = calloc((size_t)n * c->nodes, sizeof(*s->acct));
	s->vm = calloc(n, sizeof(*s->vm));
	s->vcpu = calloc(n, sizeof(*s->vcpu));
	s->gen = calloc(n, sizeof(*s->gen));
	s->live = calloc(n, sizeof(*s->live));
	struct pv_vmpam_setup setup = {.msc = desc,
				       .nmsc = s->nmsc,
				       .cpu_mpamidr = &c->cpu_mpamidr,
				       .ncpus = 1,
				       .vms = s->table,
				       .max_vms = n,
				       .acct = s->acct,
				       .nacct = (size_t)n * c->nodes};
	int err = pv_vmpam_init(&s->sys, s->cpu, &setup);
	if (err) {
		fprintf(stderr, "pv_vmpam_init: %s\n", pv_vmpam_strerror(err));
		return NULL;
	}
	return s;
}

void mscen_free(struct mscen *s)
{
	if (!s)
		return;
	sim_mpam_free(&s->mp);
	for (unsigned i = 0; i < s->nmsc; i++)
		sim_msc_free(&s->msc[i]);
	free(s->table);
	free(s->acct);
	free(s->vm);
	free(s->vcpu);
	free(s->gen);
	free(s->live);
	scen_free(s->m);
	free(s);
}

int mscen_add_vm(struct mscen *s, const struct pv_vmpam_config *cfg, bool visible)
{
	if (s->nvms >= s->cfg.max_vms)
		return PV_VMPAM_ERR_VM_TABLE;
	unsigned i = s->nvms;
	int err = pv_vmpam_partition_init(&s->sys, s->cpu, &s->vm[i], cfg, visible);
	if (err)
		return err;
	s->nvms++;
	s->live[i] = true;
	pv_vmpam_vcpu_attach(&s->vcpu[i].mpam, &s->vm[i]);
	sim_tgen_init(&s->gen[i], 0, 0, 0, 0x9E3779B97F4A7C15ull * (i + 1));
	s->gen[i].active = false;
	mscen_relabel(s, i, 1);
	return (int)i;
}

void mscen_release(struct mscen *s, unsigned i)
{
	pv_vmpam_partition_release(&s->sys, s->cpu, &s->vm[i]);
	s->live[i] = false;
	s->gen[i].active = false;
}

struct sim_mpam_label mscen_label(const struct mscen *s, unsigned i, unsigned el, bool ifetch)
{
	const struct pv_vmpam_el2 *e = pv_vmpam_el2(&s->vm[i]);
	struct sim_mpam_cpu c;
	sim_mpam_cpu_init(&c, s->cfg.cpu_mpamidr);
	/* What the hypervisor loads for the vCPU: its EL2 controls from vmpam (its own EL2
	 * label, PARTID 0, in the rest of MPAM2_EL2), then pv_vmpam_load's registers. */
	c.mpam2 = e->mpam2_el2;
	if (s->cfg.cpu_mpamidr & PV_MPAMIDR_HAS_HCR) {
		c.mpamhcr = e->mpamhcr_el2;
		c.vpmv = e->vpmv;
		memcpy(c.vpm, e->vpm, sizeof(c.vpm));
	}
	c.mpam1 = s->vcpu[i].mpam.hw_mpam1;
	c.mpam0 = s->vcpu[i].mpam.hw_mpam0;
	return sim_mpam_cpu_label(&c, el, ifetch);
}

void mscen_relabel(struct mscen *s, unsigned i, unsigned el)
{
	struct sim_mpam_label l = mscen_label(s, i, el, false);
	s->gen[i].partid = l.partid;
	s->gen[i].pmg = l.pmg;
}

void mscen_run(struct mscen *s, uint64_t ns, uint64_t step, uint64_t tick)
{
	uint64_t end = s->now + ns;
	while (s->now < end) {
		sim_traffic_step(&s->mp, s->gen, s->nvms, step);
		s->now += step;
		if (s->now % tick == 0)
			pv_vmpam_tick(&s->sys, s->cpu, s->now);
	}
}

uint64_t mscen_truth(const struct mscen *s, unsigned i, unsigned node)
{
	uint64_t t = 0;
	for (unsigned v = 0; v < s->vm[i].nr_partids; v++)
		t += sim_mpam_truth(&s->mp, node, s->vm[i].partid[v]);
	return t;
}

uint64_t mscen_msc_errors(const struct mscen *s)
{
	uint64_t n = sim_mpam_errors(&s->mp);
	for (unsigned i = 0; i < s->nmsc; i++)
		n += (s->msc[i].esr & PV_ESR_ERRCODE) != 0;
	return n;
}
