// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of peers by public key: thousands of random inserts, removals
 * and lookups compared with a deliberately naive reference (a flat array
 * scanned from end to end), the hash against keyed BLAKE2s computed by the
 * crypto library, its dependence on the secret, and the length of the
 * chains at 10,000 keys (the point of the table: no walk over every peer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "daemon/core/keyhash.h"
#include "tests/core/coretest.h"

#define NKEYS 10000

struct owner {
	struct keyhash_entry entry;
	uint8_t key[KEYHASH_KEY_LEN];
	bool linked;
};

static struct owner owners[NKEYS];

static struct owner *owner_of(struct keyhash_entry *e)
{
	return e ? (struct owner *)((char *)e - offsetof(struct owner, entry)) : NULL;
}

/* The reference: every linked owner, scanned. */
static struct owner *naive_lookup(const uint8_t *key, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (owners[i].linked && !memcmp(owners[i].key, key, KEYHASH_KEY_LEN))
			return &owners[i];
	return NULL;
}

static size_t longest_chain(const struct keyhash *t)
{
	size_t best = 0;

	for (size_t i = 0; i < t->nbuckets; i++) {
		size_t n = 0;

		for (struct keyhash_entry *e = t->buckets[i]; e; e = e->next)
			n++;
		if (n > best)
			best = n;
	}
	return best;
}

static size_t chain_total(const struct keyhash *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nbuckets; i++)
		for (struct keyhash_entry *e = t->buckets[i]; e; e = e->next)
			n++;
	return n;
}

static void test_hash_is_keyed_blake2s(struct tu_rng *rng)
{
	uint8_t secret[KEYHASH_SECRET_LEN], other[KEYHASH_SECRET_LEN], key[KEYHASH_KEY_LEN], out[8];
	struct keyhash t, u;
	unsigned int differ = 0;

	tu_rng_fill(rng, secret, sizeof(secret));
	memcpy(other, secret, sizeof(other));
	other[0] ^= 1;
	keyhash_init(&t, secret);
	keyhash_init(&u, other);
	for (int i = 0; i < 64; i++) {
		uint64_t want = 0;

		tu_rng_fill(rng, key, sizeof(key));
		blake2s(out, sizeof(out), key, sizeof(key), secret, sizeof(secret));
		for (int j = 7; j >= 0; j--)
			want = (want << 8) | out[j];
		CHECK_EQ(keyhash_hash(&t, key), want);
		differ += keyhash_hash(&t, key) != keyhash_hash(&u, key);
	}
	/* One bit of secret changes every hash (a 2^-64 chance each not to). */
	CHECK_EQ(differ, 64);
	keyhash_clear(&t);
	keyhash_clear(&u);
	CHECK(t.nbuckets == 0 && t.buckets == NULL);
	for (size_t i = 0; i < sizeof(t.secret); i++)
		CHECK_EQ(t.secret[i], 0);
}

/* Random operations on a table and on the reference, compared after each. */
static void test_against_reference(struct tu_rng *rng)
{
	uint8_t secret[KEYHASH_SECRET_LEN], probe[KEYHASH_KEY_LEN];
	struct keyhash t;
	size_t pool = 600, linked = 0;

	memset(owners, 0, sizeof(owners));
	tu_rng_fill(rng, secret, sizeof(secret));
	keyhash_init(&t, secret);
	for (size_t i = 0; i < pool; i++) {
		tu_rng_fill(rng, owners[i].key, KEYHASH_KEY_LEN);
		/* Keys that differ in one byte only, to catch a short compare. */
		if (i % 7 == 1) {
			memcpy(owners[i].key, owners[i - 1].key, KEYHASH_KEY_LEN);
			owners[i].key[tu_rng_below(rng, KEYHASH_KEY_LEN)] ^= (uint8_t)(1 + tu_rng_below(rng, 255));
		}
	}
	CHECK(keyhash_lookup(&t, owners[0].key) == NULL);
	for (int step = 0; step < 20000; step++) {
		struct owner *o = &owners[tu_rng_below(rng, pool)];

		switch (tu_rng_below(rng, 3)) {
		case 0:
			if (!o->linked) {
				CHECK_EQ(keyhash_insert(&t, &o->entry, o->key), 0);
				o->linked = true;
				linked++;
			}
			break;
		case 1:
			if (o->linked) {
				keyhash_remove(&t, &o->entry);
				o->linked = false;
				linked--;
			}
			break;
		default:
			break;
		}
		CHECK(owner_of(keyhash_lookup(&t, o->key)) == naive_lookup(o->key, pool));
		memcpy(probe, o->key, sizeof(probe));
		probe[KEYHASH_KEY_LEN - 1] ^= 0x80;
		CHECK(owner_of(keyhash_lookup(&t, probe)) == naive_lookup(probe, pool));
		if (step % 1000 == 0) {
			CHECK_EQ(t.count, linked);
			CHECK_EQ(chain_total(&t), linked);
			for (size_t i = 0; i < pool; i++)
				CHECK(owner_of(keyhash_lookup(&t, owners[i].key)) ==
				      (owners[i].linked ? &owners[i] : NULL));
		}
	}
	keyhash_clear(&t);
}

/* 10,000 keys: every one found, short chains, the table no larger than needed. */
static void test_many(struct tu_rng *rng)
{
	uint8_t secret[KEYHASH_SECRET_LEN];
	struct keyhash t;
	size_t found = 0;

	memset(owners, 0, sizeof(owners));
	tu_rng_fill(rng, secret, sizeof(secret));
	keyhash_init(&t, secret);
	for (size_t i = 0; i < NKEYS; i++) {
		tu_rng_fill(rng, owners[i].key, KEYHASH_KEY_LEN);
		CHECK_EQ(keyhash_insert(&t, &owners[i].entry, owners[i].key), 0);
	}
	for (size_t i = 0; i < NKEYS; i++)
		found += owner_of(keyhash_lookup(&t, owners[i].key)) == &owners[i];
	CHECK_EQ(found, NKEYS);
	CHECK_EQ(t.count, NKEYS);
	/* Load factor at most 1 and a power of two: 16384 buckets for 10,000. */
	CHECK_EQ(t.nbuckets, 16384);
	/* At load 0.6 the longest of 16384 chains is about 6; a linear list would be 10,000. */
	CHECK(longest_chain(&t) <= 12);
	for (size_t i = 0; i < NKEYS; i += 2)
		keyhash_remove(&t, &owners[i].entry);
	for (size_t i = 0; i < NKEYS; i++)
		CHECK(owner_of(keyhash_lookup(&t, owners[i].key)) == (i % 2 ? &owners[i] : NULL));
	CHECK_EQ(t.count, NKEYS / 2);
	keyhash_clear(&t);
}

int main(void)
{
	struct tu_rng rng;

	tu_rng_seed(&rng, tu_seed("keyhash", 0x6b657968617368ull));
	test_hash_is_keyed_blake2s(&rng);
	test_against_reference(&rng);
	test_many(&rng);
	return ct_exit("keyhash");
}
