// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outbound path (WP §3, §5.4.6):
 *
 *   a TUN read by the shell (into device_tx_buffer()); a TCP super-packet
 *   (TSO) is cut into segments, each written straight into its send slot
 *   -> inner destination -> allowed-IPs lookup -> peer   (none: drop, count,
 *                                                          answer ICMP unreachable)
 *   -> endpoint known?                                    (no: the same)
 *   -> outer ECN field from the inner one (RFC 6040, ip.h)
 *   -> pad to 16 within the MTU -> seal in place on the current keypair
 *        (no usable keypair: stage the packet, initiate a handshake)
 *   -> when PACKET_BATCH slots are sealed, or the reads are done:
 *      one io.send() for the batch (one sendmmsg() per address family)
 *   -> timers: data sent, rekey-on-send rules
 *
 * Each packet sits at slot.buf + MESSAGE_DATA_HEADER_LEN so that the header
 * goes in front of it and the tag behind it without copying.
 *
 * A packet larger than a slot (MTU above PACKET_MAX_INNER: jumbo frames)
 * takes the oversize path: it is copied (or its TSO segment written) into
 * the device's one large buffer, routed, padded and sealed there like any
 * other, and sent on its own right after the batch before it, so that a
 * peer's packets leave in the order they were read.
 */
#include <linux/virtio_net.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/bytes.h"
#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/ip.h"
#include "daemon/datapath/send.h"

/*
 * The inner packet's IP version and destination address, after checking
 * that the IP header is whole and its length field matches what the TUN
 * device gave us.  Returns the version (4 or 6), or 0 to drop.
 */
static int send_inner_destination(const uint8_t *pkt, size_t len, const uint8_t **dst)
{
	const uint8_t *src;
	size_t ip_len;
	int version = ip_parse(pkt, len, &ip_len, &src, dst);

	if (!version || ip_len != len)
		return 0;
	return version;
}

/*
 * The one way out: n datagrams, msgs[i] for peers[i] (or all for peer, or
 * for nobody: a cookie reply).  What the host took counts as sent to its
 * peer; returns how many it took.
 */
static WGD_OUT_OF_LINE unsigned int send_out(struct device *d, struct udp_msg *msgs, unsigned int n, struct peer *const *peers,
			     struct peer *peer)
{
	unsigned int i, sent = 0;

	if (!n)
		return 0;
	d->stats.tx_udp_dropped += d->io.send(d->io.ctx, msgs, n);
	for (i = 0; i < n; i++) {
		struct peer *p = peers ? peers[i] : peer;

		if (!msgs[i].sent)
			continue;
		sent++;
		if (p)
			p->tx_bytes += msgs[i].len;
	}
	return sent;
}

/* A data message was sealed for p: the timers, and a rekey if a rule fired. */
static void send_sealed(struct peer *p, uint64_t now, bool data, bool sent)
{
	if (peer_on_data_sent(p, now, data, sent))
		send_want_handshake(p, now);
}

/*
 * Sends the n sealed slots from base, then tells each peer's timers once
 * per run of its messages; the data-sent timer starts only if the host
 * took at least one of them (as the kernel's WireGuard does: a send that
 * failed is no reason to expect an answer).
 */
static void send_batch(struct device *d, unsigned int base, unsigned int n, uint64_t now)
{
	struct peer **peers = &d->tx_peers[base];
	struct udp_msg *msgs = &d->tx_msgs[base];
	unsigned int i;
	bool any = false;

	send_out(d, msgs, n, peers, NULL);
	for (i = 0; i < n; i++) {
		struct peer *p = peers[i];

		any |= msgs[i].sent;
		if (i + 1 < n && peers[i + 1] == p)
			continue;
		send_sealed(p, now, true, any);
		any = false;
	}
}

