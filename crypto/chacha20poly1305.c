// SPDX-License-Identifier: GPL-2.0-only
/*
 * ChaCha20-Poly1305 (RFC 8439 §2.8), WireGuard's 64-bit-counter nonce
 * (whitepaper §5.4), and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha §2.3).
 */
#include "crypto/chacha20poly1305.h"

#include "crypto/arch/glue.h"
#include "crypto/bytes.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305_impl.h"
#include "crypto/poly1305.h"
#include "crypto/util.h"

#include <string.h>

/*
 * Poly1305 over in[0..len) padded with zeros to a multiple of 16 bytes
 * (RFC 8439 §2.8): the whole blocks straight from in, a partial last one
 * through the context's buffer.  No buffering: a WireGuard data message's
 * ciphertext is a multiple of 16 bytes (whitepaper §5.4.6), so it is one
 * call.
 */
static void aead_mac_padded(struct poly1305_ctx *poly, const uint8_t *in, size_t len)
{
	size_t full = len & ~(size_t)(POLY1305_BLOCK_SIZE - 1);

	if (full > 0)
		POLY1305_CORE_BLOCKS(&poly->core, in, full, 1);
	if (len > full) {
		memset(poly->buf, 0, sizeof(poly->buf));
		memcpy(poly->buf, in + full, len - full);
		POLY1305_CORE_BLOCKS(&poly->core, poly->buf, POLY1305_BLOCK_SIZE, 1);
	}
}

/* The tag (chacha20poly1305_impl.h) in poly, which the caller wipes. */
static void aead_tag(struct poly1305_ctx *poly, uint8_t tag[CHACHA20POLY1305_AUTHTAG_SIZE],
		     const uint8_t otk[POLY1305_KEY_SIZE], const uint8_t *ad, size_t ad_len, const uint8_t *ct,
		     size_t ct_len)
{
	poly1305_init(poly, otk);
	aead_mac_padded(poly, ad, ad_len);
	aead_mac_padded(poly, ct, ct_len);
	le64_store(poly->buf + 0, (uint64_t)ad_len);
	le64_store(poly->buf + 8, (uint64_t)ct_len);
	POLY1305_CORE_BLOCKS(&poly->core, poly->buf, POLY1305_BLOCK_SIZE, 1);
	POLY1305_CORE_EMIT(&poly->core, tag, poly->s);
}

void chacha20poly1305_tag(uint8_t tag[CHACHA20POLY1305_AUTHTAG_SIZE], const uint8_t otk[POLY1305_KEY_SIZE],
			  const uint8_t *ad, size_t ad_len, const uint8_t *ct, size_t ct_len)
{
	struct poly1305_ctx poly;

	aead_tag(&poly, tag, otk, ad, ad_len, ct, ct_len);
	crypto_wipe(&poly, sizeof(poly));
}

/* The cipher at counter 0 gives the Poly1305 key; data starts at counter 1. */
static void aead_setup(struct chacha20_ctx *chacha, uint8_t otk[CHACHA20_BLOCK_SIZE],
		       const uint8_t nonce[CHACHA20POLY1305_IETF_NONCE_SIZE],
		       const uint8_t key[CHACHA20POLY1305_KEY_SIZE])
{
	chacha20_init(chacha, key, nonce, 0);
	chacha20_block(otk, chacha->state);
	chacha->state[12] = 1;
}

/* What one seal or open keeps on the stack, wiped with one call. */
struct aead_scratch {
	struct chacha20_ctx chacha;
	uint8_t otk[CHACHA20_BLOCK_SIZE];
	uint8_t tag[CHACHA20POLY1305_AUTHTAG_SIZE];
	struct poly1305_ctx poly;
};

void chacha20poly1305_ietf_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				   size_t ad_len, const uint8_t nonce[12], const uint8_t key[32])
{
	struct aead_scratch s;

#if defined(CHACHA20POLY1305_ARCH_SEAL)
	/* an architecture's AEAD, where it applies (crypto/arch/glue.h) */
	if (CHACHA20POLY1305_ARCH_SEAL(dst, src, src_len, ad, ad_len, nonce, key))
		return;
#endif
	aead_setup(&s.chacha, s.otk, nonce, key);
	chacha20_xor(&s.chacha, dst, src, src_len);
	aead_tag(&s.poly, dst + src_len, s.otk, ad, ad_len, dst, src_len);
	crypto_wipe(&s, sizeof(s));
}

