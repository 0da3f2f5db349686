// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real devices joined in one process (simnet.h): what the namespace suites
 * check that needs no kernel, run against the data path library itself in
 * virtual time.  Handshakes initiated by either side, data both ways,
 * staging (the newest 128, in order), replayed datagrams, a datagram cut
 * short, roaming, key rotation right after a handshake, the rekey after
 * Rekey-After-Time under steady traffic, `syncconf` of an unchanged
 * configuration keeping its session, counters of sends the host refused,
 * suspend, the timers over a clean, a one-way, a lossy and a dead link, the
 * load detector (a backlog of valid initiations, not junk), and 5,000 peers.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/core/messages.h"
#include "daemon/datapath/peer.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"

/* Datagrams of each message type (1-4) sent, by device. */
static unsigned long sent_type[SIM_MAX_DEVS][5];
/* A copy of the last data message a device sent. */
static uint8_t last_data[SIM_MAX_DEVS][2048];
static size_t last_data_len[SIM_MAX_DEVS];

static void count_sends(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	if (getenv("WGD_TEST_LOG"))
		fprintf(stderr, "t=%.3f dev%u sends type %u len %zu\n", (double)(n->now - SIM_S(1000)) / 1e9,
			from->id, m->len ? m->data[0] : 0, m->len);
	if (m->len && m->data[0] >= 1 && m->data[0] <= 4)
		sent_type[from->id][m->data[0]]++;
	if (m->len && m->data[0] == MESSAGE_DATA && m->len <= sizeof(last_data[0])) {
		memcpy(last_data[from->id], m->data, m->len);
		last_data_len[from->id] = m->len;
	}
}

static void setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, uint64_t seed)
{
	sim_init(n, seed);
	memset(sent_type, 0, sizeof(sent_type));
	memset(last_data_len, 0, sizeof(last_data_len));
	n->on_send = count_sends;
	*a = sim_add(n);
	*b = sim_add(n);
	CHECK(*a && *b);
	CHECK_EQ(sim_peer(*a, *b, true, NULL), 0);
	CHECK_EQ(sim_peer(*b, *a, true, NULL), 0);
}

static uint64_t handshake_sec(struct sim_dev *d, struct sim_dev *p)
{
	struct config_peer cp;

	return sim_get_peer(d, p, &cp) ? (uint64_t)cp.last_handshake_sec * 1000000000ull +
						 (uint64_t)cp.last_handshake_nsec : 0;
}

/* The payload of the last packet d's TUN device got. */
static bool got_payload(const struct sim_dev *d, const char *want)
{
	size_t len = strlen(want);

	return d->last_len == 20 + len && !memcmp(d->last + 20, want, len);
}

static void msg(struct sim_dev *from, struct sim_dev *to, const char *text)
{
	sim_send_inner(from, to, (const uint8_t *)text, strlen(text));
}

static void test_handshake_and_data(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	setup(&n, &a, &b, 1);
	msg(a, b, "hello b");
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION], 1);
	CHECK_EQ(b->tun_packets, 0);
	sim_run(&n, n.now + SIM_MS(50));
	/* initiation, response, then the staged packet (no keepalive needed) */
	CHECK_EQ(sent_type[1][MESSAGE_HANDSHAKE_RESPONSE], 1);
	CHECK_EQ(b->tun_packets, 1);
	CHECK(got_payload(b, "hello b"));
	CHECK(handshake_sec(a, b) != 0);
	CHECK(handshake_sec(b, a) != 0);
	msg(b, a, "hello a");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(a->tun_packets, 1);
	CHECK(got_payload(a, "hello a"));
	/* one handshake in all: the session serves both directions */
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION] + sent_type[1][MESSAGE_HANDSHAKE_INITIATION], 1);
	sim_clear(&n);
}

/* b does not know where a is: it learns a's endpoint from the handshake. */
static void test_responder_learns_endpoint(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct config_peer cp;

	sim_init(&n, 2);
	memset(sent_type, 0, sizeof(sent_type));
	n.on_send = count_sends;
	a = sim_add(&n);
	b = sim_add(&n);
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	CHECK_EQ(sim_peer(b, a, false, NULL), 0);
	msg(b, a, "lost");		/* no endpoint: dropped, nothing sent */
	CHECK_EQ(n.sent, 0);
	msg(a, b, "ping");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "ping"));
	CHECK(sim_get_peer(b, a, &cp) && endpoint_addr_equal(&(struct endpoint){ .addr.in4 = cp.endpoint.in },
							      &a->addr));
	msg(b, a, "pong");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(a, "pong"));
	sim_clear(&n);
}

