/* SPDX-License-Identifier: MIT */
/*
 * `make install` as a packager runs it: DESTDIR a directory of this test's, PREFIX /usr. Then
 * what was installed is used as its users would: the tool's --version, the library's SONAME
 * and exports, pkg-config's flags, a program (tests/install/consumer.c) built with those flags
 * alone, statically and against the shared library, and run; the demo on the installed
 * examples; the man page rendered and compared with the tool's own help. Last, `make uninstall` takes it all away again.
 *
 * The version expected everywhere is PV_VERSION_STRING of the source tree's header. The make
 * run here only copies: the Makefile builds what it installs before this test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfvisor/version.h"
#include "tooltest.h"

/* The build this test belongs to, and its flags (make check-sanitize builds elsewhere, with
 * sanitizers: the installed archive then needs them at link time too). */
#ifndef PV_BUILD_DIR
#define PV_BUILD_DIR "build"
#endif
#ifndef PV_SANITIZE
#define PV_SANITIZE ""
#endif
#ifndef PV_WERROR
#define PV_WERROR "-Werror"
#endif
#ifndef PV_MAKE
#define PV_MAKE "make"
#endif
#ifndef PV_CC
#define PV_CC "cc"
#endif
#ifndef PV_AARCH64_CC
#define PV_AARCH64_CC "aarch64-linux-gnu-gcc"
#endif

#define STR_(x) #x
#define STR(x) STR_(x)
#define SO_NAME "libperfvisor.so." STR(PV_VERSION_MAJOR)
#define SO_FILE "libperfvisor.so." PV_VERSION_STRING
#define CONSUMER_OUTPUT                                                                        \
	"perfvisor " PV_VERSION_STRING "\n"                                                    \
	"pv_hw_probe: 0 success\n"                                                             \
	"pv_vm_init: -1 a PMU was requested but the hardware has no PMUv3\n"
#define INTEGRATION_OUTPUT                                                                     \
	"probe: 0, registers read\n"                                                           \
	"vm: -1 a PMU was requested but the hardware has no PMUv3\n"                           \
	"trap: PMCR_EL0 x3 read\n"

/* Every path below holds "tests/install/", which make memcheck's valgrind does not follow
 * (the commands are make, the compiler, binutils and groff, none of them ours). */
static char work[512]; /* this run's directory: the marker, the programs built */
static char dest[600]; /* DESTDIR */
static char env[2048]; /* pkg-config's variables, pointed at DESTDIR alone */
static char marker[600];
static struct cmd_result installed;

static char *fmt(const char *format, ...)
{
	static char buf[8192];
	va_list ap;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	return buf;
}

/* The command's result; its output is shown when it did not exit 0 and `must` is set. */
static struct cmd_result run(const char *cmd, bool must)
{
	struct cmd_result r = tt_run(cmd, NULL);
	if (must && r.status != 0)
		print_error("%s: status %d\nstdout:\n%s\nstderr:\n%s\n", cmd, r.status, r.out,
			    r.err);
	return r;
}

/* A make of this build, on its own: not the jobserver or the goals of the make running the
 * tests, and never a package installation (PV_DEPS_CHECKED). */
