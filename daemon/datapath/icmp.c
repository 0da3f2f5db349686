// SPDX-License-Identifier: GPL-2.0-only
/*
 * ICMP unreachable errors for packets no peer takes (icmp.h).
 *
 * The error's source is the unreachable packet's destination.  The error
 * is written into the TUN device, so the host receives it as if it came
 * from the tunnel: Linux drops a packet arriving with one of its own
 * addresses as source (the sender's, or the interface's), while a route to
 * the destination goes through this very interface (that is how the
 * packet got here), so the reverse-path filter lets the error in.  `ping`
 * prints it as "From <destination> ... Destination Host Unreachable".
 */
#include <string.h>

#include "crypto/bytes.h"
#include "daemon/datapath/gso.h"
#include "daemon/datapath/icmp.h"

#define ICMP_INTERVAL_NS (1000000000ull / ICMP_RATE)
#define ICMP_CREDIT_MAX (ICMP_BURST * ICMP_INTERVAL_NS)

#define IPPROTO_ICMP_ 1
#define IPPROTO_ICMPV6_ 58
#define ICMP_HDR_LEN 8
#define IP4_HDR_LEN 20
#define IP6_HDR_LEN 40
/* IPv6 extension headers walked before the upper-layer one; a bound for a hostile chain */
#define IP6_MAX_EXT 8

void icmp_limit_init(struct icmp_limit *l)
{
	memset(l, 0, sizeof(*l));
	l->credit_ns = ICMP_CREDIT_MAX;
}

/* One token, if the bucket has one at now (a clock that went back refills nothing). */
static bool icmp_limit_take(struct icmp_limit *l, uint64_t now)
{
	if (now > l->last) {
		uint64_t gained = now - l->last;

		l->credit_ns = gained >= ICMP_CREDIT_MAX - l->credit_ns ? ICMP_CREDIT_MAX : l->credit_ns + gained;
		l->last = now;
	}
	if (l->credit_ns < ICMP_INTERVAL_NS) {
		l->limited++;
		return false;
	}
	l->credit_ns -= ICMP_INTERVAL_NS;
	l->allowed++;
	return true;
}

/*
 * RFC 1122 §3.2.2, RFC 1812 §4.3.2.7: an IPv4 packet that may be answered:
 * the first fragment or none, to neither a multicast nor the limited
 * broadcast address, from an address naming one host, not an ICMP error.
 */
static bool icmp4_answerable(const uint8_t *pkt, size_t len)
{
	size_t ihl = (size_t)(pkt[0] & 0xf) * 4;
	uint8_t type;

	if (be16_load(pkt + 6) & 0x1fff)
		return false;		/* a later fragment */
	if (pkt[16] >= 224)
		return false;		/* multicast, class E, 255.255.255.255 */
	if (pkt[12] == 0 || pkt[12] == 127 || pkt[12] >= 224)
		return false;		/* "this network", loopback, multicast, class E, broadcast */
	if (pkt[9] != IPPROTO_ICMP_)
		return true;
	if (ihl >= len)
		return false;		/* no ICMP type to tell an error by */
	type = pkt[ihl];
	/* only the informational types (RFC 792, RFC 950, RFC 1256); errors and unknown types never */
	return type == 0 || type == 8 || type == 9 || type == 10 || (type >= 13 && type <= 18);
}

/*
 * The upper-layer protocol of an IPv6 packet and where its header starts,
 * past the extension headers (RFC 8200 §4); false if a header is cut, the
 * chain is longer than IP6_MAX_EXT, or the packet is a fragment other than
 * the first.
 */
static bool icmp6_upper(const uint8_t *pkt, size_t len, uint8_t *proto, size_t *off)
{
	uint8_t next = pkt[6];
	size_t at = IP6_HDR_LEN;
	unsigned int i;

	for (i = 0; i < IP6_MAX_EXT; i++) {
		size_t hlen;

		if (next != 0 && next != 43 && next != 44 && next != 51 && next != 60) {
			*proto = next;
			*off = at;
			return true;
		}
		if (at + 8 > len)
			return false;
		if (next == 44) {
			if (be16_load(pkt + at + 2) & 0xfff8)
				return false;	/* a later fragment */
			hlen = 8;
		} else if (next == 51) {
			hlen = ((size_t)pkt[at + 1] + 2) * 4;	/* RFC 4302: in 4-byte units */
		} else {
			hlen = ((size_t)pkt[at + 1] + 1) * 8;	/* hop-by-hop, routing, destination */
		}
		if (at + hlen > len)
			return false;
		next = pkt[at];
		at += hlen;
	}
	return false;
}

