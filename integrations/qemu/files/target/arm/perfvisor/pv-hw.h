/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's hardware models for QEMU's Arm CPUs: what QEMU's own files call.
 *
 * perfvisor (an EL2 hypervisor's performance-monitoring component) builds this QEMU to test
 * itself against hardware that behaves as the Arm Architecture Reference Manual says. Its
 * integration script inserts the calls below into QEMU's files (integrations/qemu/hooks.txt
 * says where); everything else of the models is in this folder, written with its own
 * constants from the Arm ARM.
 */
#ifndef PERFVISOR_PV_HW_H
#define PERFVISOR_PV_HW_H

#include "target/arm/cpu-qom.h"

/* CPUArchState: CPUARMState, whose header (cpu.h) QEMU includes after this one. */

struct DisasContext;

/*
 * target/arm/cpu.c, arm_cpu_post_init(): the properties of `-cpu max` that switch the models
 * on and off (pv-pmu-fixes=on|off). Other CPU models get none, and nothing of the models.
 */
void pv_hw_cpu_post_init(Object *obj);

/*
 * target/arm/cpu.c, arm_cpu_realizefn(), right after register_cp_regs_for_features(): the
 * models add their system registers and swap the functions of QEMU's registered ones (the
 * copies in cpu->cp_regs are the CPU's own). False, with *errp set, stops the realization.
 */
bool pv_hw_cpu_realize(ARMCPU *cpu, Error **errp);

/*
 * target/arm/cpu.c, arm_tcg_ops: around each run of a vCPU in cpu_exec(). Under icount they
 * keep the instructions each CPU executed (QEMU keeps only their sum).
 */
void pv_hw_cpu_exec_enter(CPUState *cs);
void pv_hw_cpu_exec_exit(CPUState *cs);

/*
 * target/arm/helper.c, the PMU.
 * pv_hw_pmu_update_irq(): at the top of pmu_update_irq(); true when it has set the interrupt
 * line itself (the fixes are on), as D13.3.1 computes it.
 * pv_hw_pmevcntr_delta(): in pmevcntr_op_finish(), the number of events until the counter
 * overflows, for QEMU's overflow timer (stock: one short of it).
 * pv_hw_instructions(): instructions_get_count()'s answer, this CPU's own instructions.
 */
bool pv_hw_pmu_update_irq(CPUArchState *env);
uint64_t pv_hw_pmevcntr_delta(CPUArchState *env, uint8_t counter);
uint64_t pv_hw_instructions(CPUArchState *env);

/*
 * The common events the models count (pv-events.c), as entries of helper.c's pm_events[]:
 * the hook puts PV_HW_PM_EVENTS at the top of that table, so that QEMU's PMU counts, filters
 * and advertises them (PMCEID0/1) as its own. Each is supported only with the fixes on, under
 * TCG with -icount (shift=N), as INST_RETIRED is.
 */
bool pv_hw_event_supported(CPUArchState *env);
uint64_t pv_hw_ld_retired(CPUArchState *env);
uint64_t pv_hw_st_retired(CPUArchState *env);
uint64_t pv_hw_br_immed_retired(CPUArchState *env);
uint64_t pv_hw_mem_access(CPUArchState *env);
uint64_t pv_hw_br_retired(CPUArchState *env);
int64_t pv_hw_ns_per_event(uint64_t events);
int64_t pv_hw_ns_per_access(uint64_t events);

#define PV_HW_PM_EVENT(num, count, ns_per)                                  \
    { .number = (num), .supported = pv_hw_event_supported,                  \
      .get_count = (count), .ns_per_count = (ns_per) },
#define PV_HW_PM_EVENTS                                                     \
    PV_HW_PM_EVENT(0x006, pv_hw_ld_retired, pv_hw_ns_per_event)             \
    PV_HW_PM_EVENT(0x007, pv_hw_st_retired, pv_hw_ns_per_event)             \
    PV_HW_PM_EVENT(0x00d, pv_hw_br_immed_retired, pv_hw_ns_per_event)       \
    PV_HW_PM_EVENT(0x013, pv_hw_mem_access, pv_hw_ns_per_access)            \
    PV_HW_PM_EVENT(0x021, pv_hw_br_retired, pv_hw_ns_per_event)

/*
 * target/arm/tcg/translate-a64.c, aarch64_tr_translate_insn(): before and after the A64
 * instruction INSN is translated, the code that counts it in the events above.
 */
void pv_hw_a64_insn_start(struct DisasContext *s, CPUState *cpu, uint32_t insn);
void pv_hw_a64_insn_end(struct DisasContext *s);

/*
 * hw/arm/virt.c: the SPE interrupt (PMBIRQ) of a CPU with pv-spe on wired to its PPI 21, as
 * each CPU's other PPIs are (intidbase: the GIC input of the CPU's INTID 0); and, after the
 * PMU's, the device-tree node Linux's SPE driver binds to (gicv2_cpus: the CPUs a GICv2 PPI
 * names, 0 with GICv3). Nothing for CPUs without SPE.
 */
void pv_hw_virt_connect(DeviceState *cpudev, DeviceState *gic, int intidbase);
void pv_hw_virt_fdt(void *fdt, unsigned gicv2_cpus);

#endif
