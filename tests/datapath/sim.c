// SPDX-License-Identifier: GPL-2.0-only
/*
 * The deterministic simulation (doc/testing.md, "The simulation"; STYLE.md:
 * FoundationDB / TigerBeetle VOPR): N real devices (daemon/datapath/device.h, the
 * data path library) joined through simnet's in-memory network, in virtual
 * time, everything random drawn from ONE seed: the network's faults (loss,
 * duplication, corruption, delay and jitter, i.e. reordering, a few
 * datagrams held back for minutes), partitions healed later, NAT rebinding, the devices' own random bytes through the
 * seam (keys, indices, jitter), and the workload: who sends what to whom
 * and when, bursts that overflow staging, key rotation, preshared-key
 * changes, peer removal and re-addition, persistent keepalives, link
 * down/up, suspend and resume, replayed old datagrams.
 *
 * After every event (one datagram delivered, one deadline run, one workload
 * step) the invariants below are checked against the wire (simnet's hooks)
 * and against the real state of the devices (struct device, its peers, their
 * keypairs and timers); the first violation prints the seed, the event
 * number and the command that replays it, and exits 1.
 *
 * Usage: sim [--seed N] [--hours H] [--devs N] [--budget S] [--fixed K] [-v]...
 *   no --seed: seeds 1..K (default 6) of H hours (default 1), then random
 *   seeds for S more CPU-seconds (default 2); with --seed: that seed only.
 *   -v the workload's events, -vv also flows and replays, -vvv every
 *   datagram, -vvvv the devices' debug log.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crypto/bytes.h"
#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/core/messages.h"
#include "daemon/datapath/peer.h"
#include "tests/datapath/simnet.h"
#include "tests/lib/csum_ref.h"
#include "tests/lib/testutil.h"

#define SIM_MAGIC 0x77676473u			/* "wgds": our inner packets */
#define SIM_PAYLOAD_MIN 14			/* magic, id, source, destination */
#define SIM_ICMP_RING (ICMP_BURST + ICMP_RATE + 1)	/* a second of errors at the limit, and more */
/*
 * No keepalive storm: at most SIM_KEEPALIVES keepalives from one device to
 * one peer in any second.  What may send one (WP §6.5, doc/protocol.md §8):
 * the persistent keepalive (an interval of 1 s at least), the passive one
 * (10 s after unanswered data), the initiator's confirmation of a new
 * session (handshakes 5 s apart), and a configuration event (the interval
 * set, the link up): the workload's events come 0.1 s apart or more, so
 * four in a second are already rare, and eight are a timer gone wrong.
 */
#define SIM_KEEPALIVES 8
#define JITTER_MAX_NS (REKEY_TIMEOUT_JITTER_MAX_MS * WG_NSEC_PER_MSEC)
/*
 * After a pair becomes reachable again (a partition healed, a wake-up, a
 * link up, a peer re-added, an address or key changed), with traffic both
 * ways at least every second and a clean link, a packet must get through
 * within: the dead-peer timer (WP §6.5: KEEPALIVE_TIMEOUT + REKEY_TIMEOUT
 * + jitter) that starts a handshake for a session the other side lost, then
 * one whole handshake attempt (WP §6.4: up to MAX_TIMER_HANDSHAKES + 1
 * initiations, REKEY_TIMEOUT + jitter apart; initiations that cross are
 * the only loss on a clean link), plus a second for the round trips.
 */
#define RECOVERY_BOUND (SIM_S(KEEPALIVE_TIMEOUT + REKEY_TIMEOUT) + JITTER_MAX_NS + \
			(MAX_TIMER_HANDSHAKES + 1) * (SIM_S(REKEY_TIMEOUT) + JITTER_MAX_NS) + SIM_S(1))
/* In flight at once, at most: a bound on any amplification. */
#define SIM_MAX_INFLIGHT 20000
#define SIM_REPLAY_RING 32

static int verbose;
static unsigned int threads = 1;	/* per device: --threads */

struct sim_packet {		/* every inner packet the workload sent */
	uint64_t sent;
	uint8_t src, dst;
	bool delivered;
};

struct sim_nonce {		/* a (key, nonce) pair sealed, as seen on the wire */
	uint64_t key;		/* sender, its peer, receiver index, + 1; 0 = empty slot */
	uint64_t send_key;	/* the first 8 bytes of the sealing key (the sender's state) */
	uint64_t counter;
};

struct sim_response {		/* a response sent: the responder's session awaiting confirmation */
	uint64_t at;
	uint32_t sender, receiver;	/* the responder's index, the initiator's */
	uint8_t responder;
	bool confirmed;
};

struct sim_watch {		/* traffic a -> b must resume by start + RECOVERY_BOUND */
	bool active;
	bool quiet;		/* b sends a nothing meanwhile: a alone must notice (WP §6.5) */
	uint64_t start;
};

struct sim_rekey {		/* data sent on an old initiator keypair */
	uint32_t kp_id;
	uint64_t owed;		/* sent when an initiation was allowed, none seen since (0: none) */
	bool tracking;
};

struct sim_saved {		/* a datagram seen on the wire, to replay later */
	uint8_t from, to;
	size_t len;
	uint8_t data[256];
};

struct world {
	struct sim_net net;
	struct tu_rng rng;		/* the workload's choices */
	uint64_t seed;
	double hours;
	unsigned int ndev;
	const char *argv0;
	uint64_t start, end;
	unsigned long event;		/* every event, counted from 1 */
	const char *event_what;

	/* the workload's model of the configuration */
	bool has_peer[SIM_MAX_DEVS][SIM_MAX_DEVS];
	uint8_t psk[SIM_MAX_DEVS][SIM_MAX_DEVS][32];	/* symmetric */
	uint16_t keepalive[SIM_MAX_DEVS][SIM_MAX_DEVS];
	bool down[SIM_MAX_DEVS];
	uint64_t up_at[SIM_MAX_DEVS], wake_at[SIM_MAX_DEVS], slept_from[SIM_MAX_DEVS];
	uint64_t readd_at[SIM_MAX_DEVS][SIM_MAX_DEVS];
	uint64_t heal_at;
	bool partitioned;
	uint16_t next_port;

	/* the workload's traffic */
	uint64_t flow_period[SIM_MAX_DEVS][SIM_MAX_DEVS];	/* 0 = off */
	uint64_t flow_next[SIM_MAX_DEVS][SIM_MAX_DEVS];
	uint64_t random_at;

