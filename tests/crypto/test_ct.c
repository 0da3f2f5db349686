// SPDX-License-Identifier: GPL-2.0-only
/*
 * Constant-time check by the ctgrind technique (Langley, 2010): secrets are
 * marked undefined with VALGRIND_MAKE_MEM_UNDEFINED, so memcheck reports any
 * conditional branch or memory index that depends on them ("Conditional jump
 * or move depends on uninitialised value(s)", "Use of uninitialised value of
 * size N").  Results are marked defined again before this program looks at
 * them: a verdict (tag valid or not) is public, the work that led to it is
 * not.  Covered: ChaCha20, Poly1305 and both block cores, the three AEAD
 * forms with good and bad tags, on x86-64 the AVX2 cores and AEAD path with
 * AVX2 and forced generic (not AVX-512, which valgrind cannot run), BLAKE2s keyed and unkeyed, HMAC, KDF,
 * crypto_equal/crypto_is_zero and, when built with libsodium, the X25519
 * wrapper.
 *
 * Run as: valgrind --error-exitcode=1 --track-origins=yes test_ct
 * Without valgrind it exits 77 (skipped): the marks would be no-ops.
 */
#include <stdio.h>
#include <string.h>
#include "tests/lib/ctgrind.h"

#include "crypto/blake2s.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/util.h"
#include "tests/lib/testutil.h"
#ifdef TEST_HAVE_X25519
#include "crypto/x25519.h"
#endif
#if defined(WGD_ASM_X86_64)
#include "crypto/arch/glue.h"
#include "crypto/poly1305_impl.h"
#endif

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static struct tu_rng rng;

static const size_t lengths[] = { 0, 1, 15, 16, 17, 63, 64, 65, 200, 1420 };
#define N_LENGTHS (sizeof(lengths) / sizeof(lengths[0]))

static uint8_t plain[1500], sealed[1500 + 16], opened[1500 + 16], ad[40];

enum aead_kind { AEAD_IETF, AEAD_WG, AEAD_X };

static void seal(enum aead_kind kind, const uint8_t key[32], const uint8_t nonce[24], size_t len)
{
	if (kind == AEAD_IETF)
		chacha20poly1305_ietf_encrypt(sealed, plain, len, ad, sizeof(ad), nonce, key);
	else if (kind == AEAD_WG)
		chacha20poly1305_encrypt(sealed, plain, len, ad, sizeof(ad), 0x0102030405060708ULL,
					 key);
	else
		xchacha20poly1305_encrypt(sealed, plain, len, ad, sizeof(ad), nonce, key);
}

static bool open_sealed(enum aead_kind kind, const uint8_t key[32], const uint8_t nonce[24],
			size_t len)
{
	if (kind == AEAD_IETF)
		return chacha20poly1305_ietf_decrypt(opened, sealed, len + 16, ad, sizeof(ad),
						     nonce, key);
	if (kind == AEAD_WG)
		return chacha20poly1305_decrypt(opened, sealed, len + 16, ad, sizeof(ad),
						0x0102030405060708ULL, key);
	return xchacha20poly1305_decrypt(opened, sealed, len + 16, ad, sizeof(ad), nonce, key);
}

/* Tag verification with a secret key, plaintext, ciphertext and tag. */
static void check_aead(enum aead_kind kind, size_t len, bool tamper)
{
	uint8_t key[32], nonce[24];
	bool ok;

	tu_rng_fill(&rng, key, sizeof(key));
	tu_rng_fill(&rng, nonce, sizeof(nonce));
	tu_rng_fill(&rng, plain, len);
	tu_rng_fill(&rng, ad, sizeof(ad));

	SECRET(key, sizeof(key));
	SECRET(plain, len);
	seal(kind, key, nonce, len);
	if (tamper)
		sealed[len + 7] ^= 0x10;
	/* The ciphertext and tag are secret-derived; the tag check must not leak. */
	SECRET(sealed, len + 16);
	ok = open_sealed(kind, key, nonce, len);
	PUBLIC(&ok, sizeof(ok));
	PUBLIC(opened, len);
	PUBLIC(plain, len);
	tu_check(ok == !tamper, "aead kind %d len %zu tamper %d: verdict %d", kind, len, tamper, ok);
	if (ok)
		tu_check_mem(opened, plain, len, "aead kind %d len %zu: plaintext", kind, len);
}

static void check_chacha_poly(size_t len)
{
	uint8_t key[32], nonce[12], mac[16];
	struct chacha20_ctx ctx;
	size_t c;

	tu_rng_fill(&rng, key, sizeof(key));
	tu_rng_fill(&rng, nonce, sizeof(nonce));
	tu_rng_fill(&rng, plain, len);
	SECRET(key, sizeof(key));
	SECRET(plain, len);

	chacha20_init(&ctx, key, nonce, 1);
	chacha20_xor(&ctx, opened, plain, len);
	chacha20_clear(&ctx);

	poly1305(mac, plain, len, key);
	for (c = 0; c < tu_poly_ncores; c++)
		tu_poly1305_core(&tu_poly_cores[c], mac, plain, len, key);
	PUBLIC(mac, sizeof(mac));
	PUBLIC(opened, len);
	PUBLIC(plain, len);
}

