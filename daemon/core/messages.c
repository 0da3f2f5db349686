// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arithmetic of messages.h that is not inline: 64-bit quotients by
 * constants, for the clock conversions (TAI64N, logs) and the timer jitter.
 */
#include "daemon/core/messages.h"

/*
 * On 32-bit MIPS a 64-bit `/` or `%` is a call to libgcc's __udivdi3 or
 * __umoddi3 (2.2 KB together).  This is long division in 10-bit digits,
 * most significant first: the remainder stays below d < 2^22, so
 * remainder << 10 | digit fits 32 bits.  Seven 32-bit divisions.
 */
uint64_t wg_divmod_small(uint64_t n, uint32_t d, uint32_t *rem)
{
	uint64_t q = 0;
	uint32_t r = 0, cur;
	int shift;

	for (shift = 60; shift >= 0; shift -= 10) {
		cur = r << 10 | ((uint32_t)(n >> shift) & 0x3ff);
		q = q << 10 | cur / d;
		r = cur % d;
	}
	*rem = r;
	return q;
}

/* 10^9 = 2^9 * 1953125: the power of two by shifting. */
uint64_t wg_ns_to_sec(uint64_t ns, uint32_t *rem_ns)
{
	uint32_t r;
	uint64_t sec = wg_divmod_small(ns >> 9, 1953125, &r);

	*rem_ns = r << 9 | ((uint32_t)ns & 511);
	return sec;
}
