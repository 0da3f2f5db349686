// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handshake: Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s as WireGuard uses it
 * (WP §5.4.1-§5.4.4), from the device's identity to the final chaining key
 * that begins a session (noise_keypair.c: the index table and the keypair
 * slots; noise_data.c: the transport data messages).
 * Step names follow the whitepaper; the Noise tokens mark each step.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/bytes.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/core/noise_keypair.h"

/* Every key, hash and chaining key here is 32 bytes (messages.h): crypto_copy32(). */
_Static_assert(NOISE_PUBLIC_KEY_LEN == 32 && NOISE_SYMMETRIC_KEY_LEN == 32 && NOISE_HASH_LEN == 32,
	       "crypto_copy32() copies 32 bytes");

/*
 * C0 = HASH("Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s") and
 * H0 = HASH(C0 || "WireGuard v1 zx2c4 Jason@zx2c4.com") (WP §5.4.2): the
 * same for every handshake, so precomputed (doc/protocol.md §1);
 * tests/core/test_noise.c recomputes them.
 */
static const uint8_t NOISE_CHAIN0[NOISE_HASH_LEN] = {
	0x60, 0xe2, 0x6d, 0xae, 0xf3, 0x27, 0xef, 0xc0, 0x2e, 0xc3, 0x35, 0xe2, 0xa0, 0x25, 0xd2, 0xd0,
	0x16, 0xeb, 0x42, 0x06, 0xf8, 0x72, 0x77, 0xf5, 0x2d, 0x38, 0xd1, 0x98, 0x8b, 0x78, 0xcd, 0x36,
};
static const uint8_t NOISE_HASH0[NOISE_HASH_LEN] = {
	0x22, 0x11, 0xb3, 0x61, 0x08, 0x1a, 0xc5, 0x66, 0x69, 0x12, 0x43, 0xdb, 0x45, 0x8a, 0xd5, 0x32,
	0x2d, 0x9c, 0x6c, 0x66, 0x22, 0x93, 0xe8, 0xb7, 0x0e, 0xe1, 0x9c, 0x65, 0xba, 0x07, 0x9e, 0xf3,
};

#define NOISE_INITIATION_SPACING (WG_NSEC_PER_SEC / INITIATIONS_PER_SECOND)

/*
 * The texts of enum noise_result, one after another in one array, found by
 * their offsets (a table of pointers would cost a relocation each, a switch
 * a jump table and a return per case).  The offsets come from the list, so
 * they cannot drift from it.
 */
#define NOISE_RESULT_TEXTS(X)						\
	X(NOISE_OK, "ok")						\
	X(NOISE_OK_CONFIRMED, "ok, session confirmed")			\
	X(NOISE_DROP_NO_IDENTITY, "no private key")			\
	X(NOISE_DROP_BAD_DH, "zero Diffie-Hellman result")		\
	X(NOISE_DROP_BAD_TAG, "authentication failed")			\
	X(NOISE_DROP_UNKNOWN_PEER, "unknown peer")			\
	X(NOISE_DROP_REPLAYED_TIMESTAMP, "replayed initiation timestamp") \
	X(NOISE_DROP_FLOOD, "initiation flood")				\
	X(NOISE_DROP_UNKNOWN_INDEX, "unknown receiver index")		\
	X(NOISE_DROP_WRONG_STATE, "handshake not awaiting a response")	\
	X(NOISE_DROP_EXPIRED, "keypair expired")			\
	X(NOISE_DROP_REPLAY, "replayed or too old counter")		\
	X(NOISE_ERR_NO_KEYPAIR, "no keypair to send with")		\
	X(NOISE_ERR_WRONG_STATE, "no initiation to respond to")	\
	X(NOISE_ERR_RANDOM, "no random bytes")				\
	X(NOISE_ERR_INDEX, "no free index")				\
	X(NOISE_ERR_MEMORY, "out of memory")

#define NOISE_TEXT_FIELD(e, s) char e[sizeof(s)];
#define NOISE_TEXT(e, s) s,
#define NOISE_TEXT_OFFSET(e, s) [e] = offsetof(struct noise_result_texts, e),

