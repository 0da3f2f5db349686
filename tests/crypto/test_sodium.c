// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential test against libsodium, an independent implementation: seeded
 * random cases with lengths 0..2000, AD lengths 0..256 and source and
 * destination offsets 0..15.  Each case runs
 *   - the IETF AEAD: our ciphertext || tag equals libsodium's; we open
 *     libsodium's and libsodium opens ours; one case in eight also flips a
 *     bit, which both must refuse;
 *   - the XChaCha20-Poly1305 AEAD the same way;
 * and a share of the cases also runs the WireGuard-nonce AEAD, ChaCha20 with
 * a random counter, Poly1305, HChaCha20 and, one in sixteen, X25519
 * (x25519_public against crypto_scalarmult_curve25519_base and x25519
 * against crypto_scalarmult_curve25519, including small-order points).
 * Usage: test_sodium [CASES]   (default 100000; WGD_TEST_SEED varies the run)
 */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/x25519.h"
#include "tests/lib/testutil.h"

#define MAX_LEN 2000
#define MAX_AD 256
#define BUF (MAX_LEN + 16 + 16 + 64)

static struct tu_rng rng;
static uint8_t src_buf[BUF], ours[BUF], theirs[BUF], back[BUF], ad[MAX_AD];

struct counts {
	unsigned long ietf, xchacha, wg, flips, stream, poly, hchacha, x25519, x25519_zero;
};

static struct counts counts;

struct one_case {
	unsigned long index;
	uint8_t key[32];
	uint8_t nonce[24];
	size_t len, ad_len, src_off, dst_off;
	const uint8_t *src;
};

static size_t rand_below(size_t n)
{
	return (size_t)tu_rng_below(&rng, n);
}

