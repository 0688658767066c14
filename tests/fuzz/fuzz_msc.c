/* SPDX-License-Identifier: MIT */
/*
 * fuzz_msc: vmpam/ against adversarial MPAM hardware. Every 32-bit word an MSC returns (its ID
 * registers, error status, monitor counters with NRDY) and every pCPU's MPAMIDR_EL1 comes from
 * the fuzzer; VMs come and go, change their limits, program their guests' MPAM labels, and the
 * accounting ticks and reads on top.
 *
 * The MSCs are tests/support/memplat MMIO with a device hook. Invariants (docs/security.md):
 *   - every access is a 4-byte aligned word inside the frame of an MSC the setup described;
 *   - MPAMCFG_PART_SEL never selects a PARTID of the host or of another VM while one VM is
 *     configured (only pv_vmpam_init selects PARTID 0, to read the RIS ID registers), never a
 *     PARTID above the usable PARTID_MAX, never a RIS the MSC does not have;
 *   - MSMON_CFG_MBWU_FLT filters only on PARTIDs of VMs in the table (0 while idle), and
 *     MSMON_CFG_MON_SEL never names a monitor the RIS does not have;
 *   - NRDY is handled: a counter is re-read at most PV_VMPAM_NRDY_RETRIES + 1 times per
 *     attempt (three reads per attempt for a long counter), so a stuck MSC cannot hang EL2;
 *   - what the guest writes in MPAM0/1_EL1 reaches the physical registers only as its own
 *     PARTIDs (directly, or virtual ones that MPAMVPM<n>_EL2 maps to its own) and PMG <=
 *     the usable PMG_MAX;
 *   - a reading without a figure (NOT_READY, NO_DATA) carries no bytes and no bound.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "memplat.h"
#include "perfvisor/mpam_regs.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"
#include "../../core/modules.h" /* pv_vmpam_load: the core's internal verb */

#define NMSC_MAX 4
#define NVM 4
#define MSC_STRIDE 0x10000u
#define MSC_FRAME 0x4000u
#define MSC_BASE 0x20000000u

static struct fz in;
static struct memplat_cpu mc;
static struct memplat_mmio io;
static struct pv_pcpu cpu;
static struct pv_vmpam_sys sys;
static struct pv_vmpam_msc_desc desc[NMSC_MAX];
static unsigned nmsc;
static struct pv_vm_mpam *table[NVM];
static struct pv_vmpam_acct acct[NVM * PV_VMPAM_MAX_NODES];
static struct pv_vm_mpam vm[NVM];
static bool live[NVM];
/* Which accounts have read PV_VMPAM_OVERFLOW: that status is sticky until release. */
static bool overflowed[NVM][PV_VMPAM_MAX_NODES];
static struct pv_vcpu vc[NVM];

/* Each MSC's identification: a plausible MSC (PARTID_MAX 63, PMG_MAX 1, MBW_MAX of 8 bits and
 * MBW_MIN, 16 cache portions, 8 MBWU monitors) XOR the fuzzer's words, so that few bytes make
 * a usable machine and any bit can still be flipped. The rest of what an MSC answers (counters,
 * MBWU_CTL, MPAMF_ESR, anything else) comes from the input as it is read. */
enum { ID_AIDR, ID_IDR, ID_IDR_HI, ID_MBW, ID_CPOR, ID_MSMON, ID_MBWUMON, ID_WORDS };
static const uint32_t id_default[ID_WORDS] = {
	[ID_AIDR] = 0x10,
	[ID_IDR] = 63 | 1u << 16 |
		   (uint32_t)(PV_IDR_HAS_MBW_PART | PV_IDR_HAS_CPOR_PART | PV_IDR_HAS_MSMON),
	[ID_MBW] = 8 | (uint32_t)(PV_MBW_IDR_HAS_MAX | PV_MBW_IDR_HAS_MIN),
	[ID_CPOR] = 16,
	[ID_MSMON] = (uint32_t)PV_MSMON_IDR_MSMON_MBWU,
	[ID_MBWUMON] = 8,
};
static uint32_t id_regs[NMSC_MAX][ID_WORDS];

