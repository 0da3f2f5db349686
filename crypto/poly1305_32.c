// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 block core with five 26-bit limbs (RFC 8439 §2.5), for 32-bit
 * targets: every product is 32x32->64 bits (one multu/maddu on MIPS32) and
 * every sum of products fits a uint64_t with room to spare, so carries are
 * propagated once per block instead of after every addition.
 *
 * Numbers are h = h0 + h1 2^26 + h2 2^52 + h3 2^78 + h4 2^104, reduced
 * modulo p = 2^130 - 5 using 2^130 = 5 (mod p).
 */
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

#include "crypto/bytes.h"

#define M26 0x3ffffffu

struct poly1305_32_state {
	uint32_t r[5];	/* clamped r, each limb < 2^26 */
	uint32_t s[4];	/* s[i] = 5 r[i+1] < 2^28.4: products that wrap past 2^130 */
	uint32_t h[5];	/* accumulator, see the bounds in poly1305_32_blocks */
};

_Static_assert(sizeof(struct poly1305_32_state) <= sizeof(((struct poly1305_ctx *)0)->core),
	       "poly1305_ctx.core too small for the 26-bit core");

void poly1305_32_init(void *core, const uint8_t r[16])
{
	struct poly1305_32_state *st = core;
	/* clamp (RFC 8439 §2.5): top 4 bits of r[3,7,11,15], low 2 bits of r[4,8,12] cleared */
	uint32_t t0 = le32_load(r + 0) & 0x0fffffffu;
	uint32_t t1 = le32_load(r + 4) & 0x0ffffffcu;
	uint32_t t2 = le32_load(r + 8) & 0x0ffffffcu;
	uint32_t t3 = le32_load(r + 12) & 0x0ffffffcu;
	int i;

	st->r[0] = t0 & M26;
	st->r[1] = ((t0 >> 26) | (t1 << 6)) & M26;
	st->r[2] = ((t1 >> 20) | (t2 << 12)) & M26;
	st->r[3] = ((t2 >> 14) | (t3 << 18)) & M26;
	st->r[4] = t3 >> 8;	/* < 2^20 after clamping */
	for (i = 0; i < 4; i++)
		st->s[i] = st->r[i + 1] * 5;
	for (i = 0; i < 5; i++)
		st->h[i] = 0;
}

