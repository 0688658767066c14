/* SPDX-License-Identifier: MIT */
/*
 * The PL011 each VM sees at IPA UART_BASE (PL011 TRM DDI 0183, 3.2 register summary), with its
 * interrupt, SPI 1 (INTID 33) as on QEMU virt. Its page is not mapped in stage 2: every access
 * faults to EL2 and lands here.
 *
 * Output: data register writes are buffered per VM and printed a line at a time on the
 * physical UART, prefixed with the VM's name, so the output of time-sliced VMs never
 * interleaves within a line. A line is never cut: when a VM waits (it reads its data register
 * with the receive FIFO empty, or executes WFI: a prompt), or its buffer fills, what it has is
 * printed and the line stays open, to be continued by its next characters; another VM's line
 * closes it first (the open line then continues on a line of its own, prefixed).
 *
 * Input: the physical UART's received characters (its interrupt is taken at EL2) go to the
 * VM that has the console focus (`focus=K` in the hypervisor's bootargs, or Ctrl-A then K at
 * the terminal; Ctrl-A Ctrl-A sends a Ctrl-A; Ctrl-A x ends every VM, with the report), into
 * its receive FIFO.
 *
 * Interrupts (3.3.x, UARTRIS/UARTMIS): TXRIS is set by every data register write, as QEMU's
 * PL011 does (the transmit FIFO is always empty), and cleared by UARTICR; RXRIS and RTRIS
 * are set while the receive FIFO holds data. The VM's line 33 is UARTMIS != 0.
 * Control registers read back what was written; identification registers are those of a
 * PL011; the rest is RAZ/WI.
 */
#include "hyp.h"

#define UARTDR 0x000
#define UARTFR 0x018
#define UARTIMSC 0x038
#define UARTRIS 0x03C
#define UARTMIS 0x040
#define UARTICR 0x044
#define UARTFR_RXFE (1u << 4)
#define UARTFR_TXFF (1u << 5)
#define UARTFR_RXFF (1u << 6)
#define UARTFR_TXFE (1u << 7)
#define UART_RXIS (1u << 4)
#define UART_TXIS (1u << 5)
#define UART_RTIS (1u << 6)
#define UART_INT_MASK 0x7FFu
#define CTRL_A 0x01

/* Registers stored for read-back: IBRD, FBRD, LCR_H, CR, IFLS, IMSC, DMACR. */
static uint32_t uart_regs[MAX_VMS][0x50 / 4];

static const uint8_t uart_id[8] = {0x11, 0x10, 0x14, 0x00, 0x0D, 0xF0, 0x05, 0xB1};

static struct {
	struct vm *open;  /* the VM whose line is printed in part and continues */
	struct vm *focus; /* where input goes; NULL: nowhere */
	bool escape;      /* the last input character was Ctrl-A */
	bool quit;        /* Ctrl-A x, not yet acted on (uart_quit_requested) */
} console;

bool uart_quit_requested(void)
{
	bool quit = console.quit;
	console.quit = false;
	return quit;
}

/* Before a line of the hypervisor's own: a VM's open line ends there, and continues on a
 * line of its own, prefixed (nothing a VM writes can look like the hypervisor's). */
void uart_break(void)
{
	if (console.open) {
		hyp_putc('\n');
		console.open = NULL;
	}
}

/* Whether typed input may still come for some VM: one that runs has the focus. */
bool uart_input_possible(void)
{
	return console.focus && console.focus->state == VM_RUNNABLE;
}

/* A VM's line, prefixed unless it continues an open one. */
static void print_line(struct vm *vm, bool end)
{
	vm->uart_line[vm->uart_len] = '\0';
	if (console.open != vm)
		uart_break(); /* another VM's line was open: it continues on a line of its own */
	if (console.open == vm)
		hyp_puts(vm->uart_line);
	else if (vm->uart_len)
		hyp_printf("[%s] %s", vm->name, vm->uart_line);
	else
		hyp_printf("[%s]", vm->name); /* an empty line still shows whose it is */
	if (end)
		hyp_putc('\n');
	console.open = end ? NULL : vm;
	vm->uart_len = 0;
}

void uart_flush(struct vm *vm)
{
	if (vm->uart_len || console.open == vm) {
		print_line(vm, true);
		vm->uart_lines++;
	}
	if (console.focus == vm && vm->state != VM_RUNNABLE)
		console.focus = NULL;
}

/* The VM waits (for input, or in WFI): what it has of a line is shown, and the line stays
 * open (a shell's prompt). */
void uart_waits(struct vm *vm)
{
	if (vm->uart_len)
		print_line(vm, false);
}

/* Terminal control sequences a VM writes (ESC [ ... final byte, ECMA-48) are dropped, not
 * passed to the host's terminal nor shown as text: a shell's cursor queries, colours. */
static bool escape_sequence(struct vm *vm, char c)
{
	if (vm->uart_esc == 1) { /* after ESC */
		vm->uart_esc = c == '[' ? 2 : 0;
		return true;
	}
	if (vm->uart_esc == 2) { /* parameters and intermediates until a final byte */
		if (c >= 0x40 && c <= 0x7E)
			vm->uart_esc = 0;
		return true;
	}
	if (c == 0x1B) {
		vm->uart_esc = 1;
		return true;
	}
	return false;
}