	/* what the invariants observe */
	struct sim_packet *pkts;
	size_t npkts, pkts_cap;
	struct sim_nonce *nonces;
	size_t nnonces, nonces_cap;
	struct sim_response *resps;
	size_t nresps, resps_cap;
	struct sim_watch watch[SIM_MAX_DEVS][SIM_MAX_DEVS];
	bool healthy[SIM_MAX_DEVS][SIM_MAX_DEVS];
	struct sim_rekey rekey[SIM_MAX_DEVS][SIM_MAX_DEVS];
	uint64_t last_hs[SIM_MAX_DEVS][SIM_MAX_DEVS];	/* initiation or response a -> b sent, +1 (0 = never) */
	struct sim_saved saved[SIM_REPLAY_RING];
	unsigned int nsaved;
	/* the datagram being delivered: the keypair its receiver index names */
	unsigned int cur_to;
	bool cur_known;
	uint64_t cur_birth;

	/* the ICMP errors each device wrote back, the newest SIM_ICMP_RING times */
	uint64_t icmp_at[SIM_MAX_DEVS][SIM_ICMP_RING];
	unsigned long icmp_n[SIM_MAX_DEVS];
	/* the keepalives each device sent to each peer, the newest SIM_KEEPALIVES times */
	uint64_t keepalive_at[SIM_MAX_DEVS][SIM_MAX_DEVS][SIM_KEEPALIVES];
	unsigned long keepalive_n[SIM_MAX_DEVS][SIM_MAX_DEVS];

	/* figures */
	unsigned long delivered, initiations, handshakes, recoveries, replays, unreachables;
	uint64_t max_recovery;
};

static struct world W;

/* ---- failing ---- */

static void sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void sim_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sim: FAIL seed %llu, event %lu (%s) at t=%.6f s: ", (unsigned long long)W.seed,
		W.event, W.event_what ? W.event_what : "?", (double)(W.net.now - W.start) / 1e9);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsim: replay: %s --seed %llu --hours %g --devs %u -v\n", W.argv0,
		(unsigned long long)W.seed, W.hours, W.ndev);
	exit(1);
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbose < level)
		return;
	fprintf(stderr, "[%lu t=%.3f] ", W.event, secs(W.net.now - W.start));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t rnd(uint64_t bound)
{
	return tu_rng_below(&W.rng, bound);
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd(hi - lo + 1);
}

/* ---- the real state ---- */

static struct sim_dev *sdev(unsigned int i)
{
	return &W.net.devs[i];
}

/* The simulated device whose current public key this peer has, or SIM_MAX_DEVS. */
static unsigned int peer_sim_id(const struct peer *p)
{
	unsigned int i;

	for (i = 0; i < W.ndev; i++) {
		if (!memcmp(p->remote.public_key, sdev(i)->public_key, 32))
			return i;
	}
	return SIM_MAX_DEVS;
}

static struct peer *peer_by_ep(struct device *d, const struct endpoint *ep)
{
	struct peer *p;
	unsigned int n = 0;

	for (p = d->peers; p && n <= SIM_MAX_DEVS; p = p->next, n++) {
		if (&p->endpoint == ep)
			return p;
	}
	return NULL;
}

static struct noise_keypair *slot(struct peer *p, unsigned int i)
{
	return i == 0 ? p->remote.previous : i == 1 ? p->remote.current : p->remote.next;
}

/* d's keypair of peer p whose remote index (the receiver of what it seals) is idx. */
static struct noise_keypair *keypair_by_remote_index(struct peer *p, uint32_t idx)
{
	unsigned int i;

	for (i = 0; i < NOISE_KEYPAIR_SLOTS; i++) {
		struct noise_keypair *kp = slot(p, i);

		if (kp && kp->remote_index == idx)
			return kp;
	}
	return NULL;
}

/* d's keypair whose own index is idx (what a data message to d names). */
static struct noise_keypair *keypair_by_index(struct device *d, uint32_t idx)
{
	struct peer *p;
	unsigned int i, n = 0;

	for (p = d->peers; p && n <= SIM_MAX_DEVS; p = p->next, n++) {
		for (i = 0; i < NOISE_KEYPAIR_SLOTS; i++) {
			struct noise_keypair *kp = slot(p, i);

			if (kp && kp->index.live && kp->index.id == idx)
				return kp;
		}
	}
	return NULL;
}

/* ---- the wire: invariants on what is sent and delivered ---- */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct sim_nonce *nonce_slot(struct sim_nonce *t, size_t cap, const struct sim_nonce *n)
{
	size_t i = mix64(n->key ^ mix64(n->counter ^ mix64(n->send_key))) & (cap - 1), probes;

	for (probes = 0; probes < cap; probes++, i = (i + 1) & (cap - 1)) {
		if (!t[i].key ||
		    (t[i].key == n->key && t[i].counter == n->counter && t[i].send_key == n->send_key))
			return &t[i];
	}
	abort();	/* never: the table is kept at most half full */
}

/* True if (key, counter) was new; records it. */
static bool nonce_insert(const struct sim_nonce *n)
{
	struct sim_nonce *e;

	if (2 * (W.nnonces + 1) > W.nonces_cap) {
		size_t cap = W.nonces_cap ? 2 * W.nonces_cap : 4096, i;
		struct sim_nonce *t = calloc(cap, sizeof(*t));

		if (!t)
			abort();
		for (i = 0; i < W.nonces_cap; i++) {
			if (W.nonces[i].key)
				*nonce_slot(t, cap, &W.nonces[i]) = W.nonces[i];
		}
		free(W.nonces);
		W.nonces = t;
		W.nonces_cap = cap;
	}
	e = nonce_slot(W.nonces, W.nonces_cap, n);
	if (e->key)
		return false;
	*e = *n;
	W.nnonces++;
	return true;
}

static void response_record(unsigned int responder, uint32_t sender, uint32_t receiver)
{
	size_t i, kept = 0;

	/* A responder cannot send on a session past REJECT_AFTER_TIME: forget older ones. */
	for (i = 0; i < W.nresps; i++) {
		if (W.net.now - W.resps[i].at <= SIM_S(REJECT_AFTER_TIME + 10))
			W.resps[kept++] = W.resps[i];
	}
	W.nresps = kept;
	if (W.nresps == W.resps_cap) {
		W.resps_cap = W.resps_cap ? 2 * W.resps_cap : 64;
		W.resps = realloc(W.resps, W.resps_cap * sizeof(*W.resps));
		if (!W.resps)
			abort();
	}
	W.resps[W.nresps++] = (struct sim_response){ .at = W.net.now, .sender = sender, .receiver = receiver,
						     .responder = (uint8_t)responder };
}

/* A keepalive from a to b: SIM_KEEPALIVES + 1 in a row take a second at least. */
static void check_keepalive_rate(unsigned int a, unsigned int b)
{
	unsigned long n = W.keepalive_n[a][b]++;
	uint64_t *ring = W.keepalive_at[a][b], first = ring[n % SIM_KEEPALIVES];

	if (n >= SIM_KEEPALIVES && W.net.now - first < SIM_S(1))
		sim_fail("dev%u sent %d keepalives to dev%u in %.6f s (a storm: at most %d a second)", a,
			 SIM_KEEPALIVES + 1, b, secs(W.net.now - first), SIM_KEEPALIVES);
	ring[n % SIM_KEEPALIVES] = W.net.now;
}

