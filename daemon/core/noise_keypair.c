// SPDX-License-Identifier: GPL-2.0-only
/*
 * The noise module's bookkeeping (daemon/core/noise.h): the local index
 * table, the lifetimes of a remote's handshake and keypairs, and the
 * keypair slots previous/current/next, filled when a session begins (WP
 * §5.4.5) and rotated on key confirmation (doc/protocol.md §7).
 */
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/bytes.h"
#include "crypto/util.h"
#include "daemon/core/noise_keypair.h"

#define NOISE_MAX_INDEX_TRIES 64

/* ---- the index table ---- */

static struct noise_index **index_bucket(struct noise_local *l, uint32_t id)
{
	/* ids are ours and random: their low bits spread evenly */
	return &l->buckets[id & (l->nbuckets - 1)];
}

struct noise_index *noise_index_find(struct noise_local *l, uint32_t id)
{
	struct noise_index *e;

	for (e = *index_bucket(l, id); e; e = e->next)
		if (e->id == id)
			return e;
	return NULL;
}

static void index_remove(struct noise_local *l, struct noise_index *e)
{
	struct noise_index **p;

	if (!e->live)
		return;
	for (p = index_bucket(l, e->id); *p; p = &(*p)->next) {
		if (*p == e) {
			*p = e->next;
			break;
		}
	}
	e->next = NULL;
	e->live = false;
}

enum noise_result noise_index_insert_random(struct noise_local *l, struct noise_index *e,
					    struct noise_remote *r, enum noise_index_kind kind)
{
	struct noise_index **bucket;
	uint8_t drawn[4];
	uint32_t id;
	int tries;

	index_remove(l, e);
	for (tries = 0; tries < NOISE_MAX_INDEX_TRIES; tries++) {
		/*
		 * Read as the wire holds it (little-endian): the index's
		 * bytes on the wire are the bytes drawn, on either byte
		 * order, so one seed makes the same messages everywhere.
		 */
		if (!core_random_fill(&l->random, drawn, sizeof(drawn)))
			return NOISE_ERR_RANDOM;
		id = le32_load(drawn);
		if (noise_index_find(l, id))
			continue;
		bucket = index_bucket(l, id);
		e->id = id;
		e->remote = r;
		e->kind = (uint8_t)kind;
		e->next = *bucket;
		e->live = true;
		*bucket = e;
		return NOISE_OK;
	}
	return NOISE_ERR_INDEX;
}

/* new takes over old's id (a keypair inherits its handshake's index). */
static void index_replace(struct noise_local *l, struct noise_index *old, struct noise_index *new,
			  enum noise_index_kind kind)
{
	struct noise_index **bucket = index_bucket(l, old->id);

	index_remove(l, old);
	new->id = old->id;
	new->remote = old->remote;
	new->kind = (uint8_t)kind;
	new->next = *bucket;
	new->live = true;
	*bucket = new;
}

bool noise_local_reserve(struct noise_local *l, size_t remotes)
{
	struct noise_index **fresh, *e, *next;
	size_t n = l->nbuckets, i;

	while (n / 2 < remotes && n < NOISE_INDEX_BUCKETS_MAX)
		n *= 2;
	if (n == l->nbuckets)
		return true;
	fresh = calloc(n, sizeof(*fresh));
	if (!fresh)
		return false;
	for (i = 0; i < l->nbuckets; i++) {
		for (e = l->buckets[i]; e; e = next) {
			next = e->next;
			e->next = fresh[e->id & (n - 1)];
			fresh[e->id & (n - 1)] = e;
		}
	}
	if (l->buckets != l->fixed_buckets)
		free(l->buckets);
	l->buckets = fresh;
	l->nbuckets = n;
	return true;
}

struct noise_remote *noise_remote_by_index(struct noise_local *l, uint32_t index)
{
	struct noise_index *e = noise_index_find(l, index);

	return e ? e->remote : NULL;
}

/* ---- handshake and keypair lifetimes ---- */

void noise_handshake_clear(struct noise_remote *r)
{
	struct noise_handshake *hs = &r->handshake;

	index_remove(r->local, &hs->index);
	crypto_wipe(hs, sizeof(*hs));
	hs->state = NOISE_HANDSHAKE_ZEROED;
}

static void keypair_free(struct noise_remote *r, struct noise_keypair *kp)
{
	if (!kp)
		return;
	index_remove(r->local, &kp->index);
	crypto_wipe(kp, sizeof(*kp));
}

