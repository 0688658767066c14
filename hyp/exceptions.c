/* SPDX-License-Identifier: MIT */
/*
 * Exceptions from the guest, by ESR_EL2.EC (Arm ARM D24.2): HVC and trapped SMC (PSCI),
 * trapped system registers (the library first: pv_trap), stage-2 data aborts (emulated MMIO
 * or an external abort), WFI (yield), and physical interrupts. Anything else the guest causes
 * is answered with an Undefined Instruction exception; nothing it does stops the hypervisor.
 */
#include "hyp.h"
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"

#define EC_WFX 0x01
#define EC_IABT_LOW 0x20
#define EC_DABT_LOW 0x24
#define HYP_CALL_NULL 0xC6000000ul /* vendor hypervisor service 0: returns at once */
/* Vendor hypervisor services 1 and 2 (SMCCC, DEN 0028): the balloon's give-back of the page
 * at IPA x1 (unmapped at stage 2; refused while it is pinned) and its take-back; x0 is
 * enum s2_result (0: done). */
#define HYP_CALL_BALLOON_GIVE 0xC6000001ul
#define HYP_CALL_BALLOON_TAKE 0xC6000002ul

static struct frame *finish(struct vcpu *v, enum exit_kind kind, struct vcpu *next)
{
	if (hyp.switched) {
		kind = EXIT_SWITCH;
		hyp.switched = false;
	}
	selfcount_account(v, kind);
	return &next->f;
}

/* Registers perfvisor's library does not own. */
static __attribute__((noinline)) void hyp_sysreg(struct vcpu *v, uint64_t esr)
{
	struct pv_sys_access a = {0};
	pv_decode_sys(esr, &a);
	uint64_t *rt = a.rt == 31 ? NULL : &v->f.x[a.rt];
	/* A debug register, trapped until the vCPU's first access: what MDCR_EL2.TDA and TDOSA
	 * trap, Op0 = 2 with Op1 = 0 and CRn 0, 1 or 7, or Op1 = 3 and CRn 0 (the EL0 DCC). */
	unsigned op1 = PV_SYSREG_OP1(a.key), crn = PV_SYSREG_CRN(a.key);
	if (PV_SYSREG_OP0(a.key) == 2 &&
	    ((op1 == 0 && (crn == 0 || crn == 1 || crn == 7)) || (op1 == 3 && crn == 0)) &&
	    vcpu_regs_debug_trap(v))
		return;
	if (!a.is_read && vgic_sgi_sysreg(v, a.key, rt ? *rt : 0)) {
		skip_instr(v);
		return;
	}
	/* CNTP_TVAL/CTL/CVAL_EL0 trap (CNTHCTL_EL2.EL1PCEN = 0): an EL1 physical timer that
	 * never fires, RAZ/WI. */
	if ((a.key & ~(7u << PV_ISS_SYS_OP2_SHIFT)) == PV_SYSREG(3, 3, 14, 2, 0) &&
	    PV_SYSREG_OP2(a.key) <= 2) {
		if (a.is_read && rt)
			*rt = 0;
		skip_instr(v);
		return;
	}
	inject_undef(v);
}

/* A trapped register perfvisor's library did not answer with HANDLED. ESR_EL2 still holds
 * its syndrome: nothing has been taken at EL2 since. An UNDEF or EL1 answer is still a trap
 * the library took and counted; a register it does not own is the hypervisor's. */
static __attribute__((noinline)) void sysreg_refused(struct vcpu *v, enum pv_trap_result r,
						     enum exit_kind kind)
{
	uint64_t esr = read_sysreg(esr_el2);
	switch (r) {
	case PV_TRAP_UNDEF:
		v->pv_undef++;
		inject_undef(v);
		break;
	case PV_TRAP_EL1_SYSREG: /* same syndrome, now for the guest's EL1 */
		v->pv_el1++;
		inject_sync(v, esr, 0, false);
		break;
	default: /* PV_TRAP_UNKNOWN */
		hyp_sysreg(v, esr);
		selfcount_account(v, EXIT_SYSREG_OTHER);
		return;
	}
	selfcount_charge(v, kind);
}