static const struct noise_result_texts {
	NOISE_RESULT_TEXTS(NOISE_TEXT_FIELD)
	char unknown[sizeof("unknown")];
} noise_result_texts = { NOISE_RESULT_TEXTS(NOISE_TEXT) "unknown" };

static const uint16_t noise_result_offsets[] = { NOISE_RESULT_TEXTS(NOISE_TEXT_OFFSET) };

const char *noise_result_str(enum noise_result res)
{
	size_t off = (unsigned int)res < sizeof(noise_result_offsets) / sizeof(noise_result_offsets[0]) ?
		     noise_result_offsets[res] : offsetof(struct noise_result_texts, unknown);

	return (const char *)&noise_result_texts + off;
}

/* ---- the symmetric state (WP §5.4: HASH, MIX-KEY via KDFn) ---- */

/* H = HASH(H || in) */
static void mix_hash(uint8_t hash[NOISE_HASH_LEN], const uint8_t *in, size_t len)
{
	blake2s_concat(hash, NOISE_HASH_LEN, hash, NOISE_HASH_LEN, in, len);
}

/* C = KDF1(C, in) or (C, key) = KDF2(C, in) when key is not NULL */
static void mix_key(uint8_t chain[NOISE_HASH_LEN], uint8_t *key, const uint8_t *in, size_t len)
{
	blake2s_kdf(chain, key, NULL, in, len, chain);
}

/* Mix DH(priv, pub) into C (and key); false on an all-zero result. */
static bool mix_dh(uint8_t chain[NOISE_HASH_LEN], uint8_t *key, const uint8_t priv[NOISE_PUBLIC_KEY_LEN],
		   const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	uint8_t dh[NOISE_PUBLIC_KEY_LEN];
	bool ok = x25519(dh, priv, pub);

	if (ok)
		mix_key(chain, key, dh, sizeof(dh));
	crypto_wipe(dh, sizeof(dh));
	return ok;
}

/*
 * e, then es (message 1) or ee (message 2): C = KDF1(C, E.pub),
 * H = HASH(H || E.pub), then DH(priv, pub) into C (and key).  The same
 * steps on both sides, each with its own half of the DH; false on an
 * all-zero DH.
 */
static bool mix_ephemeral_dh(uint8_t chain[NOISE_HASH_LEN], uint8_t hash[NOISE_HASH_LEN], uint8_t *key,
			     const uint8_t e[NOISE_PUBLIC_KEY_LEN], const uint8_t priv[NOISE_PUBLIC_KEY_LEN],
			     const uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	mix_key(chain, NULL, e, NOISE_PUBLIC_KEY_LEN);
	mix_hash(hash, e, NOISE_PUBLIC_KEY_LEN);
	return mix_dh(chain, key, priv, pub);
}

/* (C, tau, key) = KDF3(C, Q); H = HASH(H || tau) */
static void mix_psk(uint8_t chain[NOISE_HASH_LEN], uint8_t hash[NOISE_HASH_LEN],
		    uint8_t key[NOISE_SYMMETRIC_KEY_LEN], const uint8_t psk[NOISE_SYMMETRIC_KEY_LEN])
{
	uint8_t tau[NOISE_HASH_LEN];

	blake2s_kdf(chain, tau, key, psk, NOISE_SYMMETRIC_KEY_LEN, chain);
	mix_hash(hash, tau, sizeof(tau));
	crypto_wipe(tau, sizeof(tau));
}

/* dst = AEAD(key, 0, src, H); H = HASH(H || dst) */
static void encrypt_and_hash(uint8_t *dst, const uint8_t *src, size_t len,
			     const uint8_t key[NOISE_SYMMETRIC_KEY_LEN], uint8_t hash[NOISE_HASH_LEN])
{
	chacha20poly1305_encrypt(dst, src, len, hash, NOISE_HASH_LEN, 0, key);
	mix_hash(hash, dst, NOISE_ENCRYPTED_LEN(len));
}

/* dst = AEAD-open(key, 0, src, H); H = HASH(H || src); false on a bad tag */
static bool decrypt_and_hash(uint8_t *dst, const uint8_t *src, size_t src_len,
			     const uint8_t key[NOISE_SYMMETRIC_KEY_LEN], uint8_t hash[NOISE_HASH_LEN])
{
	if (!chacha20poly1305_decrypt(dst, src, src_len, hash, NOISE_HASH_LEN, 0, key))
		return false;
	mix_hash(hash, src, src_len);
	return true;
}

