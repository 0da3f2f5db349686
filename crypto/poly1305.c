// SPDX-License-Identifier: GPL-2.0-only
/*
 * Poly1305 front end (RFC 8439 §2.5): buffering of partial blocks and the
 * final padding.  The arithmetic lives in the block core that
 * crypto/arch/glue.h selects.
 */
#include "crypto/poly1305.h"

#include "crypto/arch/glue.h"
#include "crypto/bytes.h"
#include "crypto/util.h"

void poly1305_init(struct poly1305_ctx *ctx, const uint8_t key[POLY1305_KEY_SIZE])
{
	POLY1305_CORE_INIT(&ctx->core, key);
	/* word copies, not memcpy: gcc turns a byte loop into a libc call at -Os */
	le32_store(ctx->s + 0, le32_load(key + 16));
	le32_store(ctx->s + 4, le32_load(key + 20));
	le32_store(ctx->s + 8, le32_load(key + 24));
	le32_store(ctx->s + 12, le32_load(key + 28));
	ctx->buflen = 0;
}

void poly1305_update(struct poly1305_ctx *ctx, const uint8_t *in, size_t len)
{
	size_t full;

	if (ctx->buflen > 0) {
		while (len > 0 && ctx->buflen < POLY1305_BLOCK_SIZE) {
			ctx->buf[ctx->buflen++] = *in++;
			len--;
		}
		if (ctx->buflen < POLY1305_BLOCK_SIZE)
			return;
		/* full 16-byte blocks carry the 2^128 bit (padbit 1) */
		POLY1305_CORE_BLOCKS(&ctx->core, ctx->buf, POLY1305_BLOCK_SIZE, 1);
		ctx->buflen = 0;
	}
	full = len & ~(size_t)(POLY1305_BLOCK_SIZE - 1);
	if (full > 0) {
		POLY1305_CORE_BLOCKS(&ctx->core, in, full, 1);
		in += full;
		len -= full;
	}
	while (len > 0) {
		ctx->buf[ctx->buflen++] = *in++;
		len--;
	}
}

void poly1305_final(struct poly1305_ctx *ctx, uint8_t mac[POLY1305_MAC_SIZE])
{
	size_t i;

	/*
	 * A final partial block gets a 1 byte right after the message and
	 * zeros above it; its 2^128 bit is then not set (padbit 0), as the
	 * "1" is already inside the 16 bytes (RFC 8439 §2.5.1).
	 */
	if (ctx->buflen > 0) {
		ctx->buf[ctx->buflen] = 1;
		for (i = ctx->buflen + 1; i < POLY1305_BLOCK_SIZE; i++)
			ctx->buf[i] = 0;
		POLY1305_CORE_BLOCKS(&ctx->core, ctx->buf, POLY1305_BLOCK_SIZE, 0);
	}
	POLY1305_CORE_EMIT(&ctx->core, mac, ctx->s);
	crypto_wipe(ctx, sizeof(*ctx));
}

void poly1305(uint8_t mac[POLY1305_MAC_SIZE], const uint8_t *in, size_t len,
	      const uint8_t key[POLY1305_KEY_SIZE])
{
	struct poly1305_ctx ctx;

	poly1305_init(&ctx, key);
	poly1305_update(&ctx, in, len);
	poly1305_final(&ctx, mac);
}
