/* SPDX-License-Identifier: MIT */
/* The hypervisor's one global state (struct hyp, hyp.h): in a file of its own, so that the
 * files using it depend on it and not on each other. */
#include "hyp.h"

struct hyp hyp;
