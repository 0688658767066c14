/* SPDX-License-Identifier: MIT */
/*
 * Round-robin scheduling of the VMs' vCPUs on the one physical CPU, driven by the EL2
 * physical timer (timer.c). A switch saves the outgoing vCPU's EL1 state, debug registers and
 * the other registers of vcpu_regs.c, FP/SIMD registers, virtual CPU interface and virtual
 * timer, and restores the incoming one's; the PMU goes
 * through the library's pv_vcpu_put / pv_vcpu_load.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

#define EL1_SAVE(name, enc) v->el1.name = read_sysreg(enc);
#define EL1_RESTORE(name, enc) write_sysreg(enc, v->el1.name);

void vcpu_load(struct vcpu *v)
{
	const struct pv_trap_words *t = &v->pv.traps;
	hyp.current = v;
	hyp.guest_selr = v->guest_selr; /* before the PMU load writes its PMSELR_EL0 */
	write_sysreg(vttbr_el2, v->vm->vttbr);
	write_sysreg(S3_4_C0_C0_5, v->vmpidr); /* VMPIDR_EL2 */
	write_sysreg(hcr_el2, (hyp.hcr_hyp & ~t->hcr_el2_owned) | t->hcr_el2);
	write_sysreg(mdcr_el2,
		     (hyp.mdcr_hyp & ~t->mdcr_el2_owned) | t->mdcr_el2 | vcpu_regs_mdcr(v));
	write_sysreg(cptr_el2, (hyp.cptr_hyp & ~t->cptr_el2_owned) | t->cptr_el2);
	if (hyp.hw.fgt_words) { /* the fine-grained traps: the hypervisor's own are none */
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGRTR_EL2, t->hdfgrtr_el2);
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGWTR_EL2, t->hdfgwtr_el2);
	}
	/* HAFGRTR_EL2 (Arm ARM D24.2.61): on the AMU's virtual-offset path the reads of the
	 * counters without an offset register trap alone; the hypervisor's own traps are none. */
	if (hyp.amu_fgt)
		pv_plat_sysreg_write(&hyp.pcpu, PV_HAFGRTR_EL2, t->hafgrtr_el2);
	/* PMSCR_EL2 (Arm ARM D24.7.9): the hypervisor samples nothing of its own (0), and the
	 * vCPU's word keeps EL2 sampling, PA, PCT and CX clear while it runs. */
	if (hyp.hw.spehw.usable)
		pv_plat_sysreg_write(&hyp.pcpu, PV_PMSCR_EL2, t->pmscr_el2);
	EL1_REGS(EL1_RESTORE)
	vcpu_regs_restore(v);
	fpsimd_restore(&v->fp);
	isb();
	pv_vcpu_load(&v->pv, &hyp.pcpu);
	vgic_restore(v);
	vtimer_sync(v);
	v->switches_in++;
}

void vcpu_put(struct vcpu *v)
{
	pv_vcpu_put(&v->pv);
	hyp.guest_selr = false; /* the put gave the pCPU's PMSELR_EL0 back */
	if (hyp.hw.fgt_words) {
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGRTR_EL2, 0);
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGWTR_EL2, 0);
	}
	vgic_save(v);
	EL1_REGS(EL1_SAVE)
	vcpu_regs_save(v);
	write_sysreg(S3_3_C14_C3_1, 0ul); /* its virtual timer stops firing while it is out */
	fpsimd_save(&v->fp);
	isb();
	if (hyp.current == v)
		hyp.current = NULL;
}

/* Whether a vCPU may run: not waiting in WFI, or waiting with a wake-up event now: an
 * interrupt pending for it, or its virtual timer due. The loaded vCPU's timer is live in
 * hardware (its line is recomputed); another's is its saved CNTV_CTL/CVAL. */
static bool ready(struct vcpu *v)
{
	if (!v->waiting)
		return true;
	bool due;
	if (v == hyp.current) {
		vtimer_sync(v);
		due = false;
	} else {
		due = timer_now() >= vtimer_deadline(v->el1.cntv_ctl, v->el1.cntv_cval);
	}
	if (due || vgic_pending(v))
		v->waiting = false;
	return !v->waiting;
}

/* The first runnable, ready vCPU from slot `start` on in round-robin order, or NULL. */
static struct vcpu *pick_from(unsigned start)
{
	unsigned k = start < hyp.slots ? start : 0;
	for (unsigned i = 0; i < hyp.slots; i++) {
		struct vm *vm = &hyp.vms[k];
		if (vm->state == VM_RUNNABLE && ready(&vm->vcpu))
			return &vm->vcpu;
		if (++k == hyp.slots)
			k = 0;
	}
	return NULL;
}