/* The storage not referenced by any slot (at least one is, see callers). */
static struct noise_keypair *keypair_unused(struct noise_remote *r)
{
	struct noise_keypair *kp;
	int i;

	for (i = 0; i < NOISE_KEYPAIR_SLOTS; i++) {
		kp = &r->keypair_storage[i];
		if (kp != r->previous && kp != r->current && kp != r->next)
			return kp;
	}
	return NULL;
}

/*
 * The three keypair slots' storage, allocated when the remote's first
 * session begins and freed (wiped) when its keys are cleared: an idle peer
 * does not carry three replay windows.  At most one allocation per remote
 * between two clears, and only after a handshake message authenticated.
 */
bool noise_remote_reserve_keypairs(struct noise_remote *r)
{
	if (!r->keypair_storage)
		r->keypair_storage = calloc(NOISE_KEYPAIR_SLOTS, sizeof(*r->keypair_storage));
	return r->keypair_storage != NULL;
}

static void remote_release_keypairs(struct noise_remote *r)
{
	if (!r->keypair_storage)
		return;
	crypto_wipe(r->keypair_storage, NOISE_KEYPAIR_SLOTS * sizeof(*r->keypair_storage));
	free(r->keypair_storage);
	r->keypair_storage = NULL;
}

void noise_remote_init(struct noise_remote *r, struct noise_local *l,
		       const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	memset(r, 0, sizeof(*r));
	r->local = l;
	crypto_copy32(r->public_key, public_key);
	cookie_maker_init(&r->cookie, public_key);
}

void noise_remote_set_preshared_key(struct noise_remote *r, const uint8_t *psk)
{
	if (psk)
		crypto_copy32(r->preshared_key, psk);
	else
		crypto_wipe(r->preshared_key, sizeof(r->preshared_key));
}

void noise_remote_expire_current(struct noise_remote *r)
{
	if (r->current)
		r->current->can_send = false;
	if (r->next)
		r->next->can_send = false;
}

void noise_remote_clear_keys(struct noise_remote *r)
{
	noise_handshake_clear(r);
	keypair_free(r, r->previous);
	keypair_free(r, r->current);
	keypair_free(r, r->next);
	r->previous = r->current = r->next = NULL;
	remote_release_keypairs(r);
}

void noise_remote_clear(struct noise_remote *r)
{
	noise_remote_clear_keys(r);
	/* the cookie maker's keys and cookie with the rest */
	crypto_wipe(r, sizeof(*r));
}

/* ---- the keypair slots ---- */

/*
 * Begin the session (WP §5.4.5): (T1, T2) = KDF2(C, empty); the initiator
 * sends with T1, the responder with T2.  Then place the keypair in its slot
 * (doc/protocol.md §7) and hand it the handshake's index.
 */
void noise_begin_session(struct noise_remote *r, const uint8_t chain[NOISE_HASH_LEN], bool initiator,
			 uint64_t now)
{
	struct noise_handshake *hs = &r->handshake;
	struct noise_keypair *kp;

	if (initiator) {
		/*
		 * An unconfirmed next (we were responder meanwhile) becomes
		 * previous, so late packets on it still open; the old current
		 * goes.  Otherwise current becomes previous.
		 */
		keypair_free(r, r->previous);
		if (r->next) {
			r->previous = r->next;
			r->next = NULL;
			keypair_free(r, r->current);
		} else {
			r->previous = r->current;
		}
		r->current = NULL;
	} else {
		/* The responder waits for confirmation: only next changes. */
		keypair_free(r, r->next);
		keypair_free(r, r->previous);
		r->next = NULL;
		r->previous = NULL;
	}

	kp = keypair_unused(r);
	memset(kp, 0, sizeof(*kp));
	blake2s_kdf(initiator ? kp->send_key : kp->recv_key, initiator ? kp->recv_key : kp->send_key, NULL,
		    chain, 0, chain);
	replay_counter_init(&kp->replay);
	kp->remote_index = hs->remote_index;
	kp->birth = now;
	kp->serial = ++r->local->keypair_serial;
	kp->is_initiator = initiator;
	kp->can_send = true;
	kp->can_receive = true;
	index_replace(r->local, &hs->index, &kp->index, NOISE_INDEX_KEYPAIR);

	if (initiator)
		r->current = kp;
	else
		r->next = kp;
	noise_handshake_clear(r);
}

void noise_keypair_confirm(struct noise_remote *r)
{
	keypair_free(r, r->previous);
	r->previous = r->current;
	r->current = r->next;
	r->next = NULL;
}