/* What the current operation may do. */
static bool in_setup;                    /* pv_vmpam_init: PART_SEL of PARTID 0 allowed */
static const struct pv_vm_mpam *subject; /* the VM being configured, or NULL */
static const char *op = "setup";
static unsigned counter_reads; /* MSMON_MBWU(_L) reads since the last MON_SEL write */
static bool nrdy_forever;      /* the MSCs answer NRDY to every counter read */

static bool partid_of(const struct pv_vm_mpam *m, unsigned p)
{
	for (unsigned v = 0; v < m->nr_partids; v++)
		if (m->partid[v] == p)
			return true;
	return false;
}

/* The VM in the table (other than `except`) that owns PARTID p, or -1. */
static int owner(unsigned p, const struct pv_vm_mpam *except)
{
	for (unsigned i = 0; i < sys.nvms; i++)
		if (sys.vms[i] != except && partid_of(sys.vms[i], p))
			return (int)i;
	return -1;
}

static int msc_at(uint64_t pa, uint32_t *off)
{
	for (unsigned i = 0; i < nmsc; i++)
		if (pa >= desc[i].base && pa < desc[i].base + MSC_FRAME) {
			*off = (uint32_t)(pa - desc[i].base);
			return (int)i;
		}
	return -1;
}

static uint32_t dev_read(void *dev, uint64_t pa)
{
	(void)dev;
	uint32_t off;
	int i = msc_at(pa, &off);
	FZ_CHECK(i >= 0 && !(pa & 3), "%s: MMIO read of 0x%llx, outside every MSC frame", op,
		 (unsigned long long)pa);
	const uint32_t *id = id_regs[i];
	switch (off) {
	case PV_MPAMF_AIDR:
		return id[ID_AIDR];
	case PV_MPAMF_IDR:
		return id[ID_IDR];
	case PV_MPAMF_IDR + 4:
		return id[ID_IDR_HI];
	case PV_MPAMF_MBW_IDR:
		return id[ID_MBW];
	case PV_MPAMF_CPOR_IDR:
		return id[ID_CPOR];
	case PV_MPAMF_MSMON_IDR:
		return id[ID_MSMON];
	case PV_MPAMF_MBWUMON_IDR:
		return id[ID_MBWUMON];
	default:
		break;
	}
	uint32_t w = fz_u32(&in);
	switch (off) {
	case PV_MSMON_MBWU:
	case PV_MSMON_MBWU_L:
	case PV_MSMON_MBWU_L + 4:
		counter_reads++;
		FZ_CHECK(counter_reads <= 3 * (PV_VMPAM_NRDY_RETRIES + 1) * 2,
			 "%s: monitor counter read %u times for one MON_SEL: NRDY not bounded",
			 op, counter_reads);
		if (nrdy_forever)
			w |= off == PV_MSMON_MBWU_L ? 0 : PV_MBWU_NRDY;
		return w;
	default:
		return w;
	}
}

static void dev_write(void *dev, uint64_t pa, uint32_t val)
{
	(void)dev;
	uint32_t off;
	int i = msc_at(pa, &off);
	FZ_CHECK(i >= 0 && !(pa & 3), "%s: MMIO write of 0x%llx, outside every MSC frame", op,
		 (unsigned long long)pa);
	const struct pv_vmpam_msc *m = &sys.msc[i];
	unsigned p = val & 0xFFFF;
	unsigned ris = (unsigned)PV_FIELD_GET(PV_GENMASK(27, 24), val);
	switch (off) {
	case PV_MPAMCFG_PART_SEL:
		if (in_setup) {
			FZ_CHECK(p == 0, "%s: PART_SEL of PARTID %u while probing", op, p);
			break;
		}
		FZ_CHECK(p >= sys.host_partids,
			 "%s: PART_SEL selects host PARTID %u (host: %u)", op, p,
			 sys.host_partids);
		FZ_CHECK(owner(p, subject) < 0, "%s: PART_SEL selects PARTID %u of VM %d", op,
			 p, owner(p, subject));
		FZ_CHECK(p <= sys.partid_max, "%s: PART_SEL PARTID %u above PARTID_MAX %u", op,
			 p, sys.partid_max);
		FZ_CHECK(m->has_ris ? ris < m->nris : ris == 0, "%s: PART_SEL RIS %u of %u", op,
			 ris, m->nris);
		break;
	case PV_MSMON_CFG_MON_SEL:
		counter_reads = 0;
		if (!in_setup) {
			FZ_CHECK(m->has_ris ? ris < m->nris : ris == 0,
				 "%s: MON_SEL RIS %u of %u", op, ris, m->nris);
			FZ_CHECK(p < m->ris[ris].num_mon,
				 "%s: MON_SEL monitor %u, the RIS has %u", op, p,
				 m->ris[ris].num_mon);
		}
		break;
	case PV_MSMON_CFG_MBWU_FLT:
		FZ_CHECK(p == 0 || owner(p, NULL) >= 0 || (subject && partid_of(subject, p)),
			 "%s: a monitor filters on PARTID %u, which no VM in the table owns",
			 op, p);
		break;
	default:
		break;
	}
}

