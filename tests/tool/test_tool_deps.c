/* SPDX-License-Identifier: MIT */
/*
 * scripts/deps.sh, the set-up every make goal runs first: on a machine that lacks packages
 * it prints their list, then installs exactly those with apt-get (as root, or through
 * `sudo -n`), or stops with the exact apt-get line. dpkg-query, apt-get, sudo and id are
 * stand-ins here (shell scripts in a directory of this test's), so the test asks for no
 * real package and needs no root: it checks what deps.sh would run, and when.
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

static char fake[256];

static void write_exec(const char *name, const char *text)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/%s", fake, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

/* installed: the packages the stand-in dpkg knows as installed, one a line; log: every
 * apt-get and sudo call, one a line. */
static int setup(void **state)
{
	(void)state;
	mkdir("build/tests", 0755);
	mkdir("build/tests/tool", 0755);
	snprintf(fake, sizeof(fake), "build/tests/tool/deps-%d", (int)getpid());
	mkdir(fake, 0755);
	write_exec("dpkg-query",
		   "#!/bin/sh\n"
		   "# -W -f=FORMAT PKG...: 'PKG ii ' when installed, 'PKG un ' when not\n"
		   "shift 2\n"
		   "for p; do\n"
		   "  if grep -qx \"$p\" \"$FAKE/installed\"; then echo \"$p ii \"; "
		   "else echo \"$p un \"; fi\n"
		   "done\n");
	write_exec("apt-get",
		   "#!/bin/sh\n"
		   "echo \"apt-get $*\" >>\"$FAKE/log\"\n"
		   "[ \"$(id -u)\" = 0 ] || [ -n \"${FAKE_VIA_SUDO:-}\" ] || exit 100\n"
		   "[ \"$1\" = update ] && exit 0\n"
		   "[ -n \"${FAKE_APT_BROKEN:-}\" ] && exit 0\n"
		   "for p; do case \"$p\" in -*|install) ;; *) echo \"$p\" "
		   ">>\"$FAKE/installed\";; "
		   "esac; done\n");
	write_exec("sudo", "#!/bin/sh\n"
			   "[ -n \"${FAKE_SUDO_OK:-}\" ] || exit 1\n"
			   "[ \"$1\" = -n ] && shift\n"
			   "echo \"sudo $*\" >>\"$FAKE/log\"\n"
			   "FAKE_VIA_SUDO=1 exec \"$@\"\n");
	write_exec("id", "#!/bin/sh\necho \"$FAKE_UID\"\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[320];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fake);
	return system(cmd) == 0 ? 0 : -1;
}

/* Runs `deps.sh ARGS` with the stand-ins, the given packages installed, as uid `uid`; `env`
 * adds variables. The stand-ins' log is read back into *log. */
static struct cmd_result deps(const char *args, const char *installed, int uid, const char *env,
			      struct cmd_result *log)
{
	char path[320], cmd[2048];
	snprintf(path, sizeof(path), "%s/installed", fake);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (const char *p = installed; *p; p++)
		fputc(*p == ' ' ? '\n' : *p, f);
	fputc('\n', f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "rm -f %s/log; touch %s/log; FAKE=%s FAKE_UID=%d PATH=%s:$PATH "
		 "DPKG_QUERY=%s/dpkg-query "
		 "APT_GET=%s/apt-get SUDO=%s/sudo %s sh scripts/deps.sh %s",
		 fake, fake, fake, uid, fake, fake, fake, fake, env, args);
	struct cmd_result r = tt_run(cmd, NULL);
	snprintf(cmd, sizeof(cmd), "cat %s/log", fake);
	*log = tt_run(cmd, NULL);
	return r;
}

#define DEMO_ALL "make gcc libc6-dev pkg-config libxml2-dev libvirt-dev libmicrohttpd-dev"

static void test_nothing_missing_nothing_run(void **state)
{
	(void)state;
	struct cmd_result log, r = deps("ensure demo", DEMO_ALL, 1000, "", &log);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_string_equal(log.out, "");
	tt_free(&r);
	tt_free(&log);
}

/* As root: the list first, then apt-get update and an install of exactly what is missing. */
static void test_root_installs_exactly_the_missing(void **state)
{
	(void)state;
	struct cmd_result log,
		r = deps("ensure demo", "make gcc libc6-dev pkg-config", 0, "", &log);
	assert_int_equal(r.status, 0);
	assert_string_equal(log.out,
			    "apt-get update -q\n"
			    "apt-get install -y -q --no-install-recommends libxml2-dev "
			    "libvirt-dev libmicrohttpd-dev\n");
	const char *list = strstr(r.err, "not installed here: libxml2-dev libvirt-dev "
					 "libmicrohttpd-dev\n");
	const char *installing = strstr(r.err,
					"installing them: apt-get install -y "
					"--no-install-recommends libxml2-dev libvirt-dev "
					"libmicrohttpd-dev\n");
	assert_non_null(list);
	assert_non_null(installing);
	assert_true(list < installing);
	tt_free(&r);
	tt_free(&log);
}

/* Not root, no sudo: nothing is run, and the message is the line to run as root. */
static void test_no_root_no_sudo_stops_with_the_line(void **state)
{
	(void)state;
	struct cmd_result log, r = deps("ensure demo", "make gcc libc6-dev", 1000, "", &log);
	assert_int_equal(r.status, 1);
	assert_string_equal(log.out, "");
	assert_non_null(strstr(r.err,
			       "\n    apt-get update && apt-get install -y "
			       "--no-install-recommends pkg-config libxml2-dev libvirt-dev "
			       "libmicrohttpd-dev\n"));
	tt_free(&r);
	tt_free(&log);
}

static void test_sudo_n_where_allowed(void **state)
{
	(void)state;
	struct cmd_result log,
		r = deps("ensure demo", "make gcc libc6-dev pkg-config libxml2-dev", 1000,
			 "FAKE_SUDO_OK=1", &log);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(log.out, "sudo env DEBIAN_FRONTEND=noninteractive "));
	assert_non_null(strstr(log.out,
			       "apt-get install -y -q --no-install-recommends libvirt-dev "
			       "libmicrohttpd-dev\n"));
	assert_null(strstr(log.out, "libxml2-dev"));
	tt_free(&r);
	tt_free(&log);
}