static struct cmd_result make(const char *goal)
{
	return run(fmt("env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS PV_DEPS_CHECKED=1 " PV_MAKE
		       " --no-print-directory BUILD=" PV_BUILD_DIR " SANITIZE='" PV_SANITIZE "'"
		       " DESTDIR=%s PREFIX=/usr %s",
		       dest, goal),
		   false);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strip_newline(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static int setup(void **state)
{
	(void)state;
	char cwd[256];
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(work, sizeof(work), "%s/" PV_BUILD_DIR "/tests/install/%d", cwd,
		 (int)getpid());
	snprintf(dest, sizeof(dest), "%s/dest", work);
	snprintf(marker, sizeof(marker), "%s/before-install", work);
	snprintf(env, sizeof(env),
		 "PKG_CONFIG_PATH=%s/usr/lib/pkgconfig PKG_CONFIG_LIBDIR=%s/usr/lib/pkgconfig "
		 "PKG_CONFIG_SYSROOT_DIR=%s",
		 dest, dest, dest);
	struct cmd_result r = run(
		fmt("rm -rf %s && mkdir -p %s && touch %s", work, dest, marker), true);
	int status = r.status;
	tt_free(&r);
	if (status != 0)
		return -1;
	/* The file times of the marker and of what follows must differ. */
	sleep(1);
	installed = make("install");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tt_free(&installed);
	struct cmd_result r = run(fmt("rm -rf %s", work), true);
	int status = r.status;
	tt_free(&r);
	return status == 0 ? 0 : -1;
}

static void test_install_runs(void **state)
{
	(void)state;
	if (installed.status != 0)
		print_error("make install: status %d\n%s%s", installed.status, installed.out,
			    installed.err);
	assert_int_equal(installed.status, 0);
	/* It copied what the build had made: no compile or link ran (they all have -o). */
	if (strstr(installed.out, " -o "))
		print_error("make install built something:\n%s", installed.out);
	assert_null(strstr(installed.out, " -o "));
}

/* Exactly these files: the public headers (include/perfvisor/ but the record codec's, which
 * is not the library's, and the generated register keys and event numbers), both libraries, the tool, the man
 * page, the .pc and the examples. */
static void test_installed_files(void **state)
{
	(void)state;
	static const char *const fixed[] = {
		"./usr/bin/perfvisor",
		"./usr/include/perfvisor/event_defs.h",
		"./usr/include/perfvisor/sysreg_defs.h",
		"./usr/lib/libperfvisor.a",
		"./usr/lib/libperfvisor.so",
		"./usr/lib/" SO_NAME,
		"./usr/lib/" SO_FILE,
		"./usr/lib/pkgconfig/libperfvisor.pc",
		"./usr/share/man/man1/perfvisor.1",
	};
	char *want[64];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		want[n++] = strdup(fixed[i]);
	glob_t headers;
	assert_int_equal(glob("include/perfvisor/*.h", 0, NULL, &headers), 0);
	for (size_t i = 0; i < headers.gl_pathc && n < 64; i++) {
		const char *name = strrchr(headers.gl_pathv[i], '/') + 1;
		if (strcmp(name, "spe_packet.h") != 0)
			want[n++] = strdup(fmt("./usr/include/perfvisor/%s", name));
	}
	globfree(&headers);
	/* The examples `perfvisor demo` runs, as they are in the tree. */
	glob_t examples;
	assert_int_equal(glob("examples/README.md", 0, NULL, &examples), 0);
	assert_int_equal(glob("examples/*.xml", GLOB_APPEND, NULL, &examples), 0);
	assert_int_equal(glob("examples/demo/*.xml", GLOB_APPEND, NULL, &examples), 0);
	for (size_t i = 0; i < examples.gl_pathc && n < 64; i++)
		want[n++] = strdup(fmt("./usr/share/perfvisor/%s", examples.gl_pathv[i]));
	globfree(&examples);
	qsort(want, n, sizeof(want[0]), by_name);
	char listing[4096] = "";
	for (size_t i = 0; i < n; i++) {
		strncat(listing, want[i], sizeof(listing) - strlen(listing) - 2);
		strcat(listing, "\n");
		free(want[i]);
	}
	struct cmd_result got = run(fmt("cd %s && find . ! -type d | LC_ALL=C sort", dest),
				    true);
	assert_string_equal(got.out, listing);
	tt_free(&got);

	/* The links a program's build (-lperfvisor) and its loader (the SONAME) follow. */
	struct cmd_result links = run(
		fmt("cd %s/usr/lib && readlink libperfvisor.so " SO_NAME, dest), true);
	assert_string_equal(links.out, SO_NAME "\n" SO_FILE "\n");
	tt_free(&links);
	struct cmd_result modes = run(fmt("cd %s/usr && stat -c '%%a %%n' bin/perfvisor "
					  "lib/" SO_FILE " lib/libperfvisor.a "
					  "include/perfvisor/version.h",
					  dest),
				      true);
	assert_string_equal(modes.out,
			    "755 bin/perfvisor\n755 lib/" SO_FILE "\n"
			    "644 lib/libperfvisor.a\n644 include/perfvisor/version.h\n");
	tt_free(&modes);
}

/* Nothing outside DESTDIR: no installed file's counterpart under / and nothing in the source
 * tree changed since the marker (build/ is the build's own). */
static void test_nothing_written_outside_destdir(void **state)
{
	(void)state;
	struct cmd_result outside = run(
		fmt("cd %s && find . ! -type d | while read -r f; do p=\"${f#.}\"; "
		    "if [ -e \"$p\" ] || [ -L \"$p\" ]; then find \"$p\" -prune -newer %s; fi; "
		    "done",
		    dest, marker),
		true);
	assert_string_equal(outside.out, "");
	tt_free(&outside);
	struct cmd_result tree = run(fmt("find . -path ./build -prune -o -path ./" PV_BUILD_DIR
					 " -prune -o -path ./.git -prune -o -newer %s -print",
					 marker),
				     true);
	assert_string_equal(tree.out, "");
	tt_free(&tree);
}

static void test_tool_prints_the_header_version(void **state)
{
	(void)state;
	struct cmd_result r = run(fmt("%s/usr/bin/perfvisor --version", dest), true);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "perfvisor " PV_VERSION_STRING "\n");
	tt_free(&r);
}

/* The installed tool finds the installed examples (its warning about db.xml names the file it
 * read), not the source tree's, and the demo's figures match the truth. */
static void test_installed_demo_runs(void **state)
{
	(void)state;
	struct cmd_result r = run(fmt("cd %s && %s/usr/bin/perfvisor demo", work, dest), true);
	assert_int_equal(r.status, 0);
	if (!strstr(r.err, "/usr/share/perfvisor/examples/demo/db.xml"))
		print_error("perfvisor demo read no installed example:\n%s", r.err);
	assert_non_null(strstr(r.err, "/usr/share/perfvisor/examples/demo/db.xml"));
	tt_free(&r);
}

static void test_shared_library_soname_and_exports(void **state)
{
	(void)state;
	struct cmd_result r = run(fmt("readelf -d %s/usr/lib/" SO_FILE, dest), true);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Library soname: [" SO_NAME "]\n"));
	tt_free(&r);
	/* The API alone: pv_, none of the internal pv_<module>__ names; and it needs of its
	 * user the platform functions (pv_plat_*) and nothing else of perfvisor's. */
	struct cmd_result defined = run(
		fmt("nm -D --defined-only %s/usr/lib/" SO_FILE " | awk '{ print $3 }'", dest),
		true);
	struct cmd_result odd = run(
		fmt("nm -D --defined-only %s/usr/lib/" SO_FILE
		    " | awk '{ print $3 }' | grep -v '^pv_' | "
		    "grep -v '^_\\(init\\|fini\\)$'; "
		    "nm -D --defined-only %s/usr/lib/" SO_FILE
		    " | awk '{ print $3 }' | grep '__'; "
		    "nm -D --undefined-only %s/usr/lib/" SO_FILE
		    " | awk '{ print $2 }' | grep '^pv_' | grep -v '^pv_plat_'",
		    dest, dest, dest),
		false);
	assert_string_equal(odd.out, "");
	/* Exactly what the installed headers declare with PV_API: every one defined, no other
	 * (a name a comment mentions is not exported). */
	struct cmd_result declared = run(
		fmt("sed -n 's/^PV_API [^(]*[^a-z0-9_]\\(pv_[a-z0-9_]*\\)(.*/\\1/p' "
		    "%s/usr/include/perfvisor/*.h | sort -u",
		    dest),
		true);
	struct cmd_result exported = run(
		fmt("nm -D --defined-only %s/usr/lib/" SO_FILE
		    " | awk '{ print $3 }' | grep -v '^_\\(init\\|fini\\)$' | sort -u",
		    dest),
		true);
	assert_true(strlen(declared.out) > 300); /* forty-odd functions */
	assert_string_equal(exported.out, declared.out);
	/* And every function the headers declare is marked: the library's (PV_API) or the
	 * platform's (PV_PLATFORM), none left out of the ABI by a forgotten mark. */
	struct cmd_result unmarked = run(
		fmt("grep -hE '^[a-z][A-Za-z0-9_ *]*[^A-Za-z0-9_]pv_[a-z0-9_]+\\(' "
		    "%s/usr/include/perfvisor/*.h | grep -vE '^(static|typedef) '",
		    dest),
		false);
	assert_string_equal(unmarked.out, "");
	tt_free(&unmarked);
	tt_free(&declared);
	tt_free(&exported);
	tt_free(&defined);
	tt_free(&odd);
}

static void test_pkg_config(void **state)
{
	(void)state;
	struct cmd_result r = run(fmt("%s pkg-config --modversion libperfvisor", env), true);
	assert_string_equal(r.out, PV_VERSION_STRING "\n");
	tt_free(&r);
	r = run(fmt("%s pkg-config --cflags --libs libperfvisor", env), true);
	strip_newline(r.out);
	char want[2048];
	snprintf(want, sizeof(want), "-I%s/usr/include -L%s/usr/lib -lperfvisor", dest, dest);
	assert_string_equal(r.out, want);
	tt_free(&r);
	r = run(fmt("grep -x 'prefix=/usr' %s/usr/lib/pkgconfig/libperfvisor.pc", dest), true);
	assert_int_equal(r.status, 0);
	tt_free(&r);
}

/* Builds tests/install/consumer.c, with the platform of tests/install/integration_plat.c,
 * against the installed library alone by `compiler` (with its language's flags) into
 * `program`; `libs_before` and `libs_after` stand around pkg-config's --libs. */
static void build_with(const char *compiler, const char *program, const char *libs_before,
		       const char *libs_after)
{
	struct cmd_result r = run(
		fmt("export %s; %s -pedantic -Wall -Wextra " PV_WERROR " " PV_SANITIZE
		    " $(pkg-config --cflags libperfvisor) -o %s/%s tests/install/consumer.c "
		    "tests/install/integration_plat.c "
		    "%s $(pkg-config --libs --static libperfvisor) %s",
		    env, compiler, work, program, libs_before, libs_after),
		true);
	assert_int_equal(r.status, 0);
	tt_free(&r);
}

static void build_consumer(const char *program, const char *libs_before, const char *libs_after)
{
	build_with(PV_CC " -std=c11", program, libs_before, libs_after);
}

static void test_static_program(void **state)
{
	(void)state;
	build_consumer("consumer-static", "-Wl,-Bstatic", "-Wl,-Bdynamic");
	struct cmd_result r = run(fmt("readelf -d %s/consumer-static", work), true);
	assert_null(strstr(r.out, "libperfvisor"));
	tt_free(&r);
	r = run(fmt("%s/consumer-static", work), true);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, CONSUMER_OUTPUT);
	tt_free(&r);
}

