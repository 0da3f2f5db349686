/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer: the protocol state of the core (noise_remote, timers, its
 * prefixes in the allowed-IPs table) plus what the shell keeps for it (the
 * endpoint, counters, the staging queue).  The peer performs the actions
 * the core's outcomes call for: send an initiation, a keepalive, the
 * staged packets.
 */
#ifndef WGD_PEER_H
#define WGD_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/allowedips.h"
#include "daemon/core/keyhash.h"
#include "daemon/core/noise.h"
#include "daemon/core/timers.h"
#include "daemon/device.h"
#include "daemon/endpoint.h"

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
/* Seals and sends the staged packets if the current keypair can send. */
void peer_send_staged(struct peer *p, uint64_t now);

/*
 * Our private key or the peer's preshared key changed (after
 * noise_remote_update_local() for the former): the current keypairs stop
 * sending and the initiation rate limit is forgotten, so that the next
 * packet (peer_send_staged() once the whole change is applied) handshakes
 * at once with the new keys.
 */
void peer_keys_changed(struct peer *p);

/* The send path needs a session: initiate unless one is in flight. */
void peer_want_handshake(struct peer *p, uint64_t now);
/* Creates and sends an initiation now (after the rate limit allowed it). */
void peer_send_initiation(struct peer *p, uint64_t now);
/* An empty data message, or staged packets if there are any. */
void peer_send_keepalive(struct peer *p, uint64_t now);

/* Learns a new endpoint from an authenticated packet (roaming, WP §2.1). */
void peer_set_endpoint_from(struct peer *p, const struct endpoint *from);

/* The interface went up/down (timers start/stop; down wipes sessions). */
void peer_interface_up(struct peer *p, uint64_t now);
void peer_interface_down(struct peer *p);
/*
 * The system slept: the handshake and every keypair are wiped and the
 * timers restarted, as by a down/up, but staged packets are kept (and a
 * handshake started for them).
 */
void peer_system_resumed(struct peer *p, uint64_t now);

/* Runs the timers due at now; returns the peer's next deadline. */
uint64_t peer_run_timers(struct peer *p, uint64_t now);

/*
 * Data left on the current keypair: the send timers and rekey rules (WP
 * §6.2); sent: the kernel took at least one of the datagrams (only then
 * does the data-sent timer start waiting for an answer).
 */
void peer_on_data_sent(struct peer *p, uint64_t now, bool sent);

/* Sends one datagram to the peer's endpoint, counting tx bytes; false if dropped. */
bool peer_send_buffer(struct peer *p, uint8_t *data, size_t len);

#endif
