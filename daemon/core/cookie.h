/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mac1, mac2 and cookie replies: WireGuard's DoS mitigation (WP §5.3,
 * §5.4.4, §5.4.7; doc/protocol.md §4).
 *
 * Two halves, both working on message bytes only (never sockets or peers):
 *
 *  - struct cookie_checker (device-wide, the receiving side; embedded in
 *    struct noise_local): mac1 key = HASH("mac1----" || our public key),
 *    cookie-reply key = HASH("cookie--" || our public key), and the cookie
 *    secret R, redrawn from the checker's random source (struct
 *    core_random; crypto_random() unless the owner set another) once
 *    older than COOKIE_SECRET_MAX_AGE (120 s).  It checks mac1/mac2 of incoming
 *    handshake messages and creates cookie replies.  The cookie for a source
 *    is MAC(R, source bytes), where the source bytes are any stable encoding
 *    of the outer source address and port chosen by the caller (not visible
 *    on the wire; the kernel uses address bytes then a big-endian port).
 *
 *  - struct cookie_maker (per peer, the sending side; embedded in struct
 *    noise_remote): mac1 key and cookie-reply key of the *remote's* public
 *    key, the last cookie received and its age, and the mac1 we last sent.
 *    It writes mac1/mac2 into outgoing handshake messages and consumes
 *    cookie replies.  A cookie reply is accepted only if we sent a mac1
 *    since the last accepted reply (have_sent_mac1), and is authenticated
 *    with that mac1 as associated data.  It does not trigger a retransmit;
 *    the normal retransmission timer resends with mac2 (WP §6.6).
 *
 * Invariants: comparisons of MACs are constant time; every temporary that
 * held a key, cookie or secret is wiped before return; nothing is
 * allocated; time is the caller's `now` (monotonic ns).
 */
#ifndef WGD_DAEMON_CORE_COOKIE_H
#define WGD_DAEMON_CORE_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/core/messages.h"
#include "daemon/core/random.h"

struct cookie_checker {
	uint8_t mac1_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t cookie_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t secret[NOISE_HASH_LEN];
	uint64_t secret_birth;	/* now at which secret was drawn */
	bool has_keys;		/* false while the device has no identity */
	bool has_secret;
	struct core_random random;	/* the secret and reply nonces */
};

struct cookie_maker {
	uint8_t mac1_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t cookie_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t cookie[COOKIE_LEN];
	uint64_t cookie_birth;
	bool has_cookie;
	bool have_sent_mac1;
	uint8_t last_mac1[COOKIE_LEN];
};

/*
 * What the receive path must do with a handshake message (initiation or
 * response), given the MACs and whether the device is under load:
 */
enum cookie_mac_result {
	COOKIE_DROP_BAD_MAC1,	/* mac1 wrong (always checked): drop silently */
	COOKIE_SEND_REPLY,	/* under load, mac1 ok, mac2 absent or wrong:
				   answer with cookie_checker_create_reply() */
	COOKIE_PROCEED,		/* not under load, mac1 ok: process it */
	COOKIE_PROCEED_RATELIMITED, /* under load, mac1 and mac2 ok: process it
				   if ratelimiter_allow() lets the source pass */
	COOKIE_ERR_RANDOM,	/* the secret was due and no random bytes: drop */
};

enum cookie_reply_result {
	COOKIE_REPLY_OK,		/* cookie stored; next handshake carries mac2 */
	COOKIE_REPLY_DROP_UNEXPECTED,	/* no mac1 sent since the last reply */
	COOKIE_REPLY_DROP_BAD_TAG,	/* did not authenticate */
};

/* Zeroes the checker: without keys every mac1 is wrong; the system's random source. */
void cookie_checker_init(struct cookie_checker *c);
/* Draw the secret and reply nonces from random (a copy; NULL: crypto_random()). */
void cookie_checker_set_random(struct cookie_checker *c, const struct core_random *random);
/*
 * (Re)derive the keys from our public key, or forget them (NULL) when the
 * device loses its private key.  The secret is kept.
 */
void cookie_checker_set_key(struct cookie_checker *c, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN]);
void cookie_checker_clear(struct cookie_checker *c);

/*
 * mac1 of a received initiation or response (len must be exactly
 * MESSAGE_INITIATION_LEN or MESSAGE_RESPONSE_LEN, else false), in constant
 * time.  The cheap check that tells handshake work from junk.
 */
bool cookie_checker_check_mac1(const struct cookie_checker *c, const uint8_t *msg, size_t len);

/*
 * The rest of the check, for a message whose mac1 is valid: not under
 * load, COOKIE_PROCEED; under load, mac2 against the cookie for src (which
 * may draw a new secret at `now`).
 */
enum cookie_mac_result cookie_checker_check_mac2(struct cookie_checker *c, const uint8_t *msg, size_t len,
						 const uint8_t *src, size_t src_len, bool under_load,
						 uint64_t now);

/*
 * Both checks of a received initiation or response (msg, len must be exactly
 * MESSAGE_INITIATION_LEN or MESSAGE_RESPONSE_LEN; anything else gives
 * COOKIE_DROP_BAD_MAC1).  mac2 is only computed under load, which may draw
 * a new secret at `now`.
 */
enum cookie_mac_result cookie_checker_validate(struct cookie_checker *c, const uint8_t *msg, size_t len,
					       const uint8_t *src, size_t src_len, bool under_load,
					       uint64_t now);

/*
 * Write into out a cookie reply to msg (an initiation or response of
 * exactly its size) that arrived from src: receiver = msg's sender index,
 * a random nonce, the cookie for src sealed under our cookie-reply key with
 * msg's mac1 as associated data.  False (out zeroed) if msg has a bad size
 * or no random bytes were available.
 */
bool cookie_checker_create_reply(struct cookie_checker *c, uint8_t out[MESSAGE_COOKIE_LEN],
				 const uint8_t *msg, size_t len, const uint8_t *src, size_t src_len,
				 uint64_t now);

/* Keys from the remote's public key; no cookie, no mac1 sent. */
void cookie_maker_init(struct cookie_maker *m, const uint8_t remote_public[NOISE_PUBLIC_KEY_LEN]);
void cookie_maker_clear(struct cookie_maker *m);

/*
 * Fill mac1 and mac2 of an outgoing initiation or response (len must be
 * exactly one of the two sizes; other lengths are left untouched).  mac2 is
 * MAC(cookie, ...) if a cookie was received less than
 * COOKIE_SECRET_MAX_AGE - COOKIE_SECRET_LATENCY (115 s) ago, else zeros.
 * Remembers mac1 for the reply it may provoke.
 */
void cookie_maker_add_macs(struct cookie_maker *m, uint8_t *msg, size_t len, uint64_t now);

/* Consume a cookie reply addressed to this peer (the caller found the peer by its receiver index). */
enum cookie_reply_result cookie_maker_consume_reply(struct cookie_maker *m,
						    const uint8_t msg[MESSAGE_COOKIE_LEN], uint64_t now);

#endif
