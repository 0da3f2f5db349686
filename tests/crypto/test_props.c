// SPDX-License-Identifier: GPL-2.0-only
/*
 * Properties of the crypto library on seeded random inputs:
 *  - every length 0..1024 and some up to 64 KiB;
 *  - every source and destination offset 0..15 (the library must not assume
 *    alignment: big-endian MIPS and unaligned UDP payloads);
 *  - in place equals out of place; incremental in random chunks equals one-shot;
 *  - ChaCha20 against a naive reference built from the block function
 *    (itself checked against RFC 8439 by crypto-rfc);
 *  - the Poly1305 cores agree with each other and with poly1305();
 *  - XChaCha20-Poly1305 is HChaCha20 + the IETF AEAD (draft-irtf-cfrg-xchacha §2.3);
 *  - any flipped bit in ciphertext, tag or AD makes decryption fail, and the
 *    output then holds no plaintext;
 *  - contexts are wiped by final/clear; util.h's comparisons and wiping.
 * Usage: test_props   (WGD_TEST_SEED=n repeats or varies a run)
 */
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20_impl.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"
#include "crypto/util.h"
#include "tests/lib/testutil.h"

#define BIG (64 * 1024)
#define SLACK 64

static struct tu_rng rng;
static uint8_t *in_buf, *out_buf, *ref_buf, *tmp_buf;

static const size_t big_lengths[] = { 1025, 2047, 4095, 4096, 4097, 65535, BIG };
#define N_BIG (sizeof(big_lengths) / sizeof(big_lengths[0]))

static const size_t offset_lengths[] = { 0, 1, 15, 16, 17, 63, 64, 65, 129, 300 };
#define N_OFFSET_LENGTHS (sizeof(offset_lengths) / sizeof(offset_lengths[0]))

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static size_t rand_below(size_t n)
{
	return (size_t)tu_rng_below(&rng, n);
}

/* ---- ChaCha20 ---- */

/* RFC 8439 §2.4.1, one block at a time from chacha20_block(). */
static void chacha20_reference(uint8_t *dst, const uint8_t *src, size_t len,
			       const uint8_t key[32], const uint8_t nonce[12], uint32_t counter)
{
	struct chacha20_ctx ctx;
	uint8_t ks[64];
	size_t i;

	chacha20_init(&ctx, key, nonce, counter);
	for (i = 0; i < len; i++) {
		if (i % 64 == 0) {
			chacha20_block(ks, ctx.state);
			ctx.state[12]++;
		}
		dst[i] = src[i] ^ ks[i % 64];
	}
}

struct chacha_params {
	uint8_t key[32];
	uint8_t nonce[12];
	uint32_t counter;
};

static void chacha_random_params(struct chacha_params *p)
{
	tu_rng_fill(&rng, p->key, sizeof(p->key));
	tu_rng_fill(&rng, p->nonce, sizeof(p->nonce));
	/* Any start, but no wrap of the 32-bit counter within 64 KiB. */
	p->counter = (uint32_t)tu_rng_below(&rng, 0xffffffffu - 2048);
}

static void chacha_check(const struct chacha_params *p, size_t len, size_t src_off,
			 size_t dst_off)
{
	uint8_t *src = in_buf + src_off, *dst = out_buf + dst_off;
	uint32_t blocks = (uint32_t)((len + 63) / 64);
	struct chacha20_ctx ctx;
	uint32_t state[16];

	tu_rng_fill(&rng, src, len);
	chacha20_reference(ref_buf, src, len, p->key, p->nonce, p->counter);

	chacha20_init(&ctx, p->key, p->nonce, p->counter);
	chacha20_xor(&ctx, dst, src, len);
	tu_check_mem(dst, ref_buf, len, "chacha20_xor len %zu src+%zu dst+%zu", len, src_off,
		     dst_off);
	tu_check(ctx.state[12] == p->counter + blocks, "chacha20_xor counter, len %zu", len);

	chacha20_init(&ctx, p->key, p->nonce, p->counter);
	memcpy(state, ctx.state, sizeof(state));
	chacha20_generic_xor(dst, src, len, state);
	tu_check_mem(dst, ref_buf, len, "chacha20_generic_xor len %zu src+%zu dst+%zu", len,
		     src_off, dst_off);
	tu_check(state[12] == p->counter + blocks, "chacha20_generic_xor counter, len %zu", len);

	/* In place, at the source's offset (ctx was not advanced by the generic call). */
	chacha20_xor(&ctx, src, src, len);
	tu_check_mem(src, ref_buf, len, "chacha20_xor in place len %zu at +%zu", len, src_off);
	chacha20_clear(&ctx);
}