/* Every data message replayed: none delivered twice. */
static void test_replay(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t copy[2048];
	size_t len;
	unsigned long before;

	setup(&n, &a, &b, 3);
	msg(a, b, "one");
	sim_run(&n, n.now + SIM_MS(50));
	msg(a, b, "two");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(b->tun_packets, 2);
	len = last_data_len[0];
	memcpy(copy, last_data[0], len);
	before = b->tun_packets;
	sim_inject(a, b, copy, len);
	sim_inject(a, b, copy, len);
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(b->tun_packets, before);
	/* a flipped byte anywhere in it is refused too */
	for (size_t i = 0; i < len; i++) {
		copy[i] ^= 0x40;
		sim_inject(a, b, copy, len);
		copy[i] ^= 0x40;
	}
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(b->tun_packets, before);
	msg(a, b, "three");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "three"));
	sim_clear(&n);
}

/*
 * A datagram the socket cut short (MSG_TRUNC) is lost, counted once as
 * failing the edge check, even when the bytes that fit are a whole
 * authentic data message (found by tests/fuzz/fuzz_receive: it was counted
 * and then processed all the same).
 */
static void deliver_to(struct sim_dev *to, const struct sim_dev *from, const uint8_t *data, size_t len,
		       bool truncated)
{
	unsigned int count;
	struct udp_msg *msgs = device_rx_buffers(to->dev, &count);

	CHECK(count > 0 && len <= msgs[0].len);
	memcpy(msgs[0].data, data, len);
	msgs[0].len = len;
	msgs[0].seg = 0;
	msgs[0].truncated = truncated;
	*msgs[0].ep = from->addr;
	msgs[0].ep->src.v4 = to->addr.addr.in4.sin_addr;
	msgs[0].ep->has_src = true;
	device_rx_batch(to->dev, UDP_V4, 1, to->net->now);
	device_rx_flush(to->dev);
}

static void test_truncated_datagram_lost(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t copy[2048];
	size_t len;
	unsigned long before;
	uint64_t invalid;

	setup(&n, &a, &b, 20);
	msg(a, b, "one");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "one"));
	n.cut[0][1] = true;		/* "two" is sent (and copied) but not delivered */
	msg(a, b, "two");
	sim_run(&n, n.now + SIM_MS(50));
	len = last_data_len[0];
	memcpy(copy, last_data[0], len);
	before = b->tun_packets;
	invalid = b->dev->stats.rx_invalid;
	deliver_to(b, a, copy, len, true);
	CHECK_EQ(b->tun_packets, before);
	CHECK_EQ(b->dev->stats.rx_invalid, invalid + 1);
	/* whole, the same datagram is delivered: only the cut was refused */
	deliver_to(b, a, copy, len, false);
	CHECK_EQ(b->tun_packets, before + 1);
	CHECK(got_payload(b, "two"));
	sim_clear(&n);
}

/*
 * An IPv4 header whose IHL is below 5 or runs past the total length is no
 * IPv4 header (RFC 791): not sealed, and not delivered either, as both
 * directions read it with ip_parse() (found by tests/fuzz/fuzz_tun: an IHL
 * of 0 reached the peer's TUN device).
 */
static void test_bad_ihl_refused(void)
{
	static const uint8_t ihl[] = { 0, 4, 6 };
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned long sent, before;
	uint64_t bad;
	size_t i, size;

	setup(&n, &a, &b, 21);
	msg(a, b, "one");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "one"));
	for (i = 0; i < sizeof(ihl); i++) {
		uint8_t *buf;

		sent = n.sent;
		before = b->tun_packets;
		bad = a->dev->stats.tx_bad_packet;
		buf = device_tx_buffer(a->dev, &size);
		memset(buf, 0, 20);
		buf[0] = (uint8_t)(0x40 | ihl[i]);
		buf[3] = 20;		/* total length 20: IHL 6 runs past it */
		buf[8] = 64;
		buf[9] = 253;
		memcpy(buf + 12, &(uint32_t){ htonl(a->inner) }, 4);
		memcpy(buf + 16, &(uint32_t){ htonl(b->inner) }, 4);
		device_tx_packet(a->dev, 20, n.now);
		device_tx_flush(a->dev, n.now);
		sim_run(&n, n.now + SIM_MS(50));
		CHECK_EQ(n.sent, sent);
		CHECK_EQ(a->dev->stats.tx_bad_packet, bad + 1);
		CHECK_EQ(b->tun_packets, before);
	}
	sim_clear(&n);
}

