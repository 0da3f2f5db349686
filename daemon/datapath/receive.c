// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inbound path, one batch of datagrams as the shell read them (one
 * recvmmsg() into device_rx_buffers(): 64 datagrams, or 8
 * UDP GRO runs of datagrams taken one by one where they lie, or 8
 * datagrams of up to 64 KiB when the MTU is larger than a slot):
 *
 *   each datagram is checked once at the edge by length and type
 *   (message_classify(), doc/protocol.md §2), then
 *   the read is weighed first: mac1 of each initiation and response, and
 *     their number decides whether it is handled under load (load.h)
 *   handshake (types 1-2):
 *     mac1 as weighed; under load mac2 or a cookie reply, and the
 *     per-source rate limiter (WP §5.3) -> consume -> endpoint ->
 *     timers -> answer (response) or send staged/keepalive (initiator)
 *   cookie reply (type 3): to the peer that owns its receiver index
 *   data (type 4):
 *     keypair by receiver index -> open in place -> replay window (in
 *     noise_open) -> roaming endpoint update -> key confirmation -> timers
 *     -> keepalive? -> inner IP length checks and trimming -> allowed-IPs
 *     source check against the decrypting peer -> the outer ECN field
 *     into the inner one (RFC 6040) -> TUN write (TCP segments
 *     of one flow merged into one write, see gso.h, across the batches
 *     the shell reads back to back until it calls device_rx_flush())
 *
 * Nothing unauthenticated changes protocol state, only handshake messages
 * with a valid mac1 count towards "under load", and nothing unauthenticated
 * is answered except by a cookie reply under load (WP §5.1).
 */
#include <errno.h>
#include <string.h>

#include "crypto/bytes.h"
#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/core/cookie.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/ip.h"
#include "daemon/datapath/send.h"

static bool receive_mac1_ok(const struct receive_batch *rb)
{
	unsigned int k = rb->next_handshake;

	return rb->mac1_ok[k / 8] & (1u << (k % 8));
}

/* The cookie's source bytes: address then big-endian port (kernel's choice). */
static size_t receive_source_bytes(const struct endpoint *ep, uint8_t out[18], int *version,
				   const uint8_t **addr)
{
	if (ep->addr.sa.sa_family == AF_INET) {
		memcpy(out, &ep->addr.in4.sin_addr, 4);
		memcpy(out + 4, &ep->addr.in4.sin_port, 2);
		*version = 4;
		*addr = out;
		return 6;
	}
	memcpy(out, &ep->addr.in6.sin6_addr, 16);
	memcpy(out + 16, &ep->addr.in6.sin6_port, 2);
	*version = 6;
	*addr = out;
	return 18;
}

static void receive_cookie_reply(struct device *d, const uint8_t *msg, uint64_t now)
{
	struct noise_remote *r = noise_remote_by_index(&d->local, le32_load(msg + MESSAGE_COOKIE_RECEIVER));

	if (!r) {
		d->stats.rx_handshake_dropped++;
		return;
	}
	if (cookie_maker_consume_reply(&r->cookie, msg, now) != COOKIE_REPLY_OK) {
		d->stats.rx_handshake_dropped++;
		log_packet(LOG_LEVEL_DEBUG, "invalid cookie reply dropped");
		return;
	}
	log_packet(LOG_LEVEL_DEBUG, "received a cookie reply");
}

/*
 * After mac1 (checked before, when the read was weighed): under load, a
 * cookie reply or the rate limiter.  True to go on.
 */
static bool receive_check_macs(struct device *d, uint8_t *msg, size_t len, bool mac1_ok,
			       bool under_load, struct endpoint *from, uint64_t now)
{
	uint8_t src[18], reply[MESSAGE_COOKIE_LEN];
	const uint8_t *addr;
	size_t src_len;
	int version;

	if (!mac1_ok) {
		d->stats.rx_bad_mac++;
		log_packet(LOG_LEVEL_DEBUG, "handshake message with an invalid mac1 dropped");
		return false;
	}
	src_len = receive_source_bytes(from, src, &version, &addr);
	switch (cookie_checker_check_mac2(&d->local.cookie, msg, len, src, src_len, under_load, now)) {
	case COOKIE_PROCEED:
		return true;
	case COOKIE_PROCEED_RATELIMITED:
		if (ratelimiter_allow(d->ratelimiter, version, addr, now))
			return true;
		d->stats.rx_handshake_dropped++;
		log_packet(LOG_LEVEL_DEBUG, "under load: handshake message over the source's rate dropped");
		return false;
	case COOKIE_SEND_REPLY:
		if (cookie_checker_create_reply(&d->local.cookie, reply, msg, len, src, src_len, now)) {
			log_packet(LOG_LEVEL_DEBUG, "under load: answering a handshake message with a cookie");
			send_cookie_reply(d, reply, sizeof(reply), from);
		}
		return false;
	case COOKIE_ERR_RANDOM:
		/* The kernel gave no random bytes for a new cookie secret. */
		d->stats.rx_handshake_dropped++;
		log_packet(LOG_LEVEL_ERROR, "no random bytes for the cookie secret; handshake message dropped");
		return false;
	case COOKIE_DROP_BAD_MAC1:
	default:
		d->stats.rx_bad_mac++;
		log_packet(LOG_LEVEL_DEBUG, "handshake message with an invalid mac1 dropped");
		return false;
	}
}

