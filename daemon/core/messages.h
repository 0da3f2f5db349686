/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one wire header: WireGuard message types, sizes, field offsets and the
 * protocol constants of whitepaper §6.1, all in one place.
 *
 * Every size is derived from the primitive sizes of crypto/ (a 32-byte
 * X25519 key, a 16-byte Poly1305 tag, a 12-byte TAI64N timestamp), so a
 * layout cannot silently disagree with the crypto it carries.  Fields are
 * read and written byte-wise (le32_load/le64_store from crypto/bytes.h) at
 * the offsets below; a packet is never cast to a struct (STYLE.md §4: UDP
 * payloads are unaligned and MIPS is big-endian).
 *
 * Times in the core are uint64_t nanoseconds of a monotonic clock that the
 * caller reads and passes in as `now` (the daemon's is CLOCK_BOOTTIME, which
 * also counts time suspended: daemon/base/clock.h); the *_TIME constants below are in
 * seconds as in the whitepaper, and WG_SECONDS() converts them.
 */
#ifndef WGD_DAEMON_CORE_MESSAGES_H
#define WGD_DAEMON_CORE_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/blake2s.h"
#include "crypto/bytes.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/x25519.h"

/* ---- primitive sizes (WP §5.4) ---- */
#define NOISE_PUBLIC_KEY_LEN		X25519_KEY_SIZE			/* 32 */
#define NOISE_SYMMETRIC_KEY_LEN		CHACHA20POLY1305_KEY_SIZE	/* 32 */
#define NOISE_HASH_LEN			BLAKE2S_HASH_SIZE		/* 32 */
#define NOISE_AUTHTAG_LEN		CHACHA20POLY1305_AUTHTAG_SIZE	/* 16 */
#define NOISE_TIMESTAMP_LEN		12	/* TAI64N: BE64 seconds || BE32 ns */
#define NOISE_ENCRYPTED_LEN(plain_len)	((plain_len) + NOISE_AUTHTAG_LEN)
#define COOKIE_LEN			16	/* MAC output, also mac1/mac2 size */
#define COOKIE_NONCE_LEN		XCHACHA20POLY1305_NONCE_SIZE	/* 24 */

/* ---- message types: byte 0, bytes 1..3 reserved zero; read as one LE32 ---- */
enum message_type {
	MESSAGE_INVALID = 0,
	MESSAGE_HANDSHAKE_INITIATION = 1,
	MESSAGE_HANDSHAKE_RESPONSE = 2,
	MESSAGE_HANDSHAKE_COOKIE = 3,
	MESSAGE_DATA = 4,
};

/* Common: every message starts with the 4-byte type word. */
#define MESSAGE_TYPE_OFFSET		0
#define MESSAGE_TYPE_LEN		4

/*
 * Handshake initiation (WP §5.4.2): type, sender, unencrypted_ephemeral,
 * encrypted_static, encrypted_timestamp, mac1, mac2.  148 bytes.
 */
#define MESSAGE_INITIATION_SENDER	4
#define MESSAGE_INITIATION_EPHEMERAL	8
#define MESSAGE_INITIATION_STATIC	(MESSAGE_INITIATION_EPHEMERAL + NOISE_PUBLIC_KEY_LEN)
#define MESSAGE_INITIATION_TIMESTAMP	(MESSAGE_INITIATION_STATIC + \
					 NOISE_ENCRYPTED_LEN(NOISE_PUBLIC_KEY_LEN))
#define MESSAGE_INITIATION_MAC1		(MESSAGE_INITIATION_TIMESTAMP + \
					 NOISE_ENCRYPTED_LEN(NOISE_TIMESTAMP_LEN))
#define MESSAGE_INITIATION_MAC2		(MESSAGE_INITIATION_MAC1 + COOKIE_LEN)
#define MESSAGE_INITIATION_LEN		(MESSAGE_INITIATION_MAC2 + COOKIE_LEN)

/*
 * Handshake response (WP §5.4.3): type, sender, receiver,
 * unencrypted_ephemeral, encrypted_nothing, mac1, mac2.  92 bytes.
 */
#define MESSAGE_RESPONSE_SENDER		4
#define MESSAGE_RESPONSE_RECEIVER	8
#define MESSAGE_RESPONSE_EPHEMERAL	12
#define MESSAGE_RESPONSE_EMPTY		(MESSAGE_RESPONSE_EPHEMERAL + NOISE_PUBLIC_KEY_LEN)
#define MESSAGE_RESPONSE_MAC1		(MESSAGE_RESPONSE_EMPTY + NOISE_ENCRYPTED_LEN(0))
#define MESSAGE_RESPONSE_MAC2		(MESSAGE_RESPONSE_MAC1 + COOKIE_LEN)
#define MESSAGE_RESPONSE_LEN		(MESSAGE_RESPONSE_MAC2 + COOKIE_LEN)

