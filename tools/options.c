/* SPDX-License-Identifier: MIT */
/* getopt_long with perfvisor's messages (options.h). */
#include "options.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* How many long options `name` (its first n characters) abbreviates; in *which, the one it
 * names: the exact match, else the only one, else -1. */
static int long_matches(const struct option *opts, const char *name, size_t n, int *which)
{
	int count = 0, exact = -1, last = -1;
	for (int i = 0; opts[i].name; i++) {
		if (strncmp(opts[i].name, name, n) != 0)
			continue;
		if (strlen(opts[i].name) == n)
			exact = i;
		last = i;
		count++;
	}
	*which = exact >= 0 ? exact : count == 1 ? last : -1;
	return count;
}

/* The option `val` as it was written: "--format" (without its "=value") or "-f". getopt_long
 * leaves optind after the argument that held it, or after its separate value; an unknown short
 * option inside a cluster ("-xv") leaves optind where it was. */
static void written_as(const struct tool_options *o, char **argv, int val, char *buf,
		       size_t len)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (!*arg && optind >= 2) /* a separate empty value: the option is before it */
		arg = argv[optind - 2];
	if (strncmp(arg, "--", 2) == 0) {
		size_t n = strcspn(arg + 2, "=");
		int which;
		long_matches(o->longopts, arg + 2, n, &which);
		bool is_it = val == 0 || val >= OPT_LONG_ONLY ||
			     (which >= 0 && o->longopts[which].val == val);
		if (is_it) {
			snprintf(buf, len, "--%.*s", (int)n, arg + 2);
			return;
		}
	}
	for (int i = 0; val >= OPT_LONG_ONLY && o->longopts[i].name; i++)
		if (o->longopts[i].val == val) { /* no short form to show */
			snprintf(buf, len, "--%s", o->longopts[i].name);
			return;
		}
	snprintf(buf, len, "-%c", val > 0 && val < OPT_LONG_ONLY ? val : '?');
}

static const char *hint_of(const struct tool_options *o, int val)
{
	for (int i = 0; o->hints && o->longopts[i].name; i++)
		if (o->longopts[i].val == val)
			return o->hints[i];
	return NULL;
}

static int refuse(const struct tool_options *o, const char *message)
{
	fprintf(stderr, "perfvisor %s: %s\n", o->cmd, message);
	fprintf(stderr, "Try 'perfvisor %s --help' for its options.\n", o->cmd);
	return '?';
}

static int missing_value(const struct tool_options *o, char **argv, int val)
{
	char name[64], message[256];
	written_as(o, argv, val, name, sizeof(name));
	const char *values = hint_of(o, val);
	snprintf(message, sizeof(message), "option '%s' needs a value%s%s%s", name,
		 values ? " (" : "", values ? values : "", values ? ")" : "");
	return refuse(o, message);
}

int tool_getopt(const struct tool_options *o, int argc, char **argv)
{
	char shortopts[64];
	/* ':' first: a missing value is told apart from an unknown option. */
	snprintf(shortopts, sizeof(shortopts), ":%s", o->shortopts);
	opterr = 0;
	optopt = 0;
	int c = getopt_long(argc, argv, shortopts, o->longopts, NULL);
	if (c == ':')
		return missing_value(o, argv, optopt);
	if (c == '?') {
		char name[64], message[384];
		written_as(o, argv, optopt, name, sizeof(name));
		int which = -1, n = 0;
		if (strncmp(name, "--", 2) == 0)
			n = long_matches(o->longopts, name + 2, strlen(name + 2), &which);
		if (which >= 0) { /* a known option, so the error is its value: --verify=yes */
			snprintf(message, sizeof(message), "option '%s' takes no value", name);
		} else if (n > 1) {
			size_t at = (size_t)snprintf(message, sizeof(message),
						     "option '%s' is ambiguous (", name);
			bool first = true;
			size_t typed = strlen(name) - 2;
			for (int i = 0; o->longopts[i].name && at < sizeof(message); i++) {
				if (strncmp(o->longopts[i].name, name + 2, typed) != 0)
					continue;
				at += (size_t)snprintf(message + at, sizeof(message) - at,
						       "%s--%s", first ? "" : ", ",
						       o->longopts[i].name);
				first = false;
			}
			if (at < sizeof(message))
				snprintf(message + at, sizeof(message) - at, ")");
		} else {
			snprintf(message, sizeof(message), "unknown option '%s'", name);
		}
		return refuse(o, message);
	}
	if (c > 0 && optarg && !*optarg) /* --format= */
		return missing_value(o, argv, c);
	return c;
}
