/* SPDX-License-Identifier: MIT */
/*
 * Setup and PARTID allocation. The usable range is the least PARTID_MAX and PMG_MAX over
 * every pCPU (MPAMIDR_EL1) and every MSC (MPAMF_IDR): a label above what any component
 * implements raises an MSC error (Req_PARTID_Range, Req_PMG_Range), which Linux treats as
 * fatal to MPAM system-wide. PARTIDs [0, host_partids) stay the host's; each VM gets its own
 * from the rest, all or none.
 */
#include "internal.h"

const char *pv_vmpam_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case PV_VMPAM_ERR_SETUP:
		return "MPAM setup out of range (MSC or pCPU count, VM table, accounting "
		       "memory, "
		       "host PARTIDs)";
	case PV_VMPAM_ERR_CPU:
		return "a pCPU's MPAMIDR_EL1 is missing";
	case PV_VMPAM_ERR_MSC_ARCH:
		return "an MSC does not implement MPAM v1.x (MPAMF_AIDR)";
	case PV_VMPAM_ERR_MSC_NRW:
		return "an MSC narrows PARTIDs (MPAMF_IDR.HAS_PARTID_NRW): not supported";
	case PV_VMPAM_ERR_MSC_RIS:
		return "a memory node has more monitored resource instances than supported";
	case PV_VMPAM_ERR_NO_PARTID:
		return "no free PARTID: every usable PARTID belongs to the host or another VM";
	case PV_VMPAM_ERR_VPARTIDS:
		return "more virtual PARTIDs than a VM can be given (32, or the VPM "
		       "registers')";
	case PV_VMPAM_ERR_VM_TABLE:
		return "the MPAM VM table is full";
	case PV_VMPAM_ERR_BANDWIDTH:
		return "bandwidth cap above 100 %, or on a node without MBW_MAX";
	case PV_VMPAM_ERR_CACHE:
		return "cache portions for an unknown cache or beyond its CPBM_WD";
	case PV_VMPAM_ERR_MONITORS:
		return "the VM has more PARTIDs than a node has bandwidth monitors";
	case PV_VMPAM_ERR_MSC_ERROR:
		return "an MSC reported an error (MPAMF_ESR) while being configured";
	default:
		return "unknown MPAM error";
	}
}

static unsigned memory_nodes(const struct pv_vmpam_msc_desc *d, unsigned n)
{
	unsigned nodes = 0;
	for (unsigned i = 0; i < n; i++)
		if (d[i].kind == PV_VMPAM_MSC_MEMORY && d[i].id + 1u > nodes)
			nodes = d[i].id + 1u;
	return nodes;
}

size_t pv_vmpam_acct_entries(const struct pv_vmpam_setup *s)
{
	/* With a topology, room for a local account beside each total one, whether or not the
	 * PMG range turns out to allow it (only the probe tells). */
	return (size_t)s->max_vms * memory_nodes(s->msc, s->nmsc) << (s->cpu_node ? 1 : 0);
}

/* The least PARTID_MAX, PMG_MAX and VPMR_MAX of the pCPUs; HAS_HCR and HAS_TIDR of all. */
static void cpus_range(struct pv_vmpam_sys *sys, const uint64_t *idr, unsigned n)
{
	unsigned vpmr = 7;
	sys->has_hcr = sys->has_tidr = true;
	for (unsigned i = 0; i < n; i++) {
		if ((idr[i] & PV_MPAMIDR_PARTID_MAX) < sys->partid_max)
			sys->partid_max = (uint16_t)(idr[i] & PV_MPAMIDR_PARTID_MAX);
		if (PV_FIELD_GET(PV_MPAMIDR_PMG_MAX, idr[i]) < sys->pmg_max)
			sys->pmg_max = (uint8_t)PV_FIELD_GET(PV_MPAMIDR_PMG_MAX, idr[i]);
		if (PV_FIELD_GET(PV_MPAMIDR_VPMR_MAX, idr[i]) < vpmr)
			vpmr = (unsigned)PV_FIELD_GET(PV_MPAMIDR_VPMR_MAX, idr[i]);
		sys->has_hcr &= (idr[i] & PV_MPAMIDR_HAS_HCR) != 0;
		sys->has_tidr &= (idr[i] & PV_MPAMIDR_HAS_TIDR) != 0;
	}
	sys->vpm_entries = (uint8_t)(sys->has_hcr ? 4 * (vpmr + 1) : 0);
}