/* A trapped register, the library first: the ID group (Op0 = 3, Op1 = 0, CRn = 0) or, since
 * VMs are given the PMU alone, a PMUv3 register (Op1 = 3, CRn = 9 or 14; PMINTEN and PMMIR
 * at Op1 = 0, CRn = 9). The library counts the trap (pv_vcpu_stats.traps, which the report
 * shows as these exits); the hypervisor charges its instructions, with a constant kind. The
 * syndrome is not needed once the library has it. */
static inline void sysreg(struct vcpu *v, uint64_t esr, enum exit_kind kind)
{
	unsigned el = (v->f.spsr >> 2) & 3; /* SPSR_EL2.M[3:2]: 0 or 1, EL2 never traps here */
	enum pv_trap_result r = pv_trap_sys64(&v->pv, esr, el, v->f.x);
	if (r != PV_TRAP_HANDLED) {
		sysreg_refused(v, r, kind);
		return;
	}
	skip_instr(v);
	selfcount_charge_own(v, kind);
}

/* The ID group is read at boot, the PMU all the time: the ID group's accesses are told
 * apart before the call, out of the PMU's way. */
static __attribute__((noinline)) void sysreg_id(struct vcpu *v, uint64_t esr)
{
	sysreg(v, esr, EXIT_SYSREG_ID);
}

/* Stage-2 data abort (ESR_EL2 ISS for a Data Abort, Arm ARM D24.2): with a valid syndrome
 * (ISV) the access is emulated if it hits the UART or the GIC; everything else, and any access
 * the syndrome cannot describe (ISV = 0, a stage-1 walk), is a synchronous external abort. */
/* The devices behind the UART, the hot one: out of line, so that the UART's path keeps its
 * registers. EXIT_MMIO_OTHER: none of them. */
static __attribute__((noinline)) enum exit_kind rarer_mmio(struct vcpu *v, uint64_t ipa,
							   bool wnr, unsigned size,
							   uint64_t *val)
{
	if (vgic_mmio(v, ipa, wnr, size, val))
		return EXIT_MMIO_GIC;
	if (selfcount_mmio(v, ipa, wnr, size, val))
		return EXIT_MMIO_SELFCOUNT;
	return EXIT_MMIO_OTHER;
}

static enum exit_kind mmio(struct vcpu *v, uint64_t esr)
{
	uint32_t iss = PV_ESR_ISS(esr);
	uint64_t far = read_sysreg(far_el2);
	uint64_t ipa = ((read_sysreg(hpfar_el2) >> 4) << 12) | (far & 0xFFF);
	bool isv = iss & (1u << 24), s1ptw = iss & (1u << 7), wnr = iss & (1u << 6);
	if (!isv || s1ptw) {
		inject_abort(v, true, far, wnr);
		return EXIT_MMIO_OTHER;
	}
	unsigned sas = (iss >> 22) & 3, srt = (iss >> 16) & 31;
	bool sse = iss & (1u << 21), sf = iss & (1u << 15);
	unsigned size = 1u << sas;
	uint64_t mask = size == 8 ? ~0ul : (1ul << (8 * size)) - 1;
	uint64_t val = wnr && srt != 31 ? v->f.x[srt] & mask : 0;
	enum exit_kind kind = EXIT_MMIO_UART;
	if (!uart_mmio(v, ipa, wnr, size, &val)) {
		kind = rarer_mmio(v, ipa, wnr, size, &val);
		if (kind == EXIT_MMIO_OTHER) {
			inject_abort(v, true, far, wnr);
			return kind;
		}
	}
	if (!wnr && srt != 31) {
		val &= mask;
		if (sse && size < 8 && (val >> (8 * size - 1)) & 1)
			val |= ~mask;
		if (!sf)
			val &= 0xFFFFFFFFul;
		v->f.x[srt] = val;
	}
	skip_instr(v);
	qemu72_retire_emulated(&v->pv, (v->f.spsr & 0xC) ? 1 : 0);
	return kind;
}

/* An instruction fetch outside the VM's RAM is an instruction abort for the guest, unless
 * the fetch is of the guest's own exception vectors: then every abort would recurse, the
 * VM can never run again, and it is ended. */
static struct vcpu *fetch_abort(struct vcpu *v)
{
	uint64_t far = read_sysreg(far_el2), vbar = read_sysreg(S3_0_C12_C0_0);
	if (far - vbar < 0x800)
		return vm_end(v, "ended: its exception vectors are outside its memory");
	inject_abort(v, false, far, false);
	return v;
}

