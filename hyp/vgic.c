/* SPDX-License-Identifier: MIT */
/*
 * A minimal virtual GICv3 for one vCPU per VM (GIC architecture spec IHI 0069).
 *
 * The guest uses the ICC_* system registers directly: with HCR_EL2.IMO = 1 they are the
 * virtual CPU interface (ICV_*), backed by the list registers ICH_LR<n>_EL2 (spec 11.2.5).
 * The distributor and redistributor the guest touches are emulated from stage-2 faults:
 * GICD_CTLR/TYPER/IIDR/PIDR2, GICR_CTLR/TYPER/WAKER, and the SGI/PPI registers of the SGI
 * frame (IGROUPR0, I[SC]ENABLER0, I[SC]PENDR0, I[SC]ACTIVER0, IPRIORITYR, ICFGR), and the
 * distributor's SPI registers for INTIDs 32..63 (the PL011's is 33). Everything else in the
 * two frames is RAZ/WI.
 *
 * Interrupts are level lines (PMU, CNTV, the UART) or software latches (ISPENDR, SGIs). A deliverable
 * interrupt (pending, enabled, its group enabled) is put in a free list register with
 * LR.EOI = 1, so its deactivation raises a maintenance interrupt (spec 6.3, ICH_EISR_EL2),
 * at which point a line still asserted is made pending again: level semantics, and exactly one
 * delivery per assertion.
 *
 * A passthrough or direct vCPU's PMU interrupt (PV_IRQ_GUEST_MAPPED) is mapped instead: its
 * list register has HW = 1 and the physical INTID, so the guest's deactivation deactivates the
 * physical interrupt, which the hypervisor only acknowledged and priority-dropped, and the
 * next overflow reaches EL2 with no maintenance interrupt between (ICH_LR<n>_EL2.HW). The
 * physical interrupt's active state goes with the vCPU: given up at save, taken again at
 * restore while its list register still holds it.
 */
#include "hyp.h"

#define LR_PENDING (1ul << 62)
#define LR_ACTIVE (1ul << 63)
#define LR_STATE (LR_PENDING | LR_ACTIVE)
#define LR_GROUP1 (1ul << 60)
#define LR_EOI (1ul << 41) /* HW = 0 only: with HW = 1, bits [44:32] are the pINTID */
#define LR_HW (1ul << 61)
#define LR_PINTID_SHIFT 32
#define LR_PINTID(lr) ((unsigned)(((lr) >> LR_PINTID_SHIFT) & 0x1FFFu))
#define LR_PRIO_SHIFT 48
#define PRIO_MASK 0xF8u /* 5 priority bits (ICH_VTR_EL2.PRIbits = 4) */

/* clang-format off */
#define LR_CASES(X)                                                                              \
	X(0, S3_4_C12_C12_0) X(1, S3_4_C12_C12_1) X(2, S3_4_C12_C12_2) X(3, S3_4_C12_C12_3)       \
	X(4, S3_4_C12_C12_4) X(5, S3_4_C12_C12_5) X(6, S3_4_C12_C12_6) X(7, S3_4_C12_C12_7)       \
	X(8, S3_4_C12_C13_0) X(9, S3_4_C12_C13_1) X(10, S3_4_C12_C13_2) X(11, S3_4_C12_C13_3)     \
	X(12, S3_4_C12_C13_4) X(13, S3_4_C12_C13_5) X(14, S3_4_C12_C13_6) X(15, S3_4_C12_C13_7)
/* clang-format on */

static uint64_t lr_hw_read(unsigned n)
{
	switch (n) {
#define RD(i, r)                                                                               \
	case i:                                                                                \
		return read_sysreg(r);
		LR_CASES(RD)
#undef RD
	}
	return 0;
}

static void lr_hw_write(unsigned n, uint64_t v)
{
	switch (n) {
#define WR(i, r)                                                                               \
	case i:                                                                                \
		write_sysreg(r, v);                                                            \
		break;
		LR_CASES(WR)
#undef WR
	}
}

static bool hw_loaded(const struct vcpu *v)
{
	return v->vgic.hw;
}

static uint64_t lr_get(struct vcpu *v, unsigned n)
{
	return hw_loaded(v) ? lr_hw_read(n) : v->vgic.lr[n];
}

static void lr_set(struct vcpu *v, unsigned n, uint64_t val)
{
	if (hw_loaded(v))
		lr_hw_write(n, val);
	else
		v->vgic.lr[n] = val;
}

