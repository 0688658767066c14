/* SPDX-License-Identifier: MIT */
/*
 * Virtual SPE (Statistical Profiling Extension: FEAT_SPE, FEAT_SPEv1p1, FEAT_SPEv1p2): per-VM
 * configuration, per-vCPU state and the operator's views. See docs/spe.md.
 *
 * The guest owns its profiling buffer in its EL1&0 regime (MDCR_EL2.E2PB = 0b10), so the
 * hardware writes records through the guest's stage 1 and the VM's stage 2. The buffer
 * registers always trap (E2PB = 0b10 for PMB*). The sampling controls (PMS*) trap too
 * (MDCR_EL2.TPMS) until a vCPU's first SPE access where the VM has direct sampling controls
 * (pv_vm_spe.direct): from then on they are the guest's own registers in the hardware while
 * the vCPU is loaded, saved at put and restored at load, with PMSCR_EL2 bounding what they may
 * ask for (docs/spe.md, "Direct sampling controls"). When the guest enables its buffer, vspe checks
 * it, walks the guest's stage-1 tables over its first chunk and pins and maps the pages (and the
 * table pages the walk reads) in stage 2 through the platform, giving the hardware the chunk's
 * end as its limit; the buffer-full event there has it pin the next chunk and resume, so the
 * profiler never meets a stage-2 fault and each trap or event does one chunk's work. It unpins
 * them when the buffer is disabled or replaced. Buffer management events that are the
 * guest's (buffer full, stage-1 fault) reach it through a virtual PMBSR_EL1 and the virtual
 * INTID 21; stage-2 faults are repaired here and never reach the guest.
 */
#ifndef PERFVISOR_VSPE_H
#define PERFVISOR_VSPE_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/api.h"
#include "perfvisor/sysreg.h"

PV_BEGIN_DECLS

struct pv_vm;
struct pv_vcpu;
struct pv_pcpu;
struct pv_hw;

/* ---- Architecture (Arm ARM D24.7, Statistical Profiling Extension registers) ------------- */

/* ID_AA64DFR0_EL1.PMSVer */
#define PV_SPE_V1 1u
#define PV_SPE_V1P1 2u
#define PV_SPE_V1P2 3u /* FEAT_SPE_FnE (PMSNEVFR_EL1), PMBLIMITR_EL1.PMFZ, discard mode */

/* The SPE registers' fields are the register database's (sysreg_defs.h: PV_PMSCR_E0SPE,
 * PV_PMBSR_EC, ...). What EL2 owns of PMSCR_EL2 whatever the VM: */
#define PV_PMSCR_EL2_OWNED (PV_GENMASK(1, 0) | PV_GENMASK(11, 3))

/* EC 0x1F syndromes perfvisor reports (MSS): data lost while the hypervisor repaired stage 2
 * (a partial record), and buffer memory the VM no longer has. */
#define PV_PMBSR_IMPDEF_S2_REPAIR_DL 0x0001u
#define PV_PMBSR_IMPDEF_NO_MEMORY 0x0002u

/* Fault status codes (PMBSR_EL1.FSC, the Data Abort DFSC encoding). */
#define PV_FSC_ADDR_SIZE(l) (0x00u + (l))
#define PV_FSC_TRANSLATION(l) (0x04u + (l))
#define PV_FSC_ACCESS_FLAG(l) (0x08u + (l))
#define PV_FSC_PERMISSION(l) (0x0Cu + (l))
#define PV_FSC_EXT_ABORT 0x10u
#define PV_FSC_EXT_ABORT_WALK(l) (0x14u + (l))

#define PV_SPE_PAGE 4096u
/* The largest buffer perfvisor can describe in PMBIDR_EL1.MaxBuffSize (mantissa 9 bits,
 * exponent 5 bits: '1':M:Zeros(E + 11)), and the pin store a vCPU needs for buffers up to
 * `max` bytes (4 KiB pages, each a store entry in the worst case, plus the table pages the
 * stage-1 walk visits at every level). */
#define PV_SPE_MAX_BUFFER (UINT64_C(1) << 42)
/* What vspe pins ahead of the profiler unless the VM says otherwise (pv_spe_config), and the
 * least a VM may say: a power of two, far above any record (PMSIDR_EL1.MaxSize <= 11). */
#define PV_VSPE_PIN_CHUNK (UINT64_C(256) << 10)
#define PV_VSPE_PIN_CHUNK_MIN (UINT64_C(64) << 10)
#define PV_VSPE_PIN_SLOTS(max)                                                                 \
	((uint32_t)((max) / PV_SPE_PAGE + (max) / (UINT64_C(1) << 21) + 16))

