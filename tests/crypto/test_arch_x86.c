// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86-64 AVX2 and AVX-512 ChaCha20 cores (crypto/arch/x86_64/chacha20_avx2.c,
 * chacha20_avx512.c) against the generic C core, on 1 MiB of pseudo-random data:
 *   - the whole MiB at every source and destination offset 0..15, and in
 *     place at every offset;
 *   - every length 0..1100 at every source offset, in place and not;
 *   - random lengths 0..5000 at random offsets and counters, in one call or
 *     in chunks of whole blocks;
 *   - counters just below 2^32, so that the call wraps word 12 (the nonce
 *     words must stay put, as in the generic core);
 *   - the run-time dispatch: chacha20_x86_xor follows crypto_x86_set_level().
 * Outputs and final states must be equal, and the GUARD bytes on each side
 * of the output untouched.  Exits 77 (skipped) on a CPU without AVX2; the
 * AVX-512 core is checked where the CPU has it (and said to be skipped
 * elsewhere).
 * Usage: test_arch_x86 [CASES]  (random cases; seed from WGD_TEST_SEED)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/arch/glue.h"
#include "tests/lib/testutil.h"

#if !defined(WGD_ASM_X86_64)
#error "test_arch_x86 is built only with the x86-64 core (see tests/crypto/meson.build)"
#endif

#define DATA_SIZE (1024 * 1024)
#define GUARD 64		/* bytes checked on each side of an output */
#define BASE (GUARD + 16)	/* where outputs start, before the offset */
#define BUF_SIZE (BASE + 16 + DATA_SIZE + GUARD)
#define GUARD_BYTE 0xa5

typedef void core_fn(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);

static uint8_t data[BUF_SIZE];
/* the vector core under test, and its name in the messages */
static core_fn *under_test;
static const char *under_name;
static uint8_t out_ref[BUF_SIZE], out_avx[BUF_SIZE];
static struct tu_rng rng;

static void random_state(uint32_t state[16], int near_wrap)
{
	int i;

	for (i = 0; i < 16; i++)
		state[i] = (uint32_t)tu_rng_next(&rng);
	if (near_wrap)
		state[12] = 0xffffffffu - (uint32_t)tu_rng_below(&rng, 16);
}

/*
 * len bytes from data + soff (or, in place, from a copy of them at the
 * output) to BASE + doff of both output buffers, by core ref and core avx,
 * in random chunks of whole blocks when chunked.  Checks the bytes from
 * GUARD before to GUARD after the output, and the final states.
 */
static void compare(const char *what, core_fn *ref, core_fn *avx, size_t soff, size_t doff,
		    size_t len, const uint32_t state[16], int in_place, int chunked)
{
	uint32_t st_ref[16], st_avx[16];
	uint8_t *d_ref = out_ref + BASE + doff, *d_avx = out_avx + BASE + doff;
	const uint8_t *s_ref = in_place ? d_ref : data + BASE + soff;
	const uint8_t *s_avx = in_place ? d_avx : data + BASE + soff;
	size_t done = 0;

	memcpy(st_ref, state, sizeof(st_ref));
	memcpy(st_avx, state, sizeof(st_avx));
	memset(d_ref - GUARD, GUARD_BYTE, len + 2 * GUARD);
	memset(d_avx - GUARD, GUARD_BYTE, len + 2 * GUARD);
	if (in_place) {
		memcpy(d_ref, data + BASE + soff, len);
		memcpy(d_avx, data + BASE + soff, len);
	}
	do {
		size_t step = len - done;

		if (chunked && step > 64)
			step = 64 * (1 + tu_rng_below(&rng, step / 64));
		ref(d_ref + done, s_ref + done, step, st_ref);
		avx(d_avx + done, s_avx + done, step, st_avx);
		done += step;
	} while (done < len);
	tu_check_mem(d_avx - GUARD, d_ref - GUARD, len + 2 * GUARD,
		     "%s %s: len %zu, src +%zu, dst +%zu%s%s, counter 0x%08x", under_name, what, len, soff, doff,
		     in_place ? ", in place" : "", chunked ? ", chunked" : "", (unsigned)state[12]);
	tu_check(memcmp(st_ref, st_avx, sizeof(st_ref)) == 0,
		 "%s %s: final state, len %zu, counter 0x%08x", under_name, what, len, (unsigned)state[12]);
	/* the generic core is the reference: a partial block counts as one */
	tu_check(st_ref[12] == state[12] + (uint32_t)((len + 63) / 64) &&
		 memcmp(st_ref + 13, state + 13, 3 * sizeof(uint32_t)) == 0,
		 "%s: generic counter, len %zu", what, len);
}

