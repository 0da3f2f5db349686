// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ICMP unreachable errors of the send path (daemon/datapath/icmp.h),
 * through a real device (simnet.h): a packet to an address no peer covers,
 * or to a peer without an endpoint, is answered in the sender's own TUN
 * device with IPv4 host unreachable (RFC 792) or ICMPv6 address
 * unreachable (RFC 4443 §3.1), quoting as much of it as RFC 1812
 * §4.3.2.3 / RFC 4443 §2.4(c) say, with checksums checked by the naive
 * reference (tests/lib/csum_ref.h); never to what RFC 1122 §3.2.2 and RFC
 * 4443 §2.4(e) forbid (a table); and no more than the limit lets through.
 */
#include <arpa/inet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/datapath/gso.h"
#include "daemon/datapath/icmp.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"
#include "tests/lib/csum_ref.h"

static const uint8_t nobody4[4] = { 203, 0, 113, 9 };	/* RFC 5737: no peer covers it */
static const uint8_t me6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t nobody6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };	/* RFC 3849 */

/* An IPv4 packet of len bytes (proto, fragment field) from src to dst, payload bytes counting up. */
static size_t v4(uint8_t *p, size_t len, const uint8_t *src, const uint8_t *dst, uint8_t proto, uint16_t frag)
{
	size_t i;

	memset(p, 0, 20);
	p[0] = 0x45;
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
	p[6] = (uint8_t)(frag >> 8);
	p[7] = (uint8_t)frag;
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	for (i = 20; i < len; i++)
		p[i] = (uint8_t)i;
	ref_ipv4_csum_set(p, 20);
	return len;
}

/* An IPv6 packet of len bytes, next header nh, payload bytes counting up. */
static size_t v6(uint8_t *p, size_t len, const uint8_t *src, const uint8_t *dst, uint8_t nh)
{
	size_t i;

	memset(p, 0, 40);
	p[0] = 0x60;
	p[4] = (uint8_t)((len - 40) >> 8);
	p[5] = (uint8_t)(len - 40);
	p[6] = nh;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	for (i = 40; i < len; i++)
		p[i] = (uint8_t)i;
	return len;
}

/* d reads pkt from its TUN device; the length of what it wrote back to it (0: nothing). */
static size_t inject(struct sim_dev *d, const uint8_t *pkt, size_t len)
{
	unsigned long before = d->tun_packets;
	size_t size;
	uint8_t *buf = device_tx_buffer(d->dev, &size);

	CHECK(len <= size);
	memcpy(buf, pkt, len);
	device_tx_packet(d->dev, len, d->net->now);
	device_tx_flush(d->dev, d->net->now);
	CHECK(d->tun_packets - before <= 1);
	return d->tun_packets - before ? d->last_len : 0;
}

/* The IPv4 error d wrote for pkt: its header, type, code, quote and checksums. */
static void check_v4_error(const struct sim_dev *d, size_t got, const uint8_t *pkt, size_t len)
{
	const uint8_t *e = d->last, *icmp = d->last + 20;
	size_t quote = len < 548 ? len : 548;

	tu_check(got == 28 + quote, "IPv4 error of %zu bytes for a packet of %zu", got, len);
	if (got != 28 + quote)
		return;
	CHECK(e[0] == 0x45 && e[9] == 1 && e[8] == 64 && ref_be16(e + 2) == got);
	CHECK(ref_ipv4_csum_ok(e, 20));
	CHECK(!memcmp(e + 12, pkt + 16, 4) && !memcmp(e + 16, pkt + 12, 4));
	CHECK(icmp[0] == 3 && icmp[1] == 1 && !icmp[4] && !icmp[5] && !icmp[6] && !icmp[7]);
	CHECK(ref_sum(icmp, got - 20, 0) == 0xffff);
	CHECK(!memcmp(icmp + 8, pkt, quote));
}

static void check_v6_error(const struct sim_dev *d, size_t got, const uint8_t *pkt, size_t len)
{
	const uint8_t *e = d->last, *icmp = d->last + 40;
	size_t quote = len < 1232 ? len : 1232;

	tu_check(got == 48 + quote, "IPv6 error of %zu bytes for a packet of %zu", got, len);
	if (got != 48 + quote)
		return;
	CHECK(e[0] == 0x60 && e[6] == 58 && e[7] == 64 && ref_be16(e + 4) == got - 40);
	CHECK(!memcmp(e + 8, pkt + 24, 16) && !memcmp(e + 24, pkt + 8, 16));
	CHECK(icmp[0] == 1 && icmp[1] == 3 && !icmp[4] && !icmp[5] && !icmp[6] && !icmp[7]);
	CHECK(ref_l4_csum_ok(e, got, 40, true, 58));
	CHECK(!memcmp(icmp + 8, pkt, quote));
}

