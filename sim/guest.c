/* SPDX-License-Identifier: MIT */
/*
 * Guest program interpreter. Register accesses are routed as the hardware would (UNDEFINED,
 * refused at EL0 by PMUSERENR_EL0 to EL1, trapped to EL2, or executed), a trapped access is
 * handed to pv_trap with a real ESR_EL2 and does not retire at the guest's EL (an instruction
 * that takes a synchronous exception is not architecturally executed).
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define XZR_GUARD UINT64_C(0x5A5A5A5A0BADF00D)

/* ---- programs ---------------------------------------------------------------------------- */

void sim_prog_init(struct sim_prog *p)
{
	memset(p, 0, sizeof(*p));
}

void sim_prog_free(struct sim_prog *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

static size_t push(struct sim_prog *p, enum sim_op_kind kind, unsigned el)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct sim_op *ops = realloc(p->ops, cap * sizeof(*ops));
		if (!ops)
			abort();
		p->ops = ops;
		p->cap = cap;
	}
	struct sim_op *op = &p->ops[p->n];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->el = (uint8_t)(el ? 1 : 0);
	op->expect = SIM_OUT_OK;
	return p->n++;
}

size_t sim_prog_work(struct sim_prog *p, unsigned el, const struct sim_work *w)
{
	size_t i = push(p, SIM_OP_WORK, el);
	p->ops[i].work = *w;
	return i;
}

size_t sim_prog_workload(struct sim_prog *p, unsigned el, enum sim_profile prof, uint64_t insts)
{
	struct sim_work w;
	sim_work_profile(&w, prof, insts);
	return sim_prog_work(p, el, &w);
}

size_t sim_prog_msr_rt(struct sim_prog *p, unsigned el, uint32_t key, unsigned rt, uint64_t val)
{
	size_t i = push(p, SIM_OP_MSR, el);
	p->ops[i].key = key;
	p->ops[i].rt = (uint8_t)(rt & 31);
	p->ops[i].imm = val;
	return i;
}

size_t sim_prog_msr(struct sim_prog *p, unsigned el, uint32_t key, uint64_t val)
{
	return sim_prog_msr_rt(p, el, key, 0, val);
}

size_t sim_prog_mrs_rt(struct sim_prog *p, unsigned el, uint32_t key, unsigned rt)
{
	size_t i = push(p, SIM_OP_MRS, el);
	p->ops[i].key = key;
	p->ops[i].rt = (uint8_t)(rt & 31);
	return i;
}

size_t sim_prog_mrs(struct sim_prog *p, unsigned el, uint32_t key)
{
	return sim_prog_mrs_rt(p, el, key, 0);
}

size_t sim_prog_snap(struct sim_prog *p)
{
	return push(p, SIM_OP_SNAP, 1);
}

size_t sim_prog_irq_check(struct sim_prog *p)
{
	return push(p, SIM_OP_IRQ_CHECK, 1);
}

size_t sim_prog_irq_handle(struct sim_prog *p)
{
	return push(p, SIM_OP_IRQ_HANDLE, 1);
}

size_t sim_prog_smc(struct sim_prog *p, unsigned secure_el, const struct sim_work *w)
{
	size_t i = push(p, SIM_OP_SMC, 1);
	p->ops[i].imm = secure_el;
	p->ops[i].work = *w;
	return i;
}

size_t sim_prog_migrate(struct sim_prog *p, unsigned cpu)
{
	size_t i = push(p, SIM_OP_MIGRATE, 1);
	p->ops[i].imm = cpu;
	return i;
}

size_t sim_prog_append(struct sim_prog *p, const struct sim_op *op)
{
	size_t i = push(p, (enum sim_op_kind)op->kind, op->el);
	struct sim_op *o = &p->ops[i];
	*o = (struct sim_op){.kind = op->kind,
			     .el = op->el,
			     .rt = op->rt,
			     .expect = op->expect,
			     .from_x = op->from_x,
			     .key = op->key,
			     .imm = op->imm,
			     .work = op->work};
	return i;
}

void sim_prog_expect(struct sim_prog *p, size_t i, enum sim_outcome o)
{
	if (i < p->n)
		p->ops[i].expect = (uint8_t)o;
}

const char *sim_outcome_name(enum sim_outcome o)
{
	static const char *const names[] = {"pending", "ok", "UNDEF", "EL1 sysreg trap",
					    "unknown"};
	return o <= SIM_OUT_UNKNOWN ? names[o] : "?";
}

/* ---- execution --------------------------------------------------------------------------- */

static void retire(struct sim_vcpu *v, const struct sim_work *w)
{
	sim_cpu_exec(v->cpu, v->el, false, w);
	sim_truth_work(&v->truth, v->el, w);
	v->truth.pieces++;
}

