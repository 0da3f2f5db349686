// SPDX-License-Identifier: GPL-2.0-only
/*
 * ChaCha20 (RFC 8439 §2.3-2.4) eight blocks at a time with AVX2, and the
 * run-time choice between it and the generic core (crypto/chacha20.c) by
 * crypto_x86_level().
 *
 * Layout: "vertical", as the generic four-block core: ymm register i holds
 * word i of eight consecutive blocks (lane j = block j), so a round is the
 * scalar quarter round applied to whole registers and no lane ever moves
 * until the output.  There, an 8x8 transpose per half block (words 0..7,
 * words 8..15; chacha20_x86.h) turns lanes back into blocks.
 *
 * The AVX2 code lives only in functions marked target("avx2"): the rest of
 * the program is built for baseline x86-64 and this file adds no -m flag,
 * so nothing here runs on a CPU that lacks AVX2 unless the dispatch below
 * chose it.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/arch/glue.h"
#include "crypto/arch/x86_64/chacha20_x86.h"
#include "crypto/chacha20.h"
#include "crypto/util.h"

#define AVX2_TARGET __attribute__((target("avx2")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

#define CHACHA20_AVX2_BLOCKS 8
#define CHACHA20_AVX2_BYTES (CHACHA20_AVX2_BLOCKS * CHACHA20_BLOCK_SIZE)

/* Rotations by 16 and 8 are byte shuffles (one vpshufb), the others shifts. */
AVX2_INLINE __m256i avx2_rol16(__m256i v)
{
	const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
					   2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);

	return _mm256_shuffle_epi8(v, m);
}

AVX2_INLINE __m256i avx2_rol8(__m256i v)
{
	const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
					   3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);

	return _mm256_shuffle_epi8(v, m);
}

#define AVX2_ROL_SHIFT(v, n) _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - (n)))

/* The quarter round of RFC 8439 §2.1 on eight blocks. */
#define AVX2_QR(a, b, c, d)							\
	do {									\
		a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a);		\
		d = avx2_rol16(d);						\
		c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c);		\
		b = AVX2_ROL_SHIFT(b, 12);					\
		a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a);		\
		d = avx2_rol8(d);						\
		c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c);		\
		b = AVX2_ROL_SHIFT(b, 7);					\
	} while (0)

/*
 * Words 8 half .. 8 half + 7 of eight blocks after the final addition
 * (a .. h): 32 bytes of each block, XORed into dst at offset 64 j + 32 half
 * for block j.  src == NULL: bare keystream.
 */
AVX2_INLINE void avx2_out8(uint8_t *dst, const uint8_t *src, size_t half, __m256i a, __m256i b,
			   __m256i c, __m256i d, __m256i e, __m256i f, __m256i g, __m256i h)
{
	__m256i ks[8];
	size_t j;

	chacha20_x86_transpose8(ks, a, b, c, d, e, f, g, h);
	for (j = 0; j < 8; j++) {
		size_t off = 64 * j + 32 * half;

		if (src != NULL)
			ks[j] = _mm256_xor_si256(ks[j], _mm256_loadu_si256((const __m256i *)(src + off)));
		_mm256_storeu_si256((__m256i *)(dst + off), ks[j]);
	}
}

#define AVX2_BCAST(i) _mm256_set1_epi32((int)s[i])
#define AVX2_ADD(i) x##i = _mm256_add_epi32(x##i, AVX2_BCAST(i))

/*
 * Eight blocks, counters s[12] .. s[12] + 7 (mod 2^32, as the generic core:
 * RFC 8439 §2.4 leaves the nonce words alone): 512 bytes of dst.  loadu and
 * storeu take any alignment, and each 32-byte piece of src is read before
 * the same piece of dst is written, so dst may equal src.
 */