/* ---- the device identity ---- */

void noise_local_init(struct noise_local *l, noise_lookup_fn lookup, void *ctx)
{
	memset(l, 0, sizeof(*l));
	cookie_checker_init(&l->cookie);
	l->lookup = lookup;
	l->lookup_ctx = ctx;
	l->buckets = l->fixed_buckets;
	l->nbuckets = NOISE_INDEX_BUCKETS;
}

void noise_local_set_random(struct noise_local *l, const struct core_random *random)
{
	if (random)
		l->random = *random;
	else
		memset(&l->random, 0, sizeof(l->random));
	cookie_checker_set_random(&l->cookie, random);
}

static void local_forget_identity(struct noise_local *l)
{
	crypto_wipe(l->private_key, sizeof(l->private_key));
	crypto_wipe(l->public_key, sizeof(l->public_key));
	crypto_wipe(l->initial_hash, sizeof(l->initial_hash));
	l->has_identity = false;
	cookie_checker_set_key(&l->cookie, NULL);
}

bool noise_local_set_private(struct noise_local *l, const uint8_t *private_key)
{
	if (!private_key) {
		local_forget_identity(l);
		return true;
	}
	crypto_copy32(l->private_key, private_key);
	x25519_clamp(l->private_key);
	if (!x25519_public(l->public_key, l->private_key)) {
		local_forget_identity(l);
		return false;
	}
	/* The responder's H starts as HASH(H0 || our public key) (WP §5.4.2). */
	blake2s_concat(l->initial_hash, NOISE_HASH_LEN, NOISE_HASH0, NOISE_HASH_LEN, l->public_key,
		       NOISE_PUBLIC_KEY_LEN);
	l->has_identity = true;
	cookie_checker_set_key(&l->cookie, l->public_key);
	return true;
}

void noise_local_clear(struct noise_local *l)
{
	if (l->buckets && l->buckets != l->fixed_buckets)
		free(l->buckets);
	/* the cookie checker's keys and secret with the rest */
	crypto_wipe(l, sizeof(*l));
}

/*
 * A new ephemeral key pair (WP §5.4.2, §5.4.3: E = DH-GENERATE()): 32 bytes
 * from the device's source, clamped (RFC 7748 §5).  False if the source
 * failed (priv zeroed then) or the key gave no public key.
 */
static bool generate_ephemeral(struct noise_local *l, uint8_t priv[NOISE_PUBLIC_KEY_LEN],
			       uint8_t pub[NOISE_PUBLIC_KEY_LEN])
{
	if (!core_random_fill(&l->random, priv, NOISE_PUBLIC_KEY_LEN))
		return false;
	x25519_clamp(priv);
	return x25519_public(pub, priv);
}

/* ---- the static-static DH ---- */

/*
 * The static-static DH (WP §5.4.2, `ss`) depends only on our identity and
 * the remote's key, so it is computed once, on the first handshake that
 * needs it, rather than when a peer is added or the identity changes: a
 * `set` of 10,000 peers, or a new private key under them, then costs no
 * X25519 at all.  False if there is no identity or the DH is all zeros.
 */
static bool remote_static_static(struct noise_remote *r)
{
	struct noise_local *l = r->local;

	if (!r->static_static_valid) {
		r->static_static_ok = l->has_identity &&
				      x25519(r->static_static, l->private_key, r->public_key);
		if (!r->static_static_ok)
			crypto_wipe(r->static_static, sizeof(r->static_static));
		r->static_static_valid = l->has_identity;
	}
	return r->static_static_ok;
}

/* Forgets the static-static DH: the identity changed. */
static void remote_static_static_forget(struct noise_remote *r)
{
	crypto_wipe(r->static_static, sizeof(r->static_static));
	r->static_static_ok = false;
	r->static_static_valid = false;
}

void noise_remote_update_local(struct noise_remote *r)
{
	noise_handshake_clear(r);
	remote_static_static_forget(r);
	noise_remote_expire_current(r);
}