/* ---- The hardware, as probed (pv_hw_probe; valid when pv_hw.spe) ------------------------- */
struct pv_hw_spe {
	bool usable;     /* PMBIDR_EL1.P reads 0 at EL2: EL3 lets the Non-secure side own SPE */
	uint8_t version; /* ID_AA64DFR0_EL1.PMSVer */
	uint64_t pmsidr, pmbidr;
	/* PMSEVFR_EL1 bits that hold a value (written all ones, read back). */
	uint64_t evfr_mask;
	uint64_t nevfr_mask; /* PMSNEVFR_EL1 likewise (FEAT_SPE_FnE) */
	bool ecv;            /* PMSCR_EL1.PCT is two bits */
	uint8_t tgran;       /* stage-1 granules the PE implements: bit 0 4K, 1 16K, 2 64K */
	uint8_t pa_bits;     /* ID_AA64MMFR0_EL1.PARange, as a number of bits */
};

/* ---- Per-VM configuration ------------------------------------------------------------------ */
struct pv_spe_config {
	uint8_t version; /* PMSVer to expose: PV_SPE_V1, _V1P1 or _V1P2, at most the hardware's */
	/* The largest buffer (PMBLIMITR.LIMIT - PMBPTR) a vCPU may have pinned, bytes, a
	 * multiple of 4 KiB; advertised in PMBIDR_EL1.MaxBuffSize. */
	uint64_t max_buffer;
	/* Bytes pinned ahead of the profiler's write pointer (docs/spe.md, "Pinning chunk by
	 * chunk"): a power of two of at least PV_VSPE_PIN_CHUNK_MIN; 0 for PV_VSPE_PIN_CHUNK. */
	uint64_t pin_chunk;
};

/* The sampling controls a VM with direct sampling controls still traps, each by its
 * fine-grained trap (FEAT_FGT: HDFGRTR_EL2, HDFGWTR_EL2): those whose view differs from the
 * hardware's register (pv_vm_spe.fgt). */
#define PV_VSPE_FGT_PMSIDR (1u << 0)   /* reads: the VM's PMSIDR_EL1 view */
#define PV_VSPE_FGT_PMSFCR (1u << 1)   /* the VM lacks FnE or the extended type filter */
#define PV_VSPE_FGT_PMSEVFR (1u << 2)  /* the VM lacks event filters the hardware has */
#define PV_VSPE_FGT_PMSNEVFR (1u << 3) /* PMSNEVFR_EL1, where the VM lacks it or its filters */

/* Per-VM values derived once (pv_vspe_vm_init). */
struct pv_vm_spe {
	uint8_t version;    /* 0: the VM has no SPE */
	uint8_t align;      /* PMBIDR_EL1.Align */
	uint8_t max_record; /* PMSIDR_EL1.MaxSize: log2 of the largest record */
	/* 1: direct sampling controls (docs/spe.md): MDCR_EL2.TPMS is cleared in each vCPU's
	 * trap words at its first SPE access, and the PMS* registers are the guest's own in the
	 * hardware while it is loaded; those in `fgt` trap by FEAT_FGT. 0: they always trap. */
	uint8_t direct;
	uint8_t fgt; /* PV_VSPE_FGT_*: what still traps on the direct path */
	uint64_t max_buffer;
	uint64_t pin_chunk;
	uint64_t pmsidr, pmbidr; /* the VM's views */
	uint64_t scr_mask;       /* PMSCR_EL1 bits the VM has */
	uint64_t fcr_mask, evfr_mask, nevfr_mask, latfr_mask, limitr_mask;
};

/* ---- Per-vCPU state ------------------------------------------------------------------------ */

/* A run of pinned IPA space: what to unpin. Entries are the caller's memory. */
struct pv_vspe_pin {
	uint64_t ipa, size;
};

struct pv_vspe_stats {
	uint64_t enables;                /* buffers checked, walked and pinned */
	uint64_t rejected;               /* enables refused with a buffer management event */
	uint64_t pages_walked;           /* stage-1 leaf pages translated */
	uint64_t pin_calls, unpin_calls; /* pv_plat_s2_pin / _unpin */
	uint64_t events;                 /* management events reflected to the guest */
	uint64_t s2_faults;   /* stage-2 faults the hardware reported (0 unless memory moved) */
	uint64_t s2_repaired; /* ... repaired transparently */
	uint64_t records_lost; /* records the hardware dropped at a stage-2 fault */
	uint64_t drains;       /* PSB CSYNC at put */
	uint64_t
		chunks; /* chunks pinned when the profiler reached the end of the pinned part */
	/* Bytes the profiler moved the guest's PMBPTR_EL1 on by, counted whenever perfvisor reads
	 * it back from the hardware (each synchronisation: an event, a put, a guest's access to a
	 * buffer register, pv_vspe_pointer()): what it wrote into the guest's buffers, records and
	 * padding, a record a fault cut short included; what it wrote since the last such read
	 * is not yet in it. */
	uint64_t bytes;
};

