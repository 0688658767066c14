/* SPDX-License-Identifier: MIT */
/*
 * bench/gate.sh, the benchmark gate: make bench's figures against the checked-in baselines
 * (exact, or within a stated tolerance, in the figure's better direction), the baselines
 * rewritten from a run with their tolerances and comments kept, the figures the docs quote
 * held to their baselines, and the QEMU a figure comes from named. Baselines, figures,
 * documents and QEMU are files of this test's.
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

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct cmd_result get(const char *name)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "cat %s/%s", dir, name);
	return tt_run(cmd, NULL);
}

static int setup(void **state)
{
	(void)state;
	mkdir("build/tests", 0755);
	mkdir("build/tests/tool", 0755);
	snprintf(dir, sizeof(dir), "build/tests/tool/gate-%d", (int)getpid());
	mkdir(dir, 0755);
	char sub[96];
	snprintf(sub, sizeof(sub), "%s/base", dir);
	mkdir(sub, 0755);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* gate.sh ARGS, with DIR substituted for every "@". */
static struct cmd_result gate(const char *args)
{
	char cmd[1024] = "sh bench/gate.sh ";
	size_t n = strlen(cmd);
	for (const char *p = args; *p && n + 70 < sizeof(cmd); p++)
		n += (size_t)(*p == '@' ? snprintf(cmd + n, sizeof(cmd) - n, "%s", dir)
					: snprintf(cmd + n, sizeof(cmd) - n, "%c", *p));
	return tt_run(cmd, NULL);
}

static const char host_base[] =
	"# SPDX-License-Identifier: MIT\n"
	"# a comment line\n"
	"lib.mix 45.4 instructions/access\n"
	"lib.cover 98.75 % better=higher\n"
	"lib.noisy 100 records/s tolerance=10% better=higher  # host speed\n"
	"lib.abs 2.40 % tolerance=0.5  # the kernel moves\n";

static void figures(const char *mix, const char *cover, const char *noisy, const char *abs)
{
	char text[512];
	snprintf(text, sizeof(text),
		 "noise that is not a figure\n"
		 "bench: baseline host\n"
		 "bench: lib.mix: %s instructions/access\n"
		 "bench: lib.cover: %s %%\n"
		 "bench: lib.noisy: %s records/s\n"
		 "bench: lib.abs: %s %%\n"
		 "bench: 0 passed, 0 failed (log: x)\n",
		 mix, cover, noisy, abs);
	put("figs", text);
	put("base/host.txt", host_base);
}

static void test_equal_and_within_tolerance_pass(void **state)
{
	(void)state;
	figures("45.4", "98.75", "91", "2.90");
	struct cmd_result r = gate("check @/figs @/base");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "ok   host/lib.mix: 45.4 instructions/access\n"));
	assert_non_null(strstr(r.out, "ok   host/lib.noisy: 91 records/s (baseline 100, "
				      "tolerance 10%)\n"));
	assert_non_null(
		strstr(r.out, "ok   host/lib.abs: 2.90 % (baseline 2.40, tolerance 0.5)\n"));
	assert_non_null(strstr(r.out, "\n4 passed, 0 failed\n"));
	tt_free(&r);
}

/* An exact figure fails either way: worse is a regression, better must update the baseline.
 * The direction is the figure's own (better=higher turns it round). */
static void test_exact_figures_fail_either_way(void **state)
{
	(void)state;
	figures("45.5", "98.70", "100", "2.40");
	struct cmd_result r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "FAIL host/lib.mix: regressed: 45.5 instructions/access, "
				      "the baseline 45.4\n"));
	assert_non_null(strstr(r.out, "FAIL host/lib.cover: regressed: 98.70 %, the baseline "
				      "98.75\n"));
	assert_non_null(strstr(r.out, "\n2 passed, 2 failed\n"));
	tt_free(&r);

	figures("45.3", "98.80", "100", "2.40");
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out,
			       "FAIL host/lib.mix: improved: 45.3 instructions/access, the "
			       "baseline 45.4: update the baseline in this commit"));
	assert_non_null(strstr(r.out, "FAIL host/lib.cover: improved: 98.80 %"));
	tt_free(&r);
}

/* Past its tolerance a figure fails either way: worse is a regression; better must move the
 * baseline, which the docs quote (a figure ten times better is not noise). Within it, both
 * pass. */