/* Cookie reply (WP §5.4.7): type, receiver, nonce, encrypted_cookie.  64 bytes. */
#define MESSAGE_COOKIE_RECEIVER		4
#define MESSAGE_COOKIE_NONCE		8
#define MESSAGE_COOKIE_COOKIE		(MESSAGE_COOKIE_NONCE + COOKIE_NONCE_LEN)
#define MESSAGE_COOKIE_LEN		(MESSAGE_COOKIE_COOKIE + NOISE_ENCRYPTED_LEN(COOKIE_LEN))

/*
 * Transport data (WP §5.4.6): type, receiver, counter (LE64), then the
 * encrypted, padded packet.  The header is exactly 16 bytes so that the
 * payload that follows stays aligned and can be opened in place.
 */
#define MESSAGE_DATA_RECEIVER		4
#define MESSAGE_DATA_COUNTER		8
#define MESSAGE_DATA_HEADER_LEN		16
#define MESSAGE_DATA_OVERHEAD		(MESSAGE_DATA_HEADER_LEN + NOISE_AUTHTAG_LEN)	/* 32 */
#define MESSAGE_DATA_MIN_LEN		MESSAGE_DATA_OVERHEAD	/* a keepalive */
#define MESSAGE_PADDING_MULTIPLE	16

/* Outer overhead of one data message over IPv6 (40) + UDP (8): default MTU 1500 - 80 = 1420. */
#define MESSAGE_OUTER_OVERHEAD_V6	(40 + 8 + MESSAGE_DATA_OVERHEAD)
#define MESSAGE_OUTER_OVERHEAD_V4	(20 + 8 + MESSAGE_DATA_OVERHEAD)

/* ---- protocol constants (WP §6.1; doc/protocol.md §8) ---- */
#define WG_NSEC_PER_SEC			1000000000ULL
#define WG_NSEC_PER_MSEC		1000000ULL
#define WG_SECONDS(s)			((uint64_t)(s) * WG_NSEC_PER_SEC)

#define REKEY_AFTER_MESSAGES		(1ULL << 60)
/*
 * WP §6.1 and wireguard-go: 2^64 - 2^13 - 1.  Chosen so that a counter
 * this large can never be within the replay window of a wrapped counter.
 */
#define REJECT_AFTER_MESSAGES		(UINT64_MAX - (1ULL << 13))
#define REKEY_AFTER_TIME		120	/* s */
#define REJECT_AFTER_TIME		180	/* s */
#define REKEY_ATTEMPT_TIME		90	/* s */
#define REKEY_TIMEOUT			5	/* s */
#define KEEPALIVE_TIMEOUT		10	/* s */
#define MAX_TIMER_HANDSHAKES		(REKEY_ATTEMPT_TIME / REKEY_TIMEOUT)	/* 18 */
/* Initiator, on receive: rekey once when the session is this old (WP §6.2). */
#define REKEY_ON_RECEIVE_AGE		(REJECT_AFTER_TIME - KEEPALIVE_TIMEOUT - REKEY_TIMEOUT) /* 165 s */
/* WP §6.3: all key material is erased after 3 x Reject-After-Time without a new session. */
#define ZERO_KEYS_TIMEOUT		(REJECT_AFTER_TIME * 3)	/* 540 s */
#define REKEY_TIMEOUT_JITTER_MAX_MS	334	/* jitter is uniform in [0, 334) ms */
#define COOKIE_SECRET_MAX_AGE		120	/* s */
/* A received cookie is used for mac2 only while younger than this (kernel). */
#define COOKIE_SECRET_LATENCY		5	/* s */
#define INITIATIONS_PER_SECOND		50	/* accepted per peer (20 ms spacing) */
#define MAX_STAGED_PACKETS		128
#define MAX_QUEUED_INCOMING_HANDSHAKES	4096
/* "Under load" when this many handshakes wait, and for 1 s after (doc/protocol.md §9). */
#define UNDER_LOAD_QUEUE_LEN		(MAX_QUEUED_INCOMING_HANDSHAKES / 8)
#define UNDER_LOAD_AFTER_TIME		1	/* s */

