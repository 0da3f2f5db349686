/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Poly1305 block cores.  Each core keeps its own state in
 * struct poly1305_ctx.core and offers the same three verbs:
 *   _init(core, r)                   clamp r (the first 16 key bytes), h = 0
 *   _blocks(core, in, len, padbit)   absorb len bytes (a multiple of 16);
 *                                    padbit is 1 for full blocks, 0 for the
 *                                    final, already padded, partial block
 *   _emit(core, mac, s)              mac = (h mod 2^130-5) + s mod 2^128
 * The cores are also exported so that tests and benchmarks can compare them.
 */
#ifndef WGD_CRYPTO_POLY1305_IMPL_H
#define WGD_CRYPTO_POLY1305_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* 26-bit limbs, 32x32->64 multiplies: for 32-bit targets. */
void poly1305_32_init(void *core, const uint8_t r[16]);
void poly1305_32_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);
void poly1305_32_emit(void *core, uint8_t mac[16], const uint8_t s[16]);

#if defined(__SIZEOF_INT128__)
#define POLY1305_HAVE_64 1
/*
 * 44-bit limbs, 64x64->128 multiplies: where the compiler has unsigned __int128.
 * The state is public so that a vector core (crypto/arch/x86_64) can hand
 * the accumulator back and forth with this one.
 */
struct poly1305_64_state {
	uint64_t r[3];	/* clamped r: r0, r1 < 2^44, r2 < 2^36 */
	uint64_t rr[3];	/* r^2 mod p, partly reduced: < 2^44, < 2^44 + 2^14, < 2^42 */
	uint64_t h[3];	/* accumulator: < 2^44, < 2^44 + 2^14, < 2^42 + 2^17 between calls */
};

void poly1305_64_init(void *core, const uint8_t r[16]);
void poly1305_64_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);
void poly1305_64_emit(void *core, uint8_t mac[16], const uint8_t s[16]);
#endif

#endif
