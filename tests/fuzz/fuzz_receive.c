// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the receive path of a device with a live session
 * (daemon/datapath/receive.c and what it calls: the edge check, cookies, the
 * handshake, opening in place, the replay window, roaming, the source
 * check, the TUN write, and the timers between datagrams).
 *
 * Every input starts from the same state: two simnet devices a and b
 * (tests/datapath/simnet.h, fixed seed) where b initiated a handshake with
 * a, sent a data message, got one back, sent a passive keepalive
 * (WP §6.5) and sealed FUZZ_SEALED more data messages that a has not seen
 * yet.  Because the seed is fixed, the messages b sent are byte for byte
 * those of the checked-in corpus, which this harness writes itself:
 *   FUZZ_MAKE_CORPUS=DIR fuzz_receive
 * (FUZZ_VERBOSE=1 prints, per input, what a read, delivered and dropped.)
 *
 * Input: records of a source selector, a clock step, a 16-bit
 * little-endian length and that many bytes, one datagram each, delivered
 * into a's receive path (device_rx_buffers/device_rx_batch); records with
 * no clock step between them share a batch.  Selector bit 0 set: from a
 * foreign address (203.0.113.9, RFC 5737); bit 1 set: from b's address at
 * another port (a NAT rebinding); otherwise from b's address and port.
 * The step s advances the clock by s^2 ms before the record (up to 65 s;
 * a's and b's timers run, and what they send each other is delivered).
 *
 * Properties, besides no crash, leak or undefined behaviour:
 *  - a's TUN device gets nothing but packets b sealed, each at most once
 *    (no forgery, no replay: WP §5.4.6, RFC 6479's window);
 *  - every datagram a reads is dropped at most once: the drop counters
 *    plus the packets delivered grow by no more than the datagrams read;
 *  - afterwards the session still works: b sends a fresh packet, a gets
 *    it; a answers, b gets it (with a new handshake if the clock made one
 *    due; WP §6.1-6.4).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/cookie.h"
#include "daemon/core/messages.h"
#include "tests/fuzz/fuzzdev.h"
#include "tests/fuzz/fuzzref.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SEALED 6		/* data messages b seals for a during the setup */
#define FUZZ_MAX_PLAIN 24	/* plaintexts b seals in one run: setup + the final check */
#define FUZZ_MAX_CAPTURE 16
#define FUZZ_MAX_RECORDS 64	/* per input: the loop's bound */

struct plain {
	uint8_t pkt[1500];
	size_t len;
	bool delivered;
};

/* A message a or b sent during the setup, as captured by the network hook. */
struct capture {
	unsigned int from;
	uint8_t data[2048];
	size_t len;
};

static struct fuzz_state {
	struct sim_net net;
	struct sim_dev *a, *b;
	struct plain plains[FUZZ_MAX_PLAIN];	/* what b sealed */
	unsigned int nplains;
	struct capture caps[FUZZ_MAX_CAPTURE];
	unsigned int ncaps;
	bool capturing;
	unsigned long a_delivered;		/* datagrams the network handed to a */
	unsigned long a_tun;			/* packets a wrote to its TUN device */
	uint8_t b_last[1500];
	size_t b_last_len;
	unsigned long b_tun;
	uint8_t cookie[MESSAGE_COOKIE_LEN];	/* a reply to a's response, by b's key */
} st;

static void on_send(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	struct capture *c;

	(void)n;
	if (!st.capturing || st.ncaps == FUZZ_MAX_CAPTURE || m->len > sizeof(c->data))
		return;
	c = &st.caps[st.ncaps++];
	c->from = from->id;
	c->len = m->len;
	memcpy(c->data, m->data, m->len);
}

static void on_tun(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	unsigned int i;

	(void)n;
	if (to == st.b) {
		st.b_tun++;
		st.b_last_len = len < sizeof(st.b_last) ? len : sizeof(st.b_last);
		memcpy(st.b_last, pkt, st.b_last_len);
		return;
	}
	st.a_tun++;
	for (i = 0; i < st.nplains; i++) {
		struct plain *p = &st.plains[i];

		if (!p->delivered && p->len == len && !memcmp(p->pkt, pkt, len)) {
			p->delivered = true;
			return;
		}
	}
	FUZZ_CHECK(0, "a's TUN got %zu bytes that b never sealed, or a second time", len);
}

static void on_deliver(struct sim_net *n, struct sim_dev *to, const struct sim_dgram *g)
{
	(void)n;
	(void)g;
	if (to == st.a)
		st.a_delivered++;
}

/* b reads one packet for a from its TUN device and sends it (recorded as sealed). */
static void b_sends(const char *text, size_t len)
{
	struct plain *p;

	if (st.nplains == FUZZ_MAX_PLAIN)
		abort();
	p = &st.plains[st.nplains++];
	p->len = fuzzdev_ipv4(p->pkt, sizeof(p->pkt), st.b->inner, st.a->inner, (const uint8_t *)text, len);
	p->delivered = false;
	fuzzdev_tun_read(st.b->dev, p->pkt, p->len, st.net.now);
	device_tx_flush(st.b->dev, st.net.now);
}

static bool cookie_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	memset(buf, 0x5c, len);	/* fixed: the reply must be the same every run */
	return true;
}