/*
 * The one age rule of the core: whether something born at `birth` (a
 * keypair, the cookie secret, a received cookie, the last initiation
 * accepted, a rate-limiter entry) is at least limit_ns old at `now`.
 *
 * now < birth means the clock went backwards or the birth was stamped with
 * a later clock than the one now read; the age is then unknown, and it
 * counts as reached.  That is the safe reading for every use in the core:
 * a key, secret or cookie of unknown age is treated as expired (a birth in
 * the future cannot keep a key alive past Reject-After-Time), a rekey rule
 * fires (a new handshake is cheap and rate-limited), and a spacing or idle
 * limit is taken as met, which costs at most one message or one fresh
 * burst per backward jump, since the new birth is then `now`, rather than
 * locking a peer or a source out until the clock catches up.  With the
 * daemon's boot clock (never backwards) the case does not arise.
 */
WGD_OUT_OF_LINE bool wg_age_reached(uint64_t birth, uint64_t now, uint64_t limit_ns);

/*
 * n / d, and n % d in *rem, for a divisor d < 2^22, without a 64-bit
 * division: on 32-bit MIPS a 64-bit `/` or `%` is a call to libgcc's
 * __udivdi3 or __umoddi3 (2.2 KB together).  This is long division in
 * 10-bit digits, most significant first: the remainder stays below
 * d < 2^22, so remainder << 10 | digit fits 32 bits.  Seven 32-bit
 * divisions.  For the clock conversions (TAI64N, the loop's timeout, the
 * uapi's handshake time, logs) and the timer jitter.
 */
static WGD_OUT_OF_LINE uint64_t wg_divmod_small(uint64_t n, uint32_t d, uint32_t *rem)
{
	uint64_t q = 0;
	uint32_t r = 0, cur;
	int shift;

	for (shift = 60; shift >= 0; shift -= 10) {
		cur = r << 10 | ((uint32_t)(n >> shift) & 0x3ff);
		q = q << 10 | cur / d;
		r = cur % d;
	}
	*rem = r;
	return q;
}

/* Whole seconds of ns, and the nanoseconds left over in *rem_ns:
 * 10^9 = 2^9 * 1953125, the power of two by shifting. */
static inline uint64_t wg_ns_to_sec(uint64_t ns, uint32_t *rem_ns)
{
	uint32_t r;
	uint64_t sec = wg_divmod_small(ns >> 9, 1953125, &r);

	*rem_ns = r << 9 | ((uint32_t)ns & 511);
	return sec;
}

/* ---- edge checks (STYLE.md §5: check each datagram once, by length and type) ---- */

/*
 * The type of a received datagram, or MESSAGE_INVALID when its length does
 * not fit the type: types 1..3 must be exactly their size, data at least a
 * keepalive (doc/protocol.md §2).  Non-zero reserved bytes make the LE32 type
 * word unequal to every type, so such messages are invalid too.
 */
static inline enum message_type message_classify(const uint8_t *buf, size_t len)
{
	if (len < MESSAGE_TYPE_LEN)
		return MESSAGE_INVALID;
	switch (le32_load(buf + MESSAGE_TYPE_OFFSET)) {
	case MESSAGE_HANDSHAKE_INITIATION:
		return len == MESSAGE_INITIATION_LEN ? MESSAGE_HANDSHAKE_INITIATION : MESSAGE_INVALID;
	case MESSAGE_HANDSHAKE_RESPONSE:
		return len == MESSAGE_RESPONSE_LEN ? MESSAGE_HANDSHAKE_RESPONSE : MESSAGE_INVALID;
	case MESSAGE_HANDSHAKE_COOKIE:
		return len == MESSAGE_COOKIE_LEN ? MESSAGE_HANDSHAKE_COOKIE : MESSAGE_INVALID;
	case MESSAGE_DATA:
		return len >= MESSAGE_DATA_MIN_LEN ? MESSAGE_DATA : MESSAGE_INVALID;
	default:
		return MESSAGE_INVALID;
	}
}

/* The receiver index of a data message (caller has classified it). */
static inline uint32_t message_data_receiver(const uint8_t *buf)
{
	return le32_load(buf + MESSAGE_DATA_RECEIVER);
}

/*
 * Padded plaintext length for an inner packet of len bytes (WP §5.4.6):
 * rounded up to a multiple of 16, but never beyond the MTU; a packet at or
 * above the MTU is not padded.  A keepalive (0) stays 0.  The caller pads
 * with zeros; noise_seal() encrypts whatever length it is given.
 */
static inline size_t message_data_padded_len(size_t len, size_t mtu)
{
	size_t padded = (len + MESSAGE_PADDING_MULTIPLE - 1) & ~(size_t)(MESSAGE_PADDING_MULTIPLE - 1);

	if (len >= mtu)
		return len;
	return padded < mtu ? padded : mtu;
}

#endif
