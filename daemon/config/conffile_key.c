/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keys in the files' and wg's base64 (daemon/config/conffile.h), in
 * constant time: no branch and no table index depends on a key.
 */
#include "daemon/config/conffile.h"

#include "crypto/util.h"
#include "daemon/config/span.h"

/* 'A'..'Z', 'a'..'z', '0'..'9', '+', '/': 0..63 */
static const struct span_ct_range b64_digits[] = {
	{ 'A', 'Z', -'A' }, { 'a', 'z', 26 - 'a' }, { '0', '9', 52 - '0' },
	{ '+', '+', 62 - '+' }, { '/', '/', 63 - '/' },
};

bool conffile_key_from_base64(uint8_t key[CONFIG_KEY_LEN], const char *b64, size_t len)
{
	uint32_t bad = 0, acc = 0;
	size_t out = 0;

	/* 32 bytes are 43 characters (258 bits, the last 2 zero) and one '='.
	 * The length and the '=' are public. */
	if (len != 44 || b64[43] != '=') {
		crypto_wipe(key, CONFIG_KEY_LEN);
		return false;
	}
	for (size_t i = 0; i < 43; i++) {
		acc = (acc << 6) | span_ct_value((uint8_t)b64[i], b64_digits, 5, &bad);
		if (i % 4 == 3) {
			key[out++] = (uint8_t)(acc >> 16);
			key[out++] = (uint8_t)(acc >> 8);
			key[out++] = (uint8_t)acc;
			acc = 0;
		}
	}
	/* Three characters left: 18 bits, 16 of key and 2 that must be 0. */
	key[out++] = (uint8_t)(acc >> 10);
	key[out] = (uint8_t)(acc >> 2);
	bad |= (acc | acc >> 1) & 1;
	/* Invalid input leaves zeros, by mask, as uapi_key_from_hex(). */
	for (size_t i = 0; i < CONFIG_KEY_LEN; i++)
		key[i] &= (uint8_t)(bad - 1);
	return !bad;
}

/* 1 when a <= b, else 0, without a branch; a, b < 2^31. */
static uint32_t ct_le(uint32_t a, uint32_t b)
{
	return ((b - a) >> 31) ^ 1;
}

/* The base64 character of a 6-bit value v: 'A' + v, moved by each class
 * boundary v has passed ('a' - 26 - 'A' = 6, '0' - 52 - ('a' - 26) = -75,
 * '+' - 62 - ('0' - 52) = -15, '/' - 63 - ('+' - 62) = 3). */
static char b64_char(uint32_t v)
{
	return (char)('A' + v + 6 * ct_le(26, v) - 75 * ct_le(52, v) -
		      15 * ct_le(62, v) + 3 * ct_le(63, v));
}

void conffile_key_to_base64(char out[45], const uint8_t key[CONFIG_KEY_LEN])
{
	/* Character j is bits 6j..6j+5 of the key (then two zero bits), read
	 * from the 16 bits of its first byte and the next: the indices are
	 * public, only the values are secret. */
	for (size_t j = 0; j < 43; j++) {
		size_t i = 6 * j / 8;
		uint32_t w = (uint32_t)key[i] << 8 | (i + 1 < CONFIG_KEY_LEN ? key[i + 1] : 0);

		out[j] = b64_char((w >> (10 - 6 * j % 8)) & 63);
	}
	out[43] = '=';
	out[44] = '\0';
}
