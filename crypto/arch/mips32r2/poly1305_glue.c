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

void poly1305_mips_emit(void *core, uint8_t mac[16], const uint8_t s[16])
{
	const struct poly1305_mips_state *st = core;
	uint32_t h[4], g[4], h4 = st->h[4], g4, mask;
	uint64_t f;
	int i;

	/*
	 * Fold the bits of h4 above 2^130 back in as 5 each (2^130 = 5 mod p):
	 * 5 (h4 >> 2) < 2^31.4, and afterwards h < 2^130 + 2^31.4 < 2 p.
	 */
	f = (uint64_t)st->h[0] + 5 * (uint64_t)(h4 >> 2);
	h[0] = (uint32_t)f;
	for (i = 1; i < 4; i++) {
		f = (f >> 32) + st->h[i];
		h[i] = (uint32_t)f;
	}
	h4 = (h4 & 3) + (uint32_t)(f >> 32);

	/* g = h + 5: g >= 2^130 exactly when h >= p, and then h - p = g - 2^130 */
	f = 5;
	for (i = 0; i < 4; i++) {
		f += h[i];
		g[i] = (uint32_t)f;
		f >>= 32;
	}
	g4 = h4 + (uint32_t)f;

	/* h < 2p, so one subtraction at most; chosen by a mask, not a branch */
	mask = 0u - (g4 >> 2);	/* all ones: take g */
	for (i = 0; i < 4; i++)
		h[i] = (h[i] & ~mask) | (g[i] & mask);

	/* mac = h + s mod 2^128 */
	f = 0;
	for (i = 0; i < 4; i++) {
		f += (uint64_t)h[i] + le32_load(s + 4 * i);
		le32_store(mac + 4 * i, (uint32_t)f);
		f >>= 32;
	}
}
