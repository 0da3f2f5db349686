// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 (RFC 8439 §2.5) eight blocks at a time with AVX-512 IFMA.
 *
 * As in poly1305_avx2.c, n blocks expand to
 *   h_n = (h_0 + m_1) r^n + m_2 r^(n-1) + ... + m_n r,
 * and lane j of a zmm register takes every eighth block, multiplied by r^8
 * per step; at the last step lane j multiplies by r^(8-j), and the sum of
 * the eight lanes is h_n.
 *
 * The limbs are those of the generic core (poly1305_64.c): 44, 44 and 42
 * bits, h = h0 + h1 2^44 + h2 2^88, and a product of limbs i and j that
 * reaches 2^132 folds down as 20 times itself.  vpmadd52luq and vpmadd52huq
 * multiply two limbs of up to 52 bits and add the low or the high 52 bits
 * of the 104-bit product to a 64-bit sum, so a column of products is kept
 * as lo + 2^52 hi, and 2^52 = 2^44 2^8: the carry out of limb i is
 * (lo >> 44) + (hi << 8).  Nine products per step instead of the 25 of the
 * AVX2 core's 26-bit limbs, and the accumulator needs no conversion on its
 * way in or out.
 *
 * A length that is not a multiple of eight blocks starts with a short group:
 * its k blocks go into lanes 8-k..7, h_0 joins lane 8-k with the first of
 * them, and lanes 0..7-k stay zero, so they add nothing to the sum; every
 * later block, and the last step's powers, then fall as in a message of
 * whole groups.  The loads are masked, so nothing outside the input is
 * read, and the vector code takes every block: there is no scalar tail.
 *
 * Eight lanes in one zmm register rather than four in a ymm register: the
 * loop is bound by the latency of one product and its carries, so eight
 * lanes do twice the blocks per step at about the same cost.  Four lanes
 * need one power stage instead of two and win below about 320 bytes
 * (doc/crypto.md has the figures); the packets that matter are longer.
 *
 * The powers r^1..r^8 take 192 bytes, more than struct poly1305_ctx.core
 * has left after the 44-bit state and the AVX2 core's powers; they are
 * computed at every call, with the vector product itself, from r and r^2 of
 * the 44-bit state, and kept in registers: there is no buffer of them to
 * wipe (an unoptimised build spills them to the stack, as it does every
 * local of every core).  This core reads and writes only that state
 * (struct poly1305_64_state, the first member of struct poly1305_x86_state
 * in poly1305_avx2.c), so poly1305_avx2_init and poly1305_avx2_emit serve
 * it, and any core can continue after it.
 *
 * Branches and loop counts depend on the length only; no secret indexes
 * memory (masks and permutations come from the length too).
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/arch/glue.h"
#include "crypto/poly1305_impl.h"

#define AVX512_TARGET __attribute__((target("avx512f,avx512ifma")))
#define AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,avx512ifma")))

#define M44 0xfffffffffffull
#define M42 0x3ffffffffffull

/* v * 20, for the products that reach 2^132 */
AVX512_INLINE __m512i v_times20(__m512i v)
{
	return _mm512_add_epi64(_mm512_slli_epi64(v, 4), _mm512_slli_epi64(v, 2));
}

/*
 * (h0, h1, h2) = a * b mod p, lane by lane, partly reduced, with
 * c1 = 20 b1 and c2 = 20 b2.
 *
 * Bounds on entry: a0 < 2^45 + 2^7, a1 < 2^45 + 2^14, a2 < 2^42.6 (an
 * accumulator as this function or another core leaves it, plus a message
 * block); b0 < 2^44 + 2^7, b1 < 2^44 + 2^14, b2 < 2^42 + 2^5 (r, r^2 from
 * the 44-bit state, or a power made here), so c1 < 2^48.4, c2 < 2^46.4:
 * every operand is below the 2^52 that vpmadd52 reads, and every product
 * below 2^92, its high half below 2^40.  The columns, D_i = lo_i + 2^52 hi_i:
 *   D0 = a0 b0 + a1 c2 + a2 c1 < 2^92.3
 *   D1 = a0 b1 + a1 b0 + a2 c2 < 2^90.6
 *   D2 = a0 b2 + a1 b1 + a2 b0 < 2^89.6
 * with lo_i < 3 * 2^52 and hi_i < 3 * 2^40, far inside 64 bits.
 *
 * The products are ordered by when their a limb is ready in the loop (a2
 * first, a0 last: see the carries), and the carries run as two parallel
 * passes instead of one chain through the limbs (twelve dependent
 * operations become seven): the loop is bound by the latency of one product
 * and its carries, so both save time there (8192 bytes: 1720 -> 1340 TSC
 * cycles).
 * On exit h0 < 2^44 + 2^7, h1 < 2^44 + 2^6, h2 < 2^42 + 2^5: again a valid
 * b, and with a message block added again a valid a.
 */
