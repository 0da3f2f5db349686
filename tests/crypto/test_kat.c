// SPDX-License-Identifier: GPL-2.0-only
/*
 * Known-answer files (tests/crypto/vectors/, see README.md there):
 *   chacha20_poly1305.txt, xchacha20_poly1305.txt  Wycheproof AEAD, valid and invalid
 *   blake2s_kat.txt    BLAKE2s of 0..255 bytes, keyed and unkeyed, short keys and outputs
 *   blake2s_extra.txt  long BLAKE2s inputs, HMAC-BLAKE2s and WireGuard's KDF (Python)
 * Usage: test_kat VECTOR_DIR
 */
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20poly1305.h"
#include "tests/lib/testutil.h"

#define MAX_FIELD 4096

enum aead_kind { AEAD_IETF, AEAD_X };

struct aead_case {
	const char *file;
	const char *tc;
	bool valid;
	uint8_t key[32];
	uint8_t *iv, *ad, *msg, *ct;	/* ct holds ciphertext || tag */
	size_t iv_len, ad_len, msg_len;
};

struct skip_count {
	size_t iv_bits;
	unsigned long count;
};

/* Sentinel-filled output must, after a refused decryption, hold no plaintext. */
static bool output_is_clean(const uint8_t *out, const uint8_t *before, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (out[i] != before[i] && out[i] != 0)
			return false;
	return true;
}

static bool aead_decrypt(enum aead_kind kind, uint8_t *dst, const struct aead_case *c,
			 const uint8_t *src)
{
	if (kind == AEAD_IETF)
		return chacha20poly1305_ietf_decrypt(dst, src, c->msg_len + 16, c->ad, c->ad_len,
						     c->iv, c->key);
	return xchacha20poly1305_decrypt(dst, src, c->msg_len + 16, c->ad, c->ad_len, c->iv,
					 c->key);
}

static void aead_encrypt(enum aead_kind kind, uint8_t *dst, const struct aead_case *c,
			 const uint8_t *src)
{
	if (kind == AEAD_IETF)
		chacha20poly1305_ietf_encrypt(dst, src, c->msg_len, c->ad, c->ad_len, c->iv, c->key);
	else
		xchacha20poly1305_encrypt(dst, src, c->msg_len, c->ad, c->ad_len, c->iv, c->key);
}

/* The WireGuard form of the IETF AEAD, for nonces 00000000 || LE64(n). */
static void aead_wireguard_form(const struct aead_case *c, uint8_t *buf)
{
	uint64_t n = 0;
	int i;

	if (c->iv[0] | c->iv[1] | c->iv[2] | c->iv[3])
		return;
	for (i = 11; i >= 4; i--)
		n = n << 8 | c->iv[i];
	if (c->valid) {
		chacha20poly1305_encrypt(buf, c->msg, c->msg_len, c->ad, c->ad_len, n, c->key);
		tu_check_mem(buf, c->ct, c->msg_len + 16, "%s tcId %s: WireGuard-nonce encrypt",
			     c->file, c->tc);
	}
	memset(buf, 0xa5, c->msg_len + 16);
	tu_check(chacha20poly1305_decrypt(buf, c->ct, c->msg_len + 16, c->ad, c->ad_len, n,
					  c->key) == c->valid,
		 "%s tcId %s: WireGuard-nonce decrypt gave the wrong verdict", c->file, c->tc);
}

static void aead_check_case(enum aead_kind kind, const struct aead_case *c)
{
	size_t total = c->msg_len + 16;
	uint8_t *buf = malloc(total), *sentinel = malloc(total);

	if (buf == NULL || sentinel == NULL)
		abort();
	if (c->valid) {
		aead_encrypt(kind, buf, c, c->msg);
		tu_check_mem(buf, c->ct, total, "%s tcId %s: encrypt", c->file, c->tc);
		/* In place: dst == src, with room for the tag. */
		memcpy(buf, c->msg, c->msg_len);
		aead_encrypt(kind, buf, c, buf);
		tu_check_mem(buf, c->ct, total, "%s tcId %s: encrypt in place", c->file, c->tc);

		memset(buf, 0xa5, total);
		tu_check(aead_decrypt(kind, buf, c, c->ct), "%s tcId %s: valid case rejected",
			 c->file, c->tc);
		tu_check_mem(buf, c->msg, c->msg_len, "%s tcId %s: decrypt", c->file, c->tc);
		memcpy(buf, c->ct, total);
		tu_check(aead_decrypt(kind, buf, c, buf), "%s tcId %s: in place rejected",
			 c->file, c->tc);
		tu_check_mem(buf, c->msg, c->msg_len, "%s tcId %s: decrypt in place", c->file,
			     c->tc);
	} else {
		memset(sentinel, 0xa5, total);
		memcpy(buf, sentinel, total);
		tu_check(!aead_decrypt(kind, buf, c, c->ct), "%s tcId %s: invalid case accepted",
			 c->file, c->tc);
		tu_check(output_is_clean(buf, sentinel, c->msg_len),
			 "%s tcId %s: output changed to other than zeros after a rejection",
			 c->file, c->tc);
	}
	if (kind == AEAD_IETF)
		aead_wireguard_form(c, buf);
	free(buf);
	free(sentinel);
}