/*
 * A data message sealed by `from`: its (key, nonce) pair is new; the
 * keypair exists and is younger than REJECT_AFTER_TIME; a responder's
 * session is confirmed first; an old initiator keypair is being rekeyed.
 */
static void check_data_sent(struct sim_dev *from, const struct udp_msg *m)
{
	uint32_t idx = le32_load(m->data + MESSAGE_DATA_RECEIVER);
	uint64_t counter = le64_load(m->data + MESSAGE_DATA_COUNTER), age, last;
	struct peer *p = peer_by_ep(from->dev, m->ep);
	struct noise_keypair *kp;
	struct sim_nonce nonce;
	struct sim_rekey *rk;
	unsigned int to;
	size_t i;

	if (!p)
		sim_fail("dev%u sent a data message to an endpoint that is no peer's", from->id);
	to = peer_sim_id(p);
	kp = keypair_by_remote_index(p, idx);
	if (!kp)
		sim_fail("dev%u sealed for dev%u with receiver index %08x that none of its keypairs has",
			 from->id, to, idx);
	/*
	 * WP §5.4.6: a (key, nonce) pair is used once.  The session is named
	 * by who sends to whom and the receiver index, and told apart from an
	 * older session that drew the same random index by its key.
	 */
	nonce = (struct sim_nonce){ .key = ((uint64_t)(from->id * SIM_MAX_DEVS + to) << 32 | idx) + 1,
				    .send_key = le64_load(kp->send_key), .counter = counter };
	if (!nonce_insert(&nonce))
		sim_fail("nonce reuse: dev%u sealed counter %llu for receiver index %08x (dev%u) twice",
			 from->id, (unsigned long long)counter, idx, to);
	if (m->len == MESSAGE_DATA_MIN_LEN && to < SIM_MAX_DEVS)
		check_keepalive_rate(from->id, to);
	age = W.net.now - kp->birth;
	/* WP §6.1: nothing is sent on a keypair older than Reject-After-Time. */
	if (age >= SIM_S(REJECT_AFTER_TIME))
		sim_fail("dev%u sent data on a keypair %.3f s old (Reject-After-Time %d s)", from->id,
			 secs(age), REJECT_AFTER_TIME);
	/* doc/protocol.md §7: the responder sends only after key confirmation. */
	for (i = 0; i < W.nresps; i++) {
		if (W.resps[i].responder == from->id && W.resps[i].receiver == idx && !W.resps[i].confirmed)
			sim_fail("dev%u (responder, index %08x) sent data to %08x before key confirmation",
				 from->id, W.resps[i].sender, idx);
	}
	/*
	 * WP §6.2: the initiator sending on its keypair after Rekey-After-Time
	 * starts a handshake right after that send, unless the REKEY_TIMEOUT
	 * spacing since its last handshake message to that peer forbids it
	 * (doc/protocol.md §8): then the request is dropped, as the kernel
	 * drops it, and the next send after the spacing asks again.  While it
	 * answers the peer's initiations every few seconds, a handshake is
	 * under way and it sends none of its own.  So a send at a moment an
	 * initiation was allowed owes one, seen before any later send (the
	 * same moment's sends are one batch, followed by the initiation).
	 */
	if (to >= SIM_MAX_DEVS || !kp->is_initiator || age < SIM_S(REKEY_AFTER_TIME))
		return;
	rk = &W.rekey[from->id][to];
	if (!rk->tracking || rk->kp_id != kp->index.id)
		*rk = (struct sim_rekey){ .kp_id = kp->index.id, .tracking = true };
	last = W.last_hs[from->id][to] ? W.last_hs[from->id][to] - 1 : 0;
	if (rk->owed && W.last_hs[from->id][to] && last >= rk->owed)
		rk->owed = 0;
	if (rk->owed && W.net.now > rk->owed)
		sim_fail("dev%u still sends to dev%u on a keypair %.3f s old: its send at %.3f s, when an "
			 "initiation was allowed, was followed by none (last handshake message %.3f s; "
			 "Rekey-After-Time %d s)", from->id, to, secs(age), secs(rk->owed - W.start),
			 last ? secs(last - W.start) : 0.0, REKEY_AFTER_TIME);
	if (!rk->owed && (!W.last_hs[from->id][to] || W.net.now >= last + SIM_S(REKEY_TIMEOUT)))
		rk->owed = W.net.now;
}

static void on_send(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	enum message_type type = message_classify(m->data, m->len);
	struct peer *p;
	unsigned int to;

	(void)n;
	note(3, "dev%u sends type %d, %zu bytes", from->id, (int)type, m->len);
	if (W.net.qlen >= SIM_MAX_INFLIGHT)
		sim_fail("%zu datagrams in flight", W.net.qlen);
	switch (type) {
	case MESSAGE_DATA:
		check_data_sent(from, m);
		break;
	case MESSAGE_HANDSHAKE_INITIATION:
	case MESSAGE_HANDSHAKE_RESPONSE:
		p = peer_by_ep(from->dev, m->ep);
		to = p ? peer_sim_id(p) : SIM_MAX_DEVS;
		if (to < SIM_MAX_DEVS)
			W.last_hs[from->id][to] = W.net.now + 1;
		if (type == MESSAGE_HANDSHAKE_INITIATION) {
			W.initiations++;
			break;
		}
		W.handshakes++;
		response_record(from->id, le32_load(m->data + MESSAGE_RESPONSE_SENDER),
				le32_load(m->data + MESSAGE_RESPONSE_RECEIVER));
		break;
	default:
		break;
	}
	/* Keep some datagrams to replay long after (a delayed or hostile copy). */
	if (m->len <= sizeof(W.saved[0].data) && rnd(8) == 0) {
		struct sim_saved *s = &W.saved[W.nsaved++ % SIM_REPLAY_RING];
		struct sim_dev *dst = NULL;
		unsigned int i;

		for (i = 0; i < W.ndev; i++) {
			if (endpoint_addr_equal(&sdev(i)->addr, m->ep))
				dst = sdev(i);
		}
		s->from = (uint8_t)from->id;
		s->to = (uint8_t)(dst ? dst->id : from->id);
		s->len = m->len;
		memcpy(s->data, m->data, m->len);
	}
}

static void on_deliver(struct sim_net *n, struct sim_dev *to, const struct sim_dgram *g)
{
	struct noise_keypair *kp = NULL;
	size_t i;

	(void)n;
	note(3, "dev%u receives %zu bytes%s", to->id, g->len, g->corrupt ? " (corrupted)" : "");
	W.cur_to = to->id;
	W.cur_known = false;
	if (message_classify(g->data, g->len) != MESSAGE_DATA)
		return;
	kp = keypair_by_index(to->dev, message_data_receiver(g->data));
	W.cur_known = kp != NULL;
	W.cur_birth = kp ? kp->birth : 0;
	if (g->corrupt)
		return;
	/* A genuine data message to the responder's index: the session is confirmed. */
	for (i = 0; i < W.nresps; i++) {
		if (W.resps[i].responder == to->id && W.resps[i].sender == message_data_receiver(g->data))
			W.resps[i].confirmed = true;
	}
}