/* A node counts through every monitored RIS of its memory MSCs; a slot is the same monitor
 * number on each, so it has as many slots as the least of them. */
static int nodes_setup(struct pv_vmpam_sys *sys, const struct pv_vmpam_setup *s)
{
	for (unsigned i = 0; i < sys->nmsc; i++) {
		const struct pv_vmpam_msc *m = &sys->msc[i];
		struct pv_vmpam_node *n;
		if (m->kind != PV_VMPAM_MSC_MEMORY)
			continue;
		n = &sys->node[m->id];
		if (m->nrdy_ns > n->nrdy_ns)
			n->nrdy_ns = m->nrdy_ns;
		for (unsigned k = 0; k < m->nris; k++) {
			if (!m->ris[k].num_mon)
				continue;
			if (n->nris == PV_VMPAM_NODE_RIS)
				return PV_VMPAM_ERR_MSC_RIS;
			if (!n->nris || m->ris[k].num_mon < n->nmons)
				n->nmons = m->ris[k].num_mon;
			n->msc[n->nris] = (uint8_t)i;
			n->ris[n->nris++] = (uint8_t)k;
		}
	}
	for (unsigned i = 0; i < sys->nnodes; i++) {
		struct pv_vmpam_node *n = &sys->node[i];
		if (n->nmons > PV_VMPAM_MAX_MONS)
			n->nmons = PV_VMPAM_MAX_MONS;
		if (s->mons_per_node && n->nmons > s->mons_per_node)
			n->nmons = (uint16_t)s->mons_per_node;
		for (unsigned j = 0; j < PV_VMPAM_MAX_MONS; j++)
			n->slot[j] = PV_VMPAM_SLOT_FREE;
	}
	return 0;
}

/*
 * Local bytes. An MSC sees a request's PARTID and PMG, never the PE that sent it. The
 * hypervisor knows each pCPU's memory node, so perfvisor puts the node local to the running
 * pCPU in the physical PMG (MPAM1_EL1/MPAM0_EL1.PMG_I and PMG_D, cpu.c), and a monitor with
 * MSMON_CFG_MBWU_CTL.MATCH_PMG and MSMON_CFG_MBWU_FLT.PMG = M counts, on node M, only the
 * bytes sent from pCPUs local to it. That takes a PMG per node: the usable PMG_MAX must be at
 * least nodes - 1, or a label would be out of range (Req_PMG_Range at the MSCs).
 */
static int local_setup(struct pv_vmpam_sys *sys, const struct pv_vmpam_setup *s, unsigned nodes)
{
	sys->local = PV_VMPAM_LOCAL_NO_TOPOLOGY;
	if (!s->cpu_node)
		return 0;
	for (unsigned i = 0; i < s->ncpus; i++)
		if (s->cpu_node[i] >= nodes)
			return PV_VMPAM_ERR_SETUP;
	if (sys->pmg_max + 1u < nodes) {
		sys->local = PV_VMPAM_LOCAL_PMG_RANGE;
		return 0;
	}
	sys->local = PV_VMPAM_LOCAL_COUNTED;
	sys->acct_shift = 1;
	sys->cpu_node = s->cpu_node;
	sys->ncpus = s->ncpus;
	return 0;
}

