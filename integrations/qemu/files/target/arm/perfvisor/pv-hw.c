/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's hardware models for QEMU's Arm CPUs (pv-hw.h: where QEMU calls them).
 *
 * `-cpu max` gets two properties, so that the same binary also behaves as stock QEMU:
 *   pv-pmu-fixes=on|off   the PMU as the Arm ARM says (off: QEMU's own PMU); default on
 *   pv-spe=on|off         the Statistical Profiling Extension (pv-spe.c); default off, which
 *                         is stock QEMU's: no SPE
 *   pv-amu=off|on|v1      the Activity Monitors (pv-amu.c): on is FEAT_AMUv1p1, v1 FEAT_AMUv1
 *                         (no virtual offsets, so that a hypervisor's trap path can be tested);
 *                         default off, stock QEMU's: no AMU
 *   pv-mpam=on|off        the CPU side of MPAM, FEAT_MPAMv1p1 (pv-mpam.c); default off, stock
 *                         QEMU's: no MPAM
 * One switch for every PMU fix rather than one each: the two machines worth having are the
 * one the Arm ARM describes and stock QEMU, which perfvisor must also run on; a mix of the two
 * is neither, and each would need tests of its own. The fixes are pv-pmu.c's (overflow,
 * interrupt line, MDCR_EL2.HPMN partition, per-CPU instructions) and pv-events.c's (the
 * common events QEMU lacks). SPE is a feature QEMU does not have at all, so it has a switch of
 * its own, off unless asked for: a CPU that suddenly has SPE changes what every guest and
 * hypervisor on it does.
 * Read back after the CPU is realized (QMP qom-get), each property says what is in force: the
 * models are TCG only, a CPU without a PMU (pmu=off) has no PMU to fix, and SPE needs -icount
 * (its sampling interval counts this CPU's instructions) and no EL3 (the model has no
 * MDCR_EL3 controls).
 *
 * A CPU's model state hangs off its property (the property's opaque pointer), so QEMU's own
 * structures stay as they are; a table by cpu_index finds it from the hot paths. The models
 * act on the CPU's registered system registers: after register_cp_regs_for_features(),
 * cpu->cp_regs holds the CPU's own heap copy of each ARMCPRegInfo, whose functions a model
 * may swap for its own.
 *
 * Their state is not migrated: a CPU with a model on blocks migration and savevm rather than
 * lose it.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "hw/qdev-core.h"
#include "migration/blocker.h"
#include "qemu/error-report.h"
#include "system/cpu-timers.h"
#include "system/tcg.h"
#include "cpu.h"
#include "pv-hw.h"
#include "pv-internal.h"

#define PV_PMU_FIXES "pv-pmu-fixes"
#define PV_SPE "pv-spe"
#define PV_AMU "pv-amu"
#define PV_MPAM "pv-mpam"

static PvHwCPU *pv_hw_cpus[PV_HW_MAX_CPUS];

PvHwCPU *pv_hw_cpu(CPUState *cs)
{
    if (cs->cpu_index < 0 || cs->cpu_index >= PV_HW_MAX_CPUS) {
        return NULL;
    }
    return pv_hw_cpus[cs->cpu_index];
}

static PvHwCPU *pv_hw_state(ARMCPU *cpu)
{
    ObjectProperty *p = object_property_find(OBJECT(cpu), PV_PMU_FIXES);

    return p ? p->opaque : NULL;
}

static bool *pv_hw_flag(PvHwCPU *s, const char *name)
{
    if (!strcmp(name, PV_SPE)) {
        return &s->spe;
    }
    return strcmp(name, PV_MPAM) ? &s->pmu_fixes : &s->mpam;
}

static void pv_hw_get_bool(Object *obj, Visitor *v, const char *name, void *opaque,
                           Error **errp)
{
    PvHwCPU *s = opaque;
    bool value = *pv_hw_flag(s, name);

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
    *pv_hw_flag(s, name) = value;
}

static const char *const pv_hw_amu_modes[] = {
    [PV_AMU_OFF] = "off", [PV_AMU_MODE_V1] = "v1", [PV_AMU_MODE_V1P1] = "on",
};

static void pv_hw_get_amu(Object *obj, Visitor *v, const char *name, void *opaque,
                          Error **errp)
{
    PvHwCPU *s = opaque;
    char *value = g_strdup(pv_hw_amu_modes[s->amu]);

    visit_type_str(v, name, &value, errp);
    g_free(value);
}

