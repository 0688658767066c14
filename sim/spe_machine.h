/* SPDX-License-Identifier: MIT */
/*
 * SPE as part of the simulated machine's run. With sim_config.spe.ram set, sim_init gives the
 * machine a physical memory (sim/mem.h) and every VM a stage 2 over its RAM at
 * SIM_VM_RAM_IPA (sim/stage2.h: real tables, demand paging, pins, reclaim); with
 * sim_config.spe.unit.version set, every pCPU an SPE unit (sim/spe.h) and ID_AA64DFR0_EL1.PMSVer.
 *
 *   - Guest accesses to the SPE registers are routed as D24.7 says (EL0 UNDEF; with FEAT_FGT
 *     each register's fine-grained trap, then TPMS or E2PB, to EL2; PMBIDR_EL1 by FEAT_FGT
 *     alone); the library reaches the units, and the running (or loading) vCPU's EL1
 *     translation registers, through pv_plat_sysreg_*.
 *   - A vCPU's EL1 context (SCTLR_EL1.M, TTBR0/1_EL1, TCR_EL1, CONTEXTIDR_EL1: direct MSR/MRS
 *     at EL1) is kept per vCPU; the pCPU's registers are those of the vCPU it runs.
 *   - PMSCR_EL2 and HDFGRTR_EL2 in force while a vCPU runs are the hypervisor's own values
 *     with the vCPU's trap words applied (perfvisor.h), as for the other EL2 controls.
 *   - Each chunk of work runs through the pCPU's unit: the running vCPU's code and data
 *     regions, its CONTEXTIDR_EL1, the VM's CNTVOFF_EL2; buffer writes go through the vCPU's
 *     stage 1 (its tables in its memory) and the VM's stage 2, and every byte is checked to
 *     land in a frame of that VM (stray bytes are counted).
 *   - The physical buffer interrupt (INTID 21) is taken at EL2 into pv_irq; a vCPU whose
 *     guest driver is on then takes its virtual INTID 21 as Linux's arm_spe_pmu does: read
 *     PMBSR_EL1 and PMBPTR_EL1, collect the records, restart the buffer at its base after a
 *     fill, disable it after anything else.
 *
 * Ground truth: each vCPU's log of every sample the units took while it ran (sim/spe.h), and
 * the bytes its driver collected, in order.
 */
#ifndef SIM_SPE_MACHINE_H
#define SIM_SPE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "spe.h"
#include "stage2.h"

struct sim_machine;
struct sim_cpu;
struct sim_vcpu;
struct sim_work;

#define SIM_RAM_BASE UINT64_C(0x80000000)   /* machine RAM (PA) */
#define SIM_VM_RAM_IPA UINT64_C(0x40000000) /* each VM's RAM (IPA) */

struct sim_spe_machine_config {
	struct sim_spe_config unit; /* unit.version 0: no SPE */
	uint64_t ram;    /* machine RAM for the VMs and stage 2; 0: no memory model */
	uint64_t vm_ram; /* each VM's RAM */
};

/* A guest's EL1 translation context, kept per vCPU. */
struct sim_el1 {
	uint64_t sctlr, ttbr0, ttbr1, tcr, contextidr;
};

struct sim_spe_driver_stats {
	unsigned irqs, spurious, fills, faults, other, truncated;
	uint64_t last_bsr;
};

struct sim_spe_vcpu {
	struct sim_el1 el1;
	struct sim_spe_region code[2]; /* what it runs at EL0 and EL1 */
	struct sim_spe_log log;        /* every sample taken while it ran */
	/* Its guest SPE driver, when `driver`: a ring [base, base + size) of VAs. */
	bool driver, stopped;
	uint64_t base, size, start; /* start: first byte not yet collected */
	uint8_t *out;               /* collected records */
	size_t len, cap;
	struct sim_spe_driver_stats drv;
};

/* Defaults: no SPE, no memory model; a unit, when given a version, with PMBIDR_EL1.Align 6
 * (64 bytes), MaxSize 7 (128-byte records), a 512-operation minimum interval, 12-bit counters,
 * event filters on events 1..11. */
void sim_spe_machine_config_default(struct sim_spe_machine_config *c);
int sim_spe_machine_init(struct sim_machine *m);
void sim_spe_machine_vm_added(struct sim_machine *m, unsigned vm);
void sim_spe_machine_vcpu_added(struct sim_machine *m, unsigned vcpu);
void sim_spe_machine_free(struct sim_machine *m);

/* cpu.c hooks: routing (-1: not an SPE or EL1-context register), accesses (SIM_ACC_UNKNOWN:
 * not one), work, the physical line, the guest's virtual interrupt, PSB CSYNC. */
int sim_spe_machine_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el);
enum sim_acc sim_spe_machine_read(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t *val);
enum sim_acc sim_spe_machine_write(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t val);
void sim_spe_machine_exec(struct sim_cpu *c, unsigned el, bool secure, const struct sim_work *w,
			  uint64_t t0, uint64_t ticks);
bool sim_spe_machine_irq(struct sim_cpu *c);
void sim_spe_driver_irq(struct sim_cpu *c);
void sim_spe_machine_psb(struct sim_cpu *c);

/* platform.c: guest memory and stage 2 of a vCPU's VM. */
bool sim_spe_machine_read64(struct sim_vcpu *v, uint64_t ipa, uint64_t *val);
bool sim_spe_machine_pin(struct sim_vcpu *v, uint64_t ipa, uint64_t size, bool pin);
bool sim_spe_machine_translate(struct sim_vcpu *v, uint64_t ipa, uint64_t *pa);

/* For tests. */
struct sim_spe *sim_spe_machine_unit(struct sim_machine *m, unsigned cpu);
struct sim_s2 *sim_spe_machine_s2(struct sim_machine *m, unsigned vm);
struct sim_mem *sim_spe_machine_mem(struct sim_machine *m);
struct sim_spe_vcpu *sim_spe_machine_vcpu(struct sim_machine *m, unsigned vcpu);
uint64_t sim_spe_machine_cntvoff(const struct sim_machine *m, unsigned vm);
uint64_t sim_spe_machine_stray(const struct sim_machine *m);
/* Pages whose last pin went while their vCPU was loaded on a pCPU whose unit had its buffer
 * enabled (PMBLIMITR_EL1.E) or records not drained (no PSB CSYNC; DSB since the last one was
 * written): where a host that frees unpinned pages could receive a late record. */
uint64_t sim_spe_machine_live_unpins(const struct sim_machine *m);
/* A builder of the VM's stage-1 tables in its own memory (tables from [pool, + size)). */
bool sim_spe_machine_s1(struct sim_machine *m, unsigned vm, struct sim_s1 *t, unsigned granule,
			unsigned va_bits, uint64_t pool, uint64_t pool_size);
/* Reads guest memory by VA through the vCPU's stage 1 and stage 2, as the guest would. */
bool sim_spe_machine_guest_read(struct sim_machine *m, unsigned vcpu, uint64_t va, void *buf,
				size_t n);
/* The guest driver's last collection: [start, ptr) appended to `out`, start = ptr. */
void sim_spe_machine_collect(struct sim_machine *m, unsigned vcpu, uint64_t ptr);

#endif
