/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor run SCENARIO` and `perfvisor stats SCENARIO`: run a scenario on the simulated
 * machine and print the per-VM figures. `run` also checks every figure against the machine
 * model's ground truth (exit status 1 on a mismatch) and shows progress on a terminal;
 * `stats` prints the figures only, for the domains asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "run.h"
#include "tool.h"
#include "virt.h"

void tool_warnings(const struct domain *d)
{
	for (unsigned w = 0; w < d->nwarn; w++)
		fprintf(stderr, "perfvisor: warning: %s\n", d->warn[w]);
}

static void usage(const char *cmd, FILE *out)
{
	bool run = strcmp(cmd, "run") == 0;
	fprintf(out,
		"usage: perfvisor %s [options] SCENARIO.xml\n"
		"%s"
		"A SCENARIO.xml of - is standard input; its relative <vm file> and test-node\n"
		"paths are then relative to the current directory.\n"
		"\n"
		"options:\n"
		"  -f, --format F     table (default), json, openmetrics, prometheus or "
		"domstats\n"
		"  -c, --connect URI  libvirt connection for <vm domain=NAME> (default: the\n"
		"                     scenario's <libvirt>, else $LIBVIRT_DEFAULT_URI, else\n"
		"                     " VIRT_DEFAULT_URI ")\n"
		"  -s, --seed N       the scheduler's seed (default: the scenario's)\n"
		"%s"
		"  -h, --help         this text\n",
		cmd,
		run ? "Runs the scenario on the simulated machine, prints the per-VM figures "
		      "and\n"
		      "checks each against the machine's ground truth (exit status 1 on a "
		      "mismatch).\n"
		    : "Runs the scenario on the simulated machine and prints the per-VM "
		      "figures.\n",
		run ? "  -v, --verify       print every figure next to its ground truth\n"
		      "  --progress, --no-progress\n"
		      "                     progress on stderr (default: when stderr is a "
		      "terminal)\n"
		    : "  -d, --domain NAME  only this domain (repeatable)\n");
}

enum { OPT_PROGRESS = OPT_LONG_ONLY, OPT_NO_PROGRESS };

static const char *const run_hints[] = {
	"table, json, openmetrics, prometheus, domstats",
	"a libvirt URI",
	"a number",
	NULL,
	NULL,
	NULL,
	NULL,
};
static const struct option run_opts[] = {{"format", required_argument, NULL, 'f'},
					 {"connect", required_argument, NULL, 'c'},
					 {"seed", required_argument, NULL, 's'},
					 {"verify", no_argument, NULL, 'v'},
					 {"progress", no_argument, NULL, OPT_PROGRESS},
					 {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
					 {"help", no_argument, NULL, 'h'},
					 {NULL, 0, NULL, 0}};
static const char *const stats_hints[] = {
	"table, json, openmetrics, prometheus, domstats",
	"a libvirt URI",
	"a number",
	"a domain name",
	NULL,
};
static const struct option stats_opts[] = {
	{"format", required_argument, NULL, 'f'}, {"connect", required_argument, NULL, 'c'},
	{"seed", required_argument, NULL, 's'},   {"domain", required_argument, NULL, 'd'},
	{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};

static int parse(int argc, char **argv, struct run_args *a)
{
	bool run = strcmp(a->cmd, "run") == 0;
	const struct tool_options o = {
		.cmd = a->cmd,
		.shortopts = run ? "f:c:s:vh" : "f:c:s:d:h",
		.longopts = run ? run_opts : stats_opts,
		.hints = run ? run_hints : stats_hints,
	};
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		int fmt;
		switch (c) {
		case 'f':
			fmt = report_format_parse(optarg);
			if (fmt < 0) {
				fprintf(stderr,
					"perfvisor %s: unknown format '%s' (table, json, "
					"openmetrics, prometheus, domstats)\n",
					a->cmd, optarg);
				return 2;
			}
			a->fmt = (enum report_format)fmt;
			break;
		case 'c':
			a->uri = optarg;
			break;
		case 's':
			if (!parse_u64(optarg, true, &a->seed)) {
				fprintf(stderr, "perfvisor %s: bad seed '%s' (a number)\n",
					a->cmd, optarg);
				return 2;
			}
			a->seed_set = true;
			break;
		case 'd':
			if (a->ndomains == SCEN_MAX_VMS) {
				fprintf(stderr, "perfvisor %s: more than %d --domain\n", a->cmd,
					SCEN_MAX_VMS);
				return 2;
			}
			a->domain[a->ndomains++] = optarg;
			break;
		case 'v':
			a->all_checks = true;
			break;
		case OPT_PROGRESS:
		case OPT_NO_PROGRESS:
			a->progress = c == OPT_PROGRESS;
			break;
		case 'h':
			usage(a->cmd, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		if (optind == argc)
			fprintf(stderr, "perfvisor %s: no scenario file given\n", a->cmd);
		else
			fprintf(stderr,
				"perfvisor %s: one scenario file only ('%s' and '%s')\n",
				a->cmd, argv[optind], argv[optind + 1]);
		fprintf(stderr, "Try 'perfvisor %s --help' for its options.\n", a->cmd);
		return 2;
	}
	a->scenario = argv[optind];
	return -1;
}

/* Keeps the domains asked for, in the order asked; 0 or -1 (a name the scenario lacks). */
static int select_domains(struct report *rep, const struct run_args *a)
{
	if (!a->ndomains)
		return 0;
	struct rep_domain *keep = calloc(a->ndomains, sizeof(*keep));
	if (!keep)
		return -1;
	for (unsigned k = 0; k < a->ndomains; k++) {
		bool found = false;
		for (unsigned i = 0; i < rep->ndomains && !found; i++)
			if (!strcmp(rep->domain[i].name, a->domain[k])) {
				keep[k] = rep->domain[i];
				found = true;
			}
		if (!found) {
			fprintf(stderr, "perfvisor %s: %s: no domain '%s' in the scenario\n",
				a->cmd, a->scenario, a->domain[k]);
			free(keep);
			return -1;
		}
	}
	free(rep->domain);
	rep->domain = keep;
	rep->ndomains = a->ndomains;
	return 0;
}

int tool_run_scenario(struct run_args *a)
{
	struct scenario *sc = calloc(1, sizeof(*sc));
	struct run *r = calloc(1, sizeof(*r));
	struct report rep = {0};
	struct diag d;
	int status = 1;
	if (!sc || !r) {
		fprintf(stderr, "perfvisor %s: out of memory\n", a->cmd);
		goto out;
	}
	if (scenario_load(a->scenario, a->uri, sc, &d)) {
		fprintf(stderr, "perfvisor %s: %s\n", a->cmd, d.msg);
		goto out;
	}
	if (a->seed_set)
		sc->seed = a->seed;
	if (run_prepare(r, sc, &d)) {
		fprintf(stderr, "perfvisor %s: %s\n", a->cmd, d.msg);
		goto out;
	}
	for (unsigned i = 0; i < sc->nvms; i++)
		tool_warnings(&sc->vm[i].dom);
	bool tty = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	run_execute(r, tty ? stderr : NULL);
	if (run_report(r, &rep)) {
		fprintf(stderr, "perfvisor %s: out of memory\n", a->cmd);
		goto out_run;
	}
	if (select_domains(&rep, a))
		goto out_run;
	if (a->banner)
		fputs(a->banner, stdout);
	report_print(&rep, a->fmt, stdout);
	status = 0;
	if (a->verify && a->fmt == FMT_TABLE) {
		struct rep_traffic traffic[SCEN_MAX_VMS * SCEN_MAX_NODES];
		report_traffic(traffic, run_traffic(r, traffic, SCEN_MAX_VMS * SCEN_MAX_NODES),
			       stdout);
	}
	if (a->verify) {
		struct rep_check *checks = NULL;
		unsigned n = 0;
		run_verify(r, &checks, &n);
		/* In a machine-readable format the verdict goes to stderr. */
		FILE *out = a->fmt == FMT_TABLE ? stdout : stderr;
		if (report_checks(checks, n, a->all_checks, out))
			status = 1;
		free(checks);
	}
out_run:
	report_free(&rep);
	run_free(r);
out:
	free(r);
	free(sc);
	return status;
}

static int command(const char *cmd, int argc, char **argv)
{
	struct run_args a = {.cmd = cmd, .fmt = FMT_TABLE, .progress = -1};
	a.verify = strcmp(cmd, "run") == 0;
	int rc = parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	return tool_run_scenario(&a);
}

int tool_run(int argc, char **argv)
{
	return command("run", argc, argv);
}

int tool_stats(int argc, char **argv)
{
	return command("stats", argc, argv);
}