/* The batch handed to the workers at the flush before, if any: its jobs finished, it leaves. */
static void send_held(struct device *d, uint64_t now)
{
	struct send_pending pend = d->tx_pend;

	if (!pend.n)
		return;
	d->tx_pend.n = 0;
	crypt_wait(&d->crypt, &d->io, pend.first, pend.end);
	send_batch(d, pend.base, pend.n, now);
}

/*
 * The batch of slots so far leaves.  On one thread, at once.  With workers
 * (crypt.h) the batches go in pairs: this one is handed out whole and kept
 * pending while the owner reads and fills the next one in the other half
 * of the slots, and it leaves (after the one pending before it, in order)
 * at the next flush; so the workers seal one batch while the owner is in
 * the system calls of the other (doc/architecture.md, "Threads").  all:
 * the pending batch leaves too (the end of the shell's reads, or a packet
 * sent on its own).
 */
void send_flush(struct device *d, uint64_t now, bool all)
{
	unsigned int n = d->tx_count;

	if (!d->crypt.workers) {
		if (!n)
			return;
		d->tx_count = 0;
		crypt_join(&d->crypt, &d->io);
		send_batch(d, d->tx_base, n, now);
		return;
	}
	send_held(d, now);
	if (!n)
		return;
	d->tx_count = 0;
	if (all) {
		/* what was not handed out yet stays on this thread: no wake-up for a small batch */
		crypt_join(&d->crypt, &d->io);
		send_batch(d, d->tx_base, n, now);
		return;
	}
	crypt_share(&d->crypt, &d->io);
	d->tx_pend = (struct send_pending){ .base = d->tx_base, .n = n, .first = d->tx_first,
					    .end = crypt_seq(&d->crypt) };
	d->tx_base ^= PACKET_BATCH;
}

/* One datagram to p's endpoint (a handshake message or a keepalive), with TOS tos. */
static bool send_one(struct peer *p, uint8_t *data, size_t len, uint8_t tos)
{
	struct udp_msg m = { .data = data, .len = len, .ep = &p->endpoint, .tos = tos };

	if (p->endpoint.addr.sa.sa_family == AF_UNSPEC) {
		p->dev->stats.tx_no_endpoint++;
		return false;
	}
	return send_out(p->dev, &m, 1, NULL, p) == 1;
}

void send_cookie_reply(struct device *d, uint8_t *reply, size_t len, struct endpoint *to)
{
	struct udp_msg m = { .data = reply, .len = len, .ep = to };

	send_out(d, &m, 1, NULL, NULL);
}

void send_initiation(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_INITIATION_LEN];
	uint8_t ts[NOISE_TIMESTAMP_LEN];
	enum noise_result res;

	noise_tai64n(ts, p->dev->io.wall_ns(p->dev->io.ctx));
	res = noise_create_initiation(&p->remote, msg, ts, now);
	if (res != NOISE_OK) {
		log_packet(LOG_LEVEL_VERBOSE, "cannot create a handshake initiation: %s",
			   noise_result_str(res));
		return;
	}
	log_packet(LOG_LEVEL_DEBUG, "sending handshake initiation");
	/* Reported even if the send fails: the retransmission timer retries. */
	send_one(p, msg, sizeof(msg), IP_TOS_HANDSHAKE);
	peer_on_initiation_sent(p, now);
}

void send_response(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_RESPONSE_LEN];
	enum noise_result res;

	res = noise_create_response(&p->remote, msg, now);
	if (res != NOISE_OK) {
		log_packet(LOG_LEVEL_VERBOSE, "cannot create a handshake response: %s",
			   noise_result_str(res));
		return;
	}
	send_one(p, msg, sizeof(msg), IP_TOS_HANDSHAKE);
	crypto_wipe(msg, sizeof(msg));
	peer_on_response_sent(p, now);
}

void send_want_handshake(struct peer *p, uint64_t now)
{
	if (!p->dev->up)
		return;
	if (timers_want_initiation(&p->timers, now))
		send_initiation(p, now);
	peer_deadline(p);
}

