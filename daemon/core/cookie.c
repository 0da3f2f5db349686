// SPDX-License-Identifier: GPL-2.0-only
/*
 * mac1/mac2 and cookie replies (WP §5.4.4, §5.4.7, §6.6; doc/protocol.md §4).
 * MAC(key, x) is keyed BLAKE2s with a 16-byte output (BLAKE2s's own
 * keying, not HMAC); HASH is unkeyed BLAKE2s-256.
 */
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/util.h"
#include "daemon/core/cookie.h"

static const char LABEL_MAC1[] = "mac1----";
static const char LABEL_COOKIE[] = "cookie--";
#define LABEL_LEN 8

/* The mac1 and mac2 offsets of a handshake message, by its exact length. */
static bool mac_offsets(size_t len, size_t *mac1, size_t *mac2)
{
	if (len == MESSAGE_INITIATION_LEN) {
		*mac1 = MESSAGE_INITIATION_MAC1;
		*mac2 = MESSAGE_INITIATION_MAC2;
		return true;
	}
	if (len == MESSAGE_RESPONSE_LEN) {
		*mac1 = MESSAGE_RESPONSE_MAC1;
		*mac2 = MESSAGE_RESPONSE_MAC2;
		return true;
	}
	return false;
}

/* key = HASH(label || public key): the mac1 key and the cookie-reply key. */
static void derive_key(uint8_t key[NOISE_SYMMETRIC_KEY_LEN], const char *label,
		       const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	blake2s_concat(key, NOISE_SYMMETRIC_KEY_LEN, (const uint8_t *)label, LABEL_LEN, public_key,
		       NOISE_PUBLIC_KEY_LEN);
}

static void mac(uint8_t out[COOKIE_LEN], const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len)
{
	blake2s(out, COOKIE_LEN, msg, len, key, key_len);
}

/* ---- the receiving side ---- */

void cookie_checker_init(struct cookie_checker *c)
{
	memset(c, 0, sizeof(*c));
}

void cookie_checker_set_random(struct cookie_checker *c, const struct core_random *random)
{
	if (random)
		c->random = *random;
	else
		memset(&c->random, 0, sizeof(c->random));
}

void cookie_checker_set_key(struct cookie_checker *c, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	if (!public_key) {
		crypto_wipe(c->mac1_key, sizeof(c->mac1_key));
		crypto_wipe(c->cookie_key, sizeof(c->cookie_key));
		c->has_keys = false;
		return;
	}
	derive_key(c->mac1_key, LABEL_MAC1, public_key);
	derive_key(c->cookie_key, LABEL_COOKIE, public_key);
	c->has_keys = true;
}

void cookie_checker_clear(struct cookie_checker *c)
{
	crypto_wipe(c, sizeof(*c));
}

/*
 * cookie = MAC(R, source), R redrawn when older than COOKIE_SECRET_MAX_AGE
 * (WP §5.4.7): a cookie handed out is worth at most two minutes.
 */
static bool make_cookie(struct cookie_checker *c, uint8_t cookie[COOKIE_LEN], const uint8_t *src,
			size_t src_len, uint64_t now)
{
	if (!c->has_secret || wg_age_reached(c->secret_birth, now, WG_SECONDS(COOKIE_SECRET_MAX_AGE))) {
		if (!core_random_fill(&c->random, c->secret, sizeof(c->secret))) {
			c->has_secret = false;
			return false;
		}
		c->secret_birth = now;
		c->has_secret = true;
	}
	mac(cookie, c->secret, sizeof(c->secret), src, src_len);
	return true;
}

bool cookie_checker_check_mac1(const struct cookie_checker *c, const uint8_t *msg, size_t len)
{
	uint8_t computed[COOKIE_LEN];
	size_t off1, off2;
	bool ok;

	if (!c->has_keys || !mac_offsets(len, &off1, &off2))
		return false;
	mac(computed, c->mac1_key, sizeof(c->mac1_key), msg, off1);
	ok = crypto_equal(computed, msg + off1, COOKIE_LEN);
	crypto_wipe(computed, sizeof(computed));
	return ok;
}

enum cookie_mac_result cookie_checker_check_mac2(struct cookie_checker *c, const uint8_t *msg, size_t len,
						 const uint8_t *src, size_t src_len, bool under_load,
						 uint64_t now)
{
	uint8_t computed[COOKIE_LEN], cookie[COOKIE_LEN];
	enum cookie_mac_result res;
	size_t off1, off2;

	if (!c->has_keys || !mac_offsets(len, &off1, &off2))
		return COOKIE_DROP_BAD_MAC1;
	if (!under_load)
		return COOKIE_PROCEED;
	if (!make_cookie(c, cookie, src, src_len, now))
		return COOKIE_ERR_RANDOM;
	mac(computed, cookie, sizeof(cookie), msg, off2);
	res = crypto_equal(computed, msg + off2, COOKIE_LEN) ? COOKIE_PROCEED_RATELIMITED : COOKIE_SEND_REPLY;
	crypto_wipe(cookie, sizeof(cookie));
	crypto_wipe(computed, sizeof(computed));
	return res;
}

