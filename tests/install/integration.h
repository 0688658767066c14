/* SPDX-License-Identifier: MIT */
/*
 * An out-of-tree integration of its own, built by tests/tool/test_tool_install.c with the
 * warning flags of the hosts perfvisor targets (tests/install/hostflags.sh): its platform in C
 * (integration_plat.c), its hypervisor in C++ (integration.cpp), against the installed headers
 * and library alone. What the two share is declared here, once, for both languages.
 */
#ifndef PV_TEST_INTEGRATION_H
#define PV_TEST_INTEGRATION_H

#ifdef __cplusplus
extern "C" {
#endif

/* System register reads the platform has served: the probe's, here. */
unsigned integration_sysreg_reads(void);

#ifdef __cplusplus
}
#endif

#endif
