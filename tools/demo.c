/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor demo`: the bundled example, examples/demo/scenario.xml. Four VMs described in
 * libvirt domain XML, with different workloads, PMU versions, counter counts and event
 * filters, time-sliced on two simulated pCPUs whose top counters the host keeps to account
 * each VM's perf events; two of them have a virtual AMU, one profiles itself with the
 * virtual SPE, and MPAM gives every VM a PARTID, caps db's memory bandwidth and counts bytes
 * per memory node, total and from local pCPUs. It prints the per-VM report, the memory
 * traffic the model saw, then every figure next to the ground truth the machine model kept
 * (exit status 1 on any difference).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tool.h"

#define DEMO_SCENARIO "demo/scenario.xml"

static void usage(FILE *out)
{
	fputs("usage: perfvisor demo [options]\n"
	      "Runs the bundled example (DIR/" DEMO_SCENARIO ", DIR = the examples/ folder of\n"
	      "the source tree, or share/perfvisor/examples of an installation) on the\n"
	      "simulated machine: four VMs from libvirt domain XML, their figures (PMU, AMU,\n"
	      "SPE, memory bandwidth under MPAM), and each figure next to the machine's\n"
	      "ground truth.\n"
	      "Exit status 1 if any figure differs from the truth.\n"
	      "\n"
	      "options:\n"
	      "  -s, --seed N        the scheduler's seed (default: the scenario's)\n"
	      "  -f, --format F      table (default), json, openmetrics, prometheus or "
	      "domstats\n"
	      "  -e, --examples DIR  the examples/ folder (default: found next to the tool)\n"
	      "  -h, --help          this text\n",
	      out);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* examples/ next to the binary's build/ folder, or share/perfvisor/examples beside the bin/
 * folder it was installed in (make install; under DESTDIR too), else where the build put it. */
static bool find_examples(char *scenario, size_t len)
{
	static const char *const beside_exe[] = {"..", "../share/perfvisor"};
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(beside_exe) / sizeof(beside_exe[0]);
			     i++) {
				int w = snprintf(scenario, len, "%s/%s/examples/" DEMO_SCENARIO,
						 exe, beside_exe[i]);
				if (w > 0 && (size_t)w < len && readable(scenario))
					return true;
			}
		}
	}
#ifdef PERFVISOR_EXAMPLES
	snprintf(scenario, len, "%s/" DEMO_SCENARIO, PERFVISOR_EXAMPLES);
	if (readable(scenario))
		return true;
#endif
	return false;
}

int tool_demo(int argc, char **argv)
{
	static const struct option opts[] = {{"seed", required_argument, NULL, 's'},
					     {"format", required_argument, NULL, 'f'},
					     {"examples", required_argument, NULL, 'e'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	static const char *const hints[] = {"a number",
					    "table, json, openmetrics, prometheus, domstats",
					    "a directory", NULL, NULL};
	const struct tool_options o = {
		.cmd = "demo", .shortopts = "s:f:e:h", .longopts = opts, .hints = hints};
	struct run_args a = {.cmd = "demo",
			     .fmt = FMT_TABLE,
			     .progress = -1,
			     .verify = true,
			     .all_checks = true};
	const char *dir = NULL;
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		int fmt;
		switch (c) {
		case 's':
			if (!parse_u64(optarg, true, &a.seed)) {
				fprintf(stderr, "perfvisor demo: bad seed '%s' (a number)\n",
					optarg);
				return 2;
			}
			a.seed_set = true;
			break;
		case 'f':
			fmt = report_format_parse(optarg);
			if (fmt < 0) {
				fprintf(stderr,
					"perfvisor demo: unknown format '%s' (table, json, "
					"openmetrics, prometheus, domstats)\n",
					optarg);
				return 2;
			}
			a.fmt = (enum report_format)fmt;
			break;
		case 'e':
			dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "perfvisor demo: unexpected argument '%s'\n", argv[optind]);
		fputs("Try 'perfvisor demo --help' for its options.\n", stderr);
		return 2;
	}
	char scenario[PATH_MAX + 32];
	if (dir)
		snprintf(scenario, sizeof(scenario), "%s/" DEMO_SCENARIO, dir);
	else if (!find_examples(scenario, sizeof(scenario))) {
		fputs("perfvisor demo: cannot find examples/" DEMO_SCENARIO
		      " (give --examples DIR)\n",
		      stderr);
		return 1;
	}
	/* Shown relative to the current directory when it is below it. */
	char real[PATH_MAX], cwd[PATH_MAX];
	if (realpath(scenario, real) && getcwd(cwd, sizeof(cwd))) {
		size_t n = strlen(cwd);
		if (!strncmp(real, cwd, n) && real[n] == '/')
			memmove(real, real + n + 1, strlen(real + n + 1) + 1);
		snprintf(scenario, sizeof(scenario), "%s", real);
	}
	a.scenario = scenario;
	if (a.fmt == FMT_TABLE)
		a.banner = "perfvisor demo: four VMs defined in libvirt domain XML "
			   "(examples/demo/),\n"
			   "each with its own virtual PMU, time-sliced on a simulated Arm "
			   "machine.\n"
			   "perf.<event> figures are counted by the host's own counters while "
			   "each VM\n"
			   "runs; guest PMU counters are what each vCPU's virtual PMU holds; "
			   "AMU counters\n"
			   "are each vCPU's own activity. MPAM gives every VM a PARTID of its "
			   "own: db and\n"
			   "batch run the same memory-bound workload, db under a 20% bandwidth "
			   "cap, and\n"
			   "the bandwidth monitors count each VM's bytes per memory node, and "
			   "the part\n"
			   "sent from pCPUs local to the node (web's vCPU 1 sends from pCPU 1 "
			   "to node 0).\n"
			   "branchy's guest profiles itself with SPE: its records, decoded "
			   "from its own\n"
			   "buffer, are checked one by one against the samples the machine's "
			   "SPE units\n"
			   "took.\n\n";
	return tool_run_scenario(&a);
}
