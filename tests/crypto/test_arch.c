// SPDX-License-Identifier: GPL-2.0-only
/*
 * The architecture cores (crypto/arch, here MIPS32r2 assembly) against the
 * generic C cores they replace, on 1 MiB of pseudo-random data:
 *   ChaCha20: the whole MiB at every source and destination offset 0..3, in
 *   place and not; then random lengths, positions, offsets and counters
 *   (also across the 2^32 wrap), in one call or in chunks of whole blocks;
 *   the bytes around the output must be left alone.
 *   Poly1305: the mips core against the 26-bit core, the whole MiB at
 *   every offset 0..3, then random keys (also the largest clamped r),
 *   messages (also all 0xff bytes, the worst case for carries), alignments,
 *   chunkings and pad bits; and its final reduction on accumulators set by
 *   hand, against a plain reduction in this file.
 * Usage: test_arch [CASES [SEED]]: CASES random cases of each kind.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/arch/glue.h"
#include "tests/lib/testutil.h"

#if !defined(WGD_ASM_MIPS32R2)
#error "test_arch is built only with an architecture core (see tests/crypto/meson.build)"
#endif

#define DATA_SIZE (1024 * 1024)
#define GUARD 64	/* bytes checked on each side of an output */
#define FULL_POS (GUARD + 8)	/* where whole-MiB outputs start, before the offset */

static uint8_t data[DATA_SIZE + 2 * GUARD];
static uint8_t ones[4096 + 8];	/* all 0xff */
static uint8_t out_ref[DATA_SIZE + 4 * GUARD];
static uint8_t out_asm[DATA_SIZE + 4 * GUARD];
static struct tu_rng rng;
static unsigned long failures;

static uint64_t rand64(void)
{
	return tu_rng_next(&rng);
}

static uint32_t rand32(void)
{
	return (uint32_t)(rand64() >> 32);
}

static size_t rand_below(size_t n)
{
	return (size_t)(rand64() % n);
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rand32();
}

static void fail(const char *what, unsigned long n, size_t len, size_t soff, size_t doff)
{
	if (failures++ < 10)
		fprintf(stderr, "FAIL %s, case %lu: len %zu, src offset %zu, dst offset %zu\n",
			what, n, len, soff, doff);
}

static void random_state(uint32_t state[16])
{
	int i;

	for (i = 0; i < 16; i++)
		state[i] = rand32();
	/* sometimes a counter that wraps mod 2^32 during the call */
	if (rand_below(4) == 0)
		state[12] = 0xffffffffu - (uint32_t)rand_below(8);
}

/*
 * One ChaCha20 comparison: len bytes from data + spos to offset dpos of the
 * output buffers (or in place there, on a copy of the input), in chunks of
 * whole blocks when chunked.  Both output buffers start equal; any difference
 * in [dpos - GUARD, dpos + len + GUARD) or in the final counters fails.
 */
static void chacha_case(const char *what, unsigned long n, size_t spos, size_t dpos,
			size_t len, int in_place, int chunked)
{
	uint32_t st_ref[16], st_asm[16];
	size_t done = 0;

	random_state(st_ref);
	memcpy(st_asm, st_ref, sizeof(st_ref));
	memset(out_ref + dpos - GUARD, 0xa5, len + 2 * GUARD);
	memset(out_asm + dpos - GUARD, 0xa5, len + 2 * GUARD);
	if (in_place) {
		memcpy(out_ref + dpos, data + spos, len);
		memcpy(out_asm + dpos, data + spos, len);
	}
	while (done < len) {
		size_t step = len - done;

		if (chunked && step > 64)
			step = 64 * (1 + rand_below(step / 64));
		if (in_place) {
			chacha20_generic_xor(out_ref + dpos + done, out_ref + dpos + done, step, st_ref);
			chacha20_mips_xor(out_asm + dpos + done, out_asm + dpos + done, step, st_asm);
		} else {
			chacha20_generic_xor(out_ref + dpos + done, data + spos + done, step, st_ref);
			chacha20_mips_xor(out_asm + dpos + done, data + spos + done, step, st_asm);
		}
		done += step;
	}
	if (len == 0) {
		/* zero bytes: nothing written, the counter does not move */
		chacha20_generic_xor(out_ref + dpos, data + spos, 0, st_ref);
		chacha20_mips_xor(out_asm + dpos, data + spos, 0, st_asm);
	}
	if (memcmp(out_ref + dpos - GUARD, out_asm + dpos - GUARD, len + 2 * GUARD) != 0 ||
	    memcmp(st_ref, st_asm, sizeof(st_ref)) != 0)
		fail(what, n, len, spos & 3, dpos & 3);
}