int pv_vmpam_init(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, const struct pv_vmpam_setup *s)
{
	unsigned host;
	unsigned nodes;
	int err;
	*sys = (struct pv_vmpam_sys){.partid_max = 0xFFFF, .pmg_max = 0xFF};
	host = s->host_partids ? s->host_partids : 1;
	nodes = memory_nodes(s->msc, s->nmsc);
	if (s->nmsc > PV_VMPAM_MAX_MSCS || !s->vms || !s->max_vms || s->max_vms > (1u << 25) ||
	    nodes > PV_VMPAM_MAX_NODES ||
	    (nodes && (!s->acct || s->nacct < pv_vmpam_acct_entries(s))))
		return PV_VMPAM_ERR_SETUP;
	if (!s->ncpus || !s->cpu_mpamidr)
		return PV_VMPAM_ERR_CPU;
	cpus_range(sys, s->cpu_mpamidr, s->ncpus);
	for (unsigned i = 0; i < s->nmsc; i++) {
		struct pv_vmpam_msc *m = &sys->msc[i];
		if (s->msc[i].id >= PV_VMPAM_MAX_CACHES)
			return PV_VMPAM_ERR_SETUP;
		err = pv_vmpam__msc_probe(cpu, &s->msc[i], m);
		if (err)
			return err;
		if (m->partid_max < sys->partid_max)
			sys->partid_max = m->partid_max;
		if (m->pmg_max < sys->pmg_max)
			sys->pmg_max = m->pmg_max;
		if (m->kind == PV_VMPAM_MSC_CACHE && m->id + 1u > sys->ncaches)
			sys->ncaches = (uint8_t)(m->id + 1u);
	}
	if (host > sys->partid_max)
		return PV_VMPAM_ERR_SETUP; /* no PARTID would be left for VMs */
	err = local_setup(sys, s, nodes);
	if (err)
		return err;
	sys->nmsc = (uint8_t)s->nmsc;
	sys->nnodes = (uint8_t)nodes;
	sys->host_partids = (uint16_t)host;
	sys->vms = s->vms;
	sys->max_vms = s->max_vms;
	sys->acct = s->acct;
	for (unsigned p = 0; p < host; p++)
		sys->partid_used[p / 64] |= UINT64_C(1) << (p % 64);
	for (size_t i = 0; i < ((size_t)s->max_vms * nodes << sys->acct_shift); i++)
		sys->acct[i] = (struct pv_vmpam_acct){0};
	for (unsigned i = 0; i < s->max_vms; i++)
		sys->vms[i] = NULL;
	err = nodes_setup(sys, s);
	if (err)
		return err;
	for (unsigned i = 0; i < nodes; i++)
		pv_vmpam__mon_setup(sys, cpu, &sys->node[i]);
	return 0;
}

/* ---- PARTIDs ---- */

static int partid_alloc(struct pv_vmpam_sys *sys)
{
	unsigned words = ((unsigned)sys->partid_max + 64) / 64;
	for (unsigned w = sys->host_partids / 64; w < words; w++) {
		uint64_t free = ~sys->partid_used[w];
		unsigned p;
		if (!free)
			continue;
		p = w * 64 + (unsigned)__builtin_ctzll(free);
		if (p > sys->partid_max)
			break;
		sys->partid_used[w] |= UINT64_C(1) << (p % 64);
		return (int)p;
	}
	return -1;
}

static void partid_free(struct pv_vmpam_sys *sys, unsigned p)
{
	sys->partid_used[p / 64] &= ~(UINT64_C(1) << (p % 64));
}

/* ---- limits ---- */

static bool node_has_max(const struct pv_vmpam_sys *sys, unsigned node)
{
	for (unsigned i = 0; i < sys->nmsc; i++) {
		const struct pv_vmpam_msc *m = &sys->msc[i];
		if (m->kind != PV_VMPAM_MSC_MEMORY || m->id != node)
			continue;
		for (unsigned k = 0; k < m->nris; k++)
			if (m->ris[k].bwa_wd)
				return true;
	}
	return false;
}

/* The least CPBM_WD over the cache's RIS, 0 if it has no portion control. */
static unsigned cache_width(const struct pv_vmpam_sys *sys, unsigned cache)
{
	unsigned wd = 0;
	for (unsigned i = 0; i < sys->nmsc; i++) {
		const struct pv_vmpam_msc *m = &sys->msc[i];
		if (m->kind != PV_VMPAM_MSC_CACHE || m->id != cache)
			continue;
		for (unsigned k = 0; k < m->nris; k++)
			if (m->ris[k].cpbm_wd && (!wd || m->ris[k].cpbm_wd < wd))
				wd = m->ris[k].cpbm_wd;
	}
	return wd;
}

static int check_limits(const struct pv_vmpam_sys *sys, const struct pv_vmpam_config *c)
{
	for (unsigned i = 0; i < PV_VMPAM_MAX_NODES; i++) {
		if (c->mbw_max[i] > 100)
			return PV_VMPAM_ERR_BANDWIDTH;
		if (c->mbw_max[i] && c->mbw_max[i] < 100 && !node_has_max(sys, i))
			return PV_VMPAM_ERR_BANDWIDTH;
	}
	for (unsigned i = 0; i < PV_VMPAM_MAX_CACHES; i++) {
		unsigned wd;
		if (!c->cpbm[i])
			continue;
		wd = cache_width(sys, i);
		if (!wd || (wd < 64 && c->cpbm[i] >> wd))
			return PV_VMPAM_ERR_CACHE;
	}
	return 0;
}

