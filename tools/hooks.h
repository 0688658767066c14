/* SPDX-License-Identifier: MIT */
/*
 * The figures of the features whose modules are being built: virtual SPE (vspe/), virtual AMU
 * (vamu/) and MPAM bandwidth accounting (vmpam/). Each hook fills its part of a domain's
 * report from the finished run. Until a module offers its feature to guests and has an
 * operator reader here, its hook says why there is no figure: a domain that asked for the
 * feature shows "not offered" with the reason, and no number is ever made up.
 *
 * To fill a hook: set out->{spe,amu,mpam}.state = REP_MEASURED and the figures
 * (rep_vcpu.amu[], rep_domain.monitor[]) from the library's operator view of the VM
 * (v->cfg.features says whether pv_vm_init accepted the feature on this machine).
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