void send_keepalive(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_DATA_OVERHEAD];

	if (p->staged.count) {
		send_staged(p, now);
		return;
	}
	if (noise_seal(&p->remote, msg, 0, now) != NOISE_OK) {
		send_want_handshake(p, now);
		return;
	}
	send_sealed(p, now, false, send_one(p, msg, sizeof(msg), 0));
}

/*
 * Sends the n sealed staged packets of the batch, then frees their buffers
 * (ciphertext by then: no wipe needed) and empties the batch; returns how
 * many the host took.
 */
static unsigned int send_staged_batch(struct peer *p, struct udp_msg *msgs, struct peer_staged_packet **bufs,
				      unsigned int *n)
{
	unsigned int i, sent = send_out(p->dev, msgs, *n, NULL, p);

	for (i = 0; i < *n; i++)
		free(bufs[i]);
	*n = 0;
	return sent;
}

/*
 * Seals the staged packets in order, in batches; an oversize one goes on
 * its own after the batch before it, so the peer receives them in order.
 */
void send_staged(struct peer *p, uint64_t now)
{
	struct peer_staged *q = &p->staged;
	struct udp_msg msgs[PACKET_BATCH];
	struct peer_staged_packet *bufs[PACKET_BATCH];
	unsigned int n = 0, sealed = 0, sent = 0;

	if (!q->count || p->endpoint.addr.sa.sa_family == AF_UNSPEC)
		return;
	while (q->count) {
		struct peer_staged_packet *sp = q->head;
		bool large = sp->len > PACKET_MAX_INNER;
		size_t len = device_padded_len(p->dev, sp->len);

		if (large)
			sent += send_staged_batch(p, msgs, bufs, &n);
		msgs[n].tos = ip_ecn_encapsulate(sp->buf + MESSAGE_DATA_HEADER_LEN);
		memset(sp->buf + MESSAGE_DATA_HEADER_LEN + sp->len, 0, len - sp->len);
		if (noise_seal(&p->remote, sp->buf, len, now) != NOISE_OK)
			break;
		peer_staged_pop(q);
		msgs[n].data = sp->buf;
		msgs[n].len = len + MESSAGE_DATA_OVERHEAD;
		msgs[n].ep = &p->endpoint;
		bufs[n] = sp;
		n++;
		sealed++;
		if (large || n == PACKET_BATCH)
			sent += send_staged_batch(p, msgs, bufs, &n);
	}
	sent += send_staged_batch(p, msgs, bufs, &n);
	if (sealed)
		send_sealed(p, now, true, sent > 0);
	/* A keypair that could not seal them all: a new session is needed. */
	if (q->count)
		send_want_handshake(p, now);
}

/*
 * A packet no peer takes: as the kernel's WireGuard does, the sender hears
 * so at once through an ICMP unreachable written back into the TUN device
 * (icmp.h: its rules and rate limit), rather than waiting out its timeouts.
 * Written at once from the device's one error buffer: it is no datagram,
 * so the batch of sealed slots is not involved.
 */
static void send_unreachable(struct device *d, const uint8_t *inner, size_t len, uint64_t now)
{
	uint8_t *out = d->icmp_buf + IO_TUN_HEADROOM;
	size_t n = icmp_unreachable(&d->icmp, now, out, inner, len);

	if (n && d->io.tun_write(d->io.ctx, out, n) < 0)
		d->stats.rx_tun_dropped++;
}

/*
 * The peer an inner packet of len bytes goes to, after the checks that
 * may drop it (counted): malformed, no route, no endpoint.  NULL if
 * dropped; for the last two, an ICMP error answers the sender if `answer`.
 */
static struct peer *send_route(struct device *d, const uint8_t *inner, size_t len, bool answer, uint64_t now)
{
	const uint8_t *dst = NULL;
	struct peer *p;
	int version;