/*
 * The rate limit's bound (icmp.h): k + 1 errors in a row take at least
 * (k + 1 - ICMP_BURST) refill intervals, for every k the ring holds.
 */
static void check_icmp_rate(unsigned int dev)
{
	const uint64_t interval = 1000000000ull / ICMP_RATE;
	unsigned long n = W.icmp_n[dev]++, k;
	uint64_t now = W.net.now, *ring = W.icmp_at[dev];

	ring[n % SIM_ICMP_RING] = now;
	for (k = ICMP_BURST; k < SIM_ICMP_RING && k <= n; k++) {
		uint64_t span = now - ring[(n - k) % SIM_ICMP_RING];

		if (span < (k + 1 - ICMP_BURST) * interval)
			sim_fail("dev%u wrote %lu ICMP errors in %.6f s (limit: %d at once, %d a second)", dev, k + 1,
				 secs(span), ICMP_BURST, ICMP_RATE);
	}
}

/*
 * An ICMP host unreachable in the TUN device of the workload packet's
 * sender (icmp.h): well formed, from the packet's destination, quoting the
 * packet, written only when the sender has no peer for that destination
 * (every peer here has an endpoint), and within the rate limit.
 */
static void on_unreachable(struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	const uint8_t *q = pkt + 28;
	struct sim_packet *sp;
	uint64_t id;

	if (len < 28 + 20 + SIM_PAYLOAD_MIN || pkt[20] != 3 || pkt[21] != 1 || be32_load(q + 20) != SIM_MAGIC ||
	    ref_sum(pkt + 20, len - 20, 0) != 0xffff || !ref_ipv4_csum_ok(pkt, 20))
		sim_fail("dev%u's TUN got an ICMP message of %zu bytes that is no unreachable error", to->id, len);
	id = be64_load(q + 24);
	if (id >= W.npkts)
		sim_fail("dev%u's TUN got an error for packet id %llu, never sent", to->id, (unsigned long long)id);
	sp = &W.pkts[id];
	if (sp->src != to->id || memcmp(pkt + 12, q + 16, 4) || memcmp(pkt + 16, q + 12, 4))
		sim_fail("dev%u's TUN got an error for packet %llu (dev%u -> dev%u), not to it or not from its "
			 "destination", to->id, (unsigned long long)id, sp->src, sp->dst);
	if (W.has_peer[sp->src][sp->dst])
		sim_fail("dev%u answered its packet %llu to dev%u, a peer it has, as unreachable", to->id,
			 (unsigned long long)id, sp->dst);
	W.unreachables++;
	check_icmp_rate(to->id);
}

static void on_tun(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	uint64_t id, age;
	struct sim_packet *sp;
	uint32_t src_addr;

	(void)n;
	if (len >= 20 && pkt[9] == 1) {
		on_unreachable(to, pkt, len);
		return;
	}
	if (len < 20 + SIM_PAYLOAD_MIN || be32_load(pkt + 20) != SIM_MAGIC)
		sim_fail("dev%u's TUN got a packet of %zu bytes that nobody sent", to->id, len);
	id = be64_load(pkt + 24);
	if (id >= W.npkts)
		sim_fail("dev%u's TUN got packet id %llu, never sent", to->id, (unsigned long long)id);
	sp = &W.pkts[id];
	memcpy(&src_addr, pkt + 12, 4);
	if (sp->dst != to->id || pkt[32] != sp->src || pkt[33] != sp->dst ||
	    ntohl(src_addr) != sdev(sp->src)->inner || len != be16_load(pkt + 2))
		sim_fail("packet %llu (dev%u -> dev%u) reached dev%u altered", (unsigned long long)id, sp->src,
			 sp->dst, to->id);
	/* WP §5.4.6: the replay window; every inner packet has its own id. */
	if (sp->delivered)
		sim_fail("packet %llu (dev%u -> dev%u) delivered twice", (unsigned long long)id, sp->src, sp->dst);
	sp->delivered = true;
	W.delivered++;
	/* WP §6.1: nothing is accepted on a keypair Reject-After-Time old. */
	if (W.cur_to != to->id || !W.cur_known)
		sim_fail("dev%u delivered packet %llu from a datagram on no keypair it holds", to->id,
			 (unsigned long long)id);
	age = W.net.now - W.cur_birth;
	if (age >= SIM_S(REJECT_AFTER_TIME))
		sim_fail("dev%u accepted packet %llu on a keypair %.3f s old (Reject-After-Time %d s)", to->id,
			 (unsigned long long)id, secs(age), REJECT_AFTER_TIME);
	if (W.watch[sp->src][sp->dst].active && sp->sent >= W.watch[sp->src][sp->dst].start) {
		uint64_t took = W.net.now - W.watch[sp->src][sp->dst].start;

		W.watch[sp->src][sp->dst].active = false;
		W.recoveries++;
		if (took > W.max_recovery)
			W.max_recovery = took;
	}
}

/* ---- the real state: invariants after every event ---- */

static void check_peer(struct sim_dev *sd, struct peer *p)
{
	struct noise_remote *r = &p->remote;
	struct peer_staged_packet *sp;
	uint64_t newest = 0;
	unsigned int i, j, n = 0, live = 0;

	/* doc/architecture.md, Buffers: at most MAX_STAGED_PACKETS per peer. */
	if (p->staged.count > MAX_STAGED_PACKETS)
		sim_fail("dev%u stages %u packets (at most %d)", sd->id, p->staged.count, MAX_STAGED_PACKETS);
	for (sp = p->staged.head; sp && n <= MAX_STAGED_PACKETS; sp = sp->next)
		n++;
	if (n != p->staged.count)
		sim_fail("dev%u's staging queue holds %u packets, counts %u", sd->id, n, p->staged.count);
	/* noise.h: keypair storage exactly while a slot is in use, and slots distinct. */
	for (i = 0; i < NOISE_KEYPAIR_SLOTS; i++) {
		struct noise_keypair *kp = slot(p, i);

		if (!kp)
			continue;
		live++;
		if (!r->keypair_storage || kp < r->keypair_storage || kp >= r->keypair_storage + NOISE_KEYPAIR_SLOTS)
			sim_fail("dev%u: a keypair slot points outside the peer's storage", sd->id);
		for (j = 0; j < i; j++) {
			if (slot(p, j) == kp)
				sim_fail("dev%u: two keypair slots share one keypair", sd->id);
		}
		if (!kp->index.live || noise_remote_by_index(&sd->dev->local, kp->index.id) != r)
			sim_fail("dev%u: keypair index %08x is not in the index table", sd->id, kp->index.id);
		if (kp->birth > newest)
			newest = kp->birth;
	}
	if (!live && r->keypair_storage)
		sim_fail("dev%u: an idle peer keeps its keypair storage", sd->id);
	/*
	 * WP §6.3: with no new session for 3 x Reject-After-Time every key is
	 * erased.  The newest keypair is the last session derived; a suspended
	 * host runs no timers (its keys go when it wakes, device_resume()).
	 */
	if (live && !sd->asleep && W.net.now - newest > SIM_S(ZERO_KEYS_TIMEOUT))
		sim_fail("dev%u holds keys %.3f s after its last session (limit %d s)", sd->id,
			 secs(W.net.now - newest), ZERO_KEYS_TIMEOUT);
	/* io.h: the deadline the shell was told is never later than a timer. */
	if (sd->deadline > timers_next_deadline(&p->timers))
		sim_fail("dev%u's deadline %.6f s is later than its peer's timer at %.6f s", sd->id,
			 sd->deadline == UINT64_MAX ? -1.0 : secs(sd->deadline - W.start),
			 secs(timers_next_deadline(&p->timers) - W.start));
}