static void pv_hw_set_amu(Object *obj, Visitor *v, const char *name, void *opaque,
                          Error **errp)
{
    PvHwCPU *s = opaque;
    g_autofree char *value = NULL;
    unsigned i;

    if (!visit_type_str(v, name, &value, errp)) {
        return;
    }
    if (DEVICE(obj)->realized) {
        error_setg(errp, "%s can be set only before the CPU is realized", name);
        return;
    }
    for (i = 0; i < ARRAY_SIZE(pv_hw_amu_modes); i++) {
        if (!strcmp(value, pv_hw_amu_modes[i])) {
            s->amu = i;
            return;
        }
    }
    error_setg(errp, "%s: 'off', 'on' (AMUv1p1) or 'v1' (AMUv1), not '%s'", name, value);
}

static void pv_hw_release(Object *obj, const char *name, void *opaque)
{
    PvHwCPU *s = opaque;
    CPUState *cs = CPU(obj);

    if (pv_hw_cpu(cs) == s) {
        pv_hw_cpus[cs->cpu_index] = NULL;
    }
    migrate_del_blocker(&s->migration_blocker);
    migrate_del_blocker(&s->spe_migration_blocker);
    migrate_del_blocker(&s->amu_migration_blocker);
    migrate_del_blocker(&s->mpam_migration_blocker);
    pv_spe_free(s);
    pv_amu_free(s);
    pv_mpam_free(s);
    g_free(s);
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
    object_property_add(obj, PV_SPE, "bool", pv_hw_get_bool, pv_hw_set_bool, NULL, s);
    object_property_set_description(obj, PV_SPE,
                                    "perfvisor: the Statistical Profiling Extension, SPEv1p2 "
                                    "(TCG with -icount only; default off)");
    object_property_add(obj, PV_AMU, "string", pv_hw_get_amu, pv_hw_set_amu, NULL, s);
    object_property_set_description(obj, PV_AMU,
                                    "perfvisor: the Activity Monitors, off, on (AMUv1p1) or "
                                    "v1 (AMUv1) (TCG with -icount only; default off)");
    object_property_add(obj, PV_MPAM, "bool", pv_hw_get_bool, pv_hw_set_bool, NULL, s);
    object_property_set_description(obj, PV_MPAM,
                                    "perfvisor: the CPU side of MPAM, FEAT_MPAMv1p1 (TCG "
                                    "only; default off)");
    /* PMBIRQ, wired by the board (pv_hw_virt_connect()) to PPI 21. */
    qdev_init_gpio_out_named(DEVICE(obj), &s->spe_irq, "pv-spe-interrupt", 1);
}

/*
 * Whether the common events are supported on this CPU: asked by pmu_init(), before realize
 * ends, for PMCEID0/1 and QEMU's table of supported events. They are counted exactly only
 * under icount, where an overflow can be timed (as INST_RETIRED).
 */
bool pv_hw_event_supported(CPUARMState *env)
{
    PvHwCPU *s = pv_hw_state(env_archcpu(env));

    return s && s->pmu_fixes && tcg_enabled() && icount_enabled() == ICOUNT_PRECISE;
}