static void receive_initiation(struct device *d, uint8_t *msg, struct endpoint *from, uint64_t now)
{
	struct noise_remote *r = NULL;
	enum noise_result res;
	struct peer *p;

	res = noise_consume_initiation(&d->local, msg, now, &r);
	if (res != NOISE_OK) {
		d->stats.rx_handshake_dropped++;
		log_packet(LOG_LEVEL_VERBOSE, "handshake initiation dropped: %s", noise_result_str(res));
		return;
	}
	p = peer_of_remote(r);
	p->rx_bytes += MESSAGE_INITIATION_LEN;
	peer_set_endpoint_from(p, from);
	peer_on_initiation_consumed(p, now);
	log_packet(LOG_LEVEL_DEBUG, "received handshake initiation");
	send_response(p, now);
}

static void receive_response(struct device *d, uint8_t *msg, struct endpoint *from, uint64_t now)
{
	struct noise_remote *r = NULL;
	enum noise_result res;
	struct peer *p;

	res = noise_consume_response(&d->local, msg, now, &r);
	if (res != NOISE_OK) {
		d->stats.rx_handshake_dropped++;
		log_packet(LOG_LEVEL_VERBOSE, "handshake response dropped: %s", noise_result_str(res));
		return;
	}
	p = peer_of_remote(r);
	p->rx_bytes += MESSAGE_RESPONSE_LEN;
	peer_set_endpoint_from(p, from);
	peer_on_response_consumed(p, now);
	log_packet(LOG_LEVEL_VERBOSE, "handshake complete (initiator)");
	/* The initiator confirms the session at once (doc/protocol.md §7). */
	send_keepalive(p, now);
}

static void receive_handshake(struct device *d, enum message_type type, uint8_t *msg, size_t len,
			      const struct receive_batch *rb, struct endpoint *from, uint64_t now)
{
	if (!receive_check_macs(d, msg, len, receive_mac1_ok(rb), rb->under_load, from, now))
		return;
	if (type == MESSAGE_HANDSHAKE_INITIATION)
		receive_initiation(d, msg, from, now);
	else
		receive_response(d, msg, from, now);
}

/*
 * The decrypted inner packet: IPv4 or IPv6 with a sane length; trims the
 * padding to the IP length.  Returns the version and sets *len and *src,
 * or 0 to drop.
 */
static int receive_inner(const uint8_t *pkt, size_t *len, const uint8_t **src)
{
	const uint8_t *dst;
	size_t ip_len;
	int version = ip_parse(pkt, *len, &ip_len, src, &dst);

	if (version)
		*len = ip_len;
	return version;
}

static void receive_tun_result(struct device *d, int ret)
{
	if (ret >= 0)
		return;
	d->stats.rx_tun_dropped++;
	if (ret != -EAGAIN)
		log_packet(LOG_LEVEL_ERROR, "TUN write: %s", strerror(-ret));
}

/* Writes the merged group, if any, to the TUN device. */
void device_rx_flush(struct device *d)
{
	const struct iovec *iov;
	unsigned int n;

	if (gro_finish(&d->gro, &iov, &n))
		receive_tun_result(d, d->io.tun_write_vnet(d->io.ctx, iov, n));
}

/* Writes the pending pure ACK, if any; it lies in the batch's buffers. */
static void receive_ack_flush(struct device *d)
{
	if (!d->ack_pending)
		return;
	receive_tun_result(d, d->io.tun_write(d->io.ctx, d->ack_pending, d->ack_pending_len));
	d->ack_pending = NULL;
}

