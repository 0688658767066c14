/* SPDX-License-Identifier: MIT */
/*
 * The version of perfvisor, the one place it is written. The Makefile reads the three numbers
 * from the lines below (the shared library's file name and SONAME, libperfvisor.pc), and the
 * tool prints PV_VERSION_STRING for `perfvisor --version`: keep each a plain
 * `#define PV_VERSION_<PART> <digits>`.
 *
 * PV_VERSION_MAJOR is the ABI, and the shared library's SONAME is libperfvisor.so.<major>:
 * the major goes up with any release after which a program built against the previous one
 * could no longer run with it, 0.x included. Callers allocate every structure (struct pv_vm,
 * struct pv_vcpu, ...), so a change of their size or layout is such a break, as is a function
 * removed or changed in meaning. MINOR goes up for additions, PATCH for fixes.
 */
#ifndef PERFVISOR_VERSION_H
#define PERFVISOR_VERSION_H

#define PV_VERSION_MAJOR 0
#define PV_VERSION_MINOR 1
#define PV_VERSION_PATCH 0

#define PV_VERSION_STR_(x) #x
#define PV_VERSION_STR(x) PV_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", made from the numbers above. */
#define PV_VERSION_STRING                                                                      \
	PV_VERSION_STR(PV_VERSION_MAJOR)                                                       \
	"." PV_VERSION_STR(PV_VERSION_MINOR) "." PV_VERSION_STR(PV_VERSION_PATCH)

#endif
