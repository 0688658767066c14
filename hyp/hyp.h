/* SPDX-License-Identifier: MIT */
/*
 * perfvisor's reference EL2 hypervisor for QEMU `virt` (virtualization=on, gic-version=3):
 * internal types and the platform's memory map. One physical CPU, several single-vCPU VMs.
 */
#ifndef HYP_H
#define HYP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "perfvisor/perfvisor.h"
#include "qemu72.h" /* el2/: QEMU 7.2 workarounds */

/* ---- QEMU virt memory map (physical, and the same IPAs inside every VM) ------------------ */
#define UART_BASE 0x09000000ul
#define GICD_BASE 0x08000000ul
#define SELFCOUNT_IPA 0x0A000000ul /* the self-count page of every VM (selfcount.c) */
#define GICR_BASE 0x080A0000ul     /* RD_base of CPU 0; its SGI_base frame follows at +64 KiB */
#define GICR_SGI_BASE (GICR_BASE + 0x10000ul)
#define RAM_BASE 0x40000000ul

/* Each VM k owns VM_RAM_SIZE bytes of physical RAM at VM_SLOT(k), seen by the guest at IPA
 * RAM_BASE. Its image is loaded (by QEMU's -device loader) at VM_SLOT(k) + VM_IMAGE_OFF and
 * the hypervisor writes the VM's device tree in a 2 MiB block of its own above the image and
 * initrd, as QEMU and kvmtool place it (main.c, place_dtb). Slots run to the end of the RAM
 * QEMU was given (-m: 1 GiB holds 14, 3 GiB the 32 of MAX_VMS). */
#define MAX_VMS 32
#define VM_RAM_SIZE 0x04000000ul
#define VM_SLOT(k) (0x48000000ul + VM_RAM_SIZE * (uint64_t)(k))
#define VM_IMAGE_OFF 0x200000ul
#define VM_DTB_BLOCK 0x200000ul /* Linux booting.rst: at most 2 MiB, alone in its 2 MiB block */
#define VM_DTB_MAX 0x10000ul
#define SPE_MAX_BUFFER (64ul << 20) /* the largest profiling buffer a vCPU may have pinned */
#define GUEST_ARGS_MAX 512 /* bootargs after "--": every VM's /chosen/bootargs, as they are */

/* Interrupts (GIC INTIDs): PPIs of the virt board. */
#define INTID_MAINT 25 /* GIC virtual CPU interface maintenance */
/* INTID_HYPTIMER (26, CNTHP, EL2 physical timer: the scheduler tick) is in frame.h. */
#define INTID_VTIMER 27 /* CNTV, EL1 virtual timer */
#define INTID_SPURIOUS 1023

/* ---- Per-vCPU state ------------------------------------------------------------------- */

/* The guest's general registers as saved by vectors.S; SP_EL2 points here while the guest
 * runs (16-byte aligned, as a stack pointer). */
struct frame {
	uint64_t x[31];
	uint64_t elr, spsr;
} __attribute__((aligned(16)));
_Static_assert(offsetof(struct frame, x[30]) == FRAME_X30, "frame.h: x30");
_Static_assert(offsetof(struct frame, elr) == FRAME_ELR, "frame.h: ELR_EL2");
_Static_assert(offsetof(struct frame, spsr) == FRAME_SPSR, "frame.h: SPSR_EL2");
_Static_assert(offsetof(struct pv_vpmu_fast, el0) == FAST_EL0 - VCPU_FAST &&
		       offsetof(struct pv_vpmu_fast, el1) == FAST_EL1 - VCPU_FAST &&
		       offsetof(struct pv_vpmu_fast, xev_el0) == FAST_XEV_EL0 - VCPU_FAST &&
		       offsetof(struct pv_vpmu_fast, xev_el1) == FAST_XEV_EL1 - VCPU_FAST,
	       "frame.h: the fast word's fields");
_Static_assert(offsetof(struct pv_vcpu, stats.traps[PV_KIND_PMU]) == VCPU_PMU_TRAPS - VCPU_FAST,
	       "frame.h: the PMU trap count");

