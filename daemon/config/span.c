/* SPDX-License-Identifier: GPL-2.0-only */
/* Spans of text and the values written in them (daemon/config/span.h). */
#include "daemon/config/span.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

bool span_eq(struct span s, const char *lit)
{
	return strlen(lit) == s.len && memcmp(s.p, lit, s.len) == 0;
}

bool span_eq_nocase(struct span s, const char *lit)
{
	return strlen(lit) == s.len && strncasecmp(s.p, lit, s.len) == 0;
}

bool span_copy(char *buf, size_t n, struct span s)
{
	if (s.len >= n)
		return false;
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	return true;
}

bool span_num(struct span s, bool hex, uint64_t max, uint64_t *out)
{
	/* Overflow is caught without a 64-bit division (a libgcc call on
	 * 32-bit targets): up to lim, v * base fits, and adding d wraps only
	 * past UINT64_MAX / 10 * 10, to below d. */
	uint64_t v = 0, lim = UINT64_MAX / 10;
	unsigned int base = 10;

	if (hex && s.len > 2 && s.p[0] == '0' && s.p[1] == 'x') {
		base = 16;
		lim = UINT64_MAX >> 4;
		s.p += 2;
		s.len -= 2;
	}
	if (s.len == 0)
		return false;
	for (size_t i = 0; i < s.len; i++) {
		unsigned int c = (uint8_t)s.p[i] | 0x20, d = (uint8_t)s.p[i] - '0';

		if (d > 9 && base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		if (d >= base || v > lim)
			return false;
		v = v * base + d;
		if (v < d || v > max)
			return false;
	}
	*out = v;
	return true;
}

int span_prefix(struct span s, bool strict, uint8_t addr[16], uint8_t *len)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash = memchr(s.p, '/', s.len);
	struct span a = { s.p, slash ? (size_t)(slash - s.p) : s.len };
	int family = memchr(a.p, ':', a.len) ? AF_INET6 : AF_INET;
	uint64_t n = family == AF_INET ? 32 : 128;

	if (!span_copy(buf, sizeof(buf), a) || inet_pton(family, buf, addr) != 1)
		return AF_UNSPEC;
	if (slash) {
		struct span bits = { slash + 1, s.len - a.len - 1 };

		if ((strict && bits.len > 1 && bits.p[0] == '0') || !span_num(bits, false, n, &n))
			return AF_UNSPEC;
	} else if (strict) {
		return AF_UNSPEC;
	}
	*len = (uint8_t)n;
	return family;
}

int span_endpoint(struct span v, struct span *host, uint16_t *port)
{
	size_t bracket = v.len && v.p[0] == '[';
	size_t colon = v.len;
	uint64_t n;

	while (colon > 0 && v.p[colon - 1] != ':')
		colon--;
	/* colon: the index of the last ':' + 1, 0 when there is none */
	if (colon-- == 0 || colon < 1 + 2 * bracket || (bracket && v.p[colon - 1] != ']') ||
	    !span_num((struct span){ v.p + colon + 1, v.len - colon - 1 }, false, UINT16_MAX, &n))
		return AF_UNSPEC;
	*host = (struct span){ v.p + bracket, colon - 2 * bracket };
	*port = (uint16_t)n;
	return bracket ? AF_INET6 : AF_INET;
}

uint32_t span_ct_value(uint32_t c, const struct span_ct_range *r, size_t n, uint32_t *bad)
{
	uint32_t v = 0, in = 0;

	for (size_t i = 0; i < n; i++) {
		/* All ones when lo <= c <= hi: neither difference is negative
		 * (c, lo, hi < 256, so a negative one has bit 31 set). */
		uint32_t m = (((c - r[i].lo) | (r[i].hi - c)) >> 31) - 1;

		v |= m & (c + (uint32_t)(int32_t)r[i].add);
		in |= m;
	}
	*bad |= (in & 1) ^ 1;
	return v;
}