#define BIT(intid) (1ul << (intid))
#define LR_INTID(lr) ((unsigned)(0xFFFFFFFFul & (lr)))

/* A passthrough or direct vCPU's: it may have its PMU interrupt mapped (vgic_inject_mapped). */
static bool has_mapped(const struct vcpu *v)
{
	return v->pmu_mapped;
}

/* Enabled, and its group enabled in the virtual GICD_CTLR. */
static uint64_t presentable(const struct vgic_cpu *g)
{
	uint64_t groups = 0;
	if (g->gicd_ctlr & 2u)
		groups |= g->group;
	if (g->gicd_ctlr & 1u)
		groups |= ~g->group;
	return g->enabled & groups;
}

/* Pending (line or latch) and presentable. */
static uint64_t deliverable(const struct vgic_cpu *g)
{
	return (g->line | g->latch) & presentable(g);
}

/* Hold a mapped interrupt back: its PPI disabled, the disable complete, then deactivated,
 * so that its level, still high, does not make it pending again at once. */
static __attribute__((noinline, cold)) void mapped_hold(struct vgic_cpu *g, uint32_t intid)
{
	gic_disable_ppi_sync(intid);
	gic_deactivate(intid);
	g->pmu_masked = true;
}

/* Let a held-back mapped interrupt through again: its PPI, still pending while its level is
 * high, comes back. */
static void mapped_release(struct vgic_cpu *g)
{
	g->pmu_masked = false;
	gic_enable_ppi(PV_INTID_PMU, true);
}

/* Mapped interrupts pending in the list registers `lrs` that the guest can no longer take:
 * out of them, and held back. Returns the list registers freed. Out of line, after the
 * loop: vgic_update's loop stays as lean as without mappings. */
static __attribute__((noinline, cold)) uint32_t mapped_withdraw(struct vcpu *v, uint32_t lrs)
{
	struct vgic_cpu *g = &v->vgic;
	uint32_t freed = 0;
	for (; lrs && hw_loaded(v); lrs &= lrs - 1) {
		unsigned n = (unsigned)__builtin_ctz(lrs);
		uint64_t lr = lr_hw_read(n);
		if (presentable(g) & BIT(LR_INTID(lr)))
			continue;
		lr_hw_write(n, 0);
		mapped_hold(g, LR_PINTID(lr));
		freed |= 1u << n;
	}
	return freed;
}

/* Bring the list registers in line with the virtual interrupt state. A latch (software
 * pending state) stays set while its interrupt is pending in a list register and is consumed
 * when the guest acknowledges it (the LR is seen active) or deactivates it (maintenance). */
static void vgic_update(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	uint64_t want = deliverable(g);
	uint64_t held = 0;
	uint32_t free_lrs = 0, mapped_pending = 0;
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		uint64_t lr = lr_get(v, n);
		uint64_t bit = LR_INTID(lr) < VGIC_NR_IRQS ? BIT(LR_INTID(lr)) : 0;
		if (!(lr & LR_STATE)) {
			/* Deactivated by the guest: its latch is consumed. (A mapped one's
			 * pINTID, 23, leaves bit 41 clear.) */
			if (lr & LR_EOI) {
				g->latch &= ~bit;
				lr_set(v, n, 0);
			}
			free_lrs |= 1u << n;
			continue;
		}
		if (lr & LR_HW) {
			/* Mapped: the physical line is its level. One the guest can no longer
			 * take (disabled, its group off) and has not acknowledged is withdrawn,
			 * and held back until it can. */
			if ((lr & LR_STATE) == LR_PENDING)
				mapped_pending |= 1u << n;
			held |= bit;
			continue;
		}
		if (!(lr & LR_PENDING))
			g->latch &= ~bit; /* acknowledged */
		else if (!(want & bit)) {
			/* A level that dropped, or a cleared latch, loses its pending state. */
			lr &= ~LR_PENDING;
			lr_set(v, n, (lr & LR_STATE) ? lr : 0);
			if (!(lr & LR_STATE)) {
				free_lrs |= 1u << n;
				continue;
			}
		}
		held |= bit;
	}
	if (__builtin_expect(mapped_pending != 0, 0)) {
		uint32_t freed = mapped_withdraw(v, mapped_pending);
		free_lrs |= freed;
		if (freed)
			held &= ~BIT(PV_INTID_PMU);
	}
	/* What is deliverable now: the loop may have consumed latches it found acknowledged or
	 * deactivated, which must not be injected again. */
	uint64_t todo = deliverable(g) & ~held;
	while (todo && free_lrs) {
		unsigned intid = (unsigned)__builtin_ctzl(todo);
		unsigned n = (unsigned)__builtin_ctz(free_lrs);
		todo &= todo - 1;
		free_lrs &= free_lrs - 1;
		uint64_t lr = LR_PENDING | LR_EOI |
			      ((uint64_t)g->prio[intid] << LR_PRIO_SHIFT) | intid;
		if (g->group & BIT(intid))
			lr |= LR_GROUP1;
		lr_set(v, n, lr);
	}
	/* A mapped interrupt held back (vgic_inject_mapped) is let through again once it can be
	 * presented: the physical PPI, still pending while its overflow is, comes back. */
	if (g->pmu_masked && hw_loaded(v) && (presentable(g) & BIT(PV_INTID_PMU)) && free_lrs &&
	    !(held & BIT(PV_INTID_PMU)))
		mapped_release(g);
}

