/* SPDX-License-Identifier: GPL-2.0-only */
/* Poly1305 one-time authenticator (RFC 8439 §2.5). */
#ifndef WGD_CRYPTO_POLY1305_H
#define WGD_CRYPTO_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#define POLY1305_KEY_SIZE 32
#define POLY1305_BLOCK_SIZE 16
#define POLY1305_MAC_SIZE 16

/*
 * core holds the state of whichever block core the build selected (26-bit
 * limbs, 64-bit limbs, or assembly); see poly1305_impl.h.  On x86-64 it
 * also holds the powers r^1..r^4 of the AVX2 core (crypto/arch/x86_64/
 * poly1305_avx2.c), hence the larger size there.
 */
#if defined(__x86_64__)
#define POLY1305_CORE_WORDS64 20
#else
#define POLY1305_CORE_WORDS64 10
#endif
struct poly1305_ctx {
	union {
		uint32_t w32[2 * POLY1305_CORE_WORDS64];
		uint64_t w64[POLY1305_CORE_WORDS64];
	} core;
	uint8_t s[16];	/* the second half of the key, added at the end */
	uint8_t buf[POLY1305_BLOCK_SIZE];
	size_t buflen;
};

void poly1305_init(struct poly1305_ctx *ctx, const uint8_t key[POLY1305_KEY_SIZE]);
void poly1305_update(struct poly1305_ctx *ctx, const uint8_t *in, size_t len);
/* Writes the tag and wipes the context. */
void poly1305_final(struct poly1305_ctx *ctx, uint8_t mac[POLY1305_MAC_SIZE]);
void poly1305(uint8_t mac[POLY1305_MAC_SIZE], const uint8_t *in, size_t len,
	      const uint8_t key[POLY1305_KEY_SIZE]);

#endif
