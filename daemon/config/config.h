/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one configuration data model of the daemon.
 *
 * The control-socket parser fills a struct config_device from a `set=1`
 * message; the device applies it.  The device fills one for `get=1`; the
 * printer turns it into text.  No module keeps its own copy of these fields
 * in another shape, so parser, printer and device cannot drift apart.
 *
 * Meaning of a parsed `set` (the shell applies it in this order):
 *   1. CONFIG_DEVICE_HAS_PRIVATE_KEY: set the private key; an all-zero key
 *      means "remove the private key".  Setting the same key again is a no-op.
 *   2. CONFIG_DEVICE_HAS_LISTEN_PORT / HAS_FWMARK: rebind / re-mark only if the
 *      value differs from the current one (wg syncconf re-sends them).
 *   3. CONFIG_DEVICE_REPLACE_PEERS: remove every existing peer first.
 *   4. Each peer in array order; a public key may come more than once (as
 *      in the kernel and wireguard-go: `peer X remove peer X allowed-ips ..`
 *      resets a peer), each entry applied to the peer as it is by then:
 *      - CONFIG_PEER_REMOVE: remove the peer if it exists; every other field
 *        of that peer is ignored (but was still validated).
 *      - CONFIG_PEER_UPDATE_ONLY: do nothing if the peer does not exist.
 *      - otherwise create it if missing, then: HAS_PRESHARED_KEY (all zero =
 *        no preshared key), HAS_ENDPOINT, HAS_KEEPALIVE (0 = off),
 *        REPLACE_ALLOWEDIPS (drop all of the peer's prefixes), then the
 *        allowed IPs in array order: add (a prefix owned by another peer moves
 *        to this one) or, with .remove, delete the prefix if this peer owns it.
 *      A peer whose public key is the device's own public key is ignored.
 *
 * A parsed message is complete and valid before anything is applied: a
 * malformed message never reaches the device.
 *
 * For `get`, the device sets HAS_PRIVATE_KEY when it has one, listen_port to
 * the port actually bound (0 if none), fwmark, and per peer HAS_ENDPOINT when
 * the endpoint is known, the preshared key (zeros if none), keepalive and the
 * get-only counters.  allowed IPs of a snapshot never have .remove set.
 */
#ifndef WGD_CONFIG_H
#define WGD_CONFIG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "crypto/util.h"

#define CONFIG_KEY_LEN 32

enum config_device_flags {
	CONFIG_DEVICE_HAS_PRIVATE_KEY	= 1u << 0,
	CONFIG_DEVICE_HAS_LISTEN_PORT	= 1u << 1,
	CONFIG_DEVICE_HAS_FWMARK	= 1u << 2,
	CONFIG_DEVICE_REPLACE_PEERS	= 1u << 3,
};

enum config_peer_flags {
	CONFIG_PEER_REMOVE		= 1u << 0,
	CONFIG_PEER_UPDATE_ONLY		= 1u << 1,
	CONFIG_PEER_HAS_PRESHARED_KEY	= 1u << 2,
	CONFIG_PEER_HAS_ENDPOINT	= 1u << 3,
	CONFIG_PEER_HAS_KEEPALIVE	= 1u << 4,
	CONFIG_PEER_REPLACE_ALLOWEDIPS	= 1u << 5,
};

/* One prefix.  addr is in network byte order; an IPv4 prefix uses addr[0..3].
 * Bits beyond cidr are always zero (the parser masks them). */
struct config_allowedip {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t cidr;		/* 0..32 or 0..128 */
	bool remove;		/* set only: `allowed_ip=-prefix` */
	uint8_t addr[16];
};

/* sin_family / sin6_family tells which member is valid.  An IPv6 link-local
 * endpoint carries its scope in sin6_scope_id. */
union config_endpoint {
	struct sockaddr addr;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

struct config_peer {
	uint8_t public_key[CONFIG_KEY_LEN];
	uint32_t flags;			/* enum config_peer_flags */
	uint8_t preshared_key[CONFIG_KEY_LEN];	/* secret */
	union config_endpoint endpoint;
	uint16_t persistent_keepalive;	/* seconds, 0 = off */

	struct config_allowedip *allowedips;
	size_t allowedips_len;
	size_t allowedips_cap;

	/* get only */
	int64_t last_handshake_sec;	/* UNIX epoch; 0 = never */
	int64_t last_handshake_nsec;	/* 0..999999999 */
	uint64_t rx_bytes;
	uint64_t tx_bytes;
};

struct config_device {
	uint32_t flags;			/* enum config_device_flags */
	uint8_t private_key[CONFIG_KEY_LEN];	/* secret */
	uint16_t listen_port;
	uint32_t fwmark;

	struct config_peer *peers;
	size_t peers_len;
	size_t peers_cap;
};

WGD_OUT_OF_LINE void config_device_init(struct config_device *dev);
/* Wipes every key, frees every array and leaves dev as after init. */
void config_device_clear(struct config_device *dev);

/*
 * Appends a zeroed peer with the given public key (all zeros if NULL);
 * NULL if out of memory.
 * The pointer (and every earlier one) is valid until the next add: growing
 * the array moves it (the old copy is wiped, it holds preshared keys).
 */
struct config_peer *config_device_add_peer(struct config_device *dev,
					   const uint8_t public_key[CONFIG_KEY_LEN]);

/* The first peer with this public key, or NULL.  Linear: for the tools and
 * the bring-up (a reload, a wgctl syncconf), not the data path. */
struct config_peer *config_device_find_peer(const struct config_device *dev,
					    const uint8_t public_key[CONFIG_KEY_LEN]);

/*
 * Appends a copy of *src, every field (the get-only counters too) and its
 * allowed IPs in their order; src must not be a peer of dev (adding may
 * move dev's array).  The copy, or NULL if out of memory (dev unchanged).
 */
struct config_peer *config_device_add_peer_copy(struct config_device *dev,
						const struct config_peer *src);

/* dst (as after config_device_init()) becomes a copy of src: every field, every
 * peer as config_device_add_peer_copy() copies it.  0, or -ENOMEM (dst is
 * then cleared). */
int config_device_copy(struct config_device *dst, const struct config_device *src);

/*
 * a and b describe the same device, as a get reply tells it (the meaning
 * of a snapshot, see "For get" above): the same private key or none (no
 * flag, or all zero), listen port and fwmark; the same peers in the same
 * order, each with the same public key, preshared key or none, endpoint or
 * none (address, port and IPv6 scope), keepalive, counters and allowed IPs.
 * The flags that only a set message has (HAS_LISTEN_PORT, HAS_FWMARK,
 * HAS_KEEPALIVE, REPLACE_*, REMOVE, UPDATE_ONLY) are not compared.  Keys
 * are compared in constant time.
 */
bool config_device_equal(const struct config_device *a, const struct config_device *b);

/* The peer has an endpoint to send to: CONFIG_PEER_HAS_ENDPOINT, and an
 * IPv4 or IPv6 address (what a get reply prints, what wg shows). */
bool config_peer_has_endpoint(const struct config_peer *peer);

/* The same prefixes (family, length, address, .remove) in the same order. */
bool config_peer_allowedips_equal(const struct config_peer *a, const struct config_peer *b);

/* Appends a copy of *aip; 0 or -ENOMEM. */
int config_peer_add_allowedip(struct config_peer *peer,
			      const struct config_allowedip *aip);

/* Zeros the bits of aip->addr beyond aip->cidr. */
void config_allowedip_mask(struct config_allowedip *aip);

#endif
