// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 (RFC 8439 §2.5) four blocks at a time with AVX2, and the run-time
 * choice between it, the AVX-512 core (poly1305_avx512.c) and the generic
 * 44-bit core (crypto/poly1305_64.c) by crypto_x86_level() and the length.
 *
 * The sequential rule h = (h + m_i) r, over n blocks, expands to
 *   h_n = (h_0 + m_1) r^n + m_2 r^(n-1) + ... + m_n r.
 * Four lanes each take every fourth block and multiply by r^4 per step; at
 * the last step lane j multiplies by the power its blocks are still missing
 * (r^4, r^3, r^2 or r), and the sum of the four lanes is h_n.  So the four
 * chains are independent until one horizontal sum per call.
 *
 * Each lane holds h in five 26-bit limbs, one in the low half of each 64-bit
 * element of a ymm register (vpmuludq multiplies those low halves into 64
 * bits): 25 products per step for four blocks, and the 2^130 = 5 (mod p)
 * wrap is folded into precomputed 5 r_i, as in poly1305_32.c.
 *
 * The state is the 44-bit core's (struct poly1305_64_state) followed by the
 * powers, filled at the first vector call for a key: the generic core can
 * take over at any block boundary (short inputs, the tail of a long one),
 * and its emit finishes either.  The AVX2 code lives only in functions
 * marked target("avx2"), as in chacha20_avx2.c.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/arch/glue.h"
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

#define AVX2_TARGET __attribute__((target("avx2")))

#define M26 0x3ffffffull
#define M44 0xfffffffffffull
#define M42 0x3ffffffffffull

typedef unsigned __int128 u128;

struct poly1305_x86_state {
	struct poly1305_64_state s64;	/* first: the generic core works on it as is */
	/*
	 * pow[i][j]: 26-bit limb i of lane j's last multiplier, r^4, r^2, r^3,
	 * r (the lane order of the message load below); each limb < 2^26 + 2^11.
	 */
	uint32_t pow[5][4];
	uint32_t have_pow;	/* pow is filled; depends on the lengths only */
};

_Static_assert(sizeof(struct poly1305_x86_state) <= sizeof(((struct poly1305_ctx *)0)->core),
	       "poly1305_ctx.core too small for the AVX2 core");

/*
 * a * b mod p in 44-bit limbs, both partly reduced (< 2^44, < 2^44 + 2^14,
 * < 2^42): the product and the carry pass of poly1305_64.c, with the same
 * bounds (sums < 2^94) and a result again partly reduced.
 */
static void poly1305_x86_mul44(uint64_t out[3], const uint64_t a[3], const uint64_t b[3])
{
	u128 d0 = (u128)a[0] * b[0] + (u128)a[1] * (20 * b[2]) + (u128)a[2] * (20 * b[1]);
	u128 d1 = (u128)a[0] * b[1] + (u128)a[1] * b[0] + (u128)a[2] * (20 * b[2]);
	u128 d2 = (u128)a[0] * b[2] + (u128)a[1] * b[1] + (u128)a[2] * b[0];
	uint64_t c;

	c = (uint64_t)(d0 >> 44);
	out[0] = (uint64_t)d0 & M44;
	d1 += c;
	c = (uint64_t)(d1 >> 44);
	out[1] = (uint64_t)d1 & M44;
	d2 += c;
	c = (uint64_t)(d2 >> 42);
	out[2] = (uint64_t)d2 & M42;
	out[0] += c * 5;
	c = out[0] >> 44;
	out[0] &= M44;
	out[1] += c;
}

/*
 * 44-bit limbs (partly reduced) to 26-bit limbs of the same number: limb
 * boundaries 0, 26, 52, 78, 104 against 0, 44, 88.  h1 may carry bit 44,
 * which lands in l3: l3 < 2^26 + 2^11, l4 < 2^26 + 2 (h2 < 2^42 + 2^17),
 * the others < 2^26.
 */
