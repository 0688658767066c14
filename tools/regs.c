/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor regs`: the register coverage table, generated from the trap layer's register
 * table (pv_reg_table), so the document can never disagree with what the trap dispatch does.
 *
 *   perfvisor regs [--format text|markdown]
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "perfvisor/trap.h"
#include "tool.h"

enum regs_column {
	COL_NAME,
	COL_ENCODING,
	COL_OP0,
	COL_OP1,
	COL_CRN,
	COL_CRM,
	COL_OP2,
	COL_INDEX,
	COL_MODULE,
	COL_HANDLER,
	COL_ACCESS,
	COL_EL0,
	COL_FEATURE,
	COL_BEHAVIOUR,
	COL_COUNT
};

static const char *const column_title[COL_COUNT] = {
	"Register", "Encoding", "Op0",     "Op1",    "CRn", "CRm",     "Op2",
	"Index",    "Module",   "Handler", "Access", "EL0", "Feature", "Behaviour",
};

#define CELL_SIZE 256

struct regs_row {
	char cell[COL_COUNT][CELL_SIZE];
};

/* The values a key field takes across an entry: fixed bits from `key`, the bits `mask`
 * leaves out are free. */
struct field_range {
	unsigned lo, hi;
};

static struct field_range field_range(uint32_t key, uint32_t mask, unsigned shift,
				      unsigned width_mask)
{
	unsigned fixed = (key >> shift) & width_mask;
	unsigned free_bits = ~(mask >> shift) & width_mask;
	struct field_range r = {fixed & ~free_bits, (fixed & ~free_bits) | free_bits};
	return r;
}

static void format_range(char *out, size_t size, struct field_range r)
{
	if (r.lo == r.hi)
		snprintf(out, size, "%u", r.lo);
	else
		snprintf(out, size, "%u..%u", r.lo, r.hi);
}

/* Same, for the S<op0>_<op1>_C<n>_C<m>_<op2> spelling: braces around a range. */
static void format_encoding_part(char *out, size_t size, const char *prefix,
				 struct field_range r)
{
	if (r.lo == r.hi)
		snprintf(out, size, "%s%u", prefix, r.lo);
	else
		snprintf(out, size, "%s{%u..%u}", prefix, r.lo, r.hi);
}

static const char *module_name(const struct pv_reg_desc *d)
{
	/* A register without handlers is answered by the trap layer itself (UNDEF). */
	if (!d->read && !d->write)
		return "trap";
	switch (d->kind) {
	case PV_KIND_PMU:
		return "vpmu";
	case PV_KIND_SPE:
		return "vspe";
	case PV_KIND_AMU:
		return "vamu";
	case PV_KIND_MPAM:
		return "vmpam";
	case PV_KIND_ID:
		return "trap";
	default:
		return "?";
	}
}

static const char *access_name(unsigned access)
{
	switch (access) {
	case PV_ACC_RW:
		return "RW";
	case PV_ACC_RO:
		return "RO";
	case PV_ACC_WO:
		return "WO";
	default:
		return "?";
	}
}

/* Feature and lowest version, as the Arm ARM names them (ID field values: PMUVer in
 * ID_AA64DFR0_EL1, PMSVer in ID_AA64DFR0_EL1, AMU in ID_AA64PFR0_EL1). */
static void format_feature(char *out, size_t size, const struct pv_reg_desc *d)
{
	const char *name = NULL;
	switch (d->feature) {
	case 0:
		name = "-";
		break;
	case PV_FEAT_PMU:
		switch (d->min_version) {
		case PV_PMUVER_V3:
			name = "PMUv3";
			break;
		case PV_PMUVER_V3P1:
			name = "PMUv3p1";
			break;
		case PV_PMUVER_V3P4:
			name = "PMUv3p4";
			break;
		case PV_PMUVER_V3P5:
			name = "PMUv3p5";
			break;
		case PV_PMUVER_V3P7:
			name = "PMUv3p7";
			break;
		case PV_PMUVER_V3P8:
			name = "PMUv3p8";
			break;
		case PV_PMUVER_V3P9:
			name = "PMUv3p9";
			break;
		default:
			break;
		}
		break;
	case PV_FEAT_SPE:
		switch (d->min_version) {
		case 1:
			name = "SPE";
			break;
		case 2:
			name = "SPEv1p1";
			break;
		case 3:
			name = "SPEv1p2";
			break;
		case 4:
			name = "SPEv1p3";
			break;
		default:
			break;
		}
		break;
	case PV_FEAT_AMU:
		switch (d->min_version) {
		case 1:
			name = "AMUv1";
			break;
		case 2:
			name = "AMUv1p1";
			break;
		default:
			break;
		}
		break;
	case PV_FEAT_MPAM:
		if (d->min_version <= 1)
			name = "MPAM";
		break;
	default:
		break;
	}
	if (name) {
		snprintf(out, size, "%s", name);
		return;
	}
	/* A combination the names above do not cover: show the raw values. */
	snprintf(out, size, "feature 0x%x, version %u", d->feature, d->min_version);
}

/* Which members of a family exist: its range, and what the VM decides (gate). */
static void format_index(char *out, size_t size, const struct pv_reg_desc *d)
{
	const char *gate = "";
	switch (d->gate) {
	case PV_GATE_PMEV:
		gate = ", n < PMCR_EL0.N";
		break;
	case PV_GATE_AMEV0:
		gate = ", n < 4";
		break;
	case PV_GATE_AMEV1:
		gate = ", n < the auxiliary counters";
		break;
	case PV_GATE_AUX:
		gate = "with an auxiliary counter";
		break;
	default:
		break;
	}
	if (d->first == d->last)
		snprintf(out, size, "%s", *gate ? gate : "-");
	else if (d->gate == PV_GATE_ID)
		snprintf(out, size, "CRm = %u..%u, Op2 = 0..7", PV_SYSREG_CRM(d->key),
			 PV_SYSREG_CRM(d->key) + (d->last - d->first) / 8u);
	else
		snprintf(out, size, "n = %u..%u%s", d->first, d->last, gate);
}

/* The EL0 rule of one direction, as the Arm ARM's accessibility pseudocode reads. */
static const char *el0_rule_name(unsigned rule, char *buf, size_t size)
{
	switch (PV_EL0_KIND(rule)) {
	case PV_EL0_ANY:
		return "yes";
	case PV_EL0_AMU:
		return "AMUSERENR.EN";
	case PV_EL0_IDST:
		return "IDST: to EL1";
	case PV_EL0_PMU(0): {
		static const struct {
			unsigned bit;
			const char *name;
		} bits[] = {
			{PV_PMUSERENR_EN, "EN"},
			{PV_PMUSERENR_ER, "ER"},
			{PV_PMUSERENR_CR, "CR"},
			{PV_PMUSERENR_SW, "SW"},
		};
		size_t at = (size_t)snprintf(buf, size, "PMUSERENR.");
		for (size_t i = 0, n = 0; i < sizeof(bits) / sizeof(bits[0]) && at < size; i++)
			if (rule & bits[i].bit)
				at += (size_t)snprintf(buf + at, size - at, "%s%s",
						       n++ ? " or " : "", bits[i].name);
		return buf;
	}
	default:
		return "UNDEF";
	}
}

static void format_el0(char *out, size_t size, const struct pv_reg_desc *d)
{
	char rd[48], wr[48];
	const char *r = d->read ? el0_rule_name(d->el0_read, rd, sizeof(rd)) : NULL;
	const char *w = d->write ? el0_rule_name(d->el0_write, wr, sizeof(wr)) : NULL;
	if (r && w && strcmp(r, w) == 0)
		snprintf(out, size, "%s", r);
	else if (r && w)
		snprintf(out, size, "read %s; write %s", r, w);
	else if (r || w)
		snprintf(out, size, "%s", r ? r : w);
	else
		snprintf(out, size, "UNDEF");
}

/* The handlers' C names, as the database writes them, so that a search for one finds both
 * its row there and its line here: read first, ", " between. */
static void format_handlers(char *out, size_t size, const struct pv_reg_desc *d)
{
	const char *r = d->read_name ? d->read_name : "";
	const char *w = d->write_name ? d->write_name : "";
	snprintf(out, size, "%s%s%s", r, *r && *w ? ", " : "", *r || *w ? w : "-");
}

static void fill_row(struct regs_row *row, const struct pv_reg_desc *d)
{
	struct field_range op0 = field_range(d->key, d->mask, PV_ISS_SYS_OP0_SHIFT, 0x3);
	struct field_range op1 = field_range(d->key, d->mask, PV_ISS_SYS_OP1_SHIFT, 0x7);
	struct field_range crn = field_range(d->key, d->mask, PV_ISS_SYS_CRN_SHIFT, 0xF);
	struct field_range crm = field_range(d->key, d->mask, PV_ISS_SYS_CRM_SHIFT, 0xF);
	struct field_range op2 = field_range(d->key, d->mask, PV_ISS_SYS_OP2_SHIFT, 0x7);
	if (d->first != d->last) {
		/* A family's members only: the ID group is CRm 1..7 (CRm = 0 holds MIDR_EL1 and
		 * friends), PMEVTYPER<n> stops before PMCCFILTR_EL0's slot. */
		unsigned crm0 = PV_SYSREG_CRM(d->key) - d->first / 8u;
		crm.lo = crm0 + d->first / 8u;
		crm.hi = crm0 + d->last / 8u;
	}

	char parts[5][32];
	format_encoding_part(parts[0], sizeof(parts[0]), "S", op0);
	format_encoding_part(parts[1], sizeof(parts[1]), "", op1);
	format_encoding_part(parts[2], sizeof(parts[2]), "C", crn);
	format_encoding_part(parts[3], sizeof(parts[3]), "C", crm);
	format_encoding_part(parts[4], sizeof(parts[4]), "", op2);

	snprintf(row->cell[COL_NAME], CELL_SIZE, "%s", d->name ? d->name : "?");
	snprintf(row->cell[COL_ENCODING], CELL_SIZE, "%s_%s_%s_%s_%s", parts[0], parts[1],
		 parts[2], parts[3], parts[4]);
	format_range(row->cell[COL_OP0], CELL_SIZE, op0);
	format_range(row->cell[COL_OP1], CELL_SIZE, op1);
	format_range(row->cell[COL_CRN], CELL_SIZE, crn);
	format_range(row->cell[COL_CRM], CELL_SIZE, crm);
	format_range(row->cell[COL_OP2], CELL_SIZE, op2);
	format_index(row->cell[COL_INDEX], CELL_SIZE, d);
	snprintf(row->cell[COL_MODULE], CELL_SIZE, "%s", module_name(d));
	format_handlers(row->cell[COL_HANDLER], CELL_SIZE, d);
	snprintf(row->cell[COL_ACCESS], CELL_SIZE, "%s", access_name(d->access));
	format_feature(row->cell[COL_FEATURE], CELL_SIZE, d);
	format_el0(row->cell[COL_EL0], CELL_SIZE, d);
	snprintf(row->cell[COL_BEHAVIOUR], CELL_SIZE, "%s", d->behaviour ? d->behaviour : "");
}

static void print_text(const struct pv_reg_desc *table, size_t count)
{
	size_t width[COL_COUNT];
	struct regs_row row = {0};
	for (unsigned c = 0; c < COL_COUNT; c++)
		width[c] = strlen(column_title[c]);
	for (size_t i = 0; i < count; i++) {
		fill_row(&row, &table[i]);
		for (unsigned c = 0; c < COL_COUNT; c++)
			if (strlen(row.cell[c]) > width[c])
				width[c] = strlen(row.cell[c]);
	}
	/* The last column is not padded, so lines carry no trailing blanks. */
	for (unsigned c = 0; c < COL_COUNT; c++)
		printf("%-*s%s", c + 1 < COL_COUNT ? (int)width[c] : 0, column_title[c],
		       c + 1 < COL_COUNT ? "  " : "\n");
	for (size_t i = 0; i < count; i++) {
		fill_row(&row, &table[i]);
		for (unsigned c = 0; c < COL_COUNT; c++)
			printf("%-*s%s", c + 1 < COL_COUNT ? (int)width[c] : 0, row.cell[c],
			       c + 1 < COL_COUNT ? "  " : "\n");
	}
}

/* Markdown cell text: `<n>` would be read as an HTML tag and `|` would end the cell. */
static void print_markdown_text(const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", stdout);
			break;
		case '>':
			fputs("&gt;", stdout);
			break;
		case '&':
			fputs("&amp;", stdout);
			break;
		case '|':
			fputs("\\|", stdout);
			break;
		default:
			putchar(*s);
			break;
		}
	}
}

/* Register names and encodings as code spans; only `|` needs escaping inside them. */
static void print_markdown_code(const char *s)
{
	putchar('`');
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
	putchar('`');
}

