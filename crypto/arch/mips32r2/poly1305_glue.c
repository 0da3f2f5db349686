// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 (RFC 8439 §2.5) with 32-bit limbs for MIPS32r2: key setup and the
 * final reduction in C, the block loop in poly1305.S (which documents the
 * arithmetic and the bounds relied on here).
 */
#include "crypto/arch/glue.h"
#include "crypto/bytes.h"
#include "crypto/poly1305.h"

/* The layout poly1305.S addresses by offset: keep the two in step. */
struct poly1305_mips_state {
	uint32_t h[5];	/* h0..h3, and h4 < 2^31 (not reduced below 2^130) */
	uint32_t r[4];	/* clamped r */
	uint32_t s[3];	/* s[i] = r[i+1] + r[i+1] / 4: 2^128 r[i+1] mod p, scaled down by 2^128 */
};

_Static_assert(sizeof(struct poly1305_mips_state) == 48, "poly1305.S expects 12 words");
_Static_assert(sizeof(struct poly1305_mips_state) <= sizeof(((struct poly1305_ctx *)0)->core),
	       "poly1305_ctx.core too small for the MIPS core");

void poly1305_mips_init(void *core, const uint8_t r[16])
{
	struct poly1305_mips_state *st = core;
	int i;

	/* clamp (RFC 8439 §2.5.1): r &= 0x0ffffffc0ffffffc0ffffffc0fffffff */
	st->r[0] = le32_load(r + 0) & 0x0fffffffu;
	st->r[1] = le32_load(r + 4) & 0x0ffffffcu;
	st->r[2] = le32_load(r + 8) & 0x0ffffffcu;
	st->r[3] = le32_load(r + 12) & 0x0ffffffcu;
	/* r[i] is a multiple of 4 for i >= 1, so the division is exact */
	for (i = 0; i < 3; i++)
		st->s[i] = st->r[i + 1] + (st->r[i + 1] >> 2);
	for (i = 0; i < 5; i++)
		st->h[i] = 0;
}

/*
 * The carries are 32-bit compares (sltu), not 64-bit sums: gcc spends
 * about three times the instructions on uint64_t arithmetic on MIPS32.
 * An addition's carry out is (sum < addend); where two are added, at most
 * one of the two compares is true.
 */
void poly1305_mips_emit(void *core, uint8_t mac[16], const uint8_t s[16])
{
	const struct poly1305_mips_state *st = core;
	uint32_t h0, h1, h2, h3, h4 = st->h[4], g0, g1, g2, g3, g4, c, t, mask;

	/*
	 * Fold the bits of h4 above 2^130 back in as 5 each (2^130 = 5 mod p):
	 * 5 (h4 >> 2) < 2^31.4, and afterwards h < 2^130 + 2^31.4 < 2 p.
	 */
	t = 5 * (h4 >> 2);
	h0 = st->h[0] + t;
	c = h0 < t;
	h1 = st->h[1] + c;
	c = h1 < c;
	h2 = st->h[2] + c;
	c = h2 < c;
	h3 = st->h[3] + c;
	c = h3 < c;
	h4 = (h4 & 3) + c;

	/* g = h + 5: g >= 2^130 exactly when h >= p, and then h - p = g - 2^130 */
	g0 = h0 + 5;
	c = g0 < 5;
	g1 = h1 + c;
	c = g1 < c;
	g2 = h2 + c;
	c = g2 < c;
	g3 = h3 + c;
	c = g3 < c;
	g4 = h4 + c;

	/* h < 2p, so one subtraction at most; chosen by a mask, not a branch */
	mask = 0u - (g4 >> 2);	/* all ones: take g */
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask);
	h3 = (h3 & ~mask) | (g3 & mask);

	/* mac = h + s mod 2^128 */
	t = le32_load(s + 0);
	h0 += t;
	c = h0 < t;
	t = le32_load(s + 4);
	h1 += t;
	g1 = h1 < t;
	h1 += c;
	c = g1 | (h1 < c);
	t = le32_load(s + 8);
	h2 += t;
	g2 = h2 < t;
	h2 += c;
	c = g2 | (h2 < c);
	h3 += le32_load(s + 12) + c;
	le32_store(mac + 0, h0);
	le32_store(mac + 4, h1);
	le32_store(mac + 8, h2);
	le32_store(mac + 12, h3);
}