	version = send_inner_destination(inner, len, &dst);
	if (!version) {
		d->stats.tx_bad_packet++;
		return NULL;
	}
	p = allowedips_lookup(&d->table, version, dst);
	if (!p) {
		d->stats.tx_no_route++;
		log_packet(LOG_LEVEL_DEBUG, "no peer for an outgoing IPv%d packet; dropped", version);
	} else if (p->endpoint.addr.sa.sa_family == AF_UNSPEC) {
		d->stats.tx_no_endpoint++;
		log_packet(LOG_LEVEL_DEBUG, "peer has no endpoint; packet dropped");
		p = NULL;
	} else {
		return p;
	}
	if (answer)
		send_unreachable(d, inner, len, now);
	return NULL;
}

/*
 * The oversize path's seal, at once: pads and seals for p the packet of
 * len bytes at buf + MESSAGE_DATA_HEADER_LEN, in place (buf has room for
 * the padding and the tag).  Returns the data message's length, or 0 if the
 * packet was staged instead.
 */
static size_t send_seal(struct device *d, struct peer *p, uint8_t *buf, size_t len, uint64_t now)
{
	uint8_t *inner = buf + MESSAGE_DATA_HEADER_LEN;
	/* WP §5.4.6: zero padding to a multiple of 16, never beyond the MTU. */
	size_t padded = device_padded_len(d, len);

	memset(inner + len, 0, padded - len);
	if (p->staged.count || noise_seal(&p->remote, buf, padded, now) != NOISE_OK) {
		/* Behind staged packets or without a session: wait for one. */
		peer_stage(p, inner, len);
		send_want_handshake(p, now);
		return 0;
	}
	return padded + MESSAGE_DATA_OVERHEAD;
}

/*
 * The packet in the next free slot, of len bytes (or, for a segment job,
 * to be written there: seg of split), for p: the protocol's part of
 * sealing now, in order, and the rest as a job (crypt.h).  A slot with a
 * job is kept for the batch (flushed when the batch is full); a packet
 * without a session is staged (built first, if a segment) and leaves the
 * slot free for the next one.
 */
static void send_slot(struct device *d, struct peer *p, size_t len, const struct gso_split *split,
		      unsigned int seg, uint64_t now)
{
	struct packet *slot = &d->tx[d->tx_base + d->tx_count];
	uint8_t *inner = slot->buf + MESSAGE_DATA_HEADER_LEN;
	/* WP §5.4.6: zero padding to a multiple of 16, never beyond the MTU. */
	size_t padded = device_padded_len(d, len);
	struct crypt_job *j = crypt_slot(&d->crypt, &d->io);

	if (p->staged.count || noise_seal_prepare(&p->remote, slot->buf, now, &j->c) != NOISE_OK) {
		/* Behind staged packets or without a session: wait for one. */
		if (split)
			gso_split_segment(split, seg, inner, PACKET_MAX_INNER);
		peer_stage(p, inner, len);
		send_want_handshake(p, now);
		return;
	}
	j->msg = slot->buf;
	j->len = padded;
	j->kind = split ? CRYPT_SEGMENT : CRYPT_SEAL;
	j->split = split;
	j->seg = seg;
	/* before the job seals it; a segment's IP header is the super-packet's */
	d->tx_msgs[d->tx_base + d->tx_count] = (struct udp_msg){
		.data = slot->buf, .len = padded + MESSAGE_DATA_OVERHEAD, .ep = &p->endpoint,
		.tos = ip_ecn_encapsulate(split ? split->pkt : inner) };
	if (!split)
		memset(inner + len, 0, padded - len);
	if (!d->tx_count)
		d->tx_first = crypt_seq(&d->crypt);	/* this job's */
	crypt_publish(&d->crypt, &d->io);
	d->tx_peers[d->tx_base + d->tx_count] = p;
	if (++d->tx_count == PACKET_BATCH)
		send_flush(d, now, false);
}


/* Routes the packet of len bytes in the next free slot, and seals it (or drops it). */
static void send_packet(struct device *d, size_t len, uint64_t now)
{
	struct peer *p = send_route(d, d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN, len, true, now);

	if (p)
		send_slot(d, p, len, NULL, 0, now);
}