/* AArch32 EL0. The guest's EL1 is AArch64 (HCR_EL2.RW = 1), so what EL2 takes from its EL0
 * comes through the lower-EL AArch64 vectors whatever state EL0 runs in (Arm ARM D1.4.1.6,
 * the vector by the state of the EL below EL2), but where the PE has AArch32 at EL0
 * (ID_AA64PFR0_EL1.EL0 = 0b0010) an instruction trapped from there is 2 or 4 bytes
 * (ESR_EL2.IL), and one in a T32 IT block advances ITSTATE as it completes (ITAdvance():
 * SPSR_EL2.IT[7:2] in bits [15:10], IT[1:0] in [26:25]). */
#define SPSR_M_AARCH32 (1ul << 4)
#define SPSR_A32_T (1ul << 5)
static void skip_instr32(struct vcpu *v, uint64_t esr)
{
	uint64_t spsr = v->f.spsr & ~SPSR_SS;
	unsigned it = (unsigned)(((spsr >> 8) & 0xFC) | ((spsr >> 25) & 3));
	v->f.elr += (esr & PV_ESR_IL) ? 4 : 2;
	if ((spsr & SPSR_A32_T) && it) {
		it = (it & 7) == 0 ? 0 : (it & 0xE0) | ((it << 1) & 0x1F);
		spsr &= ~((0x3Ful << 10) | (3ul << 25));
		spsr |= ((uint64_t)(it & 0xFC) << 8) | ((uint64_t)(it & 3) << 25);
	}
	v->f.spsr = spsr;
}

/* UNDEFINED at the guest's EL1: EC 0x00 with the trapped instruction's IL. */
static void undef32(struct vcpu *v, uint64_t esr)
{
	v->injected_undef++;
	inject_sync(v, esr & PV_ESR_IL, 0, false);
}

/* A synchronous exception from AArch32 EL0: a WFI (HCR_EL2.TWI, where the guest's EL1 lets
 * EL0 run one: SCTLR_EL1.nTWI), a fetch or access outside the VM's memory (an external abort:
 * the emulated devices are for AArch64), a debug register's first access (MDCR_EL2.TDA: cp14,
 * EC 0x05, 0x06, 0x0C), and what the VM has not been given (a PMU register by MDCR_EL2.TPM,
 * EC 0x03: perfvisor gives no AArch32 PMU, ID_DFR0_EL1.PerfMon, so UNDEFINED, with the
 * instruction's own length). */
static __attribute__((noinline)) struct frame *sync_aarch32(struct vcpu *v, uint64_t esr)
{
	struct vcpu *next = v;
	enum exit_kind kind = EXIT_OTHER;
	switch (PV_ESR_EC(esr)) {
	case EC_WFX:
		skip_instr32(v, esr);
		kind = EXIT_WFI;
		next = (esr & 3) == 0 ? sched_wfi(v) : sched_next(v);
		break;
	case EC_DABT_LOW:
	case EC_IABT_LOW:
		inject_abort(v, PV_ESR_EC(esr) == EC_DABT_LOW, read_sysreg(far_el2),
			     (esr & (1ul << 6)) != 0);
		break;
	case 0x05: /* MCR/MRC to CP14 */
	case 0x06: /* LDC/STC to CP14 */
	case 0x0C: /* MRRC to CP14 */
		/* The first: the instruction runs again, untrapped. Later ones: as below. */
		if (!vcpu_regs_debug_trap(v))
			undef32(v, esr);
		break;
	default:
		undef32(v, esr);
		break;
	}
	return finish(v, kind, next);
}

/* The synchronous exceptions off the hot paths; any of these may switch vCPUs. ESR_EL2 is
 * read again here, so that the hot paths need not keep it. */