static void chacha_tests(unsigned long cases)
{
	unsigned long n = 0;
	size_t so, d, len;
	unsigned long i;

	for (so = 0; so < 4; so++) {
		for (d = 0; d < 4; d++)
			chacha_case("chacha20 whole MiB", n++, GUARD + so, FULL_POS + d,
				    DATA_SIZE, 0, 0);
		chacha_case("chacha20 whole MiB in place", n++, GUARD, FULL_POS + so,
			    DATA_SIZE, 1, 0);
	}
	for (i = 0; i < cases; i++) {
		switch (rand_below(4)) {
		case 0:
			len = rand_below(257);
			break;
		case 1:
			len = 64 * rand_below(40);
			break;
		case 2:
			len = rand_below(4097);
			break;
		default:
			len = rand_below(65537);
			break;
		}
		so = GUARD + rand_below(DATA_SIZE - len + 1);
		d = FULL_POS + rand_below(DATA_SIZE - len + 1);
		chacha_case("chacha20 random", i, so, d, len, rand_below(2) == 0, rand_below(3) == 0);
	}
}

/* a Poly1305 key: random, or with the largest r that clamping allows */
static void random_key(uint8_t key[32])
{
	fill(key, 32);
	if (rand_below(4) == 0)
		memset(key, 0xff, 16);
	if (rand_below(8) == 0)
		memset(key + 16, 0xff, 16);
}

/* The message m[0..len) (a multiple of 16) through both cores in chunks. */
static void poly_case(const char *what, unsigned long n, const uint8_t *m, size_t len,
		      int chunked)
{
	union {
		uint32_t w32[20];
		uint64_t w64[10];
	} ref, core;
	uint8_t key[32], mac_ref[16], mac_asm[16];
	size_t done = 0;

	random_key(key);
	poly1305_32_init(&ref, key);
	poly1305_mips_init(&core, key);
	while (done < len) {
		size_t step = len - done;
		uint32_t padbit = 1;

		if (chunked) {
			step = 16 * (1 + rand_below(step / 16));
			padbit = rand_below(8) != 0;
		}
		poly1305_32_blocks(&ref, m + done, step, padbit);
		poly1305_mips_blocks(&core, m + done, step, padbit);
		done += step;
	}
	poly1305_32_emit(&ref, mac_ref, key + 16);
	poly1305_mips_emit(&core, mac_asm, key + 16);
	if (memcmp(mac_ref, mac_asm, sizeof(mac_ref)) != 0)
		fail(what, n, len, (size_t)(uintptr_t)m & 3, 0);
}

static void poly_tests(unsigned long cases)
{
	unsigned long i;
	size_t off;

	for (off = 0; off < 4; off++)
		poly_case("poly1305 whole MiB", off, data + GUARD + off, DATA_SIZE - 16, 0);
	for (i = 0; i < cases; i++) {
		size_t blocks = rand_below(4) == 0 ? rand_below(4096) : rand_below(100);
		const uint8_t *m;

		if (rand_below(4) == 0) {
			blocks %= sizeof(ones) / 16;
			m = ones + rand_below(4);
		} else {
			m = data + GUARD + rand_below(DATA_SIZE - 16 * blocks + 1);
		}
		poly_case("poly1305 random", i, m, 16 * blocks, rand_below(2) == 0);
	}
}

/*
 * poly1305_mips_emit() on accumulators set by hand (words 0..4 of the
 * state, h4 < 2^31 as poly1305.S keeps it), against this file's own
 * reduction: fold the bits above 2^130 back as 5 each until none are
 * left, subtract p once if h >= p, add s mod 2^128.  The hand-set values
 * reach the carries that random messages almost never do: h0..h3 all
 * ones, h = p - 1, p, p + 1, 2p - 1, and s with carries across every word.
 */