/*
 * A pure ACK waits for the next packet: if that is a later ACK of the same
 * flow, it supersedes this one, which is dropped (gso.h).  Anything else,
 * or the end of the batch, writes it first, so that the order of packets
 * is kept.
 */
static bool receive_ack_hold(struct device *d, uint8_t *inner, size_t len)
{
	if (!gro_pure_ack(inner, len)) {
		receive_ack_flush(d);
		return false;
	}
	if (d->ack_pending && gro_ack_supersedes(d->ack_pending, d->ack_pending_len, inner, len))
		d->stats.rx_acks_superseded++;
	else
		receive_ack_flush(d);
	d->ack_pending = inner;
	d->ack_pending_len = len;
	return true;
}

/*
 * An inner packet for the TUN device.  With offloads, TCP segments of one
 * flow are merged (gso.h) and written when the run ends or the batch does;
 * pure ACKs wait for a later one that supersedes them; anything else is
 * written at once, after what is pending, so that the order of packets is
 * kept.  (A pending ACK and a pending group never coexist: an ACK does not
 * continue a group, so it flushes it, and a segment flushes the ACK.)
 */
static void receive_deliver(struct device *d, uint8_t *inner, size_t len)
{
	if (d->tun_vnet && gro_append(&d->gro, inner, len))
		return;
	if (d->tun_vnet)
		device_rx_flush(d);
	if (receive_ack_hold(d, inner, len))
		return;
	if (d->tun_vnet && gro_start(&d->gro, inner, len))
		return;
	receive_tun_result(d, d->io.tun_write(d->io.ctx, inner, len));
}

/*
 * A data message, first pass: the protocol's part of opening it
 * (noise_open_prepare(): its keypair, in order) and a job for the AEAD
 * (crypt.h); a message that cannot be opened keeps its verdict in order
 * all the same.
 */
static void receive_data_prepare(struct device *d, uint8_t *msg, size_t len, const struct udp_msg *m,
				 uint64_t now)
{
	struct crypt_job *j = crypt_slot(&d->crypt, &d->io);

	j->res = (uint8_t)noise_open_prepare(&d->local, msg, len, now, &j->c);
	j->kind = j->res == NOISE_OK ? CRYPT_OPEN : CRYPT_NONE;
	j->msg = msg;
	j->len = len;
	j->from = m->ep;
	j->tos = m->tos;
	j->ok = false;
	crypt_publish(&d->crypt, &d->io);
}

/*
 * The authenticated inner packet of p, of len bytes, checked: its source
 * against p's allowed IPs, the outer ECN field into it (RFC 6040 §4.2,
 * doc/protocol.md §5), then to the TUN device.
 */
static void receive_inner_packet(struct device *d, struct peer *p, uint8_t *inner, size_t inner_len,
				 size_t len, uint8_t tos)
{
	const uint8_t *src = NULL;
	int version = receive_inner(inner, &inner_len, &src);

	if (!version) {
		d->stats.rx_bad_inner++;
		log_packet(LOG_LEVEL_DEBUG, "malformed inner packet dropped");
	} else if (allowedips_lookup(&d->table, version, src) != p) {
		d->stats.rx_bad_source++;
		log_packet(LOG_LEVEL_DEBUG, "inner source address not allowed for the peer; dropped");
	} else if (!ip_ecn_decapsulate(inner, tos)) {
		d->stats.rx_ecn_dropped++;
		log_packet(LOG_LEVEL_DEBUG, "congestion mark on a packet that is not ECN-capable; dropped");
	} else {
		p->rx_bytes += len;
		receive_deliver(d, inner, inner_len);
	}
}

/*
 * A data message, second pass, once its job is finished and those of the
 * messages before it are through this: the replay window, roaming,
 * confirmation, timers, the inner packet to the TUN device.
 */