/* Present a passthrough or direct vCPU's physical PMU interrupt, acknowledged and
 * priority-dropped by the caller, as its own INTID, mapped. One the guest cannot take now
 * (its INTID disabled, its group off, no list register free, or its INTID already in one, as
 * a software pending state it latched: no two list registers may hold one vINTID,
 * ICH_LR<n>_EL2) is held back until it can (vgic_update): it is level-sensitive, so nothing
 * is lost. */
void vgic_inject_mapped(struct vcpu *v, uint32_t intid)
{
	struct vgic_cpu *g = &v->vgic;
	/* ICH_ELRSR_EL2: the empty list registers (state 0, and HW = 1 or no EOI pending). Of
	 * the others, none may hold its INTID: only a software pending state the guest latched
	 * can be there (its physical interrupt is not active, so no mapped one is). */
	uint32_t all = (1u << hyp.nr_lr) - 1;
	uint32_t empty = (uint32_t)read_sysreg(S3_4_C12_C11_5) & all;
	bool taken = false;
	for (uint32_t live = all & ~empty; live && !taken; live &= live - 1)
		taken = LR_INTID(lr_hw_read((unsigned)__builtin_ctz(live))) == intid;
	if (!(presentable(g) & BIT(intid)) || !empty || taken) {
		mapped_hold(g, intid);
		return;
	}
	uint64_t lr = LR_PENDING | LR_HW | ((uint64_t)intid << LR_PINTID_SHIFT) |
		      ((uint64_t)g->prio[intid] << LR_PRIO_SHIFT) | intid;
	if (g->group & BIT(intid))
		lr |= LR_GROUP1;
	lr_hw_write((unsigned)__builtin_ctz(empty), lr);
}

/* Its mapped interrupt pending in a list register: a wake-up event for WFI, as any pending
 * interrupt. */
static bool mapped_lr_pending(struct vcpu *v)
{
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		uint64_t lr = lr_get(v, n);
		if ((lr & LR_HW) && (lr & LR_PENDING))
			return true;
	}
	return false;
}

void vgic_init(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	memset(g, 0, sizeof(*g));
	g->waker = 1u << 1; /* GICR_WAKER.ProcessorSleep resets to 1 */
}

/* A WFI wake-up event for the vCPU (Arm ARM D1.7.2.1): an interrupt pending, enabled and
 * in an enabled group. Its priority against the priority mask is not looked at: WFI may
 * complete early, never late. */
bool vgic_pending(struct vcpu *v)
{
	return deliverable(&v->vgic) != 0 || (has_mapped(v) && mapped_lr_pending(v));
}

void vgic_set_line(struct vcpu *v, uint32_t intid, bool level)
{
	if (intid >= VGIC_NR_IRQS)
		return;
	uint64_t line = level ? v->vgic.line | BIT(intid) : v->vgic.line & ~BIT(intid);
	if (line == v->vgic.line)
		return;
	v->vgic.line = line;
	vgic_update(v);
}

/* Its physical active state goes with the vCPU. */
static void mapped_save(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	isb(); /* its PMU's level dropped at put (vpmu/passthrough.c) before it is deactivated */
	for (unsigned n = 0; n < hyp.nr_lr; n++)
		if ((g->lr[n] & LR_HW) && (g->lr[n] & LR_STATE))
			gic_deactivate(LR_PINTID(g->lr[n])); /* the next vCPU's PMU is quiet */
	if (g->pmu_masked) /* retried at the next overflow it takes */
		mapped_release(g);
}