struct pv_vspe {
	/* The guest's registers (masked to what the VM has). With direct sampling controls the
	 * first seven are the hardware's while the vCPU is loaded and `used`, and these hold what
	 * its last put saved (pv_vspe_control() reads the live ones). */
	uint64_t scr, icr, irr, fcr, evfr, nevfr, latfr;
	uint64_t limitr, ptr, bsr;
	bool used;     /* the guest wrote an SPE register: switched at load/put (and, with
			  direct sampling controls, MDCR_EL2.TPMS cleared in its trap words) */
	bool line;     /* virtual INTID 21 level (PMBSR_EL1.S) */
	bool hw_on;    /* the hardware buffer is enabled for this vCPU */
	bool ready;    /* [pin_lo, pin_hi) is checked and pinned for the current regime */
	bool need_pin; /* an enable arrived while the vCPU was not loaded: do it at load */
	bool pin_stop; /* the walk stopped before pin_hi's chunk ended (a stage-1 fault, or a
			  page that could not be pinned): the hardware goes on to meet it */
	uint64_t pin_lo,
		pin_hi;        /* VA range whose pages are pinned (pin_hi: walk end or fault) */
	uint64_t hw_limit;     /* the PMBLIMITR_EL1.LIMIT the hardware has: pin_hi while more of
			       the guest's buffer is to be pinned, else the guest's */
	uint64_t tables[2][4]; /* per half of the VA space and level, the table page the last
				  walk pinned (all ones: none), so the next chunk's walk does not
				  pin it again */
	uint64_t regime[4];    /* TTBR0_EL1, TTBR1_EL1, TCR_EL1, SCTLR_EL1.M at pin time */
	struct pv_vspe_pin *pins; /* the caller's store (pv_vspe_vcpu_pins) */
	uint32_t npins, max_pins;
	uint64_t pinned_bytes;
	struct pv_vspe_stats stats;
};

/**
 * pv_vspe_vcpu_pins() - Give a vCPU its pin store.
 * @v: the vCPU, pv_vcpu_init() done (which drops any store it had).
 * @store: @n entries of the caller's memory, used until replaced; NULL for none.
 * @n: its entries: PV_VSPE_PIN_SLOTS(max_buffer) suffice for any buffer the VM allows.
 *
 * Without a store, an enable is refused with the "buffer size" management event. Pins the
 * vCPU holds when its store is replaced are unpinned first, without the buffer being
 * disabled: give the store before the guest enables its buffer.
 */
PV_API void pv_vspe_vcpu_pins(struct pv_vcpu *v, struct pv_vspe_pin *store, uint32_t n);

/**
 * pv_vspe_release() - Unpin everything a vCPU holds.
 * @v: the vCPU, loaded or not.
 *
 * For when the hypervisor takes memory away from the VM (destroying the vCPU,
 * pv_vcpu_release() does it): what the hardware wrote is brought in first, then the guest's
 * buffer is disabled as if it had written PMBLIMITR_EL1.E = 0.
 *
 * Context: on the vCPU's pCPU while it is loaded.
 */
PV_API void pv_vspe_release(struct pv_vcpu *v);

/**
 * pv_vspe_status() - Operator view: the guest's PMBSR_EL1.
 * @v: the vCPU.
 *
 * The virtual register as last brought in from the hardware (when the guest reads
 * PMBPTR_EL1 or PMBSR_EL1 or writes a buffer register, at its SPE interrupt, at a put, or by
 * pv_vspe_pointer()); the hardware is not read here. The bytes the vCPU has pinned are in
 * v->spe.pinned_bytes.
 *
 * Return: the guest's PMBSR_EL1.
 */
PV_API uint64_t pv_vspe_status(const struct pv_vcpu *v);

/**
 * pv_vspe_pointer() - Operator view: the guest's PMBPTR_EL1.
 * @v: the vCPU.
 *
 * While the vCPU is loaded with its buffer running, the hardware is synchronised first
 * (PSB CSYNC), and a buffer management event it raised is reflected to the guest (or a
 * stage-2 fault repaired), as for a guest read.
 *
 * Context: on the vCPU's pCPU while it is loaded.
 * Return: the guest's PMBPTR_EL1.
 */
PV_API uint64_t pv_vspe_pointer(struct pv_vcpu *v);

/**
 * pv_vspe_control() - Operator view: one of the guest's sampling controls.
 * @v: the vCPU, loaded or not.
 * @reg: the register's key: PV_PMSCR_EL1, PV_PMSICR_EL1, PV_PMSIRR_EL1, PV_PMSFCR_EL1,
 *       PV_PMSEVFR_EL1, PV_PMSNEVFR_EL1 or PV_PMSLATFR_EL1.
 *
 * What the guest would read: while the vCPU is loaded with its sampling controls in the
 * hardware (direct sampling controls, and always PMSICR_EL1, which counts), the physical
 * register; otherwise the value its last put saved or its last trapped write stored.
 *
 * Context: on the vCPU's pCPU while it is loaded (the physical register is read then).
 * Return: the register's value; 0 for another key or a VM without SPE.
 */
PV_API uint64_t pv_vspe_control(const struct pv_vcpu *v, uint32_t reg);

PV_END_DECLS

#endif
