/* SPDX-License-Identifier: MIT */
/*
 * The figures of the optional features: virtual SPE (vspe/), virtual AMU (vamu/) and MPAM
 * (vmpam/). Each hook fills its part of a domain's report from the finished run: a feature the
 * domain did not ask for is left out, one it asked for but cannot have shows "not offered"
 * with the reason, and no number is ever made up.
 *
 *   hook_amu   each vCPU's four architected AMU counters (pv_vamu_counter) and the frequency
 *              they give
 *   hook_mpam  the <memorytune>/<cachetune> limits applied, and per <memorytune><monitor> the
 *              VM's bytes on every memory node (pv_vmpam_read), their error bound, bytes/s over
 *              the run (pv_vmpam_rate) and the cap in force; a NOT_READY / NO_DATA reading
 *              has no number
 *   hook_spe   the library's view of the guest's SPE (buffer enables, management events,
 *              bytes pinned at the peak and at the end, pin/unpin calls, stage-2 faults and
 *              repairs, records lost), the records the units wrote for it, and the records
 *              decoded from what its guest's driver collected (run_spe.c)
 */
#ifndef PERFVISOR_TOOLS_HOOKS_H
#define PERFVISOR_TOOLS_HOOKS_H

#include "report.h"

struct run;
struct run_vm;

void hook_spe(const struct run *r, const struct run_vm *v, struct rep_domain *out);
void hook_amu(const struct run *r, const struct run_vm *v, struct rep_domain *out);
void hook_mpam(const struct run *r, const struct run_vm *v, struct rep_domain *out);

#endif
