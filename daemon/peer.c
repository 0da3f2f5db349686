// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/peer.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/log.h"

struct peer *peer_create(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN], uint64_t now)
{
	struct peer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->dev = d;
	noise_remote_init(&p->remote, &d->local, public_key);
	if (keyhash_insert(&d->peer_keys, &p->key_entry, p->remote.public_key) < 0) {
		noise_remote_clear(&p->remote);
		crypto_wipe(p, sizeof(*p));
		free(p);
		return NULL;
	}
	timers_init(&p->timers);
	allowedips_owner_init(&p->allowedips, p);
	p->endpoint.addr.sa.sa_family = AF_UNSPEC;
	if (d->up)
		timers_on_interface_up(&p->timers, now);

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
	/* Short index chains however many peers (fails only out of memory). */
	if (!noise_local_reserve(&d->local, d->npeers))
		log_error("out of memory growing the index table; lookups get slower");
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
	keyhash_remove(&d->peer_keys, &p->key_entry);
	allowedips_remove_owner(&d->table, &p->allowedips);
	noise_remote_clear(&p->remote);
	timers_stop(&p->timers);
	peer_drop_staged(p);
	crypto_wipe(p, sizeof(*p));
	free(p);
}

struct peer *peer_lookup(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct keyhash_entry *e = keyhash_lookup(&d->peer_keys, public_key);

	return e ? container_of(e, struct peer, key_entry) : NULL;
}

/*
 * A staged packet's buffer: headroom, the packet, and room for the most
 * padding device_padded_len() adds (to a multiple of 16) and the tag.
 */
static size_t peer_staged_buf_size(size_t len)
{
	size_t padded = (len + MESSAGE_PADDING_MULTIPLE - 1) & ~(size_t)(MESSAGE_PADDING_MULTIPLE - 1);

	return padded + MESSAGE_DATA_OVERHEAD;
}

/* Takes the oldest entry off the queue; the caller frees it. */
static struct peer_staged_packet *peer_staged_pop(struct peer_staged *q)
{
	struct peer_staged_packet *sp = q->head;

	q->head = sp->next;
	if (!q->head)
		q->tail = NULL;
	q->count--;
	return sp;
}

/*
 * Drops the oldest entry.  Staged plaintext is user data: it is wiped
 * rather than left in freed memory.
 */
static void peer_staged_drop_head(struct peer_staged *q)
{
	struct peer_staged_packet *sp = peer_staged_pop(q);

	crypto_wipe(sp->buf, MESSAGE_DATA_HEADER_LEN + sp->len);
	free(sp);
}

void peer_stage(struct peer *p, const uint8_t *inner, size_t len)
{
	struct peer_staged *q = &p->staged;
	struct peer_staged_packet *sp;

	if (len > PACKET_MAX_INNER_LARGE) {
		p->dev->stats.tx_bad_packet++;
		return;
	}
	sp = malloc(sizeof(*sp) + peer_staged_buf_size(len));
	if (!sp) {
		p->dev->stats.tx_staged_dropped++;
		log_packet(LOG_LEVEL_ERROR, "out of memory staging a %zu-byte packet; dropped", len);
		return;
	}
	if (q->count == MAX_STAGED_PACKETS) {
		/* full: the oldest goes (the bound of doc/architecture.md, Buffers) */
		peer_staged_drop_head(q);
		p->dev->stats.tx_staged_dropped++;
	}
	sp->next = NULL;
	sp->len = len;
	memcpy(sp->buf + MESSAGE_DATA_HEADER_LEN, inner, len);
	if (q->tail)
		q->tail->next = sp;
	else
		q->head = sp;
	q->tail = sp;
	q->count++;
}

void peer_drop_staged(struct peer *p)
{
	struct peer_staged *q = &p->staged;

	while (q->count)
		peer_staged_drop_head(q);
}

bool peer_send_buffer(struct peer *p, uint8_t *data, size_t len)
{
	struct udp_msg m = { .data = data, .len = len, .ep = &p->endpoint };

	if (p->endpoint.addr.sa.sa_family == AF_UNSPEC) {
		p->dev->stats.tx_no_endpoint++;
		return false;
	}
	if (p->dev->io.send(p->dev->io.ctx, &m, 1)) {
		p->dev->stats.tx_udp_dropped++;
		return false;
	}
	p->tx_bytes += len;
	return true;
}

void peer_on_data_sent(struct peer *p, uint64_t now, bool sent)
{
	timers_on_authenticated_sent(&p->timers, now);
	if (sent)
		timers_on_data_sent(&p->timers, now, device_jitter(p->dev));
	if (timers_rekey_on_send(&p->remote, now))
		peer_want_handshake(p, now);
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

/*
 * Sends the n sealed staged packets of the batch, then frees their buffers
 * (ciphertext by then: no wipe needed) and empties the batch; returns how
 * many the kernel took (their bytes are counted as sent).
 */
static unsigned int peer_send_batch(struct peer *p, struct udp_msg *msgs, struct peer_staged_packet **bufs,
				    unsigned int *n)
{
	unsigned int i, sent = 0;

	if (!*n)
		return 0;
	p->dev->stats.tx_udp_dropped += p->dev->io.send(p->dev->io.ctx, msgs, *n);
	for (i = 0; i < *n; i++) {
		if (msgs[i].sent) {
			p->tx_bytes += msgs[i].len;
			sent++;
		}
		free(bufs[i]);
	}
	*n = 0;
	return sent;
}

/*
 * Seals the staged packets in order, in batches; an oversize one goes on
 * its own after the batch before it, so the peer receives them in order.
 */
void peer_send_staged(struct peer *p, uint64_t now)
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
			sent += peer_send_batch(p, msgs, bufs, &n);
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
			sent += peer_send_batch(p, msgs, bufs, &n);
	}
	sent += peer_send_batch(p, msgs, bufs, &n);
	if (sealed)
		peer_on_data_sent(p, now, sent > 0);
	/* A keypair that could not seal them all: a new session is needed. */
	if (q->count)
		peer_want_handshake(p, now);
}

void peer_send_initiation(struct peer *p, uint64_t now)
{
	uint8_t msg[MESSAGE_INITIATION_LEN];
	uint8_t ts[NOISE_TIMESTAMP_LEN];
	enum noise_result res;

	noise_tai64n(ts, device_wall_ns(p->dev));
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

void peer_keys_changed(struct peer *p)
{
	noise_remote_expire_current(&p->remote);
	timers_on_keys_changed(&p->timers);
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