static void mapped_restore(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	for (unsigned n = 0; n < hyp.nr_lr; n++)
		if ((g->lr[n] & LR_HW) && (g->lr[n] & LR_STATE))
			gic_activate_ppi(LR_PINTID(g->lr[n]));
}

void vgic_save(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		g->lr[n] = lr_hw_read(n);
		lr_hw_write(n, 0);
	}
	if (has_mapped(v))
		mapped_save(v);
	g->hw = false;
	g->vmcr = read_sysreg(S3_4_C12_C11_7); /* ICH_VMCR_EL2 */
	g->ap0r0 = read_sysreg(S3_4_C12_C8_0); /* ICH_AP0R0_EL2 */
	g->ap1r0 = read_sysreg(S3_4_C12_C9_0); /* ICH_AP1R0_EL2 */
	write_sysreg(S3_4_C12_C8_0, 0ul);
	write_sysreg(S3_4_C12_C9_0, 0ul);
}

/* Whether the hardware's list registers hold nothing: no vCPU's interrupt is presented. */
bool vgic_lrs_empty(void)
{
	for (unsigned n = 0; n < hyp.nr_lr; n++)
		if (lr_hw_read(n))
			return false;
	return true;
}

void vgic_restore(struct vcpu *v)
{
	struct vgic_cpu *g = &v->vgic;
	if (has_mapped(v))
		mapped_restore(v);
	for (unsigned n = 0; n < hyp.nr_lr; n++)
		lr_hw_write(n, g->lr[n]);
	write_sysreg(S3_4_C12_C11_7, g->vmcr);
	write_sysreg(S3_4_C12_C8_0, g->ap0r0);
	write_sysreg(S3_4_C12_C9_0, g->ap1r0);
	g->hw = true;
	vgic_update(v);
}

/* Software makes INTIDs `bits` pending (ISPENDR, an SGI): latched until delivered. One the
 * guest has acknowledged and not yet deactivated becomes active and pending in its list
 * register at once (GIC spec 4.1.2), to be taken again after its EOI; vgic_update would
 * otherwise take the latch for the acknowledgment of the first. */
static void vgic_latch(struct vcpu *v, uint64_t bits)
{
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		uint64_t lr = lr_get(v, n);
		uint64_t bit = LR_INTID(lr) < VGIC_NR_IRQS ? BIT(LR_INTID(lr)) : 0;
		/* Never on a mapped one: its pending state is the physical interrupt's, and the
		 * latch waits for its list register to be free. */
		if ((bits & bit) && (lr & LR_STATE) == LR_ACTIVE && !(lr & LR_HW))
			lr_set(v, n, lr | LR_PENDING);
	}
	v->vgic.latch |= bits; /* consumed when that pending state is acknowledged */
}

/* Maintenance interrupt (ICH_EISR_EL2 nonzero): vgic_update frees the list registers whose
 * interrupt the guest deactivated, which drops the maintenance level, and makes lines still
 * asserted pending again. */
void vgic_maintenance(struct vcpu *v)
{
	vgic_update(v);
}

/* Bits of INTIDs whose list register is in `state`. */
static uint64_t lr_bits(struct vcpu *v, uint64_t state)
{
	uint64_t bits = 0;
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		uint64_t lr = lr_get(v, n);
		if ((lr & state) && LR_INTID(lr) < VGIC_NR_IRQS)
			bits |= BIT(LR_INTID(lr));
	}
	return bits;
}

static void clear_active(struct vcpu *v, uint64_t bits)
{
	for (unsigned n = 0; n < hyp.nr_lr; n++) {
		uint64_t lr = lr_get(v, n);
		if ((lr & LR_ACTIVE) && LR_INTID(lr) < VGIC_NR_IRQS &&
		    (bits & BIT(LR_INTID(lr)))) {
			lr &= ~LR_ACTIVE;
			if ((lr & LR_HW) && !(lr & LR_STATE))
				gic_deactivate(LR_PINTID(lr)); /* as its deactivation would */
			lr_set(v, n, (lr & LR_STATE) ? lr : 0);
		}
	}
}

#define PIDR2_GICV3 0x3Bu /* ArchRev = 3, JEP106 Arm */
#define IIDR_ARM 0x43Bu

/* IPRIORITYR<n> bytes from INTID `first` on, byte accessible; bytes at or past `end` (the
 * frame's last INTID + 1) are RAZ/WI. */
