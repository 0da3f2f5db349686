/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which ChaCha20 and Poly1305 cores the front ends call, chosen at build time.
 *
 * chacha20.c and poly1305.c call only these four names:
 *   CHACHA20_XOR_CORE(dst, src, len, state)      see chacha20_impl.h
 *   POLY1305_CORE_INIT(core, r)                  see poly1305_impl.h
 *   POLY1305_CORE_BLOCKS(core, in, len, padbit)
 *   POLY1305_CORE_EMIT(core, mac, s)
 * where core points at struct poly1305_ctx.core (80 bytes, 160 on x86-64;
 * 8-byte aligned).
 *
 * Default: the portable C cores, with 44-bit-limb Poly1305 wherever the
 * compiler has unsigned __int128 and 26-bit limbs elsewhere.
 *
 * WGD_ASM_MIPS32R2 (defined by Meson when -Dasm selects crypto/arch/mips32r2)
 * maps the names to the assembly cores declared below, which take exactly the
 * arguments of the generic ones.  The generic cores stay compiled and exported
 * either way, so tests and benchmarks can compare the two.
 *
 * WGD_ASM_X86_64 (defined by Meson on x86-64 unless -Dasm=disabled) maps
 * CHACHA20_XOR_CORE to chacha20_x86_xor and POLY1305_CORE_BLOCKS to
 * poly1305_x86_blocks, which call the core of the level in use
 * (crypto_x86_level(): generic, AVX2 or AVX-512, the CPU's best unless a test
 * or benchmark capped it; x86_64/cpu.c).  The vector Poly1305 cores, four
 * blocks a step with AVX2 and eight with AVX-512 IFMA, extend the 44-bit
 * generic core's state (so _INIT and _EMIT are one pair for all) and take
 * over from a length on (256 bytes for AVX2, 128 for AVX-512).  It
 * also defines CHACHA20POLY1305_ARCH_SEAL and _OPEN, which
 * chacha20poly1305.c tries before its generic code: from the AVX2 level and
 * from 65 bytes, the Poly1305 key comes out of the first vector group of
 * ChaCha20 blocks.  The generic cores stay compiled, exported and testable.
 *
 * Adding an architecture: declare its cores under a new #if branch and map the
 * four names; nothing else in crypto/ changes.
 */
#ifndef WGD_CRYPTO_ARCH_GLUE_H
#define WGD_CRYPTO_ARCH_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/chacha20_impl.h"
#include "crypto/poly1305_impl.h"

#if defined(WGD_ASM_MIPS32R2)

void chacha20_mips_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);
void poly1305_mips_init(void *core, const uint8_t r[16]);
void poly1305_mips_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);
void poly1305_mips_emit(void *core, uint8_t mac[16], const uint8_t s[16]);

#define CHACHA20_XOR_CORE chacha20_mips_xor
#define POLY1305_CORE_INIT poly1305_mips_init
#define POLY1305_CORE_BLOCKS poly1305_mips_blocks
#define POLY1305_CORE_EMIT poly1305_mips_emit

#else

#if defined(WGD_ASM_X86_64)
#include <stdbool.h>

/*
 * The x86-64 cores in use, one level for ChaCha20, Poly1305 and the AEAD
 * (x86_64/cpu.c): the highest the CPU and OS support unless a test or
 * benchmark capped it; the daemon never sets it.
 */
enum crypto_x86_level {
	CRYPTO_X86_GENERIC = 1,	/* the generic C cores */
	CRYPTO_X86_AVX2,	/* AVX2 */
	CRYPTO_X86_AVX512,	/* AVX-512 F, VL, BW and IFMA */
};
/* What this CPU (and OS) can run. */
int crypto_x86_cpu_level(void);
/* Use at most max (and at most what the CPU has); returns the level now in use. */
int crypto_x86_set_level(int max);
/* The level in use, chosen at the first call (the CPU's best) if not set. */
int crypto_x86_level(void);

/* Eight blocks at a time; call only where the CPU has AVX2. */
void chacha20_avx2_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);
/*
 * Sixteen blocks at a time (eight for what is left of 512 bytes or less),
 * any length in vector registers; call only at the AVX-512 level.
 */
