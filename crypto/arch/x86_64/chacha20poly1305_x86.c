// SPDX-License-Identifier: GPL-2.0-only
/*
 * ChaCha20-Poly1305 (RFC 8439 §2.8) on x86-64 with the AVX2 ChaCha20 core.
 *
 * The generic AEAD (crypto/chacha20poly1305.c) makes the Poly1305 key from
 * keystream block 0 with a scalar block of its own, then encrypts from block
 * 1.  Here the first eight-block AVX2 group, blocks 0..7, gives both: the
 * key from block 0 and the keystream of the first 448 data bytes from blocks
 * 1..7.  A 1420-byte packet needs blocks 0..23, exactly three groups,
 * instead of a scalar block and three groups.
 *
 * The data is still passed over twice, ChaCha20 then Poly1305 (seal) or
 * Poly1305 then ChaCha20 (open); at packet sizes both passes run in L1.
 * Open computes and checks the tag over the ciphertext before it writes a
 * byte of dst, as the generic code does, so a forgery never reaches dst
 * (which may be src itself); the keystream of the first group waits on the
 * stack meanwhile and is wiped on every path.
 */
#include "crypto/arch/glue.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/chacha20poly1305_impl.h"
#include "crypto/util.h"

#define X86_GROUP (8 * CHACHA20_BLOCK_SIZE)
/* data bytes covered by the first group, whose block 0 is the Poly1305 key */
#define X86_FIRST (X86_GROUP - CHACHA20_BLOCK_SIZE)
/*
 * Up to one block of data, the generic path's two scalar blocks (key and
 * data) cost about what one eight-block group does (chacha20_avx2.c,
 * CHACHA20_AVX2_MIN_TAIL); from two blocks on, the group is cheaper.
 */
#define X86_MIN_LEN (CHACHA20_BLOCK_SIZE + 1)

/* Blocks 0..7 into ks; chacha is left at block 8. */
static void x86_first_group(struct chacha20_ctx *chacha, uint8_t ks[X86_GROUP],
			    const uint8_t nonce[12], const uint8_t key[32])
{
	chacha20_init(chacha, key, nonce, 0);
	chacha20_avx2_stream8(ks, chacha->state);
	chacha->state[12] = 8;
}

/* dst = src XOR keystream from block 1: the first X86_FIRST bytes from ks. */
static void x86_xor(struct chacha20_ctx *chacha, const uint8_t ks[X86_GROUP], uint8_t *dst,
		    const uint8_t *src, size_t len)
{
	size_t first = len < X86_FIRST ? len : X86_FIRST;

	chacha20_avx2_xor_ks(dst, src, ks + CHACHA20_BLOCK_SIZE, first);
	if (len > first)
		chacha20_avx2_xor(dst + first, src + first, len - first, chacha->state);
}

bool chacha20poly1305_x86_seal(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[12], const uint8_t key[32])
{
	struct chacha20_ctx chacha;
	uint8_t ks[X86_GROUP];

	if (len < X86_MIN_LEN || crypto_x86_level() < CRYPTO_X86_AVX2)
		return false;
	x86_first_group(&chacha, ks, nonce, key);
	x86_xor(&chacha, ks, dst, src, len);
	chacha20poly1305_tag(dst + len, ks, ad, ad_len, dst, len);
	crypto_wipe(ks, sizeof(ks));
	chacha20_clear(&chacha);
	return true;
}

bool chacha20poly1305_x86_open(bool *ok, uint8_t *dst, const uint8_t *src, size_t ct_len,
			       const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
			       const uint8_t key[32])
{
	struct chacha20_ctx chacha;
	uint8_t ks[X86_GROUP];
	uint8_t tag[CHACHA20POLY1305_AUTHTAG_SIZE];
	bool good;

	if (ct_len < X86_MIN_LEN || crypto_x86_level() < CRYPTO_X86_AVX2)
		return false;
	x86_first_group(&chacha, ks, nonce, key);
	chacha20poly1305_tag(tag, ks, ad, ad_len, src, ct_len);
	good = crypto_equal(tag, src + ct_len, sizeof(tag));
	/* The verdict is the public result; the branch on it is the only one. */
	crypto_declassify(&good, sizeof(good));
	if (good)
		x86_xor(&chacha, ks, dst, src, ct_len);
	crypto_wipe(tag, sizeof(tag));
	crypto_wipe(ks, sizeof(ks));
	chacha20_clear(&chacha);
	*ok = good;
	return true;
}
