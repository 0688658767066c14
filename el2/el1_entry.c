/* SPDX-License-Identifier: MIT */
/* Exception entry to EL1 for injected synchronous exceptions: el1_entry.h. */
#include "el1_entry.h"

#define SPSR_M_AARCH32 (1ul << 4)
#define SPSR_M_EL_MASK 0xCul /* M[3:2]: the exception level */
#define SPSR_M_SP 1ul        /* M[0]: SP_ELx (h) or SP_EL0 (t) */
#define SPSR_EL1H 0x5ul
#define SPSR_DAIF (0xFul << 6)
#define SPSR_SSBS (1ul << 12)
#define SPSR_PAN (1ul << 22)
#define SPSR_DIT (1ul << 24)
#define SPSR32_DIT (1ul << 21) /* DIT's place in an SPSR taken from AArch32 */
#define SPSR_NZCV (0xFul << 28)
#define SCTLR_SPAN (1ul << 23)
#define SCTLR_DSSBS (1ul << 44)

uint64_t el1_sync_vector(uint64_t spsr)
{
	if (spsr & SPSR_M_AARCH32)
		return 0x600;
	if ((spsr & SPSR_M_EL_MASK) == 0)
		return 0x400;
	return spsr & SPSR_M_SP ? 0x200 : 0x000;
}

uint64_t el1_sync_pstate(uint64_t spsr, uint64_t sctlr_el1)
{
	uint64_t pstate = SPSR_EL1H | SPSR_DAIF | (spsr & SPSR_NZCV);
	if (spsr & SPSR_M_AARCH32)
		pstate |= (spsr & SPSR32_DIT) ? SPSR_DIT : 0;
	else
		pstate |= spsr & SPSR_DIT;
	if (!(sctlr_el1 & SCTLR_SPAN))
		pstate |= SPSR_PAN;
	else
		pstate |= spsr & SPSR_PAN;
	if (sctlr_el1 & SCTLR_DSSBS)
		pstate |= SPSR_SSBS;
	return pstate;
}
