// SPDX-License-Identifier: GPL-2.0-only
/*
 * ChaCha20 (RFC 8439 §2.3-2.4) sixteen or eight blocks at a time with
 * AVX-512: F for zmm registers, VL for the same instructions on ymm, BW for
 * byte masks.
 *
 * Layout: "vertical", as the AVX2 core (chacha20_avx2.c): register i holds
 * word i of consecutive blocks, lane j = block j.  What AVX-512 adds:
 * - vprold rotates each lane in one instruction, where AVX2 needs a byte
 *   shuffle (by 16 and 8) or two shifts and an OR (by 12 and 7): a quarter
 *   round is 12 instructions instead of 16;
 * - sixteen lanes in a zmm register.  After the rounds a 16x16 transpose
 *   (32-bit and 64-bit interleaves inside each 128-bit quarter, then two
 *   passes of 128-bit shuffles between registers) leaves block j whole in
 *   one register;
 * - byte masks: a last partial block is loaded and stored under a mask, so
 *   any length is done in the vector registers, with no keystream buffer
 *   and no byte loop.
 * Where a group of 512 bytes or less is left (or the whole input is that
 * short), eight blocks run in ymm registers: on cores that execute a zmm
 * instruction as two ymm halves (AMD Zen 4) sixteen lanes cost twice
 * eight, so the narrower group halves the cost of a short tail.
 *
 * The AVX-512 code lives only in functions marked with the target
 * attribute, as in chacha20_avx2.c; crypto_x86_level() (cpu.c) chooses it.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/arch/glue.h"
#include "crypto/arch/x86_64/chacha20_x86.h"
#include "crypto/chacha20.h"

#define AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512bw")))
#define AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,avx512vl,avx512bw")))

/*
 * The quarter round of RFC 8439 §2.1 on every lane, with the add, XOR and
 * rotate of one register width (ADD, XOR, ROL).
 */
#define AVX512_QR(ADD, XOR, ROL, a, b, c, d)					\
	do {									\
		a = ADD(a, b); d = XOR(d, a); d = ROL(d, 16);			\
		c = ADD(c, d); b = XOR(b, c); b = ROL(b, 12);			\
		a = ADD(a, b); d = XOR(d, a); d = ROL(d, 8);			\
		c = ADD(c, d); b = XOR(b, c); b = ROL(b, 7);			\
	} while (0)

/* 10 double rounds: columns, then diagonals (RFC 8439 §2.3) */
#define AVX512_ROUNDS(ADD, XOR, ROL)						\
	do {									\
		int r_;								\
		for (r_ = 0; r_ < 10; r_++) {					\
			AVX512_QR(ADD, XOR, ROL, x0, x4, x8, x12);		\
			AVX512_QR(ADD, XOR, ROL, x1, x5, x9, x13);		\
			AVX512_QR(ADD, XOR, ROL, x2, x6, x10, x14);		\
			AVX512_QR(ADD, XOR, ROL, x3, x7, x11, x15);		\
			AVX512_QR(ADD, XOR, ROL, x0, x5, x10, x15);		\
			AVX512_QR(ADD, XOR, ROL, x1, x6, x11, x12);		\
			AVX512_QR(ADD, XOR, ROL, x2, x7, x8, x13);		\
			AVX512_QR(ADD, XOR, ROL, x3, x4, x9, x14);		\
		}								\
	} while (0)

/* Mask of the first n bytes of a piece of 64 (or fewer) bytes. */
AVX512_INLINE __mmask64 avx512_bytes(size_t n)
{
	return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
}

/*
 * One 64-byte block out: dst[0..n) = src[0..n) XOR ks (src NULL: the
 * keystream itself), n <= 64.  src is read before dst is written.
 */
AVX512_INLINE void avx512_out64(uint8_t *dst, const uint8_t *src, size_t n, __m512i ks)
{
	if (n >= 64) {
		if (src != NULL)
			ks = _mm512_xor_si512(ks, _mm512_loadu_si512(src));
		_mm512_storeu_si512(dst, ks);
		return;
	}
	if (src != NULL)
		ks = _mm512_xor_si512(ks, _mm512_maskz_loadu_epi8(avx512_bytes(n), src));
	_mm512_mask_storeu_epi8(dst, avx512_bytes(n), ks);
}

/*
 * Blocks k, k + 4, k + 8, k + 12 from the 4x4-transposed quarters t (words
 * 0..3), u (4..7), v (8..11), w (12..15): 128-bit piece q of each holds
 * block k + 4 q.  Written to dst + 64 j for the blocks below len.
 */
