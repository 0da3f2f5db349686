// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86-64 AVX2 and AVX-512 Poly1305 cores (crypto/arch/x86_64/
 * poly1305_avx2.c, poly1305_avx512.c) and the x86-64 AEAD
 * (crypto/arch/x86_64/chacha20poly1305_x86.c) against the generic C and,
 * when built with it, libsodium:
 *   Poly1305, each vector core against the 44-bit core (the AVX-512 one
 *   where the CPU has it, else the program says so):
 *   - every length 0..2048 at every source offset 0..63;
 *   - random lengths up to 65535; the largest clamped r with messages of
 *     all-ones and all-zero bytes (the limb bounds of the vector code);
 *   - the accumulator entering at the largest limbs the cores leave between
 *     calls; every length to 4096 against unmapped pages on either side (a
 *     load outside the message faults: the AVX-512 core's masked loads);
 *   - the state handed between the three cores at random block boundaries;
 *   - poly1305_update in random pieces (the dispatched core) == one call,
 *     at every level the CPU has;
 *   the AEAD, dispatched (the AVX2 path) against the generic C (every core
 *   forced generic) and libsodium:
 *   - every length 0..2048, in place and out of place, with source,
 *     destination and AD offsets that walk 0..63; every pair of source and
 *     destination offsets 0..63 (and every AD offset) at lengths around
 *     the group boundaries; random lengths up to 65535;
 *   - open of the other side's packets, in place and out of place;
 *   - a flipped bit in the tag, the ciphertext or the AD refused, with dst
 *     (sentinels out of place, the ciphertext in place) untouched;
 *   - the dispatch: chacha20poly1305_x86_seal/_open apply only from the
 *     AVX2 level and from 65 bytes on.
 * The AEAD checks run at every level the CPU has (AVX2, AVX-512).
 * Every output is checked with GUARD bytes on each side.  On a CPU without
 * AVX2 the dispatched code is the generic code: the program says so, runs
 * the AEAD checks (generic against generic and libsodium) and skips the
 * direct calls of the AVX2 cores.
 * Usage: test_aead_x86 [CASES]  (random large cases; seed from WGD_TEST_SEED)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef TEST_HAVE_SODIUM
#include <sodium.h>
#endif

#include "crypto/arch/glue.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"
#include "tests/lib/testutil.h"

#if !defined(WGD_ASM_X86_64)
#error "test_aead_x86 is built only with the x86-64 code (see tests/crypto/meson.build)"
#endif

#define MAX_LEN 65536
#define MAX_AD 80
#define GUARD 64
#define BASE (GUARD + 64)	/* where buffers start, before the offset */
#define BUF_SIZE (BASE + 64 + MAX_LEN + 16 + GUARD)
#define SENTINEL 0x5a

static uint8_t data[BUF_SIZE], adbuf[BUF_SIZE];
static uint8_t out_ref[BUF_SIZE], out_x86[BUF_SIZE], opened[BUF_SIZE], other[BUF_SIZE];
static struct tu_rng rng;
static bool have_avx2;
/* the level the AEAD checks run the dispatched code at */
static int level_dispatched = CRYPTO_X86_GENERIC;

static const struct tu_poly_core core_avx2 = {
	"poly1305_avx2", poly1305_avx2_init, poly1305_avx2_blocks, poly1305_avx2_emit
};
/* the AVX-512 core has the AVX2 core's state, _init and _emit */
static const struct tu_poly_core core_avx512 = {
	"poly1305_avx512", poly1305_avx2_init, poly1305_avx512_blocks, poly1305_avx2_emit
};
static const struct tu_poly_core core_64 = {
	"poly1305_64", poly1305_64_init, poly1305_64_blocks, poly1305_64_emit
};

/* All cores generic (the reference), or the level under test. */
static void use_generic(bool generic)
{
	crypto_x86_set_level(generic ? CRYPTO_X86_GENERIC : level_dispatched);
}

/* ---- Poly1305 ---- */

static void poly_compare(const struct tu_poly_core *core, const char *what, const uint8_t *msg,
			 size_t len, const uint8_t key[32])
{
	uint8_t want[16], got[16];

	tu_poly1305_core(&core_64, want, msg, len, key);
	tu_poly1305_core(core, got, msg, len, key);
	tu_check_mem(got, want, 16, "poly1305 %s: %s, len %zu, address %% 64 = %zu", what,
		     core->name, len, (size_t)((uintptr_t)msg % 64));
}

static void poly_every_length(const struct tu_poly_core *core)
{
	uint8_t key[32];
	size_t len, off;

	for (len = 0; len <= 2048; len++)
		for (off = 0; off < 64; off++) {
			tu_rng_fill(&rng, key, sizeof(key));
			poly_compare(core, "every length", data + BASE + off, len, key);
		}
}

/*
 * The largest r the clamp allows, and messages whose every limb is at its
 * maximum or zero: the sums of products in the vector code reach their
 * bounds.  s all ones makes the final addition carry through.
 */
static void poly_extremes(const struct tu_poly_core *core)
{
	static const size_t lens[] = { 64, 256, 1024, 1420, 4096, 65535 };
	uint8_t key[32];
	size_t i;

	memset(key, 0xff, sizeof(key));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(out_ref, 0xff, lens[i]);
		poly_compare(core, "r, s and message all ones", out_ref, lens[i], key);
		memset(out_ref, 0, lens[i]);
		poly_compare(core, "r, s all ones, message zero", out_ref, lens[i], key);
	}
	memset(out_ref, 0xff, MAX_LEN);
	for (i = 0; i < 32; i++) {
		tu_rng_fill(&rng, key, sizeof(key));
		poly_compare(core, "random key, message all ones", out_ref, 256 + 64 * i, key);
	}
}

