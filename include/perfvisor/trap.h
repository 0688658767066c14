/* SPDX-License-Identifier: MIT */
/*
 * The trap layer's view for tools and tests: EC 0x18 syndrome decode and the register table
 * (expanded from the register database, arch/sysregs.txt) with each register's access, EL0
 * rule, feature and behaviour, which `perfvisor regs` prints.
 */
#ifndef PERFVISOR_TRAP_H
#define PERFVISOR_TRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/api.h"
#include "perfvisor/perfvisor.h"

PV_BEGIN_DECLS

/* A decoded EC 0x18 syndrome. The direction comes from the raw ISS (bit 0), never from the
 * masked key. */
struct pv_sys_access {
	uint32_t key; /* ISS & PV_ISS_SYS_KEY_MASK */
	uint8_t rt;   /* 31 means XZR: a read is discarded, a write writes zero */
	bool is_read; /* MRS */
};

/**
 * pv_decode_sys() - Decode an EC 0x18 syndrome.
 * @esr: ESR_EL2 as read.
 * @out: the access (key, Rt, direction); written only when @esr is EC 0x18.
 *
 * The direction comes from the raw ISS (bit 0), never from the masked key.
 *
 * Return: true if @esr is EC 0x18 (ESR_EL2[31:26]), false if it is not.
 */
static inline bool pv_decode_sys(uint64_t esr, struct pv_sys_access *out)
{
	uint32_t iss = PV_ESR_ISS(esr);
	if (PV_ESR_EC(esr) != PV_EC_SYS64)
		return false;
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

/* What a VM must have, beyond the register's feature and version, for an entry (or member
 * n of a family) to exist. */
enum pv_reg_gate {
	PV_GATE_NONE,  /* nothing */
	PV_GATE_PMEV,  /* n < the VM's PMCR_EL0.N */
	PV_GATE_AMEV0, /* n < 4, the architected activity counters */
	PV_GATE_AMEV1, /* n < the VM's auxiliary activity counters */
	PV_GATE_AUX,   /* the VM has an auxiliary activity counter */
	PV_GATE_ID,    /* the TID3 ID group: always */
};

/* The EL0 rule of a register, one per direction, enforced by the trap dispatch after the
 * register is found present and before its handler runs (Arm ARM D24, each register's
 * accessibility pseudocode: the EL0 enable checks come before the EL2 trap). */
#define PV_EL0_UNDEF 0x000u                /* UNDEFINED at EL0 */
#define PV_EL0_ANY 0x100u                  /* always accessible at EL0 */
#define PV_EL0_PMU(bits) (0x200u | (bits)) /* any of these PMUSERENR_EL0 bits, else to EL1 */
#define PV_EL0_AMU 0x300u                  /* AMUSERENR_EL0.EN, else to EL1 */
#define PV_EL0_IDST 0x400u                 /* to EL1 with FEAT_IDST, else UNDEFINED */
#define PV_EL0_KIND(rule) (0xF00u & (rule))

struct pv_reg_desc {
	const char *name;    /* as the Arm ARM names it; families as PMEVCNTR<n>_EL0 */
	uint32_t key;        /* ISS key of the register (of member `first` for a family) */
	uint32_t mask;       /* a key k is a candidate when (k & mask) == (key & mask) */
	uint8_t first, last; /* a family's members (0, 0 for a register) */
	uint8_t kind;        /* enum pv_trap_kind: the register group */
	uint8_t feature;     /* PV_FEAT_* the VM must have, 0 for always present */
	uint8_t min_version; /* lowest version of the feature that has the register */
	uint8_t id;          /* position in the table: pv_vm.reg_limit[id] gates it */
	uint8_t access;      /* enum pv_reg_access */
	uint8_t gate;        /* enum pv_reg_gate */
	uint16_t el0_read;   /* PV_EL0_* */
	uint16_t el0_write;
	pv_reg_read_fn *read;   /* NULL for write-only */
	pv_reg_write_fn *write; /* NULL for read-only */
	const char *behaviour;  /* one line for the coverage document */
	/* The handlers' C names, as the database writes them ("" for none): a family whose
	 * members have their own gives the pattern (pv_vpmu_pmevcntr<n>_read). */
	const char *read_name, *write_name;
};

/**
 * pv_reg_member() - Member n of a register family, from a key its entry matches.
 * @d: the table entry.
 * @key: an ISS key that @d matches ((key & d->mask) == (d->key & d->mask), not checked).
 *
 * Return: n = CRm[k-1:0]:Op2, k being the CRm bits the entry's mask leaves free (Op2 alone
 * when it leaves none); 0 for a single register. n is not checked against d->first..last.
 */
static inline unsigned pv_reg_member(const struct pv_reg_desc *d, uint32_t key)
{
	unsigned crm_bits = (~d->mask >> PV_ISS_SYS_CRM_SHIFT) & 0xFu;
	if (d->mask == PV_ISS_SYS_KEY_MASK)
		return 0;
	return (PV_SYSREG_CRM(key) & crm_bits) << 3 | PV_SYSREG_OP2(key);
}

/**
 * pv_reg_table() - The whole register table, in document order.
 * @count: where the number of entries goes; not NULL.
 *
 * Return: the first entry of the table, which is constant and static.
 */
PV_API const struct pv_reg_desc *pv_reg_table(size_t *count);

/**
 * pv_reg_lookup() - The descriptor a key dispatches to.
 * @key: an ISS key; bits outside PV_ISS_SYS_KEY_MASK (Rt, the direction) play no part.
 *
 * A walk of the table, for tools and tests (the trap path uses the two-level tables of
 * trap/dispatch.c). A family claims only its members first..last: PMCCFILTR_EL0 sits where
 * PMEVTYPER31_EL0 would, n = 31 of PMEVCNTR<n>_EL0 is nobody's, and CRm = 0 of the ID space
 * (MIDR_EL1 and the like) is not in the TID3 group.
 *
 * Return: the entry, or NULL if perfvisor does not own the register.
 */
PV_API const struct pv_reg_desc *pv_reg_lookup(uint32_t key);

PV_END_DECLS

#endif
