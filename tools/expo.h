/* SPDX-License-Identifier: MIT */
/*
 * Metrics exposition, in the two text formats a Prometheus server scrapes: the Prometheus
 * text format 0.0.4 (the default, what node_exporter's textfile collector and promtool read)
 * and OpenMetrics 1.0.0 (when the scraper asks for it). The caller names each family once,
 * with its type and unit, then writes its samples; the writer spells the names, TYPE, UNIT and
 * HELP lines, escaping and the end of the exposition as the format says.
 */
#ifndef PERFVISOR_EXPO_H
#define PERFVISOR_EXPO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum expo_format {
	EXPO_PROMETHEUS,  /* text/plain; version=0.0.4 */
	EXPO_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* An info family is OpenMetrics' (labels describing a thing, value 1); the Prometheus text
 * format has no such type and gets it as a gauge of the same samples. */
enum expo_type { EXPO_COUNTER, EXPO_GAUGE, EXPO_INFO };

struct expo {
	FILE *out;
	enum expo_format format;
	enum expo_type type; /* of the current family */
	char name[128];      /* the current family's name as its TYPE line says it */
	const char *suffix;  /* what its samples add to it: "_total" or "_info" (OpenMetrics) */
};

/* The HTTP Content-Type of a format. */
const char *expo_content_type(enum expo_format f);
/* The format an HTTP Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a q-value above 0 and no lower than that of text/plain
 * (or text/\*, or \*\/\*), else the Prometheus format. */
enum expo_format expo_negotiate(const char *accept);

void expo_begin(struct expo *e, FILE *out, enum expo_format f);
/* A family: `name` as its samples are named, by Prometheus' naming rules (a counter's ends in
 * "_total", an info's in "_info", which OpenMetrics' TYPE line leaves out; a unit, when not
 * NULL, is the name's last word before that). */
void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help);
/* A sample of the current family: labels as NULL-terminated name, value pairs. */
void expo_sample(struct expo *e, const char *const *labels, uint64_t value);
/* A value that may not be a whole number: a whole one below 2^53 as an integer, any other in
 * the fewest digits that read back as it. */
void expo_sample_double(struct expo *e, const char *const *labels, double value);
/* The end of the exposition ("# EOF" in OpenMetrics). */
void expo_end(struct expo *e);

#endif