/* ---- handshake messages ---- */

void noise_tai64n(uint8_t out[NOISE_TIMESTAMP_LEN], uint64_t unix_ns)
{
	uint32_t nsec;
	uint64_t sec = wg_ns_to_sec(unix_ns, &nsec);

	/* TAI64 label 2^62 + 10 (TAI - UTC offset of 1972, as everyone uses) */
	be64_store(out, 0x400000000000000aULL + sec);
	be32_store(out + 8, nsec & ~(uint32_t)((1u << 24) - 1));
}

/*
 * The end of creating message 1 or 2: type, a fresh sender index (same
 * offset in both), then mac1 and mac2 over the finished message.
 */
static enum noise_result handshake_seal_message(struct noise_remote *r, uint8_t *out, uint32_t type,
						size_t len, uint64_t now)
{
	struct noise_handshake *hs = &r->handshake;
	enum noise_result res = noise_index_insert_random(r->local, &hs->index, r, NOISE_INDEX_HANDSHAKE);

	if (res != NOISE_OK)
		return res;
	le32_store(out, type);
	le32_store(out + MESSAGE_INITIATION_SENDER, hs->index.id);
	cookie_maker_add_macs(&r->cookie, out, len, now);
	return NOISE_OK;
}

/*
 * The initiator builds C and H in place in its handshake, which any
 * failure clears.
 */
enum noise_result noise_create_initiation(struct noise_remote *r, uint8_t out[MESSAGE_INITIATION_LEN],
					  const uint8_t timestamp[NOISE_TIMESTAMP_LEN], uint64_t now)
{
	struct noise_local *l = r->local;
	struct noise_handshake *hs = &r->handshake;
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t *ephemeral = out + MESSAGE_INITIATION_EPHEMERAL;
	enum noise_result res;

	memset(out, 0, MESSAGE_INITIATION_LEN);
	if (!l->has_identity)
		return NOISE_DROP_NO_IDENTITY;
	if (!remote_static_static(r))
		return NOISE_DROP_BAD_DH;
	noise_handshake_clear(r);

	/* C = C0, H = HASH(H0 || S_r.pub) */
	crypto_copy32(hs->chaining_key, NOISE_CHAIN0);
	blake2s_concat(hs->hash, NOISE_HASH_LEN, NOISE_HASH0, NOISE_HASH_LEN, r->public_key,
		       NOISE_PUBLIC_KEY_LEN);

	/* e, es */
	res = NOISE_ERR_RANDOM;
	if (!generate_ephemeral(l, hs->ephemeral_private, ephemeral))
		goto out;
	res = NOISE_DROP_BAD_DH;
	if (!mix_ephemeral_dh(hs->chaining_key, hs->hash, key, ephemeral, hs->ephemeral_private, r->public_key))
		goto out;

	/* s */
	encrypt_and_hash(out + MESSAGE_INITIATION_STATIC, l->public_key, NOISE_PUBLIC_KEY_LEN, key, hs->hash);

	/* ss (precomputed DH(S_i.priv, S_r.pub)) */
	mix_key(hs->chaining_key, key, r->static_static, NOISE_PUBLIC_KEY_LEN);

	/* {t} */
	encrypt_and_hash(out + MESSAGE_INITIATION_TIMESTAMP, timestamp, NOISE_TIMESTAMP_LEN, key, hs->hash);

	res = handshake_seal_message(r, out, MESSAGE_HANDSHAKE_INITIATION, MESSAGE_INITIATION_LEN, now);
	if (res == NOISE_OK)
		hs->state = NOISE_HANDSHAKE_CREATED_INITIATION;
out:
	crypto_wipe(key, sizeof(key));
	if (res != NOISE_OK) {
		noise_handshake_clear(r);
		crypto_wipe(out, MESSAGE_INITIATION_LEN);
	}
	return res;
}

