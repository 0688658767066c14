/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfvisor in Xen on Arm: the glue on Xen's side. It owns the memory of perfvisor's objects
 * (one per pCPU, per domain given a vPMU, per vCPU of such a domain), reads each dom0less
 * domain's perfvisor properties, and turns Xen's events into calls of the bridge (pvx.h,
 * built with perfvisor's headers outside Xen's build): the system-register trap, the vCPU
 * context switch, the PMU interrupt. Installed as xen/arch/arm/perfvisor.c.
 *
 * Domain node properties (docs/xen.md):
 *   perfvisor,pmu-counters = <N>;   a vPMU with N event counters (0: all the guests' share)
 *   perfvisor,pmu-filter = <deny base count> ...;   event ranges, KVM's semantics
 * Xen command line: perfvisor_host_counters=<n> keeps the top n counters for Xen (default 0);
 * perfvisor_pmu_poll_us=<us> (QEMU 7.2 only, below); perfvisor_poweroff=1 powers the machine
 * off once the last domain has shut down (for a test harness; default: Xen's behaviour);
 * perfvisor_records_ms=<ms> writes each vCPU's live figures record (docs/records.md) on the
 * serial console every <ms> of Xen's time (default 0: none). Debug key 'f': the figures, a
 * line per domain.
 */
#include <xen/console.h>
#include <xen/init.h>
#include <xen/irq.h>
#include <xen/keyhandler.h>
#include <xen/lib.h>
#include <xen/libfdt/libfdt.h>
#include <xen/param.h>
#include <xen/percpu.h>
#include <xen/sched.h>
#include <xen/shutdown.h>
#include <xen/timer.h>
#include <xen/device_tree.h>
#include <xen/xmalloc.h>

#include <asm/gic.h>
#include <asm/perfvisor.h>
#include <asm/pvx.h>
#include <asm/regs.h>
#include <asm/traps.h>
#include <asm/vgic.h>

static unsigned int __initdata opt_host_counters;
integer_param("perfvisor_host_counters", opt_host_counters);
/* The QEMU 7.2 overflow poll's period (0: off); only on QEMU. */
static unsigned int __read_mostly opt_pmu_poll_us = 10;
integer_param("perfvisor_pmu_poll_us", opt_pmu_poll_us);
static bool __read_mostly opt_poweroff;
boolean_param("perfvisor_poweroff", opt_poweroff);
/* The live figures records' period (0: none). */
static unsigned int __read_mostly opt_records_ms;
integer_param("perfvisor_records_ms", opt_records_ms);

static DEFINE_PER_CPU(void *, perfvisor_pcpu);

/* What d->arch.perfvisor points to: the bridge's VM and the domain node's name. */
struct perfvisor_domain {
    void *vm;
    char name[64];
};

/* What v->arch.perfvisor points to: the bridge's vCPU and the level of its PMU interrupt. */
struct perfvisor_vcpu {
    void *pv;
    /* Held across its load and across the making of its record: the record is made on the
     * pCPU last_cpu names (records_cpu(), checked under this lock), and no other pCPU
     * loads the vCPU meanwhile. */
    spinlock_t lock;
    bool irq_level;
    unsigned int last_cpu;   /* the pCPU it was last loaded on (NR_CPUS: never) */
    unsigned long migrations; /* loads on another pCPU than the one before */
    unsigned long switches;   /* times scheduled in */
    unsigned long mmio;       /* MMIO accesses Xen emulated for it (IO_HANDLED) */
};

/* The vCPU whose list registers this CPU holds while perfvisor is called (between Xen's
 * gic_restore_state() and gic_save_state() of it): the one the vGIC's LRs may be changed for. */
static DEFINE_PER_CPU(struct vcpu *, perfvisor_lr_vcpu);
static bool perfvisor_ready; /* pvx_boot succeeded: domains may have a vPMU */
static unsigned int perfvisor_pmu_irq; /* the PMU's PPI, from the host's device tree */

/*
 * The QEMU 7.2 overflow poll: QEMU notices an event counter's overflow only at a PMU
 * operation or an exception-level change, so while the PMU can interrupt for an event
 * counter this CPU takes a timer exit every opt_pmu_poll_us (the exit is the point; the
 * guest then gets its interrupt within one period). Xen's timer_slop must be small for the
 * period to hold (make xen-check boots with timer_slop=0).
 */
static DEFINE_PER_CPU(struct timer, perfvisor_poll);

static void perfvisor_poll_fn(void *data)
{
    if ( pvx_pmu_irq_armed(this_cpu(perfvisor_pcpu)) )
        set_timer(&this_cpu(perfvisor_poll), NOW() + MICROSECS(opt_pmu_poll_us));
}

static void perfvisor_poll_init(unsigned int cpu)
{
    init_timer(&per_cpu(perfvisor_poll, cpu), perfvisor_poll_fn, NULL, cpu);
}

void pvx_host_pmu_irq_armed(void *host_pcpu)
{
    if ( opt_pmu_poll_us && pvx_on_qemu() )
        set_timer(&this_cpu(perfvisor_poll), NOW() + MICROSECS(opt_pmu_poll_us));
}

/*
 * ---- Live figures records (docs/records.md) and the debug key ----
 * Every opt_records_ms of Xen's time (NOW(): virtual time under QEMU), each pCPU writes the
 * records of the vCPUs whose figures it holds: those last loaded on it (a vCPU never loaded:
 * the boot pCPU's). Such a vCPU is either loaded there now (it is the pCPU's current vCPU:
 * the glue puts a vCPU whenever Xen switches away from it, to the idle vCPU too), and its
 * counters are that pCPU's hardware, read with interrupts masked, or loaded nowhere, and its
 * lock keeps another pCPU from loading it while the record is formatted. So the library's
 * record is always made where its context says (record.h), never from another pCPU's view.
 *
 * Xen's console: printk() starts every line with "(XEN) ", and what a domain writes goes
 * through it: a vPL011 line as "(XEN) DOMn: ...", the console input domain's characters
 * echoed one printk() each after "(XEN) ", a console hypercall's line as "(dN) ..."; so no
 * domain begins a line (the hardware domain's console output alone reaches the serial line
 * as it is: Xen trusts it as itself). A record begins with "PVR1 ", so it is written to the
 * serial line itself (console_serial_puts(), under the console lock), as a line of its own.
 * Two hooks keep that true: console_serial_puts() says where the serial line stands
 * (perfvisor_console_sent), and a printk() that would continue its pCPU's line after
 * something else ended or took the line starts a new line, with its prefix
 * (perfvisor_console_line_lost). Without it, the input domain's next character after a
 * record (or after another pCPU's line) would begin a line.
 */
static DEFINE_PER_CPU(struct timer, perfvisor_records_timer);
static unsigned long perfvisor_records_seq;       /* under the console lock */
static char perfvisor_record_buf[PVX_RECORD_MAX]; /* under the console lock */

/* The serial line as console_serial_puts() left it: a line open (its last byte not a
 * newline), and which pCPU wrote that byte. */
static bool console_line_open;
static unsigned int console_line_cpu;

void perfvisor_console_sent(const char *s, size_t nr)
{
    if ( !nr )
        return;
    console_line_open = s[nr - 1] != '\n';
    console_line_cpu = smp_processor_id();
}

bool perfvisor_console_line_lost(void)
{
    return !console_line_open || console_line_cpu != smp_processor_id();
}

/* The pCPU that holds a vCPU's figures (with its lock held). */
static unsigned int records_cpu(const struct perfvisor_vcpu *pc)
{
    return pc->last_cpu == NR_CPUS ? 0 : pc->last_cpu;
}

static const char *record_state(const struct vcpu *v)
{
    const struct domain *d = v->domain;

    if ( d->is_shutting_down || d->is_dying )
        return "ended";
    if ( test_bit(_VPF_down, &v->pause_flags) || d->controller_pause_count )
        return "stopped"; /* not brought up (PSCI), off, or paused by the toolstack */
    if ( test_bit(_VPF_blocked, &v->pause_flags) )
        return "waiting"; /* in WFI, or waiting for an event */
    return "running";
}

/* v's record on the serial line, when this pCPU holds its figures. */
static void perfvisor_record(const struct vcpu *v)
{
    struct perfvisor_vcpu *pc = v->arch.perfvisor;
    const struct perfvisor_domain *pd = v->domain->arch.perfvisor;
    struct pvx_record_exit exits[1];
    struct pvx_record_host h = { 0 };
    unsigned long flags, cflags, len;

    if ( !pc || !pd )
        return;
    spin_lock_irqsave(&pc->lock, flags);
    if ( records_cpu(pc) != smp_processor_id() )
        goto out;
    exits[0].kind = "mmio";
    exits[0].exits = pc->mmio;
    exits[0].el2_instructions = 0; /* not measured */
    h.switches = pc->switches;
    h.vm_name = pd->name;
    h.state = record_state(v);
    h.nr_exits = pc->mmio ? 1 : 0;
    h.exits = exits;
    /* Numbered and written in one hold of the console lock: seq is the channel's order. */
    cflags = console_lock_recursive_irqsave();
    h.seq = perfvisor_records_seq;
    h.time_ns = NOW();
    len = pvx_record(pc->pv, perfvisor_record_buf, sizeof(perfvisor_record_buf), &h);
    if ( len )
    {
        if ( console_line_open )
            console_serial_puts("\n", 1);
        console_serial_puts(perfvisor_record_buf, len);
        perfvisor_records_seq++;
    }
    console_unlock_recursive_irqrestore(cflags);
 out:
    spin_unlock_irqrestore(&pc->lock, flags);
}

/* The records of every started domain's vCPUs this pCPU holds. */
static void perfvisor_records_fn(void *data)
{
    s_time_t period = MILLISECS(opt_records_ms);
    struct domain *d;
    struct vcpu *v;

    rcu_read_lock(&domlist_read_lock);
    for_each_domain ( d )
        if ( d->arch.perfvisor && d->creation_finished )
            for_each_vcpu ( d, v )
                perfvisor_record(v);
    rcu_read_unlock(&domlist_read_lock);
    /* The next multiple of the period: every pCPU's records of a period come together, and
     * a period missed is skipped. */
    set_timer(&this_cpu(perfvisor_records_timer), (NOW() / period + 1) * period);
}

static void perfvisor_records_init(unsigned int cpu)
{
    s_time_t period = MILLISECS(opt_records_ms);

    if ( !opt_records_ms )
        return;
    init_timer(&per_cpu(perfvisor_records_timer, cpu), perfvisor_records_fn, NULL, cpu);
    set_timer(&per_cpu(perfvisor_records_timer, cpu), (NOW() / period + 1) * period);
}

/*
 * Debug key 'f': a line per domain with a vPMU, its vCPUs' figures added up. It runs on any
 * pCPU while the vCPUs run on theirs, so it reads only the figures that are counters (each a
 * 64-bit word that only grows: a value it had), not the guest's PMU counters, which are a
 * loaded vCPU's pCPU's hardware (those are in the records).
 */
static void cf_check perfvisor_dump_key(unsigned char key)
{
    struct domain *d;
    struct vcpu *v;

    printk("'%c' pressed -> perfvisor's figures per domain (now = %"PRI_stime")\n", key, NOW());
    rcu_read_lock(&domlist_read_lock);
    for_each_domain ( d )
    {
        const struct perfvisor_domain *pd = d->arch.perfvisor;
        struct pvx_vcpu_stats t = { 0 };
        unsigned long switches = 0, mmio = 0;
        unsigned int n = 0, running = 0, waiting = 0, stopped = 0, ended = 0;

        if ( !pd )
            continue;
        for_each_vcpu ( d, v )
        {
            const struct perfvisor_vcpu *pc = v->arch.perfvisor;
            const char *state = record_state(v);
            struct pvx_vcpu_stats s;

            if ( !pc )
                continue;
            pvx_vcpu_stats(pc->pv, &s);
            t.loads += s.loads;
            t.pmu_irqs += s.pmu_irqs;
            t.traps_pmu += s.traps_pmu;
            t.traps_spe += s.traps_spe;
            t.traps_amu += s.traps_amu;
            t.traps_mpam += s.traps_mpam;
            t.traps_id += s.traps_id;
            switches += ACCESS_ONCE(pc->switches);
            mmio += ACCESS_ONCE(pc->mmio);
            n++;
            running += !strcmp(state, "running");
            waiting += !strcmp(state, "waiting");
            stopped += !strcmp(state, "stopped");
            ended += !strcmp(state, "ended");
        }
        printk("perfvisor: %pd (%s): vcpus %u (running %u waiting %u stopped %u ended %u),"
               " loads %lu, switches %lu, pmu_irqs %lu, trap.pmu %lu trap.spe %lu"
               " trap.amu %lu trap.mpam %lu trap.id %lu, exit.mmio %lu\n",
               d, pd->name, n, running, waiting, stopped, ended, t.loads, switches,
               t.pmu_irqs, t.traps_pmu, t.traps_spe, t.traps_amu, t.traps_mpam,
               t.traps_id, mmio);
    }
    rcu_read_unlock(&domlist_read_lock);
}

static void perfvisor_irq(int irq, void *dev_id, struct cpu_user_regs *regs)
{
    void *pcpu = this_cpu(perfvisor_pcpu);

    /* Nothing in Xen counts with the counters kept for it: one that overflowed anyway is
     * silenced, or its level would keep the interrupt asserted. */
    if ( pcpu && pvx_irq(pcpu, irq) == PVX_IRQ_HOST_PENDING )
        pvx_host_overflow_silence(pcpu);
}

/* The PMU overflow interrupt is a PPI: each CPU asks for it on itself. */
static int perfvisor_request_irq(void)
{
    int err = request_irq(perfvisor_pmu_irq, 0, perfvisor_irq, "perfvisor", NULL);

    if ( err )
        printk(XENLOG_ERR "perfvisor: CPU%u: cannot take the PMU interrupt %u (%d)\n",
               smp_processor_id(), perfvisor_pmu_irq, err);
    return err;
}

/* The PMU's interrupt, from the host's PMU node: a PPI (a PMU with one SPI per CPU is not
 * supported); platform_get_irq() sets its trigger as the node says, for every CPU. */
static int __init perfvisor_find_pmu_irq(void)
{
    const struct dt_device_node *pmu = dt_find_compatible_node(NULL, NULL, "arm,armv8-pmuv3");
    int irq = pmu ? platform_get_irq(pmu, 0) : -ENOENT;

    if ( irq < 0 )
    {
        printk(XENLOG_ERR "perfvisor: the device tree has no usable arm,armv8-pmuv3 node"
               " (%d): no vPMU for any domain\n", irq);
        return -ENODEV;
    }
    if ( irq < 16 || irq > 31 )
    {
        printk(XENLOG_ERR "perfvisor: the PMU interrupt %d is not a PPI: no vPMU for any"
               " domain\n", irq);
        return -ENODEV;
    }
    perfvisor_pmu_irq = irq;
    return 0;
}

void __init perfvisor_boot(void)
{
    void *pcpu;
    int err;

    if ( perfvisor_find_pmu_irq() )
        return;
    pcpu = xzalloc_bytes(pvx_pcpu_size());
    if ( !pcpu )
        panic("perfvisor: no memory for the boot CPU\n");
    err = pvx_boot(pcpu, NULL, opt_host_counters);
    if ( err )
    {
        printk(XENLOG_ERR "perfvisor: %s: no vPMU for any domain\n", pvx_strerror(err));
        xfree(pcpu);
        return;
    }
    this_cpu(perfvisor_pcpu) = pcpu;
    perfvisor_poll_init(smp_processor_id());
    if ( perfvisor_request_irq() )
    {
        printk(XENLOG_ERR "perfvisor: no vPMU for any domain\n");
        return;
    }
    perfvisor_ready = true;
    printk("perfvisor: vPMU ready; %u of the PMU's event counters kept for Xen\n",
           opt_host_counters);
    register_keyhandler('f', perfvisor_dump_key, "dump perfvisor's vPMU figures per domain", 1);
    perfvisor_records_init(smp_processor_id());
    if ( opt_records_ms )
        printk("perfvisor: live figures records every %u ms on the serial console\n",
               opt_records_ms);
}

bool perfvisor_owns_pmu(void)
{
    if ( perfvisor_ready )
        printk("perfvisor: Xen's vpmu (the PMU passed through) is not offered beside it\n");
    return perfvisor_ready;
}

void perfvisor_cpu_up(void)
{
    void *pcpu;

    if ( !perfvisor_ready )
        return;
    pcpu = xzalloc_bytes(pvx_pcpu_size());
    if ( !pcpu )
        panic("perfvisor: no memory for CPU%u\n", smp_processor_id());
    pvx_pcpu_up(pcpu, NULL, smp_processor_id());
    this_cpu(perfvisor_pcpu) = pcpu;
    perfvisor_poll_init(smp_processor_id());
    perfvisor_records_init(smp_processor_id());
    /* Domains may already have a vPMU: without its interrupt here, their overflows on this
     * CPU would never be delivered. */
    if ( perfvisor_request_irq() )
        panic("perfvisor: CPU%u cannot take the PMU interrupt\n", smp_processor_id());
}

int __init perfvisor_domain_config(struct domain *d, const struct dt_device_node *node)
{
    struct pvx_vm_config cfg = { 0 };
    struct perfvisor_domain *pd;
    const __be32 *cell;
    u32 len, i;
    void *vm;
    int err;

    cell = dt_get_property(node, "perfvisor,pmu-counters", &len);
    if ( !cell )
    {
        if ( !dt_get_property(node, "perfvisor,pmu-filter", NULL) )
            return 0; /* no vPMU: Xen's own answers stay */
        printk(XENLOG_ERR "perfvisor: %pd: perfvisor,pmu-filter without perfvisor,pmu-counters\n",
               d);
        return -EINVAL;
    }
    if ( len != sizeof(*cell) )
    {
        printk(XENLOG_ERR "perfvisor: %pd: perfvisor,pmu-counters: %u bytes, not one cell\n",
               d, len);
        return -EINVAL;
    }
    cfg.pmu_counters = be32_to_cpup(cell);
    if ( !perfvisor_ready )
    {
        printk(XENLOG_ERR "perfvisor: %pd: asks for a vPMU, but none is ready\n", d);
        return -ENODEV;
    }
    cell = dt_get_property(node, "perfvisor,pmu-filter", &len);
    if ( cell )
    {
        if ( len % 12 || len / 12 > PVX_MAX_FILTERS )
        {
            printk(XENLOG_ERR "perfvisor: %pd: perfvisor,pmu-filter: %u bytes, not up to %u"
                   " <deny base count> triples\n", d, len, PVX_MAX_FILTERS);
            return -EINVAL;
        }
        cfg.nr_filters = len / 12;
        for ( i = 0; i < cfg.nr_filters; i++ )
        {
            u32 deny = be32_to_cpup(cell++), base = be32_to_cpup(cell++);
            u32 count = be32_to_cpup(cell++);

            /* As KVM's ranges: 16-bit base and count (a count of 0 is no range). */
            if ( deny > 1 || base > 0xffff || !count || count > 0xffff ||
                 count > 0x10000 - base )
            {
                printk(XENLOG_ERR "perfvisor: %pd: perfvisor,pmu-filter entry %u"
                       " <%u %#x %#x> is not <0|1 base count>, base + count <= 0x10000,"
                       " 0 < count < 0x10000\n", d, i, deny, base, count);
                return -EINVAL;
            }
            cfg.filters[i].deny = deny;
            cfg.filters[i].base = base;
            cfg.filters[i].count = count;
        }
    }
    pd = xzalloc(struct perfvisor_domain);
    vm = xzalloc_bytes(pvx_vm_size());
    if ( !pd || !vm )
    {
        xfree(pd);
        xfree(vm);
        return -ENOMEM;
    }
    err = pvx_vm_init(vm, &cfg);
    if ( err )
    {
        printk(XENLOG_ERR "perfvisor: %pd: %s\n", d, pvx_strerror(err));
        xfree(pd);
        xfree(vm);
        return -EINVAL;
    }
    pd->vm = vm;
    strlcpy(pd->name, dt_node_name(node), sizeof(pd->name));
    d->arch.perfvisor = pd;
    printk("perfvisor: %pd (%s): vPMU with %u counters, %u filter ranges\n", d, pd->name,
           pvx_vm_counters(vm), cfg.nr_filters);
    return 0;
}

static void *vm_of(const struct domain *d)
{
    const struct perfvisor_domain *pd = d->arch.perfvisor;

    return pd ? pd->vm : NULL;
}

/* The VM's facts in its /chosen, as perfvisor's hypervisor gives them: the guest programs
 * check their counters against them. */
int __init perfvisor_chosen_props(const struct domain *d, void *fdt)
{
    const struct perfvisor_domain *pd = d->arch.perfvisor;
    int res;

    if ( !pd )
        return 0;
    res = fdt_property_string(fdt, "perfvisor,vm-name", pd->name);
    if ( !res )
        res = fdt_property_cell(fdt, "perfvisor,pmu-counters", pvx_vm_counters(pd->vm));
    return res;
}

/* The guest's PMU node: the PMU overflow interrupt, PPI 7 (INTID 23), level-high, every CPU,
 * of the domain's GIC (its phandle: the root of a domU's tree names no interrupt parent). */
int __init perfvisor_make_pmu_node(const struct domain *d, void *fdt, uint32_t phandle_gic)
{
    __be32 irq[3] = { cpu_to_be32(1), cpu_to_be32(PVX_PMU_IRQ - 16),
                      cpu_to_be32(0xf04) };
    int res;

    if ( !vm_of(d) )
        return 0;
    res = fdt_begin_node(fdt, "pmu");
    if ( !res )
        res = fdt_property_string(fdt, "compatible", "arm,armv8-pmuv3");
    if ( !res )
        res = fdt_property(fdt, "interrupts", irq, sizeof(irq));
    if ( !res )
        res = fdt_property_cell(fdt, "interrupt-parent", phandle_gic);
    if ( !res )
        res = fdt_end_node(fdt);
    return res;
}

static void *pv_of(const struct vcpu *v)
{
    const struct perfvisor_vcpu *pc = v->arch.perfvisor;

    return pc ? pc->pv : NULL;
}

int perfvisor_vcpu_create(struct vcpu *v)
{
    void *vm = vm_of(v->domain);
    struct perfvisor_vcpu *pc;

    if ( !vm )
        return 0;
    pc = xzalloc(struct perfvisor_vcpu);
    if ( pc )
        pc->pv = xzalloc_bytes(pvx_vcpu_size());
    if ( !pc || !pc->pv )
    {
        xfree(pc);
        return -ENOMEM;
    }
    pc->last_cpu = NR_CPUS;
    spin_lock_init(&pc->lock);
    pvx_vcpu_init(pc->pv, vm, v->vcpu_id, v);
    pvx_vcpu_traps(pc->pv, &v->arch.mdcr_el2, &v->arch.hcr_el2);
    v->arch.perfvisor = pc;
    return 0;
}

void perfvisor_vcpu_destroy(struct vcpu *v)
{
    struct perfvisor_vcpu *pc = v->arch.perfvisor;

    if ( !pc )
        return;
    pvx_vcpu_release(pc->pv);
    xfree(pc->pv);
    xfree(pc);
    v->arch.perfvisor = NULL;
}

void perfvisor_domain_destroy(struct domain *d)
{
    struct perfvisor_domain *pd = d->arch.perfvisor;

    if ( !pd )
        return;
    if ( pvx_vm_release(pd->vm) )
    {
        printk(XENLOG_ERR "perfvisor: %pd: vCPUs remain; its vPMU is kept\n", d);
        return;
    }
    xfree(pd->vm);
    xfree(pd);
    d->arch.perfvisor = NULL;
}

static void perfvisor_report(const struct domain *d)
{
    const struct vcpu *v;

    for_each_vcpu ( d, v )
    {
        struct pvx_vcpu_stats s;

        const struct perfvisor_vcpu *pc = v->arch.perfvisor;

        if ( !pc )
            continue;
        pvx_vcpu_stats(pc->pv, &s);
        printk("perfvisor: %pv: traps pmu %lu id %lu other %lu, loads %lu, migrations %lu\n",
               v, s.traps_pmu, s.traps_id, s.traps_other, s.loads, pc->migrations);
    }
}

/*
 * A domain shuts down: its figures; and with perfvisor_poweroff, when it was the last guest
 * running (for whatever reason: a crash too), the machine powers off: a test harness waits
 * for QEMU to exit, and dom0less has no toolstack to do more.
 */
void perfvisor_domain_shutdown(struct domain *d)
{
    struct domain *o;
    struct vcpu *v;
    bool last = true;

    /* The last records ("ended") of the vCPUs this pCPU holds (the one that shut the domain
     * down among them); the others' come with their pCPUs' next period. */
    if ( opt_records_ms )
        for_each_vcpu ( d, v )
            perfvisor_record(v);
    perfvisor_report(d);
    if ( !opt_poweroff )
        return;
    rcu_read_lock(&domlist_read_lock);
    for_each_domain ( o )
        if ( o != d && !o->is_shutting_down )
            last = false;
    rcu_read_unlock(&domlist_read_lock);
    if ( last )
    {
        printk("perfvisor: the last domain has shut down: powering off\n");
        machine_halt();
    }
}

void perfvisor_ctxt_switch_from(struct vcpu *p)
{
    if ( pv_of(p) )
        pvx_put(pv_of(p));
    this_cpu(perfvisor_lr_vcpu) = NULL; /* its LRs are saved next */
}

void perfvisor_ctxt_switch_to(struct vcpu *n)
{
    struct perfvisor_vcpu *pc = n->arch.perfvisor;

    this_cpu(perfvisor_lr_vcpu) = n; /* its LRs were restored */
    if ( !pc )
        return;
    spin_lock(&pc->lock); /* not while another pCPU formats its record */
    if ( pc->last_cpu != smp_processor_id() && pc->last_cpu != NR_CPUS )
        pc->migrations++;
    pc->last_cpu = smp_processor_id();
    pc->switches++;
    pvx_load(pc->pv, this_cpu(perfvisor_pcpu));
    spin_unlock(&pc->lock);
}

/* An EC 0x18 exception the guest's EL1 takes: what the hardware does for an EL0 access its
 * own PMUSERENR_EL0 forbids. The guest's EL1 registers are live on this CPU during its trap;
 * the bridge says where the exception goes and with which PSTATE (Arm ARM D1.4.2). */
static void inject_sysreg_to_el1(struct cpu_user_regs *regs, register_t esr)
{
    unsigned long pstate, vector;

    vector = pvx_el1_sync_entry(regs->cpsr, READ_SYSREG(SCTLR_EL1), &pstate);
    WRITE_SYSREG(esr, ESR_EL1);
    regs->elr_el1 = regs->pc;
    regs->spsr_el1 = regs->cpsr;
    regs->cpsr = pstate;
    regs->pc = READ_SYSREG(VBAR_EL1) + vector;
}

bool perfvisor_do_sysreg(struct cpu_user_regs *regs, const union hsr *hsr)
{
    void *vcpu = pv_of(current);
    unsigned int el = (regs->cpsr & PSR_MODE_MASK) == PSR_MODE_EL0t ? 0 : 1;
    unsigned long flags;
    int res;

    if ( !vcpu )
        return false;
    local_irq_save(flags); /* guest traps run with interrupts unmasked */
    res = pvx_trap(vcpu, hsr->bits, el, (unsigned long *)&regs->x0);
    local_irq_restore(flags);
    switch ( res )
    {
    case PVX_HANDLED:
        regs->pc += 4;
        return true;
    case PVX_UNDEF:
        inject_undef_exception(regs, *hsr);
        return true;
    case PVX_EL1_SYSREG:
        inject_sysreg_to_el1(regs, hsr->bits);
        return true;
    default:
        return false;
    }
}

/*
 * ---- The vPMU interrupt, level-sensitive ----
 * Xen's GICv3 vGIC treats every virtual interrupt as an edge: it ignores a falling line and
 * delivers once. The PMU's overflow interrupt is a level (the guest's PMOVS & PMINTEN with
 * PMCR.E), so perfvisor keeps the level per vCPU and adds what the vGIC lacks:
 *  - while the level is high, the interrupt is raised again once the guest has EOIed it (the
 *    LR asks for an EOI maintenance exit: perfvisor_level_virq; the re-raise comes after
 *    Xen synced the LRs on that exit: perfvisor_vgic_synced);
 *  - when the level drops, an interrupt the guest has not taken is withdrawn (queued, or
 *    pending in an LR), so the guest never takes a stale one;
 *  - GICR_ISPENDR0 shows INTID 23 pending while the level is high (Xen reads it as 0).
 */
static void vpmu_irq_withdraw(struct vcpu *v)
{
    struct pending_irq *p;
    unsigned long flags;

    spin_lock_irqsave(&v->arch.vgic.lock, flags);
    p = irq_to_pending(v, PVX_PMU_IRQ);
    clear_bit(GIC_IRQ_GUEST_QUEUED, &p->status);
    if ( p->lr != GIC_INVALID_LR && v == this_cpu(perfvisor_lr_vcpu) )
    {
        struct gic_lr lr_val;

        gic_hw_ops->read_lr(p->lr, &lr_val);
        if ( lr_val.pending && !lr_val.active )
        {
            gic_hw_ops->clear_lr(p->lr);
            clear_bit(p->lr, &this_cpu(lr_mask));
            p->lr = GIC_INVALID_LR;
            clear_bit(GIC_IRQ_GUEST_VISIBLE, &p->status);
            list_del_init(&p->inflight);
        }
        else if ( lr_val.pending )
        {
            /* Active and pending again (an overflow while its handler ran): only the
             * handler's own activation stays. */
            lr_val.pending = false;
            gic_hw_ops->write_lr(p->lr, &lr_val);
        }
    }
    else if ( !test_bit(GIC_IRQ_GUEST_VISIBLE, &p->status) )
    {
        gic_remove_from_lr_pending(v, p);
        list_del_init(&p->inflight);
    }
    spin_unlock_irqrestore(&v->arch.vgic.lock, flags);
}

bool perfvisor_level_virq(const struct vcpu *v, unsigned int virq)
{
    return virq == PVX_PMU_IRQ && v->arch.perfvisor;
}

/*
 * On every entry from the guest, interrupts still masked: an LR of the vPMU interrupt the
 * guest has EOIed keeps its EOI bit, and that keeps Xen's maintenance interrupt asserted
 * until vgic_sync_from_lrs() clears the LR. A synchronous exit unmasks interrupts before that
 * sync, so Xen would take the maintenance interrupt again and again there: the bit is dropped
 * now, the LR otherwise left to the sync.
 */
void perfvisor_preirq(struct vcpu *v)
{
    struct pending_irq *p;
    struct gic_lr lr_val;

    if ( !v->arch.perfvisor || v != this_cpu(perfvisor_lr_vcpu) )
        return;
    spin_lock(&v->arch.vgic.lock);
    p = irq_to_pending(v, PVX_PMU_IRQ);
    if ( p->lr != GIC_INVALID_LR )
    {
        gic_hw_ops->read_lr(p->lr, &lr_val);
        if ( !lr_val.pending && !lr_val.active && lr_val.virt.eoi )
        {
            lr_val.virt.eoi = false;
            gic_hw_ops->write_lr(p->lr, &lr_val);
        }
    }
    spin_unlock(&v->arch.vgic.lock);
}

void perfvisor_vgic_synced(struct vcpu *v)
{
    const struct perfvisor_vcpu *pc = v->arch.perfvisor;
    struct pending_irq *p;
    bool idle;
    unsigned long flags;

    if ( !pc || !pc->irq_level )
        return;
    spin_lock_irqsave(&v->arch.vgic.lock, flags);
    p = irq_to_pending(v, PVX_PMU_IRQ);
    idle = list_empty(&p->inflight); /* neither queued nor in an LR: EOIed */
    spin_unlock_irqrestore(&v->arch.vgic.lock, flags);
    if ( idle )
        vgic_inject_irq(v->domain, v, PVX_PMU_IRQ, true);
}

/* A word read of GICR_ISPENDR0 or GICR_ICPENDR0: both read as the pending state (GICv3);
 * these registers are word-accessible, and Xen answers other sizes. */
bool perfvisor_gicr_pendr0(const struct vcpu *v, unsigned int size, register_t *r)
{
    const struct perfvisor_vcpu *pc = v->arch.perfvisor;

    if ( !pc || size != DABT_WORD )
        return false;
    *r = pc->irq_level ? 1U << PVX_PMU_IRQ : 0;
    return true;
}

/* An MMIO access Xen emulated and skipped (IO_HANDLED): counted as the guest's where QEMU 7.2
 * would not count it (the bridge does nothing elsewhere). */
void perfvisor_mmio_retired(const struct cpu_user_regs *regs)
{
    struct perfvisor_vcpu *pc = current->arch.perfvisor;
    void *vcpu = pv_of(current);
    unsigned long flags;

    if ( !vcpu )
        return;
    pc->mmio++;
    local_irq_save(flags);
    pvx_retire_emulated(vcpu, (regs->cpsr & PSR_MODE_MASK) == PSR_MODE_EL0t ? 0 : 1);
    local_irq_restore(flags);
}

/* ---- what the bridge asks of the host ---- */
void pvx_host_virq(void *host_vcpu, unsigned int intid, int level)
{
    struct vcpu *v = host_vcpu;
    struct perfvisor_vcpu *pc = v->arch.perfvisor;

    if ( intid != PVX_PMU_IRQ || !pc )
        return;
    if ( level == pc->irq_level )
        return;
    pc->irq_level = level;
    if ( level )
        vgic_inject_irq(v->domain, v, intid, true);
    else
        vpmu_irq_withdraw(v);
}

