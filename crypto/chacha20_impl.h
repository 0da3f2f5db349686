/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ChaCha20 stream cores.  Each XORs len bytes of keystream for state into
 * dst (any alignment, dst may equal src) and advances state[12] by the number
 * of blocks used, a partial last block counting as one.  Exported so that
 * tests and benchmarks can compare an accelerated core with the generic one.
 */
#ifndef WGD_CRYPTO_CHACHA20_IMPL_H
#define WGD_CRYPTO_CHACHA20_IMPL_H

#include <stddef.h>
#include <stdint.h>

void chacha20_generic_xor(uint8_t *dst, const uint8_t *src, size_t len, uint32_t state[16]);

#endif