/* Track the order of staged packets as they reach the TUN device. */
static unsigned int next_expected;
static bool in_order;

static void check_order(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	uint32_t got;

	(void)n;
	(void)to;
	if (len < 24)
		return;
	got = (uint32_t)pkt[20] << 24 | (uint32_t)pkt[21] << 16 | (uint32_t)pkt[22] << 8 | pkt[23];
	in_order &= got == next_expected;
	next_expected++;
}

/* The newest MAX_STAGED_PACKETS staged packets go out, in order, after one handshake. */
static void test_staging_order(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned int i;

	setup(&n, &a, &b, 5);
	n.delay_ns = SIM_MS(20);
	n.on_tun = check_order;
	next_expected = 200 - MAX_STAGED_PACKETS + 1;
	in_order = true;
	for (i = 1; i <= 200; i++) {
		uint8_t num[4] = { (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i };

		sim_send_inner(a, b, num, sizeof(num));
	}
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION], 1);
	sim_run(&n, n.now + SIM_MS(200));
	CHECK_EQ(b->tun_packets, MAX_STAGED_PACKETS);
	CHECK(in_order);
	CHECK_EQ(next_expected, 201);
	sim_clear(&n);
}

/* a moves to another port (NAT rebinding); b follows it from a's packets. */
static void test_roaming(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct config_peer cp;

	setup(&n, &a, &b, 6);
	msg(a, b, "before");
	sim_run(&n, n.now + SIM_MS(50));
	sim_rebind(a, 40000);
	msg(a, b, "after");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "after"));
	CHECK(sim_get_peer(b, a, &cp) && ntohs(cp.endpoint.in.sin_port) == 40000);
	msg(b, a, "back");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(a, "back"));
	sim_clear(&n);
}

/*
 * Key rotation right after a handshake: b learns a's new public key, a
 * takes the new private key, and a's next packet is answered within a
 * second (the initiation rate limit goes with the old keys).
 */
static void test_key_rotation(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct config_device cfg;
	struct config_peer *p;
	struct config_allowedip aip = { .family = AF_INET, .cidr = 32 };
	uint8_t priv[32], pub[32];
	uint32_t inner;

	setup(&n, &a, &b, 7);
	msg(a, b, "old key");
	sim_run(&n, n.now + SIM_MS(100));
	CHECK(got_payload(b, "old key"));
	memset(priv, 0x42, sizeof(priv));
	x25519_clamp(priv);
	CHECK(x25519_public(pub, priv));
	/* b: the old key goes, the new one comes */
	config_device_init(&cfg);
	p = config_device_add_peer(&cfg, a->public_key);
	p->flags |= CONFIG_PEER_REMOVE;
	p = config_device_add_peer(&cfg, pub);
	inner = htonl(a->inner);
	memcpy(aip.addr, &inner, 4);
	config_peer_add_allowedip(p, &aip);
	CHECK_EQ(sim_set(b, &cfg), 0);
	config_device_clear(&cfg);
	/* a: the new private key */
	config_device_init(&cfg);
	cfg.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memcpy(cfg.private_key, priv, 32);
	CHECK_EQ(sim_set(a, &cfg), 0);
	config_device_clear(&cfg);
	memcpy(a->public_key, pub, 32);
	msg(a, b, "new key");
	sim_run(&n, n.now + SIM_S(1));
	CHECK(got_payload(b, "new key"));
	crypto_wipe(priv, sizeof(priv));
	sim_clear(&n);
}

/* Steady traffic for 200 s: a rekey at Rekey-After-Time, nothing lost. */
static void test_rekey_under_traffic(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned int i;

	setup(&n, &a, &b, 8);
	/* a starts the session (both at once would cross, see test_crossing) */
	msg(a, b, "tick");
	sim_run(&n, n.now + SIM_S(1));
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION], 1);
	for (i = 1; i < 200; i++) {
		msg(a, b, "tick");
		msg(b, a, "tock");
		sim_run(&n, n.now + SIM_S(1));
	}
	CHECK_EQ(b->tun_packets, 200);
	CHECK_EQ(a->tun_packets, 199);
	/* the first handshake, and one rekey after REKEY_AFTER_TIME (120 s) */
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION] + sent_type[1][MESSAGE_HANDSHAKE_INITIATION], 2);
	sim_clear(&n);
}

