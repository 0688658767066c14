/* SPDX-License-Identifier: MIT */
/*
 * The command line as users expect it of a getopt_long tool: a missing value and an unknown
 * option named as such (the option as written, the values it takes), exit status 2 and
 * nothing on stdout for every usage error; options after the file; `perfvisor help CMD` and
 * `CMD --help` printing the command's options.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tooltest.h"

static const char *const commands[] = {"vm-config", "run",        "stats", "demo",
				       "regs",      "spe-decode", "serve"};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* `perfvisor ARGS` is a usage error whose first line on stderr is `message`. */
static unsigned usage_error(const char *args, const char *message)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " %s", args);
	struct cmd_result r = tt_run(cmd, NULL);
	size_t n = strlen(message);
	bool ok = r.status == 2 && r.out[0] == '\0' && strncmp(r.err, message, n) == 0 &&
		  r.err[n] == '\n';
	if (!ok)
		fprintf(stderr,
			"perfvisor %s\n  status %d, stdout %zu bytes, stderr:\n%s"
			"  expected status 2, no stdout, first line:\n%s\n",
			args, r.status, strlen(r.out), r.err, message);
	tt_free(&r);
	return !ok;
}

static void test_missing_value(void **state)
{
	(void)state;
	unsigned bad = 0;
	bad += usage_error("stats --format",
			   "perfvisor stats: option '--format' needs a value (table, json, "
			   "openmetrics, prometheus, domstats)");
	/* an empty value is a missing one, with = or apart, and before the file as after it */
	bad += usage_error("stats examples/demo/scenario.xml --format=",
			   "perfvisor stats: option '--format' needs a value (table, json, "
			   "openmetrics, prometheus, domstats)");
	bad += usage_error("run --seed '' examples/demo/scenario.xml",
			   "perfvisor run: option '--seed' needs a value (a number)");
	bad += usage_error("stats -f", "perfvisor stats: option '-f' needs a value (table, "
				       "json, openmetrics, prometheus, domstats)");
	bad += usage_error("stats examples/demo/scenario.xml --domain",
			   "perfvisor stats: option '--domain' needs a value (a domain name)");
	bad += usage_error("run --connect",
			   "perfvisor run: option '--connect' needs a value (a libvirt URI)");
	bad += usage_error(
		"vm-config --connect",
		"perfvisor vm-config: option '--connect' needs a value (a libvirt URI)");
	bad += usage_error("demo --examples",
			   "perfvisor demo: option '--examples' needs a value (a directory)");
	bad += usage_error("demo -s", "perfvisor demo: option '-s' needs a value (a number)");
	bad += usage_error("regs --format",
			   "perfvisor regs: option '--format' needs a value (text, markdown)");
	assert_int_equal(bad, 0);
}

static void test_unknown_option(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char args[128], message[160];
		snprintf(args, sizeof(args), "%s --frobnicate=3 x", commands[i]);
		snprintf(message, sizeof(message),
			 "perfvisor %s: unknown option '--frobnicate'", commands[i]);
		bad += usage_error(args, message);
		snprintf(args, sizeof(args), "%s -Z x", commands[i]);
		snprintf(message, sizeof(message), "perfvisor %s: unknown option '-Z'",
			 commands[i]);
		bad += usage_error(args, message);
	}
	/* an option of another command is unknown here */
	bad += usage_error("run --domain web examples/demo/scenario.xml",
			   "perfvisor run: unknown option '--domain'");
	bad += usage_error("stats --verify examples/demo/scenario.xml",
			   "perfvisor stats: unknown option '--verify'");
	/* inside a cluster of short options */
	bad += usage_error("run -vZ x", "perfvisor run: unknown option '-Z'");
	bad += usage_error("run --verify=yes x",
			   "perfvisor run: option '--verify' takes no value");
	bad += usage_error("spe-decode --json=1 -",
			   "perfvisor spe-decode: option '--json' takes no value");
	/* the message is followed by where to look */
	struct cmd_result r = tt_run(TOOL_BIN " run --frobnicate x", NULL);
	assert_non_null(strstr(r.err, "\nTry 'perfvisor run --help' for its options.\n"));
	tt_free(&r);
	/* values that are not among those an option takes */
	bad += usage_error("stats --format xml x",
			   "perfvisor stats: unknown format 'xml' (table, json, openmetrics, "
			   "prometheus, domstats)");
	bad += usage_error("regs --format=html", "perfvisor regs: unknown format 'html' (text, "
						 "markdown)");
	bad += usage_error("stats", "perfvisor stats: no scenario file given");
	bad += usage_error("run a.xml b.xml", "perfvisor run: one scenario file only ('a.xml' "
					      "and 'b.xml')");
	bad += usage_error("regs extra", "perfvisor regs: unexpected argument 'extra'");
	bad += usage_error("spe-decode", "perfvisor spe-decode: no file given");
	bad += usage_error("serve --listen", "perfvisor serve: option '--listen' needs a value "
					     "(IPV4-ADDRESS:PORT)");
	bad += usage_error("serve --listen 1.2.3:99",
			   "perfvisor serve: --listen '1.2.3:99' is not IPV4-ADDRESS:PORT");
	bad += usage_error(
		"serve --listen 127.0.0.1:65536",
		"perfvisor serve: --listen '127.0.0.1:65536' is not IPV4-ADDRESS:PORT");
	bad += usage_error("serve extra", "perfvisor serve: unexpected argument 'extra'");
	bad += usage_error("serve --scenario x --period 0",
			   "perfvisor serve: --period '0' is not seconds from 1 to 3600");
	bad += usage_error("serve --period 5s",
			   "perfvisor serve: --period '5s' is not seconds from 1 to 3600");
	assert_int_equal(bad, 0);
}

