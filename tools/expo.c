/* SPDX-License-Identifier: MIT */
/* Metrics exposition: expo.h. */
#include "expo.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *expo_content_type(enum expo_format f)
{
	return f == EXPO_OPENMETRICS
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}

/* The q-value of one Accept element's parameters ("; q=0.5"), 1 without one. */
static double qvalue(const char *params, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if ((params[i] == 'q' || params[i] == 'Q') && params[i + 1] == '=' &&
		    (i == 0 || params[i - 1] == ';' || params[i - 1] == ' '))
			return strtod(params + i + 2, NULL);
	}
	return 1.0;
}

enum expo_format expo_negotiate(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	while (accept && *accept) {
		size_t n = strcspn(accept, ",");
		const char *p = accept;
		while (p < accept + n && (*p == ' ' || *p == '\t'))
			p++;
		size_t type = strcspn(p, ";,");
		while (type && (p[type - 1] == ' ' || p[type - 1] == '\t'))
			type--;
		if (type == sizeof(om) - 1 && !strncasecmp(p, om, type) &&
		    qvalue(p + type, (size_t)(accept + n - p) - type) > 0)
			return EXPO_OPENMETRICS;
		accept += n + (accept[n] == ',');
	}
	return EXPO_PROMETHEUS;
}

void expo_begin(struct expo *e, FILE *out, enum expo_format f)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->format = f;
}

/* HELP text: backslash and newline escaped (both formats). */
static void help_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help)
{
	size_t n = strlen(name);
	e->type = type;
	snprintf(e->name, sizeof(e->name), "%s", name);
	/* OpenMetrics names a counter family without its samples' "_total". */
	if (type == EXPO_COUNTER && n > 6 && !strcmp(name + n - 6, "_total") &&
	    e->format == EXPO_OPENMETRICS)
		e->name[n - 6] = '\0';
	const char *tname = type == EXPO_COUNTER ? "counter" : "gauge";
	fprintf(e->out, "# HELP %s ", e->name);
	help_text(e->out, help);
	fprintf(e->out, "\n# TYPE %s %s\n", e->name, tname);
	if (unit && e->format == EXPO_OPENMETRICS)
		fprintf(e->out, "# UNIT %s %s\n", e->name, unit);
}

static void labels(FILE *out, const char *const *l)
{
	if (!l || !l[0])
		return;
	fputc('{', out);
	for (unsigned i = 0; l[i] && l[i + 1]; i += 2) {
		fprintf(out, "%s%s=\"", i ? "," : "", l[i]);
		for (const char *s = l[i + 1]; *s; s++) {
			if (*s == '\\' || *s == '"')
				fprintf(out, "\\%c", *s);
			else if (*s == '\n')
				fputs("\\n", out);
			else
				fputc(*s, out);
		}
		fputc('"', out);
	}
	fputc('}', out);
}

static void sample_name(struct expo *e)
{
	fputs(e->name, e->out);
	if (e->type == EXPO_COUNTER && e->format == EXPO_OPENMETRICS)
		fputs("_total", e->out);
}

void expo_sample(struct expo *e, const char *const *l, uint64_t value)
{
	sample_name(e);
	labels(e->out, l);
	fprintf(e->out, " %" PRIu64 "\n", value);
}

void expo_sample_double(struct expo *e, const char *const *l, double value)
{
	sample_name(e);
	labels(e->out, l);
	fprintf(e->out, " %.17g\n", value);
}

void expo_end(struct expo *e)
{
	if (e->format == EXPO_OPENMETRICS)
		fputs("# EOF\n", e->out);
	fflush(e->out);
}
