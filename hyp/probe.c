/* SPDX-License-Identifier: MIT */
/*
 * What the CPU's PMU does, found at boot by trying it, before any VM: the QEMU 7.2
 * workarounds (el2/qemu72.c, timer.c's overflow poll, the host counter kept from
 * passthrough and direct VMs) are on where the PMU has the deviation and off where it
 * behaves as the Arm ARM says, whatever the CPU's name. Each probe writes the PMU and the
 * MDCR_EL2 and fine-grained trap controls directly (not through the platform's accessors,
 * which track what the vPMU programs) and leaves the counters it used disabled, zero and
 * with no overflow or interrupt enable: pv_pcpu_setup() then starts from a quiet PMU.
 *
 *   overflow: an event counter preset 100 counts short of its overflow, counting CPU_CYCLES
 *     at EL2, must have its PMOVSSET_EL0 bit set 10 us later without being read (D13.3.1:
 *     the overflow is flagged when the counter wraps). QEMU flags it only at the counter's
 *     next read or write: the overflow poll lets it see one.
 *   line: with PMCR_EL0.E, PMINTEN and an overflow (a SW_INCR from all ones) the PMU
 *     interrupt (PPI 23) is pending at the redistributor; PMCR_EL0.E = 0 must drop it
 *     (D13.3.1: the request is PMCR_EL0.E && PMINTEN & PMOVS). QEMU 7.2 and 10.0 compute the
 *     line at PMINTEN and PMOVS writes only: the resync writes PMOVSSET_EL0.
 *   hiding: with MDCR_EL2.HPMN = h, for every h from 1 to N - 1 (host_counters=N makes any
 *     of them the partition), and neither TPM nor a fine-grained trap, EL1 must not reach
 *     counter h (D13.1.1, D24.5.10), which a VM that owns its PMU registers
 *     (passthrough, direct) writes untrapped: its PMEVCNTR<n>_EL0 read UNDEFs (or traps to
 *     EL2 with FEAT_FGT), and so does PMXEVCNTR_EL0 with PMSELR_EL0.SEL = h (D24.5.27);
 *     its bit of PMCNTENSET/CLR_EL0, PMINTENSET/CLR_EL1, PMOVSSET/CLR_EL0 and PMSWINC_EL0
 *     is RAZ/WI (D24.5.6, D24.5.7, D24.5.17, D24.5.18, D24.5.20, D24.5.21, D24.5.24: set at
 *     EL2, EL1's clears leave it, and the reverse, and a SW_INCR write does not count),
 *     PMCR_EL0.P spares it and PMCR_EL0.N reads HPMN (D24.5.8). QEMU gives EL1 every counter
 *     but N: the hypervisor then keeps no counter from a VM that owns the PMU's registers
 *     unless told to.
 *   fine-grained traps (FEAT_FGT): each register the direct mode traps by its HDFGRTR_EL2
 *     or HDFGWTR_EL2 bit (PV_FGT_DIRECT_*: D24.2.67, D24.2.69) must trap from EL1, each read
 *     and each write, PMXEVTYPER_EL0 as PMEVTYPER<n>_EL0 does (one bit: a type that reached
 *     the hardware through it would not be sanitised), with PMSELR_EL0.SEL 0 and 31; and
 *     from EL0 too, with PMUSERENR_EL0.EN set (all but PMMIR_EL1, which EL0 cannot reach):
 *     the ones that do not are named.
 * The EL1 probes run a few instructions at EL1 with stage 2 off (el1_probe.S), at boot only.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

uint64_t el1_probe(const void *code, uint64_t arg, uint64_t *x0);
uint64_t el0_probe(const void *code, uint64_t arg, uint64_t *esr_el1);
extern const char probe_el1_evcntr[], probe_el1_cntenset[], probe_el1_pmcr_p[],
	probe_el1_hide[], probe_el1_fgt[], probe_el0_fgt[];

#define PMCR_EL0 S3_3_C9_C12_0
#define PMCNTENSET_EL0 S3_3_C9_C12_1
#define PMCNTENCLR_EL0 S3_3_C9_C12_2
#define PMOVSCLR_EL0 S3_3_C9_C12_3
#define PMXEVTYPER_EL0 S3_3_C9_C13_1
#define PMSWINC_EL0 S3_3_C9_C12_4
#define PMSELR_EL0 S3_3_C9_C12_5
#define PMXEVCNTR_EL0 S3_3_C9_C13_2
#define PMOVSSET_EL0 S3_3_C9_C14_3
#define PMINTENSET_EL1 S3_0_C9_C14_1
#define PMINTENCLR_EL1 S3_0_C9_C14_2
#define PMEVCNTR0_EL0 S3_3_C14_C8_0
#define PMEVTYPER0_EL0 S3_3_C14_C12_0
#define HDFGRTR_EL2 S3_4_C3_C1_4
#define HDFGWTR_EL2 S3_4_C3_C1_5
#define GICR_ISPENDR0 (GICR_SGI_BASE + 0x0200)
#define HCR_RW (1ul << 31)
#define SCTLR_EL1_OFF 0x30D00800ul /* RES1 bits, MMU and caches off */
#define ESR_EC_HVC64 0x16u

