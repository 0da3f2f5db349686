// SPDX-License-Identifier: GPL-2.0-only
/* X25519 (RFC 7748) through libsodium: the only file that uses libsodium. */
#include "crypto/x25519.h"

#include <sodium.h>

#include "crypto/util.h"

bool x25519_init(void)
{
	/* 0: initialised now, 1: already initialised, -1: failure */
	return sodium_init() >= 0;
}

/* RFC 7748 §5: clear the 3 low bits, clear bit 255, set bit 254 */
void x25519_clamp(uint8_t key[X25519_KEY_SIZE])
{
	key[0] &= 248;
	key[31] = (key[31] & 127) | 64;
}

bool x25519_generate_private(uint8_t priv[X25519_KEY_SIZE])
{
	if (!crypto_random(priv, X25519_KEY_SIZE))
		return false;
	x25519_clamp(priv);
	return true;
}

/*
 * Keeps out[] when ok is true and zeroes it otherwise, without a branch:
 * the verdict comes from secret data, and only the caller may act on it.
 */
static void x25519_keep_if(uint8_t out[X25519_KEY_SIZE], bool ok)
{
	uint8_t mask = (uint8_t)(0u - (unsigned int)ok);
	size_t i;

	/*
	 * Hide that mask is 0 or 0xff: clang 14 otherwise turns the AND below
	 * into "ok ? out : 0" with a conditional jump on ok (seen by crypto-ct).
	 */
	__asm__("" : "+r"(mask));
	for (i = 0; i < X25519_KEY_SIZE; i++)
		out[i] &= mask;
}

bool x25519_public(uint8_t pub[X25519_KEY_SIZE], const uint8_t priv[X25519_KEY_SIZE])
{
	int ret = crypto_scalarmult_curve25519_base(pub, priv);
	/* libsodium clamps; a clamped scalar never gives zero, but check anyway */
	bool ok = (ret == 0) & !crypto_is_zero(pub, X25519_KEY_SIZE);

	x25519_keep_if(pub, ok);
	return ok;
}

bool x25519(uint8_t shared[X25519_KEY_SIZE], const uint8_t priv[X25519_KEY_SIZE],
	    const uint8_t pub[X25519_KEY_SIZE])
{
	uint8_t k[X25519_KEY_SIZE];
	size_t i;
	int ret;
	bool ok;

	for (i = 0; i < X25519_KEY_SIZE; i++)
		k[i] = priv[i];
	x25519_clamp(k);
	/*
	 * libsodium itself returns -1 for an all-zero result (a small-order
	 * public key); the explicit check below does not depend on that.
	 */
	ret = crypto_scalarmult_curve25519(shared, k, pub);
	ok = (ret == 0) & !crypto_is_zero(shared, X25519_KEY_SIZE);
	x25519_keep_if(shared, ok);
	crypto_wipe(k, sizeof(k));
	return ok;
}