AVX512_INLINE void avx512_out4(uint8_t *dst, const uint8_t *src, size_t len, size_t k, __m512i t,
			       __m512i u, __m512i v, __m512i w)
{
	/* 0x44: pieces 0, 1 of a then 0, 1 of b; 0xee: pieces 2, 3 of each */
	__m512i tu01 = _mm512_shuffle_i32x4(t, u, 0x44), vw01 = _mm512_shuffle_i32x4(v, w, 0x44);
	__m512i tu23 = _mm512_shuffle_i32x4(t, u, 0xee), vw23 = _mm512_shuffle_i32x4(v, w, 0xee);
	/* 0x88: pieces 0, 2 of a then 0, 2 of b; 0xdd: pieces 1, 3 of each */
	__m512i b[4] = {
		_mm512_shuffle_i32x4(tu01, vw01, 0x88),	/* block k */
		_mm512_shuffle_i32x4(tu01, vw01, 0xdd),	/* block k + 4 */
		_mm512_shuffle_i32x4(tu23, vw23, 0x88),	/* block k + 8 */
		_mm512_shuffle_i32x4(tu23, vw23, 0xdd),	/* block k + 12 */
	};
	size_t q;

	for (q = 0; q < 4; q++) {
		size_t off = 64 * (k + 4 * q);

		if (off < len)
			avx512_out64(dst + off, src != NULL ? src + off : NULL, len - off, b[q]);
	}
}

/* 4x4 transposes inside each 128-bit quarter of a, b, c, d (words 4g .. 4g+3). */
#define AVX512_T4(a, b, c, d, t0, t1, t2, t3)					\
	do {									\
		__m512i ab_lo = _mm512_unpacklo_epi32(a, b), ab_hi = _mm512_unpackhi_epi32(a, b); \
		__m512i cd_lo = _mm512_unpacklo_epi32(c, d), cd_hi = _mm512_unpackhi_epi32(c, d); \
		t0 = _mm512_unpacklo_epi64(ab_lo, cd_lo);			\
		t1 = _mm512_unpackhi_epi64(ab_lo, cd_lo);			\
		t2 = _mm512_unpacklo_epi64(ab_hi, cd_hi);			\
		t3 = _mm512_unpackhi_epi64(ab_hi, cd_hi);			\
	} while (0)

#define BCAST16(i) _mm512_set1_epi32((int)s[i])
#define ADD16(i) x##i = _mm512_add_epi32(x##i, BCAST16(i))

/*
 * Sixteen blocks, counters s[12] .. s[12] + 15 (mod 2^32, as the generic
 * core: RFC 8439 §2.4 leaves the nonce words alone), into dst[0..len),
 * len <= 1024; the blocks past len are computed and dropped.
 */
AVX512_INLINE void avx512_group16(uint8_t *dst, const uint8_t *src, size_t len, const uint32_t s[16])
{
	const __m512i ctr = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m512i x0 = BCAST16(0), x1 = BCAST16(1), x2 = BCAST16(2), x3 = BCAST16(3);
	__m512i x4 = BCAST16(4), x5 = BCAST16(5), x6 = BCAST16(6), x7 = BCAST16(7);
	__m512i x8 = BCAST16(8), x9 = BCAST16(9), x10 = BCAST16(10), x11 = BCAST16(11);
	__m512i x12 = _mm512_add_epi32(BCAST16(12), ctr);
	__m512i x13 = BCAST16(13), x14 = BCAST16(14), x15 = BCAST16(15);
	__m512i t[4], u[4], v[4], w[4];
	size_t k;

	AVX512_ROUNDS(_mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32);
	ADD16(0); ADD16(1); ADD16(2); ADD16(3);
	ADD16(4); ADD16(5); ADD16(6); ADD16(7);
	ADD16(8); ADD16(9); ADD16(10); ADD16(11);
	x12 = _mm512_add_epi32(x12, _mm512_add_epi32(BCAST16(12), ctr));
	ADD16(13); ADD16(14); ADD16(15);
	AVX512_T4(x0, x1, x2, x3, t[0], t[1], t[2], t[3]);
	AVX512_T4(x4, x5, x6, x7, u[0], u[1], u[2], u[3]);
	AVX512_T4(x8, x9, x10, x11, v[0], v[1], v[2], v[3]);
	AVX512_T4(x12, x13, x14, x15, w[0], w[1], w[2], w[3]);
	for (k = 0; k < 4; k++)
		avx512_out4(dst, src, len, k, t[k], u[k], v[k], w[k]);
}

#define BCAST8(i) _mm256_set1_epi32((int)s[i])
#define ADD8(i) x##i = _mm256_add_epi32(x##i, BCAST8(i))

