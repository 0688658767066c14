/* SPDX-License-Identifier: MIT */
/*
 * The options of every `perfvisor` command, read with getopt_long and refused with the same
 * messages everywhere, on stderr, for exit status 2:
 *
 *   perfvisor stats: option '--format' needs a value (table, json, openmetrics, domstats)
 *   perfvisor run: unknown option '--frobnicate'
 *   perfvisor run: option '--verify' takes no value
 *   perfvisor run: option '--pro' is ambiguous (--progress, --no-progress)
 *   Try 'perfvisor run --help' for its options.
 *
 * An empty value (--format=) is a missing one. Options without a short form use values from
 * OPT_LONG_ONLY up, so that a message names the option as it was written.
 */
#ifndef PERFVISOR_TOOLS_OPTIONS_H
#define PERFVISOR_TOOLS_OPTIONS_H

#include <getopt.h>

#define OPT_LONG_ONLY 256

struct tool_options {
	const char *cmd;               /* "stats", for messages */
	const char *shortopts;         /* getopt's short options ("f:c:h") */
	const struct option *longopts; /* ends with a zero entry */
	const char *const *hints;      /* hints[i]: what longopts[i]'s value is, or NULL */
};

/* The next option of argv (getopt_long's value and optarg), -1 after the last; '?' once the
 * error is printed (the caller returns 2). Start with optind = 1. */
int tool_getopt(const struct tool_options *o, int argc, char **argv);

#endif
