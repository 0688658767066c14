/* SPDX-License-Identifier: MIT */
/*
 * trap/ internal: the register database (arch/sysregs.txt, generated into regdb.h), from
 * which the table (trap.c), the trap dispatch (dispatch.c) and the per-VM gates (gates.c)
 * are expanded, and the EL0 rule the dispatch enforces for every register.
 */
#ifndef PV_TRAP_REGS_H
#define PV_TRAP_REGS_H

#include "perfvisor/trap.h"
#include "regdb.h"
#include "../core/modules.h"

/* Position of each entry in the table: pv_vm.reg_limit[RIDX_<ident>] gates it. */
enum reg_index {
#define REG_IDX(ident, ...) RIDX_##ident,
	PV_REGDB_ENTRIES(REG_IDX) RIDX_COUNT
};

extern const struct pv_reg_desc pv_reg_descs[RIDX_COUNT];

#endif
