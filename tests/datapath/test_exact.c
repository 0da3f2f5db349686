// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where wgd keeps a behaviour of its own against the kernel's WireGuard,
 * on purpose (doc/protocol.md §11), pinned with real devices joined in
 * memory (simnet.h):
 *   - the private key in use set again with other low bits (which clamp
 *     away) is the same identity: sessions go on, no handshake;
 *   - an IPv4-mapped IPv6 endpoint is an IPv4 endpoint: shown as IPv4,
 *     and it works (the kernel's IPv6-only socket cannot send to it);
 *   - padding is bounded by the device's MTU (a daemon cannot see the
 *     route an inner packet took);
 *   - a resume from suspend with a persistent keepalive handshakes at
 *     once, not when the keepalive interval next comes due.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"

static unsigned long initiations, initiations_a;	/* all, device 0's */
static size_t last_data_len;

static void on_send(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	(void)n;
	if (m->data[0] == MESSAGE_HANDSHAKE_INITIATION) {
		initiations++;
		initiations_a += from->id == 0;
	}
	else if (m->data[0] == MESSAGE_DATA && m->len > MESSAGE_DATA_OVERHEAD)
		last_data_len = m->len;
}

static void pair(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, uint64_t seed)
{
	sim_init(n, seed);
	n->on_send = on_send;
	initiations = initiations_a = 0;
	*a = sim_add(n);
	*b = sim_add(n);
	if (!*a || !*b)
		abort();
	CHECK_EQ(sim_peer(*a, *b, true, NULL), 0);
	CHECK_EQ(sim_peer(*b, *a, true, NULL), 0);
}

/* a sends b a packet of len payload bytes; whether b's TUN got it within 50 ms. */
static bool delivered(struct sim_dev *a, struct sim_dev *b, size_t len)
{
	static const uint8_t payload[1500];
	unsigned long before = b->tun_packets;

	sim_send_inner(a, b, payload, len);
	sim_run(a->net, a->net->now + SIM_MS(50));
	return b->tun_packets == before + 1;
}

static void test_unclamped_key_same_identity(void)
{
	struct config_device cfg;
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned long before;

	pair(&n, &a, &b, 71);
	CHECK(delivered(a, b, 10));
	before = initiations;
	config_device_init(&cfg);
	cfg.flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memcpy(cfg.private_key, a->private_key, 32);
	cfg.private_key[0] |= 7;	/* the low bits clamping clears */
	cfg.private_key[31] |= 0x80;	/* the top bit too */
	CHECK_EQ(sim_set(a, &cfg), 0);
	config_device_clear(&cfg);
	CHECK(delivered(a, b, 10));
	CHECK(delivered(b, a, 10));
	tu_check(initiations == before, "the same identity, unclamped: %lu new handshakes", initiations - before);
	sim_clear(&n);
}

static void test_mapped_endpoint_is_ipv4(void)
{
	struct config_device cfg;
	struct config_peer *cp, got;
	struct sim_net n;
	struct sim_dev *a, *b;

	pair(&n, &a, &b, 72);
	config_device_init(&cfg);
	cp = config_device_add_peer(&cfg, b->public_key);
	CHECK(cp != NULL);
	if (cp) {
		cp->flags |= CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_ENDPOINT;
		cp->endpoint.in6.sin6_family = AF_INET6;
		cp->endpoint.in6.sin6_port = b->addr.addr.in4.sin_port;
		cp->endpoint.in6.sin6_addr.s6_addr[10] = 0xff;
		cp->endpoint.in6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(cp->endpoint.in6.sin6_addr.s6_addr + 12, &b->addr.addr.in4.sin_addr, 4);
		CHECK_EQ(sim_set(a, &cfg), 0);
	}
	config_device_clear(&cfg);
	CHECK(sim_get_peer(a, b, &got));
	tu_check(got.endpoint.addr.sa_family == AF_INET &&
			 got.endpoint.in.sin_addr.s_addr == b->addr.addr.in4.sin_addr.s_addr &&
			 got.endpoint.in.sin_port == b->addr.addr.in4.sin_port,
		 "an IPv4-mapped endpoint is shown as family %d", got.endpoint.addr.sa_family);
	CHECK(delivered(a, b, 10));
	sim_clear(&n);
}

static void test_padding_device_mtu(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	pair(&n, &a, &b, 73);
	device_set_mtu(a->dev, 1420);
	/* 20 + 1379 = 1399 bytes: to 1408, within the device's 1420 (a route's 1400 would stop at 1400) */
	CHECK(delivered(a, b, 1379));
	CHECK_EQ(last_data_len, 1408 + MESSAGE_DATA_OVERHEAD);
	sim_clear(&n);
}

static void test_resume_handshakes_at_once(void)
{
	struct config_device cfg;
	struct config_peer *cp;
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned long before;

	pair(&n, &a, &b, 74);
	config_device_init(&cfg);
	cp = config_device_add_peer(&cfg, b->public_key);
	CHECK(cp != NULL);
	if (cp) {
		cp->flags |= CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_KEEPALIVE;
		cp->persistent_keepalive = 25;
		CHECK_EQ(sim_set(a, &cfg), 0);
	}
	config_device_clear(&cfg);
	CHECK(delivered(a, b, 10));
	sim_run(&n, n.now + SIM_S(5));
	before = initiations_a;
	n.now += SIM_S(600);
	device_resume(a->dev, n.now, SIM_S(600));
	sim_run(&n, n.now + SIM_MS(5));
	tu_check(initiations_a == before + 1, "resume with a persistent keepalive: %lu initiations within 5 ms",
		 initiations_a - before);
	sim_clear(&n);
}

int main(void)
{
	log_init("test_exact", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 99;
	test_unclamped_key_same_identity();
	test_mapped_endpoint_is_ipv4();
	test_padding_device_mtu();
	test_resume_handshakes_at_once();
	log_clear();
	return ct_exit("device-exact");
}
