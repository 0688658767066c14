/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The `virt` board's side of the models: the SPE interrupt (PMBIRQ) of each CPU wired to its
 * PPI 21 (INTID 21, the Base System Architecture's number for it), and the device-tree node
 * through which Linux's SPE driver (arm_spe_pmu) finds it, with the compatible string it binds
 * to. Nothing is added for a CPU without SPE in force.
 */
#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/qdev-core.h"
#include "hw/arm/fdt.h"
#include "system/device_tree.h"
#include "cpu.h"
#include "pv-hw.h"
#include "pv-internal.h"

#define PV_SPE_INTID    21
#define PV_PPI_BASE     16

static bool pv_virt_spe(CPUState *cs)
{
    PvHwCPU *s = cs ? pv_hw_cpu(cs) : NULL;

    return s && s->spe;
}

void pv_hw_virt_connect(DeviceState *cpudev, DeviceState *gic, int intidbase)
{
    if (pv_virt_spe(CPU(cpudev))) {
        qdev_connect_gpio_out_named(cpudev, "pv-spe-interrupt", 0,
                                    qdev_get_gpio_in(gic, intidbase + PV_SPE_INTID));
    }
}

void pv_hw_virt_fdt(void *fdt, unsigned gicv2_cpus)
{
    const char compat[] = "arm,statistical-profiling-extension-v1";
    uint32_t flags = GIC_FDT_IRQ_FLAGS_LEVEL_HI;

    if (!pv_virt_spe(first_cpu)) {
        return;
    }
    if (gicv2_cpus) {
        flags = deposit32(flags, GIC_FDT_IRQ_PPI_CPU_START, GIC_FDT_IRQ_PPI_CPU_WIDTH,
                          (1u << gicv2_cpus) - 1);
    }
    qemu_fdt_add_subnode(fdt, "/spe-pmu");
    qemu_fdt_setprop(fdt, "/spe-pmu", "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_cells(fdt, "/spe-pmu", "interrupts", GIC_FDT_IRQ_TYPE_PPI,
                           PV_SPE_INTID - PV_PPI_BASE, flags);
}
