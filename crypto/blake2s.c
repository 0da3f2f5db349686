// SPDX-License-Identifier: GPL-2.0-only
/*
 * BLAKE2s (RFC 7693), and HMAC-BLAKE2s and the KDF of WireGuard
 * (whitepaper §5.4).
 */
#include "crypto/blake2s.h"

#include <stdlib.h>
#include <string.h>

#include "crypto/bytes.h"
#include "crypto/util.h"

/* RFC 7693 §2.6: the SHA-256 initial values */
static const uint32_t blake2s_iv[8] = {
	0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
	0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

/* RFC 7693 §2.7: message word permutations for rounds 0..9 */
static const uint8_t blake2s_sigma[10][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
};

/* The mixing function G of RFC 7693 §3.1 with BLAKE2s's rotations (§2.1). */
#define BLAKE2S_G(a, b, c, d, x, y)				\
	do {							\
		a += b + (x); d = ror32(d ^ a, 16);		\
		c += d; b = ror32(b ^ c, 12);			\
		a += b + (y); d = ror32(d ^ a, 8);		\
		c += d; b = ror32(b ^ c, 7);			\
	} while (0)

/*
 * F of RFC 7693 §3.2 on one 64-byte block; the caller has already counted it
 * in t.  The rounds are looped, the eight G calls of a round are not: the
 * state stays in registers.  BLAKE2s is never on the data path, but it is
 * the first check of every handshake message (mac1, whitepaper §5.4.4), so
 * a flood of junk costs what this does; the form with one looped G took
 * 2.2 times as long (doc/performance.md).
 */
static void blake2s_compress(struct blake2s_state *state, const uint8_t block[BLAKE2S_BLOCK_SIZE])
{
	uint32_t m[16];
	uint32_t v0 = state->h[0], v1 = state->h[1], v2 = state->h[2], v3 = state->h[3];
	uint32_t v4 = state->h[4], v5 = state->h[5], v6 = state->h[6], v7 = state->h[7];
	uint32_t v8 = blake2s_iv[0], v9 = blake2s_iv[1], v10 = blake2s_iv[2], v11 = blake2s_iv[3];
	uint32_t v12 = blake2s_iv[4] ^ state->t[0], v13 = blake2s_iv[5] ^ state->t[1];
	uint32_t v14 = blake2s_iv[6] ^ state->f[0], v15 = blake2s_iv[7] ^ state->f[1];
	int i;

	for (i = 0; i < 16; i++)
		m[i] = le32_load(block + 4 * i);
	for (i = 0; i < 10; i++) {
		const uint8_t *s = blake2s_sigma[i];

		BLAKE2S_G(v0, v4, v8, v12, m[s[0]], m[s[1]]);
		BLAKE2S_G(v1, v5, v9, v13, m[s[2]], m[s[3]]);
		BLAKE2S_G(v2, v6, v10, v14, m[s[4]], m[s[5]]);
		BLAKE2S_G(v3, v7, v11, v15, m[s[6]], m[s[7]]);
		BLAKE2S_G(v0, v5, v10, v15, m[s[8]], m[s[9]]);
		BLAKE2S_G(v1, v6, v11, v12, m[s[10]], m[s[11]]);
		BLAKE2S_G(v2, v7, v8, v13, m[s[12]], m[s[13]]);
		BLAKE2S_G(v3, v4, v9, v14, m[s[14]], m[s[15]]);
	}
	state->h[0] ^= v0 ^ v8;
	state->h[1] ^= v1 ^ v9;
	state->h[2] ^= v2 ^ v10;
	state->h[3] ^= v3 ^ v11;
	state->h[4] ^= v4 ^ v12;
	state->h[5] ^= v5 ^ v13;
	state->h[6] ^= v6 ^ v14;
	state->h[7] ^= v7 ^ v15;
	crypto_wipe(m, sizeof(m));
}

/* t is a 64-bit byte counter kept as two words (RFC 7693 §3.2) */
static void blake2s_count(struct blake2s_state *state, uint32_t inc)
{
	state->t[0] += inc;
	state->t[1] += (state->t[0] < inc);
}

void blake2s_init_key(struct blake2s_state *state, size_t outlen, const uint8_t *key, size_t keylen)
{
	size_t i;

	/*
	 * Out-of-range sizes are a caller's bug that would write past the
	 * 32-byte output or corrupt the parameter block: stop rather than
	 * compute a wrong hash (every caller here passes constants).
	 */
	if (outlen == 0 || outlen > BLAKE2S_HASH_SIZE || keylen > BLAKE2S_KEY_SIZE ||
	    (keylen && !key))
		abort();

	/*
	 * Parameter block word 0 (RFC 7693 §2.5): digest length, key
	 * length, fanout 1, depth 1; the other words are zero.
	 */
	memset(state, 0, sizeof(*state));
	for (i = 0; i < 8; i++)
		state->h[i] = blake2s_iv[i];
	state->h[0] ^= 0x01010000u ^ ((uint32_t)keylen << 8) ^ (uint32_t)outlen;
	state->outlen = outlen;
	/* A key is the first data block, zero padded (RFC 7693 §3.3). */
	if (keylen > 0) {
		memcpy(state->buf, key, keylen);
		state->buflen = BLAKE2S_BLOCK_SIZE;
	}
}

void blake2s_init(struct blake2s_state *state, size_t outlen)
{
	blake2s_init_key(state, outlen, NULL, 0);
}

/*
 * A full buffer is compressed only once more input arrives: the last block
 * of the message, even a full one, must wait for blake2s_final() to be
 * compressed with the final flag.  Every block passes through buf; the
 * inputs here are a few blocks at most.
 */
void blake2s_update(struct blake2s_state *state, const uint8_t *in, size_t inlen)
{
	size_t n;

	while (inlen > 0) {
		if (state->buflen == BLAKE2S_BLOCK_SIZE) {
			blake2s_count(state, BLAKE2S_BLOCK_SIZE);
			blake2s_compress(state, state->buf);
			state->buflen = 0;
		}
		n = BLAKE2S_BLOCK_SIZE - state->buflen;
		if (n > inlen)
			n = inlen;
		memcpy(state->buf + state->buflen, in, n);
		state->buflen += n;
		in += n;
		inlen -= n;
	}
}

void blake2s_final(struct blake2s_state *state, uint8_t *out)
{
	size_t i;

	blake2s_count(state, (uint32_t)state->buflen);
	state->f[0] = 0xffffffffu;	/* last block (RFC 7693 §3.2) */
	memset(state->buf + state->buflen, 0, BLAKE2S_BLOCK_SIZE - state->buflen);
	blake2s_compress(state, state->buf);
	/* the digest goes through buf, which is wiped with the rest */
	for (i = 0; i < 8; i++)
		le32_store(state->buf + 4 * i, state->h[i]);
	memcpy(out, state->buf, state->outlen);
	crypto_wipe(state, sizeof(*state));
}

void blake2s(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen, const uint8_t *key, size_t keylen)
{
	struct blake2s_state state;

	blake2s_init_key(&state, outlen, key, keylen);
	blake2s_update(&state, in, inlen);
	blake2s_final(&state, out);
}

void blake2s_concat(uint8_t *out, size_t outlen, const uint8_t *a, size_t alen, const uint8_t *b,
		    size_t blen)
{
	struct blake2s_state state;

	blake2s_init(&state, outlen);
	blake2s_update(&state, a, alen);
	blake2s_update(&state, b, blen);
	blake2s_final(&state, out);
}

/*
 * HMAC (RFC 2104) over BLAKE2s: H((K ^ opad) || H((K ^ ipad) || text)), K
 * zero padded to the 64-byte block, a longer key hashed first.  out may
 * alias in: the text is read before out is written.
 */
void blake2s_hmac(uint8_t out[BLAKE2S_HASH_SIZE], const uint8_t *in, size_t inlen,
		  const uint8_t *key, size_t keylen)
{
	uint8_t k[BLAKE2S_BLOCK_SIZE];
	uint8_t inner[BLAKE2S_HASH_SIZE];
	size_t i;

	memset(k, 0, sizeof(k));
	if (keylen > BLAKE2S_BLOCK_SIZE)
		blake2s(k, BLAKE2S_HASH_SIZE, key, keylen, NULL, 0);
	else if (keylen > 0)
		memcpy(k, key, keylen);

	for (i = 0; i < BLAKE2S_BLOCK_SIZE; i++)
		k[i] ^= 0x36;	/* ipad */
	blake2s_concat(inner, BLAKE2S_HASH_SIZE, k, BLAKE2S_BLOCK_SIZE, in, inlen);
	for (i = 0; i < BLAKE2S_BLOCK_SIZE; i++)
		k[i] ^= 0x36 ^ 0x5c;	/* from K ^ ipad to K ^ opad */
	blake2s_concat(out, BLAKE2S_HASH_SIZE, k, BLAKE2S_BLOCK_SIZE, inner, BLAKE2S_HASH_SIZE);

	crypto_wipe(k, sizeof(k));
	crypto_wipe(inner, sizeof(inner));
}

/*
 * KDF1..3 of whitepaper §5.4 (HKDF with the chaining key as salt):
 * t_i = HMAC(t0, t_(i-1) || i), t_0 empty.  chaining_key and data are read
 * only for t0, before any output is written, so an output may alias either.
 */
void blake2s_kdf(uint8_t *first, uint8_t *second, uint8_t *third, const uint8_t *data,
		 size_t data_len, const uint8_t chaining_key[BLAKE2S_HASH_SIZE])
{
	uint8_t *const outs[3] = { first, second, third };
	uint8_t t0[BLAKE2S_HASH_SIZE];
	uint8_t t[BLAKE2S_HASH_SIZE + 1];	/* t_i || the next counter byte */
	size_t i, n = third ? 3 : second ? 2 : 1, len = 0;

	blake2s_hmac(t0, data, data_len, chaining_key, BLAKE2S_HASH_SIZE);
	for (i = 0; i < n; i++) {
		t[len] = (uint8_t)(i + 1);
		blake2s_hmac(t, t, len + 1, t0, BLAKE2S_HASH_SIZE);
		len = BLAKE2S_HASH_SIZE;
		if (outs[i])
			memcpy(outs[i], t, BLAKE2S_HASH_SIZE);
	}
	crypto_wipe(t0, sizeof(t0));
	crypto_wipe(t, sizeof(t));
}