static void check_blake2s(size_t len)
{
	uint8_t key[64], out[32], ck[32], t1[32], t2[32], t3[32];
	struct blake2s_state st;
	size_t key_len = 1 + len % 32;

	tu_rng_fill(&rng, key, sizeof(key));
	tu_rng_fill(&rng, plain, len);
	tu_rng_fill(&rng, ck, sizeof(ck));
	SECRET(key, sizeof(key));
	SECRET(plain, len);
	SECRET(ck, sizeof(ck));

	blake2s(out, 32, plain, len, NULL, 0);
	blake2s(out, 32, plain, len, key, key_len);
	blake2s(out, 16, plain, len, key, 32);
	blake2s_init_key(&st, 32, key, key_len);
	blake2s_update(&st, plain, len / 2);
	blake2s_update(&st, plain + len / 2, len - len / 2);
	blake2s_final(&st, out);
	blake2s_hmac(out, plain, len, key, len % 65);
	blake2s_kdf(t1, t2, t3, plain, len, ck);
	blake2s_kdf(ck, t2, NULL, plain, len, ck);
	PUBLIC(out, sizeof(out));
	PUBLIC(t1, sizeof(t1));
	PUBLIC(plain, len);
}

static void check_util(void)
{
	uint8_t a[32], b[32];
	bool eq, zero;

	tu_rng_fill(&rng, a, sizeof(a));
	memcpy(b, a, sizeof(b));
	b[31] ^= 1;
	SECRET(a, sizeof(a));
	SECRET(b, sizeof(b));
	eq = crypto_equal(a, b, sizeof(a));
	zero = crypto_is_zero(a, sizeof(a));
	PUBLIC(&eq, sizeof(eq));
	PUBLIC(&zero, sizeof(zero));
	tu_check(!eq && !zero, "crypto_equal/crypto_is_zero verdicts");
	crypto_wipe(a, sizeof(a));
}

#ifdef TEST_HAVE_X25519
static void check_x25519(void)
{
	/* A point of order 8 (cr.yp.to/ecdh.html): the product must be refused. */
	static const char small[] =
		"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800";
	uint8_t priv[32], priv2[32], pub[32], pub2[32], s1[32], s2[32], low[32];
	bool ok1, ok2, ok3;

	tu_check(x25519_init(), "x25519_init");
	tu_rng_fill(&rng, priv, sizeof(priv));
	tu_rng_fill(&rng, priv2, sizeof(priv2));
	tu_hex(low, sizeof(low), small);
	SECRET(priv, sizeof(priv));
	SECRET(priv2, sizeof(priv2));

	ok1 = x25519_public(pub, priv);
	ok2 = x25519_public(pub2, priv2);
	/* Public keys are public. */
	PUBLIC(pub, sizeof(pub));
	PUBLIC(pub2, sizeof(pub2));
	ok3 = x25519(s1, priv, pub2);
	PUBLIC(&ok1, sizeof(ok1));
	PUBLIC(&ok2, sizeof(ok2));
	PUBLIC(&ok3, sizeof(ok3));
	tu_check(ok1 && ok2 && ok3, "x25519 refused ordinary keys");
	ok1 = x25519(s2, priv2, pub);
	PUBLIC(&ok1, sizeof(ok1));
	tu_check(ok1, "x25519 refused ordinary keys");
	PUBLIC(s1, sizeof(s1));
	PUBLIC(s2, sizeof(s2));
	tu_check_mem(s1, s2, 32, "x25519: the two sides disagree");

	ok1 = x25519(s1, priv, low);
	PUBLIC(&ok1, sizeof(ok1));
	tu_check(!ok1, "x25519 accepted a small-order point");
	x25519_clamp(priv);
	tu_check(x25519_generate_private(priv2), "x25519_generate_private");
}
#endif

#if defined(WGD_ASM_X86_64)
/* One Poly1305 core called directly with a secret key and message, at each length. */
static void check_poly_core(const struct tu_poly_core *core, const size_t *lens, size_t n)
{
	uint8_t key[32], mac[16];
	size_t i;

	for (i = 0; i < n; i++) {
		tu_rng_fill(&rng, key, sizeof(key));
		tu_rng_fill(&rng, plain, lens[i]);
		SECRET(key, sizeof(key));
		SECRET(plain, lens[i]);
		tu_poly1305_core(core, mac, plain, lens[i], key);
		PUBLIC(mac, sizeof(mac));
		PUBLIC(plain, lens[i]);
	}
}