/* The same configuration set again (what syncconf does) keeps the session. */
static void test_unchanged_set_keeps_session(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint64_t hs;

	setup(&n, &a, &b, 9);
	msg(a, b, "x");
	sim_run(&n, n.now + SIM_MS(50));
	hs = handshake_sec(a, b);
	CHECK(hs != 0);
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	CHECK_EQ(sim_peer(b, a, true, NULL), 0);
	msg(a, b, "y");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "y"));
	CHECK_EQ(handshake_sec(a, b), hs);
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION], 1);
	sim_clear(&n);
}

/* Sends the host refused count as nothing sent. */
static void test_refused_sends_not_counted(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct config_peer cp;
	uint64_t tx;

	setup(&n, &a, &b, 10);
	msg(a, b, "x");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(sim_get_peer(a, b, &cp));
	tx = cp.tx_bytes;
	a->fail_send = true;
	msg(a, b, "refused");
	CHECK(sim_get_peer(a, b, &cp) && cp.tx_bytes == tx);
	a->fail_send = false;
	msg(a, b, "sent");
	CHECK(sim_get_peer(a, b, &cp) && cp.tx_bytes > tx);
	sim_clear(&n);
}

/*
 * Both sides initiate at the same instant: each consumes the other's
 * initiation, which replaces its own handshake, so neither response can be
 * consumed (WP §5.4: one handshake in flight per peer).  The retransmission
 * after Rekey-Timeout (with jitter) settles it, and the staged packets of
 * both get through.
 */
static void test_crossing(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	setup(&n, &a, &b, 12);
	msg(a, b, "from a");
	msg(b, a, "from b");
	sim_run(&n, n.now + SIM_S(REKEY_TIMEOUT) - SIM_MS(1));
	CHECK_EQ(a->tun_packets + b->tun_packets, 0);
	sim_run(&n, n.now + SIM_S(1) + SIM_MS(REKEY_TIMEOUT_JITTER_MAX_MS));
	CHECK(got_payload(a, "from b"));
	CHECK(got_payload(b, "from a"));
	sim_clear(&n);
}

/* A resume wipes the sessions: the next packet handshakes anew. */
static void test_resume(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	setup(&n, &a, &b, 11);
	msg(a, b, "before");
	/* b's passive keepalive (10 s) goes out before the clock jumps */
	sim_run(&n, n.now + SIM_S(20));
	n.now += SIM_S(7200);
	device_resume(a->dev, n.now, SIM_S(7200));
	msg(a, b, "after");
	CHECK_EQ(sent_type[0][MESSAGE_HANDSHAKE_INITIATION], 2);
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "after"));
	sim_clear(&n);
}

/* ---- the timers over a lossy link, real devices (WP §6) ---- */

/* Keepalives: data messages with no payload (32 bytes), by device. */
static unsigned long keepalives[SIM_MAX_DEVS];
static void count_all(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	count_sends(n, from, m);
	if (m->len == MESSAGE_DATA_OVERHEAD && m->data[0] == MESSAGE_DATA)
		keepalives[from->id]++;
}

/*
 * Advances the clock in 100 ms steps for `seconds`; a sends every a_every
 * steps and b every b_every steps, offset by 3 (0 = never).
 */
static void traffic(struct sim_net *n, struct sim_dev *a, struct sim_dev *b, unsigned int seconds,
		    unsigned int a_every, unsigned int b_every)
{
	unsigned int step;

	for (step = 0; step < seconds * 10; step++) {
		if (a_every && step % a_every == 0)
			msg(a, b, "data from a");
		if (b_every && step % b_every == 3)
			msg(b, a, "data from b");
		sim_run(n, n->now + SIM_MS(100));
	}
}

static void timers_setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, uint64_t seed)
{
	setup(n, a, b, seed);
	memset(keepalives, 0, sizeof(keepalives));
	n->on_send = count_all;
}

static unsigned long handshakes(void)
{
	return sent_type[0][MESSAGE_HANDSHAKE_RESPONSE] + sent_type[1][MESSAGE_HANDSHAKE_RESPONSE];
}

static unsigned long initiations(unsigned int id)
{
	return sent_type[id][MESSAGE_HANDSHAKE_INITIATION];
}

static bool has_keys(const struct sim_dev *d)
{
	const struct noise_remote *r = &d->dev->peers->remote;

	return r->current || r->previous || r->next;
}

