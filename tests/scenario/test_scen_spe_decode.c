/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor spe-decode` on buffers the machine model wrote for a guest: one line (or one JSON
 * object) per record, each matching the sample the unit logged; and its errors: a truncated
 * record, a reserved header, a missing file, bad usage. The tool is the one built beside this
 * test (build/perfvisor, found from argv[0]).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/wait.h>
#include <unistd.h>

#include "test_scen_spe_rig.h"

static char tool[530], dir[512];

struct out {
	int status;
	char *text;
};

/* Runs `cmd`, capturing standard output (and error with `err`). */
static struct out run(const char *cmd, bool err)
{
	char full[8192];
	snprintf(full, sizeof(full), "%s%s", cmd, err ? " 2>&1" : " 2>/dev/null");
	FILE *p = popen(full, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 4096 > cap)
			buf = realloc(buf, cap *= 2);
		size_t k = fread(buf + n, 1, cap - n - 1, p);
		n += k;
		if (!k)
			break;
	}
	buf[n] = 0;
	int st = pclose(p);
	return (struct out){.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1, .text = buf};
}

/* The decoder under test is the tool's; without it (a scenario binary built alone) skip, and
 * say why on the line tests/run.sh shows above the summary. */
static void require_tool(void)
{
	if (access(tool, X_OK)) {
		printf("skipped: no %s to run (make builds it)\n", tool);
		skip();
	}
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* A guest profiles with a 32 KiB buffer; its driver's collected bytes are the file. */
static struct sim_machine *profile(size_t *records)
{
	struct sim_config c = rig_spe_config(21, 1);
	struct spe_rig r = {.rng = 21};
	r.m = scen_machine(&c);
	assert_non_null(r.m);
	struct pv_vm_config vc = rig_spe_vm(PV_SPE_V1P2, UINT64_C(1) << 20);
	static struct sim_prog p;
	sim_prog_init(&p);
	rig_prog_start(&p, RIG_BUF_VA, 32768, 2048, 0, 0, RIG_SCR);
	rig_prog_work(&p, &r, 10);
	size_t last = rig_prog_stop(&p);
	assert_int_equal(scen_vm_vcpu(r.m, &vc, 0, &p), 0);
	assert_true(rig_guest_mm(&r, 0, 0, 12));
	assert_true(rig_map_scattered(&r, 0, RIG_BUF_VA, 8, SIM_VM_RAM_IPA + (4u << 20),
				      SIM_VM_RAM_IPA + (8u << 20)));
	rig_driver(&r, 0, RIG_BUF_VA, 32768);
	sim_run(r.m);
	sim_spe_machine_collect(r.m, 0, p.ops[last].value);
	assert_int_equal(rig_match(r.m, 0, 0, "decode", records, false), 0);
	sim_prog_free(&p);
	return r.m;
}

static void test_lines_match_truth(void **state)
{
	(void)state;
	require_tool();
	size_t records;
	struct sim_machine *m = profile(&records);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, 0);
	char path[600], cmd[4096];
	snprintf(path, sizeof(path), "%s/spe-buffer.bin", dir);
	write_file(path, g->out, g->len);
	snprintf(cmd, sizeof(cmd), "%s spe-decode %s", tool, path);
	struct out o = run(cmd, false);
	assert_int_equal(o.status, 0);
	/* A line per written sample, in order, with its PC, EL and total latency. */
	size_t n = 0, k = 0;
	for (char *l = strtok(o.text, "\n"); l; l = strtok(NULL, "\n"), n++) {
		while (g->log.s[k].status != SIM_SPE_WRITTEN)
			k++;
		const struct sim_spe_sample *s = &g->log.s[k++];
		char want[96];
		snprintf(want, sizeof(want), " pc=0x%014" PRIx64 ":el%u ",
			 s->pc & PV_GENMASK(55, 0), s->el);
		if (!strstr(l, want))
			fail_msg("line %zu: %s lacks %s", n, l, want);
		snprintf(want, sizeof(want), " total=%u ", s->lat[0]);
		assert_non_null(strstr(l, want));
		assert_null(strstr(l, " pa=")); /* never a physical address for a guest */
	}
	assert_int_equal(n, records);
	free(o.text);
	/* JSON: a document with the same records, checked by a real parser where there is one. */
	if (!access("/usr/bin/python3", X_OK)) {
		snprintf(cmd, sizeof(cmd),
			 "%s spe-decode --json %s | /usr/bin/python3 -c 'import json,sys; "
			 "d=json.load(sys.stdin); print(len(d[\"records\"]), d[\"complete\"], "
			 "d[\"records\"][0][\"pc\"][\"el\"])'",
			 tool, path);
		o = run(cmd, false);
		char want[64];
		snprintf(want, sizeof(want), "%zu True %u\n", records, g->log.s[0].el);
		assert_string_equal(o.text, want);
		free(o.text);
	}
	scen_free(m);
}

static void test_errors(void **state)
{
	(void)state;
	require_tool();
	size_t records;
	struct sim_machine *m = profile(&records);
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(m, 0);
	char path[600], cmd[4096];
	snprintf(path, sizeof(path), "%s/spe-bad.bin", dir);
	/* Cut inside the third record: two lines, then the error and its offset. */
	size_t pos = 0, third = 0;
	for (unsigned i = 0; i < 3; i++) {
		struct pv_spe_record r;
		size_t pads;
		third = pos;
		assert_int_equal(pv_spe_record_decode(g->out, g->len, &pos, &r, &pads), 1);
		third += pads;
	}
	write_file(path, g->out, third + 5);
	snprintf(cmd, sizeof(cmd), "%s spe-decode %s", tool, path);
	struct out o = run(cmd, true);
	assert_int_equal(o.status, 1);
	char want[700];
	snprintf(want, sizeof(want), "%s: offset 0x%zx: truncated packet or record\n", path,
		 third + 5);
	assert_non_null(strstr(o.text, want));
	free(o.text);
	/* A reserved header byte where the third record starts. */
	uint8_t *copy = malloc(g->len);
	memcpy(copy, g->out, g->len);
	copy[third] = 0x02;
	write_file(path, copy, g->len);
	o = run(cmd, true);
	assert_int_equal(o.status, 1);
	snprintf(want, sizeof(want), "offset 0x%zx: reserved or malformed packet\n", third);
	assert_non_null(strstr(o.text, want));
	free(o.text);
	free(copy);
	/* Empty: nothing, fine. Missing file, no file, unknown option. */
	write_file(path, (const uint8_t *)"", 0);
	o = run(cmd, true);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.text, "");
	free(o.text);
	snprintf(cmd, sizeof(cmd), "%s spe-decode %s/no-such-file", tool, dir);
	o = run(cmd, true);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.text, "No such file"));
	free(o.text);
	snprintf(cmd, sizeof(cmd), "%s spe-decode", tool);
	o = run(cmd, true);
	assert_int_equal(o.status, 2);
	free(o.text);
	snprintf(cmd, sizeof(cmd), "%s spe-decode --bogus x", tool);
	o = run(cmd, true);
	assert_int_equal(o.status, 2);
	free(o.text);
	scen_free(m);
}

int main(int argc, char **argv)
{
	/* build/tests/scenario/<this> -> build/perfvisor, scratch files in build/tests/scenario. */
	(void)argc;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	snprintf(tool, sizeof(tool), "%s/../../perfvisor", dir);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_match_truth),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