/* A list of C names, ", " between: each a code span ("-" for none stays text). */
static void print_markdown_names(const char *s)
{
	if (strcmp(s, "-") == 0) {
		putchar('-');
		return;
	}
	for (const char *end; *s; s = *end ? end + 2 : end) {
		end = strstr(s, ", ");
		if (!end)
			end = s + strlen(s);
		printf("`%.*s`", (int)(end - s), s);
		if (*end)
			fputs(", ", stdout);
	}
}

static void print_markdown(const struct pv_reg_desc *table, size_t count)
{
	struct regs_row row = {0};
	fputs("|", stdout);
	for (unsigned c = 0; c < COL_COUNT; c++)
		printf(" %s |", column_title[c]);
	fputs("\n|", stdout);
	for (unsigned c = 0; c < COL_COUNT; c++)
		fputs(" --- |", stdout);
	putchar('\n');
	for (size_t i = 0; i < count; i++) {
		fill_row(&row, &table[i]);
		putchar('|');
		for (unsigned c = 0; c < COL_COUNT; c++) {
			putchar(' ');
			bool as_code = (c == COL_NAME && !strchr(row.cell[c], ' ')) ||
				       c == COL_ENCODING;
			if (c == COL_HANDLER)
				print_markdown_names(row.cell[c]);
			else if (as_code)
				print_markdown_code(row.cell[c]);
			else
				print_markdown_text(row.cell[c]);
			fputs(" |", stdout);
		}
		putchar('\n');
	}
}