static void test_tolerance_bounds_both_sides(void **state)
{
	(void)state;
	figures("45.4", "98.75", "89", "2.91");
	struct cmd_result r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out,
			       "FAIL host/lib.noisy: regressed: 89 records/s, the baseline "
			       "100 (tolerance 10%)\n"));
	assert_non_null(strstr(r.out, "FAIL host/lib.abs: regressed: 2.91 %, the baseline 2.40 "
				      "(tolerance 0.5)\n"));
	tt_free(&r);
	figures("45.4", "98.75", "500", "0.10");
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out,
			       "FAIL host/lib.noisy: improved: 500 records/s, the baseline "
			       "100 (tolerance 10%): update the baseline in this commit"));
	assert_non_null(strstr(r.out, "FAIL host/lib.abs: improved: 0.10 %, the baseline 2.40 "
				      "(tolerance 0.5): update the baseline in this commit"));
	tt_free(&r);
	figures("45.4", "98.75", "110", "1.90");
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 0);
	tt_free(&r);
}

/* Every way a figure can go missing or wrong is a failure that names it; a baseline whose
 * figures were not measured at all is skipped, with the reason the run gave. */
static void test_missing_new_and_broken_figures(void **state)
{
	(void)state;
	put("base/host.txt", host_base);
	put("base/qemu-7.2.txt", "hyp.trap 82.0 el2-instructions/trap\n");
	put("figs", "bench: baseline host\n"
		    "bench: lib.mix: n/a instructions/access\n"
		    "bench: lib.cover: 98.75 mmio/vm\n"
		    "bench: lib.new: 3 things\n"
		    "bench: lib.abs: 2.40 %\n"
		    "bench: lib.abs: 2.40 %\n"
		    "bench: hyp.*: skipped (needs qemu-system-aarch64)\n");
	struct cmd_result r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "FAIL host/lib.mix: printed \"n/a\", not a number\n"));
	assert_non_null(
		strstr(r.out, "FAIL host/lib.cover: unit mmio/vm, the baseline says %\n"));
	assert_non_null(strstr(r.out, "FAIL host/lib.new: 3 things is not in the baseline"));
	assert_non_null(strstr(r.out, "FAIL host/lib.abs: printed twice\n"));
	assert_non_null(strstr(r.out, "FAIL host/lib.noisy: in the baseline, not printed\n"));
	assert_non_null(
		strstr(r.out, "skipped: baseline qemu-7.2: needs qemu-system-aarch64\n"));
	assert_non_null(strstr(r.out, "\n1 passed, 5 failed, 1 skipped\n"));
	tt_free(&r);

	/* A figure whose baseline file does not exist. */
	put("figs", "bench: baseline qemu-10.0-perfvisor\nbench: hyp.trap: 80.0 x\n");
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "FAIL qemu-10.0-perfvisor/hyp.trap: no baseline "
				      "qemu-10.0-perfvisor.txt"));
	tt_free(&r);
	r = gate("check @/nothing @/base");
	assert_int_equal(r.status, 2);
	tt_free(&r);
	put("base/bad.txt", "lib.x 1 y tolerance=lots\n");
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "bad.txt:1: unknown field tolerance=lots"));
	tt_free(&r);
	char path[160];
	snprintf(path, sizeof(path), "%s/base/bad.txt", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/base/qemu-7.2.txt", dir);
	assert_int_equal(unlink(path), 0);
}

/* update writes the values of a run and keeps everything else of each line. */
static void test_update_keeps_tolerances_and_comments(void **state)
{
	(void)state;
	put("base/host.txt", host_base);
	put("figs", "bench: baseline host\n"
		    "bench: lib.mix: 44.0 instructions/access\n"
		    "bench: lib.cover: 99.00 %\n"
		    "bench: lib.noisy: 120 records/s\n"
		    "bench: lib.new: 7 things\n");
	struct cmd_result r = gate("update @/figs @/base");
	assert_int_equal(r.status, 0);
	tt_free(&r);
	r = get("base/host.txt");
	assert_string_equal(
		r.out, "# SPDX-License-Identifier: MIT\n"
		       "# a comment line\n"
		       "lib.mix 44.0 instructions/access\n"
		       "lib.cover 99.00 % better=higher\n"
		       "lib.noisy 120 records/s tolerance=10% better=higher  # host speed\n"
		       "lib.new 7 things\n");
	tt_free(&r);
	r = gate("check @/figs @/base");
	assert_int_equal(r.status, 0);
	tt_free(&r);
}

