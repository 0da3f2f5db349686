/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Peers by static public key: a hash table with the entries embedded in
 * their owners, so that a `set` line naming a peer and an initiation from
 * an unknown key cost one bucket, not a walk over every peer.
 *
 * The bucket of a key is a keyed BLAKE2s (RFC 7693 §2.5, keyed mode) of
 * the key, truncated to 64 bits, under a random secret the caller draws
 * when it creates the table.  The key an initiation names is chosen by
 * whoever sent it (WP §5.4.2: any host that knows our public key can make
 * a valid mac1), so with an unkeyed or guessable hash a sender could aim
 * every key at one bucket; without the secret it cannot.  Keys in a chain
 * are compared in constant time.
 *
 * Invariants: a key is linked at most once (the caller looks it up before
 * inserting); an entry's key bytes stay unchanged while it is linked; the
 * number of buckets is a power of two, at least KEYHASH_MIN_BUCKETS once
 * anything was inserted, and doubles when the entries outnumber it, so a
 * chain is short on average whatever the number of peers.  Insert may
 * allocate (the control path only); lookup and remove never do.  Not
 * thread-safe: one event loop owns it.
 */
#ifndef WGD_DAEMON_CORE_KEYHASH_H
#define WGD_DAEMON_CORE_KEYHASH_H

#include <stddef.h>
#include <stdint.h>

#define KEYHASH_KEY_LEN 32		/* a Curve25519 public key */
#define KEYHASH_SECRET_LEN 16
#define KEYHASH_MIN_BUCKETS 16

/* Embedded in the owner; container_of() gets the owner back. */
struct keyhash_entry {
	struct keyhash_entry *next;	/* bucket chain */
	const uint8_t *key;		/* the owner's KEYHASH_KEY_LEN bytes */
	uint64_t hash;			/* keyhash_hash() of key */
};

struct keyhash {
	struct keyhash_entry **buckets;	/* NULL until the first insert */
	size_t nbuckets;
	size_t count;
	uint8_t secret[KEYHASH_SECRET_LEN];
};

/* An empty table hashing under secret (random bytes, e.g. crypto_random()). */
void keyhash_init(struct keyhash *t, const uint8_t secret[KEYHASH_SECRET_LEN]);
/* Frees the buckets and wipes the secret; the entries are the caller's. */
void keyhash_clear(struct keyhash *t);

/*
 * Links e under key (KEYHASH_KEY_LEN bytes that must outlive the link; not
 * already in t).  0, or -ENOMEM if the first bucket array cannot be had (a
 * failed growth only leaves the chains longer).
 */
int keyhash_insert(struct keyhash *t, struct keyhash_entry *e, const uint8_t *key);
/* Unlinks e, which must be linked in t. */
void keyhash_remove(struct keyhash *t, struct keyhash_entry *e);
/* The entry whose key equals key, or NULL. */
struct keyhash_entry *keyhash_lookup(const struct keyhash *t, const uint8_t *key);

/* The keyed hash that picks the bucket (its low bits). */
uint64_t keyhash_hash(const struct keyhash *t, const uint8_t *key);

#endif
