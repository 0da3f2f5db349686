/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of the AEAD that the generic code (chacha20poly1305.c) and an
 * architecture's AEAD (crypto/arch/glue.h, CHACHA20POLY1305_ARCH_SEAL)
 * share: the tag.
 */
#ifndef WGD_CRYPTO_CHACHA20POLY1305_IMPL_H
#define WGD_CRYPTO_CHACHA20POLY1305_IMPL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Poly1305 keyed with otk (the first 32 bytes of keystream block 0, RFC
 * 8439 §2.6) over AD || pad16 || ct || pad16 || le64(ad_len) ||
 * le64(ct_len) (§2.8).  Wipes its own state.
 */
void chacha20poly1305_tag(uint8_t tag[16], const uint8_t otk[32], const uint8_t *ad, size_t ad_len,
			  const uint8_t *ct, size_t ct_len);

#endif