static void poly1305_x86_to26(uint64_t l[5], const uint64_t h[3])
{
	l[0] = h[0] & M26;
	l[1] = (h[0] >> 26) + ((h[1] & 0xff) << 18);
	l[2] = (h[1] >> 8) & M26;
	l[3] = (h[1] >> 34) + ((h[2] & 0xffff) << 10);
	l[4] = h[2] >> 16;
}

static void poly1305_x86_powers(struct poly1305_x86_state *st)
{
	uint64_t r3[3], r4[3], l1[5], l2[5], l3[5], l4[5];
	int i;

	poly1305_x86_mul44(r3, st->s64.rr, st->s64.r);
	poly1305_x86_mul44(r4, st->s64.rr, st->s64.rr);
	poly1305_x86_to26(l1, st->s64.r);
	poly1305_x86_to26(l2, st->s64.rr);
	poly1305_x86_to26(l3, r3);
	poly1305_x86_to26(l4, r4);
	for (i = 0; i < 5; i++) {
		st->pow[i][0] = (uint32_t)l4[i];
		st->pow[i][1] = (uint32_t)l2[i];
		st->pow[i][2] = (uint32_t)l3[i];
		st->pow[i][3] = (uint32_t)l1[i];
	}
	st->have_pow = 1;
}

void poly1305_avx2_init(void *core, const uint8_t r[16])
{
	struct poly1305_x86_state *st = core;

	poly1305_64_init(&st->s64, r);
	st->have_pow = 0;
}

void poly1305_avx2_emit(void *core, uint8_t mac[16], const uint8_t s[16])
{
	struct poly1305_x86_state *st = core;

	poly1305_64_emit(&st->s64, mac, s);
}

#define V_MUL(a, b) _mm256_mul_epu32(a, b)
#define V_ADD(a, b) _mm256_add_epi64(a, b)
#define V_TIMES5(v) _mm256_add_epi64(v, _mm256_slli_epi64(v, 2))

/* c = d >> 26; d &= 2^26 - 1; e += c, or e += 5 c where the carry leaves 2^130 */
#define V_CARRY(d, e)							\
	do {								\
		__m256i c_ = _mm256_srli_epi64(d, 26);			\
		d = _mm256_and_si256(d, mask26);			\
		e = _mm256_add_epi64(e, c_);				\
	} while (0)
#define V_CARRY5(d, e)							\
	do {								\
		__m256i c_ = _mm256_srli_epi64(d, 26);			\
		d = _mm256_and_si256(d, mask26);			\
		e = _mm256_add_epi64(e, V_TIMES5(c_));			\
	} while (0)

/*
 * d = t * r (mod p) in 26-bit limbs, lane by lane, with s_i = 5 r_i for the
 * products that reach 2^130.  Inputs: t_i < 2^27.1, r_i < 2^26 + 2^11,
 * s_i < 2^28.4, so each product < 2^55.5 and each d_i < 2^57.9.
 */
#define V_MULMOD(d0, d1, d2, d3, d4, t0, t1, t2, t3, t4, r0, r1, r2, r3, r4, s1, s2, s3, s4) \
	do {									\
		d0 = V_ADD(V_ADD(V_MUL(t0, r0), V_MUL(t1, s4)),			\
			   V_ADD(V_ADD(V_MUL(t2, s3), V_MUL(t3, s2)), V_MUL(t4, s1))); \
		d1 = V_ADD(V_ADD(V_MUL(t0, r1), V_MUL(t1, r0)),			\
			   V_ADD(V_ADD(V_MUL(t2, s4), V_MUL(t3, s3)), V_MUL(t4, s2))); \
		d2 = V_ADD(V_ADD(V_MUL(t0, r2), V_MUL(t1, r1)),			\
			   V_ADD(V_ADD(V_MUL(t2, r0), V_MUL(t3, s4)), V_MUL(t4, s3))); \
		d3 = V_ADD(V_ADD(V_MUL(t0, r3), V_MUL(t1, r2)),			\
			   V_ADD(V_ADD(V_MUL(t2, r1), V_MUL(t3, r0)), V_MUL(t4, s4))); \
		d4 = V_ADD(V_ADD(V_MUL(t0, r4), V_MUL(t1, r3)),			\
			   V_ADD(V_ADD(V_MUL(t2, r2), V_MUL(t3, r1)), V_MUL(t4, r0))); \
	} while (0)

