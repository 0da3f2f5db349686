// SPDX-License-Identifier: GPL-2.0-only
/*
 * The X25519 wrapper (crypto/x25519.h): RFC 7748 §6.1, Wycheproof
 * x25519.txt, clamping and key generation.  x25519() refuses an all-zero
 * shared secret (RFC 7748 §6.1 allows the check; WireGuard requires it), so
 * Wycheproof cases whose expected secret is zero must return false with a
 * zeroed output; every other case must return true and match.
 * Usage: test_x25519 VECTOR_DIR
 */
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "tests/lib/testutil.h"

static void test_rfc7748(void)
{
	uint8_t a[32], b[32], a_pub[32], b_pub[32], want[32], out[32];

	/* RFC 7748 §6.1 */
	tu_hex(a, 32, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
	tu_hex(a_pub, 32, "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
	tu_hex(b, 32, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
	tu_hex(b_pub, 32, "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
	tu_hex(want, 32, "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

	tu_check(x25519_public(out, a), "RFC 7748 6.1: x25519_public(Alice) failed");
	tu_check_mem(out, a_pub, 32, "RFC 7748 6.1: Alice's public key");
	tu_check(x25519_public(out, b), "RFC 7748 6.1: x25519_public(Bob) failed");
	tu_check_mem(out, b_pub, 32, "RFC 7748 6.1: Bob's public key");
	tu_check(x25519(out, a, b_pub), "RFC 7748 6.1: x25519(Alice, Bob) failed");
	tu_check_mem(out, want, 32, "RFC 7748 6.1: shared secret, Alice's side");
	tu_check(x25519(out, b, a_pub), "RFC 7748 6.1: x25519(Bob, Alice) failed");
	tu_check_mem(out, want, 32, "RFC 7748 6.1: shared secret, Bob's side");
}

static void test_clamp_and_generate(void)
{
	uint8_t k[32], c[32], p1[32], p2[32], s1[32], s2[32];
	int i, round;

	memset(k, 0xff, sizeof(k));
	x25519_clamp(k);
	tu_check(k[0] == 0xf8 && k[31] == 0x7f, "clamp of all ones: %02x..%02x", k[0], k[31]);
	memset(k, 0, sizeof(k));
	x25519_clamp(k);
	tu_check(k[0] == 0 && k[31] == 0x40, "clamp of zeros: %02x..%02x", k[0], k[31]);
	for (i = 1; i < 31; i++)
		tu_check(k[i] == 0, "clamp changed byte %d", i);

	for (round = 0; round < 4; round++) {
		tu_check(x25519_generate_private(k), "x25519_generate_private failed");
		memcpy(c, k, 32);
		x25519_clamp(c);
		tu_check_mem(k, c, 32, "a generated private key is not clamped");
		tu_check(x25519_generate_private(c), "x25519_generate_private failed");
		tu_check(memcmp(k, c, 32) != 0, "two generated private keys are equal");

		/* Diffie-Hellman agreement, and priv is clamped internally by x25519(). */
		tu_check(x25519_public(p1, k) && x25519_public(p2, c), "x25519_public failed");
		tu_check(x25519(s1, k, p2) && x25519(s2, c, p1), "x25519 failed");
		tu_check_mem(s1, s2, 32, "the two sides disagree");
		k[0] |= 7;
		k[31] |= 0x80;
		tu_check(x25519(s2, k, p2), "x25519 with an unclamped key failed");
		tu_check_mem(s2, s1, 32, "x25519 does not clamp the private key");
	}
}

static void run_wycheproof(const char *dir)
{
	unsigned long run = 0, zero = 0;
	struct tu_vec v;
	char *f[TU_VEC_MAX_FIELDS];
	int n;

	if (!tu_vec_open(&v, dir, "x25519.txt"))
		return;
	while ((n = tu_vec_next(&v, f)) > 0) {
		uint8_t priv[32], pub[32], want[32], out[32];
		bool ok;

		if (!tu_check(n == 5 && tu_hex_decode(priv, 32, f[2]) == 32 &&
			      tu_hex_decode(pub, 32, f[3]) == 32 &&
			      tu_hex_decode(want, 32, f[4]) == 32 &&
			      (strcmp(f[1], "valid") == 0 || strcmp(f[1], "acceptable") == 0),
			      "x25519.txt line %lu: malformed or an unexpected result", v.lineno))
			continue;
		memset(out, 0xa5, sizeof(out));
		ok = x25519(out, priv, pub);
		if (crypto_is_zero(want, 32)) {
			tu_check(!ok, "x25519.txt tcId %s: all-zero shared secret accepted", f[0]);
			tu_check(crypto_is_zero(out, 32),
				 "x25519.txt tcId %s: output not zeroed on refusal", f[0]);
			zero++;
		} else {
			tu_check(ok, "x25519.txt tcId %s: refused", f[0]);
			tu_check_mem(out, want, 32, "x25519.txt tcId %s (%s)", f[0], f[1]);
		}
		run++;
	}
	tu_vec_close(&v);
	printf("x25519.txt: %lu cases run (%lu with an all-zero secret, refused as required)\n",
	       run, zero);
	tu_check(run >= 500, "x25519.txt: only %lu cases", run);
}

int main(int argc, char **argv)
{
	const char *dir = tu_vector_dir(argc, argv);

	if (dir == NULL)
		return 2;
	if (!x25519_init()) {
		printf("FAIL: x25519_init\n");
		return 1;
	}
	test_rfc7748();
	test_clamp_and_generate();
	run_wycheproof(dir);
	return tu_exit_status("crypto-x25519");
}