static void chacha_incremental(size_t len)
{
	struct chacha_params p;
	struct chacha20_ctx ctx;
	size_t done = 0;

	chacha_random_params(&p);
	tu_rng_fill(&rng, in_buf, len);
	chacha20_reference(ref_buf, in_buf, len, p.key, p.nonce, p.counter);
	chacha20_init(&ctx, p.key, p.nonce, p.counter);
	/* Multiples of 64 (including 0), then the rest in one last call. */
	while (done < len) {
		size_t chunk = 64 * rand_below(5);

		if (chunk >= len - done || rand_below(8) == 0)
			chunk = len - done;
		chacha20_xor(&ctx, out_buf + done, in_buf + done, chunk);
		done += chunk;
	}
	tu_check_mem(out_buf, ref_buf, len, "chacha20_xor in random 64-multiples, len %zu", len);
}

static void test_chacha20(void)
{
	struct chacha_params p;
	struct chacha20_ctx ctx;
	size_t len, s, d, i;

	for (len = 0; len <= 1024; len++) {
		chacha_random_params(&p);
		chacha_check(&p, len, 0, 0);
	}
	for (i = 0; i < N_OFFSET_LENGTHS; i++)
		for (s = 0; s < 16; s++)
			for (d = 0; d < 16; d++) {
				chacha_random_params(&p);
				chacha_check(&p, offset_lengths[i], s, d);
			}
	for (i = 0; i < N_BIG; i++) {
		chacha_random_params(&p);
		chacha_check(&p, big_lengths[i], rand_below(16), rand_below(16));
	}
	for (i = 0; i < 300; i++)
		chacha_incremental(rand_below(4097));
	chacha_incremental(BIG);

	chacha_random_params(&p);
	chacha20_init(&ctx, p.key, p.nonce, p.counter);
	chacha20_clear(&ctx);
	tu_check(all_zero(&ctx, sizeof(ctx)), "chacha20_clear left state behind");
}

/* ---- Poly1305 ---- */

static void poly_random_key(uint8_t key[32])
{
	switch (rand_below(4)) {
	case 0:
		/* Largest r after clamping and largest s: carries everywhere. */
		memset(key, 0xff, 32);
		break;
	case 1:
		memset(key, 0, 32);
		tu_rng_fill(&rng, key + 16, 16);
		break;
	default:
		tu_rng_fill(&rng, key, 32);
	}
}

static void poly_random_msg(uint8_t *msg, size_t len)
{
	if (rand_below(4) == 0)
		memset(msg, 0xff, len);
	else
		tu_rng_fill(&rng, msg, len);
}

static void poly_check(size_t len, size_t off)
{
	uint8_t key[32], want[16], mac[16];
	uint8_t *msg = in_buf + off;
	struct poly1305_ctx ctx;
	size_t c, done = 0;

	poly_random_key(key);
	poly_random_msg(msg, len);
	poly1305(want, msg, len, key);
	for (c = 0; c < tu_poly_ncores; c++) {
		tu_poly1305_core(&tu_poly_cores[c], mac, msg, len, key);
		tu_check_mem(mac, want, 16, "%s vs poly1305(), len %zu at +%zu",
			     tu_poly_cores[c].name, len, off);
	}
	poly1305_init(&ctx, key);
	while (done < len) {
		size_t chunk = rand_below(3) == 0 ? rand_below(17) : rand_below(200);

		if (chunk > len - done)
			chunk = len - done;
		poly1305_update(&ctx, msg + done, chunk);
		done += chunk;
	}
	poly1305_update(&ctx, msg + done, 0);
	poly1305_final(&ctx, mac);
	tu_check_mem(mac, want, 16, "poly1305_update in random chunks, len %zu", len);
	tu_check(all_zero(&ctx, sizeof(ctx)), "poly1305_final left the context behind");
}