static void test_docs_figures_held_to_the_baselines(void **state)
{
	(void)state;
	put("base/host.txt",
	    "lib.mix 45.4 instructions/access\nlib.big 21552.0 instructions\n");
	put("base/qemu-7.2.txt", "hyp.trap 82.0 x\nlib.mix 50.0 instructions/access\n");
	const char doc[] =
		"# Doc\n"
		"mix <!--bench:host/lib.mix-->45.4 and <!--bench:qemu-7.2/lib.mix-->50.0,\n"
		"big <!--bench:lib.big-->21,552 and trap <!--bench:hyp.trap-->82.0.\n"
		"(<!--bench:lib.big-->21,000, then)\n"
		"<!-- bench-table: generated from bench/baseline/ by make docs; do not "
		"edit -->\n"
		"stale\n"
		"<!-- bench-table: end -->\n";
	put("doc.md", doc);
	struct cmd_result r = gate("docs-check @/base @/doc.md");
	assert_int_equal(r.status, 1); /* the table is stale */
	assert_non_null(strstr(r.err, "the figures table is not what bench/baseline/ holds"));
	tt_free(&r);
	r = gate("docs-update @/base @/doc.md");
	assert_int_equal(r.status, 0);
	tt_free(&r);
	r = get("doc.md");
	assert_non_null(
		strstr(r.out, "big <!--bench:lib.big-->21,552 and")); /* its format kept */
	/* A stale figure is rewritten; the comma after it stays the prose's. */
	assert_non_null(strstr(r.out, "(<!--bench:lib.big-->21552.0, then)"));
	assert_non_null(strstr(r.out,
			       "| host | `lib.mix` | 45.4 | instructions/access | exactly |\n"
			       "| host | `lib.big` | 21552.0 | instructions | exactly |\n"
			       "| qemu-7.2 | `hyp.trap` | 82.0 | x | exactly |\n"));
	assert_null(strstr(r.out, "stale"));
	tt_free(&r);
	r = gate("docs-check @/base @/doc.md");
	assert_int_equal(r.status, 0);
	tt_free(&r);

	/* A quoted figure that moved, one in two baselines named alone, one in none. */
	put("doc.md",
	    "a <!--bench:hyp.trap-->81.0 b <!--bench:lib.mix-->45.4 c <!--bench:no.such-->1\n");
	r = gate("docs-check @/base @/doc.md");
	assert_int_equal(r.status, 1);
	assert_non_null(
		strstr(r.err, "doc.md:1: hyp.trap says 81.0, its baseline 82.0 (make docs)"));
	assert_non_null(
		strstr(r.err, "doc.md:1: lib.mix is in several baselines: name it KEY/NAME"));
	assert_non_null(strstr(r.err, "doc.md:1: no.such is in no baseline"));
	tt_free(&r);
	r = gate("docs-update @/base @/doc.md");
	tt_free(&r);
	r = get("doc.md");
	assert_non_null(strstr(r.out, "a <!--bench:hyp.trap-->82.0 b"));
	tt_free(&r);
}

static void test_key_names_the_qemu(void **state)
{
	(void)state;
	put("qemu", "#!/bin/sh\necho \"$QEMU_VERSION_LINE\"\necho 'Copyright (c) 2003-2022'\n");
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod +x %s/qemu", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "QEMU_VERSION_LINE='QEMU emulator version 7.2.22 (Debian "
		 "1:7.2+dfsg-7+deb12u18)' "
		 "sh bench/gate.sh key %s/qemu",
		 dir);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_string_equal(r.out, "qemu-7.2\n");
	tt_free(&r);
	snprintf(cmd, sizeof(cmd),
		 "QEMU_VERSION_LINE='QEMU emulator version 10.0.13 (perfvisor 1:10.0.13+ds-0)' "
		 "sh bench/gate.sh key %s/qemu",
		 dir);
	r = tt_run(cmd, NULL);
	assert_string_equal(r.out, "qemu-10.0-perfvisor\n");
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_and_within_tolerance_pass),
		cmocka_unit_test(test_exact_figures_fail_either_way),
		cmocka_unit_test(test_tolerance_bounds_both_sides),
		cmocka_unit_test(test_missing_new_and_broken_figures),
		cmocka_unit_test(test_update_keeps_tolerances_and_comments),
		cmocka_unit_test(test_docs_figures_held_to_the_baselines),
		cmocka_unit_test(test_key_names_the_qemu),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