AVX512_INLINE void v_mulmod(__m512i *h0, __m512i *h1, __m512i *h2, __m512i a0, __m512i a1,
			    __m512i a2, __m512i b0, __m512i b1, __m512i b2, __m512i c1, __m512i c2)
{
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	const __m512i m42 = _mm512_set1_epi64((long long)M42);
	const __m512i z = _mm512_setzero_si512();
	__m512i lo0, lo1, lo2, hi0, hi1, hi2, k0, k1, k2, x0, x1, x2;

	lo0 = _mm512_madd52lo_epu64(z, a2, c1);
	hi0 = _mm512_madd52hi_epu64(z, a2, c1);
	lo1 = _mm512_madd52lo_epu64(z, a2, c2);
	hi1 = _mm512_madd52hi_epu64(z, a2, c2);
	lo2 = _mm512_madd52lo_epu64(z, a2, b0);
	hi2 = _mm512_madd52hi_epu64(z, a2, b0);
	lo0 = _mm512_madd52lo_epu64(lo0, a1, c2);
	hi0 = _mm512_madd52hi_epu64(hi0, a1, c2);
	lo1 = _mm512_madd52lo_epu64(lo1, a1, b0);
	hi1 = _mm512_madd52hi_epu64(hi1, a1, b0);
	lo2 = _mm512_madd52lo_epu64(lo2, a1, b1);
	hi2 = _mm512_madd52hi_epu64(hi2, a1, b1);
	lo0 = _mm512_madd52lo_epu64(lo0, a0, b0);
	hi0 = _mm512_madd52hi_epu64(hi0, a0, b0);
	lo1 = _mm512_madd52lo_epu64(lo1, a0, b1);
	hi1 = _mm512_madd52hi_epu64(hi1, a0, b1);
	lo2 = _mm512_madd52lo_epu64(lo2, a0, b2);
	hi2 = _mm512_madd52hi_epu64(hi2, a0, b2);

	/*
	 * First pass, each column at once: k0 = D0 >> 44 < 2^48.3 and
	 * k1 = D1 >> 44 < 2^46.6 move up one limb; k2 = D2 >> 42 < 2^47.6,
	 * the bits from 2^130 up, folds back to limb 0 as 5 k2 < 2^50.
	 * x0 < 2^50, x1 < 2^48.4, x2 < 2^46.7.
	 */
	k0 = _mm512_add_epi64(_mm512_srli_epi64(lo0, 44), _mm512_slli_epi64(hi0, 8));
	k1 = _mm512_add_epi64(_mm512_srli_epi64(lo1, 44), _mm512_slli_epi64(hi1, 8));
	k2 = _mm512_add_epi64(_mm512_srli_epi64(lo2, 42), _mm512_slli_epi64(hi2, 10));
	x0 = _mm512_add_epi64(_mm512_add_epi64(_mm512_and_si512(lo0, m44), k2),
			      _mm512_slli_epi64(k2, 2));
	x1 = _mm512_add_epi64(_mm512_and_si512(lo1, m44), k0);
	x2 = _mm512_add_epi64(_mm512_and_si512(lo2, m42), k1);
	/*
	 * Second pass, the same on x: x2 >> 42 <= 25 (5 times that < 2^7),
	 * x0 >> 44 < 2^6, x1 >> 44 < 2^5.
	 */
	k2 = _mm512_srli_epi64(x2, 42);
	*h0 = _mm512_add_epi64(_mm512_add_epi64(_mm512_and_si512(x0, m44), k2),
			       _mm512_slli_epi64(k2, 2));
	*h1 = _mm512_add_epi64(_mm512_and_si512(x1, m44), _mm512_srli_epi64(x0, 44));
	*h2 = _mm512_add_epi64(_mm512_and_si512(x2, m42), _mm512_srli_epi64(x1, 44));
}

