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
#include "daemon/core/noise.h"
#include "daemon/core/timers.h"
#include "daemon/device.h"
#include "daemon/udp.h"

/*
 * Packets waiting for a session (reference §8: at most MAX_STAGED_PACKETS,
 * the oldest dropped).  The slots are allocated with the peer, so staging
 * a packet that fits one never allocates; a slot keeps the data-message
 * headroom so the staged packet is sealed where it lies.  A packet larger
 * than a slot (up to PACKET_MAX_INNER_LARGE) gets a buffer of the same
 * layout of its own, allocated when it is staged and freed when it is sent
 * or dropped: staging is off the hot path, and a queue of 64 KiB slots
 * would cost 8 MiB per peer.
 */
struct peer_staged {
	struct packet *slots;		/* MAX_STAGED_PACKETS */
	uint8_t *large[MAX_STAGED_PACKETS];	/* set: the entry lives here */
	uint16_t len[MAX_STAGED_PACKETS];
	unsigned int head;
	unsigned int count;
};

struct peer {
	struct peer *prev, *next;
	struct device *dev;
	struct noise_remote remote;
	struct timers timers;
	struct allowedips_owner allowedips;
	struct endpoint endpoint;	/* AF_UNSPEC until known */
	uint64_t rx_bytes, tx_bytes;
	uint64_t last_handshake_ns;	/* unix ns; 0 = never */
	struct peer_staged staged;
};

/* Creates a peer and links it into the device; NULL if out of memory. */
struct peer *peer_create(struct device *d, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN]);
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

/* Data left on the current keypair: the send timers and rekey rules (WP §6.2). */
void peer_on_data_sent(struct peer *p, uint64_t now);

/* Sends one datagram to the peer's endpoint, counting tx bytes; false if dropped. */
bool peer_send_buffer(struct peer *p, uint8_t *data, size_t len);

#endif