static __attribute__((noinline)) struct frame *sync_slow(struct vcpu *v)
{
	uint64_t esr = read_sysreg(esr_el2);
	struct vcpu *next = v;
	enum exit_kind kind;
	if (v->f.spsr & SPSR_M_AARCH32) /* none of the hot paths' exceptions come from there */
		return sync_aarch32(v, esr);
	switch (PV_ESR_EC(esr)) {
	case PV_EC_HVC64:
		if (v->f.x[0] == HYP_CALL_BALLOON_GIVE || v->f.x[0] == HYP_CALL_BALLOON_TAKE) {
			kind = EXIT_HVC_BALLOON;
			v->f.x[0] = v->f.x[0] == HYP_CALL_BALLOON_GIVE
					    ? stage2_unmap_page(v->vm, v->f.x[1])
					    : stage2_map_page(v->vm, v->f.x[1]);
			break;
		}
		kind = EXIT_HVC;
		next = psci_call(v, false);
		break;
	case PV_EC_SMC64: /* trapped by HCR_EL2.TSC: ELR_EL2 is the SMC itself */
		skip_instr(v);
		kind = EXIT_SMC;
		next = psci_call(v, true);
		break;
	case EC_DABT_LOW:
		kind = mmio(v, esr);
		break;
	case EC_IABT_LOW: /* fetch outside the VM's RAM */
		kind = EXIT_OTHER;
		next = fetch_abort(v);
		break;
	case EC_WFX: /* WFI (HCR_EL2.TWI): the vCPU waits for a wake-up event (sched.c) */
		skip_instr(v);
		kind = EXIT_WFI;
		/* ISS.TI = 0: WFI. WFIT (TI = 2) has a timeout of its own: it returns at once. */
		next = (esr & 3) == 0 ? sched_wfi(v) : sched_next(v);
		break;
	default: /* SVE/SME (CPTR_EL2), and whatever else reaches EL2: UNDEF */
		inject_undef(v);
		kind = EXIT_OTHER;
		break;
	}
	return finish(v, kind, next);
}

/* The hot paths, trapped system registers and the null hypercall, never switch vCPUs: they
 * are accounted directly, and the rest goes to sync_slow. The vector gives ESR_EL2 (the fast
 * one has read it already). */
struct frame *exc_lower_sync(struct frame *f, uint64_t esr)
{
	struct vcpu *v = (struct vcpu *)f;
	unsigned ec = PV_ESR_EC(esr);
	if (ec == PV_EC_SYS64) {
		if (PV_SYSREG_CRN(PV_ESR_ISS(esr)) == 0)
			sysreg_id(v, esr);
		else
			sysreg(v, esr, EXIT_SYSREG_PMU);
		return f;
	}
	if (ec == PV_EC_HVC64 && f->x[0] == HYP_CALL_NULL) {
		f->x[0] = 0;
		v->exits[EXIT_HVC_NULL]++;
		selfcount_charge_own(v, EXIT_HVC_NULL);
		return f;
	}
	return sync_slow(v);
}

static inline __attribute__((always_inline)) struct frame *lower_irq(struct vcpu *v,
								     uint32_t intid)
{
	struct vcpu *next = v;
	enum exit_kind kind;
	if (intid != INTID_HYPTIMER)
		return finish(v, sched_device_irq(v, intid), next);
	write_sysreg(S3_4_C14_C2_1, 0ul); /* CNTHP_CTL_EL2: drop the level */
	gic_eoi(intid);
	/* A guest that turned its timer off with interrupts masked left its line pending, and a
	 * pending interrupt makes WFI complete without trapping: resample it at every tick. */
	vtimer_sync(v);
	if (!timer_slice_over()) { /* an overflow poll (timer.c) */
		kind = EXIT_IRQ_POLL;
		timer_program();
		return finish(v, kind, next);
	}
	kind = EXIT_IRQ_TICK;
	records_check();
	sched_check_limit();
	next = sched_next(v);
	if (next == v)
		timer_rearm();
	return finish(v, kind, next);
}

struct frame *exc_lower_irq(struct frame *f)
{
	return lower_irq((struct vcpu *)f, gic_ack());
}

/* The fast vector acknowledged it already (vectors.S). */
struct frame *exc_lower_irq_acked(struct frame *f)
{
	struct vcpu *v = (struct vcpu *)f;
	return lower_irq(v, v->irq_acked);
}

/* A physical SError while the guest ran: reflected as a virtual SError (HCR_EL2.VSE). */
struct frame *exc_lower_serror(struct frame *f)
{
	struct vcpu *v = (struct vcpu *)f;
	write_sysreg(hcr_el2, read_sysreg(hcr_el2) | (1ul << 8));
	return finish(v, EXIT_OTHER, v);
}

void exc_current(uint64_t kind, uint64_t esr, uint64_t elr, uint64_t far)
{
	hyp_panic("exception %lu taken at EL2: ESR_EL2 %lx ELR_EL2 %lx FAR_EL2 %lx", kind, esr,
		  elr, far);
}
