// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive path's last rule, in process (the root-only namespace test
 * tests/net/srcfilter.sh checks the same through the kernel): a packet that
 * a peer's keys opened must come from an address the receiver's allowed IPs
 * give to that very peer (WP §2, cryptokey routing).  Real devices joined
 * in memory (simnet.h): b has a and c as peers; a's packets carrying c's
 * address, or an address no peer has, in either family, are opened and
 * dropped (rx_bad_source), and the session still carries a's own packets.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/datapath/peer.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"

/* d gives peer the prefix addr/cidr (added to its allowed IPs). */
static void allow(struct sim_dev *d, const struct sim_dev *peer, int family, const uint8_t *addr,
		  uint8_t cidr)
{
	struct config_device cfg;
	struct config_peer *p;
	struct config_allowedip aip = { .family = (uint16_t)family, .cidr = cidr };

	memcpy(aip.addr, addr, family == AF_INET ? 4 : 16);
	config_device_init(&cfg);
	p = config_device_add_peer(&cfg, peer->public_key);
	CHECK(p != NULL);
	if (p) {
		CHECK_EQ(config_peer_add_allowedip(p, &aip), 0);
		p->flags |= CONFIG_PEER_UPDATE_ONLY;
		CHECK_EQ(sim_set(d, &cfg), 0);
	}
	config_device_clear(&cfg);
}

/* Read from a's TUN device: an IPv4 (src, dst: 4 bytes) or IPv6 (16)
 * packet carrying payload; then the network runs for 50 ms. */
static void send_from(struct sim_dev *a, int family, const uint8_t *src, const uint8_t *dst,
		      const char *payload)
{
	size_t size, hdr = family == AF_INET ? 20 : 40, len = strlen(payload), total = hdr + len;
	uint8_t *buf = device_tx_buffer(a->dev, &size);

	if (total > size)
		abort();
	memset(buf, 0, hdr);
	if (family == AF_INET) {
		buf[0] = 0x45;
		buf[2] = (uint8_t)(total >> 8);
		buf[3] = (uint8_t)total;
		buf[8] = 64;
		buf[9] = 253;	/* for experimentation (RFC 3692) */
		memcpy(buf + 12, src, 4);
		memcpy(buf + 16, dst, 4);
	} else {
		buf[0] = 0x60;
		buf[4] = (uint8_t)(len >> 8);
		buf[5] = (uint8_t)len;
		buf[6] = 253;
		buf[7] = 64;
		memcpy(buf + 8, src, 16);
		memcpy(buf + 24, dst, 16);
	}
	memcpy(buf + hdr, payload, len);
	device_tx_packet(a->dev, total, a->net->now);
	device_tx_flush(a->dev, a->net->now);
	sim_run(a->net, a->net->now + SIM_MS(50));
}

/* Whether b's TUN device last got payload from src (family's header). */
static bool got_from(const struct sim_dev *b, int family, const uint8_t *src, const char *payload)
{
	size_t hdr = family == AF_INET ? 20 : 40, len = strlen(payload);

	return b->last_len == hdr + len && !memcmp(b->last + hdr, payload, len) &&
	       !memcmp(b->last + (family == AF_INET ? 12 : 8), src, family == AF_INET ? 4 : 16);
}

