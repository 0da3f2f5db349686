// SPDX-License-Identifier: GPL-2.0-only
/* Constant-time comparison, wiping of secrets, and the system's random bytes. */
#include "crypto/util.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

/*
 * memset() through a volatile function pointer: the compiler cannot prove
 * which function is called, so it cannot drop the "dead" store to memory that
 * is about to go out of scope.  The empty asm with a "memory" clobber then
 * makes the zeros visible to any later read the compiler might reorder.
 */
static void *(*const volatile crypto_memset)(void *, int, size_t) = memset;

void crypto_wipe(void *p, size_t n)
{
	crypto_memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

void crypto_copy32(void *dst, const void *src)
{
	memcpy(dst, src, 32);
}

/*
 * Hides d's value from the optimiser: an empty asm that may have changed it.
 * The constant-time check built with MemorySanitizer (WGD_CT_MSAN) counts an
 * asm operand as a use of a secret; there a volatile round trip hides the
 * value as well and passes MSan's shadow through.
 */
#ifdef WGD_CT_MSAN
#define CRYPTO_HIDE(d) do { volatile uint32_t h_ = (d); (d) = h_; } while (0)
#else
#define CRYPTO_HIDE(d) __asm__("" : "+r"(d))
#endif

/*
 * Both functions below OR every difference into one accumulator and look at
 * it only at the end: no early exit, so the time depends on n alone.
 * CRYPTO_HIDE in the loop hides the accumulator's value from the compiler, so
 * that it cannot stop once the accumulator could no longer change.
 * crypto_equal() takes 4 bytes a load (a 16-byte tag is 4 words, not 16
 * bytes: 72 instructions a call instead of 134 on MIPS32); (d | -d) has its
 * top bit set exactly when d is not zero.  In crypto_is_zero() d < 256, and
 * (d - 1) >> 8 has bit 0 set exactly when d is zero.
 */
bool crypto_equal(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a;
	const uint8_t *y = b;
	uint32_t d = 0, u, v;
	size_t i = 0;

	for (; n - i >= 4; i += 4) {
		memcpy(&u, x + i, 4);
		memcpy(&v, y + i, 4);
		d |= u ^ v;
		CRYPTO_HIDE(d);
	}
	for (; i < n; i++) {
		d |= (uint32_t)(x[i] ^ y[i]);
		CRYPTO_HIDE(d);
	}
	return ((d | (0u - d)) >> 31) == 0;
}

bool crypto_is_zero(const void *p, size_t n)
{
	const uint8_t *x = p;
	uint32_t d = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		d |= x[i];
		CRYPTO_HIDE(d);
	}
	return (1 & ((d - 1) >> 8)) != 0;
}

/*
 * getrandom(2) with flags 0 blocks only until the kernel's pool is first
 * initialised and then never fails for lack of entropy.  A signal can
 * interrupt it (EINTR) and requests above 256 bytes may return short, so loop.
 */
bool crypto_random(void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p += got;
		n -= (size_t)got;
	}
	return true;
}
