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

/* The q-value of one Accept element's parameters (";q=0.5", blanks allowed around the '='),
 * 1 without one, 0 for one that is not a number from 0 to 1. */
static double qvalue(const char *params, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (params[i] != ';')
			continue;
		size_t k = i + 1;
		while (k < n && (params[k] == ' ' || params[k] == '\t'))
			k++;
		if (k >= n || (params[k] != 'q' && params[k] != 'Q'))
			continue;
		k++;
		while (k < n && (params[k] == ' ' || params[k] == '\t'))
			k++;
		if (k >= n || params[k] != '=')
			continue;
		k++;
		while (k < n && (params[k] == ' ' || params[k] == '\t'))
			k++;
		/* RFC 9110: "0" or "1" and up to three decimals. */
		char buf[8];
		size_t m = 0;
		while (k + m < n && m < sizeof(buf) - 1 &&
		       ((params[k + m] >= '0' && params[k + m] <= '9') || params[k + m] == '.'))
			m++;
		memcpy(buf, params + k, m);
		buf[m] = '\0';
		char *end;
		double q = strtod(buf, &end);
		bool ends = k + m == n || params[k + m] == ';' || params[k + m] == ' ' ||
			    params[k + m] == '\t';
		return m && ends && *end == '\0' && q >= 0 && q <= 1 ? q : 0;
	}
	return 1.0;
}

/* Whether [p, p + n) is the media type `type` (case-insensitive). */
static bool is_type(const char *p, size_t n, const char *type)
{
	return n == strlen(type) && strncasecmp(p, type, n) == 0;
}

/* OpenMetrics when the Accept header prefers it: its highest q-value above 0 and at least the
 * text format's (text/plain, text/... or any type). */
enum expo_format expo_negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	while (accept && *accept) {
		size_t n = strcspn(accept, ",");
		const char *p = accept;
		while (p < accept + n && (*p == ' ' || *p == '\t'))
			p++;
		size_t type = strcspn(p, ";,");
		if (p + type > accept + n)
			type = (size_t)(accept + n - p);
		while (type && (p[type - 1] == ' ' || p[type - 1] == '\t'))
			type--;
		double q = qvalue(p + type, (size_t)(accept + n - p) - type);
		if (is_type(p, type, "application/openmetrics-text"))
			q_om = q > q_om ? q : q_om;
		else if (is_type(p, type, "text/plain") || is_type(p, type, "text/*") ||
			 is_type(p, type, "*/*"))
			q_text = q > q_text ? q : q_text;
		accept += n + (accept[n] == ',');
	}
	return q_om > 0 && q_om >= q_text ? EXPO_OPENMETRICS : EXPO_PROMETHEUS;
}

void expo_begin(struct expo *e, FILE *out, enum expo_format f)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->format = f;
}

/* HELP text: backslash and newline escaped (both formats), and the double quote in
 * OpenMetrics, whose HELP is escaped as a label value is. */
static void help_text(FILE *out, const char *s, enum expo_format f)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && f == EXPO_OPENMETRICS)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help)
{
	static const char *const tname[] = {
		[EXPO_COUNTER] = "counter", [EXPO_GAUGE] = "gauge", [EXPO_INFO] = "info"};
	size_t n = strlen(name);
	e->type = type;
	e->suffix = "";
	snprintf(e->name, sizeof(e->name), "%s", name);
	/* OpenMetrics names a counter family without its samples' "_total", an info family
	 * without "_info"; the Prometheus format names it as its samples and has no info. */
	const char *suffix = type == EXPO_COUNTER ? "_total" : type == EXPO_INFO ? "_info" : "";
	size_t sl = strlen(suffix);
	if (e->format == EXPO_OPENMETRICS && sl && n > sl && !strcmp(name + n - sl, suffix)) {
		e->name[n - sl] = '\0';
		e->suffix = suffix;
	}
	const char *t = e->format == EXPO_PROMETHEUS && type == EXPO_INFO ? "gauge"
									  : tname[type];
	fprintf(e->out, "# HELP %s ", e->name);
	help_text(e->out, help, e->format);
	fprintf(e->out, "\n# TYPE %s %s\n", e->name, t);
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
	fputs(e->suffix, e->out);
}

void expo_sample(struct expo *e, const char *const *l, uint64_t value)
{
	sample_name(e);
	labels(e->out, l);
	fprintf(e->out, " %" PRIu64 "\n", value);
}

void expo_sample_double(struct expo *e, const char *const *l, double value)
{
	char text[32];
	if (value < 9007199254740992.0 && value > -9007199254740992.0 &&
	    value == (double)(int64_t)value) /* a whole number below 2^53: as an integer */
		snprintf(text, sizeof(text), "%.0f", value);
	else
		for (int digits = 1; digits <= 17; digits++) {
			snprintf(text, sizeof(text), "%.*g", digits, value);
			if (strtod(text, NULL) == value)
				break;
		}
	sample_name(e);
	labels(e->out, l);
	fprintf(e->out, " %s\n", text);
}

void expo_end(struct expo *e)
{
	if (e->format == EXPO_OPENMETRICS)
		fputs("# EOF\n", e->out);
	fflush(e->out);
}