static void test_source_checked(void)
{
	static const uint8_t a6[16] = { 0xfd, [15] = 0x0a }, b6[16] = { 0xfd, [15] = 0x0b };
	static const uint8_t c6[16] = { 0xfd, [15] = 0x0c };
	static const uint8_t none6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x99 };	/* RFC 3849 */
	static const uint8_t none4[4] = { 203, 0, 113, 7 };	/* RFC 5737, no peer's */
	uint8_t a4[4], b4[4], c4[4];
	struct sim_net n;
	struct sim_dev *a, *b, *c;
	unsigned long before;
	uint64_t bad;
	const struct {
		int family;
		const uint8_t *src;
		const char *why;
	} spoofed[] = {
		{ AF_INET, c4, "c's IPv4 address" },
		{ AF_INET, none4, "an IPv4 address of no peer" },
		{ AF_INET6, c6, "c's IPv6 address" },
		{ AF_INET6, none6, "an IPv6 address of no peer" },
	};

	sim_init(&n, 22);
	a = sim_add(&n);
	b = sim_add(&n);
	c = sim_add(&n);
	if (!a || !b || !c)
		abort();
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	CHECK_EQ(sim_peer(b, a, true, NULL), 0);
	CHECK_EQ(sim_peer(b, c, true, NULL), 0);
	CHECK_EQ(sim_peer(c, b, true, NULL), 0);
	memcpy(a4, &(uint32_t){ htonl(a->inner) }, 4);
	memcpy(b4, &(uint32_t){ htonl(b->inner) }, 4);
	memcpy(c4, &(uint32_t){ htonl(c->inner) }, 4);
	/* a routes b's IPv6 address to b; b gives fd00::a to a and fd00::c to c */
	allow(a, b, AF_INET6, b6, 128);
	allow(b, a, AF_INET6, a6, 128);
	allow(b, c, AF_INET6, c6, 128);

	send_from(a, AF_INET, a4, b4, "own v4");
	CHECK(got_from(b, AF_INET, a4, "own v4"));
	send_from(a, AF_INET6, a6, b6, "own v6");
	CHECK(got_from(b, AF_INET6, a6, "own v6"));
	for (size_t i = 0; i < sizeof(spoofed) / sizeof(spoofed[0]); i++) {
		before = b->tun_packets;
		bad = b->dev->stats.rx_bad_source;
		send_from(a, spoofed[i].family, spoofed[i].src, spoofed[i].family == AF_INET ? b4 : b6,
			  "spoofed");
		tu_check(b->tun_packets == before && b->dev->stats.rx_bad_source == bad + 1,
			 "a's packet from %s: %lu delivered, %llu dropped for its source", spoofed[i].why,
			 b->tun_packets - before, (unsigned long long)(b->dev->stats.rx_bad_source - bad));
	}
	/* the session is intact: a's own addresses still go through */
	send_from(a, AF_INET, a4, b4, "still v4");
	CHECK(got_from(b, AF_INET, a4, "still v4"));
	send_from(a, AF_INET6, a6, b6, "still v6");
	CHECK(got_from(b, AF_INET6, a6, "still v6"));
	CHECK_EQ(b->dev->stats.rx_bad_source, sizeof(spoofed) / sizeof(spoofed[0]));
	sim_clear(&n);
}

/* a's cached source address for its peer b. */
static bool has_src(struct sim_dev *a, const struct sim_dev *b)
{
	struct peer *p = peer_lookup(a->dev, b->public_key);

	return p && p->endpoint.has_src;
}

/*
 * The sticky source is forgotten as the kernel forgets it: when the peer's
 * endpoint is set, even to the one in use, and when a fwmark is set, even
 * the one in use (doc/protocol.md §9).
 */
static void test_sticky_source_cleared(void)
{
	struct config_device cfg;
	struct config_peer *cp;
	struct sim_net n;
	struct sim_dev *a, *b;

	sim_init(&n, 23);
	a = sim_add(&n);
	b = sim_add(&n);
	if (!a || !b)
		abort();
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	CHECK_EQ(sim_peer(b, a, true, NULL), 0);
	sim_send_inner(a, b, (const uint8_t *)"x", 1);
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(has_src(a, b));

	/* the same endpoint again */
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	tu_check(!has_src(a, b), "setting the endpoint in use kept the cached source");
	sim_send_inner(b, a, (const uint8_t *)"y", 1);
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(has_src(a, b));	/* b's next packet taught it again */

	/* the fwmark in use (0) again */
	config_device_init(&cfg);
	cfg.flags |= CONFIG_DEVICE_HAS_FWMARK;
	cfg.fwmark = a->dev->fwmark;
	CHECK_EQ(sim_set(a, &cfg), 0);
	config_device_clear(&cfg);
	tu_check(!has_src(a, b), "setting the fwmark in use kept the cached source");

	/* a set that names neither keeps it */
	sim_send_inner(b, a, (const uint8_t *)"z", 1);
	sim_run(&n, n.now + SIM_MS(50));
	config_device_init(&cfg);
	cp = config_device_add_peer(&cfg, b->public_key);
	CHECK(cp != NULL);
	if (cp) {
		cp->flags |= CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_KEEPALIVE;
		CHECK_EQ(sim_set(a, &cfg), 0);
	}
	config_device_clear(&cfg);
	CHECK(has_src(a, b));
	sim_clear(&n);
}

int main(void)
{
	log_init("test_source", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 99;
	test_source_checked();
	test_sticky_source_cleared();
	log_clear();
	return ct_exit("device-source");
}
