// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 block core with 44/44/42-bit limbs (RFC 8439 §2.5), for targets
 * whose compiler has unsigned __int128: three 64x64->128 products per limb
 * (9 per block instead of 25 with 26-bit limbs), and the sums still have
 * dozens of spare bits, so carries run once per block.
 *
 * Numbers are h = h0 + h1 2^44 + h2 2^88, reduced modulo p = 2^130 - 5.
 * A product of limbs i and j lands at 2^(44 i + 44 j); where that reaches
 * 2^132 = 4 * 2^130 = 20 (mod p), it is folded down as 20 times the product.
 */
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

#if defined(POLY1305_HAVE_64)

#include "crypto/bytes.h"

#define M44 0xfffffffffffull
#define M42 0x3ffffffffffull

typedef unsigned __int128 u128;

struct poly1305_64_state {
	uint64_t r[3];	/* clamped r: r0, r1 < 2^44, r2 < 2^36 */
	uint64_t s[2];	/* s[i] = 20 r[i+1]: s1 < 2^48.4, s2 < 2^40.4 */
	uint64_t h[3];	/* accumulator, see the bounds in poly1305_64_blocks */
};

_Static_assert(sizeof(struct poly1305_64_state) <= sizeof(((struct poly1305_ctx *)0)->core),
	       "poly1305_ctx.core too small for the 44-bit core");

void poly1305_64_init(void *core, const uint8_t r[16])
{
	struct poly1305_64_state *st = core;
	/* clamp (RFC 8439 §2.5): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff */
	uint64_t t0 = le64_load(r + 0) & 0x0ffffffc0fffffffull;
	uint64_t t1 = le64_load(r + 8) & 0x0ffffffc0ffffffcull;

	st->r[0] = t0 & M44;
	st->r[1] = ((t0 >> 44) | (t1 << 20)) & M44;
	st->r[2] = t1 >> 24;
	st->s[0] = st->r[1] * 20;
	st->s[1] = st->r[2] * 20;
	st->h[0] = 0;
	st->h[1] = 0;
	st->h[2] = 0;
}

void poly1305_64_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	struct poly1305_64_state *st = core;
	const uint64_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2];
	const uint64_t s1 = st->s[0], s2 = st->s[1];
	uint64_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2];
	const uint64_t hibit = (uint64_t)padbit << 40;	/* 2^128 = 2^40 in limb 2 */

	/*
	 * Invariant on entry to each block: h0 < 2^44, h1 < 2^44 + 2^12,
	 * h2 < 2^42.
	 */
	while (len >= 16) {
		uint64_t t0 = le64_load(in + 0), t1 = le64_load(in + 8);
		u128 d0, d1, d2;
		uint64_t c;

		/* h += m: h0, h1 < 2^45, h2 < 2^42 + 2^41 */
		h0 += t0 & M44;
		h1 += ((t0 >> 44) | (t1 << 20)) & M44;
		h2 += (t1 >> 24) | hibit;

		/*
		 * h *= r.  The largest term is h2 s1 < 2^43 2^48.4 = 2^91.4;
		 * each d is a sum of three such, < 2^93: far below 2^128.
		 */
		d0 = (u128)h0 * r0 + (u128)h1 * s2 + (u128)h2 * s1;
		d1 = (u128)h0 * r1 + (u128)h1 * r0 + (u128)h2 * s2;
		d2 = (u128)h0 * r2 + (u128)h1 * r1 + (u128)h2 * r0;

		/* partial carry; every c < 2^50 */
		c = (uint64_t)(d0 >> 44);
		h0 = (uint64_t)d0 & M44;
		d1 += c;
		c = (uint64_t)(d1 >> 44);
		h1 = (uint64_t)d1 & M44;
		d2 += c;
		c = (uint64_t)(d2 >> 42);
		h2 = (uint64_t)d2 & M42;
		h0 += c * 5;		/* bits >= 2^130 fold back as 5: < 2^44 + 2^53 */
		c = h0 >> 44;		/* < 2^10 */
		h0 &= M44;
		h1 += c;		/* < 2^44 + 2^10: the invariant */

		in += 16;
		len -= 16;
	}
	st->h[0] = h0;
	st->h[1] = h1;
	st->h[2] = h2;
}

void poly1305_64_emit(void *core, uint8_t mac[16], const uint8_t s[16])
{
	struct poly1305_64_state *st = core;
	uint64_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2];
	uint64_t g0, g1, g2, c, mask;
	u128 f;

	/* full carry: afterwards h0 < 2^44, h1 <= 2^44, h2 < 2^42, h < 2p */
	c = h1 >> 44;
	h1 &= M44;
	h2 += c;
	c = h2 >> 42;
	h2 &= M42;
	h0 += c * 5;
	c = h0 >> 44;
	h0 &= M44;
	h1 += c;

	/* g = h + 5 - 2^130 = h - p; g2's top bit is set iff h < p */
	g0 = h0 + 5;
	c = g0 >> 44;
	g0 &= M44;
	g1 = h1 + c;
	c = g1 >> 44;
	g1 &= M44;
	g2 = h2 + c - (1ull << 42);

	/* select h if h < p else g, with a mask instead of a branch */
	mask = 0 - (g2 >> 63);	/* all ones: keep h */
	h0 = (h0 & mask) | (g0 & ~mask);
	h1 = (h1 & mask) | (g1 & ~mask);
	h2 = (h2 & mask) | (g2 & ~mask);

	/* mac = h + s mod 2^128; sums join the limbs, so h1 = 2^44 is fine */
	f = (u128)h0 + ((u128)h1 << 44) + le64_load(s + 0);
	le64_store(mac + 0, (uint64_t)f);
	f = (f >> 64) + ((u128)h2 << 24) + le64_load(s + 8);
	le64_store(mac + 8, (uint64_t)f);
}

#endif /* POLY1305_HAVE_64 */