static void test_shared_program(void **state)
{
	(void)state;
	build_consumer("consumer-shared", "", "");
	struct cmd_result r = run(fmt("readelf -d %s/consumer-shared", work), true);
	assert_non_null(strstr(r.out, "Shared library: [" SO_NAME "]"));
	tt_free(&r);
	/* It loads the library of DESTDIR, and runs with it. */
	r = run(fmt("LD_LIBRARY_PATH=%s/usr/lib ldd %s/consumer-shared", dest, work), true);
	char want[1024];
	snprintf(want, sizeof(want), SO_NAME " => %s/usr/lib/" SO_NAME " ", dest);
	assert_non_null(strstr(r.out, want));
	tt_free(&r);
	r = run(fmt("LD_LIBRARY_PATH=%s/usr/lib %s/consumer-shared", dest, work), true);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, CONSUMER_OUTPUT);
	tt_free(&r);
}

/* A C++ program, every symbol hidden unless marked (-fvisibility=hidden), against the shared
 * library: the headers' declarations have C linkage, and its platform functions still reach
 * the library (PV_PLATFORM keeps their default visibility). */
static void test_cplusplus_program(void **state)
{
	(void)state;
	build_with("g++ -std=c++20 -x c++ -fvisibility=hidden", "consumer-cplusplus", "-x none",
		   "");
	struct cmd_result r = run(
		fmt("LD_LIBRARY_PATH=%s/usr/lib %s/consumer-cplusplus", dest, work), true);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, CONSUMER_OUTPUT);
	tt_free(&r);
}