/*
 * The blocks of one group into limbs, lane j from block j: lanes from
 * 8 - k up hold the k blocks at in (k = 1..8), lanes below are zero; in
 * limbs m0, m1 < 2^44, m2 < 2^41 (hibit is the 2^128 bit, 2^40 of limb 2).
 */
AVX512_INLINE void v_load(__m512i *m0, __m512i *m1, __m512i *m2, const uint8_t *in, unsigned k,
			  __m512i hibit)
{
	/* the lo and hi 64 bits of block j are 64-bit words 2j, 2j + 1 of the group */
	const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
	const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	__m512i x, y, lo, hi;

	if (k == 8) {
		x = _mm512_loadu_si512((const void *)in);
		y = _mm512_loadu_si512((const void *)(in + 64));
		lo = _mm512_permutex2var_epi64(x, even, y);
		hi = _mm512_permutex2var_epi64(x, odd, y);
	} else {
		/*
		 * The 2k words at in, moved up by 16 - 2k words: word w of the
		 * group is word w - (16 - 2k) of the input, for lanes 8 - k up.
		 */
		const __mmask8 lanes = (__mmask8)(0xff << (8 - k));
		const __m512i shift = _mm512_set1_epi64(16 - 2 * (long long)k);

		x = _mm512_maskz_loadu_epi64((__mmask8)(k >= 4 ? 0xff : (1u << (2 * k)) - 1), in);
		y = k > 4 ? _mm512_maskz_loadu_epi64((__mmask8)((1u << (2 * k - 8)) - 1), in + 64)
			  : _mm512_setzero_si512();
		lo = _mm512_maskz_permutex2var_epi64(lanes, x, _mm512_sub_epi64(even, shift), y);
		hi = _mm512_maskz_permutex2var_epi64(lanes, x, _mm512_sub_epi64(odd, shift), y);
		hibit = _mm512_maskz_mov_epi64(lanes, hibit);
	}
	*m0 = _mm512_and_si512(lo, m44);
	/*
	 * Bits 44..87.  Plain OR and AND rather than vpternlogq: the compiler
	 * may fuse them, and MemorySanitizer (crypto-ct-msan) propagates its
	 * shadow through them, where it reports any secret operand of an
	 * intrinsic it does not know, such as vpternlogq in clang 14.
	 */
	*m1 = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44), _mm512_slli_epi64(hi, 20)),
			       m44);
	*m2 = _mm512_or_si512(_mm512_srli_epi64(hi, 24), hibit);
}

/*
 * n > 0 blocks (16 n bytes) into st->h.  The first group takes n mod 8
 * blocks (8 if that is 0), every further group 8.
 */
