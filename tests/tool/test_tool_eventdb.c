/* SPDX-License-Identifier: MIT */
/* The event database's generator (arch/gen-events.awk): what it makes of a small valid
 * database, and that every malformed row stops it with the file, the line and the reason. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tooltest.h"

static char dir[128];

static int setup(void **state)
{
	(void)state;
	mkdir("build/tests", 0755);
	mkdir("build/tests/tool", 0755);
	snprintf(dir, sizeof(dir), "build/tests/tool/eventdb-%d", (int)getpid());
	return mkdir(dir, 0755);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The AMU's four architected events and two libvirt events: a database that generates. */
#define AMU_ROWS                                                                               \
	"0x0008 INST_RETIRED V3 2 instructions yes\n"                                          \
	"0x0011 CPU_CYCLES V3 0 - yes\n"                                                       \
	"0x4004 CNT_CYCLES - 1 - -\n"                                                          \
	"0x4005 STALL_BACKEND_MEM - 3 - -\n"
#define LIBVIRT_ROWS "libvirt cmt \"an Intel RDT event\"\nlibvirt instructions\n"

/* Runs the generator on `db` (then the libvirt list); the outputs go to dir/{defs,db}.h. */
static struct cmd_result generate(const char *db)
{
	char path[200], cmd[800];
	snprintf(path, sizeof(path), "%s/events.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(db, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "rm -f %s/defs.h %s/db.h; awk -v defs=%s/defs.h -v db=%s/db.h "
		 "-f arch/gen-events.awk %s",
		 dir, dir, dir, dir, path);
	return tt_run(cmd, NULL);
}

static struct cmd_result cat(const char *name)
{
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "cat %s/%s", dir, name);
	return tt_run(cmd, NULL);
}

static void test_valid_database(void **state)
{
	(void)state;
	struct cmd_result r = generate("# a comment\n\n" AMU_ROWS
				       "0x003F STALL_SLOT V3P4 - - -\n" LIBVIRT_ROWS);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	tt_free(&r);
	struct cmd_result d = cat("defs.h"), x = cat("db.h");
	assert_non_null(strstr(d.out, "#define PV_EVT_INST_RETIRED 0x0008\n"));
	assert_non_null(strstr(d.out, "#define PV_EVT_STALL_BACKEND_MEM 0x4005\n"));
	assert_non_null(strstr(d.out, "#define PV_AMU_GROUP0_EVENTS {PV_EVT_CPU_CYCLES, "
				      "PV_EVT_CNT_CYCLES, PV_EVT_INST_RETIRED, "
				      "PV_EVT_STALL_BACKEND_MEM}\n"));
	assert_non_null(
		strstr(x.out, "\tX(0x0008, INST_RETIRED, \"inst_retired\", PV_PMUVER_V3, 2)"));
	assert_non_null(strstr(x.out, "\tX(0x4004, CNT_CYCLES, \"cnt_cycles\", 0, 1)"));
	assert_non_null(
		strstr(x.out, "\tX(0x003F, STALL_SLOT, \"stall_slot\", PV_PMUVER_V3P4, -1)"));
	/* The model's events alone, the last without a continuation. */
	assert_non_null(strstr(x.out,
			       "#define PV_EVENT_SIM_ROWS(X) \\\n\tX(INST_RETIRED, 0x0008) "
			       "\\\n\tX(CPU_CYCLES, 0x0011)\n"));
	/* libvirt's list in its own order, each with the event that counts it or its reason. */
	assert_non_null(strstr(x.out, "\tX(cmt, -1, \"an Intel RDT event\") \\\n"
				      "\tX(instructions, 0x0008, \"INST_RETIRED\")\n"));
	tt_free(&d);
	tt_free(&x);
}

/* Every malformed database stops the generator, naming the line and the reason, and writes
 * nothing the build could take. */
static void test_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *db, *err;
	} bad[] = {
		{AMU_ROWS "0x12 SHORT V3 - - -\n" LIBVIRT_ROWS,
		 ":5: event number '0x12' is not 0x"},
		{AMU_ROWS "0x0012 lower V3 - - -\n" LIBVIRT_ROWS,
		 ":5: event name 'lower' is not"},
		{AMU_ROWS "0x0008 AGAIN V3 - - -\n" LIBVIRT_ROWS,
		 ":5: event 0x0008 is also row 1"},
		{AMU_ROWS "0x0009 CPU_CYCLES V3 - - -\n" LIBVIRT_ROWS,
		 ":5: event name CPU_CYCLES is also row 2"},
		{AMU_ROWS "0x0012 X V2 - - -\n" LIBVIRT_ROWS, ":5: PMUVer 'V2' is not one of"},
		{AMU_ROWS "0x4010 X V3 - - -\n" LIBVIRT_ROWS,
		 ":5: X: an event from 0x4000 is described by PMCEID's upper halves, from "
		 "V3P1"},
		{AMU_ROWS "0x0012 X V3 4 - -\n" LIBVIRT_ROWS,
		 ":5: X: the AMU's architected group 0"},
		{AMU_ROWS "0x0012 X V3 0 - -\n" LIBVIRT_ROWS,
		 ":5: X: AMEVCNTR00 counts CPU_CYCLES"},
		{AMU_ROWS "0x0012 X - - - -\n" LIBVIRT_ROWS,
		 ":5: X: neither a PMU nor an AMU event"},
		{AMU_ROWS "0x0012 X V3 - - maybe\n" LIBVIRT_ROWS,
		 ":5: sim 'maybe' is not one of"},
		{AMU_ROWS "0x0012 X V3 - -\n" LIBVIRT_ROWS, ":5: an event row has 6 columns"},
		{AMU_ROWS "0x0012 X V3 - instructions -\n" LIBVIRT_ROWS,
		 ":5: libvirt event instructions is counted by INST_RETIRED already"},
		{AMU_ROWS "0x0012 X V3 - nosuch -\n" LIBVIRT_ROWS,
		 ":5: X: libvirt event nosuch is not in the libvirt list"},
		{AMU_ROWS LIBVIRT_ROWS "libvirt cmt \"twice\"\n",
		 ":7: libvirt event cmt is listed twice"},
		{AMU_ROWS "libvirt cmt\nlibvirt instructions\n",
		 ":5: libvirt cmt is counted by no event"},
		{AMU_ROWS "libvirt cmt \"x\"\nlibvirt instructions \"why\"\n",
		 ":6: libvirt instructions is counted by INST_RETIRED: it has no reason"},
		{AMU_ROWS "libvirt cmt x\nlibvirt instructions\n",
		 ":5: libvirt cmt: the reason is one"},
		{"0x0011 CPU_CYCLES V3 0 - -\n0x0008 INST_RETIRED V3 2 - -\n0x4004 CNT_CYCLES "
		 "- 1 - -\n",
		 ": no event of the AMU's architected group 0 counter AMEVCNTR03"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cmd_result r = generate(bad[i].db);
		if (r.status == 0 || !strstr(r.err, bad[i].err))
			print_error("case %zu: status %d, stderr \"%s\", wanted \"%s\"\n", i,
				    r.status, r.err, bad[i].err);
		assert_int_not_equal(r.status, 0);
		assert_non_null(strstr(r.err, bad[i].err));
		tt_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_database),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