/* the sum of the four 64-bit lanes */
static inline __attribute__((always_inline, target("avx2"))) uint64_t v_hsum(__m256i v)
{
	__m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
}

/*
 * n > 0 groups of four blocks (64 n bytes) into st->s64.h.  The carry pass
 * after each product (d0->d1, d3->d4, d1->d2, d4->d0 times 5, d2->d3,
 * d0->d1, d3->d4) leaves every limb < 2^26 + 2^9; adding a message limb
 * (< 2^26) keeps t_i < 2^27.1, the bound V_MULMOD needs.
 */
AVX2_TARGET static void poly1305_avx2_groups(struct poly1305_x86_state *st, const uint8_t *in,
					     size_t n, uint32_t padbit)
{
	const __m256i mask26 = _mm256_set1_epi64x((long long)M26);
	const __m256i hibit = _mm256_set1_epi64x((long long)padbit << 24);
	const __m256i r0 = _mm256_set1_epi64x(st->pow[0][0]), r1 = _mm256_set1_epi64x(st->pow[1][0]);
	const __m256i r2 = _mm256_set1_epi64x(st->pow[2][0]), r3 = _mm256_set1_epi64x(st->pow[3][0]);
	const __m256i r4 = _mm256_set1_epi64x(st->pow[4][0]);
	const __m256i s1 = V_TIMES5(r1), s2 = V_TIMES5(r2), s3 = V_TIMES5(r3), s4 = V_TIMES5(r4);
	__m256i h0, h1, h2, h3, h4, d0, d1, d2, d3, d4, u0, u1, u2, u3, u4;
	uint64_t l[5], e0, e1, e2, e3, e4, c;

	/* the accumulator enters lane 0, with the first block */
	poly1305_x86_to26(l, st->s64.h);
	h0 = _mm256_setr_epi64x((long long)l[0], 0, 0, 0);
	h1 = _mm256_setr_epi64x((long long)l[1], 0, 0, 0);
	h2 = _mm256_setr_epi64x((long long)l[2], 0, 0, 0);
	h3 = _mm256_setr_epi64x((long long)l[3], 0, 0, 0);
	h4 = _mm256_setr_epi64x((long long)l[4], 0, 0, 0);

	for (;;) {
		/*
		 * Blocks 0, 1 in a, 2, 3 in b; the 64-bit interleaves give lanes
		 * blocks 0, 2, 1, 3 (lo: bytes 0..7 of each, hi: bytes 8..15).
		 */
		__m256i a = _mm256_loadu_si256((const __m256i *)in);
		__m256i b = _mm256_loadu_si256((const __m256i *)(in + 32));
		__m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);

		h0 = V_ADD(h0, _mm256_and_si256(lo, mask26));
		h1 = V_ADD(h1, _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask26));
		h2 = V_ADD(h2, _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52),
								 _mm256_slli_epi64(hi, 12)),
						mask26));
		h3 = V_ADD(h3, _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask26));
		h4 = V_ADD(h4, _mm256_or_si256(_mm256_srli_epi64(hi, 40), hibit));
		if (--n == 0)
			break;
		V_MULMOD(d0, d1, d2, d3, d4, h0, h1, h2, h3, h4, r0, r1, r2, r3, r4, s1, s2, s3, s4);
		V_CARRY(d0, d1);
		V_CARRY(d3, d4);
		V_CARRY(d1, d2);
		V_CARRY5(d4, d0);
		V_CARRY(d2, d3);
		V_CARRY(d0, d1);
		V_CARRY(d3, d4);
		h0 = d0;
		h1 = d1;
		h2 = d2;
		h3 = d3;
		h4 = d4;
		in += 64;
	}

	/* the last group: each lane times its own power, then the lanes summed */
	u0 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)st->pow[0]));
	u1 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)st->pow[1]));
	u2 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)st->pow[2]));
	u3 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)st->pow[3]));
	u4 = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)st->pow[4]));
	V_MULMOD(d0, d1, d2, d3, d4, h0, h1, h2, h3, h4, u0, u1, u2, u3, u4, V_TIMES5(u1),
		 V_TIMES5(u2), V_TIMES5(u3), V_TIMES5(u4));
	/* four lanes of < 2^57.9 each: sums < 2^60 */
	e0 = v_hsum(d0);
	e1 = v_hsum(d1);
	e2 = v_hsum(d2);
	e3 = v_hsum(d3);
	e4 = v_hsum(d4);

	/* a full carry pass: e0..e3 < 2^26, e1 < 2^26 + 2^11, e4 < 2^26 */
	c = e0 >> 26; e0 &= M26; e1 += c;
	c = e1 >> 26; e1 &= M26; e2 += c;
	c = e2 >> 26; e2 &= M26; e3 += c;
	c = e3 >> 26; e3 &= M26; e4 += c;
	c = e4 >> 26; e4 &= M26; e0 += c * 5;	/* c < 2^34.1 */
	c = e0 >> 26; e0 &= M26; e1 += c;

	/*
	 * Back to 44-bit limbs: h0, h1 < 2^44 and h2 < 2^42 + 2^17.  h2 may
	 * exceed the generic core's 2^42 by that much: its sums h2 + m2 stay
	 * below 2^43, the bound poly1305_64_blocks is written for, and
	 * poly1305_64_emit and poly1305_x86_to26 (l4 < 2^26 + 2) take it too.
	 */
	e0 += e1 << 26;				/* < 2^52.1 */
	st->s64.h[0] = e0 & M44;
	e2 = (e0 >> 44) + (e2 << 8) + (e3 << 34);	/* < 2^60.1 */
	st->s64.h[1] = e2 & M44;
	st->s64.h[2] = (e2 >> 44) + (e4 << 16);
}

