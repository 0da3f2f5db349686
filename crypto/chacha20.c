// SPDX-License-Identifier: GPL-2.0-only
/* ChaCha20 (RFC 8439 §2.3-2.4) and HChaCha20 (draft-irtf-cfrg-xchacha §2.2). */
#include "crypto/chacha20.h"
#include "crypto/chacha20_impl.h"

#include "crypto/arch/glue.h"
#include "crypto/bytes.h"
#include "crypto/util.h"

#include <string.h>

/* "expand 32-byte k" as four little-endian words (RFC 8439 §2.3). */
#define CHACHA20_C0 0x61707865u
#define CHACHA20_C1 0x3320646eu
#define CHACHA20_C2 0x79622d32u
#define CHACHA20_C3 0x6b206574u

/*
 * The quarter round of RFC 8439 §2.1; ROL is rol32 for single words and
 * chacha20_v4_rol for four blocks side by side.
 */
#define CHACHA20_QR(ROL, a, b, c, d)			\
	do {						\
		a += b; d ^= a; d = ROL(d, 16);		\
		c += d; b ^= c; b = ROL(b, 12);		\
		a += b; d ^= a; d = ROL(d, 8);		\
		c += d; b ^= c; b = ROL(b, 7);		\
	} while (0)

/*
 * 20 rounds = 10 double rounds: a column round then a diagonal round
 * (RFC 8439 §2.3).  A macro over named locals rather than a function over an
 * array, so that the 16 words live in registers (as far as the target has
 * them) and never round-trip through memory.
 */
