/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfvisor in Xen on Arm: the glue's entry points, called from the places in Xen's own files
 * that integrations/xen/hooks.txt names. Installed as xen/arch/arm/include/asm/perfvisor.h.
 */
#ifndef __ASM_ARM_PERFVISOR_H__
#define __ASM_ARM_PERFVISOR_H__

#include <xen/types.h>

struct cpu_user_regs;
struct domain;
struct dt_device_node;
struct vcpu;
union hsr;

/* setup.c: the boot CPU, before the other CPUs come up; smpboot.c: each other CPU, as it
 * comes up. */
void perfvisor_boot(void);
void perfvisor_cpu_up(void);
/* setup.c: true once perfvisor has the PMU; Xen's own vpmu (the physical PMU passed through
 * to a domain, unswitched) is then not offered: it would reach the counters perfvisor
 * switches for other domains and its interrupt enables. */
bool perfvisor_owns_pmu(void);
/* domain_build.c: a dom0less domain's perfvisor properties (before its vCPUs exist), the
 * PMU node of its device tree and the facts in its /chosen. */
int perfvisor_domain_config(struct domain *d, const struct dt_device_node *node);
int perfvisor_make_pmu_node(const struct domain *d, void *fdt, uint32_t phandle_gic);
int perfvisor_chosen_props(const struct domain *d, void *fdt);
/* domain.c: vCPU and domain life, and the context switch (interrupts masked). */
int perfvisor_vcpu_create(struct vcpu *v);
void perfvisor_vcpu_destroy(struct vcpu *v);
void perfvisor_domain_destroy(struct domain *d);
void perfvisor_domain_shutdown(struct domain *d);
void perfvisor_ctxt_switch_from(struct vcpu *p);
void perfvisor_ctxt_switch_to(struct vcpu *n);
/* traps.c: a trapped system register access, before do_sysreg(); true when perfvisor
 * answered it. */
bool perfvisor_do_sysreg(struct cpu_user_regs *regs, const union hsr *hsr);
/* The vPMU interrupt's level semantics in Xen's GICv3 vGIC: traps.c after the LRs are
 * synced on an entry from the guest; gic-v3.c writing an LR (an EOI maintenance exit for
 * it); vgic-v3.c reading GICR_ISPENDR0 or GICR_ICPENDR0 (true: *r is the answer). */
void perfvisor_vgic_synced(struct vcpu *v);
/* traps.c: every entry from the guest, before interrupts are unmasked. */
void perfvisor_preirq(struct vcpu *v);
/* traps.c: an MMIO access emulated and skipped (IO_HANDLED). */
void perfvisor_mmio_retired(const struct cpu_user_regs *regs);
bool perfvisor_level_virq(const struct vcpu *v, unsigned int virq);
/* console.c: what console_serial_puts() sent (the serial line's state, for the live figures
 * records), and whether this pCPU's printk() continuation lost its line to other output
 * since: it then starts a new line, with its prefix. */
void perfvisor_console_sent(const char *s, size_t nr);
bool perfvisor_console_line_lost(void);
bool perfvisor_gicr_pendr0(const struct vcpu *v, unsigned int size, register_t *r);

#endif