bool pv_hw_cpu_realize(ARMCPU *cpu, Error **errp)
{
    PvHwCPU *s = pv_hw_state(cpu);
    CPUState *cs = CPU(cpu);
    bool precise = icount_enabled() == ICOUNT_PRECISE;

    if (!s) {
        return true; /* not -cpu max: nothing of perfvisor's */
    }
    s->realized = true;
    if (!tcg_enabled() || !arm_feature(&cpu->env, ARM_FEATURE_PMU)) {
        s->pmu_fixes = false;
    }
    if (s->spe && (!tcg_enabled() || !precise || arm_feature(&cpu->env, ARM_FEATURE_EL3) ||
                   !arm_feature(&cpu->env, ARM_FEATURE_AARCH64))) {
        warn_report("perfvisor: %s needs TCG with -icount (shift=N), an AArch64 CPU and no "
                    "EL3: SPE is off", PV_SPE);
        s->spe = false;
    }
    if (s->amu && (!tcg_enabled() || !precise || arm_feature(&cpu->env, ARM_FEATURE_EL3) ||
                   !arm_feature(&cpu->env, ARM_FEATURE_EL2) ||
                   !arm_feature(&cpu->env, ARM_FEATURE_AARCH64))) {
        warn_report("perfvisor: %s needs TCG with -icount (shift=N), an AArch64 CPU with EL2 "
                    "and no EL3: the AMU is off", PV_AMU);
        s->amu = PV_AMU_OFF;
    }
    /* MPAM's CPU side counts nothing, so it needs no -icount; it has no MPAM3_EL3. */
    if (s->mpam && (!tcg_enabled() || arm_feature(&cpu->env, ARM_FEATURE_EL3) ||
                    !arm_feature(&cpu->env, ARM_FEATURE_EL2) ||
                    !arm_feature(&cpu->env, ARM_FEATURE_AARCH64))) {
        warn_report("perfvisor: %s needs TCG and an AArch64 CPU with EL2 and no EL3: MPAM is "
                    "off", PV_MPAM);
        s->mpam = false;
    }
    if (!s->pmu_fixes && !s->spe && !s->amu && !s->mpam) {
        return true;
    }
    if (cs->cpu_index < 0 || cs->cpu_index >= PV_HW_MAX_CPUS) {
        error_setg(errp, "perfvisor: %s, %s, %s and %s support CPU indexes below %d, not %d",
                   PV_PMU_FIXES, PV_SPE, PV_AMU, PV_MPAM, PV_HW_MAX_CPUS, cs->cpu_index);
        return false;
    }
    s->count_insns = precise;
    s->insns = 0;
    s->in_run = false;
    memset(&pv_hw_counts[cs->cpu_index], 0, sizeof(pv_hw_counts[0]));
    if (s->pmu_fixes) {
        if (!pv_pmu_realize(cpu, s, errp)) {
            return false;
        }
        error_setg(&s->migration_blocker,
                   "perfvisor: %s keeps per-CPU PMU state that is not migrated "
                   "(-cpu max,%s=off to migrate)", PV_PMU_FIXES, PV_PMU_FIXES);
        if (migrate_add_blocker(&s->migration_blocker, errp) < 0) {
            return false;
        }
    }
    if (s->spe) {
        if (!pv_spe_realize(cpu, s, errp)) {
            return false;
        }
        error_setg(&s->spe_migration_blocker,
                   "perfvisor: %s keeps Statistical Profiling state that is not migrated "
                   "(-cpu max,%s=off to migrate)", PV_SPE, PV_SPE);
        if (migrate_add_blocker(&s->spe_migration_blocker, errp) < 0) {
            return false;
        }
    }
    if (s->amu) {
        if (!pv_amu_realize(cpu, s, s->amu == PV_AMU_MODE_V1P1, errp)) {
            return false;
        }
        error_setg(&s->amu_migration_blocker,
                   "perfvisor: %s keeps Activity Monitors state that is not migrated "
                   "(-cpu max,%s=off to migrate)", PV_AMU, PV_AMU);
        if (migrate_add_blocker(&s->amu_migration_blocker, errp) < 0) {
            return false;
        }
    }
    if (s->mpam) {
        if (!pv_mpam_realize(cpu, s, errp)) {
            return false;
        }
        error_setg(&s->mpam_migration_blocker,
                   "perfvisor: %s keeps MPAM register state that is not migrated "
                   "(-cpu max,%s=off to migrate)", PV_MPAM, PV_MPAM);
        if (migrate_add_blocker(&s->mpam_migration_blocker, errp) < 0) {
            return false;
        }
    }
    pv_hw_cpus[cs->cpu_index] = s;
    return true;
}

/*
 * A CPU's own instructions under icount. QEMU gives a vCPU a budget of instructions for each
 * run (cpu->icount_budget, set before cpu_exec()) and counts down what is left of it
 * (icount_decr.u16.low + icount_extra); what a run executed is its budget less what is left,
 * as QEMU adds it to the one global count. Summed per CPU here.
 */
void pv_hw_cpu_exec_enter(CPUState *cs)
{
    PvHwCPU *s = pv_hw_cpu(cs);

    if (s && s->count_insns) {
        s->run_budget = cs->icount_budget;
        s->in_run = true;
    }
}

static int64_t pv_hw_run_executed(CPUState *cs, PvHwCPU *s)
{
    return s->run_budget - (cs->neg.icount_decr.u16.low + cs->icount_extra);
}

void pv_hw_cpu_exec_exit(CPUState *cs)
{
    PvHwCPU *s = pv_hw_cpu(cs);

    if (s && s->in_run) {
        s->insns += pv_hw_run_executed(cs, s);
        s->in_run = false;
    }
}

/*
 * The CPU's instructions so far. Read in its own run (an MRS, an exception entry) it includes
 * what the current translation block has executed, as icount_get_raw() would.
 */
uint64_t pv_hw_cpu_insns(CPUState *cs)
{
    PvHwCPU *s = pv_hw_cpu(cs);

    return s->insns + (s->in_run ? pv_hw_run_executed(cs, s) : 0);
}

uint64_t pv_hw_instructions(CPUARMState *env)
{
    CPUState *cs = env_cpu(env);
    PvHwCPU *s = pv_hw_cpu(cs);

    if (!s || !s->pmu_fixes || !s->count_insns) {
        return (uint64_t)icount_get_raw(); /* stock: the sum over every CPU */
    }
    return pv_hw_cpu_insns(cs);
}
