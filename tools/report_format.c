/* SPDX-License-Identifier: MIT */
/* The report formats by name, and the one call that prints a report in any of them: the
 * only file that knows every formatter (report_table.c, report_json.c, report_metrics.c,
 * report_domstats.c), none of which knows it. */
#include "report.h"

#include <string.h>

static const char *const format_names[] = {
	[FMT_TABLE] = "table",
	[FMT_JSON] = "json",
	[FMT_OPENMETRICS] = "openmetrics",
	[FMT_DOMSTATS] = "domstats",
	[FMT_PROMETHEUS] = "prometheus",
};

int report_format_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(format_names[i], name) == 0)
			return (int)i;
	return -1;
}

void report_print(const struct report *r, enum report_format f, FILE *out)
{
	switch (f) {
	case FMT_TABLE:
		report_table(r, out);
		break;
	case FMT_JSON:
		report_json(r, out);
		break;
	case FMT_OPENMETRICS:
		report_metrics(r, out, EXPO_OPENMETRICS);
		break;
	case FMT_PROMETHEUS:
		report_metrics(r, out, EXPO_PROMETHEUS);
		break;
	case FMT_DOMSTATS:
		report_domstats(r, out);
		break;
	}
}
