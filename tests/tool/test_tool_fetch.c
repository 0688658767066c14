/* SPDX-License-Identifier: MIT */
/*
 * scripts/fetch-source.sh, which every pinned Debian source (Xen's, QEMU's) comes through: the
 * pin while the archive has it, else the suite's current version, said in the tree's note;
 * a tree of the right version reused without a download. apt (through apt-private.sh) and
 * dpkg-source are stand-ins here, shell scripts of this test's serving an archive whose
 * versions the test chooses, so it needs no network and can make the pin leave the archive.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tooltest.h"

static char fake[200];

static void write_file(const char *name, const char *text, mode_t mode)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", fake, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/*
 * The stand-in archive: $FAKE/versions holds the versions of package "pkg" it has, one a
 * line. apt-private STATE TOOL ...: "update" fails when $FAKE/offline exists; "apt-cache
 * showsrc pkg" prints a stanza per version (and one of another package, whose version must
 * never be taken); "apt-get source --download-only pkg=V" writes pkg_V.dsc when V is there.
 * Every call is logged in $FAKE/log. dpkg-source -x DSC DEST makes DEST/src/marker holding
 * the version the .dsc names (none when $FAKE/no-marker exists).
 */
static int setup(void **state)
{
	(void)state;
	mkdir("build/tests", 0755);
	mkdir("build/tests/tool", 0755);
	/* Absolute: the script runs apt from the directory it downloads into. */
	char rel[64];
	snprintf(rel, sizeof(rel), "build/tests/tool/fetch-%d", (int)getpid());
	mkdir(rel, 0755);
	char *abs = realpath(rel, NULL);
	assert_non_null(abs);
	assert_true(strlen(abs) < 160);
	snprintf(fake, sizeof(fake), "%.159s", abs);
	free(abs);
	write_file(
		"apt-private",
		"#!/bin/sh\n"
		"state=$1 tool=$2; shift 2\n"
		"while [ \"${1#-o}\" != \"$1\" ]; do shift 2; done\n"
		"echo \"$tool $*\" >>\"$FAKE/log\"\n"
		"case \"$tool $1\" in\n"
		"'apt-get update') [ ! -e \"$FAKE/offline\" ] || { echo 'E: offline'; exit "
		"100; };"
		" mkdir -p \"$state/lists\" && touch \"$state/lists/x_source_Sources\" ;;\n"
		"'apt-cache showsrc')\n"
		"  echo 'Package: pkg-doc'; echo 'Version: 99-1'; echo\n"
		"  while read -r v; do echo \"Package: $2\"; echo \"Version: $v\"; echo; done"
		" <\"$FAKE/versions\" ;;\n"
		"'apt-get source') v=${3#pkg=}; grep -qxF \"$v\" \"$FAKE/versions\" || exit "
		"100;"
		" echo \"$v\" >\"pkg_$v.dsc\" ;;\n"
		"*) exit 99 ;;\n"
		"esac\n",
		0755);
	write_file("dpkg-source",
		   "#!/bin/sh\n"
		   "echo \"dpkg-source $*\" >>\"$FAKE/log\"\n"
		   "mkdir -p \"$3/src\" || exit 1\n"
		   "[ -e \"$FAKE/no-marker\" ] || cat \"$2\" >\"$3/src/marker\"\n",
		   0755);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fake);
	return system(cmd) == 0 ? 0 : -1;
}

/* The archive holds `versions` (blank-separated); the log starts empty. */
static void archive(const char *versions)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/versions", fake);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (const char *p = versions; *p; p++)
		fputc(*p == ' ' ? '\n' : *p, f);
	fputc('\n', f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/log", fake);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

/* fetch-source.sh FAKE/dir pkg bookworm PIN src/marker, with the stand-ins. */
static struct cmd_result fetch(const char *pin)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "FAKE=%s APT_PRIVATE=%s/apt-private DPKG_SOURCE=%s/dpkg-source "
		 "sh scripts/fetch-source.sh %s/dir pkg bookworm '%s' src/marker",
		 fake, fake, fake, fake, pin);
	return tt_run(cmd, NULL);
}

/* The contents of FAKE/NAME ("" when absent). */
static struct cmd_result cat(const char *name)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cat %s/%s 2>/dev/null", fake, name);
	return tt_run(cmd, NULL);
}