/*
 * The AVX-512 Poly1305 core (crypto/arch/x86_64/poly1305_avx512.c), called
 * directly with a secret key and message, and the AEAD at the AVX-512
 * level, where the checker shows that level: a build of this program with
 * MemorySanitizer runs natively and does.  Valgrind 3.19 (Debian 12) does
 * not: it clears the AVX-512 bits of CPUID leaf 7 (so crypto_x86_cpu_level()
 * is at most AVX2 under it), and an EVEX-encoded instruction run anyway
 * stops the program with SIGILL ("unhandled instruction bytes: 0x62 ...").
 * The program then says so and checks nothing at that level; the core's
 * branches, loop counts, masks and permutation indexes come from the length
 * alone (see its comment and doc/crypto.md).
 */
static void check_x86_avx512(void)
{
	static const size_t x86_lengths[] = { 16, 48, 64, 128, 144, 200, 1408, 1420 };
	static const struct tu_poly_core avx512 = { "poly1305_avx512", poly1305_avx2_init,
						    poly1305_avx512_blocks, poly1305_avx2_emit };
	size_t i;

	if (crypto_x86_cpu_level() < CRYPTO_X86_AVX512) {
		printf("crypto-ct: no AVX-512 level here (this CPU, or valgrind 3.19, which hides it "
		       "from CPUID and cannot run EVEX instructions): the AVX-512 Poly1305 core is "
		       "not checked\n");
		return;
	}
	crypto_x86_set_level(CRYPTO_X86_AVX512);
	for (i = 0; i < sizeof(x86_lengths) / sizeof(x86_lengths[0]); i++) {
		size_t len = x86_lengths[i];

		check_aead(AEAD_IETF, len, false);
		check_aead(AEAD_WG, len, true);
	}
	check_poly_core(&avx512, x86_lengths, sizeof(x86_lengths) / sizeof(x86_lengths[0]));
	printf("crypto-ct: the AVX-512 Poly1305 core and the AEAD at the AVX-512 level checked\n");
}

/*
 * x86-64: the AEAD once with every core forced generic and once as
 * dispatched (AVX2 ChaCha20 and Poly1305 and the x86 AEAD path, from 65
 * bytes), and the AVX2 Poly1305 core called directly, at lengths on both
 * sides of the thresholds (65 bytes, 256 bytes, the 448-byte first group).
 */
static void check_x86(void)
{
	static const size_t x86_lengths[] = { 64, 65, 200, 255, 256, 448, 449, 1000, 1420, 1500 };
	static const struct tu_poly_core avx2 = { "poly1305_avx2", poly1305_avx2_init,
						  poly1305_avx2_blocks, poly1305_avx2_emit };
	size_t i;
	int level;

	if (!__builtin_cpu_supports("avx2")) {
		printf("crypto-ct: this CPU has no AVX2: the x86-64 AVX2 code is not checked\n");
		return;
	}
	for (level = CRYPTO_X86_GENERIC; level <= crypto_x86_cpu_level(); level++) {
		crypto_x86_set_level(level);
		for (i = 0; i < sizeof(x86_lengths) / sizeof(x86_lengths[0]); i++) {
			check_aead(AEAD_IETF, x86_lengths[i], false);
			check_aead(AEAD_IETF, x86_lengths[i], true);
			check_aead(AEAD_WG, x86_lengths[i], true);
		}
	}
	check_poly_core(&avx2, x86_lengths, sizeof(x86_lengths) / sizeof(x86_lengths[0]));
	printf("crypto-ct: x86-64 AEAD at every level to %s checked, and the AVX2 Poly1305 core\n",
	       crypto_x86_cpu_level() >= CRYPTO_X86_AVX512 ? "AVX-512" : "AVX2");
}
#endif

int main(void)
{
	size_t i;

	if (!RUNNING_ON_VALGRIND) {
		printf("crypto-ct: not running under valgrind; skipped (exit 77)\n");
		return 77;
	}
	tu_rng_seed(&rng, tu_seed("crypto-ct", 0x63746772696eULL));
	for (i = 0; i < N_LENGTHS; i++) {
		size_t len = lengths[i];

		check_aead(AEAD_IETF, len, false);
		check_aead(AEAD_IETF, len, true);
		check_aead(AEAD_WG, len, false);
		check_aead(AEAD_WG, len, true);
		check_aead(AEAD_X, len, false);
		check_aead(AEAD_X, len, true);
		check_chacha_poly(len);
		check_blake2s(len);
	}
	check_util();
#if defined(WGD_ASM_X86_64)
	check_x86();
	check_x86_avx512();
#endif
#ifdef TEST_HAVE_X25519
	check_x25519();
#endif
	return tu_exit_status("crypto-ct");
}