static void test_timers_clean_link(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	/* two-way traffic for 20 minutes: sessions roll every ~2 minutes */
	timers_setup(&n, &a, &b, 21);
	traffic(&n, a, b, 1200, 10, 10);
	tu_check(handshakes() >= 9 && handshakes() <= 14, "clean link: %lu handshakes in 20 min", handshakes());
	tu_check(a->tun_packets >= 1190 && b->tun_packets >= 1190, "clean link: delivered %lu / %lu",
		 a->tun_packets, b->tun_packets);
	sim_clear(&n);
}

static void test_timers_one_way(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	/* b only answers with keepalives (after 10 s of silence); sessions still roll */
	timers_setup(&n, &a, &b, 22);
	traffic(&n, a, b, 600, 10, 0);
	tu_check(b->tun_packets >= 590 && keepalives[1] > 0, "one way: %lu delivered, %lu keepalives",
		 b->tun_packets, keepalives[1]);
	CHECK(handshakes() >= 4);
	sim_clear(&n);
}

static void test_timers_lossy(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	/* 30% loss each way: still most arrives, sessions are never zeroed */
	timers_setup(&n, &a, &b, 23);
	n.drop_pct = 30;
	traffic(&n, a, b, 600, 10, 10);
	tu_check(a->tun_packets > 350 && b->tun_packets > 350, "30%% loss: delivered %lu / %lu",
		 a->tun_packets, b->tun_packets);
	CHECK(has_keys(a) && has_keys(b));
	sim_clear(&n);
}

/*
 * The peer vanishes.  While a keeps sending, every packet restarts the
 * attempts; once it stops, the retries run out (WP §6.4: at most
 * MAX_TIMER_HANDSHAKES + 2 initiations), a gives up, and its keys are
 * zeroed Reject-After-Time x 3 after the last session.  Then silence, until
 * the peer is back and new data brings the tunnel up again.
 */
static void test_timers_dead_peer(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	unsigned long before;

	timers_setup(&n, &a, &b, 24);
	traffic(&n, a, b, 30, 10, 10);
	n.cut[0][1] = n.cut[1][0] = true;
	traffic(&n, a, b, 120, 10, 0);
	before = initiations(0);
	traffic(&n, a, b, 600, 0, 0);
	tu_check(initiations(0) - before >= 17 && initiations(0) - before <= MAX_TIMER_HANDSHAKES + 2,
		 "dead peer: %lu initiations after the last data", initiations(0) - before);
	CHECK(!has_keys(a));
	before = initiations(0);
	traffic(&n, a, b, 300, 0, 0);
	CHECK_EQ(initiations(0), before);	/* silence after giving up */
	n.cut[0][1] = n.cut[1][0] = false;
	before = b->tun_packets;
	traffic(&n, a, b, 30, 10, 0);
	tu_check(b->tun_packets - before >= 25, "peer back: %lu delivered", b->tun_packets - before);
	sim_clear(&n);
}

/* ---- the load detector and many peers, real devices ---- */

/* A captured initiation of a, copied by count_sends' sibling below. */
static uint8_t init_copy[MESSAGE_INITIATION_LEN];
static bool init_captured;

static void capture_initiation(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	count_sends(n, from, m);
	if (from->id == 0 && m->len == MESSAGE_INITIATION_LEN && !init_captured) {
		memcpy(init_copy, m->data, sizeof(init_copy));
		init_captured = true;
	}
}

/* Reads that fill the whole batch, each datagram a copy of msg, from `from`. */
static void full_reads(struct sim_dev *to, const struct sim_dev *from, const uint8_t *msg, size_t len,
		       unsigned int reads)
{
	unsigned int r, i, count;

	for (r = 0; r < reads; r++) {
		struct udp_msg *msgs = device_rx_buffers(to->dev, &count);

		for (i = 0; i < count; i++) {
			memcpy(msgs[i].data, msg, len);
			msgs[i].len = len;
			msgs[i].seg = 0;
			msgs[i].truncated = false;
			*msgs[i].ep = from->addr;
			msgs[i].ep->src.v4 = to->addr.addr.in4.sin_addr;
			msgs[i].ep->has_src = true;
		}
		device_rx_batch(to->dev, UDP_V4, count, to->net->now);
	}
	device_rx_flush(to->dev);
}

/*
 * Under load (doc/architecture.md, "Under load"): a backlog of valid
 * initiations (reads that fill the batch, 512 and more of them) makes b
 * answer the next initiation with a cookie reply; as many reads of junk of
 * the same size and type (no valid mac1) do not.
 */