static void assert_tree(const char *version, const char *note)
{
	char want[1024];
	struct cmd_result v = cat("dir/src/.perfvisor-version"),
			  n = cat("dir/src/.perfvisor-note"), m = cat("dir/src/src/marker");
	snprintf(want, sizeof(want), "%s\n", version);
	assert_string_equal(v.out, want);
	assert_string_equal(m.out, want); /* the tree really is that version's */
	snprintf(want, sizeof(want), "%s, %s\n", version, note);
	assert_string_equal(n.out, want);
	tt_free(&v);
	tt_free(&n);
	tt_free(&m);
}

static void fresh(void)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/dir %s/offline %s/no-marker", fake, fake, fake);
	assert_int_equal(system(cmd), 0);
}

static void test_pin_in_archive_is_taken(void **state)
{
	(void)state;
	fresh();
	archive("4.17.5+72-g1-1 4.17.7+13-g2-0+deb12u1");
	struct cmd_result r = fetch("4.17.5+72-g1-1");
	assert_int_equal(r.status, 0);
	char want[320];
	snprintf(want, sizeof(want), "%s/dir/src\n", fake);
	assert_string_equal(r.out, want);
	assert_tree("4.17.5+72-g1-1", "the pinned version");
	tt_free(&r);
}

/* The pin has left: the newest by Debian's version order (4.17.10 after 4.17.7, which a
 * string sort would not give; an epoch counts), never another package's version. */
static void test_pin_gone_takes_the_suites_newest(void **state)
{
	(void)state;
	fresh();
	archive("4.17.7+13-g2-0+deb12u1 4.17.10-1 4.17.9~rc1-1");
	struct cmd_result r = fetch("4.17.5+72-g1-1");
	assert_int_equal(r.status, 0);
	assert_tree("4.17.10-1", "bookworm's current version: the pin 4.17.5+72-g1-1 is not "
				 "in the archive");
	tt_free(&r);
	fresh();
	archive("4.17.10-1 1:4.16-1");
	r = fetch("4.17.5+72-g1-1");
	assert_int_equal(r.status, 0);
	assert_tree("1:4.16-1", "bookworm's current version: the pin 4.17.5+72-g1-1 is not in "
				"the archive");
	tt_free(&r);
}

/* A tree of the pin is reused with no apt call at all; a tree of the fallback after asking
 * the archive what is current, but without a download. */
static void test_trees_reused(void **state)
{
	(void)state;
	fresh();
	archive("1.0-1");
	struct cmd_result r = fetch("1.0-1");
	assert_int_equal(r.status, 0);
	tt_free(&r);
	archive("1.0-1");
	r = fetch("1.0-1");
	assert_int_equal(r.status, 0);
	struct cmd_result log = cat("log");
	assert_string_equal(log.out, "");
	tt_free(&log);
	tt_free(&r);

	fresh();
	archive("2.0-1");
	r = fetch("1.0-1"); /* the pin left: 2.0-1 is fetched once */
	assert_int_equal(r.status, 0);
	tt_free(&r);
	archive("2.0-1");
	r = fetch("1.0-1");
	assert_int_equal(r.status, 0);
	assert_tree("2.0-1", "bookworm's current version: the pin 1.0-1 is not in the "
			     "archive");
	log = cat("log");
	assert_non_null(strstr(log.out, "apt-cache showsrc pkg"));
	assert_null(strstr(log.out, "apt-get source"));
	assert_null(strstr(log.out, "dpkg-source"));
	tt_free(&log);
	tt_free(&r);
}

static void test_failures_say_why_and_leave_no_tree(void **state)
{
	(void)state;
	char path[512];
	fresh();
	archive("1.0-1");
	snprintf(path, sizeof(path), "%s/offline", fake);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	struct cmd_result r = fetch("1.0-1");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "fetch: apt-get update (http://deb.debian.org/debian "
				      "bookworm sources) failed"));
	tt_free(&r);

	fresh();
	archive("");
	r = fetch("1.0-1");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "fetch: bookworm has no source package pkg\n");
	tt_free(&r);

	/* A tree without the file the caller names is not taken for the source. */
	fresh();
	archive("1.0-1");
	snprintf(path, sizeof(path), "%s/no-marker", fake);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	r = fetch("1.0-1");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "has no src/marker"));
	struct cmd_result v = cat("dir/src/.perfvisor-version");
	assert_string_equal(v.out, "");
	tt_free(&v);
	tt_free(&r);

	r = tt_run("sh scripts/fetch-source.sh a b c", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "usage: fetch-source.sh DIR PACKAGE SUITE PIN CHECK"));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_in_archive_is_taken),
		cmocka_unit_test(test_pin_gone_takes_the_suites_newest),
		cmocka_unit_test(test_trees_reused),
		cmocka_unit_test(test_failures_say_why_and_leave_no_tree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
