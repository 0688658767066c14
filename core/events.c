/* SPDX-License-Identifier: MIT */
/* Event names, from the event database (arch/events.txt, expanded through eventdb.h). */
#include "perfvisor/events.h"

#include <stdbool.h>
#include <stddef.h>

#include "perfvisor/sysreg.h"

#include "eventdb.h"

static const struct {
	uint16_t number;
	const char *name;
	const char *perf;
} events[] = {
#define PV_EVENT_NAME_ROW(num, name, perf, pmuver, amu) {num, #name, perf},
	PV_EVENT_ROWS(PV_EVENT_NAME_ROW)
#undef PV_EVENT_NAME_ROW
};

/* The row of an event, or -1. A scan: the table is small, and read only for reports. */
static int event_row(uint32_t number)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (events[i].number == number)
			return (int)i;
	return -1;
}

const char *pv_event_name(uint32_t number)
{
	int r = event_row(number);
	return r < 0 ? NULL : events[r].name;
}

const char *pv_event_perf_name(uint32_t number)
{
	int r = event_row(number);
	return r < 0 ? NULL : events[r].perf;
}

/* Whether `s` is `name` in either spelling: the Arm ARM's (upper case) or perf's (lower). */
static bool names_match(const char *name, const char *upper, const char *lower)
{
	size_t i = 0;
	bool up = true, low = true;
	for (; name[i] && upper[i]; i++) {
		up = up && name[i] == upper[i];
		low = low && name[i] == lower[i];
	}
	return !name[i] && !upper[i] && (up || low);
}

int32_t pv_event_number(const char *name)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (names_match(name, events[i].name, events[i].perf))
			return events[i].number;
	return -1;
}