static struct vcpu *pick(struct vcpu *cur)
{
	return pick_from(cur ? cur->vm->index + 1 : 0);
}

/* A physical interrupt other than the scheduler tick, acknowledged (INTID `intid`): the PMU,
 * the GIC maintenance interrupt, the loaded vCPU's virtual timer (v may be NULL when none is
 * loaded: the pCPU idles). Returns the exit kind it is counted as. The devices only report:
 * what follows for the VMs (the console's Ctrl-A x) is decided here. */
enum exit_kind sched_device_irq(struct vcpu *v, uint32_t intid)
{
	enum exit_kind kind = EXIT_IRQ_OTHER;
	switch (intid) {
	case PV_INTID_PMU: {
		kind = EXIT_IRQ_PMU;
		enum pv_irq_result r = pv_irq(&hyp.pcpu, intid);
		if (r == PV_IRQ_GUEST_MAPPED && v) { /* a passthrough or direct vCPU's own */
			gic_drop(intid);
			vgic_inject_mapped(v, intid);
			break;
		}
		if (r == PV_IRQ_HOST_PENDING)
			pv_plat_sysreg_write(&hyp.pcpu, PV_PMOVSCLR_EL0,
					     1ul << hyp.host_counter);
		else if (r == PV_IRQ_HANDLED && v && v->pmu_mapped)
			qemu72_pmu_line_resync(&hyp.pcpu); /* none of its own was raised */
		gic_eoi(intid);
		break;
	}
	case PV_INTID_SPE:
		kind = EXIT_IRQ_SPE;
		/* The loaded vCPU's buffer management event (docs/spe.md): the library takes it
		 * and drops the line. Not a guest's: the hypervisor owns no buffer, so whatever
		 * raised it is stopped, and the line with it, rather than taken again. */
		if (pv_irq(&hyp.pcpu, intid) == PV_IRQ_NOT_MINE) {
			pv_plat_sysreg_write(&hyp.pcpu, PV_PMBLIMITR_EL1, 0);
			pv_plat_sysreg_write(&hyp.pcpu, PV_PMBSR_EL1, 0);
			isb();
		}
		gic_eoi(intid);
		break;
	case INTID_MAINT:
		kind = EXIT_IRQ_MAINT;
		if (v) {
			vgic_maintenance(v);
			vtimer_sync(v);
		}
		gic_eoi(intid);
		break;
	case INTID_VTIMER:
		if (v)
			vtimer_sync(v);
		gic_eoi(intid);
		break;
	case INTID_UART:
		uart_host_irq();
		gic_eoi(intid);
		if (uart_quit_requested())
			sched_end_all("ended: Ctrl-A x at the terminal");
		break;
	case INTID_SPURIOUS:
		break;
	default:
		gic_eoi(intid);
		break;
	}
	return kind;
}

/* No vCPU can run: the pCPU waits at EL2 (WFI) for the next physical interrupt, with the EL2
 * timer set for the earliest virtual timer of a waiting vCPU that is not loaded (the loaded
 * one's timer is live and interrupts by itself) or the time limit, and takes it. A wait
 * nothing can end (no timer armed anywhere, no time limit) ends the waiting VMs: on this
 * machine no other interrupt could reach them. */
static void idle(void)
{
	uint64_t deadline = hyp.limit_deadline ? hyp.limit_deadline : UINT64_MAX;
	uint64_t now = timer_now();
	bool loaded_timer = false;
	for (unsigned i = 0; i < hyp.slots; i++) {
		struct vcpu *v = &hyp.vms[i].vcpu;
		if (hyp.vms[i].state != VM_RUNNABLE)
			continue;
		/* The loaded vCPU's timer, once it has fired without waking it (its interrupt
		 * disabled in the vGIC), raises nothing more. */
		if (v == hyp.current) {
			loaded_timer = (read_sysreg(S3_3_C14_C3_1) & 7ul) ==
				       1ul; /* ENABLE alone */
			continue;
		}
		/* Its timer came due since ready() looked: it can run now. */
		uint64_t t = vtimer_deadline(v->el1.cntv_ctl, v->el1.cntv_cval);
		if (t <= now)
			return;
		if (t < deadline)
			deadline = t;
	}
	/* Nothing can end the wait: no timer, no time limit, and no VM that input typed at the
	 * terminal could reach. Unless the loaded vCPU's timer fired since ready() looked, which
	 * the loop above takes for one that raises nothing more: its line, set now, wakes it. */
	if (deadline == UINT64_MAX && !loaded_timer && !uart_input_possible()) {
		if (hyp.current) {
			vtimer_sync(hyp.current);
			if (vgic_pending(hyp.current))
				return;
		}
		sched_end_all(
			"ended: waits in WFI with no timer armed: no interrupt can wake it");
	}
	hyp.idle_waits++;
	/* The live figures records come on time while the pCPU waits, too (records.c). */
	if (hyp.records_ticks && hyp.records_deadline < deadline)
		deadline = hyp.records_deadline;
	timer_wake_at(deadline);
	dsb(sy);
	__asm__ volatile("wfi" ::: "memory");
	uint32_t intid = gic_ack();
	if (intid == INTID_HYPTIMER) {
		write_sysreg(S3_4_C14_C2_1, 0ul);
		gic_eoi(intid);
		records_check();
		sched_check_limit();
	} else {
		(void)sched_device_irq(hyp.current, intid);
	}
}