static void uart_tx(struct vm *vm, char c)
{
	if (c == '\r' || escape_sequence(vm, c))
		return;
	if (c == '\n') {
		print_line(vm, true);
		vm->uart_lines++;
		return;
	}
	if ((unsigned char)c < 0x20 && c != '\t')
		c = '.';
	vm->uart_line[vm->uart_len++] = c;
	if (vm->uart_len == sizeof(vm->uart_line) - 1)
		print_line(vm, false);
}

static uint32_t ris(const struct vm *vm)
{
	return vm->uart_ris | (vm->uart_rx_len ? UART_RXIS | UART_RTIS : 0);
}

/* The VM's interrupt line: UARTMIS != 0. */
static void update_line(struct vm *vm)
{
	vgic_set_line(&vm->vcpu, INTID_UART,
		      (ris(vm) & uart_regs[vm->index][UARTIMSC / 4]) != 0);
}

static void rx_push(struct vm *vm, char c)
{
	if (vm->uart_rx_len == sizeof(vm->uart_rx))
		return; /* a full FIFO drops what comes (an overrun) */
	vm->uart_rx[(vm->uart_rx_head + vm->uart_rx_len++) % sizeof(vm->uart_rx)] = c;
	update_line(vm);
}

static char rx_pop(struct vm *vm)
{
	if (!vm->uart_rx_len) {
		uart_waits(vm);
		return 0;
	}
	char c = vm->uart_rx[vm->uart_rx_head];
	vm->uart_rx_head = (vm->uart_rx_head + 1) % sizeof(vm->uart_rx);
	vm->uart_rx_len--;
	return c;
}

void uart_set_focus(struct vm *vm)
{
	console.focus = vm && vm->state == VM_RUNNABLE ? vm : NULL;
}

/* One character from the terminal: Ctrl-A K gives VM slot K the focus. */
void uart_input(char c)
{
	if (console.escape) {
		console.escape = false;
		if (c >= '0' && c <= '9') { /* the first ten slots: one key each */
			struct vm *vm = &hyp.vms[c - '0'];
			uart_set_focus(vm);
			uart_break();
			hyp_printf("hyp: console input goes to %s%s\n",
				   console.focus ? vm->name : "no VM",
				   console.focus ? "" : " (that slot runs none)");
			return;
		}
		if (c == 'x') {
			uart_break();
			hyp_puts("hyp: Ctrl-A x: ending every VM\n");
			console.quit = true;
			return;
		}
		if (c != CTRL_A)
			return;
	} else if (c == CTRL_A) {
		console.escape = true;
		return;
	}
	if (console.focus)
		rx_push(console.focus, c);
}

/* The physical UART's receive interrupt (INTID 33, taken at EL2: gic.c): every character it
 * holds goes to uart_input. */
void uart_host_irq(void)
{
	/* Clear first, then drain: a character that arrives after the last look raises the
	 * interrupt again (clearing after the drain would lose it, and every one after it). */
	mmio_write32(UART_BASE + UARTICR, UART_RXIS | UART_RTIS);
	while (!(mmio_read32(UART_BASE + UARTFR) & UARTFR_RXFE))
		uart_input((char)(mmio_read32(UART_BASE + UARTDR) & 0xFF));
}

/* The physical UART interrupts on input (its output is polled: print.c). */
void uart_host_init(void)
{
	mmio_write32(UART_BASE + UARTIMSC, UART_RXIS | UART_RTIS);
}

bool uart_mmio(struct vcpu *v, uint64_t ipa, bool write, unsigned size, uint64_t *val)
{
	(void)size;
	if (ipa < UART_BASE || ipa >= UART_BASE + 0x1000)
		return false;
	uint64_t off = ipa - UART_BASE;
	struct vm *vm = v->vm;
	uint32_t *regs = uart_regs[vm->index];
	if (write) {
		uint32_t w = (uint32_t)*val;
		if (off == UARTDR) {
			uart_tx(vm, (char)w);
			vm->uart_ris |= UART_TXIS;
		} else if (off == UARTICR) {
			vm->uart_ris &= ~w;
		} else if (off == UARTIMSC) {
			regs[off / 4] = w & UART_INT_MASK;
		} else if (off >= 0x24 && off < 0x50 && off != UARTRIS && off != UARTMIS) {
			regs[off / 4] = w;
		}
		update_line(vm);
		return true;
	}
	if (off == UARTDR) {
		*val = (uint8_t)rx_pop(vm);
		update_line(vm);
	} else if (off == UARTFR) {
		/* Not a sign of waiting: writers poll it before every character. */
		*val = UARTFR_TXFE | (vm->uart_rx_len ? 0 : UARTFR_RXFE) |
		       (vm->uart_rx_len == sizeof(vm->uart_rx) ? UARTFR_RXFF : 0);
	} else if (off == UARTRIS) {
		*val = ris(vm);
	} else if (off == UARTMIS) {
		*val = ris(vm) & regs[UARTIMSC / 4];
	} else if (off >= 0xFE0 && (off & 3) == 0) {
		*val = uart_id[(off - 0xFE0) / 4];
	} else if (off >= 0x24 && off < 0x50) {
		*val = regs[off / 4];
	} else {
		*val = 0; /* RSR, ... */
	}
	return true;
}
