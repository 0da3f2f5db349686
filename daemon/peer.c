// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/peer.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/log.h"

struct peer *peer_create(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct peer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	/* The slots' pages are touched only when packets are staged. */
	p->staged.slots = calloc(MAX_STAGED_PACKETS, sizeof(struct packet));
	if (!p->staged.slots) {
		free(p);
		return NULL;
	}
	p->dev = d;
	noise_remote_init(&p->remote, &d->local, public_key);
	timers_init(&p->timers);
	allowedips_owner_init(&p->allowedips, p);
	p->endpoint.addr.sa.sa_family = AF_UNSPEC;
	if (d->up)
		timers_on_interface_up(&p->timers, loop_now());

	/* append: get lists peers in creation order, as wireguard-go does */
	if (d->peers) {
		struct peer *last = d->peers->prev;

		last->next = p;
		p->prev = last;
		d->peers->prev = p;
	} else {
		p->prev = p;
		d->peers = p;
	}
	d->npeers++;
	device_timer_touch(d, timers_next_deadline(&p->timers));
	return p;
}

void peer_destroy(struct peer *p)
{
	struct device *d = p->dev;

	/* The list: d->peers->prev is the last peer; last->next is NULL. */
	if (d->peers == p) {
		d->peers = p->next;
		if (p->next)
			p->next->prev = p->prev;
	} else {
		p->prev->next = p->next;
		if (p->next)
			p->next->prev = p->prev;
		else
			d->peers->prev = p->prev;
	}
	d->npeers--;
	allowedips_remove_owner(&d->table, &p->allowedips);
	noise_remote_clear(&p->remote);
	timers_stop(&p->timers);
	peer_drop_staged(p);
	free(p->staged.slots);
	crypto_wipe(p, sizeof(*p));
	free(p);
}

struct peer *peer_lookup(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct peer *p;

	/* Public keys are not secret: memcmp is fine. */
	for (p = d->peers; p; p = p->next) {
		if (!memcmp(p->remote.public_key, public_key, NOISE_PUBLIC_KEY_LEN))
			return p;
	}
	return NULL;
}

/*
 * The oversize entry's buffer: headroom, the packet, and room for the most
 * padding device_padded_len() adds (to a multiple of 16) and the tag.
 */
static size_t peer_large_size(size_t len)
{
	size_t padded = (len + MESSAGE_PADDING_MULTIPLE - 1) & ~(size_t)(MESSAGE_PADDING_MULTIPLE - 1);

	return padded + MESSAGE_DATA_OVERHEAD;
}

/*
 * Drops the oldest entry.  Staged plaintext is user data: it is wiped
 * rather than left in a slot or in freed memory.
 */
static void peer_staged_drop_head(struct peer_staged *q)
{
	unsigned int i = q->head;
	uint8_t *buf = q->large[i] ? q->large[i] : q->slots[i].buf;

	crypto_wipe(buf, q->len[i] + MESSAGE_DATA_HEADER_LEN);
	free(q->large[i]);
	q->large[i] = NULL;
	q->head = (q->head + 1) % MAX_STAGED_PACKETS;
	q->count--;
}

void peer_stage(struct peer *p, const uint8_t *inner, size_t len)
{
	struct peer_staged *q = &p->staged;
	uint8_t *buf, *large = NULL;
	unsigned int slot;

	if (len > PACKET_MAX_INNER_LARGE) {
		p->dev->stats.tx_bad_packet++;
		return;
	}
	if (len > PACKET_MAX_INNER) {
		large = malloc(peer_large_size(len));
		if (!large) {
			p->dev->stats.tx_staged_dropped++;
			log_packet(LOG_LEVEL_ERROR, "out of memory staging a %zu-byte packet; dropped", len);
			return;
		}
	}
	if (q->count == MAX_STAGED_PACKETS) {
		/* full: the oldest goes (reference §8) */
		peer_staged_drop_head(q);
		p->dev->stats.tx_staged_dropped++;
	}
	slot = (q->head + q->count) % MAX_STAGED_PACKETS;
	q->large[slot] = large;
	buf = large ? large : q->slots[slot].buf;
	memcpy(buf + MESSAGE_DATA_HEADER_LEN, inner, len);
	q->len[slot] = (uint16_t)len;
	q->count++;
}

