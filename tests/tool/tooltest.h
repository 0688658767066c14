/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the tool tests: run a command and capture what it prints, and read the
 * normalized figures (DOMAIN \t KEY \t VALUE) that tests/tool/parse.py prints after parsing
 * a report with a real parser. The tests run from the top of the source tree (make check).
 */
#ifndef TOOLTEST_H
#define TOOLTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tool under test; a build in another directory (make check-sanitize) names its own. */
#ifndef TOOL_BIN
#define TOOL_BIN "build/perfvisor"
#endif
/* Debian's Python: the one python3-prometheus-client installs into. */
#define PYTHON "/usr/bin/python3"
#define PARSE PYTHON " tests/tool/parse.py"

struct cmd_result {
	int status; /* exit status, or -1 if it did not exit normally */
	char *out;  /* stdout, NUL-terminated */
	char *err;  /* stderr */
};

/* Runs `cmd` with /bin/sh, stdin from `input` (NULL: empty), LIBVIRT_DEFAULT_URI unset. */
struct cmd_result tt_run(const char *cmd, const char *input);
void tt_free(struct cmd_result *r);

/* Why a parser cannot run here (NULL when python3, prometheus_client and jq are there). */
const char *tt_parsers_missing(void);
/* Skips the calling cmocka test, saying why, when a parser is missing. */
void tt_require_parsers(void);

struct fig {
	char domain[64];
	char key[128];
	char value[64];
};
struct figs {
	struct fig *f;
	size_t n, cap;
};

void tt_figs_add(struct figs *s, const char *domain, const char *key, const char *value);
void tt_figs_add_u64(struct figs *s, const char *domain, const char *key, uint64_t value);
/* Reads parse.py's lines (lines starting with '#' skipped). */
void tt_figs_parse(struct figs *s, const char *text);
const struct fig *tt_figs_find(const struct figs *s, const char *domain, const char *key);
void tt_figs_free(struct figs *s);
/* Every figure of `want` is in `got` with the same value, and `got` has no key with one of
 * the given prefixes that `want` lacks. Prints each difference; returns their number. */
unsigned tt_figs_compare(const struct figs *want, const struct figs *got, const char *what,
			 const char *const *prefixes);

/* How many of the n strings `want` are not in `text`; each missing one is printed. */
unsigned tt_missing(const char *text, const char *const *want, size_t n);

/* Writes `text` to a fresh file under build/tests/tool/tmp and returns its path (static,
 * reused by the next call and by tt_run). */
const char *tt_write_tmp(const char *name, const char *text);
/* examples/demo/scenario.xml edited by the sed arguments `sed` (e.g. "-e 's|a|b|'"), written
 * under build/tests/tool/tmp with its <vm file> paths still resolving: its path (static). */
const char *tt_demo_variant(const char *name, const char *sed);

#endif
