/* SPDX-License-Identifier: MIT */
/*
 * The PL011 each VM sees at IPA UART_BASE (PL011 TRM DDI 0183, 3.2 register summary). Its page
 * is not mapped in stage 2: every access faults to EL2 and lands here. Data register writes
 * are buffered per VM and printed a line at a time, prefixed with the VM's name, so the output
 * of time-sliced VMs never interleaves within a line. The flag register says "transmit FIFO
 * empty, receive FIFO empty"; there is no input. Control registers read back what was written;
 * identification registers are those of a PL011; the rest is RAZ/WI.
 */
#include "hyp.h"

#define UARTDR 0x000
#define UARTFR 0x018
#define UARTFR_RXFE (1u << 4)
#define UARTFR_TXFE (1u << 7)

/* Registers stored for read-back: IBRD, FBRD, LCR_H, CR, IFLS, IMSC, DMACR. */
static uint32_t uart_regs[MAX_VMS][0x50 / 4];

static const uint8_t uart_id[8] = {0x11, 0x10, 0x14, 0x00, 0x0D, 0xF0, 0x05, 0xB1};

void uart_flush(struct vm *vm)
{
	if (!vm->uart_len)
		return;
	vm->uart_line[vm->uart_len] = '\0';
	hyp_printf("[%s] %s\n", vm->name, vm->uart_line);
	vm->uart_len = 0;
	vm->uart_lines++;
}

static void uart_tx(struct vm *vm, char c)
{
	if (c == '\r')
		return;
	if (c == '\n') {
		if (vm->uart_len == 0) { /* an empty line still shows whose it is */
			hyp_printf("[%s]\n", vm->name);
			vm->uart_lines++;
		}
		uart_flush(vm);
		return;
	}
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '.';
	vm->uart_line[vm->uart_len++] = c;
	if (vm->uart_len == sizeof(vm->uart_line) - 1)
		uart_flush(vm);
}

bool uart_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val)
{
	(void)size;
	if (ipa < UART_BASE || ipa >= UART_BASE + 0x1000)
		return false;
	uint64_t off = ipa - UART_BASE;
	uint32_t *regs = uart_regs[v->vm->index];
	if (write) {
		if (off == UARTDR)
			uart_tx(v->vm, (char)*val);
		else if (off >= 0x24 && off < 0x50 && off != 0x3C && off != 0x40 && off != 0x44)
			regs[off / 4] = (uint32_t)*val; /* ICR (0x44) is write-to-clear: WI */
		return true;
	}
	if (off == UARTFR)
		*val = UARTFR_TXFE | UARTFR_RXFE;
	else if (off >= 0xFE0 && (off & 3) == 0)
		*val = uart_id[(off - 0xFE0) / 4];
	else if (off >= 0x24 && off < 0x50)
		*val = regs[off / 4];
	else
		*val = 0; /* DR (no input), RSR, RIS, MIS, ... */
	return true;
}