void peer_drop_staged(struct peer *p)
{
	struct peer_staged *q = &p->staged;

	while (q->count)
		peer_staged_drop_head(q);
	q->head = 0;
}

bool peer_send_buffer(struct peer *p, uint8_t *data, size_t len)
{
	struct udp_msg m = { .data = data, .len = len, .ep = &p->endpoint };

	if (p->endpoint.addr.sa.sa_family == AF_UNSPEC) {
		p->dev->stats.tx_no_endpoint++;
		return false;
	}
	if (udp_send(&p->dev->udp, &m, 1)) {
		p->dev->stats.tx_udp_dropped++;
		return false;
	}
	p->tx_bytes += len;
	return true;
}

void peer_on_data_sent(struct peer *p, uint64_t now)
{
	timers_on_authenticated_sent(&p->timers, now);
	timers_on_data_sent(&p->timers, now, device_jitter(p->dev));
	if (timers_rekey_on_send(&p->remote, now))
		peer_want_handshake(p, now);
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

/* Sends the n sealed staged packets in msgs (bytes in all); empties the batch. */
static void peer_send_batch(struct peer *p, struct udp_msg *msgs, unsigned int *n, size_t *bytes)
{
	if (!*n)
		return;
	p->dev->stats.tx_udp_dropped += udp_send(&p->dev->udp, msgs, *n);
	p->tx_bytes += *bytes;
	*n = 0;
	*bytes = 0;
}

/*
 * Seals the staged packets in order, in batches; an oversize one goes on
 * its own after the batch before it, so the peer receives them in order,
 * and its buffer (ciphertext by then) is freed once it is sent.
 */
void peer_send_staged(struct peer *p, uint64_t now)
{
	struct peer_staged *q = &p->staged;
	struct udp_msg msgs[PACKET_BATCH];
	unsigned int n = 0, sent = 0;
	size_t bytes = 0;

	if (!q->count || p->endpoint.addr.sa.sa_family == AF_UNSPEC)
		return;
	while (q->count) {
		unsigned int i = q->head;
		uint8_t *large = q->large[i];
		uint8_t *buf = large ? large : q->slots[i].buf;
		size_t len = device_padded_len(p->dev, q->len[i]);

		if (large)
			peer_send_batch(p, msgs, &n, &bytes);
		memset(buf + MESSAGE_DATA_HEADER_LEN + q->len[i], 0, len - q->len[i]);
		if (noise_seal(&p->remote, buf, len, now) != NOISE_OK)
			break;
		msgs[n].data = buf;
		msgs[n].len = len + MESSAGE_DATA_OVERHEAD;
		msgs[n].ep = &p->endpoint;
		bytes += msgs[n].len;
		n++;
		q->head = (q->head + 1) % MAX_STAGED_PACKETS;
		q->count--;
		sent++;
		if (large) {
			peer_send_batch(p, msgs, &n, &bytes);
			q->large[i] = NULL;
			free(large);
		} else if (n == PACKET_BATCH) {
			peer_send_batch(p, msgs, &n, &bytes);
		}
	}
	peer_send_batch(p, msgs, &n, &bytes);
	if (!q->count)
		q->head = 0;
	if (sent)
		peer_on_data_sent(p, now);
	/* A keypair that could not seal them all: a new session is needed. */
	if (q->count)
		peer_want_handshake(p, now);
}

void peer_send_initiation(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_INITIATION_LEN];
	uint8_t ts[NOISE_TIMESTAMP_LEN];
	enum noise_result res;

	noise_tai64n(ts, device_realtime_ns());
	res = noise_create_initiation(&p->remote, msg, ts, now);
	if (res != NOISE_OK) {
		log_packet(LOG_LEVEL_VERBOSE, "cannot create a handshake initiation: %s",
			   noise_result_str(res));
		return;
	}
	log_packet(LOG_LEVEL_DEBUG, "sending handshake initiation");
	/* Reported even if the send fails: the retransmission timer retries. */
	peer_send_buffer(p, msg, sizeof(msg));
	timers_on_authenticated_sent(&p->timers, now);
	timers_on_handshake_initiated(&p->timers, now, device_jitter(p->dev));
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

void peer_want_handshake(struct peer *p, uint64_t now)
{
	if (!p->dev->up)
		return;
	if (timers_want_initiation(&p->timers, now))
		peer_send_initiation(p, now);
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

void peer_send_keepalive(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_DATA_OVERHEAD];

	if (p->staged.count) {
		peer_send_staged(p, now);
		return;
	}
	if (noise_seal(&p->remote, msg, 0, now) != NOISE_OK) {
		peer_want_handshake(p, now);
		return;
	}
	peer_send_buffer(p, msg, sizeof(msg));
	timers_on_authenticated_sent(&p->timers, now);
	/*
	 * A keepalive is transport data too: the rekey-on-send rules (WP §6.2)
	 * apply to it, so a peer that only keeps a session alive still rekeys
	 * in time.
	 */
	if (timers_rekey_on_send(&p->remote, now))
		peer_want_handshake(p, now);
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

void peer_set_endpoint_from(struct peer *p, const struct endpoint *from)
{
	struct endpoint *ep = &p->endpoint;

	if (endpoint_addr_equal(ep, from) && ep->has_src == from->has_src &&
	    ep->src_ifindex == from->src_ifindex &&
	    !memcmp(&ep->src, &from->src, sizeof(ep->src)))
		return;
	*ep = *from;
}

void peer_interface_up(struct peer *p, uint64_t now)
{
	timers_on_interface_up(&p->timers, now);
	peer_send_staged(p, now);
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

void peer_interface_down(struct peer *p)
{
	timers_stop(&p->timers);
	peer_drop_staged(p);
	noise_remote_clear_keys(&p->remote);
}

/*
 * A session from before a suspend is one the peer may have dropped long
 * ago (Reject-After-Time passed on its clock) and whose keys outlived the
 * promised ZERO_KEYS_TIMEOUT in memory, or on disk through hibernation
 * (WP §6.3): it goes, and the next packet handshakes at once, since the
 * initiation rate limit goes with it (timers_stop).
 */
void peer_system_resumed(struct peer *p, uint64_t now)
{
	timers_stop(&p->timers);
	noise_remote_clear_keys(&p->remote);
	if (p->dev->up)
		peer_interface_up(p, now);
}

uint64_t peer_run_timers(struct peer *p, uint64_t now)
{
	uint64_t next;
	unsigned int act;

	if (timers_next_deadline(&p->timers) > now)
		return timers_next_deadline(&p->timers);
	act = timers_expire(&p->timers, now, &next);
	if (act & TIMERS_GIVE_UP) {
		log_packet(LOG_LEVEL_VERBOSE, "handshake did not complete after %u attempts, giving up",
			   MAX_TIMER_HANDSHAKES + 2);
		peer_drop_staged(p);
	}
	if (act & TIMERS_ZERO_KEYS) {
		log_packet(LOG_LEVEL_DEBUG, "zeroing keys of an idle session");
		noise_remote_clear_keys(&p->remote);
	}
	if (act & TIMERS_CLEAR_SRC)
		endpoint_clear_src(&p->endpoint);
	if (act & TIMERS_SEND_INITIATION)
		peer_send_initiation(p, now);
	if (act & TIMERS_SEND_KEEPALIVE)
		peer_send_keepalive(p, now);
	return timers_next_deadline(&p->timers);
}
