/* SPDX-License-Identifier: MIT */
/*
 * Live figures on the console (records_ms=N): every N ms of virtual time, one record per VM
 * (include/perfvisor/record.h, docs/records.md), so a host reading the console while the
 * hypervisor runs (`perfvisor serve`) has each VM's counts, traps, exits and switches; and
 * a last one per VM, state "ended", before the final report.
 */
#include "hyp.h"
#include "perfvisor/record.h"

static void emit_vm(struct vm *vm, uint64_t now)
{
	static char rec[PV_RECORD_MAX];
	struct pv_record_exit exits[EXIT_KINDS];
	struct vcpu *v = &vm->vcpu;
	unsigned n = 0;
	for (unsigned k = 0; k < EXIT_KINDS; k++) {
		uint64_t count = exits_of(v, k);
		if (!count)
			continue;
		exits[n].kind = exit_kind_name(k);
		exits[n].exits = count;
		exits[n].el2_instructions = hyp.selfcount ? v->el2_instr[k] : 0;
		n++;
	}
	struct pv_record_host h = {
		.seq = hyp.records_seq,
		.time_ns = now / hyp.records_freq * 1000000000u +
			   now % hyp.records_freq * 1000000000u / hyp.records_freq,
		.vm_name = vm->name,
		.state = vm->state == VM_ENDED ? "ended"
			 : v->waiting          ? "waiting"
					       : "running",
		.switches_in = v->switches_in,
		.nr_exits = n,
		.exits = exits,
	};
	/* A vCPU not loaded has its counters in its saved state; the loaded one's are live. */
	if (pv_record_vcpu(rec, sizeof(rec), &v->pv, &h)) {
		hyp_puts(rec);
		hyp.records_seq++;
	}
}

void records_emit(void)
{
	uint64_t now = timer_now();
	uart_break(); /* a record is a line of its own */
	for (unsigned i = 0; i < hyp.slots; i++)
		if (hyp.vms[i].state != VM_EMPTY)
			emit_vm(&hyp.vms[i], now);
}

void records_check(void)
{
	if (!hyp.records_ticks)
		return;
	uint64_t now = timer_now();
	if (now < hyp.records_deadline)
		return;
	records_emit();
	/* The next period from this one's deadline, skipping any missed while idle. */
	while (hyp.records_deadline <= now)
		hyp.records_deadline += hyp.records_ticks;
}

void records_last(void)
{
	if (hyp.records_ticks)
		records_emit();
}