/* WP §5.1: replay (timestamp must grow) and flood (<= 50 per second) protection. */
static enum noise_result check_initiation_freshness(const struct noise_remote *r,
						    const uint8_t timestamp[NOISE_TIMESTAMP_LEN], uint64_t now)
{
	/* 12-byte big-endian compare; timestamps are not secret */
	if (memcmp(timestamp, r->latest_timestamp, NOISE_TIMESTAMP_LEN) <= 0)
		return NOISE_DROP_REPLAYED_TIMESTAMP;
	if (r->has_consumed_initiation &&
	    !wg_age_reached(r->last_initiation_consumed, now, NOISE_INITIATION_SPACING))
		return NOISE_DROP_FLOOD;
	return NOISE_OK;
}

enum noise_result noise_consume_initiation(struct noise_local *l, const uint8_t msg[MESSAGE_INITIATION_LEN],
					   uint64_t now, struct noise_remote **remote)
{
	/* the message's secrets, wiped as one */
	struct {
		uint8_t chain[NOISE_HASH_LEN], hash[NOISE_HASH_LEN], key[NOISE_SYMMETRIC_KEY_LEN];
		uint8_t s[NOISE_PUBLIC_KEY_LEN], t[NOISE_TIMESTAMP_LEN];
	} k;
	const uint8_t *e = msg + MESSAGE_INITIATION_EPHEMERAL;
	struct noise_remote *r = NULL;
	struct noise_handshake *hs;
	enum noise_result res;

	*remote = NULL;
	if (!l->has_identity)
		return NOISE_DROP_NO_IDENTITY;

	crypto_copy32(k.chain, NOISE_CHAIN0);
	crypto_copy32(k.hash, l->initial_hash);

	/* e, es */
	res = NOISE_DROP_BAD_DH;
	if (!mix_ephemeral_dh(k.chain, k.hash, k.key, e, l->private_key, e))
		goto out;

	/* s */
	res = NOISE_DROP_BAD_TAG;
	if (!decrypt_and_hash(k.s, msg + MESSAGE_INITIATION_STATIC, NOISE_ENCRYPTED_LEN(NOISE_PUBLIC_KEY_LEN),
			      k.key, k.hash))
		goto out;
	res = NOISE_DROP_UNKNOWN_PEER;
	r = l->lookup ? l->lookup(l->lookup_ctx, k.s) : NULL;
	if (!r || r->local != l)
		goto out;

	/* ss */
	res = NOISE_DROP_BAD_DH;
	if (!remote_static_static(r))
		goto out;
	mix_key(k.chain, k.key, r->static_static, NOISE_PUBLIC_KEY_LEN);

	/* {t} */
	res = NOISE_DROP_BAD_TAG;
	if (!decrypt_and_hash(k.t, msg + MESSAGE_INITIATION_TIMESTAMP, NOISE_ENCRYPTED_LEN(NOISE_TIMESTAMP_LEN),
			      k.key, k.hash))
		goto out;
	res = check_initiation_freshness(r, k.t, now);
	if (res != NOISE_OK)
		goto out;

	/* Authenticated and fresh: adopt it, abandoning any handshake of ours. */
	noise_handshake_clear(r);
	hs = &r->handshake;
	hs->state = NOISE_HANDSHAKE_CONSUMED_INITIATION;
	hs->remote_index = le32_load(msg + MESSAGE_INITIATION_SENDER);
	crypto_copy32(hs->remote_ephemeral, e);
	crypto_copy32(hs->chaining_key, k.chain);
	crypto_copy32(hs->hash, k.hash);
	memcpy(r->latest_timestamp, k.t, NOISE_TIMESTAMP_LEN);
	r->last_initiation_consumed = now;
	r->has_consumed_initiation = true;
	*remote = r;
out:
	crypto_wipe(&k, sizeof(k));
	return res;
}

/*
 * The responder works in place in its handshake too, with its ephemeral
 * private key in the handshake's slot for it: noise_begin_session() or the
 * failure path clears it all.
 */