/*
 * The oversize path: routes, seals and sends the packet of len bytes at
 * d->tx_large.buf + MESSAGE_DATA_HEADER_LEN on its own, after the batch
 * sealed before it, with the accounting of send_flush().  `answer`: an
 * ICMP error answers it if it has no route (a super-packet's later
 * segments are not answered again).
 */
static void send_large(struct device *d, size_t len, bool answer, uint64_t now)
{
	uint8_t *buf = d->tx_large.buf;
	struct udp_msg msg;
	struct peer *p;
	uint8_t tos;
	size_t n;

	if (len > PACKET_MAX_INNER_LARGE) {
		d->stats.tx_bad_packet++;
		return;
	}
	p = send_route(d, buf + MESSAGE_DATA_HEADER_LEN, len, answer, now);
	if (!p)
		return;
	send_flush(d, now, true);
	tos = ip_ecn_encapsulate(buf + MESSAGE_DATA_HEADER_LEN);
	n = send_seal(d, p, buf, len, now);
	if (!n)
		return;
	msg = (struct udp_msg){ .data = buf, .len = n, .ep = &p->endpoint, .tos = tos };
	send_sealed(p, now, true, send_out(d, &msg, 1, NULL, p) == 1);
}

/* A whole packet of len bytes from elsewhere: into its slot or the large buffer. */
static void send_copy(struct device *d, const uint8_t *pkt, size_t len, uint64_t now)
{
	if (len <= PACKET_MAX_INNER) {
		memcpy(d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN, pkt, len);
		send_packet(d, len, now);
		return;
	}
	if (len > PACKET_MAX_INNER_LARGE) {
		d->stats.tx_bad_packet++;
		return;
	}
	memcpy(d->tx_large.buf + MESSAGE_DATA_HEADER_LEN, pkt, len);
	send_large(d, len, true, now);
}

/*
 * Segments larger than a slot (jumbo MTU) go one by one, in order, through
 * the oversize path; returns how many were sent on.
 */
static unsigned int send_super_large(struct device *d, struct gso_split *split, uint64_t now)
{
	unsigned int count = 0;
	size_t seg;

	while ((seg = gso_split_next(split, d->tx_large.buf + MESSAGE_DATA_HEADER_LEN,
				     PACKET_MAX_INNER_LARGE))) {
		/* one error answers the whole super-packet, as below */
		send_large(d, seg, ++count == 1, now);
	}
	if (split->off < split->len)
		d->stats.tx_bad_packet++;	/* a segment larger than a datagram */
	return count;
}

/*
 * Cuts the TCP super-packet of TUN read t into its segments; returns how
 * many were sent on.  Every segment has the super-packet's addresses: the
 * route of the first that has one (allowed IPs, endpoint) is every
 * segment's, as nothing changes them in between.  The segments up to that
 * one are written here (each counted if it does not route); the rest are
 * written by their jobs, from t, which stays untouched until they finish.
 */
static unsigned int send_super_packet(struct device *d, struct tun_read *t, size_t len,
				      const struct gso_hdr *h, uint64_t now)
{
	struct gso_split *split = &t->split;
	unsigned int k = 0, count;
	struct peer *p = NULL;
	size_t seg;

	if (!gso_split_init(split, t->buf + GSO_VNET_HDR_LEN, len, h)) {
		d->stats.tx_bad_packet++;
		return 0;
	}
	if (split->hdr_len + split->seg > PACKET_MAX_INNER)
		return send_super_large(d, split, now);
	count = gso_split_count(split);
	t->first = crypt_seq(&d->crypt);
	while (!p && k < count) {
		seg = gso_split_segment(split, k++, d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN,
					PACKET_MAX_INNER);
		/* one error answers the whole super-packet: its first segment */
		p = send_route(d, d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN, seg, k == 1, now);
		if (p)
			send_slot(d, p, seg, NULL, 0, now);
	}
	for (; p && k < count; k++)
		send_slot(d, p, gso_split_len(split, k), split, k, now);
	t->end = crypt_seq(&d->crypt);
	/* a super-packet is worth sharing whole, its tail too */
	if (d->crypt.workers && !d->crypt.backoff)
		crypt_share(&d->crypt, &d->io);
	return count;
}