/* SPSR_EL2.SS and BTYPE: cleared when a trapped instruction is completed by emulation
 * (skip_instr). */
#define SPSR_SS (1ul << 21)
#define SPSR_BTYPE (3ul << 10)
#define FAST_KEY(key)                                                                          \
	((PV_EC_SYS64 << PV_ESR_EC_SHIFT) | PV_ESR_IL | (key) | PV_ISS_SYS_DIR_READ)
_Static_assert(FAST_KEY(PV_PMCCNTR_EL0) == FAST_KEY_PMCCNTR &&
		       FAST_KEY(PV_PMXEVCNTR_EL0) == FAST_KEY_PMXEVCNTR &&
		       FAST_KEY(PV_PMEVCNTR_EL0(0)) == FAST_KEY_PMEVCNTR,
	       "frame.h: the fast path's syndromes");

/* EL1/EL0 system registers switched with the vCPU (Arm ARM D1, the EL1&0 regime state; D24.2). */
/* clang-format off */
#define EL1_REGS(X)                                                                              \
	X(sctlr, S3_0_C1_C0_0) X(cpacr, S3_0_C1_C0_2) X(ttbr0, S3_0_C2_C0_0)                     \
	X(ttbr1, S3_0_C2_C0_1) X(tcr, S3_0_C2_C0_2) X(esr, S3_0_C5_C2_0)                         \
	X(afsr0, S3_0_C5_C1_0) X(afsr1, S3_0_C5_C1_1) X(far, S3_0_C6_C0_0)                       \
	X(par, S3_0_C7_C4_0) X(mair, S3_0_C10_C2_0) X(amair, S3_0_C10_C3_0)                      \
	X(vbar, S3_0_C12_C0_0) X(contextidr, S3_0_C13_C0_1) X(tpidr_el1, S3_0_C13_C0_4)          \
	X(cntkctl, S3_0_C14_C1_0) X(csselr, S3_2_C0_C0_0) X(tpidr_el0, S3_3_C13_C0_2)            \
	X(tpidrro_el0, S3_3_C13_C0_3) X(elr, S3_0_C4_C0_1) X(spsr, S3_0_C4_C0_0)                 \
	X(sp_el0, S3_0_C4_C1_0) X(sp_el1, S3_4_C4_C1_0) X(mdscr, S2_0_C0_C2_2)                   \
	X(cntv_ctl, S3_3_C14_C3_1) X(cntv_cval, S3_3_C14_C3_2)
/* clang-format on */

struct el1_regs {
#define EL1_FIELD(name, enc) uint64_t name;
	EL1_REGS(EL1_FIELD)
#undef EL1_FIELD
};

/* The self-hosted debug registers (vcpu_regs.c). */
struct dbg_regs {
	uint64_t bvr[16], bcr[16], wvr[16], wcr[16];
	uint64_t oslsr, osdlr, mdccint;
};

struct fpsimd {
	uint64_t q[64]; /* V0..V31, 128 bits each */
	uint64_t fpsr, fpcr;
};

#define NR_LR_MAX 16
#define VGIC_NR_IRQS 64 /* SGIs, PPIs and SPIs 32..63 (GICD_TYPER.ITLinesNumber = 1) */
#define INTID_UART 33   /* the PL011's SPI, as on QEMU virt (SPI 1) */
struct vgic_cpu {
	/* Virtual distributor / redistributor state (emulated MMIO), one bit per INTID:
	 * SGIs and PPIs from the redistributor, SPIs from the distributor. */
	uint32_t gicd_ctlr;  /* EnableGrp0 (bit 0), EnableGrp1 (bit 1) */
	uint32_t waker;      /* GICR_WAKER.ProcessorSleep */
	uint64_t group;      /* GICR_IGROUPR0, GICD_IGROUPR1 */
	uint64_t enabled;    /* GICR_ISENABLER0, GICD_ISENABLER1 */
	uint64_t line;       /* level of each PPI's and SPI's input (driven by devices) */
	uint64_t latch;      /* software pending (ISPENDR, SGIs) */
	uint32_t spi_cfg[2]; /* GICD_ICFGR2/3: edge (1) or level (0) per SPI, as written */
	uint32_t spi_route[VGIC_NR_IRQS - 32]; /* GICD_IROUTER<n>: Aff0..Aff2, IRM */
	uint8_t prio[VGIC_NR_IRQS]; /* GICR_IPRIORITYR<n>, GICD_IPRIORITYR<n> bytes */
	/* Virtual CPU interface state, in hardware while the vCPU is loaded. */
	uint64_t lr[NR_LR_MAX];
	uint64_t vmcr, ap0r0, ap1r0;
	bool hw;         /* list registers live in hardware (between restore and save) */
	bool pmu_masked; /* the physical PMU PPI is disabled for this vCPU: its mapped
			    interrupt could not be presented (vgic.c) */
};

