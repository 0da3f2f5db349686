// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixed workloads whose cost tools/mips-cost measures with
 * ../shared/tools/mips-count/count.sh (exact qemu instruction counts and a
 * 24K-family stall estimate).  Each cost_* function is one measured call,
 * kept out of line and uncloned (gcc's noipa) so that the counter finds it
 * by name:
 *   cost_chacha20   ChaCha20 over 4096 bytes (64 blocks), chacha20_xor()
 *   cost_poly1305   Poly1305 over 4096 bytes (256 blocks), poly1305_update()
 *   cost_seal       ChaCha20-Poly1305 seal of a 1420-byte packet, no AD,
 *                   chacha20poly1305_encrypt(), the WireGuard data path
 * All buffers are 16-byte aligned.  Built by tools/mips-cost, not by Meson.
 */
#include <stdint.h>
#include <stdio.h>

#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"

#define COST_STREAM_LEN 4096
#define COST_SEAL_LEN 1420
#define COST_CALLS 3

static uint8_t cost_in[COST_STREAM_LEN] __attribute__((aligned(16)));
static uint8_t cost_out[COST_STREAM_LEN + 16] __attribute__((aligned(16)));
static const uint8_t cost_key[32] __attribute__((aligned(16))) = {
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
};
static const uint8_t cost_nonce[12] = { 7, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47 };

__attribute__((noipa, used)) static void cost_chacha20(struct chacha20_ctx *ctx)
{
	chacha20_xor(ctx, cost_out, cost_in, COST_STREAM_LEN);
}

__attribute__((noipa, used)) static void cost_poly1305(struct poly1305_ctx *ctx)
{
	poly1305_update(ctx, cost_in, COST_STREAM_LEN);
}

__attribute__((noipa, used)) static void cost_seal(uint64_t counter)
{
	chacha20poly1305_encrypt(cost_out, cost_in, COST_SEAL_LEN, NULL, 0, counter, cost_key);
}

int main(void)
{
	struct chacha20_ctx chacha;
	struct poly1305_ctx poly;
	uint8_t mac[16];
	uint32_t sum = 0;
	int i;

	for (i = 0; i < COST_STREAM_LEN; i++)
		cost_in[i] = (uint8_t)(i * 13 + 1);
	chacha20_init(&chacha, cost_key, cost_nonce, 1);
	poly1305_init(&poly, cost_key);
	for (i = 0; i < COST_CALLS; i++) {
		cost_chacha20(&chacha);
		cost_poly1305(&poly);
		cost_seal((uint64_t)i);
		sum += cost_out[i];
	}
	poly1305_final(&poly, mac);
	chacha20_clear(&chacha);
	/* printed so that no call can be optimised away */
	printf("mips-cost-driver: %08x %02x%02x\n", sum, mac[0], mac[1]);
	return 0;
}