/* From `cur` (loaded, or NULL when it has ended) to `next`; a new slice begins. */
static struct vcpu *switch_to(struct vcpu *cur, struct vcpu *next)
{
	if (next != cur) {
		if (cur)
			vcpu_put(cur);
		vcpu_load(next);
		hyp.switches++;
		hyp.switched = true;
	}
	timer_rearm();
	return next;
}

/* Switch from `cur` to the next vCPU that can run, idling until there is one. */
static struct vcpu *run_next(struct vcpu *cur, unsigned start)
{
	struct vcpu *next;
	while (!(next = pick_from(start)))
		idle();
	return switch_to(cur, next);
}

/* Called with `cur` loaded and runnable: switch to the next runnable vCPU, if another. */
struct vcpu *sched_next(struct vcpu *cur)
{
	struct vcpu *next = pick(cur);
	if (next == cur || !next)
		return cur;
	return switch_to(cur, next);
}

/* A trapped WFI: the vCPU waits until a wake-up event (Arm ARM D1.7.2.1: an interrupt pending
 * for it); meanwhile the others run, and with none to run the pCPU waits at EL2. A vCPU with
 * an interrupt already pending goes on at once. */
struct vcpu *sched_wfi(struct vcpu *cur)
{
	cur->waiting = true;
	/* A software pending state of its mapped INTID waits for that list register, whose
	 * deactivation raises no maintenance interrupt: look now (vgic.c, vgic_latch). */
	if (cur->pmu_mapped)
		vgic_maintenance(cur);
	if (ready(cur))
		return cur;
	uart_waits(cur->vm); /* what it wrote of a line shows while it waits: a prompt */
	return run_next(cur, cur->vm->index + 1);
}

/* After a VM's end, what it still holds by the hypervisor's own accounting: its pinned pages
 * (stage2.c), the pCPU (loaded, in the library or here), the PMU counters it programmed still
 * enabled, a list register, its virtual timer armed, the profiling buffer enabled. It must hold
 * none; the console says so for every VM that ends, or names what is left. */