static uint8_t *decode_field(const char *hex, size_t *len, bool *ok)
{
	size_t max = strlen(hex) / 2 + 1;
	uint8_t *p = malloc(max);
	long n;

	if (p == NULL)
		abort();
	n = tu_hex_decode(p, max, hex);
	if (n < 0) {
		*ok = false;
		n = 0;
	}
	*len = (size_t)n;
	return p;
}

static void note_skip(struct skip_count *skips, size_t nskips, size_t iv_bits)
{
	size_t i;

	for (i = 0; i < nskips; i++) {
		if (skips[i].count == 0 || skips[i].iv_bits == iv_bits) {
			skips[i].iv_bits = iv_bits;
			skips[i].count++;
			return;
		}
	}
	tu_check(false, "too many distinct nonce sizes");
}

static void run_aead_file(const char *dir, const char *file, enum aead_kind kind)
{
	size_t want_iv = kind == AEAD_IETF ? 12 : 24;
	struct skip_count skips[16] = { { 0, 0 } };
	unsigned long run = 0, valid = 0, invalid = 0, skipped = 0;
	struct tu_vec v;
	char *f[TU_VEC_MAX_FIELDS];
	size_t i;
	int n;

	if (!tu_vec_open(&v, dir, file))
		return;
	while ((n = tu_vec_next(&v, f)) > 0) {
		struct aead_case c = { .file = file, .tc = f[0] };
		uint8_t *tag;
		size_t ct_len, tag_len, key_len;
		bool ok = true;

		if (!tu_check(n == 8, "%s line %lu: %d fields", file, v.lineno, n))
			continue;
		c.valid = strcmp(f[1], "valid") == 0;
		key_len = (size_t)tu_hex_decode(c.key, sizeof(c.key), f[2]);
		c.iv = decode_field(f[3], &c.iv_len, &ok);
		c.ad = decode_field(f[4], &c.ad_len, &ok);
		c.msg = decode_field(f[5], &c.msg_len, &ok);
		c.ct = decode_field(f[6], &ct_len, &ok);
		tag = decode_field(f[7], &tag_len, &ok);
		if (!tu_check(ok && key_len == 32 && (c.valid || strcmp(f[1], "invalid") == 0),
			      "%s line %lu: malformed record", file, v.lineno))
			goto next;
		if (c.iv_len != want_iv) {
			/* The API has no way to take this nonce: count it, never pass it. */
			tu_check(!c.valid, "%s tcId %s: a valid case with a %zu-bit nonce", file,
				 c.tc, c.iv_len * 8);
			note_skip(skips, 16, c.iv_len * 8);
			skipped++;
			goto next;
		}
		if (!tu_check(ct_len == c.msg_len && tag_len == 16,
			      "%s tcId %s: ciphertext/tag lengths", file, c.tc))
			goto next;
		c.ct = realloc(c.ct, ct_len + 16);
		if (c.ct == NULL)
			abort();
		memcpy(c.ct + ct_len, tag, 16);
		aead_check_case(kind, &c);
		run++;
		if (c.valid)
			valid++;
		else
			invalid++;
next:
		free(c.iv);
		free(c.ad);
		free(c.msg);
		free(c.ct);
		free(tag);
	}
	tu_vec_close(&v);
	printf("%s: %lu cases run (%lu valid, %lu invalid), %lu skipped\n", file, run, valid,
	       invalid, skipped);
	for (i = 0; i < 16 && skips[i].count > 0; i++)
		printf("%s: SKIPPED %lu case(s) with a %zu-bit nonce: the API takes %zu-bit nonces only\n",
		       file, skips[i].count, skips[i].iv_bits, want_iv * 8);
	tu_check(run > 0, "%s: no cases", file);
}

