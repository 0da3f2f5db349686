/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Internet checksum, as the tests compute it to check the product's
 * (daemon/datapath/gso.c and crypto/arch/mips32r2/csum.S): RFC 1071 the
 * obvious way, 16 bits at a time, with the IPv4 header (RFC 791 §3.1) and
 * the TCP/UDP pseudo headers (RFC 793 §3.1, RFC 768, RFC 8200 §8.1) read
 * straight from the bytes.  Deliberately naive, and sharing no code with
 * the product: every test of a checksum uses this, never gso_csum_*().
 */
#ifndef WGD_TESTS_CSUM_REF_H
#define WGD_TESTS_CSUM_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Big-endian 16- and 32-bit fields, byte by byte. */
uint16_t ref_be16(const uint8_t *p);
uint32_t ref_be32(const uint8_t *p);

/* The 16-bit ones'-complement sum of p[0..len) added to sum, folded (RFC 1071 §1). */
uint16_t ref_sum(const uint8_t *p, size_t len, uint32_t sum);

/* Whether a ones'-complement sum is "all ones": either representation of zero. */
bool ref_sum_is_zero(uint16_t folded);

/* Whether an IPv4 header's checksum verifies; ref_ipv4_csum_set() writes it. */
bool ref_ipv4_csum_ok(const uint8_t *ip, size_t ihl);
void ref_ipv4_csum_set(uint8_t *ip, size_t ihl);

/* The folded pseudo-header sum of the segment at pkt + l4 (up to len). */
uint16_t ref_pseudo_sum(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto);

/*
 * Whether the TCP or UDP checksum of the segment at pkt + l4 (up to len)
 * verifies with its pseudo header: IPv4, or IPv6 with the addresses of the
 * fixed header.  ref_l4_csum_set() writes it into the field at pkt + field.
 */
bool ref_l4_csum_ok(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto);
void ref_l4_csum_set(uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto, size_t field);

#endif