static void check_released(const struct vm *vm)
{
	const struct vcpu *v = &vm->vcpu;
	const char *held = NULL;
	if (stage2_account(vm)->pinned_pages)
		held = "pinned pages";
	else if (v->pv.cpu || hyp.pcpu.loaded == &v->pv || hyp.current == v)
		held = "the pCPU (still loaded)";
	else if (pv_plat_sysreg_read(&hyp.pcpu, PV_PMCNTENSET_EL0) & vm->pv.pmu.counter_mask)
		held = "enabled PMU counters";
	else if (!vgic_lrs_empty())
		held = "list registers";
	else if (read_sysreg(S3_3_C14_C3_1) & 1ul) /* CNTV_CTL_EL0.ENABLE */
		held = "the virtual timer";
	else if (hyp.hw.spehw.usable &&
		 (pv_plat_sysreg_read(&hyp.pcpu, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_E))
		held = "the profiling buffer";
	if (held)
		hyp_printf("hyp: vm %s: still holds %s after its end\n", vm->name, held);
	else
		hyp_printf("hyp: vm %s: released: no page pinned, not loaded, no PMU counter, "
			   "list "
			   "register, timer or profiling buffer left\n",
			   vm->name);
}

const char *const end_hold_names[END_HOLD_KINDS] = {
	[END_HOLD_PINS] = "pins", [END_HOLD_LOADED] = "loaded", [END_HOLD_PMU] = "pmu",
	[END_HOLD_LR] = "lr",     [END_HOLD_TIMER] = "timer",   [END_HOLD_SPE] = "spe",
};
uint8_t end_hold_kind;

/* end_hold=KIND, the test of check_released (tests/guest/run.sh, scenarios released and
 * released_spe): at each VM's end, after the put, KIND is held again as a release that had
 * failed would leave it, the check is made, and KIND is given back; the check must name it.
 * pins: the check comes before the profiling buffer's pages are unpinned. */
static void end_hold(struct vcpu *v, bool hold)
{
	switch (end_hold_kind) {
	case END_HOLD_LOADED:
		if (hold)
			vcpu_load(v);
		else
			vcpu_put(v);
		break;
	case END_HOLD_PMU: /* its counter 0 enabled */
		pv_plat_sysreg_write(&hyp.pcpu, hold ? PV_PMCNTENSET_EL0 : PV_PMCNTENCLR_EL0,
				     1);
		break;
	case END_HOLD_LR: /* ICH_LR0_EL2 (GIC architecture spec IHI 0069): vINTID 27 pending */
		write_sysreg(S3_4_C12_C12_0, hold ? (1ul << 62 | 1ul << 60 | 27ul) : 0ul);
		break;
	case END_HOLD_TIMER: /* CNTV_CTL_EL0: ENABLE, its interrupt masked (IMASK) */
		write_sysreg(S3_3_C14_C3_1, hold ? 3ul : 0ul);
		break;
	case END_HOLD_SPE: /* PMBLIMITR_EL1.E; nothing samples at EL2 (PMSCR_EL2.E2SPE 0) */
		if (hyp.hw.spehw.usable)
			pv_plat_sysreg_write(&hyp.pcpu, PV_PMBLIMITR_EL1,
					     hold ? PV_PMBLIMITR_E : 0);
		break;
	default:
		break;
	}
	isb();
}

struct vcpu *vm_end(struct vcpu *v, const char *reason)
{
	struct vm *vm = v->vm;
	vm->state = VM_ENDED;
	vm->end_reason = reason;
	uart_flush(vm);
	vcpu_put(v);
	if (end_hold_kind) {
		end_hold(v, true);
		check_released(vm);
		end_hold(v, false);
	}
	/* Profiling is stopped in the hardware by the put (PMBLIMITR_EL1 = 0 after PSB CSYNC):
	 * now the buffer's pages are unpinned, whatever the guest was doing. */
	pv_vspe_release(&v->pv);
	check_released(vm);
	bool any = false;
	for (unsigned i = 0; i < hyp.slots; i++)
		any |= hyp.vms[i].state == VM_RUNNABLE;
	if (!any) {
		records_last();
		report_all();
		machine_off();
	}
	struct vcpu *next = run_next(NULL, vm->index + 1);
	hyp.switched = false; /* counted as the ending VM's exit, not as a switch */
	return next;
}

/* limit_ms: once its time has come, every VM ends (sched_end_all). */
void sched_check_limit(void)
{
	if (hyp.limit_deadline && timer_now() >= hyp.limit_deadline) {
		uart_break();
		hyp_printf("hyp: time limit of %lu ms reached\n", hyp.limit_ms);
		sched_end_all("ended: time limit (limit_ms) reached");
	}
}

/* limit_ms reached: every VM still running ends, the report follows and the machine is off. */
void sched_end_all(const char *reason)
{
	for (unsigned i = 0; i < hyp.slots; i++) {
		struct vm *vm = &hyp.vms[i];
		if (vm->state != VM_RUNNABLE)
			continue;
		vm->state = VM_ENDED;
		vm->end_reason = reason;
		uart_flush(vm);
	}
	if (hyp.current)
		vcpu_put(hyp.current);
	for (unsigned i = 0; i < hyp.slots; i++) /* every VM's pins, after the put (vm_end) */
		if (hyp.vms[i].state == VM_ENDED && hyp.vms[i].end_reason == reason) {
			pv_vspe_release(&hyp.vms[i].vcpu.pv);
			check_released(&hyp.vms[i]);
		}
	records_last();
	report_all();
	machine_off();
}

void sched_start(void)
{
	struct vcpu *first = pick(NULL);
	if (!first)
		hyp_panic("no VM to run");
	/* Read before the load: a passthrough or direct vCPU's PMSELR_EL0 is its own
	 * (selfcount.c). */
	hyp.last_count = read_sysreg(S3_3_C9_C13_2); /* PMXEVCNTR_EL0: selfcount.c */
	vcpu_load(first);
	timer_rearm();
	guest_enter(&first->f);
}