static void receive_data_finish(struct device *d, struct crypt_job *j, uint64_t now)
{
	struct noise_remote *r = NULL;
	enum noise_result res = j->res;
	uint8_t *msg = j->msg;
	size_t len = j->len;
	struct endpoint *from = j->from;
	uint8_t *inner = msg + MESSAGE_DATA_HEADER_LEN;
	size_t inner_len = len - MESSAGE_DATA_OVERHEAD;
	struct peer *p;
	bool rekey;

	if (res == NOISE_OK)
		res = noise_open_finish(&d->local, msg, &j->c, j->ok, now, &r);
	noise_crypt_wipe(&j->c);
	if (res != NOISE_OK && res != NOISE_OK_CONFIRMED) {
		d->stats.rx_data_dropped++;
		log_packet(LOG_LEVEL_DEBUG, "data message dropped: %s", noise_result_str(res));
		return;
	}
	p = peer_of_remote(r);
	peer_set_endpoint_from(p, from);
	if (res == NOISE_OK_CONFIRMED) {
		peer_on_session_confirmed(p, now);
		log_packet(LOG_LEVEL_VERBOSE, "handshake complete (responder)");
		send_staged(p, now);
	}
	rekey = peer_on_data_opened(p, now, inner_len != 0);
	/*
	 * Received bytes count what is delivered (or a keepalive), as the
	 * kernel counts them: a packet dropped below for its inner header or
	 * its source address counts as a drop, not as traffic from the peer.
	 */
	if (!inner_len)
		p->rx_bytes += len;	/* a keepalive */
	else
		receive_inner_packet(d, p, inner, inner_len, len, j->tos);
	if (rekey)
		send_want_handshake(p, now);
}

/*
 * The data messages of a run (crypt.h): their jobs joined, each finished
 * in the order they came.  A run ends before any other message, which may
 * change the keypairs the next ones are opened with, and before the ring
 * of jobs is full.
 */
static void receive_run_end(struct device *d, uint32_t *first, uint64_t now)
{
	uint32_t i, end = crypt_seq(&d->crypt);

	if (*first == end)
		return;
	crypt_join(&d->crypt, &d->io);
	for (i = *first; i != end; i++)
		receive_data_finish(d, crypt_job_at(&d->crypt, i), now);
	*first = end;
}

/* One datagram, checked at the edge by length and type, then dispatched. */
static void receive_one(struct device *d, uint8_t *msg, size_t len, struct receive_batch *rb,
			const struct udp_msg *m, uint32_t *run, uint64_t now)
{
	enum message_type type = message_classify(msg, len);
	struct endpoint *from = m->ep;

	if (type == MESSAGE_DATA) {
		if (!crypt_room(&d->crypt))
			receive_run_end(d, run, now);
		receive_data_prepare(d, msg, len, m, now);
		return;
	}
	receive_run_end(d, run, now);
	switch (type) {
	case MESSAGE_HANDSHAKE_INITIATION:
	case MESSAGE_HANDSHAKE_RESPONSE:
		receive_handshake(d, type, msg, len, rb, from, now);
		rb->next_handshake++;
		break;
	case MESSAGE_HANDSHAKE_COOKIE:
		receive_cookie_reply(d, msg, now);
		break;
	case MESSAGE_INVALID:
	default:
		d->stats.rx_invalid++;
		log_packet(LOG_LEVEL_DEBUG, "invalid datagram of %zu bytes dropped", len);
		break;
	}
}

/* The datagrams of one receive: one, or a run of seg-sized ones (UDP GRO). */
static size_t receive_next(const struct udp_msg *m, size_t off)
{
	size_t left = m->len - off;

	return m->seg && m->seg < left ? m->seg : left;
}

static bool receive_is_handshake(const uint8_t *msg, size_t len)
{
	enum message_type type = message_classify(msg, len);

	return type == MESSAGE_HANDSHAKE_INITIATION || type == MESSAGE_HANDSHAKE_RESPONSE;
}

/*
 * Weighs a read before any of it is processed (load.h): mac1 of every
 * initiation and response, kept in rb for the processing pass so that it
 * is computed once, and the number that passed decides whether the whole
 * read is handled under load.
 */
static void receive_weigh(struct device *d, struct receive_batch *rb, unsigned int n, bool full,
			  int family, uint64_t now)
{
	unsigned int i, k = 0, valid = 0;
	size_t off, len;

	for (i = 0; i < n; i++) {
		const struct udp_msg *m = &d->rx_msgs[i];

		if (m->truncated)
			continue;	/* lost: not processed, not weighed */
		for (off = 0; off < m->len; off += len) {
			uint8_t bit;

			len = receive_next(m, off);
			if (!receive_is_handshake(m->data + off, len))
				continue;
			bit = (uint8_t)(1u << (k % 8));
			if (cookie_checker_check_mac1(&d->local.cookie, m->data + off, len)) {
				rb->mac1_ok[k / 8] |= bit;
				valid++;
			} else {
				rb->mac1_ok[k / 8] &= (uint8_t)~bit;
			}
			k++;
		}
	}
	rb->next_handshake = 0;
	rb->under_load = load_note_read(&d->load, (unsigned int)family, valid, full, now);
}

