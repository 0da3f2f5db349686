/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the AVX2 and AVX-512 ChaCha20 cores (chacha20_avx2.c,
 * chacha20_avx512.c) share: turning eight lanes back into blocks.
 */
#ifndef WGD_CRYPTO_ARCH_X86_64_CHACHA20_X86_H
#define WGD_CRYPTO_ARCH_X86_64_CHACHA20_X86_H

#include <immintrin.h>

/*
 * Words 4g .. 4g+3 (a, b, c, d) and 4g+4 .. 4g+7 (e, f, g, h) of eight
 * blocks, lane j = block j, to the 32 bytes those words are in each block:
 * out[j] for block j.  4x4 transposes within each 128-bit half (32- and
 * 64-bit interleaves), then a 128-bit permute joins the halves.
 */
static inline __attribute__((always_inline, target("avx2"))) void
chacha20_x86_transpose8(__m256i out[8], __m256i a, __m256i b, __m256i c, __m256i d, __m256i e,
			__m256i f, __m256i g, __m256i h)
{
	__m256i ab_lo = _mm256_unpacklo_epi32(a, b), ab_hi = _mm256_unpackhi_epi32(a, b);
	__m256i cd_lo = _mm256_unpacklo_epi32(c, d), cd_hi = _mm256_unpackhi_epi32(c, d);
	__m256i ef_lo = _mm256_unpacklo_epi32(e, f), ef_hi = _mm256_unpackhi_epi32(e, f);
	__m256i gh_lo = _mm256_unpacklo_epi32(g, h), gh_hi = _mm256_unpackhi_epi32(g, h);
	/* t[k], u[k]: block k in the low half, block k + 4 in the high half */
	__m256i t[4], u[4];
	int k;

	t[0] = _mm256_unpacklo_epi64(ab_lo, cd_lo);
	t[1] = _mm256_unpackhi_epi64(ab_lo, cd_lo);
	t[2] = _mm256_unpacklo_epi64(ab_hi, cd_hi);
	t[3] = _mm256_unpackhi_epi64(ab_hi, cd_hi);
	u[0] = _mm256_unpacklo_epi64(ef_lo, gh_lo);
	u[1] = _mm256_unpackhi_epi64(ef_lo, gh_lo);
	u[2] = _mm256_unpacklo_epi64(ef_hi, gh_hi);
	u[3] = _mm256_unpackhi_epi64(ef_hi, gh_hi);
	for (k = 0; k < 4; k++) {
		out[k] = _mm256_permute2x128_si256(t[k], u[k], 0x20);
		out[k + 4] = _mm256_permute2x128_si256(t[k], u[k], 0x31);
	}
}

#endif
