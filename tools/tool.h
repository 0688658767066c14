/* SPDX-License-Identifier: MIT */
/* Subcommands of the `perfvisor` tool; each returns the process exit status. */
#ifndef PERFVISOR_TOOL_H
#define PERFVISOR_TOOL_H

int tool_regs(int argc, char **argv);  /* tools/regs.c: register coverage table */
int tool_demo(int argc, char **argv);  /* tools/demo.c: vPMU scenario on the sim */

#endif