/* An exception the hardware takes to guest EL1 instead of executing the access. */
static void refuse(struct sim_vcpu *v, struct sim_op *op, enum sim_outcome o)
{
	sim_cpu_guest_exception(v->cpu, v);
	op->at = v->truth.now;
	op->outcome = (uint8_t)o;
}

static void direct(struct sim_vcpu *v, struct sim_op *op, bool rd)
{
	struct sim_cpu *c = v->cpu;
	uint64_t val = rd || op->rt == 31 ? 0 : v->x[op->rt];
	op->at = v->truth.now;
	enum sim_acc a = rd ? sim_cpu_read(c, op->el, op->key, &val)
			    : sim_cpu_write(c, op->el, op->key, val);
	if (a != SIM_ACC_OK) {
		refuse(v, op, SIM_OUT_UNDEF);
		return;
	}
	if (rd) {
		op->value = val;
		if (op->rt != 31)
			v->x[op->rt] = val;
	} else if (op->key == PV_PMSWINC_EL0) {
		sim_truth_swinc(&v->truth, op->el, val);
	}
	op->outcome = SIM_OUT_OK;
	struct sim_work one = {0}; /* the access retires at the guest's EL */
	one.ev[SIM_EV_INST_RETIRED] = 1;
	one.ev[SIM_EV_CPU_CYCLES] = 1;
	retire(v, &one);
}

/* The physical interrupts at EL2, then what the running guest does about its virtual ones
 * that have no program op of their own (its SPE driver's buffer interrupt). */
void sim_guest_check_irq(struct sim_cpu *c)
{
	sim_cpu_check_irq(c);
	sim_spe_driver_irq(c); /* the running guest takes its virtual INTID 21 */
}

static void trap(struct sim_vcpu *v, struct sim_op *op, bool rd)
{
	struct sim_cpu *c = v->cpu;
	sim_cpu_guest_exception(c, v);
	op->at = v->truth.now;
	op->trapped = true;

	uint64_t esr = (uint64_t)PV_EC_SYS64 << PV_ESR_EC_SHIFT | PV_ESR_IL | op->key |
		       (uint64_t)op->rt << PV_ISS_SYS_RT_SHIFT | (rd ? PV_ISS_SYS_DIR_READ : 0);
	uint64_t regs[32];
	memcpy(regs, v->x, sizeof(v->x));
	regs[31] = XZR_GUARD;
	enum pv_trap_result r = sim_cpu_trap(c, v, esr, op->el, regs);
	if (regs[31] != XZR_GUARD)
		v->xzr_clobbered++;
	memcpy(v->x, regs, sizeof(v->x));

	switch (r) {
	case PV_TRAP_HANDLED:
		op->outcome = SIM_OUT_OK;
		if (rd)
			op->value = op->rt == 31 ? 0 : v->x[op->rt];
		else if (op->key == PV_PMSWINC_EL0)
			sim_truth_swinc(&v->truth, op->el, op->rt == 31 ? 0 : v->x[op->rt]);
		break;
	case PV_TRAP_UNDEF:
		op->outcome = SIM_OUT_UNDEF;
		break;
	case PV_TRAP_EL1_SYSREG:
		op->outcome = SIM_OUT_EL1_SYSREG;
		break;
	default:
		op->outcome = SIM_OUT_UNKNOWN;
		break;
	}
	c->el = op->el;
}

static void access(struct sim_vcpu *v, struct sim_op *op)
{
	bool rd = op->kind == SIM_OP_MRS;
	v->el = op->el;
	if (!rd && !op->from_x && op->rt != 31)
		v->x[op->rt] = op->imm;
	switch (sim_cpu_route(v->cpu, op->key, rd, op->el)) {
	case SIM_ROUTE_DIRECT:
		direct(v, op, rd);
		break;
	case SIM_ROUTE_UNDEF:
		refuse(v, op, SIM_OUT_UNDEF);
		break;
	case SIM_ROUTE_EL1:
		refuse(v, op, SIM_OUT_EL1_SYSREG);
		break;
	case SIM_ROUTE_EL2:
		trap(v, op, rd);
		break;
	}
}

/* The guest takes its virtual PMU interrupt at EL1: its handler reads PMOVSSET_EL0 and
 * writes the bits back to PMOVSCLR_EL0, through the same hardware paths as any access. */
