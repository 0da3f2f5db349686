/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer: the protocol state of the core (noise_remote, timers, its
 * prefixes in the allowed-IPs table) plus what the data path keeps for it
 * (the endpoint, counters, the staging queue).  State only: what is sent
 * for a peer leaves through send.h, and the timers' actions run in
 * expiry.h.
 */
#ifndef WGD_PEER_H
#define WGD_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/allowedips.h"
#include "daemon/core/keyhash.h"
#include "daemon/core/noise.h"
#include "daemon/core/timers.h"
#include "daemon/datapath/endpoint.h"
#include "daemon/datapath/state.h"

/*
 * Packets waiting for a session (doc/architecture.md, Buffers: at most
 * MAX_STAGED_PACKETS per peer, the oldest dropped).  Each staged packet has
 * a buffer of its own, sized for it and laid out as a data message (header
 * room, the packet, room for the padding and the tag), so it is sealed
 * where it lies; it is allocated when the packet is staged and freed when
 * it is sent or dropped.  An idle peer therefore costs no staging memory,
 * and a jumbo packet costs only its own size.  Staging is off the fast
 * path: a packet that can be sealed at once is never copied.
 */
struct peer_staged_packet {
	struct peer_staged_packet *next;
	size_t len;			/* of the inner packet; buf follows it aligned */
	uint8_t buf[];			/* MESSAGE_DATA_HEADER_LEN + len + padding + tag */
};

struct peer_staged {
	struct peer_staged_packet *head;	/* oldest */
	struct peer_staged_packet *tail;	/* newest */
	unsigned int count;		/* at most MAX_STAGED_PACKETS */
};

struct peer {
	struct peer *prev, *next;
	struct device *dev;
	struct noise_remote remote;
	struct timers timers;
	struct allowedips_owner allowedips;
	struct keyhash_entry key_entry;	/* in dev->peer_keys */
	struct endpoint endpoint;	/* AF_UNSPEC until known */
	uint64_t rx_bytes, tx_bytes;
	uint64_t last_handshake_ns;	/* unix ns; 0 = never */
	struct peer_staged staged;
};

/* Creates a peer and links it into the device; NULL if out of memory. */
struct peer *peer_create(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN], uint64_t now);
/* Unlinks, removes its prefixes, wipes every key, frees. */
void peer_destroy(struct peer *p);
struct peer *peer_lookup(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN]);

static inline struct peer *peer_of_remote(struct noise_remote *r)
{
	return container_of(r, struct peer, remote);
}

/*
 * Keeps a copy of an inner packet (at most PACKET_MAX_INNER_LARGE bytes)
 * until a session exists; one that cannot be kept is counted as dropped.
 */
void peer_stage(struct peer *p, const uint8_t *inner, size_t len);
void peer_drop_staged(struct peer *p);
/* Takes the oldest staged packet off the queue; the caller frees it. */
struct peer_staged_packet *peer_staged_pop(struct peer_staged *q);

/*
 * Our private key changed (after noise_remote_update_local()): the
 * current keypairs stop sending and the initiation rate limit is
 * forgotten, so that the next packet (send_staged() once the whole change
 * is applied) handshakes at once with the new key.  (A new preshared key
 * is only stored: the session runs to its rekey, doc/protocol.md §7.)
 */
void peer_keys_changed(struct peer *p);

/* Learns a new endpoint from an authenticated packet (roaming, WP §2.1). */
void peer_set_endpoint_from(struct peer *p, const struct endpoint *from);

/* A new persistent keepalive interval (s, 0 = off; WP §6.5). */
void peer_set_persistent_keepalive(struct peer *p, uint16_t interval, uint64_t now);

/* The interface went up (timers may run) or down (sessions and staged packets go). */
void peer_link_up(struct peer *p, uint64_t now);
void peer_link_down(struct peer *p);
/*
 * The system slept: the handshake and every keypair are wiped and the
 * timers stopped (the caller restarts them if the link is up); staged
 * packets are kept.
 */
void peer_wipe_sessions(struct peer *p);

/*
 * What happened to the peer, one call per kind of packet (the rows of
 * "What the caller reports" in daemon/core/timers.h): each reports the
 * timer events and updates the device's deadline, so that no call site
 * can forget either.  The data events return whether a rekey rule fired
 * (WP §6.2): the caller then asks for a handshake.
 */
void peer_on_initiation_sent(struct peer *p, uint64_t now);
void peer_on_response_sent(struct peer *p, uint64_t now);
void peer_on_initiation_consumed(struct peer *p, uint64_t now);
/* Also records the handshake's wall-clock time. */
void peer_on_response_consumed(struct peer *p, uint64_t now);
/* data: not a keepalive; sent: the host took at least one datagram. */
bool peer_on_data_sent(struct peer *p, uint64_t now, bool data, bool sent);
/*
 * A data message opened: first, if it confirmed a session (the responder's
 * side), peer_on_session_confirmed() (which records the handshake's
 * wall-clock time; the staged packets go out after it), then
 * peer_on_data_opened() (data: not a keepalive).
 */
void peer_on_session_confirmed(struct peer *p, uint64_t now);
bool peer_on_data_opened(struct peer *p, uint64_t now, bool data);
/* The peer's timers changed otherwise: pull the device's deadline in. */
void peer_deadline(struct peer *p);

#endif