static void poly_large(const struct tu_poly_core *core, unsigned long cases)
{
	uint8_t key[32];
	unsigned long i;

	for (i = 0; i < cases; i++) {
		size_t len = tu_rng_below(&rng, 65536), off = tu_rng_below(&rng, 64);

		tu_rng_fill(&rng, key, sizeof(key));
		poly_compare(core, "large", data + BASE + off, len, key);
	}
}

/*
 * The accumulator entering a call at the largest limbs the cores may leave
 * between calls (crypto/poly1305_impl.h: < 2^44, < 2^44 + 2^14,
 * < 2^42 + 2^17), with the largest r and all-ones messages of 1..48 blocks
 * and of a packet's 88, against the 44-bit core from the same state.
 */
static void poly_bounds(const struct tu_poly_core *core)
{
	static const uint64_t hmax[3] = { (1ull << 44) - 1, (1ull << 44) + (1ull << 14) - 1,
					  (1ull << 42) + (1ull << 17) - 1 };
	const struct tu_poly_core *cores[2] = { &core_64, core };
	uint8_t key[32], mac[2][16];
	size_t blocks;
	int c;

	memset(key, 0xff, sizeof(key));
	memset(out_ref, 0xff, 1408);
	for (blocks = 1; blocks <= 49; blocks++) {
		size_t len = 16 * (blocks <= 48 ? blocks : 88);

		for (c = 0; c < 2; c++) {
			struct poly1305_ctx ctx;
			struct poly1305_64_state *st = (struct poly1305_64_state *)&ctx.core;

			cores[c]->init(&ctx.core, key);
			memcpy(st->h, hmax, sizeof(hmax));
			cores[c]->blocks(&ctx.core, out_ref, len, 1);
			cores[c]->emit(&ctx.core, mac[c], key + 16);
		}
		tu_check_mem(mac[1], mac[0], 16, "poly1305 %s from the largest h, len %zu",
			     core->name, len);
	}
}

/*
 * Messages that begin right after, or end right before, an unmapped page:
 * a load outside the message faults.  Every length 0..4096.
 */