/* ---- the guest's labels ------------------------------------------------------------------ */

static void check_labels(const struct pv_vm_mpam *m, uint64_t hw, const char *reg)
{
	for (unsigned f = 0; f < 2; f++) {
		unsigned p = (unsigned)(hw >> (16 * f) & 0xFFFF);
		unsigned g = (unsigned)(hw >> (32 + 8 * f) & 0xFF);
		if (m->vpm)
			FZ_CHECK(p < m->nr_partids, "%s: %s holds virtual PARTID %u of %u", op,
				 reg, p, m->nr_partids);
		else
			FZ_CHECK(partid_of(m, p), "%s: %s holds PARTID %u, not the VM's", op,
				 reg, p);
		FZ_CHECK(g <= sys.pmg_max, "%s: %s holds PMG %u > %u", op, reg, g, sys.pmg_max);
	}
	FZ_CHECK(!(hw >> 48), "%s: %s has bits above the labels: 0x%llx", op, reg,
		 (unsigned long long)hw);
}

static void step_guest(unsigned i)
{
	struct pv_vcpu *v = &vc[i];
	uint64_t val = fz_u64(&in);
	uint8_t b = fz_u8(&in);
	op = "guest MPAMn_EL1";
	v->cpu = &cpu;
	/* The handler the trap table calls; an EL0 write never reaches it (the table's EL0
	 * rule for MPAMn_EL1 is UNDEF, applied by the dispatch). */
	const struct pv_reg_desc *d = pv_reg_lookup((b & 1) ? PV_MPAM1_EL1 : PV_MPAM0_EL1);
	unsigned el = (b >> 1) & 1u;
	if (el) {
		enum pv_trap_result r = d->write(v, 0, el, val);
		FZ_CHECK(r == PV_TRAP_HANDLED, "guest MPAMn_EL1: EL1 write answered %d",
			 (int)r);
	} else {
		FZ_CHECK(d->el0_write == PV_EL0_UNDEF, "guest MPAMn_EL1: EL0 writes allowed");
	}
	pv_vmpam_load(v);
	const struct pv_vm_mpam *m = &vm[i];
	check_labels(m, *memplat_reg(&mc, PV_MPAM1_EL1), "MPAM1_EL1");
	check_labels(m, *memplat_reg(&mc, PV_MPAM0_EL1), "MPAM0_EL1");
	if (m->vpm) {
		uint64_t vpmv = *memplat_reg(&mc, PV_MPAMVPMV_EL2);
		uint64_t want = m->nr_partids >= 32 ? 0xFFFFFFFFu
						    : (UINT64_C(1) << m->nr_partids) - 1;
		FZ_CHECK(vpmv == want, "%s: MPAMVPMV_EL2 0x%llx for %u PARTIDs", op,
			 (unsigned long long)vpmv, m->nr_partids);
		for (unsigned n = 0; n < m->el2.nvpm; n++) {
			uint64_t e = *memplat_reg(&mc, PV_MPAMVPM_EL2(n));
			for (unsigned k = 0; k < 4; k++)
				FZ_CHECK(partid_of(m, (unsigned)(e >> (16 * k) & 0xFFFF)),
					 "%s: MPAMVPM%u_EL2 maps to PARTID %u, not the VM's",
					 op, n, (unsigned)(e >> (16 * k) & 0xFFFF));
		}
	}
	v->cpu = NULL;
}

/* ---- VMs ---------------------------------------------------------------------------------- */

