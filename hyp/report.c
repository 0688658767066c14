/* SPDX-License-Identifier: MIT */
/*
 * The end-of-run report, per VM: how it ended, the library's trap statistics (struct
 * pv_vcpu_stats), the hypervisor's exits by kind with the EL2 instructions each cost on
 * average (selfcount.c), switches, and the virtual PMU counters the VM used.
 */
#include "hyp.h"

static const char *const kind_names[EXIT_KINDS] = {
	[EXIT_SYSREG_PMU] = "sysreg-pmu",
	[EXIT_SYSREG_ID] = "sysreg-id",
	[EXIT_SYSREG_OTHER] = "sysreg-other",
	[EXIT_HVC] = "hvc-psci",
	[EXIT_HVC_NULL] = "hvc-null",
	[EXIT_HVC_BALLOON] = "hvc-balloon",
	[EXIT_SMC] = "smc-psci",
	[EXIT_MMIO_UART] = "mmio-uart",
	[EXIT_MMIO_GIC] = "mmio-gic",
	[EXIT_MMIO_OTHER] = "mmio-abort",
	[EXIT_MMIO_SELFCOUNT] = "mmio-selfcount",
	[EXIT_WFI] = "wfi",
	[EXIT_IRQ_TICK] = "irq-tick",
	[EXIT_IRQ_POLL] = "irq-pmu-poll",
	[EXIT_IRQ_PMU] = "irq-pmu",
	[EXIT_IRQ_SPE] = "irq-spe",
	[EXIT_IRQ_MAINT] = "irq-maint",
	[EXIT_IRQ_OTHER] = "irq-other",
	[EXIT_OTHER] = "other",
	[EXIT_SWITCH] = "switch",
};

const char *exit_kind_name(enum exit_kind k)
{
	return k < EXIT_KINDS ? kind_names[k] : "?";
}

/* Exits of a kind. The traps the library took are its count (pv_vcpu_stats.traps, every
 * answer): the ID group's are sysreg-id, the rest sysreg-pmu (VMs are given the PMU alone);
 * the hypervisor does not count them a second time (exceptions.c). */
uint64_t exits_of(const struct vcpu *v, enum exit_kind k)
{
	const struct pv_vcpu_stats *s = &v->pv.stats;
	if (k == EXIT_SYSREG_ID)
		return s->traps[PV_KIND_ID];
	if (k == EXIT_SYSREG_PMU)
		return s->traps[PV_KIND_PMU] + s->traps[PV_KIND_SPE] + s->traps[PV_KIND_AMU] +
		       s->traps[PV_KIND_MPAM];
	return v->exits[k];
}

