/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the TUN-offload fuzzers (fuzz_gso.c, fuzz_gro.c) check the real code
 * against: RFC 1071 sums the obvious way, 16 bits at a time, and the IP and
 * TCP header rules of RFC 791, RFC 793 and RFC 8200, read straight from the
 * bytes.  Deliberately naive: it shares no code with daemon/datapath/gso.c.
 */
#ifndef WGD_FUZZREF_H
#define WGD_FUZZREF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A failed property: print where and why, then abort() so libFuzzer saves the input. */
#define FUZZ_CHECK(cond, ...)                                                 \
	do {                                                                  \
		if (!(cond))                                                  \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
	} while (0)

__attribute__((noreturn, format(printf, 4, 5)))
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...);

/* Big-endian 16- and 32-bit fields, byte by byte. */
uint16_t ref_be16(const uint8_t *p);
uint32_t ref_be32(const uint8_t *p);

/* The 16-bit ones'-complement sum of p[0..len) added to sum, folded (RFC 1071 §1). */
uint16_t ref_sum(const uint8_t *p, size_t len, uint32_t sum);

/* Whether a ones'-complement sum is "all ones": either representation of zero. */
bool ref_sum_is_zero(uint16_t folded);

/* Whether an IPv4 header's checksum verifies (RFC 791 §3.1, "Header Checksum"). */
bool ref_ipv4_csum_ok(const uint8_t *ip, size_t ihl);

/*
 * Whether the TCP or UDP checksum of the segment at pkt + l4 (up to len)
 * verifies with its pseudo header: IPv4 (RFC 793 §3.1, RFC 768) or IPv6
 * (RFC 8200 §8.1, addresses of the fixed header).
 */
bool ref_l4_csum_ok(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto);

/* The folded pseudo-header sum the kernel leaves in a CHECKSUM_PARTIAL field. */
uint16_t ref_pseudo_sum(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto);

#endif