/* The core, every file, with Linux's and with Xen's warning flags (tests/install/hostflags.sh
 * says which and where they come from), -Werror: for aarch64 as those hosts build it, code
 * generated (frame sizes, fall-through), and on this host up to the front end, where every
 * other warning of the sets is; without the cross compiler, the host alone. */
static void test_core_with_host_flags(void **state)
{
	(void)state;
	struct cmd_result r = run("GEN=" PV_BUILD_DIR
				  "/gen sh tests/install/hostflags.sh core " PV_CC
				  " -fsyntax-only",
				  true);
	assert_int_equal(r.status, 0);
	tt_free(&r);
	r = run("command -v " PV_AARCH64_CC, false);
	int cross = r.status == 0;
	tt_free(&r);
	if (!cross)
		return;
	r = run("GEN=" PV_BUILD_DIR "/gen sh tests/install/hostflags.sh core " PV_AARCH64_CC,
		true);
	assert_int_equal(r.status, 0);
	tt_free(&r);
}

/* An out-of-tree integration (tests/install/integration.h): its platform in C and its
 * hypervisor in C++, built against the installed headers and shared library with each host's
 * warning flags (as a hosted program: their diagnostics, not their code generation), -Werror,
 * linked and run. */
static void test_integration_with_host_flags(void **state)
{
	(void)state;
	static const char *const hosts[] = {"linux", "xen"};
	for (unsigned i = 0; i < 2; i++) {
		const char *h = hosts[i];
		struct cmd_result r = run(
			fmt("export %s; set -e; inc=$(pkg-config --cflags libperfvisor); "
			    "c=$(sh tests/install/hostflags.sh flags %s " PV_CC " warnings); "
			    "cxx=$(sh tests/install/hostflags.sh flags %s-c++ g++ "
			    "warnings); " PV_CC " $c -Werror " PV_SANITIZE
			    " $inc -c tests/install/integration_plat.c "
			    "-o %s/plat-%s.o; "
			    "g++ -std=c++17 -pedantic $cxx -Werror " PV_SANITIZE " $inc "
			    "-c tests/install/integration.cpp -o %s/hv-%s.o; "
			    "g++ " PV_SANITIZE " -o %s/integration-%s %s/hv-%s.o %s/plat-%s.o "
			    "$(pkg-config --libs libperfvisor)",
			    env, h, h, work, h, work, h, work, h, work, h, work, h),
			true);
		assert_int_equal(r.status, 0);
		tt_free(&r);
		r = run(fmt("LD_LIBRARY_PATH=%s/usr/lib %s/integration-%s", dest, work, h),
			true);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, INTEGRATION_OUTPUT);
		tt_free(&r);
	}
}

