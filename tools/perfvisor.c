/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor`: the operator's command-line tool.
 *
 *   perfvisor <command> [options]
 *
 * Exit status: 0 success, 1 the command failed, 2 bad usage (an unknown command or option, a
 * missing value: tools/options.c words these alike for every command).
 * Each subcommand receives its own name as argv[0] and its options after it.
 */
#include <stdio.h>
#include <string.h>

#include "perfvisor/version.h"
#include "tool.h"

struct tool_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct tool_command commands[] = {
	{"vm-config", tool_vmconfig,
	 "libvirt domain XML (files or --connect URI) -> VM configuration"},
	{"run", tool_run,
	 "run a scenario on the simulated machine; figures checked against truth"},
	{"stats", tool_stats,
	 "per-VM figures of a scenario: --format table|json|openmetrics|prometheus|domstats"},
	{"serve", tool_serve, "serve a hypervisor's live figures records at /metrics (HTTP)"},
	{"demo", tool_demo,
	 "the bundled example: four libvirt VMs, their figures and the truth"},
	{"regs", tool_regs, "print the register coverage table [--format text|markdown]"},
	{"spe-decode", tool_spe_decode,
	 "decode a raw SPE profiling buffer, a line per record [--json]"},
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fputs("usage: perfvisor <command> [options]\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("  help       this text; 'perfvisor help <command>' for a command's options\n"
	      "\n"
	      "options:\n"
	      "  -h, --help     this text\n"
	      "  -V, --version  print the version\n",
	      out);
}

static const struct tool_command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* `perfvisor help [command]`: a command's help is its own --help. */
static int help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "perfvisor help: expected one command, got %d arguments\n",
			argc - 1);
		usage(stderr);
		return 2;
	}
	const struct tool_command *cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "perfvisor help: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	char help_option[] = "--help";
	char *sub_argv[] = {argv[1], help_option, NULL};
	return cmd->run(2, sub_argv);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("perfvisor: no command given\n", stderr);
		usage(stderr);
		return 2;
	}
	const char *first = argv[1];
	if (strcmp(first, "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
		printf("perfvisor %s\n", PV_VERSION_STRING);
		return 0;
	}
	if (first[0] == '-') {
		fprintf(stderr, "perfvisor: unknown option '%s'\n", first);
		usage(stderr);
		return 2;
	}
	const struct tool_command *cmd = find_command(first);
	if (!cmd) {
		fprintf(stderr, "perfvisor: unknown command '%s'\n", first);
		usage(stderr);
		return 2;
	}
	return cmd->run(argc - 1, argv + 1);
}