/*
 * One packet read with its virtio_net_hdr: complete, cut or copy it.  A
 * super-packet's segments are jobs that read it where it lies: with
 * workers, the next read goes to the other buffer.
 */
static unsigned int send_vnet_packet(struct device *d, size_t n, uint64_t now)
{
	struct tun_read *t = &d->tun[d->tun_cur];
	uint8_t *pkt = t->buf + GSO_VNET_HDR_LEN;
	size_t len = n - GSO_VNET_HDR_LEN;
	struct gso_hdr h;

	if (n < GSO_VNET_HDR_LEN || n >= sizeof(t->buf)) {
		/* no header, or larger than an IP packet can be: cut short */
		d->stats.tx_bad_packet++;
		return 0;
	}
	gso_hdr_parse(&h, t->buf);
	if (h.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		if (d->crypt.workers)
			d->tun_cur = (d->tun_cur + 1) % TUN_READS;
		return send_super_packet(d, t, len, &h, now);
	}
	if ((h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && !gso_complete_csum(pkt, len, &h)) {
		d->stats.tx_bad_packet++;
		return 0;
	}
	send_copy(d, pkt, len, now);
	return 1;
}

/*
 * Where the next TUN read goes: with offloads, the read buffer (a packet
 * with its virtio_net_hdr, maybe a super-packet); without, straight into
 * the next slot, or, when the MTU lets packets be larger than a slot, into
 * the large buffer.  One byte more than the limit shows a read was cut.
 * The MTU does not change between this and device_tx_packet() (the shell
 * calls them back to back), so both make the same choice.
 */
uint8_t *device_tx_buffer(struct device *d, size_t *size)
{
	struct tun_read *t = &d->tun[d->tun_cur];

	if (d->tun_vnet) {
		/* its last super-packet's segments may still be jobs */
		if (!crypt_finished(&d->crypt, t->first, t->end))
			crypt_wait(&d->crypt, &d->io, t->first, t->end);
		*size = sizeof(t->buf);
		return t->buf;
	}
	if (d->mtu <= PACKET_MAX_INNER) {
		*size = PACKET_MAX_INNER + 1;
		return d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN;
	}
	*size = PACKET_MAX_INNER_LARGE + 1;
	return d->tx_large.buf + MESSAGE_DATA_HEADER_LEN;
}

/*
 * One TUN read of len bytes landed in device_tx_buffer(): sends it on its
 * way.  Returns the segments sent on plus one for the read, so that a
 * dropped packet still counts towards the shell's bound.
 */
unsigned int device_tx_packet(struct device *d, size_t len, uint64_t now)
{
	unsigned int work = 1;

	if (d->tun_vnet) {
		work += send_vnet_packet(d, len, now);
	} else if (len > PACKET_MAX_INNER && d->mtu <= PACKET_MAX_INNER) {
		d->stats.tx_bad_packet++;	/* cut: read into a slot */
	} else if (len <= PACKET_MAX_INNER) {
		if (d->mtu > PACKET_MAX_INNER)	/* read into the large buffer */
			memcpy(d->tx[d->tx_base + d->tx_count].buf + MESSAGE_DATA_HEADER_LEN,
			       d->tx_large.buf + MESSAGE_DATA_HEADER_LEN, len);
		send_packet(d, len, now);
	} else {
		send_large(d, len, true, now);	/* drops one that was cut */
	}
	device_deadline_commit(d);
	return work;
}

void device_tx_flush(struct device *d, uint64_t now)
{
	send_flush(d, now, true);
	device_deadline_commit(d);
}
