/* SPDX-License-Identifier: GPL-2.0-only */
/* ChaCha20 (RFC 8439 §2.3-2.4) and HChaCha20 (draft-irtf-cfrg-xchacha §2.2). */
#ifndef WGD_CRYPTO_CHACHA20_H
#define WGD_CRYPTO_CHACHA20_H

#include <stddef.h>
#include <stdint.h>

#define CHACHA20_KEY_SIZE 32
#define CHACHA20_NONCE_SIZE 12
#define CHACHA20_BLOCK_SIZE 64
#define HCHACHA20_NONCE_SIZE 16
#define HCHACHA20_OUT_SIZE 32

/* The 16-word state of RFC 8439 §2.3; word 12 is the block counter. */
struct chacha20_ctx {
	uint32_t state[16];
};

void chacha20_init(struct chacha20_ctx *ctx, const uint8_t key[CHACHA20_KEY_SIZE],
		   const uint8_t nonce[CHACHA20_NONCE_SIZE], uint32_t counter);

/*
 * dst = src XOR keystream, advancing the counter by the blocks used.  Any
 * alignment; dst may equal src.  Every call but the last must pass a multiple
 * of 64 bytes: a partial block's unused keystream is discarded.
 */
void chacha20_xor(struct chacha20_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len);

/* One 64-byte keystream block for the given state (RFC 8439 §2.3.2). */
void chacha20_block(uint8_t out[CHACHA20_BLOCK_SIZE], const uint32_t state[16]);

void chacha20_clear(struct chacha20_ctx *ctx);

void hchacha20(uint8_t out[HCHACHA20_OUT_SIZE], const uint8_t nonce[HCHACHA20_NONCE_SIZE],
	       const uint8_t key[CHACHA20_KEY_SIZE]);

#endif
