/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The value readers every text form shares (daemon/config/span.c): the
 * control socket, the files and wgctl's arguments read a number, a prefix
 * and an endpoint with these, so their rules are written here once, as
 * tables.  Where the readers once differed (wgctl had its own), the case
 * names what decided it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/config/span.h"

#include "tests/lib/testutil.h"

#define check tu_check

static struct span sp(const char *s)
{
	return (struct span){ s, strlen(s) };
}

static void test_num(void)
{
	static const struct {
		const char *text;
		bool hex;
		uint64_t max;
		bool ok;
		uint64_t want;
	} t[] = {
		{ "0", false, 65535, true, 0 },
		{ "65535", false, 65535, true, 65535 },
		{ "65536", false, 65535, false, 0 },
		{ "00080", false, 65535, true, 80 },		/* leading zeros, as Go's ParseUint */
		{ "", false, 65535, false, 0 },
		{ "+5", false, 65535, false, 0 },		/* no sign: strtoul's would pass */
		{ "-1", false, 65535, false, 0 },
		{ " 5", false, 65535, false, 0 },		/* no space: strtoul skips it */
		{ "5 ", false, 65535, false, 0 },
		{ "0x10", false, UINT32_MAX, false, 0 },	/* hex only where asked */
		{ "0x10", true, UINT32_MAX, true, 16 },
		{ "0xAbC", true, UINT32_MAX, true, 0xabc },
		{ "0xffffffff", true, UINT32_MAX, true, UINT32_MAX },
		{ "0x100000000", true, UINT32_MAX, false, 0 },
		{ "4294967296", true, UINT32_MAX, false, 0 },
		{ "010", true, UINT32_MAX, true, 10 },		/* decimal, not octal (wg's fwmark) */
		{ "0x", true, UINT32_MAX, false, 0 },
		{ "0x0x1", true, UINT32_MAX, false, 0 },
		{ "0xg", true, UINT32_MAX, false, 0 },
		/* Decided: wg(8) reads an fwmark's "0x" only in lower case (wgctl
		 * did so too); the files took "0X" as well.  One rule: "0x". */
		{ "0X10", true, UINT32_MAX, false, 0 },
		{ "18446744073709551615", false, UINT64_MAX, true, UINT64_MAX },
		{ "18446744073709551616", false, UINT64_MAX, false, 0 },
		{ "0xffffffffffffffff", true, UINT64_MAX, true, UINT64_MAX },
		{ "0x10000000000000000", true, UINT64_MAX, false, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 7;
		bool ok = span_num(sp(t[i].text), t[i].hex, t[i].max, &v);

		check(ok == t[i].ok && v == (ok ? t[i].want : 7),
		      "span_num(\"%s\", %s, max %llu): %s %llu", t[i].text, t[i].hex ? "hex" : "dec",
		      (unsigned long long)t[i].max, ok ? "accepted" : "refused", (unsigned long long)v);
	}
}

static void test_prefix(void)
{
	static const struct {
		const char *text;
		bool strict;
		int family;	/* AF_UNSPEC: refused */
		uint8_t len;
	} t[] = {
		{ "10.0.0.0/8", false, AF_INET, 8 },
		{ "10.0.0.1", false, AF_INET, 32 },		/* the files' full length */
		{ "10.0.0.1", true, AF_UNSPEC, 0 },		/* the socket writes it */
		{ "10.0.0.0/08", false, AF_INET, 8 },
		{ "10.0.0.0/08", true, AF_UNSPEC, 0 },
		{ "10.0.0.0/33", false, AF_UNSPEC, 0 },
		{ "10.0.0.0/", false, AF_UNSPEC, 0 },
		{ "10.0.0.0/+8", false, AF_UNSPEC, 0 },
		{ "10.0.0.0/8/9", false, AF_UNSPEC, 0 },
		{ "10.0.0.256/8", false, AF_UNSPEC, 0 },
		{ "fd00::/64", true, AF_INET6, 64 },
		{ "fd00::", false, AF_INET6, 128 },
		{ "::/129", false, AF_UNSPEC, 0 },
		{ "::ffff:10.0.0.1/128", false, AF_INET6, 128 },
		{ "fe80::1%eth0/64", false, AF_UNSPEC, 0 },
		{ "", false, AF_UNSPEC, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t addr[16] = { 0 }, len = 200;
		int family = span_prefix(sp(t[i].text), t[i].strict, addr, &len);

		check(family == t[i].family && len == (family ? t[i].len : 200),
		      "span_prefix(\"%s\", %s): family %d length %u", t[i].text,
		      t[i].strict ? "strict" : "files", family, len);
	}
}

static void test_endpoint(void)
{
	static const struct {
		const char *text;
		int family;	/* AF_UNSPEC: refused */
		const char *host;
		uint16_t port;
	} t[] = {
		{ "192.0.2.1:51820", AF_INET, "192.0.2.1", 51820 },
		{ "vpn.example:1", AF_INET, "vpn.example", 1 },
		{ "[fd00::1]:65535", AF_INET6, "fd00::1", 65535 },
		{ "[fe80::1%eth0]:5", AF_INET6, "fe80::1%eth0", 5 },
		/* Split at the last ':'.  Unbracketed, an IPv6 host is an IPv4
		 * family's: the caller's address parser refuses it. */
		{ "fd00::1:5", AF_INET, "fd00::1", 5 },
		{ "192.0.2.1:65536", AF_UNSPEC, NULL, 0 },	/* wg(8) wraps it to 0 */
		{ "192.0.2.1:+5", AF_UNSPEC, NULL, 0 },
		{ "192.0.2.1:", AF_UNSPEC, NULL, 0 },
		{ "192.0.2.1", AF_UNSPEC, NULL, 0 },
		{ ":5", AF_UNSPEC, NULL, 0 },
		{ "[]:5", AF_UNSPEC, NULL, 0 },
		{ "[::1]", AF_UNSPEC, NULL, 0 },
		{ "[::1]5:5", AF_UNSPEC, NULL, 0 },
		{ "", AF_UNSPEC, NULL, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct span host = { NULL, 0 };
		uint16_t port = 7;
		int family = span_endpoint(sp(t[i].text), &host, &port);
		bool ok = family == t[i].family;

		if (ok && family != AF_UNSPEC)
			ok = span_eq(host, t[i].host) && port == t[i].port;
		check(ok, "span_endpoint(\"%s\"): family %d host `%.*s' port %u", t[i].text, family,
		      (int)host.len, host.p ? host.p : "", port);
	}
}

int main(void)
{
	test_num();
	test_prefix();
	test_endpoint();
	return tu_exit_status("test_span");
}