static void poly_page_edges(const struct tu_poly_core *core)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	uint8_t *map = mmap(NULL, 3 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t key[32];

	if (map == MAP_FAILED || page < 4096 || mprotect(map + page, page, PROT_READ | PROT_WRITE)) {
		tu_check(false, "poly1305 page edges: mmap/mprotect failed");
		return;
	}
	tu_rng_fill(&rng, map + page, page);
	for (len = 0; len <= 4096; len++) {
		tu_rng_fill(&rng, key, sizeof(key));
		poly_compare(core, "after an unmapped page", map + page, len, key);
		poly_compare(core, "before an unmapped page", map + 2 * page - len, len, key);
	}
	munmap(map, 3 * page);
}

/*
 * One message through the three cores in turn on one state, each taking a
 * random number of blocks (0..40), against the 44-bit core in one call:
 * each core continues from whatever accumulator another left.
 */
static void poly_handover(unsigned long cases)
{
	const struct tu_poly_core *cores[3] = { &core_64, &core_avx2, &core_avx512 };
	uint8_t key[32], want[16], got[16];
	unsigned long i;

	for (i = 0; i < cases; i++) {
		size_t len = 16 * tu_rng_below(&rng, 257), done = 0;
		const uint8_t *msg = data + BASE + tu_rng_below(&rng, 64);
		struct poly1305_ctx ctx;

		tu_rng_fill(&rng, key, sizeof(key));
		tu_poly1305_core(&core_64, want, msg, len, key);
		poly1305_avx2_init(&ctx.core, key);
		while (done < len) {
			size_t step = 16 * tu_rng_below(&rng, 41);

			if (step > len - done)
				step = len - done;
			cores[tu_rng_below(&rng, 3)]->blocks(&ctx.core, msg + done, step, 1);
			done += step;
		}
		poly1305_avx2_emit(&ctx.core, got, key + 16);
		tu_check_mem(got, want, 16, "poly1305 handed between the cores, len %zu", len);
	}
}

/* The AVX-512 core where the CPU has it: the AVX2 core's cases and the handover. */
static void poly_avx512(unsigned long cases)
{
	if (crypto_x86_cpu_level() < CRYPTO_X86_AVX512) {
		printf("test_aead_x86: this CPU (or OS) has no AVX-512 (F, VL, BW, IFMA): the "
		       "AVX-512 Poly1305 core is not checked\n");
		return;
	}
	poly_every_length(&core_avx512);
	poly_extremes(&core_avx512);
	poly_large(&core_avx512, cases);
	poly_bounds(&core_avx512);
	poly_page_edges(&core_avx512);
	poly_handover(cases);
}

/* poly1305_update (dispatched) in random pieces, some long enough for the vector path */
static void poly_chunked(unsigned long cases)
{
	struct poly1305_ctx ctx;
	uint8_t key[32], want[16], got[16];
	unsigned long i;

	for (i = 0; i < cases; i++) {
		size_t len = tu_rng_below(&rng, 8193), done = 0;
		const uint8_t *msg = data + BASE + tu_rng_below(&rng, 64);

		tu_rng_fill(&rng, key, sizeof(key));
		tu_poly1305_core(&core_64, want, msg, len, key);
		poly1305_init(&ctx, key);
		while (done < len) {
			size_t step = tu_rng_below(&rng, 2) ? tu_rng_below(&rng, 64)
							    : tu_rng_below(&rng, 1500);

			if (step > len - done)
				step = len - done;
			poly1305_update(&ctx, msg + done, step);
			done += step;
		}
		poly1305_final(&ctx, got);
		tu_check_mem(got, want, 16, "poly1305 chunked == whole, len %zu", len);
		poly1305(got, msg, len, key);
		tu_check_mem(got, want, 16, "poly1305() dispatched, len %zu", len);
	}
}

/* ---- the AEAD ---- */

struct aead_case {
	uint8_t key[32], nonce[12];
	size_t len, soff, doff, aoff, ad_len;
	bool in_place;
};

