// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run-time choice of the x86-64 cores: one level for ChaCha20, Poly1305
 * and the AEAD together (crypto/arch/glue.h, enum crypto_x86_level).
 *
 * The level in use is one static word, 0 until the first call (or
 * crypto_x86_set_level()) sets it.  Two threads that race on the first call
 * both store the same value; relaxed atomics keep that race defined without
 * a fence on every packet.
 *
 * __builtin_cpu_supports (libgcc / compiler-rt) reports AVX2 and the AVX-512
 * extensions only when the OS also saves their registers (XCR0: ymm for
 * AVX2; opmask, the upper zmm halves and zmm16..31 for AVX-512), so a kernel
 * without that state support gets a lower level.
 */
#include "crypto/arch/glue.h"

static int crypto_x86_level_used;

int crypto_x86_cpu_level(void)
{
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2"))
		return CRYPTO_X86_GENERIC;
	/* the AVX-512 cores use F, VL (ymm forms), BW (byte masks) and IFMA */
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512ifma"))
		return CRYPTO_X86_AVX512;
	return CRYPTO_X86_AVX2;
}

int crypto_x86_set_level(int max)
{
	int level = crypto_x86_cpu_level();

	if (level > max)
		level = max;
	if (level < CRYPTO_X86_GENERIC)
		level = CRYPTO_X86_GENERIC;
	__atomic_store_n(&crypto_x86_level_used, level, __ATOMIC_RELAXED);
	return level;
}

int crypto_x86_level(void)
{
	int level = __atomic_load_n(&crypto_x86_level_used, __ATOMIC_RELAXED);

	if (level == 0)
		level = crypto_x86_set_level(CRYPTO_X86_AVX512);
	return level;
}