enum noise_result noise_create_response(struct noise_remote *r, uint8_t out[MESSAGE_RESPONSE_LEN],
					uint64_t now)
{
	struct noise_handshake *hs = &r->handshake;
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t *ephemeral = out + MESSAGE_RESPONSE_EPHEMERAL;
	enum noise_result res;

	memset(out, 0, MESSAGE_RESPONSE_LEN);
	if (!r->local->has_identity)
		return NOISE_DROP_NO_IDENTITY;
	if (hs->state != NOISE_HANDSHAKE_CONSUMED_INITIATION)
		return NOISE_ERR_WRONG_STATE;
	if (!noise_remote_reserve_keypairs(r))
		return NOISE_ERR_MEMORY;
	le32_store(out + MESSAGE_RESPONSE_RECEIVER, hs->remote_index);

	/* e, ee, se */
	res = NOISE_ERR_RANDOM;
	if (!generate_ephemeral(r->local, hs->ephemeral_private, ephemeral))
		goto out;
	res = NOISE_DROP_BAD_DH;
	if (!mix_ephemeral_dh(hs->chaining_key, hs->hash, NULL, ephemeral, hs->ephemeral_private,
			      hs->remote_ephemeral) ||
	    !mix_dh(hs->chaining_key, NULL, hs->ephemeral_private, r->public_key))
		goto out;

	/* psk */
	mix_psk(hs->chaining_key, hs->hash, key, r->preshared_key);

	/* {} */
	encrypt_and_hash(out + MESSAGE_RESPONSE_EMPTY, out + MESSAGE_RESPONSE_EMPTY, 0, key, hs->hash);

	res = handshake_seal_message(r, out, MESSAGE_HANDSHAKE_RESPONSE, MESSAGE_RESPONSE_LEN, now);
	/* The responder derives its keys right after creating message 2. */
	if (res == NOISE_OK)
		noise_begin_session(r, hs->chaining_key, false, now);
out:
	crypto_wipe(key, sizeof(key));
	if (res != NOISE_OK) {
		noise_handshake_clear(r);
		crypto_wipe(out, MESSAGE_RESPONSE_LEN);
	}
	return res;
}

enum noise_result noise_consume_response(struct noise_local *l, const uint8_t msg[MESSAGE_RESPONSE_LEN],
					 uint64_t now, struct noise_remote **remote)
{
	/* the message's secrets, wiped as one */
	struct {
		uint8_t chain[NOISE_HASH_LEN], hash[NOISE_HASH_LEN], key[NOISE_SYMMETRIC_KEY_LEN];
	} k;
	uint8_t empty[1];
	const uint8_t *e = msg + MESSAGE_RESPONSE_EPHEMERAL;
	struct noise_index *entry;
	struct noise_handshake *hs;
	struct noise_remote *r;
	enum noise_result res;

	*remote = NULL;
	if (!l->has_identity)
		return NOISE_DROP_NO_IDENTITY;
	entry = noise_index_find(l, le32_load(msg + MESSAGE_RESPONSE_RECEIVER));
	if (!entry || entry->kind != NOISE_INDEX_HANDSHAKE)
		return NOISE_DROP_UNKNOWN_INDEX;
	r = entry->remote;
	hs = &r->handshake;
	if (hs->state != NOISE_HANDSHAKE_CREATED_INITIATION)
		return NOISE_DROP_WRONG_STATE;

	/* Work on copies: a bad response must leave the handshake usable. */
	crypto_copy32(k.chain, hs->chaining_key);
	crypto_copy32(k.hash, hs->hash);

	/* e, ee, se */
	res = NOISE_DROP_BAD_DH;
	if (!mix_ephemeral_dh(k.chain, k.hash, NULL, e, hs->ephemeral_private, e) ||
	    !mix_dh(k.chain, NULL, l->private_key, e))
		goto out;

	/* psk */
	mix_psk(k.chain, k.hash, k.key, r->preshared_key);

	/* {} */
	res = NOISE_DROP_BAD_TAG;
	if (!decrypt_and_hash(empty, msg + MESSAGE_RESPONSE_EMPTY, NOISE_ENCRYPTED_LEN(0), k.key, k.hash))
		goto out;

	/* Authenticated: the session begins if it has storage. */
	res = NOISE_ERR_MEMORY;
	if (!noise_remote_reserve_keypairs(r))
		goto out;
	hs->remote_index = le32_load(msg + MESSAGE_RESPONSE_SENDER);
	noise_begin_session(r, k.chain, true, now);
	*remote = r;
	res = NOISE_OK;
out:
	crypto_wipe(&k, sizeof(k));
	return res;
}