/* Why the hypervisor was entered, for the overhead figures. */
enum exit_kind {
	EXIT_SYSREG_PMU,
	EXIT_SYSREG_ID,
	EXIT_SYSREG_OTHER,
	EXIT_HVC,
	EXIT_HVC_NULL,
	EXIT_HVC_BALLOON,
	EXIT_SMC,
	EXIT_MMIO_UART,
	EXIT_MMIO_GIC,
	EXIT_MMIO_OTHER,
	EXIT_MMIO_SELFCOUNT,
	EXIT_WFI,
	EXIT_IRQ_TICK,
	EXIT_IRQ_POLL,
	EXIT_IRQ_PMU,
	EXIT_IRQ_SPE,
	EXIT_IRQ_MAINT,
	EXIT_IRQ_OTHER,
	EXIT_OTHER,
	EXIT_SWITCH,
	EXIT_KINDS
};

struct vm;

struct vcpu {
	struct frame f; /* first: vectors.S saves into it */
	/* Then what the fast path reads (frame.h): the vCPU's table of event counter reads for
	 * its counters' width (vectors.S), the same entered past each entry's plain check (for
	 * PMXEVCNTR_EL0, whose counter the fast word gives checked), and the library's vCPU,
	 * whose fast word is first. */
	const char *evcntr_reads, *evcntr_reads_xev;
	uint64_t poll_ticks; /* the overflow poll's period, served by the entry (timer.c) */
	uint32_t irq_acked;  /* what the entry acknowledged before it went to C */
	bool pmu_mapped;     /* its VM's PMU is passed through or direct (vm->pv.pmu), kept
				here for the hot paths: its mapped interrupt (vgic.c) */
	bool guest_selr;     /* passed through or direct: loaded, PMSELR_EL0 is the guest's
				(selfcount.c) */
	struct pv_vcpu pv;
	struct el1_regs el1;
	struct dbg_regs dbg;
	uint64_t tpidr2, vdisr; /* where the CPU has them (vcpu_regs.c) */
	bool dbg_live;          /* its debug registers are switched (after its first access) */
	struct fpsimd fp;
	struct vgic_cpu vgic;
	struct vm *vm;
	uint64_t vmpidr;
	uint64_t exits[EXIT_KINDS];     /* exceptions taken to EL2, by kind; sysreg-pmu and
					   sysreg-id are the library's count (exits_of) */
	uint64_t el2_instr[EXIT_KINDS]; /* EL2 instructions spent on them (self-measurement) */
	uint64_t switches_in;
	bool waiting; /* in WFI until a wake-up event (sched.c) */
	uint64_t injected_undef, injected_abort;
	uint64_t pv_undef, pv_el1; /* library answers: UNDEF, re-sent to guest EL1 */
};
_Static_assert(offsetof(struct vcpu, evcntr_reads) == VCPU_EVCNTR_READS &&
		       offsetof(struct vcpu, evcntr_reads_xev) == VCPU_EVCNTR_READS_XEV &&
		       offsetof(struct vcpu, poll_ticks) == VCPU_POLL_TICKS &&
		       offsetof(struct vcpu, irq_acked) == VCPU_IRQ_ACKED &&
		       offsetof(struct vcpu, pv.fast) == VCPU_FAST,
	       "frame.h: the fast path's offsets in struct vcpu");