static void check_state(void)
{
	unsigned int i, j, want, n;
	struct peer *p;

	for (i = 0; i < W.ndev; i++) {
		struct sim_dev *sd = sdev(i);

		for (want = 0, j = 0; j < W.ndev; j++)
			want += W.has_peer[i][j];
		/* memory: the peers are those configured, and nothing more */
		if (sd->dev->npeers != want)
			sim_fail("dev%u has %zu peers, %u configured", i, sd->dev->npeers, want);
		n = 0;
		for (p = sd->dev->peers; p && n <= SIM_MAX_DEVS; p = p->next, n++)
			check_peer(sd, p);
		if (n != want)
			sim_fail("dev%u's peer list holds %u peers, %u configured", i, n, want);
	}
	for (i = 0; i < W.ndev; i++) {
		for (j = 0; j < W.ndev; j++) {
			const struct sim_watch *w = &W.watch[i][j];

			if (w->active && W.net.now > w->start + RECOVERY_BOUND)
				sim_fail("no packet dev%u -> dev%u got through in %.3f s since %.3f s (bound %.3f s)",
					 i, j, secs(W.net.now - w->start), secs(w->start - W.start),
					 secs(RECOVERY_BOUND));
		}
	}
}

static void after_event(const char *what)
{
	W.event++;
	W.event_what = what;
	check_state();
}

/* ---- reachability and the recovery watches ---- */

static bool endpoint_current(unsigned int a, unsigned int b)
{
	struct peer *p = peer_lookup(sdev(a)->dev, sdev(b)->public_key);

	return p && endpoint_addr_equal(&p->endpoint, &sdev(b)->addr);
}

static bool pair_healthy(unsigned int a, unsigned int b)
{
	struct sim_net *n = &W.net;

	return !n->cut[a][b] && !n->cut[b][a] && !sdev(a)->asleep && !sdev(b)->asleep && !W.down[a] &&
	       !W.down[b] && W.has_peer[a][b] && W.has_peer[b][a] &&
	       (endpoint_current(a, b) || endpoint_current(b, a));
}

static void watch_start(unsigned int a, unsigned int b, bool quiet)
{
	W.watch[a][b] = (struct sim_watch){ .active = true, .quiet = quiet, .start = W.net.now };
	/* steady traffic from now on (flow_period()) */
	if (W.flow_next[a][b] > W.net.now + SIM_S(1))
		W.flow_next[a][b] = W.net.now + rnd(SIM_S(1));
}

/*
 * A pair that became reachable, or whose addresses or keys changed
 * (restart), is watched both ways; its link is clean while watched.
 */
static void watches_update(int restart_a, int restart_b)
{
	bool restart[SIM_MAX_DEVS][SIM_MAX_DEVS] = { { false } };
	unsigned int a, b;

	for (a = 0; a < W.ndev; a++) {
		for (b = 0; b < W.ndev; b++) {
			bool h;

			if (a == b)
				continue;
			h = pair_healthy(a, b);
			if (!h)
				W.watch[a][b].active = false;
			else if (!W.healthy[a][b] || (int)a == restart_a || (int)b == restart_a ||
				 (int)a == restart_b || (int)b == restart_b)
				restart[a][b] = true;
			W.healthy[a][b] = h;
		}
	}
	/*
	 * Both ways, or, when a knows where b is, sometimes a -> b alone with
	 * b quiet: then if b lost the session only a's dead-peer timer (WP
	 * §6.5) brings it back.
	 */
	for (a = 0; a < W.ndev; a++) {
		for (b = a + 1; b < W.ndev; b++) {
			bool quiet_a, quiet_b;

			/* pair_healthy() is symmetric, and so is restart[][] */
			if (!restart[a][b])
				continue;
			quiet_b = rnd(3) == 0 && endpoint_current(a, b);
			quiet_a = !quiet_b && rnd(3) == 0 && endpoint_current(b, a);
			if (quiet_a)
				W.watch[a][b].active = false;
			else
				watch_start(a, b, quiet_b);
			if (quiet_b)
				W.watch[b][a].active = false;
			else
				watch_start(b, a, quiet_a);
		}
	}
	for (a = 0; a < W.ndev; a++) {
		for (b = 0; b < W.ndev; b++)
			W.net.clean[a][b] = W.watch[a][b].active || W.watch[b][a].active;
	}
}

/* ---- the workload ---- */

static void send_packet(unsigned int a, unsigned int b)
{
	uint8_t payload[1380];
	size_t len = SIM_PAYLOAD_MIN + (rnd(16) ? rnd(64) : rnd(sizeof(payload) - SIM_PAYLOAD_MIN + 1));
	struct sim_packet *sp;

	if (W.npkts == W.pkts_cap) {
		W.pkts_cap = W.pkts_cap ? 2 * W.pkts_cap : 4096;
		W.pkts = realloc(W.pkts, W.pkts_cap * sizeof(*W.pkts));
		if (!W.pkts)
			abort();
	}
	sp = &W.pkts[W.npkts];
	*sp = (struct sim_packet){ .sent = W.net.now, .src = (uint8_t)a, .dst = (uint8_t)b };
	be32_store(payload, SIM_MAGIC);
	be64_store(payload + 4, W.npkts);
	payload[12] = (uint8_t)a;
	payload[13] = (uint8_t)b;
	tu_rng_fill(&W.rng, payload + SIM_PAYLOAD_MIN, len - SIM_PAYLOAD_MIN);
	W.npkts++;
	sim_send_inner(sdev(a), sdev(b), payload, len);
}

static bool can_act(unsigned int a)
{
	return !sdev(a)->asleep && !W.down[a];
}