static uint64_t prio_read(const struct vgic_cpu *g, unsigned first, unsigned end, unsigned size)
{
	uint64_t val = 0;
	for (unsigned i = 0; i < size && first + i < end; i++)
		val |= (uint64_t)g->prio[first + i] << (8 * i);
	return val;
}

static void prio_write(struct vgic_cpu *g, unsigned first, unsigned end, unsigned size,
		       uint64_t val)
{
	for (unsigned i = 0; i < size && first + i < end; i++)
		g->prio[first + i] = (uint8_t)(val >> (8 * i)) & PRIO_MASK;
}

/* The distributor (GIC spec 12.9): with affinity routing (ARE = 1) it holds the SPIs, INTIDs
 * 32..63 here, in the second word of each bitmap register and in IPRIORITYR<8..15>,
 * ICFGR<2..3> and IROUTER<32..63>; the SGI/PPI words are the redistributor's and RAZ/WI. */
#define SPI_WORD(reg) ((reg) + 4u) /* the second 32-bit word: INTIDs 32..63 */
#define GICD_IROUTER(n) (0x6000u + 8u * (n))
#define IROUTER_MASK 0x80FFFFFFu /* IRM, Aff2..Aff0; Aff3 is RES0 (one PE) */

static uint64_t hi(uint64_t bits)
{
	return bits >> 32;
}

static uint64_t gicd_read(struct vcpu *v, uint64_t off, unsigned size)
{
	struct vgic_cpu *g = &v->vgic;
	if (off >= 0x0420 && off < 0x0440) { /* GICD_IPRIORITYR<8..15>, byte accessible */
		return prio_read(g, (unsigned)(off - 0x0400), VGIC_NR_IRQS, size);
	}
	if (off >= GICD_IROUTER(32) && off < GICD_IROUTER(VGIC_NR_IRQS)) {
		unsigned n = (unsigned)(off - GICD_IROUTER(32)) / 8;
		return (off & 4) ? 0 : g->spi_route[n]; /* the upper word is Aff3: 0 */
	}
	switch (off) {
	case 0x0000: /* GICD_CTLR: ARE and DS read as one (single security state) */
		return (g->gicd_ctlr & 3u) | (1u << 4) | (1u << 6);
	case 0x0004: /* GICD_TYPER: ITLinesNumber 1 (64 INTIDs), IDbits = 9, no LPIs */
		return (9u << 19) | 1u;
	case 0x0008:
		return IIDR_ARM;
	case SPI_WORD(0x0080):
		return hi(g->group);
	case SPI_WORD(0x0100):
	case SPI_WORD(0x0180):
		return hi(g->enabled);
	case SPI_WORD(0x0200):
	case SPI_WORD(0x0280):
		return hi(g->line | g->latch | lr_bits(v, LR_PENDING));
	case SPI_WORD(0x0300):
	case SPI_WORD(0x0380):
		return hi(lr_bits(v, LR_ACTIVE));
	case 0x0C08:
	case 0x0C0C:
		return g->spi_cfg[(off - 0x0C08) / 4];
	case 0xFFE8:
		return PIDR2_GICV3;
	default:
		return 0;
	}
}

static void gicd_write(struct vcpu *v, uint64_t off, unsigned size, uint64_t val)
{
	struct vgic_cpu *g = &v->vgic;
	uint64_t w = (uint32_t)val, spis = w << 32;
	if (off >= 0x0420 && off < 0x0440) {
		prio_write(g, (unsigned)(off - 0x0400), VGIC_NR_IRQS, size, val);
		return;
	}
	if (off >= GICD_IROUTER(32) && off < GICD_IROUTER(VGIC_NR_IRQS)) {
		if (!(off & 4))
			g->spi_route[(off - GICD_IROUTER(32)) / 8] = (uint32_t)w & IROUTER_MASK;
		return;
	}
	switch (off) {
	case 0x0000:
		g->gicd_ctlr = (uint32_t)w & 3u;
		break;
	case SPI_WORD(0x0080):
		g->group = (g->group & 0xFFFFFFFFul) | spis;
		break;
	case SPI_WORD(0x0100):
		g->enabled |= spis;
		break;
	case SPI_WORD(0x0180):
		g->enabled &= ~spis;
		break;
	case SPI_WORD(0x0200):
		vgic_latch(v, spis);
		break;
	case SPI_WORD(0x0280):
		g->latch &= ~spis;
		break;
	case SPI_WORD(0x0380):
		clear_active(v, spis);
		break;
	case 0x0C08:
	case 0x0C0C: /* Int_config: the odd bits; the lines are levels either way */
		g->spi_cfg[(off - 0x0C08) / 4] = (uint32_t)w & 0xAAAAAAAAu;
		return;
	default: /* WI */
		return;
	}
	vgic_update(v);
}

