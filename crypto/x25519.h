/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * X25519 (RFC 7748) through libsodium: the only libsodium use in the product.
 */
#ifndef WGD_CRYPTO_X25519_H
#define WGD_CRYPTO_X25519_H

#include <stdbool.h>
#include <stdint.h>

#define X25519_KEY_SIZE 32

/* Initialises libsodium; call once before the other functions. */
bool x25519_init(void);

/* k[0] &= 248; k[31] = (k[31] & 127) | 64 */
void x25519_clamp(uint8_t key[X25519_KEY_SIZE]);

/* A clamped private key from getrandom(2); false if the kernel gave none. */
bool x25519_generate_private(uint8_t priv[X25519_KEY_SIZE]);

/* pub = priv * basepoint; false for a private key that yields zero. */
bool x25519_public(uint8_t pub[X25519_KEY_SIZE], const uint8_t priv[X25519_KEY_SIZE]);

/*
 * shared = priv * pub (priv is clamped internally).  Returns false, with
 * shared zeroed, when the result is all zeros (a small-order public key).
 */
bool x25519(uint8_t shared[X25519_KEY_SIZE], const uint8_t priv[X25519_KEY_SIZE],
	    const uint8_t pub[X25519_KEY_SIZE]);

#endif