static void test_install_no_only_reports(void **state)
{
	(void)state;
	struct cmd_result log,
		r = deps("ensure check", DEMO_ALL, 0, "PERFVISOR_INSTALL=no", &log);
	assert_int_equal(r.status, 0);
	assert_string_equal(log.out, "");
	assert_non_null(strstr(r.err, "qemu-system-arm"));
	tt_free(&r);
	tt_free(&log);
}

/* apt-get that exits 0 without installing: deps.sh checks again and fails, naming what. */
static void test_still_missing_after_apt_fails(void **state)
{
	(void)state;
	struct cmd_result log,
		r = deps("ensure demo", "make gcc libc6-dev pkg-config libxml2-dev", 0,
			 "FAKE_APT_BROKEN=1", &log);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "still not installed after apt-get: libvirt-dev "
				      "libmicrohttpd-dev\n"));
	tt_free(&r);
	tt_free(&log);
}

static bool listed(const char *list, const char *pkg)
{
	size_t n = strlen(pkg);
	for (const char *p = list; (p = strstr(p, pkg)); p += n)
		if ((p == list || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* What each goal installs: the demo nothing a test alone uses; check everything its suites
 * run (QEMU, the cross compiler, cmocka, the report parsers, what Xen's build needs, clang and
 * libFuzzer for the fuzz targets over their seeds). */
static void test_goal_package_sets(void **state)
{
	(void)state;
	struct cmd_result demo = tt_run("sh scripts/deps.sh list demo", NULL);
	struct cmd_result check = tt_run("sh scripts/deps.sh list check", NULL);
	assert_int_equal(demo.status, 0);
	assert_int_equal(check.status, 0);
	static const char *const demo_needs[] = {
		"make",        "gcc",         "libc6-dev",        "pkg-config",
		"libxml2-dev", "libvirt-dev", "libmicrohttpd-dev"};
	static const char *const test_only[] = {"libcmocka-dev",
						"qemu-system-arm",
						"gcc-aarch64-linux-gnu",
						"python3",
						"jq",
						"python3-prometheus-client",
						"dpkg-dev",
						"flex",
						"bison",
						"device-tree-compiler",
						"clang",
						"libclang-rt-dev",
						"valgrind"};
	for (size_t i = 0; i < sizeof(demo_needs) / sizeof(demo_needs[0]); i++) {
		assert_true(listed(demo.out, demo_needs[i]));
		assert_true(listed(check.out, demo_needs[i]));
	}
	for (size_t i = 0; i < sizeof(test_only) / sizeof(test_only[0]); i++)
		assert_false(listed(demo.out, test_only[i]));
	for (size_t i = 0; i < 12; i++) /* valgrind is memcheck's and bench's, not check's */
		assert_true(listed(check.out, test_only[i]));
	tt_free(&demo);
	tt_free(&check);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_missing_nothing_run),
		cmocka_unit_test(test_root_installs_exactly_the_missing),
		cmocka_unit_test(test_no_root_no_sudo_stops_with_the_line),
		cmocka_unit_test(test_sudo_n_where_allowed),
		cmocka_unit_test(test_install_no_only_reports),
		cmocka_unit_test(test_still_missing_after_apt_fails),
		cmocka_unit_test(test_goal_package_sets),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
