/* SPDX-License-Identifier: MIT */
/* Subcommands of the `perfvisor` tool; each returns the process exit status. */
#ifndef PERFVISOR_TOOL_H
#define PERFVISOR_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "domxml.h"
#include "report.h"
#include "scenario.h"

int tool_regs(int argc, char **argv);       /* tools/regs.c: register coverage table */
int tool_spe_decode(int argc, char **argv); /* tools/cmd_spe_decode.c: SPE buffer -> records */
int tool_demo(int argc, char **argv);       /* tools/demo.c: the bundled example scenario */
int tool_vmconfig(int argc, char **argv);   /* tools/cmd_vmconfig.c: domain XML -> config */
int tool_run(int argc, char **argv);        /* tools/cmd_run.c: run a scenario, check it */
int tool_stats(int argc, char **argv);      /* tools/cmd_run.c: run a scenario, print figures */
int tool_serve(int argc, char **argv);      /* tools/cmd_serve.c: live figures over HTTP */

/* A scenario run as `run`, `stats` and `demo` make it (tools/cmd_run.c). */
struct run_args {
	const char *cmd; /* for messages */
	const char *scenario;
	const char *uri; /* --connect, or NULL */
	enum report_format fmt;
	int progress;    /* -1: when stderr is a terminal */
	bool verify;     /* compare with the ground truth; exit 1 on a mismatch */
	bool all_checks; /* print every comparison, not only mismatches */
	bool seed_set;
	uint64_t seed;
	unsigned ndomains; /* only these domains (stats --domain) */
	const char *domain[SCEN_MAX_VMS];
	const char *banner; /* printed before the report */
};
int tool_run_scenario(struct run_args *a);

/* Prints a domain's warnings on stderr. */
void tool_warnings(const struct domain *d);

#endif
