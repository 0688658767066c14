/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trap: the trap entry and the vCPU switch against adversarial guests and odd hardware,
 * in each of the vPMU's modes: trapping, direct counter access (FEAT_FGT) and passthrough.
 *
 * The first bytes describe the machine (counters, counters kept by the host, PMU version, EL3,
 * Secure EL2, RME, AMU, FGT: the ID registers pv_hw_probe reads; whether the host applies the
 * fine-grained trap words, pv_hw.fgt_words; the host's own MDCR_EL2, HDFGRTR/HDFGWTR_EL2 and
 * PMSELR_EL0) and three VMs of one or two vCPUs (features, PMU version, counters, event
 * filter, AMU, and direct or passthrough asked for, or fitted to what the mode needs). The
 * rest is a sequence of steps on two pCPUs: guest accesses with arbitrary syndromes, Rt,
 * values and exception levels; vCPU loads and puts (VMs of different modes in turn on one
 * pCPU); PMU interrupts; the operator's views; hardware that counts and overflows under the
 * library's feet.
 *
 * The hardware is tests/support/memplat (plain memory), with the SET/CLR bitmap registers
 * given their architected behaviour here. Every platform call the library makes goes through
 * the --wrap'ed pv_plat_* below, which check it as it happens; after every step the state is
 * checked as a whole. This file is the host: it writes a vCPU's trap words into MDCR_EL2 (and,
 * with fgt_words, HDFGRTR_EL2 and HDFGWTR_EL2) before loading it and its own after putting it
 * (docs/integration.md). A guest access of a direct or passthrough vCPU goes where the
 * hardware sends it (Arm ARM D24.5, each register's access pseudocode: PMUSERENR_EL0 at EL0,
 * then TPM, TPMCR, the fine-grained bit, and a counter past HPMN, which with FEAT_FGT traps):
 * to pv_trap() when it traps to EL2, to the registers themselves when it does not (the guest
 * writes them as it likes, within the partition MDCR_EL2.HPMN gives it), nowhere when it is
 * UNDEFINED or goes to the guest's EL1. Every access of a trapping vCPU reaches pv_trap(),
 * loaded or not. The invariants (docs/security.md):
 *   - host counters [HPMN, N): never read or written by the library nor reached by a guest;
 *     their PMCNTEN, PMINTEN and PMOVS bits never changed; their cells hold what the host put
 *     there;
 *   - EL2 is never counted: every physical PMEVTYPER<n>/PMCCFILTR the library writes for a
 *     trapping or direct vCPU, and every one in force while such a vCPU is loaded, counts at
 *     most Non-secure EL1 and EL0 (NSH = SH = M = RLK = RLU = RLH = MT = T = 0, thresholds 0;
 *     with EL3, P = U = 1), and an event it counts is one the VM's filter allows (and, for a
 *     trapping vCPU, not SW_INCR or CHAIN, which it counts in software); a direct guest's
 *     access to an event type, PMCEID0/1 or PMMIR never reaches the hardware untrapped, by
 *     any register (PMEVTYPER<n>, PMXEVTYPER through the PMSELR it wrote, PMCCFILTR); what a
 *     passthrough load writes is the
 *     vCPU's own value (what the hardware held at its put), NSH included, and MDCR_EL2.HPMD
 *     (its event counters) and HCCD (its cycle counter) are in effect as it is written (its
 *     Secure, EL3 and Realm filters are EL3's to prohibit, MDCR_EL3, and not modelled); after
 *     every step, no enabled guest counter counts at EL2 under the MDCR_EL2 in effect;
 *   - the trap words of each mode: trapping: TPM and TPMCR, HPMN the hardware's; direct: TPM
 *     and TPMCR clear, HPMN = its N, the fine-grained bits of the event types (read and
 *     write), PMCEID and PMMIR (read) set and no other PMU one; passthrough: TPM and TPMCR
 *     clear, HPMN = its N = the hardware's, no PMU fine-grained bit; in each, HPMD (PMUv3p1)
 *     and HCCD (PMUv3p5) set, MTPME clear, every one of these fields owned; which mode a VM
 *     gets follows docs/vpmu.md's conditions; the registers in effect are the loaded vCPU's
 *     words or the host's;
 *   - what the hardware holds between vCPUs: after any put, and whenever no active vCPU is
 *     loaded, no guest counter enabled and no guest overflow pending, and the pCPU's own
 *     PMUSERENR_EL0 (EN) and PMSELR_EL0; after a passthrough or direct put also no interrupt
 *     enable and PMCR.E clear; while a trapping vCPU is loaded, the enables, interrupt
 *     enables, PMCR.E and types of its counters are its own (the interrupt enable of an even
 *     counter also set where its odd partner is an enabled CHAIN counter), and its
 *     PMUSERENR_EL0 and PMSELR_EL0 the pCPU's; while a direct one is, the types of its
 *     counters are the sanitised copies of its own;
 *   - nothing of one VM in another's view: a load gives the vCPU its own state and nothing
 *     else (every register a passthrough or direct guest can read: counters, types, enables,
 *     overflow and interrupt enables, PMSELR, PMUSERENR, PMCR; the counters of a trapping
 *     one, and no overflow pending that is not its own); a put and a load lose and add no
 *     count and no overflow status (what pv_vpmu_counter() reports is the same before and
 *     after, unless an even counter's pending overflow chains); a passthrough or direct put
 *     saves exactly what the hardware held; pv_vpmu_sync() reads a loaded passthrough or
 *     direct vCPU's registers and changes none, and does nothing for any other;
 *     pv_vpmu_counter() reports the vCPU's own counter; an interrupt, a trap or a view of one
 *     vCPU changes nothing of another (byte for byte, and in the hardware of a loaded
 *     passthrough or direct vCPU; a direct vCPU's own trap, its types alone);
 *   - physical PMCR never gets P or C (they would reset the host's counters at EL2), PMSWINC
 *     and PMXEV* are never written, PMSELR and PMUSERENR only for a direct or passthrough
 *     vCPU (its own value at load, the pCPU's at put), HDFGRTR/HDFGWTR never (the host's at
 *     load and put), nothing outside the PMU and the AMU is written;
 *   - a call reaches only the pCPU of the vCPU it concerns (none for a vCPU not loaded), and
 *     changes no other vCPU and no VM (struct pv_vm is never written after pv_vm_init);
 *   - a trap writes the guest's registers only for a handled read, and only x[Rt];
 *   - counters >= N are UNDEF (never handled; PMXEV* by the SEL the access used, the
 *     hardware's for a loaded passthrough vCPU), registers of a feature the VM lacks UNDEF,
 *     an EL1 access never gets "trap to EL1", a syndrome that is not EC 0x18 is never handled;
 *     a trap of a loaded passthrough vCPU (only a counter past its N sends one), or of a
 *     loaded direct vCPU's register that its words leave untrapped, is UNDEF and changes
 *     nothing;
 *   - an EL0 access that reaches EL2 is answered by the guest's own PMUSERENR_EL0 (a loaded
 *     direct guest's: the one it wrote to the hardware), by the register's rule: to its EL1
 *     exactly when that refuses it (an EL1 register, a PMUSERENR_EL0 write, a register the VM
 *     lacks: UNDEF);
 *   - guest-visible reads: PMCR.N is the VM's N, P and C read 0, bitmaps stay in [0, N) + 31;
 *   - the virtual PMU interrupt is high exactly when PMCR.E && (PMINTEN & PMOVS); a
 *     passthrough or direct vCPU's is never driven (it is presented mapped);
 *   - pv_irq says HOST_PENDING exactly when host counters overflowed, and leaves their flags;
 *     for a loaded passthrough or direct vCPU otherwise GUEST_MAPPED exactly when its own
 *     level is high.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "memplat.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"

#define NCPU 2
#define NVM 3
#define NVCPU 2
#define CYC 31u /* the cycle counter's bit */

enum mode { TRAPPING, DIRECT, PASSTHROUGH };

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
/* The host's own trap words (the same on every pCPU) and PMSELR_EL0 (each pCPU's). */
static uint64_t hyp_mdcr, hyp_hdfgrtr, hyp_hdfgwtr;
static uint8_t host_selr[NCPU];

/* The platform calls allowed during the current library call. */
static bool checking;
static struct pv_pcpu *allow_cpu[2];
static struct pv_vcpu *allow_vcpu[2];
static const char *step_name = "setup";

#define CELL(c, key) (*memplat_reg(&mc[c], (key)))
#define EVT_FILTER (PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU)
/* PMCR_EL0 state (not the P and C actions) a passthrough put saves: E, D, X, DP, LC, LP, FZO,
 * FZS. */
#define PMCR_STATE                                                                             \
	(PV_PMCR_E | PV_PMCR_D | PV_PMCR_X | PV_PMCR_DP | PV_PMCR_LC | PV_PMCR_LP |            \
	 PV_PMCR_FZO | PV_PMCR_FZS)

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

static enum mode mode_of(const struct pv_vm *m)
{
	return m->pmu.passthrough ? PASSTHROUGH : m->pmu.direct ? DIRECT : TRAPPING;
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

static bool has_pmuv3p1(void)
{
	return hw.pmu_version >= PV_PMUVER_V3P1 && hw.pmu_version != PV_PMUVER_IMPDEF;
}

static bool has_pmuv3p5(void)
{
	return hw.pmu_version >= PV_PMUVER_V3P5 && hw.pmu_version != PV_PMUVER_IMPDEF;
}

/* The HPMN field of an MDCR_EL2 value, at most N. */
static unsigned hpmn_of(uint64_t mdcr)
{
	unsigned h = (unsigned)PV_FIELD_GET(PV_MDCR_EL2_HPMN, mdcr);
	return h > hw.pmu_counters ? hw.pmu_counters : h;
}

/* Whether guest-partition counter k of pCPU c, with type `type`, counts at (Non-secure) EL2
 * under the MDCR_EL2 in effect (Arm ARM D13.7.1, D24.3.17): enabled (PMCR.E for the first
 * range [0, HPMN) and the cycle counter, MDCR_EL2.HPME for the second), NSH set, and not
 * prohibited: HPMD for the first range (PMUv3p1), HCCD for the cycle counter (PMUv3p5). */
static bool counts_el2(unsigned c, unsigned k, uint64_t type)
{
	uint64_t mdcr = CELL(c, PV_MDCR_EL2);
	bool first = k == CYC || k < hpmn_of(mdcr);
	bool on = (CELL(c, PV_PMCNTENSET_EL0) >> k & 1) &&
		  (first ? (CELL(c, PV_PMCR_EL0) & PV_PMCR_E) : (mdcr & PV_MDCR_EL2_HPME));
	bool prohibited = k == CYC ? has_pmuv3p5() && (mdcr & PV_MDCR_EL2_HCCD)
				   : first && has_pmuv3p1() && (mdcr & PV_MDCR_EL2_HPMD);
	return on && (type & PV_PMEVTYPER_NSH) && !prohibited;
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
		 "M, SH, RL*, MT, T, thresholds: EL2/EL3/Secure/Realm counting)",
		 step_name, ccfiltr ? "PMCCFILTR" : "PMEVTYPER", n, (unsigned long long)val);
	bool el1, el0;
	if (hw.el3) {
		FZ_CHECK((val & (PV_PMEVTYPER_P | PV_PMEVTYPER_U)) ==
				 (PV_PMEVTYPER_P | PV_PMEVTYPER_U),
			 "%s: with EL3, physical type 0x%llx leaves P or U clear: Secure "
			 "EL1/EL0 (or EL3, M == P) counted",
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
	/* SW_INCR and CHAIN are counted in software, but a direct VM's PMSWINC_EL0 and
	 * counters are the hardware's, which counts them (Arm ARM D14.3.1). */
	uint32_t e = (uint32_t)(val & PV_PMEVTYPER_EVT_V3P1);
	bool soft = e == PV_EVT_SW_INCR || e == PV_EVT_CHAIN;
	FZ_CHECK(e <= ovm->pmu.event_mask && (!soft || ovm->pmu.direct) &&
			 pv_vpmu_event_allowed(ovm, e),
		 "%s: physical PMEVTYPER%u counts event 0x%x, which the VM may not count in "
		 "hardware",
		 step_name, n, e);
}

/* A passthrough vCPU's own type, written back at its load: the value the hardware held at
 * its put (or its reset value), whatever filter bits the guest chose; EL2 stays out of its
 * count because HPMD (event counters) and HCCD (the cycle counter) are in the MDCR_EL2 the
 * host wrote before the load (Arm ARM D24.3.17). */
static void check_pt_type(struct pv_pcpu *c, const struct pv_vcpu *owner, uint64_t val,
			  unsigned n)
{
	FZ_CHECK(val == owner->pmu.hwtype[n],
		 "%s: passthrough type %u written as 0x%llx, the vCPU's own is 0x%llx",
		 step_name, n, (unsigned long long)val,
		 (unsigned long long)owner->pmu.hwtype[n]);
	uint64_t mdcr = CELL(cpu_index(c), PV_MDCR_EL2);
	uint64_t off = n == CYC ? PV_MDCR_EL2_HCCD : PV_MDCR_EL2_HPMD;
	FZ_CHECK(!(val & PV_PMEVTYPER_NSH) || (mdcr & off),
		 "%s: passthrough type %u = 0x%llx (NSH) written with MDCR_EL2 0x%llx: EL2 "
		 "counted",
		 step_name, n, (unsigned long long)val, (unsigned long long)mdcr);
}

/* The SET/CLR pairs: one state, read through either register. */
static bool bitmap_pair(uint32_t reg, uint32_t *set, bool *is_set)
{
	switch (reg) {
	case PV_PMCNTENSET_EL0:
	case PV_PMINTENSET_EL1:
	case PV_PMOVSSET_EL0:
		*set = reg;
		*is_set = true;
		return true;
	case PV_PMCNTENCLR_EL0:
		*set = PV_PMCNTENSET_EL0;
		*is_set = false;
		return true;
	case PV_PMINTENCLR_EL1:
		*set = PV_PMINTENSET_EL1;
		*is_set = false;
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
static void bitmap_store(unsigned c, uint32_t set, uint64_t state)
{
	CELL(c, set) = state;
	CELL(c, clr_of(set)) = state;
}

static bool direct_or_passthrough(const struct pv_vcpu *v)
{
	return v && mode_of(v->vm) != TRAPPING;
}

/* Loaded, with its PMU registers in the hardware: what it wrote there untrapped is the
 * truth, not what struct pv_vpmu kept. */
static bool owns_hw(const struct pv_vcpu *v)
{
	return direct_or_passthrough(v) && v->cpu;
}

static void check_pmu_write(const struct pv_vcpu *owner, uint32_t reg, uint64_t val)
{
	enum mode md = owner ? mode_of(owner->vm) : TRAPPING;
	switch (reg) {
	case PV_PMCR_EL0: {
		uint64_t ok = md != TRAPPING ? PMCR_STATE
					     : PV_PMCR_E | PV_PMCR_D | PV_PMCR_DP | PV_PMCR_LC |
						       PV_PMCR_LP | PV_PMCR_FZS;
		FZ_CHECK(!(val & ~ok),
			 "%s: physical PMCR write 0x%llx: P or C reset the host's counters at "
			 "EL2, other bits are not the guest's (FZS: a VM with SPEv1p2)",
			 step_name, (unsigned long long)val);
		break;
	}
	case PV_PMUSERENR_EL0:
		FZ_CHECK(val == PV_PMUSERENR_EN ||
				 (direct_or_passthrough(owner) && val == owner->pmu.userenr &&
				  !(val & ~(uint64_t)PV_PMUSERENR_MASK)),
			 "%s: physical PMUSERENR 0x%llx: neither EN alone nor a direct or "
			 "passthrough vCPU's own",
			 step_name, (unsigned long long)val);
		break;
	case PV_PMSELR_EL0:
		FZ_CHECK(direct_or_passthrough(owner) && val <= 31 &&
				 (val == owner->pmu.selr || val == owner->pmu.host_selr),
			 "%s: physical PMSELR write 0x%llx: not a direct or passthrough vCPU's "
			 "own, nor the pCPU's",
			 step_name, (unsigned long long)val);
		break;
	case PV_PMCCNTR_EL0:
		break;
	case PV_PMSWINC_EL0:
	case PV_PMXEVCNTR_EL0:
	case PV_PMXEVTYPER_EL0:
		FZ_CHECK(0, "%s: physical write to 0x%x (PMSWINC or PMXEV*)", step_name, reg);
		break;
	case PV_HDFGRTR_EL2:
	case PV_HDFGWTR_EL2: /* the host's, at load and put: a vCPU's words stay as they are */
		FZ_CHECK(0, "%s: write to HDFG%cTR_EL2", step_name,
			 reg == PV_HDFGRTR_EL2 ? 'R' : 'W');
		break;
	default:
		/* The AMU: Op0 = 3, Op1 = 3 (EL0 registers) or 4 (the EL2 offsets), CRn = 13. */
		FZ_CHECK(PV_SYSREG_OP0(reg) == 3 && PV_SYSREG_CRN(reg) == 13 &&
				 (PV_SYSREG_OP1(reg) == 3 || PV_SYSREG_OP1(reg) == 4),
			 "%s: write to register 0x%x, outside the PMU and the AMU", step_name,
			 reg);
		break;
	}
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
		if (typer && ovm && ovm->pmu.passthrough)
			check_pt_type(c, owner, val, n);
		else if (typer)
			check_type(val, ovm, n == CYC, n);
		__real_pv_plat_sysreg_write(c, reg, val);
		return;
	}
	if (bitmap_pair(reg, &set, &is_set)) {
		FZ_CHECK(!(val & ~(uint64_t)guest_bits),
			 "%s: bitmap write 0x%llx to 0x%x touches bits outside the guests' [0, "
			 "HPMN) and 31 (host mask 0x%x)",
			 step_name, (unsigned long long)val, reg, host_mask);
		if (ovm && is_set && set != PV_PMOVSSET_EL0)
			FZ_CHECK(!(val & ~(uint64_t)ovm->pmu.counter_mask),
				 "%s: enable 0x%llx beyond the loaded VM's counters 0x%x",
				 step_name, (unsigned long long)val, ovm->pmu.counter_mask);
		unsigned ci = cpu_index(c);
		uint64_t state = CELL(ci, set);
		bitmap_store(ci, set, is_set ? state | val : state & ~val);
		return;
	}
	check_pmu_write(owner, reg, val);
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
		FZ_CHECK(
			mode_of(v->vm) == TRAPPING,
			"%s: a passthrough or direct vCPU's software interrupt line was driven "
			"(its interrupt is presented mapped)",
			step_name);
	}
	__real_pv_plat_virq_set(v, intid, level);
}

/* ---- the host: trap words ---------------------------------------------------------------- */

/* The PMU's fine-grained trap bits (Arm ARM D24.2: HDFGRTR_EL2 and HDFGWTR_EL2). */
#define FGT_RD_CNT (PV_HDFGRTR_EL2_PMEVCNTRn_EL0 | PV_HDFGRTR_EL2_PMCCNTR_EL0)
#define FGT_WR_CNT (PV_HDFGWTR_EL2_PMEVCNTRn_EL0 | PV_HDFGWTR_EL2_PMCCNTR_EL0)
#define FGT_RD_PMU                                                                             \
	(FGT_RD_CNT | PV_HDFGRTR_EL2_PMEVTYPERn_EL0 | PV_HDFGRTR_EL2_PMCCFILTR_EL0 |           \
	 PV_HDFGRTR_EL2_PMCNTEN | PV_HDFGRTR_EL2_PMINTEN | PV_HDFGRTR_EL2_PMOVS |              \
	 PV_HDFGRTR_EL2_PMSELR_EL0 | PV_HDFGRTR_EL2_PMMIR_EL1 | PV_HDFGRTR_EL2_PMUSERENR_EL0 | \
	 PV_HDFGRTR_EL2_PMCEIDn_EL0)
#define FGT_WR_PMU                                                                             \
	(FGT_WR_CNT | PV_HDFGWTR_EL2_PMEVTYPERn_EL0 | PV_HDFGWTR_EL2_PMCCFILTR_EL0 |           \
	 PV_HDFGWTR_EL2_PMCNTEN | PV_HDFGWTR_EL2_PMINTEN | PV_HDFGWTR_EL2_PMOVS |              \
	 PV_HDFGWTR_EL2_PMSELR_EL0 | PV_HDFGWTR_EL2_PMSWINC_EL0 | PV_HDFGWTR_EL2_PMCR_EL0 |    \
	 PV_HDFGWTR_EL2_PMUSERENR_EL0)
/* What a direct VM's event filter needs trapped: every path of an event type to the
 * hardware (PMEVTYPER<n>_EL0 and PMXEVTYPER_EL0 share a bit, PMCCFILTR_EL0 has its own) and
 * the filtered PMCEID0/1_EL0; and PMMIR_EL1, whose view is the VM's. */
#define FGT_RD_DIRECT                                                                          \
	(PV_HDFGRTR_EL2_PMEVTYPERn_EL0 | PV_HDFGRTR_EL2_PMCCFILTR_EL0 |                        \
	 PV_HDFGRTR_EL2_PMCEIDn_EL0 | PV_HDFGRTR_EL2_PMMIR_EL1)
#define FGT_WR_DIRECT (PV_HDFGWTR_EL2_PMEVTYPERn_EL0 | PV_HDFGWTR_EL2_PMCCFILTR_EL0)

/* The trap registers in effect on a pCPU: vCPU v's words over the host's, or the host's. A
 * host without fgt_words keeps its fine-grained registers as they are: none of the PMU's
 * bits set. */
static void words_of(const struct pv_vcpu *v, uint64_t *mdcr, uint64_t *rt, uint64_t *wt)
{
	*mdcr = hyp_mdcr;
	*rt = hyp_hdfgrtr;
	*wt = hyp_hdfgwtr;
	if (!v)
		return;
	const struct pv_trap_words *t = &v->traps;
	*mdcr = (*mdcr & ~t->mdcr_el2_owned) | t->mdcr_el2;
	if (hw.fgt_words) {
		*rt = (*rt & ~t->hdfgrtr_el2_owned) | t->hdfgrtr_el2;
		*wt = (*wt & ~t->hdfgwtr_el2_owned) | t->hdfgwtr_el2;
	}
}

static void host_words(unsigned c, const struct pv_vcpu *v)
{
	words_of(v, &CELL(c, PV_MDCR_EL2), &CELL(c, PV_HDFGRTR_EL2), &CELL(c, PV_HDFGWTR_EL2));
}

/* ---- the guest's own accesses: where the hardware sends them, and what they do ---------- */

enum route { TO_EL2, DIRECT_ACCESS, UNDEFINED, TO_EL1 };
enum acc { A_RW, A_RO, A_WO };
enum preg_kind {
	K_PMCR,
	K_CNTEN,
	K_INTEN,
	K_OVS,
	K_SWINC,
	K_SELR,
	K_CEID,
	K_CCNTR,
	K_XEVTYPER,
	K_XEVCNTR,
	K_USERENR,
	K_MMIR,
	K_CCFILTR,
	K_EVCNTR,
	K_EVTYPER,
};

#define EN PV_PMUSERENR_EN
#define SW PV_PMUSERENR_SW
#define CR PV_PMUSERENR_CR
#define ER PV_PMUSERENR_ER

/* Each PMU register (Arm ARM D24.5): access, EL1 only (UNDEFINED at EL0), the PMUSERENR_EL0
 * bits that let EL0 read / write it (0: always), its fine-grained trap bits (0: none; PMCR
 * reads trap by MDCR_EL2.TPMCR). */
static const struct preg {
	uint32_t key;
	uint8_t kind, acc;
	bool el1;
	uint8_t el0_rd, el0_wr;
	uint64_t frd, fwr;
} pregs[] = {
	{PV_PMCR_EL0, K_PMCR, A_RW, false, EN, EN, 0, PV_HDFGWTR_EL2_PMCR_EL0},
	{PV_PMCNTENSET_EL0, K_CNTEN, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCNTEN,
	 PV_HDFGWTR_EL2_PMCNTEN},
	{PV_PMCNTENCLR_EL0, K_CNTEN, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCNTEN,
	 PV_HDFGWTR_EL2_PMCNTEN},
	{PV_PMINTENSET_EL1, K_INTEN, A_RW, true, 0, 0, PV_HDFGRTR_EL2_PMINTEN,
	 PV_HDFGWTR_EL2_PMINTEN},
	{PV_PMINTENCLR_EL1, K_INTEN, A_RW, true, 0, 0, PV_HDFGRTR_EL2_PMINTEN,
	 PV_HDFGWTR_EL2_PMINTEN},
	{PV_PMOVSSET_EL0, K_OVS, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMOVS,
	 PV_HDFGWTR_EL2_PMOVS},
	{PV_PMOVSCLR_EL0, K_OVS, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMOVS,
	 PV_HDFGWTR_EL2_PMOVS},
	{PV_PMSWINC_EL0, K_SWINC, A_WO, false, 0, EN | SW, 0, PV_HDFGWTR_EL2_PMSWINC_EL0},
	{PV_PMSELR_EL0, K_SELR, A_RW, false, EN | ER, EN | ER, PV_HDFGRTR_EL2_PMSELR_EL0,
	 PV_HDFGWTR_EL2_PMSELR_EL0},
	{PV_PMCEID0_EL0, K_CEID, A_RO, false, EN, 0, PV_HDFGRTR_EL2_PMCEIDn_EL0, 0},
	{PV_PMCEID1_EL0, K_CEID, A_RO, false, EN, 0, PV_HDFGRTR_EL2_PMCEIDn_EL0, 0},
	{PV_PMCCNTR_EL0, K_CCNTR, A_RW, false, EN | CR, EN, PV_HDFGRTR_EL2_PMCCNTR_EL0,
	 PV_HDFGWTR_EL2_PMCCNTR_EL0},
	{PV_PMXEVTYPER_EL0, K_XEVTYPER, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMEVTYPERn_EL0,
	 PV_HDFGWTR_EL2_PMEVTYPERn_EL0},
	{PV_PMXEVCNTR_EL0, K_XEVCNTR, A_RW, false, EN | ER, EN, PV_HDFGRTR_EL2_PMEVCNTRn_EL0,
	 PV_HDFGWTR_EL2_PMEVCNTRn_EL0},
	{PV_PMUSERENR_EL0, K_USERENR, A_RW, false, 0, 0, PV_HDFGRTR_EL2_PMUSERENR_EL0,
	 PV_HDFGWTR_EL2_PMUSERENR_EL0},
	{PV_PMMIR_EL1, K_MMIR, A_RO, true, 0, 0, PV_HDFGRTR_EL2_PMMIR_EL1, 0},
	{PV_PMCCFILTR_EL0, K_CCFILTR, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCCFILTR_EL0,
	 PV_HDFGWTR_EL2_PMCCFILTR_EL0},
	{0, K_EVCNTR, A_RW, false, EN | ER, EN, PV_HDFGRTR_EL2_PMEVCNTRn_EL0,
	 PV_HDFGWTR_EL2_PMEVCNTRn_EL0},
	{0, K_EVTYPER, A_RW, false, EN, EN, PV_HDFGRTR_EL2_PMEVTYPERn_EL0,
	 PV_HDFGWTR_EL2_PMEVTYPERn_EL0},
};
#define NPREGS (sizeof(pregs) / sizeof(pregs[0]))

static const struct preg *preg_of(uint32_t key, unsigned *n)
{
	bool typer;
	*n = 0;
	for (size_t i = 0; i + 2 < NPREGS; i++)
		if (pregs[i].key == key)
			return &pregs[i];
	if (!pmev(key, n, &typer) || (!typer && *n == 31))
		return NULL; /* PMEVCNTR<31> is no register */
	return &pregs[typer ? NPREGS - 1 : NPREGS - 2];
}

/* The registers a direct VM's words trap (FGT_RD_DIRECT, FGT_WR_DIRECT). */
static bool trapped_direct(uint32_t key)
{
	unsigned n;
	const struct preg *r = preg_of(key, &n);
	return r && (r->kind == K_EVTYPER || r->kind == K_XEVTYPER || r->kind == K_CCFILTR ||
		     r->kind == K_CEID || r->kind == K_MMIR);
}

/* What a direct or passthrough vCPU's access runs against: its pCPU's registers if loaded,
 * else its own words and saved PMUSERENR_EL0 and PMSELR_EL0 (where it would run). */
struct ctx {
	uint64_t mdcr, rt, wt;
	uint8_t userenr, selr;
};

static void ctx_of(const struct pv_vcpu *v, struct ctx *x)
{
	if (v->cpu) {
		unsigned c = cpu_index(v->cpu);
		x->mdcr = CELL(c, PV_MDCR_EL2);
		x->rt = CELL(c, PV_HDFGRTR_EL2);
		x->wt = CELL(c, PV_HDFGWTR_EL2);
		x->userenr = (uint8_t)CELL(c, PV_PMUSERENR_EL0);
		x->selr = (uint8_t)(CELL(c, PV_PMSELR_EL0) & 31);
		return;
	}
	words_of(v, &x->mdcr, &x->rt, &x->wt);
	x->userenr = v->pmu.userenr;
	x->selr = v->pmu.selr;
}

/* Where an access goes (Arm ARM D24.5, the access pseudocode of each register, EL2 enabled,
 * HCR_EL2.TGE 0, no EL3 trap): a register or counter the PE does not implement is UNDEFINED;
 * at EL0, an EL1 register and PMUSERENR_EL0 writes are UNDEFINED, and PMUSERENR_EL0 refuses
 * to EL1; then TPM, TPMCR (PMCR_EL0), the fine-grained bit; then an event counter at or past
 * HPMN traps to EL2 with FEAT_FGT (and is CONSTRAINED UNPREDICTABLE without: UNDEFINED here). */
static enum route route(const struct preg *r, unsigned n, const struct ctx *x, bool read,
			unsigned el, unsigned *idx)
{
	if ((r->acc == A_RO && !read) || (r->acc == A_WO && read))
		return UNDEFINED;
	if (r->kind == K_MMIR && hw.pmu_version < PV_PMUVER_V3P4)
		return UNDEFINED;
	int counter = -1;
	if (r->kind == K_EVCNTR || r->kind == K_EVTYPER)
		counter = (int)n;
	else if (r->kind == K_XEVCNTR || (r->kind == K_XEVTYPER && x->selr != CYC))
		counter = x->selr;
	if (counter >= (int)hw.pmu_counters)
		return UNDEFINED; /* past N (SEL = 31 for PMXEVCNTR_EL0 too) */
	*idx = counter < 0 ? CYC : (unsigned)counter;
	if (el == 0) {
		if (r->el1 || (r->kind == K_USERENR && !read))
			return UNDEFINED;
		uint8_t need = read ? r->el0_rd : r->el0_wr;
		if (need && !(x->userenr & need))
			return TO_EL1;
	}
	if (x->mdcr & PV_MDCR_EL2_TPM)
		return TO_EL2;
	if (r->kind == K_PMCR && (x->mdcr & PV_MDCR_EL2_TPMCR))
		return TO_EL2;
	if (hw.fgt && ((read ? x->rt & r->frd : x->wt & r->fwr) != 0))
		return TO_EL2;
	if (counter >= (int)hpmn_of(x->mdcr))
		return hw.fgt ? TO_EL2 : UNDEFINED;
	return DIRECT_ACCESS;
}

/* Implemented filter bits of PMEVTYPER<n>_EL0/PMCCFILTR_EL0 on this PE (D24.5.12). */
static uint64_t filter_impl(void)
{
	uint64_t m = PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSH;
	if (hw.el3)
		m |= PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU | PV_PMEVTYPER_M;
	if (hw.sel2)
		m |= PV_PMEVTYPER_SH;
	if (hw.rme)
		m |= PV_PMEVTYPER_RLK | PV_PMEVTYPER_RLU | PV_PMEVTYPER_RLH;
	return m;
}

static uint64_t evt_impl(void)
{
	return has_pmuv3p1() ? PV_PMEVTYPER_EVT_V3P1 : PV_PMEVTYPER_EVT_V3;
}

static uint64_t counter_impl(uint64_t val)
{
	return has_pmuv3p5() ? val : val & 0xFFFFFFFFu;
}

/* A guest's MSR that reaches the hardware: what the PE does with it, within the counters
 * [0, HPMN) and the cycle counter that EL1 and EL0 reach (D24.5.8 PMCR_EL0: P resets only
 * those; the bitmaps ignore the others; D24.5.24 PMSWINC_EL0). */
static void guest_write(unsigned c, const struct preg *r, unsigned idx, uint64_t val,
			unsigned hpmn)
{
	uint32_t reach = (uint32_t)(PV_BIT(hpmn) - 1) | (1u << CYC);
	uint32_t bits = (uint32_t)val & reach;
	switch (r->kind) {
	case K_PMCR: {
		uint64_t impl = PV_PMCR_E | PV_PMCR_DP |
				(hw.aarch32 ? PV_PMCR_D | PV_PMCR_LC : 0) |
				(has_pmuv3p5() ? PV_PMCR_LP : 0);
		CELL(c, PV_PMCR_EL0) = (val & impl) | (hw.aarch32 ? 0 : PV_PMCR_LC);
		for (unsigned k = 0; (val & PV_PMCR_P) && k < hpmn; k++)
			CELL(c, PV_PMEVCNTR_EL0(k)) = 0;
		if (val & PV_PMCR_C)
			CELL(c, PV_PMCCNTR_EL0) = 0;
		break;
	}
	case K_CNTEN:
	case K_INTEN:
	case K_OVS: {
		uint32_t set = r->kind == K_CNTEN   ? PV_PMCNTENSET_EL0
			       : r->kind == K_INTEN ? PV_PMINTENSET_EL1
						    : PV_PMOVSSET_EL0;
		uint64_t state = CELL(c, set);
		bitmap_store(c, set, r->key == set ? state | bits : state & ~(uint64_t)bits);
		break;
	}
	case K_SWINC: {
		bool lp = CELL(c, PV_PMCR_EL0) & PV_PMCR_LP;
		for (unsigned k = 0; k < hpmn && (CELL(c, PV_PMCR_EL0) & PV_PMCR_E); k++) {
			uint64_t *cnt = &CELL(c, PV_PMEVCNTR_EL0(k));
			if (!(bits >> k & 1) || !(CELL(c, PV_PMCNTENSET_EL0) >> k & 1) ||
			    (CELL(c, PV_PMEVTYPER_EL0(k)) & evt_impl()) != PV_EVT_SW_INCR)
				continue;
			*cnt = counter_impl(*cnt + 1);
			if (lp ? *cnt == 0 : (uint32_t)*cnt == 0)
				bitmap_store(c, PV_PMOVSSET_EL0,
					     CELL(c, PV_PMOVSSET_EL0) | PV_BIT(k));
		}
		break;
	}
	case K_SELR:
		CELL(c, PV_PMSELR_EL0) = val & PV_PMSELR_SEL;
		break;
	case K_CCNTR:
		CELL(c, PV_PMCCNTR_EL0) = val;
		break;
	case K_USERENR:
		CELL(c, PV_PMUSERENR_EL0) = val & PV_PMUSERENR_MASK;
		break;
	case K_CCFILTR:
		CELL(c, PV_PMCCFILTR_EL0) = val & filter_impl();
		break;
	case K_XEVTYPER:
	case K_EVTYPER:
		if (idx == CYC)
			CELL(c, PV_PMCCFILTR_EL0) = val & filter_impl();
		else
			CELL(c, PV_PMEVTYPER_EL0(idx)) = val & (filter_impl() | evt_impl());
		break;
	case K_XEVCNTR:
	case K_EVCNTR:
		CELL(c, PV_PMEVCNTR_EL0(idx)) = counter_impl(val);
		break;
	default: /* read-only */
		break;
	}
}

/* ---- what the hardware holds of a vCPU -------------------------------------------------- */

/* The state of the guests' partition a passthrough guest can read, counters [0, n) and the
 * cycle counter, as the hardware holds it or as a vCPU saved it. */
struct pstate {
	uint64_t pmcr, cnt[32], typ[32];
	uint32_t cnten, inten, ovs;
	uint8_t selr, userenr;
};

static void hw_state(unsigned c, const struct pv_vm *m, struct pstate *p)
{
	uint32_t mask = m->pmu.counter_mask;
	memset(p, 0, sizeof(*p));
	p->pmcr = CELL(c, PV_PMCR_EL0) & PMCR_STATE;
	for (unsigned k = 0; k < m->pmu.nr_counters; k++) {
		p->cnt[k] = CELL(c, PV_PMEVCNTR_EL0(k));
		p->typ[k] = CELL(c, PV_PMEVTYPER_EL0(k));
	}
	p->cnt[CYC] = CELL(c, PV_PMCCNTR_EL0);
	p->typ[CYC] = CELL(c, PV_PMCCFILTR_EL0);
	p->cnten = (uint32_t)CELL(c, PV_PMCNTENSET_EL0) & mask;
	p->inten = (uint32_t)CELL(c, PV_PMINTENSET_EL1) & mask;
	p->ovs = (uint32_t)CELL(c, PV_PMOVSSET_EL0) & mask;
	p->selr = (uint8_t)(CELL(c, PV_PMSELR_EL0) & 31);
	p->userenr = (uint8_t)CELL(c, PV_PMUSERENR_EL0);
}

static void saved_state(const struct pv_vcpu *v, struct pstate *p)
{
	const struct pv_vpmu *s = &v->pmu;
	memset(p, 0, sizeof(*p));
	p->pmcr = s->pmcr;
	for (unsigned k = 0; k < v->vm->pmu.nr_counters; k++) {
		p->cnt[k] = s->evcntr[k];
		p->typ[k] = s->hwtype[k];
	}
	p->cnt[CYC] = s->ccntr;
	p->typ[CYC] = s->hwtype[CYC];
	p->cnten = s->cnten;
	p->inten = s->inten;
	p->ovs = s->ovs;
	p->selr = s->selr;
	p->userenr = s->userenr;
}

static void check_same_state(const struct pstate *a, const struct pstate *b, const char *what)
{
	for (unsigned k = 0; k < 32; k++)
		FZ_CHECK(a->cnt[k] == b->cnt[k] && a->typ[k] == b->typ[k],
			 "%s: %s: counter %u 0x%llx/type 0x%llx, expected 0x%llx/0x%llx",
			 step_name, what, k, (unsigned long long)a->cnt[k],
			 (unsigned long long)a->typ[k], (unsigned long long)b->cnt[k],
			 (unsigned long long)b->typ[k]);
	FZ_CHECK(a->pmcr == b->pmcr && a->cnten == b->cnten && a->inten == b->inten &&
			 a->ovs == b->ovs && a->selr == b->selr && a->userenr == b->userenr,
		 "%s: %s: PMCR 0x%llx PMCNTEN 0x%x PMINTEN 0x%x PMOVS 0x%x PMSELR %u PMUSERENR "
		 "0x%x, expected 0x%llx 0x%x 0x%x 0x%x %u 0x%x",
		 step_name, what, (unsigned long long)a->pmcr, a->cnten, a->inten, a->ovs,
		 a->selr, a->userenr, (unsigned long long)b->pmcr, b->cnten, b->inten, b->ovs,
		 b->selr, b->userenr);
}

/* Odd counters of the vCPU whose type, as the guest wrote it, is CHAIN. */
static uint32_t chain_of(const struct pv_vcpu *v)
{
	uint32_t chain = 0;
	for (unsigned k = 1; k < v->vm->pmu.nr_counters; k += 2)
		if ((v->pmu.evtyper[k] & v->vm->pmu.event_mask) == PV_EVT_CHAIN)
			chain |= 1u << k;
	return chain;
}

/* The physical PMINTEN of a trapping or direct vCPU's counters: its own, plus each even
 * counter whose odd partner is an enabled CHAIN counter (docs/vpmu.md, "Overflows"). */
static uint32_t inten_of(const struct pv_vcpu *v)
{
	const struct pv_vpmu *s = &v->pmu;
	return (s->inten | ((chain_of(v) & s->cnten) >> 1)) & v->vm->pmu.counter_mask;
}

/* ---- checks after every step ------------------------------------------------------------- */

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

/* The trap words of a VM (or of one of its vCPUs) in its mode. */
static void check_words(const struct pv_vm *m, const struct pv_trap_words *w)
{
	if (hw.pmu_version == PV_PMUVER_NI)
		return;
	enum mode md = mode_of(m);
	uint64_t own = PV_MDCR_EL2_TPM | PV_MDCR_EL2_TPMCR | PV_MDCR_EL2_HPMN |
		       PV_MDCR_EL2_HPMD | PV_MDCR_EL2_HCCD | PV_MDCR_EL2_MTPME;
	uint64_t el2 = (has_pmuv3p1() ? PV_MDCR_EL2_HPMD : 0) |
		       (has_pmuv3p5() ? PV_MDCR_EL2_HCCD : 0);
	uint64_t mdcr = w->mdcr_el2;
	bool tpm = mdcr & PV_MDCR_EL2_TPM, tpmcr = mdcr & PV_MDCR_EL2_TPMCR;
	unsigned hpmn = (unsigned)PV_FIELD_GET(PV_MDCR_EL2_HPMN, mdcr);
	FZ_CHECK((w->mdcr_el2_owned & own) == own && (mdcr & el2) == el2 &&
			 !(mdcr & PV_MDCR_EL2_MTPME),
		 "%s: MDCR_EL2 0x%llx (owned 0x%llx): HPMD/HCCD not set, MTPME set, or a PMU "
		 "field left to the host",
		 step_name, (unsigned long long)mdcr, (unsigned long long)w->mdcr_el2_owned);
	FZ_CHECK((w->hcr_el2 & PV_HCR_EL2_TID3) != 0, "%s: ID registers not trapped",
		 step_name);
	switch (md) {
	case TRAPPING:
		FZ_CHECK(tpm && tpmcr && hpmn == hw.hpmn,
			 "%s: trapping VM: MDCR_EL2 0x%llx does not trap the PMU (TPM, TPMCR) "
			 "and partition at HPMN %u",
			 step_name, (unsigned long long)mdcr, hw.hpmn);
		break;
	case DIRECT:
		FZ_CHECK(!tpm && !tpmcr && hpmn == m->pmu.nr_counters,
			 "%s: direct VM: MDCR_EL2 0x%llx, not TPM and TPMCR clear, HPMN = N "
			 "= %u",
			 step_name, (unsigned long long)mdcr, m->pmu.nr_counters);
		FZ_CHECK((w->hdfgrtr_el2_owned & FGT_RD_PMU) == FGT_RD_PMU &&
				 (w->hdfgwtr_el2_owned & FGT_WR_PMU) == FGT_WR_PMU &&
				 (w->hdfgrtr_el2 & FGT_RD_PMU) == FGT_RD_DIRECT &&
				 (w->hdfgwtr_el2 & FGT_WR_PMU) == FGT_WR_DIRECT,
			 "%s: direct VM: HDFGRTR_EL2 0x%llx, HDFGWTR_EL2 0x%llx: not the event "
			 "types, PMCEID and PMMIR trapped and nothing else",
			 step_name, (unsigned long long)w->hdfgrtr_el2,
			 (unsigned long long)w->hdfgwtr_el2);
		break;
	case PASSTHROUGH:
		FZ_CHECK(!tpm && !tpmcr && hpmn == hw.hpmn && hpmn == m->pmu.nr_counters,
			 "%s: passthrough VM: MDCR_EL2 0x%llx, not TPM and TPMCR clear, HPMN = "
			 "N = %u",
			 step_name, (unsigned long long)mdcr, hw.hpmn);
		FZ_CHECK(!hw.fgt || ((w->hdfgrtr_el2_owned & FGT_RD_PMU) == FGT_RD_PMU &&
				     (w->hdfgwtr_el2_owned & FGT_WR_PMU) == FGT_WR_PMU &&
				     !(w->hdfgrtr_el2 & FGT_RD_PMU) &&
				     !(w->hdfgwtr_el2 & FGT_WR_PMU)),
			 "%s: passthrough VM: a PMU fine-grained trap set or left to the host",
			 step_name);
		break;
	}
	if (!hw.fgt)
		FZ_CHECK(!w->hdfgrtr_el2_owned && !w->hdfgwtr_el2_owned,
			 "%s: fine-grained trap words without FEAT_FGT", step_name);
}

/* The pCPU's registers: the trap words in effect, what no vCPU's state may leave behind, and
 * the loaded vCPU's own state; and no guest counter counting at EL2. */
static void check_pcpu(unsigned c)
{
	const struct pv_vcpu *v = cpu[c].loaded;
	enum mode md = v ? mode_of(v->vm) : TRAPPING;
	bool active = v && v->pmu.active;
	uint64_t mdcr, rt, wt;
	words_of(v, &mdcr, &rt, &wt);
	FZ_CHECK(CELL(c, PV_MDCR_EL2) == mdcr && CELL(c, PV_HDFGRTR_EL2) == rt &&
			 CELL(c, PV_HDFGWTR_EL2) == wt,
		 "%s: pCPU %u runs with MDCR_EL2 0x%llx HDFGRTR 0x%llx HDFGWTR 0x%llx, not the "
		 "trap words of what is loaded (0x%llx 0x%llx 0x%llx)",
		 step_name, c, (unsigned long long)CELL(c, PV_MDCR_EL2),
		 (unsigned long long)CELL(c, PV_HDFGRTR_EL2),
		 (unsigned long long)CELL(c, PV_HDFGWTR_EL2), (unsigned long long)mdcr,
		 (unsigned long long)rt, (unsigned long long)wt);
	if (hw.pmu_version == PV_PMUVER_NI)
		return; /* no PMU: nothing of it to switch */
	uint64_t userenr = CELL(c, PV_PMUSERENR_EL0), selr = CELL(c, PV_PMSELR_EL0);
	if (!active || md == TRAPPING)
		FZ_CHECK(userenr == PV_PMUSERENR_EN && selr == host_selr[c],
			 "%s: pCPU %u: PMUSERENR 0x%llx, PMSELR %llu, not the pCPU's own (EN, "
			 "%u) "
			 "with no direct or passthrough vCPU loaded",
			 step_name, c, (unsigned long long)userenr, (unsigned long long)selr,
			 host_selr[c]);
	uint32_t en = (uint32_t)CELL(c, PV_PMCNTENSET_EL0) & guest_bits;
	if (!active) {
		FZ_CHECK(!en && !(CELL(c, PV_PMOVSSET_EL0) & guest_bits),
			 "%s: pCPU %u: guest counters 0x%x enabled or overflows 0x%llx pending "
			 "with no active vCPU loaded",
			 step_name, c, en,
			 (unsigned long long)(CELL(c, PV_PMOVSSET_EL0) & guest_bits));
	} else if (md != PASSTHROUGH) {
		/* A trapping vCPU's enables and PMCR.E are kept by perfvisor (a direct one's
		 * are the guest's to write in the hardware); the types of both are the
		 * sanitised copies of what the guest wrote, and count no event the VM's
		 * filter denies, whatever path the guest took (P5). */
		const struct pv_vpmu *s = &v->pmu;
		uint32_t mask = v->vm->pmu.counter_mask;
		uint32_t inten = (uint32_t)CELL(c, PV_PMINTENSET_EL1) & mask;
		if (md == TRAPPING)
			FZ_CHECK(en == s->cnten && inten == inten_of(v) &&
					 !((CELL(c, PV_PMCR_EL0) ^ s->pmcr) & PV_PMCR_E),
				 "%s: pCPU %u: PMCNTEN 0x%x, PMINTEN 0x%x, PMCR 0x%llx: not "
				 "the loaded vCPU's (0x%x, 0x%x, E of 0x%llx)",
				 step_name, c, en, inten,
				 (unsigned long long)CELL(c, PV_PMCR_EL0), s->cnten,
				 inten_of(v), (unsigned long long)s->pmcr);
		for (unsigned k = 0; k < 32; k++) {
			if (k != CYC && k >= v->vm->pmu.nr_counters)
				continue;
			uint32_t key = k == CYC ? PV_PMCCFILTR_EL0 : PV_PMEVTYPER_EL0(k);
			FZ_CHECK(CELL(c, key) == s->hwtype[k],
				 "%s: pCPU %u: type %u is 0x%llx, the loaded vCPU's is 0x%llx",
				 step_name, c, k, (unsigned long long)CELL(c, key),
				 (unsigned long long)s->hwtype[k]);
			check_type(CELL(c, key), v->vm, k == CYC, k);
		}
	}
	for (unsigned k = 0; k < 32; k++) {
		if (!(guest_bits >> k & 1))
			continue;
		uint64_t type = CELL(c, k == CYC ? PV_PMCCFILTR_EL0 : PV_PMEVTYPER_EL0(k));
		FZ_CHECK(!counts_el2(c, k, type),
			 "%s: pCPU %u: counter %u (type 0x%llx) counts at EL2 under MDCR_EL2 "
			 "0x%llx",
			 step_name, c, k, (unsigned long long)type,
			 (unsigned long long)CELL(c, PV_MDCR_EL2));
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
			if (mode_of(&vm[i]) != TRAPPING) {
				/* Its state is the hardware's while it is loaded. */
				FZ_CHECK(!mv[i][j].line[PV_INTID_PMU] &&
						 (v->cpu || s->irq_level == level),
					 "%s: passthrough or direct vCPU %u.%u interrupt line "
					 "%d, level %d, architected level %d",
					 step_name, i, j, mv[i][j].line[PV_INTID_PMU],
					 s->irq_level, level);
			} else {
				FZ_CHECK(s->irq_level == level &&
						 mv[i][j].line[PV_INTID_PMU] == level,
					 "%s: vCPU %u.%u interrupt line %d, architected level "
					 "%d",
					 step_name, i, j, mv[i][j].line[PV_INTID_PMU], level);
			}
			uint32_t mask = vm[i].pmu.counter_mask;
			FZ_CHECK(!(s->cnten & ~mask) && !(s->inten & ~mask) &&
					 !(s->ovs & ~mask),
				 "%s: vCPU %u.%u bitmaps beyond its counters", step_name, i, j);
			FZ_CHECK(!v->cpu || v->cpu->loaded == v,
				 "%s: vCPU %u.%u load links broken", step_name, i, j);
			check_words(&vm[i], &v->traps);
		}
	}
	for (unsigned c = 0; c < NCPU; c++) {
		FZ_CHECK(!cpu[c].loaded || cpu[c].loaded->cpu == &cpu[c],
			 "%s: pCPU %u load links broken", step_name, c);
		check_pcpu(c);
	}
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

static struct pv_vcpu *pick_vcpu(struct fz *f)
{
	uint8_t b = fz_u8(f);
	unsigned i = b % NVM, j = (b >> 2) % NVCPU;
	for (unsigned k = 0; k < NVM && !vm_ok[i]; k++)
		i = (i + 1) % NVM;
	if (!vm_ok[i])
		return NULL;
	return &vc[i][j % nvcpu[i]];
}

static void snapshot_others(struct pv_vcpu out[NVM][NVCPU])
{
	memcpy(out, vc, sizeof(vc));
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

/* The hardware state of every pCPU with a passthrough or direct vCPU loaded (the rest:
 * zero). */
static void pt_snapshot(struct pstate out[NCPU])
{
	for (unsigned c = 0; c < NCPU; c++) {
		const struct pv_vcpu *v = cpu[c].loaded;
		if (direct_or_passthrough(v))
			hw_state(c, v->vm, &out[c]);
		else
			memset(&out[c], 0, sizeof(out[c]));
	}
}

/* A passthrough or direct guest's registers are its own: a call that is not its put, load
 * or access leaves them as they were; its own trap, the event types it wrote alone. */
static void pt_unchanged(const struct pstate before[NCPU], const struct pv_pcpu *except)
{
	for (unsigned c = 0; c < NCPU; c++) {
		const struct pv_vcpu *v = cpu[c].loaded;
		if (!direct_or_passthrough(v) || &cpu[c] == except)
			continue;
		struct pstate now;
		hw_state(c, v->vm, &now);
		check_same_state(&now, &before[c],
				 "a passthrough or direct guest's registers changed");
	}
}

static void types_only(const struct pv_vcpu *v, const struct pstate *before)
{
	struct pstate now;
	hw_state(cpu_index(v->cpu), v->vm, &now);
	memcpy(now.typ, before->typ, sizeof(now.typ));
	check_same_state(&now, before, "a direct guest's trap changed more than its types");
}

/* An EL0 access that reached EL2 (the hardware's PMUSERENR_EL0 is EN alone, or the direct
 * guest's own, which allowed it) is answered by the guest's own PMUSERENR_EL0 (`userenr`: a
 * loaded direct guest's is the hardware's) as the Arm ARM's rule for that register says
 * (D24.5): an EL1 register and a PMUSERENR_EL0 write are UNDEFINED at EL0, a register that
 * does not exist (direction, n >= N) UNDEFINED before any rule, and otherwise the access goes
 * to the guest's EL1 exactly when none of the register's bits is set. PMXEV* with SEL >= N is
 * left out: CONSTRAINED UNPREDICTABLE before FEAT_FGT. */
static void check_el0(const struct pv_vcpu *v, const struct preg *pr, unsigned n, unsigned selr,
		      uint8_t userenr, bool read, enum pv_trap_result r)
{
	unsigned N = v->vm->pmu.nr_counters;
	uint8_t need = read ? pr->el0_rd : pr->el0_wr;
	bool absent = (pr->acc == A_RO && !read) || (pr->acc == A_WO && read) ||
		      ((pr->kind == K_EVCNTR || pr->kind == K_EVTYPER) && n >= N);
	if (pr->el1 || (pr->kind == K_USERENR && !read) || absent) {
		FZ_CHECK(r == PV_TRAP_UNDEF,
			 "pv_trap: EL0 %s of PMU register kind %u answered %d",
			 read ? "read" : "write", pr->kind, (int)r);
		return;
	}
	if ((pr->kind == K_XEVCNTR || (pr->kind == K_XEVTYPER && selr != CYC)) && selr >= N)
		return;
	bool allowed = !need || (userenr & need);
	FZ_CHECK(allowed ? r == PV_TRAP_HANDLED : r == PV_TRAP_EL1_SYSREG,
		 "pv_trap: EL0 %s of PMU register kind %u with PMUSERENR 0x%x answered %d",
		 read ? "read" : "write", pr->kind, userenr, (int)r);
}

static void trap(struct pv_vcpu *v, uint32_t key, bool read, unsigned rt, unsigned el,
		 uint64_t val, uint8_t odd, struct fz *f)
{
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
	/* The SEL a PMXEV* access used and the PMUSERENR_EL0 that let EL0 through: a loaded
	 * passthrough or direct guest's are the hardware's. */
	bool pt_loaded = v->vm->pmu.passthrough && v->cpu;
	bool direct_loaded = v->vm->pmu.direct && v->cpu;
	uint8_t selr = owns_hw(v) ? (uint8_t)(CELL(cpu_index(v->cpu), PV_PMSELR_EL0) & 31)
				  : v->pmu.selr;
	uint8_t userenr = owns_hw(v) ? (uint8_t)CELL(cpu_index(v->cpu), PV_PMUSERENR_EL0)
				     : v->pmu.userenr;
	static struct pv_vcpu before[NVM][NVCPU];
	static struct pv_vcpu self;
	struct pstate pt_before[NCPU];
	snapshot_others(before);
	memcpy(&self, v, sizeof(self));
	pt_snapshot(pt_before);

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
	pt_unchanged(pt_before, direct_loaded ? v->cpu : NULL);
	if (direct_loaded)
		types_only(v, &pt_before[cpu_index(v->cpu)]);

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
	unsigned pn;
	const struct preg *pr = preg_of(key, &pn);
	if (sys64 && el == 0 && pr && has_pmu && !m->pmu.passthrough)
		check_el0(v, pr, pn, selr, userenr, read, r);
	if (pt_loaded && sys64 && d && d->kind == PV_KIND_PMU) {
		/* Nothing of its PMU traps but a counter past its N (FEAT_FGT), which UNDEFs;
		 * its state is the hardware's, which no answer changes. */
		FZ_CHECK(r == PV_TRAP_UNDEF,
			 "pv_trap: a loaded passthrough vCPU's PMU trap (key 0x%x, SEL %u) "
			 "answered %d",
			 key, selr, (int)r);
		FZ_CHECK(unchanged(&v->pmu, &self.pmu, sizeof(v->pmu)),
			 "pv_trap: a loaded passthrough vCPU's saved state changed by a trap");
	}
	if (direct_loaded && sys64 && d && d->kind == PV_KIND_PMU && !trapped_direct(key)) {
		/* Nothing of its PMU but the types, PMCEID and PMMIR traps; a counter past
		 * its N does, and UNDEFs: its registers are the hardware's. */
		FZ_CHECK(r == PV_TRAP_UNDEF,
			 "pv_trap: a loaded direct vCPU's trap of untrapped register 0x%x "
			 "(SEL %u) answered %d",
			 key, selr, (int)r);
		FZ_CHECK(unchanged(&v->pmu, &self.pmu, sizeof(v->pmu)),
			 "pv_trap: a loaded direct vCPU's saved state changed by an UNDEF");
	}
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

/* A guest access: a trapping vCPU's always reaches pv_trap(); a direct or passthrough
 * vCPU's goes where the hardware sends it. */
static void step_access(struct fz *f)
{
	struct pv_vcpu *v = pick_vcpu(f);
	uint32_t key = pick_key(f);
	uint8_t b = fz_u8(f);
	unsigned rt = b & 31;
	bool read = b & 32;
	unsigned el = (b >> 6) & 1;
	uint64_t val = fz_u64(f);
	uint8_t odd = fz_u8(f);
	if (!v)
		return;
	unsigned n, idx = CYC;
	const struct preg *r = preg_of(key, &n);
	if (mode_of(v->vm) == TRAPPING || !r || odd == 0xEC) {
		trap(v, key, read, rt, el, val, odd,
		     f); /* 0xEC: an exception of another class */
		return;
	}
	struct ctx x;
	ctx_of(v, &x);
	switch (route(r, n, &x, read, el, &idx)) {
	case TO_EL2:
		trap(v, key, read, rt, el, val, odd, f);
		break;
	case DIRECT_ACCESS:
		/* A direct guest's event types and PMCEID are the filter's: none reaches the
		 * hardware untrapped, by any path (P5). */
		FZ_CHECK(mode_of(v->vm) != DIRECT || !trapped_direct(key),
			 "a direct guest's %s of register 0x%x (kind %u) reached the hardware "
			 "untrapped",
			 read ? "read" : "write", key, r->kind);
		/* Only a loaded guest runs; its reads change nothing. */
		if (v->cpu && !read) {
			step_name = "a guest's own write";
			guest_write(cpu_index(v->cpu), r, idx, val, hpmn_of(x.mdcr));
		}
		break;
	default: /* UNDEFINED, or to the guest's EL1: the hardware's business */
		break;
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
	if (!v->cpu || direct_or_passthrough(v))
		return false; /* a passthrough or direct put saves its overflows as they are */
	return (CELL(cpu_index(v->cpu), PV_PMOVSSET_EL0) & v->vm->pmu.counter_mask) != 0;
}

/* The overflow status a vCPU's guest reads: saved, and still in the hardware. */
static uint32_t ovs_view(const struct pv_vcpu *v)
{
	uint32_t mask = v->vm->pmu.counter_mask;
	if (!v->cpu || !v->pmu.active)
		return v->pmu.ovs;
	uint32_t hw_ovs = (uint32_t)CELL(cpu_index(v->cpu), PV_PMOVSSET_EL0) & mask;
	return direct_or_passthrough(v) ? hw_ovs : v->pmu.ovs | hw_ovs;
}

/* A put (explicit): what the hardware holds after it, and what the vCPU saved. */
static void do_put(struct pv_vcpu *v)
{
	uint64_t a[32], b[32];
	bool exact = !overflow_pending(v);
	uint32_t ovs = ovs_view(v);
	counters_of(v, a);
	struct pstate held = {0}; /* read only when it owns the hardware, loaded */
	if (owns_hw(v))
		hw_state(cpu_index(v->cpu), v->vm, &held);
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(before);
	struct pstate pt_before[NCPU];
	pt_snapshot(pt_before);
	step_name = "pv_vcpu_put";
	allow(v->cpu, NULL, v, NULL);
	struct pv_pcpu *was = v->cpu;
	pv_vcpu_put(v);
	allow(NULL, NULL, NULL, NULL);
	check_others(v, NULL, before);
	pt_unchanged(pt_before, was);
	FZ_CHECK(!v->cpu && (!was || !was->loaded), "pv_vcpu_put: still loaded");
	if (was) {
		unsigned c = cpu_index(was);
		host_words(c, NULL);
		/* No count, enable or overflow of the guest's where the host or the next vCPU
		 * would see it (check_pcpu, after the step); a passthrough or direct guest's
		 * interrupt enables and PMCR.E too (a direct guest's counters are [0, N): the
		 * interrupt enables past them are another VM's, a trapping one's, which its put
		 * leaves, and its next load writes). */
		if (direct_or_passthrough(v)) {
			uint32_t own = v->vm->pmu.counter_mask;
			FZ_CHECK(!(CELL(c, PV_PMINTENSET_EL1) & own) &&
					 !(CELL(c, PV_PMCR_EL0) & PV_PMCR_E),
				 "pv_vcpu_put: a passthrough or direct guest's interrupt "
				 "enables 0x%llx or PMCR 0x%llx (E) left on pCPU %u",
				 (unsigned long long)(CELL(c, PV_PMINTENSET_EL1) & own),
				 (unsigned long long)CELL(c, PV_PMCR_EL0), c);
			struct pstate saved;
			saved_state(v, &saved);
			check_same_state(&saved, &held,
					 "a passthrough or direct put saved other than the "
					 "hardware held");
		}
	}
	/* A pending even counter's overflow may chain (and its CHAIN counter overflow). */
	FZ_CHECK((ovs_view(v) & ovs) == ovs && (!exact || ovs_view(v) == ovs),
		 "pv_vcpu_put: overflow status 0x%x became 0x%x", ovs, ovs_view(v));
	counters_of(v, b);
	if (exact)
		FZ_CHECK(unchanged(a, b, sizeof(a)),
			 "pv_vcpu_put: a counter changed across the put");
}

static void step_load(struct fz *f)
{
	struct pv_vcpu *v = pick_vcpu(f);
	uint8_t b = fz_u8(f);
	struct pv_pcpu *c = &cpu[b % NCPU];
	if (!v)
		return;
	if ((b & 2) && c->loaded && c->loaded != v)
		do_put(c->loaded); /* a host that puts before it loads */
	uint64_t a[32], bb[32];
	struct pv_vcpu *prev = c->loaded;
	struct pv_pcpu *was = v->cpu;
	bool exact = !overflow_pending(v) && !(prev && overflow_pending(prev));
	bool moves = was != c;
	uint32_t ovs = ovs_view(v);
	counters_of(v, a);
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(before);
	struct pstate pt_before[NCPU];
	pt_snapshot(pt_before);
	/* The host writes the vCPU's trap words first, then loads it. */
	unsigned ci = cpu_index(c);
	host_words(ci, v);
	step_name = "pv_vcpu_load";
	allow(c, v->cpu, v, prev);
	pv_vcpu_load(v, c);
	allow(NULL, NULL, NULL, NULL);
	if (was && was != c)
		host_words(cpu_index(was), NULL);
	check_others(v, prev, before);
	pt_unchanged(pt_before, moves ? c : NULL);
	FZ_CHECK(v->cpu == c && c->loaded == v, "pv_vcpu_load: not loaded");
	if (moves && v->pmu.active) {
		/* What the guest sees now is its own, and only its own: what it saved (at a
		 * put from another pCPU inside this load, if it was loaded there). */
		struct pstate saved;
		saved_state(v, &saved);
		if (direct_or_passthrough(v)) {
			struct pstate now;
			hw_state(ci, v->vm, &now);
			check_same_state(
				&now, &saved,
				"a passthrough or direct load gave the guest other than "
				"its own");
		} else {
			FZ_CHECK(!(CELL(ci, PV_PMOVSSET_EL0) & guest_bits),
				 "pv_vcpu_load: overflows 0x%llx pending that are not the "
				 "vCPU's",
				 (unsigned long long)(CELL(ci, PV_PMOVSSET_EL0) & guest_bits));
			for (unsigned k = 0; k < v->vm->pmu.nr_counters; k++)
				FZ_CHECK(CELL(ci, PV_PMEVCNTR_EL0(k)) == saved.cnt[k],
					 "pv_vcpu_load: counter %u holds 0x%llx, the vCPU's is "
					 "0x%llx",
					 k, (unsigned long long)CELL(ci, PV_PMEVCNTR_EL0(k)),
					 (unsigned long long)saved.cnt[k]);
			FZ_CHECK(CELL(ci, PV_PMCCNTR_EL0) == saved.cnt[CYC],
				 "pv_vcpu_load: the cycle counter is not the vCPU's");
		}
	}
	FZ_CHECK((ovs_view(v) & ovs) == ovs && (!exact || ovs_view(v) == ovs),
		 "pv_vcpu_load: overflow status 0x%x became 0x%x", ovs, ovs_view(v));
	counters_of(v, bb);
	if (exact)
		FZ_CHECK(unchanged(a, bb, sizeof(a)),
			 "pv_vcpu_load: a counter changed across the load");
}

static void step_put(struct fz *f)
{
	struct pv_vcpu *v = pick_vcpu(f);
	if (v)
		do_put(v);
}

static void step_irq(struct fz *f)
{
	unsigned ci = fz_u8(f) % NCPU;
	uint8_t b = fz_u8(f);
	uint32_t intid = b < 0xF0 ? PV_INTID_PMU : b;
	struct pv_pcpu *c = &cpu[ci];
	struct pv_vcpu *v = c->loaded;
	bool host = (CELL(ci, PV_PMOVSSET_EL0) & host_mask) != 0;
	bool pt = direct_or_passthrough(v);
	bool own = pt && (CELL(ci, PV_PMCR_EL0) & PV_PMCR_E) &&
		   (CELL(ci, PV_PMINTENSET_EL1) & CELL(ci, PV_PMOVSSET_EL0) &
		    v->vm->pmu.counter_mask);
	static struct pv_vcpu before[NVM][NVCPU];
	snapshot_others(before);
	struct pstate pt_before[NCPU];
	pt_snapshot(pt_before);
	step_name = "pv_irq";
	allow(c, NULL, v, NULL);
	enum pv_irq_result r = pv_irq(c, intid);
	allow(NULL, NULL, NULL, NULL);
	check_others(v, NULL, before);
	pt_unchanged(pt_before, NULL);
	if (intid != PV_INTID_PMU) {
		FZ_CHECK(r == PV_IRQ_NOT_MINE, "pv_irq: INTID %u answered %d", intid, (int)r);
		return;
	}
	enum pv_irq_result want = host  ? PV_IRQ_HOST_PENDING
				  : own ? PV_IRQ_GUEST_MAPPED
					: PV_IRQ_HANDLED;
	FZ_CHECK(r == want, "pv_irq: answered %d, expected %d (host overflow %s)", (int)r,
		 (int)want, host ? "pending" : "clear");
	if (v && v->pmu.active && !pt)
		FZ_CHECK(!(CELL(ci, PV_PMOVSSET_EL0) & v->vm->pmu.counter_mask),
			 "pv_irq: guest overflow flags left in hardware");
}

/* The operator's views of one vCPU: pv_vpmu_sync() and pv_vpmu_counter(). */
static void step_view(struct fz *f)
{
	struct pv_vcpu *v = pick_vcpu(f);
	if (!v)
		return;
	static struct pv_vcpu before[NVM][NVCPU];
	static struct pv_vcpu self;
	snapshot_others(before);
	memcpy(&self, v, sizeof(self));
	struct pstate pt_before[NCPU];
	pt_snapshot(pt_before);
	step_name = "pv_vpmu_sync";
	allow(v->cpu, NULL, v, NULL);
	pv_vpmu_sync(v);
	allow(NULL, NULL, NULL, NULL);
	check_others(v, NULL, before);
	pt_unchanged(pt_before, NULL);
	if (owns_hw(v)) {
		struct pstate now, saved;
		hw_state(cpu_index(v->cpu), v->vm, &now);
		saved_state(v, &saved);
		check_same_state(&saved, &now,
				 "pv_vpmu_sync read other than the hardware holds");
	} else {
		FZ_CHECK(unchanged(v, &self, sizeof(*v)),
			 "pv_vpmu_sync changed a vCPU that is not a loaded passthrough or "
			 "direct one");
	}
	/* What pv_vpmu_counter() reports is the vCPU's own counter: in the hardware while it
	 * is loaded and active, saved otherwise (a CHAIN counter folds first: read after). */
	step_name = "pv_vpmu_counter";
	uint64_t got[32];
	counters_of(v, got);
	check_others(v, NULL, before);
	const struct pv_vm_pmu *p = &v->vm->pmu;
	int c = v->cpu && v->pmu.active ? (int)cpu_index(v->cpu) : -1;
	for (unsigned k = 0; k < 32; k++) {
		uint64_t want = 0;
		if (k == CYC)
			want = c >= 0 ? CELL(c, PV_PMCCNTR_EL0) : v->pmu.ccntr;
		else if (k < p->nr_counters)
			want = (c >= 0 ? CELL(c, PV_PMEVCNTR_EL0(k)) : v->pmu.evcntr[k]) &
			       p->evcntr_mask;
		FZ_CHECK(got[k] == want, "pv_vpmu_counter(%u) = 0x%llx, the vCPU's is 0x%llx",
			 k, (unsigned long long)got[k], (unsigned long long)want);
	}
}

/* The hardware counts: enabled guest counters advance and overflow, host counters overflow;
 * the host uses its PMSELR_EL0 where no direct or passthrough vCPU is loaded. */
static void step_hw(struct fz *f)
{
	unsigned ci = fz_u8(f) % NCPU;
	uint8_t what = fz_u8(f);
	uint32_t bits = fz_u32(f);
	uint64_t delta = fz_u32(f);
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
			CELL(ci, key) = n == 31 ? now : counter_impl(now);
			if ((uint32_t)now < (uint32_t)old || (what & 4))
				ovs |= UINT64_C(1) << n;
		}
	}
	bitmap_store(ci, PV_PMOVSSET_EL0, ovs);
	if ((what & 8) && !direct_or_passthrough(cpu[ci].loaded)) {
		host_selr[ci] = (uint8_t)(bits >> 24) & 31;
		CELL(ci, PV_PMSELR_EL0) = host_selr[ci];
	}
}

/* ---- configuration ----------------------------------------------------------------------- */

static const uint8_t pmuvers[8] = {PV_PMUVER_V3,   PV_PMUVER_V3P1,  PV_PMUVER_V3P4,
				   PV_PMUVER_V3P5, PV_PMUVER_V3P5,  PV_PMUVER_V3P7,
				   PV_PMUVER_NI,   PV_PMUVER_IMPDEF};

/* The host's own trap words (its fields outside what a VM owns, and while no vCPU runs):
 * any of the PMU's, so that a VM's words must own each field they need. */
static void host_config(struct fz *f)
{
	uint8_t m = fz_u8(f), g = fz_u8(f), s = fz_u8(f);
	hyp_mdcr = PV_FIELD_PREP(PV_MDCR_EL2_HPMN, hw.hpmn) | ((m & 1) ? PV_MDCR_EL2_TPM : 0) |
		   ((m & 2) ? PV_MDCR_EL2_TPMCR : 0) | ((m & 4) ? PV_MDCR_EL2_HPMD : 0) |
		   ((m & 8) ? PV_MDCR_EL2_HCCD : 0) | ((m & 16) ? PV_MDCR_EL2_MTPME : 0) |
		   ((m & 32) ? PV_MDCR_EL2_HPME : 0) | ((m & 64) ? PV_MDCR_EL2_HLP : 0);
	hyp_hdfgrtr = hyp_hdfgwtr = 0;
	if (hw.fgt_words) {
		hyp_hdfgrtr = (g & 1) ? FGT_RD_PMU : (g & 2) ? ~UINT64_C(0) : 0;
		hyp_hdfgwtr = (g & 4) ? FGT_WR_PMU : (g & 8) ? ~UINT64_C(0) : 0;
	}
	for (unsigned c = 0; c < NCPU; c++) {
		host_selr[c] = (uint8_t)((s + 7 * c) & 31);
		CELL(c, PV_PMSELR_EL0) = host_selr[c];
		host_words(c, NULL);
	}
}

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
	/* A host that applies the fine-grained words says so (vpmu.md, "Direct counter
	 * access"); only with FEAT_FGT, whose registers it needs. */
	hw.fgt_words = hw.fgt && (b2 & 16);
	host_mask = hw.pmu_version == PV_PMUVER_NI ? 0
						   : (uint32_t)((PV_BIT(hw.pmu_counters) - 1) &
								~(PV_BIT(hw.hpmn) - 1));
	guest_bits = (uint32_t)(PV_BIT(hw.hpmn) - 1) | (1u << CYC);
	/* The host's own counters, as it left them before the guests came. */
	uint32_t hen = fz_u32(f), hint = fz_u32(f), hovs = fz_u32(f);
	host_config(f);
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
		bitmap_store(c, PV_PMCNTENSET_EL0, host_en[c]);
		bitmap_store(c, PV_PMINTENSET_EL1, host_inten[c]);
		bitmap_store(c, PV_PMOVSSET_EL0, host_ovs[c]);
		step_name = "pv_pcpu_setup";
		allow(&cpu[c], NULL, NULL, NULL);
		pv_pcpu_setup(&cpu[c], &hw);
		allow(NULL, NULL, NULL, NULL);
	}
	return 0;
}

static bool offered(unsigned v)
{
	return v == PV_PMUVER_V3 || v == PV_PMUVER_V3P1 || v == PV_PMUVER_V3P4 ||
	       v == PV_PMUVER_V3P5;
}

/* "Fitted": a configuration made to meet what its mode needs on this machine, so that the
 * modes are reached often (docs/vpmu.md: passthrough needs the hardware's PMUVer, N = HPMN
 * and no filter; direct access the hardware's PMUVer and a counter). */
static void fit(struct pv_vm_config *cfg)
{
	cfg->features |= PV_FEAT_PMU;
	if (cfg->pmu.passthrough) {
		cfg->pmu.version = offered(hw.pmu_version) ? hw.pmu_version : PV_PMUVER_V3P5;
		cfg->pmu.nr_counters = hw.hpmn;
		cfg->pmu.nr_filters = 0;
	} else if (cfg->pmu.direct) {
		cfg->pmu.version = offered(hw.pmu_version) ? hw.pmu_version : PV_PMUVER_V3P5;
		if (!cfg->pmu.nr_counters && hw.hpmn)
			cfg->pmu.nr_counters = 1;
	}
}

/* The mode docs/vpmu.md gives a VM: passthrough where the hardware's PMU (PMUv3p5 exactly,
 * HCCD) is the one the VM was given (its PMUVer, N = HPMN >= 1: FEAT_HPMN0 is not used, no
 * filter); else direct where the host applies the fine-grained words, with a counter and the
 * hardware's PMUVer (its PMCR_EL0, counters and PMUSERENR_EL0 are the hardware's); else
 * trapping. */
static void check_mode(const struct pv_vm *m, const struct pv_vm_config *cfg)
{
	bool pmu = cfg->features & PV_FEAT_PMU;
	const struct pv_pmu_config *c = &cfg->pmu;
	bool pt = pmu && c->passthrough && hw.pmu_version == PV_PMUVER_V3P5 &&
		  c->version == hw.pmu_version && c->nr_counters == hw.hpmn &&
		  c->nr_filters == 0 && c->nr_counters >= 1;
	bool direct = pmu && !pt && c->direct && hw.fgt && hw.fgt_words &&
		      c->nr_counters >= 1 && c->version == hw.pmu_version;
	FZ_CHECK(m->pmu.passthrough == pt && m->pmu.direct == direct,
		 "pv_vm_init: passthrough %d direct %d, docs/vpmu.md says %d %d",
		 m->pmu.passthrough, m->pmu.direct, pt, direct);
}

/* The VMs. A first byte with bit 0 set mixes the modes: VM i asks for mode (first + i) % 3
 * (trapping, direct, passthrough), fitted to it, so that VMs of every mode share the pCPUs;
 * otherwise each VM's own bytes say. */
static void vms(struct fz *f)
{
	uint8_t plan = fz_u8(f);
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
		uint8_t ver = fz_u8(f);
		cfg.pmu.version = pmuvers[ver & 7];
		cfg.pmu.direct = (ver >> 3) & 1;
		cfg.pmu.passthrough = (ver >> 4) & 1;
		cfg.pmu.nr_counters = (uint8_t)(fz_u8(f) % (hw.hpmn + 2u));
		uint8_t nf = fz_u8(f);
		cfg.pmu.nr_filters = nf == 0xFF ? 33 : nf % 5;
		for (unsigned k = 0; k < cfg.pmu.nr_filters && k < PV_PMU_MAX_FILTERS; k++) {
			cfg.pmu.filters[k].base_event = fz_u16(f);
			cfg.pmu.filters[k].nevents = (uint16_t)(fz_u8(f) | (fz_u8(f) & 1) << 8);
			uint8_t act = fz_u8(f);
			cfg.pmu.filters[k].action = act < 0xFE ? (act & 1) : act;
		}
		if (plan & 1) {
			unsigned md = ((plan >> 1) + i) % 3;
			cfg.pmu.direct = md == DIRECT;
			cfg.pmu.passthrough = md == PASSTHROUGH;
		}
		if ((plan & 1) || ((ver >> 5) & 1))
			fit(&cfg);
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
		check_mode(&vm[i], &cfg);
		check_words(&vm[i], &vm[i].traps);
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
	memset(&hw, 0, sizeof(hw));
	if (machine(&f))
		return 0;
	vms(&f);
	check_host();
	check_vcpus();
	unsigned steps = 0;
	while (fz_left(&f) && steps++ < 4096) {
		uint8_t op = fz_u8(&f);
		switch (op % 12) {
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
		case 9:
			step_hw(&f);
			break;
		case 10:
			step_view(&f);
			break;
		default:
			step_access(&f);
			break;
		}
		check_host();
		check_vcpus();
	}
	checking = false;
	return 0;
}
