/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-source token buckets for handshake messages under load
 * (doc/architecture.md, "Under load"; WP §5.3 leaves the policy to the
 * implementation; the numbers are the Linux kernel's): each source may pass RATELIMITER_PACKETS_PER_SECOND
 * (20) messages per second with a burst of RATELIMITER_BURST (5).  A
 * source is an IPv4 address or an IPv6 /64 (one host usually owns a whole
 * /64, so keying by the full address would let it mint buckets).
 *
 * Storage is fixed and embedded (RATELIMITER_BUCKETS x RATELIMITER_WAYS
 * entries, about 130 KiB): a source hashes, with a per-instance random
 * BLAKE2s key, to one bucket of RATELIMITER_WAYS entries.  A new source
 * takes a free entry of its bucket, or one idle for RATELIMITER_IDLE_TIME
 * (the kernel's garbage-collection age); when there is none, its message
 * is refused.  Entries in use are never evicted, so a sender cycling
 * through more sources than the table holds gains no fresh bursts: at most
 * RATELIMITER_BUCKETS x RATELIMITER_WAYS sources are admitted per
 * RATELIMITER_IDLE_TIME, each with its burst, and a source that keeps
 * sending keeps its entry.
 *
 * Pure: time comes in as `now` (ns), nothing is allocated, nothing logged.
 * Not thread-safe (the daemon is one event loop).
 */
#ifndef WGD_DAEMON_CORE_RATELIMITER_H
#define WGD_DAEMON_CORE_RATELIMITER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/random.h"

#define RATELIMITER_PACKETS_PER_SECOND	20
#define RATELIMITER_BURST		5
#define RATELIMITER_BUCKETS		512	/* power of two */
#define RATELIMITER_WAYS		8
#define RATELIMITER_IDLE_TIME		1	/* seconds */

struct ratelimiter_entry {
	uint64_t last;		/* ns of the last refill */
	uint64_t tokens;	/* in ns of "credit"; one packet costs 1 s / 20 */
	uint8_t key[9];		/* version (4 or 6) then 4 or 8 address bytes */
	bool used;
};

struct ratelimiter {
	uint8_t hash_key[16];
	struct ratelimiter_entry entries[RATELIMITER_BUCKETS * RATELIMITER_WAYS];
};

/*
 * Empties the table and draws a new hash key from random (NULL:
 * crypto_random()); false, with the key zeroed, if no random bytes.  Only
 * entries that are not zero are written: on zeroed memory (calloc()) the
 * table's pages stay unbacked until a flood of handshakes uses them.
 */
bool ratelimiter_init_with(struct ratelimiter *rl, const struct core_random *random);
/* ratelimiter_init_with() from the system's source. */
bool ratelimiter_init(struct ratelimiter *rl);

/* Wipes the table (its entries in use) and the key. */
void ratelimiter_clear(struct ratelimiter *rl);

/*
 * Whether one more handshake message from this source may be processed at
 * `now`; consumes a token when it returns true.  ip_version is 4 (addr has
 * 4 bytes) or 6 (addr has 16 bytes, only the first 8 count); any other
 * version is refused.  `now` comes from a monotonic clock; should it go
 * backwards, a smaller now adds no tokens, and an entry last used after
 * it counts as idle (wg_age_reached(), doc/protocol.md §8).
 */
bool ratelimiter_allow(struct ratelimiter *rl, int ip_version, const uint8_t *addr, uint64_t now);

#endif
