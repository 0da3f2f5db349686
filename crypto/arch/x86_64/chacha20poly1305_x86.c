// SPDX-License-Identifier: GPL-2.0-only
/*
 * ChaCha20-Poly1305 (RFC 8439 §2.8) on x86-64 with the vector ChaCha20 cores
 * (AVX2, AVX-512).
 *
 * The generic AEAD (crypto/chacha20poly1305.c) makes the Poly1305 key from
 * keystream block 0 with a scalar block of its own, then encrypts from block
 * 1.  Here the first vector group gives both: the key from block 0 and the
 * keystream of the first data bytes from the group's other blocks: blocks
 * 0..7 with AVX2 (448 data bytes), blocks 0..15 at the AVX-512 level when
 * the data needs more than seven blocks (960 bytes).  A 1420-byte packet
 * needs blocks 0..23: three AVX2 groups, or one sixteen- and one eight-block
 * AVX-512 group, instead of a scalar block and then the groups.
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

/* the largest first group: sixteen blocks (AVX-512), eight with AVX2 */
#define X86_GROUP_MAX (16 * CHACHA20_BLOCK_SIZE)
/*
 * Up to one block of data, the generic path's two scalar blocks (key and
 * data) cost about what one eight-block group does (chacha20_avx2.c,
 * CHACHA20_AVX2_MIN_TAIL); from two blocks on, the group is cheaper.
 */
#define X86_MIN_LEN (CHACHA20_BLOCK_SIZE + 1)

/*
 * The first group's keystream into ks: block 0 (the Poly1305 key) and the
 * blocks of the first data bytes, as many as the level's group holds.
 * Returns the group's size in bytes (ks + 64 covers that less 64 bytes of
 * data); chacha is left at the block after the group.
 */
static size_t x86_first_group(struct chacha20_ctx *chacha, uint8_t ks[X86_GROUP_MAX], size_t len,
			      int level, const uint8_t nonce[12], const uint8_t key[32])
{
	size_t group = 8 * CHACHA20_BLOCK_SIZE;

	chacha20_init(chacha, key, nonce, 0);
	if (level >= CRYPTO_X86_AVX512) {
		/* sixteen blocks if the data needs more than seven */
		if (len > group - CHACHA20_BLOCK_SIZE)
			group = X86_GROUP_MAX;
		chacha20_avx512_stream(ks, group, chacha->state);
	} else {
		chacha20_avx2_stream8(ks, chacha->state);
	}
	chacha->state[12] = (uint32_t)(group / CHACHA20_BLOCK_SIZE);
	return group;
}

/*
 * dst = src XOR keystream from block 1: the bytes the first group covers
 * (group less the key block) from ks, the rest from chacha's next block on.
 */
static void x86_xor(struct chacha20_ctx *chacha, const uint8_t ks[X86_GROUP_MAX], size_t group,
		    int level, uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t first = len < group - CHACHA20_BLOCK_SIZE ? len : group - CHACHA20_BLOCK_SIZE;

	chacha20_avx2_xor_ks(dst, src, ks + CHACHA20_BLOCK_SIZE, first);
	if (len == first)
		return;
	if (level >= CRYPTO_X86_AVX512)
		chacha20_avx512_xor(dst + first, src + first, len - first, chacha->state);
	else
		chacha20_avx2_xor(dst + first, src + first, len - first, chacha->state);
}

bool chacha20poly1305_x86_seal(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[12], const uint8_t key[32])
{
	int level = crypto_x86_level();
	struct chacha20_ctx chacha;
	uint8_t ks[X86_GROUP_MAX];
	size_t group;

	if (len < X86_MIN_LEN || level < CRYPTO_X86_AVX2)
		return false;
	group = x86_first_group(&chacha, ks, len, level, nonce, key);
	x86_xor(&chacha, ks, group, level, dst, src, len);
	chacha20poly1305_tag(dst + len, ks, ad, ad_len, dst, len);
	crypto_wipe(ks, group);
	chacha20_clear(&chacha);
	return true;
}

bool chacha20poly1305_x86_open(bool *ok, uint8_t *dst, const uint8_t *src, size_t ct_len,
			       const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
			       const uint8_t key[32])
{
	int level = crypto_x86_level();
	struct chacha20_ctx chacha;
	uint8_t ks[X86_GROUP_MAX];
	uint8_t tag[CHACHA20POLY1305_AUTHTAG_SIZE];
	size_t group;
	bool good;

	if (ct_len < X86_MIN_LEN || level < CRYPTO_X86_AVX2)
		return false;
	group = x86_first_group(&chacha, ks, ct_len, level, nonce, key);
	chacha20poly1305_tag(tag, ks, ad, ad_len, src, ct_len);
	good = crypto_equal(tag, src + ct_len, sizeof(tag));
	/* The verdict is the public result; the branch on it is the only one. */
	crypto_declassify(&good, sizeof(good));
	if (good)
		x86_xor(&chacha, ks, group, level, dst, src, ct_len);
	crypto_wipe(tag, sizeof(tag));
	crypto_wipe(ks, group);
	chacha20_clear(&chacha);
	*ok = good;
	return true;
}
