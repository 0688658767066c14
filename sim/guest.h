/* SPDX-License-Identifier: MIT */
/*
 * Guest programs: a list of operations a vCPU executes at EL0/EL1 -- work chunks and System
 * register accesses -- with the result of each operation recorded in place (outcome, value
 * read, and the ground truth at the instant the operation took effect).
 */
#ifndef SIM_GUEST_H
#define SIM_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "truth.h"

enum sim_op_kind {
	SIM_OP_WORK,       /* execute `work` at `el` */
	SIM_OP_MSR,        /* MSR <key>, x<rt>: x<rt> = imm first unless from_x */
	SIM_OP_MRS,        /* MRS x<rt>, <key> */
	SIM_OP_SNAP,       /* record the ground truth */
	SIM_OP_IRQ_CHECK,  /* record the level of the virtual PMU interrupt line */
	SIM_OP_IRQ_HANDLE, /* take the virtual PMU interrupt now if the line is high */
	SIM_OP_SMC,        /* SMC #0: `work` runs in Secure state at EL imm (3, 1 or 0) */
	SIM_OP_MIGRATE,    /* hypercall: move this vCPU to pCPU imm */
};

enum sim_outcome {
	SIM_OUT_PENDING,    /* not executed (yet) */
	SIM_OUT_OK,         /* executed */
	SIM_OUT_UNDEF,      /* Undefined Instruction exception taken to guest EL1 */
	SIM_OUT_EL1_SYSREG, /* EC 0x18 exception taken to guest EL1 (EL0 access refused) */
	SIM_OUT_UNKNOWN,    /* the library did not own the register (PV_TRAP_UNKNOWN): the
			       hypervisor injected UNDEF */
};

struct sim_op {
	uint8_t kind;   /* enum sim_op_kind */
	uint8_t el;     /* exception level of the guest for this op (0 or 1) */
	uint8_t rt;     /* MSR/MRS register, 31 = XZR */
	uint8_t expect; /* enum sim_outcome the program expects (SIM_OUT_OK by default) */
	bool from_x;    /* MSR: write x<rt> as it stands */
	uint32_t key;   /* MSR/MRS: register ISS key */
	uint64_t imm;
	struct sim_work work;

	/* Results */
	uint8_t outcome;    /* enum sim_outcome */
	bool trapped;       /* the access reached EL2 (pv_trap) */
	bool line;          /* IRQ_CHECK: line level; IRQ_HANDLE: the handler ran */
	uint64_t value;     /* MRS: value read (0 for XZR or an exception) */
	uint64_t seq;       /* machine step at which it completed */
	unsigned cpu;       /* pCPU it completed on */
	struct sim_snap at; /* truth when the op took effect (for a trapped access: after the
			       exception was taken, before the hypervisor handled it) */
};

struct sim_prog {
	struct sim_op *ops;
	size_t n, cap;
	bool irq_auto;       /* take the virtual PMU interrupt whenever the line is high */
	unsigned unexpected; /* ops whose outcome differed from `expect` */
};

void sim_prog_init(struct sim_prog *p);
void sim_prog_free(struct sim_prog *p);
/* Builders; each returns the index of the op it appended. Out of memory aborts. */
size_t sim_prog_work(struct sim_prog *p, unsigned el, const struct sim_work *w);
size_t sim_prog_workload(struct sim_prog *p, unsigned el, enum sim_profile prof,
			 uint64_t insts);
size_t sim_prog_msr(struct sim_prog *p, unsigned el, uint32_t key, uint64_t val);
size_t sim_prog_msr_rt(struct sim_prog *p, unsigned el, uint32_t key, unsigned rt,
		       uint64_t val);
size_t sim_prog_mrs(struct sim_prog *p, unsigned el, uint32_t key);
size_t sim_prog_mrs_rt(struct sim_prog *p, unsigned el, uint32_t key, unsigned rt);
size_t sim_prog_snap(struct sim_prog *p);
size_t sim_prog_irq_check(struct sim_prog *p);
size_t sim_prog_irq_handle(struct sim_prog *p);
size_t sim_prog_smc(struct sim_prog *p, unsigned secure_el, const struct sim_work *w);
size_t sim_prog_migrate(struct sim_prog *p, unsigned cpu);
/* Appends a copy of `op` (its results cleared). */
size_t sim_prog_append(struct sim_prog *p, const struct sim_op *op);
/* Sets what op i is expected to end with. */
void sim_prog_expect(struct sim_prog *p, size_t i, enum sim_outcome o);
const char *sim_outcome_name(enum sim_outcome o);

#endif