/* Completes a trapped instruction the hypervisor emulated: the guest resumes after it with
 * PSTATE.BTYPE 0, as after any instruction that is not a branch (FEAT_BTI), and with the
 * software-step state machine moved on (SPSR_EL2.SS = 0: a step stops right after it, Arm ARM
 * D2), as the hardware would have done had the instruction not trapped. */
static inline void skip_instr(struct vcpu *v)
{
	uint64_t spsr = v->f.spsr & ~SPSR_SS;
	/* Two AND immediates: the compiler would fold both masks into one, which no logical
	 * immediate encodes (a constant built in two more instructions). */
	__asm__("" : "+r"(spsr));
	v->f.elr += 4;
	v->f.spsr = spsr & ~SPSR_BTYPE;
}

enum vm_state { VM_EMPTY, VM_RUNNABLE, VM_ENDED };

struct vm {
	char name[24];
	unsigned index;
	enum vm_state state;
	const char *end_reason;
	uint64_t pa_base, ram_size;
	uint64_t image_size;               /* from its arm64 Image header, else 0 */
	uint64_t initrd_start, initrd_end; /* IPAs; both 0 without an initrd */
	uint64_t dtb_ipa;                  /* its device tree, handed over in x0 */
	const char *guest_args;            /* its /chosen/bootargs */
	uint64_t vttbr;
	uint64_t *s2_l1, *s2_l2;
	struct pv_vm pv;
	struct vcpu vcpu;
	char uart_line[1024]; /* the line it is writing (uart.c) */
	unsigned uart_len;
	uint64_t uart_lines;
	uint32_t uart_ris; /* its PL011's TXRIS (the RX bits follow its FIFO) */
	char uart_rx[256]; /* its receive FIFO: input while it has the focus */
	unsigned uart_rx_head, uart_rx_len;
	unsigned char uart_esc; /* inside a terminal control sequence it writes */
};

/* What the boot probes found the PMU to do (probe.c): the QEMU 7.2 workarounds follow it. */
struct pmu_probe {
	bool overflow_late;     /* an overflow is flagged late: the poll is on (timer.c) */
	bool line_stale;        /* PMCR_EL0.E = 0 leaves the PMU interrupt high (qemu72.c) */
	bool hpmn_hides;        /* counters past MDCR_EL2.HPMN are out of EL1's reach */
	uint32_t fgt_untrapped; /* registers whose fine-grained trap was not taken */
};

/* end_hold=KIND (sched.c, end_hold): none, or what each VM's end holds for its check. */
enum end_hold {
	END_HOLD_NONE,
	END_HOLD_PINS,
	END_HOLD_LOADED,
	END_HOLD_PMU,
	END_HOLD_LR,
	END_HOLD_TIMER,
	END_HOLD_SPE,
	END_HOLD_KINDS
};
extern const char *const end_hold_names[END_HOLD_KINDS];
extern uint8_t end_hold_kind; /* enum end_hold: end_hold= (main.c) */