/* The cores against each other on whole blocks fed in several calls. */
static void poly_cores_agree(size_t len)
{
	struct poly1305_ctx ctx[2];
	uint8_t key[32], mac[2][16];
	size_t c, done;

	if (tu_poly_ncores < 2)
		return;
	len &= ~(size_t)15;
	poly_random_key(key);
	poly_random_msg(in_buf, len);
	for (c = 0; c < 2; c++) {
		const struct tu_poly_core *core = &tu_poly_cores[c];

		core->init(&ctx[c].core, key);
		for (done = 0; done < len;) {
			size_t chunk = 16 * (1 + rand_below(8));

			if (chunk > len - done)
				chunk = len - done;
			core->blocks(&ctx[c].core, in_buf + done, chunk, 1);
			done += chunk;
		}
		core->emit(&ctx[c].core, mac[c], key + 16);
	}
	tu_check_mem(mac[1], mac[0], 16, "%s vs %s on %zu bytes", tu_poly_cores[1].name,
		     tu_poly_cores[0].name, len);
}

static void test_poly1305(void)
{
	size_t len, i;

	printf("poly1305 cores under test:");
	for (i = 0; i < tu_poly_ncores; i++)
		printf(" %s", tu_poly_cores[i].name);
	printf("\n");
	for (len = 0; len <= 1024; len++)
		poly_check(len, 0);
	for (i = 0; i < 16 * N_OFFSET_LENGTHS; i++)
		poly_check(offset_lengths[i / 16], i % 16);
	for (i = 0; i < N_BIG; i++)
		poly_check(big_lengths[i], rand_below(16));
	for (i = 0; i < 3000; i++)
		poly_cores_agree(rand_below(2049));
	poly_cores_agree(BIG);
}

/* ---- BLAKE2s ---- */

static void blake2s_check(size_t len, size_t off)
{
	uint8_t key[32], want[32], out[32];
	uint8_t *msg = in_buf + off;
	size_t key_len = rand_below(2) ? 0 : 1 + rand_below(32);
	size_t out_len = rand_below(2) ? 32 : 1 + rand_below(32);
	struct blake2s_state st;
	size_t done = 0;

	tu_rng_fill(&rng, key, sizeof(key));
	tu_rng_fill(&rng, msg, len);
	blake2s(want, out_len, msg, len, key_len ? key : NULL, key_len);
	if (key_len)
		blake2s_init_key(&st, out_len, key, key_len);
	else
		blake2s_init(&st, out_len);
	while (done < len) {
		size_t chunk = rand_below(3) == 0 ? rand_below(65) : rand_below(300);

		if (chunk > len - done)
			chunk = len - done;
		blake2s_update(&st, msg + done, chunk);
		done += chunk;
	}
	memset(out, 0, sizeof(out));
	blake2s_final(&st, out);
	tu_check_mem(out, want, out_len, "blake2s in random chunks, len %zu key %zu out %zu", len,
		     key_len, out_len);
	tu_check(all_zero(&st, sizeof(st)), "blake2s_final left the state behind");
	/* One-shot at offset 0 gives the same hash as at this offset. */
	memmove(tmp_buf, msg, len);
	blake2s(out, out_len, tmp_buf, len, key_len ? key : NULL, key_len);
	tu_check_mem(out, want, out_len, "blake2s depends on the input's address, len %zu", len);
}

static void test_blake2s(void)
{
	size_t len, i;

	for (len = 0; len <= 1024; len++)
		blake2s_check(len, 0);
	for (i = 0; i < 16 * N_OFFSET_LENGTHS; i++)
		blake2s_check(offset_lengths[i / 16], i % 16);
	for (i = 0; i < N_BIG; i++)
		blake2s_check(big_lengths[i], rand_below(16));
}

/* ---- AEAD ---- */

enum aead_kind { AEAD_IETF, AEAD_WG, AEAD_X, AEAD_KINDS };

static const char *const aead_names[AEAD_KINDS] = { "ietf", "wireguard", "xchacha" };

struct aead_params {
	enum aead_kind kind;
	uint8_t key[32];
	uint8_t nonce[24];
	uint64_t counter;
	uint8_t ad[80];
	size_t ad_len;
};

static void aead_random_params(struct aead_params *p, enum aead_kind kind)
{
	p->kind = kind;
	tu_rng_fill(&rng, p->key, sizeof(p->key));
	tu_rng_fill(&rng, p->nonce, sizeof(p->nonce));
	p->counter = tu_rng_next(&rng);
	p->ad_len = rand_below(4) == 0 ? 0 : rand_below(sizeof(p->ad) + 1);
	tu_rng_fill(&rng, p->ad, sizeof(p->ad));
}

