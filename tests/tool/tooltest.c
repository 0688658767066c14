/* SPDX-License-Identifier: MIT */
/* Helpers of the tool tests (tooltest.h). */
#include "tooltest.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TMP_DIR "build/tests/tool/tmp"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	if (!buf)
		abort();
	while (f && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
	}
	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

const char *tt_write_tmp(const char *name, const char *text)
{
	static char path[256];
	mkdir("build/tests", 0755);
	mkdir("build/tests/tool", 0755);
	mkdir(TMP_DIR, 0755);
	snprintf(path, sizeof(path), TMP_DIR "/%d-%s", (int)getpid(), name);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return path;
}

const char *tt_demo_variant(const char *name, const char *sed)
{
	static char path[256];
	char cmd[768];
	snprintf(cmd, sizeof(cmd),
		 "sed -e 's|<vm file=\"|<vm file=\"../../../../examples/demo/|' %s "
		 "examples/demo/scenario.xml",
		 sed);
	struct cmd_result s = tt_run(cmd, NULL);
	if (s.status != 0) {
		fprintf(stderr, "tt_demo_variant: status %d: %s\n", s.status, s.err);
		abort();
	}
	snprintf(path, sizeof(path), "%s", tt_write_tmp(name, s.out));
	tt_free(&s);
	return path;
}

struct cmd_result tt_run(const char *cmd, const char *input)
{
	static unsigned seq;
	char in[256], out[256], err[256];
	snprintf(in, sizeof(in), "%s", tt_write_tmp("stdin", input ? input : ""));
	unsigned k = seq++;
	snprintf(out, sizeof(out), TMP_DIR "/%d-%u.out", (int)getpid(), k);
	snprintf(err, sizeof(err), TMP_DIR "/%d-%u.err", (int)getpid(), k);
	size_t len = strlen(cmd) + 3 * 256 + 64;
	char *full = malloc(len);
	if (!full)
		abort();
	/* The caller's LIBVIRT_DEFAULT_URI would change the tool's default connection under the
	 * tests; those that want one set it themselves. */
	snprintf(full, len, "( unset LIBVIRT_DEFAULT_URI; %s ) <%s >%s 2>%s", cmd, in, out,
		 err);
	int st = system(full);
	free(full);
	struct cmd_result r = {
		.status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		.out = slurp(out),
		.err = slurp(err),
	};
	unlink(in);
	unlink(out);
	unlink(err);
	return r;
}

void tt_free(struct cmd_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

const char *tt_parsers_missing(void)
{
	if (access(PYTHON, X_OK) != 0)
		return "no " PYTHON " (apt-get install python3)";
	if (system(PYTHON " -c 'import prometheus_client' >/dev/null 2>&1") != 0)
		return "no prometheus_client for " PYTHON
		       " (apt-get install python3-prometheus-client)";
	if (system("command -v jq >/dev/null 2>&1") != 0)
		return "no jq (apt-get install jq)";
	return NULL;
}

void tt_require_parsers(void)
{
	const char *why = tt_parsers_missing();
	if (why) {
		fflush(stdout); /* cmocka's buffered lines first: the reason starts a line */
		fprintf(stderr, "skipped: %s\n", why);
		skip();
	}
}

void tt_figs_add(struct figs *s, const char *domain, const char *key, const char *value)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->f = realloc(s->f, s->cap * sizeof(*s->f));
		if (!s->f)
			abort();
	}
	struct fig *f = &s->f[s->n++];
	snprintf(f->domain, sizeof(f->domain), "%s", domain);
	snprintf(f->key, sizeof(f->key), "%s", key);
	snprintf(f->value, sizeof(f->value), "%s", value);
}

void tt_figs_add_u64(struct figs *s, const char *domain, const char *key, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof(v), "%" PRIu64, value);
	tt_figs_add(s, domain, key, v);
}

void tt_figs_parse(struct figs *s, const char *text)
{
	const char *p = text;
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char line[512];
		if (len < sizeof(line) && *p != '#') {
			memcpy(line, p, len);
			line[len] = '\0';
			char *t1 = strchr(line, '\t');
			char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
			if (t1 && t2) {
				*t1 = *t2 = '\0';
				tt_figs_add(s, line, t1 + 1, t2 + 1);
			}
		}
		p += len + (end ? 1 : 0);
	}
}

const struct fig *tt_figs_find(const struct figs *s, const char *domain, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].domain, domain) && !strcmp(s->f[i].key, key))
			return &s->f[i];
	return NULL;
}

void tt_figs_free(struct figs *s)
{
	free(s->f);
	*s = (struct figs){0};
}

unsigned tt_figs_compare(const struct figs *want, const struct figs *got, const char *what,
			 const char *const *prefixes)
{
	unsigned bad = 0;
	for (size_t i = 0; i < want->n; i++) {
		const struct fig *w = &want->f[i];
		const struct fig *g = tt_figs_find(got, w->domain, w->key);
		if (!g) {
			fprintf(stderr, "%s: %s %s missing (expected %s)\n", what, w->domain,
				w->key, w->value);
			bad++;
		} else if (strcmp(g->value, w->value) != 0) {
			fprintf(stderr, "%s: %s %s = %s, expected %s\n", what, w->domain,
				w->key, g->value, w->value);
			bad++;
		}
	}
	for (size_t i = 0; prefixes && i < got->n; i++) {
		const struct fig *g = &got->f[i];
		bool watched = false;
		for (const char *const *p = prefixes; *p && !watched; p++)
			watched = !strncmp(g->key, *p, strlen(*p));
		if (watched && !tt_figs_find(want, g->domain, g->key)) {
			fprintf(stderr, "%s: unexpected %s %s = %s\n", what, g->domain, g->key,
				g->value);
			bad++;
		}
	}
	return bad;
}

unsigned tt_missing(const char *text, const char *const *want, size_t n)
{
	unsigned missing = 0;
	for (size_t i = 0; i < n; i++)
		if (!strstr(text, want[i])) {
			fprintf(stderr, "missing: '%s' in\n%s", want[i], text);
			missing++;
		}
	return missing;
}