/* a (re)gets b as a peer: b's current key and address, the pair's PSK and keepalive. */
static void configure_peer(unsigned int a, unsigned int b)
{
	struct config_device cfg;
	struct config_peer *p;
	struct config_allowedip aip = { .family = AF_INET, .cidr = 32 };
	uint32_t be = htonl(sdev(b)->inner);

	config_device_init(&cfg);
	p = config_device_add_peer(&cfg, sdev(b)->public_key);
	if (!p)
		abort();
	memcpy(aip.addr, &be, 4);
	if (config_peer_add_allowedip(p, &aip))
		abort();
	p->flags |= CONFIG_PEER_HAS_ENDPOINT | CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_KEEPALIVE;
	p->endpoint.in = sdev(b)->addr.addr.in4;
	memcpy(p->preshared_key, W.psk[a][b], 32);
	p->persistent_keepalive = W.keepalive[a][b];
	if (sim_set(sdev(a), &cfg))
		sim_fail("configuring dev%u's peer dev%u failed", a, b);
	config_device_clear(&cfg);
	W.has_peer[a][b] = true;
}

static void remove_peer(unsigned int a, const uint8_t public_key[32])
{
	struct config_device cfg;
	struct config_peer *p;

	config_device_init(&cfg);
	p = config_device_add_peer(&cfg, public_key);
	if (!p)
		abort();
	p->flags |= CONFIG_PEER_REMOVE;
	if (sim_set(sdev(a), &cfg))
		sim_fail("removing a peer of dev%u failed", a);
	config_device_clear(&cfg);
}

/* WP §5.4: a new static key; every device that knows a replaces its peer. */
static bool rotate_key(unsigned int a)
{
	struct sim_dev *d = sdev(a);
	struct config_device cfg;
	uint8_t old[32];
	unsigned int b;

	for (b = 0; b < W.ndev; b++) {
		/* a suspended host takes no configuration */
		if (b != a && W.has_peer[b][a] && sdev(b)->asleep)
			return false;
	}
	memcpy(old, d->public_key, 32);
	tu_rng_fill(&W.rng, d->private_key, 32);
	x25519_clamp(d->private_key);
	if (!x25519_public(d->public_key, d->private_key))
		abort();
	config_device_init(&cfg);
	cfg.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memcpy(cfg.private_key, d->private_key, 32);
	if (sim_set(d, &cfg))
		sim_fail("setting dev%u's private key failed", a);
	config_device_clear(&cfg);
	for (b = 0; b < W.ndev; b++) {
		if (b == a || !W.has_peer[b][a])
			continue;
		remove_peer(b, old);
		W.has_peer[b][a] = false;
		configure_peer(b, a);
	}
	return true;
}

static void set_psk(unsigned int a, unsigned int b)
{
	if (rnd(4))
		tu_rng_fill(&W.rng, W.psk[a][b], 32);
	else
		memset(W.psk[a][b], 0, 32);
	memcpy(W.psk[b][a], W.psk[a][b], 32);
	if (W.has_peer[a][b])
		configure_peer(a, b);
	if (W.has_peer[b][a])
		configure_peer(b, a);
}

static void partition(void)
{
	unsigned int a, b, mask = 0;

	if (rnd(3)) {
		while (!mask || mask == (1u << W.ndev) - 1)
			mask = (unsigned int)rnd(1u << W.ndev);
		for (a = 0; a < W.ndev; a++) {
			for (b = 0; b < W.ndev; b++)
				W.net.cut[a][b] = ((mask >> a) & 1) != ((mask >> b) & 1);
		}
	} else {
		/* one direction of one link only */
		a = (unsigned int)rnd(W.ndev);
		b = (a + 1 + (unsigned int)rnd(W.ndev - 1)) % W.ndev;
		W.net.cut[a][b] = true;
	}
	W.partitioned = true;
	/* long enough, sometimes, for sessions to expire and keys to be zeroed */
	W.heal_at = W.net.now + (rnd(4) ? SIM_MS(rnd_range(100, 200000)) : SIM_S(rnd_range(200, 900)));
	note(1, "partition until %.3f s", secs(W.heal_at - W.start));
}

static void random_event(void)
{
	unsigned int a = (unsigned int)rnd(W.ndev), b = (a + 1 + (unsigned int)rnd(W.ndev - 1)) % W.ndev;
	unsigned int kind = (unsigned int)rnd(100), i;
	int ra = -1, rb = -1;

	if (kind < 25) {
		/* a flow changes: off, or one packet every 50 ms .. 30 s */
		W.flow_period[a][b] = rnd(4) ? SIM_MS(rnd_range(50, 30000)) : 0;
		W.flow_next[a][b] = W.net.now;
		note(2, "flow dev%u -> dev%u every %.3f s", a, b, secs(W.flow_period[a][b]));
	} else if (kind < 35) {
		unsigned int count = (unsigned int)rnd_range(1, 2 * MAX_STAGED_PACKETS);

		if (!can_act(a))
			return;
		note(1, "burst of %u dev%u -> dev%u", count, a, b);
		for (i = 0; i < count; i++)
			send_packet(a, b);
	} else if (kind < 42) {
		W.net.drop_pct = rnd(3) ? (unsigned int)rnd(20) : 0;
		W.net.dup_pct = (unsigned int)rnd(10);
		W.net.corrupt_pct = (unsigned int)rnd(5);
		W.net.delay_ns = SIM_MS(rnd_range(1, 50));
		W.net.jitter_ns = rnd(2) ? SIM_MS(rnd_range(1, 100)) : 0;
		/* a few datagrams minutes late: past Reject-After-Time, on keys still held */
		W.net.late_pct = rnd(2) ? (unsigned int)rnd_range(1, 3) : 0;
		W.net.late_ns = SIM_S(rnd_range(1, 300));
		note(1, "faults: drop %u%% dup %u%% corrupt %u%% delay %.3f s jitter %.3f s late %u%% by %.0f s",
		     W.net.drop_pct, W.net.dup_pct, W.net.corrupt_pct, secs(W.net.delay_ns), secs(W.net.jitter_ns),
		     W.net.late_pct, secs(W.net.late_ns));
	} else if (kind < 50) {
		if (W.partitioned)
			return;
		partition();
	} else if (kind < 55) {
		if (!can_act(a))
			return;
		W.down[a] = true;
		W.up_at[a] = W.net.now + SIM_MS(rnd_range(10, 120000));
		device_set_link(sdev(a)->dev, false, W.net.now);
		note(1, "dev%u down", a);
	} else if (kind < 59) {
		if (sdev(a)->asleep)
			return;
		sdev(a)->asleep = true;
		W.slept_from[a] = W.net.now;
		W.wake_at[a] = W.net.now + (rnd(3) ? SIM_S(rnd_range(4, 600)) : SIM_S(rnd_range(600, 7200)));
		note(1, "dev%u sleeps until %.3f s", a, secs(W.wake_at[a] - W.start));
	} else if (kind < 65) {
		if (sdev(a)->asleep)
			return;
		sim_rebind(sdev(a), W.next_port++);
		note(1, "dev%u rebinds to port %u", a, W.next_port - 1u);
		ra = (int)a;
	} else if (kind < 70) {
		if (sdev(a)->asleep || !rotate_key(a))
			return;
		note(1, "dev%u rotates its key", a);
		ra = (int)a;
	} else if (kind < 76) {
		if (sdev(a)->asleep || sdev(b)->asleep)
			return;
		set_psk(a, b);
		note(1, "dev%u and dev%u change their preshared key", a, b);
		ra = (int)a;
		rb = (int)b;
	} else if (kind < 82) {
		if (sdev(a)->asleep || !W.has_peer[a][b])
			return;
		remove_peer(a, sdev(b)->public_key);
		W.has_peer[a][b] = false;
		W.readd_at[a][b] = W.net.now + SIM_MS(rnd_range(10, 300000));
		note(1, "dev%u removes dev%u", a, b);
	} else if (kind < 86) {
		if (sdev(a)->asleep || !W.has_peer[a][b])
			return;
		W.keepalive[a][b] = rnd(2) ? (uint16_t)rnd_range(1, 60) : 0;
		configure_peer(a, b);
		note(1, "dev%u's keepalive to dev%u: %u s", a, b, W.keepalive[a][b]);
	} else if (W.nsaved) {
		const struct sim_saved *s = &W.saved[rnd(W.nsaved < SIM_REPLAY_RING ? W.nsaved : SIM_REPLAY_RING)];

		W.replays++;
		note(2, "replay of %zu bytes dev%u -> dev%u", s->len, s->from, s->to);
		sim_inject(sdev(s->from), sdev(s->to), s->data, s->len);
	}
	after_event("config");
	watches_update(ra, rb);
}