static void aead_encrypt(const struct aead_params *p, uint8_t *dst, const uint8_t *src, size_t len)
{
	switch (p->kind) {
	case AEAD_IETF:
		chacha20poly1305_ietf_encrypt(dst, src, len, p->ad, p->ad_len, p->nonce, p->key);
		break;
	case AEAD_WG:
		chacha20poly1305_encrypt(dst, src, len, p->ad, p->ad_len, p->counter, p->key);
		break;
	default:
		xchacha20poly1305_encrypt(dst, src, len, p->ad, p->ad_len, p->nonce, p->key);
	}
}

static bool aead_decrypt(const struct aead_params *p, uint8_t *dst, const uint8_t *src,
			 size_t src_len)
{
	switch (p->kind) {
	case AEAD_IETF:
		return chacha20poly1305_ietf_decrypt(dst, src, src_len, p->ad, p->ad_len, p->nonce,
						     p->key);
	case AEAD_WG:
		return chacha20poly1305_decrypt(dst, src, src_len, p->ad, p->ad_len, p->counter,
						p->key);
	default:
		return xchacha20poly1305_decrypt(dst, src, src_len, p->ad, p->ad_len, p->nonce,
						 p->key);
	}
}

/* After a refused decryption: every output byte is as before or zero. */
static bool output_is_clean(const uint8_t *out, const uint8_t *before, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (out[i] != before[i] && out[i] != 0)
			return false;
	return true;
}

static void aead_roundtrip(const struct aead_params *p, size_t len, size_t src_off,
			   size_t dst_off)
{
	const char *name = aead_names[p->kind];
	uint8_t *src = in_buf + src_off, *dst = out_buf + dst_off;

	tu_rng_fill(&rng, src, len);
	aead_encrypt(p, dst, src, len);
	memcpy(ref_buf, dst, len + 16);

	/* In place (dst == src) gives the same ciphertext and tag. */
	memcpy(tmp_buf + src_off, src, len);
	aead_encrypt(p, tmp_buf + src_off, tmp_buf + src_off, len);
	tu_check_mem(tmp_buf + src_off, ref_buf, len + 16, "%s encrypt in place, len %zu", name,
		     len);

	memset(dst, 0xa5, len + 16);
	tu_check(aead_decrypt(p, dst, ref_buf, len + 16), "%s decrypt refused, len %zu", name, len);
	tu_check_mem(dst, src, len, "%s roundtrip len %zu src+%zu dst+%zu", name, len, src_off,
		     dst_off);
	tu_check(aead_decrypt(p, tmp_buf + src_off, tmp_buf + src_off, len + 16),
		 "%s decrypt in place refused, len %zu", name, len);
	tu_check_mem(tmp_buf + src_off, src, len, "%s decrypt in place, len %zu", name, len);
}

/* The three forms are one AEAD: check them against each other. */
static void aead_forms_agree(size_t len)
{
	struct aead_params p, q;
	uint8_t subkey[32];
	int i;

	aead_random_params(&p, AEAD_WG);
	tu_rng_fill(&rng, in_buf, len);
	aead_encrypt(&p, ref_buf, in_buf, len);
	/* WireGuard's nonce is 32 zero bits || LE64(counter) (whitepaper §5.4.6). */
	q = p;
	q.kind = AEAD_IETF;
	memset(q.nonce, 0, 4);
	for (i = 0; i < 8; i++)
		q.nonce[4 + i] = (uint8_t)(p.counter >> (8 * i));
	aead_encrypt(&q, out_buf, in_buf, len);
	tu_check_mem(out_buf, ref_buf, len + 16, "wireguard vs ietf nonce layout, len %zu", len);

	/* draft-irtf-cfrg-xchacha §2.3: subkey = HChaCha20(key, n[0..16]), nonce 0^4 || n[16..24]. */
	aead_random_params(&p, AEAD_X);
	aead_encrypt(&p, ref_buf, in_buf, len);
	hchacha20(subkey, p.nonce, p.key);
	q = p;
	q.kind = AEAD_IETF;
	memcpy(q.key, subkey, 32);
	memset(q.nonce, 0, 4);
	memcpy(q.nonce + 4, p.nonce + 16, 8);
	aead_encrypt(&q, out_buf, in_buf, len);
	tu_check_mem(out_buf, ref_buf, len + 16, "xchacha vs hchacha20 + ietf, len %zu", len);
}