/* The registers of probe_el1_fgt, in its order (el1_probe.S); their bits are the direct
 * mode's words, PV_FGT_DIRECT_READ and PV_FGT_DIRECT_WRITE. PMXEVTYPER_EL0 is probed with
 * PMSELR_EL0.SEL 0 and 31: with 31 it is PMCCFILTR_EL0, but its trap is still the
 * PMEVTYPERn_EL0 bit (D24.5, PMXEVTYPER_EL0's accessibility), so a PE that consulted
 * PMCCFILTR_EL0's there, or none, would let a type through unsanitised. */
static const struct {
	const char *name;
	uint64_t bit;  /* in HDFGRTR_EL2 (reads) or HDFGWTR_EL2 (writes) */
	unsigned v3p4; /* PMMIR_EL1 exists from PMUv3p4 */
	bool write;
	uint8_t sel;   /* PMSELR_EL0.SEL while it is probed */
	bool el1_only; /* not probed from EL0, where it UNDEFs */
} fgt_regs[] = {
	{"PMEVTYPER<n>_EL0", PV_HDFGRTR_EL2_PMEVTYPERn_EL0, 0, false, 0, false},
	{"PMXEVTYPER_EL0", PV_HDFGRTR_EL2_PMEVTYPERn_EL0, 0, false, 0, false},
	{"PMCCFILTR_EL0", PV_HDFGRTR_EL2_PMCCFILTR_EL0, 0, false, 0, false},
	{"PMCEID0_EL0", PV_HDFGRTR_EL2_PMCEIDn_EL0, 0, false, 0, false},
	{"PMCEID1_EL0", PV_HDFGRTR_EL2_PMCEIDn_EL0, 0, false, 0, false},
	{"PMMIR_EL1", PV_HDFGRTR_EL2_PMMIR_EL1, 1, false, 0, true},
	{"PMEVTYPER<n>_EL0", PV_HDFGWTR_EL2_PMEVTYPERn_EL0, 0, true, 0, false},
	{"PMXEVTYPER_EL0", PV_HDFGWTR_EL2_PMEVTYPERn_EL0, 0, true, 0, false},
	{"PMCCFILTR_EL0", PV_HDFGWTR_EL2_PMCCFILTR_EL0, 0, true, 0, false},
	{"PMXEVTYPER_EL0 (SEL 31)", PV_HDFGRTR_EL2_PMEVTYPERn_EL0, 0, false, 31, false},
	{"PMXEVTYPER_EL0 (SEL 31)", PV_HDFGWTR_EL2_PMEVTYPERn_EL0, 0, true, 31, false},
};
#define NR_FGT_REGS (sizeof(fgt_regs) / sizeof(fgt_regs[0]))
#define FGT_EL0 16u /* fgt_untrapped: bits [0, 16) from EL1, [16, 32) from EL0 */
_Static_assert(NR_FGT_REGS <= FGT_EL0, "struct pmu_probe: fgt_untrapped has 2 x 16 bits");