static void report_vm(const struct vm *vm)
{
	const struct vcpu *v = &vm->vcpu;
	const struct pv_vcpu_stats *s = &v->pv.stats;
	hyp_printf("hyp: vm %s: %s\n", vm->name, vm->end_reason ? vm->end_reason : "running");
	hyp_printf("hyp:   traps to perfvisor: pmu %lu, spe %lu, amu %lu, mpam %lu, id %lu; "
		   "answered undef %lu, sent to guest EL1 %lu; vpmu loads %lu\n",
		   s->traps[PV_KIND_PMU], s->traps[PV_KIND_SPE], s->traps[PV_KIND_AMU],
		   s->traps[PV_KIND_MPAM], s->traps[PV_KIND_ID], v->pv_undef, v->pv_el1,
		   s->loads);
	hyp_printf("hyp:   scheduled in %lu times; uart lines %lu; injected undef %lu, abort "
		   "%lu\n",
		   v->switches_in, vm->uart_lines, v->injected_undef, v->injected_abort);
	const struct s2_account *s2 = stage2_account(vm);
	hyp_printf(
		"hyp:   stage 2: pinned pages %lu (at most %lu, %lu pin calls, %lu unpins of "
		"unpinned pages), unmapped pages %lu, unmaps refused %lu\n",
		s2->pinned_pages, s2->pinned_max, s2->pin_calls, s2->unpin_unbalanced,
		s2->unmapped_pages, s2->unmap_refused);
	if (vm->pv.spe.version) {
		const struct pv_vspe_stats *st = &v->pv.spe.stats;
		hyp_printf(
			"hyp:   spe: enables %lu, rejected %lu, events %lu, chunks %lu, "
			"stage-2 "
			"faults %lu (repaired %lu), records lost %lu, pinned bytes %lu, pmbsr "
			"%lx\n",
			st->enables, st->rejected, st->events, st->chunks, st->s2_faults,
			st->s2_repaired, st->records_lost, v->pv.spe.pinned_bytes,
			pv_vspe_status(&v->pv));
	}
	if (vm->pv.amu.version) {
		/* The vCPU's own activity (docs/amu.md), loaded or not. */
		const struct pv_vcpu *pv = &v->pv;
		char aux[PV_AMU_AUX_MAX * 21 + 1] = "";
		size_t len = 0;
		for (unsigned n = 0; n < vm->pv.amu.nr_aux; n++)
			len += (size_t)hyp_snprintf(aux + len, sizeof(aux) - len, "%s%lu",
						    n ? "," : "",
						    pv_vamu_counter(pv, PV_AMU_GROUP0 + n));
		hyp_printf("hyp:   amu: cpu_cycles %lu, cnt_cycles %lu, inst_retired %lu, "
			   "stall_backend_mem %lu, aux %s\n",
			   pv_vamu_counter(pv, 0), pv_vamu_counter(pv, 1),
			   pv_vamu_counter(pv, 2), pv_vamu_counter(pv, 3), len ? aux : "none");
	}
	for (unsigned k = 0; k < EXIT_KINDS; k++) {
		uint64_t n = exits_of(v, k);
		if (!n)
			continue;
		if (hyp.selfcount)
			hyp_printf("hyp:   exits %-12s %8lu  el2-instructions %10lu  avg %lu\n",
				   kind_names[k], n, v->el2_instr[k], v->el2_instr[k] / n);
		else
			hyp_printf("hyp:   exits %-12s %8lu\n", kind_names[k], n);
	}
	const struct pv_vpmu *p = &v->pv.pmu;
	if (!p->active) {
		hyp_puts("hyp:   vpmu: never used\n");
		return;
	}
	hyp_printf("hyp:   vpmu: pmcr %lx cnten %x inten %x ovs %x\n", p->pmcr, p->cnten,
		   p->inten, p->ovs);
	for (unsigned n = 0; n < vm->pv.pmu.nr_counters; n++) {
		uint64_t val = pv_vpmu_counter((struct pv_vcpu *)&v->pv, n);
		if (val || p->evtyper[n] || (p->cnten & (1u << n)))
			hyp_printf("hyp:     counter %u: event %lx (type %lx) value %lu\n", n,
				   p->evtyper[n] & 0xFFFF, p->evtyper[n], val);
	}
	uint64_t cc = pv_vpmu_counter((struct pv_vcpu *)&v->pv, PV_PMU_CYCLE_IDX);
	if (cc || (p->cnten & (1u << 31)))
		hyp_printf("hyp:     cycle counter: filter %lx value %lu\n", p->ccfiltr, cc);
}

/* Averages over all VMs, the figures the benchmarks quote. */
static void report_overhead(void)
{
	if (!hyp.selfcount) {
		hyp_puts("hyp: overhead: not measured (needs -icount shift=0 and a host "
			 "counter)\n");
		return;
	}
	if (read_sysreg(S3_3_C9_C12_5) != hyp.host_counter) /* PMSELR_EL0, selfcount.c */
		hyp_puts("hyp: overhead: PMSELR_EL0 was changed: the figures are not "
			 "reliable\n");
	for (unsigned k = 0; k < EXIT_KINDS; k++) {
		uint64_t n = 0, instr = 0;
		for (unsigned i = 0; i < hyp.slots; i++) {
			n += exits_of(&hyp.vms[i].vcpu, k);
			instr += hyp.vms[i].vcpu.el2_instr[k];
		}
		if (n)
			hyp_printf(
				"hyp: overhead %-12s %8lu exits, %lu el2-instructions each\n",
				kind_names[k], n, instr / n);
	}
}

void report_all(void)
{
	hyp_printf("hyp: ---- report: %u VMs, %lu switches, slice %lu ticks ----\n", hyp.nr_vms,
		   hyp.switches, hyp.slice_ticks);
	for (unsigned i = 0; i < hyp.slots; i++)
		if (hyp.vms[i].state != VM_EMPTY)
			report_vm(&hyp.vms[i]);
	report_overhead();
	hyp_printf("hyp: idle: the CPU waited at EL2 %lu times with no vCPU to run\n",
		   hyp.idle_waits);
	hyp_puts("hyp: all VMs ended: system off\n");
}