/* RFC 4443 §2.4(e): the IPv6 counterpart of icmp4_answerable(). */
static bool icmp6_answerable(const uint8_t *pkt, size_t len)
{
	static const uint8_t loopback[16] = { [15] = 1 };
	static const uint8_t unspecified[16];
	uint8_t proto;
	size_t off;

	if (pkt[24] == 0xff)
		return false;		/* to a multicast address */
	if (pkt[8] == 0xff || !memcmp(pkt + 8, unspecified, 16) || !memcmp(pkt + 8, loopback, 16))
		return false;		/* from multicast, unspecified, loopback */
	if (!icmp6_upper(pkt, len, &proto, &off))
		return false;
	if (proto != IPPROTO_ICMPV6_)
		return true;
	/* errors are types below 128 (RFC 4443 §2.1); a redirect is 137 */
	return off < len && pkt[off] >= 128 && pkt[off] != 137;
}

/* RFC 792: type 3 code 1, the header and as much of the packet as fits in 576 bytes. */
static size_t icmp4_build(uint8_t *out, const uint8_t *pkt, size_t len)
{
	size_t quote = len < ICMP4_MAX_LEN - IP4_HDR_LEN - ICMP_HDR_LEN ? len : ICMP4_MAX_LEN - IP4_HDR_LEN - ICMP_HDR_LEN;
	size_t total = IP4_HDR_LEN + ICMP_HDR_LEN + quote;
	uint8_t *icmp = out + IP4_HDR_LEN;
	uint64_t sum;

	memset(out, 0, IP4_HDR_LEN + ICMP_HDR_LEN);
	out[0] = 0x45;
	out[1] = 0xc0;		/* RFC 1812 §4.3.2.5: precedence 6, internetwork control */
	be16_store(out + 2, (uint16_t)total);
	out[8] = 64;		/* TTL */
	out[9] = IPPROTO_ICMP_;
	memcpy(out + 12, pkt + 16, 4);	/* from the unreachable destination */
	memcpy(out + 16, pkt + 12, 4);	/* to the packet's sender */
	be16_store(out + 10, gso_csum_fold(gso_csum_add(0, out, IP4_HDR_LEN)));
	icmp[0] = 3;		/* destination unreachable */
	icmp[1] = 1;		/* host unreachable */
	sum = gso_csum_copy(0, icmp + ICMP_HDR_LEN, pkt, quote);
	be16_store(icmp + 2, gso_csum_fold(gso_csum_add(sum, icmp, ICMP_HDR_LEN)));
	return total;
}

/* RFC 4443 §3.1: type 1 code 3, as much of the packet as fits in 1280 bytes. */
static size_t icmp6_build(uint8_t *out, const uint8_t *pkt, size_t len)
{
	size_t quote = len < ICMP_MAX_LEN - IP6_HDR_LEN - ICMP_HDR_LEN ? len : ICMP_MAX_LEN - IP6_HDR_LEN - ICMP_HDR_LEN;
	size_t plen = ICMP_HDR_LEN + quote;
	uint8_t *icmp = out + IP6_HDR_LEN;
	uint64_t sum;

	memset(out, 0, IP6_HDR_LEN + ICMP_HDR_LEN);
	out[0] = 0x60;
	be16_store(out + 4, (uint16_t)plen);
	out[6] = IPPROTO_ICMPV6_;
	out[7] = 64;		/* hop limit */
	memcpy(out + 8, pkt + 24, 16);	/* from the unreachable destination */
	memcpy(out + 24, pkt + 8, 16);	/* to the packet's sender */
	icmp[0] = 1;		/* destination unreachable */
	icmp[1] = 3;		/* address unreachable */
	sum = gso_csum_copy(0, icmp + ICMP_HDR_LEN, pkt, quote);
	sum = gso_csum_add(sum, icmp, ICMP_HDR_LEN);
	/* RFC 8200 §8.1: the pseudo-header, addresses, length and next header */
	sum = gso_csum_add(sum, out + 8, 32);
	sum += plen + IPPROTO_ICMPV6_;
	be16_store(icmp + 2, gso_csum_fold(sum));
	return IP6_HDR_LEN + plen;
}

size_t icmp_unreachable(struct icmp_limit *l, uint64_t now, uint8_t *out, const uint8_t *pkt, size_t len)
{
	int version = pkt[0] >> 4;

	if (version == 4 && len >= IP4_HDR_LEN && icmp4_answerable(pkt, len))
		return icmp_limit_take(l, now) ? icmp4_build(out, pkt, len) : 0;
	if (version == 6 && len >= IP6_HDR_LEN && icmp6_answerable(pkt, len))
		return icmp_limit_take(l, now) ? icmp6_build(out, pkt, len) : 0;
	return 0;
}
