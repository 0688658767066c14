/* SPDX-License-Identifier: MIT */
/* Helpers shared by the report formats (report.h). */
#include "report.h"

#include <stddef.h>
#include <string.h>

#include "perfvisor/events.h"

const char *const rep_amu_names[REP_AMU_COUNT] = {
#define REP_AMU_NAME(n, t) #n,
	REP_AMU_COUNTERS(REP_AMU_NAME)
#undef REP_AMU_NAME
};

const char *const rep_amu_help[REP_AMU_COUNT] = {
#define REP_AMU_HELP(n, t) t,
	REP_AMU_COUNTERS(REP_AMU_HELP)
#undef REP_AMU_HELP
};

const char rep_amu_events_help[] =
	"A vCPU's own activity-monitor count (AMU group 0: processor cycles, "
	"constant-frequency cycles, instructions retired, cycles stalled on memory).";

const struct rep_spe_figure rep_spe_figures[] = {
#define REP_SPE_FIG(f, j, d, m, t, u, l, h) {offsetof(struct rep_spe, f), j, d, m, t, u, l, h},
	REP_SPE_FIGURES(REP_SPE_FIG)
#undef REP_SPE_FIG
};
const unsigned rep_spe_nfigures = sizeof(rep_spe_figures) / sizeof(rep_spe_figures[0]);

uint64_t rep_spe_value(const struct rep_spe *s, const struct rep_spe_figure *f)
{
	uint64_t v;
	memcpy(&v, (const char *)s + f->off, sizeof(v));
	return v;
}

const char *rep_spe_version_name(unsigned version)
{
	return version == 1 ? "SPE" : version == 2 ? "SPEv1p1" : "SPEv1p2";
}

const char *rep_state_name(enum rep_state s)
{
	switch (s) {
	case REP_NOT_REQUESTED:
		return "not requested";
	case REP_NOT_OFFERED:
		return "not offered";
	case REP_MEASURED:
		return "measured";
	}
	return "?";
}

void rep_counter_name(const struct rep_counter *c, char *buf, size_t len)
{
	if (c->index == REP_CYCLE_COUNTER)
		snprintf(buf, len, "PMCCNTR");
	else
		snprintf(buf, len, "PMEVCNTR%u", c->index);
}

void rep_event_name(uint32_t event, char *buf, size_t len)
{
	const char *n = pv_event_perf_name(event);
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "r%x", event);
}

const char *const rep_bw_status_names[5] = {"measured", "estimated", "not ready", "no data",
					    "overflow"};

bool rep_bw_has_figure(const struct rep_bw_node *b)
{
	return b->status == REP_BW_MEASURED || b->status == REP_BW_ESTIMATED;
}

bool rep_check_ok(const struct rep_check *c)
{
	uint64_t d = c->figure > c->truth ? c->figure - c->truth : c->truth - c->figure;
	return d <= c->bound;
}

void rep_rate_text(double bps, char *buf, size_t len)
{
	if (bps >= 1e9)
		snprintf(buf, len, "%.2f GB/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.1f MB/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, len, "%.1f KB/s", bps / 1e3);
	else
		snprintf(buf, len, "%.0f B/s", bps);
}