static void test_man_page_renders_without_warnings(void **state)
{
	(void)state;
	if (system("command -v groff >/dev/null 2>&1") != 0) {
		fflush(stdout);
		fprintf(stderr, "skipped: no groff (apt-get install groff-base)\n");
		skip();
	}
	struct cmd_result r = run(
		fmt("groff -man -Tutf8 -ww -z %s/usr/share/man/man1/perfvisor.1", dest), true);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	tt_free(&r);
}

/* The man page's text with roff's escapes of '-' and its font changes undone. */
static char *man_text(void)
{
	struct cmd_result r = run(fmt("sed -e 's/\\\\-/-/g' -e 's/\\\\f[BIRP]//g' "
				      "%s/usr/share/man/man1/perfvisor.1",
				      dest),
				  true);
	assert_int_equal(r.status, 0);
	free(r.err);
	return r.out;
}

/* Every command `perfvisor help` lists has its entry, and every option its
 * `perfvisor help COMMAND` prints is in that entry (--help, which every command takes, is in
 * the page once). */
static void test_man_page_has_every_command_and_option(void **state)
{
	(void)state;
	char *man = man_text();
	struct cmd_result cmds = run(
		fmt("%s/usr/bin/perfvisor help | "
		    "sed -n '/^commands:/,/^$/s/^  \\([a-z][a-z-]*\\) .*/\\1/p'",
		    dest),
		true);
	unsigned missing = 0, commands = 0;
	for (char *name = strtok(cmds.out, "\n"); name; name = strtok(NULL, "\n")) {
		commands++;
		char head[128];
		snprintf(head, sizeof(head), "\n.B %s", name);
		const char *entry = strstr(man, head);
		if (!entry) {
			fprintf(stderr, "man page: no entry '.B %s'\n", name);
			missing++;
			continue;
		}
		/* The entry runs to the end of its options (.RE), or to the next entry. */
		const char *end = strstr(entry + 1, "\n.RE\n");
		const char *next = entry;
		do /* the next command's entry, not an option's (".B --verify") */
			next = strstr(next + 1, "\n.TP\n.B ");
		while (next && next[8] == '-');
		if (!end || (next && next < end))
			end = next ? next : entry + strlen(entry);
		struct cmd_result opts = run(
			fmt("%s/usr/bin/perfvisor help %s | grep -oE -- '--[a-z][a-z-]*' | "
			    "grep -vx -- --help | sort -u",
			    dest, name),
			false);
		char *save = NULL;
		for (char *opt = strtok_r(opts.out, "\n", &save); opt;
		     opt = strtok_r(NULL, "\n", &save)) {
			const char *at = strstr(entry, opt);
			if (!at || at > end) {
				fprintf(stderr, "man page: %s: no %s\n", name, opt);
				missing++;
			}
		}
		tt_free(&opts);
	}
	static const char *const global[] = {
		".SH NAME",     ".SH SYNOPSIS",    ".SH DESCRIPTION",
		".SH COMMANDS", ".SH EXIT STATUS", ".SH SEE ALSO",
		"-V",           "--version"};
	missing += tt_missing(man, global, sizeof(global) / sizeof(global[0]));
	assert_true(commands >= 6);
	assert_int_equal(missing, 0);
	tt_free(&cmds);
	free(man);
}