static void random_case(struct aead_case *c, size_t len, size_t soff, size_t doff, size_t aoff,
			size_t ad_len, bool in_place)
{
	tu_rng_fill(&rng, c->key, sizeof(c->key));
	tu_rng_fill(&rng, c->nonce, sizeof(c->nonce));
	c->len = len;
	c->soff = soff;
	c->doff = doff;
	c->aoff = aoff;
	c->ad_len = ad_len;
	c->in_place = in_place;
}

static bool is_filled(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

#define CASE_FMT "len %zu, src +%zu, dst +%zu, ad +%zu (%zu bytes)%s"
#define CASE_ARGS(c) (c)->len, (c)->soff, (c)->doff, (c)->aoff, (c)->ad_len, \
	(c)->in_place ? ", in place" : ""

/*
 * Seals with the generic code into out_ref + BASE and with the dispatched
 * code into out_x86 + BASE + doff (in place: over a copy of the plaintext
 * there), compares the two and libsodium's, then opens both ways.
 */
static void aead_check(const struct aead_case *c)
{
	const uint8_t *src = data + BASE + c->soff, *ad = adbuf + BASE + c->aoff;
	uint8_t *ref = out_ref + BASE, *x86 = out_x86 + BASE + c->doff, *pt = opened + BASE + c->soff;
	size_t total = c->len + 16;
	bool ok;

	use_generic(true);
	chacha20poly1305_ietf_encrypt(ref, src, c->len, ad, c->ad_len, c->nonce, c->key);
	use_generic(false);
	memset(x86 - GUARD, SENTINEL, total + 2 * GUARD);
	if (c->in_place) {
		memcpy(x86, src, c->len);
		chacha20poly1305_ietf_encrypt(x86, x86, c->len, ad, c->ad_len, c->nonce, c->key);
	} else {
		chacha20poly1305_ietf_encrypt(x86, src, c->len, ad, c->ad_len, c->nonce, c->key);
	}
	tu_check_mem(x86, ref, total, "seal: dispatched != generic, " CASE_FMT, CASE_ARGS(c));
	tu_check(is_filled(x86 - GUARD, GUARD, SENTINEL) && is_filled(x86 + total, GUARD, SENTINEL),
		 "seal wrote outside its output, " CASE_FMT, CASE_ARGS(c));
#ifdef TEST_HAVE_SODIUM
	{
		unsigned long long clen;

		crypto_aead_chacha20poly1305_ietf_encrypt(other, &clen, src, c->len, ad, c->ad_len,
							  NULL, c->nonce, c->key);
		tu_check(clen == total && memcmp(other, ref, total) == 0,
			 "seal: libsodium != generic, " CASE_FMT, CASE_ARGS(c));
	}
#endif

	/* open the generic packet with the dispatched code */
	memset(pt - GUARD, SENTINEL, c->len + 2 * GUARD);
	ok = chacha20poly1305_ietf_decrypt(pt, ref, total, ad, c->ad_len, c->nonce, c->key);
	tu_check(ok, "open (dispatched) refused the generic packet, " CASE_FMT, CASE_ARGS(c));
	tu_check_mem(pt, src, c->len, "open (dispatched), " CASE_FMT, CASE_ARGS(c));
	tu_check(is_filled(pt - GUARD, GUARD, SENTINEL) && is_filled(pt + c->len, GUARD, SENTINEL),
		 "open wrote outside its output, " CASE_FMT, CASE_ARGS(c));
	/* in place, on the dispatched packet */
	ok = chacha20poly1305_ietf_decrypt(x86, x86, total, ad, c->ad_len, c->nonce, c->key);
	tu_check(ok, "open in place (dispatched) refused, " CASE_FMT, CASE_ARGS(c));
	tu_check_mem(x86, src, c->len, "open in place (dispatched), " CASE_FMT, CASE_ARGS(c));
	/* and the generic code opens what the dispatched code made */
	memcpy(other, ref, total);
	use_generic(true);
	ok = chacha20poly1305_ietf_decrypt(other, other, total, ad, c->ad_len, c->nonce, c->key);
	use_generic(false);
	tu_check(ok && memcmp(other, src, c->len) == 0, "open (generic), " CASE_FMT, CASE_ARGS(c));
}

static void aead_every_length(void)
{
	struct aead_case c;
	size_t len;
	int k;

	for (len = 0; len <= 2048; len++)
		for (k = 0; k < 2; k++) {
			random_case(&c, len, len % 64, (len * 7 + 3 + (size_t)k * 32) % 64,
				    (len * 13 + 5) % 64, len % 3 == 0 ? 0 : (len * 5 + (size_t)k) % MAX_AD,
				    ((len + (size_t)k) & 1) != 0);
			aead_check(&c);
		}
}

static void aead_every_offset(void)
{
	static const size_t lens[] = { 65, 200, 448, 449, 960, 961, 1420, 2048 };
	struct aead_case c;
	size_t i, s, d;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		for (s = 0; s < 64; s++)
			for (d = 0; d < 64; d++) {
				random_case(&c, lens[i], s, d, (s + d) % 64, 16, false);
				aead_check(&c);
			}
		for (s = 0; s < 64; s++) {
			random_case(&c, lens[i], s, s, (s * 5) % 64, 1 + s, true);
			aead_check(&c);
		}
	}
}