/* a with peer b (endpoint) and peer c (none); a's inner address is me4. */
static void setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, struct sim_dev **c, uint64_t seed)
{
	sim_init(n, seed);
	*a = sim_add(n);
	*b = sim_add(n);
	*c = sim_add(n);
	CHECK(*a && *b && *c);
	CHECK_EQ(sim_peer(*a, *b, true, NULL), 0);
	CHECK_EQ(sim_peer(*a, *c, false, NULL), 0);
	CHECK_EQ(sim_peer(*b, *a, true, NULL), 0);
}

static void be32_put(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

/* Errors for no route and no endpoint, both families, short and long packets. */
static void test_errors(void)
{
	struct sim_net n;
	struct sim_dev *a, *b, *c;
	uint8_t pkt[1500], me4[4], to_c[4], to_b[4];
	size_t lens[] = { 20, 28, 61, 548, 549, 1400, 1420 }, i, len;

	setup(&n, &a, &b, &c, 1);
	be32_put(me4, a->inner);
	be32_put(to_c, c->inner);
	be32_put(to_b, b->inner);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		len = v4(pkt, lens[i], me4, nobody4, 17, 0);
		check_v4_error(a, inject(a, pkt, len), pkt, len);
		len = v4(pkt, lens[i], me4, to_c, 6, 0x4000);	/* DF */
		check_v4_error(a, inject(a, pkt, len), pkt, len);
		if (lens[i] >= 40) {
			len = v6(pkt, lens[i], me6, nobody6, 17);
			check_v6_error(a, inject(a, pkt, len), pkt, len);
		}
	}
	CHECK_EQ(a->dev->stats.tx_no_endpoint, 7);
	/* a packet a peer takes is sent, not answered */
	len = v4(pkt, 100, me4, to_b, 17, 0);
	CHECK_EQ(inject(a, pkt, len), 0);
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(b->tun_packets, 1);
	CHECK_EQ(a->tun_packets, 19);
	sim_clear(&n);
}

struct rule {
	const char *what;
	bool v6;
	uint8_t src[16], dst[16];
	uint8_t proto;		/* IPv4 protocol, or the IPv6 chain's first next header */
	uint16_t frag;		/* IPv4 */
	uint8_t l4[24];		/* IPv4: the bytes after the header; IPv6: the chain after it */
	size_t l4_len;
	bool answered;
};

#define A4(a, b, c, d) { a, b, c, d }
#define ME4 A4(198, 51, 100, 1)
#define NOBODY4 A4(203, 0, 113, 9)
#define ME6 { 0xfd, [15] = 1 }
#define NOBODY6 { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 }