static bool guest_irq(struct sim_vcpu *v)
{
	if (!v->line[PV_INTID_PMU])
		return false;
	sim_cpu_guest_exception(v->cpu, v);
	unsigned el = v->el;
	uint64_t x0 = v->x[0];
	v->irq.taken++;
	struct sim_op rd = {.kind = SIM_OP_MRS, .el = 1, .key = PV_PMOVSSET_EL0};
	access(v, &rd);
	if (rd.outcome != SIM_OUT_OK) {
		v->irq.failed++;
	} else {
		if (!rd.value)
			v->irq.empty++;
		for (unsigned b = 0; b < 32; b++)
			if (rd.value >> b & 1)
				v->irq.handled[b]++;
		struct sim_op wr = {
			.kind = SIM_OP_MSR, .el = 1, .key = PV_PMOVSCLR_EL0, .from_x = true};
		access(v, &wr);
		if (wr.outcome != SIM_OUT_OK)
			v->irq.failed++;
	}
	if (v->pmu_mapped) { /* its EOI deactivates the physical interrupt too */
		v->pmu_mapped = false;
		v->line[PV_INTID_PMU] = false;
		v->cpu->pmu_ppi_active = false;
	}
	sim_guest_check_irq(v->cpu);
	if (v->line[PV_INTID_PMU])
		v->irq.stuck++;
	v->el = el;
	v->x[0] = x0;
	return true;
}

static void smc(struct sim_vcpu *v, struct sim_op *op)
{
	struct sim_cpu *c = v->cpu;
	if (!v->m->cfg.el3 || op->el == 0) {
		refuse(v, op, SIM_OUT_UNDEF); /* SMC is UNDEFINED without EL3, and at EL0 */
		return;
	}
	sim_cpu_guest_exception(c, v);
	op->at = v->truth.now;
	unsigned sel = op->imm >= 3 ? 3 : (unsigned)op->imm;
	c->el = sel;
	c->secure = true;
	sim_cpu_exec(c, sel, true, &op->work);
	uint64_t *t = sel == 3 ? c->truth.el3 : c->truth.secure[sel];
	for (int i = 0; i < SIM_EV_COUNT; i++)
		t[i] += op->work.ev[i];
	struct sim_work eret = {0}; /* back to the guest from EL3 */
	eret.ev[SIM_EV_EXC_RETURN] = 1;
	sim_cpu_exec(c, 3, true, &eret);
	c->truth.el3[SIM_EV_EXC_RETURN]++;
	c->el = op->el;
	c->secure = false;
	op->outcome = SIM_OUT_OK;
}

/* Executes (part of) a WORK op within `budget` cycles; returns the budget left. */
static uint64_t work(struct sim_vcpu *v, struct sim_op *op, uint64_t budget, bool *complete)
{
	if (!v->in_work) {
		v->rest = op->work;
		v->in_work = true;
	}
	v->el = op->el;
	struct sim_work piece;
	uint64_t cycles = v->rest.ev[SIM_EV_CPU_CYCLES];
	if (cycles <= budget) {
		piece = v->rest;
		budget -= cycles;
		v->in_work = false;
	} else {
		sim_work_split(&v->rest, budget, &piece, &v->rest);
		budget = 0;
		v->truth.splits++;
	}
	retire(v, &piece);
	*complete = !v->in_work;
	if (*complete) {
		op->at = v->truth.now;
		op->outcome = SIM_OUT_OK;
	}
	return budget;
}

static void complete(struct sim_vcpu *v, struct sim_op *op)
{
	if (op->outcome == SIM_OUT_PENDING)
		op->outcome = SIM_OUT_OK;
	if (op->outcome != op->expect)
		v->prog->unexpected++;
	op->seq = ++v->m->seq;
	op->cpu = v->cpu->idx;
	v->pc++;
}

bool sim_guest_run(struct sim_vcpu *v, uint64_t budget)
{
	struct sim_prog *p = v->prog;
	while (!v->done) {
		if (v->pc >= p->n) {
			v->done = true;
			sim_cpu_guest_exception(v->cpu, v); /* its final hypercall */
			return true;
		}
		if (p->irq_auto)
			guest_irq(v);
		if (budget == 0)
			return false;
		struct sim_op *op = &p->ops[v->pc];
		bool done = true;
		switch (op->kind) {
		case SIM_OP_WORK:
			budget = work(v, op, budget, &done);
			break;
		case SIM_OP_MSR:
		case SIM_OP_MRS:
			access(v, op);
			budget--;
			break;
		case SIM_OP_SNAP:
			op->at = v->truth.now;
			break;
		case SIM_OP_IRQ_CHECK:
			op->line = v->line[PV_INTID_PMU];
			op->at = v->truth.now;
			break;
		case SIM_OP_IRQ_HANDLE:
			op->line = guest_irq(v);
			op->at = v->truth.now;
			break;
		case SIM_OP_SMC:
			smc(v, op);
			budget--;
			break;
		case SIM_OP_MIGRATE:
			sim_cpu_guest_exception(v->cpu, v); /* the hypercall */
			op->at = v->truth.now;
			if (op->imm >= v->m->cfg.cpus) {
				op->outcome = SIM_OUT_UNDEF;
				break;
			}
			complete(v, op);
			v->cpu = &v->m->cpu[op->imm];
			return true;
		default:
			op->outcome = SIM_OUT_UNDEF;
			break;
		}
		if (done)
			complete(v, op);
		sim_guest_check_irq(v->cpu);
	}
	return true;
}