static void config(struct pv_vmpam_config *c)
{
	*c = (struct pv_vmpam_config){0};
	uint8_t b = fz_u8(&in);
	c->nr_partids = b == 0xFF ? 33 : b % 9;
	uint8_t which = fz_u8(&in);
	for (unsigned n = 0; n < PV_VMPAM_MAX_NODES; n++)
		if (which >> n & 1)
			c->mbw_max[n] = fz_u8(&in) % 110;
	uint8_t caches = fz_u8(&in);
	for (unsigned n = 0; n < PV_VMPAM_MAX_CACHES; n++)
		if (caches >> n & 1)
			c->cpbm[n] = fz_u64(&in) >> (fz_u8(&in) & 63);
}

static void check_table(void)
{
	for (unsigned i = 0; i < NVM; i++) {
		if (!live[i])
			continue;
		FZ_CHECK(vm[i].sys == &sys && sys.vms[vm[i].index] == &vm[i],
			 "%s: VM %u lost from the table", op, i);
		for (unsigned v = 0; v < vm[i].nr_partids; v++) {
			unsigned p = vm[i].partid[v];
			FZ_CHECK(p >= sys.host_partids && p <= sys.partid_max,
				 "%s: VM %u got PARTID %u (host %u, max %u)", op, i, p,
				 sys.host_partids, sys.partid_max);
			FZ_CHECK(owner(p, &vm[i]) < 0, "%s: PARTID %u given to two VMs", op, p);
			for (unsigned w = 0; w < v; w++)
				FZ_CHECK(vm[i].partid[w] != p, "%s: VM %u has PARTID %u twice",
					 op, i, p);
		}
	}
}

static void step_init(unsigned i)
{
	struct pv_vmpam_config c;
	config(&c);
	bool visible = fz_u8(&in) & 1;
	if (live[i])
		return;
	op = "pv_vmpam_partition_init";
	subject = &vm[i];
	memset(&vm[i], 0, sizeof(vm[i]));
	int err = pv_vmpam_partition_init(&sys, &cpu, &vm[i], &c, visible);
	subject = NULL;
	FZ_CHECK(err <= 0 && (!err || pv_vmpam_strerror(err) != NULL), "%s: %d", op, err);
	if (err)
		return;
	live[i] = true;
	memset(overflowed[i], 0, sizeof(overflowed[i]));
	pv_vmpam_vcpu_attach(&vc[i].mpam, &vm[i]);
}

static void step_limits(unsigned i)
{
	struct pv_vmpam_config c;
	config(&c);
	if (!live[i])
		return;
	op = "pv_vmpam_vm_set_limits";
	subject = &vm[i];
	int err = pv_vmpam_vm_set_limits(&sys, &cpu, &vm[i], &c);
	subject = NULL;
	FZ_CHECK(err <= 0, "%s: %d", op, err);
}

static void step_release(unsigned i)
{
	if (!live[i])
		return;
	op = "pv_vmpam_partition_release";
	subject = &vm[i];
	pv_vmpam_partition_release(&sys, &cpu, &vm[i]);
	subject = NULL;
	live[i] = false;
	for (unsigned v = 0; v < vm[i].nr_partids; v++)
		FZ_CHECK(!(sys.partid_used[vm[i].partid[v] / 64] >> (vm[i].partid[v] % 64) & 1),
			 "%s: PARTID %u not freed", op, vm[i].partid[v]);
}

