// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 block core with 44/44/42-bit limbs (RFC 8439 §2.5), for targets
 * whose compiler has unsigned __int128: three 64x64->128 products per limb
 * (9 per block instead of 25 with 26-bit limbs), and the sums still have
 * dozens of spare bits, so carries run once per multiplication.
 *
 * Numbers are h = h0 + h1 2^44 + h2 2^88, reduced modulo p = 2^130 - 5.
 * A product of limbs i and j lands at 2^(44 i + 44 j); where that reaches
 * 2^132 = 4 * 2^130 = 20 (mod p), it is folded down as 20 times the product.
 *
 * Two blocks per step: h = (h + m1) r^2 + m2 r gives the same result as two
 * steps h = (h + m) r, but the two halves are independent products, so the
 * multiplier works on both while the carry chain of the previous step runs.
 */
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

#if defined(POLY1305_HAVE_64)

#include "crypto/bytes.h"

#define M44 0xfffffffffffull
#define M42 0x3ffffffffffull

typedef unsigned __int128 u128;

_Static_assert(sizeof(struct poly1305_64_state) <= sizeof(((struct poly1305_ctx *)0)->core),
	       "poly1305_ctx.core too small for the 44-bit core");

/*
 * One carry pass from products d0, d1, d2 (each < 2^97) to limbs
 * h0 < 2^44, h1 < 2^44 + 2^14, h2 < 2^42: the only bound the next
 * multiplication needs.
 */
static inline void poly1305_64_carry(uint64_t h[3], u128 d0, u128 d1, u128 d2)
{
	uint64_t c;

	c = (uint64_t)(d0 >> 44);	/* < 2^53 */
	h[0] = (uint64_t)d0 & M44;
	d1 += c;
	c = (uint64_t)(d1 >> 44);	/* < 2^54 */
	h[1] = (uint64_t)d1 & M44;
	d2 += c;
	c = (uint64_t)(d2 >> 42);	/* < 2^56 */
	h[2] = (uint64_t)d2 & M42;
	h[0] += c * 5;			/* bits >= 2^130 fold back as 5: < 2^59 */
	c = h[0] >> 44;			/* < 2^15 */
	h[0] &= M44;
	h[1] += c;
}

/* message block -> limbs < 2^44, < 2^44, < 2^41 (the 2^128 bit is 2^40 of limb 2) */
#define POLY1305_64_LOAD(in, m0, m1, m2)				\
	do {								\
		uint64_t lo_ = le64_load(in), hi_ = le64_load((in) + 8);	\
		m0 = lo_ & M44;						\
		m1 = ((lo_ >> 44) | (hi_ << 20)) & M44;			\
		m2 = (hi_ >> 24) | hibit;				\
	} while (0)

void poly1305_64_init(void *core, const uint8_t r[16])
{
	struct poly1305_64_state *st = core;
	/* clamp (RFC 8439 §2.5): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff */
	uint64_t t0 = le64_load(r + 0) & 0x0ffffffc0fffffffull;
	uint64_t t1 = le64_load(r + 8) & 0x0ffffffc0ffffffcull;
	uint64_t r0, r1, r2;

	r0 = t0 & M44;
	r1 = ((t0 >> 44) | (t1 << 20)) & M44;
	r2 = t1 >> 24;
	st->r[0] = r0;
	st->r[1] = r1;
	st->r[2] = r2;
	/* r^2, the same product as in poly1305_64_blocks */
	poly1305_64_carry(st->rr,
			  (u128)r0 * r0 + (u128)r1 * (20 * r2) + (u128)r2 * (20 * r1),
			  (u128)r0 * r1 + (u128)r1 * r0 + (u128)r2 * (20 * r2),
			  (u128)r0 * r2 + (u128)r1 * r1 + (u128)r2 * r0);
	st->h[0] = 0;
	st->h[1] = 0;
	st->h[2] = 0;
}

void poly1305_64_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	struct poly1305_64_state *st = core;
	const uint64_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2];
	const uint64_t s1 = 20 * r1, s2 = 20 * r2;		/* < 2^48.4 */
	const uint64_t q0 = st->rr[0], q1 = st->rr[1], q2 = st->rr[2];
	const uint64_t u1 = 20 * q1, u2 = 20 * q2;		/* < 2^48.4 */
	const uint64_t hibit = (uint64_t)padbit << 40;
	uint64_t h[3] = { st->h[0], st->h[1], st->h[2] };
	uint64_t a0, a1, a2, b0, b1, b2;

	/*
	 * h + m: limbs < 2^45 + 2^14, < 2^45 + 2^14, < 2^43.  Every product
	 * below is < 2^45.1 * 2^48.4 = 2^93.5 and each d sums at most six:
	 * < 2^96.1, far below 2^128.
	 */
	while (len >= 32) {
		POLY1305_64_LOAD(in, a0, a1, a2);
		POLY1305_64_LOAD(in + 16, b0, b1, b2);
		a0 += h[0];
		a1 += h[1];
		a2 += h[2];
		poly1305_64_carry(h,
				  (u128)a0 * q0 + (u128)a1 * u2 + (u128)a2 * u1 +
				  (u128)b0 * r0 + (u128)b1 * s2 + (u128)b2 * s1,
				  (u128)a0 * q1 + (u128)a1 * q0 + (u128)a2 * u2 +
				  (u128)b0 * r1 + (u128)b1 * r0 + (u128)b2 * s2,
				  (u128)a0 * q2 + (u128)a1 * q1 + (u128)a2 * q0 +
				  (u128)b0 * r2 + (u128)b1 * r1 + (u128)b2 * r0);
		in += 32;
		len -= 32;
	}
	if (len >= 16) {
		POLY1305_64_LOAD(in, a0, a1, a2);
		a0 += h[0];
		a1 += h[1];
		a2 += h[2];
		poly1305_64_carry(h,
				  (u128)a0 * r0 + (u128)a1 * s2 + (u128)a2 * s1,
				  (u128)a0 * r1 + (u128)a1 * r0 + (u128)a2 * s2,
				  (u128)a0 * r2 + (u128)a1 * r1 + (u128)a2 * r0);
	}
	st->h[0] = h[0];
	st->h[1] = h[1];
	st->h[2] = h[2];
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