void chacha20_avx512_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);
/* Keystream for len <= 1024 bytes from block state[12] into out; the state is unchanged.  AVX-512 only. */
void chacha20_avx512_stream(uint8_t *out, size_t len, const uint32_t state[16]);
/* The core crypto_x86_level() selects. */
void chacha20_x86_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);

/* Keystream blocks state[12] .. state[12] + 7 into out; the state is unchanged.  AVX2 only. */
void chacha20_avx2_stream8(uint8_t out[512], const uint32_t state[16]);
/* dst = src XOR ks, len bytes (dst may equal src).  AVX2 only. */
void chacha20_avx2_xor_ks(uint8_t *dst, const uint8_t *src, const uint8_t *ks, size_t len);

#define CHACHA20_XOR_CORE chacha20_x86_xor

/*
 * The AEAD (x86_64/chacha20poly1305_x86.c): from the AVX2 level and for
 * inputs longer than one block, the Poly1305 key comes out of the first
 * vector group of ChaCha20 blocks (eight with AVX2; sixteen with AVX-512
 * when the data needs more than seven) with the keystream of the first
 * data bytes, instead of a scalar block of its own.  Each returns false
 * without touching anything when it does not apply; chacha20poly1305.c
 * then runs the generic code.  Open verifies the tag before it writes dst.
 */
bool chacha20poly1305_x86_seal(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *ad,
			       size_t ad_len, const uint8_t nonce[12], const uint8_t key[32]);
/* ct_len excludes the tag at src + ct_len; *ok is the verdict when it returns true. */
bool chacha20poly1305_x86_open(bool *ok, uint8_t *dst, const uint8_t *src, size_t ct_len,
			       const uint8_t *ad, size_t ad_len, const uint8_t nonce[12],
			       const uint8_t key[32]);

#define CHACHA20POLY1305_ARCH_SEAL chacha20poly1305_x86_seal
#define CHACHA20POLY1305_ARCH_OPEN chacha20poly1305_x86_open

/*
 * Poly1305, four blocks at a time with AVX2 (x86_64/poly1305_avx2.c).  The
 * state is the 44-bit core's followed by the powers of r, so _init and
 * _emit serve both cores; _blocks of the AVX2 core takes any multiple of 16
 * bytes (the tail through the 44-bit core) and runs only where the CPU has
 * AVX2.
 */
void poly1305_avx2_init(void *core, const uint8_t r[16]);
void poly1305_avx2_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);
void poly1305_avx2_emit(void *core, uint8_t mac[16], const uint8_t s[16]);
/*
 * Poly1305, eight blocks at a time with AVX-512 IFMA in the 44-bit core's
 * limbs (x86_64/poly1305_avx512.c), on the same state: _init and _emit are
 * the AVX2 core's; takes any multiple of 16 bytes and runs only at the
 * AVX-512 level.
 */
void poly1305_avx512_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);
/*
 * By crypto_x86_level() and the length: poly1305_avx512_blocks from 128
 * bytes at the AVX-512 level, poly1305_avx2_blocks from 256 at the AVX2
 * level, else poly1305_64_blocks.
 */
void poly1305_x86_blocks(void *core, const uint8_t *in, size_t len, uint32_t padbit);

#define POLY1305_CORE_INIT poly1305_avx2_init
#define POLY1305_CORE_BLOCKS poly1305_x86_blocks
#define POLY1305_CORE_EMIT poly1305_avx2_emit

#else
#define CHACHA20_XOR_CORE chacha20_generic_xor
#endif
#if defined(WGD_ASM_X86_64)
/* mapped above */
#elif defined(POLY1305_HAVE_64)
#define POLY1305_CORE_INIT poly1305_64_init
#define POLY1305_CORE_BLOCKS poly1305_64_blocks
#define POLY1305_CORE_EMIT poly1305_64_emit
#else
#define POLY1305_CORE_INIT poly1305_32_init
#define POLY1305_CORE_BLOCKS poly1305_32_blocks
#define POLY1305_CORE_EMIT poly1305_32_emit
#endif

#endif

#endif