/* Whether a sends to b: its flow, or a watch's steady traffic, unless b watches a quiet a. */
static bool flow_on(unsigned int a, unsigned int b)
{
	if (W.watch[b][a].active && W.watch[b][a].quiet)
		return false;
	return W.flow_period[a][b] || W.watch[a][b].active;
}

static uint64_t flow_period(unsigned int a, unsigned int b)
{
	uint64_t p = W.flow_period[a][b];

	if (!flow_on(a, b))
		return 0;

	/* A watched pair has steady traffic: at least one packet a second. */
	if (W.watch[a][b].active && (!p || p > SIM_S(1)))
		return SIM_MS(rnd_range(100, 1000));
	return p;
}

static uint64_t next_workload(void)
{
	uint64_t t = W.random_at;
	unsigned int a, b;

	if (W.partitioned && W.heal_at < t)
		t = W.heal_at;
	for (a = 0; a < W.ndev; a++) {
		if (W.down[a] && W.up_at[a] < t)
			t = W.up_at[a];
		if (sdev(a)->asleep && W.wake_at[a] < t)
			t = W.wake_at[a];
		for (b = 0; b < W.ndev; b++) {
			if (W.readd_at[a][b] && W.readd_at[a][b] < t)
				t = W.readd_at[a][b];
			if (flow_on(a, b) && W.flow_next[a][b] < t)
				t = W.flow_next[a][b];
		}
	}
	return t;
}

/* Everything of the workload due now, each step an event. */
static void workload(void)
{
	uint64_t now = W.net.now;
	unsigned int a, b;

	for (a = 0; a < W.ndev; a++) {
		if (sdev(a)->asleep && W.wake_at[a] <= now) {
			sdev(a)->asleep = false;
			/* the shell's resume check runs first on waking (doc/architecture.md, Timers) */
			device_resume(sdev(a)->dev, now, now - W.slept_from[a]);
			note(1, "dev%u wakes", a);
			after_event("wake");
			watches_update((int)a, -1);
		}
		if (W.down[a] && W.up_at[a] <= now && sdev(a)->asleep) {
			W.up_at[a] = W.wake_at[a] + 1;
		} else if (W.down[a] && W.up_at[a] <= now) {
			W.down[a] = false;
			device_set_link(sdev(a)->dev, true, now);
			note(1, "dev%u up", a);
			after_event("link up");
			watches_update(-1, -1);
		}
		for (b = 0; b < W.ndev; b++) {
			if (W.readd_at[a][b] && W.readd_at[a][b] <= now) {
				W.readd_at[a][b] = 0;
				if (!sdev(a)->asleep) {
					configure_peer(a, b);
					note(1, "dev%u re-adds dev%u", a, b);
				} else {
					W.readd_at[a][b] = W.wake_at[a] + 1;
				}
				after_event("re-add");
				watches_update(-1, -1);
			}
		}
	}
	if (W.partitioned && W.heal_at <= now) {
		memset(W.net.cut, 0, sizeof(W.net.cut));
		W.partitioned = false;
		note(1, "partition healed");
		after_event("heal");
		watches_update(-1, -1);
	}
	for (a = 0; a < W.ndev; a++) {
		for (b = 0; b < W.ndev; b++) {
			uint64_t period = flow_period(a, b);

			if (!period || W.flow_next[a][b] > now)
				continue;
			W.flow_next[a][b] = now + period / 2 + rnd(period);
			if (!can_act(a))
				continue;
			send_packet(a, b);
			after_event("send");
		}
	}
	if (W.random_at <= now) {
		W.random_at = now + SIM_MS(rnd_range(100, 40000));
		random_event();
	}
}

/* ---- one run ---- */

static void world_free(void)
{
	sim_clear(&W.net);
	free(W.pkts);
	free(W.nonces);
	free(W.resps);
	crypto_wipe(W.psk, sizeof(W.psk));
	memset(&W, 0, sizeof(W));
}

