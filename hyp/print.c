/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor's own console: polled writes to the physical PL011 (data register 0x000,
 * flag register 0x018, TXFF = bit 5; PL011 TRM 3.3), and a small printf: %s %c %d %u %x
 * with l/ll, width, '-' and '0'.
 */
#include <stdarg.h>

#include "hyp.h"

#define UARTDR 0x000
#define UARTFR 0x018
#define UARTFR_TXFF (1u << 5)

void hyp_putc(char c)
{
	while (mmio_read32(UART_BASE + UARTFR) & UARTFR_TXFF)
		;
	mmio_write32(UART_BASE + UARTDR, (uint8_t)c);
}

void hyp_puts(const char *s)
{
	while (*s)
		hyp_putc(*s++);
}

struct out {
	char *buf;
	size_t n, len; /* buf == NULL: to the console */
};

static void out_c(struct out *o, char c)
{
	if (!o->buf)
		hyp_putc(c);
	else if (o->len + 1 < o->n)
		o->buf[o->len] = c;
	o->len++;
}

static void out_num(struct out *o, uint64_t v, unsigned base, bool neg, int width, char pad)
{
	char tmp[24];
	int i = 0;
	do {
		unsigned d = (unsigned)(v % base);
		tmp[i++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	if (neg)
		tmp[i++] = '-';
	for (int w = i; w < width; w++)
		out_c(o, pad);
	while (i)
		out_c(o, tmp[--i]);
}

static void vformat(struct out *o, const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			out_c(o, *fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		int width = 0, lng = 0;
		bool left = false;
		if (*fmt == '-') {
			left = true;
			fmt++;
		}
		if (*fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int len = (int)strlen(s);
			for (int i = len; !left && i < width; i++)
				out_c(o, ' ');
			while (*s)
				out_c(o, *s++);
			for (; left && len < width; len++)
				out_c(o, ' ');
			break;
		}
		case 'c':
			out_c(o, (char)va_arg(ap, int));
			break;
		case 'd': {
			int64_t v = lng ? va_arg(ap, long) : va_arg(ap, int);
			out_num(o, v < 0 ? (uint64_t)-v : (uint64_t)v, 10, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			uint64_t v = lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			out_num(o, v, *fmt == 'u' ? 10 : 16, false, width, pad);
			break;
		}
		case '%':
			out_c(o, '%');
			break;
		default:
			out_c(o, '?');
			break;
		}
	}
}

void hyp_printf(const char *fmt, ...)
{
	struct out o = {0};
	va_list ap;
	va_start(ap, fmt);
	vformat(&o, fmt, ap);
	va_end(ap);
}

int hyp_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	struct out o = {.buf = buf, .n = n};
	va_list ap;
	va_start(ap, fmt);
	vformat(&o, fmt, ap);
	va_end(ap);
	if (n)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return (int)o.len;
}

void hyp_panic(const char *fmt, ...)
{
	struct out o = {0};
	va_list ap;
	hyp_puts("hyp: panic: ");
	va_start(ap, fmt);
	vformat(&o, fmt, ap);
	va_end(ap);
	hyp_puts("\n");
	machine_off();
}