/* ---- Global hypervisor state (one pCPU) ----------------------------------------------- */
struct hyp {
	/* Scalars first, the large members last: what every exception touches stays within
	 * one ADRP page offset of the structure's start. */
	uint64_t last_count; /* host counter at the end of the previous exception */
	struct vcpu *current;
	uint64_t pmu_poll_ticks; /* 0: no overflow polling (see timer.c) */
	bool poll_armed;         /* the timer is set for an overflow poll, not the slice end */
	bool split_eoi;          /* ICC_CTLR_EL1.EOImode = 1: PMU interrupts mapped (gic.c) */
	bool amu_fgt;            /* HAFGRTR_EL2 exists: FEAT_FGT and the AMU (sched.c) */
	unsigned slots;          /* the VM slots the scheduler looks at: up to the last VM's */
	uint64_t cntfrq;         /* CNTFRQ_EL0: ticks a second */
	bool switched;           /* the current exception switched vCPUs */
	bool selfcount;          /* the host counter counts EL2 instructions */
	bool selfcount_page;     /* selfcount_page=on: every VM has its page (selfcount.c) */
	bool guest_selr;         /* the loaded vCPU's PMSELR_EL0 is the guest's (selfcount.c) */
	unsigned host_counter;   /* its index (= HPMN) */
	unsigned nr_vms;
	unsigned nr_lr;
	uint64_t slice_ticks, slice_deadline;
	uint64_t mdcr_hyp, hcr_hyp, cptr_hyp;
	uint64_t switches;
	uint64_t idle_waits; /* times the pCPU waited at EL2 with no vCPU to run */
	uint64_t limit_ms, limit_deadline; /* limit_ms=N: every VM ends at this counter value */
	uint64_t records_ticks, records_deadline; /* records_ms=N: the period, the next one */
	uint64_t records_freq, records_seq;       /* CNTFRQ_EL0; the next record's number */
	struct pmu_probe probe;
	struct pv_hw hw;
	struct pv_pcpu pcpu;
	struct plat_pcpu plat; /* the EL2 accessors' per-pCPU state (el2/plat_sysreg.h) */
	struct vm vms[MAX_VMS];
};
extern struct hyp hyp;
_Static_assert(offsetof(struct hyp, slice_deadline) == HYP_SLICE_DEADLINE,
	       "frame.h: the fast path's offset in struct hyp");

/* ---- Functions ------------------------------------------------------------------------- */
/* print.c */
void hyp_putc(char c);
void hyp_puts(const char *s);
void hyp_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int hyp_snprintf(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
__attribute__((noreturn)) void hyp_panic(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* string.c */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);

/* mmu.c: EL2 stage 1 (identity) */
void mmu_init(void);
void mmu_map_ram(uint64_t ram_end);
void dcache_clean(uint64_t addr, size_t len);

/* stage2.c */
enum s2_result { S2_OK, S2_NOT_RAM, S2_PINNED, S2_NOT_MAPPED, S2_NO_TABLE };
void stage2_init(struct vm *vm);
/* The PA stage 2 maps `ipa` to now (writable, if `write`); false where it maps nothing. */
bool stage2_translate(const struct vm *vm, uint64_t ipa, uint64_t *pa, bool write);
/* Pins counted per 4 KiB page: all or nothing, false with nothing pinned unless every page
 * of [ipa, ipa + size) is mapped writable. */
bool stage2_pin(struct vm *vm, uint64_t ipa, uint64_t size);
void stage2_unpin(struct vm *vm, uint64_t ipa, uint64_t size);
unsigned stage2_pins(const struct vm *vm, uint64_t ipa);
/* A balloon's give-back and take-back of one page; a pinned page is refused (S2_PINNED). */
enum s2_result stage2_unmap_page(struct vm *vm, uint64_t ipa);
enum s2_result stage2_map_page(struct vm *vm, uint64_t ipa);
const char *stage2_result_name(enum s2_result r);
/* A VM's stage-2 accounting: pages pinned now (a pin count above 0) and at most, pin calls,
 * unpins of a page that was not pinned (a bug's trace), pages given back by its balloon and
 * unmapped, and give-backs refused because the page was pinned. Kept out of struct vm, whose
 * size the scheduler's loops over hyp.vms[] multiply by. */
struct s2_account {
	uint64_t pinned_pages, pinned_max, pin_calls, unpin_unbalanced;
	uint64_t unmapped_pages, unmap_refused;
};
const struct s2_account *stage2_account(const struct vm *vm);

/* fdt.c */
size_t fdt_build_vm(void *buf, size_t size, const struct vm *vm);
const char *fdt_bootargs(const void *fdt);
uint64_t fdt_ram_end(const void *fdt);

/* gic.c: the physical GICv3 */
void gic_init(void);
uint32_t gic_ack(void);
void gic_eoi(uint32_t intid);
void gic_enable_ppi(uint32_t intid, bool on);
void gic_disable_ppi_sync(uint32_t intid);
void gic_drop(uint32_t intid);
void gic_deactivate(uint32_t intid);
void gic_activate_ppi(uint32_t intid);

/* vgic.c */
void vgic_init(struct vcpu *v);
void vgic_set_line(struct vcpu *v, uint32_t intid, bool level);
void vgic_save(struct vcpu *v);
void vgic_restore(struct vcpu *v);
void vgic_maintenance(struct vcpu *v);
void vgic_inject_mapped(struct vcpu *v, uint32_t intid);
bool vgic_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val);
bool vgic_sgi_sysreg(struct vcpu *v, uint32_t key, uint64_t val);
bool vgic_pending(struct vcpu *v);
bool vgic_lrs_empty(void);