static void blake2s_check(const char *what, const uint8_t *in, size_t in_len,
			  const uint8_t *key, size_t key_len, const uint8_t *want, size_t out_len)
{
	struct blake2s_state st;
	uint8_t out[32];
	size_t half = in_len / 3;

	blake2s(out, out_len, in, in_len, key_len ? key : NULL, key_len);
	tu_check_mem(out, want, out_len, "%s: blake2s (in %zu, key %zu, out %zu)", what, in_len,
		     key_len, out_len);

	if (key_len > 0)
		blake2s_init_key(&st, out_len, key, key_len);
	else
		blake2s_init(&st, out_len);
	blake2s_update(&st, in, half);
	blake2s_update(&st, in + half, 0);
	blake2s_update(&st, in + half, in_len - half);
	blake2s_final(&st, out);
	tu_check_mem(out, want, out_len, "%s: incremental (in %zu, key %zu, out %zu)", what,
		     in_len, key_len, out_len);
}

static void run_blake2s_kat(const char *dir)
{
	static uint8_t in[MAX_FIELD], key[32], want[32];
	unsigned long run = 0;
	struct tu_vec v;
	char *f[TU_VEC_MAX_FIELDS];
	int n;

	if (!tu_vec_open(&v, dir, "blake2s_kat.txt"))
		return;
	while ((n = tu_vec_next(&v, f)) > 0) {
		long in_len = tu_hex_decode(in, sizeof(in), f[0]);
		long key_len = n == 3 ? tu_hex_decode(key, sizeof(key), f[1]) : -1;
		long out_len = n == 3 ? tu_hex_decode(want, sizeof(want), f[2]) : -1;

		if (!tu_check(in_len >= 0 && key_len >= 0 && out_len >= 1,
			      "blake2s_kat.txt line %lu: malformed", v.lineno))
			continue;
		blake2s_check("blake2s_kat.txt", in, (size_t)in_len, key, (size_t)key_len, want,
			      (size_t)out_len);
		run++;
	}
	tu_vec_close(&v);
	printf("blake2s_kat.txt: %lu cases run\n", run);
	tu_check(run >= 500, "blake2s_kat.txt: only %lu cases", run);
}

/* gen_blake2s_extra.py's input pattern */
static void pattern(uint8_t *p, size_t n, unsigned int salt)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + salt * 17 + 7);
}

static void extra_hash(char **f, int n, unsigned long lineno, uint8_t *buf)
{
	uint8_t key[32], want[32];
	size_t in_len = n == 5 ? strtoul(f[1], NULL, 10) : 0;
	long key_len = n == 5 ? tu_hex_decode(key, sizeof(key), f[3]) : -1;

	if (!tu_check(n == 5 && in_len <= 65536 && key_len >= 0 &&
		      tu_hex_decode(want, sizeof(want), f[4]) == 32,
		      "blake2s_extra.txt line %lu: malformed", lineno))
		return;
	pattern(buf, in_len, (unsigned int)strtoul(f[2], NULL, 10));
	blake2s_check("blake2s_extra.txt", buf, in_len, key, (size_t)key_len, want, 32);
}

static void extra_hmac(char **f, int n, unsigned long lineno, uint8_t *buf)
{
	uint8_t key[64], want[32], out[32];
	long key_len = n == 4 ? tu_hex_decode(key, sizeof(key), f[1]) : -1;
	long msg_len = n == 4 ? tu_hex_decode(buf, 65536, f[2]) : -1;

	if (!tu_check(key_len >= 0 && msg_len >= 0 &&
		      tu_hex_decode(want, sizeof(want), f[3]) == 32,
		      "blake2s_extra.txt line %lu: malformed", lineno))
		return;
	blake2s_hmac(out, buf, (size_t)msg_len, key, (size_t)key_len);
	tu_check_mem(out, want, 32, "blake2s_hmac (key %ld, msg %ld)", key_len, msg_len);
}