static void whole_mib(void)
{
	uint32_t state[16];
	size_t s, d;

	for (s = 0; s < 16; s++) {
		for (d = 0; d < 16; d++) {
			random_state(state, (s + d) % 4 == 0);
			compare("whole MiB", chacha20_generic_xor, under_test, s, d, DATA_SIZE,
				state, 0, 0);
		}
		random_state(state, 0);
		compare("whole MiB", chacha20_generic_xor, under_test, s, s, DATA_SIZE, state,
			1, 0);
	}
}

static void every_length(void)
{
	uint32_t state[16];
	size_t len, s;

	for (len = 0; len <= 1100; len++)
		for (s = 0; s < 16; s++) {
			random_state(state, tu_rng_below(&rng, 4) == 0);
			compare("every length", chacha20_generic_xor, under_test, s,
				(s + len) % 16, len, state, (int)(s & 1), 0);
		}
}

static void random_cases(unsigned long cases)
{
	uint32_t state[16];
	unsigned long i;

	for (i = 0; i < cases; i++) {
		size_t len = tu_rng_below(&rng, 5001);
		size_t s = tu_rng_below(&rng, 16), d = tu_rng_below(&rng, 16);

		random_state(state, tu_rng_below(&rng, 4) == 0);
		compare("random", chacha20_generic_xor, under_test, s, d, len, state,
			tu_rng_below(&rng, 2) == 0, tu_rng_below(&rng, 3) == 0);
	}
}

/* Every counter from 2^32 - 24 to 2^32 - 1, across whole groups and tails. */
static void counter_wrap(void)
{
	static const size_t lens[] = { 1, 64, 200, 512, 513, 1000, 1024, 1025, 1420, 4096, 5000 };
	uint32_t state[16];
	size_t i;
	uint32_t k;

	for (k = 1; k <= 24; k++)
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			random_state(state, 0);
			state[12] = 0u - k;
			compare("counter wrap", chacha20_generic_xor, under_test, k % 16, i,
				lens[i], state, (int)(k & 1), 0);
		}
}

/* chacha20_x86_xor must run the core of the level crypto_x86_set_level() reports. */
static void dispatch(void)
{
	uint32_t state[16];

	random_state(state, 0);
	tu_check(crypto_x86_set_level(CRYPTO_X86_GENERIC) == CRYPTO_X86_GENERIC,
		 "set_level(generic) reports another level");
	compare("dispatch generic", chacha20_generic_xor, chacha20_x86_xor, 3, 5, 3000, state, 0, 0);
	tu_check(crypto_x86_set_level(CRYPTO_X86_AVX2) == CRYPTO_X86_AVX2,
		 "set_level(AVX2) on an AVX2 CPU reports another level");
	compare("dispatch avx2", chacha20_avx2_xor, chacha20_x86_xor, 3, 5, 3000, state, 0, 0);
	if (crypto_x86_cpu_level() < CRYPTO_X86_AVX512)
		return;
	tu_check(crypto_x86_set_level(CRYPTO_X86_AVX512) == CRYPTO_X86_AVX512,
		 "set_level(AVX-512) on an AVX-512 CPU reports another level");
	compare("dispatch avx512", chacha20_avx512_xor, chacha20_x86_xor, 3, 5, 3000, state, 0, 0);
}

/* One vector core against the generic core. */
static void check_core(core_fn *core, const char *name, unsigned long cases)
{
	under_test = core;
	under_name = name;
	whole_mib();
	every_length();
	random_cases(cases);
	counter_wrap();
}

int main(int argc, char **argv)
{
	unsigned long cases = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		printf("test_arch_x86: this CPU (or OS) has no AVX2: the AVX2 core cannot run here\n");
		return 77;
	}
	tu_rng_seed(&rng, tu_seed("test_arch_x86", 0x5eedaa52u));
	tu_rng_fill(&rng, data, sizeof(data));
	check_core(chacha20_avx2_xor, "avx2", cases);
	if (crypto_x86_cpu_level() >= CRYPTO_X86_AVX512)
		check_core(chacha20_avx512_xor, "avx512", cases);
	else
		printf("test_arch_x86: this CPU (or OS) has no AVX-512 (F, VL, BW, IFMA): the "
		       "AVX-512 core cannot run here and is not checked\n");
	dispatch();
	return tu_exit_status("test_arch_x86");
}