enum cookie_mac_result cookie_checker_validate(struct cookie_checker *c, const uint8_t *msg, size_t len,
					       const uint8_t *src, size_t src_len, bool under_load,
					       uint64_t now)
{
	if (!cookie_checker_check_mac1(c, msg, len))
		return COOKIE_DROP_BAD_MAC1;
	return cookie_checker_check_mac2(c, msg, len, src, src_len, under_load, now);
}

bool cookie_checker_create_reply(struct cookie_checker *c, uint8_t out[MESSAGE_COOKIE_LEN],
				 const uint8_t *msg, size_t len, const uint8_t *src, size_t src_len,
				 uint64_t now)
{
	uint8_t cookie[COOKIE_LEN];
	size_t off1, off2;
	bool ok = false;

	memset(out, 0, MESSAGE_COOKIE_LEN);
	if (!c->has_keys || !mac_offsets(len, &off1, &off2))
		return false;
	if (!core_random_fill(&c->random, out + MESSAGE_COOKIE_NONCE, COOKIE_NONCE_LEN))
		goto out;
	if (!make_cookie(c, cookie, src, src_len, now))
		goto out;
	le32_store(out, MESSAGE_HANDSHAKE_COOKIE);
	/* receiver = the sender index of the message we answer (same offset in both) */
	memcpy(out + MESSAGE_COOKIE_RECEIVER, msg + MESSAGE_INITIATION_SENDER, 4);
	xchacha20poly1305_encrypt(out + MESSAGE_COOKIE_COOKIE, cookie, COOKIE_LEN, msg + off1, COOKIE_LEN,
				  out + MESSAGE_COOKIE_NONCE, c->cookie_key);
	ok = true;
out:
	crypto_wipe(cookie, sizeof(cookie));
	if (!ok)
		memset(out, 0, MESSAGE_COOKIE_LEN);
	return ok;
}

/* ---- the sending side ---- */

void cookie_maker_init(struct cookie_maker *m, const uint8_t remote_public[NOISE_PUBLIC_KEY_LEN])
{
	memset(m, 0, sizeof(*m));
	derive_key(m->mac1_key, LABEL_MAC1, remote_public);
	derive_key(m->cookie_key, LABEL_COOKIE, remote_public);
}

void cookie_maker_clear(struct cookie_maker *m)
{
	crypto_wipe(m, sizeof(*m));
}

void cookie_maker_add_macs(struct cookie_maker *m, uint8_t *msg, size_t len, uint64_t now)
{
	size_t off1, off2;

	if (!mac_offsets(len, &off1, &off2))
		return;
	mac(msg + off1, m->mac1_key, sizeof(m->mac1_key), msg, off1);
	memcpy(m->last_mac1, msg + off1, COOKIE_LEN);
	m->have_sent_mac1 = true;

	/*
	 * Use the cookie only while the responder surely still has the
	 * secret behind it: COOKIE_SECRET_LATENCY short of its lifetime.
	 */
	if (m->has_cookie &&
	    !wg_age_reached(m->cookie_birth, now, WG_SECONDS(COOKIE_SECRET_MAX_AGE - COOKIE_SECRET_LATENCY)))
		mac(msg + off2, m->cookie, sizeof(m->cookie), msg, off2);
	else
		memset(msg + off2, 0, COOKIE_LEN);
}

enum cookie_reply_result cookie_maker_consume_reply(struct cookie_maker *m,
						    const uint8_t msg[MESSAGE_COOKIE_LEN], uint64_t now)
{
	uint8_t cookie[COOKIE_LEN];

	if (!m->have_sent_mac1)
		return COOKIE_REPLY_DROP_UNEXPECTED;
	if (!xchacha20poly1305_decrypt(cookie, msg + MESSAGE_COOKIE_COOKIE, NOISE_ENCRYPTED_LEN(COOKIE_LEN),
				       m->last_mac1, COOKIE_LEN, msg + MESSAGE_COOKIE_NONCE, m->cookie_key)) {
		crypto_wipe(cookie, sizeof(cookie));
		return COOKIE_REPLY_DROP_BAD_TAG;
	}
	memcpy(m->cookie, cookie, COOKIE_LEN);
	crypto_wipe(cookie, sizeof(cookie));
	m->cookie_birth = now;
	m->has_cookie = true;
	m->have_sent_mac1 = false;
	return COOKIE_REPLY_OK;
}