void poly1305_32_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit)
{
	struct poly1305_32_state *st = core;
	const uint32_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2], r3 = st->r[3], r4 = st->r[4];
	const uint32_t s1 = st->s[0], s2 = st->s[1], s3 = st->s[2], s4 = st->s[3];
	uint32_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], h3 = st->h[3], h4 = st->h[4];
	const uint32_t hibit = padbit << 24;	/* 2^128 = 2^24 in limb 4 */

	/*
	 * Invariant on entry to each block: h0, h2, h3, h4 < 2^26 and
	 * h1 < 2^26 + 2^6 (the last carry below).
	 */
	while (len >= 16) {
		uint32_t t0 = le32_load(in + 0), t1 = le32_load(in + 4);
		uint32_t t2 = le32_load(in + 8), t3 = le32_load(in + 12);
		uint64_t d0, d1, d2, d3, d4;
		uint32_t c;

		/* h += m: now every limb < 2^27 */
		h0 += t0 & M26;
		h1 += ((t0 >> 26) | (t1 << 6)) & M26;
		h2 += ((t1 >> 20) | (t2 << 12)) & M26;
		h3 += ((t2 >> 14) | (t3 << 18)) & M26;
		h4 += (t3 >> 8) | hibit;

		/*
		 * h *= r.  Each product is < 2^27 * 2^28.4 = 2^55.4 and each
		 * d is a sum of five, < 2^57.7: no overflow.  d4 has no
		 * 5 r terms: d4 < 5 * 2^27 * 2^26 = 2^55.4.
		 */
		d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
		     (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
		d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 +
		     (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
		d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 +
		     (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
		d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 +
		     (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
		d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 +
		     (uint64_t)h3 * r1 + (uint64_t)h4 * r0;

		/* partial carry: each c < 2^32, so it fits 32 bits */
		c = (uint32_t)(d0 >> 26);
		h0 = (uint32_t)d0 & M26;
		d1 += c;
		c = (uint32_t)(d1 >> 26);
		h1 = (uint32_t)d1 & M26;
		d2 += c;
		c = (uint32_t)(d2 >> 26);
		h2 = (uint32_t)d2 & M26;
		d3 += c;
		c = (uint32_t)(d3 >> 26);
		h3 = (uint32_t)d3 & M26;
		d4 += c;
		c = (uint32_t)(d4 >> 26);	/* < 2^29.5, so 5 c < 2^32 */
		h4 = (uint32_t)d4 & M26;
		h0 += c * 5;			/* bits >= 2^130 fold back as 5 */
		c = h0 >> 26;			/* < 2^6 */
		h0 &= M26;
		h1 += c;			/* < 2^26 + 2^6: the invariant */

		in += 16;
		len -= 16;
	}
	st->h[0] = h0;
	st->h[1] = h1;
	st->h[2] = h2;
	st->h[3] = h3;
	st->h[4] = h4;
}

void poly1305_32_emit(void *core, uint8_t mac[16], const uint8_t s[16])
{
	struct poly1305_32_state *st = core;
	uint32_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2], h3 = st->h[3], h4 = st->h[4];
	uint32_t g0, g1, g2, g3, g4, c, mask;
	uint64_t f;

	/* full carry: afterwards h0, h2, h3, h4 < 2^26, h1 <= 2^26, h < 2p */
	c = h1 >> 26;
	h1 &= M26;
	h2 += c;
	c = h2 >> 26;
	h2 &= M26;
	h3 += c;
	c = h3 >> 26;
	h3 &= M26;
	h4 += c;
	c = h4 >> 26;
	h4 &= M26;
	h0 += c * 5;
	c = h0 >> 26;
	h0 &= M26;
	h1 += c;

	/* g = h + 5 - 2^130 = h - p; g4's top bit is set iff h < p */
	g0 = h0 + 5;
	c = g0 >> 26;
	g0 &= M26;
	g1 = h1 + c;
	c = g1 >> 26;
	g1 &= M26;
	g2 = h2 + c;
	c = g2 >> 26;
	g2 &= M26;
	g3 = h3 + c;
	c = g3 >> 26;
	g3 &= M26;
	g4 = h4 + c - (1u << 26);

	/* select h if h < p else g, with a mask instead of a branch */
	mask = 0u - (g4 >> 31);	/* all ones: keep h */
	h0 = (h0 & mask) | (g0 & ~mask);
	h1 = (h1 & mask) | (g1 & ~mask);
	h2 = (h2 & mask) | (g2 & ~mask);
	h3 = (h3 & mask) | (g3 & ~mask);
	h4 = (h4 & mask) | (g4 & ~mask);

	/*
	 * mac = h + s mod 2^128, 32 bits at a time.  Sums, not ORs, join the
	 * limbs, so h1 = 2^26 is still added correctly.  Each f < 2^54.
	 */
	f = (uint64_t)h0 + ((uint64_t)h1 << 26) + le32_load(s + 0);
	le32_store(mac + 0, (uint32_t)f);
	f = (f >> 32) + ((uint64_t)h2 << 20) + le32_load(s + 4);
	le32_store(mac + 4, (uint32_t)f);
	f = (f >> 32) + ((uint64_t)h3 << 14) + le32_load(s + 8);
	le32_store(mac + 8, (uint32_t)f);
	f = (f >> 32) + ((uint64_t)h4 << 8) + le32_load(s + 12);
	le32_store(mac + 12, (uint32_t)f);
}