/* Last: make uninstall leaves no file of the installation behind. */
static void test_uninstall_removes_it_all(void **state)
{
	(void)state;
	struct cmd_result r = make("uninstall");
	if (r.status != 0)
		print_error("make uninstall: status %d\n%s%s", r.status, r.out, r.err);
	assert_int_equal(r.status, 0);
	tt_free(&r);
	r = run(fmt("cd %s && find . ! -type d", dest), true);
	assert_string_equal(r.out, "");
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_install_runs),
		cmocka_unit_test(test_installed_files),
		cmocka_unit_test(test_nothing_written_outside_destdir),
		cmocka_unit_test(test_tool_prints_the_header_version),
		cmocka_unit_test(test_installed_demo_runs),
		cmocka_unit_test(test_shared_library_soname_and_exports),
		cmocka_unit_test(test_pkg_config),
		cmocka_unit_test(test_static_program),
		cmocka_unit_test(test_shared_program),
		cmocka_unit_test(test_cplusplus_program),
		cmocka_unit_test(test_core_with_host_flags),
		cmocka_unit_test(test_integration_with_host_flags),
		cmocka_unit_test(test_man_page_renders_without_warnings),
		cmocka_unit_test(test_man_page_has_every_command_and_option),
		cmocka_unit_test(test_uninstall_removes_it_all),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
