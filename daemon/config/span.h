/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spans of text and the values written in them: what the control socket's
 * parser (daemon/config/uapi.c) and the configuration files' parser
 * (daemon/config/conffile.c) share, so that a number, a prefix or an endpoint is
 * read by one routine whichever way it came in.  The two formats differ
 * only where their callers say so (hexadecimal numbers, a prefix's length
 * being optional).  Pure: no allocation, no I/O.
 */
#ifndef WGD_SPAN_H
#define WGD_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* len bytes at p, not NUL-terminated. */
struct span {
	const char *p;
	size_t len;
};

/* s is lit, byte for byte / without regard to ASCII case. */
bool span_eq(struct span s, const char *lit);
bool span_eq_nocase(struct span s, const char *lit);

/* Copies s into buf (n bytes) NUL-terminated; false if it does not fit. */
bool span_copy(char *buf, size_t n, struct span s);

/*
 * One or more decimal digits (leading zeros too, as Go's strconv.ParseUint
 * in wireguard-go takes them) or, with hex, "0x" and one or more
 * hexadecimal digits (either case); nothing else: no sign, no space, no
 * "0X" (wg(8) reads an fwmark so).  False unless the value is at most max;
 * *out is written only on success.  The one number rule of the control
 * socket, the files and wgctl's arguments.
 */
bool span_num(struct span s, bool hex, uint64_t max, uint64_t *out);

/*
 * A prefix "addr/len", the address IPv6 when it has a ':'.  strict: the
 * length must be written, without leading zeros (the control socket's form,
 * as Go's netip.ParsePrefix takes it); otherwise it may be left out (the
 * full length) or have leading zeros (the files' form, as wg(8) reads it).
 * Host bits are kept.  Returns AF_INET or AF_INET6, AF_UNSPEC if malformed;
 * addr (16 bytes; an IPv4 address fills the first 4) and *len hold the
 * prefix only on success.
 */
int span_prefix(struct span s, bool strict, uint8_t addr[16], uint8_t *len);

/*
 * "host:port" or "[host]:port", split at the last ':'; the host must not be
 * empty and the port is decimal, at most 65535.  *host gets the host without
 * its brackets.  Returns AF_INET6 when bracketed, AF_INET when not (the
 * family a numeric host must have), AF_UNSPEC if malformed.
 */
int span_endpoint(struct span v, struct span *host, uint16_t *port);

/*
 * Constant-time decoding of one character of a key's text (hex, base64):
 * the alphabet is a list of ranges lo..hi whose characters have the value
 * c + add.  Every range is tried, whatever c is, and c picks no branch and
 * no table entry; *bad gets 1 when c is in none.
 */
struct span_ct_range {
	uint8_t lo, hi;
	int8_t add;
};

uint32_t span_ct_value(uint32_t c, const struct span_ct_range *r, size_t n, uint32_t *bad);

#endif
