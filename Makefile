# SPDX-License-Identifier: MIT
# perfvisor — top-level build.
#
#   make            library, tool and tests (host)
#   make check      every test this machine can run; ends with "N passed, M failed"
#   make demo       a vPMU scenario on the simulated machine
#   make bench      benchmark figures, one "bench: <name>: <value> <unit>" per line
#   make bench-check  those figures against bench/baseline/ (the gate); make bench-baseline
#                   writes the last make bench's figures there
#   make aarch64    the core, freestanding, for aarch64
#   make docs       regenerate docs/registers.md from the register database
#   make xen-check  perfvisor as the vPMU of Xen on Arm, booted dom0less under QEMU (docs/xen.md)
#   make hw-qemu    the QEMU of our own, with perfvisor's hardware models (docs/qemu.md);
#                   make hw-qemu-diff: what it changes in QEMU, as a diff
#   make docs-check fail if docs/registers.md is not what the database generates, or if
#                   an Arm ARM citation is not in the pinned revision's table (docs/README.md)
#   make deps       install the Debian packages of every goal (as root)
#   make fresh-check  make demo and make check on a new minimal Debian 12 root file system
#   make check-sanitize  the host tests again, built with AddressSanitizer + UBSan
#   make memcheck   the host tests under valgrind memcheck
#   make lint       cppcheck, clang-tidy, clang-format (.clang-tidy, .cppcheck-suppressions,
#                   .clang-format) and docs-check
#   make format     rewrite the C sources as .clang-format says (format-check: only check)
#   make fuzz       every libFuzzer target of tests/fuzz/ for FUZZ_SECONDS (60) each
#   make install    the tool, its man page, the static and shared library, the headers and
#                   libperfvisor.pc under DESTDIR + PREFIX (/usr/local); make uninstall
#                   (docs/integration.md: the layout, the version, CFLAGS and WERROR)

# Every goal first has the Debian packages it needs installed (scripts/deps.sh: as root or
# through sudo -n, or it stops with the exact apt-get line). This runs before any variable
# below asks pkg-config or looks for QEMU, so those see what was just installed. Sub-makes
# (PV_DEPS_CHECKED is exported), dry runs (-n), questions (-q) and touches (-t) leave it out.
PV_FLAGS := $(firstword -$(MAKEFLAGS))
ifeq ($(PV_DEPS_CHECKED)$(findstring n,$(PV_FLAGS))$(findstring q,$(PV_FLAGS))$(findstring t,$(PV_FLAGS)),)
PV_DEPS_STATUS := $(shell sh scripts/deps.sh ensure $(or $(MAKECMDGOALS),all) >&2; echo $$?)
ifneq ($(PV_DEPS_STATUS),0)
$(error the packages above are needed first)
endif
export PV_DEPS_CHECKED := 1
endif

CC      ?= cc
BUILD   := build
AWK     ?= awk

# The version is written once, in include/perfvisor/version.h; everything here reads it there.
pv_version_part = $(shell sed -n 's/^\#define PV_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' include/perfvisor/version.h)
VERSION_MAJOR := $(call pv_version_part,MAJOR)
VERSION_MINOR := $(call pv_version_part,MINOR)
VERSION_PATCH := $(call pv_version_part,PATCH)
VERSION       := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
ifeq ($(words $(VERSION_MAJOR) $(VERSION_MINOR) $(VERSION_PATCH)),3)
else
$(error include/perfvisor/version.h: no "#define PV_VERSION_MAJOR|MINOR|PATCH <digits>" line each)
endif