AVX2_INLINE void avx2_blocks(uint8_t *dst, const uint8_t *src, const uint32_t s[16])
{
	const __m256i ctr = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i x0 = AVX2_BCAST(0), x1 = AVX2_BCAST(1), x2 = AVX2_BCAST(2), x3 = AVX2_BCAST(3);
	__m256i x4 = AVX2_BCAST(4), x5 = AVX2_BCAST(5), x6 = AVX2_BCAST(6), x7 = AVX2_BCAST(7);
	__m256i x8 = AVX2_BCAST(8), x9 = AVX2_BCAST(9), x10 = AVX2_BCAST(10);
	__m256i x11 = AVX2_BCAST(11), x12 = _mm256_add_epi32(AVX2_BCAST(12), ctr);
	__m256i x13 = AVX2_BCAST(13), x14 = AVX2_BCAST(14), x15 = AVX2_BCAST(15);
	int r;

	/* 10 double rounds: columns, then diagonals (RFC 8439 §2.3) */
	for (r = 0; r < 10; r++) {
		AVX2_QR(x0, x4, x8, x12);
		AVX2_QR(x1, x5, x9, x13);
		AVX2_QR(x2, x6, x10, x14);
		AVX2_QR(x3, x7, x11, x15);
		AVX2_QR(x0, x5, x10, x15);
		AVX2_QR(x1, x6, x11, x12);
		AVX2_QR(x2, x7, x8, x13);
		AVX2_QR(x3, x4, x9, x14);
	}
	AVX2_ADD(0); AVX2_ADD(1); AVX2_ADD(2); AVX2_ADD(3);
	AVX2_ADD(4); AVX2_ADD(5); AVX2_ADD(6); AVX2_ADD(7);
	avx2_out8(dst, src, 0, x0, x1, x2, x3, x4, x5, x6, x7);
	AVX2_ADD(8); AVX2_ADD(9); AVX2_ADD(10); AVX2_ADD(11);
	x12 = _mm256_add_epi32(x12, _mm256_add_epi32(AVX2_BCAST(12), ctr));
	AVX2_ADD(13); AVX2_ADD(14); AVX2_ADD(15);
	avx2_out8(dst, src, 1, x8, x9, x10, x11, x12, x13, x14, x15);
}

/* dst[0..len) = src XOR ks[0..len), 32 bytes at a time, then bytes. */
AVX2_INLINE void avx2_xor_tail(uint8_t *dst, const uint8_t *src, const uint8_t *ks, size_t len)
{
	size_t i = 0;

	for (; i + 32 <= len; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(src + i));

		v = _mm256_xor_si256(v, _mm256_loadu_si256((const __m256i *)(ks + i)));
		_mm256_storeu_si256((__m256i *)(dst + i), v);
	}
	for (; i < len; i++)
		dst[i] = src[i] ^ ks[i];
}

/*
 * Up to this many bytes left after the whole 512-byte groups go to the
 * generic core: one scalar block costs half of an eight-block AVX2 run, two
 * cost about the same (bench-crypto, 2026-11-30: 64 bytes 290 cycles, 128
 * bytes 550, 192 bytes through AVX2 585), and beyond two the AVX2 run wins.
 */
#define CHACHA20_AVX2_MIN_TAIL (2 * CHACHA20_BLOCK_SIZE)

AVX2_TARGET void chacha20_avx2_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16])
{
	uint8_t ks[CHACHA20_AVX2_BYTES];

	for (; len >= CHACHA20_AVX2_BYTES; len -= CHACHA20_AVX2_BYTES) {
		avx2_blocks(dst, src, state);
		state[12] += CHACHA20_AVX2_BLOCKS;	/* wraps mod 2^32 (RFC 8439 §2.4) */
		dst += CHACHA20_AVX2_BYTES;
		src += CHACHA20_AVX2_BYTES;
	}
	if (len <= CHACHA20_AVX2_MIN_TAIL) {
		if (len > 0)
			chacha20_generic_xor(dst, src, len, state);
		return;
	}
	/* 129..511 bytes: eight blocks of keystream on the stack, then XOR */
	avx2_blocks(ks, NULL, state);
	state[12] += (uint32_t)((len + CHACHA20_BLOCK_SIZE - 1) / CHACHA20_BLOCK_SIZE);
	avx2_xor_tail(dst, src, ks, len);
	crypto_wipe(ks, sizeof(ks));
}

AVX2_TARGET void chacha20_avx2_stream8(uint8_t out[512], const uint32_t state[16])
{
	avx2_blocks(out, NULL, state);
}

AVX2_TARGET void chacha20_avx2_xor_ks(uint8_t *dst, const uint8_t *src, const uint8_t *ks, size_t len)
{
	avx2_xor_tail(dst, src, ks, len);
}

/* The core crypto_x86_level() selects (x86_64/cpu.c). */
void chacha20_x86_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16])
{
	int level = crypto_x86_level();

	if (level >= CRYPTO_X86_AVX512)
		chacha20_avx512_xor(dst, src, len, state);
	else if (level >= CRYPTO_X86_AVX2)
		chacha20_avx2_xor(dst, src, len, state);
	else
		chacha20_generic_xor(dst, src, len, state);
}
