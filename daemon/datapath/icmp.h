/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ICMP error for an inner packet that no peer takes (no allowed IP
 * covers its destination, or the peer has no endpoint), written back into
 * the TUN device so that the sender learns at once, as the kernel's
 * WireGuard tells it: IPv4 destination unreachable, host unreachable
 * (RFC 792, type 3 code 1); IPv6 destination unreachable, address
 * unreachable (RFC 4443 §3.1, type 1 code 3).  `ping` then prints
 * "unreachable" and a TCP connect fails with EHOSTUNREACH instead of
 * waiting out its retries (doc/protocol.md §10).
 *
 * Pure computation on bytes and a `now`: the caller owns the buffer and the
 * limiter and does the write.
 */
#ifndef WGD_ICMP_H
#define WGD_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The largest error: RFC 4443 §2.4(c), as much of the packet as fits in
 * the IPv6 minimum MTU (1280).  IPv4 errors stop at 576 bytes (RFC 1812
 * §4.3.2.3).
 */
#define ICMP_MAX_LEN 1280
#define ICMP4_MAX_LEN 576

/*
 * The rate limit: a token bucket of ICMP_BURST errors refilled at
 * ICMP_RATE a second, per device (the kernel's global defaults,
 * net.ipv4.icmp_msgs_per_sec and icmp_msgs_burst).  No allocation: the
 * state is two words.
 */
#define ICMP_RATE 1000
#define ICMP_BURST 50

struct icmp_limit {
	uint64_t credit_ns;	/* time credit, at most ICMP_BURST intervals */
	uint64_t last;		/* when it was last refilled */
	uint64_t allowed;	/* errors let through */
	uint64_t limited;	/* errors the limit held back */
};

/* A full bucket. */
void icmp_limit_init(struct icmp_limit *l);

/*
 * The unreachable error for pkt (len bytes, a whole IPv4 or IPv6 packet
 * whose header ip_parse() accepted with exactly len bytes), written to out
 * (ICMP_MAX_LEN bytes), if the rules allow one and the limit has room at
 * now; its length, or 0 for none.  No error answers (RFC 1122 §3.2.2,
 * RFC 1812 §4.3.2.7, RFC 4443 §2.4(e)): an ICMP error or an ICMPv6 error or
 * redirect, a fragment other than the first (its upper-layer header is not
 * there to tell), a packet to a multicast or the limited broadcast
 * address, or one from an address that names no single host (unspecified
 * or "this network", loopback, multicast, broadcast, class E).  The error
 * comes from the packet's destination (see icmp.c for why).
 */
size_t icmp_unreachable(struct icmp_limit *l, uint64_t now, uint8_t *out, const uint8_t *pkt, size_t len);

#endif