/* A cookie reply to a's handshake response, as b's checker under load would make it (WP §5.4.7). */
static void make_cookie_reply(void)
{
	struct cookie_checker c;
	struct core_random r = { .fill = cookie_random };
	unsigned int i;

	for (i = 0; i < st.ncaps; i++) {
		if (st.caps[i].from == st.a->id && st.caps[i].data[0] == MESSAGE_HANDSHAKE_RESPONSE)
			break;
	}
	if (i == st.ncaps)
		abort();
	cookie_checker_init(&c);
	cookie_checker_set_random(&c, &r);
	cookie_checker_set_key(&c, st.b->public_key);
	if (!cookie_checker_create_reply(&c, st.cookie, st.caps[i].data, st.caps[i].len,
					 (const uint8_t *)&st.a->addr.addr.in4.sin_addr, 4, st.net.now))
		abort();
	cookie_checker_clear(&c);
}

static void setup(void)
{
	static const char filler[1400] = "the quick brown fox";
	static const size_t sizes[FUZZ_SEALED] = { 0, 1, 15, 16, 300, 1380 };
	struct sim_net *n = &st.net;
	unsigned int i;

	memset(&st, 0, sizeof(st));
	sim_init(n, FUZZDEV_SEED);
	n->on_send = on_send;
	n->on_tun = on_tun;
	n->on_deliver = on_deliver;
	st.a = sim_add(n);
	st.b = sim_add(n);
	if (!st.a || !st.b || sim_peer(st.a, st.b, true, NULL) || sim_peer(st.b, st.a, true, NULL))
		abort();
	st.capturing = true;
	/* b initiates; its staged packet follows a's response */
	b_sends("hello a", 7);
	sim_run(n, n->now + SIM_MS(50));
	/* a answers, so b has data to acknowledge with a passive keepalive */
	{
		uint8_t pkt[64];
		size_t len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, st.b->inner,
					  (const uint8_t *)"hello b", 7);

		fuzzdev_tun_read(st.a->dev, pkt, len, n->now);
		device_tx_flush(st.a->dev, n->now);
	}
	/* what b sends from here on is captured but not delivered */
	n->cut[st.b->id][st.a->id] = true;
	sim_run(n, n->now + SIM_MS(10500));	/* Keepalive-Timeout, 10 s (WP §6.5) */
	for (i = 0; i < FUZZ_SEALED; i++)
		b_sends(filler, sizes[i]);
	sim_run(n, n->now + SIM_MS(10));
	n->cut[st.b->id][st.a->id] = false;
	st.capturing = false;
	make_cookie_reply();
	if (st.a_tun != 1 || st.b_tun != 1 || !st.plains[0].delivered)
		abort();	/* the setup itself did not go as described */
	st.a_tun = 0;
	st.a_delivered = 0;
}

static uint64_t a_drops(void)
{
	const struct device_stats *s = &st.a->dev->stats;

	return s->rx_invalid + s->rx_bad_mac + s->rx_handshake_dropped + s->rx_data_dropped + s->rx_bad_inner +
	       s->rx_bad_source + s->rx_ecn_dropped + s->rx_tun_dropped;
}

static void source_of(uint8_t sel, struct endpoint *ep)
{
	*ep = st.b->addr;
	if (sel & 1) {
		ep->addr.in4.sin_addr.s_addr = htonl(0xcb007109u);	/* 203.0.113.9 */
		ep->addr.in4.sin_port = htons((uint16_t)(40000 + sel));
	} else if (sel & 2) {
		ep->addr.in4.sin_port = htons((uint16_t)(ntohs(ep->addr.in4.sin_port) + 1 + (sel >> 2)));
	}
	ep->src.v4 = st.a->addr.addr.in4.sin_addr;
	ep->has_src = true;
}