/*
 * Any multiple of 16 bytes: whole groups of 64 through the vector code, the
 * rest (and inputs under 64 bytes) through the generic core.  Call only
 * where the CPU has AVX2.
 */
void poly1305_avx2_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	struct poly1305_x86_state *st = core;
	size_t groups = len / 64;

	if (groups > 0) {
		if (!st->have_pow)
			poly1305_x86_powers(st);
		poly1305_avx2_groups(st, in, groups, padbit);
		in += 64 * groups;
		len -= 64 * groups;
	}
	if (len > 0)
		poly1305_64_blocks(&st->s64, in, len, padbit);
}

/*
 * Below this many bytes in one call the generic core is used: the vector
 * path has a fixed cost (the powers, once per key, and the last group's
 * multiplications and lane sum, once per call) that the scalar core does
 * not; see the figures next to poly1305_x86_blocks in doc/performance.md.
 */
#define POLY1305_AVX2_MIN 256
/*
 * The same for the AVX-512 core, whose fixed cost is two vector products
 * for r^3..r^8 at every call and the last group's products and lane sum:
 * with a fresh key it beats the 44-bit core from 80..128 bytes, depending
 * on the load of the machine, and always from 128 (one group of eight
 * blocks); see doc/crypto.md, "x86-64 AVX-512 Poly1305".
 */
#define POLY1305_AVX512_MIN 128
_Static_assert(POLY1305_AVX512_MIN <= POLY1305_AVX2_MIN,
	       "poly1305_x86_blocks asks for the level only from POLY1305_AVX512_MIN");

void poly1305_x86_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	/* the lengths block and a padded last block never ask */
	int level = len >= POLY1305_AVX512_MIN ? crypto_x86_level() : CRYPTO_X86_GENERIC;

	if (level >= CRYPTO_X86_AVX512)
		poly1305_avx512_blocks(core, in, len, padbit);
	else if (len >= POLY1305_AVX2_MIN && level >= CRYPTO_X86_AVX2)
		poly1305_avx2_blocks(core, in, len, padbit);
	else
		poly1305_64_blocks(&((struct poly1305_x86_state *)core)->s64, in, len, padbit);
}
