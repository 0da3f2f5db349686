/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BLAKE2s (RFC 7693), and the HMAC and HKDF over it that WireGuard uses
 * (WireGuard whitepaper §5.4: HMAC, KDF1/KDF2/KDF3).
 */
#ifndef WGD_CRYPTO_BLAKE2S_H
#define WGD_CRYPTO_BLAKE2S_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/util.h"

#define BLAKE2S_HASH_SIZE 32
#define BLAKE2S_KEY_SIZE 32
#define BLAKE2S_BLOCK_SIZE 64

struct blake2s_state {
	uint32_t h[8];
	uint32_t t[2];
	uint32_t f[2];
	uint8_t buf[BLAKE2S_BLOCK_SIZE];
	size_t buflen;
	size_t outlen;
};

/* outlen 1..32 */
void blake2s_init(struct blake2s_state *state, size_t outlen);
/* outlen 1..32, keylen 1..32 */
WGD_OUT_OF_LINE void blake2s_init_key(struct blake2s_state *state, size_t outlen, const uint8_t *key,
				      size_t keylen);
void blake2s_update(struct blake2s_state *state, const uint8_t *in, size_t inlen);
/* Writes state->outlen bytes and wipes the state. */
void blake2s_final(struct blake2s_state *state, uint8_t *out);

/* outlen 1..32, keylen 0..32 (key may be NULL when keylen is 0); other sizes abort() */
WGD_OUT_OF_LINE void blake2s(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen, const uint8_t *key, size_t keylen);

/* Unkeyed BLAKE2s of a || b (WP §5.4's HASH of a concatenation); outlen 1..32. */
WGD_OUT_OF_LINE void blake2s_concat(uint8_t *out, size_t outlen, const uint8_t *a, size_t alen, const uint8_t *b,
		    size_t blen);

/* HMAC-BLAKE2s (RFC 2104 with a 64-byte block, 32-byte output); keylen 0..64. */
void blake2s_hmac(uint8_t out[BLAKE2S_HASH_SIZE], const uint8_t *in, size_t inlen,
		  const uint8_t *key, size_t keylen);

/*
 * WireGuard's KDFn(C, input): t0 = HMAC(C, input), t1 = HMAC(t0, 0x01),
 * t2 = HMAC(t0, t1 || 0x02), t3 = HMAC(t0, t2 || 0x03).  Writes 32 bytes to
 * each of first/second/third that is not NULL (KDF1: second = third = NULL;
 * KDF2: third = NULL).  Outputs may alias chaining_key or data.
 */
void blake2s_kdf(uint8_t *first, uint8_t *second, uint8_t *third, const uint8_t *data,
		 size_t data_len, const uint8_t chaining_key[BLAKE2S_HASH_SIZE]);

#endif