/* uart.c */
bool uart_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val);
void uart_flush(struct vm *vm);
void uart_waits(struct vm *vm);
void uart_input(char c);
void uart_set_focus(struct vm *vm);
void uart_host_irq(void);
/* Ctrl-A x was typed since the last call: every VM is to end (sched_device_irq does it). */
bool uart_quit_requested(void);
void uart_host_init(void);
void uart_break(void);
bool uart_input_possible(void);

/* timer.c */
void timer_init(uint64_t slice_ticks, uint64_t poll_ticks);
void timer_rearm(void);
void timer_program(void);
bool timer_slice_over(void);
uint64_t timer_now(void);
void vtimer_sync(struct vcpu *v);
uint64_t vtimer_deadline(uint64_t ctl, uint64_t cval);
void timer_wake_at(uint64_t deadline);

/* vcpu_regs.c */
void vcpu_regs_probe(void);
void vcpu_regs_init(struct vcpu *v);
void vcpu_regs_save(struct vcpu *v);
void vcpu_regs_restore(const struct vcpu *v);
uint64_t vcpu_regs_mdcr(const struct vcpu *v);
bool vcpu_regs_debug_trap(struct vcpu *v);
#define MDCR_EL2_TDA (1ul << 9)    /* debug register accesses trap (D24.3.17, MDCR_EL2) */
#define MDCR_EL2_TDOSA (1ul << 10) /* OS lock, OS double lock, DBGPRCR accesses trap */

/* sched.c */
void sched_start(void) __attribute__((noreturn));
struct vcpu *sched_next(struct vcpu *cur);
struct vcpu *sched_wfi(struct vcpu *cur);
struct vcpu *vm_end(struct vcpu *v, const char *reason);
__attribute__((noreturn)) void sched_end_all(const char *reason);
void sched_check_limit(void);
void vcpu_load(struct vcpu *v);
void vcpu_put(struct vcpu *v);

/* exceptions.c */
struct frame *exc_lower_sync(struct frame *f, uint64_t esr);
struct frame *exc_lower_irq(struct frame *f);
struct frame *exc_lower_irq_acked(struct frame *f);
struct frame *exc_lower_serror(struct frame *f);
enum exit_kind sched_device_irq(struct vcpu *v, uint32_t intid);
void exc_current(uint64_t kind, uint64_t esr, uint64_t elr, uint64_t far);

/* inject.c */
void inject_undef(struct vcpu *v);
void inject_sync(struct vcpu *v, uint64_t esr, uint64_t far, bool set_far);
void inject_abort(struct vcpu *v, bool data, uint64_t far, bool wnr);

/* psci.c: the PSCI a guest calls */
struct vcpu *psci_call(struct vcpu *v, bool smc);

/* power.c: the machine's own power-off, which ends the run */
__attribute__((noreturn)) void machine_off(void);

/* probe.c: the PMU's deviations, found at boot (before the library's probe) */
void probe_pmu(void);

/* selfcount.c */
void selfcount_init(void);
bool selfcount_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val);

/* selfcount_account(): inline, at the end of this file */

/* report.c */
void report_all(void);
/* records.c: the live figures records (records_ms=N). */
void records_emit(void);
void records_check(void);
void records_last(void); /* the last record of each VM, before the report (with records_ms) */
const char *exit_kind_name(enum exit_kind k);
uint64_t exits_of(const struct vcpu *v, enum exit_kind k);