static void run_seed(uint64_t seed, double hours, unsigned int ndev, const char *argv0)
{
	unsigned long stuck;
	uint64_t before;
	unsigned int a, b;

	memset(&W, 0, sizeof(W));
	W.seed = seed;
	W.hours = hours;
	W.ndev = ndev;
	W.argv0 = argv0;
	W.event_what = "setup";
	tu_rng_seed(&W.rng, seed);
	sim_init(&W.net, mix64(seed) | 1);
	W.net.threads = threads;
	W.net.on_send = on_send;
	W.net.on_deliver = on_deliver;
	W.net.on_tun = on_tun;
	W.next_port = 40000;
	for (a = 0; a < ndev; a++) {
		if (!sim_add(&W.net))
			sim_fail("cannot create device %u", a);
	}
	W.start = W.net.now;
	W.end = W.start + (uint64_t)(hours * 3600.0 * 1e9);
	for (a = 0; a < ndev; a++) {
		for (b = 0; b < ndev; b++) {
			if (a == b)
				continue;
			if (a < b && rnd(2))
				tu_rng_fill(&W.rng, W.psk[a][b], 32);
			if (a > b)
				memcpy(W.psk[a][b], W.psk[b][a], 32);
			W.flow_period[a][b] = rnd(2) ? SIM_MS(rnd_range(50, 10000)) : 0;
			W.flow_next[a][b] = W.start + rnd(SIM_S(10));
		}
	}
	for (a = 0; a < ndev; a++) {
		for (b = 0; b < ndev; b++) {
			if (a != b)
				configure_peer(a, b);
		}
	}
	W.random_at = W.start + SIM_S(rnd_range(1, 30));
	after_event("setup");
	watches_update(-1, -1);

	for (stuck = 0, before = 0; W.net.now < W.end; stuck = W.net.now == before ? stuck + 1 : 0) {
		uint64_t t = next_workload();
		unsigned long guard;

		before = W.net.now;
		/* every step of the workload moves something forward: a bound */
		if (stuck > 100000)
			sim_fail("the workload makes no progress");
		if (t > W.end)
			t = W.end;
		for (guard = 0; sim_step(&W.net, t); guard++) {
			after_event("network");
			/* a storm of datagrams or deadlines that never lets time pass */
			if (guard == 10000000ul)
				sim_fail("10^7 events before %.3f s: a livelock", secs(t - W.start));
		}
		if (W.net.now < t)
			W.net.now = t;
		workload();
	}
	note(1, "done: %lu events", W.event);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct totals {
	unsigned long seeds, events, packets, delivered, initiations, handshakes, recoveries, replays, unreachables;
	uint64_t max_recovery;
	uint64_t digest;		/* of every seed's simnet digest, in order */
	double hours;
};

static void one(struct totals *t, uint64_t seed, double hours, unsigned int ndev, const char *argv0)
{
	run_seed(seed, hours, ndev, argv0);
	if (verbose)
		fprintf(stderr, "sim: seed %llu, %u devices, %g h: %lu events, %zu packets (%lu delivered), "
			"%lu handshakes, %lu recoveries (longest %.3f s), traffic %016llx\n", (unsigned long long)seed,
			ndev, hours, W.event, W.npkts, W.delivered, W.handshakes, W.recoveries, secs(W.max_recovery),
			(unsigned long long)W.net.digest);
	t->digest = mix64(t->digest ^ W.net.digest);
	t->seeds++;
	t->events += W.event;
	t->packets += W.npkts;
	t->delivered += W.delivered;
	t->unreachables += W.unreachables;
	t->handshakes += W.handshakes;
	t->initiations += W.initiations;
	t->recoveries += W.recoveries;
	t->replays += W.replays;
	if (W.max_recovery > t->max_recovery)
		t->max_recovery = W.max_recovery;
	t->hours += hours;
	world_free();
}

/*
 * Random seeds that once failed, run with the fixed set.  Each is named by
 * what it found.
 */
static const uint64_t regression_seeds[] = {
	/*
	 * A one-way partition: dev0 answers dev1's initiations every 5 s
	 * while its own keypair passes Rekey-After-Time, so the spacing of
	 * handshake messages rightly holds its own initiation back; the
	 * invariant counted initiations only.  (Found as 232913432172 with
	 * simnet's own generator; 409894211546 since the simulation draws from
	 * tu_rng, found by running random seeds against the old invariant.)
	 */
	409894211546ull,
};

static unsigned int devs_for(uint64_t seed, unsigned int devs)
{
	return devs ? devs : 2 + (unsigned int)(seed % 4);
}

int main(int argc, char **argv)
{
	uint64_t seed = 0;
	bool have_seed = false;
	double hours = 1.0, budget = 2.0, t0;
	unsigned int devs = 0, fixed = 6, k;
	struct totals t;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[i], "--hours") && i + 1 < argc) {
			hours = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--devs") && i + 1 < argc) {
			devs = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
			budget = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--fixed") && i + 1 < argc) {
			fixed = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "-v")) {
			verbose++;
		} else if (!strcmp(argv[i], "-vv") || !strcmp(argv[i], "-vvv") || !strcmp(argv[i], "-vvvv")) {
			verbose += (int)strlen(argv[i]) - 1;
		} else {
			fprintf(stderr, "usage: %s [--seed N] [--hours H] [--devs 2..%d] [--budget CPU-S] "
				"[--fixed K] [--threads N] [-v]...\n", argv[0], SIM_MAX_DEVS);
			return 2;
		}
	}
	if ((devs && (devs < 2 || devs > SIM_MAX_DEVS)) || !(hours > 0 && hours <= 1000) ||
	    threads < 1 || threads > WORKERS_MAX + 1)
		return 2;
	log_init("sim", verbose >= 4 ? LOG_LEVEL_DEBUG : LOG_LEVEL_SILENT, true);
	if (!x25519_init())
		return 99;
	memset(&t, 0, sizeof(t));
	t0 = cpu_seconds();
	if (have_seed) {
		one(&t, seed, hours, devs_for(seed, devs), argv[0]);
	} else {
		/* The fixed set and the regressions, then random seeds (printed first) for the CPU budget. */
		for (k = 1; k <= fixed; k++)
			one(&t, k, hours, devs_for(k, devs), argv[0]);
		for (k = 0; k < sizeof(regression_seeds) / sizeof(regression_seeds[0]); k++)
			one(&t, regression_seeds[k], hours, devs_for(regression_seeds[k], devs), argv[0]);
		double t1 = cpu_seconds();

		seed = mix64((uint64_t)time(NULL) ^ (uint64_t)getpid() << 32);
		while (cpu_seconds() - t1 < budget) {
			seed = mix64(seed) % 1000000000000ull;
			/* printed before it runs: a crash names its seed too */
			printf("sim: random seed %llu\n", (unsigned long long)seed);
			fflush(stdout);
			one(&t, seed, hours, devs_for(seed, devs), argv[0]);
		}
	}
	t0 = cpu_seconds() - t0;
	printf("sim: %lu seeds, %.1f protocol-hours, %lu events, %lu packets (%lu delivered), %lu initiations, "
	       "%lu responses, %lu recoveries (longest %.3f s, bound %.3f s), %lu replays injected, "
	       "%lu unreachable errors: all invariants held\n",
	       t.seeds, t.hours, t.events, t.packets, t.delivered, t.initiations, t.handshakes, t.recoveries,
	       secs(t.max_recovery), secs(RECOVERY_BOUND), t.replays, t.unreachables);
	printf("sim: traffic digest %016llx (%u threads per device)\n", (unsigned long long)t.digest, threads);
	fprintf(stderr, "sim: %lu jobs run by workers\n", sim_worker_jobs);
	printf("sim: %.2f CPU-s, %.0f protocol-hours per CPU-second\n", t0, t0 > 0 ? t.hours / t0 : 0.0);
	log_clear();
	return 0;
}