static void aead_refused(const struct aead_params *p, size_t total, const char *what, size_t bit)
{
	const char *name = aead_names[p->kind];
	size_t i;

	/* Out of place, into a sentinel-filled buffer. */
	for (i = 0; i < total; i++)
		out_buf[i] = (uint8_t)(0x5a ^ i);
	tu_check(!aead_decrypt(p, out_buf, tmp_buf, total), "%s: flipped %s bit %zu accepted",
		 name, what, bit);
	for (i = 0; i < total; i++)
		if (out_buf[i] != (uint8_t)(0x5a ^ i) && out_buf[i] != 0)
			break;
	tu_check(i == total, "%s: output written after a refusal (%s bit %zu)", name, what, bit);
}

static void aead_flip_bits(enum aead_kind kind, size_t len, size_t ad_len)
{
	struct aead_params p;
	size_t total = len + 16, bit;

	aead_random_params(&p, kind);
	p.ad_len = ad_len;
	tu_rng_fill(&rng, in_buf, len);
	aead_encrypt(&p, ref_buf, in_buf, len);

	for (bit = 0; bit < 8 * total; bit++) {
		memcpy(tmp_buf, ref_buf, total);
		tmp_buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		aead_refused(&p, total, bit < 8 * len ? "ciphertext" : "tag", bit);
	}
	memcpy(tmp_buf, ref_buf, total);
	for (bit = 0; bit < 8 * ad_len; bit++) {
		p.ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		aead_refused(&p, total, "AD", bit);
		p.ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* A longer or shorter AD, another key, another nonce. */
	if (ad_len < sizeof(p.ad)) {
		p.ad_len = ad_len + 1;
		aead_refused(&p, total, "AD length", ad_len);
		p.ad_len = ad_len;
	}
	p.key[rand_below(32)] ^= 0x01;
	aead_refused(&p, total, "key", 0);
	aead_random_params(&p, kind);
	aead_refused(&p, total, "nonce/key", 0);

	/* Sanity: unmodified, it is accepted (so the refusals above mean something). */
	aead_random_params(&p, kind);
	p.ad_len = ad_len;
	aead_encrypt(&p, tmp_buf, in_buf, len);
	tu_check(aead_decrypt(&p, out_buf, tmp_buf, total), "%s: untouched message refused",
		 aead_names[kind]);

	/* In place with a flipped tag bit: the ciphertext may stay, but no plaintext. */
	memcpy(ref_buf, tmp_buf, total);
	tmp_buf[len] ^= 0x80;
	memcpy(out_buf, tmp_buf, total);
	tu_check(!aead_decrypt(&p, tmp_buf, tmp_buf, total), "%s: in place bad tag accepted",
		 aead_names[kind]);
	tu_check(output_is_clean(tmp_buf, out_buf, len),
		 "%s: in-place refusal left other than ciphertext or zeros", aead_names[kind]);
}

static void aead_short_inputs(enum aead_kind kind)
{
	struct aead_params p;
	size_t len;

	aead_random_params(&p, kind);
	memset(ref_buf, 0x77, 32);
	for (len = 0; len < 16; len++) {
		tu_rng_fill(&rng, tmp_buf, len);
		memset(out_buf, 0x77, 32);
		tu_check(!aead_decrypt(&p, out_buf, tmp_buf, len),
			 "%s: accepted %zu bytes, shorter than a tag", aead_names[kind], len);
		tu_check(output_is_clean(out_buf, ref_buf, 32),
			 "%s: wrote to the output for a %zu-byte input", aead_names[kind], len);
	}
}

static void test_aead(void)
{
	static const size_t flip_lengths[] = { 0, 1, 15, 16, 17, 64, 65 };
	static const size_t flip_ad[] = { 0, 1, 13 };
	struct aead_params p;
	size_t len, i, s, d;
	int k;

	for (k = 0; k < AEAD_KINDS; k++) {
		for (len = 0; len <= 1024; len++) {
			aead_random_params(&p, (enum aead_kind)k);
			aead_roundtrip(&p, len, 0, 0);
		}
		for (i = 0; i < N_OFFSET_LENGTHS; i++)
			for (s = 0; s < 16; s++)
				for (d = 0; d < 16; d++) {
					aead_random_params(&p, (enum aead_kind)k);
					aead_roundtrip(&p, offset_lengths[i], s, d);
				}
		for (i = 0; i < N_BIG; i++) {
			aead_random_params(&p, (enum aead_kind)k);
			aead_roundtrip(&p, big_lengths[i], rand_below(16), rand_below(16));
		}
		for (i = 0; i < sizeof(flip_lengths) / sizeof(flip_lengths[0]); i++)
			for (s = 0; s < sizeof(flip_ad) / sizeof(flip_ad[0]); s++)
				aead_flip_bits((enum aead_kind)k, flip_lengths[i], flip_ad[s]);
		aead_short_inputs((enum aead_kind)k);
	}
	for (len = 0; len <= 300; len++)
		aead_forms_agree(len);
	aead_forms_agree(BIG);
}

/* ---- util.h ---- */

/*
 * crypto_equal() by words and then bytes, and crypto_wipe() by words or
 * through memset(): every length and offset, so that each path and each
 * tail is taken; a difference in any bit inside the length is seen, one
 * just outside it is not; the wipe clears exactly its bytes.
 */
static void test_util_lengths(void)
{
	uint8_t x[48], y[48], w[300 + 16];
	size_t len, ox, oy, i, j;

	tu_rng_fill(&rng, x, sizeof(x));
	for (ox = 0; ox < 4; ox++)
		for (oy = 0; oy < 4; oy++)
			for (len = 0; len + 4 <= sizeof(x) - 4; len++) {
				memcpy(y + oy, x + ox, len + 1);
				tu_check(crypto_equal(x + ox, y + oy, len), "crypto_equal: %zu bytes at %zu/%zu", len,
					 ox, oy);
				y[oy + len] ^= 0x80;
				tu_check(crypto_equal(x + ox, y + oy, len),
					 "crypto_equal: a byte past %zu bytes counted", len);
				for (i = 0; i < len * 8; i++) {
					y[oy + i / 8] ^= (uint8_t)(1u << (i % 8));
					tu_check(!crypto_equal(x + ox, y + oy, len),
						 "crypto_equal: bit %zu of %zu bytes at %zu/%zu missed", i, len, ox, oy);
					y[oy + i / 8] ^= (uint8_t)(1u << (i % 8));
				}
			}
	for (i = 0; i < 8; i++)
		for (len = 0; len <= 300; len++) {
			memset(w, 0xa5, sizeof(w));
			crypto_wipe(w + i, len);
			for (j = 0; j < sizeof(w); j++)
				if (w[j] != (j >= i && j < i + len ? 0 : 0xa5))
					break;
			tu_check(j == sizeof(w), "crypto_wipe of %zu bytes at offset %zu: byte %zu wrong", len, i, j);
		}
}

static void test_util(void)
{
	uint8_t a[64], b[64], r1[32], r2[32];
	size_t i;

	tu_rng_fill(&rng, a, sizeof(a));
	memcpy(b, a, sizeof(b));
	tu_check(crypto_equal(a, b, sizeof(a)), "crypto_equal: equal buffers");
	tu_check(crypto_equal(a, b, 0), "crypto_equal: empty buffers");
	for (i = 0; i < sizeof(a) * 8; i++) {
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
		tu_check(!crypto_equal(a, b, sizeof(a)), "crypto_equal: bit %zu differs", i);
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	memset(a, 0, sizeof(a));
	tu_check(crypto_is_zero(a, sizeof(a)) && crypto_is_zero(a, 0), "crypto_is_zero: zeros");
	for (i = 0; i < sizeof(a) * 8; i++) {
		a[i / 8] = (uint8_t)(1u << (i % 8));
		tu_check(!crypto_is_zero(a, sizeof(a)), "crypto_is_zero: bit %zu set", i);
		a[i / 8] = 0;
	}
	memset(b, 0xee, sizeof(b));
	crypto_wipe(b + 1, 62);
	tu_check(b[0] == 0xee && b[63] == 0xee && all_zero(b + 1, 62), "crypto_wipe bounds");
	test_util_lengths();
	tu_check(crypto_random(r1, sizeof(r1)) && crypto_random(r2, sizeof(r2)),
		 "crypto_random failed");
	tu_check(memcmp(r1, r2, sizeof(r1)) != 0 && !all_zero(r1, sizeof(r1)),
		 "crypto_random gave repeated or zero bytes");
}

int main(void)
{
	tu_rng_seed(&rng, tu_seed("crypto-props", 0x77676463727970ULL));
	in_buf = malloc(BIG + SLACK);
	out_buf = malloc(BIG + SLACK);
	ref_buf = malloc(BIG + SLACK);
	tmp_buf = malloc(BIG + SLACK);
	if (!in_buf || !out_buf || !ref_buf || !tmp_buf)
		return 2;
	test_util();
	test_chacha20();
	test_poly1305();
	test_blake2s();
	test_aead();
	free(in_buf);
	free(out_buf);
	free(ref_buf);
	free(tmp_buf);
	return tu_exit_status("crypto-props");
}