/*
 * The receive buffers: with UDP GRO a receive may hold a run of datagrams,
 * and with an MTU larger than a slot one datagram may be larger than a
 * slot (a truncated datagram is lost), so either takes the large layout
 * (fewer, 64 KiB buffers); otherwise a batch of slot-sized buffers.  A
 * peer's MTU may be larger than ours (the kernel's WireGuard takes
 * datagrams of any size): once one larger than a slot was cut short, the
 * large layout stays, so the peer's retransmission gets through (anyone
 * can send such a datagram; without GRO the cost is 8 datagrams per system
 * call instead of 64, never a loss).
 */
static bool receive_large_layout(const struct device *d)
{
	return d->udp_gro || d->rx_large || d->mtu > PACKET_MAX_INNER;
}

/* A datagram cut short is lost: counted as failing the edge check. */
static void receive_note_truncated(struct device *d)
{
	d->stats.rx_invalid++;
	if (d->rx_large)
		return;
	d->rx_large = true;
	log_info("a datagram larger than %d bytes was cut short; receiving into %d-byte buffers from now on",
		 PACKET_BUF_SIZE, UDP_GRO_BUF_SIZE);
}

/* Whether the next read may overwrite the n bytes at p (gro_hold()). */
static bool receive_reused(const void *ctx, const uint8_t *p, size_t n)
{
	const struct device *d = ctx;
	uintptr_t at = (uintptr_t)p - (uintptr_t)d->rx_area;

	if (at >= sizeof(d->rx_area))	/* elsewhere (below the area, at wraps around) */
		return false;
	return at % RX_LARGE_STRIDE + n > d->rx_kept;
}

struct udp_msg *device_rx_buffers(struct device *d, unsigned int *n)
{
	bool large = receive_large_layout(d);
	unsigned int i, entries = large ? UDP_GRO_BATCH : PACKET_BATCH;
	/* the first offset again once no group is open: a group starts its turns there */
	unsigned int turn = !large ? 0 : d->gro.count ? d->rx_turn % RX_TURNS + 1 : 1;
	size_t size = large ? UDP_GRO_BUF_SIZE : PACKET_BUF_SIZE;
	size_t stride = large ? RX_LARGE_STRIDE : PACKET_BUF_SIZE;
	size_t off = turn ? (turn - 1) * (size_t)PACKET_BUF_SIZE : 0;

	/*
	 * The next read goes over the reads before it, which may have left a
	 * group open that it continues.  Large buffers, read at the next of
	 * RX_TURNS offsets while a group is open, keep what lies below it;
	 * anything else may be overwritten.  What may be is kept (copied
	 * out) until device_rx_flush(), or the group written now if that is
	 * much (gro_hold()).
	 */
	d->rx_kept = large && d->rx_turn && turn > 1 ? off : 0;
	if (!gro_hold(&d->gro, receive_reused, d))
		device_rx_flush(d);
	d->rx_turn = turn;

	for (i = 0; i < entries; i++) {
		d->rx_msgs[i].data = d->rx_area + (size_t)i * stride + off;
		d->rx_msgs[i].len = size;
		d->rx_msgs[i].ep = &d->rx_eps[i];
	}
	d->rx_entries = entries;
	*n = entries;
	return d->rx_msgs;
}

void device_rx_batch(struct device *d, int family, unsigned int got, uint64_t now)
{
	struct receive_batch *rb = &d->rx_batch;
	unsigned int i;
	size_t off, len;
	uint32_t run;

	/* A down interface has no sessions (doc/protocol.md §8): read and drop. */
	if (!d->up || got > d->rx_entries)
		return;
	for (i = 0; i < got; i++) {
		if (d->rx_msgs[i].truncated)
			receive_note_truncated(d);
	}
	receive_weigh(d, rb, got, got == d->rx_entries, family, now);
	run = crypt_seq(&d->crypt);
	for (i = 0; i < got; i++) {
		const struct udp_msg *m = &d->rx_msgs[i];

		/* lost and counted above: what fit is not the datagram that was sent */
		if (m->truncated)
			continue;
		for (off = 0; off < m->len; off += len) {
			len = receive_next(m, off);
			receive_one(d, m->data + off, len, rb, m, &run, now);
		}
	}
	receive_run_end(d, &run, now);
	/* an ACK is not held past its batch: nothing later in it superseded it */
	receive_ack_flush(d);
	device_deadline_commit(d);
}
