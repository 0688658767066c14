/* SPDX-License-Identifier: MIT */
/* SPE, AMU and MPAM figures (see hooks.h): "not offered" until their modules land. */
#include "hooks.h"

#include <stdio.h>

#include "run.h"

/* The common part: not asked for, refused by pv_vm_init (its reason), or accepted but without
 * an operator reader in this tool yet. Returns true when the caller may read figures. */
static bool state(const struct run_vm *v, uint32_t feature, const char *what,
		  struct rep_feature *f)
{
	if (!(v->requested & feature)) {
		f->state = REP_NOT_REQUESTED;
		return false;
	}
	f->state = REP_NOT_OFFERED;
	if (!(v->cfg.features & feature))
		snprintf(f->why, sizeof(f->why), "%s", v->why[__builtin_ctz(feature)]);
	else
		snprintf(f->why, sizeof(f->why),
			 "offered to the guest, but perfvisor has no operator reader for %s yet",
			 what);
	return false;
}

void hook_spe(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	(void)r;
	/* vspe/: profiling-buffer status per vCPU once the module has an operator view. */
	state(v, PV_FEAT_SPE, "SPE status", &out->spe);
}

void hook_amu(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	(void)r;
	/* vamu/: rep_vcpu.amu[k] = pv_vamu_counter(vcpu, k) for the four group-0 counters,
	 * amu_measured = true, out->amu.state = REP_MEASURED. */
	state(v, PV_FEAT_AMU, "AMU counters", &out->amu);
}

void hook_mpam(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	(void)r;
	/* vmpam/: one rep_bw_monitor per <memorytune><monitor>, bytes per memory node from the
	 * bandwidth accounting (pv_vmpam_read); limits_enforced once the <memorytune> caps and
	 * <cachetune> portions are programmed (pv_vmpam_vm_init). The machine's MSCs come from
	 * the scenario's <machine><mpam> and <memory-node> elements. */
	state(v, PV_FEAT_MPAM, "memory-bandwidth figures", &out->mpam);
}