/* vectors.S / fpsimd.S */
extern char hyp_vectors[], hyp_vectors_fast[];
extern const char evcntr_reads_64[], evcntr_reads_32[]; /* the fast path's, by counter width */
void fpsimd_save(struct fpsimd *fp);
void fpsimd_restore(const struct fpsimd *fp);
__attribute__((noreturn)) void guest_enter(struct frame *f);

/* ---- System register access ------------------------------------------------------------ */
#define STR_(x) #x
#define STR(x) STR_(x)
#define read_sysreg(r)                                                                         \
	({                                                                                     \
		uint64_t v_;                                                                   \
		__asm__ volatile("mrs %0, " STR(r) : "=r"(v_));                                \
		v_;                                                                            \
	})
#define write_sysreg(r, v)                                                                     \
	do {                                                                                   \
		uint64_t v_ = (uint64_t)(v);                                                   \
		__asm__ volatile("msr " STR(r) ", %0" : : "r"(v_));                            \
	} while (0)
#define isb() __asm__ volatile("isb" ::: "memory")
#define dsb(opt) __asm__ volatile("dsb " #opt ::: "memory")

static inline uint32_t mmio_read32(uint64_t addr)
{
	return *(volatile uint32_t *)addr;
}
static inline void mmio_write32(uint64_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

/* End of an exception: charge the EL2 instructions since the previous one to v's `kind`.
 * PMXEVCNTR_EL0 is the host counter (PMSELR_EL0 = its index, selfcount.c); without
 * self-measurement it reads something else, which the report does not show. `guest_selr`:
 * the PMU loaded now is passed through. */
static inline __attribute__((always_inline)) void selfcount_charge_as(struct vcpu *v,
								      enum exit_kind kind,
								      bool guest_selr)
{
	uint64_t now;
	if (__builtin_expect(guest_selr, 0)) {
		/* Passthrough (selfcount.c): through the guest's own PMSELR_EL0, given back, the
		 * counter enabled again, and rebased when a guest's PMCR.P reset it (that
		 * exception counts 0). Without a host counter nothing is read: PMXEVCNTR_EL0 with
		 * the guest's SEL (31, or past N) is CONSTRAINED UNPREDICTABLE, UNDEF included. */
		if (!hyp.selfcount)
			return;
		uint64_t sel = read_sysreg(S3_3_C9_C12_5); /* PMSELR_EL0 */
		write_sysreg(S3_3_C9_C12_5, (uint64_t)hyp.host_counter);
		write_sysreg(S3_3_C9_C12_1, 1ul << hyp.host_counter); /* PMCNTENSET_EL0 */
		isb();
		now = read_sysreg(S3_3_C9_C13_2);
		write_sysreg(S3_3_C9_C12_5, sel);
		if (now < hyp.last_count)
			hyp.last_count = now;
	} else {
		now = read_sysreg(S3_3_C9_C13_2); /* PMXEVCNTR_EL0 */
	}
	v->el2_instr[kind] += now - hyp.last_count;
	hyp.last_count = now;
}

/* The PMU loaded now decides, not v's: after a switch v is the vCPU put. */
static inline void selfcount_charge(struct vcpu *v, enum exit_kind kind)
{
	selfcount_charge_as(v, kind, hyp.guest_selr);
}

/* An exception that has not switched vCPUs (the hot paths): v's PMU is the one loaded, so
 * v's own flag says what hyp.guest_selr does, and is one load from v's address, with no
 * address of hyp to form for it. */
static inline void selfcount_charge_own(struct vcpu *v, enum exit_kind kind)
{
	selfcount_charge_as(v, kind, v->guest_selr);
}

/* ... and count the exception. Not for the traps the library counts (report.c, exits_of). */
static inline void selfcount_account(struct vcpu *v, enum exit_kind kind)
{
	v->exits[kind]++;
	selfcount_charge(v, kind);
}

#endif