static void ietf_case(const struct one_case *c)
{
	uint8_t *dst = ours + c->dst_off;
	unsigned long long n;
	size_t total = c->len + 16;

	chacha20poly1305_ietf_encrypt(dst, c->src, c->len, ad, c->ad_len, c->nonce, c->key);
	crypto_aead_chacha20poly1305_ietf_encrypt(theirs, &n, c->src, c->len, ad, c->ad_len, NULL,
						  c->nonce, c->key);
	tu_check_mem(dst, theirs, total, "case %lu: ietf encrypt differs (len %zu, ad %zu)",
		     c->index, c->len, c->ad_len);

	memset(back, 0xa5, total);
	tu_check(chacha20poly1305_ietf_decrypt(back + c->src_off, theirs, total, ad, c->ad_len,
					       c->nonce, c->key),
		 "case %lu: we refused libsodium's ietf ciphertext", c->index);
	tu_check_mem(back + c->src_off, c->src, c->len, "case %lu: ietf decrypt of libsodium's",
		     c->index);
	tu_check(crypto_aead_chacha20poly1305_ietf_decrypt(back, &n, NULL, dst, total, ad,
							   c->ad_len, c->nonce, c->key) == 0,
		 "case %lu: libsodium refused our ietf ciphertext", c->index);
	tu_check_mem(back, c->src, c->len, "case %lu: libsodium's decrypt of ours", c->index);

	if (c->index % 8 == 0) {
		size_t bit = rand_below(8 * total);

		dst[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		tu_check(!chacha20poly1305_ietf_decrypt(back, dst, total, ad, c->ad_len, c->nonce,
							c->key),
			 "case %lu: ietf accepted flipped bit %zu", c->index, bit);
		tu_check(crypto_aead_chacha20poly1305_ietf_decrypt(back, &n, NULL, dst, total, ad,
								   c->ad_len, c->nonce,
								   c->key) != 0,
			 "case %lu: libsodium accepted flipped bit %zu", c->index, bit);
		counts.flips++;
	}
	counts.ietf++;
}

static void xchacha_case(const struct one_case *c)
{
	uint8_t *dst = ours + c->dst_off;
	unsigned long long n;
	size_t total = c->len + 16;

	xchacha20poly1305_encrypt(dst, c->src, c->len, ad, c->ad_len, c->nonce, c->key);
	crypto_aead_xchacha20poly1305_ietf_encrypt(theirs, &n, c->src, c->len, ad, c->ad_len,
						   NULL, c->nonce, c->key);
	tu_check_mem(dst, theirs, total, "case %lu: xchacha encrypt differs (len %zu, ad %zu)",
		     c->index, c->len, c->ad_len);

	memset(back, 0xa5, total);
	tu_check(xchacha20poly1305_decrypt(back + c->src_off, theirs, total, ad, c->ad_len,
					   c->nonce, c->key),
		 "case %lu: we refused libsodium's xchacha ciphertext", c->index);
	tu_check_mem(back + c->src_off, c->src, c->len, "case %lu: xchacha decrypt of libsodium's",
		     c->index);
	tu_check(crypto_aead_xchacha20poly1305_ietf_decrypt(back, &n, NULL, dst, total, ad,
							    c->ad_len, c->nonce, c->key) == 0,
		 "case %lu: libsodium refused our xchacha ciphertext", c->index);
	tu_check_mem(back, c->src, c->len, "case %lu: libsodium's xchacha decrypt of ours",
		     c->index);

	if (c->index % 8 == 4) {
		size_t bit = rand_below(8 * total);

		dst[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		tu_check(!xchacha20poly1305_decrypt(back, dst, total, ad, c->ad_len, c->nonce,
						    c->key),
			 "case %lu: xchacha accepted flipped bit %zu", c->index, bit);
		counts.flips++;
	}
	counts.xchacha++;
}

/* WireGuard's nonce: 32 zero bits || LE64(counter). */
static void wg_case(const struct one_case *c)
{
	uint64_t counter = tu_rng_next(&rng);
	uint8_t nonce[12] = { 0 };
	unsigned long long n;
	int i;

	for (i = 0; i < 8; i++)
		nonce[4 + i] = (uint8_t)(counter >> (8 * i));
	chacha20poly1305_encrypt(ours + c->dst_off, c->src, c->len, ad, c->ad_len, counter, c->key);
	crypto_aead_chacha20poly1305_ietf_encrypt(theirs, &n, c->src, c->len, ad, c->ad_len, NULL,
						  nonce, c->key);
	tu_check_mem(ours + c->dst_off, theirs, c->len + 16, "case %lu: WireGuard-nonce encrypt",
		     c->index);
	tu_check(chacha20poly1305_decrypt(back, theirs, c->len + 16, ad, c->ad_len, counter, c->key),
		 "case %lu: WireGuard-nonce decrypt refused", c->index);
	tu_check_mem(back, c->src, c->len, "case %lu: WireGuard-nonce decrypt", c->index);
	counts.wg++;
}

static void primitives_case(const struct one_case *c)
{
	uint32_t counter = (uint32_t)tu_rng_below(&rng, 0xffffffffu - 64);
	struct chacha20_ctx ctx;
	uint8_t mac[2][16], sub[2][32];

	chacha20_init(&ctx, c->key, c->nonce, counter);
	chacha20_xor(&ctx, ours + c->dst_off, c->src, c->len);
	crypto_stream_chacha20_ietf_xor_ic(theirs, c->src, c->len, c->nonce, counter, c->key);
	tu_check_mem(ours + c->dst_off, theirs, c->len, "case %lu: chacha20 (counter %u)",
		     c->index, counter);
	chacha20_clear(&ctx);
	counts.stream++;

	poly1305(mac[0], c->src, c->len, c->key);
	crypto_onetimeauth_poly1305(mac[1], c->src, c->len, c->key);
	tu_check_mem(mac[0], mac[1], 16, "case %lu: poly1305 (len %zu)", c->index, c->len);
	counts.poly++;

	hchacha20(sub[0], c->nonce, c->key);
	crypto_core_hchacha20(sub[1], c->nonce, c->key, NULL);
	tu_check_mem(sub[0], sub[1], 32, "case %lu: hchacha20", c->index);
	counts.hchacha++;
}

/*
 * Points of small order on Curve25519 and its twist (Bernstein's list,
 * cr.yp.to/ecdh.html): scalar multiples are zero, so x25519() must refuse.
 */
static const char *const small_order[] = {
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};

static void x25519_case(const struct one_case *c)
{
	uint8_t priv[32], pub[32], peer[32], mine[32], ref[32];
	bool ok;
	int rc;

	tu_rng_fill(&rng, priv, 32);
	tu_check(x25519_public(mine, priv), "case %lu: x25519_public refused", c->index);
	crypto_scalarmult_curve25519_base(ref, priv);
	tu_check_mem(mine, ref, 32, "case %lu: x25519_public vs scalarmult_base", c->index);

	if (c->index % 64 == 0)
		tu_hex(peer, 32, small_order[(c->index / 64) % 5]);
	else
		tu_rng_fill(&rng, peer, 32);
	memset(pub, 0xa5, sizeof(pub));
	ok = x25519(pub, priv, peer);
	rc = crypto_scalarmult_curve25519(ref, priv, peer);
	tu_check(ok == (rc == 0), "case %lu: x25519 verdict %d, libsodium %d", c->index, ok, rc);
	if (rc == 0) {
		tu_check_mem(pub, ref, 32, "case %lu: x25519 vs scalarmult", c->index);
	} else {
		tu_check(sodium_is_zero(pub, 32), "case %lu: refused x25519 left output", c->index);
		counts.x25519_zero++;
	}
	counts.x25519++;
}

static void one_case(unsigned long index)
{
	struct one_case c = { .index = index };

	c.len = rand_below(MAX_LEN + 1);
	c.ad_len = rand_below(4) == 0 ? 0 : rand_below(MAX_AD + 1);
	c.src_off = rand_below(16);
	c.dst_off = rand_below(16);
	tu_rng_fill(&rng, c.key, sizeof(c.key));
	tu_rng_fill(&rng, c.nonce, sizeof(c.nonce));
	tu_rng_fill(&rng, ad, c.ad_len);
	tu_rng_fill(&rng, src_buf + c.src_off, c.len);
	c.src = src_buf + c.src_off;

	ietf_case(&c);
	xchacha_case(&c);
	if (index % 4 == 1)
		wg_case(&c);
	if (index % 4 == 2)
		primitives_case(&c);
	if (index % 16 == 0)
		x25519_case(&c);
}

int main(int argc, char **argv)
{
	unsigned long cases = 100000, i;

	if (argc > 1)
		cases = strtoul(argv[1], NULL, 10);
	if (sodium_init() < 0 || !x25519_init()) {
		printf("FAIL: libsodium or x25519_init\n");
		return 1;
	}
	tu_rng_seed(&rng, tu_seed("crypto-sodium", 0x736f6469756dULL));
	for (i = 0; i < cases; i++)
		one_case(i);
	printf("crypto-sodium: %lu random cases: ietf %lu, xchacha %lu, wireguard-nonce %lu, "
	       "flipped bits %lu, chacha20 %lu, poly1305 %lu, hchacha20 %lu, x25519 %lu "
	       "(%lu refused as zero)\n",
	       cases, counts.ietf, counts.xchacha, counts.wg, counts.flips, counts.stream,
	       counts.poly, counts.hchacha, counts.x25519, counts.x25519_zero);
	return tu_exit_status("crypto-sodium");
}