static void extra_kdf(char **f, int n, unsigned long lineno, uint8_t *buf)
{
	uint8_t ck[32], t[3][32], a[32], b[32], c[32], alias[32];
	long data_len = n == 6 ? tu_hex_decode(buf, 65536, f[2]) : -1;
	int i;

	if (!tu_check(data_len >= 0 && tu_hex_decode(ck, 32, f[1]) == 32,
		      "blake2s_extra.txt line %lu: malformed", lineno))
		return;
	for (i = 0; i < 3; i++)
		if (!tu_check(tu_hex_decode(t[i], 32, f[3 + i]) == 32,
			      "blake2s_extra.txt line %lu: malformed", lineno))
			return;

	blake2s_kdf(a, NULL, NULL, buf, (size_t)data_len, ck);
	tu_check_mem(a, t[0], 32, "KDF1 (data %ld)", data_len);
	blake2s_kdf(a, b, NULL, buf, (size_t)data_len, ck);
	tu_check_mem(a, t[0], 32, "KDF2 first (data %ld)", data_len);
	tu_check_mem(b, t[1], 32, "KDF2 second (data %ld)", data_len);
	blake2s_kdf(a, b, c, buf, (size_t)data_len, ck);
	tu_check_mem(a, t[0], 32, "KDF3 first (data %ld)", data_len);
	tu_check_mem(b, t[1], 32, "KDF3 second (data %ld)", data_len);
	tu_check_mem(c, t[2], 32, "KDF3 third (data %ld)", data_len);

	/* The header allows outputs to alias the chaining key (C = KDF(C, ...)). */
	memcpy(alias, ck, 32);
	blake2s_kdf(alias, b, NULL, buf, (size_t)data_len, alias);
	tu_check_mem(alias, t[0], 32, "KDF2 with first aliasing the chaining key");
	tu_check_mem(b, t[1], 32, "KDF2 second with first aliasing the chaining key");
	memcpy(alias, ck, 32);
	blake2s_kdf(a, b, alias, buf, (size_t)data_len, alias);
	tu_check_mem(a, t[0], 32, "KDF3 first with third aliasing the chaining key");
	tu_check_mem(b, t[1], 32, "KDF3 second with third aliasing the chaining key");
	tu_check_mem(alias, t[2], 32, "KDF3 with third aliasing the chaining key");
	/* ... and the data (as in C, k = KDF2(C, DH) with the DH output reused). */
	if (data_len == 32) {
		memcpy(alias, buf, 32);
		blake2s_kdf(a, alias, NULL, alias, 32, ck);
		tu_check_mem(a, t[0], 32, "KDF2 first with second aliasing the data");
		tu_check_mem(alias, t[1], 32, "KDF2 with second aliasing the data");
	}
}

static void run_blake2s_extra(const char *dir)
{
	unsigned long counts[3] = { 0, 0, 0 };
	uint8_t *buf = malloc(65536);
	struct tu_vec v;
	char *f[TU_VEC_MAX_FIELDS];
	int n;

	if (buf == NULL)
		abort();
	if (!tu_vec_open(&v, dir, "blake2s_extra.txt")) {
		free(buf);
		return;
	}
	while ((n = tu_vec_next(&v, f)) > 0) {
		if (strcmp(f[0], "hash") == 0) {
			extra_hash(f, n, v.lineno, buf);
			counts[0]++;
		} else if (strcmp(f[0], "hmac") == 0) {
			extra_hmac(f, n, v.lineno, buf);
			counts[1]++;
		} else if (strcmp(f[0], "kdf") == 0) {
			extra_kdf(f, n, v.lineno, buf);
			counts[2]++;
		} else {
			tu_check(false, "blake2s_extra.txt line %lu: unknown record", v.lineno);
		}
	}
	tu_vec_close(&v);
	free(buf);
	printf("blake2s_extra.txt: %lu long hashes, %lu HMACs, %lu KDFs run\n", counts[0],
	       counts[1], counts[2]);
	tu_check(counts[0] > 0 && counts[1] > 0 && counts[2] > 0, "blake2s_extra.txt: a kind is missing");
}

int main(int argc, char **argv)
{
	const char *dir = tu_vector_dir(argc, argv);

	if (dir == NULL)
		return 2;
	run_aead_file(dir, "chacha20_poly1305.txt", AEAD_IETF);
	run_aead_file(dir, "xchacha20_poly1305.txt", AEAD_X);
	run_blake2s_kat(dir);
	run_blake2s_extra(dir);
	return tu_exit_status("crypto-kat");
}
