/* SPDX-License-Identifier: MIT */
/* EC 0x18 syndrome decode (Arm ARM D24.2.x ESR_EL2, ISS for trapped MSR/MRS). */
#include "perfvisor/trap.h"

bool pv_decode_sys(uint64_t esr, struct pv_sys_access *out)
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