static void emit_reference(const uint32_t h_in[5], const uint8_t s[16], uint8_t mac[16])
{
	uint32_t h[5], q, g[5];
	uint64_t c;
	int i;

	memcpy(h, h_in, sizeof(h));
	while ((q = h[4] >> 2) != 0) {
		h[4] &= 3;
		c = 5 * (uint64_t)q;
		for (i = 0; i < 5; i++) {
			c += h[i];
			h[i] = (uint32_t)c;
			c >>= 32;
		}
	}
	/* h < 2^130 now; g = h - p = h + 5 - 2^130 */
	c = 5;
	for (i = 0; i < 5; i++) {
		c += h[i];
		g[i] = (uint32_t)c;
		c >>= 32;
	}
	if (g[4] >= 4)
		memcpy(h, g, sizeof(h));
	c = 0;
	for (i = 0; i < 4; i++) {
		c += (uint64_t)h[i] + ((uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 |
				       (uint32_t)s[4 * i + 2] << 16 | (uint32_t)s[4 * i + 3] << 24);
		mac[4 * i + 0] = (uint8_t)c;
		mac[4 * i + 1] = (uint8_t)(c >> 8);
		mac[4 * i + 2] = (uint8_t)(c >> 16);
		mac[4 * i + 3] = (uint8_t)(c >> 24);
		c >>= 32;
	}
}

static void emit_case(unsigned long n, const uint32_t h[5], const uint8_t s[16])
{
	union {
		uint32_t w32[20];
		uint64_t w64[10];
	} core;
	uint8_t want[16], got[16];

	memset(&core, 0, sizeof(core));
	memcpy(core.w32, h, 5 * sizeof(uint32_t));
	emit_reference(h, s, want);
	poly1305_mips_emit(&core, got, s);
	if (memcmp(want, got, sizeof(want)) != 0) {
		fprintf(stderr, "FAIL: poly1305_mips_emit case %lu: h = %08x %08x %08x %08x %08x\n", n,
			h[4], h[3], h[2], h[1], h[0]);
		failures++;
	}
}

static void emit_tests(unsigned long cases)
{
	static const uint32_t h4s[] = { 0, 1, 2, 3, 4, 5, 7, 8, 0x3ffffffc, 0x7ffffffe, 0x7fffffff };
	static const uint32_t lows[] = { 0, 1, 4, 5, 0xfffffffa, 0xfffffffb, 0xfffffffc, 0xffffffff };
	uint32_t h[5];
	uint8_t s[16];
	unsigned long n = 0, i;
	size_t a, b, k;

	for (a = 0; a < sizeof(h4s) / sizeof(h4s[0]); a++)
		for (b = 0; b < sizeof(lows) / sizeof(lows[0]); b++)
			for (k = 0; k < 4; k++) {
				/* h3..h1 all ones (or all zeros), h0 and h4 from the lists */
				h[0] = lows[b];
				h[1] = h[2] = h[3] = k & 1 ? 0 : 0xffffffff;
				h[4] = h4s[a];
				memset(s, k & 2 ? 0xff : 0, sizeof(s));
				emit_case(n++, h, s);
			}
	for (i = 0; i < cases; i++) {
		for (k = 0; k < 4; k++)
			h[k] = rand_below(4) == 0 ? 0xffffffff : rand32();
		h[4] = rand32() >> (1 + rand_below(31));
		fill(s, sizeof(s));
		if (rand_below(4) == 0)
			memset(s, 0xff, 8 + rand_below(9));
		emit_case(n++, h, s);
	}
}

int main(int argc, char **argv)
{
	unsigned long cases = argc > 1 ? strtoul(argv[1], NULL, 10) : 3000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed2026u;

	tu_rng_seed(&rng, seed);
	fill(data, sizeof(data));
	memset(ones, 0xff, sizeof(ones));
	chacha_tests(cases);
	poly_tests(cases);
	emit_tests(cases);
	printf("test_arch: %lu random cases of each kind (seed 0x%" PRIx64 "), %lu failures\n",
	       cases, seed, failures);
	return failures == 0 ? 0 : 1;
}
