/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's hardware models for QEMU's Arm CPUs (pv-hw.h: where QEMU calls them).
 *
 * `-cpu max` gets one property per model group, each on by default, so that the same binary
 * also behaves as stock QEMU:
 *   pv-pmu-fixes=on|off   the PMU as the Arm ARM says (off: QEMU's own PMU)
 * Read back after the CPU is realized (QMP qom-get), a property says what is in force: the
 * models are TCG only, and a CPU without a PMU (pmu=off) has no PMU to fix.
 *
 * A CPU's model state hangs off its property (the property's opaque pointer), so QEMU's own
 * structures stay as they are. The models act on the CPU's registered system registers:
 * after register_cp_regs_for_features(), cpu->cp_regs holds the CPU's own heap copy of each
 * ARMCPRegInfo, whose functions a model may swap for its own, and where it adds registers.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "hw/qdev-core.h"
#include "system/tcg.h"
#include "cpu.h"
#include "cpregs.h"
#include "pv-hw.h"

/*
 * A system register's encoding in MRS/MSR (op0, op1, CRn, CRm, op2), from the Arm ARM's
 * register descriptions: D24.5.8 PMCR_EL0, D24.3.17 MDCR_EL2.
 */
typedef struct PvHwSysreg {
    const char *name;
    uint8_t op0, op1, crn, crm, op2;
} PvHwSysreg;

static const PvHwSysreg PV_PMCR_EL0 = { "PMCR_EL0", 3, 3, 9, 12, 0 };
static const PvHwSysreg PV_MDCR_EL2 = { "MDCR_EL2", 3, 4, 1, 1, 1 };

#define PV_PMU_FIXES "pv-pmu-fixes"

typedef struct PvHwCPU {
    bool pmu_fixes; /* asked for (the property); after realize: in force */
    bool realized;
    /* The registered copies the PMU fixes act on (NULL: the CPU has none). */
    ARMCPRegInfo *pmcr;
    ARMCPRegInfo *mdcr_el2;
} PvHwCPU;

static PvHwCPU *pv_hw_state(ARMCPU *cpu)
{
    ObjectProperty *p = object_property_find(OBJECT(cpu), PV_PMU_FIXES);

    return p ? p->opaque : NULL;
}

/*
 * The CPU's own copy of an AArch64 system register QEMU registered, or NULL. The copy is the
 * CPU's (allocated by add_cpreg_to_hashtable()), so it may be changed in place.
 */
static ARMCPRegInfo *pv_hw_registered(ARMCPU *cpu, const PvHwSysreg *r)
{
    uint32_t key = ENCODE_AA64_CP_REG(CP_REG_ARM64_SYSREG_CP, r->crn, r->crm, r->op0, r->op1,
                                      r->op2);

    return (ARMCPRegInfo *)get_arm_cp_reginfo(cpu->cp_regs, key);
}

static void pv_hw_get_bool(Object *obj, Visitor *v, const char *name, void *opaque,
                           Error **errp)
{
    PvHwCPU *s = opaque;
    bool value = s->pmu_fixes;

    visit_type_bool(v, name, &value, errp);
}

static void pv_hw_set_bool(Object *obj, Visitor *v, const char *name, void *opaque,
                           Error **errp)
{
    PvHwCPU *s = opaque;
    bool value;

    if (!visit_type_bool(v, name, &value, errp)) {
        return;
    }
    if (DEVICE(obj)->realized) {
        error_setg(errp, "%s can be set only before the CPU is realized", name);
        return;
    }
    s->pmu_fixes = value;
}

static void pv_hw_release(Object *obj, const char *name, void *opaque)
{
    g_free(opaque);
}

void pv_hw_cpu_post_init(Object *obj)
{
    PvHwCPU *s;

    if (!object_dynamic_cast(obj, ARM_CPU_TYPE_NAME("max"))) {
        return;
    }
    s = g_new0(PvHwCPU, 1);
    s->pmu_fixes = true;
    object_property_add(obj, PV_PMU_FIXES, "bool", pv_hw_get_bool, pv_hw_set_bool,
                        pv_hw_release, s);
    object_property_set_description(obj, PV_PMU_FIXES,
                                    "perfvisor: the PMU as the Arm ARM says, not as QEMU "
                                    "emulates it (TCG only; default on)");
}

bool pv_hw_cpu_realize(ARMCPU *cpu, Error **errp)
{
    PvHwCPU *s = pv_hw_state(cpu);

    if (!s) {
        return true; /* not -cpu max: nothing of perfvisor's */
    }
    s->realized = true;
    if (!tcg_enabled() || !arm_feature(&cpu->env, ARM_FEATURE_PMU)) {
        s->pmu_fixes = false;
    }
    if (s->pmu_fixes) {
        /*
         * The registers the fixes act on must be there: a QEMU that no longer registers
         * them has drifted from the one the models were written for.
         */
        s->pmcr = pv_hw_registered(cpu, &PV_PMCR_EL0);
        if (arm_feature(&cpu->env, ARM_FEATURE_EL2)) {
            s->mdcr_el2 = pv_hw_registered(cpu, &PV_MDCR_EL2);
        }
        if (!s->pmcr || (arm_feature(&cpu->env, ARM_FEATURE_EL2) && !s->mdcr_el2)) {
            error_setg(errp, "perfvisor: QEMU registered no %s on this CPU, so %s cannot apply",
                       s->pmcr ? PV_MDCR_EL2.name : PV_PMCR_EL0.name, PV_PMU_FIXES);
            return false;
        }
    }
    return true;
}