static void aead_large(unsigned long cases)
{
	struct aead_case c;
	unsigned long i;

	for (i = 0; i < cases; i++) {
		random_case(&c, tu_rng_below(&rng, 65536), tu_rng_below(&rng, 64),
			    tu_rng_below(&rng, 64), tu_rng_below(&rng, 64), tu_rng_below(&rng, MAX_AD),
			    tu_rng_below(&rng, 2) == 0);
		aead_check(&c);
	}
}

/*
 * Sealed packet in out_ref + BASE; one bit flipped in the tag, the
 * ciphertext or the AD: open must refuse and leave dst as it was (out of
 * place: sentinels; in place: the tampered ciphertext).
 */
static void aead_refuse(const struct aead_case *c, uint8_t *pkt, const uint8_t *ad,
			const char *what, size_t bit)
{
	size_t total = c->len + 16;
	uint8_t *dst = opened + BASE + c->doff;
	bool ok;

	memset(dst - GUARD, SENTINEL, c->len + 2 * GUARD);
	ok = chacha20poly1305_ietf_decrypt(dst, pkt, total, ad, c->ad_len, c->nonce, c->key);
	tu_check(!ok, "flipped %s bit %zu accepted, len %zu", what, bit, c->len);
	tu_check(is_filled(dst - GUARD, c->len + 2 * GUARD, SENTINEL),
		 "dst written after a refusal (%s bit %zu, len %zu)", what, bit, c->len);
	memcpy(other, pkt, total);
	ok = chacha20poly1305_ietf_decrypt(other, other, total, ad, c->ad_len, c->nonce, c->key);
	tu_check(!ok && memcmp(other, pkt, total) == 0,
		 "in place: refused packet changed or accepted (%s bit %zu, len %zu)", what, bit,
		 c->len);
}