/* After the input: b to a, then a to b, each given 30 s (handshake retries, WP §6.4). */
static void check_session(void)
{
	struct sim_net *n = &st.net;
	uint8_t pkt[64];
	size_t len;
	unsigned int live = st.nplains;

	b_sends("still there, a?", 15);
	sim_run(n, n->now + SIM_S(30));
	FUZZ_CHECK(st.plains[live].delivered, "a no longer receives from b");
	len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, st.b->inner, (const uint8_t *)"yes, b", 6);
	st.b_tun = 0;
	fuzzdev_tun_read(st.a->dev, pkt, len, n->now);
	device_tx_flush(st.a->dev, n->now);
	sim_run(n, n->now + SIM_S(30));
	FUZZ_CHECK(st.b_tun == 1 && st.b_last_len == len && !memcmp(st.b_last, pkt, len),
		   "b no longer receives from a (%lu packets)", st.b_tun);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_net *n = &st.net;
	struct udp_msg *msgs = NULL;
	unsigned int cap = 0, got = 0, records;
	unsigned long read = 0;
	uint64_t drops0;
	size_t off = 0;

	setup();
	drops0 = a_drops();
	for (records = 0; records < FUZZ_MAX_RECORDS && size - off >= 4; records++) {
		uint8_t sel = data[off], step = data[off + 1];
		size_t len = (size_t)data[off + 2] | (size_t)data[off + 3] << 8;

		off += 4;
		if (len > size - off)
			len = size - off;
		if (step && got) {
			device_rx_batch(st.a->dev, UDP_V4, got, n->now);
			got = 0;
		}
		if (step)
			sim_run(n, n->now + SIM_MS((uint64_t)step * step));
		if (!got)
			msgs = device_rx_buffers(st.a->dev, &cap);
		if (!cap)
			abort();
		/* a datagram larger than the buffer is cut, as recvmmsg() cuts it */
		msgs[got].truncated = len > msgs[got].len;
		msgs[got].len = len < msgs[got].len ? len : msgs[got].len;
		memcpy(msgs[got].data, data + off, msgs[got].len);
		msgs[got].seg = 0;
		source_of(sel, msgs[got].ep);
		off += len;
		read++;
		if (++got == cap) {
			device_rx_batch(st.a->dev, UDP_V4, got, n->now);
			got = 0;
		}
	}
	if (got)
		device_rx_batch(st.a->dev, UDP_V4, got, n->now);
	device_rx_flush(st.a->dev);
	FUZZ_CHECK(a_drops() - drops0 + st.a_tun <= read + st.a_delivered,
		   "%llu drops and %lu deliveries from %lu datagrams read and %lu delivered by the network",
		   (unsigned long long)(a_drops() - drops0), st.a_tun, read, st.a_delivered);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%lu datagrams read, %lu delivered to a's TUN, %llu dropped\n", read, st.a_tun,
			(unsigned long long)(a_drops() - drops0));
	check_session();
	sim_clear(n);
	return 0;
}

/* ---- the seed corpus: the messages b sent, as records ---- */

struct seed {
	uint8_t buf[16384];
	size_t len;
};

static void seed_add(struct seed *s, uint8_t sel, uint8_t step, const uint8_t *msg, size_t len)
{
	if (s->len + 4 + len > sizeof(s->buf))
		abort();
	s->buf[s->len++] = sel;
	s->buf[s->len++] = step;
	s->buf[s->len++] = (uint8_t)len;
	s->buf[s->len++] = (uint8_t)(len >> 8);
	memcpy(s->buf + s->len, msg, len);
	s->len += len;
}

