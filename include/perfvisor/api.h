/* SPDX-License-Identifier: MIT */
/*
 * How the public headers mark what they declare. PV_API marks a function of the library's
 * ABI: the shared library exports those and nothing else (its version script is made from
 * the marks, and the install test holds its dynamic symbols to them), whatever the comments
 * mention. PV_PLATFORM marks a function the host provides (platform.h): it keeps default
 * visibility, so that a host built with -fvisibility=hidden still gives the shared library
 * its platform functions. PV_BEGIN_DECLS/PV_END_DECLS give the declarations C linkage in C++.
 */
#ifndef PERFVISOR_API_H
#define PERFVISOR_API_H

#if defined(__GNUC__) || defined(__clang__)
#define PV_API __attribute__((visibility("default")))
#define PV_PLATFORM __attribute__((visibility("default")))
#else
#define PV_API
#define PV_PLATFORM
#endif

#ifdef __cplusplus
#define PV_BEGIN_DECLS extern "C" {
#define PV_END_DECLS }
#else
#define PV_BEGIN_DECLS
#define PV_END_DECLS
#endif

#endif