/* One 32-byte half block out: dst[0..n) = src[0..n) XOR ks, n <= 32. */
AVX512_INLINE void avx512_out32(uint8_t *dst, const uint8_t *src, size_t n, __m256i ks)
{
	__mmask32 m = n >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << n) - 1;

	if (src != NULL)
		ks = _mm256_xor_si256(ks, _mm256_maskz_loadu_epi8(m, src));
	_mm256_mask_storeu_epi8(dst, m, ks);
}

/*
 * Words 8 half .. 8 half + 7 of eight blocks (a .. h after the final
 * addition) to dst + 64 j + 32 half, for the bytes below len.
 */
AVX512_INLINE void avx512_out8(uint8_t *dst, const uint8_t *src, size_t len, size_t half, __m256i a,
			       __m256i b, __m256i c, __m256i d, __m256i e, __m256i f, __m256i g,
			       __m256i h)
{
	__m256i ks[8];
	size_t j;

	chacha20_x86_transpose8(ks, a, b, c, d, e, f, g, h);
	for (j = 0; j < 8; j++) {
		size_t off = 64 * j + 32 * half;

		if (off < len)
			avx512_out32(dst + off, src != NULL ? src + off : NULL, len - off, ks[j]);
	}
}

/* Eight blocks in ymm registers, as avx512_group16, len <= 512. */
AVX512_INLINE void avx512_group8(uint8_t *dst, const uint8_t *src, size_t len, const uint32_t s[16])
{
	const __m256i ctr = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	__m256i x0 = BCAST8(0), x1 = BCAST8(1), x2 = BCAST8(2), x3 = BCAST8(3);
	__m256i x4 = BCAST8(4), x5 = BCAST8(5), x6 = BCAST8(6), x7 = BCAST8(7);
	__m256i x8 = BCAST8(8), x9 = BCAST8(9), x10 = BCAST8(10), x11 = BCAST8(11);
	__m256i x12 = _mm256_add_epi32(BCAST8(12), ctr);
	__m256i x13 = BCAST8(13), x14 = BCAST8(14), x15 = BCAST8(15);

	AVX512_ROUNDS(_mm256_add_epi32, _mm256_xor_si256, _mm256_rol_epi32);
	ADD8(0); ADD8(1); ADD8(2); ADD8(3);
	ADD8(4); ADD8(5); ADD8(6); ADD8(7);
	avx512_out8(dst, src, len, 0, x0, x1, x2, x3, x4, x5, x6, x7);
	ADD8(8); ADD8(9); ADD8(10); ADD8(11);
	x12 = _mm256_add_epi32(x12, _mm256_add_epi32(BCAST8(12), ctr));
	ADD8(13); ADD8(14); ADD8(15);
	avx512_out8(dst, src, len, 1, x8, x9, x10, x11, x12, x13, x14, x15);
}

/* Blocks used for len bytes, a partial last one counting as one. */
#define AVX512_BLOCKS(len) ((uint32_t)(((len) + CHACHA20_BLOCK_SIZE - 1) / CHACHA20_BLOCK_SIZE))

/*
 * Up to this many bytes left, the generic core: one scalar block costs
 * less than an eight-block group (bench-crypto on an AMD EPYC with
 * AVX-512, 2026-12-02: 64 bytes 255 against 372 TSC cycles; 128 bytes 438
 * against 383).
 */
#define AVX512_MIN_TAIL CHACHA20_BLOCK_SIZE

AVX512_TARGET void chacha20_avx512_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16])
{
	/* sixteen blocks while more than eight are left */
	while (len > 8 * CHACHA20_BLOCK_SIZE) {
		size_t n = len < 16 * CHACHA20_BLOCK_SIZE ? len : 16 * CHACHA20_BLOCK_SIZE;

		avx512_group16(dst, src, n, state);
		state[12] += AVX512_BLOCKS(n);	/* wraps mod 2^32 (RFC 8439 §2.4) */
		dst += n;
		src += n;
		len -= n;
	}
	if (len > AVX512_MIN_TAIL) {
		avx512_group8(dst, src, len, state);
		state[12] += AVX512_BLOCKS(len);
	} else if (len > 0) {
		chacha20_generic_xor(dst, src, len, state);
	}
}

AVX512_TARGET void chacha20_avx512_stream(uint8_t *out, size_t len, const uint32_t state[16])
{
	if (len > 8 * CHACHA20_BLOCK_SIZE)
		avx512_group16(out, NULL, len, state);
	else
		avx512_group8(out, NULL, len, state);
}
