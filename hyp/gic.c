/* SPDX-License-Identifier: MIT */
/*
 * The physical GICv3 (GIC architecture spec IHI 0069): distributor with affinity routing, the
 * redistributor of CPU 0 awake, the PPIs the hypervisor takes (PMU 23, maintenance 25, CNTHP
 * 26, CNTV 27) as Group 1, and the EL2 system-register CPU interface. QEMU virt without EL3
 * has a single security state (GICD_CTLR.DS = 1).
 */
#include "hyp.h"

#define GICD_CTLR 0x0000
#define GICD_CTLR_RWP (1u << 31)
#define GICD_CTLR_ENGRP0 (1u << 0)
#define GICD_CTLR_ENGRP1 (1u << 1)
#define GICD_CTLR_ARE (1u << 4)
#define GICR_CTLR 0x0000
#define GICR_CTLR_RWP (1u << 3)
#define GICR_WAKER 0x0014
#define GICR_WAKER_PSLEEP (1u << 1)
#define GICR_WAKER_CASLEEP (1u << 2)
#define GICR_IGROUPR0 0x0080
#define GICR_ISENABLER0 0x0100
#define GICR_ICENABLER0 0x0180
#define GICR_ISACTIVER0 0x0300
#define GICR_IPRIORITYR 0x0400

void gic_init(void)
{
	mmio_write32(GICD_BASE + GICD_CTLR,
		     GICD_CTLR_ARE | GICD_CTLR_ENGRP1 | GICD_CTLR_ENGRP0);
	while (mmio_read32(GICD_BASE + GICD_CTLR) & GICD_CTLR_RWP)
		;
	/* GICv3 8.9.23: wake the redistributor and wait until its interface is awake. */
	mmio_write32(GICR_BASE + GICR_WAKER,
		     mmio_read32(GICR_BASE + GICR_WAKER) & ~GICR_WAKER_PSLEEP);
	while (mmio_read32(GICR_BASE + GICR_WAKER) & GICR_WAKER_CASLEEP)
		;
	mmio_write32(GICR_SGI_BASE + GICR_ICENABLER0, 0xFFFFFFFFu);
	mmio_write32(GICR_SGI_BASE + GICR_IGROUPR0, 0xFFFFFFFFu);
	for (unsigned i = 0; i < 8; i++)
		mmio_write32(GICR_SGI_BASE + GICR_IPRIORITYR + 4 * i, 0x80808080u);
	mmio_write32(GICR_SGI_BASE + GICR_ISENABLER0,
		     (1u << PV_INTID_PMU) | (1u << INTID_MAINT) | (1u << INTID_HYPTIMER) |
			     (1u << INTID_VTIMER));

	/* The UART's SPI (INTID 33): Group 1, routed to this PE (affinity 0.0.0.0), level. */
	mmio_write32(GICD_BASE + 0x0084, 1u << (INTID_UART - 32));          /* IGROUPR1 */
	mmio_write32(GICD_BASE + 0x0400 + (INTID_UART & ~3u), 0x80808080u); /* IPRIORITYR */
	mmio_write32(GICD_BASE + 0x6000 + 8 * INTID_UART, 0);               /* IROUTER */
	mmio_write32(GICD_BASE + 0x0104, 1u << (INTID_UART - 32));          /* ISENABLER1 */

	/* ICC_SRE_EL2: SRE, DFB, DIB, Enable (lets EL1 use its system-register interface). */
	write_sysreg(S3_4_C12_C9_5, 0xFul);
	isb();
	write_sysreg(S3_0_C4_C6_0, 0xFFul); /* ICC_PMR_EL1: every priority */
	write_sysreg(S3_0_C12_C12_3, 0ul);  /* ICC_BPR1_EL1 */
	/* ICC_CTLR_EL1: EOImode 0 (EOI drops the priority and deactivates), or 1 with
	 * passthrough or direct VMs, whose PMU interrupt the guest deactivates (vgic.c): EOI then
	 * only drops the priority and the others are deactivated through ICC_DIR_EL1. */
	write_sysreg(S3_0_C12_C12_4, hyp.split_eoi ? 2ul : 0ul);
	write_sysreg(S3_0_C12_C12_7, 1ul); /* ICC_IGRPEN1_EL1 */
	isb();

	/* Virtual CPU interface (GICv3 ch. 6): number of list registers from ICH_VTR_EL2. */
	hyp.nr_lr = (unsigned)(read_sysreg(S3_4_C12_C11_1) & 0x1F) + 1;
	if (hyp.nr_lr > NR_LR_MAX)
		hyp.nr_lr = NR_LR_MAX;
	write_sysreg(S3_4_C12_C11_0, 1ul); /* ICH_HCR_EL2.En */
	isb();
}

void gic_enable_ppi(uint32_t intid, bool on)
{
	mmio_write32(GICR_SGI_BASE + (on ? GICR_ISENABLER0 : GICR_ICENABLER0), 1u << intid);
}

/* Disabled, and the disable complete (GICR_CTLR.RWP clear): nothing of the interrupt is
 * signalled after it returns. */
void gic_disable_ppi_sync(uint32_t intid)
{
	mmio_write32(GICR_SGI_BASE + GICR_ICENABLER0, 1u << intid);
	while (mmio_read32(GICR_BASE + GICR_CTLR) & GICR_CTLR_RWP)
		;
}

uint32_t gic_ack(void)
{
	uint32_t intid = (uint32_t)read_sysreg(S3_0_C12_C12_0) & 0xFFFFFF; /* ICC_IAR1_EL1 */
	dsb(sy);
	return intid;
}

void gic_eoi(uint32_t intid)
{
	write_sysreg(S3_0_C12_C12_1, intid); /* ICC_EOIR1_EL1 */
	if (hyp.split_eoi)
		write_sysreg(S3_0_C12_C11_1, intid); /* ICC_DIR_EL1 */
	isb();
}

/* Priority drop only (EOImode 1): the interrupt stays active, for its mapped virtual one
 * to deactivate. */
void gic_drop(uint32_t intid)
{
	write_sysreg(S3_0_C12_C12_1, intid); /* ICC_EOIR1_EL1 */
	isb();
}

void gic_deactivate(uint32_t intid)
{
	write_sysreg(S3_0_C12_C11_1, intid); /* ICC_DIR_EL1 */
	isb();
}

/* A PPI made active again (GICR_ISACTIVER0), as a mapped interrupt left active goes back to
 * its vCPU: the physical one stays quiet until the guest deactivates it. */
void gic_activate_ppi(uint32_t intid)
{
	mmio_write32(GICR_SGI_BASE + GICR_ISACTIVER0, 1u << intid);
	dsb(sy); /* done before the guest can deactivate it through its list register */
}