# The register database (arch/sysregs.txt) and what is generated from it: the register keys
# (a public header) and the tables the core and the hypervisor expand (docs/registers.md).
GEN      := $(BUILD)/gen
GEN_REG_HDRS := $(GEN)/perfvisor/sysreg_defs.h $(GEN)/regdb.h $(GEN)/regdb_el2.h
# The event database (arch/events.txt): the event constants (a public header), the name
# table, the machine model's events and libvirt's mapping.
GEN_EVT_HDRS := $(GEN)/perfvisor/event_defs.h $(GEN)/eventdb.h
GEN_HDRS := $(GEN_REG_HDRS) $(GEN_EVT_HDRS)
PV_HDRS  := $(wildcard include/perfvisor/*.h) $(GEN_HDRS)
# Flags. The user's CFLAGS, CPPFLAGS and LDFLAGS (a packager's `dpkg-buildflags`, say) reach
# every host compile and link; CFLAGS is the optimisation and debug part, and comes after the
# project's own flags, which it cannot drop. WERROR is for CI and developers: a packager sets
# it empty, so that a newer compiler's new warning does not break a release build. The cross
# builds (make aarch64, the hypervisor, the guests, Xen) take none of the user's flags: they
# are host flags (-fstack-protector-strong, say, needs a __stack_chk_guard and
# -D_FORTIFY_SOURCE a libc, neither of which a freestanding EL2 build has).
OPT     ?= -O2
CFLAGS  ?= -g $(OPT)
WERROR  ?= -Werror
CFLAGS_BASE := -std=c11 -Wall -Wextra $(WERROR) -Iinclude -I$(GEN) -MMD -MP
SANITIZE ?=
CFLAGS_HOST := $(CFLAGS_BASE) $(SANITIZE) -D_DEFAULT_SOURCE $(CPPFLAGS) $(CFLAGS)
# The warnings of the hosts that build the core inside their own trees (Linux, Xen) beyond
# -Wall -Wextra, so that a file that would break their build breaks this one; the whole sets,
# with where they come from, are tests/install/hostflags.sh's (test_tool_install).
CORE_HOST_WARN := -Wdeclaration-after-statement -Wmissing-prototypes -Wmissing-declarations \
	-Wstrict-prototypes -Wold-style-definition -Wundef -Wvla -Wredundant-decls -Wnested-externs
# The core, hosted builds too: -ffreestanding, so that it cannot come to depend on libc.
CFLAGS_CORE := $(CFLAGS_BASE) $(CORE_HOST_WARN) $(SANITIZE) -ffreestanding $(CPPFLAGS) $(CFLAGS)
LDFLAGS_HOST := $(SANITIZE) $(LDFLAGS)

# The freestanding core: only <stdint.h>, <stddef.h>, <stdbool.h>.
CORE_DIRS := core trap vpmu vspe vamu vmpam
CORE_SRCS := $(sort $(wildcard $(addsuffix /*.c,$(CORE_DIRS))))
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
LIB       := $(BUILD)/libperfvisor.a

SIM_SRCS  := $(sort $(wildcard sim/*.c))
SIM_OBJS  := $(SIM_SRCS:%.c=$(BUILD)/%.o)
SIMLIB    := $(BUILD)/libpvsim.a

# Plain-memory platform shared by the unit tests and the benchmarks.
MEMPLAT_OBJ := $(BUILD)/tests/support/memplat.o

TOOL_SRCS := $(sort $(wildcard tools/*.c))
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILD)/%.o)
TOOL      := $(BUILD)/perfvisor
# The tool reads libvirt domain XML with libxml2 and libvirt (scripts/deps.sh installs both).
TOOL_PKGS    := libxml-2.0 libvirt libmicrohttpd
TOOL_CFLAGS  := $(shell pkg-config --cflags $(TOOL_PKGS) 2>/dev/null)
TOOL_LIBS    := $(shell pkg-config --libs $(TOOL_PKGS) 2>/dev/null)
TOOL_LIB_OBJS := $(filter-out $(BUILD)/tools/perfvisor.o,$(TOOL_OBJS))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
SCEN_SUPPORT_SRCS := $(filter-out tests/scenario/test_%,$(sort $(wildcard tests/scenario/*.c)))
SCEN_SUPPORT_OBJS := $(SCEN_SUPPORT_SRCS:%.c=$(BUILD)/%.o)
SCEN_SRCS := $(sort $(wildcard tests/scenario/test_*.c))
SCEN_BINS := $(SCEN_SRCS:%.c=$(BUILD)/%)
TOOLTEST_SRCS := $(sort $(wildcard tests/tool/test_*.c))
TOOLTEST_BINS := $(TOOLTEST_SRCS:%.c=$(BUILD)/%)
TOOLTEST_SUPPORT := $(BUILD)/tests/tool/tooltest.o
TEST_BINS := $(UNIT_BINS) $(SCEN_BINS) $(TOOLTEST_BINS)

BENCH_SRCS := $(sort $(wildcard bench/bench_*.c))
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)

CMOCKA_LIBS := -lcmocka

AARCH64_CC     ?= aarch64-linux-gnu-gcc
AARCH64_AR     ?= aarch64-linux-gnu-ar
AARCH64_LD     ?= aarch64-linux-gnu-ld
AARCH64_NM     ?= aarch64-linux-gnu-nm
AARCH64_CFLAGS := -std=c11 -Wall -Wextra $(CORE_HOST_WARN) -Wframe-larger-than=2048 $(WERROR) \
                  -O2 -ffreestanding -fno-builtin -mgeneral-regs-only -Iinclude -I$(GEN) -MMD -MP
AARCH64_OBJS   := $(CORE_SRCS:%.c=$(BUILD)/aarch64/%.o)

.PHONY: all check demo bench aarch64 aarch64-cc docs docs-check format format-check clean deps tests check-host \
	install uninstall shlib \
	check-sanitize memcheck lint fuzz fuzz-build fresh-check bench-check bench-baseline mutants
# Objects that only pattern rules build are intermediate to make; kept, not deleted. (Not a
# bare .SECONDARY: that makes every target intermediate, and an object of a new source file
# is then never built into an archive that already exists.)
.SECONDARY: $(SCEN_SUPPORT_OBJS) $(TOOLTEST_SUPPORT)
all: $(LIB) $(SHLIB) $(SIMLIB) $(TOOL) tests

tests: $(TEST_BINS)

# Written to temporary files and moved, so an interrupted run leaves no half table.
$(GEN_REG_HDRS) &: arch/sysregs.txt arch/gen-sysregs.awk
	@mkdir -p $(GEN)/perfvisor
	$(AWK) -v keys=$(GEN)/perfvisor/sysreg_defs.h.tmp -v db=$(GEN)/regdb.h.tmp \
		-v el2h=$(GEN)/regdb_el2.h.tmp -f arch/gen-sysregs.awk arch/sysregs.txt
	@for f in $(GEN_REG_HDRS); do mv $$f.tmp $$f; done

$(GEN_EVT_HDRS) &: arch/events.txt arch/gen-events.awk
	@mkdir -p $(GEN)/perfvisor
	$(AWK) -v defs=$(GEN)/perfvisor/event_defs.h.tmp -v db=$(GEN)/eventdb.h.tmp \
		-f arch/gen-events.awk arch/events.txt
	@for f in $(GEN_EVT_HDRS); do mv $$f.tmp $$f; done

$(BUILD)/%.o: %.c $(PV_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@

$(MEMPLAT_OBJ): $(wildcard tests/support/*.h)

# The core must not depend on anything hosted: build it with -ffreestanding on the host too.
$(CORE_OBJS): $(BUILD)/%.o: %.c $(PV_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -c $< -o $@

# Every archive and program checks its objects' dependency graph for cycles (nm): the core by
# module (star-shaped: core/ and trap/ over the feature modules) and by file, the rest by file.
NM ?= nm
OBJCYCLES = sh tests/objcycles.sh

$(LIB): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	@$(OBJCYCLES) $(NM) core --by-dir $^
	@$(OBJCYCLES) $(NM) core-files $^
	rm -f $@ && ar rcs $@ $^

$(SIMLIB): $(SIM_OBJS)
	@mkdir -p $(dir $@)
	@$(OBJCYCLES) $(NM) sim $^
	rm -f $@ && ar rcs $@ $^

# The sim provides the platform functions the core calls, and calls the core: one link group.
$(TOOL_OBJS): CFLAGS_HOST += $(TOOL_CFLAGS)
$(BUILD)/tools/demo.o: CFLAGS_HOST += -DPERFVISOR_EXAMPLES='"$(CURDIR)/examples"'
$(TOOL): $(TOOL_OBJS) $(SIMLIB) $(LIB)
	@$(OBJCYCLES) $(NM) tools $(TOOL_OBJS)
	$(CC) $(LDFLAGS_HOST) -o $@ $(TOOL_OBJS) -Wl,--start-group $(SIMLIB) $(LIB) -Wl,--end-group $(TOOL_LIBS) -lm

# The EL1 exception entry of the EL2 hosts (el2/el1_entry.c) is pure C: its test builds it.
$(BUILD)/tests/unit/test_el2_el1_entry: UNIT_EXTRA := el2/el1_entry.c -Iel2
$(BUILD)/tests/unit/test_el2_el1_entry: el2/el1_entry.c el2/el1_entry.h
# ---- Installation: make install, make uninstall (PREFIX, DESTDIR, the directories below) ----

PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
DATADIR      ?= $(PREFIX)/share
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL      ?= install

# The public headers: include/perfvisor/ and the register keys generated beside them, which
# sysreg.h includes. Not spe_packet.h: the record codec it declares is host code of sim/, not
# in the library.
INSTALL_HDRS := $(filter-out include/perfvisor/spe_packet.h,$(wildcard include/perfvisor/*.h)) \
	$(GEN)/perfvisor/sysreg_defs.h $(GEN)/perfvisor/event_defs.h

# The shared library: the core again, position-independent, in a directory of its own (the
# static archive and the freestanding builds keep their objects as they are). Its SONAME
# carries the major alone, as the major is the ABI (include/perfvisor/version.h). The
# platform functions stay undefined, for the program that loads it to provide.
PIC_OBJS   := $(CORE_SRCS:%.c=$(BUILD)/pic/%.o)
SO_NAME    := libperfvisor.so.$(VERSION_MAJOR)
SO_FILE    := libperfvisor.so.$(VERSION)
SHLIB      := $(BUILD)/$(SO_FILE)
SHLIB_MAP  := $(BUILD)/pic/libperfvisor.map

$(PIC_OBJS): $(BUILD)/pic/%.o: %.c $(PV_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_CORE) -fPIC -c $< -o $@

# It exports the API alone: each function an installed header declares with PV_API (api.h),
# never a name a comment mentions. The rest (the register handlers, pv_<module>__ functions
# between modules) are pv_ as well, but internal, and hidden.
$(SHLIB_MAP): $(PIC_OBJS) $(INSTALL_HDRS)
	@sed -n 's/^PV_API [^(]*[^a-z0-9_]\(pv_[a-z0-9_]*\)(.*/\1/p' $(INSTALL_HDRS) | sort -u >$@.names
	@{ printf '{\n\tglobal:\n'; \
	   $(NM) -g --defined-only $(PIC_OBJS) | awk 'NF == 3 { print $$3 }' | sort -u | \
		grep -Fx -f $@.names | sed 's/.*/\t\t&;/'; \
	   printf '\tlocal:\n\t\t*;\n};\n'; } >$@.tmp
	@rm -f $@.names && mv $@.tmp $@

$(SHLIB): $(PIC_OBJS) $(SHLIB_MAP)
	$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=$(SHLIB_MAP) $(LDFLAGS_HOST) \
		-o $@ $(PIC_OBJS)

MAN_PAGE     := man/perfvisor.1
# The examples `perfvisor demo` runs: it finds them in ../share/perfvisor/examples from its own
# directory (so with BINDIR and DATADIR as their defaults put them, DESTDIR or not).
EXAMPLES      := examples/README.md $(wildcard examples/*.xml)
EXAMPLES_DEMO := $(wildcard examples/demo/*.xml)
EXAMPLES_DIR   = $(DESTDIR)$(DATADIR)/perfvisor/examples
# libperfvisor.pc names its directories from ${prefix} where they are under it.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

shlib: $(SHLIB)

# Writes only under $(DESTDIR); the .pc is made there from its template, with this run's
# directories, rather than kept in build/ where an earlier PREFIX could linger.
install: $(LIB) $(SHLIB) $(TOOL) $(INSTALL_HDRS) $(MAN_PAGE) lib/libperfvisor.pc.in \
		$(EXAMPLES) $(EXAMPLES_DEMO)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/perfvisor \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PKGCONFIGDIR) $(EXAMPLES_DIR)/demo
	$(INSTALL) -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/perfvisor
	$(INSTALL) -m 0644 $(LIB) $(DESTDIR)$(LIBDIR)/libperfvisor.a
	$(INSTALL) -m 0755 $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/libperfvisor.so
	$(INSTALL) -m 0644 $(INSTALL_HDRS) $(DESTDIR)$(INCLUDEDIR)/perfvisor/
	$(INSTALL) -m 0644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/man1/perfvisor.1
	$(INSTALL) -m 0644 $(EXAMPLES) $(EXAMPLES_DIR)/
	$(INSTALL) -m 0644 $(EXAMPLES_DEMO) $(EXAMPLES_DIR)/demo/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|' \
		lib/libperfvisor.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libperfvisor.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/libperfvisor.pc

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfvisor $(DESTDIR)$(LIBDIR)/libperfvisor.a \
		$(DESTDIR)$(LIBDIR)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME) \
		$(DESTDIR)$(LIBDIR)/libperfvisor.so \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/perfvisor/,$(notdir $(INSTALL_HDRS))) \
		$(DESTDIR)$(MANDIR)/man1/perfvisor.1 $(DESTDIR)$(PKGCONFIGDIR)/libperfvisor.pc \
		$(addprefix $(EXAMPLES_DIR)/,$(notdir $(EXAMPLES))) \
		$(addprefix $(EXAMPLES_DIR)/demo/,$(notdir $(EXAMPLES_DEMO)))
	@# Only the directories that are perfvisor's own, and only when empty.
	rmdir $(DESTDIR)$(INCLUDEDIR)/perfvisor $(EXAMPLES_DIR)/demo $(EXAMPLES_DIR) \
		$(DESTDIR)$(DATADIR)/perfvisor 2>/dev/null || true

# The install test (tests/tool/test_tool_install.c) runs make install into a directory of its
# own and builds tests/install/consumer.c against what it installed: everything installed is
# built first, so that its make only copies; it makes the same build, with the same WERROR
# and sanitizers.
$(BUILD)/tests/tool/test_tool_install: $(LIB) $(SHLIB) $(INSTALL_HDRS) $(MAN_PAGE) \
	lib/libperfvisor.pc.in $(EXAMPLES) $(EXAMPLES_DEMO) \
	$(wildcard tests/install/*.c tests/install/*.cpp tests/install/*.h tests/install/*.sh)
$(BUILD)/tests/tool/test_tool_install: CFLAGS_HOST += -DPV_BUILD_DIR='"$(BUILD)"' \
	-DPV_SANITIZE='"$(SANITIZE)"' -DPV_WERROR='"$(WERROR)"' -DPV_MAKE='"$(MAKE)"' -DPV_CC='"$(CC)"' \
	-DPV_AARCH64_CC='"$(AARCH64_CC)"'

# The record codec's unit test links the codec (host code, in sim/).
$(BUILD)/tests/unit/test_vspe_packet: UNIT_EXTRA := $(BUILD)/sim/spe_packet.o
$(BUILD)/tests/unit/test_vspe_packet: $(BUILD)/sim/spe_packet.o
$(BUILD)/tests/unit/%: tests/unit/%.c $(MEMPLAT_OBJ) $(LIB) $(PV_HDRS) $(wildcard tests/support/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Itests/support -o $@ $< $(UNIT_EXTRA) $(MEMPLAT_OBJ) $(LIB) $(LDFLAGS_HOST) $(CMOCKA_LIBS)

$(BUILD)/tests/scenario/%: tests/scenario/%.c $(SCEN_SUPPORT_OBJS) $(SIMLIB) $(LIB) $(PV_HDRS) $(wildcard sim/*.h tests/scenario/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -I. -o $@ $< $(SCEN_SUPPORT_OBJS) $(SIMLIB) $(LIB) $(LDFLAGS_HOST) $(CMOCKA_LIBS) -lm

# Tool tests run the tool of their own build ($(TOOL)) and parse its output with real
# parsers; they link the tool's modules to compute the ground truth themselves.
$(BUILD)/tests/tool/%: CFLAGS_HOST += -DTOOL_BIN='"$(TOOL)"'
$(BUILD)/tests/tool/%: tests/tool/%.c $(TOOL) $(TOOL_LIB_OBJS) $(TOOLTEST_SUPPORT) $(SIMLIB) $(LIB) $(wildcard tests/tool/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) $(TOOL_CFLAGS) -I. -Itools -o $@ $< $(TOOL_LIB_OBJS) $(TOOLTEST_SUPPORT) -Wl,--start-group $(SIMLIB) $(LIB) -Wl,--end-group $(LDFLAGS_HOST) $(TOOL_LIBS) $(CMOCKA_LIBS) -lm

$(BUILD)/bench/%: bench/%.c $(MEMPLAT_OBJ) $(LIB) $(PV_HDRS) $(wildcard tests/support/*.h bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Itests/support -I. -o $@ $< $(MEMPLAT_OBJ) $(LIB) $(LDFLAGS_HOST)

# The simulator's pure hardware models: they call no platform function and nothing of the
# simulated machine (the benchmarks linking them without it prove it), so a benchmark can
# link them beside the plain-memory platform. bench_vmpam measures its accuracy figures against the MSC model,
# bench_vspe drives the SPE unit model, bench_vpmu asks the PMU model which accesses trap.
BENCH_VMPAM_SIM := $(BUILD)/sim/msc.o $(BUILD)/sim/traffic.o
BENCH_VSPE_SIM := $(BUILD)/sim/events.o $(BUILD)/sim/mem.o $(BUILD)/sim/spe.o $(BUILD)/sim/spe_packet.o
BENCH_VPMU_SIM := $(BUILD)/sim/pmu.o $(BUILD)/sim/events.o
$(BUILD)/bench/bench_vmpam: BENCH_SIM := $(BENCH_VMPAM_SIM)
$(BUILD)/bench/bench_vspe: BENCH_SIM := $(BENCH_VSPE_SIM)
$(BUILD)/bench/bench_vpmu: BENCH_SIM := $(BENCH_VPMU_SIM)
$(BUILD)/bench/bench_vmpam $(BUILD)/bench/bench_vspe $(BUILD)/bench/bench_vpmu: $(BUILD)/bench/%: bench/%.c $(MEMPLAT_OBJ) $(BENCH_VMPAM_SIM) $(BENCH_VSPE_SIM) $(BENCH_VPMU_SIM) $(LIB) $(PV_HDRS) $(wildcard tests/support/*.h sim/*.h bench/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Itests/support -I. -o $@ $< $(MEMPLAT_OBJ) $(BENCH_SIM) $(LIB) $(LDFLAGS_HOST) -lm

# bench_serve runs the tool of its own build (perfvisor serve) and feeds it the library's records.
$(BUILD)/bench/bench_serve: CFLAGS_HOST += -DTOOL_BIN='"$(TOOL)"'
$(BUILD)/bench/bench_serve: $(TOOL)

# The reference EL2 hypervisor on QEMU `virt` and its guest test suite (make qemu-check, run).
include hyp/hyp.mk
include integrations/xen/xen.mk
include integrations/qemu/qemu.mk

# The guest suite under QEMU (twice: the reference hypervisor's fast trap path on, then off),
# a guest's live figures in a real Prometheus, and perfvisor in Xen (make xen-check: skipped,
# with the reason, when Xen's source cannot be fetched), and the QEMU of our own with its model
# tests (make hw-check: skipped, with the reason, when QEMU's source cannot be fetched) join
# `make check` when QEMU and the cross compiler are here; each fuzz target run once over its
# seeds, when libFuzzer is.
check: tests $(TOOL) $(if $(QEMU_CHECK_AVAILABLE),hyp $(XEN_LIB) hw-tests)
	@QEMU_SUITE="$(if $(QEMU_CHECK_AVAILABLE),sh tests/guest/run.sh check $(HYP_ELF) $(GUEST_BUILD))" \
	 QEMU_SUITE_NOFAST="$(if $(QEMU_CHECK_AVAILABLE),env HYP_ARGS=fasttrap=off GUEST_LOGDIR=$(BUILD)/guest-logs-nofast sh tests/guest/run.sh check $(HYP_ELF) $(GUEST_BUILD))" \
	 PROM_SUITE="$(if $(QEMU_CHECK_AVAILABLE),sh tests/guest/prometheus.sh $(HYP_ELF) $(GUEST_BUILD) $(TOOL))" \
	 XEN_SUITE="$(if $(QEMU_CHECK_AVAILABLE),env HYP_CROSS=$(HYP_CROSS) sh integrations/xen/check.sh check $(XEN_LIB) $(GUEST_BUILD))" \
	 HW_SUITE="$(if $(QEMU_CHECK_AVAILABLE),sh tests/hw/check.sh $(HW_QEMU_BUILD) $(HW_TESTS_BUILD))" \
	 FUZZ_SUITE="$(if $(FUZZ_AVAILABLE),sh tests/fuzz/run.sh corpus $(FUZZ_BUILD) $(FUZZ_TARGETS))" \
	 SKIP_REASONS="$$(printf '%s\n' $(if $(QEMU_CHECK_AVAILABLE),,'guest suite under QEMU: needs qemu-system-aarch64 and aarch64-linux-gnu-gcc (apt-get install qemu-system-arm gcc-aarch64-linux-gnu)') \
		$(if $(FUZZ_AVAILABLE),,'fuzz targets over their seeds: need clang and libFuzzer (apt-get install clang libclang-rt-dev)'))" \
	 sh tests/run.sh $(TEST_BINS)

demo: $(TOOL)
	@$(TOOL) demo

# ---- Hardening (docs/security.md): sanitizers, valgrind, analysers, fuzzing ------------------

# The host tests alone (unit, scenario, tool), logs in $(BUILD)/test-logs.
check-host: tests
	@TEST_LOGDIR=$(BUILD)/test-logs sh tests/run.sh $(TEST_BINS)

# The host tests built with ASan + UBSan in a directory of their own; any report fails its test.
SAN_FLAGS ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-sanitize:
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 $(MAKE) --no-print-directory BUILD=build/sanitize SANITIZE="$(SAN_FLAGS)" check-host

# The host tests under valgrind memcheck (the tool's runs by the tool tests included): any
# error or definite leak fails the binary's tests. Not traced: the parsers, sed, awk (the
# register database's generator, test_tool_regdb), the shell script scripts/deps.sh with
# its stand-ins (test_tool_deps), and what the install test runs in its directory under
# tests/install/ (make, the compiler, binutils, groff: test_tool_install), and the shell
# scripts the fetch and benchmark-gate tests run with their stand-ins (scripts/fetch-source.sh,
# bench/gate.sh: sort, cmp, dpkg), which hold no C of ours.
VALGRIND ?= valgrind
# Test binaries run at once under valgrind: one per CPU (each is single-threaded).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MEMCHECK := $(VALGRIND) -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--trace-children=yes --trace-children-skip=*python3*,*/jq,*/sed,*awk \
	--trace-children-skip-by-arg=*scripts/deps.sh*,*scripts/fetch-source.sh*,*bench/gate.sh*,*tests/install/*
memcheck: tests $(TOOL)
	@TEST_LOGDIR=$(BUILD)/memcheck-logs TEST_WRAPPER="$(MEMCHECK)" TEST_JOBS=$(TEST_JOBS) \
		sh tests/run.sh $(TEST_BINS)

# Every C source and header as .clang-format says (make format rewrites them in place).
FORMAT_DIRS := core trap vpmu vspe vamu vmpam include/perfvisor hyp el2 sim tools bench \
	tests/fuzz tests/guest tests/guest/lib tests/guest/linux tests/scenario tests/support \
	tests/tool tests/unit tests/install tests/hw tests/hw/lib
FORMAT_SRCS := $(sort $(wildcard $(addsuffix /*.c,$(FORMAT_DIRS)) $(addsuffix /*.h,$(FORMAT_DIRS))))
CLANG_FORMAT ?= clang-format
format:
	@$(CLANG_FORMAT) --style=file -i $(FORMAT_SRCS)
	@echo "format: $(words $(FORMAT_SRCS)) files as .clang-format says"

# cppcheck and clang-tidy on the core, the fuzz targets, the host code and the hypervisor; the
# configurations are checked in (.cppcheck-suppressions, .clang-tidy and hyp/, tools/ ones).
LINT_DIRS  := core trap vpmu vamu vmpam vspe
LINT_SRCS  := $(sort $(wildcard $(addsuffix /*.c,$(LINT_DIRS))))
LINT_FUZZ  := $(sort $(wildcard tests/fuzz/*.c))
CPPCHECK   ?= cppcheck
CLANG_TIDY ?= clang-tidy
# The host code (the machine model, the tool) and the hypervisor are analysed too.
LINT_HOST  := $(sort $(wildcard sim/*.c tools/*.c))
LINT_HYP   := $(sort $(wildcard hyp/*.c el2/*.c integrations/xen/bridge/*.c))
lint: $(GEN_HDRS) $(BUILD)/docs/registers.md
	@CLANG_FORMAT="$(CLANG_FORMAT)" FORMAT_SRCS="$(FORMAT_SRCS)" \
		LINT_HOST="$(LINT_HOST)" LINT_HYP="$(LINT_HYP)" \
		sh tests/lint.sh "$(CPPCHECK)" "$(CLANG_TIDY)" "$(LINT_SRCS)" "$(LINT_FUZZ)" \
		"$(TOOL_CFLAGS)" $(BUILD)/docs/registers.md

# The format part of make lint alone.
format-check:
	@$(CLANG_FORMAT) --style=file --dry-run -Werror $(FORMAT_SRCS) && \
		echo "format-check: $(words $(FORMAT_SRCS)) files as .clang-format says"

# libFuzzer targets (clang): the core and the plain-memory platform built with the fuzzer's
# coverage and ASan + UBSan; each target runs FUZZ_SECONDS from its corpus in tests/fuzz/corpus/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra $(WERROR) -g -O1 -Iinclude -I$(GEN) -Itests/support -I. -MMD -MP \
                $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)
FUZZ_CORE    := $(CORE_SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_MEMPLAT := $(FUZZ_BUILD)/tests/support/memplat.o
FUZZ_DOMXML  := $(FUZZ_BUILD)/tools/domxml.o $(FUZZ_BUILD)/tools/xmlutil.o
# fuzz_trap sees every platform call the core makes: they are --wrap'ed around memplat's.
FUZZ_WRAP    := -Wl,--wrap=pv_plat_sysreg_read,--wrap=pv_plat_sysreg_write,--wrap=pv_plat_virq_set

$(FUZZ_CORE) $(FUZZ_MEMPLAT): $(FUZZ_BUILD)/%.o: %.c $(PV_HDRS) $(wildcard tests/support/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DOMXML): $(FUZZ_BUILD)/%.o: %.c $(PV_HDRS) $(wildcard tools/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -D_DEFAULT_SOURCE $(TOOL_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/fuzz_trap: tests/fuzz/fuzz_trap.c tests/fuzz/fuzz.h $(FUZZ_CORE) $(FUZZ_MEMPLAT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE) $(FUZZ_MEMPLAT) $(FUZZ_WRAP)
$(FUZZ_BUILD)/fuzz_msc: tests/fuzz/fuzz_msc.c tests/fuzz/fuzz.h $(FUZZ_CORE) $(FUZZ_MEMPLAT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE) $(FUZZ_MEMPLAT)
# The record codec is host code (sim/spe_packet.c), fuzzed beside the core.
FUZZ_SPE_CODEC := $(FUZZ_BUILD)/sim/spe_packet.o
$(FUZZ_SPE_CODEC): $(FUZZ_BUILD)/%.o: %.c $(PV_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_BUILD)/fuzz_spe: tests/fuzz/fuzz_spe.c tests/fuzz/fuzz.h $(FUZZ_CORE) $(FUZZ_MEMPLAT) $(FUZZ_SPE_CODEC)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE) $(FUZZ_MEMPLAT) $(FUZZ_SPE_CODEC)
$(FUZZ_BUILD)/fuzz_spe_buffer: tests/fuzz/fuzz_spe_buffer.c tests/fuzz/fuzz.h tests/unit/test_vspe_rig.h $(FUZZ_CORE) $(FUZZ_MEMPLAT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_CORE) $(FUZZ_MEMPLAT)
$(FUZZ_BUILD)/fuzz_domxml: tests/fuzz/fuzz_domxml.c tests/fuzz/fuzz.h $(FUZZ_DOMXML) $(FUZZ_CORE) $(FUZZ_MEMPLAT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -D_DEFAULT_SOURCE $(TOOL_CFLAGS) -Itools -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_DOMXML) $(FUZZ_CORE) $(FUZZ_MEMPLAT) $(TOOL_LIBS)

fuzz-build: $(FUZZ_BINS)

# make check runs each target once over its seeds (tests/fuzz/run.sh corpus: a few seconds),
# so that an input that once crashed fails the ordinary test run. libFuzzer is here when
# clang's runtime directory has it (libclang-rt-dev).
FUZZ_RT        := $(shell $(FUZZ_CC) -print-runtime-dir 2>/dev/null)
FUZZ_AVAILABLE := $(if $(FUZZ_RT),$(if $(wildcard $(FUZZ_RT)/libclang_rt.fuzzer*.a),yes))
check: $(if $(FUZZ_AVAILABLE),$(FUZZ_BINS))

# The mutation gate (docs/security.md, "Mutations"): every mutation of tests/mutants/*.txt,
# an edit of one security-relevant line, made in a copy of the tree (build/mutants/tree) and
# killed by the tests it names; "N passed, M failed" (a survivor fails it, and so does a
# mutation that no longer applies). MUTANTS_ONLY="NAME..." runs those alone.
MUTANT_LISTS ?= $(sort $(wildcard tests/mutants/*.txt))
mutants:
	@sh tests/mutants/run.sh $(MUTANT_LISTS)

# Ends with "N passed, M failed": one test per target, failed by a crash or a broken invariant.
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BUILD) $(FUZZ_TARGETS)

# The hypervisor's own figures (EL2 instructions per trap and per switch, under QEMU with
# -icount shift=0) join when QEMU and the cross compiler are here.
# What it prints is kept in $(BENCH_FIGURES) for the gate; it fails when a part failed.
BENCH_FIGURES := $(BUILD)/bench-figures.txt
# The reference hypervisor's figures on the QEMU of our own too, once make hw-qemu has built it
# and it names itself "(perfvisor" (bench/gate.sh key): a baseline of its own beside Debian's.
HW_QEMU_BENCH = $(filter %-perfvisor,$(shell [ -x $(HW_QEMU) ] && sh bench/gate.sh key $(HW_QEMU)))
bench: $(BENCH_BINS) $(if $(QEMU_CHECK_AVAILABLE),hyp)
	@rm -f $(BENCH_FIGURES).failed; \
	{ sh bench/run.sh $(BENCH_BINS) || : >$(BENCH_FIGURES).failed; \
	  $(if $(QEMU_CHECK_AVAILABLE),QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh bench $(HYP_ELF) $(GUEST_BUILD) || : >$(BENCH_FIGURES).failed,echo "bench: hyp.*: skipped (needs qemu-system-aarch64 and aarch64-linux-gnu-gcc)"); \
	  $(if $(QEMU_CHECK_AVAILABLE),$(if $(HW_QEMU_BENCH),QEMU=$(HW_QEMU) GUEST_LOGDIR=$(BUILD)/guest-logs-hw sh tests/guest/run.sh bench $(HYP_ELF) $(GUEST_BUILD) || : >$(BENCH_FIGURES).failed,echo "bench: qemu-10.0-perfvisor: skipped (no QEMU of our own that says so: make hw-qemu)")); \
	  $(if $(QEMU_CHECK_AVAILABLE),$(MAKE) --no-print-directory xen-bench | grep '^bench: ',echo "bench: xen.*: skipped (needs qemu-system-aarch64 and aarch64-linux-gnu-gcc)"); \
	} | tee $(BENCH_FIGURES).tmp; mv $(BENCH_FIGURES).tmp $(BENCH_FIGURES); \
	[ ! -e $(BENCH_FIGURES).failed ]

# The benchmark gate (docs/benchmarks.md, "The gate"): every figure make bench prints against
# bench/baseline/, exact where the figure is deterministic; "N passed, M failed" (a figure
# that could not be measured fails it, by name). make bench-baseline writes the last make
# bench's figures into the baselines, for a change that improves one (then make docs).
bench-check:
	-@$(MAKE) --no-print-directory bench
	@sh bench/gate.sh check $(BENCH_FIGURES) bench/baseline

bench-baseline:
	@sh bench/gate.sh update $(BENCH_FIGURES) bench/baseline

$(BUILD)/aarch64/%.o: %.c $(PV_HDRS) | aarch64-cc
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(AARCH64_CFLAGS) -c $< -o $@

# Checked before the first compile, so a missing cross compiler says how to install it.
aarch64-cc:
	@command -v $(AARCH64_CC) >/dev/null 2>&1 || { echo "missing $(AARCH64_CC): apt-get install -y gcc-aarch64-linux-gnu (as root)" >&2; exit 1; }

aarch64: $(AARCH64_OBJS) | aarch64-cc
	rm -f $(BUILD)/aarch64/libperfvisor.a
	$(AARCH64_AR) rcs $(BUILD)/aarch64/libperfvisor.a $(AARCH64_OBJS)
	@# Freestanding: the core may call only the platform functions and the four that GCC
	@# requires of every freestanding environment (memcpy, memmove, memset, memcmp).
	@$(AARCH64_LD) -r -o $(BUILD)/aarch64/core.o --whole-archive $(BUILD)/aarch64/libperfvisor.a
	@outside=$$($(AARCH64_NM) -u $(BUILD)/aarch64/core.o | awk '{ print $$2 }' | \
		grep -Ev '^(pv_plat_[a-z0-9_]+|memcpy|memmove|memset|memcmp)$$'); \
	if [ -n "$$outside" ]; then echo "aarch64: the core calls outside the platform contract:" $$outside >&2; exit 1; fi
	@# Every symbol the core exports is perfvisor's: pv_ (API) or pv_<module>__ (internal).
	@unprefixed=$$($(AARCH64_NM) -g --defined-only $(BUILD)/aarch64/core.o | awk 'NF == 3 { print $$3 }' | \
		grep -v '^pv_'); \
	if [ -n "$$unprefixed" ]; then echo "aarch64: exported without the pv_ prefix:" $$unprefixed >&2; exit 1; fi
	@echo "aarch64: $(words $(AARCH64_OBJS)) core objects, freestanding, $(if $(WERROR),$(WERROR) clean,warnings not errors (WERROR empty))"

# docs/registers.md is generated from the register database (arch/sysregs.txt) through the
# trap layer's table, so it says what the dispatch does; docs-check fails when it is stale.
REGS_DOC_INTRO := 'Every system register perfvisor traps, with the module that answers it and its handlers (their C names, as the register database writes them, so that a search for one finds its row there), the access the guest has, its EL0 rule (checked by the trap dispatch before the handler runs), the feature and lowest version that bring it, and what the guest sees. An indexed family (`<n>`) is one entry; its Index column says which n exist. A register of a feature the VM was not given UNDEFs. How to add one: [sysregs.md](sysregs.md).'
$(BUILD)/docs/registers.md: $(TOOL)
	@mkdir -p $(dir $@)
	@{ printf '%s\n\n' '# Register coverage' \
	  'Generated by `make docs` from the register database, `arch/sysregs.txt` (`perfvisor regs --format markdown`): do not edit by hand.' \
	  $(REGS_DOC_INTRO); \
	  $(TOOL) regs --format markdown; } > $@.tmp
	@mv $@.tmp $@

# The figures the docs quote (<!--bench:NAME-->VALUE) and docs/benchmarks.md's table of
# them come from bench/baseline/ (bench/gate.sh).
DOCS_WITH_FIGURES := README.md $(wildcard docs/*.md)
docs: $(BUILD)/docs/registers.md
	@cp $< docs/registers.md
	@echo "docs: docs/registers.md regenerated"
	@sh bench/gate.sh docs-update bench/baseline $(DOCS_WITH_FIGURES)
	@sh tests/mutants/run.sh --table $(MUTANT_LISTS) | sh scripts/doc-block.sh update docs/security.md mutations

docs-check: $(BUILD)/docs/registers.md
	@sh tests/citations.sh && echo "docs-check: every Arm ARM citation is in docs/README.md's table"
	@sh bench/gate.sh docs-check bench/baseline $(DOCS_WITH_FIGURES) && \
		echo "docs-check: every figure the docs quote is its baseline's (bench/baseline/)"
	@sh tests/mutants/run.sh --table $(MUTANT_LISTS) | sh scripts/doc-block.sh check docs/security.md mutations && \
		echo "docs-check: docs/security.md lists the mutations of tests/mutants/"
	@if cmp -s $< docs/registers.md; then \
		echo "docs-check: docs/registers.md matches the register database"; \
	else \
		diff -u docs/registers.md $< | head -40; \
		echo "docs-check: docs/registers.md is stale: run make docs and commit it" >&2; \
		exit 1; \
	fi

# The packages were installed before this recipe runs (the deps.sh call at the top).
deps:
	@echo "deps: every package of every goal is installed: $$(sh scripts/deps.sh list | tr '\n' ' ')"

# The README's two commands, exactly as written, on a new minimal Debian 12 root file system
# (debootstrap, cached under $(BUILD)/fresh/): both must pass with 0 failed (as root).
fresh-check:
	@sh scripts/fresh-check.sh $(BUILD)/fresh

clean:
	rm -rf $(BUILD)

# Header dependencies recorded by -MMD (not in make fresh-check's root file system).
# Only this build's own: not the trees other builds keep under it (a new root file system,
# the sanitizer build, another project's source and build, the mutation gate's copy).
-include $(shell find $(BUILD) \( -path $(BUILD)/fresh -o -path $(BUILD)/sanitize -o -path '$(BUILD)/hw-*' \
	-o -path $(BUILD)/mutants -o -path '$(BUILD)/h-*' -o -path $(BUILD)/xen/src -o -path $(BUILD)/xen/work \
	-o -path $(BUILD)/linux \) -prune -o -name '*.d' -type f -print 2>/dev/null)