static void make_corpus(const char *dir)
{
	struct seed s;
	unsigned int i, data[FUZZ_MAX_CAPTURE], ndata = 0, init = 0, resp = 0, keepalive = 0;
	char name[64];

	setup();
	for (i = 0; i < st.ncaps; i++) {
		const struct capture *c = &st.caps[i];

		if (c->from == st.a->id) {
			if (c->data[0] == MESSAGE_HANDSHAKE_RESPONSE)
				resp = i;
			continue;
		}
		if (c->data[0] == MESSAGE_HANDSHAKE_INITIATION)
			init = i;
		if (c->data[0] == MESSAGE_DATA && c->len == MESSAGE_DATA_OVERHEAD)
			keepalive = i;
		else if (c->data[0] == MESSAGE_DATA)
			data[ndata++] = i;
	}
	if (ndata != FUZZ_SEALED + 1 || !keepalive || st.caps[init].data[0] != MESSAGE_HANDSHAKE_INITIATION)
		abort();
	/* each message of b alone, from b */
	s.len = 0;
	seed_add(&s, 0, 0, st.caps[init].data, st.caps[init].len);
	fuzzdev_write_seed(dir, "initiation-replayed", s.buf, s.len);
	s.len = 0;
	seed_add(&s, 0, 0, st.caps[keepalive].data, st.caps[keepalive].len);
	fuzzdev_write_seed(dir, "keepalive", s.buf, s.len);
	for (i = 0; i < ndata; i++) {
		s.len = 0;
		seed_add(&s, 0, 0, st.caps[data[i]].data, st.caps[data[i]].len);
		snprintf(name, sizeof(name), i ? "data-%u" : "data-%u-replayed", i);
		fuzzdev_write_seed(dir, name, s.buf, s.len);
	}
	s.len = 0;
	seed_add(&s, 0, 0, st.cookie, sizeof(st.cookie));
	fuzzdev_write_seed(dir, "cookie-reply", s.buf, s.len);
	/* a's own response, back to it */
	s.len = 0;
	seed_add(&s, 0, 0, st.caps[resp].data, st.caps[resp].len);
	fuzzdev_write_seed(dir, "response-reflected", s.buf, s.len);
	/* every data message in one batch, then in reverse (the replay window), then twice */
	s.len = 0;
	for (i = 1; i < ndata; i++)
		seed_add(&s, 0, 0, st.caps[data[i]].data, st.caps[data[i]].len);
	fuzzdev_write_seed(dir, "data-batch", s.buf, s.len);
	s.len = 0;
	for (i = ndata - 1; i >= 1; i--)
		seed_add(&s, 0, 1, st.caps[data[i]].data, st.caps[data[i]].len);
	fuzzdev_write_seed(dir, "data-reversed", s.buf, s.len);
	s.len = 0;
	seed_add(&s, 0, 0, st.caps[data[3]].data, st.caps[data[3]].len);
	seed_add(&s, 0, 0, st.caps[data[3]].data, st.caps[data[3]].len);
	seed_add(&s, 0, 2, st.caps[data[3]].data, st.caps[data[3]].len);
	fuzzdev_write_seed(dir, "data-replayed", s.buf, s.len);
	/* from elsewhere: a foreign address, then b's address at another port (roaming) */
	s.len = 0;
	seed_add(&s, 1, 0, st.caps[data[2]].data, st.caps[data[2]].len);
	seed_add(&s, 2, 1, st.caps[data[4]].data, st.caps[data[4]].len);
	seed_add(&s, 0, 1, st.caps[data[5]].data, st.caps[data[5]].len);
	fuzzdev_write_seed(dir, "data-roaming", s.buf, s.len);
	/* late: after Rekey-After-Time, Reject-After-Time (WP §6.1, 120 s, 180 s) */
	s.len = 0;
	seed_add(&s, 0, 0, st.caps[data[1]].data, st.caps[data[1]].len);
	seed_add(&s, 0, 255, st.caps[data[2]].data, st.caps[data[2]].len);
	seed_add(&s, 0, 255, st.caps[keepalive].data, st.caps[keepalive].len);
	seed_add(&s, 0, 200, st.caps[data[3]].data, st.caps[data[3]].len);
	fuzzdev_write_seed(dir, "data-late", s.buf, s.len);
	/* the cookie, then a handshake message, then data */
	s.len = 0;
	seed_add(&s, 0, 0, st.cookie, sizeof(st.cookie));
	seed_add(&s, 0, 3, st.caps[init].data, st.caps[init].len);
	seed_add(&s, 0, 0, st.caps[data[6]].data, st.caps[data[6]].len);
	fuzzdev_write_seed(dir, "cookie-initiation-data", s.buf, s.len);
	sim_clear(&st.net);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_MAKE_CORPUS");

	(void)argc;
	(void)argv;
	fuzzdev_init();
	if (dir) {
		make_corpus(dir);
		exit(0);
	}
	return 0;
}