AVX512_TARGET static void poly1305_avx512_run(struct poly1305_64_state *st, const uint8_t *in,
					      size_t n, uint32_t padbit)
{
	const __m512i one = _mm512_set1_epi64(1);
	const __m512i zero = _mm512_setzero_si512();
	const __m512i hibit = _mm512_set1_epi64((long long)padbit << 40);
	unsigned k = (unsigned)(n % 8 == 0 ? 8 : n % 8);
	__m512i a0, a1, a2, b0, b1, b2, u0, u1, u2, p0, p1, p2, q1, q2;
	__m512i r0, r1, r2, s1, s2, h0, h1, h2, m0, m1, m2;
	uint64_t e0, e1, e2, c;

	/*
	 * The powers, lane j holding r^(8-j): (r^2, r^2, r^2, r) times
	 * (r^2, r, 1, 1) gives u = (r^4, r^3, r^2, r) in lanes 0..3 and again
	 * in 4..7; u times (r^4, r^4, r^4, r^4, 1, 1, 1, 1) gives
	 * p = (r^8, ..., r^1).  A product by 1 only carries: r and r^2 leave
	 * it partly reduced, as every power is.
	 */
	a0 = _mm512_mask_blend_epi64(0x88, _mm512_set1_epi64((long long)st->rr[0]),
				     _mm512_set1_epi64((long long)st->r[0]));
	a1 = _mm512_mask_blend_epi64(0x88, _mm512_set1_epi64((long long)st->rr[1]),
				     _mm512_set1_epi64((long long)st->r[1]));
	a2 = _mm512_mask_blend_epi64(0x88, _mm512_set1_epi64((long long)st->rr[2]),
				     _mm512_set1_epi64((long long)st->r[2]));
	b0 = _mm512_setr_epi64((long long)st->rr[0], (long long)st->r[0], 1, 1,
			       (long long)st->rr[0], (long long)st->r[0], 1, 1);
	b1 = _mm512_setr_epi64((long long)st->rr[1], (long long)st->r[1], 0, 0,
			       (long long)st->rr[1], (long long)st->r[1], 0, 0);
	b2 = _mm512_setr_epi64((long long)st->rr[2], (long long)st->r[2], 0, 0,
			       (long long)st->rr[2], (long long)st->r[2], 0, 0);
	v_mulmod(&u0, &u1, &u2, a0, a1, a2, b0, b1, b2, v_times20(b1), v_times20(b2));
	b0 = _mm512_mask_broadcastq_epi64(one, 0x0f, _mm512_castsi512_si128(u0));
	b1 = _mm512_mask_broadcastq_epi64(zero, 0x0f, _mm512_castsi512_si128(u1));
	b2 = _mm512_mask_broadcastq_epi64(zero, 0x0f, _mm512_castsi512_si128(u2));
	v_mulmod(&p0, &p1, &p2, u0, u1, u2, b0, b1, b2, v_times20(b1), v_times20(b2));
	q1 = v_times20(p1);
	q2 = v_times20(p2);
	/* r^8 in every lane, for the steps before the last */
	r0 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(p0));
	r1 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(p1));
	r2 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(p2));
	s1 = v_times20(r1);
	s2 = v_times20(r2);

	/*
	 * The accumulator enters the lane of the first block, 8 - k, as the
	 * other cores leave it (h0 < 2^44, h1 < 2^44 + 2^14, h2 < 2^42 + 2^17):
	 * with a message block added, within v_mulmod's bounds on a.
	 */
	h0 = _mm512_maskz_set1_epi64((__mmask8)(1u << (8 - k)), (long long)st->h[0]);
	h1 = _mm512_maskz_set1_epi64((__mmask8)(1u << (8 - k)), (long long)st->h[1]);
	h2 = _mm512_maskz_set1_epi64((__mmask8)(1u << (8 - k)), (long long)st->h[2]);
	v_load(&m0, &m1, &m2, in, k, hibit);
	in += 16 * k;
	n -= k;
	for (;;) {
		h0 = _mm512_add_epi64(h0, m0);
		h1 = _mm512_add_epi64(h1, m1);
		h2 = _mm512_add_epi64(h2, m2);
		if (n == 0)
			break;
		v_mulmod(&h0, &h1, &h2, h0, h1, h2, r0, r1, r2, s1, s2);
		v_load(&m0, &m1, &m2, in, 8, hibit);
		in += 128;
		n -= 8;
	}

	/* the last group: lane j times r^(8-j), then the lanes summed */
	v_mulmod(&h0, &h1, &h2, h0, h1, h2, p0, p1, p2, q1, q2);
	e0 = (uint64_t)_mm512_reduce_add_epi64(h0);	/* < 2^47 + 2^10 */
	e1 = (uint64_t)_mm512_reduce_add_epi64(h1);	/* < 2^47 + 2^9 */
	e2 = (uint64_t)_mm512_reduce_add_epi64(h2);	/* < 2^45 + 2^8 */

	/*
	 * Partly reduced again, within what poly1305_64_blocks leaves:
	 * h0 < 2^44, h1 < 2^44 + 8, h2 < 2^42.
	 */
	c = e1 >> 44;		/* <= 8 */
	e1 &= M44;
	e2 += c;
	c = e2 >> 42;		/* <= 8 */
	e2 &= M42;
	e0 += c * 5;		/* < 2^47 + 2^10 + 40 */
	c = e0 >> 44;		/* <= 8 */
	st->h[0] = e0 & M44;
	st->h[1] = e1 + c;
	st->h[2] = e2;
}

/*
 * Any multiple of 16 bytes, all of it in the vector code.  Call only at
 * the AVX-512 level (crypto_x86_cpu_level() >= CRYPTO_X86_AVX512).
 */
void poly1305_avx512_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	/* struct poly1305_x86_state begins with the 44-bit state */
	struct poly1305_64_state *st = core;

	if (len >= 16)
		poly1305_avx512_run(st, in, len / 16, padbit);
}
