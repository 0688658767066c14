/* SPDX-License-Identifier: MIT */
/*
 * The trap layer: EC 0x18 syndrome decode and the one register table that decode, dispatch,
 * the ID-register views and the coverage document (`perfvisor regs`) are generated from.
 */
#ifndef PERFVISOR_TRAP_H
#define PERFVISOR_TRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"

/* A decoded EC 0x18 syndrome. The direction comes from the raw ISS (bit 0), never from the
 * masked key. */
struct pv_sys_access {
	uint32_t key; /* ISS & PV_ISS_SYS_KEY_MASK */
	uint8_t rt;   /* 31 means XZR: a read is discarded, a write writes zero */
	bool is_read; /* MRS */
};

/* Decodes `esr`; false if it is not EC 0x18. */
static inline bool pv_decode_sys(uint64_t esr, struct pv_sys_access *out)
{
	if (PV_ESR_EC(esr) != PV_EC_SYS64)
		return false;
	uint32_t iss = PV_ESR_ISS(esr);
	out->key = iss & PV_ISS_SYS_KEY_MASK;
	out->rt = (uint8_t)((iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT);
	/* Direction from the raw ISS: a value masked to the key has no direction bit left. */
	out->is_read = (iss & PV_ISS_SYS_DIR_READ) != 0;
	return true;
}

/* Handlers. A read handler stores through `val` only when it returns PV_TRAP_HANDLED: `val`
 * points straight at the guest's register. */
typedef enum pv_trap_result pv_reg_read_fn(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val);
typedef enum pv_trap_result pv_reg_write_fn(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val);

enum pv_reg_access { PV_ACC_RW, PV_ACC_RO, PV_ACC_WO };

/* How an indexed family's index is taken from the key and checked against the VM. */
enum pv_reg_index {
	PV_IDX_NONE,    /* a single register */
	PV_IDX_PMEV,    /* n = CRm[1:0]:Op2, valid when n < the VM's PMCR_EL0.N */
	PV_IDX_AMEV,    /* n = CRm[0]:Op2, valid when n < the VM's counters of that group */
	PV_IDX_ID,      /* slot = CRm * 8 + Op2 of the ID group, CRm 1..7 */
};

struct pv_reg_desc {
	const char *name;        /* as the Arm ARM names it; families as PMEVCNTR<n>_EL0 */
	uint32_t key;            /* ISS key of the register (index 0 for a family) */
	uint32_t mask;           /* a key k matches when (k & mask) == key */
	uint8_t kind;            /* enum pv_trap_kind: the register group */
	uint8_t feature;         /* PV_FEAT_* the VM must have, 0 for always present */
	uint8_t min_version;     /* lowest version of the feature that has the register */
	uint8_t id;              /* position in the table: pv_vm.reg_limit[id] gates it */
	uint8_t access;          /* enum pv_reg_access */
	uint8_t index;           /* enum pv_reg_index */
	pv_reg_read_fn *read;    /* NULL for write-only */
	pv_reg_write_fn *write;  /* NULL for read-only */
	const char *behaviour;   /* one line for the coverage document */
};

/* The whole table, in document order. */
const struct pv_reg_desc *pv_reg_table(size_t *count);
/* The descriptor a key dispatches to, or NULL if perfvisor does not own the register. */
const struct pv_reg_desc *pv_reg_lookup(uint32_t key);

/* Per-VM views, called by pv_vm_init. */
void pv_trap_gates_init(struct pv_vm *vm);
void pv_id_views_init(struct pv_vm *vm);
void pv_trap_words_init(struct pv_vm *vm);

/* The ID-group handler (HCR_EL2.TID3). */
enum pv_trap_result pv_id_read(struct pv_vcpu *v, unsigned slot, unsigned el, uint64_t *val);

#endif