static void aead_flips(void)
{
	static const size_t lens[] = { 0, 64, 65, 200, 448, 449, 1420, 4000 };
	struct aead_case c;
	size_t i, bit;

	use_generic(false);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint8_t *pkt = out_ref + BASE, *ad = adbuf + BASE + i;
		size_t total = lens[i] + 16;

		random_case(&c, lens[i], 0, i, i, 16, false);
		chacha20poly1305_ietf_encrypt(pkt, data + BASE, c.len, ad, c.ad_len, c.nonce, c.key);
		for (bit = 0; bit < 128; bit++) {
			pkt[c.len + bit / 8] ^= (uint8_t)(1u << (bit % 8));
			aead_refuse(&c, pkt, ad, "tag", bit);
			pkt[c.len + bit / 8] ^= (uint8_t)(1u << (bit % 8));
			ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			aead_refuse(&c, pkt, ad, "AD", bit);
			ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		for (bit = 0; bit < 8 * c.len; bit += 1 + tu_rng_below(&rng, 97)) {
			pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			aead_refuse(&c, pkt, ad, "ciphertext", bit);
			pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		/* and the untampered packet still opens */
		tu_check(chacha20poly1305_ietf_decrypt(opened, pkt, total, ad, c.ad_len, c.nonce,
						       c.key) &&
			 memcmp(opened, data + BASE, c.len) == 0,
			 "untampered packet refused after the flips, len %zu", c.len);
	}
}

/* The x86 AEAD applies only with the AVX2 ChaCha20 core and from 65 bytes on. */
static void aead_dispatch(void)
{
	uint8_t key[32] = { 1 }, nonce[12] = { 2 };
	bool ok = false;
	int level;

	crypto_x86_set_level(CRYPTO_X86_GENERIC);
	tu_check(!chacha20poly1305_x86_seal(out_x86, data, 1000, NULL, 0, nonce, key),
		 "x86 seal ran with the generic ChaCha20 core");
	tu_check(!chacha20poly1305_x86_open(&ok, out_x86, data, 1000, NULL, 0, nonce, key),
		 "x86 open ran with the generic ChaCha20 core");
	if (!have_avx2)
		return;
	for (level = CRYPTO_X86_AVX2; level <= crypto_x86_cpu_level(); level++) {
		crypto_x86_set_level(level);
		tu_check(!chacha20poly1305_x86_seal(out_x86, data, 64, NULL, 0, nonce, key),
			 "x86 seal ran for 64 bytes (level %d)", level);
		tu_check(chacha20poly1305_x86_seal(out_x86, data, 65, NULL, 0, nonce, key),
			 "x86 seal declined 65 bytes (level %d)", level);
		tu_check(chacha20poly1305_x86_open(&ok, opened, out_x86, 65, NULL, 0, nonce, key) && ok,
			 "x86 open declined or refused its own 65 bytes (level %d)", level);
	}
}

int main(int argc, char **argv)
{
	unsigned long cases = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	int level;

	__builtin_cpu_init();
	have_avx2 = __builtin_cpu_supports("avx2") != 0;
#ifdef TEST_HAVE_SODIUM
	if (sodium_init() < 0)
		return 1;
	printf("test_aead_x86: libsodium is the second reference\n");
#else
	printf("test_aead_x86: built without libsodium: the generic C is the only reference\n");
#endif
	tu_rng_seed(&rng, tu_seed("test_aead_x86", 0xae4d86aeu));
	tu_rng_fill(&rng, data, sizeof(data));
	tu_rng_fill(&rng, adbuf, sizeof(adbuf));
	if (have_avx2) {
		poly_every_length(&core_avx2);
		poly_extremes(&core_avx2);
		poly_large(&core_avx2, cases);
		poly_bounds(&core_avx2);
		poly_page_edges(&core_avx2);
		poly_avx512(cases);
	} else {
		printf("test_aead_x86: this CPU (or OS) has no AVX2: the dispatched code is the "
		       "generic C, which alone is tested (the AVX2 cores are skipped)\n");
	}
	/* the AEAD at every level this CPU has, against the generic code */
	for (level = have_avx2 ? CRYPTO_X86_AVX2 : CRYPTO_X86_GENERIC;
	     level <= crypto_x86_cpu_level(); level++) {
		level_dispatched = level;
		printf("test_aead_x86: the AEAD at level %d\n", level);
		use_generic(false);
		poly_chunked(cases);
		aead_every_length();
		aead_every_offset();
		aead_large(cases);
		aead_flips();
	}
	if (crypto_x86_cpu_level() < CRYPTO_X86_AVX512)
		printf("test_aead_x86: this CPU (or OS) has no AVX-512 (F, VL, BW, IFMA): the "
		       "AVX-512 level is not checked\n");
	aead_dispatch();
	return tu_exit_status("test_aead_x86");
}