/* RFC 1122 §3.2.2, RFC 1812 §4.3.2.7, RFC 4443 §2.4(e) */
static const struct rule rules[] = {
	{ "UDP", false, ME4, NOBODY4, 17, 0, { 0 }, 8, true },
	{ "ICMP echo request", false, ME4, NOBODY4, 1, 0, { 8 }, 8, true },
	{ "ICMP echo reply", false, ME4, NOBODY4, 1, 0, { 0 }, 8, true },
	{ "ICMP destination unreachable", false, ME4, NOBODY4, 1, 0, { 3, 1 }, 8, false },
	{ "ICMP time exceeded", false, ME4, NOBODY4, 1, 0, { 11 }, 8, false },
	{ "ICMP redirect", false, ME4, NOBODY4, 1, 0, { 5 }, 8, false },
	{ "ICMP source quench", false, ME4, NOBODY4, 1, 0, { 4 }, 8, false },
	{ "ICMP parameter problem", false, ME4, NOBODY4, 1, 0, { 12 }, 8, false },
	{ "ICMP of an unknown type", false, ME4, NOBODY4, 1, 0, { 42 }, 8, false },
	{ "ICMP without its type", false, ME4, NOBODY4, 1, 0, { 0 }, 0, false },
	{ "first fragment", false, ME4, NOBODY4, 17, 0x2000, { 0 }, 8, true },
	{ "later fragment", false, ME4, NOBODY4, 17, 0x0001, { 0 }, 8, false },
	{ "last fragment", false, ME4, NOBODY4, 1, 0x00b9, { 8 }, 8, false },
	{ "to a multicast address", false, ME4, A4(224, 0, 0, 1), 17, 0, { 0 }, 8, false },
	{ "to 239.255.255.250", false, ME4, A4(239, 255, 255, 250), 17, 0, { 0 }, 8, false },
	{ "to the limited broadcast", false, ME4, A4(255, 255, 255, 255), 17, 0, { 0 }, 8, false },
	{ "from 0.0.0.0", false, A4(0, 0, 0, 0), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "from 0.1.2.3", false, A4(0, 1, 2, 3), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "from loopback", false, A4(127, 0, 0, 1), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "from multicast", false, A4(224, 0, 0, 5), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "from class E", false, A4(240, 0, 0, 1), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "from broadcast", false, A4(255, 255, 255, 255), NOBODY4, 17, 0, { 0 }, 8, false },
	{ "UDP over IPv6", true, ME6, NOBODY6, 17, 0, { 0 }, 8, true },
	{ "ICMPv6 echo request", true, ME6, NOBODY6, 58, 0, { 128 }, 8, true },
	{ "ICMPv6 destination unreachable", true, ME6, NOBODY6, 58, 0, { 1, 3 }, 8, false },
	{ "ICMPv6 packet too big", true, ME6, NOBODY6, 58, 0, { 2 }, 8, false },
	{ "ICMPv6 error of type 127", true, ME6, NOBODY6, 58, 0, { 127 }, 8, false },
	{ "ICMPv6 redirect", true, ME6, NOBODY6, 58, 0, { 137 }, 8, false },
	{ "ICMPv6 without its type", true, ME6, NOBODY6, 58, 0, { 0 }, 0, false },
	{ "hop-by-hop, UDP", true, ME6, NOBODY6, 0, 0, { 17, 0 }, 16, true },
	{ "hop-by-hop, ICMPv6 error", true, ME6, NOBODY6, 0, 0, { 58, 0, [8] = 1 }, 16, false },
	{ "destination options, ICMPv6 echo", true, ME6, NOBODY6, 60, 0, { 58, 0, [8] = 128 }, 16, true },
	{ "first fragment of ICMPv6 echo", true, ME6, NOBODY6, 44, 0, { 58, 0, 0, 1, [8] = 128 }, 16, true },
	{ "first fragment of ICMPv6 error", true, ME6, NOBODY6, 44, 0, { 58, 0, 0, 1, [8] = 3 }, 16, false },
	{ "later IPv6 fragment", true, ME6, NOBODY6, 44, 0, { 17, 0, 0, 0x08 }, 16, false },
	{ "a cut extension header", true, ME6, NOBODY6, 0, 0, { 17, 1 }, 8, false },
	{ "to a multicast address over IPv6", true, ME6, { 0xff, 0x02, [15] = 1 }, 17, 0, { 0 }, 8, false },
	{ "from ::", true, { 0 }, NOBODY6, 17, 0, { 0 }, 8, false },
	{ "from ::1", true, { [15] = 1 }, NOBODY6, 17, 0, { 0 }, 8, false },
	{ "from an IPv6 multicast address", true, { 0xff, 0x05, [15] = 2 }, NOBODY6, 17, 0, { 0 }, 8, false },
};

static void test_rules(void)
{
	struct sim_net n;
	struct sim_dev *a, *b, *c;
	uint8_t pkt[200];
	size_t i, len, got;

	setup(&n, &a, &b, &c, 2);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *r = &rules[i];

		if (r->v6) {
			len = v6(pkt, 40 + r->l4_len, r->src, r->dst, r->proto);
			memcpy(pkt + 40, r->l4, r->l4_len);
		} else {
			len = v4(pkt, 20 + r->l4_len, r->src, r->dst, r->proto, r->frag);
			memcpy(pkt + 20, r->l4, r->l4_len);
		}
		n.now += SIM_S(1);	/* the limit is not what decides */
		got = inject(a, pkt, len);
		tu_check((got != 0) == r->answered, "%s: %s", r->what, got ? "answered" : "not answered");
		if (got && r->v6)
			check_v6_error(a, got, pkt, len);
		else if (got)
			check_v4_error(a, got, pkt, len);
	}
	/* a chain of nine extension headers is longer than the error looks */
	len = v6(pkt, 40 + 9 * 8 + 8, me6, nobody6, 60);
	for (i = 0; i < 9; i++) {
		pkt[40 + i * 8] = i < 8 ? 60 : 17;
		pkt[40 + i * 8 + 1] = 0;
	}
	CHECK_EQ(inject(a, pkt, len), 0);
	sim_clear(&n);
}

/*
 * The limit: a burst of ICMP_BURST at once, then ICMP_RATE a second, never
 * more than a burst however long the pause; a clock that went back earns
 * nothing.
 */
