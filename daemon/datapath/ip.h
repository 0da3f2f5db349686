/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inner packet's IP header, read once for both directions: the version
 * (RFC 791, RFC 8200), the length the header claims, and where the source
 * and destination addresses lie.  The send path requires that length to be
 * exactly what the TUN device gave; the receive path trims the padding to
 * it (WP §5.4.6).
 */
#ifndef WGD_IP_H
#define WGD_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/bytes.h"

/*
 * The IP version of pkt (4 or 6), with *ip_len the length its header
 * claims and *src / *dst its addresses; 0 if it is neither version, its
 * fixed header is cut, or it claims more bytes than len or fewer than its
 * header (for IPv4, an IHL below 5 or past the total length).
 */
static inline int ip_parse(const uint8_t *pkt, size_t len, size_t *ip_len, const uint8_t **src,
			   const uint8_t **dst)
{
	if (len < 1)
		return 0;
	switch (pkt[0] >> 4) {
	case 4:
		if (len < 20)
			return 0;
		*ip_len = be16_load(pkt + 2);
		if (*ip_len < 20 || *ip_len > len)
			return 0;
		/* RFC 791: IHL counts 32-bit words, at least 5, within the packet */
		if ((pkt[0] & 0xf) < 5 || (size_t)(pkt[0] & 0xf) * 4 > *ip_len)
			return 0;
		*src = pkt + 12;
		*dst = pkt + 16;
		return 4;
	case 6:
		if (len < 40)
			return 0;
		*ip_len = (size_t)be16_load(pkt + 4) + 40;
		if (*ip_len > len)
			return 0;
		*src = pkt + 8;
		*dst = pkt + 24;
		return 6;
	default:
		return 0;
	}
}

/*
 * ECN (RFC 3168 §5) and the outer header's DS field across the tunnel
 * (RFC 6040, normal mode; doc/protocol.md §5).  The ECN field is the low
 * two bits of the IPv4 TOS byte and of the IPv6 traffic class; the outer
 * datagram's whole TOS / traffic class byte is what the host sends with or
 * reads from the UDP socket.
 */
enum ip_ecn { IP_ECN_NOT_ECT = 0, IP_ECN_ECT_1 = 1, IP_ECN_ECT_0 = 2, IP_ECN_CE = 3 };
#define IP_ECN_MASK 3
/* Handshake messages leave marked AF41 (RFC 2597: DSCP 34), not ECN-capable. */
#define IP_TOS_HANDSHAKE (34 << 2)

/* The ECN field of pkt, an IPv4 or IPv6 header (ip_parse()d). */
static inline uint8_t ip_ecn(const uint8_t *pkt)
{
	return (pkt[0] >> 4 == 6 ? pkt[1] >> 4 : pkt[1]) & IP_ECN_MASK;
}

/*
 * The outer TOS of a data message carrying inner packet pkt: RFC 6040
 * §4.1, normal mode: the inner ECN field copied, the DSCP left 0 (it
 * would tell on the inner traffic).
 */
static inline uint8_t ip_ecn_encapsulate(const uint8_t *pkt)
{
	return ip_ecn(pkt);
}

/* Sets pkt's ECN field to ecn; an IPv4 header's checksum follows (RFC 1624). */
static inline void ip_ecn_set(uint8_t *pkt, uint8_t ecn)
{
	uint16_t old_word = be16_load(pkt);
	uint32_t sum;

	if (pkt[0] >> 4 == 6) {
		pkt[1] = (uint8_t)((pkt[1] & ~(IP_ECN_MASK << 4)) | ecn << 4);
		return;
	}
	pkt[1] = (uint8_t)((pkt[1] & ~IP_ECN_MASK) | ecn);
	/* HC' = ~(~HC + ~m + m') in one's complement (RFC 1624 §3, eqn. 3) */
	sum = (uint32_t)(uint16_t)~be16_load(pkt + 10) + (uint16_t)~old_word + be16_load(pkt);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	be16_store(pkt + 10, (uint16_t)~sum);
}

/*
 * The inner packet pkt arrived in a datagram whose outer TOS / traffic
 * class was outer: RFC 6040 §4.2, its ECN field combined with the outer
 * one's (a congestion mark on the way is carried in; ECT(1) outer turns
 * ECT(0) inner into ECT(1)).  False if the packet must be dropped: the
 * outer one says CE and the inner one is Not-ECT, so that a congestion
 * mark is never lost (the transport could not see it).
 */
static inline bool ip_ecn_decapsulate(uint8_t *pkt, uint8_t outer)
{
	uint8_t in = ip_ecn(pkt), out = outer & IP_ECN_MASK;

	if (in == IP_ECN_NOT_ECT)
		return out != IP_ECN_CE;
	if (out == IP_ECN_CE && in != IP_ECN_CE)
		ip_ecn_set(pkt, IP_ECN_CE);
	else if (out == IP_ECN_ECT_1 && in == IP_ECN_ECT_0)
		ip_ecn_set(pkt, IP_ECN_ECT_1);
	return true;
}

#endif