/* The guests' counters, and the probe's counter 0, disabled, quiet and zero. */
static void pmu_quiet(void)
{
	write_sysreg(PMCNTENCLR_EL0, 0xFFFFFFFFul);
	write_sysreg(PMINTENCLR_EL1, 0xFFFFFFFFul);
	write_sysreg(PMOVSCLR_EL0, 0xFFFFFFFFul);
	write_sysreg(PMCR_EL0, PV_PMCR_LC);
	write_sysreg(PMEVTYPER0_EL0, 0ul);
	write_sysreg(PMEVCNTR0_EL0, 0ul);
	isb();
}

static bool overflow_late(void)
{
	write_sysreg(PMEVTYPER0_EL0, PV_EVT_CPU_CYCLES | PV_PMEVTYPER_NSH);
	write_sysreg(PMEVCNTR0_EL0, 0xFFFFFFFFul - 100);
	write_sysreg(PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	write_sysreg(PMCNTENSET_EL0, 1ul);
	isb();
	uint64_t t0 = timer_now(), wait = read_sysreg(cntfrq_el0) / 100000; /* 10 us */
	while (timer_now() - t0 < wait)
		;
	isb();
	uint64_t ovs = read_sysreg(PMOVSSET_EL0);
	bool flagged = ovs & 1;
	pmu_quiet();
	return !flagged;
}

static bool pmu_ppi_pending(void)
{
	dsb(sy);
	return mmio_read32(GICR_ISPENDR0) & (1u << PV_INTID_PMU);
}

/* Stale unless seen to drop; also when the overflow did not raise it (nothing known). */
static bool line_stale(void)
{
	write_sysreg(PMEVTYPER0_EL0, PV_EVT_SW_INCR | PV_PMEVTYPER_NSH);
	write_sysreg(PMEVCNTR0_EL0, 0xFFFFFFFFul);
	write_sysreg(PMINTENSET_EL1, 1ul);
	write_sysreg(PMCNTENSET_EL0, 1ul);
	write_sysreg(PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	isb();
	write_sysreg(PMSWINC_EL0, 1ul);
	isb();
	bool raised = pmu_ppi_pending();
	write_sysreg(PMCR_EL0, PV_PMCR_LC);
	isb();
	bool stale = pmu_ppi_pending();
	pmu_quiet();
	return !raised || stale;
}

/* An EL1 probe's access completed (its HVC #0 came), rather than UNDEF (HVC #1) or a trap. */
static bool completed(uint64_t esr)
{
	return PV_ESR_EC(esr) == ESR_EC_HVC64 && (esr & 0xFFFF) == 0;
}

/* The entries of probe_el1_hide, in its order (el1_probe.S): x0 written to each. */
enum {
	HIDE_CNTENCLR,
	HIDE_INTENSET,
	HIDE_INTENCLR,
	HIDE_OVSSET,
	HIDE_OVSCLR,
	HIDE_SWINC,
	HIDE_XEVCNTR
};

static uint64_t el1_hide(unsigned k, uint64_t arg)
{
	uint64_t x0 = 0;
	return el1_probe(probe_el1_hide + 8 * k, arg, &x0);
}

/* Bit `bit` of a SET/CLR pair stays as EL2 left it through an EL1 write of the other
 * register: set, then EL1's clear; clear, then EL1's set. */
static bool bit_hidden(uint64_t bit, uint64_t after_clear, uint64_t after_set)
{
	return (after_clear & bit) && !(after_set & bit);
}

/* With MDCR_EL2.HPMN = h, whether counter h, the first past it, is out of EL1's reach, as the
 * "hiding" probe above says. */
static bool hides_at(unsigned h)
{
	uint64_t x0 = 0, bit = 1ul << h;
	write_sysreg(mdcr_el2, PV_FIELD_PREP(PV_MDCR_EL2_HPMN, h) | PV_MDCR_EL2_HPME);
	isb();
	bool read_hidden = !completed(el1_probe(probe_el1_evcntr + 8 * h, 0, &x0));
	(void)el1_probe(probe_el1_cntenset, 1ul << h, &x0);
	uint64_t cnten = read_sysreg(PMCNTENSET_EL0);
	bool enable_hidden = !(cnten & (1ul << h));
	write_sysreg(PMCNTENCLR_EL0, 1ul << h);
	write_sysreg(PMSELR_EL0, (uint64_t)h);
	isb();
	write_sysreg(PMXEVCNTR_EL0, 0x1234ul);
	bool pmcr_ok = completed(el1_probe(probe_el1_pmcr_p, 0, &x0)) &&
		       PV_FIELD_GET(PV_PMCR_N, x0) == h;
	isb();
	uint64_t back = read_sysreg(PMXEVCNTR_EL0);
	bool reset_hidden = back == 0x1234ul;
	bool sel_hidden = !completed(el1_hide(HIDE_XEVCNTR, 0));
	/* The bitmaps, one register at a time (no overflow with its interrupt enabled). */
	write_sysreg(PMCNTENSET_EL0, bit);
	isb();
	(void)el1_hide(HIDE_CNTENCLR, bit);
	uint64_t cnten_clr = read_sysreg(PMCNTENSET_EL0);
	write_sysreg(PMINTENSET_EL1, bit);
	isb();
	(void)el1_hide(HIDE_INTENCLR, bit);
	uint64_t inten = read_sysreg(PMINTENSET_EL1);
	write_sysreg(PMINTENCLR_EL1, bit);
	isb();
	(void)el1_hide(HIDE_INTENSET, bit);
	uint64_t inten_set = read_sysreg(PMINTENSET_EL1);
	write_sysreg(PMINTENCLR_EL1, bit);
	write_sysreg(PMOVSSET_EL0, bit);
	isb();
	(void)el1_hide(HIDE_OVSCLR, bit);
	uint64_t ovs = read_sysreg(PMOVSSET_EL0);
	write_sysreg(PMOVSCLR_EL0, bit);
	isb();
	(void)el1_hide(HIDE_OVSSET, bit);
	uint64_t ovs_set = read_sysreg(PMOVSSET_EL0);
	write_sysreg(PMOVSCLR_EL0, bit);
	bool bits_hidden = (cnten_clr & bit) && bit_hidden(bit, inten, inten_set) &&
			   bit_hidden(bit, ovs, ovs_set);
	/* A SW_INCR counter past HPMN, enabled (HPME), counting at EL1: EL1's PMSWINC_EL0
	 * write of its bit does not count. */
	write_sysreg(PMXEVTYPER_EL0, (uint64_t)PV_EVT_SW_INCR);
	write_sysreg(PMXEVCNTR_EL0, 0ul);
	write_sysreg(PMCNTENSET_EL0, bit);
	isb();
	(void)el1_hide(HIDE_SWINC, bit);
	uint64_t swinc_count = read_sysreg(PMXEVCNTR_EL0);
	bool swinc_hidden = swinc_count == 0;
	write_sysreg(PMCNTENCLR_EL0, bit);
	write_sysreg(PMXEVCNTR_EL0, 0ul);
	write_sysreg(PMSELR_EL0, 0ul);
	pmu_quiet();
	bool hidden = read_hidden && enable_hidden && reset_hidden && pmcr_ok && sel_hidden &&
		      bits_hidden && swinc_hidden;
	return hidden;
}

/* Counters past HPMN hidden from EL1 at every HPMN a partition can have (1 to N - 1). */
static bool hpmn_hides(unsigned n)
{
	if (n < 2)
		return false; /* nothing to hide below N without FEAT_HPMN0: not known */
	for (unsigned h = 1; h < n; h++)
		if (!hides_at(h))
			return false;
	return true;
}

/* From EL0, with PMUSERENR_EL0.EN set so that EL0 reaches the fine-grained check (D24.5):
 * an access that trapped to EL2 comes back with its syndrome; any other end (it completed, and
 * its SVC came to EL1; or it went to EL1 otherwise) as HVC #2 (el1_probe.S). */
static bool el0_trapped(unsigned k)
{
	uint64_t esr_el1 = 0;
	uint64_t esr = el0_probe(probe_el0_fgt + 8 * k, 0, &esr_el1);
	return PV_ESR_EC(esr) == PV_EC_SYS64;
}

/* Bit k: fgt_regs[k] was reached from EL1 with its trap bit set; bit FGT_EL0 + k: from EL0. */
static uint32_t fgt_untrapped(void)
{
	uint64_t rd = 0, wr = 0, x0 = 0;
	uint32_t untrapped = 0;
	for (unsigned k = 0; k < NR_FGT_REGS; k++)
		*(fgt_regs[k].write ? &wr : &rd) |= fgt_regs[k].bit;
	if (rd != PV_FGT_DIRECT_READ || wr != PV_FGT_DIRECT_WRITE)
		hyp_panic("probe.c: fgt_regs is not the direct mode's words");
	write_sysreg(HDFGRTR_EL2, rd);
	write_sysreg(HDFGWTR_EL2, wr);
	for (unsigned k = 0; k < NR_FGT_REGS; k++) {
		if (fgt_regs[k].v3p4 && plat_feat.pmuver < PV_PMUVER_V3P4)
			continue;
		write_sysreg(PMSELR_EL0, (uint64_t)fgt_regs[k].sel); /* for PMXEVTYPER_EL0 */
		isb();
		uint64_t esr = el1_probe(probe_el1_fgt + 8 * k, 0, &x0);
		if (PV_ESR_EC(esr) != PV_EC_SYS64)
			untrapped |= 1u << k;
		write_sysreg(PMUSERENR_EL0, PV_PMUSERENR_EN);
		isb();
		if (!fgt_regs[k].el1_only && !el0_trapped(k))
			untrapped |= 1u << (FGT_EL0 + k);
		write_sysreg(PMUSERENR_EL0, 0ul);
	}
	write_sysreg(HDFGRTR_EL2, 0ul);
	write_sysreg(HDFGWTR_EL2, 0ul);
	write_sysreg(PMSELR_EL0, 0ul);
	isb();
	pmu_quiet();
	return untrapped;
}

void probe_pmu(void)
{
	struct pmu_probe *p = &hyp.probe;
	if (plat_feat.pmuver == PV_PMUVER_NI)
		return;
	unsigned n = (unsigned)PV_FIELD_GET(PV_PMCR_N, read_sysreg(PMCR_EL0));
	uint64_t hcr = read_sysreg(hcr_el2), mdcr = read_sysreg(mdcr_el2);
	/* Every counter the guests', EL2 counted (no HPMD): counter 0 counts here. */
	write_sysreg(mdcr_el2, PV_FIELD_PREP(PV_MDCR_EL2_HPMN, n));
	write_sysreg(hcr_el2, HCR_RW); /* EL1 is AArch64, with no stage 2 and no trap */
	write_sysreg(S3_0_C1_C0_0, SCTLR_EL1_OFF);
	if (plat_feat.fgt) {
		write_sysreg(HDFGRTR_EL2, 0ul);
		write_sysreg(HDFGWTR_EL2, 0ul);
	}
	isb();
	pmu_quiet();
	p->overflow_late = overflow_late();
	p->line_stale = line_stale();
	p->hpmn_hides = hpmn_hides(n);
	p->fgt_untrapped = plat_feat.fgt ? fgt_untrapped() : 0;
	write_sysreg(hcr_el2, hcr);
	write_sysreg(mdcr_el2, mdcr);
	isb();
	plat_feat.pmu_line_stale = p->line_stale;
	hyp_printf("hyp: the PMU: overflow flagged when a counter wraps: %s; interrupt line "
		   "follows PMCR_EL0.E: %s; counters past HPMN hidden from EL1: %s; FEAT_FGT: "
		   "%s\n",
		   p->overflow_late ? "no" : "yes", p->line_stale ? "no" : "yes",
		   p->hpmn_hides ? "yes" : "no", plat_feat.fgt ? "yes" : "no");
	if (p->fgt_untrapped) {
		hyp_puts("hyp: the PMU: fine-grained traps not taken:");
		for (unsigned k = 0; k < 2 * FGT_EL0; k++)
			if (p->fgt_untrapped & (1u << k))
				hyp_printf(" %s %s from EL%u", fgt_regs[k % FGT_EL0].name,
					   fgt_regs[k % FGT_EL0].write ? "write" : "read",
					   k < FGT_EL0 ? 1u : 0u);
		hyp_puts("\n");
	}
}