static void test_load_detector(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t junk[MESSAGE_INITIATION_LEN];
	unsigned int reads = UNDER_LOAD_QUEUE_LEN / PACKET_BATCH + 2;

	setup(&n, &a, &b, 30);
	init_captured = false;
	n.on_send = capture_initiation;
	msg(a, b, "first");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(init_captured && got_payload(b, "first"));

	/* junk: random bytes behind an initiation's header */
	memcpy(junk, init_copy, 4);
	for (size_t i = 4; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	full_reads(b, a, junk, sizeof(junk), reads);
	CHECK_EQ(b->dev->stats.rx_bad_mac, (uint64_t)reads * PACKET_BATCH);
	sim_peer(a, b, true, NULL);	/* unchanged: a set that changes nothing */
	n.now += SIM_MS(100);
	device_resume(a->dev, n.now, SIM_S(5));	/* a forgets its session */
	msg(a, b, "after junk");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK_EQ(sent_type[1][MESSAGE_HANDSHAKE_COOKIE], 0);
	CHECK(got_payload(b, "after junk"));

	/* replayed valid initiations, a backlog: b is under load */
	n.now += SIM_S(2);
	full_reads(b, a, init_copy, sizeof(init_copy), reads);
	CHECK(sent_type[1][MESSAGE_HANDSHAKE_COOKIE] > 0);
	device_resume(a->dev, n.now, SIM_S(5));
	sent_type[1][MESSAGE_HANDSHAKE_COOKIE] = 0;
	msg(a, b, "under load");
	sim_run(&n, n.now + SIM_MS(50));
	/* the fresh initiation without mac2 gets a cookie, not a session... */
	CHECK_EQ(sent_type[1][MESSAGE_HANDSHAKE_COOKIE], 1);
	CHECK(!got_payload(b, "under load"));
	/* ...and the retransmission, with mac2 from that cookie, gets through */
	sim_run(&n, n.now + SIM_S(REKEY_TIMEOUT) + SIM_MS(REKEY_TIMEOUT_JITTER_MAX_MS + 50));
	CHECK(got_payload(b, "under load"));
	sim_clear(&n);
}

/* 5,000 other peers on b: a's handshake and data find their peer by key. */
static void test_many_peers(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct config_device cfg, got;
	unsigned int i, added = 0;

	setup(&n, &a, &b, 31);
	config_device_init(&cfg);
	for (i = 0; i < 5000; i++) {
		uint8_t key[32];
		struct config_peer *p;
		struct config_allowedip aip = { .family = AF_INET, .cidr = 32 };
		uint32_t addr = htonl(0x0a000000u + i);

		for (size_t k = 0; k < sizeof(key); k++)
			key[k] = (uint8_t)((i * 131 + k * 7 + 1) ^ (i >> 8));
		p = config_device_add_peer(&cfg, key);
		if (!p)
			break;
		memcpy(aip.addr, &addr, 4);
		added += config_peer_add_allowedip(p, &aip) == 0;
	}
	CHECK_EQ(added, 5000);
	CHECK_EQ(sim_set(b, &cfg), 0);
	config_device_clear(&cfg);
	CHECK_EQ(b->dev->npeers, 5001);
	msg(a, b, "one of many");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "one of many"));
	msg(b, a, "back");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(a, "back"));
	config_device_init(&got);
	CHECK_EQ(device_config_get(b->dev, &got), 0);
	CHECK_EQ(got.peers_len, 5001);
	config_device_clear(&got);
	sim_clear(&n);
}

int main(int argc, char **argv)
{
	/* WGD_TEST_LOG=debug shows what the devices log. */
	log_init("test_device", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!sim_parse_threads(argc, argv)) {
		fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
		return 2;
	}
	if (!x25519_init())
		return 99;
	test_handshake_and_data();
	test_responder_learns_endpoint();
	test_replay();
	test_truncated_datagram_lost();
	test_bad_ihl_refused();
	test_staging_order();
	test_roaming();
	test_key_rotation();
	test_rekey_under_traffic();
	test_unchanged_set_keeps_session();
	test_refused_sends_not_counted();
	test_crossing();
	test_resume();
	test_timers_clean_link();
	test_timers_one_way();
	test_timers_lossy();
	test_timers_dead_peer();
	test_load_detector();
	test_many_peers();
	log_clear();
	printf("test_device: traffic digest %016llx\n", (unsigned long long)sim_digests);
	fprintf(stderr, "%lu jobs run by workers\n", sim_worker_jobs);
	return ct_exit("device");
}