/* Programs `cfg` for the VM's PARTIDs; on an MSC error puts the defaults back. */
static int program_vm(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
		      const struct pv_vm_mpam *vm, const struct pv_vmpam_config *cfg)
{
	int err = 0;
	for (unsigned v = 0; v < vm->nr_partids && !err; v++)
		err = pv_vmpam__msc_program(sys, cpu, vm->partid[v], cfg);
	if (err)
		for (unsigned v = 0; v < vm->nr_partids; v++)
			pv_vmpam__msc_program(sys, cpu, vm->partid[v], NULL);
	return err;
}

int pv_vmpam_partition_init(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			    struct pv_vm_mpam *vm, const struct pv_vmpam_config *cfg,
			    bool visible)
{
	struct pv_vmpam_config c = cfg ? *cfg : (struct pv_vmpam_config){0};
	unsigned n = c.nr_partids ? c.nr_partids : 1;
	int err;
	/* A refused VM holds nothing: sys stays NULL, so releasing it is a no-op. */
	*vm = (struct pv_vm_mpam){0};
	c.nr_partids = (uint8_t)n;
	if (n > PV_VMPAM_MAX_VPARTIDS || (sys->has_hcr && n > sys->vpm_entries))
		return PV_VMPAM_ERR_VPARTIDS;
	err = check_limits(sys, &c);
	if (err)
		return err;
	for (unsigned i = 0; i < sys->nnodes; i++)
		if (sys->node[i].nmons && n > sys->node[i].nmons)
			return PV_VMPAM_ERR_MONITORS;
	if (sys->nvms >= sys->max_vms)
		return PV_VMPAM_ERR_VM_TABLE;
	*vm = (struct pv_vm_mpam){.sys = sys,
				  .index = sys->nvms,
				  .nr_partids = (uint8_t)n,
				  .pmg_max = sys->pmg_max,
				  .visible = visible,
				  .vpm = sys->has_hcr,
				  .cfg = c};
	for (unsigned v = 0; v < n; v++) {
		int p = partid_alloc(sys);
		if (p < 0) {
			while (v--)
				partid_free(sys, vm->partid[v]);
			*vm = (struct pv_vm_mpam){0};
			return PV_VMPAM_ERR_NO_PARTID;
		}
		vm->partid[v] = (uint16_t)p;
	}
	err = program_vm(sys, cpu, vm, &c);
	if (err) { /* the PARTIDs go back at their reset limits, as on release */
		for (unsigned v = 0; v < n; v++) {
			pv_vmpam__msc_program(sys, cpu, vm->partid[v], NULL);
			partid_free(sys, vm->partid[v]);
		}
		*vm = (struct pv_vm_mpam){0};
		return err;
	}
	pv_vmpam__vm_views(sys, vm);
	sys->vms[sys->nvms++] = vm;
	pv_vmpam__acct_add(sys, cpu, vm);
	return 0;
}

int pv_vmpam_vm_set_limits(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, struct pv_vm_mpam *vm,
			   const struct pv_vmpam_config *cfg)
{
	struct pv_vmpam_config c = *cfg;
	int err;
	c.nr_partids = vm->nr_partids;
	err = check_limits(sys, &c);
	if (err)
		return err;
	err = program_vm(sys, cpu, vm, &c);
	if (err) {
		program_vm(sys, cpu, vm, &vm->cfg);
		return err;
	}
	vm->cfg = c;
	return 0;
}

void pv_vmpam_partition_release(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
				struct pv_vm_mpam *vm)
{
	uint32_t last;
	/* Only a VM of this table, once: a refused or released one holds nothing. */
	if (vm->sys != sys || vm->index >= sys->nvms || sys->vms[vm->index] != vm)
		return;
	pv_vmpam__acct_remove(sys, vm);
	for (unsigned v = 0; v < vm->nr_partids; v++) {
		pv_vmpam__msc_program(sys, cpu, vm->partid[v], NULL);
		partid_free(sys, vm->partid[v]);
	}
	/* Keep the table dense: the last VM takes the freed place. */
	last = sys->nvms - 1;
	if (vm->index != last) {
		struct pv_vm_mpam *moved = sys->vms[last];
		sys->vms[vm->index] = moved;
		pv_vmpam__acct_move(sys, last, vm->index);
		moved->index = vm->index;
	}
	sys->vms[last] = NULL;
	sys->nvms = last;
	vm->sys = NULL;
}

const struct pv_vmpam_el2 *pv_vmpam_el2(const struct pv_vm_mpam *vm)
{
	return &vm->el2;
}
