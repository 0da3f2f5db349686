/* SPDX-License-Identifier: GPL-2.0-only */
/* ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha). */
#ifndef WGD_CRYPTO_CHACHA20POLY1305_H
#define WGD_CRYPTO_CHACHA20POLY1305_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHACHA20POLY1305_KEY_SIZE 32
#define CHACHA20POLY1305_AUTHTAG_SIZE 16
#define CHACHA20POLY1305_IETF_NONCE_SIZE 12
#define XCHACHA20POLY1305_NONCE_SIZE 24

/* WireGuard's nonce: 32 zero bits || little-endian 64-bit counter. dst receives src_len + 16 bytes; dst may equal src. */
void chacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
			      const uint8_t *ad, size_t ad_len, uint64_t nonce, const uint8_t key[32]);
/* src_len includes the 16-byte tag. On a bad tag: returns false and dst holds no plaintext. */
bool chacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
			      const uint8_t *ad, size_t ad_len, uint64_t nonce, const uint8_t key[32]);
/* RFC 8439 form, 96-bit nonce */
void chacha20poly1305_ietf_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				   size_t ad_len, const uint8_t nonce[12], const uint8_t key[32]);
bool chacha20poly1305_ietf_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				   size_t ad_len, const uint8_t nonce[12], const uint8_t key[32]);
void xchacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[24], const uint8_t key[32]);
bool xchacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[24], const uint8_t key[32]);

#endif