static uint64_t gicr_read(struct vcpu *v, uint64_t off, unsigned size)
{
	struct vgic_cpu *g = &v->vgic;
	if (off >= 0x10400 && off < 0x10420) { /* GICR_IPRIORITYR<n>, byte accessible */
		return prio_read(g, (unsigned)(off - 0x10400), 32, size);
	}
	switch (off) {
	case 0x0004:
		return IIDR_ARM;
	case 0x0008: /* GICR_TYPER: Last = 1, Processor_Number 0, affinity 0 */
		return 1u << 4;
	case 0x0014: /* GICR_WAKER: ChildrenAsleep follows ProcessorSleep */
		return g->waker & 2u ? 6u : 0u;
	case 0xFFE8:
		return PIDR2_GICV3;
	case 0x10080:
		return (uint32_t)g->group;
	case 0x10100:
	case 0x10180:
		return (uint32_t)g->enabled;
	case 0x10200:
	case 0x10280:
		return (uint32_t)(g->line | g->latch | lr_bits(v, LR_PENDING));
	case 0x10300:
	case 0x10380:
		return (uint32_t)lr_bits(v, LR_ACTIVE);
	case 0x10C00: /* GICR_ICFGR0: SGIs are edge-triggered */
		return 0xAAAAAAAAu;
	default: /* GICR_CTLR, ICFGR1 (PPIs level), IGRPMODR0, NSACR, ...: RAZ */
		return 0;
	}
}

static void gicr_write(struct vcpu *v, uint64_t off, unsigned size, uint64_t val)
{
	struct vgic_cpu *g = &v->vgic;
	uint64_t w = (uint32_t)val; /* INTIDs 0..31: the low word of each bitmap */
	if (off >= 0x10400 && off < 0x10420) {
		prio_write(g, (unsigned)(off - 0x10400), 32, size, val);
		return;
	}
	switch (off) {
	case 0x0014:
		g->waker = (uint32_t)w & 2u;
		break;
	case 0x10080:
		g->group = (g->group & ~0xFFFFFFFFul) | w;
		break;
	case 0x10100:
		g->enabled |= w;
		break;
	case 0x10180:
		g->enabled &= ~w;
		break;
	case 0x10200:
		vgic_latch(v, w);
		break;
	case 0x10280:
		g->latch &= ~w;
		break;
	case 0x10380:
		clear_active(v, w);
		break;
	default: /* WI */
		return;
	}
	vgic_update(v);
}

bool vgic_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val)
{
	if (ipa >= GICD_BASE && ipa < GICD_BASE + 0x10000) {
		if (write)
			gicd_write(v, ipa - GICD_BASE, size, *val);
		else
			*val = gicd_read(v, ipa - GICD_BASE, size);
		return true;
	}
	if (ipa >= GICR_BASE && ipa < GICR_BASE + 0x20000) {
		if (write)
			gicr_write(v, ipa - GICR_BASE, size, *val);
		else
			*val = gicr_read(v, ipa - GICR_BASE, size);
		return true;
	}
	return false;
}

/* ICC_SGI1R_EL1 / ICC_ASGI1R_EL1 / ICC_SGI0R_EL1 writes trap to EL2 under HCR_EL2.IMO/FMO
 * (GICv3 12.2.x). The VM has one PE, affinity 0.0.0.0: an SGI to it sets its latch. */
bool vgic_sgi_sysreg(struct vcpu *v, uint32_t key, uint64_t val)
{
	if (key != PV_SYSREG(3, 0, 12, 11, 5) && key != PV_SYSREG(3, 0, 12, 11, 6) &&
	    key != PV_SYSREG(3, 0, 12, 11, 7))
		return false;
	bool irm = (val >> 40) & 1;
	uint64_t aff = val & (0xFFul << 16 | 0xFFul << 32 | 0xFul << 44 | 0xFFul << 48);
	if (!irm && aff == 0 && (val & 1u)) {
		vgic_latch(v, 1ul << ((val >> 24) & 0xF));
		vgic_update(v);
	}
	return true;
}
