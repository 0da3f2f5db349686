// SPDX-License-Identifier: GPL-2.0-only
/*
 * Token buckets in a fixed set-associative table (see ratelimiter.h).
 * Tokens are counted in nanoseconds: a bucket gains one token per
 * nanosecond elapsed, a packet costs RATELIMITER_COST of them, and a bucket
 * holds at most RATELIMITER_MAX_TOKENS (the burst), so 20 packets/s steady.
 */
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/bytes.h"
#include "crypto/util.h"
#include "daemon/core/messages.h"
#include "daemon/core/ratelimiter.h"

#define RATELIMITER_COST	(WG_NSEC_PER_SEC / RATELIMITER_PACKETS_PER_SECOND)
#define RATELIMITER_MAX_TOKENS	(RATELIMITER_COST * RATELIMITER_BURST)
#define RATELIMITER_KEY_LEN	9

/*
 * The table is 128 KiB that only a flood of handshakes fills: an entry is
 * written only if it holds something, so a table in fresh zeroed memory
 * (calloc(), whose large blocks are pages the kernel has not yet backed)
 * stays out of the daemon's resident memory until it is used; reading a
 * page that was never written does not back it.
 */
static void empty_entries(struct ratelimiter *rl)
{
	size_t i;

	for (i = 0; i < sizeof(rl->entries) / sizeof(rl->entries[0]); i++)
		if (!crypto_is_zero(&rl->entries[i], sizeof(rl->entries[i])))
			crypto_wipe(&rl->entries[i], sizeof(rl->entries[i]));
}

bool ratelimiter_init_with(struct ratelimiter *rl, const struct core_random *random)
{
	empty_entries(rl);
	return core_random_fill(random, rl->hash_key, sizeof(rl->hash_key));
}

bool ratelimiter_init(struct ratelimiter *rl)
{
	return ratelimiter_init_with(rl, NULL);
}

void ratelimiter_clear(struct ratelimiter *rl)
{
	empty_entries(rl);
	crypto_wipe(rl->hash_key, sizeof(rl->hash_key));
}

/* IPv4: 4 address bytes; IPv6: the /64 only. Unused tail bytes stay zero. */
static bool make_key(uint8_t key[RATELIMITER_KEY_LEN], int ip_version, const uint8_t *addr)
{
	memset(key, 0, RATELIMITER_KEY_LEN);
	if (!addr || (ip_version != 4 && ip_version != 6))
		return false;
	key[0] = (uint8_t)ip_version;
	memcpy(key + 1, addr, ip_version == 4 ? 4 : 8);
	return true;
}

/*
 * A keyed hash picks the bucket so that a remote sender cannot aim many
 * sources at one bucket to evict someone else's entry.
 */
static struct ratelimiter_entry *bucket_of(struct ratelimiter *rl, const uint8_t key[RATELIMITER_KEY_LEN])
{
	uint8_t h[4];

	blake2s(h, sizeof(h), key, RATELIMITER_KEY_LEN, rl->hash_key, sizeof(rl->hash_key));
	return &rl->entries[(le32_load(h) & (RATELIMITER_BUCKETS - 1)) * RATELIMITER_WAYS];
}

static bool take_token(struct ratelimiter_entry *e, uint64_t now)
{
	uint64_t elapsed;

	/* Invariant: tokens <= RATELIMITER_MAX_TOKENS, so the sum cannot wrap. */
	if (now > e->last) {
		elapsed = now - e->last;
		if (elapsed >= RATELIMITER_MAX_TOKENS - e->tokens)
			e->tokens = RATELIMITER_MAX_TOKENS;
		else
			e->tokens += elapsed;
		e->last = now;
	}
	if (e->tokens < RATELIMITER_COST)
		return false;
	e->tokens -= RATELIMITER_COST;
	return true;
}

/*
 * Idle long enough to be forgotten.  An entry last refilled at a later now
 * (a clock gone backwards) is of unknown age and may go too: its source
 * gains at most one fresh burst per backward jump (wg_age_reached()).
 */
static bool reclaimable(const struct ratelimiter_entry *e, uint64_t now)
{
	return wg_age_reached(e->last, now, WG_SECONDS(RATELIMITER_IDLE_TIME));
}

bool ratelimiter_allow(struct ratelimiter *rl, int ip_version, const uint8_t *addr, uint64_t now)
{
	uint8_t key[RATELIMITER_KEY_LEN];
	struct ratelimiter_entry *bucket, *victim = NULL, *e;
	unsigned int i;

	if (!make_key(key, ip_version, addr))
		return false;
	bucket = bucket_of(rl, key);
	for (i = 0; i < RATELIMITER_WAYS; i++) {
		e = &bucket[i];
		if (e->used && !memcmp(e->key, key, RATELIMITER_KEY_LEN))
			return take_token(e, now);
		if (!victim && (!e->used || reclaimable(e, now)))
			victim = e;
	}
	/* A full bucket refuses a new source rather than evict a live one. */
	if (!victim)
		return false;
	/* A new source starts with a full bucket, minus this packet. */
	memcpy(victim->key, key, RATELIMITER_KEY_LEN);
	victim->used = true;
	victim->last = now;
	victim->tokens = RATELIMITER_MAX_TOKENS - RATELIMITER_COST;
	return true;
}