/* Options may follow the file, as getopt_long permutes them. */
static void test_option_after_file(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(
		TOOL_BIN " stats examples/demo/scenario.xml --format json -d db", NULL);
	assert_int_equal(r.status, 0);
	assert_true(r.out[0] == '{');
	assert_non_null(strstr(r.out, "\"db\""));
	assert_null(strstr(r.out, "\"web\""));
	tt_free(&r);
}

/* Every option a command takes, as its help shows it. */
static const struct {
	const char *cmd;
	const char *options[8];
} helps[] = {
	{"vm-config", {"-c, --connect URI", "-d, --domain NAME", "-h, --help"}},
	{"run",
	 {"-f, --format F", "-c, --connect URI", "-s, --seed N", "-v, --verify", "--progress",
	  "--no-progress", "-h, --help"}},
	{"stats",
	 {"-f, --format F", "-c, --connect URI", "-s, --seed N", "-d, --domain NAME",
	  "-h, --help"}},
	{"demo", {"-s, --seed N", "-f, --format F", "-e, --examples DIR", "-h, --help"}},
	{"regs", {"-f, --format F", "-h, --help"}},
	{"spe-decode", {"--json", "-h, --help"}},
	{"serve",
	 {"-l, --listen ADDR:PORT", "-i, --input SOURCE", "-e, --echo", "-s, --scenario FILE",
	  "-p, --period SECONDS", "-h, --help"}},
};

static void test_help(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), TOOL_BIN " %s --help", helps[i].cmd);
		struct cmd_result own = tt_run(cmd, NULL);
		snprintf(cmd, sizeof(cmd), TOOL_BIN " help %s", helps[i].cmd);
		struct cmd_result via_help = tt_run(cmd, NULL);
		snprintf(cmd, sizeof(cmd), TOOL_BIN " %s -h", helps[i].cmd);
		struct cmd_result short_h = tt_run(cmd, NULL);
		assert_int_equal(own.status, 0);
		assert_int_equal(via_help.status, 0);
		assert_int_equal(short_h.status, 0);
		assert_string_equal(own.err, "");
		char usage[64];
		snprintf(usage, sizeof(usage), "usage: perfvisor %s ", helps[i].cmd);
		assert_true(strncmp(own.out, usage, strlen(usage)) == 0);
		assert_string_equal(own.out, via_help.out);
		assert_string_equal(own.out, short_h.out);
		size_t n = 0;
		while (n < 8 && helps[i].options[n])
			n++;
		assert_int_equal(tt_missing(own.out, helps[i].options, n), 0);
		tt_free(&own);
		tt_free(&via_help);
		tt_free(&short_h);
	}
	unsigned bad = usage_error("help frobnicate", "perfvisor help: unknown command "
						      "'frobnicate'");
	assert_int_equal(bad, 0);
}

/* tool_getopt in this process, with options no command has yet: two that share a prefix. The
 * last option's value (optarg is NULL once getopt_long has returned -1): */
static const char *last_value;

static int getopt_all(int argc, char **argv, char *err, size_t len)
{
	static const struct option opts[] = {{"profile", required_argument, NULL, 'p'},
					     {"progress", no_argument, NULL, OPT_LONG_ONLY},
					     {NULL, 0, NULL, 0}};
	static const char *const hints[] = {"int, mem", NULL, NULL};
	const struct tool_options o = {
		.cmd = "probe", .shortopts = "p:", .longopts = opts, .hints = hints};
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), STDERR_FILENO);
	int c, last = 0;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1 && c != '?') {
		last = c;
		last_value = optarg;
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	size_t n = fread(err, 1, len - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	return c == '?' ? '?' : last;
}

static void test_getopt_in_process(void **state)
{
	(void)state;
	char err[512];
	char *ambiguous[] = {"probe", "--pro", NULL};
	assert_int_equal(getopt_all(2, ambiguous, err, sizeof(err)), '?');
	assert_string_equal(err,
			    "perfvisor probe: option '--pro' is ambiguous (--profile, "
			    "--progress)\nTry 'perfvisor probe --help' for its options.\n");
	char *prefix[] = {"probe", "--prog", NULL};
	assert_int_equal(getopt_all(2, prefix, err, sizeof(err)), OPT_LONG_ONLY);
	assert_string_equal(err, "");
	char *missing[] = {"probe", "--progress", "--profile", NULL};
	assert_int_equal(getopt_all(3, missing, err, sizeof(err)), '?');
	assert_non_null(strstr(err, "option '--profile' needs a value (int, mem)\n"));
	char *value[] = {"probe", "--progress=1", NULL};
	assert_int_equal(getopt_all(2, value, err, sizeof(err)), '?');
	assert_non_null(strstr(err, "option '--progress' takes no value\n"));
	char *given[] = {"probe", "-pmem", NULL};
	assert_int_equal(getopt_all(2, given, err, sizeof(err)), 'p');
	assert_string_equal(last_value, "mem");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_value),     cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_option_after_file), cmocka_unit_test(test_help),
		cmocka_unit_test(test_getopt_in_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
