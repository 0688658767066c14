/* SPDX-License-Identifier: MIT */
/* The live figures records of a store, as metrics (docs/records.md names each family). */
#ifndef PERFVISOR_RECORDS_EXPO_H
#define PERFVISOR_RECORDS_EXPO_H

#include "expo.h"
#include "records.h"

void records_expo(struct expo *e, const struct rec_store *s);

#endif