/*
 * Verify, then decrypt: the tag is computed over the ciphertext and compared
 * in constant time before a single byte of plaintext is produced, so a
 * forgery never reaches dst (which may be src itself).
 */
bool chacha20poly1305_ietf_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
				   size_t ad_len, const uint8_t nonce[12], const uint8_t key[32])
{
	struct aead_scratch s;
	size_t ct_len;
	bool ok;

	if (src_len < CHACHA20POLY1305_AUTHTAG_SIZE)
		return false;
	ct_len = src_len - CHACHA20POLY1305_AUTHTAG_SIZE;

#if defined(CHACHA20POLY1305_ARCH_OPEN)
	if (CHACHA20POLY1305_ARCH_OPEN(&ok, dst, src, ct_len, ad, ad_len, nonce, key))
		return ok;
#endif
	aead_setup(&s.chacha, s.otk, nonce, key);
	aead_tag(&s.poly, s.tag, s.otk, ad, ad_len, src, ct_len);
	ok = crypto_equal(s.tag, src + ct_len, sizeof(s.tag));
	/* The verdict is the public result; the branch on it is the only one. */
	crypto_declassify(&ok, sizeof(ok));
	if (ok)
		chacha20_xor(&s.chacha, dst, src, ct_len);
	crypto_wipe(&s, sizeof(s));
	return ok;
}

/* WireGuard's nonce (whitepaper §5.4): 32 zero bits || le64(counter). */
static void aead_wg_nonce(uint8_t nonce[CHACHA20POLY1305_IETF_NONCE_SIZE], uint64_t counter)
{
	le32_store(nonce, 0);
	le64_store(nonce + 4, counter);
}

void chacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
			      const uint8_t *ad, size_t ad_len, uint64_t nonce, const uint8_t key[32])
{
	uint8_t n[CHACHA20POLY1305_IETF_NONCE_SIZE];

	aead_wg_nonce(n, nonce);
	chacha20poly1305_ietf_encrypt(dst, src, src_len, ad, ad_len, n, key);
}

bool chacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len,
			      const uint8_t *ad, size_t ad_len, uint64_t nonce, const uint8_t key[32])
{
	uint8_t n[CHACHA20POLY1305_IETF_NONCE_SIZE];

	aead_wg_nonce(n, nonce);
	return chacha20poly1305_ietf_decrypt(dst, src, src_len, ad, ad_len, n, key);
}

/*
 * XChaCha20 (draft-irtf-cfrg-xchacha §2.3): the subkey is HChaCha20 of the
 * key and the first 16 nonce bytes; the IETF nonce is 4 zero bytes and the
 * last 8 nonce bytes.
 */
static void aead_xchacha_setup(uint8_t subkey[CHACHA20_KEY_SIZE],
			       uint8_t n[CHACHA20POLY1305_IETF_NONCE_SIZE],
			       const uint8_t nonce[XCHACHA20POLY1305_NONCE_SIZE],
			       const uint8_t key[CHACHA20POLY1305_KEY_SIZE])
{
	hchacha20(subkey, nonce, key);
	le32_store(n, 0);
	le32_store(n + 4, le32_load(nonce + 16));
	le32_store(n + 8, le32_load(nonce + 20));
}

void xchacha20poly1305_encrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[24], const uint8_t key[32])
{
	uint8_t subkey[CHACHA20_KEY_SIZE];
	uint8_t n[CHACHA20POLY1305_IETF_NONCE_SIZE];

	aead_xchacha_setup(subkey, n, nonce, key);
	chacha20poly1305_ietf_encrypt(dst, src, src_len, ad, ad_len, n, subkey);
	crypto_wipe(subkey, sizeof(subkey));
}

bool xchacha20poly1305_decrypt(uint8_t *dst, const uint8_t *src, size_t src_len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[24], const uint8_t key[32])
{
	uint8_t subkey[CHACHA20_KEY_SIZE];
	uint8_t n[CHACHA20POLY1305_IETF_NONCE_SIZE];
	bool ok;

	aead_xchacha_setup(subkey, n, nonce, key);
	ok = chacha20poly1305_ietf_decrypt(dst, src, src_len, ad, ad_len, n, subkey);
	crypto_wipe(subkey, sizeof(subkey));
	return ok;
}