static void regs_usage(FILE *out)
{
	fputs("usage: perfvisor regs [options]\n"
	      "Prints the system registers perfvisor traps: encoding, owning module and its\n"
	      "handlers, access, the feature and version that bring the register, and what a\n"
	      "guest sees.\n"
	      "\n"
	      "options:\n"
	      "  -f, --format F  text (default) or markdown\n"
	      "  -h, --help      this text\n",
	      out);
}

int tool_regs(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	static const char *const hints[] = {"text, markdown", NULL, NULL};
	const struct tool_options o = {
		.cmd = "regs", .shortopts = "f:h", .longopts = opts, .hints = hints};
	enum { FORMAT_TEXT, FORMAT_MARKDOWN } format = FORMAT_TEXT;
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0) {
				format = FORMAT_TEXT;
			} else if (strcmp(optarg, "markdown") == 0 ||
				   strcmp(optarg, "md") == 0) {
				format = FORMAT_MARKDOWN;
			} else {
				fprintf(stderr,
					"perfvisor regs: unknown format '%s' (text, "
					"markdown)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			regs_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "perfvisor regs: unexpected argument '%s'\n", argv[optind]);
		fputs("Try 'perfvisor regs --help' for its options.\n", stderr);
		return 2;
	}

	size_t count = 0;
	const struct pv_reg_desc *table = pv_reg_table(&count);
	if (format == FORMAT_MARKDOWN)
		print_markdown(table, count);
	else
		print_text(table, count);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("perfvisor regs: writing the table");
		return 1;
	}
	return 0;
}
