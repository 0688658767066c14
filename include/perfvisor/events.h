/* SPDX-License-Identifier: MIT */
/*
 * The names of the PMU and AMU events perfvisor knows, from the event database
 * (arch/events.txt), for the figures an operator reads: the Arm ARM's spelling, and the one
 * Linux `perf list` gives the same event. The numbers are PV_EVT_<NAME> (event_defs.h).
 */
#ifndef PERFVISOR_EVENTS_H
#define PERFVISOR_EVENTS_H

#include <stdint.h>

#include "perfvisor/api.h"
#include "perfvisor/event_defs.h"

PV_BEGIN_DECLS

/**
 * pv_event_name() - The Arm ARM's name of an event.
 * @number: the event number (a PMEVTYPER<n>_EL0.evtCount, an AMEVTYPER value).
 *
 * Return: the name as the Arm ARM writes it ("INST_RETIRED"), or NULL for an event the
 * database does not know (an IMPLEMENTATION DEFINED one, say).
 */
PV_API const char *pv_event_name(uint32_t number);

/**
 * pv_event_perf_name() - An event's name as Linux `perf list` spells it.
 * @number: the event number.
 *
 * Return: the lower-case name ("inst_retired"), which `perf stat -e` takes, or NULL for an
 * event the database does not know.
 */
PV_API const char *pv_event_perf_name(uint32_t number);

/**
 * pv_event_number() - An event's number, from either of its names.
 * @name: the Arm ARM's name ("INST_RETIRED") or perf's ("inst_retired"), NUL-terminated.
 *
 * Return: the event number, or -1 when no event of the database has that name.
 */
PV_API int32_t pv_event_number(const char *name);

PV_END_DECLS

#endif