static void test_rate_limit(void)
{
	struct sim_net n;
	struct sim_dev *a, *b, *c;
	uint8_t pkt[100], me4[4];
	unsigned long before;
	size_t len;
	unsigned int i;

	setup(&n, &a, &b, &c, 3);
	be32_put(me4, a->inner);
	len = v4(pkt, sizeof(pkt), me4, nobody4, 17, 0);
	before = a->tun_packets;
	for (i = 0; i < 1000; i++)
		inject(a, pkt, len);
	CHECK_EQ(a->tun_packets - before, ICMP_BURST);
	CHECK_EQ(a->dev->icmp.limited, 1000 - ICMP_BURST);
	n.now += SIM_MS(10);
	before = a->tun_packets;
	for (i = 0; i < 1000; i++)
		inject(a, pkt, len);
	CHECK_EQ(a->tun_packets - before, ICMP_RATE / 100);
	n.now += SIM_S(3600);
	before = a->tun_packets;
	for (i = 0; i < 1000; i++)
		inject(a, pkt, len);
	CHECK_EQ(a->tun_packets - before, ICMP_BURST);
	n.now -= SIM_S(10);
	before = a->tun_packets;
	for (i = 0; i < 100; i++)
		inject(a, pkt, len);
	CHECK_EQ(a->tun_packets - before, 0);
	/* steady: one packet every 100 us for 2 s, at most ICMP_RATE a second plus a burst */
	n.now += SIM_S(20);
	before = a->tun_packets;
	for (i = 0; i < 20000; i++) {
		n.now += 100000;
		inject(a, pkt, len);
	}
	tu_check(a->tun_packets - before >= 2 * ICMP_RATE && a->tun_packets - before <= 2 * ICMP_RATE + ICMP_BURST,
		 "%lu errors in 2 s", a->tun_packets - before);
	sim_clear(&n);
}

/*
 * A TCP super-packet (virtio_net_hdr, TSO) to an address no peer covers is
 * one packet to its sender: one error answers it, whatever the number of
 * segments, on the path of segments that fit a slot and on the oversize
 * path of segments larger than one (jumbo MTU); every segment is counted.
 */
static void test_super_packet(void)
{
	static const uint16_t gso_sizes[] = { 1000, 3000 };	/* the slot path, the oversize path */
	struct sim_net n;
	struct sim_dev *a, *b, *c;
	uint8_t pkt[GSO_VNET_HDR_LEN + 40 + 9000], me4[4], *ip = pkt + GSO_VNET_HDR_LEN, *buf;
	unsigned long before;
	uint64_t routes;
	size_t len, size;
	uint16_t v;
	unsigned int i;

	setup(&n, &a, &b, &c, 4);
	device_set_offloads(a->dev, true, false);
	be32_put(me4, a->inner);
	for (i = 0; i < sizeof(gso_sizes) / sizeof(gso_sizes[0]); i++) {
		len = v4(ip, sizeof(pkt) - GSO_VNET_HDR_LEN, me4, nobody4, 6, 0x4000);
		ip[32] = 0x50;	/* TCP, a 20-byte header */
		memset(pkt, 0, GSO_VNET_HDR_LEN);
		pkt[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		pkt[1] = VIRTIO_NET_HDR_GSO_TCPV4;
		v = 40;
		memcpy(pkt + 2, &v, 2);	/* host byte order, as TUN has it */
		memcpy(pkt + 4, &gso_sizes[i], 2);
		v = 20;
		memcpy(pkt + 6, &v, 2);
		v = 16;
		memcpy(pkt + 8, &v, 2);
		before = a->tun_packets;
		routes = a->dev->stats.tx_no_route;
		buf = device_tx_buffer(a->dev, &size);
		CHECK(GSO_VNET_HDR_LEN + len <= size);
		memcpy(buf, pkt, GSO_VNET_HDR_LEN + len);
		device_tx_packet(a->dev, GSO_VNET_HDR_LEN + len, n.now);
		device_tx_flush(a->dev, n.now);
		tu_check(a->tun_packets - before == 1, "segments of %u bytes: %lu errors for one super-packet",
			 gso_sizes[i], a->tun_packets - before);
		tu_check(a->dev->stats.tx_no_route - routes == (9000u + gso_sizes[i] - 1) / gso_sizes[i],
			 "segments of %u bytes: %llu counted without a route", gso_sizes[i],
			 (unsigned long long)(a->dev->stats.tx_no_route - routes));
		CHECK(a->last_len > 28 && a->last[20] == 3 && a->last[21] == 1 && !memcmp(a->last + 12, nobody4, 4));
	}
	sim_clear(&n);
}

int main(void)
{
	log_init("test_icmp", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 99;
	test_errors();
	test_rules();
	test_rate_limit();
	test_super_packet();
	log_clear();
	return ct_exit("icmp");
}