static void step_tick(void)
{
	uint64_t dt = (uint64_t)fz_u32(&in) * 64;
	nrdy_forever = (fz_u8(&in) & 7) == 7;
	op = "pv_vmpam_tick";
	pv_vmpam_tick(&sys, &cpu, sys.now + dt);
	nrdy_forever = false;
	for (unsigned i = 0; i < NVM; i++) {
		if (!live[i])
			continue;
		for (unsigned n = 0; n < sys.nnodes; n++) {
			struct pv_vmpam_reading r;
			int st = pv_vmpam_read(&sys, &vm[i], n, &r);
			FZ_CHECK(st == r.status && st >= PV_VMPAM_MEASURED &&
					 st <= PV_VMPAM_OVERFLOW,
				 "pv_vmpam_read: status %d", st);
			FZ_CHECK(!overflowed[i][n] || st == PV_VMPAM_OVERFLOW,
				 "pv_vmpam_read: status %d after OVERFLOW", st);
			overflowed[i][n] = st == PV_VMPAM_OVERFLOW;
			if (st == PV_VMPAM_NOT_READY || st == PV_VMPAM_NO_DATA ||
			    st == PV_VMPAM_OVERFLOW)
				FZ_CHECK(!r.bytes && !r.bound,
					 "pv_vmpam_read: status %d with bytes %llu, bound %llu",
					 st, (unsigned long long)r.bytes,
					 (unsigned long long)r.bound);
			FZ_CHECK(r.at_ns == sys.now, "pv_vmpam_read: reading for another tick");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in = (struct fz){data, size};
	memplat_init(&mc, 6);
	io = (struct memplat_mmio){.dev_read = dev_read, .dev_write = dev_write};
	mc.mmio = &io;
	pv_pcpu_init(&cpu, &mc);
	memset(live, 0, sizeof(live));

	uint8_t b = fz_u8(&in);
	nmsc = 1 + b % NMSC_MAX;
	for (unsigned i = 0; i < nmsc; i++) {
		uint8_t d = fz_u8(&in);
		desc[i] = (struct pv_vmpam_msc_desc){
			.base = MSC_BASE + i * MSC_STRIDE,
			.kind = (d & 1) ? PV_VMPAM_MSC_CACHE : PV_VMPAM_MSC_MEMORY,
			.id = (uint8_t)((d >> 1) & 3),
			.nrdy_ns = (uint32_t)(d >> 3) * 1000,
		};
		/* A bitmap says which words differ from the plausible MSC. */
		uint8_t which = fz_u8(&in);
		for (unsigned k = 0; k < ID_WORDS; k++)
			id_regs[i][k] = id_default[k] ^ (which >> k & 1 ? fz_u32(&in) : 0);
	}
	/* MPAMIDR_EL1 of the pCPUs: PARTID_MAX 63, PMG_MAX 1, HAS_HCR with 2 VPM registers. */
	const uint64_t mpamidr = 63 | PV_MPAMIDR_HAS_HCR |
				 PV_FIELD_PREP(PV_MPAMIDR_VPMR_MAX, 1) |
				 PV_FIELD_PREP(PV_MPAMIDR_PMG_MAX, 1);
	uint64_t idr[2] = {mpamidr ^ fz_u64(&in), mpamidr ^ fz_u64(&in)};
	uint8_t h = fz_u8(&in);
	struct pv_vmpam_setup s = {
		.msc = desc,
		.nmsc = nmsc,
		.cpu_mpamidr = idr,
		.ncpus = 1 + (h & 1),
		.host_partids = (h >> 1) & 7,
		.mons_per_node = (h >> 4),
		.vms = table,
		.max_vms = NVM,
		.acct = acct,
		.nacct = (size_t)NVM * PV_VMPAM_MAX_NODES,
	};
	FZ_CHECK(pv_vmpam_acct_entries(&s) <= s.nacct, "pv_vmpam_acct_entries: %zu",
		 pv_vmpam_acct_entries(&s));
	op = "pv_vmpam_init";
	in_setup = true;
	int err = pv_vmpam_init(&sys, &cpu, &s);
	in_setup = false;
	if (err) {
		FZ_CHECK(err < 0 && pv_vmpam_strerror(err) != NULL, "pv_vmpam_init: %d", err);
		return 0;
	}
	FZ_CHECK(sys.host_partids >= 1 && sys.host_partids <= sys.partid_max,
		 "pv_vmpam_init: host PARTIDs %u, PARTID_MAX %u", sys.host_partids,
		 sys.partid_max);

	unsigned steps = 0;
	while (fz_left(&in) && steps++ < 512) {
		uint8_t o = fz_u8(&in);
		unsigned i = (o >> 4) % NVM;
		switch (o % 8) {
		case 0:
			step_init(i);
			break;
		case 1:
			step_limits(i);
			break;
		case 2:
			step_release(i);
			break;
		case 3:
		case 4:
			step_tick();
			break;
		case 5:
			if (live[i])
				step_guest(i);
			break;
		default:
			step_init(i);
			break;
		}
		check_table();
	}
	return 0;
}
