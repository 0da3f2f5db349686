// SPDX-License-Identifier: GPL-2.0-only
/* Peers by public key: a keyed hash table (see keyhash.h for the invariants). */
#include "daemon/core/keyhash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/util.h"

uint64_t keyhash_hash(const struct keyhash *t, const uint8_t *key)
{
	uint8_t out[8];
	uint64_t h = 0;
	int i;

	blake2s(out, sizeof(out), key, KEYHASH_KEY_LEN, t->secret, KEYHASH_SECRET_LEN);
	for (i = 7; i >= 0; i--)
		h = (h << 8) | out[i];
	return h;
}

static struct keyhash_entry **keyhash_bucket(struct keyhash_entry **buckets, size_t n, uint64_t hash)
{
	return &buckets[hash & (n - 1)];
}

void keyhash_init(struct keyhash *t, const uint8_t secret[KEYHASH_SECRET_LEN])
{
	t->buckets = NULL;
	t->nbuckets = 0;
	t->count = 0;
	memcpy(t->secret, secret, KEYHASH_SECRET_LEN);
}

void keyhash_clear(struct keyhash *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = 0;
	t->count = 0;
	crypto_wipe(t->secret, sizeof(t->secret));
}

/* Moves every entry to a bucket array of n (a power of two); false if out of memory. */
static bool keyhash_resize(struct keyhash *t, size_t n)
{
	struct keyhash_entry **fresh, *e, *next;
	size_t i;

	if (n > SIZE_MAX / sizeof(*fresh))
		return false;
	fresh = calloc(n, sizeof(*fresh));
	if (!fresh)
		return false;
	for (i = 0; i < t->nbuckets; i++) {
		for (e = t->buckets[i]; e; e = next) {
			struct keyhash_entry **b = keyhash_bucket(fresh, n, e->hash);

			next = e->next;
			e->next = *b;
			*b = e;
		}
	}
	free(t->buckets);
	t->buckets = fresh;
	t->nbuckets = n;
	return true;
}

int keyhash_insert(struct keyhash *t, struct keyhash_entry *e, const uint8_t *key)
{
	struct keyhash_entry **b;

	if (!t->buckets && !keyhash_resize(t, KEYHASH_MIN_BUCKETS))
		return -ENOMEM;
	/* Load factor at most 1; if growing fails the table still works. */
	if (t->count >= t->nbuckets)
		keyhash_resize(t, t->nbuckets * 2);
	e->key = key;
	e->hash = keyhash_hash(t, key);
	b = keyhash_bucket(t->buckets, t->nbuckets, e->hash);
	e->next = *b;
	*b = e;
	t->count++;
	return 0;
}

void keyhash_remove(struct keyhash *t, struct keyhash_entry *e)
{
	struct keyhash_entry **p;

	for (p = keyhash_bucket(t->buckets, t->nbuckets, e->hash); *p; p = &(*p)->next) {
		if (*p == e) {
			*p = e->next;
			e->next = NULL;
			t->count--;
			return;
		}
	}
}

struct keyhash_entry *keyhash_lookup(const struct keyhash *t, const uint8_t *key)
{
	struct keyhash_entry *e;
	uint64_t hash;

	if (!t->count)
		return NULL;
	hash = keyhash_hash(t, key);
	for (e = *keyhash_bucket(t->buckets, t->nbuckets, hash); e; e = e->next) {
		if (e->hash == hash && crypto_equal(e->key, key, KEYHASH_KEY_LEN))
			return e;
	}
	return NULL;
}
