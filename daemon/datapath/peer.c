// SPDX-License-Identifier: GPL-2.0-only
/*
 * Peers: their state, the staging queue, and the events the send and
 * receive paths report, told to the timers with the deadline updated in
 * the same call (so that no call site can forget it).  Nothing here sends.
 */
#include "daemon/datapath/peer.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/base/log.h"

struct peer *peer_create(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN], uint64_t now)
{
	struct peer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->dev = d;
	noise_remote_init(&p->remote, &d->local, public_key);
	if (keyhash_insert(&d->peer_keys, &p->key_entry, p->remote.public_key) < 0) {
		noise_remote_clear_keys(&p->remote);
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
	peer_deadline(p);
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
	/* noise_remote_clear()'s wipe of every key is the whole peer's below */
	noise_remote_clear_keys(&p->remote);
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

struct peer_staged_packet *peer_staged_pop(struct peer_staged *q)
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

void peer_keys_changed(struct peer *p)
{
	noise_remote_expire_current(&p->remote);
	timers_on_keys_changed(&p->timers);
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

void peer_set_persistent_keepalive(struct peer *p, uint16_t interval, uint64_t now)
{
	timers_on_persistent_keepalive_set(&p->timers, interval, now);
	peer_deadline(p);
}

void peer_link_up(struct peer *p, uint64_t now)
{
	timers_on_interface_up(&p->timers, now);
	peer_deadline(p);
}

void peer_link_down(struct peer *p)
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
 * initiation rate limit goes with it (timers_stop).  Staged packets stay.
 */
void peer_wipe_sessions(struct peer *p)
{
	timers_stop(&p->timers);
	noise_remote_clear_keys(&p->remote);
}

/* ---- what happened, told to the timers (timers.h, "What the caller reports") ---- */

void peer_deadline(struct peer *p)
{
	device_timer_touch(p->dev, timers_next_deadline(&p->timers));
}

void peer_on_initiation_sent(struct peer *p, uint64_t now)
{
	timers_on_authenticated_sent(&p->timers, now);
	timers_on_handshake_initiated(&p->timers, now, device_jitter(p->dev));
	peer_deadline(p);
}

void peer_on_response_sent(struct peer *p, uint64_t now)
{
	timers_on_authenticated_sent(&p->timers, now);
	timers_on_handshake_response_sent(&p->timers, now);
	timers_on_session_derived(&p->timers, now);
	peer_deadline(p);
}

void peer_on_initiation_consumed(struct peer *p, uint64_t now)
{
	timers_on_authenticated_received(&p->timers, now);
	peer_deadline(p);
}

void peer_on_response_consumed(struct peer *p, uint64_t now)
{
	timers_on_authenticated_received(&p->timers, now);
	timers_on_handshake_complete(&p->timers, now);
	timers_on_session_derived(&p->timers, now);
	p->last_handshake_ns = p->dev->io.wall_ns(p->dev->io.ctx);
	peer_deadline(p);
}

bool peer_on_data_sent(struct peer *p, uint64_t now, bool data, bool sent)
{
	timers_on_authenticated_sent(&p->timers, now);
	if (data && sent)
		timers_on_data_sent(&p->timers, now, device_jitter(p->dev));
	peer_deadline(p);
	/*
	 * A keepalive is transport data too: the rekey-on-send rules (WP §6.2)
	 * apply to it, so a peer that only keeps a session alive still rekeys
	 * in time.
	 */
	return timers_rekey_on_send(&p->remote, now);
}

void peer_on_session_confirmed(struct peer *p, uint64_t now)
{
	timers_on_handshake_complete(&p->timers, now);
	p->last_handshake_ns = p->dev->io.wall_ns(p->dev->io.ctx);
	peer_deadline(p);
}

bool peer_on_data_opened(struct peer *p, uint64_t now, bool data)
{
	timers_on_authenticated_received(&p->timers, now);
	if (data)
		timers_on_data_received(&p->timers, now);
	peer_deadline(p);
	return timers_rekey_on_receive(&p->timers, &p->remote, now);
}