#define CHACHA20_ROUNDS(ROL, x)							\
	do {									\
		int r_;								\
		for (r_ = 0; r_ < 10; r_++) {					\
			CHACHA20_QR(ROL, x##0, x##4, x##8, x##12);		\
			CHACHA20_QR(ROL, x##1, x##5, x##9, x##13);		\
			CHACHA20_QR(ROL, x##2, x##6, x##10, x##14);		\
			CHACHA20_QR(ROL, x##3, x##7, x##11, x##15);		\
			CHACHA20_QR(ROL, x##0, x##5, x##10, x##15);		\
			CHACHA20_QR(ROL, x##1, x##6, x##11, x##12);		\
			CHACHA20_QR(ROL, x##2, x##7, x##8, x##13);		\
			CHACHA20_QR(ROL, x##3, x##4, x##9, x##14);		\
		}								\
	} while (0)

#define CHACHA20_LOAD(x, s)							\
	uint32_t x##0 = (s)[0], x##1 = (s)[1], x##2 = (s)[2], x##3 = (s)[3];	\
	uint32_t x##4 = (s)[4], x##5 = (s)[5], x##6 = (s)[6], x##7 = (s)[7];	\
	uint32_t x##8 = (s)[8], x##9 = (s)[9], x##10 = (s)[10];		\
	uint32_t x##11 = (s)[11], x##12 = (s)[12], x##13 = (s)[13];		\
	uint32_t x##14 = (s)[14], x##15 = (s)[15]

/* out word i = keystream word i XOR in word i; in may be NULL (pure keystream) */
#define CHACHA20_OUT(dst, src, i, v)						\
	le32_store((dst) + 4 * (i), (src) ? le32_load((src) + 4 * (i)) ^ (v) : (v))

/*
 * One block: dst[0..63] = src[0..63] XOR ChaCha20(state), or the bare
 * keystream when src is NULL.  Always inlined so that each caller gets a
 * copy specialised for its src.
 */
static inline __attribute__((always_inline)) void
chacha20_do_block(uint8_t *dst, const uint8_t *src, const uint32_t s[16])
{
	CHACHA20_LOAD(x, s);

	CHACHA20_ROUNDS(rol32, x);
	CHACHA20_OUT(dst, src, 0, x0 + s[0]);
	CHACHA20_OUT(dst, src, 1, x1 + s[1]);
	CHACHA20_OUT(dst, src, 2, x2 + s[2]);
	CHACHA20_OUT(dst, src, 3, x3 + s[3]);
	CHACHA20_OUT(dst, src, 4, x4 + s[4]);
	CHACHA20_OUT(dst, src, 5, x5 + s[5]);
	CHACHA20_OUT(dst, src, 6, x6 + s[6]);
	CHACHA20_OUT(dst, src, 7, x7 + s[7]);
	CHACHA20_OUT(dst, src, 8, x8 + s[8]);
	CHACHA20_OUT(dst, src, 9, x9 + s[9]);
	CHACHA20_OUT(dst, src, 10, x10 + s[10]);
	CHACHA20_OUT(dst, src, 11, x11 + s[11]);
	CHACHA20_OUT(dst, src, 12, x12 + s[12]);
	CHACHA20_OUT(dst, src, 13, x13 + s[13]);
	CHACHA20_OUT(dst, src, 14, x14 + s[14]);
	CHACHA20_OUT(dst, src, 15, x15 + s[15]);
}

/*
 * Four blocks at once, where the target has 128-bit vectors (SSE2 on every
 * x86-64, NEON on arm64) and the byte order is little-endian.  Written with
 * GNU C vector types, not intrinsics: the same source serves both, and the
 * arithmetic is exactly the scalar code's, one block per lane ("vertical"
 * layout: vector i holds word i of blocks n, n+1, n+2, n+3).  Elsewhere
 * (MIPS32, big-endian) the scalar path below is the whole core.
 */
#if (defined(__SSE2__) || defined(__ARM_NEON)) && !BYTES_BIG_ENDIAN
#define CHACHA20_HAVE_V4 1

typedef uint32_t chacha20_v4 __attribute__((vector_size(16)));
/* an unaligned, may_alias 16-byte access, as bytes.h does for words */
struct chacha20_v4_bytes { chacha20_v4 v; } __attribute__((packed, may_alias));

#if defined(__clang__)
#define CHACHA20_V4_SHUFFLE(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define CHACHA20_V4_SHUFFLE(a, b, i, j, k, l) __builtin_shuffle(a, b, (chacha20_v4){ i, j, k, l })
#endif

typedef uint16_t chacha20_v8h __attribute__((vector_size(16)));

static inline chacha20_v4 chacha20_v4_rol(chacha20_v4 v, unsigned int n)
{
	if (n == 16) {
		chacha20_v8h h = (chacha20_v8h)v;
#if defined(__clang__)
		h = __builtin_shufflevector(h, h, 1, 0, 3, 2, 5, 4, 7, 6);
#else
		h = __builtin_shuffle(h, (chacha20_v8h){ 1, 0, 3, 2, 5, 4, 7, 6 });
#endif
		return (chacha20_v4)h;
	}
	return (v << n) | (v >> (32 - n));
}

/*
 * Transposes words g..g+3 of the four blocks (vectors a, b, c, d) into one
 * vector per block and XORs each into its block's 16 bytes at offset 16 g.
 */
static inline __attribute__((always_inline)) void
chacha20_v4_out(uint8_t *dst, const uint8_t *src, size_t g, chacha20_v4 a, chacha20_v4 b,
		chacha20_v4 c, chacha20_v4 d)
{
	chacha20_v4 ab_lo = CHACHA20_V4_SHUFFLE(a, b, 0, 4, 1, 5);
	chacha20_v4 cd_lo = CHACHA20_V4_SHUFFLE(c, d, 0, 4, 1, 5);
	chacha20_v4 ab_hi = CHACHA20_V4_SHUFFLE(a, b, 2, 6, 3, 7);
	chacha20_v4 cd_hi = CHACHA20_V4_SHUFFLE(c, d, 2, 6, 3, 7);
	chacha20_v4 o[4];
	size_t j;

	o[0] = CHACHA20_V4_SHUFFLE(ab_lo, cd_lo, 0, 1, 4, 5);
	o[1] = CHACHA20_V4_SHUFFLE(ab_lo, cd_lo, 2, 3, 6, 7);
	o[2] = CHACHA20_V4_SHUFFLE(ab_hi, cd_hi, 0, 1, 4, 5);
	o[3] = CHACHA20_V4_SHUFFLE(ab_hi, cd_hi, 2, 3, 6, 7);
	for (j = 0; j < 4; j++) {
		struct chacha20_v4_bytes *out = (struct chacha20_v4_bytes *)(dst + 64 * j + 16 * g);

		if (src != NULL)
			out->v = ((const struct chacha20_v4_bytes *)(src + 64 * j + 16 * g))->v ^ o[j];
		else
			out->v = o[j];
	}
}

/* Four blocks, counters s[12] .. s[12] + 3 (mod 2^32): 256 bytes of dst. */
static inline __attribute__((always_inline)) void
chacha20_v4_blocks(uint8_t *dst, const uint8_t *src, const uint32_t s[16])
{
	const chacha20_v4 ctr = { 0, 1, 2, 3 };
	chacha20_v4 x0 = { s[0], s[0], s[0], s[0] }, x1 = { s[1], s[1], s[1], s[1] };
	chacha20_v4 x2 = { s[2], s[2], s[2], s[2] }, x3 = { s[3], s[3], s[3], s[3] };
	chacha20_v4 x4 = { s[4], s[4], s[4], s[4] }, x5 = { s[5], s[5], s[5], s[5] };
	chacha20_v4 x6 = { s[6], s[6], s[6], s[6] }, x7 = { s[7], s[7], s[7], s[7] };
	chacha20_v4 x8 = { s[8], s[8], s[8], s[8] }, x9 = { s[9], s[9], s[9], s[9] };
	chacha20_v4 x10 = { s[10], s[10], s[10], s[10] }, x11 = { s[11], s[11], s[11], s[11] };
	chacha20_v4 x12 = (chacha20_v4){ s[12], s[12], s[12], s[12] } + ctr;
	chacha20_v4 x13 = { s[13], s[13], s[13], s[13] };
	chacha20_v4 x14 = { s[14], s[14], s[14], s[14] }, x15 = { s[15], s[15], s[15], s[15] };

	CHACHA20_ROUNDS(chacha20_v4_rol, x);
	x0 += (chacha20_v4){ s[0], s[0], s[0], s[0] };
	x1 += (chacha20_v4){ s[1], s[1], s[1], s[1] };
	x2 += (chacha20_v4){ s[2], s[2], s[2], s[2] };
	x3 += (chacha20_v4){ s[3], s[3], s[3], s[3] };
	chacha20_v4_out(dst, src, 0, x0, x1, x2, x3);
	x4 += (chacha20_v4){ s[4], s[4], s[4], s[4] };
	x5 += (chacha20_v4){ s[5], s[5], s[5], s[5] };
	x6 += (chacha20_v4){ s[6], s[6], s[6], s[6] };
	x7 += (chacha20_v4){ s[7], s[7], s[7], s[7] };
	chacha20_v4_out(dst, src, 1, x4, x5, x6, x7);
	x8 += (chacha20_v4){ s[8], s[8], s[8], s[8] };
	x9 += (chacha20_v4){ s[9], s[9], s[9], s[9] };
	x10 += (chacha20_v4){ s[10], s[10], s[10], s[10] };
	x11 += (chacha20_v4){ s[11], s[11], s[11], s[11] };
	chacha20_v4_out(dst, src, 2, x8, x9, x10, x11);
	x12 += (chacha20_v4){ s[12], s[12], s[12], s[12] } + ctr;
	x13 += (chacha20_v4){ s[13], s[13], s[13], s[13] };
	x14 += (chacha20_v4){ s[14], s[14], s[14], s[14] };
	x15 += (chacha20_v4){ s[15], s[15], s[15], s[15] };
	chacha20_v4_out(dst, src, 3, x12, x13, x14, x15);
}
#define CHACHA20_TAIL_SIZE (4 * CHACHA20_BLOCK_SIZE)
#else
#define CHACHA20_TAIL_SIZE CHACHA20_BLOCK_SIZE
#endif /* vectors */

WGD_OUT_OF_LINE void chacha20_block(uint8_t out[CHACHA20_BLOCK_SIZE], const uint32_t state[16])
{
#if defined(WGD_ASM_MIPS32R2)
	/*
	 * The assembly core's keystream over zeros (on a copy of the state,
	 * whose counter it advances): the C rounds are then not in a MIPS
	 * executable at all, 760-888 bytes of a router's flash, for about 50
	 * more instructions per block (the copies), once per packet.
	 */
	uint32_t s[16];

	memcpy(s, state, sizeof(s));
	memset(out, 0, CHACHA20_BLOCK_SIZE);
	chacha20_mips_xor(out, out, CHACHA20_BLOCK_SIZE, s);
	crypto_wipe(s, sizeof(s));
#else
	chacha20_do_block(out, NULL, state);
#endif
}

void chacha20_generic_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16])
{
	uint8_t block[CHACHA20_TAIL_SIZE];
	size_t i;

#if defined(CHACHA20_HAVE_V4)
	for (; len >= 4 * CHACHA20_BLOCK_SIZE; len -= 4 * CHACHA20_BLOCK_SIZE) {
		chacha20_v4_blocks(dst, src, state);
		state[12] += 4;	/* wraps mod 2^32 (RFC 8439 §2.4) */
		dst += 4 * CHACHA20_BLOCK_SIZE;
		src += 4 * CHACHA20_BLOCK_SIZE;
	}
	/* a tail of more than two blocks: four at once into the stack, then XOR */
	if (len > 2 * CHACHA20_BLOCK_SIZE) {
		chacha20_v4_blocks(block, NULL, state);
		state[12] += (uint32_t)((len + CHACHA20_BLOCK_SIZE - 1) / CHACHA20_BLOCK_SIZE);
		goto xor_tail;
	}
#endif
	for (; len >= CHACHA20_BLOCK_SIZE; len -= CHACHA20_BLOCK_SIZE) {
		chacha20_do_block(dst, src, state);
		state[12]++;
		dst += CHACHA20_BLOCK_SIZE;
		src += CHACHA20_BLOCK_SIZE;
	}
	if (len == 0)
		return;
	/* The partial last block: a whole keystream block on the stack. */
	chacha20_do_block(block, NULL, state);
	state[12]++;
#if defined(CHACHA20_HAVE_V4)
xor_tail:
#endif
	for (i = 0; i < len; i++)
		dst[i] = src[i] ^ block[i];
	crypto_wipe(block, sizeof(block));
}

void chacha20_init(struct chacha20_ctx *ctx, const uint8_t key[CHACHA20_KEY_SIZE],
		   const uint8_t nonce[CHACHA20_NONCE_SIZE], uint32_t counter)
{
	int i;

	ctx->state[0] = CHACHA20_C0;
	ctx->state[1] = CHACHA20_C1;
	ctx->state[2] = CHACHA20_C2;
	ctx->state[3] = CHACHA20_C3;
	for (i = 0; i < 8; i++)
		ctx->state[4 + i] = le32_load(key + 4 * i);
	ctx->state[12] = counter;
	for (i = 0; i < 3; i++)
		ctx->state[13 + i] = le32_load(nonce + 4 * i);
}

void chacha20_xor(struct chacha20_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len)
{
	CHACHA20_XOR_CORE(dst, src, len, ctx->state);
}

void chacha20_clear(struct chacha20_ctx *ctx)
{
	crypto_wipe(ctx, sizeof(*ctx));
}

/*
 * HChaCha20 (draft-irtf-cfrg-xchacha §2.2): the ChaCha20 state with the
 * 16-byte nonce in words 12..15, 20 rounds, and no final addition of the
 * input; the output is words 0..3 and 12..15.  Computed as a ChaCha20 block
 * (whose first nonce word is the block counter) with the input subtracted
 * again from those eight words, mod 2^32: one copy of the rounds in the
 * executable instead of two (HChaCha20 runs once per cookie reply; the
 * copy cost a router's build about 600 bytes).
 */
void hchacha20(uint8_t out[HCHACHA20_OUT_SIZE], const uint8_t nonce[HCHACHA20_NONCE_SIZE],
	       const uint8_t key[CHACHA20_KEY_SIZE])
{
	static const uint8_t words[8] = { 0, 1, 2, 3, 12, 13, 14, 15 };
	struct chacha20_ctx ctx;
	uint8_t block[CHACHA20_BLOCK_SIZE];
	int i;

	chacha20_init(&ctx, key, nonce + 4, le32_load(nonce));
	chacha20_block(block, ctx.state);
	for (i = 0; i < 8; i++)
		le32_store(out + 4 * i, le32_load(block + 4 * words[i]) - ctx.state[words[i]]);
	crypto_wipe(block, sizeof(block));
	chacha20_clear(&ctx);
}
