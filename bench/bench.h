/* SPDX-License-Identifier: MIT */
/*
 * The command line every benchmark program answers for bench/run.sh (docs/benchmarks.md):
 * `--list` prints one "<name> <unit> <method> <mode>" line per figure; `<mode>` runs it.
 */
#ifndef PERFVISOR_BENCH_H
#define PERFVISOR_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* mode, figure name, unit, method; NULL name: a baseline mode, not listed. */
struct bench_mode {
	const char *mode, *name, *unit, *method;
	int (*run)(unsigned arg);
	unsigned arg;
};

static inline int bench_main(const char *prog, const struct bench_mode *modes, size_t n,
			     int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s --list | <mode>\n", prog);
		return 2;
	}
	bool list = strcmp(argv[1], "--list") == 0;
	for (size_t i = 0; i < n; i++) {
		if (list && modes[i].name)
			printf("%s %s %s %s\n", modes[i].name, modes[i].unit, modes[i].method,
			       modes[i].mode);
		else if (!list && strcmp(argv[1], modes[i].mode) == 0)
			return modes[i].run(modes[i].arg);
	}
	if (list)
		return 0;
	fprintf(stderr, "%s: unknown mode '%s'\n", prog, argv[1]);
	return 2;
}

#endif
