/* SPDX-License-Identifier: MIT */
/* The register database's generator (arch/gen-sysregs.awk): what it makes of a small valid
 * database (keys, fields, handlers, the masks by access, version and condition), and that
 * every malformed row, handler line or bit description stops it with the file, the line and
 * the reason. */
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
	snprintf(dir, sizeof(dir), "build/tests/tool/regdb-%d", (int)getpid());
	return mkdir(dir, 0755);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Runs the generator on `db`; the outputs go to dir/{keys,db,el2}.h. */
static struct cmd_result generate(const char *db)
{
	char path[200], cmd[800];
	snprintf(path, sizeof(path), "%s/sysregs.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(db, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "awk -v keys=%s/keys.h -v db=%s/db.h -v el2h=%s/el2.h -f arch/gen-sysregs.awk "
		 "%s",
		 dir, dir, dir, path);
	return tt_run(cmd, NULL);
}

static char *slurp(const char *name)
{
	char path[200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

#define ROW_PMCR                                                                               \
	"PMCR_EL0 3 3 9 12 0 - PMU V3 - RW RW EN EN\n"                                         \
	"  read pv_vpmu_pmcr_read\n"                                                           \
	"  write pv_vpmu_pmcr_write\n"                                                         \
	"  \"the control register\"\n"

/* A guest-writable PMU register must account for every bit: ROW_PMCR's lines, then these. */
#define PMCR_BITS                                                                              \
	"  res0 63:16\n"                                                                       \
	"  field N 15:11 RO the counters\n"                                                    \
	"  res0 10:8\n"                                                                        \
	"  field LP 7 RW since V3P5\n"                                                         \
	"  field LC 6 RW if AA32 else RES1\n"                                                  \
	"  field DP 5 RW since V3P1 or EL3\n"                                                  \
	"  field X 4 RAZ/WI\n"                                                                 \
	"  res1 3\n"                                                                           \
	"  field C 2 WO\n"                                                                     \
	"  field P 1 W1C\n"                                                                    \
	"  field E 0 RW\n"

#define ROW_EVCNTR                                                                             \
	"PMEVCNTR<n>_EL0 3 3 14 8 0 0..30 PMU V3 PMEV RW RW ER|EN EN\n"                        \
	"  read pv_vpmu_pmevcntr<n>_read pv_vpmu_pmevcntr_read\n"                              \
	"  write pv_vpmu_pmevcntr<n>_write pv_vpmu_pmevcntr_write\n"                           \
	"  field HI 63:32 RW since V3P5\n"                                                     \
	"  field LO 31:0 RW\n"

/* X_EL0, read and written by the guest through pv_vpmu_x_*, with the bits given after it. */
#define ROW_X(bits)                                                                            \
	"X_EL0 3 3 9 12 0 - PMU V3 - RW RW EN EN\n"                                            \
	"  read pv_vpmu_x_read\n"                                                              \
	"  write pv_vpmu_x_write\n" bits

static void test_valid_database(void **state)
{
	(void)state;
	struct cmd_result r = generate("# a comment\n" ROW_PMCR PMCR_BITS ROW_EVCNTR
				       "  alias ALL 63:0 the counter\n"
				       "PMXEVCNTR_EL0 3 3 9 13 2 - PMU V3 - RW RW ER|EN EN\n"
				       "  read pv_vpmu_pmxevcntr_read\n"
				       "  write pv_vpmu_pmxevcntr_write\n"
				       "  as PMEVCNTR<n>_EL0\n"
				       "MDCR_EL2 3 4 1 1 1 - EL2 0 - RW - - -\n"
				       "  field E2PB 13:12\n"
				       "  value E2PB EL1 0x3 owned by EL1\n");
	assert_int_equal(r.status, 0);
	tt_free(&r);
	const char *keys[] = {
		"#define PV_PMCR_EL0 PV_SYSREG(3, 3, 9, 12, 0)",
		"#define PV_PMEVCNTR_EL0(n) PV_SYSREG(3, 3, 14, 8 | (((n) >> 3) & 3), (n) & 7)",
		"#define PV_PMCR_E PV_BIT(0)",
		"#define PV_PMCR_N PV_GENMASK(15, 11) /* the counters */",
		"#define PV_PMEVCNTR_ALL PV_GENMASK(63, 0) /* the counter */",
		"#define PV_MDCR_EL2_E2PB PV_GENMASK(13, 12)",
		"#define PV_MDCR_EL2_E2PB_EL1 0x3u /* owned by EL1 */",
	};
	assert_int_equal(tt_missing(slurp("keys.h"), keys, sizeof(keys) / sizeof(keys[0])), 0);
	const char *db[] = {
		"PV_EL0_PMU(PV_PMUSERENR_ER | PV_PMUSERENR_EN), PV_EL0_PMU(PV_PMUSERENR_EN)",
		"pv_vpmu_pmevcntr_read, pv_vpmu_pmevcntr_write, EACH",
		"\"pv_vpmu_pmevcntr<n>_read\", \"pv_vpmu_pmevcntr<n>_write\")",
		"\"pv_vpmu_pmcr_read\", \"pv_vpmu_pmcr_write\")",
		"X(PMEVCNTR_EL0, 30, pv_vpmu_pmevcntr30_read, pv_vpmu_pmevcntr30_write)",
		"X(PMEVCNTR_EL0_30, 3, 3, 14, 11, 6)",
		"pv_reg_read_fn pv_vpmu_pmcr_read;",
		"pv_reg_read_fn pv_vpmu_pmevcntr_read;",
		"pv_reg_write_fn pv_vpmu_pmevcntr7_write;",
		/* the masks: by version (since), condition (if), either (or), absent as RES1 */
		"#define PV_BITS_PMCR_EL0_RW(v, h) (UINT64_C(0x1) | (((v) >= PV_PMUVER_V3P5) ? "
		"UINT64_C(0x80) : 0) | (((h) & PV_COND_AA32) ? UINT64_C(0x40) : 0) | (((v) >= "
		"PV_PMUVER_V3P1 || ((h) & PV_COND_EL3)) ? UINT64_C(0x20) : 0))",
		"#define PV_BITS_PMCR_EL0_RO(v, h) UINT64_C(0xF800)",
		"#define PV_BITS_PMCR_EL0_WO(v, h) UINT64_C(0x4)",
		"#define PV_BITS_PMCR_EL0_W1C(v, h) UINT64_C(0x2)",
		"#define PV_BITS_PMCR_EL0_RES1(v, h) (UINT64_C(0x8) | (!((h) & PV_COND_AA32) ? "
		"UINT64_C(0x40) : 0))",
		"#define PV_BITS_PMEVCNTR_EL0_RW(v, h) (UINT64_C(0xFFFFFFFF) | (((v) >= "
		"PV_PMUVER_V3P5) ? UINT64_C(0xFFFFFFFF00000000) : 0))",
		"X(PMEVCNTR_EL0, PV_PMEVCNTR_EL0(0))",
		"#define PV_COND_AA32 0x1u",
	};
	assert_int_equal(tt_missing(slurp("db.h"), db, sizeof(db) / sizeof(db[0])), 0);
	/* n = 31 is not a member: no slot for it; PMXEVCNTR_EL0 has no bits of its own. */
	assert_null(strstr(slurp("db.h"), "PMEVCNTR_EL0_31"));
	assert_null(strstr(slurp("db.h"), "PV_BITS_PMXEVCNTR"));
	const char *el2[] = {"X(3, 4, 1, 1, 1, RW, EL2, 0)", "G(3, 3, 9, PV_REGDB_EL2_3_3_9)"};
	assert_int_equal(tt_missing(slurp("el2.h"), el2, sizeof(el2) / sizeof(el2[0])), 0);
}

struct bad {
	const char *db;
	const char *why; /* in the message, after "sysregs.txt:LINE: " */
	int line;
};

static void test_malformed_rows(void **state)
{
	(void)state;
	static const struct bad bad[] = {
		{"PMCR_EL0 3 3 9 12 0 - PMU V3 - RW RW EN\n", "14 columns", 1},
		{"PMCR_EL0 3 3 9 12 0 - PMU V3 - RW RW EN EN vpmu.pmcr\n",
		 "read and write lines", 1},
		{ROW_PMCR PMCR_BITS "PMCR_EL0 3 3 9 12 1 - PMU V3 - RO RO EN -\n",
		 "listed twice", 16},
		{ROW_PMCR PMCR_BITS "OTHER_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n",
		 "has the encoding of PMCR_EL0", 16},
		{"X_EL0 3 3 9 16 0 - PMU V3 - RO RO EN -\n", "CRm", 1},
		{"X_EL0 3 3 9 12 0 - FOO V3 - RO RO EN -\n", "feature", 1},
		{"X_EL0 3 3 9 12 0 - PMU V9 - RO RO EN -\n", "PMUVer", 1},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO XX -\n", "PMUSERENR_EL0 bit", 1},
		{"X_EL0 3 3 9 12 0 - EL2 0 - RW RW EN EN\n", "only EL2 uses", 1},
		{"X<n>_EL0 3 3 14 8 0 3..3 PMU V3 PMEV RO RO EN -\n", "fewer than two", 1},
		{"X<n>_EL0 3 3 14 9 0 0..15 PMU V3 PMEV RO RO EN -\n", "bits zero", 1},
		{"X_EL0 3 3 9 12 0 0..3 PMU V3 - RO RO EN -\n", "<n> in its name", 1},
		/* handlers: one for each direction the guest has, named as the module's */
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\nY_EL0 3 3 9 12 1 - PMU V3 - - - - "
		 "-\n",
		 "needs a read line", 1},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n  read pv_vpmu_x_read\n"
		 "  write pv_vpmu_x_write\n",
		 "not writable by the guest", 1},
		{"X_EL0 3 3 9 12 0 - PMU V3 - WO WO - EN\n  res0 63:0\n", "needs a write line",
		 1},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n  read pv_vspe_x_read\n",
		 "pv_vpmu_NAME_read", 2},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n  read pv_vpmu_x_write\n",
		 "pv_vpmu_NAME_read", 2},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n  read pv_vpmu_x_read\n"
		 "  read pv_vpmu_y_read\n",
		 "two read lines", 3},
		{"X_EL0 3 3 9 12 0 - PMU V3 - RO RO EN -\n  read pv_vpmu_x<n>_read "
		 "pv_vpmu_x_read\n",
		 "are for families", 2},
		{"X<n>_EL0 3 3 14 8 0 0..30 PMU V3 PMEV RO RO EN -\n  read pv_vpmu_x<n>_read\n",
		 "the handler that takes n", 2},
		{"X<n>_EL0 3 3 14 8 0 0..30 PMU V3 PMEV RO RO EN -\n"
		 "  read pv_vpmu_x<n>_read pv_vpmu_y_read\n",
		 "the pattern without <n>", 2},
		/* bits: each in one line; all of them for a guest-writable PMU register */
		{ROW_PMCR "  field E 0 RW\n  field E 1 RW\n", "defined twice", 6},
		{ROW_X("  field A 7:0 RW\n  res0 63:4\n"),
		 "bit 4 of X_EL0 is in field A and in RES0", 5},
		{ROW_X("  res0 63:8\n  field A 3:0 RW\n"), "Unspecified bits of X_EL0: 7:4", 1},
		{ROW_X("  res0 62:1\n"), "Unspecified bits of X_EL0: 63, 0", 1},
		{ROW_X("  res0 63:1\n  field A 0\n"), "field A of X_EL0 needs its access", 5},
		{ROW_X("  res0 63:1\n  field A 0 RW since V9\n"), "PMUVer", 5},
		{ROW_X("  res0 63:1\n  field A 0 RW if EL4\n"), "condition", 5},
		{ROW_X("  res0 63:1\n  field A 0 RW else RES1\n"),
		 "else needs a since or an if", 5},
		{ROW_X("  res0 63:1\n  field A 0 since V3P1\n"), "needs its access first", 5},
		{ROW_X("  res0 63:1\n  field A 0 RW\n  alias B 1:0\n"),
		 "alias B of X_EL0 names bit 1, which no field has", 6},
		{"X_EL0 3 3 9 12 0 - PMU V3 - WO WO - EN\n  write pv_vpmu_x_write\n"
		 "  res0 63:1\n  field A 0 RW\n",
		 "field A of the write-only X_EL0 is WO or RAZ/WI", 4},
		{ROW_X("  as Y_EL0\n"), "no register with every bit accounted for", 4},
		{ROW_X("  field A 0 RW\n  as Y_EL0\n"), "instead of fields", 5},
		{"  field E 0\n", "before any row", 1},
		{"  read pv_vpmu_x_read\n", "before any row", 1},
		{ROW_PMCR "  field E 64\n", "within 63:0", 5},
		{ROW_PMCR "  value Q ONE 1\n", "no field of PMCR_EL0", 5},
		{"ID_AA64PFR0_EL1 3 0 0 4 0 - ID 0 - - - - -\n  field EL1 7:4\n",
		 "also a register's key", 2},
		{ROW_PMCR "  \"unterminated\n", "end with a quote", 5},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cmd_result r = generate(bad[i].db);
		char want[160];
		snprintf(want, sizeof(want), "sysregs.txt:%d: ", bad[i].line);
		if (r.status == 0 || !strstr(r.err, want) || !strstr(r.err, bad[i].why))
			fail_msg("case %zu: status %d, stderr '%s': want '%s' and '%s'", i,
				 r.status, r.err, want, bad[i].why);
		tt_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_database),
		cmocka_unit_test(test_malformed_rows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
