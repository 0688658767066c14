/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trap: the trap entry and the vCPU switch against adversarial guests and odd hardware.
 *
 * The first bytes describe the machine (counters, counters kept by the host, PMU version, EL3,
 * Secure EL2, RME, AMU, FGT: the ID registers pv_hw_probe reads) and two VMs of one or two
 * vCPUs (features, PMU version, counters, event filter, AMU). The rest is a sequence of steps
 * on two pCPUs: traps with arbitrary syndromes, Rt, values and exception levels; vCPU loads
 * and puts; PMU interrupts; hardware that counts and overflows under the library's feet.
 *
 * The hardware is tests/support/memplat (plain memory), with the SET/CLR bitmap registers
 * given their architected behaviour here. Every platform call the library makes goes through
 * the --wrap'ed pv_plat_* below, which check it as it happens; after every step the state is
 * checked as a whole. The invariants (docs/security.md):
 *   - host counters [HPMN, N): never read or written; their PMCNTEN, PMINTEN and PMOVS bits
 *     never changed by the library; their cells hold what the host put there;
 *   - every physical PMEVTYPER<n>/PMCCFILTR the library writes counts at most Non-secure EL1
 *     and EL0: NSH = SH = M = RLK = RLU = RLH = MT = T = 0, thresholds 0; with EL3, P = U = 1
 *     (no Secure EL1/EL0, no EL3); an event it counts is one the VM's filter allows and not
 *     the software-counted SW_INCR or CHAIN;
 *   - physical PMCR never gets P or C (they would reset the host's counters at EL2), PMSWINC,
 *     PMSELR and PMXEV* are never written, PMUSERENR is EN alone, nothing outside the PMU and
 *     AMU registers is written;
 *   - a call reaches only the pCPU of the vCPU it concerns (none for a vCPU not loaded), and
 *     changes no other vCPU and no VM (struct pv_vm is never written after pv_vm_init);
 *   - a trap writes the guest's registers only for a handled read, and only x[Rt];
 *   - counters >= N are UNDEF (never handled), registers of a feature the VM lacks UNDEF, an
 *     EL1 access never gets "trap to EL1", a syndrome that is not EC 0x18 is never handled;
 *   - guest-visible reads: PMCR.N is the VM's N, P and C read 0, bitmaps stay in [0, N) + 31;
 *   - the virtual PMU interrupt is high exactly when PMCR.E && (PMINTEN & PMOVS);
 *   - pv_irq says HOST_PENDING exactly when host counters overflowed, and leaves their flags;
 *   - a put or a load loses no count (with no overflow pending in hardware, every counter
 *     reads the same before and after).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "memplat.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"

#define NCPU 2
#define NVM 2
#define NVCPU 2

static struct memplat_cpu mc[NCPU];
static struct pv_pcpu cpu[NCPU];
static struct pv_hw hw;
static struct pv_vm vm[NVM], vm_snap[NVM];
static bool vm_ok[NVM];
static struct memplat_vcpu mv[NVM][NVCPU];
static struct pv_vcpu vc[NVM][NVCPU];
static unsigned nvcpu[NVM];

/* What the host put in its counters, per pCPU. */
static uint32_t host_mask;  /* bits [HPMN, N) */
static uint32_t guest_bits; /* bits [0, HPMN) and 31 */
static uint32_t host_en[NCPU], host_inten[NCPU], host_ovs[NCPU];
static uint64_t host_cnt[NCPU][31], host_typ[NCPU][31];

/* The platform calls allowed during the current library call. */
static bool checking;
static struct pv_pcpu *allow_cpu[2];
static struct pv_vcpu *allow_vcpu[2];
static const char *step_name = "setup";

#define CELL(c, key) (*memplat_reg(&mc[c], (key)))
#define EVT_FILTER (PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU)

/* The names ld --wrap gives: reserved identifiers, by the linker's convention. */
/* NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
uint64_t __real_pv_plat_sysreg_read(struct pv_pcpu *c, uint32_t reg);
void __real_pv_plat_sysreg_write(struct pv_pcpu *c, uint32_t reg, uint64_t val);
void __real_pv_plat_virq_set(struct pv_vcpu *v, uint32_t intid, bool level);
uint64_t __wrap_pv_plat_sysreg_read(struct pv_pcpu *c, uint32_t reg);
void __wrap_pv_plat_sysreg_write(struct pv_pcpu *c, uint32_t reg, uint64_t val);
void __wrap_pv_plat_virq_set(struct pv_vcpu *v, uint32_t intid, bool level);
/* NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */

/* Snapshots are byte copies (memcpy), compared byte for byte: a call that must not touch an
 * object leaves even its padding alone. */
static bool unchanged(const void *now, const void *snap, size_t n)
{
	return memcmp(now, snap, n) == 0;
}

static unsigned cpu_index(const struct pv_pcpu *c)
{
	for (unsigned i = 0; i < NCPU; i++)
		if (c == &cpu[i])
			return i;
	FZ_CHECK(0, "%s: a platform call names no pCPU of the machine", step_name);
	return 0;
}

static void check_cpu_allowed(const struct pv_pcpu *c, uint32_t reg)
{
	if (!checking)
		return;
	FZ_CHECK(c == allow_cpu[0] || c == allow_cpu[1],
		 "%s: register 0x%x accessed on pCPU %u, which the call does not concern",
		 step_name, reg, cpu_index(c));
}

static bool pmev(uint32_t key, unsigned *n, bool *typer)
{
	if ((key & PV_PMEV_FAMILY_MASK) != PV_PMEV_FAMILY_KEY)
		return false;
	*n = PV_PMEV_INDEX(key);
	*typer = PV_PMEV_IS_TYPER(key);
	return true;
}

uint64_t __wrap_pv_plat_sysreg_read(struct pv_pcpu *c, uint32_t reg)
{
	unsigned n;
	bool typer;
	check_cpu_allowed(c, reg);
	if (checking && pmev(reg, &n, &typer) && n < 31)
		FZ_CHECK(n < hw.hpmn, "%s: read of host counter %u (%s), HPMN %u", step_name, n,
			 typer ? "PMEVTYPER" : "PMEVCNTR", hw.hpmn);
	return __real_pv_plat_sysreg_read(c, reg);
}

/* A physical event type or cycle filter the library writes, loaded VM `ovm` (or none). */
static void check_type(uint64_t val, const struct pv_vm *ovm, bool ccfiltr, unsigned n)
{
	uint64_t allowed = EVT_FILTER | (ccfiltr ? 0 : PV_PMEVTYPER_EVT_V3P1);
	FZ_CHECK(!(val & ~allowed),
		 "%s: physical %s%u = 0x%llx has bits beyond P, U, NSK, NSU and evtCount (NSH, "
		 "M, "
		 "SH, RL*, MT, T, thresholds: EL2/EL3/Secure/Realm counting)",
		 step_name, ccfiltr ? "PMCCFILTR" : "PMEVTYPER", n, (unsigned long long)val);
	bool el1, el0;
	if (hw.el3) {
		FZ_CHECK((val & (PV_PMEVTYPER_P | PV_PMEVTYPER_U)) ==
				 (PV_PMEVTYPER_P | PV_PMEVTYPER_U),
			 "%s: with EL3, physical type 0x%llx leaves P or U clear: Secure "
			 "EL1/EL0 "
			 "(or EL3, M == P) counted",
			 step_name, (unsigned long long)val);
		el1 = val & PV_PMEVTYPER_NSK;
		el0 = val & PV_PMEVTYPER_NSU;
	} else {
		FZ_CHECK(!(val & (PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU)),
			 "%s: NSK/NSU set without EL3: 0x%llx", step_name,
			 (unsigned long long)val);
		el1 = !(val & PV_PMEVTYPER_P);
		el0 = !(val & PV_PMEVTYPER_U);
	}
	if (!ovm || !(el1 || el0))
		return;
	if (ccfiltr) {
		FZ_CHECK(pv_vpmu_event_allowed(ovm, PV_EVT_CPU_CYCLES),
			 "%s: the cycle counter counts although the VM's filter denies "
			 "CPU_CYCLES",
			 step_name);
		return;
	}
	uint32_t e = (uint32_t)(val & PV_PMEVTYPER_EVT_V3P1);
	FZ_CHECK(e <= ovm->pmu.event_mask && e != PV_EVT_SW_INCR && e != PV_EVT_CHAIN &&
			 pv_vpmu_event_allowed(ovm, e),
		 "%s: physical PMEVTYPER%u counts event 0x%x, which the VM may not count in "
		 "hardware",
		 step_name, n, e);
}

/* The SET/CLR pairs: one state, read through either register. */
static bool bitmap_pair(uint32_t reg, uint32_t *set, bool *is_set)
{
	switch (reg) {
	case PV_PMCNTENSET_EL0:
		*set = PV_PMCNTENSET_EL0;
		*is_set = true;
		return true;
	case PV_PMCNTENCLR_EL0:
		*set = PV_PMCNTENSET_EL0;
		*is_set = false;
		return true;
	case PV_PMINTENSET_EL1:
		*set = PV_PMINTENSET_EL1;
		*is_set = true;
		return true;
	case PV_PMINTENCLR_EL1:
		*set = PV_PMINTENSET_EL1;
		*is_set = false;
		return true;
	case PV_PMOVSSET_EL0:
		*set = PV_PMOVSSET_EL0;
		*is_set = true;
		return true;
	case PV_PMOVSCLR_EL0:
		*set = PV_PMOVSSET_EL0;
		*is_set = false;
		return true;
	default:
		return false;
	}
}

static uint32_t clr_of(uint32_t set)
{
	return set == PV_PMCNTENSET_EL0   ? PV_PMCNTENCLR_EL0
	       : set == PV_PMINTENSET_EL1 ? PV_PMINTENCLR_EL1
					  : PV_PMOVSCLR_EL0;
}

/* Stores a bitmap state in both registers of its pair. */
static void bitmap_store(struct pv_pcpu *c, uint32_t set, uint64_t state)
{
	__real_pv_plat_sysreg_write(c, set, state);
	__real_pv_plat_sysreg_write(c, clr_of(set), state);
}

void __wrap_pv_plat_sysreg_write(struct pv_pcpu *c, uint32_t reg, uint64_t val)
{
	check_cpu_allowed(c, reg);
	const struct pv_vcpu *owner = c->loaded;
	const struct pv_vm *ovm = owner ? owner->vm : NULL;
	unsigned n;
	bool typer, is_set;
	uint32_t set;
	if (!checking) {
		__real_pv_plat_sysreg_write(c, reg, val);
		return;
	}
	if (pmev(reg, &n, &typer)) {
		FZ_CHECK(typer || n < 31, "%s: write to the PMEVCNTR31 hole", step_name);
		if (n < 31) {
			FZ_CHECK(n < hw.hpmn, "%s: write to host counter %u (%s), HPMN %u",
				 step_name, n, typer ? "PMEVTYPER" : "PMEVCNTR", hw.hpmn);
			FZ_CHECK(!ovm || n < ovm->pmu.nr_counters,
				 "%s: write to counter %u, beyond the loaded VM's N = %u",
				 step_name, n, ovm ? ovm->pmu.nr_counters : 0u);
		}
		if (typer)
			check_type(val, ovm, n == 31, n);
		__real_pv_plat_sysreg_write(c, reg, val);
		return;
	}
	if (bitmap_pair(reg, &set, &is_set)) {
		FZ_CHECK(!(val & ~(uint64_t)guest_bits),
			 "%s: bitmap write 0x%llx to 0x%x touches bits outside the guests' [0, "
			 "HPMN) "
			 "and 31 (host mask 0x%x)",
			 step_name, (unsigned long long)val, reg, host_mask);
		if (ovm && is_set && set != PV_PMOVSSET_EL0)
			FZ_CHECK(!(val & ~(uint64_t)ovm->pmu.counter_mask),
				 "%s: enable 0x%llx beyond the loaded VM's counters 0x%x",
				 step_name, (unsigned long long)val, ovm->pmu.counter_mask);
		uint64_t state = __real_pv_plat_sysreg_read(c, set);
		bitmap_store(c, set, is_set ? state | val : state & ~val);
		return;
	}
	switch (reg) {
	case PV_PMCR_EL0:
		FZ_CHECK(!(val &
			   ~(PV_PMCR_E | PV_PMCR_D | PV_PMCR_DP | PV_PMCR_LC | PV_PMCR_LP)),
			 "%s: physical PMCR write 0x%llx: P or C reset the host's counters at "
			 "EL2, "
			 "other bits are not the guest's",
			 step_name, (unsigned long long)val);
		break;
	case PV_PMUSERENR_EL0:
		FZ_CHECK(val == PV_PMUSERENR_EN, "%s: physical PMUSERENR 0x%llx, not EN alone",
			 step_name, (unsigned long long)val);
		break;
	case PV_PMCCNTR_EL0:
		break;
	case PV_PMSWINC_EL0:
	case PV_PMSELR_EL0:
	case PV_PMXEVCNTR_EL0:
	case PV_PMXEVTYPER_EL0:
		FZ_CHECK(0, "%s: physical write to 0x%x (PMSWINC, PMSELR or PMXEV*)", step_name,
			 reg);
		break;
	default:
		/* The AMU: Op0 = 3, Op1 = 3 (EL0 registers) or 4 (the EL2 offsets), CRn = 13. */
		FZ_CHECK(PV_SYSREG_OP0(reg) == 3 && PV_SYSREG_CRN(reg) == 13 &&
				 (PV_SYSREG_OP1(reg) == 3 || PV_SYSREG_OP1(reg) == 4),
			 "%s: write to register 0x%x, outside the PMU and the AMU", step_name,
			 reg);
		break;
	}
	__real_pv_plat_sysreg_write(c, reg, val);
}

void __wrap_pv_plat_virq_set(struct pv_vcpu *v, uint32_t intid, bool level)
{
	if (checking) {
		FZ_CHECK(intid == PV_INTID_PMU, "%s: virtual interrupt %u driven", step_name,
			 intid);
		FZ_CHECK(
			v == allow_vcpu[0] || v == allow_vcpu[1],
			"%s: the interrupt line of a vCPU the call does not concern was driven",
			step_name);
	}
	__real_pv_plat_virq_set(v, intid, level);
}

/* ---- the machine ------------------------------------------------------------------------ */

static void allow(struct pv_pcpu *c0, struct pv_pcpu *c1, struct pv_vcpu *v0,
		  struct pv_vcpu *v1)
{
	allow_cpu[0] = c0;
	allow_cpu[1] = c1;
	allow_vcpu[0] = v0;
	allow_vcpu[1] = v1;
}

static void check_host(void)
{
	for (unsigned c = 0; c < NCPU; c++) {
		for (unsigned n = hw.hpmn; n < hw.pmu_counters; n++) {
			FZ_CHECK(CELL(c, PV_PMEVCNTR_EL0(n)) == host_cnt[c][n] &&
					 CELL(c, PV_PMEVTYPER_EL0(n)) == host_typ[c][n],
				 "%s: host counter %u of pCPU %u changed", step_name, n, c);
		}
		FZ_CHECK((CELL(c, PV_PMCNTENSET_EL0) & host_mask) == host_en[c] &&
				 (CELL(c, PV_PMINTENSET_EL1) & host_mask) == host_inten[c] &&
				 (CELL(c, PV_PMOVSSET_EL0) & host_mask) == host_ovs[c],
			 "%s: host bits of PMCNTEN/PMINTEN/PMOVS of pCPU %u changed", step_name,
			 c);
	}
}

/* Everything about every vCPU that holds after any step. */
static void check_vcpus(void)
{
	for (unsigned i = 0; i < NVM; i++) {
		if (!vm_ok[i])
			continue;
		FZ_CHECK(unchanged(&vm[i], &vm_snap[i], sizeof(vm[i])),
			 "%s: struct pv_vm %u written after pv_vm_init", step_name, i);
		for (unsigned j = 0; j < nvcpu[i]; j++) {
			const struct pv_vcpu *v = &vc[i][j];
			const struct pv_vpmu *s = &v->pmu;
			bool level = (s->pmcr & PV_PMCR_E) && (s->inten & s->ovs);
			FZ_CHECK(s->irq_level == level && mv[i][j].line[PV_INTID_PMU] == level,
				 "%s: vCPU %u.%u interrupt line %d, architected level %d",
				 step_name, i, j, mv[i][j].line[PV_INTID_PMU], level);
			uint32_t mask = vm[i].pmu.counter_mask;
			FZ_CHECK(!(s->cnten & ~mask) && !(s->inten & ~mask) &&
					 !(s->ovs & ~mask),
				 "%s: vCPU %u.%u bitmaps beyond its counters", step_name, i, j);
			FZ_CHECK(!v->cpu || v->cpu->loaded == v,
				 "%s: vCPU %u.%u load links broken", step_name, i, j);
		}
	}
	for (unsigned c = 0; c < NCPU; c++)
		FZ_CHECK(!cpu[c].loaded || cpu[c].loaded->cpu == &cpu[c],
			 "%s: pCPU %u load links broken", step_name, c);
}

/* ---- steps ------------------------------------------------------------------------------- */

static const uint32_t keys[] = {
	PV_PMCR_EL0,        PV_PMCNTENSET_EL0,  PV_PMCNTENCLR_EL0,  PV_PMOVSCLR_EL0,
	PV_PMSWINC_EL0,     PV_PMSELR_EL0,      PV_PMCEID0_EL0,     PV_PMCEID1_EL0,
	PV_PMCCNTR_EL0,     PV_PMXEVTYPER_EL0,  PV_PMXEVCNTR_EL0,   PV_PMUSERENR_EL0,
	PV_PMINTENSET_EL1,  PV_PMINTENCLR_EL1,  PV_PMOVSSET_EL0,    PV_PMMIR_EL1,
	PV_PMCCFILTR_EL0,   PV_AMCR_EL0,        PV_AMCFGR_EL0,      PV_AMCGCR_EL0,
	PV_AMUSERENR_EL0,   PV_AMCNTENCLR0_EL0, PV_AMCNTENSET0_EL0, PV_AMCG1IDR_EL0,
	PV_AMCNTENCLR1_EL0, PV_AMCNTENSET1_EL0, PV_MPAMIDR_EL1,     PV_MPAM0_EL1,
	PV_MPAM1_EL1,       PV_MPAMSM_EL1,      PV_PMSCR_EL1,       PV_PMSIDR_EL1,
	PV_PMBLIMITR_EL1,   PV_PMBSR_EL1,       PV_ID_AA64DFR0_EL1, PV_ID_AA64PFR0_EL1,
	PV_ID_DFR0_EL1,     PV_MDCR_EL2,
};

static uint32_t pick_key(struct fz *f)
{
	uint8_t s = fz_u8(f);
	uint8_t a = fz_u8(f);
	switch (s % 8) {
	case 0:
	case 1:
		return PV_PMEVCNTR_EL0(a & 31);
	case 2:
		return PV_PMEVTYPER_EL0(a & 31);
	case 3:
		return PV_AMEVCNTR0_EL0(a & 15) + ((a & 16) ? PV_SYSREG(0, 0, 0, 2, 0) : 0);
	case 4:
		return PV_SYSREG(3, 0, 0, a & 7, (a >> 3) & 7); /* the ID group and around */
	case 5:
		return (uint32_t)(a | (uint32_t)fz_u16(f) << 8) & PV_ISS_SYS_KEY_MASK;
	default:
		return keys[a % (sizeof(keys) / sizeof(keys[0]))];
	}
}

static struct pv_vcpu *pick_vcpu(struct fz *f, unsigned *vmi)
{
	uint8_t b = fz_u8(f);
	unsigned i = b % NVM, j = (b >> 1) % NVCPU;
	if (!vm_ok[i])
		i ^= 1;
	if (!vm_ok[i])
		return NULL;
	*vmi = i;
	return &vc[i][j % nvcpu[i]];
}

static void snapshot_others(const struct pv_vcpu *a, const struct pv_vcpu *b,
			    struct pv_vcpu out[NVM][NVCPU])
{
	memcpy(out, vc, sizeof(vc));
	(void)a, (void)b;
}

static void check_others(const struct pv_vcpu *a, const struct pv_vcpu *b,
			 struct pv_vcpu before[NVM][NVCPU])
{
	for (unsigned i = 0; i < NVM; i++)
		for (unsigned j = 0; j < nvcpu[i]; j++) {
			const struct pv_vcpu *v = &vc[i][j];
			if (!vm_ok[i] || v == a || v == b)
				continue;
			FZ_CHECK(unchanged(v, &before[i][j], sizeof(*v)),
				 "%s: vCPU %u.%u changed by a call that does not concern it",
				 step_name, i, j);
		}
}

static void step_trap(struct fz *f)
{
	unsigned vi;
	struct pv_vcpu *v = pick_vcpu(f, &vi);
	uint32_t key = pick_key(f);
	uint8_t b = fz_u8(f);
	unsigned rt = b & 31;
	bool read = b & 32;
	unsigned el = (b >> 6) & 1;
	uint64_t val = fz_u64(f);
	uint8_t odd = fz_u8(f);
	if (!v)
		return;
	uint64_t esr = ((uint64_t)PV_EC_SYS64 << PV_ESR_EC_SHIFT) | PV_ESR_IL | key |
		       ((uint64_t)rt << PV_ISS_SYS_RT_SHIFT) | (read ? PV_ISS_SYS_DIR_READ : 0);
	if (odd == 0xEC) /* another exception class */
		esr = (esr & ~((uint64_t)0x3F << PV_ESR_EC_SHIFT)) |
		      ((uint64_t)(fz_u8(f) & 0x3F) << PV_ESR_EC_SHIFT);
	else if (odd == 0x15) /* ISS2 and RES0 bits above 31 */
		esr |= (uint64_t)fz_u32(f) << 32;
	bool sys64 = PV_ESR_EC(esr) == PV_EC_SYS64;

	uint64_t x[31], x0[31];
	for (unsigned i = 0; i < 31; i++)
		x[i] = UINT64_C(0x5A5A000000000000) | i;
	if (rt < 31)
		x[rt] = val;
	memcpy(x0, x, sizeof(x));
	uint8_t selr = v->pmu.selr;
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(v, NULL, before);

	step_name = "pv_trap";
	allow(v->cpu, NULL, v, NULL);
	enum pv_trap_result r = pv_trap(v, esr, el, x);
	allow(NULL, NULL, NULL, NULL);

	FZ_CHECK(r == PV_TRAP_HANDLED || r == PV_TRAP_UNDEF || r == PV_TRAP_EL1_SYSREG ||
			 r == PV_TRAP_UNKNOWN,
		 "pv_trap: result %d", (int)r);
	FZ_CHECK(sys64 || r == PV_TRAP_UNKNOWN, "pv_trap: EC 0x%x answered %d", PV_ESR_EC(esr),
		 (int)r);
	FZ_CHECK(el == 0 || r != PV_TRAP_EL1_SYSREG,
		 "pv_trap: EL1 access answered trap-to-EL1");
	for (unsigned i = 0; i < 31; i++)
		FZ_CHECK(x[i] == x0[i] || (r == PV_TRAP_HANDLED && read && i == rt),
			 "pv_trap: x%u changed (key 0x%x, %s, result %d)", i, key,
			 read ? "read" : "write", (int)r);
	check_others(v, NULL, before);

	const struct pv_vm *m = v->vm;
	const struct pv_reg_desc *d = pv_reg_lookup(key);
	bool has_pmu = m->cfg.features & PV_FEAT_PMU;
	unsigned n, N = m->pmu.nr_counters;
	bool typer;
	if (sys64 && d && d->kind == PV_KIND_PMU && !has_pmu)
		FZ_CHECK(r == PV_TRAP_UNDEF,
			 "pv_trap: PMU register 0x%x of a VM without a PMU: %d", key, (int)r);
	if (sys64 && pmev(key, &n, &typer) && n < 31 && n >= N)
		FZ_CHECK(r != PV_TRAP_HANDLED, "pv_trap: %s%u handled with N = %u",
			 typer ? "PMEVTYPER" : "PMEVCNTR", n, N);
	if (sys64 && (key == PV_PMXEVCNTR_EL0 || (key == PV_PMXEVTYPER_EL0 && selr != 31)) &&
	    selr >= N)
		FZ_CHECK(r != PV_TRAP_HANDLED, "pv_trap: PMXEV* handled with SEL %u, N = %u",
			 selr, N);
	if (r == PV_TRAP_HANDLED && read && rt < 31 && has_pmu) {
		uint64_t got = x[rt];
		uint32_t mask = m->pmu.counter_mask;
		switch (key) {
		case PV_PMCR_EL0:
			FZ_CHECK(PV_FIELD_GET(PV_PMCR_N, got) == N &&
					 !(got & (PV_PMCR_P | PV_PMCR_C)),
				 "pv_trap: PMCR reads 0x%llx, N = %u", (unsigned long long)got,
				 N);
			break;
		case PV_PMCNTENSET_EL0:
		case PV_PMCNTENCLR_EL0:
		case PV_PMINTENSET_EL1:
		case PV_PMINTENCLR_EL1:
		case PV_PMOVSSET_EL0:
		case PV_PMOVSCLR_EL0:
			FZ_CHECK(!(got & ~(uint64_t)mask),
				 "pv_trap: bitmap 0x%x reads 0x%llx, N = %u", key,
				 (unsigned long long)got, N);
			break;
		case PV_PMSELR_EL0:
			FZ_CHECK(got <= 31, "pv_trap: PMSELR reads 0x%llx",
				 (unsigned long long)got);
			break;
		default:
			break;
		}
	}
}

/* Counter values of a vCPU as the operator sees them (platform reads allowed on its pCPU). */
static void counters_of(struct pv_vcpu *v, uint64_t out[32])
{
	allow(v->cpu, NULL, v, NULL);
	bool was = checking;
	checking = true;
	for (unsigned k = 0; k < 32; k++)
		out[k] = pv_vpmu_counter(v, k);
	checking = was;
	allow(NULL, NULL, NULL, NULL);
}

static bool overflow_pending(const struct pv_vcpu *v)
{
	if (!v->cpu)
		return false;
	return (CELL(cpu_index(v->cpu), PV_PMOVSSET_EL0) & v->vm->pmu.counter_mask) != 0;
}

static void step_load(struct fz *f)
{
	unsigned vi;
	struct pv_vcpu *v = pick_vcpu(f, &vi);
	struct pv_pcpu *c = &cpu[fz_u8(f) % NCPU];
	if (!v)
		return;
	uint64_t a[32], b[32];
	bool exact = !overflow_pending(v) && !(c->loaded && overflow_pending(c->loaded));
	counters_of(v, a);
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(v, c->loaded, before);
	step_name = "pv_vcpu_load";
	allow(c, v->cpu, v, c->loaded);
	struct pv_vcpu *prev = c->loaded;
	pv_vcpu_load(v, c);
	allow(NULL, NULL, NULL, NULL);
	check_others(v, prev, before);
	FZ_CHECK(v->cpu == c && c->loaded == v, "pv_vcpu_load: not loaded");
	counters_of(v, b);
	if (exact)
		FZ_CHECK(unchanged(a, b, sizeof(a)),
			 "pv_vcpu_load: a counter changed across the load");
}

static void step_put(struct fz *f)
{
	unsigned vi;
	struct pv_vcpu *v = pick_vcpu(f, &vi);
	if (!v)
		return;
	uint64_t a[32], b[32];
	bool exact = !overflow_pending(v);
	counters_of(v, a);
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(v, NULL, before);
	step_name = "pv_vcpu_put";
	allow(v->cpu, NULL, v, NULL);
	struct pv_pcpu *was = v->cpu;
	pv_vcpu_put(v);
	allow(NULL, NULL, NULL, NULL);
	check_others(v, NULL, before);
	FZ_CHECK(!v->cpu && (!was || !was->loaded), "pv_vcpu_put: still loaded");
	if (was && v->pmu.active) {
		unsigned c = cpu_index(was);
		FZ_CHECK(!(CELL(c, PV_PMCNTENSET_EL0) & v->vm->pmu.counter_mask),
			 "pv_vcpu_put: guest counters left enabled on pCPU %u", c);
		FZ_CHECK(!(CELL(c, PV_PMOVSSET_EL0) & v->vm->pmu.counter_mask),
			 "pv_vcpu_put: guest overflow left pending on pCPU %u", c);
	}
	counters_of(v, b);
	if (exact)
		FZ_CHECK(unchanged(a, b, sizeof(a)),
			 "pv_vcpu_put: a counter changed across the put");
}

static void step_irq(struct fz *f)
{
	unsigned ci = fz_u8(f) % NCPU;
	uint8_t b = fz_u8(f);
	uint32_t intid = b < 0xF0 ? PV_INTID_PMU : b;
	struct pv_pcpu *c = &cpu[ci];
	bool host = (CELL(ci, PV_PMOVSSET_EL0) & host_mask) != 0;
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(c->loaded, NULL, before);
	step_name = "pv_irq";
	allow(c, NULL, c->loaded, NULL);
	enum pv_irq_result r = pv_irq(c, intid);
	allow(NULL, NULL, NULL, NULL);
	check_others(c->loaded, NULL, before);
	if (intid != PV_INTID_PMU) {
		FZ_CHECK(r == PV_IRQ_NOT_MINE, "pv_irq: INTID %u answered %d", intid, (int)r);
		return;
	}
	FZ_CHECK(r == (host ? PV_IRQ_HOST_PENDING : PV_IRQ_HANDLED),
		 "pv_irq: answered %d with host overflow %s", (int)r,
		 host ? "pending" : "clear");
	if (c->loaded && c->loaded->pmu.active)
		FZ_CHECK(!(CELL(ci, PV_PMOVSSET_EL0) & c->loaded->vm->pmu.counter_mask),
			 "pv_irq: guest overflow flags left in hardware");
}

/* The hardware counts: enabled guest counters advance and overflow, host counters overflow. */
static void step_hw(struct fz *f)
{
	unsigned ci = fz_u8(f) % NCPU;
	uint8_t what = fz_u8(f);
	uint32_t bits = fz_u32(f);
	uint64_t delta = fz_u32(f);
	struct pv_pcpu *c = &cpu[ci];
	uint64_t en = CELL(ci, PV_PMCNTENSET_EL0);
	bool e = CELL(ci, PV_PMCR_EL0) & PV_PMCR_E;
	uint64_t ovs = CELL(ci, PV_PMOVSSET_EL0);
	if (what & 1) { /* the host's counters overflow */
		uint32_t h = bits & host_mask & host_en[ci];
		host_ovs[ci] |= h;
		ovs |= h;
	}
	if ((what & 2) && e) { /* guest counters count */
		uint32_t g = bits & (uint32_t)en & guest_bits;
		for (unsigned n = 0; n < 32; n++) {
			if (!(g >> n & 1) || (n < 31 && n >= hw.hpmn))
				continue;
			uint32_t key = n == 31 ? PV_PMCCNTR_EL0 : PV_PMEVCNTR_EL0(n);
			uint64_t old = CELL(ci, key), now = old + delta;
			CELL(ci, key) = now;
			if ((uint32_t)now < (uint32_t)old || (what & 4))
				ovs |= UINT64_C(1) << n;
		}
	}
	bitmap_store(c, PV_PMOVSSET_EL0, ovs);
}

/* ---- configuration ----------------------------------------------------------------------- */

static const uint8_t pmuvers[8] = {PV_PMUVER_V3,   PV_PMUVER_V3P1,  PV_PMUVER_V3P4,
				   PV_PMUVER_V3P5, PV_PMUVER_V3P5,  PV_PMUVER_V3P7,
				   PV_PMUVER_NI,   PV_PMUVER_IMPDEF};

static int machine(struct fz *f)
{
	uint8_t b0 = fz_u8(f), b1 = fz_u8(f), b2 = fz_u8(f), b3 = fz_u8(f), b4 = fz_u8(f);
	unsigned N = b0 % 32;
	unsigned host = b1 % (N + 2);
	for (unsigned c = 0; c < NCPU; c++) {
		memplat_init(&mc[c], N);
		uint64_t *dfr0 = memplat_reg(&mc[c], PV_ID_AA64DFR0_EL1);
		*dfr0 = (*dfr0 & ~PV_GENMASK(11, 8) & ~PV_GENMASK(63, 60)) |
			PV_FIELD_PREP(PV_ID_AA64DFR0_PMUVER, pmuvers[b2 & 7]) |
			PV_FIELD_PREP(PV_ID_AA64DFR0_HPMN0, (b2 >> 3) & 1);
		uint64_t *pfr0 = memplat_reg(&mc[c], PV_ID_AA64PFR0_EL1);
		*pfr0 &= ~(PV_GENMASK(15, 12) | PV_GENMASK(39, 36) | PV_GENMASK(55, 52) |
			   PV_GENMASK(47, 44) | PV_GENMASK(43, 40) | PV_GENMASK(3, 0));
		*pfr0 |= PV_FIELD_PREP(PV_ID_AA64PFR0_EL3_STATES, b3 & 1) |
			 PV_FIELD_PREP(PV_ID_AA64PFR0_SEL2, (b3 >> 1) & 1) |
			 PV_FIELD_PREP(PV_ID_AA64PFR0_RME, (b3 >> 2) & 1) |
			 PV_FIELD_PREP(PV_ID_AA64PFR0_AMU, (b3 >> 3) & 3) |
			 PV_FIELD_PREP(PV_ID_AA64PFR0_MPAM, (b3 >> 5) & 1) |
			 PV_FIELD_PREP(PV_ID_AA64PFR0_EL0_STATES, (b3 >> 6) & 1 ? 2 : 1);
		*memplat_reg(&mc[c], PV_ID_AA64MMFR0_EL1) = PV_FIELD_PREP(PV_GENMASK(59, 56),
									  b4 & 1);
		*memplat_reg(&mc[c], PV_PMCEID0_EL0) ^= (uint64_t)(b4 >> 1) << 3;
		*memplat_reg(&mc[c], PV_AMCFGR_EL0) = (uint64_t)((b4 >> 1) & 1) << 28 |
						      PV_AMCFGR_SIZE_64 | 3;
		*memplat_reg(&mc[c], PV_AMCGCR_EL0) = (uint64_t)((b4 >> 2) & 0x1F) << 8 | 4;
		*memplat_reg(&mc[c], PV_AMCG1IDR_EL0) = 0xFFFF00FFu >> (b4 >> 7);
		pv_pcpu_init(&cpu[c], &mc[c]);
	}
	step_name = "pv_hw_probe";
	int err = pv_hw_probe(&hw, &cpu[0], host);
	if (err) {
		FZ_CHECK(err < 0 && pv_strerror(err) != NULL, "pv_hw_probe: %d", err);
		return err;
	}
	host_mask = hw.pmu_version == PV_PMUVER_NI ? 0
						   : (uint32_t)((PV_BIT(hw.pmu_counters) - 1) &
								~(PV_BIT(hw.hpmn) - 1));
	guest_bits = (uint32_t)(PV_BIT(hw.hpmn) - 1) | (1u << PV_PMU_CYCLE_IDX);
	/* The host's own counters, as it left them before the guests came. */
	uint32_t hen = fz_u32(f), hint = fz_u32(f), hovs = fz_u32(f);
	checking = true;
	for (unsigned c = 0; c < NCPU; c++) {
		host_en[c] = hen & host_mask;
		host_inten[c] = hint & host_mask;
		host_ovs[c] = hovs & host_mask;
		for (unsigned n = hw.hpmn; n < hw.pmu_counters; n++) {
			host_cnt[c][n] = UINT64_C(0x4057C0DE00000000) | c << 8 | n;
			host_typ[c][n] = 0x11 | (n & 1 ? PV_PMEVTYPER_NSH : 0);
			CELL(c, PV_PMEVCNTR_EL0(n)) = host_cnt[c][n];
			CELL(c, PV_PMEVTYPER_EL0(n)) = host_typ[c][n];
		}
		bitmap_store(&cpu[c], PV_PMCNTENSET_EL0, host_en[c]);
		bitmap_store(&cpu[c], PV_PMINTENSET_EL1, host_inten[c]);
		bitmap_store(&cpu[c], PV_PMOVSSET_EL0, host_ovs[c]);
		step_name = "pv_pcpu_setup";
		allow(&cpu[c], NULL, NULL, NULL);
		pv_pcpu_setup(&cpu[c], &hw);
		allow(NULL, NULL, NULL, NULL);
	}
	return 0;
}

static void check_trap_words(const struct pv_vm *m)
{
	const struct pv_trap_words *w = &m->traps;
	if (hw.pmu_version == PV_PMUVER_NI)
		return;
	uint64_t need = PV_MDCR_EL2_TPM | PV_MDCR_EL2_TPMCR;
	if (hw.pmu_version >= PV_PMUVER_V3P1)
		need |= PV_MDCR_EL2_HPMD;
	if (hw.pmu_version >= PV_PMUVER_V3P5)
		need |= PV_MDCR_EL2_HCCD;
	FZ_CHECK((w->mdcr_el2 & need) == need && (w->mdcr_el2_owned & need) == need &&
			 PV_FIELD_GET(PV_MDCR_EL2_HPMN, w->mdcr_el2) == hw.hpmn &&
			 (w->mdcr_el2_owned & PV_MDCR_EL2_HPMN) == PV_MDCR_EL2_HPMN,
		 "pv_vm_init: MDCR_EL2 0x%llx (owned 0x%llx) does not trap the PMU, partition "
		 "at "
		 "HPMN %u and keep EL2 out of the guest's counts",
		 (unsigned long long)w->mdcr_el2, (unsigned long long)w->mdcr_el2_owned,
		 hw.hpmn);
	FZ_CHECK((w->hcr_el2 & PV_HCR_EL2_TID3) != 0, "pv_vm_init: ID registers not trapped");
}

static void vms(struct fz *f)
{
	for (unsigned i = 0; i < NVM; i++) {
		struct pv_vm_config cfg = {0};
		uint8_t feat = fz_u8(f);
		cfg.features = (feat & 7) ? PV_FEAT_PMU : 0;
		if (feat & 8)
			cfg.features |= PV_FEAT_AMU;
		if ((feat & 0x30) == 0x30)
			cfg.features |= (feat & 0x40) ? PV_FEAT_SPE : PV_FEAT_MPAM;
		if (feat == 0xFF)
			cfg.features |= 1u << 7;
		cfg.pmu.version = pmuvers[fz_u8(f) & 7];
		cfg.pmu.nr_counters = (uint8_t)(fz_u8(f) % (hw.hpmn + 2u));
		uint8_t nf = fz_u8(f);
		cfg.pmu.nr_filters = nf == 0xFF ? 33 : nf % 5;
		for (unsigned k = 0; k < cfg.pmu.nr_filters && k < PV_PMU_MAX_FILTERS; k++) {
			cfg.pmu.filters[k].base_event = fz_u16(f);
			cfg.pmu.filters[k].nevents = (uint16_t)(fz_u8(f) | (fz_u8(f) & 1) << 8);
			uint8_t act = fz_u8(f);
			cfg.pmu.filters[k].action = act < 0xFE ? (act & 1) : act;
		}
		uint8_t amu = fz_u8(f);
		cfg.amu.version = (amu & 1) + 1;
		cfg.amu.nr_aux = (uint8_t)((amu >> 1) % 18);
		nvcpu[i] = 1 + (amu >> 7);
		step_name = "pv_vm_init";
		int err = pv_vm_init(&vm[i], &hw, &cfg);
		vm_ok[i] = err == 0;
		if (err) {
			FZ_CHECK(err < 0 && pv_strerror(err) != NULL, "pv_vm_init: %d", err);
			continue;
		}
		check_trap_words(&vm[i]);
		for (unsigned j = 0; j < nvcpu[i]; j++) {
			mv[i][j] = (struct memplat_vcpu){0};
			pv_vcpu_init(&vc[i][j], &vm[i], j, &mv[i][j]);
			FZ_CHECK(unchanged(&vc[i][j].traps, &vm[i].traps, sizeof(vm[i].traps)),
				 "pv_vcpu_init: trap words differ from the VM's");
			FZ_CHECK(unchanged(vc[i][j].reg_limit, vm[i].reg_limit,
					   sizeof(vm[i].reg_limit)),
				 "pv_vcpu_init: register gates differ from the VM's");
		}
		memcpy(&vm_snap[i], &vm[i], sizeof(vm[i]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	checking = false;
	allow(NULL, NULL, NULL, NULL);
	memset(vm_ok, 0, sizeof(vm_ok));
	if (machine(&f))
		return 0;
	vms(&f);
	check_host();
	unsigned steps = 0;
	while (fz_left(&f) && steps++ < 4096) {
		uint8_t op = fz_u8(&f);
		switch (op % 10) {
		case 0:
		case 1:
		case 2:
		case 3:
		case 4:
			step_trap(&f);
			break;
		case 5:
		case 6:
			step_load(&f);
			break;
		case 7:
			step_put(&f);
			break;
		case 8:
			step_irq(&f);
			break;
		default:
			step_hw(&f);
			break;
		}
		check_host();
		check_vcpus();
	}
	checking = false;
	return 0;
}
